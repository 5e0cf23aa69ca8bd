// Query throughput against the number of engine worker threads (issue 15: "QPS against the
// number of query threads"). The same data in `indexes` indexes (default 2); for each
// CONIFER_ENGINE_WORKERS value a fresh server loads them, waits until every record is in a
// graph, and then every index is queried at once with `concurrency` requests in flight
// each (default 4). Prints total QPS per worker count, and hnswlib's single-thread QPS on
// the same data in this process as the yardstick. An index is owned by one worker (one
// owner thread per native index, DESIGN.md "Threads and order"), so more workers raise the
// QPS of several indexes queried at once, not of one index.
//
//   npm run build && node dist/bench/engine-threads.js [--n 20000] [--dim 128]
//     [--indexes 2] [--concurrency 4] [--queries 2000] [--workers 1,2]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { hnswlib } from '../src/engine/graph/hnswlib-binding.js';
import { generateDense } from './data.js';
import { Client, runLoad } from './http.js';
import { HNSW_EF_CONSTRUCTION, HNSW_M } from './references.js';
import { startServer } from './server-process.js';

const DEFAULT_EF = 100; // src/engine/vector-set.ts DEFAULT_GRAPH_OPTIONS.defaultEf
const TOP_K = 10;

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const n = Number(flag('n', '20000'));
const dim = Number(flag('dim', '128'));
const indexes = Number(flag('indexes', '2'));
const concurrency = Number(flag('concurrency', '4'));
const queryCount = Number(flag('queries', '2000'));
const workerCounts = flag('workers', '1,2').split(',').map(Number);

const data = generateDense({ n, dim, clusters: 100 }, 500);
const row = (arena: Float32Array, i: number): number[] => Array.from(arena.subarray(i * dim, (i + 1) * dim));
const bodies = Array.from({ length: data.queryCount }, (_, q) => JSON.stringify({ vector: row(data.queries, q), topK: TOP_K }));

// hnswlib in this process, one thread: the yardstick the QPS targets are ratios to.
const ref = new hnswlib.HierarchicalNSW('cosine', dim);
ref.initIndex(n, HNSW_M, HNSW_EF_CONSTRUCTION, 100);
for (let i = 0; i < n; i++) ref.addPoint(row(data.vectors, i), i);
ref.setEf(DEFAULT_EF);
const refQueries = Array.from({ length: data.queryCount }, (_, q) => row(data.queries, q));
let started = performance.now();
for (let i = 0; i < queryCount; i++) ref.searchKnn(refQueries[i % refQueries.length], TOP_K);
const hnswQps = queryCount / ((performance.now() - started) / 1000);

console.log(`n=${n} dim=${dim} indexes=${indexes} concurrency per index=${concurrency} queries per index=${queryCount}`);
console.log(`hnswlib single-thread: ${Math.round(hnswQps)} QPS`);
console.log('engine workers  total QPS  per index  total ÷ hnswlib 1 thread');
for (const workers of workerCounts) {
  const dataDir = mkdtempSync(join(tmpdir(), 'conifer-engine-threads-'));
  const apiKey = `bench-${randomBytes(12).toString('hex')}`;
  const client = new Client(apiKey, indexes * concurrency + 2);
  const server = await startServer(dataDir, apiKey, 120_000, [], { CONIFER_ENGINE_WORKERS: String(workers) });
  try {
    const hosts: string[] = [];
    for (let x = 0; x < indexes; x++) {
      const spec = { serverless: { cloud: 'aws', region: 'us-east-1' } };
      const created = await client.json('POST', `${server.url}/indexes`, JSON.stringify({ name: `threads-${x}`, dimension: dim, metric: 'cosine', spec }));
      hosts.push((created.body as { host: string }).host);
    }
    // ~20 bytes per JSON number: keep each body under the 2 MiB upsert limit at any dimension.
    const batch = Math.max(1, Math.min(500, Math.floor(80_000 / dim)));
    for (const host of hosts) {
      for (let from = 0; from < n; from += batch) {
        const vectors = [];
        for (let i = from; i < Math.min(n, from + batch); i++) vectors.push({ id: `v${i}`, values: row(data.vectors, i) });
        await client.json('POST', `${host}/vectors/upsert`, JSON.stringify({ vectors }));
      }
    }
    // Until every record of every index is in a graph (no exact-scanned tail left).
    for (let i = 0; i < 1200; i++) {
      const metrics = (await client.request('GET', `${server.url}/metrics`)).text;
      const left = [...metrics.matchAll(/^conifer_engine_unindexed_records\{[^}]*\} (\d+)$/gm)];
      if (left.length === indexes && left.every((m) => m[1] === '0')) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const query = async (host: string, q: number): Promise<number> => {
      const reply = await client.request('POST', `${host}/query`, bodies[q % bodies.length]);
      if (reply.status !== 200) throw new Error(`query answered ${reply.status}: ${reply.text.slice(0, 300)}`);
      return reply.ms;
    };
    for (const host of hosts) await runLoad(concurrency, 200, 60_000, (q) => query(host, q)); // warm-up
    started = performance.now();
    const loads = await Promise.all(hosts.map((host) => runLoad(concurrency, queryCount, 120_000, (q) => query(host, q))));
    const seconds = (performance.now() - started) / 1000;
    const total = loads.reduce((s, l) => s + l.completed, 0) / seconds;
    console.log(`${String(workers).padEnd(16)}${String(Math.round(total)).padEnd(11)}${String(Math.round(total / indexes)).padEnd(11)}${(total / hnswQps).toFixed(3)}`);
  } finally {
    await server.stop();
    client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
