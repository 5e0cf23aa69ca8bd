// Vector operations on one index (the data plane's rules). Writes: validate, then hand
// the write to WritePath (commit, then post the committed changes to the engine), then
// answer — so the next read sees them (decision 9). Reads that
// need search go to the engine worker; reads by id or key go to the store directly.
import { isPodSpec, type IndexRow } from '../catalog/indexes.js';
import { compileFilter, FilterError, isEmptyFilter, parseFilterNode, type FilterNode } from '../engine/filter.js';
import type { StoredRecord } from '../engine/model.js';
import type { EngineMatch } from '../engine/protocol.js';
import type { RecordStore } from '../engine/store/record-store.js';
import { conflict, invalid, notFound, show } from '../errors.js';
import {
  DELETE_MAX_IDS,
  FETCH_BY_METADATA_LIMIT_DEFAULT,
  FETCH_BY_METADATA_LIMIT_MAX,
  FETCH_MAX_IDS,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  MAX_CANDIDATES_MAX,
  POD_CAPACITY_X1,
  TOP_K_MAX,
} from '../limits.js';
import type { IndexRegistry } from './index-registry.js';
import { checkFilterable } from './filterable-fields.js';
import { WritePath } from './write-path.js';
import { decodePageToken, encodePageToken, scopeHash } from './page-token.js';
import {
  denseValues,
  integerIn,
  metadataOf,
  namespaceOf,
  optionalBoolean,
  optionalString,
  requireObject,
  sparseField,
  sparseValues,
  typeName,
  upsertInput,
  vectorId,
} from './vector-input.js';

/** Parses a filter once; `{}`, null and absent mean "no filter" (undefined). */
export function filterNodeOf(raw: unknown, field = 'filter'): FilterNode | undefined {
  if (raw === undefined || isEmptyFilter(raw)) return undefined;
  try {
    return parseFilterNode(raw, field);
  } catch (err) {
    if (err instanceof FilterError) throw invalid(err.message);
    throw err;
  }
}

function requireFilterNode(raw: unknown, field = 'filter'): FilterNode {
  const node = filterNodeOf(raw, field);
  if (!node) throw invalid(`${field} must be a non-empty filter object`);
  return node;
}

export interface QueryResult {
  namespace: string;
  matches: EngineMatch[];
}

export interface Page<T> {
  items: T[];
  next?: string;
}

export class VectorService {
  private readonly writes: WritePath;

  constructor(private readonly registry: IndexRegistry) {
    this.writes = new WritePath(registry);
  }

  /**
   * The index's log sequence number now: the seq of its last committed change (0 when
   * none). Sequence numbers are per index, never reused and only grow (DESIGN.md
   * "Storage"). Because every write on this thread commits and posts its changes to the
   * engine before returning, and the engine applies posted messages in order:
   * - read right after a write returns, it is that write's LSN (nothing can interleave);
   * - read right before a read (a store read, or a query posted to the engine), the read
   *   sees every change up to it — the freshness headers' promise (src/server/routes/
   *   data-plane.ts). If writes ever leave this thread (issue 15), this must become the
   *   seq the write's commit returned and the seq the engine held when it answered.
   */
  lsn(index: IndexRow): number {
    return this.registry.store(index).snapshotSeq();
  }

  upsert(index: IndexRow, body: unknown): number {
    const { namespace: ns, records } = upsertInput(body, index);
    return this.upsertRecords(index, ns, records);
  }

  /**
   * Stores validated records in one transaction and hands the committed changes to the
   * engine: the write path shared by HTTP upserts and bulk imports (import-runner.ts).
   */
  upsertRecords(index: IndexRow, ns: string, records: StoredRecord[]): number {
    this.checkPodCapacity(index, this.writes.store(index), records.length);
    this.writes.upsert(index, ns, records);
    return records.length;
  }

