// A one-minute check of issue 15's target at small size: while `--concurrency` clients
// upsert bodies of just under 2 MB (≤ 1000 vectors), how long do GET /health and a small
// query wait? Starts the real server (dist/src/cli/main.js) on a temporary data
// directory; first measures the query alone (idle), then ingests with a /health probe
// and a query probe running side by side, each sequential with a 10 ms pause.
//   npx tsc -p tsconfig.json && node dist/bench/ingest-health.js [--vectors 40000] [--dim 128] [--concurrency 4] [--probes 0]
// `--probes 0`: ingest alone (the probes take CPU from the ingest on a small machine).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from './http.js';
import { Rng } from './prng.js';
import { startServer } from './server-process.js';
import { summarize } from './stats.js';

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const VECTORS = flag('vectors', 40_000);
const DIM = flag('dim', 128);
const CONCURRENCY = flag('concurrency', 4);
const PROBES = flag('probes', 1) !== 0;
const BATCH = 1000;
const UPSERT_MAX_BYTES = 2_000_000;
const KEY = 'bench-key-0123456789abcdef';

const rng = new Rng(7);
const vec = (): number[] => Array.from({ length: DIM }, () => Math.round(rng.gaussian() * 1e4) / 1e4);

function bodies(): string[] {
  const out: string[] = [];
  for (let start = 0; start < VECTORS; ) {
    const parts: string[] = [];
    let bytes = 20;
    while (parts.length < BATCH && start < VECTORS) {
      const rec = JSON.stringify({ id: `v${start}`, values: vec(), metadata: { genre: start % 2 ? 'drama' : 'comedy', year: 1950 + (start % 70) } });
      if (bytes + rec.length + 1 > UPSERT_MAX_BYTES) break;
      parts.push(rec);
      bytes += rec.length + 1;
      start++;
    }
    out.push(`{"vectors":[${parts.join(',')}]}`);
  }
  return out;
}

const fmt = (s: ReturnType<typeof summarize>): string =>
  `p50 ${s.p50Ms.toFixed(1)} ms, p99 ${s.p99Ms.toFixed(1)} ms, max ${s.maxMs.toFixed(1)} ms (n=${s.count})`;

const dir = mkdtempSync(join(tmpdir(), 'conifer-ingest-health-'));
const server = await startServer(dir, KEY);
const client = new Client(KEY, CONCURRENCY + 4);
try {
  const created = await client.json('POST', `${server.url}/indexes`, JSON.stringify({ name: 'ih', dimension: DIM, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } }));
  const host = (created.body as { host: string }).host;
  const work = bodies();
  // A first batch so the query has something to search, then the idle query figure.
  await client.json('POST', `${host}/vectors/upsert`, work.shift());
  const query = JSON.stringify({ vector: vec(), topK: 10 });
  const idle: number[] = [];
  for (let i = 0; i < 200; i++) idle.push((await client.json('POST', `${host}/query`, query)).ms);

  let ingesting = PROBES;
  const pause = (): Promise<void> => new Promise((r) => setTimeout(r, 10));
  const probe = async (run: () => Promise<number>): Promise<number[]> => {
    const out: number[] = [];
    while (ingesting) {
      out.push(await run());
      await pause();
    }
    return out;
  };
  const health = probe(async () => (await client.request('GET', `${server.url}/health`)).ms);
  const queries = probe(async () => (await client.json('POST', `${host}/query`, query)).ms);
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
  ingesting = false;
  const [h, q] = await Promise.all([health, queries]);
  console.log(`ingest: ${sent} vectors × ${DIM} in ${seconds.toFixed(1)} s = ${Math.round(sent / seconds)} vectors/s (concurrency ${CONCURRENCY})`);
  console.log(`GET /health during ingest: ${fmt(summarize(h))}`);
  console.log(`query idle:                ${fmt(summarize(idle))}`);
  console.log(`query during ingest:       ${fmt(summarize(q))}`);
} finally {
  client.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
