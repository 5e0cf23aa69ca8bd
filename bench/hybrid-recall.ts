// Hybrid recall on data unlike the bench's, inside the engine: `node
// dist/bench/hybrid-recall.js [records] [dim]` (defaults 19000 × 8). Dense values uniform
// in [-1, 1] (not normalised), and 1-40 sparse non-zeros per record and query over a
// skewed vocabulary of ~2,000 dimensions (plus one in ten anywhere below 2^32), 30 % of
// them with weights of both signs: the shape of an outside probe that found recall@10
// 0.89 at 19k × 8. Prints, for 60 queries (topK 10) on a dotproduct namespace with a
// graph: hybrid recall@10 against exact hybrid scoring, on how many queries the threshold
// step ran and on how many an exact scan replaced the candidates' answer
// (sparse/hybrid.ts), for hybrid search as it is and with its first candidates alone, the
// p50s, the exact scan's, and the graph's dense-only recall@10 on the same vectors, which
// bounds what hybrid search can reach when its step runs.
import { DEFAULT_GRAPH_OPTIONS, VectorSet, type SearchTrace } from '../src/engine/vector-set.js';
import { Rng } from './prng.js';

const count = Number(process.argv[2] ?? 19_000);
const dim = Number(process.argv[3] ?? 8);
const queries = 60;
const k = 10;
const rng = new Rng(2024);
const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dense = (): Float32Array => Float32Array.from({ length: dim }, () => rng.next() * 2 - 1);
const sparse = (): { indices: Uint32Array; values: Float32Array } => {
  const n = 1 + rng.int(40);
  const chosen = new Set<number>();
  while (chosen.size < n) chosen.add(rng.next() < 0.9 ? Math.floor(2000 * rng.next() * rng.next()) : rng.int(4294967295));
  const indices = Uint32Array.from([...chosen].sort((a, b) => a - b));
  const signed = rng.next() < 0.3;
  return { indices, values: Float32Array.from(indices, () => (signed ? rng.next() * 2 - 1 : rng.next())) };
};

const set = new VectorSet(dim, 'dotproduct', DEFAULT_GRAPH_OPTIONS);
for (let i = 0; i < count; i++) set.upsert(i + 1, { id: `v${i}`, values: dense(), sparse: sparse() });
while (set.hasWork) set.work(performance.now() + 1000);

// Each query twice: as hybrid search answers it, and with the first candidates alone (no
// growth of the dense candidates, no exact scan instead: sparse/hybrid.ts steps 1-2).
const runs = [
  { label: 'default', options: {} },
  { label: 'first candidates only', options: { hybridMaxDense: 0, hybridExactFallbackCost: 0 } },
];
const found = [0, 0];
const bounded = [0, 0];
const instead = [0, 0];
const ms: number[][] = [[], []];
const exactMs: number[] = [];
let denseFound = 0;
for (let q = 0; q < queries; q++) {
  const query = { dense: dense(), sparse: sparse(), topK: k };
  let t = performance.now();
  const truth = new Set(set.search({ ...query, exact: true }).map((h) => h.id));
  exactMs.push(performance.now() - t);
  runs.forEach(({ options }, r) => {
    const trace: SearchTrace = {};
    t = performance.now();
    const got = set.search({ ...query, ...options, trace });
    ms[r].push(performance.now() - t);
    found[r] += got.filter((h) => truth.has(h.id)).length;
    if (trace.hybridBounded) bounded[r]++;
    if (trace.hybridExactInstead) instead[r]++;
  });
  const denseTruth = new Set(set.search({ dense: query.dense, topK: k, exact: true }).map((h) => h.id));
  denseFound += set.search({ dense: query.dense, topK: k }).filter((h) => denseTruth.has(h.id)).length;
}
console.log(`${count} records × ${dim}-d, ${queries} queries, topK ${k}; exact scan p50 ${p50(exactMs).toFixed(3)} ms; the graph's dense-only recall@${k} ${(denseFound / queries / k).toFixed(3)}`);
runs.forEach(({ label }, r) =>
  console.log(
    `  hybrid, ${label}: recall@${k} ${(found[r] / queries / k).toFixed(3)}, p50 ${p50(ms[r]).toFixed(3)} ms; threshold step ran on ${bounded[r]}/${queries}, exact scan instead on ${instead[r]}/${queries}`,
  ),
);
