// The durable record store of one index: a SQLite file, <index dir>/records.db.
//
// It is the durable point of the write path (DESIGN.md "Write path"): every mutating
// method runs in ONE transaction, so a batch is stored whole or not at all, and returns
// the changes it committed in commit order for the caller to post to the search engine
// before answering ("Threads and order"). The store is synchronous and is used from the
// main thread only; it assumes validated input and knows nothing of HTTP or projects.
//
// This class is the one entry point; the work is split by concern:
//   schema.ts      file format, pragmas, creating/opening
//   statements.ts  every SQL statement and the row <-> record conversions
//   writes.ts      mutations (one transaction each, seq allocation)
//   import-progress.ts  bulk import cursors, committed with their batches
//   reads.ts       gets, listings, scans, counts
//   change-log.ts  changesSince(S) and consistent read cuts, for replay after a snapshot
//   maintenance.ts purging dropped namespaces, compacting tombstones
//
// Invariants
// - Every change (upsert, update, delete of one record, namespace drop) gets the next
//   per-index sequence number. meta.last_seq is written in the same transaction, so a
//   number is never reused, whatever is deleted, purged or restarted.
// - A live record row carries the seq of its last change; a deleted record leaves a
//   tombstone row with the seq of its deletion; a dropped namespace leaves a
//   dropped_namespaces row with the seq of the drop. So a search structure is rebuilt as
//   "allRecords() at snapshotSeq() S" + "changesSince(S)" (see change-log.ts).
// - (nsid, id) is in at most one of records and tombstones.
// - namespaces.count is the number of live records of that namespace, kept in the write
//   transaction (DESIGN.md decision 6: counts never come from scanning records).
// - import_progress holds, per bulk import, the cursor past its last batch; it is written
//   only in that batch's transaction, so it counts exactly the batches stored here.
// - A namespace is an incarnation id (nsid) behind a name. Dropping it removes the name
//   row at once, so every read stops seeing it and a later upsert under the same name
//   gets a fresh nsid; its rows stay until purgeStep frees them in bounded chunks.
//   nsids are never reused (meta.next_nsid), so a purge can never touch a newer namespace.
//
// Sequence numbers and counts are JavaScript numbers: exact up to 2^53.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Predicate } from '../filter.js';
import type { Change, Metadata, StoredRecord } from '../model.js';
import { fsyncDirectory } from '../fsync.js';
import { ChangeLog } from './change-log.js';
import { StoreMaintenance } from './maintenance.js';
import type { ImportProgress } from './import-progress.js';
import { type Candidates, type ListOptions, RecordReader } from './reads.js';

export type { Candidates };
import { configure, readPragmas, RECORD_STORE_FILE, type StorePragmas } from './schema.js';
import { prepareStatements } from './statements.js';
import { type RecordPatch, RecordWriter } from './writes.js';

export { RECORD_STORE_FILE } from './schema.js';
export type { StorePragmas } from './schema.js';
export type { ListOptions } from './reads.js';
export type { ImportProgress } from './import-progress.js';
export type { RecordPatch } from './writes.js';

export class RecordStore {
  private constructor(
    private readonly db: Database.Database,
    private readonly writer: RecordWriter,
    private readonly reader: RecordReader,
    private readonly log: ChangeLog,
    private readonly maintenance: StoreMaintenance,
  ) {}

  /**
   * Bytes of the database file and its write-ahead log (0 for one that cannot be read): how
   * much a load of this index reads, for spreading indexes over engine workers.
   */
  fileBytes(): number {
    let bytes = 0;
    for (const file of [this.db.name, `${this.db.name}-wal`]) {
      try {
        bytes += fs.statSync(file).size;
      } catch {
        // absent (no WAL yet) or unreadable: counts as empty
      }
    }
    return bytes;
  }

  /** Opens `<dir>/records.db`, creating the directory and the database when absent. */
  static open(dir: string): RecordStore {
    fs.mkdirSync(dir, { recursive: true });
    const db = new Database(path.join(dir, RECORD_STORE_FILE));
    try {
      const created = configure(db);
      if (created) fsyncDirectory(dir); // the new file's directory entry is durable too
      const st = prepareStatements(db);
      return new RecordStore(
        db,
        new RecordWriter(db, st),
        new RecordReader(st),
        new ChangeLog(db, st),
        new StoreMaintenance(db, st),
      );
    } catch (err) {
      db.close();
      throw err;
    }
  }

  pragmas(): StorePragmas {
    return readPragmas(this.db);
  }

  close(): void {
    this.db.close();
  }

  // ---- writes (writes.ts) -----------------------------------------------------------

  /** Stores each record whole, replacing any record with its id. One change per record. */
  upsert(ns: string, records: readonly StoredRecord[]): Change[] {
    return this.writer.upsert(ns, records);
  }

  /**
   * One bulk import batch and the import's cursor past it, in one transaction (`records`
   * may be empty when every row of the batch was skipped). One change per record.
   */
  importBatch(ns: string, records: readonly StoredRecord[], importId: number, progress: ImportProgress): Change[] {
    return this.writer.importBatch(ns, records, importId, progress);
  }

