// The write path's one owner (DESIGN.md "Write path", "Threads and order"): every write
// to an index commits to its record store in one transaction (the durable point), then
// hands exactly the changes that committed to the engine, in commit order, before the
// caller answers. Keeping both steps here, and nowhere else, is what makes a query after
// an acknowledged write see it, and the engine's state equal the store's.
import type { IndexRow } from '../catalog/indexes.js';
import type { Predicate } from '../engine/filter.js';
import type { Change, Metadata, StoredRecord } from '../engine/model.js';
import type { RecordPatch, RecordStore } from '../engine/store/record-store.js';
import type { IndexRegistry } from './index-registry.js';

export class WritePath {
  constructor(private readonly registry: IndexRegistry) {}

  /** The store for checks before a write (capacity); 503 while the index loads. */
  store(index: IndexRow): RecordStore {
    return this.registry.store(index);
  }

  upsert(index: IndexRow, ns: string, records: readonly StoredRecord[]): void {
    this.commit(index, (store) => store.upsert(ns, records));
  }

  /** False when the id does not exist (nothing written). */
  update(index: IndexRow, ns: string, id: string, patch: RecordPatch): boolean {
    let found = false;
    this.commit(index, (store) => {
      const change = store.update(ns, id, patch);
      found = change !== null;
      return change === null ? [] : [change];
    });
    return found;
  }

  /**
   * The number of matching records (all changed unless `dryRun`). `candidates`: the ids
   * the engine found matching; the store checks each again and examines no other.
   */
  updateMetadataWhere(
    index: IndexRow,
    ns: string,
    predicate: Predicate,
    setMetadata: Metadata,
    dryRun: boolean,
    candidates: readonly string[],
  ): number {
    let matched = 0;
    this.commit(index, (store) => {
      const result = store.updateMetadataWhere(ns, predicate, setMetadata, dryRun, candidates);
      matched = result.matched;
      return result.changes;
    });
    return matched;
  }

  deleteIds(index: IndexRow, ns: string, ids: readonly string[]): void {
    this.commit(index, (store) => store.deleteIds(ns, ids));
  }

  /** Deletes the `candidates` (the engine's matches) that still match `predicate`. */
  deleteWhere(index: IndexRow, ns: string, predicate: Predicate, candidates: readonly string[]): void {
    this.commit(index, (store) => store.deleteWhere(ns, predicate, candidates));
  }

  /** Hides the namespace at once and frees its rows in the background; false when it does not exist. */
  dropNamespace(index: IndexRow, ns: string): boolean {
    let found = false;
    this.commit(index, (store) => {
      const change = store.dropNamespace(ns);
      found = change !== null;
      return change === null ? [] : [change];
    });
    if (!found) return false;
    this.registry.schedulePurge(index.id);
    return true;
  }

  private commit(index: IndexRow, write: (store: RecordStore) => Change[]): void {
    const changes = write(this.registry.store(index));
    this.registry.engine.apply(index.id, changes);
  }
}
