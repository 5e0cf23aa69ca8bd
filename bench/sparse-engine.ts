// Sparse and hybrid search inside the engine, without HTTP: `node --expose-gc
// dist/bench/sparse-engine.js [records] [dim] [--no-hybrid]` (defaults 20000 × 384). Loads the bench's
// sparse data (bench/data.ts generateSparse) into a sparse-only namespace and, with the
// bench's dense vectors, into a hybrid one (dotproduct, with a graph); prints sparse
// memory per record, sparse-only latency and agreement with the exact scan, the
// inverted index's MaxScore and head-column search against plain accumulation (same run,
// queries with and without negative weights apart), hybrid recall@10 against exact hybrid scoring for
// several dense-candidate multiples (sparse/hybrid.ts), the postings' candidates scored in
// two stages against all at once, and a dense graph query on the same set as the yardstick
// (the targets are ratios to it: sparse-only ≤ 1×, hybrid ≤ 2×). The inverted index is
// timed on both its paths, native (native/sparse-search.cc) and JavaScript.
import { nativeAddon } from '../src/engine/native-addon.js';
import { prepareSparse, SparseIndex } from '../src/engine/sparse/sparse-index.js';
import { VectorSet, type SearchTrace } from '../src/engine/vector-set.js';
import { HYBRID_CANDIDATE_MULTIPLE } from '../src/engine/sparse/hybrid.js';
import { generateDense, generateSparse } from './data.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const count = Number(args[0] ?? 20_000);
const dim = Number(args[1] ?? 384);
const withHybrid = !process.argv.includes('--no-hybrid');
const queries = 200;
const k = 10;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const rss = (): number => {
  gc();
  return process.memoryUsage().rss;
};
const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const id = (i: number): string => `vec-${i.toString().padStart(8, '0')}`;

const sparse = generateSparse(count, queries);
let pairs = 0;
for (const r of sparse.records) pairs += r.indices.length;
console.log(`${count} sparse records, ${(pairs / count).toFixed(1)} non-zeros each on average`);

// Sparse-only.
const before = rss();
const sparseSet = new VectorSet(0, 'dotproduct');
let t0 = performance.now();
for (let i = 0; i < count; i++) sparseSet.upsert(i + 1, { id: id(i), sparse: sparse.records[i] });
const sparseLoadMs = performance.now() - t0;
const after = rss();
console.log(`sparse load ${Math.round(count / (sparseLoadMs / 1000))} records/s in the engine`);
console.log(`sparse memory: ${Math.round(sparseSet.sparseBytes / count)} B/record in typed arrays (values + postings); RSS growth ${Math.round((after - before) / count)} B/record incl. ids and labels`);

const fast: number[] = [];
const exact: number[] = [];
let agree = 0;
for (let q = 0; q < queries; q++) {
  const s = sparse.queries[q];
  t0 = performance.now();
  const got = sparseSet.search({ sparse: s, topK: k });
  fast.push(performance.now() - t0);
  t0 = performance.now();
  const want = sparseSet.search({ sparse: s, topK: k, exact: true });
  exact.push(performance.now() - t0);
  if (JSON.stringify(got) === JSON.stringify(want)) agree++;
}
const pos = sparse.queries.filter((s) => !s.values.some((v) => v < 0)).length;
console.log(`sparse-only top-${k}: p50 ${p50(fast).toFixed(2)} ms (inverted index) vs ${p50(exact).toFixed(2)} ms (exact scan); identical results ${agree}/${queries} (${pos} queries without negative weights)`);

