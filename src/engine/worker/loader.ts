// Loads one index's records from its record store in bounded slices, so opening a large
// index never blocks the queries of the others: the worker runs one slice, then returns
// to its message loop.
//
// The load reads inside ONE read transaction on the worker's own connection, so it sees
// the store exactly as of seq S (the main thread keeps committing under WAL). Changes
// that arrive as messages meanwhile are buffered by the worker and applied after the
// load; they are seq-idempotent, so the ones already in the cut are skipped.
import type { EngineIndex } from '../engine-index.js';
import type { StoredRecord } from '../model.js';
import { RecordStore } from '../store/record-store.js';

export class IndexLoader {
  private readonly store: RecordStore;
  private readonly records: Iterator<{ ns: string; seq: number; record: StoredRecord }>;
  /** The seq of the last change in the cut being loaded. */
  readonly seq: number;
  /** Live records in the cut: none of them is in a graph until the load completes. */
  readonly total: number;
  /** The cut's namespaces and their live record counts. */
  readonly namespaces: readonly { name: string; count: number }[];
  loaded = 0;
  private closed = false;

  constructor(dir: string) {
    this.store = RecordStore.open(dir);
    try {
      this.seq = this.store.beginRead();
      this.total = this.store.totalCount();
      this.namespaces = this.store.namespaces();
      this.records = this.store.allRecords()[Symbol.iterator]();
    } catch (err) {
      this.store.close();
      throw err;
    }
  }

  /** Loads until `deadline` (performance.now() ms); true when every record is loaded. */
  step(deadline: number, engine: EngineIndex): boolean {
    for (;;) {
      for (let i = 0; i < 256; i++) {
        const next = this.records.next();
        if (next.done) {
          this.close();
          return true;
        }
        engine.load(next.value.ns, next.value.seq, next.value.record);
        this.loaded++;
      }
      if (performance.now() >= deadline) return false;
    }
  }

  /** Sparse (index, value) pairs namespace `ns` holds in the cut (reads every row's header: ask only when sparse values are possible). */
  sparsePairs(ns: string): number {
    return this.store.sparsePairs(ns);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.store.endRead();
    this.store.close();
  }
}
