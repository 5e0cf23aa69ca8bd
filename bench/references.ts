// The references, measured in this process on the same data: hnswlib-node used
// directly (the engine limit: no HTTP, no JSON, one thread), swept over ef; and exact
// brute force over the float32 arena. hnswlib is the same build the engine runs
// (hnswlib-reference.ts: AVX2+FMA where the CPU has them), so the ratios measure
// Conifer's overhead, not compiler flags.
import { hnswlib, hnswlibBuild } from './hnswlib-reference.js';
import { performance } from 'node:perf_hooks';
import type { DenseData } from './data.js';
import { summarize, recallAtK, mean, type LatencySummary } from './stats.js';
import { dot, truthOf, FILTERS, type DenseTruth } from './truth.js';
import { TopK } from './topk.js';

const { HierarchicalNSW } = hnswlib;

export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 200;
export const EF_SWEEP = [10, 20, 40, 80, 160, 320, 640];

export interface HnswPoint {
  ef: number;
  recall: number;
  qps: number;
  latency: LatencySummary;
}

export interface HnswResult {
  M: number;
  efConstruction: number;
  buildSeconds: number;
  /** Which hnswlib build ran (hnswlib-reference.ts). */
  build: string;
  buildVectorsPerSecond: number;
  sweep: HnswPoint[];
}

function row(arena: Float32Array, i: number, dim: number): number[] {
  return Array.from(arena.subarray(i * dim, (i + 1) * dim));
}

type HnswIndex = InstanceType<typeof HierarchicalNSW>;

/** Builds the reference graph and sweeps ef; the graph is returned for the filtered reference. */
export function runHnsw(
  data: DenseData,
  truth: DenseTruth,
  k: number,
  queryLimit: number,
  maxSecondsPerEf: number,
  log: (s: string) => void,
): { result: HnswResult; index: HnswIndex } {
  const { n, dim } = data;
  const index = new HierarchicalNSW('cosine', dim);
  index.initIndex(n, HNSW_M, HNSW_EF_CONSTRUCTION, 100);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    index.addPoint(row(data.vectors, i, dim), i);
    if (i > 0 && i % 100_000 === 0) log(`  hnswlib: ${i} of ${n} inserted`);
  }
  const buildSeconds = (performance.now() - t0) / 1000;
  const sweep = sweepHnsw(index, data, truth, k, queryLimit, maxSecondsPerEf);
  return { result: { M: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, build: hnswlibBuild, buildSeconds, buildVectorsPerSecond: n / buildSeconds, sweep }, index };
}

/**
 * Recall and latency of the reference graph at each ef of EF_SWEEP, unfiltered. Run once
 * after the build and again beside Conifer's own query phases (harness.ts): on a shared VM
 * the same search can run at very different speeds minutes apart.
 */
export function sweepHnsw(index: HnswIndex, data: DenseData, truth: DenseTruth, k: number, queryLimit: number, maxSecondsPerEf: number): HnswPoint[] {
  const { dim } = data;
  const Q = Math.min(queryLimit, data.queryCount);
  const queries = Array.from({ length: Q }, (_, q) => row(data.queries, q, dim));
  const scoreOf = (q: number) => (id: number): number => dot(data.queries, q * dim, data.vectors, id * dim, dim);
  const sweep: HnswPoint[] = [];
  for (const ef of EF_SWEEP) {
    index.setEf(ef);
    for (let q = 0; q < Math.min(20, Q); q++) index.searchKnn(queries[q], k); // warm-up
    const latencies: number[] = [];
    const recalls: number[] = [];
    const start = performance.now();
    const deadline = start + maxSecondsPerEf * 1000;
    // Pass 1 measures recall; further passes (up to 5, while under ~1 s measured) only
    // add latency samples, so sub-millisecond timings are not a handful of noisy runs.
    let measuredMs = 0;
    for (let pass = 0; pass < 5 && (pass === 0 || measuredMs < 1000) && performance.now() < deadline; pass++) {
      const found: number[][] = [];
      for (let q = 0; q < Q && performance.now() < deadline; q++) {
        const t = performance.now();
        const { neighbors } = index.searchKnn(queries[q], k);
        const elapsed = performance.now() - t;
        latencies.push(elapsed);
        measuredMs += elapsed;
        if (pass === 0) found.push(neighbors);
      }
      if (pass === 0) found.forEach((nb, q) => recalls.push(recallAtK(nb, truthOf(truth, q, 0), k, scoreOf(q))));
    }
    const measured = latencies.reduce((a, b) => a + b, 0);
    sweep.push({ ef, recall: mean(recalls), qps: (latencies.length * 1000) / measured, latency: summarize(latencies) });
  }
  index.setEf(EF_SWEEP[0]);
  return sweep;
}

