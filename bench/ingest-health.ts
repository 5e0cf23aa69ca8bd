// A one-minute check of issue 15's target at small size: while `--concurrency` clients
// upsert bodies of just under 2 MB (≤ 1000 vectors), how long do GET /health and a small
// query wait? Starts the real server (dist/src/cli/main.js) on a temporary data
// directory; first measures the query alone (idle), then ingests with a /health probe
// and a query probe running side by side, each sequential with a 10 ms pause.
//   npx tsc -p tsconfig.json && node dist/bench/ingest-health.js [--vectors 40000] [--dim 128] [--concurrency 4] [--probes 0]
// `--probes 0`: ingest alone (the probes take CPU from the ingest on a small machine).
// `--digits full`: values printed as clients print float32 (17 digits, ~245 vectors of 384
// per 2 MB body, as the medium bench sends) instead of 4 decimals.
// `--kind hybrid`: a dotproduct index, each record also carrying ~120 sparse values (the
// bench's Zipf-like vocabulary); `--kind sparse`: a sparse index, sparse values only.
// Besides the client-side latencies it prints what tells a blocked event loop from a
// starved one: the server main thread's event-loop delay over the ingest (its own
// monitorEventLoopDelay, read from /metrics), the bench process's own (the probes share
// its loop with the body sends), and per server thread the CPU time it ran and the time it
// waited runnable for a core (/proc schedstat); then how long from the ingest's start until
// every record is in a graph (graph inserts go on after the last acknowledgement).
//   node dist/bench/ingest-health.js --dim 384 --digits full --vectors 40000 [--cpu-prof DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { generateSparse } from './data.js';
import { waitIndexed } from './dense-fixture.js';
import { upsertBatches } from './harness.js';
import { Client } from './http.js';
import { startProbe } from './probe.js';
import { Rng } from './prng.js';
import { startServer } from './server-process.js';
import { summarize } from './stats.js';
import { threadDelta, threadTimes } from './thread-times.js';

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const VECTORS = flag('vectors', 40_000);
const DIM = flag('dim', 128);
const CONCURRENCY = flag('concurrency', 4);
const PROBES = flag('probes', 1) !== 0;
const option = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const FULL_DIGITS = option('digits', '4') === 'full';
const KIND = option('kind', 'dense');
if (!['dense', 'hybrid', 'sparse'].includes(KIND)) throw new Error('--kind is dense, hybrid or sparse');
const KEY = 'bench-key-0123456789abcdef';

const rng = new Rng(7);
const vec = (): number[] =>
  Array.from({ length: DIM }, () => (FULL_DIGITS ? Math.fround(rng.gaussian() * 0.05) : Math.round(rng.gaussian() * 1e4) / 1e4));
const sparse = KIND === 'dense' ? undefined : generateSparse(VECTORS + 1, 1, 11);
const sparseOf = (i: number): { indices: number[]; values: number[] } => {
  const s = sparse?.records[i];
  if (!s) throw new Error('no sparse data');
  return { indices: Array.from(s.indices), values: Array.from(s.values) };
};
const recordOf = (i: number): object => {
  const metadata = { genre: i % 2 ? 'drama' : 'comedy', year: 1950 + (i % 70) };
  if (KIND === 'sparse') return { id: `v${i}`, sparseValues: sparseOf(i), metadata };
  if (KIND === 'hybrid') return { id: `v${i}`, values: vec(), sparseValues: sparseOf(i), metadata };
  return { id: `v${i}`, values: vec(), metadata };
};

const fmt = (s: ReturnType<typeof summarize>): string =>
  `p50 ${s.p50Ms.toFixed(1)} ms, p99 ${s.p99Ms.toFixed(1)} ms, max ${s.maxMs.toFixed(1)} ms (n=${s.count})`;

/** The server's event-loop delay since the previous reading (GET /metrics resets it). */
async function serverLoopDelay(): Promise<string> {
  const r = await client.request('GET', `${server.url}/metrics`);
  const read = (name: string): string => {
    const m = new RegExp(`^nodejs_eventloop_lag_${name}_seconds (\\S+)`, 'm').exec(r.text);
    return m ? `${(Number(m[1]) * 1000).toFixed(1)} ms` : '?';
  };
  return `p50 ${read('p50')}, p99 ${read('p99')}, max ${read('max')}`;
}

