// DESIGN.md decision 9 / issue 3: an acknowledged write survives SIGKILL. One server
// process at a time on one data directory: killed right after acknowledged writes, then
// started again on the same directory, where every acknowledged change must be found.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, api, tempDataDir, type TestServer } from '../helpers/server.js';
import { createIndex, denseIndex, dp, fetchMap, listAll, stats, upsert, type Vec } from './support.js';

describe('data plane: durability across SIGKILL', () => {
  const dataDir = tempDataDir();
  let server: TestServer | undefined;

  before(async () => {
    server = await startServer({ dataDir });
  });

  after(async () => {
    await server?.stop();
    removeDir(dataDir);
  });

  it('every acknowledged upsert, update and delete is there after kill -9 and restart', async () => {
    const s1 = server!;
    const host1 = await createIndex(s1, denseIndex('dur', 3, 'euclidean'));
    const batches = 20;
    const all: Vec[] = [];
    // Concurrent batches: each is acknowledged before the kill.
    await Promise.all(
      Array.from({ length: batches }, async (_, b) => {
        const vectors: Vec[] = Array.from({ length: 50 }, (_, i) => ({
          id: `b${b}-${i}`,
          values: [b, i, 0.1],
          metadata: { b, i },
        }));
        all.push(...vectors);
        await upsert(s1, host1, vectors, b % 2 === 0 ? 'even' : 'odd');
      }),
    );
    await upsert(s1, host1, [{ id: 'gone', values: [1, 1, 1] }, { id: 'kept', values: [1, 2, 3], metadata: { m: 1 } }]);
    await upsert(s1, host1, [{ id: 'x', values: [1, 1, 1] }], 'dropped');
    assert.equal((await dp(s1, host1, 'POST', '/vectors/update', { body: { id: 'kept', values: [0.1, 0.2, 0.3], setMetadata: { n: 2 } } })).status, 200);
    assert.equal((await dp(s1, host1, 'POST', '/vectors/delete', { body: { ids: ['gone'] } })).status, 200);
    assert.equal((await dp(s1, host1, 'POST', '/vectors/delete', { body: { deleteAll: true, namespace: 'dropped' } })).status, 200);
    assert.equal((await dp(s1, host1, 'POST', '/vectors/delete', { body: { filter: { i: { $gte: 45 } }, namespace: 'even' } })).status, 200);
    assert.equal((await dp(s1, host1, 'POST', '/namespaces', { body: { name: 'made' } })).status, 200);

    await s1.kill();
    server = await startServer({ dataDir });
    const s2 = server;
    // The server listens before recovery ends (DESIGN.md "Running it"); /ready says when
    // every index is loaded. Until then the data plane answers 503.
    for (let i = 0; ; i++) {
      const ready = await api(s2, 'GET', '/ready', { key: null });
      if (ready.status === 200) break;
      assert.equal(ready.status, 503, ready.text);
      if (i > 400) throw new Error('server not ready after recovery');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const described = await api(s2, 'GET', '/indexes/dur');
    assert.equal(described.status, 200, described.text);
    const host2 = described.body.host as string;
    assert.equal(host2.replace(/^.*\/svc\//, ''), host1.replace(/^.*\/svc\//, ''), 'same index id after restart');

    const expectEven = all.filter((v) => (v.metadata!.b as number) % 2 === 0 && (v.metadata!.i as number) < 45);
    const expectOdd = all.filter((v) => (v.metadata!.b as number) % 2 === 1);
    const st = await stats(s2, host2);
    assert.deepEqual(st.body.namespaces, {
      __default__: { vectorCount: 1, recordCount: 1 },
      even: { vectorCount: expectEven.length, recordCount: expectEven.length },
      odd: { vectorCount: expectOdd.length, recordCount: expectOdd.length },
    });
    assert.deepEqual(await listAll(s2, host2, { namespace: 'even' }), expectEven.map((v) => v.id).sort());
    assert.deepEqual(await listAll(s2, host2, { namespace: 'odd' }), expectOdd.map((v) => v.id).sort());
    const odd = await fetchMap(s2, host2, expectOdd.slice(0, 100).map((v) => v.id), 'odd');
    for (const v of expectOdd.slice(0, 100)) assert.deepEqual(odd[v.id], { id: v.id, values: v.values, metadata: v.metadata });
    assert.deepEqual(await fetchMap(s2, host2, ['gone', 'kept']), {
      kept: { id: 'kept', values: [0.1, 0.2, 0.3], metadata: { m: 1, n: 2 } },
    });
    assert.deepEqual(await fetchMap(s2, host2, ['x'], 'dropped'), {});
    assert.deepEqual((await dp(s2, host2, 'GET', '/namespaces/made')).body, { name: 'made', record_count: '0' });
    // The search engine was rebuilt from the store: queries see exactly the survivors.
    const q = await dp(s2, host2, 'POST', '/query', { body: { vector: [0, 0, 0.1], topK: 10000, namespace: 'even' } });
    assert.equal(q.status, 200, q.text);
    assert.equal(q.body.matches.length, expectEven.length);
    assert.deepEqual(q.body.matches[0], { id: 'b0-0', score: 0 });
    const none = await dp(s2, host2, 'POST', '/query', { body: { vector: [1, 1, 1], topK: 10, namespace: 'dropped' } });
    assert.deepEqual(none.body.matches, []);
    // Writes continue after recovery.
    await upsert(s2, host2, [{ id: 'after', values: [1, 1, 1] }]);
    assert.equal((await stats(s2, host2)).body.totalVectorCount, expectEven.length + expectOdd.length + 2);
  });
});
