// A worker thread that reads an import's Parquet files and validates their rows, so the
// main thread (which serves HTTP and owns the record store) only commits batches.
// Decoding a row group of vectors takes seconds of CPU; on the main thread it would stall
// every request meanwhile.
//
// Protocol: the worker starts at (fileIndex, rowInFile), reads row group by row group,
// and posts each batch of at most `batchRows` validated records ('batch'), then 'done'.
// It never has more than `credits` batches unacknowledged: the main thread sends 'credit'
// after committing one, so memory stays bounded by a few batches and one row group.
// 'failed' ends the stream (abort mode's first bad row, or an unreadable file).
import { parentPort, workerData } from 'node:worker_threads';
import type { ParquetRow } from 'hyparquet';
import type { IndexRow } from '../catalog/indexes.js';
import type { OnError } from '../catalog/imports.js';
import type { StoredRecord } from '../engine/model.js';
import { ApiError } from '../errors.js';
import { importRecord } from './import-record.js';
import type { SourceFile } from './import-source.js';
import { ParquetFile, ParquetFileError } from './parquet-file.js';
import type { FloatLists } from './parquet-float-lists.js';

export interface ReadJob {
  files: SourceFile[];
  fileIndex: number;
  rowInFile: number;
  index: IndexRow;
  onError: OnError;
  batchRows: number;
  credits: number;
}

export type ReadEvent =
  | {
      type: 'batch';
      ns: string;
      records: StoredRecord[];
      /** Rows read in this batch, imported or skipped. */
      rows: number;
      failed: number;
      /** Where the next batch starts: the cursor once this one is committed. */
      fileIndex: number;
      rowInFile: number;
    }
  | { type: 'done' }
  | { type: 'failed'; message: string };

if (!parentPort) throw new Error('import-read-worker must run as a worker thread');
const port = parentPort;
const job = workerData as ReadJob;

let credits = job.credits;
let wake: (() => void) | undefined;
port.on('message', (msg: { type: 'credit' }) => {
  if (msg.type !== 'credit') return;
  credits++;
  wake?.();
});

async function waitForCredit(): Promise<void> {
  while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
  credits--;
}

/**
 * The buffers of a batch's typed arrays move to the main thread instead of being copied.
 * Decoded values of a batch share one buffer (see withValues), listed once.
 */
function transferList(records: StoredRecord[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const r of records) {
    if (r.values) out.add(r.values.buffer as ArrayBuffer);
    if (r.sparse) out.add(r.sparse.indices.buffer as ArrayBuffer).add(r.sparse.values.buffer as ArrayBuffer);
  }
  return [...out];
}

/**
 * Gives rows [first, first + rows.length) of a row group (numbered within the group) their
 * decoded values: one copy of the batch's span of the group's Float32Array, and a view
 * of it per row — so a batch's vectors are one buffer, and the group's array can go.
 */
function withValues(rows: ParquetRow[], lists: FloatLists, first: number): void {
  const from = lists.offsets[first];
  const batch = lists.values.slice(from, lists.offsets[first + rows.length]);
  for (let i = 0; i < rows.length; i++) {
    const r = first + i;
    rows[i].values = lists.present[r] === 1 ? batch.subarray(lists.offsets[r] - from, lists.offsets[r + 1] - from) : null;
  }
}

async function read(): Promise<void> {
  for (let fileIndex = job.fileIndex; fileIndex < job.files.length; fileIndex++) {
    const source = job.files[fileIndex];
    const firstRow = fileIndex === job.fileIndex ? job.rowInFile : 0;
    const pf = await ParquetFile.open(source.file, source.name, job.index.vectorType === 'dense');
    try {
      const groups = pf.rowGroups();
      const lastGroup = groups.length - 1;
      for (let g = 0; g < groups.length; g++) {
        if (groups[g].end <= firstRow) continue;
        const from = Math.max(groups[g].start, firstRow);
        // The values column through the dedicated decoder when it applies; hyparquet reads the rest.
        const lists = await pf.readValueLists(g);
        const columns = lists ? pf.columns.filter((c) => c !== 'values') : pf.columns;
        const rows = await pf.readRows(from, groups[g].end, source.name, columns);
        for (let offset = 0; offset < rows.length; offset += job.batchRows) {
          const slice = rows.slice(offset, offset + job.batchRows);
          if (lists) withValues(slice, lists, from - groups[g].start + offset);
          const records: StoredRecord[] = [];
          let failed = 0;
          for (let i = 0; i < slice.length; i++) {
            try {
              records.push(importRecord(slice[i], job.index));
            } catch (err) {
              if (!(err instanceof ApiError)) throw err;
              if (job.onError === 'abort') throw new ParquetFileError(`${source.name}, row ${from + offset + i}: ${err.message}`);
              failed++;
            }
          }
          const end = from + offset + slice.length;
          const last = g === lastGroup && offset + job.batchRows >= rows.length;
          await waitForCredit();
          const event: ReadEvent = {
            type: 'batch',
            ns: source.ns,
            records,
            rows: slice.length,
            failed,
            // The last batch of a file moves the cursor to the next file.
            fileIndex: last ? fileIndex + 1 : fileIndex,
            rowInFile: last ? 0 : end,
          };
          port.postMessage(event, transferList(records));
        }
      }
    } finally {
      await pf.close();
    }
  }
}

read().then(
  () => port.postMessage({ type: 'done' } satisfies ReadEvent),
  (err: unknown) =>
    port.postMessage({
      type: 'failed',
      message:
        err instanceof ParquetFileError || err instanceof ApiError
          ? err.message
          : `reading the source failed: ${err instanceof Error ? err.message : String(err)}`,
    } satisfies ReadEvent),
);
