// Bulk import jobs (table bulk_imports): what was asked and where the job stands. The
// progress columns (cursor and counts) MIRROR the cursor the index's record store commits
// with each batch (engine/store/import-progress.ts), for describe and list: they are
// saved after that commit, so they may lag by one batch after a crash (until the runner
// resumes the import and copies the store's cursor here) but never count a batch that
// did not commit. The runner (data/import-runner.ts) is the only writer of progress; the
// HTTP layer creates rows and requests cancellation.
import type { ImportProgress } from '../engine/store/import-progress.js';
import type { Db } from './database.js';
import { nowIso } from './ids.js';

export type ImportStatus = 'Pending' | 'InProgress' | 'Completed' | 'Failed' | 'Cancelled';
export type OnError = 'abort' | 'continue';

export const FINISHED: ReadonlySet<ImportStatus> = new Set(['Completed', 'Failed', 'Cancelled']);

export interface ImportRow {
  /** The wire id: the row's sequence number as a decimal string. */
  id: string;
  indexId: string;
  uri: string;
  /** The resolved, checked directory the import reads. */
  sourceDir: string;
  sourceFingerprint: string | null;
  onError: OnError;
  status: ImportStatus;
  cancelRequested: boolean;
  totalRows: number;
  /** Rows read so far, imported or skipped: the numerator of percentComplete. */
  rowsDone: number;
  recordsImported: number;
  recordsFailed: number;
  /** Cursor (mirrored): index into the sorted file list, and the first row of that file not yet committed. */
  fileIndex: number;
  rowInFile: number;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

interface SqlImport {
  seq: number;
  index_id: string;
  uri: string;
  source_dir: string;
  source_fingerprint: string | null;
  on_error: OnError;
  status: ImportStatus;
  cancel_requested: number;
  total_rows: number;
  rows_done: number;
  records_imported: number;
  records_failed: number;
  file_index: number;
  row_in_file: number;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

const toRow = (r: SqlImport): ImportRow => ({
  id: String(r.seq),
  indexId: r.index_id,
  uri: r.uri,
  sourceDir: r.source_dir,
  sourceFingerprint: r.source_fingerprint,
  onError: r.on_error,
  status: r.status,
  cancelRequested: r.cancel_requested === 1,
  totalRows: r.total_rows,
  rowsDone: r.rows_done,
  recordsImported: r.records_imported,
  recordsFailed: r.records_failed,
  fileIndex: r.file_index,
  rowInFile: r.row_in_file,
  error: r.error,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

export class Imports {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly pageStmt;
  private readonly unfinishedStmt;
  private readonly startStmt;
  private readonly progressStmt;
  private readonly finishStmt;
  private readonly cancelStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare<[string, string, string, string, string]>(
      `INSERT INTO bulk_imports (index_id, uri, source_dir, on_error, status, created_at)
       VALUES (?, ?, ?, ?, 'Pending', ?)`,
    );
    this.getStmt = db.prepare<[number, string], SqlImport>('SELECT * FROM bulk_imports WHERE seq = ? AND index_id = ?');
    this.pageStmt = db.prepare<[string, number, number], SqlImport>(
      'SELECT * FROM bulk_imports WHERE index_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    this.unfinishedStmt = db.prepare<[], SqlImport>(
      "SELECT * FROM bulk_imports WHERE status IN ('Pending', 'InProgress') ORDER BY seq",
    );
    this.startStmt = db.prepare<[number, string, number]>(
      "UPDATE bulk_imports SET status = 'InProgress', total_rows = ?, source_fingerprint = ? WHERE seq = ?",
    );
    this.progressStmt = db.prepare<[number, number, number, number, number, number]>(
      `UPDATE bulk_imports SET rows_done = ?, records_imported = ?, records_failed = ?, file_index = ?,
         row_in_file = ? WHERE seq = ?`,
    );
    this.finishStmt = db.prepare<[ImportStatus, string | null, string, number]>(
      'UPDATE bulk_imports SET status = ?, error = ?, finished_at = ? WHERE seq = ?',
    );
    this.cancelStmt = db.prepare<[number]>('UPDATE bulk_imports SET cancel_requested = 1 WHERE seq = ?');
  }

  create(indexId: string, uri: string, sourceDir: string, onError: OnError): ImportRow {
    const { lastInsertRowid } = this.insertStmt.run(indexId, uri, sourceDir, onError, nowIso());
    const row = this.get(indexId, String(lastInsertRowid));
    if (!row) throw new Error('inserted import row not found');
    return row;
  }

  /** The import with this wire id in this index, if any. */
  get(indexId: string, id: string): ImportRow | undefined {
    if (!/^\d{1,15}$/.test(id)) return undefined;
    const r = this.getStmt.get(Number(id), indexId);
    return r && toRow(r);
  }

  /** Imports of an index in id order, after `afterSeq`. */
  page(indexId: string, afterSeq: number, limit: number): ImportRow[] {
    return this.pageStmt.all(indexId, afterSeq, limit).map(toRow);
  }

  /** Pending and in-progress imports, oldest first (the runner's queue). */
  unfinished(): ImportRow[] {
    return this.unfinishedStmt.all().map(toRow);
  }

  markStarted(id: string, totalRows: number, fingerprint: string): void {
    this.startStmt.run(totalRows, fingerprint, Number(id));
  }

  saveProgress(id: string, p: ImportProgress): void {
    this.progressStmt.run(p.rowsDone, p.recordsImported, p.recordsFailed, p.fileIndex, p.rowInFile, Number(id));
  }

  finish(id: string, status: ImportStatus, error: string | null = null): void {
    this.finishStmt.run(status, error, nowIso(), Number(id));
  }

  requestCancel(id: string): void {
    this.cancelStmt.run(Number(id));
  }
}
