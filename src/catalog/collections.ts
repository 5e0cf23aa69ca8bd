// Collection rows: static copies of pod indexes.
import type { Db } from './database.js';
import type { Metric, VectorType } from './indexes.js';

export type CollectionStatus = 'Initializing' | 'Ready' | 'Terminating' | 'Failed';

export interface CollectionRow {
  id: string;
  projectId: string;
  name: string;
  sourceIndexId: string;
  sourceIndexName: string;
  environment: string;
  dimension: number | null;
  metric: Metric;
  vectorType: VectorType;
  status: CollectionStatus;
  size: number;
  vectorCount: number;
  createdAt: string;
}

interface SqlRow {
  id: string;
  project_id: string;
  name: string;
  source_index_id: string;
  source_index_name: string;
  environment: string;
  dimension: number | null;
  metric: string;
  vector_type: string;
  status: string;
  size: number;
  vector_count: number;
  created_at: string;
}

const fromSql = (r: SqlRow): CollectionRow => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  sourceIndexId: r.source_index_id,
  sourceIndexName: r.source_index_name,
  environment: r.environment,
  dimension: r.dimension,
  metric: r.metric as Metric,
  vectorType: r.vector_type as VectorType,
  status: r.status as CollectionStatus,
  size: r.size,
  vectorCount: r.vector_count,
  createdAt: r.created_at,
});

export class Collections {
  constructor(private readonly db: Db) {}

  get(projectId: string, name: string): CollectionRow | undefined {
    const r = this.db
      .prepare<[string, string], SqlRow>('SELECT * FROM collections WHERE project_id = ? AND name = ?')
      .get(projectId, name);
    return r && fromSql(r);
  }

  getById(id: string): CollectionRow | undefined {
    const r = this.db.prepare<[string], SqlRow>('SELECT * FROM collections WHERE id = ?').get(id);
    return r && fromSql(r);
  }

  list(projectId: string): CollectionRow[] {
    return this.db
      .prepare<[string], SqlRow>('SELECT * FROM collections WHERE project_id = ? ORDER BY name')
      .all(projectId)
      .map(fromSql);
  }

  withStatus(status: CollectionStatus): CollectionRow[] {
    return this.db.prepare<[string], SqlRow>('SELECT * FROM collections WHERE status = ?').all(status).map(fromSql);
  }

  /** Collections of an index whose copy is still under way (block deleting the index). */
  pendingFrom(sourceIndexId: string): CollectionRow[] {
    return this.db
      .prepare<[string], SqlRow>("SELECT * FROM collections WHERE source_index_id = ? AND status = 'Initializing'")
      .all(sourceIndexId)
      .map(fromSql);
  }

  insert(c: CollectionRow): void {
    this.db
      .prepare(
        `INSERT INTO collections (id, project_id, name, source_index_id, source_index_name, environment,
           dimension, metric, vector_type, status, size, vector_count, created_at)
         VALUES (@id, @projectId, @name, @sourceIndexId, @sourceIndexName, @environment,
           @dimension, @metric, @vectorType, @status, @size, @vectorCount, @createdAt)`,
      )
      .run(c);
  }

  update(id: string, fields: Partial<Pick<CollectionRow, 'status' | 'size' | 'vectorCount'>>): void {
    const current = this.getById(id);
    if (!current) return;
    const next = { ...current, ...fields };
    this.db
      .prepare('UPDATE collections SET status = ?, size = ?, vector_count = ? WHERE id = ?')
      .run(next.status, next.size, next.vectorCount, id);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM collections WHERE id = ?').run(id);
  }
}
