// The durable record store of one index: a SQLite file, <index dir>/records.db.
//
// It is the durable point of the write path (DESIGN.md "Write path"): every mutating
// method runs in ONE transaction, so a batch is stored whole or not at all, and returns
// the changes it committed in commit order for the caller to post to the search engine
// before answering ("Threads and order"). The store is synchronous and is used from the
// main thread only; it assumes validated input and knows nothing of HTTP or projects.
//
// Invariants
// - Every change (upsert, update, delete of one record, namespace drop) gets the next
//   per-index sequence number. meta.last_seq is written in the same transaction, so a
//   number is never reused, whatever is deleted, purged or restarted.
// - A live record row carries the seq of its last change; a deleted record leaves a
//   tombstone row with the seq of its deletion; a dropped namespace leaves a
//   dropped_namespaces row with the seq of the drop. So a search structure is rebuilt as
//   "allRecords() at snapshotSeq() S" + "changesSince(S)" (see changesSince).
// - (nsid, id) is in at most one of records and tombstones.
// - namespaces.count is the number of live records of that namespace, kept in the write
//   transaction (DESIGN.md decision 6: counts never come from scanning records).
// - A namespace is an incarnation id (nsid) behind a name. Dropping it removes the name
//   row at once, so every read stops seeing it and a later upsert under the same name
//   gets a fresh nsid; its rows stay until purgeStep frees them in bounded chunks.
//   nsids are never reused (meta.next_nsid), so a purge can never touch a newer namespace.
//
// Sequence numbers and counts are JavaScript numbers: exact up to 2^53.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  decodeFloat32,
  decodeMetadata,
  decodeUint32,
  encode32,
  encodeMetadata,
  prefixUpperBound,
} from './record-codec.js';
import type { Predicate } from './filter.js';
import type { Change, Metadata, SparseValues, StoredRecord } from './model.js';
import { fsyncDirectory } from './fsync.js';

export type { Change, Metadata, MetadataValue, SparseValues, StoredRecord } from './model.js';

/** `values` and `sparse` replace the stored ones; `setMetadata` adds or overwrites keys. */
export interface RecordPatch {
  values?: Float32Array;
  sparse?: SparseValues;
  setMetadata?: Metadata;
}

export interface ListOptions {
  /** Only ids starting with this string (a key range, never LIKE). */
  prefix?: string;
  /** Only ids after this one (the last id of the previous page). */
  after?: string;
  limit: number;
}

export interface StorePragmas {
  journalMode: string;
  synchronous: number;
  pageSize: number;
  autoVacuum: number;
}

export const RECORD_STORE_FILE = 'records.db';

const SCHEMA_VERSION = 1;

// 8 KiB pages: a 384–1536-dim float32 vector (1.5–6 KiB) plus its metadata fits one page
// instead of spilling into overflow chains as with SQLite's 4 KiB default, while small
// rows (tombstones, counters, index entries) waste little. Fixed at creation: a page size
// cannot change once a WAL database holds tables.
const PAGE_SIZE = 8192;

// Rows read per statement by the scans in this file. Reads are chunked (`.all()` with
// keyset paging) rather than streamed with `.iterate()`: better-sqlite3 refuses any other
// statement on the connection while an iterator is open, and the scans write between
// chunks (deleteWhere) or hand control to the caller (the generators).
const CHUNK_ROWS = 1000;

// Column order matters: SQLite reads a column by walking the row from its start, so the
// small columns (seq, metadata) come before the sparse and dense blobs, which may spill
// into overflow pages. A list or metadata scan then never reads vector bytes.
// The CHECK on id is the last guard of DESIGN.md decision 8 (1–512 ASCII characters, no
// NUL): length(text) stops at the first NUL and counts characters, length(blob) counts
// bytes, so they are equal only for NUL-free ASCII.
const SCHEMA_V1 = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('last_seq', 0), ('next_nsid', 1), ('compacted_seq', 0);

-- explicit = 1: created by POST /namespaces, so it exists even while empty; other
-- namespaces exist while they hold records (DESIGN.md decision 5).
CREATE TABLE namespaces (
  name     TEXT PRIMARY KEY,
  nsid     INTEGER NOT NULL UNIQUE,
  count    INTEGER NOT NULL CHECK (count >= 0),
  explicit INTEGER NOT NULL DEFAULT 0 CHECK (explicit IN (0, 1))
) WITHOUT ROWID;

