// One metadata field across a namespace's labels, in one of two forms, and the rule for
// which form a field takes.
//
// Why two: a DenseField (dense-field.ts) keeps arrays indexed by label, so its memory is
// proportional to the namespace, not to the labels holding the field. A namespace whose
// records carry their own field names (an id or a timestamp as a key) once made 2 columns
// of 8,000 labels' arrays each for 8,000 records, 800 MB, in quadratic time. A SparseField
// (sparse-field.ts) keeps only the labels holding it, and answers a filter by a pass over
// them. A field is sparse while few labels hold it and dense once many do: MetadataColumns
// converts it on a set (sparse → dense), and on a clear or when the namespace's capacity
// grows (dense → sparse). The gap between the two thresholds keeps a field from changing
// form on every write near one of them.
//
// Invariant: both forms answer every method the same for the same writes (the tests
// compare both with the reference evaluator, filter.ts's compileFilter).
// Thread rule: owned by the engine worker with the columns.
import type { FilterScalar, MetadataValue } from '../filter.js';
import type { Bitmap } from './bitmap.js';

export interface FieldColumn {
  /** Labels holding the field. */
  readonly size: number;
  /** The field's name as JSON text. */
  readonly keyJson: string;
  /** Gives `label` the value; `label` must not hold the field (MetadataColumns clears it first). */
  set(label: number, value: MetadataValue): void;
  /** `label` must hold the field. */
  clear(label: number): void;
  /** `label`'s value (it must hold the field) as the JSON text of exactly what was set. */
  valueJson(label: number): string;
  /** Calls `fn` for each label holding the field with its value as written. */
  forEach(fn: (label: number, value: MetadataValue) => void): void;
  /** `$eq`, `$in`, the ranges and `$exists: true`, as fresh bitmaps of `capacity` labels. */
  equal(value: FilterScalar): Bitmap;
  member(values: readonly (string | number)[]): Bitmap;
  range(op: 'gt' | 'gte' | 'lt' | 'lte', x: number): Bitmap;
  holders(): Bitmap;
  /** The namespace's labels now run below `capacity`. */
  grow(capacity: number): void;
}

// A field is dense while more than one label in DENSE_SHARE holds it (and more than
// ALWAYS_SPARSE labels), sparse once fewer than one in SPARSE_SHARE do. A dense field
// costs 4-9 bytes per label of the namespace, a sparse one ~60-80 per label holding it
// (a Map entry and the value), so at the switch a dense field takes 4-8 times a sparse
// one's memory, for filters that cost the matches rather than a pass over the holders.
const DENSE_SHARE = 64;
const SPARSE_SHARE = 256;
const ALWAYS_SPARSE = 32;

export function shouldBeDense(size: number, capacity: number): boolean {
  return size > ALWAYS_SPARSE && size * DENSE_SHARE > capacity;
}

export function shouldBeSparse(size: number, capacity: number): boolean {
  return size * SPARSE_SHARE < capacity;
}
