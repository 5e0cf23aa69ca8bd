// Sparse search structures of one namespace: the compact per-label values
// (sparse-store.ts) and the inverted index over them (postings.ts), kept in step by
// set()/remove(), which VectorSet calls under the engine's ordered change stream.
//
// Scoring rule (Pinecone's, and the exact scan's): a record's sparse score is
// Σ qᵢ·dᵢ over the dimensions it shares with the query; a sparse-only query returns only
// records sharing at least one. Every score here is summed in ascending dimension order
// in float64, as SparseStore.dot() and the exact scan do, so results (float32 scores and
// their ties, broken by id) are identical to an exact scan's.
import type { SparseValues } from '../model.js';
import { TopK } from '../vectors/top-k.js';
import { Postings } from './postings.js';
import { SparseStore } from './sparse-store.js';

/** A query's sparse vector, sorted by dimension, one weight per dimension. */
export interface PreparedSparse {
  dims: Uint32Array;
  weights: Float32Array;
  /** Pruning bounds hold only when no weight is negative. */
  nonNegative: boolean;
}

export interface SparseHit {
  label: number;
  id: string;
  /** float32-rounded score. */
  rank: number;
}

/** Relative slack on float64 bounds: sums in another order may differ in the last bits. */
const BOUND_SLACK = 1e-6;

export class SparseIndex {
  private readonly store = new SparseStore();
  private readonly postings = new Postings();
  /** Current generation per label; postings entries with another one are stale. */
  private gen = new Uint32Array(64);
  /** Labels holding sparse values. */
  private records = 0;
  // Per-query scratch, reused (the engine thread runs one query at a time).
  private acc = new Float64Array(64);
  private touchedAt = new Uint32Array(64);
  private offeredAt = new Uint32Array(64);
  private epoch = 0;

  /** Replaces the label's sparse values (undefined clears them). `v` must be sorted by index. */
  set(label: number, v: SparseValues | undefined): void {
    if (v && v.indices.length > 0 && this.store.equals(label, v)) return; // unchanged: keep its entries
    this.remove(label);
    if (!v || v.indices.length === 0) return;
    this.ensureLabels(label + 1);
    const gen = this.gen[label];
    for (let i = 0; i < v.indices.length; i++) this.postings.add(v.indices[i], label, gen, v.values[i]);
    this.store.set(label, v);
    this.records++;
  }

  remove(label: number): void {
    if (this.store.length(label) === 0) return;
    this.store.forEach(label, (dim) => this.postings.markStale(dim));
    this.store.clear(label);
    this.records--;
    this.gen[label]++;
  }

  get(label: number): SparseValues | undefined {
    return this.store.get(label);
  }

  /** The label's sparse score for a prepared query; NaN when they share no dimension. */
  dot(label: number, q: PreparedSparse): number {
    return this.store.dot(label, q.dims, q.weights);
  }

  get hasWork(): boolean {
    return this.postings.hasWork;
  }

  /** Background compaction of postings until `deadline` (performance.now() ms). */
  work(deadline: number): void {
    this.postings.work(deadline, this.gen);
  }

  /** Bytes held: values, postings and per-label tables. */
  get bytes(): number {
    return this.store.bytes + this.postings.bytes() + this.gen.byteLength;
  }

  /** Live postings as dimension → [label, weight] pairs sorted by label (tests compare indexes with it). */
  livePostings(): Map<number, [number, number][]> {
    const out = new Map<number, [number, number][]>();
    for (const [dim, list] of this.postings.entries()) {
      const live: [number, number][] = [];
      for (let i = 0; i < list.length; i++) {
        if (this.gen[list.label(i)] === list.gen(i)) live.push([list.label(i), list.weight(i)]);
      }
      if (live.length > 0) out.set(dim, live.sort((a, b) => a[0] - b[0]));
    }
    return out;
  }

