// The console's only way to the server: the public HTTP API (control plane at this
// page's origin, data plane at each index's `host`) plus GET /metrics. Every call carries
// the user's key in the Api-Key header — never in a URL — and the API version header the
// control plane requires. Failures become ApiFailure with a message fit for the page.

export const API_VERSION = '2026-04';

export type MetaValue = string | number | boolean | string[];
export type Metadata = Record<string, MetaValue>;

export interface PodSpec {
  environment: string;
  pod_type: string;
  pods?: number;
  replicas?: number;
  shards?: number;
  metadata_config?: { indexed?: string[] };
  source_collection?: string;
}

export interface ServerlessSpec {
  cloud: string;
  region: string;
  source_collection?: string;
}

export interface IndexModel {
  name: string;
  dimension?: number;
  metric: string;
  host: string;
  spec: { serverless?: ServerlessSpec; pod?: PodSpec };
  status: { ready: boolean; state: string };
  vector_type?: string;
  deletion_protection?: string;
  tags?: Record<string, string>;
}

export interface Stats {
  namespaces: Record<string, { vectorCount: number }>;
  totalVectorCount: number;
  dimension?: number;
  indexFullness: number;
}

export interface SparseValues {
  indices: number[];
  values: number[];
}

export interface VectorRecord {
  id: string;
  values?: number[];
  sparseValues?: SparseValues;
  metadata?: Metadata;
}

export interface Match extends VectorRecord {
  score: number;
}

export interface Backup {
  backup_id: string;
  name: string;
  description?: string;
  source_index_name: string;
  status: string;
  record_count?: number;
  namespace_count?: number;
  size_bytes?: number;
  dimension?: number;
  metric?: string;
  created_at?: string;
}

export interface Collection {
  name: string;
  status: string;
  environment?: string;
  size?: number;
  dimension?: number;
  vector_count?: number;
}

export interface RestoreJob {
  restore_job_id: string;
  backup_id: string;
  target_index_name: string;
  status: string;
  percent_complete?: number;
}

export interface QueryBody {
  namespace?: string;
  topK: number;
  vector?: number[];
  id?: string;
  filter?: Record<string, unknown>;
  includeMetadata?: boolean;
  includeValues?: boolean;
}

