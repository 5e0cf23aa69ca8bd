// The main thread's handle on the search engine: one or more engine workers
// (engine-shard.ts, one EngineShard each), with every index owned by exactly one of them.
//
// Why shards and not replicas: an index's graphs, tail and columns live in the one worker
// that applies its changes in commit order (DESIGN.md "Threads and order"), so spreading
// whole indexes over workers keeps that rule as it is — one busy or loading index no
// longer holds up the queries of an index on another worker, and a worker that fails takes
// only its own indexes down while it restarts.
//
// Assignment: an index goes to the worker that owns the fewest indexes when it is first
// seen (open, or a write before it), and stays there for the life of the process; the
// writer thread posts each index's committed changes on that worker's port
// (src/data/writer/, the write request names the shard). Read-your-writes holds per index
// exactly as with one worker (engine-worker.ts "Read-your-writes"): the index's reads and
// its changes reach the same worker, and each read carries the index's minSeq.
import type { MessagePort } from 'node:worker_threads';
import { EngineShard, type EngineLog } from './engine-shard.js';
import type { FilterNode } from './filter.js';
import type { IndexShape } from './model.js';
import type { EngineQuery, QueryAnswer } from './protocol.js';

export type { EngineLog } from './engine-shard.js';

export class EngineClient {
  private readonly shards: EngineShard[];
  private readonly shardOfIndex = new Map<string, number>();

  /** `workers`: engine worker threads (CONIFER_ENGINE_WORKERS), at least 1. */
  constructor(log: EngineLog, workers = 1) {
    const count = Math.max(1, Math.floor(workers));
    this.shards = Array.from({ length: count }, (_, i) => new EngineShard(count === 1 ? log : shardLog(log, i)));
    for (const [i, shard] of this.shards.entries()) {
      shard.onWriterPort = (port) => this.onWriterPort?.(i, port) ?? Promise.resolve();
    }
  }

  /** How many engine workers there are (the writer thread holds one port to each). */
  get workers(): number {
    return this.shards.length;
  }

  /** The worker that owns the index; assigns one on first use (see the top of this file). */
  shardOf(indexId: string): number {
    let shard = this.shardOfIndex.get(indexId);
    if (shard === undefined) {
      const owned = this.shards.map(() => 0);
      for (const s of this.shardOfIndex.values()) owned[s]++;
      shard = owned.indexOf(Math.min(...owned));
      this.shardOfIndex.set(indexId, shard);
    }
    return shard;
  }

  /** Loads an index; resolves when it is searchable (survives worker restarts). */
  open(indexId: string, dir: string, shape: IndexShape, name = indexId): Promise<void> {
    return this.shardFor(indexId).open(indexId, dir, shape, name);
  }

  async close(indexId: string): Promise<void> {
    const shard = this.shardOfIndex.get(indexId);
    if (shard === undefined) return;
    await this.shards[shard].close(indexId);
    this.shardOfIndex.delete(indexId);
  }

  /** A new port to worker `shard`, for the writer thread to post that worker's indexes' changes on. */
  connectWriter(shard: number): MessagePort {
    return this.shards[shard].connectWriter();
  }

  /**
   * Set by the writer's owner: hands a restarted worker's port to the writer thread and
   * resolves once the writer posts on it (engine-shard.ts, the restart note).
   */
  onWriterPort: ((shard: number, port: MessagePort) => Promise<void>) | undefined;

  /** `minSeq`: the highest acknowledged seq of the index (engine-worker.ts "Read-your-writes"). */
  query(indexId: string, query: EngineQuery, minSeq: number): Promise<QueryAnswer> {
    return this.shardFor(indexId).query(indexId, query, minSeq);
  }

  count(indexId: string, filter: FilterNode, minSeq: number): Promise<Record<string, number>> {
    return this.shardFor(indexId).count(indexId, filter, minSeq);
  }

  /** Ids matching `filter` in a namespace (protocol.ts `ids`). */
  ids(
    indexId: string,
    namespace: string,
    filter: FilterNode | undefined,
    minSeq: number,
    page?: { after?: string; limit: number },
  ): Promise<string[]> {
    return this.shardFor(indexId).ids(indexId, namespace, filter, minSeq, page);
  }

  /** False while any worker restarts or any index is still loading (GET /ready). */
  get searchable(): boolean {
    return this.shards.every((s) => s.searchable);
  }

  /** Callback for "a snapshot holding every change up to seq is durable". */
  set onSnapshot(callback: ((indexId: string, seq: number) => void) | undefined) {
    for (const shard of this.shards) shard.onSnapshot = callback;
  }

  /** Writes every worker's snapshots (each bounded), then stops the workers. */
  async stop(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.stop()));
  }

  private shardFor(indexId: string): EngineShard {
    return this.shards[this.shardOf(indexId)];
  }
}

function shardLog(log: EngineLog, shard: number): EngineLog {
  return {
    info: (obj, msg) => log.info({ engineWorker: shard, ...obj }, msg),
    warn: (obj, msg) => log.warn({ engineWorker: shard, ...obj }, msg),
    error: (obj, msg) => log.error({ engineWorker: shard, ...obj }, msg),
  };
}
