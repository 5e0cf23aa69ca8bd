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
