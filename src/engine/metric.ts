// Index kinds as the engine sees them (no HTTP, no catalog).
export type Metric = 'cosine' | 'euclidean' | 'dotproduct';

export interface IndexShape {
  /** 0 for sparse-only indexes. */
  dimension: number;
  metric: Metric;
}
