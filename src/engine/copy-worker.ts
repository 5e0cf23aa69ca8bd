// A worker thread that copies one record store into a new one at a point in time: it
// pins a snapshot of the source first (reported as 'pinned', so the caller can answer
// only once the copy's content is fixed), then writes the records into the target in
// batches, reporting progress. The target is a record store of its own (fresh seqs).
import { statSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { StoredRecord } from './model.js';
import { RECORD_STORE_FILE, RecordStore } from './store/record-store.js';
import { RecordSnapshot } from './record-snapshot.js';

export interface CopyJob {
  source: string;
  target: string;
  /**
   * Shared with the thread that started the copy: an Int32Array over it holds 1 once the
   * copy is cancelled. The copy loop is synchronous (no messages arrive while it runs), so
   * it checks this flag before each batch and stops there.
   */
  cancel?: SharedArrayBuffer;
}

export type CopyEvent =
  | { type: 'pinned'; records: number; namespaces: number }
  | { type: 'progress'; done: number; total: number }
  | { type: 'done'; records: number; namespaces: number; bytes: number }
  /** `code` keeps the error's code (SQLITE_FULL, ENOSPC) across the thread boundary. */
  | { type: 'error'; message: string; code?: string };

const BATCH = 500;
const PROGRESS_EVERY = 5000;

if (!parentPort) throw new Error('copy-worker must run as a worker thread');
const port = parentPort;
const send = (event: CopyEvent): void => port.postMessage(event);

function copy(job: CopyJob): void {
  const cancelFlag = job.cancel ? new Int32Array(job.cancel) : undefined;
  const cancelled = (): boolean => cancelFlag !== undefined && Atomics.load(cancelFlag, 0) === 1;
  const snapshot = RecordSnapshot.open(job.source);
  try {
    const total = snapshot.totalCount();
    const namespaces = snapshot.namespaces().length;
    send({ type: 'pinned', records: total, namespaces });
    const target = RecordStore.open(job.target);
    let done = 0;
    try {
      // Namespaces created by POST /namespaces exist even while empty: so in the copy.
      for (const ns of snapshot.namespaces()) if (ns.explicit) target.createNamespace(ns.name);
      let batchNs = '';
      let batch: StoredRecord[] = [];
      const flush = (): void => {
        if (cancelled()) throw new Error('copy cancelled');
        if (batch.length > 0) target.upsert(batchNs, batch);
        batch = [];
      };
      for (const { ns, record } of snapshot.records()) {
        if (ns !== batchNs || batch.length === BATCH) {
          flush();
          batchNs = ns;
        }
        batch.push(record);
        done++;
        if (done % PROGRESS_EVERY === 0) send({ type: 'progress', done, total });
      }
      flush();
    } finally {
      target.close(); // the last connection to close checkpoints the WAL into the file
    }
    const bytes = statSync(path.join(job.target, RECORD_STORE_FILE)).size;
    send({ type: 'done', records: done, namespaces, bytes });
  } finally {
    snapshot.close();
  }
}

try {
  copy(workerData as CopyJob);
} catch (err) {
  const code = (err as { code?: unknown } | null)?.code;
  send({
    type: 'error',
    message: err instanceof Error ? err.message : String(err),
    code: typeof code === 'string' ? code : undefined,
  });
}
