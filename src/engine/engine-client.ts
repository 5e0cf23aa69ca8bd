// The main thread's handle on the engine worker. Writes post their committed changes
// and return at once (messages keep their order, so the next query sees them); reads
// and loads are request/response.
import { Worker } from 'node:worker_threads';
import { unavailable } from '../errors.js';
import { engineQueryDuration, engineQueueDepth } from '../metrics.js';
import type { EngineMatch, EngineQuery, EngineRequest, EngineResponse } from './engine-protocol.js';
import type { IndexShape } from './metric.js';
import type { Change } from './record-store.js';

/** Stored data is intact (the stores are durable); only search is down until a restart. */
const searchUnavailable = (): Error => unavailable('The search engine failed; restart Conifer to rebuild it.', 30);

type Pending = { resolve: (value: unknown) => void; reject: (err: Error) => void };

export interface EngineLog {
  error(obj: object, msg: string): void;
}

/** Distributes Omit over the request union so each variant keeps its own fields. */
type WithoutReqId<T> = T extends unknown ? Omit<T, 'reqId'> : never;

export class EngineClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextReqId = 1;
  private failure: Error | undefined;

  constructor(private readonly log: EngineLog) {
    this.worker = new Worker(new URL('./engine-worker.js', import.meta.url));
    this.worker.on('message', (msg: EngineResponse) => this.onMessage(msg));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`engine worker exited with code ${code}`)));
  }

  open(indexId: string, dir: string, shape: IndexShape): Promise<void> {
    return this.request({ op: 'open', indexId, dir, shape }) as Promise<void>;
  }

  close(indexId: string): Promise<void> {
    return this.request({ op: 'close', indexId }) as Promise<void>;
  }

  /**
   * Never throws: it runs after a write committed, and a write that committed must not
   * answer 5xx (decision 3). A failed engine is reported by the next read instead.
   */
  apply(indexId: string, changes: Change[]): void {
    if (changes.length === 0 || this.failure) return;
    this.worker.postMessage({ op: 'apply', indexId, changes } satisfies EngineRequest);
  }

  /** Timed around the worker round trip (conifer_engine_query_duration_seconds). */
  async query(indexId: string, query: EngineQuery): Promise<EngineMatch[]> {
    const done = engineQueryDuration.startTimer();
    try {
      return (await this.request({ op: 'query', indexId, query })) as EngineMatch[];
    } finally {
      done();
    }
  }

  count(indexId: string, filter: unknown): Promise<Record<string, number>> {
    return this.request({ op: 'count', indexId, filter }) as Promise<Record<string, number>>;
  }

  async stop(): Promise<void> {
    this.failure ??= new Error('engine stopped');
    await this.worker.terminate();
  }

  private request(msg: WithoutReqId<EngineRequest>): Promise<unknown> {
    const reqId = this.nextReqId++;
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(searchUnavailable());
      this.pending.set(reqId, { resolve, reject });
      engineQueueDepth.set(this.pending.size);
      this.worker.postMessage({ ...msg, reqId } as EngineRequest);
    });
  }

  private onMessage(msg: EngineResponse): void {
    const pending = this.pending.get(msg.reqId);
    if (!pending) {
      // An 'apply' failed: the search structures no longer match the stores.
      if (!msg.ok) this.fail(new Error(`engine failed to apply changes: ${msg.error}`));
      return;
    }
    this.pending.delete(msg.reqId);
    engineQueueDepth.set(this.pending.size);
    if (msg.ok) pending.resolve(msg.result);
    else pending.reject(new Error(msg.error));
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.log.error({ err }, 'engine worker failed; search is unavailable until restart');
    for (const p of this.pending.values()) p.reject(searchUnavailable());
    this.pending.clear();
    engineQueueDepth.set(0);
  }
}
