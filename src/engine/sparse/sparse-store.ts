// The sparse values of one namespace, stored once and compactly: every record's
// (index, value) pairs live in two shared pools (Uint32Array indices, Float32Array
// values), addressed per label by an offset and a length. No per-record objects.
//
// Invariants
// - A label's pairs are sorted by index ascending, unique (the caller sorts; the data
//   plane rejects duplicates). Sorted order is what makes dot() sum its products in the
//   same order as every other scoring path, so all paths print identical float32 scores.
// - Replacing or clearing a label leaves its old pairs in the pools as garbage; the pools
//   are rewritten without garbage (compact()) when growing them would otherwise be needed
//   and garbage is at least half of what is used, so the cost is amortised O(1) per pair.
import type { SparseValues } from '../model.js';
import type { SparseLayout } from './postings.js';
import { grown } from '../typed-arrays.js';

// The sizes of the first allocations. Nothing is allocated before the first sparse
// values arrive: every namespace has a store, and most hold dense vectors only (8.5 KB of
// empty pools each made 10,000 one-record namespaces take ~110 MB more).
const INITIAL_POOL = 1024;
const INITIAL_LABELS = 64;

/** The empty arrays a store starts with, shared (never written: they hold nothing). */
const NO_U32 = new Uint32Array(0);
const NO_F32 = new Float32Array(0);

export class SparseStore {
  private indices = NO_U32;
  private values = NO_F32;
  /** Pool entries in use, garbage included. */
  private used = 0;
  private garbage = 0;
  private start = NO_U32;
  /** 0 = the label has no sparse values. */
  private len = NO_U32;

  /** Pairs held for live records. */
  get pairs(): number {
    return this.used - this.garbage;
  }

  /** Bytes of typed arrays allocated (pools and per-label tables). */
  get bytes(): number {
    return this.indices.byteLength + this.values.byteLength + this.start.byteLength + this.len.byteLength;
  }

  /** The pools and per-label tables, for native/sparse-search.cc (read during one call only). */
  arrays(): [indices: Uint32Array, values: Float32Array, start: Uint32Array, len: Uint32Array] {
    return [this.indices, this.values, this.start, this.len];
  }

  length(label: number): number {
    return label < this.len.length ? this.len[label] : 0;
  }

  /** A copy of the label's values, or undefined. */
  get(label: number): SparseValues | undefined {
    const n = this.length(label);
    if (n === 0) return undefined;
    const s = this.start[label];
    return { indices: this.indices.slice(s, s + n), values: this.values.slice(s, s + n) };
  }

  /** Whether the label holds exactly these (sorted) values. */
  equals(label: number, v: SparseValues): boolean {
    const n = this.length(label);
    if (n !== v.indices.length) return false;
    const s = this.start[label];
    for (let i = 0; i < n; i++) {
      if (this.indices[s + i] !== v.indices[i] || !Object.is(this.values[s + i], v.values[i])) return false;
    }
    return true;
  }

  /** The pools and per-label tables as they are (read-only; valid until the next write). */
  layout(): SparseLayout {
    return { indices: this.indices, weights: this.values, start: this.start, len: this.len, extent: this.len.length };
  }

  /** Calls each(index, value) for the label's pairs in index order. */
  forEach(label: number, each: (index: number, value: number) => void): void {
    const n = this.length(label);
    const s = this.start[label];
    for (let i = 0; i < n; i++) each(this.indices[s + i], this.values[s + i]);
  }

  /** Makes room for `pairs` more pairs at once (a load that knows its count: no growth while it fills). */
  reserve(pairs: number): void {
    if (pairs > 0) this.ensurePool(pairs, true);
  }

  /** Stores sorted values under `label`, replacing what it held. */
  set(label: number, v: SparseValues): void {
    this.clear(label);
    const n = v.indices.length;
    if (n === 0) return;
    this.ensureLabels(label + 1);
    this.ensurePool(n);
    this.indices.set(v.indices, this.used);
    this.values.set(v.values, this.used);
    this.start[label] = this.used;
    this.len[label] = n;
    this.used += n;
  }

  clear(label: number): void {
    const n = this.length(label);
    if (n === 0) return;
    this.garbage += n;
    this.len[label] = 0;
  }

  /**
   * Σ w·v over the indices the label shares with the query (dims sorted ascending,
   * unique), summed in index order; NaN when they share none.
   */
  dot(label: number, dims: Uint32Array, weights: Float32Array): number {
    const n = this.length(label);
    if (n === 0) return NaN;
    const idx = this.indices;
    const val = this.values;
    let i = this.start[label];
    const end = i + n;
    let j = 0;
    let score = 0;
    let overlap = false;
    while (i < end && j < dims.length) {
      const a = idx[i];
      const b = dims[j];
      if (a < b) i++;
      else if (a > b) j++;
      else {
        score += weights[j] * val[i];
        overlap = true;
        i++;
        j++;
      }
    }
    return overlap ? score : NaN;
  }

  private ensureLabels(n: number): void {
    if (n <= this.len.length) return;
    let cap = Math.max(this.len.length, INITIAL_LABELS);
    while (cap < n) cap *= 2;
    this.start = grown(this.start, cap);
    this.len = grown(this.len, cap);
  }

  /** `exact`: grow to exactly what is needed (a reservation), not to the next doubling. */
  private ensurePool(extra: number, exact = false): void {
    if (this.used + extra <= this.indices.length) return;
    if (this.garbage * 2 >= this.used) this.compact();
    if (this.used + extra <= this.indices.length) return;
    let cap = Math.max(this.indices.length, INITIAL_POOL);
    if (exact) cap = this.used + extra;
    while (cap < this.used + extra) cap *= 2;
    const indices = new Uint32Array(cap);
    indices.set(this.indices.subarray(0, this.used));
    const values = new Float32Array(cap);
    values.set(this.values.subarray(0, this.used));
    this.indices = indices;
    this.values = values;
  }

  /** Rewrites the pools in label order without garbage (in place: labels only move down). */
  private compact(): void {
    // Moving in pool order keeps every copy's target below its source.
    const labels: number[] = [];
    for (let l = 0; l < this.len.length; l++) if (this.len[l] > 0) labels.push(l);
    labels.sort((a, b) => this.start[a] - this.start[b]);
    let at = 0;
    for (const l of labels) {
      const s = this.start[l];
      const n = this.len[l];
      if (s !== at) {
        this.indices.copyWithin(at, s, s + n);
        this.values.copyWithin(at, s, s + n);
        this.start[l] = at;
      }
      at += n;
    }
    this.used = at;
    this.garbage = 0;
  }
}
