// The conifer_engine_unindexed_records gauge of each index: acknowledged records not yet
// in a graph. Two threads know half of it each, so the main thread adds them up here:
// - the engine worker knows the records it has applied that still wait for graph
//   insertion (searched exactly meanwhile), and reports that count with the seq of the
//   last change it had applied when it counted (a status event);
// - the main thread knows the writes acknowledged to clients, each with its seq (the
//   writer thread's reply), which the worker may not have applied yet.
// Invariant: value = the worker's last count + the records of acknowledged writes with a
// seq above the seq of that count. Changes apply in seq order, so each acknowledged record
// is in exactly one of the two terms: applied (seq ≤ the report's: in the count, if still
// outside a graph) or not (seq above it: in the backlog). An acknowledged write therefore
// shows until the worker reports having applied it, and the gauge reads 0 only once every
// acknowledged record is in a graph (or in a namespace too small to need one). Before,
// the worker's count alone read 0 while a backlogged worker had not applied an ingest yet.
import type { IndexCount } from './protocol.js';

interface Backlog {
  reported: IndexCount;
  /** Acknowledged writes above reported.seq, in seq order: [seq, records] pairs. */
  writes: [number, number][];
  /** Σ records of `writes`. */
  records: number;
}

export class IndexingBacklog {
  private readonly byIndex = new Map<string, Backlog>();

  /** A write acknowledged with `seq` that put `records` records (upserted or changed) in the index. */
  acknowledged(indexId: string, seq: number, records: number): void {
    const b = this.of(indexId);
    if (records <= 0 || seq <= b.reported.seq) return; // applied already (its report came first)
    b.writes.push([seq, records]);
    b.records += records;
  }

  /** The worker's count for the index, as of its seq. A report older than the last one changes nothing. */
  reported(indexId: string, count: IndexCount): void {
    const b = this.of(indexId);
    if (count.seq < b.reported.seq) return;
    b.reported = count;
    let applied = 0;
    while (applied < b.writes.length && b.writes[applied][0] <= count.seq) b.records -= b.writes[applied++][1];
    if (applied > 0) b.writes.splice(0, applied);
  }

  /** The gauge's value for the index. */
  value(indexId: string): number {
    const b = this.byIndex.get(indexId);
    return b ? b.reported.unindexed + b.records : 0;
  }

  /**
   * A worker restarted: its successor loads every index from the stores, so the next count
   * it reports may carry a seq below the last one (an index opened fresh). Counts of the old
   * worker no longer hold; the acknowledged writes stay until a count covers them.
   */
  restarted(indexIds: Iterable<string>): void {
    for (const id of indexIds) {
      const b = this.byIndex.get(id);
      if (b) b.reported = { unindexed: b.reported.unindexed, seq: 0 };
    }
  }

  forget(indexId: string): void {
    this.byIndex.delete(indexId);
  }

  private of(indexId: string): Backlog {
    let b = this.byIndex.get(indexId);
    if (!b) this.byIndex.set(indexId, (b = { reported: { unindexed: 0, seq: 0 }, writes: [], records: 0 }));
    return b;
  }
}