// The inverted index alone: plain accumulation, MaxScore, and (natively) the search through
// head columns that sparse-only queries use (sparse/head-columns.ts), interleaved per query
// so machine noise hits all alike.
const paths: [string, SparseIndex][] = [['JavaScript', new SparseIndex(null)]];
if (nativeAddon) paths.push(['native', new SparseIndex(nativeAddon)]);
for (const [, index] of paths) for (let i = 0; i < count; i++) index.set(i + 1, sparse.records[i]);
const idOf = (label: number): string => id(label - 1);
for (const negative of [false, true]) {
  const prepared = sparse.queries.map(prepareSparse).filter((p) => p.nonNegative !== negative);
  const strategies = ['plain', 'maxscore', 'auto'] as const;
  const ms = paths.map(() => ({ plain: [] as number[], maxscore: [] as number[], auto: [] as number[] }));
  let same = 0;
  for (let round = 0; round < 3; round++) {
    for (const p of prepared) {
      const answers: string[] = [];
      paths.forEach(([, index], at) => {
        for (const strategy of strategies) {
          t0 = performance.now();
          const got = index.search(p, k, idOf, undefined, strategy);
          ms[at][strategy].push(performance.now() - t0);
          answers.push(JSON.stringify(got));
        }
      });
      if (round === 0 && answers.every((a) => a === answers[0])) same++;
    }
  }
  const figures = paths
    .map(([name, index], at) => {
      const head = index.headColumns > 0 ? `, head columns ${p50(ms[at].auto).toFixed(3)} ms` : '';
      return `${name} plain ${p50(ms[at].plain).toFixed(3)} ms, MaxScore ${p50(ms[at].maxscore).toFixed(3)} ms${head}`;
    })
    .join('; ');
  console.log(`inverted index p50, ${prepared.length} queries ${negative ? 'with' : 'without'} negative weights: ${figures}; identical on every path ${same}/${prepared.length}`);
}
for (const [name, index] of paths) {
  if (index.headColumns > 0) console.log(`${name}: ${index.headColumns} head columns, ${Math.round(index.bytes / count)} B/record in typed arrays with them`);
}
if (!withHybrid) process.exit(0);

