// The fixed cost of one small query (issues 12 and 15): Conifer's p50 over HTTP at
// concurrency 1 against hnswlib in-process (same data, same M/efConstruction, ef = the
// engine's default) and against a bare node:http echo round trip, measured by the same
// client in the same run, several rounds interleaved so a noisy shared machine affects
// both sides alike. The figure of merit: (Conifer p50 − hnswlib p50) / echo p50.
// Each round then measures QPS at concurrency 8 (8 requests always in flight) against
// hnswlib's single-thread QPS (issue 15's target: ≥ 0.4×).
//
//   npm run build && node dist/bench/fixed-cost.js [--n 20000] [--dim 128] [--queries 3000]
//     [--rounds 3] [--cpu-prof DIR]   (--cpu-prof profiles the server process into DIR)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { hnswlib } from '../src/engine/graph/hnswlib-binding.js';
import { generateDense } from './data.js';
import { measureEcho } from './echo-server.js';
import { Client } from './http.js';
import { HNSW_EF_CONSTRUCTION, HNSW_M } from './references.js';
import { startServer } from './server-process.js';
import { summarize } from './stats.js';

const DEFAULT_EF = 100; // src/engine/vector-set.ts DEFAULT_GRAPH_OPTIONS.defaultEf
const TOP_K = 10;

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const n = Number(flag('n', '20000'));
const dim = Number(flag('dim', '128'));
const queryCount = Number(flag('queries', '3000'));
const rounds = Number(flag('rounds', '3'));
const profDir = flag('cpu-prof', '');

const data = generateDense({ n, dim, clusters: 100 }, 500);
const row = (arena: Float32Array, i: number): number[] => Array.from(arena.subarray(i * dim, (i + 1) * dim));
const bodies = Array.from({ length: data.queryCount }, (_, q) => JSON.stringify({ vector: row(data.queries, q), topK: TOP_K }));

// hnswlib in-process: the floor of the search itself.
const ref = new hnswlib.HierarchicalNSW('cosine', dim);
ref.initIndex(n, HNSW_M, HNSW_EF_CONSTRUCTION, 100);
for (let i = 0; i < n; i++) ref.addPoint(row(data.vectors, i), i);
ref.setEf(DEFAULT_EF);
const refQueries = Array.from({ length: data.queryCount }, (_, q) => row(data.queries, q));
const CONCURRENCY = 8;
/** hnswlib's single-thread queries per second over queryCount back-to-back searches. */
const hnswQps = (): number => {
  const started = performance.now();
  for (let i = 0; i < queryCount; i++) ref.searchKnn(refQueries[i % refQueries.length], TOP_K);
  return queryCount / ((performance.now() - started) / 1000);
};
const hnswP50 = (): number => {
  const lat: number[] = [];
  for (let i = 0; i < queryCount; i++) {
    const t = performance.now();
    ref.searchKnn(refQueries[i % refQueries.length], TOP_K);
    lat.push(performance.now() - t);
  }
  return summarize(lat).p50Ms;
};

const dataDir = mkdtempSync(join(tmpdir(), 'conifer-fixed-cost-'));
const apiKey = `bench-${randomBytes(12).toString('hex')}`;
const client = new Client(apiKey, 8);
const server = await startServer(dataDir, apiKey, 120_000, profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []);
try {
  const spec = { serverless: { cloud: 'aws', region: 'us-east-1' } };
  const created = await client.json('POST', `${server.url}/indexes`, JSON.stringify({ name: 'fixed-cost', dimension: dim, metric: 'cosine', spec }));
  const host = (created.body as { host: string }).host;
  // ~20 bytes per JSON number: keep each body under the 2 MiB upsert limit at any dimension.
  const batch = Math.max(1, Math.min(500, Math.floor(80_000 / dim)));
  for (let from = 0; from < n; from += batch) {
    const vectors = [];
    for (let i = from; i < Math.min(n, from + batch); i++) vectors.push({ id: `v${i}`, values: row(data.vectors, i) });
    await client.json('POST', `${host}/vectors/upsert`, JSON.stringify({ vectors }));
  }
  // Wait until every record is in the graph (no exact-scanned tail left).
  for (let i = 0; i < 600; i++) {
    const metrics = (await client.request('GET', `${server.url}/metrics`)).text;
    const m = /conifer_engine_unindexed_records\{index="fixed-cost"\} (\d+)/.exec(metrics);
    if (m && m[1] === '0') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const url = `${host}/query`;
  for (let i = 0; i < 200; i++) await client.request('POST', url, bodies[i % bodies.length]); // warm-up
  console.log(`n=${n} dim=${dim} queries/round=${queryCount} topK=${TOP_K} ef=${DEFAULT_EF}`);
  console.log('round  conifer_p50  hnswlib_p50  echo_p50  (conifer-hnswlib)/echo  conifer_qps_c8  hnswlib_qps  c8/hnswlib');
  for (let r = 0; r < rounds; r++) {
    const echo = (await measureEcho(bodies, queryCount)).p50Ms;
    const lat: number[] = [];
    for (let i = 0; i < queryCount; i++) {
      const reply = await client.request('POST', url, bodies[i % bodies.length]);
      if (reply.status !== 200) throw new Error(`query answered ${reply.status}: ${reply.text.slice(0, 300)}`);
      lat.push(reply.ms);
    }
    const conifer = summarize(lat).p50Ms;
    const hnsw = hnswP50();
    // Concurrency 8: each of 8 loops sends its next query as soon as its last is answered.
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < queryCount) {
          const reply = await client.request('POST', url, bodies[next++ % bodies.length]);
          if (reply.status !== 200) throw new Error(`query answered ${reply.status}: ${reply.text.slice(0, 300)}`);
        }
      }),
    );
    const qps = queryCount / ((performance.now() - started) / 1000);
    const refQps = hnswQps();
    console.log(
      `${r + 1}      ${conifer.toFixed(3)}        ${hnsw.toFixed(3)}        ${echo.toFixed(3)}     ${((conifer - hnsw) / echo).toFixed(2)}` +
        `                    ${qps.toFixed(0)}           ${refQps.toFixed(0)}        ${(qps / refQps).toFixed(2)}`,
    );
  }
} finally {
  client.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