  /** Patches one record. Null when the id is unknown: nothing is stored, no seq is used. */
  update(ns: string, id: string, patch: RecordPatch): Change | null {
    return this.writer.update(ns, id, patch);
  }

  /**
   * Merges `setMetadata` into every matching record; a dry run only counts (and refuses what the update would). `candidates`:
   * only these ids (the engine's match set) and the records written after it are examined, each checked again (forEachMatch).
   */
  updateMetadataWhere(
    ns: string,
    predicate: Predicate,
    setMetadata: Metadata,
    dryRun: boolean,
    candidates?: Candidates,
  ): { matched: number; changes: Change[] } {
    return this.writer.updateMetadataWhere(ns, predicate, setMetadata, dryRun, candidates);
  }

  /** Deletes the given ids, leaving tombstones. Unknown ids are skipped (no tombstone, no seq). */
  deleteIds(ns: string, ids: readonly string[]): Change[] {
    return this.writer.deleteIds(ns, ids);
  }

  /** Deletes every record of the namespace whose metadata matches (`candidates`: as above). */
  deleteWhere(ns: string, predicate: Predicate, candidates?: Candidates): Change[] {
    return this.writer.deleteWhere(ns, predicate, candidates);
  }

  /** Hides the whole namespace at once; null when it does not exist. */
  dropNamespace(ns: string): Change | null {
    return this.writer.dropNamespace(ns);
  }

  /** Creates an empty namespace that exists until dropped; false when it exists. */
  createNamespace(ns: string): boolean {
    return this.writer.createNamespace(ns);
  }

  // ---- maintenance (maintenance.ts) -------------------------------------------------

  /** Frees at most `maxRows` rows of dropped namespaces; true while work remains. */
  purgeStep(maxRows: number): boolean {
    return this.maintenance.purgeStep(maxRows);
  }

  /**
   * Forgets at most `maxRows` tombstones and purged drops with seq <= `uptoSeq`. Only
   * once every consumer holds a snapshot at or after `uptoSeq`. True while more remain.
   */
  compactTombstones(uptoSeq: number, maxRows: number): boolean {
    return this.maintenance.compactTombstones(uptoSeq, this.writer.lastCommittedSeq(), maxRows);
  }

  // ---- reads (reads.ts) -------------------------------------------------------------

  get(ns: string, id: string): StoredRecord | null {
    return this.reader.get(ns, id);
  }

  /** The records with these ids, in the order asked, each once; missing ids are absent. */
  fetch(ns: string, ids: readonly string[]): StoredRecord[] {
    return this.reader.fetch(ns, ids);
  }

  /** The metadata of these ids' records, by id (records without metadata, and missing ids, absent). */
  metadataOf(ns: string, ids: readonly string[]): Map<string, Metadata> {
    return this.reader.metadataOf(ns, ids);
  }

  /** Ids in byte order after `after`, starting with `prefix`; `more` when another page exists. */
  list(ns: string, options: ListOptions): { ids: string[]; more: boolean } {
    return this.reader.list(ns, options);
  }

  /** Live records in id order after `after`, at most `limit` (for filtered paging). */
  scan(ns: string, after: string | undefined, limit: number): StoredRecord[] {
    return this.reader.scan(ns, after, limit);
  }

  /** Bulk import `importId`'s cursor after its last committed batch; undefined before its first. */
  importProgress(importId: number): ImportProgress | undefined {
    return this.reader.importProgress(importId);
  }

  /** Whether the namespace exists: it holds records or was created explicitly. */
  hasNamespace(ns: string): boolean {
    return this.reader.hasNamespace(ns);
  }

  /** Existing namespaces (non-empty or explicitly created) in byte order of name. */
  namespaces(): { name: string; count: number }[] {
    return this.reader.namespaces();
  }

  count(ns: string): number {
    return this.reader.count(ns);
  }

  totalCount(): number {
    return this.reader.totalCount();
  }

  /** Sparse (index, value) pairs the namespace's records hold in all (a load sizes its pools with it). */
  sparsePairs(ns: string): number {
    return this.reader.sparsePairs(ns);
  }

  /** Every live record of every live namespace, by namespace then id, with its seq. */
  allRecords(): Iterable<{ ns: string; seq: number; record: StoredRecord }> {
    return this.reader.allRecords();
  }

  // ---- change log (change-log.ts) ---------------------------------------------------

  /** The seq of the last committed change (0 for a new store). */
  snapshotSeq(): number {
    return this.writer.lastCommittedSeq();
  }

  /** The changes after `seq`, in seq order (see change-log.ts). */
  changesSince(seq: number): Iterable<Change> {
    return this.log.changesSince(seq);
  }

  /** Starts a consistent read cut; returns the seq of the last change in it. */
  beginRead(): number {
    return this.log.beginRead();
  }

  endRead(): void {
    this.log.endRead();
  }
}