  /** By id: `{}`; by filter: the number of matching records. Unknown ids are a no-op. */
  async update(index: IndexRow, body: unknown): Promise<{ matchedRecords?: number }> {
    const obj = requireObject(body, 'request body');
    const ns = namespaceOf(obj.namespace);
    const setMetadata = metadataOf(obj.setMetadata, 'setMetadata');
    const [rawSparse, sparseName] = sparseField(obj, 'sparseValues', 'sparse_values');
    if (obj.filter !== undefined) {
      if (obj.id !== undefined) throw invalid('send either id or filter, not both');
      if (obj.values !== undefined || rawSparse !== undefined) {
        throw invalid('an update by filter changes metadata only: values and sparseValues are not allowed');
      }
      const node = requireFilterNode(obj.filter);
      checkFilterable(index, node);
      const dryRun = optionalBoolean(obj.dryRun, 'dryRun', false);
      if (!setMetadata && !dryRun) throw invalid('setMetadata is required for an update by filter');
      // The engine's columns name the matches; the store checks each again when it writes
      // (a write that landed meanwhile may have changed it).
      const candidates = await this.registry.engine.ids(index.id, ns, node);
      return {
        matchedRecords: this.writes.updateMetadataWhere(index, ns, compileFilter(node), setMetadata ?? {}, dryRun, candidates),
      };
    }
    const id = vectorId(obj.id, 'id');
    const values = denseValues(obj.values, 'values', index);
    const sparse = sparseValues(rawSparse, sparseName);
    if (obj.dryRun !== undefined) optionalBoolean(obj.dryRun, 'dryRun', false);
    if (!values && !sparse && !setMetadata) {
      throw invalid('an update needs at least one of values, sparseValues or setMetadata');
    }
    this.writes.update(index, ns, id, { values, sparse, setMetadata });
    return {};
  }

  async delete(index: IndexRow, body: unknown): Promise<void> {
    const obj = requireObject(body, 'request body');
    const ns = namespaceOf(obj.namespace);
    const deleteAll = optionalBoolean(obj.deleteAll, 'deleteAll', false);
    const selectors = [obj.ids !== undefined, deleteAll, obj.filter !== undefined].filter(Boolean).length;
    if (selectors !== 1) {
      throw invalid('send exactly one of ids, deleteAll: true or filter');
    }
    if (deleteAll) {
      this.writes.dropNamespace(index, ns);
      return;
    }
    if (obj.filter !== undefined) {
      const node = requireFilterNode(obj.filter);
      checkFilterable(index, node);
      const candidates = await this.registry.engine.ids(index.id, ns, node);
      this.writes.deleteWhere(index, ns, compileFilter(node), candidates);
      return;
    }
    const ids = idList(obj.ids, 'ids', DELETE_MAX_IDS);
    this.writes.deleteIds(index, ns, ids);
  }

  fetch(index: IndexRow, rawIds: unknown, rawNamespace: unknown): { namespace: string; records: StoredRecord[] } {
    const ids = idList(typeof rawIds === 'string' ? [rawIds] : rawIds, 'ids', FETCH_MAX_IDS);
    const namespace = namespaceOf(rawNamespace);
    return { namespace, records: this.registry.store(index).fetch(namespace, ids) };
  }

  /**
   * `filterRequired`: API 2026-07 requires a non-empty filter; earlier versions match all
   * without one. The engine's columns pick the page's ids (in id order, so the page token
   * is the last id); the records are then read from the store by id, and a record whose
   * metadata changed since no longer matching is left out.
   */
  async fetchByMetadata(
    index: IndexRow,
    body: unknown,
    filterRequired: boolean,
  ): Promise<{ namespace: string; page: Page<StoredRecord> }> {
    const obj = requireObject(body, 'request body');
    const namespace = namespaceOf(obj.namespace);
    const node = filterRequired ? requireFilterNode(obj.filter) : filterNodeOf(obj.filter);
    checkFilterable(index, node);
    const limit =
      obj.limit === undefined
        ? FETCH_BY_METADATA_LIMIT_DEFAULT
        : integerIn(obj.limit, 'limit', 1, FETCH_BY_METADATA_LIMIT_MAX);
    const scope = scopeHash('fetch_by_metadata', index.id, namespace, obj.filter ?? null);
    const token = optionalString(obj.paginationToken, 'paginationToken');
    const after = token === undefined || token === '' ? undefined : decodePageToken(token, scope);
    const store = this.registry.store(index);
    // One more than the page: its presence means another page.
    if (node === undefined) {
      // No filter (before 2026-07): the store's id-ordered scan is the page.
      const rows = store.scan(namespace, after, limit + 1);
      const items = rows.slice(0, limit);
      return { namespace, page: { items, next: rows.length > limit ? encodePageToken(items[limit - 1].id, scope) : undefined } };
    }
    const ids = await this.registry.engine.ids(index.id, namespace, node, { after, limit: limit + 1 });
    const more = ids.length > limit;
    const predicate = compileFilter(node);
    const items = store.fetch(namespace, ids.slice(0, limit)).filter((r) => predicate(r.metadata));
    const next = more ? encodePageToken(ids[limit - 1], scope) : undefined;
    return { namespace, page: { items, next } };
  }

