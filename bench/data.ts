// Seeded synthetic data that behaves like text embeddings: Gaussian clusters whose
// centres lie in a low-dimensional subspace, each with a low-rank spread of its own plus
// small isotropic noise, unit-normalised (cosine). Everything is float32 from the start:
// the values the harness sends are exactly the values the server stores, and the ground
// truth is computed on them. Metadata makes filter selectivity exact.
import { Rng } from './prng.js';

export type SizeName = 'tiny' | 'small' | 'medium' | 'large';
export const SIZE_NAMES: readonly SizeName[] = ['tiny', 'small', 'medium', 'large'];

export interface SizeSpec {
  name: SizeName;
  /** Records in the dense index. */
  n: number;
  dim: number;
  /** Held-out dense queries (ground truth is exact for all of them). */
  queries: number;
  clusters: number;
  /** Records in the sparse-only and in the hybrid index. */
  sparseN: number;
  sparseQueries: number;
  /** Upper bound on the wall time of one measured query phase. */
  phaseSeconds: number;
  /**
   * Run the phases that build the whole data set's graph again — the bulk import (and the
   * two-index phase on its copy) and the restart without snapshots. At 1M records each is
   * another full build (tens of minutes on 2 cores); `large` leaves them to `medium` and to
   * `--only import`, and measures ingest, indexing, queries and the restart from snapshots.
   */
  rebuildPhases: boolean;
}

export const SIZES: Record<SizeName, SizeSpec> = {
  tiny: { name: 'tiny', n: 2_000, dim: 64, queries: 200, clusters: 20, sparseN: 1_000, sparseQueries: 100, phaseSeconds: 10, rebuildPhases: true },
  small: { name: 'small', n: 20_000, dim: 128, queries: 1_000, clusters: 100, sparseN: 10_000, sparseQueries: 200, phaseSeconds: 15, rebuildPhases: true },
  medium: { name: 'medium', n: 100_000, dim: 384, queries: 1_000, clusters: 300, sparseN: 100_000, sparseQueries: 200, phaseSeconds: 40, rebuildPhases: true },
  large: { name: 'large', n: 1_000_000, dim: 128, queries: 1_000, clusters: 1_000, sparseN: 50_000, sparseQueries: 200, phaseSeconds: 60, rebuildPhases: false },
};

export const BUCKETS = 1000;
export const TAGS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
const LABELS = ['news', 'sport', 'tech', 'science', 'art', 'travel', 'food', 'health'];

/** Dense data in one float32 arena: record i is [i*dim, (i+1)*dim). */
export interface DenseData {
  n: number;
  dim: number;
  vectors: Float32Array;
  queries: Float32Array;
  queryCount: number;
  /** bucket[i] in 0..999, each value held by exactly n/1000 records (n a multiple of 1000). */
  bucket: Uint16Array;
  tag: Uint8Array;
}

/** The shape of the distribution (defaults below; exposed for calibration). */
export interface Shape {
  globalRank: number;
  localRank: number;
  localSpread: number;
  noise: number;
}
export const SHAPE: Shape = { globalRank: 64, localRank: 24, localSpread: 0.8, noise: 0.3 };

export function id(i: number): string {
  return `v${i}`;
}

export function indexOfId(s: string): number {
  return Number(s.slice(1));
}

/** The `labels` list of a record in bucket b (a function of b, so filters on it are bucket sets). */
export function metadataLabels(b: number): string[] {
  return [LABELS[b % LABELS.length], LABELS[(b >> 3) % LABELS.length]];
}

export function metadataOf(data: DenseData, i: number): { bucket: number; tag: string; labels: string[] } {
  const b = data.bucket[i];
  return { bucket: b, tag: TAGS[data.tag[i]], labels: metadataLabels(b) };
}

/**
 * Generates `n` records and `queryCount` held-out queries from the same distribution.
 * `shared` puts the vectors in SharedArrayBuffers so ground-truth workers can read them.
 */