CREATE TABLE dropped_namespaces (
  nsid   INTEGER PRIMARY KEY,
  name   TEXT NOT NULL,
  seq    INTEGER NOT NULL UNIQUE,
  purged INTEGER NOT NULL DEFAULT 0 CHECK (purged IN (0, 1))
);

CREATE TABLE records (
  nsid           INTEGER NOT NULL,
  id             TEXT NOT NULL CHECK (
                   length(CAST(id AS BLOB)) BETWEEN 1 AND 512
                   AND length(id) = length(CAST(id AS BLOB))),
  seq            INTEGER NOT NULL UNIQUE,
  metadata       TEXT,
  sparse_indices BLOB,
  sparse_values  BLOB,
  dense          BLOB,
  PRIMARY KEY (nsid, id)
);

CREATE TABLE tombstones (
  nsid INTEGER NOT NULL,
  id   TEXT NOT NULL,
  seq  INTEGER NOT NULL UNIQUE,
  PRIMARY KEY (nsid, id)
) WITHOUT ROWID;
`;

interface NamespaceRow {
  nsid: number;
  count: number;
  explicit: number;
}

interface RecordRow {
  id: string;
  seq: number;
  metadata: string | null;
  sparse_indices: Buffer | null;
  sparse_values: Buffer | null;
  dense: Buffer | null;
}

interface RecordParams {
  nsid: number;
  id: string;
  seq: number;
  metadata: string | null;
  sparse_indices: Buffer | null;
  sparse_values: Buffer | null;
  dense: Buffer | null;
}

interface ChangeRow extends RecordRow {
  name: string;
  /** 0 upsert (a live record), 1 delete (a tombstone), 2 namespace drop. */
  kind: 0 | 1 | 2;
}

// Sorts after every id: ids are ASCII (CHECK above) and U+0080 is UTF-8 C2 80.
const ABOVE_EVERY_ID = '\u0080';

const RECORD_COLUMNS = 'id, seq, metadata, sparse_indices, sparse_values, dense';

function prepareStatements(db: Database.Database) {
  return {
    getMeta: db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE key = ?'),
    setMeta: db.prepare<[number, string]>('UPDATE meta SET value = ? WHERE key = ?'),

    namespace: db.prepare<[string], NamespaceRow>('SELECT nsid, count, explicit FROM namespaces WHERE name = ?'),
    insertNamespace: db.prepare<[string, number, number]>(
      'INSERT INTO namespaces (name, nsid, count, explicit) VALUES (?, ?, 0, ?)',
    ),
    markExplicit: db.prepare<[number]>('UPDATE namespaces SET explicit = 1 WHERE nsid = ?'),
    addToCount: db.prepare<[number, number]>('UPDATE namespaces SET count = count + ? WHERE nsid = ?'),
    deleteNamespace: db.prepare<[number]>('DELETE FROM namespaces WHERE nsid = ?'),
    liveNamespaces: db.prepare<[], { name: string; count: number; nsid: number }>(
      'SELECT name, count, nsid FROM namespaces WHERE count > 0 OR explicit = 1 ORDER BY name',
    ),
    totalCount: db.prepare<[], { total: number }>('SELECT coalesce(sum(count), 0) AS total FROM namespaces'),
    insertDropped: db.prepare<[number, string, number]>(
      'INSERT INTO dropped_namespaces (nsid, name, seq) VALUES (?, ?, ?)',
    ),

    exists: db.prepare<[number, string], { one: number }>('SELECT 1 AS one FROM records WHERE nsid = ? AND id = ?'),
    get: db.prepare<[number, string], RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE nsid = ? AND id = ?`),
    upsert: db.prepare<RecordParams>(
      `INSERT INTO records (nsid, id, seq, metadata, sparse_indices, sparse_values, dense)
       VALUES (@nsid, @id, @seq, @metadata, @sparse_indices, @sparse_values, @dense)
       ON CONFLICT (nsid, id) DO UPDATE SET
         seq = excluded.seq, metadata = excluded.metadata, sparse_indices = excluded.sparse_indices,
         sparse_values = excluded.sparse_values, dense = excluded.dense`,
    ),
    deleteRecord: db.prepare<[number, string]>('DELETE FROM records WHERE nsid = ? AND id = ?'),
    insertTombstone: db.prepare<[number, string, number]>('INSERT INTO tombstones (nsid, id, seq) VALUES (?, ?, ?)'),
    deleteTombstone: db.prepare<[number, string]>('DELETE FROM tombstones WHERE nsid = ? AND id = ?'),

    // Keyset paging over the (nsid, id) primary key: one range, both ends bound.
    listAfter: db.prepare<[number, string, string, number], { id: string }>(
      'SELECT id FROM records WHERE nsid = ? AND id > ? AND id < ? ORDER BY id LIMIT ?',
    ),
    listFrom: db.prepare<[number, string, string, number], { id: string }>(
      'SELECT id FROM records WHERE nsid = ? AND id >= ? AND id < ? ORDER BY id LIMIT ?',
    ),
    scan: db.prepare<[number, string, number], RecordRow>(
      `SELECT ${RECORD_COLUMNS} FROM records WHERE nsid = ? AND id > ? ORDER BY id LIMIT ?`,
    ),
    scanMetadata: db.prepare<[number, string, number], { id: string; metadata: string | null }>(
      'SELECT id, metadata FROM records WHERE nsid = ? AND id > ? ORDER BY id LIMIT ?',
    ),

    // The change log: live rows, tombstones and drops after a seq, merged in seq order
    // (SQLite merges the three seq-ordered arms; records in dropped nsids are excluded by
    // the join, since their drop supersedes them).
    changesAfter: db.prepare<{ after: number; limit: number }, ChangeRow>(
      `SELECT r.seq AS seq, n.name AS name, 0 AS kind, r.id AS id, r.metadata AS metadata,
              r.sparse_indices AS sparse_indices, r.sparse_values AS sparse_values, r.dense AS dense
         FROM records r JOIN namespaces n ON n.nsid = r.nsid WHERE r.seq > @after
       UNION ALL
       SELECT t.seq, n.name, 1, t.id, NULL, NULL, NULL, NULL
         FROM tombstones t JOIN namespaces n ON n.nsid = t.nsid WHERE t.seq > @after
       UNION ALL
       SELECT d.seq, d.name, 2, NULL, NULL, NULL, NULL, NULL
         FROM dropped_namespaces d WHERE d.seq > @after
       ORDER BY 1 LIMIT @limit`,
    ),

    nextToPurge: db.prepare<[], { nsid: number }>(
      'SELECT nsid FROM dropped_namespaces WHERE purged = 0 ORDER BY seq LIMIT 1',
    ),
    purgeRecords: db.prepare<{ nsid: number; limit: number }>(
      'DELETE FROM records WHERE rowid IN (SELECT rowid FROM records WHERE nsid = @nsid LIMIT @limit)',
    ),
    purgeTombstones: db.prepare<{ nsid: number; limit: number }>(
      'DELETE FROM tombstones WHERE nsid = @nsid AND id IN (SELECT id FROM tombstones WHERE nsid = @nsid LIMIT @limit)',
    ),
    markPurged: db.prepare<[number]>('UPDATE dropped_namespaces SET purged = 1 WHERE nsid = ?'),
    compactTombstones: db.prepare<{ upto: number; limit: number }>(
      `DELETE FROM tombstones WHERE (nsid, id) IN
         (SELECT nsid, id FROM tombstones WHERE seq <= @upto ORDER BY seq LIMIT @limit)`,
    ),
    compactDrops: db.prepare<{ upto: number; limit: number }>(
      `DELETE FROM dropped_namespaces WHERE nsid IN
         (SELECT nsid FROM dropped_namespaces WHERE purged = 1 AND seq <= @upto ORDER BY seq LIMIT @limit)`,
    ),
    compactable: db.prepare<{ upto: number }, { one: number }>(
      `SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM tombstones WHERE seq <= @upto)
          OR EXISTS (SELECT 1 FROM dropped_namespaces WHERE purged = 1 AND seq <= @upto)`,
    ),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

