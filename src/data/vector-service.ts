// Vector operations on one index (the data plane's rules). Writes: validate, then hand
// the write to WritePath (the writer thread commits, then posts the committed changes to
// the engine), then answer with the write's LSN — so the next read sees them (decision
// 9). Reads that need search go to the engine worker with the index's acknowledged seq
// (minSeq); reads by id or key go to the store directly.
import { isPodSpec, type IndexRow } from '../catalog/indexes.js';
import { compileFilter, FilterError, isEmptyFilter, parseFilterNode, type FilterNode } from '../engine/filter.js';
import type { StoredRecord } from '../engine/model.js';
import type { EngineMatch } from '../engine/protocol.js';
import type { Candidates, ImportProgress } from '../engine/store/record-store.js';
import { conflict, invalid, notFound, show } from '../errors.js';
import {
  DELETE_MAX_IDS,
  FETCH_BY_METADATA_LIMIT_DEFAULT,
  FETCH_BY_METADATA_LIMIT_MAX,
  FETCH_MAX_IDS,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  MAX_CANDIDATES_MAX,
  TOP_K_MAX,
  VECTOR_ID_MAX_LENGTH,
} from '../limits.js';
import type { IndexRegistry } from './index-registry.js';
import { checkFilterable } from './filterable-fields.js';
import { WritePath } from './write-path.js';
import { podCapacity } from './pod-capacity.js';
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
  /** The seq the engine held when it answered: the query saw exactly the writes up to it. */
  lsn: number;
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
   * A read's LSN: the highest seq acknowledged for the index (0 when none). Sequence
   * numbers are per index, never reused and only grow (DESIGN.md "Storage"). Taken right
   * before a read, the read sees every change up to it — the freshness headers' promise
   * (src/server/routes/data-plane.ts): a store read, because every acknowledged write
   * committed before its acknowledgement (WAL makes a commit visible to the next read);
   * an engine read, because it carries this seq as minSeq (engine-worker.ts
   * "Read-your-writes"). A write's own LSN is the seq its commit returned (Written.lsn).
   */
  lsn(index: IndexRow): number {
    return this.registry.writer.ackedSeq(index.id);
  }

  /**
   * The raw bytes of an upsert body, as the chunks received, in order: parsed, validated
   * and stored on the writer thread (upsertInput there, the same rules). The buffers are
   * transferred. Null: no body.
   */
  async upsert(index: IndexRow, body: readonly Uint8Array[] | null): Promise<{ upsertedCount: number; lsn: number }> {
    const { result, lsn } = await this.writes.upsertBody(index, body);
    return { upsertedCount: result, lsn };
  }

  /**
   * The write path of bulk imports (import-runner.ts): stores validated records (possibly
   * none) together with import `importId`'s cursor past them, in one transaction, and
   * hands the committed changes to the engine.
   */
  async importBatch(
    index: IndexRow,
    ns: string,
    records: StoredRecord[],
    importId: number,
    progress: ImportProgress,
  ): Promise<{ upsertedCount: number; lsn: number }> {
    const { result, lsn } = await this.writes.importBatch(index, ns, records, importId, progress);
    return { upsertedCount: result, lsn };
  }

  /**
   * Import `importId`'s cursor as the index's store holds it: exactly the batches it
   * committed (undefined before the first). 503 while the index loads.
   */
  importProgress(index: IndexRow, importId: number): ImportProgress | undefined {
    return this.registry.store(index).importProgress(importId);
  }

  /** By id: `{}`; by filter: the number of matching records. Unknown ids are a no-op. */
  async update(index: IndexRow, body: unknown): Promise<{ result: { matchedRecords?: number }; lsn: number }> {
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
      const candidates = await this.candidates(index, ns, node);
      const { result, lsn } = await this.writes.updateMetadataWhere(index, ns, node, setMetadata ?? {}, dryRun, candidates);
      return { result: { matchedRecords: result }, lsn };
    }
    const id = vectorId(obj.id, 'id');
    const values = denseValues(obj.values, 'values', index);
    const sparse = sparseValues(rawSparse, sparseName);
    // A dry run counts an update by filter's matches; an update by id would write.
    if (optionalBoolean(obj.dryRun, 'dryRun', false)) throw invalid('dryRun: true applies to an update by filter (it counts the matches without writing); an update by id has no dry run');
    if (!values && !sparse && !setMetadata) {
      throw invalid('an update needs at least one of values, sparseValues or setMetadata');
    }
    const { lsn } = await this.writes.update(index, ns, id, { values, sparse, setMetadata });
    return { result: {}, lsn };
  }

  /**
   * The records an update or delete by filter examines: the engine's matches at the
   * acknowledged seq or later. The store checks each again when it writes, and the
   * records written since that seq too (writes that landed meanwhile: forEachMatch).
   */
  private async candidates(index: IndexRow, ns: string, node: FilterNode): Promise<Candidates> {
    const asOf = this.lsn(index);
    return { ids: await this.registry.engine.ids(index.id, ns, node, asOf), asOf };
  }

  /** Resolves with the delete's LSN. */
  async delete(index: IndexRow, body: unknown): Promise<number> {
    const obj = requireObject(body, 'request body');
    const ns = namespaceOf(obj.namespace);
    const deleteAll = optionalBoolean(obj.deleteAll, 'deleteAll', false);
    const selectors = [obj.ids !== undefined, deleteAll, obj.filter !== undefined].filter(Boolean).length;
    if (selectors !== 1) {
      throw invalid('send exactly one of ids, deleteAll: true or filter');
    }
    if (deleteAll) {
      return (await this.writes.dropNamespace(index, ns)).lsn;
    }
    if (obj.filter !== undefined) {
      const node = requireFilterNode(obj.filter);
      checkFilterable(index, node);
      return (await this.writes.deleteWhere(index, ns, node, await this.candidates(index, ns, node))).lsn;
    }
    const ids = idList(obj.ids, 'ids', DELETE_MAX_IDS);
    return (await this.writes.deleteIds(index, ns, ids)).lsn;
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
  ): Promise<{ namespace: string; page: Page<StoredRecord>; tokenAfter: (id: string) => string }> {
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
    // A page cut short (the HTTP layer's response cap) goes on after its last record: the
    // items are in id order.
    const tokenAfter = (id: string): string => encodePageToken(id, scope);
    // One more than the page: its presence means another page.
    if (node === undefined) {
      // No filter (before 2026-07): the store's id-ordered scan is the page.
      const rows = store.scan(namespace, after, limit + 1);
      const items = rows.slice(0, limit);
      return { namespace, page: { items, next: rows.length > limit ? tokenAfter(items[limit - 1].id) : undefined }, tokenAfter };
    }
    const ids = await this.registry.engine.ids(index.id, namespace, node, this.lsn(index), { after, limit: limit + 1 });
    const more = ids.length > limit;
    const predicate = compileFilter(node);
    const items = store.fetch(namespace, ids.slice(0, limit)).filter((r) => predicate(r.metadata));
    const next = more ? tokenAfter(ids[limit - 1]) : undefined;
    return { namespace, page: { items, next }, tokenAfter };
  }

  list(index: IndexRow, query: Record<string, unknown>): { namespace: string; page: Page<string> } {
    const namespace = namespaceOf(query.namespace);
    const prefix = optionalString(query.prefix, 'prefix');
    // Longer than any id, it could match none (Pinecone refuses it too).
    if (prefix !== undefined && prefix.length > VECTOR_ID_MAX_LENGTH) {
      throw invalid(`prefix must be at most ${VECTOR_ID_MAX_LENGTH} characters (the longest an id is), got ${prefix.length}`);
    }
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
    if (obj.queries !== undefined && obj.vector === undefined && rawSparse === undefined && obj.id === undefined) {
      throw invalid('queries (the batch form of older API versions) is not supported: send one query per request, with vector, sparseVector or id');
    }
    if (obj.id !== undefined && (hasVector || rawSparse !== undefined)) {
      throw invalid('send one of id, vector or sparseVector (vector and sparseVector together for hybrid), not id with a vector');
    }
    const store = this.registry.store(index);
    const minSeq = this.lsn(index);
    let dense: Float32Array | undefined;
    let sparse: StoredRecord['sparse'];
    if (obj.id !== undefined) {
      const record = store.get(namespace, vectorId(obj.id, 'id'));
      if (!record) return { namespace, matches: [], lsn: minSeq };
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
    }
    const { matches, seq } = await this.registry.engine.query(index.id, {
      namespace,
      topK,
      dense,
      sparse,
      filter,
      maxCandidates,
      includeValues,
      includeMetadata,
    }, minSeq);
    // Every change up to seq is committed (the writer posts only after its commit): later
    // reads may report it too, so no read reports less than one before it.
    this.registry.writer.noteSeq(index.id, seq);
    if (includeMetadata) this.addMetadata(index, namespace, matches);
    return { namespace, matches, lsn: seq };
  }

  /**
   * The engine answers a hit's metadata from its columns when they hold all of it; for
   * the other hits that carried metadata in the state the query saw (an index that
   * declares its filterable fields keeps no column for the rest) it is read here from the
   * record store, by id. That read happens when the answer is built: a write acknowledged
   * while the query was in the worker may show in it, and a hit deleted meanwhile is
   * answered without metadata.
   */
  private addMetadata(index: IndexRow, namespace: string, matches: EngineMatch[]): void {
    const ids: string[] = [];
    for (const m of matches) if (m.metadataInStore) ids.push(m.id);
    if (ids.length === 0) return;
    const stored = this.registry.store(index).metadataOf(namespace, ids);
    for (const m of matches) {
      const metadata = stored.get(m.id);
      if (metadata) m.metadataJson = JSON.stringify(metadata);
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
      const matching = await this.registry.engine.count(index.id, filter, this.lsn(index));
      counts.clear();
      for (const [ns, n] of matching) if (n > 0) counts.set(ns, n);
    }
    return { counts, total };
  }

  /** Records per pod (capacity) of a pod index, or undefined for serverless. */
  capacity(index: IndexRow): number | undefined {
    return podCapacity(index);
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

  /** Resolves with the drop's LSN. */
  async deleteNamespace(index: IndexRow, rawName: string): Promise<number> {
    const ns = namespaceOf(rawName, 'namespace');
    const { result, lsn } = await this.writes.dropNamespace(index, ns);
    if (!result) throw notFound(`Namespace ${rawName} not found in index ${index.name}.`);
    return lsn;
  }

  async createNamespace(index: IndexRow, body: unknown): Promise<string> {
    const obj = requireObject(body, 'request body');
    if (typeof obj.name !== 'string') throw invalid(`name must be a string, got ${typeName(obj.name)}`);
    const ns = namespaceOf(obj.name, 'name');
    if (ns === '') throw invalid('the default namespace ("" or "__default__") cannot be created explicitly');
    if (obj.schema !== undefined) requireObject(obj.schema, 'schema');
    if (!(await this.writes.createNamespace(index, ns)).result) {
      throw conflict(`Namespace ${obj.name} already exists in index ${index.name}.`);
    }
    return ns;
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
