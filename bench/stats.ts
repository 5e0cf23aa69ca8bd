// Latency summaries and recall.

export interface LatencySummary {
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function summarize(latenciesMs: readonly number[]): LatencySummary {
  const s = Float64Array.from(latenciesMs).sort();
  let sum = 0;
  for (const v of s) sum += v;
  return {
    count: s.length,
    meanMs: s.length ? sum / s.length : Number.NaN,
    p50Ms: percentile(s, 50),
    p95Ms: percentile(s, 95),
    p99Ms: percentile(s, 99),
    maxMs: s.length ? s[s.length - 1] : Number.NaN,
  };
}

/**
 * recall@k of a returned list against the exact answer: the share of the true top-k
 * (or of every match, when fewer than k exist) found in the first k returned ids.
 * Duplicates count once. With `scoreOf` (the exact score of any id), a returned id
 * outside the true list still counts when it ties with the k-th true score (within a
 * relative 1e-5), so a different choice among equal scores is not a miss.
 */
export function recallAtK(
  returned: readonly number[],
  truth: { ids: readonly number[]; scores: readonly number[] },
  k: number,
  scoreOf?: (id: number) => number,
): number {
  const want = Math.min(k, truth.ids.length);
  if (want === 0) return 1;
  const truthSet = new Set(truth.ids.slice(0, want));
  const kth = truth.scores[want - 1];
  const tol = 1e-5 * Math.max(1, Math.abs(kth));
  const seen = new Set<number>();
  let hits = 0;
  for (const id of returned.slice(0, k)) {
    if (seen.has(id)) continue;
    seen.add(id);
    if (truthSet.has(id)) hits++;
    else if (scoreOf && truth.ids.length >= k && scoreOf(id) >= kth - tol) hits++;
  }
  return Math.min(1, hits / want);
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}
