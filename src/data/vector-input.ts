// Validation of data-plane input (DESIGN.md decisions 4, 8, 11): every bad value is a
// 400 naming the field and what is allowed; nothing is coerced. Values are converted to
// their stored form (Float32Array, sorted-free sparse arrays) in the same pass.
import { ascendingSparse, type Metadata, type MetadataValue, type SparseValues, type StoredRecord } from '../engine/model.js';
import { isFinite32 } from '../engine/float32.js';
import { invalid, show } from '../errors.js';
import {
  METADATA_MAX_BYTES,
  NAMESPACE_MAX_LENGTH,
  SPARSE_MAX_ENTRIES,
  UPSERT_MAX_VECTORS,
  VECTOR_ID_MAX_LENGTH,
} from '../limits.js';
import type { IndexRow } from '../catalog/indexes.js';

export const DEFAULT_NAMESPACE_ALIAS = '__default__';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export function requireObject(v: unknown, field: string): Record<string, unknown> {
  if (!isObject(v)) throw invalid(`${field} must be an object, got ${typeName(v)}`);
  return v;
}

export function optionalBoolean(v: unknown, field: string, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw invalid(`${field} must be a boolean, got ${typeName(v)}`);
  return v;
}

export function optionalString(v: unknown, field: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(`${field} must be a string, got ${typeName(v)}`);
  return v;
}

export function integerIn(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(`${field} must be an integer, got ${show(v)}`);
  if (v < min || v > max) throw invalid(`${field} must be between ${min} and ${max}, got ${v}`);
  return v;
}

/** Absent, "" and "__default__" are the default namespace, stored as "" (decision 5). */
export function namespaceOf(v: unknown, field = 'namespace'): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw invalid(`${field} must be a string, got ${typeName(v)}`);
  if (v === DEFAULT_NAMESPACE_ALIAS) return '';
  if (v.length > NAMESPACE_MAX_LENGTH || !isAsciiWithoutNul(v)) {
    throw invalid(`${field} must be at most ${NAMESPACE_MAX_LENGTH} ASCII characters without NUL, got ${show(v)}`);
  }
  return v;
}

function isAsciiWithoutNul(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0 || c > 0x7f) return false;
  }
  return true;
}

/** Record ids: 1-512 ASCII characters without NUL (decision 8). */
export function vectorId(v: unknown, field: string): string {
  if (typeof v !== 'string') throw invalid(`${field} must be a string, got ${typeName(v)}`);
  if (v.length < 1 || v.length > VECTOR_ID_MAX_LENGTH || !isAsciiWithoutNul(v)) {
    throw invalid(
      `${field} must be 1-${VECTOR_ID_MAX_LENGTH} ASCII characters without NUL, got ${show(v)} (length ${v.length})`,
    );
  }
  return v;
}

/**
 * Dense values for an index. An empty array means "no dense values" (Python clients
 * send it for sparse-only records). Returns undefined when absent or empty.
 */
export function denseValues(v: unknown, field: string, index: IndexRow): Float32Array | undefined {
  if (v === undefined || v === null) return undefined;
  if (v instanceof Float32Array) return checkedFloat32(v, field, index);
  if (!Array.isArray(v)) throw invalid(`${field} must be an array of numbers, got ${typeName(v)}`);
  if (v.length === 0) return undefined;
  // A vector wrapped in one more array ([[1, 2, 3, 4]]) is not a vector of dimension 1.
  if (index.vectorType !== 'sparse' && typeof v[0] !== 'number') {
    throw invalid(`${field}[0] must be a number that is finite as float32, got ${show(v[0])}`);
  }
  checkDenseShape(v.length, field, index);
  const out = new Float32Array(v.length);
  let nonZero = false;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== 'number' || !isFinite32(x)) {
      throw invalid(`${field}[${i}] must be a number that is finite as float32, got ${show(x)}`);
    }
    out[i] = x;
    if (out[i] !== 0) nonZero = true;
  }
  if (!nonZero && index.metric === 'cosine') {
    throw invalid(`${field} contains only zeros, which has no direction under the cosine metric`);
  }
  return out;
}

