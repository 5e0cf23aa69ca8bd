// The main thread's handle on one engine worker (EngineClient, engine-client.ts, spreads
// the indexes over several). Committed changes do not pass through here: the writer
// thread posts them on its own port to the worker (connectWriter).
// Reads and loads are request/response; every read carries the minSeq it must see
// (engine-worker.ts "Read-your-writes").
//
// Restart: when the worker dies (exits, or reports that an apply failed, which means its
// structures no longer match the stores) a new worker is started, the writer thread is
// given a port to it (onWriterPort, awaited), and only then is every open index loaded
// again from its record store. Nothing is lost: a change the writer committed before it
// switched ports is in the store the loads read; one committed after reaches the new
// worker on the new port. Meanwhile requests answer 503 UNAVAILABLE with Retry-After.
// Restarts back off (restart-backoff.ts) so a fault that recurs on
// load cannot spin.
//
// A lone client. The worker posts every message on a channel of its own (`replies`), which
// this thread can also read synchronously. Once LONE_STREAK queries in a row were each
// posted with no other call in flight on any shard (one client querying one request at a
// time), and the last such query was answered within `replyWaitMs`, the thread that posts
// a query polls that channel for the reply, up to `replyWaitMs`, instead of returning to
// its event loop and sleeping until the worker's message wakes it: waking a sleeping
// thread costs tens of µs on a virtual machine (bench/results/fixed-cost.md measured the
// hops), and there was nothing else to do meanwhile. Messages are read in the order they
// were posted and each is handled as the 'message' listener would; the wait ends as soon
// as the reply is in.
// Any query posted beside another call resets the streak. But a reply taken in place
// leaves nothing in flight, so while a streak lasts the queries of concurrent clients
// would be posted one at a time too and never reset it (their requests wait unread in
// their sockets): hence one query in PROBE_EVERY goes through the event loop, where the
// others' queries are posted beside it and end the streak. (A first version that waited
// whenever a query was alone in flight, with no streak, cut concurrency-8 throughput by a
// fifth.) Measured with `node dist/bench/fixed-cost.js` (20k × 128; this build and the one
// before alternated, three runs of three rounds each): concurrency-1 p50 0.90 against
// 0.96 ms, concurrency 8 unchanged (1,825 against 1,835 queries/s; medians of the nine
// rounds). Having the worker poll the same way for the next query after each answer did
// not help (0.97 against 0.89 ms without it, same run): it took the core the client and
// this thread needed.
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { unavailable } from '../errors.js';
import { IndexingBacklog } from './indexing-backlog.js';
import { RestartBackoff } from './restart-backoff.js';
import { ReadsWaiting } from './worker/read-preemption.js';
import { engineQueryDuration, engineQueueDepth, engineUnindexedRecords, engineWorkerRestarts } from '../metrics.js';
import type { FilterNode } from './filter.js';
import type { IndexShape } from './model.js';
import {
  DEFAULT_WORKER_DATA,
  type EngineWorkerData,
  type EngineCall,
  type EngineMessage,
  type EngineQuery,
  type EngineReply,
  type EngineRequest,
  isReadOp,
  type QueryAnswer,
} from './protocol.js';

const RETRY_AFTER_SECONDS = 1;
/**
 * The lone-client state of this thread, over every shard (see "A lone client"): a client
 * of one index is not alone while another queries an index of another worker.
 * Thread rule: the main thread's only; every shard it runs updates it.
 */
const lone = {
  /** Calls of every shard posted and not yet answered (engineQueueDepth's count). */
  inFlight: 0,
  /** Queries posted in a row with no other call in flight; reset by any posted beside another. */
  streak: 0,
  /** ms from post to reply of the last query posted alone (∞ until one was answered). */
  lastMs: Infinity,
};
/** Queries in a row posted with no other call in flight before a reply is awaited in place. */
const LONE_STREAK = 16;
/** One query in this many of a streak is answered through the event loop (see posted()). */
const PROBE_EVERY = 8;
/** How long a lone query's reply is awaited in place by default (ms). */
export const REPLY_WAIT_MS = 1;
/** Longest a clean shutdown waits for the graph snapshots. */
const FLUSH_TIMEOUT_MS = 20_000;

