// RSS growth per vector inside the engine, with a breakdown: `node dist/bench/engine-memory.js
// [count] [dim]` (defaults 100000 × 384). Loads records into one namespace's VectorSet the
// way the worker does, measures RSS after the records (arena, ids, labels, seqs) and after
// the HNSW graph is built, and prints bytes per vector against raw float32 bytes.
// Run with --expose-gc for steadier figures.
import { VectorSet } from '../src/engine/vector-set.js';
import { Rng } from './prng.js';

const count = Number(process.argv[2] ?? 100_000);
const dim = Number(process.argv[3] ?? 384);
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const rss = (): number => {
  gc();
  return process.memoryUsage().rss;
};

const rng = new Rng(1);
const rand = (): number => rng.next();
const base = rss();
// A graph threshold above `count` first: the records alone.
const set = new VectorSet(dim, 'cosine', { graphMinRecords: Number.MAX_SAFE_INTEGER, defaultEf: 100 });
const values = new Float32Array(dim);
for (let i = 0; i < count; i++) {
  for (let d = 0; d < dim; d++) values[d] = rand() * 2 - 1;
  set.upsert(i + 1, { id: `vec-${i.toString().padStart(8, '0')}`, values });
}
const afterRecords = rss();
const withGraph = new VectorSet(dim, 'cosine', { graphMinRecords: 1, defaultEf: 100 });
const beforeGraphCopy = rss();
for (let i = 0; i < count; i++) {
  for (let d = 0; d < dim; d++) values[d] = rand() * 2 - 1;
  withGraph.upsert(i + 1, { id: `vec-${i.toString().padStart(8, '0')}`, values });
}
const started = performance.now();
while (withGraph.hasWork) withGraph.work(performance.now() + 1000);
const buildSeconds = (performance.now() - started) / 1000;
const afterGraph = rss();

const raw = dim * 4;
const perVector = (bytes: number): string => `${Math.round(bytes / count)} B (${(bytes / count / raw).toFixed(2)}× raw)`;
console.log(`${count} × ${dim}, raw float32 ${raw} B per vector`);
console.log(`records only (arena + norms + ids + labels + seqs): ${perVector(afterRecords - base)}`);
console.log(`records + HNSW graph (M 16): ${perVector(afterGraph - beforeGraphCopy)}; graph ≈ ${perVector(afterGraph - beforeGraphCopy - (afterRecords - base))}`);
console.log(`graph build ${buildSeconds.toFixed(1)} s (${Math.round(count / buildSeconds)} vectors/s); sizes kept: ${set.size} ${withGraph.size}`);
