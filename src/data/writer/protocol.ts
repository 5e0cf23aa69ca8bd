// Messages between the main thread (WriterClient) and the writer thread (writer-worker),
// typed end to end like the engine's (src/engine/protocol.ts). The writer owns every
// index's write connection: each write names its index, its store directory and its
// arguments, and is answered with its result and the seq the store had after its commit
// (the write's LSN; the main thread's acknowledged seq, see engine-worker.ts
// "Read-your-writes").
import type { MessagePort } from 'node:worker_threads';
import type { IndexRow } from '../../catalog/indexes.js';
import type { ErrorCode } from '../../errors.js';
import type { FilterNode } from '../../engine/filter.js';
import type { Metadata, StoredRecord } from '../../engine/model.js';
import type { Candidates, ImportProgress, RecordPatch } from '../../engine/store/record-store.js';

/** Each write: its arguments and its result. */
export interface WriteCalls {
  /**
   * The bytes of an upsert's JSON body as the chunks the HTTP thread received, in order,
   * parsed and validated on the writer thread (null: the request had no body). Result:
   * records upserted.
   */
  upsert: { args: { body: Uint8Array[] | null }; result: number };
  /**
   * A bulk import batch: records already validated (possibly none) and the import's cursor
   * past the batch, committed in one transaction. Result: records upserted.
   */
  'import-batch': { args: { ns: string; records: StoredRecord[]; importId: number; progress: ImportProgress }; result: number };
  /** Result: false when the id does not exist (nothing written). */
  update: { args: { ns: string; id: string; patch: RecordPatch }; result: boolean };
  /** `candidates`: the engine's matches, each checked again (store forEachMatch). Result: records matching. */
  'update-where': {
    args: { ns: string; filter: FilterNode; setMetadata: Metadata; dryRun: boolean; candidates: Candidates };
    result: number;
  };
  'delete-ids': { args: { ns: string; ids: string[] }; result: null };
  'delete-where': { args: { ns: string; filter: FilterNode; candidates: Candidates }; result: null };
  /** Result: false when the namespace does not exist. */
  'drop-namespace': { args: { ns: string }; result: boolean };
  /** Result: false when the namespace already exists. */
  'create-namespace': { args: { ns: string }; result: boolean };
}

export type WriteOp = keyof WriteCalls;
export type Write = { [K in WriteOp]: { op: K } & WriteCalls[K]['args'] }[WriteOp];
export type WriteResult = WriteCalls[WriteOp]['result'];

export interface WriterData {
  /** One port per engine worker (engine-client.ts), on which its indexes' committed changes are posted. */
  enginePorts: MessagePort[];
  /** Nice steps to run below the main thread (engine/thread-priority.ts; 0: the same). */
  backgroundNice: number;
}

export type WriterRequest =
  /** `shard`: the engine worker that owns the index (EngineClient.shardOf). */
  | { type: 'write'; reqId: number; index: IndexRow; dir: string; shard: number; write: Write }
  /** Close the index's write connection (the index is being deleted). */
  | { type: 'close'; reqId: number; indexId: string }
  /** Post worker `shard`'s changes on this port from now on (that engine worker was restarted). */
  | { type: 'engine-port'; reqId: number; shard: number; port: MessagePort }
  /** Close every write connection and answer: the thread is idle and may be terminated. */
  | { type: 'stop'; reqId: number };

/** An error crossing the thread boundary: an ApiError keeps its code, any other its `code` (SQLITE_FULL → 507). */
export type WriteFailure =
  | { api: true; code: ErrorCode; message: string; retryAfter?: number }
  | { api: false; message: string; code?: string };

export type WriterReply =
  | { type: 'written'; reqId: number; seq: number; result: WriteResult }
  | { type: 'done'; reqId: number }
  | { type: 'failed'; reqId: number; error: WriteFailure };