  /**
   * Exact top-k by sparse score over the labels `allow` accepts (all when absent) that
   * share a dimension with the query. With no negative query weight, MaxScore-style
   * pruning skips postings and candidates that cannot reach the k-th score.
   */
  search(q: PreparedSparse, topK: number, idOf: (label: number) => string, allow?: (label: number) => boolean): SparseHit[] {
    const top = new TopK(topK);
    if (topK <= 0 || q.dims.length === 0) return [];
    const epoch = this.nextEpoch();
    if (q.nonNegative) this.pruned(q, top, epoch, idOf, allow);
    else this.plain(q, top, epoch, idOf, allow);
    return top.sorted().map((r) => ({ label: r.slot, id: r.id, rank: r.rank }));
  }

  /** Term-at-a-time over every query dimension in ascending order: the float64 sums equal dot()'s. */
  private plain(q: PreparedSparse, top: TopK, epoch: number, idOf: (label: number) => string, allow?: (label: number) => boolean): void {
    const touched: number[] = [];
    for (let t = 0; t < q.dims.length; t++) this.accumulate(q.dims[t], q.weights[t], epoch, touched);
    const acc = this.acc;
    for (const label of touched) {
      if (allow && !allow(label)) continue;
      const rank = Math.fround(acc[label]);
      if (top.admits(rank)) top.offer(label, idOf(label), rank);
    }
  }

  /**
   * MaxScore, term-at-a-time. Terms go by upper bound (weight × list max) descending, and
   * θ (the k-th best exact score so far) is refreshed as records are touched. Once the
   * bound of the terms left is below θ, a record none of the processed terms holds cannot
   * enter, so only the touched records whose partial score plus that bound can reach θ
   * remain. Those are then finished the cheaper way: scored exactly from their stored
   * values one by one, or (many of them) by scanning the remaining lists and rescoring the
   * best accumulated sums exactly. Either way every offered rank comes from dot().
   */
  private pruned(q: PreparedSparse, top: TopK, epoch: number, idOf: (label: number) => string, allow?: (label: number) => boolean): void {
    const n = q.dims.length;
    const ub = new Float64Array(n);
    const order: number[] = [];
    for (let t = 0; t < n; t++) {
      const list = this.postings.get(q.dims[t]);
      if (!list) continue;
      ub[t] = q.weights[t] * Math.max(0, list.max);
      order.push(t);
    }
    order.sort((a, b) => ub[b] - ub[a]);
    // restFrom[i]: bound of terms order[i..]; scanFrom[i]: their list entries. Summed from
    // the end (not by subtraction), so no cancellation error.
    const restFrom = new Float64Array(order.length + 1);
    const scanFrom = new Float64Array(order.length + 1);
    for (let i = order.length - 1; i >= 0; i--) {
      restFrom[i] = restFrom[i + 1] + ub[order[i]];
      scanFrom[i] = scanFrom[i + 1] + (this.postings.get(q.dims[order[i]])?.length ?? 0);
    }
    const touched: number[] = [];
    let nextTheta = top.k; // refresh θ when this many records are touched
    let processed = 0;
    while (processed < order.length && !below(restFrom[processed], top)) {
      const t = order[processed++];
      this.accumulate(q.dims[t], q.weights[t], epoch, touched);
      if (touched.length >= nextTheta) {
        this.offerBest(touched, top, q, epoch, idOf, allow);
        nextTheta = touched.length * 2;
      }
    }
    this.offerBest(touched, top, q, epoch, idOf, allow);
    const acc = this.acc;
    const offered = this.offeredAt;
    const rest = restFrom[processed];
    const survivors: number[] = [];
    for (const label of touched) {
      if (offered[label] === epoch || below(acc[label] + rest, top)) continue;
      if (allow && !allow(label)) continue;
      survivors.push(label);
    }
    const dotCost = this.records > 0 ? this.store.pairs / this.records + n : n;
    if (processed < order.length && survivors.length * dotCost > scanFrom[processed]) {
      // Cheaper to finish the sums: scan what is left, then rescore the best exactly.
      for (let i = processed; i < order.length; i++) this.accumulate(q.dims[order[i]], q.weights[order[i]], epoch, touched);
      this.offerBest(touched, top, q, epoch, idOf, allow);
      survivors.length = 0;
      for (const label of touched) {
        if (offered[label] === epoch || below(acc[label], top)) continue;
        if (!allow || allow(label)) survivors.push(label);
      }
    }
    for (const label of survivors) {
      if (offered[label] === epoch || below(acc[label] + rest, top)) continue;
      offered[label] = epoch;
      const rank = Math.fround(this.store.dot(label, q.dims, q.weights));
      if (top.admits(rank)) top.offer(label, idOf(label), rank);
    }
  }