function toParams(nsid: number, record: StoredRecord, seq: number): RecordParams {
  return {
    nsid,
    id: record.id,
    seq,
    metadata: encodeMetadata(record.metadata),
    sparse_indices: record.sparse ? encode32(record.sparse.indices) : null,
    sparse_values: record.sparse ? encode32(record.sparse.values) : null,
    dense: record.values ? encode32(record.values) : null,
  };
}

function toRecord(row: RecordRow): StoredRecord {
  return normalized({
    id: row.id,
    values: row.dense === null ? undefined : decodeFloat32(row.dense),
    sparse:
      row.sparse_indices === null || row.sparse_values === null
        ? undefined
        : { indices: decodeUint32(row.sparse_indices), values: decodeFloat32(row.sparse_values) },
    metadata: decodeMetadata(row.metadata),
  });
}

/** The record with absent fields left out (not set to undefined), as get() returns it. */
function normalized(record: StoredRecord): StoredRecord {
  const out: StoredRecord = { id: record.id };
  if (record.values !== undefined) out.values = record.values;
  if (record.sparse !== undefined) out.sparse = record.sparse;
  if (record.metadata !== undefined) out.metadata = record.metadata;
  return out;
}

export class RecordStore {
  // Caches of meta.last_seq and meta.next_nsid. Only a transaction changes them; it
  // writes them back before committing and restores the cache if it rolls back.
  private lastSeq: number;
  private nextNsid: number;

