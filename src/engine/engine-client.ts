// The main thread's handle on the search engine: one or more engine workers
// (engine-shard.ts, one EngineShard each), with every index owned by exactly one of them.
//
// Why shards and not replicas: an index's graphs, tail and columns live in the one worker
// that applies its changes in commit order (DESIGN.md "Threads and order"), so spreading
// whole indexes over workers keeps that rule as it is — one busy or loading index no
// longer holds up the queries of an index on another worker, and a worker that fails takes
// only its own indexes down while it restarts.
//
// Assignment: an index goes to a new worker while there are fewer than the configured
// number (workers after the first start on demand, so a server with one index runs one;
// the first index goes to the first worker), else to the worker whose indexes held the
// fewest bytes when they were assigned (their record stores' size; the fewest indexes on
// a tie). Bytes, not a count: a worker loads its indexes one after another at start, and
// queries and indexing cost more on larger indexes. It is decided when the index is first
// seen (open, or a write before it) and stays for the life of the process. The
// writer thread posts each index's committed changes on that worker's port
// (src/data/writer/, the write request names the shard). Read-your-writes holds per index
// exactly as with one worker (engine-worker.ts "Read-your-writes"): the index's reads and
// its changes reach the same worker, and each read carries the index's minSeq.
import type { MessagePort } from 'node:worker_threads';
import { EngineShard, type EngineLog } from './engine-shard.js';
import type { FilterNode } from './filter.js';
import type { IndexShape } from './model.js';
import { DEFAULT_WORKER_DATA, type EngineQuery, type EngineWorkerData, type QueryAnswer } from './protocol.js';

export type { EngineLog } from './engine-shard.js';

export class EngineClient {
  private readonly shards: EngineShard[] = [];
  /** Each assigned index's worker and the bytes it was assigned with. */
  private readonly shardOfIndex = new Map<string, { shard: number; bytes: number }>();
  /**
   * Invariant: ownedCount[s] is the number of entries of shardOfIndex whose shard is s,
   * and ownedBytes[s] the sum of their bytes, one slot per started worker. Kept where
   * ownership changes (shardOf assigns, close releases, startShard adds a slot at 0), so
   * assignment never scans every index.
   */
  private readonly ownedCount: number[] = [];
  private readonly ownedBytes: number[] = [];
  private snapshotCallback: ((indexId: string, seq: number) => void) | undefined;
  /** The most engine worker threads (CONIFER_ENGINE_WORKERS), at least 1. */
  readonly maxWorkers: number;

  /**
   * `workerData`: each worker's CPU priority and insert threads (protocol.ts).
   * `expectedIndexes`: how many indexes the caller is about to open (a start passes the
   * indexes it will recover).
   */
  constructor(
    private readonly log: EngineLog,
    maxWorkers = 1,
    private readonly workerData: EngineWorkerData = DEFAULT_WORKER_DATA,
    expectedIndexes = 0,
  ) {
    this.maxWorkers = Math.max(1, Math.floor(maxWorkers));
    // The workers the expected indexes will take (at least the first) start at once: a
    // worker's start, loading its modules and native addons, takes a few hundred ms, which
    // then passes while the server builds its routes instead of after recovery asked for
    // the worker. Assignment is unchanged: an idle started worker is the least loaded.
    const warm = Math.min(this.maxWorkers, Math.max(1, Math.floor(expectedIndexes)));
    for (let i = 0; i < warm; i++) this.startShard();
  }

  /** How many engine workers have started (the writer thread holds one port to each). */
  get workers(): number {
    return this.shards.length;
  }

  /**
   * The worker that owns the index; assigns one on first use (see the top of this file),
   * counting `bytes` (the index's size then) against the worker it goes to.
   */
  shardOf(indexId: string, bytes = 0): number {
    const owned = this.shardOfIndex.get(indexId);
    if (owned !== undefined) return owned.shard;
    const idle = this.leastLoaded();
    const shard = this.ownedCount[idle] > 0 && this.shards.length < this.maxWorkers ? this.startShard() : idle;
    this.shardOfIndex.set(indexId, { shard, bytes });
    this.ownedCount[shard]++;
    this.ownedBytes[shard] += bytes;
    return shard;
  }

