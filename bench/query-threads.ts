// Query throughput of one index against the threads a batch of its queries is searched on
// (CONIFER_QUERY_THREADS; engine-worker.ts "Query batches"), in this process, without HTTP:
// the engine's own EngineIndex over the bench's dense data, every record in a graph, its
// queries answered in batches of 1, 2, 4 and 8 by queryBatch() on 1 and 2 threads. Checks
// that every configuration gives the answers of one query at a time, then prints QPS per
// configuration and against one thread. What it shows is the ceiling the worker's thread
// sets on one index's queries, and how much of it a second thread lifts; over HTTP the
// HTTP thread and the client take their share of the cores too.
// Then the same for sparse-only searches (SparseIndex.searchMany) over the bench's sparse
// data (`--sparse` records, ~120 non-zeros each, Zipf-like terms; its 200 queries cycled).
//   npx tsc -p tsconfig.json && node dist/bench/query-threads.js [--n 50000] [--dim 384] [--queries 2000] [--sparse 100000]
import { availableParallelism } from 'node:os';
import { EngineIndex } from '../src/engine/engine-index.js';
import type { EngineMatch, EngineQuery } from '../src/engine/protocol.js';
import { DEFAULT_GRAPH_OPTIONS } from '../src/engine/vector-set.js';
import { prepareSparse, SparseIndex, type SparseHit } from '../src/engine/sparse/sparse-index.js';
import { generateDense, generateSparse, metadataOf } from './data.js';
import { flag, TOP_K } from './dense-fixture.js';

const n = Number(flag('n', '50000'));
const dim = Number(flag('dim', '384'));
const queries = Number(flag('queries', '2000'));
const data = generateDense({ n, dim, clusters: 100 }, Math.min(1000, queries));

const engine = new EngineIndex({ dimension: dim, metric: 'cosine' }, { ...DEFAULT_GRAPH_OPTIONS, insertThreads: Math.min(4, availableParallelism()) });
const built = performance.now();
for (let i = 0; i < n; i++) {
  engine.apply({ kind: 'upsert', ns: '', seq: i + 1, record: { id: `v${i}`, values: data.vectors.slice(i * dim, (i + 1) * dim), metadata: metadataOf(data, i) } });
}
for (let i = 0; i < 1_000_000 && engine.hasWork; i++) engine.work(performance.now() + 100);
console.log(`${n} × ${dim} cosine, every record in a graph after ${((performance.now() - built) / 1000).toFixed(1)} s; ${queries} queries per configuration, ${availableParallelism()} cores`);

const all: EngineQuery[] = Array.from({ length: queries }, (_, q) => ({
  namespace: '',
  topK: TOP_K,
  dense: data.queries.slice((q % data.queryCount) * dim, ((q % data.queryCount) + 1) * dim),
  includeValues: false,
  includeMetadata: true,
}));

function run(batch: number, threads: number): { qps: number; answers: EngineMatch[][] } {
  const answers: EngineMatch[][] = [];
  const started = performance.now();
  for (let from = 0; from < all.length; from += batch) {
    const qs = all.slice(from, from + batch);
    for (const a of qs.length === 1 ? [engine.query(qs[0])] : engine.queryBatch(qs, threads)) answers.push(a);
  }
  return { qps: (all.length * 1000) / (performance.now() - started), answers };
}

run(1, 1); // warm-up: JIT and caches
const reference = run(1, 1);
const reference2 = run(1, 1);
const one = Math.max(reference.qps, reference2.qps);
console.log(`batch 1 (one query at a time): ${Math.round(one)} QPS`);
for (const threads of [1, 2]) {
  for (const batch of [2, 4, 8]) {
    const r = run(batch, threads);
    const same = JSON.stringify(r.answers) === JSON.stringify(reference.answers);
    if (!same) throw new Error(`batch ${batch} on ${threads} thread(s) answered differently from one query at a time`);
    console.log(`batch ${batch}, ${threads} thread(s): ${Math.round(r.qps)} QPS, ${(r.qps / one).toFixed(2)}× one at a time (same answers)`);
  }
}

// Sparse-only searches: one at a time, then in batches on 1 and 2 threads.
const sparseN = Number(flag('sparse', '100000'));
const sparse = generateSparse(sparseN, 200);
const postings = new SparseIndex();
sparse.records.forEach((r, label) => postings.set(label, r));
const sparseQueries = Array.from({ length: queries }, (_, i) => ({ q: prepareSparse(sparse.queries[i % sparse.queries.length]), topK: TOP_K }));
const idOf = (label: number): string => `s${label}`;
function runSparse(batch: number, threads: number): { qps: number; answers: SparseHit[][] } {
  const answers: SparseHit[][] = [];
  const started = performance.now();
  for (let from = 0; from < sparseQueries.length; from += batch) {
    const qs = sparseQueries.slice(from, from + batch);
    for (const a of qs.length === 1 ? [postings.search(qs[0].q, TOP_K, idOf)] : postings.searchMany(qs, idOf, threads)) answers.push(a);
  }
  return { qps: (sparseQueries.length * 1000) / (performance.now() - started), answers };
}
console.log(`sparse: ${sparseN} records, ${queries} sparse-only queries per configuration`);
runSparse(1, 1); // warm-up
const sparseReference = runSparse(1, 1);
const sparseOne = Math.max(sparseReference.qps, runSparse(1, 1).qps);
console.log(`batch 1 (one query at a time): ${Math.round(sparseOne)} QPS`);
for (const threads of [1, 2]) {
  for (const batch of [2, 4, 8]) {
    const r = runSparse(batch, threads);
    if (JSON.stringify(r.answers) !== JSON.stringify(sparseReference.answers)) throw new Error(`sparse batch ${batch} on ${threads} thread(s) answered differently from one query at a time`);
    console.log(`batch ${batch}, ${threads} thread(s): ${Math.round(r.qps)} QPS, ${(r.qps / sparseOne).toFixed(2)}× one at a time (same answers)`);
  }
}
