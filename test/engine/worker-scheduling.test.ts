// The engine worker's scheduling through a real server: queries do not start background
// slices (only writes and loads do; a burst of slices chains itself), so this checks that
// graph insertion still runs to the end while queries stream in without a pause, and
// that every query posted right after an acknowledged upsert sees it (message order).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, removeDir, startServer, tempDataDir, type TestServer } from '../helpers/server.js';
import { prng } from '../helpers/prng.js';
import { createIndex, denseIndex, dp, upsert, type Vec } from '../data/support.js';

const DIM = 8;
// Above the engine's graph threshold (5,000 records per namespace): the namespace gets a
// graph and every record starts in the tail, waiting for background slices.
const N = 6000;

/** The unindexed gauge of the one index (undefined until the worker first reports it). */
async function unindexed(server: TestServer): Promise<number | undefined> {
  const res = await api(server, 'GET', '/metrics', { key: null });
  assert.equal(res.status, 200, res.text);
  const m = /^conifer_engine_unindexed_records\{[^}]*\} ([0-9.eE+-]+)$/m.exec(res.text);
  return m ? Number(m[1]) : undefined;
}

describe('engine worker scheduling (black box)', () => {
  const dir = tempDataDir();
  let server: TestServer | undefined;
  after(async () => {
    await server?.kill();
    removeDir(dir);
  });

  it('indexes the whole tail while queries stream in, and each query sees the upsert acknowledged just before it', async () => {
    server = await startServer({ dataDir: dir });
    const host = await createIndex(server, denseIndex('sched', DIM, 'euclidean'));
    const rand = prng(5);
    const vectors: Vec[] = Array.from({ length: N }, (_, i) => ({
      id: `v${i}`,
      values: Array.from({ length: DIM }, () => Math.fround(rand() * 2 - 1)),
    }));
    for (let i = 0; i < N; i += 1000) await upsert(server, host, vectors.slice(i, i + 1000));
    // Queries (and upserts of fresh records, each queried at once) never pause; the gauge
    // is read between them. It must reach 0: the graph caught up under a steady stream.
    // How far behind the graph is now depends on the machine's speed; each round below
    // adds a fresh record to the tail, so a slice must run after every round's upsert
    // for the gauge to read 0 (it is reported when a burst of slices ends).
    // At least 200 rounds, each adding to the tail, before the gauge is consulted.
    let remaining: number | undefined;
    let rounds = 0;
    for (; rounds < 3000 && (rounds < 200 || remaining !== 0); rounds++) {
      // The filter matches only this record, so the answer is exact: it is [id] if and
      // only if the engine applied the upsert before it handled the query.
      const id = `fresh-${rounds}`;
      const values = Array.from({ length: DIM }, () => Math.fround(rand() * 2 - 1));
      await upsert(server, host, [{ id, values, metadata: { round: rounds } }]);
      const body = { vector: values, topK: 3, filter: { round: { $eq: rounds } } };
      const res = await dp(server, host, 'POST', '/query', { body });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.matches.map((m: { id: string }) => m.id),
        [id],
        `round ${rounds}: the query after an acknowledged upsert sees it`,
      );
      if (rounds >= 199 && rounds % 10 === 9) remaining = await unindexed(server);
    }
    assert.equal(remaining, 0, `records still outside the graph after ${rounds} rounds of streaming queries`);
  });

  it('the gauge leaves 0 as soon as acknowledged records wait for a graph, not after the report interval', async () => {
    server ??= await startServer({ dataDir: dir });
    const running = server;
    // Created just now: the worker has reported this index at 0, and its reports are
    // throttled to one a second. Five batches (~0.3 s) reach the graph threshold, so the
    // namespace gets a graph and all 5,000 records wait in its tail, which takes the
    // graph far longer than one /metrics round trip to insert.
    const host = await createIndex(running, denseIndex('rise', 64, 'euclidean'));
    const rand = prng(9);
    for (let b = 0; b < 5; b++) {
      const batch: Vec[] = Array.from({ length: 1000 }, (_, i) => ({
        id: `r${b * 1000 + i}`,
        values: Array.from({ length: 64 }, () => Math.fround(rand() * 2 - 1)),
      }));
      await upsert(running, host, batch);
    }
    // The acknowledgement does not wait for the engine (the writer posts the batch to it),
    // so the report may trail it by a message or two: up to 300 ms, far below the interval.
    const readings: string[] = [];
    const until = performance.now() + 300;
    while (performance.now() < until) {
      const res = await api(running, 'GET', '/metrics', { key: null });
      const m = /^conifer_engine_unindexed_records\{index="rise-[^"]*"\} ([0-9.eE+-]+)$/m.exec(res.text);
      readings.push(m ? m[1] : 'absent');
      if (m && Number(m[1]) > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(Number(readings.at(-1)) > 0, `the gauge read ${readings.join(', ')} in the 300 ms after 5,000 records were acknowledged into an empty graph`);
  });
});
