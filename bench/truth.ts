// Exact ground truth, computed by brute force on the float32 data the server stores:
// for every query the true top-k overall and under each filter level (bucket < K), in
// one pass over the records per query. The work is split over worker threads (the
// vectors are in SharedArrayBuffers, so nothing is copied).
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { BUCKETS, metadataLabels, type DenseData, type SparseData, type Sparse } from './data.js';
import { TopK } from './topk.js';

/**
 * The filters the benchmark measures. Every metadata field of a record is a function of
 * its `bucket` (see `metadataOf`), so each filter is exactly a set of buckets: `mask[b]`
 * is 1 when records of bucket b match. That keeps the ground truth one pass per query and
 * lets the harness check filter violations without parsing metadata.
 */
export interface BenchFilter {
  /** Shown in the report. */
  label: string;
  /** The request's `filter`; undefined = no filter. */
  filter?: Record<string, unknown>;
  mask: Uint8Array;
}

function bucketMask(test: (b: number) => boolean): Uint8Array {
  return Uint8Array.from({ length: BUCKETS }, (_, b) => (test(b) ? 1 : 0));
}

const inList = (b: number, wanted: readonly string[]): boolean => metadataLabels(b).some((l) => wanted.includes(l));

/** Level 0 is "no filter"; then `bucket < K` (K/1000 of the records), then a two-field filter. */
export const FILTERS: readonly BenchFilter[] = [
  { label: 'no filter', mask: bucketMask(() => true) },
  ...[500, 100, 10, 1].map((limit) => ({
    label: `bucket < ${limit}`,
    filter: { bucket: { $lt: limit } },
    mask: bucketMask((b) => b < limit),
  })),
  {
    label: 'bucket < 200 and labels in [news, tech]',
    filter: { $and: [{ bucket: { $lt: 200 } }, { labels: { $in: ['news', 'tech'] } }] },
    mask: bucketMask((b) => b < 200 && inList(b, ['news', 'tech'])),
  },
];

/** Top-k ids (-1 where fewer exist) and scores, per query and level: [(q*levels+l)*k + r]. */
export interface DenseTruth {
  k: number;
  queries: number;
  /** Number of filters (FILTERS.length). */
  levels: number;
  ids: Int32Array;
  scores: Float64Array;
}

export interface TruthSlice {
  ids: Int32Array;
  scores: Float64Array;
}

export function dot(a: Float32Array, ai: number, b: Float32Array, bi: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j + 3 < dim; j += 4) {
    s0 += a[ai + j] * b[bi + j];
    s1 += a[ai + j + 1] * b[bi + j + 1];
    s2 += a[ai + j + 2] * b[bi + j + 2];
    s3 += a[ai + j + 3] * b[bi + j + 3];
  }
  for (; j < dim; j++) s0 += a[ai + j] * b[bi + j];
  return s0 + s1 + s2 + s3;
}

/** Exact top-k for queries [q0, q1) at every level (cosine on unit vectors = dot). */
export function denseTruthRange(
  vectors: Float32Array,
  queries: Float32Array,
  bucket: Uint16Array,
  n: number,
  dim: number,
  k: number,
  masks: readonly Uint8Array[],
  q0: number,
  q1: number,
): TruthSlice {
  const L = masks.length;
  const ids = new Int32Array((q1 - q0) * L * k);
  const scores = new Float64Array((q1 - q0) * L * k);
  for (let q = q0; q < q1; q++) {
    const tops = masks.map(() => new TopK(k));
    const qi = q * dim;
    for (let i = 0; i < n; i++) {
      const s = dot(queries, qi, vectors, i * dim, dim);
      const b = bucket[i];
      for (let l = 0; l < L; l++) if (masks[l][b] === 1) tops[l].push(i, s);
    }
    for (let l = 0; l < L; l++) {
      const at = ((q - q0) * L + l) * k;
      ids.set(tops[l].ids, at);
      scores.set(tops[l].scores, at);
    }
  }
  return { ids, scores };
}

export interface TruthJob {
  vectors: Float32Array;
  queries: Float32Array;
  bucket: Uint16Array;
  n: number;
  dim: number;
  k: number;
  masks: Uint8Array[];
  q0: number;
  q1: number;
}

