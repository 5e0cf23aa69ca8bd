// A fixed-size set of labels (small non-negative integers) as 32-bit words: what every
// filter operator evaluates to, so `$and`/`$or`/negation are word-wide loops and the
// planner can count matches exactly before it chooses how to search.
// Invariant: bits at positions >= `size` are always zero (so counts and negations stay
// exact without masking on every read).

export class Bitmap {
  readonly words: Uint32Array;

  constructor(readonly size: number) {
    this.words = new Uint32Array((size + 31) >>> 5);
  }

  has(i: number): boolean {
    return i < this.size && (this.words[i >>> 5] & (1 << (i & 31))) !== 0;
  }

  add(i: number): void {
    this.words[i >>> 5] |= 1 << (i & 31);
  }

  delete(i: number): void {
    this.words[i >>> 5] &= ~(1 << (i & 31));
  }

  /** this ∩= other (other may be smaller: missing words are empty). */
  and(other: Bitmap): this {
    const w = this.words;
    const o = other.words;
    const n = Math.min(w.length, o.length);
    for (let i = 0; i < n; i++) w[i] &= o[i];
    w.fill(0, n);
    return this;
  }

  /** this ∪= other (bits of other past this.size are ignored). */
  or(other: Bitmap): this {
    const w = this.words;
    const o = other.words;
    const n = Math.min(w.length, o.length);
    for (let i = 0; i < n; i++) w[i] |= o[i];
    this.clearTail();
    return this;
  }

  /** this \= other. */
  andNot(other: Bitmap): this {
    const w = this.words;
    const o = other.words;
    const n = Math.min(w.length, o.length);
    for (let i = 0; i < n; i++) w[i] &= ~o[i];
    return this;
  }

  count(): number {
    let c = 0;
    const w = this.words;
    for (let i = 0; i < w.length; i++) c += popcount(w[i]);
    return c;
  }

  /** Calls `fn` for each label in ascending order. */
  forEach(fn: (label: number) => void): void {
    const w = this.words;
    for (let i = 0; i < w.length; i++) {
      let word = w[i];
      while (word !== 0) {
        const low = word & -word;
        fn((i << 5) + 31 - Math.clz32(low));
        word ^= low;
      }
    }
  }

  copy(): Bitmap {
    const b = new Bitmap(this.size);
    b.words.set(this.words);
    return b;
  }

  /** A copy of at least `size` bits (a grown column keeps its set bits). */
  resized(size: number): Bitmap {
    const b = new Bitmap(size);
    b.words.set(this.words.subarray(0, Math.min(this.words.length, b.words.length)));
    b.clearTail();
    return b;
  }

  private clearTail(): void {
    const extra = this.words.length * 32 - this.size;
    if (extra > 0) this.words[this.words.length - 1] &= 0xffffffff >>> extra;
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