const restarting = (): Error => unavailable('The search engine is restarting; retry shortly.', RETRY_AFTER_SECONDS);

type Pending = { settle: (reply: EngineReply) => void; fail: (err: Error) => void; call: EngineCall };

export interface EngineLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Distributes Omit over the call union so each variant keeps its own fields. */
type WithoutReqId<T> = T extends unknown ? Omit<T, 'reqId'> : never;

interface OpenIndex {
  dir: string;
  shape: IndexShape;
  /** The index's name, for metric labels and logs. */
  name: string;
}

export class EngineShard {
  /** Each open index's unindexed gauge: the worker's counts plus the acknowledged writes it has not applied. */
  private readonly backlog = new IndexingBacklog();
  private worker: Worker;
  /** The channel the current worker posts its messages on (see "A lone client"). */
  private replies: MessagePort | undefined;
  /** Replies taken in place so far (repliesTakenInPlace). */
  private inPlace = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly opened = new Map<string, OpenIndex>();
  private nextReqId = 1;
  /** Reads posted to the current worker and not yet received by it (worker/read-preemption.ts). */
  private readsWaiting = new ReadsWaiting();
  private stopped = false;
  /** Set between a worker's death and its replacement's start. */
  private down = false;
  private readonly backoff = new RestartBackoff();
  /** Workers that have exited (one may die while the writer is handed its port). */
  private readonly exited = new WeakSet<Worker>();

  /**
   * `log` already names the shard (a pino child), so every line says which worker.
   * `workerData`: the worker's CPU priority and insert threads (protocol.ts).
   */
  constructor(
    private readonly log: EngineLog,
    private readonly workerData: EngineWorkerData = DEFAULT_WORKER_DATA,
    private readonly replyWaitMs = REPLY_WAIT_MS,
  ) {
    this.worker = this.spawn();
  }

  /** Loads an index; resolves when it is searchable (survives worker restarts). `fresh`: protocol.ts `open`. */
  open(indexId: string, dir: string, shape: IndexShape, name = indexId, fresh = false): Promise<void> {
    this.opened.set(indexId, { dir, shape, name });
    return this.call({ op: 'open', indexId, dir, shape, fresh }, (r) => (r.op === 'open' ? r.result : undefined)).then(() => undefined);
  }

  async close(indexId: string): Promise<void> {
    const entry = this.opened.get(indexId);
    this.opened.delete(indexId);
    this.backlog.forget(indexId);
    if (entry) engineUnindexedRecords.remove({ index: entry.name });
    if (this.down) return; // the next worker will not load it
    await this.call({ op: 'close', indexId }, (r) => (r.op === 'close' ? r.result : undefined));
  }

  /**
   * A new port to the current worker, for the writer thread to post its committed changes
   * on (protocol.ts WriterToEngine). The worker drops the previous writer port.
   */
  connectWriter(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    this.worker.postMessage({ op: 'connect-writer', port: port1 } satisfies EngineRequest, [port1]);
    return port2;
  }

  /**
   * Set by the writer's owner: hands a restarted worker's port to the writer thread and
   * resolves once the writer posts on it (see the restart note at the top).
   */
  onWriterPort: ((port: MessagePort) => Promise<void>) | undefined;

  /** `minSeq`: the highest acknowledged seq of the index (engine-worker.ts "Read-your-writes"). */
  async query(indexId: string, query: EngineQuery, minSeq: number): Promise<QueryAnswer> {
    const started = performance.now();
    const result = await this.call({ op: 'query', indexId, query, minSeq }, (r) => (r.op === 'query' ? r.result : undefined));
    engineQueryDuration.observe((performance.now() - started) / 1000);
    return result;
  }

  count(indexId: string, filter: FilterNode, minSeq: number): Promise<[string, number][]> {
    return this.call({ op: 'count', indexId, filter, minSeq }, (r) => (r.op === 'count' ? r.result : undefined));
  }

  /** Ids matching `filter` in a namespace (protocol.ts `ids`). */
  ids(
    indexId: string,
    namespace: string,
    filter: FilterNode | undefined,
    minSeq: number,
    page?: { after?: string; limit: number },
  ): Promise<string[]> {
    return this.call({ op: 'ids', indexId, namespace, filter, page, minSeq }, (r) => (r.op === 'ids' ? r.result : undefined));
  }

