// Messages between the main thread (EngineClient) and the engine worker. The worker
// owns every search structure; the main thread only commits to the record stores and
// posts the committed changes, in commit order, before answering the write.
import type { Change, SparseValues, StoredRecord } from './record-store.js';
import type { IndexShape } from './metric.js';

export type EngineRequest =
  /** Load an index's records from its store directory. Answered when loaded. */
  | { op: 'open'; reqId: number; indexId: string; dir: string; shape: IndexShape }
  | { op: 'close'; reqId: number; indexId: string }
  /** Committed changes, in commit order. Not answered. */
  | { op: 'apply'; indexId: string; changes: Change[] }
  | { op: 'query'; reqId: number; indexId: string; query: EngineQuery }
  /** Records per namespace matching a filter (stats of pod indexes). */
  | { op: 'count'; reqId: number; indexId: string; filter: unknown };

export interface EngineQuery {
  namespace: string;
  topK: number;
  dense?: Float32Array;
  sparse?: SparseValues;
  /** A filter already validated by the caller; the worker parses it again. */
  filter?: unknown;
  includeValues: boolean;
  includeMetadata: boolean;
}

export interface EngineMatch {
  id: string;
  score: number;
  record?: StoredRecord;
}

export type EngineResponse =
  | { reqId: number; ok: true; result: unknown }
  | { reqId: number; ok: false; error: string };
