// Backup rows and restore jobs. Both list newest first by `seq`, which never changes,
// so keyset page tokens hold the last seq seen.
import type { Db } from './database.js';
import { nowIso } from './ids.js';
import type { MetadataSchema, Metric, VectorType } from './indexes.js';

export type BackupStatus = 'Initializing' | 'Ready' | 'Failed';

export interface BackupRow {
  seq: number;
  id: string;
  projectId: string;
  name: string;
  description: string;
  sourceIndexId: string;
  sourceIndexName: string;
  cloud: string;
  region: string;
  dimension: number | null;
  metric: Metric;
  vectorType: VectorType;
  schema: MetadataSchema;
  tags: Record<string, string>;
  status: BackupStatus;
  namespaceCount: number;
  recordCount: number;
  sizeBytes: number;
  createdAt: string;
}

export type RestoreStatus = 'Pending' | 'Completed' | 'Failed';

export interface RestoreJobRow {
  seq: number;
  id: string;
  projectId: string;
  sourceKind: 'backup' | 'collection';
  sourceId: string;
  targetIndexId: string;
  targetIndexName: string;
  status: RestoreStatus;
  percentComplete: number;
  createdAt: string;
  completedAt: string | null;
  /** Why a Failed job failed; null otherwise. */
  error: string | null;
}

interface BackupSql {
  seq: number;
  id: string;
  project_id: string;
  name: string;
  description: string;
  source_index_id: string;
  source_index_name: string;
  cloud: string;
  region: string;
  dimension: number | null;
  metric: string;
  vector_type: string;
  schema: string;
  tags: string;
  status: string;
  namespace_count: number;
  record_count: number;
  size_bytes: number;
  created_at: string;
}

interface RestoreSql {
  seq: number;
  id: string;
  project_id: string;
  source_kind: string;
  source_id: string;
  target_index_id: string;
  target_index_name: string;
  status: string;
  percent_complete: number;
  created_at: string;
  completed_at: string | null;
  error: string | null;
}

const backupFromSql = (r: BackupSql): BackupRow => ({
  seq: r.seq,
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  description: r.description,
  sourceIndexId: r.source_index_id,
  sourceIndexName: r.source_index_name,
  cloud: r.cloud,
  region: r.region,
  dimension: r.dimension,
  metric: r.metric as Metric,
  vectorType: r.vector_type as VectorType,
  schema: JSON.parse(r.schema) as MetadataSchema,
  tags: JSON.parse(r.tags) as Record<string, string>,
  status: r.status as BackupStatus,
  namespaceCount: r.namespace_count,
  recordCount: r.record_count,
  sizeBytes: r.size_bytes,
  createdAt: r.created_at,
});

const restoreFromSql = (r: RestoreSql): RestoreJobRow => ({
  seq: r.seq,
  id: r.id,
  projectId: r.project_id,
  sourceKind: r.source_kind as RestoreJobRow['sourceKind'],
  sourceId: r.source_id,
  targetIndexId: r.target_index_id,
  targetIndexName: r.target_index_name,
  status: r.status as RestoreStatus,
  percentComplete: r.percent_complete,
  createdAt: r.created_at,
  completedAt: r.completed_at,
  error: r.error,
});

/** Keyset page: rows with seq below `before` (all when undefined), newest first. */
export interface SeqPage {
  before?: number;
  limit: number;
}

export class Backups {
  constructor(private readonly db: Db) {}

  get(projectId: string, id: string): BackupRow | undefined {
    const r = this.db
      .prepare<[string, string], BackupSql>('SELECT * FROM backups WHERE project_id = ? AND id = ?')
      .get(projectId, id);
    return r && backupFromSql(r);
  }

  getById(id: string): BackupRow | undefined {
    const r = this.db.prepare<[string], BackupSql>('SELECT * FROM backups WHERE id = ?').get(id);
    return r && backupFromSql(r);
  }

  /** A page of the project's backups, optionally of one source index name; one extra row tells "more". */
  page(projectId: string, indexName: string | undefined, page: SeqPage, sourceIndexId?: string): BackupRow[] {
    return this.db
      .prepare<{ p: string; n: string | null; i: string | null; b: number; l: number }, BackupSql>(
        `SELECT * FROM backups WHERE project_id = @p AND (@n IS NULL OR source_index_name = @n)
         AND (@i IS NULL OR source_index_id = @i) AND seq < @b ORDER BY seq DESC LIMIT @l`,
      )
      .all({
        p: projectId,
        n: indexName ?? null,
        i: sourceIndexId ?? null,
        b: page.before ?? Number.MAX_SAFE_INTEGER,
        l: page.limit,
      })
      .map(backupFromSql);
  }

