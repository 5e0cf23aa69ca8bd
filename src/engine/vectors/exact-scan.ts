// Exact scoring of one query against records addressed by label, and the exact scan
// that keeps the best topK. The graph path uses the same Scorer to rescore its
// candidates, so scores, their float32 rounding and tie order are identical on every
// path (DESIGN.md decision 7: ranked on the float32 value printed, ties by id).
import type { Metric } from '../model.js';
import { CHUNK_SHIFT, type VectorArena } from './arena.js';
import { type GraphRows, nativeAddon, type ScanSourceArgs } from '../native-addon.js';
import { TopK } from './top-k.js';
import { scoreFloat32 } from '../float32.js';
import { grown } from '../typed-arrays.js';

export interface ScoreQuery {
  dense?: Float32Array;
  /**
   * The query's sparse score of a record, summed in ascending dimension order; NaN when
   * they share no dimension (sparse/sparse-index.ts). Absent for a query without a sparse part.
   */
  sparseScore?: (label: number) => number;
  /**
   * sparseScore() of labels[0..count) into out[0..count) in one call (natively when the
   * addon is loaded: the same sums, bit for bit), which the exact scan uses when given.
   */
  sparseScores?: (labels: Uint32Array, count: number, out: Float64Array) => void;
}

const METRIC_CODE = { cosine: 0, euclidean: 1, dotproduct: 2 } as const;

/** Where a Scorer reads vectors: the arena, and the graph nodes of the labels it released. */
export interface VectorSource {
  readonly arena: VectorArena;
  /**
   * The serving graph's rows (native/graph-rows.h), asked for on each native call since
   * they are valid only until the graph changes; called only while arena.released > 0,
   * which the owner guarantees only while that graph holds every released label.
   */
  rows(): GraphRows;
}

/** A VectorSource whose arena holds every vector (it never releases one): benches, tests. */
export function arenaSource(arena: VectorArena): VectorSource {
  return {
    arena,
    rows: () => {
      throw new Error('engine: this arena has no graph to release vectors to');
    },
  };
}

export class Scorer {
  private readonly qNorm: number;
  private readonly euclidean: boolean;
  private readonly cosine: boolean;

  private readonly arena: VectorArena;

  constructor(
    private readonly metric: Metric,
    private readonly source: VectorSource,
    private readonly q: ScoreQuery,
  ) {
    this.arena = source.arena;
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
    return this.rankWith(label, this.q.dense ? this.denseScore(label) : 0);
  }

  /**
   * The dense part of a record's score before rounding (the dot product, the cosine, or
   * the squared euclidean distance); 0 for a query without a dense part. rankWith(label,
   * denseScore(label)) is rank(label): hybrid search (sparse/hybrid.ts) computes the
   * dense part once and reuses it.
   */
  denseScore(label: number): number {
    const qd = this.q.dense;
    if (!qd) return 0;
    // Only without the native addon, and then the arena holds every vector (vector-set.ts).
    let score = 0;
    const dim = this.arena.dim;
    const dense = this.arena.chunk(label);
    const base = this.arena.offset(label);
    if (this.euclidean) {
      for (let i = 0; i < dim; i++) {
        const d = qd[i] - dense[base + i];
        score += d * d;
      }
    } else {
      for (let i = 0; i < dim; i++) score += qd[i] * dense[base + i];
      if (this.cosine) score = score / (this.qNorm * this.arena.norms[label]);
    }
    return score;
  }

  /**
   * denseScore() of labels[0..count) into out[0..count), natively when the addon is
   * loaded (the same float64 sums, bit for bit: native/exact-scan.cc), which costs a
   * fraction of the JavaScript loop per label. Hybrid search scores its candidates so.
   */
  denseScores(labels: Uint32Array, count: number, out: Float64Array): void {
    const dense = this.q.dense;
    if (dense && nativeAddon && count > 0) {
      nativeAddon.denseScores(dense, METRIC_CODE[this.metric], this.arena.chunkList, CHUNK_SHIFT, this.arena.norms, labels, count, this.qNorm, out, ...this.sourceArgs());
      return;
    }
    for (let i = 0; i < count; i++) out[i] = this.denseScore(labels[i]);
  }

  /** Whether the query has a sparse part (its score adds the sparse dot product). */
  get hasSparse(): boolean {
    return this.q.sparseScore !== undefined;
  }

  /** The query's sparseScore() of labels[0..count) into out[0..count) (ScoreQuery.sparseScores). */
  sparseScores(labels: Uint32Array, count: number, out: Float64Array): void {
    const { sparseScore, sparseScores } = this.q;
    if (sparseScores) sparseScores(labels, count, out);
    else if (sparseScore) for (let i = 0; i < count; i++) out[i] = sparseScore(labels[i]);
  }

