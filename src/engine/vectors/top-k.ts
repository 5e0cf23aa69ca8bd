// Bounded selection of the best k candidates. Ranking (DESIGN.md decision 7): a higher
// `rank` is better; equal ranks are ordered by id ascending. Callers pass rank = score
// for cosine and dot product, and rank = -distance for euclidean.
//
// A binary heap whose root is the WORST kept candidate: a new candidate replaces the
// root when it beats it, so a scan of n candidates costs O(n log k).

export interface Ranked {
  slot: number;
  id: string;
  rank: number;
}

/** True when a ranks strictly worse than b. */
const worse = (a: Ranked, b: Ranked): boolean => a.rank < b.rank || (a.rank === b.rank && a.id > b.id);

export class TopK {
  private readonly heap: Ranked[] = [];

  constructor(readonly k: number) {}

  /** The worst kept rank once k are kept (nothing worse can enter); undefined before. */
  get threshold(): number | undefined {
    return this.k > 0 && this.heap.length >= this.k ? this.heap[0].rank : undefined;
  }

  /** Whether a candidate of this rank could enter; lets a scan skip building it. */
  admits(rank: number): boolean {
    return this.heap.length < this.k || rank >= this.heap[0].rank;
  }

  offer(slot: number, id: string, rank: number): void {
    const c: Ranked = { slot, id, rank };
    const h = this.heap;
    if (h.length < this.k) {
      h.push(c);
      this.siftUp(h.length - 1);
    } else if (worse(h[0], c)) {
      h[0] = c;
      this.siftDown(0);
    }
  }

  /** The kept candidates, best first. */
  sorted(): Ranked[] {
    return [...this.heap].sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0));
  }

  private siftUp(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(h[i], h[parent])) break;
      [h[i], h[parent]] = [h[parent], h[i]];
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && worse(h[l], h[m])) m = l;
      if (r < h.length && worse(h[r], h[m])) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
}