  private constructor(
    private readonly db: Database.Database,
    private readonly st: Statements,
  ) {
    this.lastSeq = this.meta('last_seq');
    this.nextNsid = this.meta('next_nsid');
  }

  /** Opens `<dir>/records.db`, creating the directory and the database when absent. */
  static open(dir: string): RecordStore {
    fs.mkdirSync(dir, { recursive: true });
    const db = new Database(path.join(dir, RECORD_STORE_FILE));
    try {
      const created = configure(db);
      if (created) fsyncDirectory(dir); // the new file's directory entry is durable too
      return new RecordStore(db, prepareStatements(db));
    } catch (err) {
      db.close();
      throw err;
    }
  }

  pragmas(): StorePragmas {
    return {
      journalMode: String(this.db.pragma('journal_mode', { simple: true })),
      synchronous: Number(this.db.pragma('synchronous', { simple: true })),
      pageSize: Number(this.db.pragma('page_size', { simple: true })),
      autoVacuum: Number(this.db.pragma('auto_vacuum', { simple: true })),
    };
  }

  close(): void {
    this.db.close();
  }

  // ---- writes ---------------------------------------------------------------------

  /** Stores each record whole, replacing any record with its id. One change per record. */
  upsert(ns: string, records: readonly StoredRecord[]): Change[] {
    if (records.length === 0) return [];
    return this.transaction(() => {
      const nsid = this.namespaceForWrite(ns);
      let added = 0;
      const changes: Change[] = [];
      for (const input of records) {
        const record = normalized(input);
        const seq = this.nextSeq();
        if (this.st.exists.get(nsid, record.id) === undefined) {
          added++;
          this.st.deleteTombstone.run(nsid, record.id); // a re-created id supersedes its tombstone
        }
        this.st.upsert.run(toParams(nsid, record, seq));
        changes.push({ kind: 'upsert', ns, seq, record });
      }
      if (added > 0) this.st.addToCount.run(added, nsid);
      return changes;
    });
  }

  /** Patches one record. Null when the id is unknown: nothing is stored, no seq is used. */
  update(ns: string, id: string, patch: RecordPatch): Change | null {
    return this.transaction(() => {
      const namespace = this.st.namespace.get(ns);
      if (namespace === undefined) return null;
      const row = this.st.get.get(namespace.nsid, id);
      if (row === undefined) return null;
      const current = toRecord(row);
      const record = normalized({
        id,
        values: patch.values ?? current.values,
        sparse: patch.sparse ?? current.sparse,
        metadata: mergeMetadata(current.metadata, patch.setMetadata),
      });
      return this.rewrite(ns, namespace.nsid, record);
    });
  }

