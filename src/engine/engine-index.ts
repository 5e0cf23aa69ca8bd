// One index's search structures inside the engine worker: a VectorSet per namespace.
//
// Applying changes is idempotent by sequence number. The worker loads an index from a
// snapshot read AFTER the open message was posted, so the snapshot may already contain
// changes that arrive later as messages; comparing seqs makes replaying them harmless:
// an upsert or delete older than what is held is skipped, and a namespace drop removes
// only records older than the drop.
import { parseFilter } from './filter.js';
import type { EngineMatch, EngineQuery } from './engine-protocol.js';
import type { IndexShape } from './metric.js';
import type { Change, StoredRecord } from './record-store.js';
import { VectorSet } from './vector-set.js';

export class EngineIndex {
  private readonly namespaces = new Map<string, VectorSet>();

  constructor(private readonly shape: IndexShape) {}

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
          if (set.size === 0) this.namespaces.delete(change.ns);
        }
        return;
      }
      case 'drop-namespace':
        if (set) {
          set.removeOlderThan(change.seq);
          if (set.size === 0) this.namespaces.delete(change.ns);
        }
        return;
    }
  }

  query(q: EngineQuery): EngineMatch[] {
    const set = this.namespaces.get(q.namespace);
    if (!set) return [];
    const predicate = q.filter === undefined ? undefined : parseFilter(q.filter);
    const hits = set.search({ dense: q.dense, sparse: q.sparse, topK: q.topK, predicate });
    return hits.map((h) => {
      const match: EngineMatch = { id: h.id, score: h.score };
      if (q.includeValues || q.includeMetadata) {
        const full = set.record(h.slot);
        const record: StoredRecord = { id: h.id };
        if (q.includeValues) {
          if (full.values) record.values = full.values;
          if (full.sparse) record.sparse = full.sparse;
        }
        if (q.includeMetadata && full.metadata) record.metadata = full.metadata;
        match.record = record;
      }
      return match;
    });
  }

  count(filter: unknown): Record<string, number> {
    const predicate = parseFilter(filter);
    const out: Record<string, number> = {};
    for (const [ns, set] of this.namespaces) out[ns] = set.count(predicate);
    return out;
  }

  private createNamespace(ns: string): VectorSet {
    const set = new VectorSet(this.shape.dimension, this.shape.metric);
    this.namespaces.set(ns, set);
    return set;
  }
}
