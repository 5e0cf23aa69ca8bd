// Runs one point-in-time copy of a record store in a worker thread (engine/copy-worker),
// so long copies never block requests. `pinned` resolves once the copy's content is
// fixed (answer the create request then); `done` when the target is complete.
import { Worker } from 'node:worker_threads';
import type { CopyEvent, CopyJob } from '../engine/copy-worker.js';

/** Rejection of `done` (and `pinned`) when the copy was stopped through its AbortSignal. */
export class CopyCancelled extends Error {
  constructor() {
    super('copy cancelled');
    this.name = 'CopyCancelled';
  }
}

export interface CopyCounts {
  records: number;
  namespaces: number;
}

export interface CopyHandle {
  pinned: Promise<CopyCounts>;
  done: Promise<CopyCounts & { bytes: number }>;
}

/** Directories a copy under way reads or writes: their files must stay until it ends. */
const activeDirs = new Map<string, number>();

export const isCopyActive = (dir: string): boolean => (activeDirs.get(dir) ?? 0) > 0;

function hold(dirs: string[]): () => void {
  for (const d of dirs) activeDirs.set(d, (activeDirs.get(d) ?? 0) + 1);
  return () => {
    for (const d of dirs) {
      const n = (activeDirs.get(d) ?? 1) - 1;
      if (n === 0) activeDirs.delete(d);
      else activeDirs.set(d, n);
    }
  };
}

/**
 * Starts a copy. Aborting `signal` stops it before its next batch; `done` then rejects
 * with CopyCancelled once the worker has let go of both directories.
 */
export function copySnapshot(
  job: Omit<CopyJob, 'cancel'>,
  onProgress: (done: number, total: number) => void,
  signal?: AbortSignal,
): CopyHandle {
  const release = hold([job.source, job.target]);
  const cancel = new SharedArrayBuffer(4);
  const onAbort = (): void => {
    Atomics.store(new Int32Array(cancel), 0, 1);
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const workerData: CopyJob = { ...job, cancel };
  const worker = new Worker(new URL('../engine/copy-worker.js', import.meta.url), { workerData });
  let resolvePinned!: (c: CopyCounts) => void;
  let rejectPinned!: (e: Error) => void;
  const pinned = new Promise<CopyCounts>((resolve, reject) => {
    resolvePinned = resolve;
    rejectPinned = reject;
  });
  const done = new Promise<CopyCounts & { bytes: number }>((resolve, reject) => {
    let finished = false;
    const fail = (err: Error): void => {
      if (finished) return;
      finished = true;
      release();
      signal?.removeEventListener('abort', onAbort);
      const reason = signal?.aborted ? new CopyCancelled() : err;
      rejectPinned(reason);
      reject(reason);
    };
    worker.on('message', (event: CopyEvent) => {
      switch (event.type) {
        case 'pinned':
          resolvePinned({ records: event.records, namespaces: event.namespaces });
          break;
        case 'progress':
          onProgress(event.done, event.total);
          break;
        case 'done':
          finished = true;
          release();
          signal?.removeEventListener('abort', onAbort);
          resolve({ records: event.records, namespaces: event.namespaces, bytes: event.bytes });
          break;
        case 'error':
          fail(Object.assign(new Error(event.message), { code: event.code }));
          break;
      }
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`copy worker exited with code ${code} before finishing`)));
  });
  // A copy that fails after its request was answered is reported through `done` only.
  pinned.catch(() => undefined);
  return { pinned, done };
}
