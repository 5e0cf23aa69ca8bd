// Query throughput against the number of engine worker threads and query threads (issue
// 15: "QPS against the number of query threads"). The same data in `indexes` indexes
// (default 2); for each CONIFER_ENGINE_WORKERS and CONIFER_QUERY_THREADS value a fresh
// server loads them, waits until every record is in a graph, warms up (two unmeasured
// passes: a fresh server runs its first thousands of queries slower, fastify-warm-up.ts),
// and then every index is queried at once with `concurrency` requests in flight each
// (default 4). Prints total QPS per configuration, and hnswlib's single-thread QPS on the
// same data in this process as the yardstick. An index is owned by one worker (one owner
// thread per native index, DESIGN.md "Threads and order"), so more workers raise the QPS
// of several indexes queried at once; more query threads let one index's worker search a
// batch of its queries side by side (engine-worker.ts "Query batches").
//
//   npm run build && node dist/bench/engine-threads.js [--n 20000] [--dim 128]
//     [--indexes 2] [--concurrency 4] [--queries 2000] [--workers 1,2] [--query-threads 1]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateDense } from './data.js';
import { flag, hnswReference, queryBodies, upsertAll, waitIndexed } from './dense-fixture.js';
import { Client, runLoad } from './http.js';
import { startServer } from './server-process.js';

const n = Number(flag('n', '20000'));
const dim = Number(flag('dim', '128'));
const indexes = Number(flag('indexes', '2'));
const concurrency = Number(flag('concurrency', '4'));
const queryCount = Number(flag('queries', '2000'));
const workerCounts = flag('workers', '1,2').split(',').map(Number);
const queryThreadCounts = flag('query-threads', '1').split(',').map(Number);

const data = generateDense({ n, dim, clusters: 100 }, 500);
const bodies = queryBodies(data);

// hnswlib in this process, one thread: the yardstick the QPS targets are ratios to.
const ref = hnswReference(data);
let started = performance.now();
for (let i = 0; i < queryCount; i++) ref.search(i);
const hnswQps = queryCount / ((performance.now() - started) / 1000);

console.log(`n=${n} dim=${dim} indexes=${indexes} concurrency per index=${concurrency} queries per index=${queryCount}`);
console.log(`hnswlib single-thread: ${Math.round(hnswQps)} QPS`);
console.log('engine workers  query threads  total QPS  per index  total ÷ hnswlib 1 thread');
for (const workers of workerCounts) for (const queryThreads of queryThreadCounts) {
  const dataDir = mkdtempSync(join(tmpdir(), 'conifer-engine-threads-'));
  const apiKey = `bench-${randomBytes(12).toString('hex')}`;
  const client = new Client(apiKey, indexes * concurrency + 2);
  const server = await startServer(dataDir, apiKey, 120_000, [], {
    CONIFER_ENGINE_WORKERS: String(workers),
    CONIFER_QUERY_THREADS: String(queryThreads),
  });
  try {
    const hosts: string[] = [];
    for (let x = 0; x < indexes; x++) {
      const spec = { serverless: { cloud: 'aws', region: 'us-east-1' } };
      const created = await client.json('POST', `${server.url}/indexes`, JSON.stringify({ name: `threads-${x}`, dimension: dim, metric: 'cosine', spec }));
      hosts.push((created.body as { host: string }).host);
    }
    for (const host of hosts) await upsertAll(client, host, data);
    await waitIndexed(client, server.url, indexes);
    const query = async (host: string, q: number): Promise<number> => {
      const reply = await client.request('POST', `${host}/query`, bodies[q % bodies.length]);
      if (reply.status !== 200) throw new Error(`query answered ${reply.status}: ${reply.text.slice(0, 300)}`);
      return reply.ms;
    };
    for (let pass = 0; pass < 2; pass++) await Promise.all(hosts.map((host) => runLoad(concurrency, queryCount, 120_000, (q) => query(host, q))));
    started = performance.now();
    const loads = await Promise.all(hosts.map((host) => runLoad(concurrency, queryCount, 120_000, (q) => query(host, q))));
    const seconds = (performance.now() - started) / 1000;
    const total = loads.reduce((s, l) => s + l.completed, 0) / seconds;
    console.log(`${String(workers).padEnd(16)}${String(queryThreads).padEnd(15)}${String(Math.round(total)).padEnd(11)}${String(Math.round(total / indexes)).padEnd(11)}${(total / hnswQps).toFixed(3)}`);
  } finally {
    await server.stop();
    client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