/** An API answer that was not a success, or no answer at all (status 0). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string };
  message?: string;
}

export class Api {
  /** Called when any call answers 401, so the app can return to the sign-in screen. */
  onUnauthenticated: (message: string) => void = () => undefined;

  constructor(private readonly key: string) {}

  private async call<T>(method: string, url: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'Api-Key': this.key, 'X-Pinecone-Api-Version': API_VERSION };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      const origin = new URL(url, location.href).origin;
      // An index host on another origin (CONIFER_PUBLIC_URL names another address than
      // the one this page was opened at) fails the same way; say so, it is the likely cause.
      const elsewhere =
        origin === location.origin
          ? ''
          : ` The index is served at ${origin}, not at this page's address ${location.origin}: open the console at ${origin}/console.`;
      throw new ApiFailure(0, 'UNREACHABLE', `Cannot reach the Conifer server at ${origin}. Is it running?${elsewhere}`);
    }
    const text = await res.text();
    if (!res.ok) {
      let parsed: ErrorBody = {};
      try {
        parsed = JSON.parse(text) as ErrorBody;
      } catch {
        // Not our JSON (a proxy's page, say): fall back to the status line below.
      }
      const code = parsed.error?.code ?? `HTTP_${res.status}`;
      const message = parsed.error?.message ?? parsed.message ?? `${res.status} ${res.statusText}`;
      if (res.status === 401) {
        this.onUnauthenticated(message);
        throw new ApiFailure(401, code, `The server refused the API key: ${message}`);
      }
      throw new ApiFailure(res.status, code, message);
    }
    return (text.length > 0 ? JSON.parse(text) : {}) as T;
  }

  // ---- control plane -------------------------------------------------------------

  async listIndexes(): Promise<IndexModel[]> {
    return (await this.call<{ indexes: IndexModel[] }>('GET', '/indexes')).indexes;
  }
  describeIndex(name: string): Promise<IndexModel> {
    return this.call('GET', `/indexes/${encodeURIComponent(name)}`);
  }
  createIndex(body: Record<string, unknown>): Promise<IndexModel> {
    return this.call('POST', '/indexes', body);
  }
  configureIndex(name: string, body: Record<string, unknown>): Promise<IndexModel> {
    return this.call('PATCH', `/indexes/${encodeURIComponent(name)}`, body);
  }
  async deleteIndex(name: string): Promise<void> {
    await this.call('DELETE', `/indexes/${encodeURIComponent(name)}`);
  }

  async listBackups(): Promise<Backup[]> {
    const all: Backup[] = [];
    let token: string | undefined;
    // Bounded: 20 pages of 100 is more backups than any quota allows.
    for (let page = 0; page < 20; page++) {
      const q = new URLSearchParams({ limit: '100' });
      if (token) q.set('paginationToken', token);
      const res = await this.call<{ data: Backup[]; pagination?: { next?: string } }>('GET', `/backups?${q}`);
      all.push(...res.data);
      token = res.pagination?.next;
      if (!token) break;
    }
    return all;
  }
  createBackup(index: string, body: { name?: string; description?: string }): Promise<Backup> {
    return this.call('POST', `/indexes/${encodeURIComponent(index)}/backups`, body);
  }
  async deleteBackup(id: string): Promise<void> {
    await this.call('DELETE', `/backups/${encodeURIComponent(id)}`);
  }
  restoreBackup(id: string, body: Record<string, unknown>): Promise<{ restore_job_id: string; index_id: string }> {
    return this.call('POST', `/backups/${encodeURIComponent(id)}/create-index`, body);
  }
  restoreJob(id: string): Promise<RestoreJob> {
    return this.call('GET', `/restore-jobs/${encodeURIComponent(id)}`);
  }
  async listCollections(): Promise<Collection[]> {
    return (await this.call<{ collections: Collection[] }>('GET', '/collections')).collections;
  }
  createCollection(body: { name: string; source: string }): Promise<Collection> {
    return this.call('POST', '/collections', body);
  }
  async deleteCollection(name: string): Promise<void> {
    await this.call('DELETE', `/collections/${encodeURIComponent(name)}`);
  }

  // ---- data plane (at the index's host) ------------------------------------------

  stats(host: string): Promise<Stats> {
    return this.call('POST', `${host}/describe_index_stats`, {});
  }
  listIds(
    host: string,
    namespace: string,
    opts: { prefix?: string; limit?: number; token?: string },
  ): Promise<{ vectors: { id: string }[]; pagination?: { next?: string } }> {
    const q = new URLSearchParams({ namespace, limit: String(opts.limit ?? 100) });
    if (opts.prefix) q.set('prefix', opts.prefix);
    if (opts.token) q.set('paginationToken', opts.token);
    return this.call('GET', `${host}/vectors/list?${q}`);
  }
  async fetch(host: string, namespace: string, ids: string[]): Promise<Record<string, VectorRecord>> {
    const q = new URLSearchParams({ namespace });
    for (const id of ids) q.append('ids', id);
    return (await this.call<{ vectors: Record<string, VectorRecord> }>('GET', `${host}/vectors/fetch?${q}`)).vectors;
  }
  /** How many records (0 or 1) match `filter`: the server parses the filter as a query would. */
  async fetchByMetadata(host: string, namespace: string, filter: unknown): Promise<number> {
    const res = await this.call<{ vectors: Record<string, VectorRecord> }>('POST', `${host}/vectors/fetch_by_metadata`, {
      namespace,
      filter,
      limit: 1,
    });
    return Object.keys(res.vectors).length;
  }
  async upsert(host: string, namespace: string, vectors: VectorRecord[]): Promise<void> {
    await this.call('POST', `${host}/vectors/upsert`, { namespace, vectors });
  }
  async deleteIds(host: string, namespace: string, ids: string[]): Promise<void> {
    await this.call('POST', `${host}/vectors/delete`, { namespace, ids });
  }
  async query(host: string, body: QueryBody): Promise<Match[]> {
    return (await this.call<{ matches: Match[] }>('POST', `${host}/query`, body)).matches;
  }

  // ---- metrics -------------------------------------------------------------------

  /** Prometheus text, or null when this server has no /metrics (404). */
  async metrics(): Promise<string | null> {
    let res: Response;
    try {
      // Both headers: harmless if /metrics needs neither, and a server without the route
      // then answers its plain 404 rather than a 400 for a missing version header.
      res = await fetch('/metrics', { headers: { 'Api-Key': this.key, 'X-Pinecone-Api-Version': API_VERSION } });
    } catch {
      throw new ApiFailure(0, 'UNREACHABLE', `Cannot reach the Conifer server at ${location.origin}. Is it running?`);
    }
    if (res.status === 404) return null;
    if (!res.ok) throw new ApiFailure(res.status, `HTTP_${res.status}`, `GET /metrics answered ${res.status}`);
    return res.text();
  }
}

/** The message to show for anything a call threw. */
export function describeError(err: unknown): string {
  if (err instanceof ApiFailure) return err.status > 0 ? `${err.message} (${err.status} ${err.code})` : err.message;
  return err instanceof Error ? err.message : String(err);
}
