// Several engine workers (CONIFER_ENGINE_WORKERS, src/engine/engine-client.ts): indexes
// are spread over them, so a worker that fails takes only its own indexes down while it
// restarts — another worker's index keeps answering, and keeps acknowledging and showing
// writes — and every index comes back with every acknowledged record.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, removeDir, startServer, tempDataDir, type TestServer } from '../helpers/server.js';
import { createIndex, denseIndex, dp, upsert } from '../data/support.js';

const DIM = 4;
const FAULT_CRASH_ID = '__conifer_fault_crash_engine_worker__';

const vec = (x: number): number[] => [x, 1, 0, 0];

async function query(server: TestServer, host: string, x: number, topK = 3): Promise<{ status: number; ids: string[] }> {
  const res = await dp(server, host, 'POST', '/query', { body: { vector: vec(x), topK } });
  return { status: res.status, ids: res.status === 200 ? (res.body.matches as { id: string }[]).map((m) => m.id) : [] };
}

describe('engine workers: indexes spread over several', () => {
  let server: TestServer | undefined;
  const dir = tempDataDir();
  after(async () => {
    await server?.kill();
    removeDir(dir);
  });

  it('a failed worker takes only its own index down; the other index keeps answering and writing', async () => {
    server = await startServer({ dataDir: dir, env: { CONIFER_ENGINE_WORKERS: '2', CONIFER_FAULT_INJECTION: '1' } });
    const s = server;
    // The first two indexes go to different workers (each index goes to the worker owning fewest).
    const a = await createIndex(s, denseIndex('shard-a', DIM, 'euclidean'));
    const b = await createIndex(s, denseIndex('shard-b', DIM, 'euclidean'));
    await upsert(s, a, [{ id: 'a1', values: vec(1) }, { id: 'a2', values: vec(2) }]);
    await upsert(s, b, [{ id: 'b1', values: vec(1) }, { id: 'b2', values: vec(2) }]);
    assert.deepEqual((await query(s, a, 1, 1)).ids, ['a1']);
    assert.deepEqual((await query(s, b, 1, 1)).ids, ['b1']);

    // Committed, then a's worker fails applying it and is restarted (≥ 100 ms back-off, then a reload).
    await upsert(s, a, [{ id: FAULT_CRASH_ID, values: vec(9) }]);
    let sawDown = false;
    for (let i = 0; i < 400 && !sawDown; i++) {
      const r = await query(s, a, 1, 1);
      if (r.status === 503) sawDown = true;
      else {
        assert.equal(r.status, 200);
        await new Promise((res) => setTimeout(res, 5));
      }
    }
    assert.ok(sawDown, "index a's queries answered 503 while its worker restarted");
    // a's worker is down right now (its restart waits at least 100 ms): b's worker serves,
    // and a write to b is acknowledged and seen by the next query.
    const bNow = await query(s, b, 1, 1);
    assert.equal(bNow.status, 200, 'the other worker keeps answering');
    assert.deepEqual(bNow.ids, ['b1']);
    await upsert(s, b, [{ id: 'b3', values: vec(3) }]);
    assert.deepEqual((await query(s, b, 3, 1)).ids, ['b3']);

    // a comes back with every acknowledged record, the one its worker failed on included.
    let back: { status: number; ids: string[] } = { status: 0, ids: [] };
    for (let i = 0; i < 600; i++) {
      back = await query(s, a, 9, 3);
      if (back.status === 200) break;
      assert.equal(back.status, 503);
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.deepEqual(back.ids, [FAULT_CRASH_ID, 'a2', 'a1']);
    assert.match(s.output(), /"engineWorker":0[^\n]*engine worker failed; restarting it/);
    assert.doesNotMatch(s.output(), /"engineWorker":1[^\n]*engine worker failed/);
    assert.match(s.output(), /"engineWorkers":2[^\n]*"msg":"ready"/);
  });
});
