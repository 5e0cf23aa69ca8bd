// Update (by id and by filter), delete (ids, deleteAll, filter) and fetch_by_metadata
// paging (issue 3; DESIGN.md decisions 5 and 12).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, type TestServer } from '../helpers/server.js';
import {
  assertDataError,
  createIndex,
  denseIndex,
  dp,
  fetchMap,
  listAll,
  stats,
  totalCount,
  upsert,
  type Vec,
} from './support.js';

describe('data plane: update, delete, fetch_by_metadata', () => {
  let server: TestServer;
  let host: string; // dense, dimension 2, dotproduct (hybrid records allowed)

  before(async () => {
    server = await startServer();
    host = await createIndex(server, denseIndex('ud', 2, 'dotproduct'));
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  const post = (path: string, body: unknown) => dp(server, host, 'POST', path, { body });
  const nsCount = async (ns: string): Promise<number | undefined> =>
    (await stats(server, host)).body.namespaces[ns]?.vectorCount;

  describe('update by id', () => {
    before(async () => {
      await upsert(
        server,
        host,
        [
          { id: 'u1', values: [1, 2], sparseValues: { indices: [1], values: [1] }, metadata: { a: 1, b: 'x', keep: true } },
          { id: 'u2', values: [3, 4], metadata: { a: 2 } },
        ],
        'upd',
      );
    });

    it('values overwrite and everything else is kept; answers {}', async () => {
      const res = await post('/vectors/update', { id: 'u1', values: [0.1, -7], namespace: 'upd' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {});
      const v = await fetchMap(server, host, ['u1'], 'upd');
      assert.deepEqual(v.u1.values, [0.1, -7]);
      assert.deepEqual(v.u1.sparseValues, { indices: [1], values: [1] });
      assert.deepEqual(v.u1.metadata, { a: 1, b: 'x', keep: true });
    });

    it('sparseValues overwrite (sparse_values accepted)', async () => {
      let res = await post('/vectors/update', { id: 'u1', sparseValues: { indices: [5, 6], values: [0.5, 0.25] }, namespace: 'upd' });
      assert.equal(res.status, 200, res.text);
      let v = await fetchMap(server, host, ['u1'], 'upd');
      assert.deepEqual(v.u1.sparseValues, { indices: [5, 6], values: [0.5, 0.25] });
      assert.deepEqual(v.u1.values, [0.1, -7]);
      res = await post('/vectors/update', { id: 'u1', sparse_values: { indices: [9], values: [3] }, namespace: 'upd' });
      assert.equal(res.status, 200, res.text);
      v = await fetchMap(server, host, ['u1'], 'upd');
      assert.deepEqual(v.u1.sparseValues, { indices: [9], values: [3] });
    });

    it('setMetadata adds and overwrites only the given keys', async () => {
      const res = await post('/vectors/update', { id: 'u1', setMetadata: { b: 'y', c: ['l'] }, namespace: 'upd' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {});
      const v = await fetchMap(server, host, ['u1', 'u2'], 'upd');
      assert.deepEqual(v.u1.metadata, { a: 1, b: 'y', keep: true, c: ['l'] });
      assert.deepEqual(v.u2.metadata, { a: 2 }, 'other records untouched');
    });

    it('values and setMetadata together', async () => {
      await post('/vectors/update', { id: 'u2', values: [5, 5], setMetadata: { z: 0 }, namespace: 'upd' });
      const v = await fetchMap(server, host, ['u2'], 'upd');
      assert.deepEqual(v.u2, { id: 'u2', values: [5, 5], metadata: { a: 2, z: 0 } });
    });

    it('the update is seen by query at once', async () => {
      await post('/vectors/update', { id: 'u2', values: [100, 100], namespace: 'upd' });
      const q = await post('/query', { namespace: 'upd', topK: 1, vector: [1, 1] });
      assert.equal(q.status, 200, q.text);
      assert.equal(q.body.matches[0].id, 'u2');
      assert.equal(q.body.matches[0].score, 200);
    });

    it('an unknown id is 200 {} and creates nothing', async () => {
      const before = await totalCount(server, host);
      const res = await post('/vectors/update', { id: 'ghost', values: [1, 1], setMetadata: { a: 1 }, namespace: 'upd' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {});
      assert.deepEqual(await fetchMap(server, host, ['ghost'], 'upd'), {});
      assert.equal(await totalCount(server, host), before);
    });

    it('an unknown id in a namespace that does not exist creates no namespace', async () => {
      const res = await post('/vectors/update', { id: 'ghost', values: [1, 1], namespace: 'upd-nowhere' });
      assert.equal(res.status, 200, res.text);
      assert.equal(await nsCount('upd-nowhere'), undefined);
      assert.equal((await dp(server, host, 'GET', '/namespaces/upd-nowhere')).status, 404);
    });

    const bad: [string, unknown, RegExp][] = [
      ['no changes', { id: 'u1', namespace: 'upd' }, /values|setMetadata/],
      ['no id and no filter', { values: [1, 1], namespace: 'upd' }, /\bid\b/],
      ['id too long', { id: 'x'.repeat(513), values: [1, 1], namespace: 'upd' }, /\bid\b/],
      ['dimension mismatch', { id: 'u1', values: [1, 2, 3], namespace: 'upd' }, /values.*dimension/],
      ['non-finite value', { id: 'u1', values: [1, 1e39], namespace: 'upd' }, /values\[1\]/],
      ['nested metadata', { id: 'u1', setMetadata: { a: { b: 1 } }, namespace: 'upd' }, /setMetadata\.a/],
      ['null metadata value', { id: 'u1', setMetadata: { a: null }, namespace: 'upd' }, /setMetadata\.a/],
      ['$ metadata key', { id: 'u1', setMetadata: { $x: 1 }, namespace: 'upd' }, /setMetadata/],
      ['duplicate sparse index', { id: 'u1', sparseValues: { indices: [1, 1], values: [1, 1] }, namespace: 'upd' }, /sparseValues/],
      ['dryRun on an update by id (it would write)', { id: 'u1', values: [7, 7], setMetadata: { a: 'dry' }, dryRun: true, namespace: 'upd' }, /dryRun.*by filter/],
    ];
    for (const [name, body, pattern] of bad) {
      it(`400 and nothing changed: ${name}`, async () => {
        const before = await fetchMap(server, host, ['u1'], 'upd');
        assertDataError(await post('/vectors/update', body), 400, pattern);
        assert.deepEqual(await fetchMap(server, host, ['u1'], 'upd'), before);
      });
    }
  });

  describe('update on a sparse index', () => {
    let sparse: string;
    before(async () => {
      sparse = await createIndex(server, { name: 'ud-sparse', vector_type: 'sparse', metric: 'dotproduct', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } });
      await upsert(server, sparse, [
        { id: 'a', sparseValues: { indices: [1, 2], values: [1, 1] }, metadata: { k: 1 } },
        { id: 'b', sparseValues: { indices: [3], values: [5] } },
      ]);
    });

    it('dense values are refused and nothing changes', async () => {
      assertDataError(await dp(server, sparse, 'POST', '/vectors/update', { body: { id: 'a', values: [1, 2] } }), 400, /values/);
      assert.deepEqual((await fetchMap(server, sparse, ['a'])).a.sparseValues, { indices: [1, 2], values: [1, 1] });
    });

    it('sparseValues overwrite (with values: []) and the next query sees them', async () => {
      const res = await dp(server, sparse, 'POST', '/vectors/update', { body: { id: 'a', values: [], sparseValues: { indices: [3], values: [10] } } });
      assert.equal(res.status, 200, res.text);
      const v = await fetchMap(server, sparse, ['a']);
      assert.deepEqual(v.a.sparseValues, { indices: [3], values: [10] });
      assert.deepEqual(v.a.metadata, { k: 1 });
      const q = await dp(server, sparse, 'POST', '/query', { body: { topK: 2, sparseVector: { indices: [3], values: [1] } } });
      assert.deepEqual(q.body.matches, [{ id: 'a', score: 10 }, { id: 'b', score: 5 }]);
    });
  });

  describe('update by filter', () => {
    before(async () => {
      const vectors: Vec[] = Array.from({ length: 10 }, (_, i) => ({
        id: `f${i}`,
        values: [i, 1],
        metadata: { genre: i % 2 === 0 ? 'even' : 'odd', n: i },
      }));
      await upsert(server, host, vectors, 'byf');
      await upsert(server, host, [{ id: 'f0', values: [1, 1], metadata: { genre: 'even' } }], 'byf-other');
    });

    it('dryRun counts matches and changes nothing', async () => {
      const before = await fetchMap(server, host, ['f0', 'f1', 'f2'], 'byf');
      const res = await post('/vectors/update', { filter: { genre: 'even' }, setMetadata: { tag: 'x' }, dryRun: true, namespace: 'byf' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { matchedRecords: 5 });
      assert.deepEqual(await fetchMap(server, host, ['f0', 'f1', 'f2'], 'byf'), before);
    });

    it('merges setMetadata into every matching record of the namespace only', async () => {
      const res = await post('/vectors/update', { filter: { n: { $gte: 6 } }, setMetadata: { tag: 'hi', genre: 'late' }, namespace: 'byf' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { matchedRecords: 4 });
      const v = await fetchMap(server, host, Array.from({ length: 10 }, (_, i) => `f${i}`), 'byf');
      for (let i = 0; i < 10; i++) {
        const expected = i >= 6 ? { genre: 'late', n: i, tag: 'hi' } : { genre: i % 2 === 0 ? 'even' : 'odd', n: i };
        assert.deepEqual(v[`f${i}`].metadata, expected, `f${i}`);
        assert.deepEqual(v[`f${i}`].values, [i, 1], 'values untouched');
      }
      const other = await fetchMap(server, host, ['f0'], 'byf-other');
      assert.deepEqual(other.f0.metadata, { genre: 'even' });
    });

    it('setMetadata that would take a record over 40,960 bytes is a 400, and no record changes (by filter and by id)', async () => {
      // Each part is within the limit; merged, the second record's is not.
      await upsert(server, host, [{ id: 'big0', values: [1, 1], metadata: { k: 1 } }, { id: 'big1', values: [1, 2], metadata: { k: 1, p: 'x'.repeat(39_900) } }], 'big');
      const before = await fetchMap(server, host, ['big0', 'big1'], 'big');
      const add = { add: 'y'.repeat(2_000) };
      assertDataError(await post('/vectors/update', { filter: { k: 1 }, setMetadata: add, namespace: 'big' }), 400, /record "big1".*over the limit of 40960 bytes/);
      assertDataError(await post('/vectors/update', { id: 'big1', setMetadata: add, namespace: 'big' }), 400, /record "big1".*over the limit of 40960 bytes/);
      // A dry run answers what the update would: the same refusal, not a count.
      assertDataError(await post('/vectors/update', { filter: { k: 1 }, setMetadata: add, namespace: 'big', dryRun: true }), 400, /record "big1".*over the limit of 40960 bytes/);
      const fits = await post('/vectors/update', { filter: { k: 1 }, setMetadata: { add: 'y' }, namespace: 'big', dryRun: true });
      assert.equal(fits.status, 200, fits.text);
      assert.equal(fits.body.matchedRecords, 2);
      assert.deepEqual(await fetchMap(server, host, ['big0', 'big1'], 'big'), before);
      // Within the limit once merged: applied.
      const res = await post('/vectors/update', { id: 'big1', setMetadata: { add: 'y' }, namespace: 'big' });
      assert.equal(res.status, 200, res.text);
      assert.equal((await fetchMap(server, host, ['big1'], 'big')).big1.metadata.add, 'y');
    });

    it('setMetadata {} changes nothing: a record without metadata does not get an empty object', async () => {
      await upsert(server, host, [{ id: 'bare', values: [1, 3] }], 'empty-set');
      const res = await post('/vectors/update', { id: 'bare', setMetadata: {}, namespace: 'empty-set' });
      assert.equal(res.status, 200, res.text);
      const fetched = await fetchMap(server, host, ['bare'], 'empty-set');
      assert.equal('metadata' in fetched.bare, false, JSON.stringify(fetched.bare));
    });

    it('a filter matching nothing answers matchedRecords 0', async () => {
      const res = await post('/vectors/update', { filter: { genre: 'none' }, setMetadata: { a: 1 }, namespace: 'byf' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { matchedRecords: 0 });
    });

    const bad: [string, unknown, RegExp][] = [
      ['filter with values', { filter: { genre: 'even' }, values: [1, 1], setMetadata: { a: 1 } }, /values/],
      ['filter with sparseValues', { filter: { genre: 'even' }, sparseValues: { indices: [1], values: [1] }, setMetadata: { a: 1 } }, /sparseValues/],
      ['id with filter', { id: 'f0', filter: { genre: 'even' }, setMetadata: { a: 1 } }, /id.*filter|filter.*id/],
      ['malformed filter', { filter: { n: { $gt: 'x' } }, setMetadata: { a: 1 } }, /filter\.n\.\$gt/],
      ['empty filter', { filter: {}, setMetadata: { a: 1 } }, /filter/],
      ['dryRun not a boolean', { filter: { genre: 'even' }, setMetadata: { a: 1 }, dryRun: 'yes' }, /dryRun/],
    ];
    for (const [name, body, pattern] of bad) {
      it(`400 and nothing changed: ${name}`, async () => {
        const before = await fetchMap(server, host, ['f0', 'f1'], 'byf');
        assertDataError(await post('/vectors/update', { ...(body as object), namespace: 'byf' }), 400, pattern);
        assert.deepEqual(await fetchMap(server, host, ['f0', 'f1'], 'byf'), before);
      });
    }
  });

  describe('delete', () => {
    it('by ids: answers {}, records gone, counts drop; unknown ids are ignored', async () => {
      await upsert(server, host, ['d1', 'd2', 'd3'].map((id) => ({ id, values: [1, 1] })), 'del-ids');
      const res = await post('/vectors/delete', { ids: ['d1', 'd3', 'nope'], namespace: 'del-ids' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {});
      assert.deepEqual(Object.keys(await fetchMap(server, host, ['d1', 'd2', 'd3'], 'del-ids')), ['d2']);
      assert.equal(await nsCount('del-ids'), 1);
      const q = await post('/query', { namespace: 'del-ids', topK: 10, vector: [1, 1] });
      assert.deepEqual(q.body.matches.map((m: { id: string }) => m.id), ['d2']);
      assert.deepEqual(await listAll(server, host, { namespace: 'del-ids' }), ['d2']);
    });

    it('by filter deletes only the matching records of that namespace', async () => {
      const vectors: Vec[] = Array.from({ length: 8 }, (_, i) => ({ id: `x${i}`, values: [1, i], metadata: { n: i } }));
      await upsert(server, host, vectors, 'del-f');
      await upsert(server, host, vectors, 'del-f2');
      const res = await post('/vectors/delete', { filter: { n: { $lt: 3 } }, namespace: 'del-f' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {});
      assert.deepEqual(await listAll(server, host, { namespace: 'del-f' }), ['x3', 'x4', 'x5', 'x6', 'x7']);
      assert.equal(await nsCount('del-f'), 5);
      assert.equal(await nsCount('del-f2'), 8);
    });

    it('deleteAll hides the namespace at once (stats, list, fetch, query, namespaces API)', async () => {
      await upsert(server, host, ['a', 'b'].map((id) => ({ id, values: [1, 1] })), 'del-all');
      await upsert(server, host, [{ id: 'keep', values: [1, 1] }], 'del-all-keep');
      const before = await totalCount(server, host);
      const res = await post('/vectors/delete', { deleteAll: true, namespace: 'del-all' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {});
      assert.equal(await nsCount('del-all'), undefined);
      assert.equal(await totalCount(server, host), before - 2);
      assert.deepEqual(await listAll(server, host, { namespace: 'del-all' }), []);
      assert.deepEqual(await fetchMap(server, host, ['a', 'b'], 'del-all'), {});
      const q = await post('/query', { namespace: 'del-all', topK: 10, vector: [1, 1] });
      assert.equal(q.status, 200, q.text);
      assert.deepEqual(q.body.matches, []);
      assert.equal((await dp(server, host, 'GET', '/namespaces/del-all')).status, 404);
      const names = (await dp(server, host, 'GET', '/namespaces')).body.namespaces.map((n: { name: string }) => n.name);
      assert.ok(!names.includes('del-all'));
      assert.ok(names.includes('del-all-keep'));
      // A later upsert under the same name starts an empty namespace.
      await upsert(server, host, [{ id: 'c', values: [1, 1] }, { id: 'a', values: [2, 2] }], 'del-all');
      assert.deepEqual(await listAll(server, host, { namespace: 'del-all' }), ['a', 'c']);
      assert.equal(await nsCount('del-all'), 2);
      const again = await post('/query', { namespace: 'del-all', topK: 10, vector: [1, 1], includeValues: true });
      assert.deepEqual(
        again.body.matches.map((m: { id: string; values: number[] }) => [m.id, m.values]),
        [['a', [2, 2]], ['c', [1, 1]]],
        'only the new incarnation is searched',
      );
      assert.deepEqual((await fetchMap(server, host, ['a', 'b'], 'del-all')).a.values, [2, 2]);
    });

    it('deleteAll in the default namespace', async () => {
      await upsert(server, host, [{ id: 'dd', values: [1, 1] }]);
      const res = await post('/vectors/delete', { deleteAll: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(await nsCount('__default__'), undefined);
      assert.deepEqual(await fetchMap(server, host, ['dd']), {});
    });

    it('in a namespace that does not exist: 200 {} for ids, deleteAll and filter', async () => {
      for (const body of [{ ids: ['a'] }, { deleteAll: true }, { filter: { n: 1 } }]) {
        const res = await post('/vectors/delete', { ...body, namespace: 'never-existed' });
        assert.equal(res.status, 200, `${JSON.stringify(body)}: ${res.text}`);
        assert.deepEqual(res.body, {});
      }
      assert.equal(await nsCount('never-existed'), undefined);
    });

    it('deleting the last record of an implicit namespace removes it from the namespaces list', async () => {
      await upsert(server, host, [{ id: 'only', values: [1, 1] }], 'del-last');
      assert.equal((await dp(server, host, 'GET', '/namespaces/del-last')).status, 200);
      await post('/vectors/delete', { ids: ['only'], namespace: 'del-last' });
      assert.equal((await dp(server, host, 'GET', '/namespaces/del-last')).status, 404);
      const names = (await dp(server, host, 'GET', '/namespaces')).body.namespaces.map((n: { name: string }) => n.name);
      assert.ok(!names.includes('del-last'));
      assert.equal(await nsCount('del-last'), undefined);
    });

    const bad: [string, unknown, RegExp][] = [
      ['no selector', {}, /ids|deleteAll|filter/],
      ['deleteAll false alone', { deleteAll: false }, /ids|deleteAll|filter/],
      ['ids and deleteAll', { ids: ['k1'], deleteAll: true }, /exactly one/],
      ['ids and filter', { ids: ['k1'], filter: { n: 1 } }, /exactly one/],
      ['deleteAll and filter', { deleteAll: true, filter: { n: 1 } }, /exactly one/],
      ['empty ids', { ids: [] }, /ids/],
      ['1001 ids', { ids: Array.from({ length: 1001 }, (_, i) => `k${i}`) }, /ids.*1000/],
      ['ids not an array', { ids: 'k1' }, /ids/],
      ['a bad id', { ids: ['k1', ''] }, /ids\[1\]/],
      ['empty filter', { filter: {} }, /filter/],
      ['malformed filter', { filter: { n: { $regex: 'x' } } }, /filter\.n\.\$regex/],
      ['deleteAll not a boolean', { deleteAll: 'true' }, /deleteAll/],
    ];
    for (const [name, body, pattern] of bad) {
      it(`400 and nothing deleted: ${name}`, async () => {
        await upsert(server, host, [{ id: 'k1', values: [1, 1], metadata: { n: 1 } }], 'del-bad');
        assertDataError(await post('/vectors/delete', { ...(body as object), namespace: 'del-bad' }), 400, pattern);
        assert.ok((await fetchMap(server, host, ['k1'], 'del-bad')).k1, 'k1 still there');
      });
    }
  });

  describe('fetch_by_metadata', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    before(async () => {
      // Upserted out of order, so id order is the server's doing.
      const vectors: Vec[] = ids
        .map((id, i) => ({ id, values: [i, 1], metadata: { even: i % 2 === 0, i } }))
        .reverse();
      await upsert(server, host, vectors, 'fbm');
      await upsert(server, host, [{ id: 'r00', values: [1, 1], metadata: { even: true, i: 0 } }], 'fbm-other');
    });

    it('pages matching records in id order, each once; no pagination on the last page', async () => {
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      for (;;) {
        const body: Record<string, unknown> = { filter: { even: true }, limit: 4, namespace: 'fbm' };
        if (token) body.paginationToken = token;
        const res = await post('/vectors/fetch_by_metadata', body);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.namespace, 'fbm');
        assert.equal(typeof res.body.usage?.readUnits, 'number');
        const page = Object.keys(res.body.vectors);
        for (const id of page) {
          assert.equal(res.body.vectors[id].id, id);
          assert.equal(res.body.vectors[id].metadata.even, true);
          assert.equal(res.body.vectors[id].values.length, 2);
        }
        seen.push(...page.sort());
        pages++;
        token = res.body.pagination?.next;
        if (!token) {
          assert.equal(res.body.pagination, undefined);
          break;
        }
        assert.equal(page.length, 4, 'full pages before the last');
      }
      const expected = ids.filter((_, i) => i % 2 === 0);
      assert.deepEqual(seen, expected);
      assert.equal(pages, 4); // 15 matches: 4 + 4 + 4 + 3
    });

    it('exactly `limit` matches: one page, no pagination', async () => {
      const res = await post('/vectors/fetch_by_metadata', { filter: { i: { $lt: 5 } }, limit: 5, namespace: 'fbm' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body.vectors).sort(), ids.slice(0, 5));
      assert.equal(res.body.pagination, undefined);
    });

    it('default limit is 100', async () => {
      const res = await post('/vectors/fetch_by_metadata', { filter: { i: { $gte: 0 } }, namespace: 'fbm' });
      assert.equal(res.status, 200, res.text);
      assert.equal(Object.keys(res.body.vectors).length, 30);
      assert.equal(res.body.pagination, undefined);
    });

    it('a namespace that does not exist gives no vectors', async () => {
      const res = await post('/vectors/fetch_by_metadata', { filter: { even: true }, namespace: 'fbm-none' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.vectors, {});
    });

    it('a token used with another filter or namespace is a 400; a malformed token is a 400', async () => {
      const first = await post('/vectors/fetch_by_metadata', { filter: { even: true }, limit: 2, namespace: 'fbm' });
      const token = first.body.pagination.next;
      assert.equal(typeof token, 'string');
      assertDataError(
        await post('/vectors/fetch_by_metadata', { filter: { even: false }, limit: 2, namespace: 'fbm', paginationToken: token }),
        400,
        /paginationToken/,
      );
      assertDataError(
        await post('/vectors/fetch_by_metadata', { filter: { even: true }, limit: 2, namespace: 'fbm-other', paginationToken: token }),
        400,
        /paginationToken/,
      );
      for (const bad of ['not a token!', 'abc', Buffer.from('{"k":1}').toString('base64url')]) {
        assertDataError(
          await post('/vectors/fetch_by_metadata', { filter: { even: true }, limit: 2, namespace: 'fbm', paginationToken: bad }),
          400,
          /paginationToken/,
        );
      }
      // An empty token means "first page", as in list and the namespaces API.
      const fromStart = await post('/vectors/fetch_by_metadata', { filter: { even: true }, limit: 2, namespace: 'fbm', paginationToken: '' });
      assert.deepEqual(Object.keys(fromStart.body.vectors).sort(), Object.keys(first.body.vectors).sort());
      // The token still works where it belongs, and the page starts after the first.
      const second = await post('/vectors/fetch_by_metadata', { filter: { even: true }, limit: 2, namespace: 'fbm', paginationToken: token });
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(Object.keys(second.body.vectors).sort(), ['r04', 'r06']);
    });

    for (const [name, limit] of [['0', 0], ['10001', 10001], ['"5"', '5'], ['2.5', 2.5]] as const) {
      it(`limit ${name} is a 400`, async () => {
        assertDataError(await post('/vectors/fetch_by_metadata', { filter: { even: true }, limit, namespace: 'fbm' }), 400, /limit/);
      });
    }

    it('limit 10000 is accepted', async () => {
      const res = await post('/vectors/fetch_by_metadata', { filter: { even: true }, limit: 10000, namespace: 'fbm' });
      assert.equal(res.status, 200, res.text);
      assert.equal(Object.keys(res.body.vectors).length, 15);
    });

    it('a malformed filter is a 400 naming the path', async () => {
      assertDataError(await post('/vectors/fetch_by_metadata', { filter: { i: { $in: 5 } }, namespace: 'fbm' }), 400, /filter\.i\.\$in/);
    });
  });
});