  /**
   * Merges `setMetadata` into every record of the namespace whose metadata matches.
   * A dry run only counts; otherwise each match is one change. `candidates`: only these
   * ids are examined (the engine's match set, so nothing is scanned), each checked
   * again against its current metadata.
   */
  updateMetadataWhere(
    ns: string,
    predicate: Predicate,
    setMetadata: Metadata,
    dryRun: boolean,
    candidates?: readonly string[],
  ): { matched: number; changes: Change[] } {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined) return { matched: 0, changes: [] };
    if (dryRun) {
      let matched = 0;
      this.forEachMatch(namespace.nsid, predicate, candidates, () => matched++);
      return { matched, changes: [] };
    }
    const changes = this.transaction(() => {
      const out: Change[] = [];
      this.forEachMatch(namespace.nsid, predicate, candidates, (id) => {
        const row = this.st.get.get(namespace.nsid, id);
        if (row === undefined) throw new Error(`record ${id} vanished during its own transaction`);
        const current = toRecord(row);
        out.push(this.rewrite(ns, namespace.nsid, { ...current, metadata: mergeMetadata(current.metadata, setMetadata) }));
      });
      return out;
    });
    return { matched: changes.length, changes };
  }

  /** Deletes the given ids, leaving tombstones. Unknown ids are skipped (no tombstone, no seq). */
  deleteIds(ns: string, ids: readonly string[]): Change[] {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined || ids.length === 0) return [];
    return this.transaction(() => {
      const changes: Change[] = [];
      for (const id of ids) {
        const change = this.deleteOne(ns, namespace.nsid, id);
        if (change !== null) changes.push(change);
      }
      if (changes.length > 0) this.st.addToCount.run(-changes.length, namespace.nsid);
      return changes;
    });
  }

  /** Deletes every record of the namespace whose metadata matches (`candidates`: as in updateMetadataWhere). */
  deleteWhere(ns: string, predicate: Predicate, candidates?: readonly string[]): Change[] {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined) return [];
    return this.transaction(() => {
      const changes: Change[] = [];
      // Safe while scanning: the keyset scan resumes after the last id it read, and only
      // ids at or before it are deleted.
      this.forEachMatch(namespace.nsid, predicate, candidates, (id) => {
        const change = this.deleteOne(ns, namespace.nsid, id);
        if (change !== null) changes.push(change);
      });
      if (changes.length > 0) this.st.addToCount.run(-changes.length, namespace.nsid);
      return changes;
    });
  }

  /**
   * Hides the whole namespace at once: reads, counts and listings stop seeing it and a
   * later upsert under the name starts a fresh, empty namespace. Its rows are freed later
   * by purgeStep. Null when the namespace has no records (decision 5: it does not exist).
   */
  dropNamespace(ns: string): Change | null {
    return this.transaction(() => {
      const namespace = this.st.namespace.get(ns);
      if (namespace === undefined || (namespace.count === 0 && namespace.explicit === 0)) return null;
      const seq = this.nextSeq();
      this.st.deleteNamespace.run(namespace.nsid);
      this.st.insertDropped.run(namespace.nsid, ns, seq);
      return { kind: 'drop-namespace', ns, seq } satisfies Change;
    });
  }

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
   * Forgets at most `maxRows` tombstones and purged namespace drops with seq <= `uptoSeq`.
   * Call it only once every consumer holds a snapshot at or after `uptoSeq`: afterwards
   * changesSince(S) refuses S < uptoSeq, since its replay would miss those deletions.
   * True while more remain to forget.
   */
  compactTombstones(uptoSeq: number, maxRows: number): boolean {
    const limit = Math.min(uptoSeq, this.lastSeq);
    const budget = Math.max(1, Math.floor(maxRows));
    this.db.transaction(() => {
      if (limit > this.meta('compacted_seq')) this.st.setMeta.run(limit, 'compacted_seq');
      const removed = this.st.compactTombstones.run({ upto: limit, limit: budget }).changes;
      if (removed < budget) this.st.compactDrops.run({ upto: limit, limit: budget - removed });
    }).immediate();
    return this.st.compactable.get({ upto: limit }) !== undefined;
  }

  // ---- reads ----------------------------------------------------------------------

  get(ns: string, id: string): StoredRecord | null {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined) return null;
    const row = this.st.get.get(namespace.nsid, id);
    return row === undefined ? null : toRecord(row);
  }

  /** The records with these ids, in the order asked, each once; missing ids are absent. */
  fetch(ns: string, ids: readonly string[]): StoredRecord[] {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined) return [];
    const out: StoredRecord[] = [];
    for (const id of new Set(ids)) {
      const row = this.st.get.get(namespace.nsid, id);
      if (row !== undefined) out.push(toRecord(row));
    }
    return out;
  }

  /** Ids in byte order after `after`, starting with `prefix`; `more` when another page exists. */
  list(ns: string, options: ListOptions): { ids: string[]; more: boolean } {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined || options.limit <= 0) return { ids: [], more: false };
    const prefix = options.prefix ?? '';
    const upper = prefixUpperBound(prefix) ?? ABOVE_EVERY_ID;
    const limit = options.limit;
    // The lower bound is the larger of "after the page token" and "at the prefix".
    const rows =
      options.after !== undefined && options.after >= prefix
        ? this.st.listAfter.all(namespace.nsid, options.after, upper, limit + 1)
        : this.st.listFrom.all(namespace.nsid, prefix, upper, limit + 1);
    const more = rows.length > limit;
    return { ids: rows.slice(0, limit).map((row) => row.id), more };
  }

  /** Live records in id order after `after`, at most `limit` (for filtered paging). */
  scan(ns: string, after: string | undefined, limit: number): StoredRecord[] {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined || limit <= 0) return [];
    return this.st.scan.all(namespace.nsid, after ?? '', limit).map(toRecord);
  }

  /**
   * Creates an empty namespace that exists until dropped, even while empty (POST
   * /namespaces). False when the namespace already exists. Uses no seq: the search
   * engine has nothing to apply for an empty namespace.
   */
  createNamespace(ns: string): boolean {
    return this.transaction(() => {
      const existing = this.st.namespace.get(ns);
      if (existing === undefined) {
        const nsid = this.nextNsid;
        this.nextNsid += 1;
        this.st.insertNamespace.run(ns, nsid, 1);
        return true;
      }
      if (existing.count > 0 || existing.explicit === 1) return false;
      this.st.markExplicit.run(existing.nsid);
      return true;
    });
  }

  /** Whether the namespace exists: it holds records or was created explicitly. */
  hasNamespace(ns: string): boolean {
    const row = this.st.namespace.get(ns);
    return row !== undefined && (row.count > 0 || row.explicit === 1);
  }

  /** Existing namespaces (non-empty or explicitly created) in byte order of name. */
  namespaces(): { name: string; count: number }[] {
    return this.st.liveNamespaces.all().map(({ name, count }) => ({ name, count }));
  }

  count(ns: string): number {
    return this.st.namespace.get(ns)?.count ?? 0;
  }

  totalCount(): number {
    return this.st.totalCount.get()?.total ?? 0;
  }

  /** The seq of the last committed change (0 for a new store). */
  snapshotSeq(): number {
    return this.lastSeq;
  }

  /**
   * The changes after `seq`, in seq order: each live record changed since (as it is now),
   * each tombstone and each namespace drop since. Applied in order on top of the state
   * at `seq` (e.g. allRecords() read when snapshotSeq() was `seq`) they give the current
   * state. Reads in chunks; the caller must not write while iterating if it needs a
   * consistent cut (writes in between show up as later changes, which is still correct).
   */
  *changesSince(seq: number): Iterable<Change> {
    const compacted = this.meta('compacted_seq');
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
    return this.meta('last_seq');
  }

  endRead(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  /** Every live record of every live namespace, by namespace then id, with its seq. */
  *allRecords(): Iterable<{ ns: string; seq: number; record: StoredRecord }> {
    for (const { name, nsid } of this.st.liveNamespaces.all()) {
      let after = '';
      for (;;) {
        const rows = this.st.scan.all(nsid, after, CHUNK_ROWS);
        for (const row of rows) yield { ns: name, seq: row.seq, record: toRecord(row) };
        if (rows.length < CHUNK_ROWS) break;
        after = rows[rows.length - 1].id;
      }
    }
  }

  // ---- internals ------------------------------------------------------------------

  private transaction<T>(work: () => T): T {
    const { lastSeq, nextNsid } = this;
    try {
      return this.db
        .transaction(() => {
          const result = work();
          if (this.lastSeq !== lastSeq) this.st.setMeta.run(this.lastSeq, 'last_seq');
          if (this.nextNsid !== nextNsid) this.st.setMeta.run(this.nextNsid, 'next_nsid');
          return result;
        })
        .immediate();
    } catch (err) {
      this.lastSeq = lastSeq;
      this.nextNsid = nextNsid;
      throw err;
    }
  }

  private nextSeq(): number {
    this.lastSeq += 1;
    return this.lastSeq;
  }

  private meta(key: string): number {
    const row = this.st.getMeta.get(key);
    if (row === undefined) throw new Error(`corrupt record store: meta.${key} is missing`);
    return row.value;
  }

  /** The live nsid of `ns`, creating the namespace (count 0) when absent. */
  private namespaceForWrite(ns: string): number {
    const existing = this.st.namespace.get(ns);
    if (existing !== undefined) return existing.nsid;
    const nsid = this.nextNsid;
    this.nextNsid += 1;
    this.st.insertNamespace.run(ns, nsid, 0);
    return nsid;
  }

  /** Stores `record` (which exists) under a new seq. */
  private rewrite(ns: string, nsid: number, record: StoredRecord): Change {
    const seq = this.nextSeq();
    this.st.upsert.run(toParams(nsid, record, seq));
    return { kind: 'upsert', ns, seq, record };
  }

  /** Deletes one live record and leaves its tombstone; the caller adjusts the count. */
  private deleteOne(ns: string, nsid: number, id: string): Change | null {
    if (this.st.deleteRecord.run(nsid, id).changes === 0) return null;
    const seq = this.nextSeq();
    this.st.insertTombstone.run(nsid, id, seq);
    return { kind: 'delete', ns, seq, id };
  }

  /** Calls `onMatch(id)` for each record whose metadata matches, in id order. */
  private forEachMatch(
    nsid: number,
    predicate: Predicate,
    candidates: readonly string[] | undefined,
    onMatch: (id: string) => void,
  ): void {
    if (candidates) {
      for (const id of new Set(candidates)) {
        const row = this.st.get.get(nsid, id);
        if (row !== undefined && predicate(decodeMetadata(row.metadata))) onMatch(id);
      }
      return;
    }
    let after = '';
    for (;;) {
      const rows = this.st.scanMetadata.all(nsid, after, CHUNK_ROWS);
      for (const row of rows) if (predicate(decodeMetadata(row.metadata))) onMatch(row.id);
      if (rows.length < CHUNK_ROWS) return;
      after = rows[rows.length - 1].id;
    }
  }
}

