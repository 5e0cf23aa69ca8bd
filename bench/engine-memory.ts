// The engine's memory per vector, broken down, and its graph build time against hnswlib's
// own: `node --expose-gc dist/bench/engine-memory.js [count] [dim] [--json]` (defaults 100000 × 384).
//
// Same seeded clustered data as the benchmark, loaded into VectorSets the way the worker
// loads them. Each part is the growth of one more structure, all kept alive, in
// JavaScript bytes (V8 heap + ArrayBuffers, exact after a GC) plus, for the graphs,
// native bytes (RSS growth beyond the JavaScript bytes):
//   ids       a dimension-0 set (labels, id strings, the id→label map, seqs)
//   metadata  a dense set with the benchmark's metadata, minus one without (whose growth
//             minus ids is also printed: the arena holding every vector, as it does
//             without a graph)
//   vectors   what the arena of a fourth set (no metadata) still holds once its HNSW graph
//             has every record: norms and a state byte per label (vectors/arena.ts)
//   graph     the rest of that fourth set's growth, minus ids: the graph, whose nodes are
//             then the one copy of each vector; it grows from the first record and is
//             built through VectorSet.work() as the worker does
// and, as the reference, a bare hnswlib-node index of the same vectors built in one loop
// (bench/references.ts's parameters): its RSS growth and build time.
//
// The native figures are RSS deltas, noisy (allocator pools): read them to ±10 %.
import { hnswlib } from './hnswlib-reference.js';
import { generateDense, metadataOf } from './data.js';
import { HNSW_EF_CONSTRUCTION, HNSW_M } from './references.js';
import { VectorSet } from '../src/engine/vector-set.js';
import { nativeAddon } from '../src/engine/native-addon.js';
import type { EngineMemory } from './harness.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const count = Number(args[0] ?? 100_000);
const dim = Number(args[1] ?? 384);
// --json: one line of EngineMemory, without the bare hnswlib reference (the benchmark
// runs this script for its report and has its own hnswlib build).
const asJson = process.argv.includes('--json');
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
// JavaScript-side bytes (V8 heap in use + ArrayBuffers) are exact after a GC; RSS also
// counts native memory (hnswlib) but moves with allocator pools and heap reservations.
const usage = (): { js: number; rss: number } => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { js: m.heapUsed + m.arrayBuffers, rss: m.rss };
};

const data = generateDense({ n: count, dim, clusters: Math.max(10, Math.round(count / 330)) }, 1, 1);
const vectorOf = (i: number): Float32Array => data.vectors.slice(i * dim, (i + 1) * dim);
const idOf = (i: number): string => `vec-${i.toString().padStart(8, '0')}`;
const noGraph = { graphMinRecords: Number.MAX_SAFE_INTEGER, defaultEf: 100 };

// Freed native memory malloc still holds (the arena's dropped chunks, insert scratch)
// goes back to the system before each reading, as the server's quiet release does
// (worker/quiet-release.ts), so RSS counts what is in use.
await nativeAddon?.releaseFreeMemory();
let mark = usage();
/** Growth since the previous step: JavaScript bytes, and native bytes (RSS growth beyond them). */
const step = async (): Promise<{ js: number; native: number }> => {
  gc();
  await nativeAddon?.releaseFreeMemory();
  const now = usage();
  const js = now.js - mark.js;
  const grown = { js, native: now.rss - mark.rss - js };
  mark = now;
  return grown;
};

const idsOnly = new VectorSet(0, 'cosine', noGraph);
for (let i = 0; i < count; i++) idsOnly.upsert(i + 1, { id: idOf(i) });
const ids = (await step()).js;

const bare = new VectorSet(dim, 'cosine', noGraph);
for (let i = 0; i < count; i++) bare.upsert(i + 1, { id: idOf(i), values: vectorOf(i) });
const arenaAlone = (await step()).js - ids;

const withMetadata = new VectorSet(dim, 'cosine', noGraph);
for (let i = 0; i < count; i++) withMetadata.upsert(i + 1, { id: idOf(i), values: vectorOf(i), metadata: metadataOf(data, i) });
const metadata = (await step()).js - ids - arenaAlone;

// A fourth set, without metadata, with a graph from its first record (as the worker grows one).
const full = new VectorSet(dim, 'cosine', { graphMinRecords: 1, defaultEf: 100 });
for (let i = 0; i < count; i++) full.upsert(i + 1, { id: idOf(i), values: vectorOf(i) });

let started = performance.now();
while (full.hasWork) full.work(performance.now() + 4); // the worker's 4 ms slices
const engineBuildSeconds = (performance.now() - started) / 1000;
const grown = await step();
const vectors = full.vectorBytes;
const graph = grown.js + grown.native - ids - vectors;

const raw = dim * 4;
const total = ids + vectors + metadata + graph;
if (asJson) {
  const perVector = (bytes: number): number => Math.round(bytes / count);
  const out: EngineMemory = {
    count,
    dim,
    ids: perVector(ids),
    vectors: perVector(vectors),
    metadata: perVector(metadata),
    graph: perVector(graph),
    total: perVector(total),
    engineBuildSeconds,
  };
  console.log(JSON.stringify(out));
  process.exit(0);
}
const reference = new hnswlib.HierarchicalNSW('cosine', dim);
reference.initIndex(count, HNSW_M, HNSW_EF_CONSTRUCTION, 100);
started = performance.now();
for (let i = 0; i < count; i++) reference.addPoint(Array.from(data.vectors.subarray(i * dim, (i + 1) * dim)), i);
const referenceBuildSeconds = (performance.now() - started) / 1000;
const referenceIndex = (await step()).native;

const per = (bytes: number): string => `${Math.round(bytes / count).toLocaleString('en-US')} B`.padStart(9);
const ratio = (bytes: number): string => `${(bytes / count / raw).toFixed(2)}× raw`;
console.log(`${count.toLocaleString('en-US')} × ${dim}, raw float32 ${raw} B per vector; memory growth per vector:`);
console.log(`  ids (labels, id strings, map, seqs) ${per(ids)}`);
console.log(`  arena beside the graph (norms, state) ${per(vectors)}  (without a graph it holds every vector: ${per(arenaAlone)}, ${ratio(arenaAlone)})`);
console.log(`  metadata columns                    ${per(metadata)}`);
console.log(`  HNSW graph (M ${HNSW_M})                   ${per(graph)}  (of which the one copy of the vector: ${raw} B)`);
console.log(`  total                               ${per(total)}  (${ratio(total)})`);
console.log(`  bare hnswlib-node index, same data  ${per(referenceIndex)}`);
console.log(
  `graph build: engine ${engineBuildSeconds.toFixed(1)} s, bare hnswlib ${referenceBuildSeconds.toFixed(1)} s ` +
    `(engine ÷ hnswlib ${(engineBuildSeconds / referenceBuildSeconds).toFixed(2)}×); kept: ${idsOnly.size} ${bare.size} ${withMetadata.size} ${full.size} ${reference.getCurrentCount()}`,
);

