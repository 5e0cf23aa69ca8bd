// Runs bulk imports in the background, one at a time, oldest first.
//
// An import first opens every source file and checks its footer and columns, so a file
// that is not Parquet, is truncated or has wrong column types fails the import before
// any record is written. Then a worker thread (import-read-worker.ts) reads row group by
// row group (never a whole file) and validates each row like an upsert, and this thread
// writes its batches of BATCH_ROWS records through VectorService.importBatch (one
// store transaction, then the engine) — so queries see each committed batch at once and
// the index stays usable throughout.
//
// Invariants
// - Each batch is committed together with the import's cursor past it (file, row, rows
//   done, records imported and failed) in ONE record store transaction (the store's
//   import_progress table): after a kill -9 at any point the store holds a batch exactly
//   when its cursor counts it. A resumed import starts from that cursor, so no batch is
//   written or counted twice and none is skipped.
// - The catalog row mirrors that cursor for describe/list: saved after each commit (so
//   it never counts an uncommitted batch), and set from the store's cursor when an
//   import resumes or fails (a crash between the commit and the mirror's save leaves it
//   one batch behind until then).
// - Stopping (shutdown) and cancelling happen between batches, never inside one.
// - A resumed import whose source files changed (names, sizes, modification times)
//   fails rather than mixing two versions of the data.
// - A full disk fails the import at a batch boundary (committed batches stay) with an
//   error saying so: each batch is refused below CONIFER_MIN_FREE_BYTES as an upsert is,
//   and a write that still runs out of space rolls back and is reported the same way.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Catalog } from '../catalog/catalog.js';
import type { DiskSpace } from '../catalog/disk-space.js';
import { FINISHED, type ImportRow } from '../catalog/imports.js';
import type { IndexRow } from '../catalog/indexes.js';
import type { ImportProgress } from '../engine/store/record-store.js';
import { FAULT_IMPORT_KILL_ID, faultInjectionEnabled } from '../engine/worker/fault-injection.js';
import { ApiError, isStorageFull } from '../errors.js';
import { ImportReader, ReaderFailed } from './import-reader.js';
import { listSourceFiles, type SourceFile } from './import-source.js';
import { ParquetFileError } from './parquet-file-error.js';
import type { VectorService } from './vector-service.js';
import type { StoredRecord } from '../engine/model.js';

/** Records per write transaction: large enough to amortise the commit, small enough to keep queries flowing. */
export const BATCH_ROWS = 5000;

export interface ImportLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** run() returned early: shutdown (the import resumes later) or cancellation (it is over). */
class Stopped extends Error {}

/** The import cannot go on; the message becomes its `error`. */
class ImportFailed extends Error {}

