// The engine's data types: records, changes, metadata, metrics and index shapes.
// This module imports nothing, so every layer (store, worker, services, HTTP
// serializers) can share these types without pulling in any implementation.

export type Metric = 'cosine' | 'euclidean' | 'dotproduct';

export interface IndexShape {
  /** 0 for sparse-only indexes. */
  dimension: number;
  metric: Metric;
  /**
   * The metadata fields that get filter columns (pod `metadata_config.indexed`,
   * serverless `schema.fields.*.filterable`); absent: every field.
   */
  filterable?: readonly string[];
}

export type MetadataValue = string | number | boolean | string[];
export type Metadata = Record<string, MetadataValue>;

export interface SparseValues {
  indices: Uint32Array;
  values: Float32Array;
}

/**
 * The pairs in ascending index order: `s` itself when they already are (what clients
 * send), else a sorted copy. Sparse values are kept, searched and returned in this order
 * (vector-input.ts sorts what a write brings, so fetch and query print the same order;
 * reads sort what stores written before that hold). Equal indices keep their order.
 */
export function ascendingSparse(s: SparseValues): SparseValues {
  const { indices, values } = s;
  const n = indices.length;
  let ascending = true;
  for (let i = 1; i < n && ascending; i++) ascending = indices[i - 1] <= indices[i];
  if (ascending) return s;
  // One numeric sort of (index, position) keys packed in a float64: exact while
  // index · n + position < 2^53, i.e. for up to 2^21 pairs (a record holds at most 2,048).
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = indices[i] * n + i;
  keys.sort();
  const out = { indices: new Uint32Array(n), values: new Float32Array(n) };
  for (let j = 0; j < n; j++) {
    const i = keys[j] % n;
    out.indices[j] = indices[i];
    out.values[j] = values[i];
  }
  return out;
}

/** A record as the store keeps it; absent fields are absent, never null. */
export interface StoredRecord {
  id: string;
  values?: Float32Array;
  sparse?: SparseValues;
  metadata?: Metadata;
}

/**
 * One committed change, in the order the search engine must apply it. `seq` is the
 * index-wide sequence number of the change (never reused), so applying is idempotent:
 * an engine that already holds a newer state of the record skips an older change.
 */
export type Change =
  | { kind: 'upsert'; ns: string; seq: number; record: StoredRecord }
  | { kind: 'delete'; ns: string; seq: number; id: string }
  | { kind: 'drop-namespace'; ns: string; seq: number };
