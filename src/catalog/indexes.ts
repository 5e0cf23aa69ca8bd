// Index rows of the catalog. The spec is stored in its wire form (snake_case, exactly
// one of `serverless` / `pod`), so what was accepted is what is described.
import type { Db } from './database.js';
import type { CatalogFreshness, LookupCache } from './lookup-cache.js';

export type Metric = 'cosine' | 'euclidean' | 'dotproduct';
export type VectorType = 'dense' | 'sparse';
export type DeletionProtection = 'enabled' | 'disabled';
export type IndexState =
  | 'Initializing'
  | 'InitializationFailed'
  | 'Ready'
  | 'ScalingUp'
  | 'ScalingDown'
  | 'ScalingUpPodSize';

export interface ReadCapacity {
  mode: 'OnDemand' | 'Dedicated';
  dedicated?: {
    node_type: string;
    scaling: string;
    manual: { replicas: number; shards: number };
  };
}

export interface MetadataSchema {
  /** `type` is kept when a 2026-07 body declared one (string, float, ...). */
  fields: Record<string, { filterable: boolean; type?: string }>;
}

export interface ServerlessSpec {
  serverless: {
    cloud: string;
    region: string;
    read_capacity: ReadCapacity;
    source_collection?: string;
    schema?: MetadataSchema;
  };
}

export interface PodSpec {
  pod: {
    environment: string;
    pod_type: string;
    pods: number;
    replicas: number;
    shards: number;
    metadata_config?: { indexed: string[] };
    source_collection?: string;
  };
}

export type IndexSpec = ServerlessSpec | PodSpec;

export const isPodSpec = (spec: IndexSpec): spec is PodSpec => 'pod' in spec;

export interface IndexRow {
  id: string;
  projectId: string;
  name: string;
  /** `<name>-<id7>`: the path segment of the index host. */
  hostId: string;
  dimension: number | null;
  metric: Metric;
  vectorType: VectorType;
  deletionProtection: DeletionProtection;
  tags: Record<string, string>;
  spec: IndexSpec;
  state: IndexState;
  createdAt: string;
  /** The backup the index was restored from, if any (read from its restore job). */
  sourceBackupId?: string;
}

interface SqlRow {
  id: string;
  project_id: string;
  name: string;
  host_id: string;
  dimension: number | null;
  metric: string;
  vector_type: string;
  deletion_protection: string;
  tags: string;
  spec: string;
  state: string;
  created_at: string;
}

/** Read only: the restore job that filled an index names its source backup. */
interface SelectedRow extends SqlRow {
  source_backup_id: string | null;
}

// Every read of an index row, with the id of the backup it was restored from. A restore
// job row is never deleted, so it is the durable record of where an index came from.
const SELECT = `SELECT i.*, (SELECT r.source_id FROM restore_jobs r
    WHERE r.target_index_id = i.id AND r.source_kind = 'backup' LIMIT 1) AS source_backup_id
  FROM indexes i`;

const fromSql = (r: SelectedRow): IndexRow => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  hostId: r.host_id,
  dimension: r.dimension,
  metric: r.metric as Metric,
  vectorType: r.vector_type as VectorType,
  deletionProtection: r.deletion_protection as DeletionProtection,
  tags: JSON.parse(r.tags) as Record<string, string>,
  spec: JSON.parse(r.spec) as IndexSpec,
  state: r.state as IndexState,
  createdAt: r.created_at,
  ...(r.source_backup_id !== null ? { sourceBackupId: r.source_backup_id } : {}),
});

const toSql = (i: IndexRow): SqlRow => ({
  id: i.id,
  project_id: i.projectId,
  name: i.name,
  host_id: i.hostId,
  dimension: i.dimension,
  metric: i.metric,
  vector_type: i.vectorType,
  deletion_protection: i.deletionProtection,
  tags: JSON.stringify(i.tags),
  spec: JSON.stringify(i.spec),
  state: i.state,
  created_at: i.createdAt,
});

export class Indexes {
  private readonly byName;
  private readonly byHost;
  private readonly byId;
  private readonly listStmt;
  private readonly listAllStmt;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  /** `<project id> <host id>` → index (the data plane's per-request lookup), see lookup-cache.ts; cleared by every write below. */
  private readonly byHostCache: LookupCache<IndexRow>;

  constructor(db: Db, freshness: CatalogFreshness) {
    this.byHostCache = freshness.cache<IndexRow>();
    this.byName = db.prepare<[string, string], SelectedRow>(`${SELECT} WHERE i.project_id = ? AND i.name = ?`);
    this.byHost = db.prepare<[string, string], SelectedRow>(`${SELECT} WHERE i.project_id = ? AND i.host_id = ?`);
    this.byId = db.prepare<[string], SelectedRow>(`${SELECT} WHERE i.id = ?`);
    this.listStmt = db.prepare<[string], SelectedRow>(`${SELECT} WHERE i.project_id = ? ORDER BY i.name`);
    this.listAllStmt = db.prepare<[], SelectedRow>(`${SELECT} ORDER BY i.created_at`);
    this.insertStmt = db.prepare(
      `INSERT INTO indexes (id, project_id, name, host_id, dimension, metric, vector_type,
         deletion_protection, tags, spec, state, created_at)
       VALUES (@id, @project_id, @name, @host_id, @dimension, @metric, @vector_type,
         @deletion_protection, @tags, @spec, @state, @created_at)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE indexes SET deletion_protection = @deletion_protection, tags = @tags, spec = @spec,
         state = @state WHERE id = @id`,
    );
    this.deleteStmt = db.prepare('DELETE FROM indexes WHERE id = ?');
  }

  get(projectId: string, name: string): IndexRow | undefined {
    const r = this.byName.get(projectId, name);
    return r && fromSql(r);
  }

  /** The index a data-plane host names; the row is shared between requests (frozen). */
  getByHost(projectId: string, hostId: string): IndexRow | undefined {
    return this.byHostCache.get(`${projectId} ${hostId}`, () => {
      const r = this.byHost.get(projectId, hostId);
      return r && fromSql(r);
    });
  }

  getById(id: string): IndexRow | undefined {
    const r = this.byId.get(id);
    return r && fromSql(r);
  }

  /** Every index of every project (recovery at start). */
  listAll(): IndexRow[] {
    return this.listAllStmt.all().map(fromSql);
  }

  list(projectId: string): IndexRow[] {
    return this.listStmt.all(projectId).map(fromSql);
  }

  insert(index: IndexRow): void {
    this.byHostCache.clear();
    this.insertStmt.run(toSql(index));
  }

  /** Writes the mutable fields: deletion protection, tags, spec and state. */
  update(index: IndexRow): void {
    this.byHostCache.clear();
    this.updateStmt.run(toSql(index));
  }

  delete(id: string): void {
    this.byHostCache.clear();
    this.deleteStmt.run(id);
  }
}
