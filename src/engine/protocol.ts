// Messages between the main thread (EngineClient) and the engine worker, typed end to
// end: each call names its arguments and its result, and a reply carries the op it
// answers so the client narrows it without casts. The worker owns every search
// structure. Writes reach it on a second port: the writer thread (src/data/writer/)
// commits to the record stores and posts the committed changes ('apply') on its own
// MessagePort to this worker, in commit order, before the write is answered. Reads that
// must see acknowledged writes carry `minSeq` (see engine-worker.ts "Read-your-writes").
import type { MessagePort } from 'node:worker_threads';
import type { FilterNode } from './filter.js';
import type { Change, IndexShape, SparseValues, StoredRecord } from './model.js';

/** The engine worker's workerData. */
export interface EngineWorkerData {
  /** Nice steps to run below the main thread (thread-priority.ts; 0: the same). */
  backgroundNice: number;
  /** Native threads a graph insert batch is shared over (GraphOptions.insertThreads). */
  insertThreads: number;
  /**
   * Threads a batch of queries' graph walks and sparse-only searches are shared over
   * (engine-worker.ts "Query batches"; the worker's own thread is one); 1: each query
   * alone, on the worker's thread.
   */
  queryThreads: number;
  /**
   * The counter of reads posted to this worker and not yet received
   * (worker/read-preemption.ts); absent: slices never end early for a read.
   */
  readsWaiting?: SharedArrayBuffer;
  /**
   * The port the worker posts every message on (its end of a channel the main thread can
   * also read synchronously: engine-shard.ts "A lone client"); absent: parentPort.
   */
  replies?: MessagePort;
}

/** What a worker starts with by default: the main thread's priority, inserts and queries on one thread. */
export const DEFAULT_WORKER_DATA: EngineWorkerData = { backgroundNice: 0, insertThreads: 1, queryThreads: 1 };

export interface EngineQuery {
  namespace: string;
  topK: number;
  dense?: Float32Array;
  sparse?: SparseValues;
  /** Parsed (and validated) once on the main thread; the worker only compiles it. */
  filter?: FilterNode;
  /** Pinecone's maxCandidates: raises the graph walk's ef for this query. */
  maxCandidates?: number;
  includeValues: boolean;
  includeMetadata: boolean;
}

export interface EngineMatch {
  id: string;
  score: number;
  /** Values and sparse values (includeValues). */
  record?: StoredRecord;
  /**
   * The record's metadata as JSON text (includeMetadata; MetadataColumns.metadataJson),
   * which the HTTP thread splices into the answer unchanged. It crosses the thread
   * boundary as one string rather than an object tree: a reply of ten matches with the
   * bench's metadata took ~56 µs to serialize and read back with objects, ~33 µs with
   * text, ~26 µs without metadata (v8.serialize, the clone postMessage uses), and the
   * HTTP thread no longer prints the objects again.
   */
  metadataJson?: string;
  /**
   * Set when the query asked for metadata and the record carried some, in the state the
   * query saw, that the engine does not hold whole (fields without a filter column): the
   * main thread reads it from the record store. A SQLite read of 10 rows costs ~100 µs
   * of the HTTP thread, so the engine answers the rest itself.
   */
  metadataInStore?: boolean;
}

/**
 * A query's matches and the seq of the last change the index held when it answered: the
 * query saw exactly the changes up to `seq` (changes are applied in seq order), so it is
 * the query's freshness LSN — a write with a higher LSN was not seen, one at or below was.
 */
export interface QueryAnswer {
  matches: EngineMatch[];
  seq: number;
}

