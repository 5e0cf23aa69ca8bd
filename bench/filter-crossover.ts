// Where a filtered query should switch from an exact scan of its matches to the HNSW walk
// with the filter inside: `node dist/bench/filter-crossover.js [count] [dim] [queries]`
// (defaults 100000 × 384, 50 queries). In-process, on one VectorSet the way the worker
// holds a namespace (metadata in columns, the graph fully built), each selectivity is
// searched both ways — the `exact` switch (a scan over the matching labels) and the
// graph (filteredExactFactor 0 forces it above topK matches) — and the p50s are printed
// with the match count where the graph becomes faster, as a multiple of √(ef·N): the
// planner's crossover factor (planner/plan.ts). The filter is evaluated on the columns in
// both timings, as in a real query. Data: the benchmark's clustered, embedding-like
// vectors (bench/data.ts) with its bucket metadata (uniform random vectors would make the
// graph look far worse than it is on real embeddings).
import { parseFilterNode } from '../src/engine/filter.js';
import { VectorSet, type SearchTrace } from '../src/engine/vector-set.js';
import { generateDense } from './data.js';

const count = Number(process.argv[2] ?? 100_000);
const dim = Number(process.argv[3] ?? 384);
const queries = Number(process.argv[4] ?? 50);
const EF = 100; // the engine's default ef (DEFAULT_GRAPH_OPTIONS)
const K = 10;

const data = generateDense({ n: count, dim, clusters: Math.max(20, Math.round(count / 333)) }, queries);
const set = new VectorSet(dim, 'cosine', { graphMinRecords: 1, defaultEf: EF, filteredExactFactor: 0 });
for (let i = 0; i < count; i++) {
  set.upsert(i + 1, { id: `vec-${i}`, values: data.vectors.subarray(i * dim, (i + 1) * dim), metadata: { bucket: data.bucket[i] } });
}
const buildStart = performance.now();
while (set.hasWork) set.work(performance.now() + 1000);
console.log(`${count} × ${dim}: graph built in ${((performance.now() - buildStart) / 1000).toFixed(1)} s`);

const qs = Array.from({ length: queries }, (_, q) => data.queries.subarray(q * dim, (q + 1) * dim));
const p50 = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log('buckets\tmatches\texact p50 ms\tgraph p50 ms\tgraph recall');
let crossover: number | undefined;
for (const limit of [1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500]) {
  const filter = parseFilterNode({ bucket: { $lt: limit } });
  const exactMs: number[] = [];
  const graphMs: number[] = [];
  let found = 0;
  let matches = 0;
  for (const dense of qs) {
    let t = performance.now();
    const want = set.search({ dense, topK: K, filter, exact: true });
    exactMs.push(performance.now() - t);
    const trace: SearchTrace = {};
    t = performance.now();
    const got = set.search({ dense, topK: K, filter, trace });
    graphMs.push(performance.now() - t);
    matches = trace.matches ?? 0;
    // At most topK matches the planner always scans (nothing to compare).
    if (trace.plan !== 'graph' && matches > K) throw new Error(`expected the graph plan, got ${trace.plan}`);
    const ids = new Set(want.map((h) => h.id));
    found += got.filter((h) => ids.has(h.id)).length / Math.max(1, want.length);
  }
  const e = p50(exactMs);
  const g = p50(graphMs);
  if (crossover === undefined && matches > K && g < e) crossover = matches;
  console.log(`${limit}\t${matches}\t${e.toFixed(2)}\t${g.toFixed(2)}\t${(found / qs.length).toFixed(3)}`);
}
const unit = Math.sqrt(EF * count);
console.log(
  crossover === undefined
    ? 'the graph was never faster'
    : `graph faster from ${crossover} matches = ${(crossover / unit).toFixed(2)} · √(ef·N) (ef ${EF}, N ${count}); ` +
        `the measured crossover lies between this row and the one before`,
);
