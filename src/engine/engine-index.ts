// One index's search structures inside the engine worker: a VectorSet per namespace.
//
// Applying changes is idempotent by sequence number, so a state loaded from a store (or
// a snapshot) at seq S can have any changes replayed over it, including ones it already
// holds: an upsert or delete older than what is held is skipped, and a namespace drop
// removes only records older than the drop.
import type { FilterNode } from './filter.js';
import type { Change, IndexShape, StoredRecord } from './model.js';
import type { HnswGraph } from './graph/hnsw-graph.js';
import type { EngineMatch, EngineQuery } from './protocol.js';
import type { NamespaceToWrite } from './snapshot/snapshot-files.js';
import { METADATA_IN_STORE } from './metadata/metadata-columns.js';
import { DEFAULT_GRAPH_OPTIONS, VectorSet, type GraphOptions, type Hit, type SearchQuery, type VectorSetEvents } from './vector-set.js';

export class EngineIndex {
  private readonly namespaces = new Map<string, VectorSet>();
  /** Round-robin position of background work over the namespaces. */
  private workCursor = 0;
  /** The namespaces the current trim pass has yet to finish (startTrim). */
  private trimming: VectorSet[] = [];

  constructor(
    private readonly shape: IndexShape,
    private readonly options: GraphOptions = DEFAULT_GRAPH_OPTIONS,
    private readonly events?: VectorSetEvents,
  ) {}

  /** Starts namespace `ns` from a snapshot's graph; call before loading records. */
  restore(ns: string, graph: HnswGraph, ids: readonly (string | null)[], seq: number): void {
    (this.namespaces.get(ns) ?? this.createNamespace(ns)).restore(graph, ids, seq);
  }

  /** Sizes namespace `ns` for the `records` (holding `sparsePairs` in all) a load is about to bring (after restore()). */
  reserve(ns: string, records: number, sparsePairs = 0): void {
    if (records > 0) (this.namespaces.get(ns) ?? this.createNamespace(ns)).reserve(records, sparsePairs);
  }

  /** Ends every restore once all records are loaded (before later changes apply). */
  finishRestore(): void {
    for (const [ns, set] of this.namespaces) {
      set.finishRestore();
      if (set.size === 0) this.dropEmpty(ns, set);
    }
  }

  /** The namespaces with a graph, as a snapshot writes them. */
  snapshot(seq: number): NamespaceToWrite[] {
    const out: NamespaceToWrite[] = [];
    for (const [ns, set] of this.namespaces) {
      const part = set.snapshot(ns, seq);
      if (part) out.push(part);
    }
    return out;
  }

  load(ns: string, seq: number, record: StoredRecord): void {
    this.apply({ kind: 'upsert', ns, seq, record });
  }

  apply(change: Change): void {
    const set = this.namespaces.get(change.ns);
    switch (change.kind) {
      case 'upsert': {
        const target = set ?? this.createNamespace(change.ns);
        const held = target.seqOf(change.record.id);
        if (held === undefined || held < change.seq) target.upsert(change.seq, change.record);
        return;
      }
      case 'delete': {
        const held = set?.seqOf(change.id);
        if (set && held !== undefined && held <= change.seq) {
          set.remove(change.id);
          if (set.size === 0) this.dropEmpty(change.ns, set);
        }
        return;
      }
      case 'drop-namespace':
        if (set) {
          set.removeOlderThan(change.seq);
          if (set.size === 0) this.dropEmpty(change.ns, set);
        }
        return;
    }
  }

  query(q: EngineQuery): EngineMatch[] {
    const set = this.namespaces.get(q.namespace);
    if (!set) return [];
    return this.matchesOf(set, q, set.search(searchOf(q)));
  }

  /**
   * query() for each query, with the same answers on the same state; a namespace's graph
   * walks and sparse-only searches run side by side on up to `threads` native threads
   * (VectorSet.searchBatch).
   */
  queryBatch(qs: readonly EngineQuery[], threads: number): EngineMatch[][] {
    const out: EngineMatch[][] = qs.map(() => []);
    const byNamespace = new Map<string, number[]>();
    qs.forEach((q, at) => {
      const ats = byNamespace.get(q.namespace);
      if (ats) ats.push(at);
      else byNamespace.set(q.namespace, [at]);
    });
    for (const [ns, ats] of byNamespace) {
      const set = this.namespaces.get(ns);
      if (!set) continue;
      const hits = set.searchBatch(
        ats.map((at) => searchOf(qs[at])),
        threads,
      );
      ats.forEach((at, i) => (out[at] = this.matchesOf(set, qs[at], hits[i])));
    }
    return out;
  }

