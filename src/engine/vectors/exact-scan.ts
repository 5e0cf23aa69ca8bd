// Exact scoring of one query against records addressed by label, and the exact scan
// that keeps the best topK. The graph path uses the same Scorer to rescore its
// candidates, so scores, their float32 rounding and tie order are identical on every
// path (DESIGN.md decision 7: ranked on the float32 value printed, ties by id).
import type { Metric } from '../model.js';
import type { VectorArena } from './arena.js';
import { TopK } from './top-k.js';

export interface ScoreQuery {
  dense?: Float32Array;
  /**
   * The query's sparse score of a record, summed in ascending dimension order; NaN when
   * they share no dimension (sparse/sparse-index.ts). Absent for a query without a sparse part.
   */
  sparseScore?: (label: number) => number;
}

export class Scorer {
  private readonly qNorm: number;
  private readonly euclidean: boolean;
  private readonly cosine: boolean;

  constructor(
    metric: Metric,
    private readonly arena: VectorArena,
    private readonly q: ScoreQuery,
  ) {
    let n = 0;
    if (q.dense) for (let i = 0; i < q.dense.length; i++) n += q.dense[i] * q.dense[i];
    this.qNorm = Math.sqrt(n);
    this.euclidean = metric === 'euclidean';
    this.cosine = metric === 'cosine';
  }

  /**
   * The rank of a record (higher is better: the score, or minus the euclidean
   * distance), rounded to float32; NaN when the record does not match at all (a
   * sparse-only query sharing no dimension with it).
   */
  rank(label: number): number {
    const qd = this.q.dense;
    let score = 0;
    if (qd) {
      const dim = this.arena.dim;
      const dense = this.arena.vectors;
      const base = label * dim;
      // Four running sums: one sum is a chain of dependent adds, four let the CPU overlap
      // them (1.5–1.9× faster at 384-d, the whole cost of an exact scan). The sums are
      // doubles, so the order changes the result only far below the float32 rounding
      // applied at the end, and every path scores through here, so paths agree exactly.
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      if (this.euclidean) {
        for (; i + 3 < dim; i += 4) {
          const d0 = qd[i] - dense[base + i];
          const d1 = qd[i + 1] - dense[base + i + 1];
          const d2 = qd[i + 2] - dense[base + i + 2];
          const d3 = qd[i + 3] - dense[base + i + 3];
          s0 += d0 * d0;
          s1 += d1 * d1;
          s2 += d2 * d2;
          s3 += d3 * d3;
        }
        for (; i < dim; i++) {
          const d = qd[i] - dense[base + i];
          s0 += d * d;
        }
        score = s0 + s1 + (s2 + s3);
      } else {
        for (; i + 3 < dim; i += 4) {
          s0 += qd[i] * dense[base + i];
          s1 += qd[i + 1] * dense[base + i + 1];
          s2 += qd[i + 2] * dense[base + i + 2];
          s3 += qd[i + 3] * dense[base + i + 3];
        }
        for (; i < dim; i++) s0 += qd[i] * dense[base + i];
        score = s0 + s1 + (s2 + s3);
        if (this.cosine) score = score / (this.qNorm * this.arena.norms[label]);
      }
    }
    if (this.q.sparseScore) {
      const s = this.q.sparseScore(label);
      // A sparse-only query matches records that share at least one index with it.
      if (s === s) score += s;
      else if (!qd) return NaN;
    }
    return Math.fround(this.euclidean ? -score : score);
  }

  /** The wire score of a rank. */
  score(rank: number): number {
    return this.euclidean ? -rank : rank;
  }
}

export interface ScoredHit {
  label: number;
  id: string;
  score: number;
}

/**
 * Scores every label `labels` yields (the caller skips free and non-matching ones) and
 * returns the best `topK`, best first. The same TopK merges graph candidates and the tail.
 */
export function bestOf(
  labels: Iterable<number>,
  topK: number,
  scorer: Scorer,
  idOf: (label: number) => string,
): ScoredHit[] {
  const top = new TopK(topK);
  for (const label of labels) {
    const rank = scorer.rank(label);
    if (rank !== rank) continue; // NaN: no match
    if (top.admits(rank)) top.offer(label, idOf(label), rank);
  }
  return top.sorted().map((r) => ({ label: r.slot, id: r.id, score: scorer.score(r.rank) }));
}