  /**
   * Loads an index; resolves when it is searchable (survives worker restarts). `fresh`:
   * protocol.ts `open`. `bytes`: the index's size, for assigning it a worker (shardOf).
   */
  open(indexId: string, dir: string, shape: IndexShape, name = indexId, fresh = false, bytes = 0): Promise<void> {
    return this.shards[this.shardOf(indexId, bytes)].open(indexId, dir, shape, name, fresh);
  }

  async close(indexId: string): Promise<void> {
    const owned = this.shardOfIndex.get(indexId);
    if (owned === undefined) return;
    await this.shards[owned.shard].close(indexId);
    // Still ours after the await? (close() twice at once must release the index once.)
    if (this.shardOfIndex.get(indexId) !== owned) return;
    this.shardOfIndex.delete(indexId);
    this.ownedCount[owned.shard]--;
    this.ownedBytes[owned.shard] -= owned.bytes;
  }

  /** A new port to worker `shard`, for the writer thread to post that worker's indexes' changes on. */
  connectWriter(shard: number): MessagePort {
    return this.shards[shard].connectWriter();
  }

  /**
   * Set by the writer's owner: hands a started or restarted worker's port to the writer
   * thread (posted synchronously) and resolves once the writer posts on it (engine-shard.ts,
   * the restart note).
   */
  onWriterPort: ((shard: number, port: MessagePort) => Promise<void>) | undefined;

  /** A write to the index was acknowledged (the unindexed gauge, indexing-backlog.ts). */
  noteAcknowledged(indexId: string, seq: number, records: number): void {
    this.shardFor(indexId).noteAcknowledged(indexId, seq, records);
  }

  /** `minSeq`: the highest acknowledged seq of the index (engine-worker.ts "Read-your-writes"). */
  query(indexId: string, query: EngineQuery, minSeq: number): Promise<QueryAnswer> {
    return this.shardFor(indexId).query(indexId, query, minSeq);
  }

  count(indexId: string, filter: FilterNode, minSeq: number): Promise<[string, number][]> {
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

  /**
   * Callback for "a snapshot holding every change up to seq is durable" (tombstone
   * compaction waits for it). Kept here and given to every worker, those started later
   * included: it is set once at start, when only the first worker runs.
   */
  set onSnapshot(callback: ((indexId: string, seq: number) => void) | undefined) {
    this.snapshotCallback = callback;
    for (const shard of this.shards) shard.onSnapshot = callback;
  }

  /** Writes every worker's snapshots (each bounded), then stops the workers. */
  async stop(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.stop()));
  }

  private shardFor(indexId: string): EngineShard {
    return this.shards[this.shardOf(indexId)];
  }

  /** The started worker owning the fewest bytes, then the fewest indexes, then the lowest-numbered. */
  private leastLoaded(): number {
    let best = 0;
    for (let s = 1; s < this.shards.length; s++) {
      const bytes = this.ownedBytes[s] - this.ownedBytes[best];
      if (bytes < 0 || (bytes === 0 && this.ownedCount[s] < this.ownedCount[best])) best = s;
    }
    return best;
  }

  /**
   * Starts worker number `shards.length` and hands the writer thread a port to it before
   * returning: the hand-over is posted to the writer synchronously, so it reaches the
   * writer before any write of an index assigned to this worker.
   */
  private startShard(): number {
    const i = this.shards.length;
    const shard = new EngineShard(this.maxWorkers === 1 ? this.log : shardLog(this.log, i), this.workerData);
    shard.onWriterPort = (port) => this.onWriterPort?.(i, port) ?? Promise.resolve();
    shard.onSnapshot = this.snapshotCallback;
    this.shards.push(shard);
    this.ownedCount.push(0);
    this.ownedBytes.push(0);
    // No writer yet (the workers started in the constructor): the writer thread connects
    // to every started worker when it starts.
    if (this.onWriterPort) void this.onWriterPort(i, shard.connectWriter());
    return i;
  }
}

function shardLog(log: EngineLog, shard: number): EngineLog {
  return {
    info: (obj, msg) => log.info({ engineWorker: shard, ...obj }, msg),
    warn: (obj, msg) => log.warn({ engineWorker: shard, ...obj }, msg),
    error: (obj, msg) => log.error({ engineWorker: shard, ...obj }, msg),
  };
}
