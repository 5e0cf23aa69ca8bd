// One namespace shaped like the medium benchmark's (bench/data.ts: clustered vectors,
// bucket/tag/labels metadata), held in a VectorSet as the engine worker holds it, with its
// graph fully built — for the in-process filter benches (filter-stages.ts,
// filter-crossover.ts). Building the graph of 100k × 384 takes minutes, so the built graph
// is cached under $TMPDIR (hnswlib's file plus the per-label flags and ids, keyed by the
// data's shape) and later runs restore it the way the engine restores a snapshot.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HnswGraph } from '../src/engine/graph/hnsw-graph.js';
import { VectorSet, type GraphOptions } from '../src/engine/vector-set.js';
import { generateDense, id, metadataOf, type DenseData } from './data.js';

export function cachedSet(count: number, dim: number, queries: number, options: GraphOptions): { set: VectorSet; data: DenseData } {
  const data = generateDense({ n: count, dim, clusters: Math.max(20, Math.round(count / 333)) }, queries);
  const set = new VectorSet(dim, 'cosine', { ...options, graphMinRecords: 1 });
  const upsertAll = (): void => {
    for (let i = 0; i < count; i++) {
      set.upsert(i + 1, { id: id(i), values: data.vectors.subarray(i * dim, (i + 1) * dim), metadata: metadataOf(data, i) });
    }
  };
  const cacheDir = join(tmpdir(), `conifer-filter-bench-${count}x${dim}`);
  const graphFile = join(cacheDir, 'graph');
  const stateFile = join(cacheDir, 'state.json');
  if (existsSync(stateFile)) {
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { seq: number; ids: (string | null)[]; indexed: number[]; inGraph: number[] };
    const graph = HnswGraph.load('cosine', dim, graphFile, Uint8Array.from(state.indexed), Uint8Array.from(state.inGraph));
    set.restore(graph, state.ids, state.seq);
    upsertAll();
    set.finishRestore();
    console.log(`${count} × ${dim}: graph read from ${cacheDir}`);
  } else {
    upsertAll();
    const start = performance.now();
    while (set.hasWork) set.work(performance.now() + 1000);
    console.log(`${count} × ${dim}: graph built in ${((performance.now() - start) / 1000).toFixed(1)} s (cached in ${cacheDir})`);
    const snap = set.snapshot('', count);
    if (!snap) throw new Error('no graph was built');
    mkdirSync(cacheDir, { recursive: true });
    snap.writeGraph(graphFile);
    const { seq, ids, indexed, inGraph } = snap.state;
    writeFileSync(stateFile, JSON.stringify({ seq, ids, indexed: [...indexed], inGraph: [...inGraph] }));
  }
  if (set.hasWork || set.unindexed > 0) throw new Error('the graph is incomplete');
  return { set, data };
}