  list(index: IndexRow, query: Record<string, unknown>): { namespace: string; page: Page<string> } {
    const namespace = namespaceOf(query.namespace);
    const prefix = optionalString(query.prefix, 'prefix');
    const limit = query.limit === undefined ? LIST_LIMIT_DEFAULT : queryInteger(query.limit, 'limit', 1, LIST_LIMIT_MAX);
    const scope = scopeHash('list', index.id, namespace, prefix ?? '');
    const token = optionalString(query.paginationToken, 'paginationToken');
    const after = token === undefined || token === '' ? undefined : decodePageToken(token, scope);
    const { ids, more } = this.registry.store(index).list(namespace, { prefix, after, limit });
    return {
      namespace,
      page: { items: ids, next: more && ids.length > 0 ? encodePageToken(ids[ids.length - 1], scope) : undefined },
    };
  }

  async query(index: IndexRow, body: unknown): Promise<QueryResult> {
    const obj = requireObject(body, 'request body');
    const namespace = namespaceOf(obj.namespace);
    const topK = integerIn(obj.topK, 'topK', 1, TOP_K_MAX);
    const includeValues = optionalBoolean(obj.includeValues, 'includeValues', false);
    const includeMetadata = optionalBoolean(obj.includeMetadata, 'includeMetadata', false);
    const filter = filterNodeOf(obj.filter);
    checkFilterable(index, filter);
    const maxCandidates = obj.maxCandidates === undefined ? undefined : integerIn(obj.maxCandidates, 'maxCandidates', topK, MAX_CANDIDATES_MAX);
    const [rawSparse, sparseName] = sparseField(obj, 'sparseVector', 'sparse_vector');
    const hasVector = obj.vector !== undefined && !(Array.isArray(obj.vector) && obj.vector.length === 0);
    if (obj.id !== undefined && (hasVector || rawSparse !== undefined)) {
      throw invalid('send one of id, vector or sparseVector (vector and sparseVector together for hybrid), not id with a vector');
    }
    const store = this.registry.store(index);
    let dense: Float32Array | undefined;
    let sparse: StoredRecord['sparse'];
    if (obj.id !== undefined) {
      const record = store.get(namespace, vectorId(obj.id, 'id'));
      if (!record) return { namespace, matches: [] };
      dense = record.values;
      if (index.vectorType === 'sparse') sparse = record.sparse;
    } else {
      dense = denseValues(obj.vector, 'vector', index);
      sparse = sparseValues(rawSparse, sparseName);
      if (sparse && index.metric !== 'dotproduct') {
        throw invalid(`${sparseName} needs an index with metric "dotproduct"; index ${index.name} uses ${index.metric}`);
      }
      if (!dense && !sparse) {
        throw invalid(
          index.vectorType === 'sparse'
            ? `sparseVector or id is required to query sparse index ${index.name}`
            : 'one of vector, sparseVector or id is required',
        );
      }
      if (index.vectorType === 'dense' && !dense) {
        throw invalid(`vector is required to query dense index ${index.name} (sparseVector may be added for hybrid)`);
      }
    }
    const matches = await this.registry.engine.query(index.id, {
      namespace,
      topK,
      dense,
      sparse,
      filter,
      maxCandidates,
      includeValues,
      includeMetadata,
    });
    if (includeMetadata) this.addMetadata(index, namespace, matches);
    return { namespace, matches };
  }

  /**
   * The engine keeps metadata only as filter columns, so the hits' metadata is read here
   * from the record store, by id, for the k hits only. It is read when the answer is
   * built: a write acknowledged while the query was in the worker may show in it, and a
   * hit deleted meanwhile is answered without metadata.
   */
  private addMetadata(index: IndexRow, namespace: string, matches: EngineMatch[]): void {
    const stored = new Map<string, StoredRecord>();
    for (const r of this.registry.store(index).fetch(namespace, matches.map((m) => m.id))) stored.set(r.id, r);
    for (const m of matches) {
      const metadata = stored.get(m.id)?.metadata;
      if (!metadata) continue;
      m.record ??= { id: m.id };
      m.record.metadata = metadata;
    }
  }

