// Candidates for a hybrid query (dense + sparse, score = dense dot + sparse dot) on a
// namespace with a graph: the graph's best `HYBRID_CANDIDATE_MULTIPLE × topK` by dense
// score, as many from the postings by partial sparse score over the query's
// highest-bound lists (HYBRID_POSTINGS_COVERAGE), and the best as many by dense score
// of the records not yet in the graph. The caller rescores the union exactly on both
// parts, so every returned score is exact; what can be missed is a record that is in no
// list yet beats the k-th by its sum (recall measured in
// README "Search engine").

/**
 * How many candidates each side contributes, as a multiple of topK. Measured on the
 * bench's data (100k records) with bench/sparse-engine.ts: recall@10 0.979 at 5, 0.999
 * at 10, and the graph's walk costs about the same at both (its ef, 100 by default, is
 * the larger of ef and the count asked for). README "Search engine".
 */
export const HYBRID_CANDIDATE_MULTIPLE = 10;

/**
 * The share of the query's total sparse bound the postings side reads (SparseIndex
 * candidates()): the highest-bound lists are short (rare dimensions, large weights),
 * the rest long and light. On the bench's data recall@10 was the same from 0.4 to
 * exact top-k postings, at 1/100 of the exact side's cost; with the sparse weights
 * scaled ×20 (sparse dominating the score) it also held at 0.5 (README "Search engine").
 */
export const HYBRID_POSTINGS_COVERAGE = 0.5;

export function hybridCandidates(
  topK: number,
  multiple: number = HYBRID_CANDIDATE_MULTIPLE,
  /** Each source answers its best `n` labels (graph by dense, postings by sparse, tail by dense). */
  sources: readonly ((n: number) => readonly number[])[],
): Set<number> {
  const n = Math.max(1, Math.ceil(topK * multiple));
  const out = new Set<number>();
  for (const best of sources) for (const label of best(n)) out.add(label);
  return out;
}
