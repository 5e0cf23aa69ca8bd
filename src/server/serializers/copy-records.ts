// Collection, backup and restore-job records on the wire (snake_case).
import type { BackupRow, RestoreJobRow } from '../../catalog/backups.js';
import type { CollectionRow } from '../../catalog/collections.js';

export function collectionRecord(c: CollectionRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: c.name,
    status: c.status,
    environment: c.environment,
    size: c.size,
    vector_count: c.vectorCount,
  };
  if (c.dimension !== null) out.dimension = c.dimension;
  return out;
}

export function backupRecord(b: BackupRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    backup_id: b.id,
    source_index_name: b.sourceIndexName,
    source_index_id: b.sourceIndexId,
    name: b.name,
    description: b.description,
    status: b.status,
    cloud: b.cloud,
    region: b.region,
  };
  if (b.dimension !== null) out.dimension = b.dimension;
  Object.assign(out, {
    metric: b.metric,
    schema: b.schema,
    record_count: b.recordCount,
    namespace_count: b.namespaceCount,
    size_bytes: b.sizeBytes,
    tags: b.tags,
    created_at: b.createdAt,
  });
  return out;
}

export function restoreJobRecord(j: RestoreJobRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    restore_job_id: j.id,
    backup_id: j.sourceId,
    target_index_name: j.targetIndexName,
    target_index_id: j.targetIndexId,
    status: j.status,
    created_at: j.createdAt,
    percent_complete: j.percentComplete,
  };
  if (j.completedAt !== null) out.completed_at = j.completedAt;
  return out;
}
