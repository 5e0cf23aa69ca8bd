// The main thread's handle on the writer thread (writer-worker.ts): posts writes (an
// upsert's body bytes are transferred, not copied), answers each with its result and
// LSN, and keeps per index the highest seq acknowledged to any client — the `minSeq`
// every engine read carries (engine-worker.ts "Read-your-writes").
//
// Restart: when the writer thread dies, a new one starts (backing off like the engine's).
// Writes in flight answer 503 UNAVAILABLE with Retry-After: each may or may not have
// committed (an upsert, update or delete may simply be sent again). Nothing acknowledged
// is lost: a write is acknowledged only after its commit. A change committed but never
// posted is applied by the engine's 'catch-up', the first message of the new writer.
import { type MessagePort, Worker } from 'node:worker_threads';
import type { IndexRow } from '../../catalog/indexes.js';
import { ApiError, unavailable } from '../../errors.js';
import type { EngineClient } from '../../engine/engine-client.js';
import { RestartBackoff } from '../../engine/restart-backoff.js';
import type { Write, WriteCalls, WriteFailure, WriteResult, WriterData, WriterReply, WriterRequest } from './protocol.js';

const RETRY_AFTER_SECONDS = 1;
/** Longest a clean shutdown waits for the writer thread to be idle before terminating it. */
const STOP_TIMEOUT_MS = 10_000;
/** Longest an engine restart waits for the writer to take its new port. */
const HANDOVER_TIMEOUT_MS = 5_000;

const restarting = (): Error => unavailable('The writer thread is restarting; retry shortly.', RETRY_AFTER_SECONDS);
const interrupted = (): Error =>
  unavailable('The writer thread failed during this write; it may or may not have been stored. Retry it.', RETRY_AFTER_SECONDS);

/** Records a write put in its index for graph insertion: upserted, or updated (0 for deletes and metadata-only writes by filter). */
function recordsWritten(write: Write, result: WriteResult): number {
  switch (write.op) {
    case 'upsert':
    case 'import-batch':
      return typeof result === 'number' ? result : 0;
    case 'update':
      return result === true ? 1 : 0;
    default:
      return 0;
  }
}

export interface WriterLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

interface Pending {
  /** Writes fail with 503 when the thread dies; control messages simply end. */
  write: boolean;
  settle: (reply: WriterReply) => void;
  fail: (err: Error) => void;
}

export class WriterClient {
  private worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly acked = new Map<string, number>();
  private nextReqId = 1;
  private down = false;
  private stopped = false;
  private readonly backoff = new RestartBackoff();

  /** `backgroundNice`: nice steps the thread runs below this one (engine/thread-priority.ts; 0: the same). */
  constructor(
    private readonly engine: EngineClient,
    private readonly log: WriterLog,
    private readonly backgroundNice = 0,
  ) {
    engine.onWriterPort = (shard, port) => this.handOver(shard, port);
    this.worker = this.spawn();
  }

  /** The highest seq acknowledged for the index (0 before any write since start). */
  ackedSeq(indexId: string): number {
    return this.acked.get(indexId) ?? 0;
  }

  /**
   * Raises the index's acknowledged seq with a seq known to be committed: a write's, the
   * store's last seq when it is opened, or the seq an engine answer held (the writer posts
   * changes only after their commit).
   */
  noteSeq(indexId: string, seq: number): void {
    if (seq > this.ackedSeq(indexId)) this.acked.set(indexId, seq);
  }

  /**
   * Runs one write on the writer thread; resolves after its durable commit with its
   * result and the seq its store had then (its LSN). `transfer`: buffers moved, not copied.
   */
  write<W extends Write>(
    index: IndexRow,
    dir: string,
    write: W,
    transfer: ArrayBuffer[] = [],
  ): Promise<{ seq: number; result: WriteCalls[W['op']]['result'] }> {
    return new Promise((resolve, reject) => {
      if (this.stopped) return reject(new Error('writer stopped'));
      if (this.down) return reject(restarting());
      const reqId = this.nextReqId++;
      this.pending.set(reqId, {
        write: true,
        fail: reject,
        settle: (reply) => {
          if (reply.type === 'failed') return reject(rebuild(reply.error));
          if (reply.type !== 'written') return reject(new Error(`writer protocol: a write was answered as ${reply.type}`));
          // Acknowledged from here on: reads posted after this carry at least reply.seq, and
          // its records count as unindexed until the engine has applied them.
          this.noteSeq(index.id, reply.seq);
          this.engine.noteAcknowledged(index.id, reply.seq, recordsWritten(write, reply.result));
          resolve({ seq: reply.seq, result: reply.result as WriteCalls[W['op']]['result'] });
        },
      });
      this.post({ type: 'write', reqId, index, dir, shard: this.engine.shardOf(index.id), write }, transfer);
    });
  }

