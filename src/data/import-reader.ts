// The main thread's side of import-read-worker.ts: batches of validated records as an
// async iterator, with the worker's back-pressure credits returned by `ack()`.
import { Worker } from 'node:worker_threads';
import type { ReadEvent, ReadJob } from './import-read-worker.js';

export type ReadBatch = Extract<ReadEvent, { type: 'batch' }>;

/** Batches decoded ahead of the one being committed (memory: about this many batches). */
const READ_AHEAD = 2;

export class ImportReader {
  private readonly worker: Worker;
  private readonly queue: ReadEvent[] = [];
  private waiting: ((e: ReadEvent) => void) | undefined;
  private ended = false;

  constructor(job: Omit<ReadJob, 'credits'>) {
    this.worker = new Worker(new URL('./import-read-worker.js', import.meta.url), {
      workerData: { ...job, credits: READ_AHEAD } satisfies ReadJob,
    });
    this.worker.on('message', (e: ReadEvent) => this.push(e));
    this.worker.on('error', (err) => this.push({ type: 'failed', message: `the import reader crashed: ${err.message}` }));
    this.worker.on('exit', (code) => this.push({ type: 'failed', message: `the import reader exited with code ${code}` }));
  }

  /** The next batch, or null when every file has been read; throws the reader's failure. */
  async next(): Promise<ReadBatch | null> {
    const event = this.queue.shift() ?? (await new Promise<ReadEvent>((resolve) => (this.waiting = resolve)));
    if (event.type === 'done') return null;
    if (event.type === 'failed') throw new ReaderFailed(event.message);
    return event;
  }

  /** The last batch was committed: the worker may decode one more. */
  ack(): void {
    this.worker.postMessage({ type: 'credit' });
  }

  async close(): Promise<void> {
    this.ended = true;
    await this.worker.terminate();
  }

  private push(e: ReadEvent): void {
    if (this.ended) return;
    if (e.type !== 'batch') this.ended = true; // later exit events say nothing new
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(e);
    else this.queue.push(e);
  }
}

/** The reader stopped: a bad file, or a bad row in abort mode. The message names it. */
export class ReaderFailed extends Error {}
