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
});