export function generateDense(
  spec: { n: number; dim: number; clusters: number },
  queryCount: number,
  seed = 42,
  shape: Shape = SHAPE,
): DenseData {
  const { n, dim, clusters } = spec;
  const GLOBAL_RANK = shape.globalRank;
  const LOCAL_RANK = shape.localRank;
  const LOCAL_SPREAD = shape.localSpread;
  const NOISE = shape.noise;
  const rng = new Rng(seed);
  // Global basis: centres live in a GLOBAL_RANK-dimensional subspace.
  const global = new Float32Array(GLOBAL_RANK * dim);
  for (let i = 0; i < global.length; i++) global[i] = rng.gaussian() / Math.sqrt(dim);
  const centres = new Float32Array(clusters * dim);
  const local = new Float32Array(clusters * LOCAL_RANK * dim);
  const u = new Float64Array(GLOBAL_RANK);
  for (let c = 0; c < clusters; c++) {
    for (let r = 0; r < GLOBAL_RANK; r++) u[r] = rng.gaussian();
    const row = new Float64Array(dim);
    for (let r = 0; r < GLOBAL_RANK; r++) {
      const g = r * dim;
      for (let j = 0; j < dim; j++) row[j] += u[r] * global[g + j];
    }
    normaliseInto(row, centres, c * dim);
    for (let i = c * LOCAL_RANK * dim; i < (c + 1) * LOCAL_RANK * dim; i++) local[i] = rng.gaussian() / Math.sqrt(dim);
  }
  const shared = (len: number): Float32Array => new Float32Array(new SharedArrayBuffer(len * 4));
  const vectors = shared(n * dim);
  const queries = shared(queryCount * dim);
  const row = new Float64Array(dim);
  const z = new Float64Array(LOCAL_RANK);
  const point = (out: Float32Array, at: number): void => {
    const c = rng.int(clusters);
    row.set(centres.subarray(c * dim, (c + 1) * dim));
    for (let r = 0; r < LOCAL_RANK; r++) z[r] = (rng.gaussian() * LOCAL_SPREAD) / Math.sqrt(LOCAL_RANK);
    for (let r = 0; r < LOCAL_RANK; r++) {
      const base = (c * LOCAL_RANK + r) * dim;
      for (let j = 0; j < dim; j++) row[j] += z[r] * local[base + j];
    }
    for (let j = 0; j < dim; j++) row[j] += (rng.gaussian() * NOISE) / Math.sqrt(dim);
    normaliseInto(row, out, at);
  };
  for (let i = 0; i < n; i++) point(vectors, i * dim);
  for (let q = 0; q < queryCount; q++) point(queries, q * dim);
  // Buckets: a shuffled balanced assignment, so bucket < K selects exactly K/1000.
  const bucket = new Uint16Array(n);
  for (let i = 0; i < n; i++) bucket[i] = i % BUCKETS;
  rng.shuffle(bucket);
  const tag = new Uint8Array(n);
  for (let i = 0; i < n; i++) tag[i] = rng.int(TAGS.length);
  return { n, dim, vectors, queries, queryCount, bucket, tag };
}

function normaliseInto(row: Float64Array, out: Float32Array, at: number): void {
  let s = 0;
  for (let j = 0; j < row.length; j++) s += row[j] * row[j];
  const inv = 1 / Math.sqrt(s);
  for (let j = 0; j < row.length; j++) out[at + j] = row[j] * inv;
}

/** A sparse vector: sorted unique indices with float32 values. */
export interface Sparse {
  indices: Uint32Array;
  values: Float32Array;
}

export interface SparseData {
  vocab: number;
  records: Sparse[];
  queries: Sparse[];
}

export const SPARSE_VOCAB = 30_000;

/**
 * Learned-sparse-like vectors (SPLADE-shaped): records have 100-140 terms, queries 25-35,
 * drawn from a Zipf-like vocabulary (term t with probability ∝ 1/(t+1), so the head terms
 * are in nearly every record). Weights are positive and smaller for frequent terms (as
 * IDF-weighted models give); one query in four also carries 1-3 negative weights
 * (down-weighted terms), which switches the engine's pruning off for it.
 */
export function generateSparse(n: number, queryCount: number, seed = 7): SparseData {
  const rng = new Rng(seed);
  const logVocab = Math.log(SPARSE_VOCAB);
  const zipf = (): number => Math.min(SPARSE_VOCAB - 1, Math.floor(Math.exp(rng.next() * logVocab) - 1));
  // IDF ∝ log(1 / term frequency): frequency ∝ 1/(t+1), so rarer (higher) terms weigh more.
  const idf = (t: number): number => 0.1 + Math.log(t + 1) / logVocab;
  const make = (minTerms: number, maxTerms: number, scale: number, negatives: number): Sparse => {
    const count = minTerms + rng.int(maxTerms - minTerms + 1);
    const terms = new Map<number, number>();
    while (terms.size < count) {
      const t = zipf();
      terms.set(t, (0.2 + rng.next()) * scale * idf(t));
    }
    const keys = [...terms.keys()];
    for (let i = 0; i < negatives; i++) {
      const t = keys[rng.int(keys.length)];
      terms.set(t, -Math.abs(terms.get(t) ?? 0));
    }
    const indices = Uint32Array.from(keys.sort((a, b) => a - b));
    const values = Float32Array.from(indices, (t) => terms.get(t) ?? 0);
    return { indices, values };
  };
  const records: Sparse[] = [];
  for (let i = 0; i < n; i++) records.push(make(100, 140, 0.1, 0));
  const queries: Sparse[] = [];
  for (let q = 0; q < queryCount; q++) queries.push(make(25, 35, 1, q % 4 === 3 ? 1 + rng.int(3) : 0));
  return { vocab: SPARSE_VOCAB, records, queries };
}