export interface FilteredHnswPoint {
  ef: number;
  queries: number;
  recall: number;
  qps: number;
  latency: LatencySummary;
}

/**
 * hnswlib's own filtered search: the filter as a callback inside the graph walk (a bucket
 * mask lookup, so the callback costs next to nothing). What a planner-less engine would
 * do; the report sets Conifer's planner beside it at each selectivity.
 */
export function runHnswFiltered(
  index: HnswIndex,
  data: DenseData,
  truth: DenseTruth,
  k: number,
  level: number,
  mask: Uint8Array,
  ef: number,
  queryLimit: number,
  maxSeconds: number,
): FilteredHnswPoint {
  const { dim, bucket } = data;
  index.setEf(ef);
  const allow = (label: number): boolean => mask[bucket[label]] === 1;
  const latencies: number[] = [];
  const recalls: number[] = [];
  const deadline = performance.now() + maxSeconds * 1000;
  const Q = Math.min(queryLimit, data.queryCount);
  for (let q = 0; q < Q && (q < 3 || performance.now() < deadline); q++) {
    const query = row(data.queries, q, dim);
    const t = performance.now();
    const { neighbors } = index.searchKnn(query, k, allow);
    latencies.push(performance.now() - t);
    recalls.push(recallAtK(neighbors, truthOf(truth, q, level), k));
  }
  const measured = latencies.reduce((a, b) => a + b, 0);
  return { ef, queries: latencies.length, recall: mean(recalls), qps: (latencies.length * 1000) / measured, latency: summarize(latencies) };
}

export interface BruteResult {
  recall: number;
  qps: number;
  latency: LatencySummary;
}

/** Single-thread exact scan of every record (the same dot product as the ground truth). */
export function runBruteForce(data: DenseData, truth: DenseTruth, k: number, queryLimit: number, maxSeconds: number): BruteResult {
  const { recall, qps, latency } = runExactFiltered(data, truth, k, 0, FILTERS[0].mask, queryLimit, maxSeconds);
  return { recall, qps, latency };
}

/** Exact scan of only the records that match (the pure scan strategy for filters). */
export function runExactFiltered(
  data: DenseData,
  truth: DenseTruth,
  k: number,
  level: number,
  mask: Uint8Array,
  queryLimit: number,
  maxSeconds: number,
): { queries: number; recall: number; qps: number; latency: LatencySummary } {
  const { n, dim, bucket } = data;
  // The matching records, found once (a planner knows them from its columns).
  const matching: number[] = [];
  for (let i = 0; i < n; i++) if (mask[bucket[i]] === 1) matching.push(i);
  const latencies: number[] = [];
  const recalls: number[] = [];
  const deadline = performance.now() + maxSeconds * 1000;
  const Q = Math.min(queryLimit, data.queryCount);
  for (let q = 0; q < Q && (q < 3 || performance.now() < deadline); q++) {
    const t = performance.now();
    const top = new TopK(k);
    const qi = q * dim;
    for (const i of matching) {
      const s = dot(data.queries, qi, data.vectors, i * dim, dim);
      if (s > top.floor) top.push(i, s);
    }
    latencies.push(performance.now() - t);
    recalls.push(recallAtK(Array.from(top.ids.subarray(0, top.size)), truthOf(truth, q, level), k));
  }
  const measured = latencies.reduce((a, b) => a + b, 0);
  return { queries: latencies.length, recall: mean(recalls), qps: (latencies.length * 1000) / measured, latency: summarize(latencies) };
}