// Hybrid on a dotproduct index with a graph.
const dense = generateDense({ n: count, dim, clusters: Math.max(20, Math.round(count / 330)) }, queries);
const hybrid = new VectorSet(dim, 'dotproduct', { graphMinRecords: 5000, defaultEf: 100 });
for (let i = 0; i < count; i++) {
  hybrid.upsert(i + 1, { id: id(i), values: dense.vectors.subarray(i * dim, (i + 1) * dim), sparse: sparse.records[i] });
}
t0 = performance.now();
while (hybrid.hasWork) hybrid.work(performance.now() + 1000);
console.log(`hybrid graph built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const truth: Set<string>[] = [];
const exactMs: number[] = [];
for (let q = 0; q < queries; q++) {
  t0 = performance.now();
  truth.push(new Set(hybrid.search({ dense: dense.queries.subarray(q * dim, (q + 1) * dim), sparse: sparse.queries[q], topK: k, exact: true }).map((h) => h.id)));
  exactMs.push(performance.now() - t0);
}
console.log(`hybrid exact scan p50 ${p50(exactMs).toFixed(2)} ms`);
// The yardstick, interleaved with sparse-only queries on the sparse set so machine noise
// hits both alike.
const denseMs: number[] = [];
const sparseMs: number[] = [];
const pathMs = paths.map((): number[] => []);
const preparedQueries = sparse.queries.map(prepareSparse);
for (let round = 0; round < 3; round++) {
  for (let q = 0; q < queries; q++) {
    t0 = performance.now();
    hybrid.search({ dense: dense.queries.subarray(q * dim, (q + 1) * dim), topK: k });
    denseMs.push(performance.now() - t0);
    t0 = performance.now();
    sparseSet.search({ sparse: sparse.queries[q], topK: k });
    sparseMs.push(performance.now() - t0);
    paths.forEach(([, index], at) => {
      t0 = performance.now();
      index.search(preparedQueries[q], k, idOf);
      pathMs[at].push(performance.now() - t0);
    });
  }
}
const denseP50 = p50(denseMs);
const ratio = (xs: number[]): string => `${p50(xs).toFixed(3)} ms (${(p50(xs) / denseP50).toFixed(2)}× dense)`;
console.log(`dense graph query p50 ${denseP50.toFixed(3)} ms; sparse-only p50 ${ratio(sparseMs)}; inverted index alone: ${paths.map(([name], at) => `${name} ${ratio(pathMs[at])}`).join(', ')}`);
// Candidate multiples against threshold-step limits (sparse/hybrid.ts): recall and cost.
const limits: [string, { maxPostings: number; maxRecords: number } | undefined][] = [
  ['default limits', undefined],
  ['no threshold step', { maxPostings: 0, maxRecords: 0 }],
  ['limits 25k postings/200 records', { maxPostings: 25_000, maxRecords: 200 }],
  ['limits 50k/500', { maxPostings: 50_000, maxRecords: 500 }],
  ['limits 250k/5000', { maxPostings: 250_000, maxRecords: 5000 }],
];
for (const multiple of [undefined, 2, 5, 10, 20]) {
  for (const [limitsLabel, thresholdLimits] of limits) {
    let found = 0;
    let wanted = 0;
    let bounded = 0;
    const ms: number[] = [];
    for (let q = 0; q < queries; q++) {
      const trace: SearchTrace = {};
      t0 = performance.now();
      const got = hybrid.search({
        dense: dense.queries.subarray(q * dim, (q + 1) * dim),
        sparse: sparse.queries[q],
        topK: k,
        hybridMultiple: multiple,
        hybridThresholdLimits: thresholdLimits,
        trace,
      });
      ms.push(performance.now() - t0);
      if (trace.hybridBounded) bounded++;
      wanted += truth[q].size;
      found += got.filter((h) => truth[q].has(h.id)).length;
    }
    const label = multiple === undefined ? 'default' : `${multiple}×topK`;
    console.log(`hybrid, dense candidates ${label}, ${limitsLabel}: recall@${k} ${(found / wanted).toFixed(4)}, p50 ${p50(ms).toFixed(3)} ms (${(p50(ms) / denseP50).toFixed(2)}× dense), threshold step ran ${bounded}/${queries}`);
    if (multiple === undefined && thresholdLimits !== undefined) break;
  }
}

// The postings' candidates in two stages (sparse/hybrid.ts HYBRID_POSTINGS_FIRST) against
// all scored at once, and the default search without its step 2b (the sparse side's exact
// top), with the query's sparse weights as generated and ×20 (the sparse part
// dominating). Each round runs every query once, on one of the four searches in turn
// (dense alone and the three hybrid ones), so no search reruns a query whose records the
// previous one just brought into the caches: each meets memory as a server's stream of
// different queries does.
for (const scale of [1, 20]) {
  const scaled = sparse.queries.map((s) => (scale === 1 ? s : { indices: s.indices, values: Float32Array.from(s.values, (v) => v * scale) }));
  const scaledTruth = scaled.map((s, q) => new Set(hybrid.search({ dense: dense.queries.subarray(q * dim, (q + 1) * dim), sparse: s, topK: k, exact: true }).map((h) => h.id)));
  // [postings first stage, step 2b] per hybrid variant; the last slot is dense alone.
  const variants: [number | undefined, boolean | undefined][] = [[undefined, undefined], [HYBRID_CANDIDATE_MULTIPLE, undefined], [undefined, false]];
  const DENSE = variants.length;
  const ms: number[][] = [[], [], [], []];
  const found = [0, 0, 0];
  const second = [0, 0, 0];
  const sparseTop = [0, 0, 0];
  const bounded = [0, 0, 0];
  let wanted = 0;
  for (const t of scaledTruth) wanted += t.size;
  for (let round = 0; round < 8; round++) {
    for (let q = 0; q < queries; q++) {
      const which = (q + round) % 4;
      const dq = dense.queries.subarray(q * dim, (q + 1) * dim);
      const trace: SearchTrace = {};
      t0 = performance.now();
      const got =
        which === DENSE
          ? hybrid.search({ dense: dq, topK: k })
          : hybrid.search({ dense: dq, sparse: scaled[q], topK: k, hybridPostingsFirst: variants[which][0], hybridSparseTop: variants[which][1], trace });
      ms[which].push(performance.now() - t0);
      if (which === DENSE || round >= 4) continue;
      found[which] += got.filter((h) => scaledTruth[q].has(h.id)).length;
      if (trace.hybridAllPostings) second[which]++;
      if (trace.hybridSparseTop) sparseTop[which]++;
      if (trace.hybridBounded) bounded[which]++;
    }
  }
  const d = p50(ms[DENSE]);
  const line = (which: number, label: string): string =>
    `${label}: recall@${k} ${(found[which] / wanted).toFixed(4)}, p50 ${p50(ms[which]).toFixed(3)} ms (${(p50(ms[which]) / d).toFixed(2)}× dense), ` +
    `second stage ${second[which]}/${queries}, step 2b ${sparseTop[which]}/${queries}, bounded ${bounded[which]}/${queries}`;
  console.log(
    `hybrid postings candidates, sparse weights ×${scale}, queries spread (dense p50 ${d.toFixed(3)} ms): ${line(0, 'default (two stages)')}; ${line(1, 'all at once')}; ${line(2, 'two stages without step 2b')}`,
  );
}
