// Where a filtered query should switch from an exact scan of its matches to the HNSW walk
// with the filter inside: `node dist/bench/filter-crossover.js [count] [dim] [queries]`
// (defaults 100000 × 384, 50 queries). In-process, on one VectorSet the way the worker
// holds a namespace (metadata in columns, the graph fully built: bench/cached-set.ts),
// each selectivity is searched both ways — the `exact` switch (a scan over the matching
// labels) and the graph at the planner's filtered ef (planner/plan.ts filteredWalkEf;
// filteredExactFactor 0 forces the graph above topK matches) — and the p50s are printed with the match count where the
// graph becomes faster, as a multiple of √(ef·N): the planner's crossover factor
// (planner/plan.ts). The filter is evaluated on the columns in both timings, as in a real
// query. Data: the benchmark's clustered, embedding-like vectors (bench/data.ts) with its
// bucket metadata (uniform random vectors would make the graph look far worse than it is
// on real embeddings).
import { parseFilterNode } from '../src/engine/filter.js';
import { DEFAULT_GRAPH_OPTIONS, type SearchTrace } from '../src/engine/vector-set.js';
import { cachedSet } from './cached-set.js';

const count = Number(process.argv[2] ?? 100_000);
const dim = Number(process.argv[3] ?? 384);
const queries = Number(process.argv[4] ?? 50);
const K = 10;

const { set, data } = cachedSet(count, dim, queries, { ...DEFAULT_GRAPH_OPTIONS, filteredExactFactor: 0 });

const qs = Array.from({ length: queries }, (_, q) => data.queries.subarray(q * dim, (q + 1) * dim));
const p50 = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log('buckets\tmatches\tef\texact p50 ms\tgraph p50 ms\tgraph recall');
let crossover: { matches: number; ef: number } | undefined;
for (const limit of [1, 2, 3, 5, 10, 15, 20, 25, 30, 40, 50, 100, 200, 500]) {
  const filter = parseFilterNode({ bucket: { $lt: limit } });
  const exactMs: number[] = [];
  const graphMs: number[] = [];
  let found = 0;
  let matches = 0;
  let ef = 0;
  for (const dense of qs) {
    let t = performance.now();
    const want = set.search({ dense, topK: K, filter, exact: true });
    exactMs.push(performance.now() - t);
    const trace: SearchTrace = {};
    t = performance.now();
    const got = set.search({ dense, topK: K, filter, trace });
    graphMs.push(performance.now() - t);
    matches = trace.matches ?? 0;
    ef = trace.ef ?? 0;
    // At most topK matches the planner always scans (nothing to compare).
    if (trace.plan !== 'graph' && matches > K) throw new Error(`expected the graph plan, got ${trace.plan}`);
    const ids = new Set(want.map((h) => h.id));
    found += got.filter((h) => ids.has(h.id)).length / Math.max(1, want.length);
  }
  const e = p50(exactMs);
  const g = p50(graphMs);
  if (crossover === undefined && matches > K && g < e) crossover = { matches, ef };
  console.log(`${limit}\t${matches}\t${ef}\t${e.toFixed(2)}\t${g.toFixed(2)}\t${(found / qs.length).toFixed(3)}`);
}
console.log(
  crossover === undefined
    ? 'the graph was never faster'
    : `graph faster from ${crossover.matches} matches = ${(crossover.matches / Math.sqrt(crossover.ef * count)).toFixed(2)} · √(ef·N) ` +
        `(ef ${crossover.ef}, N ${count}); the measured crossover lies between this row and the one before`,
);