/** Exact ground truth for every query, on up to `threads` worker threads. */
export async function denseTruth(data: DenseData, k: number, threads = availableParallelism()): Promise<DenseTruth> {
  const masks = FILTERS.map((f) => f.mask);
  const Q = data.queryCount;
  const L = masks.length;
  const parts = Math.max(1, Math.min(threads, Q));
  const ids = new Int32Array(Q * L * k);
  const scores = new Float64Array(Q * L * k);
  const jobs: Promise<void>[] = [];
  for (let p = 0; p < parts; p++) {
    const q0 = Math.floor((p * Q) / parts);
    const q1 = Math.floor(((p + 1) * Q) / parts);
    const job: TruthJob = { vectors: data.vectors, queries: data.queries, bucket: data.bucket, n: data.n, dim: data.dim, k, masks, q0, q1 };
    jobs.push(
      new Promise<void>((resolve, reject) => {
        const worker = new Worker(new URL('./truth-worker.js', import.meta.url), { workerData: job });
        worker.once('message', (slice: TruthSlice) => {
          ids.set(slice.ids, q0 * L * k);
          scores.set(slice.scores, q0 * L * k);
          resolve();
        });
        worker.once('error', reject);
        worker.once('exit', (code) => {
          if (code !== 0) reject(new Error(`ground-truth worker exited with ${code}`));
        });
      }),
    );
  }
  await Promise.all(jobs);
  return { k, queries: Q, levels: L, ids, scores };
}

/** The truth of one query at one level: ids (without the -1 padding) and scores. */
export function truthOf(t: DenseTruth, q: number, level: number): { ids: number[]; scores: number[] } {
  const at = (q * t.levels + level) * t.k;
  const ids: number[] = [];
  const scores: number[] = [];
  for (let r = 0; r < t.k; r++) {
    if (t.ids[at + r] < 0) break;
    ids.push(t.ids[at + r]);
    scores.push(t.scores[at + r]);
  }
  return { ids, scores };
}

export function sparseDot(a: Sparse, b: Sparse): number {
  let i = 0;
  let j = 0;
  let s = 0;
  while (i < a.indices.length && j < b.indices.length) {
    const x = a.indices[i];
    const y = b.indices[j];
    if (x === y) s += a.values[i++] * b.values[j++];
    else if (x < y) i++;
    else j++;
  }
  return s;
}

/**
 * Exact top-k for sparse (dense = undefined) or hybrid queries over the first
 * `records.length` records: score = dense dot + sparse dot. A sparse-only query matches
 * the records sharing at least one dimension with it (whatever the sign of the score);
 * a hybrid query matches every record.
 */
export function sparseTruth(
  sparse: SparseData,
  dense: DenseData | undefined,
  k: number,
  queryCount: number,
): { ids: number[]; scores: number[] }[] {
  const n = sparse.records.length;
  const postings = new Map<number, { rec: number[]; val: number[] }>();
  for (let r = 0; r < n; r++) {
    const rec = sparse.records[r];
    for (let e = 0; e < rec.indices.length; e++) {
      let p = postings.get(rec.indices[e]);
      if (!p) postings.set(rec.indices[e], (p = { rec: [], val: [] }));
      p.rec.push(r);
      p.val.push(rec.values[e]);
    }
  }
  const out: { ids: number[]; scores: number[] }[] = [];
  const acc = new Float64Array(n);
  const shares = new Uint8Array(n);
  for (let q = 0; q < queryCount; q++) {
    acc.fill(0);
    shares.fill(0);
    const query = sparse.queries[q];
    for (let e = 0; e < query.indices.length; e++) {
      const p = postings.get(query.indices[e]);
      if (!p) continue;
      const w = query.values[e];
      for (let x = 0; x < p.rec.length; x++) {
        acc[p.rec[x]] += w * p.val[x];
        shares[p.rec[x]] = 1;
      }
    }
    if (dense) for (let r = 0; r < n; r++) acc[r] += dot(dense.queries, q * dense.dim, dense.vectors, r * dense.dim, dense.dim);
    const top = new TopK(k);
    for (let r = 0; r < n; r++) if (dense || shares[r]) top.push(r, acc[r]);
    out.push({ ids: Array.from(top.ids.subarray(0, top.size)), scores: Array.from(top.scores.subarray(0, top.size)) });
  }
  return out;
}