const dir = mkdtempSync(join(tmpdir(), 'conifer-ingest-health-'));
// `--cpu-prof DIR`: the server writes a V8 CPU profile per thread into DIR when it stops.
const profileDir = option('cpu-prof', '');
const server = await startServer(dir, KEY, 120_000, profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []);
const client = new Client(KEY, CONCURRENCY + 4);
try {
  const spec = { serverless: { cloud: 'aws', region: 'us-east-1' } };
  const shape = KIND === 'sparse' ? { vector_type: 'sparse', metric: 'dotproduct' } : { dimension: DIM, metric: KIND === 'hybrid' ? 'dotproduct' : 'cosine' };
  const created = await client.json('POST', `${server.url}/indexes`, JSON.stringify({ name: 'ih', ...shape, spec }));
  const host = (created.body as { host: string }).host;
  // Batched as the benchmark batches (≤ 1000 vectors, ≤ 2 MB), all encoded before the clock.
  const work = upsertBatches((i) => JSON.stringify(recordOf(i)), 0, VECTORS).map((b) => b.body);
  // A first batch so the query has something to search, then the idle query figure.
  await client.json('POST', `${host}/vectors/upsert`, work.shift());
  const query = JSON.stringify(KIND === 'sparse' ? { sparseVector: sparseOf(VECTORS), topK: 10 } : { vector: vec(), topK: 10 });
  const idle: number[] = [];
  for (let i = 0; i < 200; i++) idle.push((await client.json('POST', `${host}/query`, query)).ms);

  // Each probe on its own thread and connection (probe.ts): the bench loop sends 2 MB bodies.
  const health = PROBES ? startProbe({ method: 'GET', url: `${server.url}/health`, apiKey: KEY, intervalMs: 10 }) : undefined;
  const queries = PROBES ? startProbe({ method: 'POST', url: `${host}/query`, apiKey: KEY, body: query, intervalMs: 10 }) : undefined;
  // Reading the server's event-loop metrics resets its histogram (prom-client), so the
  // reading after the ingest covers the ingest alone.
  await serverLoopDelay();
  const clientLoop = monitorEventLoopDelay({ resolution: 10 });
  clientLoop.enable();
  const threadsBefore = threadTimes(server.pid);
  const started = performance.now();
  let sent = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < work.length) {
        const body = work[next++];
        const r = await client.request('POST', `${host}/vectors/upsert`, body);
        if (r.status !== 200) throw new Error(`upsert answered ${r.status}: ${r.text.slice(0, 300)}`);
        sent += (JSON.parse(r.text) as { upsertedCount: number }).upsertedCount;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const threads = threadDelta(threadsBefore, threadTimes(server.pid), seconds * 1000);
  clientLoop.disable();
  const serverLoop = await serverLoopDelay();
  const [h, q] = await Promise.all([health?.stop() ?? [], queries?.stop() ?? []]);
  console.log(`ingest: ${sent} vectors × ${DIM} in ${seconds.toFixed(1)} s = ${Math.round(sent / seconds)} vectors/s (concurrency ${CONCURRENCY})`);
  console.log(`GET /health during ingest: ${fmt(summarize(h))}`);
  console.log(`query idle:                ${fmt(summarize(idle))}`);
  console.log(`query during ingest:       ${fmt(summarize(q))}`);
  console.log(`server main-thread event-loop delay during ingest: ${serverLoop}`);
  const ms = (ns: number): string => (ns / 1e6).toFixed(1);
  console.log(`bench-process event-loop delay during ingest: p50 ${ms(clientLoop.percentile(50))} ms, p99 ${ms(clientLoop.percentile(99))} ms, max ${ms(clientLoop.max)} ms`);
  const cpu = threads.reduce((a, t) => a + t.runMs, 0) / 1000;
  console.log(`server CPU during ingest: ${cpu.toFixed(1)} s in ${seconds.toFixed(1)} s (${(cpu / seconds).toFixed(2)} cores); per thread (run / waited runnable for a core):`);
  for (const t of threads) {
    const role = t.tid === server.pid ? ' (main)' : '';
    console.log(`  ${t.tid} ${t.name}${role}: run ${(t.runMs / 1000).toFixed(1)} s, waited ${(t.waitMs / 1000).toFixed(1)} s`);
  }
  if (KIND !== 'sparse') {
    await waitIndexed(client, server.url, 1);
    console.log(`ingest start → every record in a graph: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
} finally {
  client.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