function checkDenseShape(length: number, field: string, index: IndexRow): void {
  if (index.vectorType === 'sparse') {
    throw invalid(`${field} must be empty or absent: index ${index.name} is sparse (send sparseValues)`);
  }
  if (length !== index.dimension) {
    throw invalid(`${field}: vector dimension ${length} does not match the dimension of the index ${index.dimension}`);
  }
}

/**
 * The same rules for values that are already float32 (a bulk import's decoded Parquet
 * column, import-read-worker.ts): no copy, only the checks a float32 can fail.
 */
function checkedFloat32(v: Float32Array, field: string, index: IndexRow): Float32Array | undefined {
  if (v.length === 0) return undefined;
  checkDenseShape(v.length, field, index);
  let nonZero = false;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!Number.isFinite(x)) throw invalid(`${field}[${i}] must be a number that is finite as float32, got ${show(x)}`);
    if (x !== 0) nonZero = true;
  }
  if (!nonZero && index.metric === 'cosine') {
    throw invalid(`${field} contains only zeros, which has no direction under the cosine metric`);
  }
  return v;
}

export function sparseValues(v: unknown, field: string): SparseValues | undefined {
  if (v === undefined || v === null) return undefined;
  const obj = requireObject(v, field);
  const { indices, values } = obj;
  // Typed arrays come from the native body parse (json-body.ts), which took only entries
  // that pass the checks below; they are checked all the same, for what a typed array can
  // fail (checkedSparse32).
  if (!Array.isArray(indices) && !(indices instanceof Uint32Array)) {
    throw invalid(`${field}.indices must be an array of integers, got ${typeName(indices)}`);
  }
  if (!Array.isArray(values) && !(values instanceof Float32Array)) {
    throw invalid(`${field}.values must be an array of numbers, got ${typeName(values)}`);
  }
  if (indices.length !== values.length) {
    throw invalid(`${field}.indices and ${field}.values must have the same length, got ${indices.length} and ${values.length}`);
  }
  if (indices.length < 1 || indices.length > SPARSE_MAX_ENTRIES) {
    throw invalid(`${field} must have 1-${SPARSE_MAX_ENTRIES} entries, got ${indices.length}`);
  }
  if (indices instanceof Uint32Array && values instanceof Float32Array) return checkedSparse32(indices, values, field);
  const outIndices = new Uint32Array(indices.length);
  const outValues = new Float32Array(values.length);
  let ascending = true;
  for (let i = 0; i < indices.length; i++) {
    const ix: unknown = indices[i];
    if (typeof ix !== 'number' || !Number.isInteger(ix) || ix < 0 || ix > 0xffffffff) {
      throw invalid(`${field}.indices[${i}] must be an integer between 0 and 4294967295, got ${show(ix)}`);
    }
    const x: unknown = values[i];
    if (typeof x !== 'number' || !isFinite32(x)) {
      throw invalid(`${field}.values[${i}] must be a number that is finite as float32, got ${show(x)}`);
    }
    outIndices[i] = ix;
    outValues[i] = x;
    if (i > 0 && outIndices[i - 1] >= ix) ascending = false;
  }
  const out = { indices: outIndices, values: outValues };
  return ascending ? out : sortedWithoutDuplicates(out, field);
}

/**
 * The same rules for sparse values that are already typed (the native body parse's, views
 * of its arrays that no other record shares: json-body.ts): an index of a Uint32Array is an integer in range
 * already, so only the values' finiteness and the duplicates are checked, and the arrays
 * are kept, not copied, when their indices already ascend.
 */
function checkedSparse32(indices: Uint32Array, values: Float32Array, field: string): SparseValues {
  let ascending = true;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) throw invalid(`${field}.values[${i}] must be a number that is finite as float32, got ${show(values[i])}`);
    if (i > 0 && indices[i - 1] >= indices[i]) ascending = false;
  }
  return ascending ? { indices, values } : sortedWithoutDuplicates({ indices, values }, field);
}

/**
 * Pairs not in strictly ascending index order, sorted (ascendingSparse: so fetch returns
 * them in the order query does), refused if an index repeats. Strictly ascending input
 * (what clients send) has no duplicates and skips this.
 */
function sortedWithoutDuplicates(s: SparseValues, field: string): SparseValues {
  const sorted = ascendingSparse(s);
  for (let i = 1; i < sorted.indices.length; i++) {
    if (sorted.indices[i] === sorted.indices[i - 1]) throw invalid(`${field}.indices has the duplicate index ${sorted.indices[i]}`);
  }
  return sorted;
}

