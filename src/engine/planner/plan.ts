// The one place where a query's search strategy is chosen. The filter has already been
// evaluated on the metadata columns, so the exact match count m is known here: the
// choice is made on a count, never on a guess.
//
// Why these branches (hnswlib alone at 100k × 384, ef 64, k 10; README "Filtered search"):
// - an exact scan over m matching records costs ~m dot products;
// - hnswlib's walk with the filter inside visits ≈ ef ÷ (m/N) nodes before it holds ef
//   matching ones, so it gets slower as matches thin out (0.1 % matching: 89 ms, slower
//   than a full scan; 50 %: 0.55 ms) while its recall stays ~1.0.
// The two costs cross near m ≈ c·√(ef·N): below it the scan of the matches is cheaper,
// above it the walk. c was 2.5 in the first measurement; in Conifer's own VectorSet
// (bench/filter-crossover.ts) at ef 100 it came out at ~1.4 (100k × 384) to ~2.1
// (20k × 128). A filtered walk now runs at a smaller ef (filteredWalkEf below: 16 in the
// crossover region), and at ef 16 the walk at 100k × 384 was slower than the scan at
// 2,000 matches and faster at 3,000 — c ≈ 2 (FILTERED_EXACT_FACTOR in vector-set.ts):
// ~2,500 matches at N = 100k.
export type Plan =
  /** Nothing matches the filter: the answer is empty without looking at a vector. */
  | 'empty'
  /** Score every (matching) record: always complete. */
  | 'exact'
  /** The HNSW walk (with the match bitmap inside it when filtered) plus the unindexed tail. */
  | 'graph'
  /**
   * Dense + sparse with a graph, unfiltered: the union of the graph's and the postings'
   * best candidates rescored exactly (sparse/hybrid.ts).
   */
  | 'hybrid';

export interface PlanInput {
  hasGraph: boolean;
  dense: boolean;
  sparse: boolean;
  /** Forced exact search (tests, diagnosis). */
  exact: boolean;
  /** Live records in the namespace (N). */
  records: number;
  /** Records matching the filter (m); undefined without a filter. */
  matches: number | undefined;
  topK: number;
  /** The walk's ef for this query. */
  ef: number;
  /** The crossover's factor: exact below filteredExactFactor·√(ef·N) matches. */
  filteredExactFactor: number;
}

export function choosePlan(q: PlanInput): Plan {
  // Nothing can match: no scan, no walk (a walk would visit the whole graph looking).
  if (q.matches === 0) return 'empty';
  // The switch, and every query the graph cannot serve: no graph yet (small namespace,
  // or one whose graph failed), sparse-only scoring (the graph knows dense only; the
  // caller answers those from the postings before planning).
  if (q.exact || !q.hasGraph || !q.dense) return 'exact';
  // Hybrid with a filter scans the matches: two unfiltered candidate lists could hold
  // too few of them.
  if (q.sparse) return q.matches === undefined ? 'hybrid' : 'exact';
  if (q.matches === undefined) return 'graph';
  // At most topK matches: every one of them is in the answer anyway (Lucene's rule).
  if (q.matches <= q.topK) return 'exact';
  // Few matches: the walk would wander through non-matching nodes for longer than a
  // scan of the matches takes.
  if (q.matches < filteredExactCrossover(q.ef, q.records, q.filteredExactFactor)) return 'exact';
  return 'graph';
}

/** The match count below which a filtered query scans its matches exactly. */
export function filteredExactCrossover(ef: number, records: number, factor: number): number {
  return factor * Math.sqrt(ef * records);
}

/**
 * The ef of a filtered walk: `full` scaled by the share of records matching, at least
 * `min`. The walk collects only matching nodes but passes through all of them, so at a
 * share s it explores about as far as an unfiltered walk with ef ÷ s; scaling ef by s
 * keeps that reach (and the recall) about constant while the walk's cost, which grows
 * faster than 1 ÷ s, stays low (FILTERED_EF in vector-set.ts has the measurements).
 */
export function filteredWalkEf(matches: number, records: number, full: number, min: number): number {
  return Math.max(min, Math.ceil((full * matches) / Math.max(1, records)));
}
