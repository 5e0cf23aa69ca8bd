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
//    HYBRID_THRESHOLD_MAX_RECORDS (τ low against the sparse scores), or when τ ≤ 0.
// 2b. When step 2 is over its budget on a query whose sparse part decides (a postings
//    candidate entered the top k in step 1), the postings give their exact top m by sparse
//    score (m = the dense candidates' count; SparseIndex search(), MaxScore), scored exactly
//    too. A record outside both candidate sets then scores at most dMax + its sparse
//    bound: the m-th best sparse score (0 when fewer than m records share a dimension:
//    the others score 0 on the sparse part). When θ reaches that, the answer is exact up
//    to the graph's recall; otherwise step 2 is tried again, its τ raised by the new θ.
//    Runs once a query.
// 3. Then the dense candidates grow (HYBRID_DENSE_GROWTH) while a walk for them stays
//    cheap (HYBRID_DENSE_BUDGET: low dimensions), lowering dMax, and step 2 is tried
//    again. If it never runs, the answer is the candidates', whose recall is measured
//    (README "Search engine"), or vector-set.ts scans exactly instead when that is cheap
//    (HYBRID_EXACT_FALLBACK_COST).
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
 * 200 queries, p50 4.5× a dense query's against 2.8× at 25k); where the sparse part dominates (query weights ×20) it would restore
 * recall (0.71 without it), but there it reads over 100k entries — allowed 200k it ran on
 * 30 of 200 queries for 0.74 at 4.9× a dense query. So the budget keeps the step to the
 * queries where it is cheap, and step 2b serves those others (recall 1.0, README "Search
 * engine").
 */
export const HYBRID_THRESHOLD_MAX_POSTINGS = 25_000;
export const HYBRID_THRESHOLD_MAX_RECORDS = 200;

/**
 * When the threshold step never ran (over its budget, or τ ≤ 0, after step 3), the answer
 * is the candidates' and may miss records; vector-set.ts then scans exactly instead when
 * the scan costs at most this many units of exactScanCost(). On this 2-core VM a hybrid
 * exact scan took ~2.5–3 ns a unit (bench/hybrid-recall.ts's exact-scan p50s: 19k records
 * × 8-d 2.1–3.0 ms, 50k × 8-d 5.6–5.9 ms, 19k × 64-d 3.8–4.0 ms), so this allows ~2.5–3 ms.
 * The bench's namespaces (100k × 384-d, 10k × 128-d) are above it: their unbounded queries
 * keep the candidates' answer, whose recall is measured. (At 2M units the small bench's
 * hybrid queries could take the scan; its hybrid p50 went from 1.20× to 1.75× a dense
 * query's, with recall 1.0 either way.)
 */
export const HYBRID_EXACT_FALLBACK_COST = 1_000_000;

/** The cost of an exact hybrid scan in units of HYBRID_EXACT_FALLBACK_COST: dense dimensions plus a per-record overhead, and the query's postings. */
export function exactScanCost(records: number, dim: number, postings: number): number {
  return records * (dim + 32) + postings;
}

/**
 * Step 3 (hybridSearch()): when step 2 would cost over its budget, the dense candidates
 * grow this many times over and step 2 is tried again, while candidates × dimensions stay
 * within HYBRID_DENSE_BUDGET (maxDenseCandidates()). Measured with bench/hybrid-recall.ts
 * (60 queries, topK 10; README "Search engine"): at 50k records × 8-d, recall@10 went from
 * 0.757 (step 2 ran on 3 of 60 queries) to 0.972 (49 of 60), p50 0.64 → 2.79 ms (an exact
 * scan: 5.85); at 19k × 8-d, 0.897 → 0.990, 0.64 → 1.83 ms (3.03). At 128-d and more the
 * budget allows no growth, so the bench's namespaces answer as before: growing their 100
 * candidates to 400 cost ~1 ms a query at 384-d (4.7× a dense query's time at 20k records,
 * bench/sparse-engine.ts) for recall 0.9985 → 1.0, and at 51,200 (one growth at 128-d) the
 * small bench's hybrid p50 rose from 1.20× to 1.75× a dense query's, at recall 1.0 before too.
 */
export const HYBRID_DENSE_GROWTH = 4;
export const HYBRID_DENSE_BUDGET = 25_600;

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
  /**
   * The exact top m labels by sparse score (best first), and `least`: the m-th best
   * sparse score rounded to float32, or undefined when fewer than m labels share a
   * dimension with the query (then every one that does is among them). Absent: step 2b
   * does not run.
   */
  sparseTop?(m: number): { labels: readonly number[]; least: number | undefined };
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

  /** The exact dense part of every label scored so far (dMax reads the graph candidates'). */
  readonly denseOf = new Map<number, number>();

  score(s: HybridSources): void {
    s.dense(this.labels, this.count, this.dense);
    s.sparse(this.labels, this.count, this.sparse);
    for (let i = 0; i < this.count; i++) this.denseOf.set(this.labels[i], this.dense[i]);
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
 * Top `topK` by exact hybrid score, whether the threshold step or step 2b bounded it
 * (`bounded`: exact up to the graph's recall), whether the postings' second stage ran
 * (`allPostings`), whether step 2b did (`sparseTop`) and how many dense candidates were
 * asked for in the end (`denseCandidates`); undefined when the graph
 * gave fewer than asked (scan exactly). `postingsFirst`: the postings' first stage as a
 * multiple of topK (bench measurement); `maxDense`: the most dense candidates step 3 may
 * ask for (maxDenseCandidates()).
 */
export function hybridSearch(
  topK: number,
  multiple: number = HYBRID_CANDIDATE_MULTIPLE,
  s: HybridSources,
  postingsFirst: number = HYBRID_POSTINGS_FIRST,
  maxDense = 0,
): { hits: ScoredHit[]; bounded: boolean; allPostings: boolean; sparseTop: boolean; denseCandidates: number } | undefined {
  let n = Math.max(topK, Math.ceil(topK * multiple));
  let fromGraph = s.graph(n);
  // Fewer than asked: the walk did not reach n records, so nothing bounds the others.
  if (fromGraph.length < n) return undefined;

  // Step 1: the graph's, the tail's and the postings' first candidates, scored in one batch.
  const batch = new Batch();
  const top = new TopK(topK);
  const firstDMax = addDense(batch, s, fromGraph, n);
  const denseSide = batch.count;
  const fromPostings = s.sparseCandidates(n);
  const first = Math.min(fromPostings.length, Math.max(topK, Math.ceil(topK * postingsFirst)));
  for (let i = 0; i < first; i++) batch.add(fromPostings[i]);
  const postingsOnly = new Set(batch.labels.subarray(denseSide, batch.count));
  batch.score(s);
  let dMax = firstDMax();
  batch.offerAll(s, top);
  // The postings' other candidates, when the sparse part put one of the first in the top k.
  const allPostings = first < fromPostings.length && top.sorted().some((r) => postingsOnly.has(r.slot));
  if (allPostings) {
    for (let i = first; i < fromPostings.length; i++) batch.add(fromPostings[i]);
    batch.score(s);
    batch.offerAll(s, top);
  }

  let bounded = false;
  let sparseTop = false;
  for (;;) {
    // Step 2: every record whose sparse part could lift it past θ0.
    const theta = top.threshold;
    if (theta !== undefined) {
      // A float32 ulp of margin on each side: ranks are rounded, dMax is not.
      const tau = theta - dMax - 2.5e-7 * (Math.abs(theta) + Math.abs(dMax));
      const reaching = tau > 0 ? s.sparseReaching(tau) : undefined;
      if (reaching) {
        for (const label of reaching) batch.add(label);
        batch.score(s);
        batch.offerAll(s, top);
        bounded = true;
        break;
      }
    }
    // Step 2b: the sparse side's exact top n, once, when the sparse part decides.
    if (allPostings && !sparseTop && s.sparseTop) {
      sparseTop = true;
      const { labels, least } = s.sparseTop(n);
      for (const label of labels) batch.add(label);
      batch.score(s);
      batch.offerAll(s, top);
      const theta = top.threshold;
      const outside = dMax + (least === undefined ? 0 : Math.max(least, 0));
      // Strictly above: a record outside scoring exactly θ would tie the k-th and may win on
      // id (the margin is 0 when both are 0).
      if (theta !== undefined && theta - 2.5e-7 * (Math.abs(theta) + Math.abs(outside)) > outside) {
        bounded = true;
        break;
      }
      continue; // step 2 again, with θ raised
    }
    // Step 3: HYBRID_DENSE_GROWTH times the dense candidates, within maxDense. That lowers
    // dMax, so raises τ (fewer records reach it, and step 2 may fit its budget), and may
    // raise θ0.
    const next = n * HYBRID_DENSE_GROWTH;
    if (next > maxDense) break;
    fromGraph = s.graph(next);
    if (fromGraph.length < next) return undefined;
    n = next;
    const nextDMax = addDense(batch, s, fromGraph, n);
    batch.score(s);
    dMax = nextDMax();
    batch.offerAll(s, top);
  }
  const hits = top.sorted().map((r) => ({ label: r.slot, id: r.id, score: s.scorer.score(r.rank) }));
  return { hits, bounded, allPostings, sparseTop, denseCandidates: n };
}

/**
 * Adds the dense candidates to the batch: the graph's best n, and the tail's (records not
 * yet in the graph) best n when it holds more. Returns how to compute dMax once the batch
 * is scored: every record outside these scores at most that on the dense part (the lowest
 * of the graph's candidates, or the tail's n-th when the tail was cut and it is higher).
 */
function addDense(batch: Batch, s: HybridSources, fromGraph: readonly number[], n: number): () => number {
  for (const label of fromGraph) batch.add(label);
  const tailCut = s.tail.length > n;
  const fromTail = tailCut ? s.tailBest(n) : s.tail;
  for (const label of fromTail) batch.add(label);
  return () => {
    let dMax = Infinity;
    for (const label of fromGraph) dMax = Math.min(dMax, batch.denseOf.get(label)!);
    if (tailCut) dMax = Math.max(dMax, batch.denseOf.get(fromTail[fromTail.length - 1])!);
    return dMax;
  };
}

/**
 * The most dense candidates step 3 may ask the graph for: as many as keep candidates ×
 * dimensions within HYBRID_DENSE_BUDGET (a graph walk's cost grows with both). At 128-d
 * that is 200, under the first growth (100 to 400 for topK 10), so step 3 never runs there
 * or above (the bench's figures); at 8-d up to 3,200.
 */
export function maxDenseCandidates(dim: number): number {
  return Math.floor(HYBRID_DENSE_BUDGET / Math.max(1, dim));
}
