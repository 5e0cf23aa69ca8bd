// Background maintenance of the record store: freeing dropped namespaces' rows and
// forgetting tombstones no replay needs any more. Each step is one bounded transaction,
// so a background loop interleaves it with writes.

import type Database from 'better-sqlite3';
import { readMeta, type Statements } from './statements.js';

export class StoreMaintenance {
  constructor(
    private readonly db: Database.Database,
    private readonly st: Statements,
  ) {}

  /**
   * Frees at most `maxRows` rows of dropped namespaces (one transaction), then returns up
   * to `maxRows` free pages to the file system (PRAGMA incremental_vacuum). True while
   * rows or free pages remain, so a background loop calls it until it answers false.
   */
  purgeStep(maxRows: number): boolean {
    const budget = Math.max(1, Math.floor(maxRows));
    this.db.transaction(() => {
      let left = budget;
      while (left > 0) {
        const next = this.st.nextToPurge.get();
        if (next === undefined) break;
        left -= this.st.purgeRecords.run({ nsid: next.nsid, limit: left }).changes;
        if (left > 0) left -= this.st.purgeTombstones.run({ nsid: next.nsid, limit: left }).changes;
        if (left > 0) this.st.markPurged.run(next.nsid); // fewer than asked: nothing left
      }
    }).immediate();
    this.db.pragma(`incremental_vacuum(${budget})`);
    return this.st.nextToPurge.get() !== undefined || Number(this.db.pragma('freelist_count', { simple: true })) > 0;
  }

  /**
   * Forgets at most `maxRows` tombstones and purged namespace drops with seq <= `uptoSeq`
   * (capped at `lastSeq`, the last committed seq). Call it only once every consumer holds
   * a snapshot at or after `uptoSeq`: afterwards changesSince(S) refuses S < uptoSeq,
   * since its replay would miss those deletions. True while more remain to forget.
   */
  compactTombstones(uptoSeq: number, lastSeq: number, maxRows: number): boolean {
    const limit = Math.min(uptoSeq, lastSeq);
    const budget = Math.max(1, Math.floor(maxRows));
    this.db.transaction(() => {
      if (limit > readMeta(this.st, 'compacted_seq')) this.st.setMeta.run(limit, 'compacted_seq');
      const removed = this.st.compactTombstones.run({ upto: limit, limit: budget }).changes;
      if (removed < budget) this.st.compactDrops.run({ upto: limit, limit: budget - removed });
    }).immediate();
    return this.st.compactable.get({ upto: limit }) !== undefined;
  }
}
