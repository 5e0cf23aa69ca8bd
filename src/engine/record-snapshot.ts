// A consistent point-in-time view of a record store, for copies (collections, backups,
// restores). It is a read-only connection holding one read transaction: under WAL the
// writer keeps committing, and this view keeps seeing exactly the records committed when
// it was opened, however long the copy takes.
import path from 'node:path';
import Database from 'better-sqlite3';
import { RECORD_STORE_FILE } from './store/record-store.js';
import { ascendingSparse, type StoredRecord } from './model.js';
import { decodeFloat32, decodeMetadata, decodeUint32 } from './store/record-codec.js';

const CHUNK_ROWS = 1000;

interface Row {
  id: string;
  metadata: string | null;
  sparse_indices: Buffer | null;
  sparse_values: Buffer | null;
  dense: Buffer | null;
}

export class RecordSnapshot {
  private readonly namespaceList: { name: string; nsid: number; count: number; explicit: number }[];

  private constructor(private readonly db: Database.Database) {
    // The first read of a deferred transaction fixes its snapshot.
    db.exec('BEGIN');
    this.namespaceList = db
      .prepare<[], { name: string; nsid: number; count: number; explicit: number }>(
        'SELECT name, nsid, count, explicit FROM namespaces WHERE count > 0 OR explicit = 1 ORDER BY name',
      )
      .all();
  }

  /** Opens `<dir>/records.db` read-only and pins its current state. */
  static open(dir: string): RecordSnapshot {
    const db = new Database(path.join(dir, RECORD_STORE_FILE), { readonly: true, fileMustExist: true });
    try {
      return new RecordSnapshot(db);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * The namespaces that exist: those holding records, and those created by POST
   * /namespaces (`explicit`), which exist even while empty.
   */
  namespaces(): { name: string; count: number; explicit: boolean }[] {
    return this.namespaceList.map(({ name, count, explicit }) => ({ name, count, explicit: explicit === 1 }));
  }

  totalCount(): number {
    return this.namespaceList.reduce((sum, n) => sum + n.count, 0);
  }

  /** Every record of the snapshot (or of one namespace), by namespace then id, in chunks of rows. */
  *records(onlyNamespace?: string): Iterable<{ ns: string; record: StoredRecord }> {
    const scan = this.db.prepare<[number, string, number], Row>(
      `SELECT id, metadata, sparse_indices, sparse_values, dense FROM records
       WHERE nsid = ? AND id > ? ORDER BY id LIMIT ?`,
    );
    for (const { name, nsid } of this.namespaceList) {
      if (onlyNamespace !== undefined && name !== onlyNamespace) continue;
      let after = '';
      for (;;) {
        const rows = scan.all(nsid, after, CHUNK_ROWS);
        for (const row of rows) {
          const record: StoredRecord = { id: row.id };
          if (row.dense) record.values = decodeFloat32(row.dense);
          if (row.sparse_indices && row.sparse_values) {
            record.sparse = ascendingSparse({ indices: decodeUint32(row.sparse_indices), values: decodeFloat32(row.sparse_values) });
          }
          const metadata = decodeMetadata(row.metadata);
          if (metadata) record.metadata = metadata;
          yield { ns: name, record };
        }
        if (rows.length < CHUNK_ROWS) break;
        after = rows[rows.length - 1].id;
      }
    }
  }

  close(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
    this.db.close();
  }
}