  /** The answer's matches from a search's hits: ids and scores, and values and metadata when asked for. */
  private matchesOf(set: VectorSet, q: EngineQuery, hits: Hit[]): EngineMatch[] {
    return hits.map((h) => {
      const match: EngineMatch = { id: h.id, score: h.score };
      let record: StoredRecord | undefined;
      if (q.includeValues) {
        const full = set.record(h.slot);
        record = { id: h.id };
        if (full.values) record.values = full.values;
        if (full.sparse) record.sparse = full.sparse;
      }
      if (q.includeMetadata) {
        // Printed from the columns; where they do not hold it whole, the caller reads it.
        const metadata = set.metadataJson(h.slot);
        if (metadata === METADATA_IN_STORE) match.metadataInStore = true;
        else if (metadata !== undefined) match.metadataJson = metadata;
      }
      if (record) match.record = record;
      return match;
    });
  }

  /** Per namespace, the records matching `filter`, as [namespace, count] pairs. */
  count(filter: FilterNode): [string, number][] {
    return [...this.namespaces].map(([ns, set]) => [ns, set.count(filter)]);
  }

  /** Ids of the namespace's records matching `filter` (all without one), unordered. */
  matchingIds(ns: string, filter: FilterNode | undefined): string[] {
    return this.namespaces.get(ns)?.matchingIds(filter) ?? [];
  }

  /** Records searched exactly because they are not yet in a graph. */
  get unindexed(): number {
    let n = 0;
    for (const set of this.namespaces.values()) n += set.unindexed;
    return n;
  }

  get hasWork(): boolean {
    for (const set of this.namespaces.values()) if (set.hasWork) return true;
    return false;
  }

  /** Whether any namespace has an HNSW graph (a snapshot then has something slow to save). */
  get hasGraph(): boolean {
    for (const set of this.namespaces.values()) if (set.hasGraph) return true;
    return false;
  }

  /** Background graph work until `deadline` (performance.now() ms), namespaces in turn. */
  work(deadline: number): void {
    const sets = [...this.namespaces.values()].filter((s) => s.hasWork);
    for (let i = 0; i < sets.length && performance.now() < deadline; i++) {
      sets[(this.workCursor + i) % sets.length].work(deadline);
    }
    this.workCursor++;
  }

  /**
   * Starts a pass that gives back the slack appends left in every namespace (VectorSet
   * startTrim); trimStep() runs it. For the quiet time after a burst of writes.
   */
  startTrim(): void {
    this.trimming = [...this.namespaces.values()];
    for (const set of this.trimming) set.startTrim();
  }

  /** Continues the trim pass until `deadline` (performance.now() ms); true once every namespace is done. */
  trimStep(deadline: number): boolean {
    while (this.trimming.length > 0) {
      if (!this.trimming[0].trimStep(deadline)) return false;
      this.trimming.shift();
    }
    return true;
  }

  /** Frees every namespace's graphs now (the index was closed or dropped; unusable afterwards). */
  close(): void {
    for (const set of this.namespaces.values()) set.close();
    this.namespaces.clear();
  }

  private createNamespace(ns: string): VectorSet {
    const set = new VectorSet(this.shape.dimension, this.shape.metric, this.options, this.events, this.shape.filterable);
    this.namespaces.set(ns, set);
    return set;
  }

  /** A namespace left without records goes, and its graph's native memory with it. */
  private dropEmpty(ns: string, set: VectorSet): void {
    set.close();
    this.namespaces.delete(ns);
  }
}

/** What the vector set searches for an engine query. */
function searchOf(q: EngineQuery): SearchQuery {
  return { dense: q.dense, sparse: q.sparse, topK: q.topK, filter: q.filter, maxCandidates: q.maxCandidates };
}
