// A Parquet row of an import turned into a record, validated exactly like one vector of
// an upsert (vector-input.ts: same rules, same messages). Parquet-specific shapes are
// normalised first: INT64 sparse indices arrive as bigint, an absent or empty
// sparse_values struct means "no sparse values", metadata is a JSON string.
import type { IndexRow } from '../catalog/indexes.js';
import type { StoredRecord } from '../engine/model.js';
import { invalid } from '../errors.js';
import { upsertVector } from './vector-input.js';

export function importRecord(row: Record<string, unknown>, index: IndexRow): StoredRecord {
  const vector: Record<string, unknown> = { id: row.id };
  if (row.values !== null && row.values !== undefined) vector.values = row.values;
  const sparse = sparseOf(row.sparse_values);
  if (sparse) vector.sparse_values = sparse;
  const metadata = row.metadata;
  if (metadata !== null && metadata !== undefined && metadata !== '') {
    if (typeof metadata !== 'string') throw invalid('metadata must be a JSON string');
    try {
      vector.metadata = JSON.parse(metadata);
    } catch {
      throw invalid(`metadata is not valid JSON: ${metadata.slice(0, 60)}`);
    }
  }
  return upsertVector(vector, 'record', index);
}

function sparseOf(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'object') return v; // upsertVector names the type
  const { indices, values } = v as { indices?: unknown; values?: unknown };
  if (Array.isArray(indices) && Array.isArray(values) && indices.length === 0 && values.length === 0) return undefined;
  return {
    indices: Array.isArray(indices) ? indices.map((i) => (typeof i === 'bigint' ? Number(i) : i)) : indices,
    values,
  };
}
