// describe_index_stats (DESIGN.md decision 6, the default namespace's spelling per
// version, decision 5) and data-plane access: keys, other projects, deleted and
// recreated indexes (decision 2).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, runCli, api, type TestServer } from '../helpers/server.js';
import {
  POD,
  assertDataError,
  createIndex,
  denseIndex,
  dp,
  fetchMap,
  fetchQuery,
  sparseIndex,
  stats,
  upsert,
} from './support.js';

describe('data plane: stats and access', () => {
  let server: TestServer;
  let host: string; // serverless dense, dimension 2, cosine
  let pod: string; // pod dense, dimension 2, euclidean
  let sparse: string;

  before(async () => {
    server = await startServer();
    [host, pod, sparse] = await Promise.all([
      createIndex(server, denseIndex('st', 2, 'cosine')),
      createIndex(server, denseIndex('st-pod', 2, 'euclidean', POD)),
      createIndex(server, sparseIndex('st-sparse')),
    ]);
    await upsert(server, host, [{ id: 'a', values: [1, 0] }, { id: 'b', values: [0, 1] }]);
    await upsert(server, host, [{ id: 'a', values: [1, 1] }, { id: 'c', values: [1, 2] }, { id: 'd', values: [2, 1] }], 'ns1');
    await upsert(server, pod, [1, 2, 3, 4, 5].map((i) => ({ id: `p${i}`, values: [i, 0], metadata: { n: i, even: i % 2 === 0 } })));
    await upsert(server, pod, [1, 2, 3].map((i) => ({ id: `q${i}`, values: [i, 0], metadata: { n: i * 10 } })), 'pns');
    await upsert(server, sparse, [{ id: 's', sparseValues: { indices: [1], values: [1] } }]);
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  describe('describe_index_stats', () => {
    it('reports namespaces, dimension, fullness, totals, metric and vector type', async () => {
      const res = await stats(server, host);
      assert.deepEqual(res.body, {
        namespaces: { __default__: { vectorCount: 2, recordCount: 2 }, ns1: { vectorCount: 3, recordCount: 3 } },
        dimension: 2,
        indexFullness: 0,
        totalVectorCount: 5,
        totalRecordCount: 5,
        metric: 'cosine',
        vectorType: 'dense',
      });
    });

    it('GET works too, and an empty body is no filter', async () => {
      const get = await dp(server, host, 'GET', '/describe_index_stats');
      assert.equal(get.status, 200, get.text);
      assert.equal(get.body.totalVectorCount, 5);
      const empty = await dp(server, host, 'POST', '/describe_index_stats', { rawBody: '' });
      assert.equal(empty.status, 200, empty.text);
      assert.equal(empty.body.totalVectorCount, 5);
    });

    it('a sparse index has no dimension and vectorType sparse', async () => {
      const res = await stats(server, sparse);
      assert.equal('dimension' in res.body, false);
      assert.equal(res.body.vectorType, 'sparse');
      assert.equal(res.body.metric, 'dotproduct');
      assert.equal(res.body.totalVectorCount, 1);
    });

    it('an empty index has no namespaces and zero totals', async () => {
      const empty = await createIndex(server, denseIndex('st-empty', 2));
      const res = await stats(server, empty);
      assert.deepEqual(res.body.namespaces, {});
      assert.equal(res.body.totalVectorCount, 0);
      assert.equal(res.body.totalRecordCount, 0);
    });

    it('versions before 2025-04 name the default namespace "" (stats, fetch, query, list)', async () => {
      const old = { version: '2025-01', versionHeader: 'X-Pinecone-Api-Version' };
      const res = await stats(server, host, old);
      assert.deepEqual(Object.keys(res.body.namespaces).sort(), ['', 'ns1']);
      assert.equal(res.body.namespaces[''].vectorCount, 2);
      const f = await dp(server, host, 'GET', fetchQuery(['a']), old);
      assert.equal(f.body.namespace, '');
      assert.ok(f.body.vectors.a);
      const q = await dp(server, host, 'POST', '/query', { ...old, body: { vector: [1, 0], topK: 1 } });
      assert.equal(q.body.namespace, '');
      const l = await dp(server, host, 'GET', '/vectors/list', old);
      assert.equal(l.body.namespace, '');
      const current = await stats(server, host, { versionHeader: 'X-Pinecone-Api-Version', version: '2025-04' });
      assert.ok(current.body.namespaces.__default__);
    });

    it('the data plane treats a missing version header as current; 2026-07 works; an unknown version is a 400', async () => {
      const none = await stats(server, host, { version: null });
      assert.ok(none.body.namespaces.__default__);
      const newest = await stats(server, host, { version: '2026-07', versionHeader: 'X-Pinecone-Api-Version' });
      assert.ok(newest.body.namespaces.__default__);
      assertDataError(await dp(server, host, 'POST', '/describe_index_stats', { body: {}, version: '1999-01' }), 400, /version/);
    });

    it('a non-empty filter on a serverless index is a 400; {} is no filter', async () => {
      assertDataError(await dp(server, host, 'POST', '/describe_index_stats', { body: { filter: { n: 1 } } }), 400, /filter/);
      const res = await stats(server, host, { body: { filter: {} } });
      assert.equal(res.body.totalVectorCount, 5);
    });

    it('on a pod index a filter counts matching records per namespace; the total stays', async () => {
      const res = await stats(server, pod, { body: { filter: { even: true } } });
      assert.equal(res.body.namespaces.__default__.vectorCount, 2);
      assert.equal(res.body.namespaces.pns?.vectorCount ?? 0, 0);
      assert.equal(res.body.totalVectorCount, 8);
      const range = await stats(server, pod, { body: { filter: { n: { $gte: 3 } } } });
      assert.equal(range.body.namespaces.__default__.vectorCount, 3);
      assert.equal(range.body.namespaces.pns.vectorCount, 3);
      assert.equal(range.body.namespaces.pns.recordCount, 3);
      const ne = await stats(server, pod, { body: { filter: { even: { $ne: true } } } });
      assert.equal(ne.body.namespaces.__default__.vectorCount, 3);
      assert.equal(ne.body.namespaces.pns.vectorCount, 3, '$ne matches records without the field');
      const all = await stats(server, pod);
      assert.deepEqual(all.body.namespaces, {
        __default__: { vectorCount: 5, recordCount: 5 },
        pns: { vectorCount: 3, recordCount: 3 },
      });
      assert.equal(all.body.indexFullness, 0);
      assert.equal(all.body.metric, 'euclidean');
      assertDataError(await dp(server, pod, 'POST', '/describe_index_stats', { body: { filter: { n: { $gt: 'x' } } } }), 400, /filter\.n\.\$gt/);
    });

    it('counts follow upserts, replaces and deletes at once', async () => {
      const idx = await createIndex(server, denseIndex('st-count', 2, 'dotproduct'));
      await upsert(server, idx, [{ id: 'x', values: [1, 1] }, { id: 'y', values: [1, 1] }], 'c');
      assert.equal((await stats(server, idx)).body.namespaces.c.vectorCount, 2);
      await upsert(server, idx, [{ id: 'x', values: [2, 2] }, { id: 'z', values: [1, 1] }, { id: 'z', values: [3, 3] }], 'c');
      assert.equal((await stats(server, idx)).body.namespaces.c.vectorCount, 3, 'replace and in-batch duplicate add nothing');
      await dp(server, idx, 'POST', '/vectors/delete', { body: { ids: ['x', 'x', 'nope'], namespace: 'c' } });
      const s = await stats(server, idx);
      assert.equal(s.body.namespaces.c.vectorCount, 2);
      assert.equal(s.body.totalVectorCount, 2);
      assert.deepEqual((await fetchMap(server, idx, ['z'], 'c')).z.values, [3, 3], 'the last duplicate in a batch wins');
    });
  });

  describe('access', () => {
    it('no key is 401 (code 16) on every data-plane route', async () => {
      const routes: [string, string, unknown?][] = [
        ['POST', '/vectors/upsert', { vectors: [{ id: 'nokey', values: [1, 1] }] }],
        ['POST', '/query', { vector: [1, 1], topK: 1 }],
        ['GET', fetchQuery(['a'])],
        ['POST', '/vectors/fetch_by_metadata', { filter: { n: 1 } }],
        ['POST', '/vectors/update', { id: 'a', values: [1, 1] }],
        ['POST', '/vectors/delete', { ids: ['a'] }],
        ['GET', '/vectors/list'],
        ['POST', '/describe_index_stats', {}],
        ['GET', '/describe_index_stats'],
        ['GET', '/namespaces'],
        ['GET', '/namespaces/ns1'],
        ['DELETE', '/namespaces/ns1'],
        ['POST', '/namespaces', { name: 'nokey' }],
      ];
      for (const [method, path, body] of routes) {
        const res = await dp(server, host, method, path, { key: null, body });
        assertDataError(res, 401);
        const wrong = await dp(server, host, method, path, { key: 'wrong-key', body });
        assertDataError(wrong, 401);
      }
      // Nothing was changed.
      assert.deepEqual(await fetchMap(server, host, ['nokey']), {});
      assert.equal((await stats(server, host)).body.totalVectorCount, 5);
      assert.equal((await dp(server, host, 'GET', '/namespaces/ns1')).status, 200);
    });

    it("another project's key gets 404 (code 5) and neither reads nor writes", async () => {
      const env = { CONIFER_DATA_DIR: server.dataDir };
      const project = await runCli(['projects', 'create', 'other'], env);
      assert.equal(project.code, 0, project.stderr);
      const created = await runCli(['keys', 'create', '--project', 'other'], env);
      assert.equal(created.code, 0, created.stderr);
      const key = JSON.parse(created.stdout).key as string;
      assert.equal(typeof key, 'string');

      const routes: [string, string, unknown?][] = [
        ['POST', '/vectors/upsert', { vectors: [{ id: 'intruder', values: [1, 1] }] }],
        ['POST', '/query', { vector: [1, 1], topK: 10 }],
        ['GET', fetchQuery(['a', 'b'])],
        ['POST', '/vectors/update', { id: 'a', setMetadata: { owned: true } }],
        ['POST', '/vectors/delete', { deleteAll: true }],
        ['GET', '/vectors/list'],
        ['POST', '/describe_index_stats', {}],
        ['GET', '/namespaces'],
        ['DELETE', '/namespaces/ns1'],
      ];
      for (const [method, path, body] of routes) {
        const res = await dp(server, host, method, path, { key, body });
        assertDataError(res, 404);
        assert.ok(!res.text.includes('"values"'), 'no data in the answer');
      }
      const mine = await fetchMap(server, host, ['a', 'b', 'intruder']);
      assert.deepEqual(Object.keys(mine).sort(), ['a', 'b']);
      assert.equal(mine.a.metadata, undefined);
      assert.equal((await stats(server, host)).body.totalVectorCount, 5);
      // The key itself works on its own project.
      const own = await api(server, 'GET', '/indexes', { key });
      assert.equal(own.status, 200, own.text);
    });

    it('an unknown host is 404', async () => {
      const base = host.replace(/\/svc\/.*$/, '');
      assertDataError(await api(server, 'POST', `${base}/svc/st-zzzzzzz/query`, { body: { vector: [1, 1], topK: 1 } }), 404);
      assertDataError(await api(server, 'POST', `${base}/svc/nothing/describe_index_stats`, { body: {} }), 404);
    });

    it("a deleted index's host is 404; a recreated index has a new host and the old one stays 404", async () => {
      const first = await createIndex(server, denseIndex('st-recreate', 2));
      await upsert(server, first, [{ id: 'old', values: [1, 1] }]);
      const del = await api(server, 'DELETE', '/indexes/st-recreate');
      assert.equal(del.status, 202, del.text);
      assertDataError(await dp(server, first, 'GET', fetchQuery(['old'])), 404);
      assertDataError(await dp(server, first, 'POST', '/vectors/upsert', { body: { vectors: [{ id: 'x', values: [1, 1] }] } }), 404);

      const second = await createIndex(server, denseIndex('st-recreate', 2));
      assert.notEqual(second, first);
      assertDataError(await dp(server, first, 'POST', '/vectors/upsert', { body: { vectors: [{ id: 'stale', values: [1, 1] }] } }), 404);
      assertDataError(await dp(server, first, 'POST', '/query', { body: { vector: [1, 1], topK: 1 } }), 404);
      assert.deepEqual(await fetchMap(server, second, ['old', 'stale']), {}, 'the new index starts empty');
      assert.equal((await stats(server, second)).body.totalVectorCount, 0);
      await upsert(server, second, [{ id: 'new', values: [1, 1] }]);
      assert.ok((await fetchMap(server, second, ['new'])).new);
    });

    it('responses carry a request id and errors are JSON', async () => {
      const ok = await dp(server, host, 'POST', '/describe_index_stats', { body: {} });
      assert.ok(ok.headers.get('x-pinecone-request-id'));
      const bad = await dp(server, host, 'POST', '/query', { body: { topK: 0, vector: [1, 1] } });
      assert.ok(bad.headers.get('x-pinecone-request-id'));
      assert.match(bad.headers.get('content-type') ?? '', /application\/json/);
    });

    it('an unknown data-plane route is a 404 in the data-plane shape', async () => {
      const res = await dp(server, host, 'POST', '/vectors/nope', { body: {} });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.code, 5);
    });
  });
});
