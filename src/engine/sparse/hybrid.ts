// Hybrid search (dense + sparse, score = dense dot + sparse dot) on a namespace with a
// graph: candidates from both sides, then a threshold step when it is affordable.
// 1. Candidates: the graph's best n = HYBRID_CANDIDATE_MULTIPLE × topK by dense score, as
//    many of the records not yet in the graph (the tail), and n from the postings by
//    partial sparse score over the highest-bound lists (HYBRID_POSTINGS_COVERAGE). All
//    scored exactly on both parts; θ0 is the k-th best.
// 2. Every record outside the dense candidates scores at most `dMax` on the dense part
//    (the lowest dense score they were cut at). To beat θ0 it needs a sparse score of at
//    least τ = θ0 − dMax; the postings give every record reaching τ (SparseIndex
//    reaching()), scored exactly too. The answer is then exact up to the graph's own
//    recall. This step is skipped when it would read more than
//    HYBRID_THRESHOLD_MAX_POSTINGS entries or score more than
//    HYBRID_THRESHOLD_MAX_RECORDS (τ low against the sparse scores), or when τ ≤ 0; the
//    answer is then step 1's, whose recall is measured (README "Search engine").
import { TopK } from '../vectors/top-k.js';
import type { Scorer, ScoredHit } from '../vectors/exact-scan.js';

/**
 * Candidates from each side as a multiple of topK. Measured on the bench's data with
 * bench/sparse-engine.ts (README "Search engine"): recall@10 0.978 at 5, 0.9985 at 10;
 * the graph's walk costs about the same at both (its ef, 100 by default, is the larger
 * of ef and the count asked for).
 */
export const HYBRID_CANDIDATE_MULTIPLE = 10;

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
  tail: readonly number[];
  /** The tail's best `n` labels by dense score, best first (an exact scan of the tail). */
  tailBest(n: number): readonly number[];
  /** Exact dense part of a label's score, unrounded (Scorer.denseScore). */
  dense(label: number): number;
  /**
   * Exact sparse part of a label's score; NaN when it shares no dimension with the query.
   * The scorer's own sparse part, so offer() hands it to rankWith() rather than computing it twice.
   */
  sparse(label: number): number;
  /** The postings' best n labels by partial sparse score (approximate). */
  sparseCandidates(n: number): readonly number[];
  /** Every label whose sparse score reaches tau > 0 (and none clearly below it); undefined when too costly. */
  sparseReaching(tau: number): readonly number[] | undefined;
  /** Exact hybrid scoring (dense + sparse): rankWith(label, dense(label)) is the rank. */
  scorer: Scorer;
  idOf(label: number): string;
}

/**
 * Top `topK` by exact hybrid score, and whether the threshold step ran (`bounded`: exact
 * up to the graph's recall); undefined when the graph gave fewer than asked (scan exactly).
 */
export function hybridSearch(topK: number, multiple: number = HYBRID_CANDIDATE_MULTIPLE, s: HybridSources): { hits: ScoredHit[]; bounded: boolean } | undefined {
  const n = Math.max(topK, Math.ceil(topK * multiple));
  const fromGraph = s.graph(n);
  // Fewer than asked: the walk did not reach n records, so nothing bounds the others.
  if (fromGraph.length < n) return undefined;
  // Dense parts computed once: for dMax, then for the rank.
  const denseOf = new Map<number, number>();
  let dMax = Infinity;
  for (const label of fromGraph) {
    const d = s.dense(label);
    denseOf.set(label, d);
    dMax = Math.min(dMax, d);
  }
  let fromTail: readonly number[] = s.tail;
  if (fromTail.length > n) {
    fromTail = s.tailBest(n);
    dMax = Math.max(dMax, s.dense(fromTail[fromTail.length - 1]));
  }

  const top = new TopK(topK);
  const seen = new Set<number>();
  const offer = (label: number, outside: boolean): void => {
    if (seen.has(label)) return;
    seen.add(label);
    let d = denseOf.get(label);
    let sparse: number | undefined;
    if (d === undefined) {
      const theta = top.threshold;
      if (outside && theta !== undefined) {
        // Outside the dense candidates the dense part is at most dMax (the premise of
        // step 2): when even dMax + its sparse part rounds below θ, the record cannot
        // enter (d ≤ dMax ⇒ d + sparse ≤ dMax + sparse, rounding is monotonic), so its
        // dense part — most of a hybrid query's cost — is never computed.
        sparse = s.sparse(label);
        if (Math.fround(dMax + (sparse === sparse ? sparse : 0)) < theta) return;
      }
      d = s.dense(label);
    }
    const rank = s.scorer.rankWith(label, d, sparse);
    if (rank !== rank) return;
    if (top.admits(rank)) top.offer(label, s.idOf(label), rank);
  };
  for (const label of fromGraph) offer(label, false);
  for (const label of fromTail) offer(label, false);
  // Every record not offered yet is outside the dense candidates: a graph record past the
  // graph's best n, or a tail record past the tail's best n (dMax covers both).
  for (const label of s.sparseCandidates(n)) offer(label, true);
  const theta = top.threshold;
  let bounded = false;
  if (theta !== undefined) {
    // A float32 ulp of margin on each side: ranks are rounded, dMax is not.
    const tau = theta - dMax - 2.5e-7 * (Math.abs(theta) + Math.abs(dMax));
    const reaching = tau > 0 ? s.sparseReaching(tau) : undefined;
    if (reaching) {
      for (const label of reaching) offer(label, true);
      bounded = true;
    }
  }
  const hits = top.sorted().map((r) => ({ label: r.slot, id: r.id, score: s.scorer.score(r.rank) }));
  return { hits, bounded };
}
