// Hybrid search (dense + sparse, score = dense dot + sparse dot) on a namespace with a
// graph: candidates from both sides, then a threshold step when it is affordable.
// 1. Candidates: the graph's best n = HYBRID_CANDIDATE_MULTIPLE × topK by dense score, as
//    many of the records not yet in the graph (the tail), and up to n from the postings by
//    partial sparse score over the highest-bound lists (HYBRID_POSTINGS_COVERAGE). The
//    postings' candidates are scored in two stages: the best HYBRID_POSTINGS_FIRST × topK
//    first, and the rest only when one of those (a record the dense side did not find)
//    entered the top k, a sign that the sparse part decides this query. All scored
//    exactly on both parts; θ0 is the k-th best.
// 2. Every record outside the dense candidates scores at most `dMax` on the dense part
//    (the lowest dense score they were cut at). To beat θ0 it needs a sparse score of at
//    least τ = θ0 − dMax; the postings give every record reaching τ (SparseIndex
//    reaching()), scored exactly too. The answer is then exact up to the graph's own
//    recall. This step is skipped when it would read more than
//    HYBRID_THRESHOLD_MAX_POSTINGS entries or score more than
//    HYBRID_THRESHOLD_MAX_RECORDS (τ low against the sparse scores), or when τ ≤ 0; the
//    answer is then step 1's, whose recall is measured (README "Search engine").
import { TopK } from '../vectors/top-k.js';
import { grown } from '../typed-arrays.js';
import type { Scorer, ScoredHit } from '../vectors/exact-scan.js';

/**
 * Candidates from each side as a multiple of topK. Measured on the bench's data with
 * bench/sparse-engine.ts (README "Search engine"): recall@10 0.978 at 5, 0.9985 at 10;
 * the graph's walk costs about the same at both (its ef, 100 by default, is the larger
 * of ef and the count asked for).
 */
export const HYBRID_CANDIDATE_MULTIPLE = 10;

/**
 * The postings' candidates scored before the rest, as a multiple of topK (hybridSearch()
 * scores the rest only when these reach the top k). Measured on the bench's data at 100k
 * records with each query meeting cold caches (bench/sparse-engine.ts, README "Search
 * engine"): a hybrid query took 2.19× a dense one's time in two stages against 2.59× with
 * every candidate scored at once, for recall@10 0.9970 against 0.9985. Where the sparse
 * part dominates (its weights ×20), 3 × topK alone gave recall 0.37 against 0.71 (a /tmp
 * script); the second stage, which runs on every such query, restores 0.71.
 */
export const HYBRID_POSTINGS_FIRST = 3;

/**
 * The share of the query's total sparse bound the postings' candidates read (SparseIndex
 * candidates()): the highest-bound lists are short (rare dimensions, large weights), the
 * rest long and light. On the bench's data recall@10 was the same from 0.3 to exact
 * top-n postings, at about 1/100 of the exact side's cost.
 */
export const HYBRID_POSTINGS_COVERAGE = 0.5;

/**
 * The threshold step runs when it reads at most this many postings entries in all (the
 * lists it must read whole and those it reads to narrow the survivors) and at most
 * HYBRID_THRESHOLD_MAX_RECORDS records survive its bounds. Measured at 100k records on
 * the bench's data (README "Search engine"): at 10 × topK the candidates alone give
 * recall@10 0.9985, as much as with the step allowed 200k entries (it then ran on 27 of
 * 200 queries, p50 4.5× a dense query's against 2.8× at 25k); where the sparse part dominates (query weights ×20) it is what would restore
 * recall (0.71 without it), but there it reads over 100k entries — allowed 200k it ran on
 * 30 of 200 queries for 0.74 at 4.9× a dense query. So the budget keeps the step to the
 * queries where it is cheap.
 */
export const HYBRID_THRESHOLD_MAX_POSTINGS = 25_000;
export const HYBRID_THRESHOLD_MAX_RECORDS = 200;

export interface HybridSources {
  /** The graph's best `n` labels by dense score (fewer only when it cannot find n). */
  graph(n: number): readonly number[];
  /** Live records not yet in the graph. */
  tail: ArrayLike<number> & Iterable<number>;
  /** The tail's best `n` labels by dense score, best first (an exact scan of the tail). */
  tailBest(n: number): readonly number[];
  /** Exact dense parts of labels[0..count) into out, unrounded (Scorer.denseScores). */
  dense(labels: Uint32Array, count: number, out: Float64Array): void;
  /** Exact sparse parts of labels[0..count) into out; NaN where a label shares no dimension with the query. */
  sparse(labels: Uint32Array, count: number, out: Float64Array): void;
  /** The postings' best n labels by partial sparse score (approximate), best first. */
  sparseCandidates(n: number): readonly number[];
  /** Every label whose sparse score reaches tau > 0 (and none clearly below it); undefined when too costly. */
  sparseReaching(tau: number): readonly number[] | undefined;
  /** Exact hybrid scoring (dense + sparse): rankWith(label, dense, sparse) is the rank. */
  scorer: Scorer;
  idOf(label: number): string;
}