function mergeMetadata(current: Metadata | undefined, set: Metadata | undefined): Metadata | undefined {
  if (set === undefined) return current;
  return { ...current, ...set };
}

/**
 * Sets the file-level pragmas and creates or checks the schema. Returns true when the
 * database was created. page_size and auto_vacuum only take effect before the first
 * table, so they are set on a new file only; journal_mode=WAL (persistent) and
 * synchronous=FULL (per connection: every commit fsyncs the WAL, DESIGN.md decision 9)
 * are set on every open.
 */
function configure(db: Database.Database): boolean {
  const version = Number(db.pragma('user_version', { simple: true }));
  const fresh = version === 0;
  if (fresh) {
    const objects = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM sqlite_schema').get()?.n ?? 0;
    if (objects > 0) throw new Error(`${db.name} is not a Conifer record store (it has tables but no schema version)`);
    db.pragma(`page_size = ${PAGE_SIZE}`);
    db.pragma('auto_vacuum = INCREMENTAL');
  } else if (version > SCHEMA_VERSION) {
    throw new Error(`${db.name} has schema version ${version}; this build reads up to ${SCHEMA_VERSION}`);
  }
  const mode = String(db.pragma('journal_mode = WAL', { simple: true }));
  if (mode !== 'wal') throw new Error(`${db.name}: journal_mode=WAL refused (got ${mode})`);
  db.pragma('synchronous = FULL');
  if (fresh) {
    db.transaction(() => {
      db.exec(SCHEMA_V1);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  }
  // Later schema versions add their migrations here, each in one transaction.
  return fresh;
}