  /** Reads posted to the current worker that it has not received yet (0 whenever it is idle). */
  get readsNotReceived(): number {
    return this.readsWaiting.value;
  }

  /** False while the worker restarts or any index is still loading (GET /ready). */
  get searchable(): boolean {
    if (this.down) return false;
    for (const p of this.pending.values()) if (p.call.op === 'open') return false;
    return true;
  }

  /** Callback for "a snapshot holding every change up to seq is durable". */
  onSnapshot: ((indexId: string, seq: number) => void) | undefined;

  /** Writes the snapshots (bounded by FLUSH_TIMEOUT_MS), then stops the worker. */
  async stop(): Promise<void> {
    if (!this.down && !this.stopped) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, FLUSH_TIMEOUT_MS);
      });
      const flushed = this.call({ op: 'flush', reason: 'shutdown' }, (r) => (r.op === 'flush' ? r.result : undefined)).then(
        () => undefined,
        (err: unknown) => this.log.error({ err }, 'writing graph snapshots at shutdown failed; the next start rebuilds them'),
      );
      await Promise.race([flushed, timeout]);
      clearTimeout(timer);
    }
    this.stopped = true;
    await this.worker.terminate();
    this.replies?.close();
  }

  /**
   * Posts a call; `pick` takes the result out of the reply to this op (undefined when the
   * reply is for another op, which would be a protocol bug).
   */
  private call<T>(
    msg: WithoutReqId<EngineCall>,
    pick: (reply: EngineReply & { type: 'reply' }) => T | undefined,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      if (this.stopped) return reject(new Error('engine stopped'));
      if (this.down && msg.op !== 'open') return reject(restarting());
      const reqId = this.nextReqId++;
      const call = { ...msg, reqId } satisfies EngineCall;
      const settle = (reply: EngineReply): void => {
        if (reply.type === 'error') {
          reject(reply.retryable ? unavailable(`Search is not available yet: ${reply.error}.`, RETRY_AFTER_SECONDS) : new Error(reply.error));
          return;
        }
        const result = pick(reply);
        if (result === undefined) reject(new Error(`engine protocol: a ${msg.op} call was answered as ${reply.op}`));
        else resolve(result);
      };
      const pending: Pending = { settle, fail: reject, call };
      this.pending.set(reqId, pending);
      // inc/dec, not set: every shard counts into the one gauge.
      engineQueueDepth.inc();
      lone.inFlight++;
      if (this.down) return;
      if (isReadOp(call.op)) this.readsWaiting.posted();
      this.worker.postMessage(call);
      if (call.op === 'query') this.posted(reqId, pending);
    });
  }

  /** After a query is posted: keeps the lone streak and awaits the reply in place when it may (see "A lone client"). */
  private posted(reqId: number, pending: Pending): void {
    if (lone.inFlight !== 1) {
      lone.streak = 0;
      return;
    }
    lone.streak++;
    const postedAt = performance.now();
    const settle = pending.settle;
    pending.settle = (reply) => {
      lone.lastMs = performance.now() - postedAt;
      settle(reply);
    };
    // Every PROBE_EVERY-th query of a streak goes through the event loop: if other requests
    // came in meanwhile, their queries are posted while it is pending and end the streak.
    if (lone.streak < LONE_STREAK || lone.streak % PROBE_EVERY === 0 || !(lone.lastMs < this.replyWaitMs)) return;
    const worker = this.worker;
    const replies = this.replies;
    const until = postedAt + this.replyWaitMs;
    while (replies && this.pending.has(reqId) && performance.now() < until) {
      const got = receiveMessageOnPort(replies);
      if (got) this.onMessage(worker, got.message as EngineMessage);
    }
    if (!this.pending.has(reqId)) this.inPlace++;
  }

  /** Queries whose reply the posting thread took in place (see "A lone client"). */
  get repliesTakenInPlace(): number {
    return this.inPlace;
  }

  private spawn(): Worker {
    // A fresh counter per worker: one that died may have left reads counted in it.
    this.readsWaiting = new ReadsWaiting();
    const { port1, port2 } = new MessageChannel();
    const workerData: EngineWorkerData = { ...this.workerData, readsWaiting: this.readsWaiting.buffer, replies: port1 };
    const worker = new Worker(new URL('./worker/engine-worker.js', import.meta.url), { workerData, transferList: [port1] });
    // The previous worker's channel (a restart) carries nothing more that counts.
    this.replies?.close();
    this.replies = port2;
    port2.on('message', (msg: EngineMessage) => this.onMessage(worker, msg));
    worker.on('error', (err) => this.onDeath(worker, err));
    worker.on('exit', (code) => {
      this.exited.add(worker);
      this.onDeath(worker, new Error(`engine worker exited with code ${code}`));
    });
    this.backoff.started();
    return worker;
  }

  private onMessage(from: Worker, msg: EngineMessage): void {
    if (from !== this.worker) return; // a late message from a worker being replaced
    switch (msg.type) {
      case 'reply':
      case 'error': {
        const pending = this.pending.get(msg.reqId);
        if (!pending) return;
        this.pending.delete(msg.reqId);
        engineQueueDepth.dec();
        lone.inFlight--;
        pending.settle(msg);
        return;
      }
      case 'status':
        for (const [indexId, count] of Object.entries(msg.indexes)) {
          if (!this.opened.has(indexId)) continue; // closed meanwhile: its backlog is forgotten
          this.backlog.reported(indexId, count);
          this.showUnindexed(indexId);
        }
        return;
      case 'snapshot':
        this.onSnapshot?.(msg.indexId, msg.seq);
        return;
      case 'log':
        this.log[msg.level](msg.fields, msg.msg);
        return;
      case 'fatal':
        this.onDeath(from, new Error(`engine failed to apply changes: ${msg.error}`));
        return;
    }
  }

  /**
   * A write to the index was acknowledged with `seq`, putting `records` records in it: they
   * count as unindexed until the worker reports a count at or past that seq.
   */
  noteAcknowledged(indexId: string, seq: number, records: number): void {
    this.backlog.acknowledged(indexId, seq, records);
    this.showUnindexed(indexId);
  }

  private showUnindexed(indexId: string): void {
    const entry = this.opened.get(indexId);
    if (entry) engineUnindexedRecords.set({ index: entry.name }, this.backlog.value(indexId));
  }

  private onDeath(worker: Worker, err: Error): void {
    if (worker !== this.worker || this.down || this.stopped) return;
    this.down = true;
    void worker.terminate();
    engineWorkerRestarts.inc();
    const delay = this.backoff.next();
    this.log.error({ err, restartInMs: delay, indexes: this.opened.size }, 'engine worker failed; restarting it and reloading every index');
    // Every request in flight fails with 503, except loads: they are posted again below.
    for (const [reqId, p] of this.pending) {
      if (p.call.op === 'open') continue;
      this.pending.delete(reqId);
      engineQueueDepth.dec();
      lone.inFlight--;
      p.fail(restarting());
    }
    this.scheduleRestart(delay);
  }

  private scheduleRestart(delay: number): void {
    setTimeout(() => void this.restart(), delay).unref();
  }

  private async restart(): Promise<void> {
    if (this.stopped) return;
    const worker = this.spawn();
    this.worker = worker;
    this.backlog.restarted(this.opened.keys());
    // Still `down`: no read is posted before the loads below (it would find no index).
    try {
      await this.onWriterPort?.(this.connectWriter());
    } catch (err) {
      this.log.error({ err }, 'handing the restarted engine worker to the writer thread failed');
    }
    if (this.stopped) return;
    if (this.exited.has(worker)) {
      // It died meanwhile; onDeath ignored it while `down`, so start the next one here.
      this.scheduleRestart(this.backoff.next());
      return;
    }
    this.down = false;
    const reloading = new Set<string>();
    for (const p of this.pending.values()) {
      if (p.call.op === 'open') {
        reloading.add(p.call.indexId);
        this.worker.postMessage(p.call);
      }
    }
    for (const [indexId, { dir, shape, name }] of this.opened) {
      if (reloading.has(indexId)) continue;
      this.call({ op: 'open', indexId, dir, shape }, (r) => (r.op === 'open' ? r.result : undefined)).then(
        () => this.log.info({ index: name }, 'engine reloaded index after restart'),
        (err: unknown) => this.log.error({ err, index: name }, 'reloading index after an engine restart failed'),
      );
    }
  }
}