/** Accepts `sparseValues` and, as Python-style callers spell it, `sparse_values`. */
export const sparseField = (obj: Record<string, unknown>, camel: string, snake: string): [unknown, string] =>
  obj[camel] !== undefined ? [obj[camel], camel] : [obj[snake], snake];

export function metadataOf(v: unknown, field: string): Metadata | undefined {
  if (v === undefined || v === null) return undefined;
  const obj = requireObject(v, field);
  const out: Metadata = {};
  for (const [key, value] of Object.entries(obj)) {
    if (key.startsWith('$')) throw invalid(`${field} key ${show(key)} must not start with '$'`);
    // Refused in every body by the JSON parser (json-body.ts); a bulk import's metadata
    // column reaches here through JSON.parse, which keeps it as a key, and `out[key] =`
    // would set out's prototype instead: the key would vanish without a word.
    if (key === '__proto__') throw invalid(`${field} key "__proto__" is not accepted (no body may hold it)`);
    out[key] = metadataValue(value, `${field}.${key}`);
  }
  const bytes = Buffer.byteLength(JSON.stringify(out));
  if (bytes > METADATA_MAX_BYTES) {
    throw invalid(`${field} is ${bytes} bytes as JSON, over the limit of ${METADATA_MAX_BYTES} bytes per record`);
  }
  return out;
}

function metadataValue(v: unknown, field: string): MetadataValue {
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw invalid(`${field} must be a finite number, got ${show(v)}`);
    return v;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (typeof v[i] !== 'string') {
        throw invalid(`${field}[${i}] must be a string: list metadata values are lists of strings, got ${typeName(v[i])}`);
      }
    }
    return [...(v as string[])];
  }
  throw invalid(
    `${field} must be a string, number, boolean or list of strings, got ${typeName(v)} (metadata is flat, no null)`,
  );
}

/** One vector of an upsert, checked against the index. */
export function upsertVector(v: unknown, field: string, index: IndexRow): StoredRecord {
  const obj = requireObject(v, field);
  const record: StoredRecord = { id: vectorId(obj.id, `${field}.id`) };
  const values = denseValues(obj.values, `${field}.values`, index);
  const [rawSparse, sparseName] = sparseField(obj, 'sparseValues', 'sparse_values');
  const sparse = sparseValues(rawSparse, `${field}.${sparseName}`);
  if (index.vectorType === 'sparse' && !sparse) {
    throw invalid(`${field}.sparseValues is required: index ${index.name} is sparse`);
  }
  if (index.vectorType === 'dense' && !values) {
    throw invalid(`${field}.values is required: index ${index.name} is dense with dimension ${index.dimension}`);
  }
  if (values) record.values = values;
  if (sparse) record.sparse = sparse;
  const metadata = metadataOf(obj.metadata, `${field}.metadata`);
  if (metadata) record.metadata = metadata;
  return record;
}

/**
 * The whole upsert body, checked against the index. Hand-written, with no schema pass
 * before it: this pass is needed anyway (it converts to float32 and applies the index's
 * rules, with the messages clients see), so a schema would only add to the hot path —
 * about 0.9 ms per 1000×384 body beside ~20 ms of checks and ~145 ms of JSON.parse
 * (bench/validate-upsert.ts). The route documents the body with upsertBody
 * (schemas/vector-schemas.ts); test/data/upsert-schema-agreement.test.ts checks they agree.
 */
export function upsertInput(body: unknown, index: IndexRow): { namespace: string; records: StoredRecord[] } {
  const obj = requireObject(body, 'request body');
  const namespace = namespaceOf(obj.namespace);
  const vectors = obj.vectors;
  if (!Array.isArray(vectors)) throw invalid(`vectors must be an array of vectors, got ${typeName(vectors)}`);
  if (vectors.length < 1 || vectors.length > UPSERT_MAX_VECTORS) {
    throw invalid(`vectors must hold 1-${UPSERT_MAX_VECTORS} vectors per request, got ${vectors.length}`);
  }
  return { namespace, records: vectors.map((v, i) => upsertVector(v, `vectors[${i}]`, index)) };
}
