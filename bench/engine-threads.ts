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

const data = generateDense({ n, dim, clusters: 100 }, 500);
const bodies = queryBodies(data);

// hnswlib in this process, one thread: the yardstick the QPS targets are ratios to.
const ref = hnswReference(data);
let started = performance.now();
for (let i = 0; i < queryCount; i++) ref.search(i);
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
    for (const host of hosts) await upsertAll(client, host, data);
    await waitIndexed(client, server.url, indexes);
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