  /** Offers the k touched records with the best partial scores, scored exactly: this sets θ. */
  private offerBest(touched: number[], top: TopK, q: PreparedSparse, epoch: number, idOf: (label: number) => string, allow?: (label: number) => boolean): void {
    const acc = this.acc;
    const partial = new TopK(top.k);
    for (const label of touched) {
      if (this.offeredAt[label] === epoch || (allow && !allow(label))) continue;
      const rank = acc[label];
      if (partial.admits(rank)) partial.offer(label, '', rank);
    }
    for (const r of partial.sorted()) {
      this.offeredAt[r.slot] = epoch;
      const rank = Math.fround(this.store.dot(r.slot, q.dims, q.weights));
      if (top.admits(rank)) top.offer(r.slot, idOf(r.slot), rank);
    }
  }

  /** Adds weight × entry weight of dimension `dim`'s live entries into the accumulator. */
  private accumulate(dim: number, weight: number, epoch: number, touched: number[]): void {
    const list = this.postings.get(dim);
    if (!list) return;
    const { entries, weights } = list;
    const end = list.length * 3;
    const gen = this.gen;
    const acc = this.acc;
    const touchedAt = this.touchedAt;
    // A list without stale entries (the common case) needs no generation check.
    const checkGen = list.stale > 0;
    for (let i = 0; i < end; i += 3) {
      const label = entries[i];
      if (checkGen && gen[label] !== entries[i + 1]) continue;
      if (touchedAt[label] !== epoch) {
        touchedAt[label] = epoch;
        acc[label] = 0;
        touched.push(label);
      }
      acc[label] += weight * weights[i + 2];
    }
  }

  private nextEpoch(): number {
    const extent = this.gen.length;
    if (this.acc.length < extent) {
      this.acc = new Float64Array(extent);
      this.touchedAt = new Uint32Array(extent);
      this.offeredAt = new Uint32Array(extent);
      this.epoch = 0;
    }
    if (this.epoch === 0xffffffff) {
      this.touchedAt.fill(0);
      this.offeredAt.fill(0);
      this.epoch = 0;
    }
    return ++this.epoch;
  }

  private ensureLabels(n: number): void {
    if (n <= this.gen.length) return;
    let cap = this.gen.length;
    while (cap < n) cap *= 2;
    const gen = new Uint32Array(cap);
    gen.set(this.gen);
    this.gen = gen;
  }
}

/**
 * Whether no record whose score is at most `bound` can enter `top`: the top is full and
 * the float32 rounding of the bound (with slack for summation order) is below its worst.
 */
function below(bound: number, top: TopK): boolean {
  const theta = top.threshold;
  if (theta === undefined) return false;
  return Math.fround(bound + BOUND_SLACK * (Math.abs(bound) + 1e-30)) < theta;
}

/** Sorts a sparse vector by index and keeps the last weight of a repeated index. */
export function prepareSparse(s: SparseValues): PreparedSparse {
  const byDim = new Map<number, number>();
  for (let i = 0; i < s.indices.length; i++) byDim.set(s.indices[i], s.values[i]);
  const dims = Uint32Array.from(byDim.keys()).sort();
  const weights = Float32Array.from(dims, (d) => byDim.get(d) ?? 0);
  let nonNegative = true;
  for (let i = 0; i < weights.length; i++) if (weights[i] < 0) nonNegative = false;
  return { dims, weights, nonNegative };
}
