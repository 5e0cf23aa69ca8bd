// Candidates for a hybrid query (dense + sparse, score = dense dot + sparse dot) on a
// namespace with a graph: the graph's best `HYBRID_CANDIDATE_MULTIPLE × topK` by dense
// score, the postings' best as many by sparse score, and the best as many by dense score
// of the records not yet in the graph. The caller rescores the union exactly on both
// parts, so every returned score is exact; what can be missed is a record that is in no
// list yet beats the k-th by its sum (recall measured in
// README "Search engine").

/**
 * How many candidates each side contributes, as a multiple of topK. Measured on the
 * bench's sparse data with bench/sparse-engine.ts: recall@10 0.984 at 5, 1.000 at 10
 * (README "Search engine").
 */
export const HYBRID_CANDIDATE_MULTIPLE = 10;

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