/**
 * Labels to score, each once, with their exact dense and sparse parts: one batch per
 * step, scored by two calls (native when the addon is loaded) rather than label by label.
 */
class Batch {
  labels = new Uint32Array(256);
  dense = new Float64Array(256);
  sparse = new Float64Array(256);
  count = 0;
  private readonly seen = new Set<number>();

  /** Adds the label unless an earlier step or this batch has it. */
  add(label: number): void {
    if (this.seen.has(label)) return;
    this.seen.add(label);
    if (this.count === this.labels.length) {
      this.labels = grown(this.labels, this.count * 2);
      this.dense = new Float64Array(this.labels.length);
      this.sparse = new Float64Array(this.labels.length);
    }
    this.labels[this.count++] = label;
  }

  score(s: HybridSources): void {
    s.dense(this.labels, this.count, this.dense);
    s.sparse(this.labels, this.count, this.sparse);
  }

  /** Offers every label of the batch to `top` by its exact hybrid rank, then empties the batch (seen labels stay seen). */
  offerAll(s: HybridSources, top: TopK): void {
    for (let i = 0; i < this.count; i++) {
      const label = this.labels[i];
      const rank = s.scorer.rankWith(label, this.dense[i], this.sparse[i]);
      if (rank !== rank) continue;
      if (top.admits(rank)) top.offer(label, s.idOf(label), rank);
    }
    this.count = 0;
  }
}

/**
 * Top `topK` by exact hybrid score, whether the threshold step ran (`bounded`: exact up to
 * the graph's recall) and whether the postings' second stage did (`allPostings`);
 * undefined when the graph gave fewer than asked (scan exactly). `postingsFirst`: the
 * postings' first stage as a multiple of topK (bench measurement).
 */
export function hybridSearch(
  topK: number,
  multiple: number = HYBRID_CANDIDATE_MULTIPLE,
  s: HybridSources,
  postingsFirst: number = HYBRID_POSTINGS_FIRST,
): { hits: ScoredHit[]; bounded: boolean; allPostings: boolean } | undefined {
  const n = Math.max(topK, Math.ceil(topK * multiple));
  const fromGraph = s.graph(n);
  // Fewer than asked: the walk did not reach n records, so nothing bounds the others.
  if (fromGraph.length < n) return undefined;
  let fromTail: ArrayLike<number> & Iterable<number> = s.tail;
  const tailCut = fromTail.length > n;
  if (tailCut) fromTail = s.tailBest(n);

  // Step 1: the graph's, the tail's and the postings' first candidates, scored in one
  // batch. The graph's come first, so batch.dense[0..graphCount) are their dense parts.
  const batch = new Batch();
  for (const label of fromGraph) batch.add(label);
  const graphCount = batch.count;
  for (const label of fromTail) batch.add(label);
  const denseSide = batch.count;
  const fromPostings = s.sparseCandidates(n);
  const first = Math.min(fromPostings.length, Math.max(topK, Math.ceil(topK * postingsFirst)));
  for (let i = 0; i < first; i++) batch.add(fromPostings[i]);
  const postingsOnly = new Set(batch.labels.subarray(denseSide, batch.count));
  batch.score(s);
  // dMax: every record outside the dense candidates (a graph record past the graph's best
  // n, or a tail record past the tail's best n) scores at most this on the dense part.
  let dMax = Infinity;
  for (let i = 0; i < graphCount; i++) dMax = Math.min(dMax, batch.dense[i]);
  if (tailCut) {
    const at = batch.labels.subarray(0, batch.count).indexOf(fromTail[fromTail.length - 1]);
    dMax = Math.max(dMax, batch.dense[at]);
  }
  const top = new TopK(topK);
  batch.offerAll(s, top);
  // The postings' other candidates, when the sparse part put one of the first in the top k.
  const allPostings = first < fromPostings.length && top.sorted().some((r) => postingsOnly.has(r.slot));
  if (allPostings) {
    for (let i = first; i < fromPostings.length; i++) batch.add(fromPostings[i]);
    batch.score(s);
    batch.offerAll(s, top);
  }

  // Step 2: every record whose sparse part could lift it past θ0.
  const theta = top.threshold;
  let bounded = false;
  if (theta !== undefined) {
    // A float32 ulp of margin on each side: ranks are rounded, dMax is not.
    const tau = theta - dMax - 2.5e-7 * (Math.abs(theta) + Math.abs(dMax));
    const reaching = tau > 0 ? s.sparseReaching(tau) : undefined;
    if (reaching) {
      for (const label of reaching) batch.add(label);
      batch.score(s);
      batch.offerAll(s, top);
      bounded = true;
    }
  }
  const hits = top.sorted().map((r) => ({ label: r.slot, id: r.id, score: s.scorer.score(r.rank) }));
  return { hits, bounded, allPostings };
}
