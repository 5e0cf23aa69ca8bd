// Head columns: the frequent dimensions of one namespace's sparse values, also kept as
// one byte per label, so the native search adds them for every label at once with SIMD
// instead of walking their long postings lists at random (native/sparse-search.cc
// HeadSearch, which has the measurements). A column belongs to its dimension's
// PostingList (`head`) and goes with it.
//
// A dimension gets a column (lazily, when a query asks for it: headColumn()) once its list
// holds live entries for at least COLUMN_MIN_SHARE of the records, the namespace holds at
// least `minRecords`, and none of its weights is negative. It keeps the column from then
// on, whatever the share later (correctness never depends on it).
//
// Format of a column: codes[label] is 0 when the label has no value in the dimension,
// else its weight w quantised to 1-255: min(255, max(1, round(w / step))), step =
// max / 255, where `max` is at least every weight the column has held. So a code
// never misses a present value, and |w − code·step| ≤ step for every present label.
//
// Invariant: every column holds the current value of every label (SparseIndex calls
// setCode() and clearCode() on each change, under the engine's ordered change stream). A
// weight the column cannot hold (negative, or above its max) drops the column instead; a
// later query builds it again from the list, with the new max.
//
// Memory: a column is one byte per label, only for dimensions held by ≥ 1/8 of the
// records, whose postings take 12 bytes per entry: at most 2/3 of their postings' size.
import type { PostingList } from './postings.js';
import { grown } from '../typed-arrays.js';

/** A dimension gets a column once its live entries reach this share of the records. */
export const COLUMN_MIN_SHARE = 1 / 8;
/** ...and the namespace holds at least this many records (below, MaxScore is as fast). */
export const COLUMN_MIN_RECORDS = 4096;
/** The native search reads a column 32 labels at a time: lengths are padded to this. */
const PAD = 32;

export interface HeadColumn {
  codes: Uint8Array;
  /** At least every weight the column holds. */
  max: number;
  /** Weight per code unit (max / 255). */
  step: number;
}

/**
 * The list's column for a search over labels [0, extent), built from the list when the
 * dimension qualifies (see the header); undefined when it does not. The codes returned
 * cover at least the extent rounded up to PAD.
 */
export function headColumn(list: PostingList, records: number, minRecords: number, extent: number, gen: Uint32Array): HeadColumn | undefined {
  let column = list.head;
  if (!column) {
    if (records < minRecords || list.min < 0 || list.max <= 0) return undefined;
    if (list.length - list.stale < records * COLUMN_MIN_SHARE) return undefined;
    column = build(list, extent, gen);
    list.head = column;
  }
  const need = padded(extent);
  if (column.codes.length < need) column.codes = grown(column.codes, Math.max(need, column.codes.length * 2));
  return column;
}

/** Records the label's new weight in the list's column, if it has one. */
export function setCode(list: PostingList, label: number, weight: number): void {
  const column = list.head;
  if (!column) return;
  if (!(weight >= 0) || weight > column.max) {
    list.head = undefined;
    return;
  }
  if (label >= column.codes.length) column.codes = grown(column.codes, Math.max(padded(label + 1), column.codes.length * 2));
  column.codes[label] = codeOf(weight, column.step);
}

/** Records that the label no longer has a value in the list's dimension. */
export function clearCode(list: PostingList, label: number): void {
  const column = list.head;
  if (column && label < column.codes.length) column.codes[label] = 0;
}

const padded = (n: number): number => Math.ceil(n / PAD) * PAD;

const codeOf = (weight: number, step: number): number => Math.min(255, Math.max(1, Math.round(weight / step)));

/** A column from the list's live entries (those whose generation is the label's current one). */
function build(list: PostingList, extent: number, gen: Uint32Array): HeadColumn {
  const max = list.max;
  const step = max / 255;
  const codes = new Uint8Array(padded(extent));
  const e = list.entries;
  const w = list.weights;
  for (let i = 0; i < list.length * 3; i += 3) {
    const label = e[i];
    if (gen[label] === e[i + 1]) codes[label] = codeOf(w[i + 2], step);
  }
  return { codes, max, step };
}