  async stats(index: IndexRow, body: unknown): Promise<{ counts: Map<string, number>; total: number }> {
    const obj = body === undefined ? {} : requireObject(body, 'request body');
    const store = this.registry.store(index);
    const counts = new Map<string, number>();
    for (const { name, count } of store.namespaces()) if (count > 0) counts.set(name, count);
    const total = store.totalCount();
    if (obj.filter !== undefined && !isEmptyFilter(obj.filter)) {
      if (!isPodSpec(index.spec)) {
        throw invalid('filter is not supported by describe_index_stats on serverless indexes (pod indexes only)');
      }
      const filter = requireFilterNode(obj.filter);
      checkFilterable(index, filter);
      const matching = await this.registry.engine.count(index.id, filter);
      counts.clear();
      for (const [ns, n] of Object.entries(matching)) if (n > 0) counts.set(ns, n);
    }
    return { counts, total };
  }

  /** Records per pod (capacity) of a pod index, or undefined for serverless. */
  capacity(index: IndexRow): number | undefined {
    if (!isPodSpec(index.spec)) return undefined;
    const [family, size] = index.spec.pod.pod_type.split('.');
    const multiplier = Number(size.slice(1));
    return POD_CAPACITY_X1[family] * multiplier * index.spec.pod.pods;
  }

  // ---- namespaces API ------------------------------------------------------------

  namespaces(index: IndexRow, query: Record<string, unknown>, display: (ns: string) => string): {
    page: Page<{ name: string; count: number }>;
    total: number;
  } {
    const prefix = optionalString(query.prefix, 'prefix') ?? '';
    const limit = query.limit === undefined ? LIST_LIMIT_DEFAULT : queryInteger(query.limit, 'limit', 1, LIST_LIMIT_MAX);
    const scope = scopeHash('namespaces', index.id, prefix);
    const token = optionalString(query.paginationToken, 'paginationToken');
    const after = token === undefined || token === '' ? undefined : decodePageToken(token, scope);
    const all = this.registry
      .store(index)
      .namespaces()
      .map(({ name, count }) => ({ name: display(name), count }))
      .filter((n) => n.name.startsWith(prefix))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const start = after === undefined ? 0 : all.findIndex((n) => n.name > after);
    const rest = start < 0 ? [] : all.slice(start);
    const items = rest.slice(0, limit);
    const next = rest.length > limit ? encodePageToken(items[items.length - 1].name, scope) : undefined;
    return { page: { items, next }, total: all.length };
  }

  describeNamespace(index: IndexRow, rawName: string): { count: number } {
    const ns = namespaceOf(rawName, 'namespace');
    const store = this.registry.store(index);
    if (!store.hasNamespace(ns)) throw notFound(`Namespace ${rawName} not found in index ${index.name}.`);
    return { count: store.count(ns) };
  }

  deleteNamespace(index: IndexRow, rawName: string): void {
    const ns = namespaceOf(rawName, 'namespace');
    if (!this.writes.dropNamespace(index, ns)) throw notFound(`Namespace ${rawName} not found in index ${index.name}.`);
  }

  createNamespace(index: IndexRow, body: unknown): string {
    const obj = requireObject(body, 'request body');
    if (typeof obj.name !== 'string') throw invalid(`name must be a string, got ${typeName(obj.name)}`);
    const ns = namespaceOf(obj.name, 'name');
    if (ns === '') throw invalid('the default namespace ("" or "__default__") cannot be created explicitly');
    if (obj.schema !== undefined) requireObject(obj.schema, 'schema');
    if (!this.registry.store(index).createNamespace(ns)) {
      throw conflict(`Namespace ${obj.name} already exists in index ${index.name}.`);
    }
    return ns;
  }

  private checkPodCapacity(index: IndexRow, store: RecordStore, adding: number): void {
    const capacity = this.capacity(index);
    if (capacity === undefined) return;
    if (store.totalCount() + adding > capacity) {
      throw invalid(
        `index ${index.name} is full: ${capacity} records fit its ${isPodSpec(index.spec) ? index.spec.pod.pod_type : ''} ` +
          'pods; configure a larger pod type or delete records',
      );
    }
  }
}

function idList(v: unknown, field: string, max: number): string[] {
  if (!Array.isArray(v)) throw invalid(`${field} must be an array of ids, got ${typeName(v)}`);
  if (v.length < 1 || v.length > max) throw invalid(`${field} must hold 1-${max} ids, got ${v.length}`);
  return v.map((id, i) => vectorId(id, `${field}[${i}]`));
}

/** Query-string integers arrive as text; only plain decimal digits are accepted. */
function queryInteger(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'string' || !/^\d{1,9}$/.test(v)) throw invalid(`${field} must be an integer between ${min} and ${max}, got ${show(v)}`);
  return integerIn(Number(v), field, min, max);
}