/** Errors whose message is the import's `error`; anything else is logged as a bug. */
const isReported = (err: unknown): err is Error =>
  err instanceof ApiError ||
  err instanceof ParquetFileError ||
  err instanceof ImportFailed ||
  err instanceof ReaderFailed ||
  // The source vanished or became unreadable (ENOENT, EACCES...).
  (err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' && (err as NodeJS.ErrnoException).code!.startsWith('E'));

export class ImportRunner {
  private running: Promise<void> | undefined;
  private started = false;
  private stopped = false;
  private again = false;
  private readonly faults = faultInjectionEnabled();

  constructor(
    private readonly catalog: Catalog,
    private readonly vectors: VectorService,
    private readonly disk: DiskSpace,
    private readonly importRoot: string | undefined,
    private readonly log: ImportLog,
  ) {}

  /** Starts (or resumes after a restart) the queued imports once every index is loaded. */
  start(): void {
    this.started = true;
    this.nudge();
  }

  /** A new import was queued. */
  nudge(): void {
    if (!this.started || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.nudge();
      }
    });
  }

  /** Stops at the next batch boundary; an unfinished import resumes at the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const job = this.catalog.imports.unfinished()[0];
      if (!job) return;
      try {
        await this.run(job);
      } catch (err) {
        if (err instanceof Stopped) {
          if (this.stopped) return;
          continue;
        }
        let message: string;
        if (isStorageFull(err)) {
          this.disk.noteFull(); // releases the disk reserve, so the catalog can record the failure
          message = DISK_FULL;
        } else if (isReported(err)) {
          message = err.message;
        } else {
          this.log.error({ err, importId: job.id }, 'bulk import failed');
          message = 'internal error (see the server log)';
        }
        try {
          this.fail(job, message);
        } catch (failErr) {
          // Not even the catalog could be written: the job stays unfinished and runs
          // again (resumes) at the next start, which is safe; stop trying until then.
          this.log.error({ err: failErr, importId: job.id }, 'could not record the failure of a bulk import');
          return;
        }
      }
    }
  }

  private fail(job: ImportRow, message: string): void {
    const written = this.committedRecords(job);
    const note = written > 0 ? ` (${written} records were imported before the failure and remain in the index)` : '';
    this.catalog.imports.finish(job.id, 'Failed', message + note);
    this.log.info({ importId: job.id, error: message }, 'bulk import failed');
  }

  private async run(job: ImportRow): Promise<void> {
    const index = this.catalog.indexes.getById(job.indexId);
    if (!index) {
      this.catalog.imports.finish(job.id, 'Failed', 'the index was deleted before the import ran');
      return;
    }
    const files = listSourceFiles(job.sourceDir, this.importRoot);
    const fingerprint = fingerprintOf(files);
    if (job.sourceFingerprint !== null && job.sourceFingerprint !== fingerprint) {
      throw new ImportFailed(
        'the source files changed while the import was interrupted by a restart; start a new import',
      );
    }
    // Check every file before writing anything. (The Parquet reader is loaded here, by the
    // first import, rather than by every start.)
    const { ParquetFile } = await import('./parquet-file.js');
    const rowCounts: number[] = [];
    for (const f of files) {
      const pf = await ParquetFile.open(f.file, f.name, index.vectorType === 'dense');
      rowCounts.push(pf.rowCount);
      await pf.close();
    }
    const current = this.current(job);
    if (FINISHED.has(current.status)) return; // cancelled while the files were checked
    if (current.cancelRequested) {
      // Cancelled before a restart, perhaps after a batch committed whose progress the
      // catalog had not saved yet: count what the index holds, as a failure does.
      this.committedRecords(job);
      this.catalog.imports.finish(job.id, 'Cancelled');
      return;
    }
    this.catalog.imports.markStarted(job.id, rowCounts.reduce((a, b) => a + b, 0), fingerprint);

    let progress = this.syncMirror(job, index);
    this.log.info(
      { importId: job.id, index: index.name, files: files.length, resumeAtFile: progress.fileIndex, resumeAtRow: progress.rowInFile },
      'bulk import running',
    );
    const reader = new ImportReader({
      files,
      fileIndex: progress.fileIndex,
      rowInFile: progress.rowInFile,
      index,
      onError: job.onError,
      batchRows: BATCH_ROWS,
    });
    try {
      for (;;) {
        const batch = await reader.next();
        if (batch === null) break;
        this.checkContinue(job, index);
        const next: ImportProgress = {
          rowsDone: progress.rowsDone + batch.rows,
          recordsImported: progress.recordsImported + batch.records.length,
          recordsFailed: progress.recordsFailed + batch.failed,
          fileIndex: batch.fileIndex,
          rowInFile: batch.rowInFile,
        };
        if (batch.records.length > 0) this.disk.requireSpace('a bulk import batch', estimatedBytes(batch.records));
        // Even a batch of skipped rows is committed: its cursor moves past them.
        await this.vectors.importBatch(index, batch.ns, batch.records, Number(job.id), next);
        progress = next;
        if (this.faults && batch.records.some((r) => r.id === FAULT_IMPORT_KILL_ID)) {
          // Committed, mirror not saved: the window a resume must get exactly right.
          process.kill(process.pid, 'SIGKILL');
        }
        this.catalog.imports.saveProgress(job.id, progress);
        reader.ack();
        await yieldToRequests();
      }
    } finally {
      await reader.close();
    }
    this.checkContinue(job, index);
    this.catalog.imports.finish(job.id, 'Completed');
    this.log.info({ importId: job.id, index: index.name, records: progress.recordsImported, failed: progress.recordsFailed }, 'bulk import completed');
  }

  /** Between batches: stop for shutdown, cancellation or a deleted index. */
  private checkContinue(job: ImportRow, index: IndexRow): void {
    if (this.stopped) throw new Stopped();
    if (this.current(job).cancelRequested) {
      this.catalog.imports.finish(job.id, 'Cancelled');
      this.log.info({ importId: job.id }, 'bulk import cancelled');
      throw new Stopped();
    }
    if (this.catalog.indexes.getById(index.id) === undefined) {
      throw new ImportFailed(`index ${index.name} was deleted during the import`);
    }
  }

  /**
   * The import's progress as committed: the cursor the index's store holds for it, copied
   * into the catalog's mirror. The catalog's own values when the store has none (no batch
   * committed yet, or the import began under a build whose store kept no cursor).
   */
  private syncMirror(job: ImportRow, index: IndexRow): ImportProgress {
    const stored = this.vectors.importProgress(index, Number(job.id));
    if (stored === undefined) return progressOf(this.current(job));
    this.catalog.imports.saveProgress(job.id, stored);
    return stored;
  }

  /**
   * Records of the import the index holds, brought into the catalog's mirror (best effort:
   * the index may be gone), for a failure's message or a cancelled import's count.
   */
  private committedRecords(job: ImportRow): number {
    const index = this.catalog.indexes.getById(job.indexId);
    if (index) {
      try {
        return this.syncMirror(job, index).recordsImported;
      } catch (err) {
        this.log.error({ err, importId: job.id }, "could not read a failed bulk import's cursor from its index; reporting the catalog's");
      }
    }
    return this.current(job).recordsImported;
  }

  private current(job: ImportRow): ImportRow {
    const row = this.catalog.imports.get(job.indexId, job.id);
    if (!row) throw new Error(`import ${job.id} vanished from the catalog`);
    return row;
  }
}

const progressOf = (row: ImportRow): ImportProgress => ({
  rowsDone: row.rowsDone,
  recordsImported: row.recordsImported,
  recordsFailed: row.recordsFailed,
  fileIndex: row.fileIndex,
  rowInFile: row.rowInFile,
});

const DISK_FULL =
  "the disk is full: the data directory's volume has no space left, so the import stopped at a batch boundary " +
  '(the batch being written was not stored). Free space or delete data, then start the import again';

/** About what a batch adds to storage, for the free-space check (values, ids, metadata, row overhead). */
function estimatedBytes(records: StoredRecord[]): number {
  let bytes = 0;
  for (const r of records) bytes += (r.values?.byteLength ?? 0) + (r.sparse ? r.sparse.indices.byteLength * 2 : 0) + r.id.length + 256;
  return bytes;
}

function fingerprintOf(files: SourceFile[]): string {
  const hash = createHash('sha256');
  for (const f of files) {
    const { size, mtimeMs } = statSync(f.file);
    hash.update(`${f.ns}\0${f.name}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('base64url');
}
