// The labels holding each value of one metadata field (a dense field's index by value,
// metadata/dense-field.ts), so `$eq`, `$in` and the number ranges cost the matching records
// rather than a pass over the whole column.
// Thread rule: owned by the engine worker with the columns.
import type { Bitmap } from './bitmap.js';
import { grown } from '../typed-arrays.js';

/** Labels holding one value, in the order they were given it (stale entries included: see ValuePostings). */
class Postings {
  labels = new Uint32Array(4);
  length = 0;
  stale = 0;

  push(label: number): void {
    if (this.length === this.labels.length) this.labels = grown(this.labels, this.labels.length * 2);
    this.labels[this.length++] = label;
  }
}

/**
 * Most distinct values a field's scalar ValuePostings keeps, per kind (strings, numbers).
 * Each costs a map entry and a posting list (~200 bytes); a field with more (an id, a
 * timestamp, a price) stops being indexed by value for good, and its filters scan the
 * column as before, so memory stays bounded by the data rather than by its spread.
 */
export const MAX_INDEXED_VALUES = 4096;

/**
 * The labels holding each value of one kind in one field: a list element's code, a
 * scalar string's code, or a number (Map keys compare as SameValueZero, so 0 and -0 are
 * one key, as `===` makes them one value). Appended on set. A label whose value changes
 * or is cleared leaves a stale entry: `stale()` counts it, readers retest every entry
 * with `holds` while a list has any, and a list is rewritten without them once they
 * outnumber the live ones — so a clear never scans a long posting list. A label cleared
 * and given the same value again is listed twice until then, which a bitmap union absorbs.
 */
export class ValuePostings {
  private readonly lists = new Map<number, Postings>();
  /** The keys in ascending order (numbers' ranges), rebuilt when a key comes or goes. */
  private sorted: Float64Array | undefined;

  /** `holds(label, key)`: whether the label has the key now (the column's own answer). */
  constructor(
    private readonly holds: (label: number, key: number) => boolean,
    private readonly limit = Infinity,
  ) {}

  /** False (and nothing added) when `key` would be a value past the limit: the caller drops this index. */
  add(key: number, label: number): boolean {
    let p = this.lists.get(key);
    if (!p) {
      if (this.lists.size >= this.limit) return false;
      p = new Postings();
      this.lists.set(key, p);
      this.sorted = undefined;
    }
    p.push(label);
    return true;
  }

  /** One entry of `key` went stale (its label no longer holds it). */
  stale(key: number): void {
    const p = this.lists.get(key);
    if (!p || ++p.stale * 2 <= p.length) return;
    const keep = new Set<number>();
    for (let i = 0; i < p.length; i++) if (this.holds(p.labels[i], key)) keep.add(p.labels[i]);
    if (keep.size === 0) {
      this.lists.delete(key);
      this.sorted = undefined;
      return;
    }
    p.labels = Uint32Array.from(keep);
    p.length = p.labels.length;
    p.stale = 0;
  }

  /** Adds to `out` the labels holding `key`. */
  addTo(key: number, out: Bitmap): void {
    const p = this.lists.get(key);
    if (!p) return;
    const labels = p.labels;
    if (p.stale === 0) {
      // No clear since the list was built or compacted: every entry is live, so skip the
      // retest (for lists a read at a random place in the pool: the slow part).
      for (let i = 0; i < p.length; i++) out.add(labels[i]);
      return;
    }
    for (let i = 0; i < p.length; i++) if (this.holds(labels[i], key)) out.add(labels[i]);
  }

  /** The keys within [from, to] (inclusive bounds unless open), ascending. */
  keysBetween(from: number, fromOpen: boolean, to: number, toOpen: boolean): number[] {
    if (!this.sorted) this.sorted = Float64Array.from(this.lists.keys()).sort();
    const keys = this.sorted;
    // First key not below the lower bound, by binary search; then walk up to the upper.
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < from || (fromOpen && keys[mid] === from)) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    for (let i = lo; i < keys.length && (keys[i] < to || (!toOpen && keys[i] === to)); i++) out.push(keys[i]);
    return out;
  }
}
