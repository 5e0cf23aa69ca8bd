// Every SQL statement of the record store, prepared once per connection, and the
// conversions between its rows and the engine's records. Only this file writes SQL
// (schema.ts aside); writes.ts, reads.ts, change-log.ts and maintenance.ts call these.

import type Database from 'better-sqlite3';
import { ascendingSparse, type StoredRecord } from '../model.js';
import type { ImportProgressRow } from './import-progress.js';
import { decodeFloat32, decodeMetadata, decodeUint32, encode32, encodeMetadata } from './record-codec.js';

// Rows read per statement by the record store's scans. Reads are chunked (`.all()` with
// keyset paging) rather than streamed with `.iterate()`: better-sqlite3 refuses any other
// statement on the connection while an iterator is open, and the scans write between
// chunks (deleteWhere) or hand control to the caller (the generators).
export const CHUNK_ROWS = 1000;

interface NamespaceRow {
  nsid: number;
  count: number;
  explicit: number;
}

export interface RecordRow {
  id: string;
  seq: number;
  metadata: string | null;
  sparse_indices: Buffer | null;
  sparse_values: Buffer | null;
  dense: Buffer | null;
}

/**
 * The upsert's parameters, by position: better-sqlite3 binds named ones by looking each
 * name up in the object from C++, which cost about 2 µs of the writer thread per record
 * (of ~40 µs an upsert record costs it in all) over binding the same values by position.
 */
type RecordParams = [
  nsid: number,
  id: string,
  seq: number,
  metadata: string | null,
  sparseIndices: Buffer | null,
  sparseValues: Buffer | null,
  dense: Buffer | null,
];

export interface ChangeRow extends RecordRow {
  name: string;
  /** 0 upsert (a live record), 1 delete (a tombstone), 2 namespace drop. */
  kind: 0 | 1 | 2;
}

// Sorts after every id: ids are ASCII (CHECK above) and U+0080 is UTF-8 C2 80.
export const ABOVE_EVERY_ID = '\u0080';

const RECORD_COLUMNS = 'id, seq, metadata, sparse_indices, sparse_values, dense';

export function prepareStatements(db: Database.Database) {
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
    // length() of a BLOB reads only the row's header, never the blob's pages.
    sparseBytes: db.prepare<[number], { bytes: number }>(
      'SELECT coalesce(sum(length(sparse_indices)), 0) AS bytes FROM records WHERE nsid = ?',
    ),
    insertDropped: db.prepare<[number, string, number]>(
      'INSERT INTO dropped_namespaces (nsid, name, seq) VALUES (?, ?, ?)',
    ),

    exists: db.prepare<[number, string], { one: number }>('SELECT 1 AS one FROM records WHERE nsid = ? AND id = ?'),
    get: db.prepare<[number, string], RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE nsid = ? AND id = ?`),
    // Many ids in one statement, passed as one JSON array (any count): one call into SQLite
    // instead of one per id. The ids go in an IN subquery, which the planner answers with a
    // primary-key lookup per id; a join with json_each scanned the whole namespace instead.
    // Rows come back in key order, not in the order asked.
    getMany: db.prepare<[number, string], RecordRow>(
      `SELECT ${RECORD_COLUMNS} FROM records WHERE nsid = ? AND id IN (SELECT value FROM json_each(?))`,
    ),
    // By namespace name, in one statement: on this VM every statement outside a
    // transaction costs ~7–10 µs of locking syscalls, and a query runs this one per call.
    // Answered from the covering index records_metadata (schema.ts version 3).
    metadataMany: db.prepare<[string, string], { id: string; metadata: string | null }>(
      `SELECT id, metadata FROM records
       WHERE nsid = (SELECT nsid FROM namespaces WHERE name = ?) AND id IN (SELECT value FROM json_each(?))`,
    ),
    upsert: db.prepare<RecordParams>(
      `INSERT INTO records (nsid, id, seq, metadata, sparse_indices, sparse_values, dense)
       VALUES (?, ?, ?, ?, ?, ?, ?)
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
    // Records of a namespace written after a seq: through seq's own index (its UNIQUE
    // constraint), so it reads only the index's recent writes, whatever the namespace's
    // size. The unary + keeps nsid from choosing the primary key instead, which would read
    // the whole namespace (EXPLAIN QUERY PLAN: ~18 ms against 0.02 ms at 200k records).
    writtenAfter: db.prepare<[number, number], { id: string }>('SELECT id FROM records WHERE seq > ? AND +nsid = ?'),

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

    importProgress: db.prepare<[number], ImportProgressRow>('SELECT * FROM import_progress WHERE import_id = ?'),
    saveImportProgress: db.prepare<ImportProgressRow>(
      `INSERT INTO import_progress (import_id, file_index, row_in_file, rows_done, records_imported, records_failed)
       VALUES (@import_id, @file_index, @row_in_file, @rows_done, @records_imported, @records_failed)
       ON CONFLICT (import_id) DO UPDATE SET file_index = excluded.file_index, row_in_file = excluded.row_in_file,
         rows_done = excluded.rows_done, records_imported = excluded.records_imported,
         records_failed = excluded.records_failed`,
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

export type Statements = ReturnType<typeof prepareStatements>;

export function toParams(nsid: number, record: StoredRecord, seq: number): RecordParams {
  return [
    nsid,
    record.id,
    seq,
    encodeMetadata(record.metadata),
    record.sparse ? encode32(record.sparse.indices) : null,
    record.sparse ? encode32(record.sparse.values) : null,
    record.values ? encode32(record.values) : null,
  ];
}

export function toRecord(row: RecordRow): StoredRecord {
  return normalized({
    id: row.id,
    values: row.dense === null ? undefined : decodeFloat32(row.dense),
    sparse:
      row.sparse_indices === null || row.sparse_values === null
        ? undefined
        : ascendingSparse({ indices: decodeUint32(row.sparse_indices), values: decodeFloat32(row.sparse_values) }),
    metadata: decodeMetadata(row.metadata),
  });
}

/** The record with absent fields left out (not set to undefined), as get() returns it. */
export function normalized(record: StoredRecord): StoredRecord {
  const out: StoredRecord = { id: record.id };
  if (record.values !== undefined) out.values = record.values;
  if (record.sparse !== undefined) out.sparse = record.sparse;
  if (record.metadata !== undefined) out.metadata = record.metadata;
  return out;
}

/** One counter of the meta table; a missing one means the file is damaged. */
export function readMeta(st: Statements, key: string): number {
  const row = st.getMeta.get(key);
  if (row === undefined) throw new Error(`corrupt record store: meta.${key} is missing`);
  return row.value;
}