  /** Closes the index's write connection (before its files are removed). */
  async close(indexId: string): Promise<void> {
    this.acked.delete(indexId);
    if (this.down || this.stopped) return; // no thread holds it open
    await this.control({ type: 'close', reqId: 0, indexId });
  }

  /**
   * Terminates the thread once it has answered a 'stop' (bounded by STOP_TIMEOUT_MS):
   * terminating a thread that is still starting (loading better-sqlite3's addon) or inside
   * a native call can abort the whole process, so it must be idle in JavaScript first.
   */
  async stop(): Promise<void> {
    if (!this.down && !this.stopped) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.control({ type: 'stop', reqId: 0 }),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
    }
    this.stopped = true;
    await this.worker.terminate();
  }

  /** Engine worker `shard` restarted: post its indexes' changes to the new one from now on. */
  private async handOver(shard: number, port: MessagePort): Promise<void> {
    if (this.down || this.stopped) {
      // No thread to take it; the next writer thread connects to the engine itself.
      port.close();
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.log.error({}, 'the writer thread did not take the restarted engine worker\'s port in time');
        resolve();
      }, HANDOVER_TIMEOUT_MS);
    });
    await Promise.race([this.control({ type: 'engine-port', reqId: 0, shard, port }, [port]), timeout]);
    clearTimeout(timer);
  }

  private control(msg: Extract<WriterRequest, { type: 'close' | 'engine-port' | 'stop' }>, transfer: MessagePort[] = []): Promise<void> {
    return new Promise((resolve) => {
      const reqId = this.nextReqId++;
      this.pending.set(reqId, { write: false, settle: () => resolve(), fail: () => resolve() });
      this.post({ ...msg, reqId }, transfer);
    });
  }

  private post(msg: WriterRequest, transfer: (ArrayBuffer | MessagePort)[]): void {
    this.worker.postMessage(msg, transfer);
  }

  private spawn(): Worker {
    const enginePorts = Array.from({ length: this.engine.workers }, (_, shard) => this.engine.connectWriter(shard));
    const workerData: WriterData = { enginePorts, backgroundNice: this.backgroundNice };
    const worker = new Worker(new URL('./writer-worker.js', import.meta.url), { workerData, transferList: enginePorts });
    worker.on('message', (msg: WriterReply) => this.onMessage(worker, msg));
    worker.on('error', (err) => this.onDeath(worker, err));
    worker.on('exit', (code) => this.onDeath(worker, new Error(`writer thread exited with code ${code}`)));
    this.backoff.started();
    return worker;
  }

  private onMessage(from: Worker, msg: WriterReply): void {
    if (from !== this.worker) return;
    const pending = this.pending.get(msg.reqId);
    if (!pending) return;
    this.pending.delete(msg.reqId);
    pending.settle(msg);
  }

  private onDeath(worker: Worker, err: Error): void {
    if (worker !== this.worker || this.down || this.stopped) return;
    this.down = true;
    void worker.terminate();
    const delay = this.backoff.next();
    this.log.error({ err, restartInMs: delay, inFlight: this.pending.size }, 'writer thread failed; restarting it');
    for (const p of this.pending.values()) p.fail(p.write ? interrupted() : new Error('writer thread failed'));
    this.pending.clear();
    setTimeout(() => {
      if (this.stopped) return;
      this.worker = this.spawn();
      this.down = false;
      this.log.info({}, 'writer thread restarted');
    }, delay).unref();
  }
}

function rebuild(error: WriteFailure): Error {
  if (error.api) return new ApiError(error.code, error.message, error.retryAfter);
  return Object.assign(new Error(error.message), { code: error.code });
}
