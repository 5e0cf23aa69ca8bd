// Each label's list of value codes for one list-of-strings metadata field, in one pool,
// in the record's order with any repeats kept: the list is read back as it was written
// (a query's includeMetadata is answered from the columns).
//
// Why not a small typed array per label (what this replaced): every Uint32Array is a
// V8 object pair plus a backing store, ~200 B for a list of two codes, and at 100k
// records with one list field that was most of the engine's metadata memory (244 B
// per record in `node --expose-gc dist/bench/engine-memory.js`).
//
// Layout: `pool` holds lists back to back; label L's list is pool[start[L], start[L] +
// len[L]). A set appends at the end of the pool; a clear only sets len to 0, leaving
// its codes as garbage. Invariant: garbage counts exactly the pool entries below `used`
// that no label's list covers. Once it is more than half of `used` and at least an
// eighth of the labels, the pool is rewritten without it (a pass over every label): the
// garbage stays below max(live codes, capacity / 8) and that pass is paid for by the
// clears that made the garbage, so a set or clear is O(its codes) amortised even when
// one record of a large namespace is rewritten over and over.
// Thread rule: owned by the engine worker, as every metadata column.
import { grown } from '../typed-arrays.js';

export class ListCodes {
  private start: Uint32Array;
  private len: Uint32Array;
  private pool = new Uint32Array(64);
  private used = 0;
  private garbage = 0;

  constructor(capacity: number) {
    this.start = new Uint32Array(capacity);
    this.len = new Uint32Array(capacity);
  }

  /** Gives `label` these codes (in order, repeats kept), replacing any it had. */
  set(label: number, codes: readonly number[]): void {
    this.clear(label);
    if (codes.length === 0) return;
    this.reserve(codes.length);
    this.start[label] = this.used;
    this.len[label] = codes.length;
    for (const c of codes) this.pool[this.used++] = c;
  }

  /** Forgets `label`'s list; returns its codes (empty when it had none). */
  clear(label: number): Uint32Array {
    const n = label < this.len.length ? this.len[label] : 0;
    if (n === 0) return EMPTY;
    const at = this.start[label];
    const codes = this.pool.slice(at, at + n);
    this.len[label] = 0;
    this.garbage += n;
    return codes;
  }

  /** `label`'s codes in order: a view into the pool, valid until the next set. */
  codes(label: number): Uint32Array {
    if (label >= this.len.length) return EMPTY;
    const at = this.start[label];
    return this.pool.subarray(at, at + this.len[label]);
  }

  /** Whether `label`'s list holds `code`. */
  has(label: number, code: number): boolean {
    if (label >= this.len.length) return false;
    const at = this.start[label];
    const end = at + this.len[label];
    for (let i = at; i < end; i++) if (this.pool[i] === code) return true;
    return false;
  }

  /** Room for labels below `capacity`. */
  grow(capacity: number): void {
    if (capacity <= this.start.length) return;
    this.start = grown(this.start, capacity);
    this.len = grown(this.len, capacity);
  }

  /** Bytes held (tests: the pool stays bounded under churn). */
  get bytes(): number {
    return this.start.byteLength + this.len.byteLength + this.pool.byteLength;
  }

  /** Makes room for `n` more codes at the end, first dropping the garbage when it is due (see the invariant). */
  private reserve(n: number): void {
    if (this.garbage * 2 > this.used && this.garbage * 8 >= this.len.length) this.compact();
    const needed = this.used + n;
    if (needed <= this.pool.length) return;
    let size = this.pool.length;
    while (size < needed) size *= 2;
    const grown = new Uint32Array(size);
    grown.set(this.pool.subarray(0, this.used));
    this.pool = grown;
  }

  /** Rewrites the pool with only the lists labels hold, in label order. */
  private compact(): void {
    const live = this.used - this.garbage;
    const pool = new Uint32Array(Math.max(64, live * 2));
    let at = 0;
    for (let label = 0; label < this.len.length; label++) {
      const n = this.len[label];
      if (n === 0) continue;
      pool.set(this.pool.subarray(this.start[label], this.start[label] + n), at);
      this.start[label] = at;
      at += n;
    }
    this.pool = pool;
    this.used = at;
    this.garbage = 0;
  }
}

const EMPTY = new Uint32Array(0);
