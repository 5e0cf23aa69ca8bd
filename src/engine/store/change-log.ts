// The change log reader: what a search structure replays on top of a snapshot.
//
// There is no separate log table. A live record row carries the seq of its last change,
// a tombstone the seq of its deletion, a dropped_namespaces row the seq of the drop; so
// "the changes after S" is the union of those rows with seq > S, in seq order. Applied
// on top of the state at S they give the current state — except that compacted
// tombstones (meta.compacted_seq, see maintenance.ts) are gone, so S below it is refused.

import type Database from 'better-sqlite3';
import type { Change } from '../model.js';
import { CHUNK_ROWS, readMeta, type Statements, toRecord } from './statements.js';

export class ChangeLog {
  constructor(
    private readonly db: Database.Database,
    private readonly st: Statements,
  ) {}

  /**
   * The changes after `seq`, in seq order: each live record changed since (as it is now),
   * each tombstone and each namespace drop since. Applied in order on top of the state
   * at `seq` (e.g. allRecords() read when snapshotSeq() was `seq`) they give the current
   * state. Reads in chunks; the caller must not write while iterating if it needs a
   * consistent cut (writes in between show up as later changes, which is still correct).
   */
  *changesSince(seq: number): Iterable<Change> {
    const compacted = readMeta(this.st, 'compacted_seq');
    if (seq < compacted) {
      throw new Error(`changes before seq ${compacted} were compacted; cannot replay from ${seq}`);
    }
    let after = seq;
    for (;;) {
      const rows = this.st.changesAfter.all({ after, limit: CHUNK_ROWS });
      for (const row of rows) {
        if (row.kind === 0) yield { kind: 'upsert', ns: row.name, seq: row.seq, record: toRecord(row) };
        else if (row.kind === 1) yield { kind: 'delete', ns: row.name, seq: row.seq, id: row.id };
        else yield { kind: 'drop-namespace', ns: row.name, seq: row.seq };
      }
      if (rows.length < CHUNK_ROWS) return;
      after = rows[rows.length - 1].seq;
    }
  }

  /**
   * Starts a read transaction: until endRead(), reads on this connection see the store
   * as it is now, while other connections keep committing (WAL). A load done in slices
   * uses it to read one consistent cut. Returns the seq of the last change in the cut.
   */
  beginRead(): number {
    this.db.exec('BEGIN');
    return readMeta(this.st, 'last_seq');
  }

  endRead(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }
}
