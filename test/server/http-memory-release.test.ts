// The HTTP thread gives back the young generation a burst of writes grew (quiet-release.ts,
// wired in routes/data-plane.ts): after a burst of 2 MB upserts its new space has grown
// past V8's 1 MiB minimum, and QUIET_MS after the last write it is back to that minimum.
// After reads it keeps what they grew (data-plane.ts says why: the release costs the
// queries after it). /metrics reads this thread's heap and is not a data-plane request,
// so reading it neither postpones a release nor grows the new space.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { QUIET_MS } from '../../src/engine/worker/quiet-release.js';
import { api, removeDir, startServer, tempDataDir, type TestServer } from '../helpers/server.js';
import { serverlessBody, sleep, stopAndClean } from './support.js';

const DIM = 384;
const MIB = 1 << 20;

let server: TestServer;
let dataDir: string;

before(async () => {
  dataDir = tempDataDir();
  server = await startServer({ dataDir });
});

after(async () => {
  await stopAndClean(server, dataDir);
  removeDir(dataDir);
});

async function newSpaceBytes(): Promise<number> {
  const res = await api(server, 'GET', '/metrics');
  const m = /nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)/.exec(res.text);
  assert.ok(m, 'the metrics name the new space');
  return Number(m[1]);
}

test("the HTTP thread's young generation shrinks back once data-plane traffic stops", { timeout: 120_000 }, async () => {
  const created = await api(server, 'POST', '/indexes', { body: serverlessBody('burst', { dimension: DIM, metric: 'cosine' }) });
  assert.equal(created.status, 201, created.text);
  const host: string = created.body.host;
  // Bodies just under 2 MB, as an ingest sends them, two at a time.
  const body = (batch: number): string =>
    JSON.stringify({
      vectors: Array.from({ length: 230 }, (_, i) => ({
        id: `v${batch}-${i}`,
        values: Array.from({ length: DIM }, (_, d) => Math.sin(batch * 7919 + i * 31 + d) * 0.123456789),
      })),
    });
  for (let batch = 0; batch < 40; batch += 2) {
    const answers = await Promise.all([batch, batch + 1].map((b) => api(server, 'POST', `${host}/vectors/upsert`, { rawBody: body(b) })));
    for (const a of answers) assert.equal(a.status, 200, a.text);
  }
  const grown = await newSpaceBytes();
  assert.ok(grown > MIB, `the burst grew the new space (${grown} bytes)`);
  await sleep(QUIET_MS + 2000);
  const settled = await newSpaceBytes();
  assert.ok(settled <= MIB, `the new space went back to ${MIB} bytes once quiet (${settled} bytes)`);
});

const values = (seed: number): number[] => Array.from({ length: DIM }, (_, d) => Math.sin(seed * 7919 + d * 31) * 0.5);

/** An index holding 100 small records; the upsert is a write, so a release follows it. */
async function smallIndex(name: string): Promise<string> {
  const created = await api(server, 'POST', '/indexes', { body: serverlessBody(name, { dimension: DIM, metric: 'cosine' }) });
  assert.equal(created.status, 201, created.text);
  const host: string = created.body.host;
  await upsertSmall(host, 0);
  return host;
}

async function upsertSmall(host: string, seed: number): Promise<void> {
  const vectors = Array.from({ length: 100 }, (_, i) => ({ id: `r${i}`, values: values(seed + i), metadata: { n: i } }));
  const upserted = await api(server, 'POST', `${host}/vectors/upsert`, { body: { vectors } });
  assert.equal(upserted.status, 200, upserted.text);
}

/** Four queries at a time, `rounds` times. */
async function queryBurst(host: string, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const answers = await Promise.all(
      [0, 1, 2, 3].map((lane) =>
        api(server, 'POST', `${host}/query`, { body: { vector: values(round * 4 + lane + 0.5), topK: 100, includeValues: true, includeMetadata: true } }),
      ),
    );
    for (const a of answers) assert.equal(a.status, 200, a.text);
  }
}

test('reads never release it: the young generation a burst of queries grew stays grown', { timeout: 120_000 }, async () => {
  const host = await smallIndex('reads');
  await sleep(QUIET_MS + 2000);
  assert.ok((await newSpaceBytes()) <= MIB, 'the write was followed by its release');
  await queryBurst(host, 150);
  const grown = await newSpaceBytes();
  assert.ok(grown > MIB, `the queries grew the new space (${grown} bytes)`);
  await sleep(QUIET_MS + 2000);
  const later = await newSpaceBytes();
  assert.ok(later > MIB, `the new space stayed grown after the queries stopped (${later} bytes, ${grown} right after them)`);
});

test('a write among queries: its release waits until the queries stop too', { timeout: 120_000 }, async () => {
  const host = await smallIndex('mixed');
  await queryBurst(host, 150);
  assert.ok((await newSpaceBytes()) > MIB, 'the queries grew the new space');
  await upsertSmall(host, 1000); // earns a release
  // Queries for longer than the quiet period, the new space read every 100 ms meanwhile.
  const until = Date.now() + QUIET_MS + 1500;
  const samples: number[] = [];
  await Promise.all([
    (async () => {
      while (Date.now() < until) await queryBurst(host, 1);
    })(),
    (async () => {
      while (Date.now() < until) {
        samples.push(await newSpaceBytes());
        await sleep(100);
      }
    })(),
  ]);
  assert.ok(samples.length > 10, `${samples.length} readings`);
  assert.ok(Math.min(...samples) > MIB, `no release while queries kept coming (readings ${samples.join(', ')})`);
  await sleep(QUIET_MS + 2000);
  const settled = await newSpaceBytes();
  assert.ok(settled <= MIB, `the release came once the queries stopped too (${settled} bytes)`);
});
