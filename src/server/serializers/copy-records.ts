// Collection, backup and restore-job records on the wire (snake_case).
import type { BackupRow, RestoreJobRow } from '../../catalog/backups.js';
import type { CollectionRow } from '../../catalog/collections.js';
import type { ApiVersion } from '../api-version.js';
import { vectorSchemaFields } from './index-record.js';

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

/**
 * 2026-07 describes a backup's schema as the index schema (vector fields included) and
 * names a failed backup InitializationFailed; earlier versions use the metadata schema.
 */
export function backupRecord(b: BackupRow, version: ApiVersion): Record<string, unknown> {
  const v2607 = version === '2026-07';
  const out: Record<string, unknown> = {
    backup_id: b.id,
    source_index_name: b.sourceIndexName,
    source_index_id: b.sourceIndexId,
    name: b.name,
    description: b.description,
    status: v2607 && b.status === 'Failed' ? 'InitializationFailed' : b.status,
    cloud: b.cloud,
    region: b.region,
  };
  if (b.dimension !== null) out.dimension = b.dimension;
  Object.assign(out, {
    metric: b.metric,
    schema: v2607
      ? { fields: { ...b.schema.fields, ...vectorSchemaFields(b.vectorType, b.dimension, b.metric) } }
      : b.schema,
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
  // Not in Pinecone's RestoreJobModel (clients ignore it): why a Failed job failed.
  if (j.error !== null) out.error = j.error;
  return out;
}