  /**
   * rank() given the record's denseScore() and, when the caller has it already, its
   * sparse part (the query's sparseScore(label): NaN when it shares no dimension).
   */
  rankWith(label: number, denseScore: number, sparseScore?: number): number {
    let score = denseScore;
    if (this.q.sparseScore) {
      const s = sparseScore ?? this.q.sparseScore(label);
      // A sparse-only query matches records that share at least one index with it.
      if (s === s) score += s;
      else if (!this.q.dense) return NaN;
    }
    return scoreFloat32(this.euclidean ? -score : score);
  }

  /** Whether prefilter() can apply: the addon is loaded and the query is dense only. */
  get canPrefilter(): boolean {
    return nativeAddon !== undefined && this.q.dense !== undefined && this.q.sparseScore === undefined;
  }

  /**
   * The labels among labels[0..count) that can be in the best k, by the native pre-pass
   * (native-addon.ts); undefined when it does not apply: no addon, a sparse part (scored in
   * JavaScript only), or too few labels for the call to pay.
   */
  prefilter(labels: Uint32Array, count: number, k: number, out: Uint32Array): Uint32Array | undefined {
    const dense = this.q.dense;
    if (!this.canPrefilter || !nativeAddon || !dense || count <= Math.max(k, NATIVE_MIN_LABELS)) return undefined;
    const n = nativeAddon.candidates(
      dense,
      METRIC_CODE[this.metric],
      this.arena.chunkList,
      CHUNK_SHIFT,
      this.arena.norms,
      labels,
      count,
      k,
      out,
      ...this.arena.codeLists,
      ...this.sourceArgs(),
    );
    return out.subarray(0, n);
  }

  /** The native scan's last two arguments: where the vectors the arena released are. */
  private sourceArgs(): ScanSourceArgs {
    return this.arena.released > 0 ? [this.arena.heldFlags, this.source.rows()] : [null, null];
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

// Below this many labels the JavaScript scan alone is as fast as the native call and its
// rescoring (measured at 384-d: the call costs a few microseconds).
const NATIVE_MIN_LABELS = 64;

// Scratch for the scan: the engine thread runs one scan at a time.
let scratchLabels = new Uint32Array(1024);
let scratchOut = new Uint32Array(1024);
let scratchScores = new Float64Array(1024);
let scratchSparse = new Float64Array(1024);

function sparseScratch(count: number): Float64Array {
  if (scratchSparse.length < count) scratchSparse = new Float64Array(Math.max(count, scratchSparse.length * 2));
  return scratchSparse;
}

/**
 * Scores every label `labels` yields (the caller skips free and non-matching ones) and
 * returns the best `topK`, best first. The same TopK merges graph candidates and the tail.
 * The dense parts are computed in one call (Scorer.denseScores: native when it can be),
 * over the native pre-pass's survivors when it applies.
 */
export function bestOf(
  labels: Iterable<number>,
  topK: number,
  scorer: Scorer,
  idOf: (label: number) => string,
): ScoredHit[] {
  if (topK === 0) return [];
  let count = 0;
  for (const label of labels) {
    if (count === scratchLabels.length) scratchLabels = grown(scratchLabels, count * 2);
    scratchLabels[count++] = label;
  }
  return bestOfLabels(scratchLabels, count, topK, scorer, idOf);
}

/** bestOf() over labels[0..count) as they are (no copy; `labels` is only read). */
export function bestOfLabels(
  labels: Uint32Array,
  count: number,
  topK: number,
  scorer: Scorer,
  idOf: (label: number) => string,
): ScoredHit[] {
  if (topK === 0) return [];
  const top = new TopK(topK);
  let scored: Uint32Array = labels;
  if (scorer.canPrefilter) {
    if (scratchOut.length < count) scratchOut = new Uint32Array(Math.max(count, scratchOut.length * 2));
    const survivors = scorer.prefilter(labels, count, topK, scratchOut);
    if (survivors) {
      scored = survivors;
      count = survivors.length;
    }
  }
  if (scratchScores.length < count) scratchScores = new Float64Array(Math.max(count, scratchScores.length * 2));
  scorer.denseScores(scored, count, scratchScores);
  // The sparse parts in one call too (a hybrid scan): per label, the JavaScript dot was
  // most of the scan's time.
  const sparse = scorer.hasSparse ? sparseScratch(count) : undefined;
  if (sparse) scorer.sparseScores(scored, count, sparse);
  for (let i = 0; i < count; i++) {
    const label = scored[i];
    const rank = scorer.rankWith(label, scratchScores[i], sparse?.[i]);
    if (rank !== rank) continue; // NaN: no match
    if (top.admits(rank)) top.offer(label, idOf(label), rank);
  }
  return top.sorted().map((r) => ({ label: r.slot, id: r.id, score: scorer.score(r.rank) }));
}
