// GET /vectors/list (byte order, literal prefixes, keyset pages) and the namespaces API
// (issue 3; DESIGN.md decisions 5 and 12; pinecone-wire.md §3.7, §3.10).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, type TestServer } from '../helpers/server.js';
import { assertDataError, createIndex, denseIndex, dp, fetchMap, listAll, stats, upsert } from './support.js';

describe('data plane: list and namespaces', () => {
  let server: TestServer;
  let host: string; // dense, dimension 2, euclidean

  before(async () => {
    server = await startServer();
    host = await createIndex(server, denseIndex('ln', 2, 'euclidean'));
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  const list = (params: Record<string, string>) =>
    dp(server, host, 'GET', `/vectors/list?${new URLSearchParams(params).toString()}`);
  const ids = (res: { body: { vectors: { id: string }[] } }) => res.body.vectors.map((v) => v.id);

  describe('list', () => {
    const odd = ['b', 'B', 'a', 'A', '_x', '%y', 'a_b', 'a%b', 'aXb', 'ab', 'Ab', 'abc', 'a-b', '0', '~', 'a', 'AB', 'a%%'];
    const distinct = [...new Set(odd)];
    const byteOrder = [...distinct].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));

    before(async () => {
      await upsert(server, host, distinct.map((id) => ({ id, values: [1, 1] })), 'chars');
      const many = Array.from({ length: 150 }, (_, i) => ({ id: `id-${String(i).padStart(3, '0')}`, values: [i, 0] }));
      await upsert(server, host, many.reverse(), 'many');
    });

    it('returns ids in byte order (uppercase before lowercase) with namespace and usage', async () => {
      const res = await list({ namespace: 'chars' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(ids(res), byteOrder);
      assert.ok(ids(res).indexOf('B') < ids(res).indexOf('a'));
      assert.equal(res.body.namespace, 'chars');
      assert.equal(typeof res.body.usage?.readUnits, 'number');
      assert.equal(res.body.pagination, undefined);
    });

    const prefixCases: [string, string[]][] = [
      ['a_', ['a_b']],
      ['a%', ['a%%', 'a%b']],
      ['%', ['%y']],
      ['_', ['_x']],
      ['A', ['A', 'AB', 'Ab']],
      ['a', ['a', 'a%%', 'a%b', 'a-b', 'aXb', 'a_b', 'ab', 'abc']],
      ['ab', ['ab', 'abc']],
      ['abc', ['abc']],
      ['abcd', []],
      ['~', ['~']],
      ['z', []],
    ];
    for (const [prefix, expected] of prefixCases) {
      it(`prefix ${JSON.stringify(prefix)} is literal and case-sensitive`, async () => {
        const res = await list({ namespace: 'chars', prefix });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(ids(res), expected);
      });
    }

    it('default limit is 100; pagination only when more remain', async () => {
      const first = await list({ namespace: 'many' });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.vectors.length, 100);
      assert.equal(ids(first)[0], 'id-000');
      assert.equal(typeof first.body.pagination?.next, 'string');
      const second = await list({ namespace: 'many', paginationToken: first.body.pagination.next });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.vectors.length, 50);
      assert.equal(ids(second)[0], 'id-100');
      assert.equal(second.body.pagination, undefined);
    });

    it('paging with limit 7 gives every id exactly once, in order', async () => {
      const all = await listAll(server, host, { namespace: 'many', limit: '7' });
      assert.equal(all.length, 150);
      assert.deepEqual(all, Array.from({ length: 150 }, (_, i) => `id-${String(i).padStart(3, '0')}`));
    });

    it('paging with a prefix stays inside the prefix', async () => {
      const all = await listAll(server, host, { namespace: 'many', prefix: 'id-1', limit: '9' });
      assert.deepEqual(all, Array.from({ length: 50 }, (_, i) => `id-${100 + i}`));
    });

    it('exactly `limit` ids left: no pagination', async () => {
      const res = await list({ namespace: 'many', prefix: 'id-01', limit: '10' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.vectors.length, 10);
      assert.equal(res.body.pagination, undefined);
      const half = await list({ namespace: 'many', prefix: 'id-01', limit: '5' });
      assert.ok(half.body.pagination?.next);
      const rest = await list({ namespace: 'many', prefix: 'id-01', limit: '5', paginationToken: half.body.pagination.next });
      assert.deepEqual(ids(rest), ['id-015', 'id-016', 'id-017', 'id-018', 'id-019']);
      assert.equal(rest.body.pagination, undefined);
    });

    it('limit 1 and 100 are accepted', async () => {
      assert.equal((await list({ namespace: 'many', limit: '1' })).body.vectors.length, 1);
      assert.equal((await list({ namespace: 'many', limit: '100' })).body.vectors.length, 100);
    });

    for (const limit of ['0', '101', 'abc', '-1', '1.5', '']) {
      it(`limit ${JSON.stringify(limit)} is a 400`, async () => {
        assertDataError(await list({ namespace: 'many', limit }), 400, /limit/);
      });
    }

    it('a prefix longer than an id can be (512) is a 400; 512 characters are listed', async () => {
      assertDataError(await list({ namespace: 'many', prefix: 'i'.repeat(513) }), 400, /prefix must be at most 512 characters/);
      const res = await list({ namespace: 'many', prefix: 'i'.repeat(512) });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(ids(res), []);
    });

    it('a malformed token or one of another listing is a 400', async () => {
      const first = await list({ namespace: 'many', limit: '3' });
      const token = first.body.pagination.next;
      assertDataError(await list({ namespace: 'chars', limit: '3', paginationToken: token }), 400, /paginationToken/);
      assertDataError(await list({ namespace: 'many', prefix: 'id-1', limit: '3', paginationToken: token }), 400, /paginationToken/);
      assertDataError(await list({ namespace: 'many', paginationToken: 'garbage!' }), 400, /paginationToken/);
      assertDataError(await list({ namespace: 'many', paginationToken: Buffer.from('[1,2]').toString('base64url') }), 400, /paginationToken/);
      // A different limit is the same listing: the token continues it.
      const next = await list({ namespace: 'many', limit: '2', paginationToken: token });
      assert.deepEqual(ids(next), ['id-003', 'id-004']);
    });

    it('records deleted or added between pages cause no duplicates', async () => {
      await upsert(server, host, Array.from({ length: 10 }, (_, i) => ({ id: `k${i}`, values: [1, i] })), 'moving');
      const first = await list({ namespace: 'moving', limit: '4' });
      assert.deepEqual(ids(first), ['k0', 'k1', 'k2', 'k3']);
      await dp(server, host, 'POST', '/vectors/delete', { body: { ids: ['k1', 'k4'], namespace: 'moving' } });
      await upsert(server, host, [{ id: 'k0a', values: [1, 1] }, { id: 'k5a', values: [1, 1] }], 'moving');
      const rest = await listAll(server, host, { namespace: 'moving', limit: '4', paginationToken: first.body.pagination.next });
      assert.deepEqual(rest, ['k5', 'k5a', 'k6', 'k7', 'k8', 'k9']);
    });

    it('a namespace that does not exist lists nothing', async () => {
      const res = await list({ namespace: 'nothing-here' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.vectors, []);
      assert.equal(res.body.pagination, undefined);
    });

    it('the default namespace: absent, "" and "__default__"', async () => {
      await upsert(server, host, [{ id: 'def1', values: [1, 1] }], '__default__');
      for (const params of [{}, { namespace: '' }, { namespace: '__default__' }] as Record<string, string>[]) {
        const res = await list(params);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(ids(res), ['def1']);
        assert.equal(res.body.namespace, '__default__');
      }
    });
  });

  describe('namespaces API', () => {
    before(async () => {
      await upsert(server, host, [1, 2, 3].map((i) => ({ id: `n${i}`, values: [i, 1] })), 'ns-three');
      await upsert(server, host, [{ id: 'n1', values: [1, 1] }], 'ns-one');
    });

    it('GET /namespaces lists every namespace with record_count as a string and total_count', async () => {
      const res = await dp(server, host, 'GET', '/namespaces');
      assert.equal(res.status, 200, res.text);
      const byName = Object.fromEntries(res.body.namespaces.map((n: { name: string; record_count: unknown }) => [n.name, n.record_count]));
      assert.equal(byName['ns-three'], '3');
      assert.equal(byName['ns-one'], '1');
      assert.equal(typeof res.body.total_count, 'number');
      assert.equal(res.body.total_count, res.body.namespaces.length);
      const names = res.body.namespaces.map((n: { name: string }) => n.name);
      assert.deepEqual(names, [...names].sort((x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
      const s = await stats(server, host);
      assert.deepEqual([...names].sort(), Object.keys(s.body.namespaces).sort(), 'the same namespaces as stats');
    });

    it('prefix, limit and pagination', async () => {
      await upsert(server, host, Array.from({ length: 5 }, (_, i) => ({ id: 'x', values: [1, i] })), 'pfx-0');
      for (let i = 1; i < 5; i++) await upsert(server, host, [{ id: 'x', values: [1, 1] }], `pfx-${i}`);
      const first = await dp(server, host, 'GET', '/namespaces?prefix=pfx-&limit=2');
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.body.namespaces.map((n: { name: string }) => n.name), ['pfx-0', 'pfx-1']);
      assert.equal(first.body.total_count, 5);
      assert.ok(first.body.pagination?.next);
      const seen = [...first.body.namespaces.map((n: { name: string }) => n.name)];
      let token = first.body.pagination.next;
      while (token) {
        const page = await dp(server, host, 'GET', `/namespaces?prefix=pfx-&limit=2&paginationToken=${encodeURIComponent(token)}`);
        assert.equal(page.status, 200, page.text);
        seen.push(...page.body.namespaces.map((n: { name: string }) => n.name));
        token = page.body.pagination?.next;
      }
      assert.deepEqual(seen, ['pfx-0', 'pfx-1', 'pfx-2', 'pfx-3', 'pfx-4']);
      const none = await dp(server, host, 'GET', '/namespaces?prefix=zzz');
      assert.deepEqual(none.body.namespaces, []);
      assert.equal(none.body.total_count, 0);
      assertDataError(await dp(server, host, 'GET', '/namespaces?limit=0'), 400, /limit/);
      assertDataError(await dp(server, host, 'GET', '/namespaces?limit=101'), 400, /limit/);
      assertDataError(await dp(server, host, 'GET', '/namespaces?paginationToken=%21bad'), 400, /paginationToken/);
      assertDataError(
        await dp(server, host, 'GET', `/namespaces?prefix=ns-&paginationToken=${encodeURIComponent(first.body.pagination.next)}`),
        400,
        /paginationToken/,
      );
    });

    it('GET /namespaces/{ns} describes one; 404 when it does not exist', async () => {
      const res = await dp(server, host, 'GET', '/namespaces/ns-three');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { name: 'ns-three', record_count: '3' });
      assertDataError(await dp(server, host, 'GET', '/namespaces/ns-missing'), 404);
    });

    it('the default namespace is described as __default__', async () => {
      await upsert(server, host, [{ id: 'd', values: [1, 1] }]);
      const res = await dp(server, host, 'GET', '/namespaces/__default__');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.name, '__default__');
      assert.equal(res.body.record_count, String((await stats(server, host)).body.namespaces.__default__.vectorCount));
    });

    it('DELETE /namespaces/{ns}: 200 {} then 404, records gone', async () => {
      await upsert(server, host, [{ id: 'gone', values: [1, 1] }], 'ns-del');
      const res = await dp(server, host, 'DELETE', '/namespaces/ns-del');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {});
      assertDataError(await dp(server, host, 'GET', '/namespaces/ns-del'), 404);
      assertDataError(await dp(server, host, 'DELETE', '/namespaces/ns-del'), 404);
      assert.deepEqual(await fetchMap(server, host, ['gone'], 'ns-del'), {});
      assert.equal((await stats(server, host)).body.namespaces['ns-del'], undefined);
    });

    it('POST /namespaces creates an empty namespace that is listed; a second POST is 409', async () => {
      const res = await dp(server, host, 'POST', '/namespaces', { body: { name: 'explicit' } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { name: 'explicit', record_count: '0' });
      const all = await dp(server, host, 'GET', '/namespaces?prefix=explicit');
      assert.deepEqual(all.body.namespaces, [{ name: 'explicit', record_count: '0' }]);
      assert.deepEqual((await dp(server, host, 'GET', '/namespaces/explicit')).body, { name: 'explicit', record_count: '0' });
      assertDataError(await dp(server, host, 'POST', '/namespaces', { body: { name: 'explicit' } }), 409);
      // It fills like any namespace, and stays while emptied again.
      await upsert(server, host, [{ id: 'e', values: [1, 1] }], 'explicit');
      assert.equal((await dp(server, host, 'GET', '/namespaces/explicit')).body.record_count, '1');
      await dp(server, host, 'POST', '/vectors/delete', { body: { ids: ['e'], namespace: 'explicit' } });
      assert.equal((await dp(server, host, 'GET', '/namespaces/explicit')).body.record_count, '0');
      // Deleting it through the namespaces API removes it.
      assert.equal((await dp(server, host, 'DELETE', '/namespaces/explicit')).status, 200);
      assertDataError(await dp(server, host, 'GET', '/namespaces/explicit'), 404);
    });

    it('POST /namespaces of an existing implicit namespace is 409', async () => {
      assertDataError(await dp(server, host, 'POST', '/namespaces', { body: { name: 'ns-one' } }), 409);
    });

    for (const [label, body] of [
      ['__default__', { name: '__default__' }],
      ['""', { name: '' }],
      ['no name', {}],
      ['name a number', { name: 5 }],
      ['non-ASCII name', { name: 'ñs' }],
    ] as const) {
      it(`POST /namespaces with ${label} is a 400`, async () => {
        assertDataError(await dp(server, host, 'POST', '/namespaces', { body }), 400, /name|namespace/);
      });
    }

    it('namespaces appear on first upsert', async () => {
      assertDataError(await dp(server, host, 'GET', '/namespaces/fresh'), 404);
      await upsert(server, host, [{ id: 'f', values: [1, 1] }], 'fresh');
      assert.deepEqual((await dp(server, host, 'GET', '/namespaces/fresh')).body, { name: 'fresh', record_count: '1' });
    });
  });
});