/** Each request/response call: its arguments and the result it is answered with. */
export interface EngineCalls {
  /** Load an index's records from its store directory; answered when searchable. */
  /**
   * `fresh`: the index was just created, so it must be searchable once this message is
   * handled (decision 10) — its load runs to the end at once instead of in slices. What it
   * loads is only what was written since its creation (a new worker may start after that).
   */
  open: { args: { indexId: string; dir: string; shape: IndexShape; fresh?: boolean }; result: null };
  close: { args: { indexId: string }; result: null };
  /**
   * `minSeq`: the highest seq acknowledged to any client for this index when the read
   * was posted; the worker answers only once it has applied every change up to it.
   */
  query: { args: { indexId: string; query: EngineQuery; minSeq: number }; result: QueryAnswer };
  /** Records per namespace matching a filter (stats of pod indexes). */
  // Pairs, not an object keyed by namespace: a namespace may be named __proto__.
  count: { args: { indexId: string; filter: FilterNode; minSeq: number }; result: [string, number][] };
  /**
   * Ids of the namespace's records matching a filter (every record without one), from
   * the metadata columns: fetch_by_metadata and update/delete by filter use it instead of
   * scanning the store. With `page`: the first `limit` after `after` in the store's id
   * order (byte order); without: all of them, unordered.
   */
  ids: {
    args: { indexId: string; namespace: string; filter?: FilterNode; page?: { after?: string; limit: number }; minSeq: number };
    result: string[];
  };
  /** Write a snapshot of every index changed since its last one (clean shutdown). */
  flush: { args: { reason: 'shutdown' }; result: null };
}

export type EngineOp = keyof EngineCalls;

export type EngineCall = { [K in EngineOp]: { op: K; reqId: number } & EngineCalls[K]['args'] }[EngineOp];

/** The calls that only read an index: each carries a minSeq and waits until the worker holds it. */
export type ReadOp = 'query' | 'count' | 'ids';
export type ReadCall = Extract<EngineCall, { op: ReadOp }>;

export function isReadOp(op: string): op is ReadOp {
  return op === 'query' || op === 'count' || op === 'ids';
}

/** Committed changes, in commit order. Not answered. */
export interface ApplyMessage {
  op: 'apply';
  indexId: string;
  changes: Change[];
}

/**
 * The first message on every new writer port: apply, from the record stores, every
 * committed change the worker has not received (a writer thread that died between its
 * commit and its 'apply' left such a gap). Later applies on the port follow it.
 */
export interface CatchUpMessage {
  op: 'catch-up';
}

/** What the writer thread posts on its port to this worker, in commit order. */
export type WriterToEngine = ApplyMessage | CatchUpMessage;

/** Main thread → worker: the port on which the (current) writer thread posts its changes. */
export interface ConnectWriterMessage {
  op: 'connect-writer';
  port: MessagePort;
}

export type EngineRequest = EngineCall | ConnectWriterMessage;

export type EngineReply =
  | { [K in EngineOp]: { type: 'reply'; op: K; reqId: number; result: EngineCalls[K]['result'] } }[EngineOp]
  /** `retryable`: the index is (re)loading; the caller answers 503 with Retry-After. */
  | { type: 'error'; reqId: number; error: string; retryable: boolean };

export type LogLevel = 'info' | 'warn' | 'error';

/** An index's count in a status event (indexing-backlog.ts). */
export interface IndexCount {
  /** Records the worker has applied that wait for graph insertion (or, while loading, all). */
  unindexed: number;
  /** The seq of the last change applied when it counted. */
  seq: number;
}

export type EngineEvent =
  /**
   * Per index whose count changed: the records applied and not yet in a graph (searched
   * exactly meanwhile), with the seq they were counted at (indexing-backlog.ts adds the
   * acknowledged writes above it).
   */
  | { type: 'status'; indexes: Record<string, IndexCount> }
  | { type: 'log'; level: LogLevel; msg: string; fields: Record<string, string | number> }
  /** A snapshot holding every change up to `seq` is durable (tombstones up to it may go). */
  | { type: 'snapshot'; indexId: string; seq: number }
  /** The worker's structures no longer match the stores (an apply failed): restart it. */
  | { type: 'fatal'; error: string };

export type EngineMessage = EngineReply | EngineEvent;