  count(projectId: string): number {
    return (
      this.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM backups WHERE project_id = ?').get(projectId)
        ?.n ?? 0
    );
  }

  withStatus(status: BackupStatus): BackupRow[] {
    return this.db.prepare<[string], BackupSql>('SELECT * FROM backups WHERE status = ?').all(status).map(backupFromSql);
  }

  /** Inserts and returns the row with its assigned seq. */
  insert(b: Omit<BackupRow, 'seq'>): BackupRow {
    const info = this.db
      .prepare(
        `INSERT INTO backups (id, project_id, name, description, source_index_id, source_index_name, cloud,
           region, dimension, metric, vector_type, schema, tags, status, namespace_count, record_count,
           size_bytes, created_at)
         VALUES (@id, @projectId, @name, @description, @sourceIndexId, @sourceIndexName, @cloud,
           @region, @dimension, @metric, @vectorType, @schema, @tags, @status, @namespaceCount, @recordCount,
           @sizeBytes, @createdAt)`,
      )
      .run({ ...b, schema: JSON.stringify(b.schema), tags: JSON.stringify(b.tags) });
    return { ...b, seq: Number(info.lastInsertRowid) };
  }

  setCounts(id: string, records: number, namespaces: number): void {
    this.db.prepare('UPDATE backups SET record_count = ?, namespace_count = ? WHERE id = ?').run(records, namespaces, id);
  }

  finish(id: string, status: BackupStatus, sizeBytes: number): void {
    this.db.prepare('UPDATE backups SET status = ?, size_bytes = ? WHERE id = ?').run(status, sizeBytes, id);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM backups WHERE id = ?').run(id);
  }

  // ---- restore jobs ----

  getRestore(projectId: string, id: string): RestoreJobRow | undefined {
    const r = this.db
      .prepare<[string, string], RestoreSql>('SELECT * FROM restore_jobs WHERE project_id = ? AND id = ?')
      .get(projectId, id);
    return r && restoreFromSql(r);
  }

  restorePage(projectId: string, page: SeqPage): RestoreJobRow[] {
    return this.db
      .prepare<{ p: string; b: number; l: number }, RestoreSql>(
        `SELECT * FROM restore_jobs WHERE project_id = @p AND source_kind = 'backup' AND seq < @b
         ORDER BY seq DESC LIMIT @l`,
      )
      .all({ p: projectId, b: page.before ?? Number.MAX_SAFE_INTEGER, l: page.limit })
      .map(restoreFromSql);
  }

  pendingRestores(): RestoreJobRow[] {
    return this.db
      .prepare<[], RestoreSql>("SELECT * FROM restore_jobs WHERE status = 'Pending' ORDER BY seq")
      .all()
      .map(restoreFromSql);
  }

  pendingRestoresFrom(sourceId: string): RestoreJobRow[] {
    return this.db
      .prepare<[string], RestoreSql>("SELECT * FROM restore_jobs WHERE source_id = ? AND status = 'Pending'")
      .all(sourceId)
      .map(restoreFromSql);
  }

  insertRestore(j: Omit<RestoreJobRow, 'seq'>): RestoreJobRow {
    const info = this.db
      .prepare(
        `INSERT INTO restore_jobs (id, project_id, source_kind, source_id, target_index_id, target_index_name,
           status, percent_complete, created_at, completed_at, error)
         VALUES (@id, @projectId, @sourceKind, @sourceId, @targetIndexId, @targetIndexName,
           @status, @percentComplete, @createdAt, @completedAt, @error)`,
      )
      .run(j);
    return { ...j, seq: Number(info.lastInsertRowid) };
  }

  /** Progress of a job still Pending; a job that already ended keeps its state. */
  restoreProgress(id: string, percentComplete: number): void {
    this.db
      .prepare("UPDATE restore_jobs SET percent_complete = ? WHERE id = ? AND status = 'Pending'")
      .run(percentComplete, id);
  }

  /** Ends a Pending job (Completed, or Failed with why); a job that already ended is kept. */
  finishRestore(id: string, status: 'Completed' | 'Failed', error: string | null = null): void {
    this.db
      .prepare(
        `UPDATE restore_jobs SET status = ?, error = ?, completed_at = ?,
           percent_complete = CASE WHEN ? = 'Completed' THEN 100 ELSE percent_complete END
         WHERE id = ? AND status = 'Pending'`,
      )
      .run(status, error, nowIso(), status, id);
  }

  /** The Pending restore jobs that fill an index. */
  pendingRestoresInto(indexId: string): RestoreJobRow[] {
    return this.db
      .prepare<[string], RestoreSql>("SELECT * FROM restore_jobs WHERE target_index_id = ? AND status = 'Pending'")
      .all(indexId)
      .map(restoreFromSql);
  }
}
