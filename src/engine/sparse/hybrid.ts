// Hybrid search (dense + sparse, score = dense dot + sparse dot) on a namespace with a
// graph: a threshold algorithm over the two parts.
// 1. Dense candidates: the graph's best n = HYBRID_CANDIDATE_MULTIPLE × topK by dense
//    score, and as many of the records not yet in the graph (the tail). Scored exactly on
//    both parts; θ0 is the k-th best.
// 2. Every record outside them scores at most `dMax` on the dense part, the lowest dense
//    score the candidates were cut at. To beat θ0 it needs a sparse score of at least
//    τ = θ0 − dMax, and the postings give every record reaching τ (SparseIndex
//    reaching()), which are scored exactly too.
// So the answer is exact up to the graph's own recall (a record the walk misses whose
// dense score is above dMax). The sparse side costs what the gap needs: when the dense
// part dominates, τ is above most sparse scores and few lists are read; when the
// sparse part dominates, it is nearly a sparse-only query. When τ ≤ 0 (the best scores
// are below dMax, e.g. negative sparse parts) a record sharing no dimension could
// qualify and cannot be found in the postings: the caller scans exactly.
import { TopK } from '../vectors/top-k.js';
import type { Scorer, ScoredHit } from '../vectors/exact-scan.js';

/**
 * Dense candidates from the graph (and as many from the tail), as a multiple of topK.
 * Measured with bench/sparse-engine.ts (README "Search engine"): the graph's walk costs
 * about the same at 5 and 10 (its ef, 100 by default, is the larger of ef and the count
 * asked for), and more candidates lower dMax, so fewer postings are read.
 */
export const HYBRID_CANDIDATE_MULTIPLE = 10;

export interface HybridSources {
  /** The graph's best `n` labels by dense score (fewer only when it cannot find n). */
  graph(n: number): readonly number[];
  /** Live records not yet in the graph. */
  tail: readonly number[];
  /** Exact dense score of a label (higher is better). */
  dense(label: number): number;
  /** Every label whose sparse score reaches tau > 0 (and none clearly below it). */
  sparseReaching(tau: number): readonly number[];
  /** Exact hybrid scoring (dense + sparse). */
  scorer: Scorer;
  idOf(label: number): string;
}

/** Top `topK` by exact hybrid score; undefined when the dense side cannot bound the rest (scan exactly). */
export function hybridSearch(topK: number, multiple: number = HYBRID_CANDIDATE_MULTIPLE, s: HybridSources): ScoredHit[] | undefined {
  const n = Math.max(topK, Math.ceil(topK * multiple));
  const fromGraph = s.graph(n);
  // Fewer than asked: the walk did not reach n records, so nothing bounds the others.
  if (fromGraph.length < n) return undefined;
  let dMax = Infinity;
  for (const label of fromGraph) dMax = Math.min(dMax, s.dense(label));
  let fromTail: readonly number[] = s.tail;
  if (fromTail.length > n) {
    const best = bestDense(fromTail, n, s.dense);
    fromTail = best.labels;
    dMax = Math.max(dMax, best.cut);
  }

  const top = new TopK(topK);
  const seen = new Set<number>();
  const offer = (label: number): void => {
    if (seen.has(label)) return;
    seen.add(label);
    const rank = s.scorer.rank(label);
    if (rank !== rank) return;
    if (top.admits(rank)) top.offer(label, s.idOf(label), rank);
  };
  for (const label of fromGraph) offer(label);
  for (const label of fromTail) offer(label);
  const theta = top.threshold;
  if (theta === undefined) return undefined;
  // A float32 ulp of margin on each side: ranks are rounded, dMax is not.
  const tau = theta - dMax - 2.5e-7 * (Math.abs(theta) + Math.abs(dMax));
  if (!(tau > 0)) return undefined;
  for (const label of s.sparseReaching(tau)) offer(label);
  return top.sorted().map((r) => ({ label: r.slot, id: r.id, score: s.scorer.score(r.rank) }));
}

/** The n labels with the best dense scores, and the lowest of those scores. */
function bestDense(labels: readonly number[], n: number, dense: (label: number) => number): { labels: number[]; cut: number } {
  const scored = labels.map((label) => ({ label, score: dense(label) }));
  scored.sort((a, b) => b.score - a.score);
  const kept = scored.slice(0, n);
  return { labels: kept.map((x) => x.label), cut: kept[kept.length - 1].score };
}
