// The record store's file: its schema, its pragmas, and opening or creating it.
//
// File: <index dir>/records.db, SQLite in WAL mode. PRAGMA user_version holds the schema
// version; a file without one but with tables is refused (it is not ours), a newer
// version is refused (this build cannot read it). An older file is brought up to date
// on open by MIGRATIONS, each step in one transaction with its user_version bump, so a
// crash mid-migration leaves the file at the previous version, never between two.
//
// Versions
//   1  meta, namespaces, dropped_namespaces, records, tombstones
//   2  import_progress: the cursor of each bulk import, committed in the same
//      transaction as the import's batch (data/import-runner.ts)
//   3  records_metadata: a covering index for a query's includeMetadata lookups

import Database from 'better-sqlite3';
import { isStorageFull } from '../../errors.js';

export const RECORD_STORE_FILE = 'records.db';

export interface StorePragmas {
  journalMode: string;
  synchronous: number;
  pageSize: number;
  autoVacuum: number;
  journalSizeLimit: number;
}

/**
 * The size a WAL file is cut back to after a checkpoint resets it (journal_size_limit, per
 * connection): about SQLite's 1,000-page checkpoint interval. Without it a WAL keeps its
 * largest size for good — 24 MB after an outside probe deleted a namespace on a nearly
 * full volume, space the README says a delete returns.
 */
export const WAL_SIZE_LIMIT_BYTES = 8 * 1024 * 1024;


// 8 KiB pages: a 384–1536-dim float32 vector (1.5–6 KiB) plus its metadata fits one page
// instead of spilling into overflow chains as with SQLite's 4 KiB default, while small
// rows (tombstones, counters, index entries) waste little. Fixed at creation: a page size
// cannot change once a WAL database holds tables.
const PAGE_SIZE = 8192;

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

// Version 2. One row per bulk import ever written into this index, keyed by the import's
// catalog id (catalog ids are AUTOINCREMENT, never reused). It is written only in the
// transaction that stores one of the import's batches, so the row always describes
// exactly the batches this file holds: fileIndex/rowInFile is the first source row not
// yet committed, and the counts cover every committed batch and nothing else. A resumed
// import reads its cursor here; the catalog's copy is a mirror for describe/list. Rows
// of finished imports stay (a few dozen bytes each) and go with the index's files.
const SCHEMA_V2 = `
CREATE TABLE import_progress (
  import_id        INTEGER PRIMARY KEY,
  file_index       INTEGER NOT NULL CHECK (file_index >= 0),
  row_in_file      INTEGER NOT NULL CHECK (row_in_file >= 0),
  rows_done        INTEGER NOT NULL CHECK (rows_done >= 0),
  records_imported INTEGER NOT NULL CHECK (records_imported >= 0),
  records_failed   INTEGER NOT NULL CHECK (records_failed >= 0)
);
`;

// Version 3. A query with includeMetadata reads the metadata of its hits by (nsid, id)
// (reads.ts metadataOf) on the HTTP thread — since the engine answers it from its columns,
// only for records whose fields do not all have one (declared filterable fields). Through the primary key that is an index seek
// and then a seek into the table, whose pages hold the vectors too (a 384-d record is
// ~1.7 KB, so 10 random hits touch 10 table pages that are rarely cached): ~105 µs per 10
// ids at 100k × 384. This index answers the lookup alone, from pages holding only ids and
// metadata (~7 MB per 100k records of the bench's metadata): ~23 µs per 10 ids
// (measured with a copy of a bench store, default cache). Every write maintains it: one
// more B-tree entry per record, and the metadata's bytes once more on disk.
const SCHEMA_V3 = `
CREATE INDEX records_metadata ON records (nsid, id, metadata);
`;

/** MIGRATIONS[i] takes a file from version i to version i + 1 (version 0: empty). */
const MIGRATIONS = [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3];

/**
 * The steps that only add an index to speed reads up (by `from` version): every statement
 * works without them. When the volume is too full to build one, the file opens at the
 * version before and the next open tries again: an upgrade onto a nearly full disk must
 * not leave the index's records unreadable. The write connection and the readers open the
 * same file; whichever opens first after space comes back builds it.
 */
const READ_SPEEDUP_STEPS = new Set([2]);
const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Sets the file-level pragmas and creates or checks the schema. Returns true when the
 * database was created. page_size and auto_vacuum only take effect before the first
 * table, so they are set on a new file only; journal_mode=WAL (persistent) and
 * synchronous=FULL (per connection: every commit fsyncs the WAL, DESIGN.md decision 9)
 * are set on every open.
 */
export function configure(db: Database.Database): boolean {
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
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  for (let from = version; from < SCHEMA_VERSION; from++) {
    try {
      db.transaction(() => {
        // Read again under the write lock: another connection (the writer thread, an engine
        // worker) may have opened the same file and migrated it since we first looked.
        if (Number(db.pragma('user_version', { simple: true })) !== from) return;
        db.exec(MIGRATIONS[from]);
        db.pragma(`user_version = ${from + 1}`);
      }).immediate();
    } catch (err) {
      if (READ_SPEEDUP_STEPS.has(from) && isStorageFull(err)) break; // rolled back: the file stays at `from`
      throw err;
    }
  }
  return fresh;
}

export function readPragmas(db: Database.Database): StorePragmas {
  return {
    journalMode: String(db.pragma('journal_mode', { simple: true })),
    synchronous: Number(db.pragma('synchronous', { simple: true })),
    pageSize: Number(db.pragma('page_size', { simple: true })),
    autoVacuum: Number(db.pragma('auto_vacuum', { simple: true })),
    journalSizeLimit: Number(db.pragma('journal_size_limit', { simple: true })),
  };
}
