// The one plug-in point where a query's search strategy is chosen. Today: a graph walk
// only for an unfiltered dense query on a namespace that has a graph; everything else
// (filters, sparse and hybrid scoring, small namespaces, the `exact` switch) is an exact
// scan, which is always correct. The filter planner (count matches, choose exact below
// a crossover, walk the graph with the filter inside above it) replaces this function.
// A hybrid query (dense + sparse) on a namespace with a graph rescores the union of the
// graph's and the postings' best candidates exactly (sparse/hybrid.ts).
export type Plan = 'exact' | 'graph' | 'hybrid';

export interface PlanInput {
  hasGraph: boolean;
  dense: boolean;
  sparse: boolean;
  filtered: boolean;
  /** Forced exact search (tests, diagnosis). */
  exact: boolean;
}

export function choosePlan(q: PlanInput): Plan {
  if (q.exact || !q.hasGraph || !q.dense || q.filtered) return 'exact';
  return q.sparse ? 'hybrid' : 'graph';
}
