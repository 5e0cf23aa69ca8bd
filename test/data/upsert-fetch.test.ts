// Upsert and fetch (issue 3): record shape, float32 round trip, whole-record replace,
// default-namespace aliases, every validation rule (400 naming the field, nothing of
// the batch stored), the 2 MB / 2 MiB body limits and fetch's id limits.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, type TestServer } from '../helpers/server.js';
import {
  assertDataError,
  createIndex,
  denseIndex,
  dp,
  fetchMap,
  fetchQuery,
  sparseIndex,
  stats,
  totalCount,
  upsert,
  type Vec,
} from './support.js';

describe('data plane: upsert and fetch', () => {
  let server: TestServer;
  let cos: string; // dense, dimension 3, cosine
  let euc: string; // dense, dimension 3, euclidean
  let dot: string; // dense, dimension 3, dotproduct
  let sparse: string; // sparse, dotproduct

  before(async () => {
    server = await startServer();
    [cos, euc, dot, sparse] = await Promise.all([
      createIndex(server, denseIndex('uf-cos', 3, 'cosine')),
      createIndex(server, denseIndex('uf-euc', 3, 'euclidean')),
      createIndex(server, denseIndex('uf-dot', 3, 'dotproduct')),
      createIndex(server, sparseIndex('uf-sparse')),
    ]);
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  describe('happy path', () => {
    it('upserts and fetches records with values, sparse values and metadata', async () => {
      const res = await dp(server, cos, 'POST', '/vectors/upsert', {
        body: {
          vectors: [
            { id: 'h1', values: [1, 2, 3], metadata: { genre: 'drama', year: 2001, good: true, tags: ['a', 'b'] } },
            { id: 'h2', values: [0.5, -1, 2], sparseValues: { indices: [7, 3], values: [0.5, 0.25] } },
            { id: 'h3', values: [1, 0, 0], sparse_values: { indices: [1], values: [2] } },
          ],
          namespace: 'happy',
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { upsertedCount: 3 });

      const f = await dp(server, cos, 'GET', fetchQuery(['h1', 'h2', 'h3', 'missing'], 'happy'));
      assert.equal(f.status, 200, f.text);
      // The body is sent as bytes (json-text.ts); the header is a string body's.
      assert.equal(f.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(f.body.namespace, 'happy');
      assert.equal(typeof f.body.usage?.readUnits, 'number');
      assert.deepEqual(Object.keys(f.body.vectors).sort(), ['h1', 'h2', 'h3']);
      assert.deepEqual(f.body.vectors.h1, {
        id: 'h1',
        values: [1, 2, 3],
        metadata: { genre: 'drama', year: 2001, good: true, tags: ['a', 'b'] },
      });
      assert.equal(f.body.vectors.h2.id, 'h2');
      assert.deepEqual(f.body.vectors.h2.values, [0.5, -1, 2]);
      assert.equal(f.body.vectors.h2.metadata, undefined);
      // Sent out of index order, printed in ascending order (as query prints them), each
      // index with its own value.
      assert.deepEqual(f.body.vectors.h2.sparseValues, { indices: [3, 7], values: [0.25, 0.5] });
      assert.deepEqual(f.body.vectors.h3.sparseValues, { indices: [1], values: [2] }, 'sparse_values is accepted');
    });

    it('returns values exactly as sent, in the shortest float32 form', async () => {
      const values = [0.1, 1 / 3, -2.5];
      await upsert(server, euc, [{ id: 'f32', values }, { id: 'f32b', values: [1e-7, 3.4e38, -0.3] }]);
      const v = await fetchMap(server, euc, ['f32', 'f32b']);
      assert.deepEqual(v.f32.values, [0.1, 0.33333334, -2.5]);
      assert.deepEqual(v.f32b.values, [1e-7, 3.4e38, -0.3]);
      await upsert(server, sparse, [{ id: 's32', values: [], sparseValues: { indices: [4294967295, 0], values: [0.1, 1 / 3] } }]);
      const s = await fetchMap(server, sparse, ['s32']);
      assert.deepEqual(s.s32.sparseValues, { indices: [0, 4294967295], values: [0.33333334, 0.1] });
    });

    it('an upsert replaces the whole record (metadata is not merged)', async () => {
      await upsert(server, cos, [{ id: 'r', values: [1, 1, 1], metadata: { a: 1, b: 'x' } }], 'replace');
      await upsert(server, cos, [{ id: 'r', values: [2, 2, 2], metadata: { c: true } }], 'replace');
      let v = await fetchMap(server, cos, ['r'], 'replace');
      assert.deepEqual(v.r, { id: 'r', values: [2, 2, 2], metadata: { c: true } });
      await upsert(server, cos, [{ id: 'r', values: [3, 3, 3] }], 'replace');
      v = await fetchMap(server, cos, ['r'], 'replace');
      assert.deepEqual(v.r, { id: 'r', values: [3, 3, 3] }, 'no metadata after an upsert without metadata');
      const s = await stats(server, cos);
      assert.equal(s.body.namespaces.replace.vectorCount, 1, 'replacing does not add records');
    });

    it('absent, "" and "__default__" are the same namespace', async () => {
      await upsert(server, dot, [{ id: 'dflt', values: [1, 2, 3] }], '__default__');
      for (const ns of [undefined, '', '__default__']) {
        const res = await dp(server, dot, 'GET', fetchQuery(['dflt'], ns));
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.vectors.dflt?.values, [1, 2, 3], `namespace ${String(ns)}`);
        assert.equal(res.body.namespace, '__default__');
      }
      await upsert(server, dot, [{ id: 'dflt2', values: [1, 1, 1] }]);
      await upsert(server, dot, [{ id: 'dflt3', values: [1, 1, 1] }], '');
      const v = await fetchMap(server, dot, ['dflt', 'dflt2', 'dflt3'], '__default__');
      assert.deepEqual(Object.keys(v).sort(), ['dflt', 'dflt2', 'dflt3']);
      const s = await stats(server, dot);
      assert.deepEqual(Object.keys(s.body.namespaces), ['__default__']);
      assert.equal(s.body.namespaces.__default__.vectorCount, 3);
    });

    it('namespaces are isolated from each other', async () => {
      await upsert(server, dot, [{ id: 'iso', values: [1, 2, 3] }], 'ns-a');
      assert.deepEqual(await fetchMap(server, dot, ['iso'], 'ns-b'), {});
      assert.deepEqual(await fetchMap(server, dot, ['iso']), {});
      assert.ok((await fetchMap(server, dot, ['iso'], 'ns-a')).iso);
    });

    it('accepts a 512-character ASCII id, punctuation ids and a batch of 1000', async () => {
      const long = 'x'.repeat(511) + 'Z';
      const odd = ['a b', 'a/b?c=d&e', '#chunk:1', '~', '\u007f', 'A\tB'];
      await upsert(server, euc, [{ id: long, values: [1, 2, 3] }, ...odd.map((id) => ({ id, values: [0, 0, 1] }))], 'ids');
      const v = await fetchMap(server, euc, [long, ...odd], 'ids');
      assert.deepEqual(Object.keys(v).sort(), [long, ...odd].sort());
      assert.equal(v[long].id, long);
      const many: Vec[] = Array.from({ length: 1000 }, (_, i) => ({ id: `m${i}`, values: [i, 1, 0] }));
      await upsert(server, euc, many, 'thousand');
      const s = await stats(server, euc);
      assert.equal(s.body.namespaces.thousand.vectorCount, 1000);
    });

    it('an id and a namespace named __proto__ (or constructor) are keys like any other in fetch, fetch_by_metadata and stats', async () => {
      const ids = ['__proto__', 'constructor', 'plain'];
      for (const ns of ['protos', '__proto__']) {
        await upsert(server, euc, ids.map((id, i) => ({ id, values: [i + 1, 2, 3], metadata: { kind: 'proto' } })), ns);
        // Before, a plain {} took the "__proto__" record as its prototype: it vanished, and
        // every other record's values printed as {"text": ...}.
        for (const v of [await fetchMap(server, euc, ids, ns), (await dp(server, euc, 'POST', '/vectors/fetch_by_metadata', { body: { filter: { kind: 'proto' }, namespace: ns } })).body.vectors]) {
          assert.deepEqual(Object.keys(v).sort(), [...ids].sort(), ns);
          ids.forEach((id, i) => assert.deepEqual(v[id].values, [i + 1, 2, 3], `${ns} ${id}`));
        }
      }
      const s = await stats(server, euc);
      assert.equal(s.body.namespaces.__proto__.vectorCount, 3);
      assert.equal(Object.hasOwn(s.body.namespaces, '__proto__'), true);
      let sum = 0;
      for (const ns of Object.keys(s.body.namespaces)) sum += s.body.namespaces[ns].vectorCount;
      assert.equal(sum, s.body.totalVectorCount);
    });

    it('all-zero values are fine on euclidean and dotproduct indexes', async () => {
      await upsert(server, euc, [{ id: 'zero', values: [0, 0, 0] }], 'zeros');
      await upsert(server, dot, [{ id: 'zero', values: [0, 0, 0] }], 'zeros');
      assert.deepEqual((await fetchMap(server, euc, ['zero'], 'zeros')).zero.values, [0, 0, 0]);
      assert.deepEqual((await fetchMap(server, dot, ['zero'], 'zeros')).zero.values, [0, 0, 0]);
    });

    it('accepts every metadata value type, and metadata of exactly 40960 bytes', async () => {
      const metadata = { s: 'é', n: -1.5, i: 3, t: true, f: false, l: ['x', 'y'], e: [], '': 'empty key', _u: 1 };
      await upsert(server, cos, [{ id: 'md', values: [1, 0, 0], metadata }], 'meta');
      assert.deepEqual((await fetchMap(server, cos, ['md'], 'meta')).md.metadata, metadata);
      // {"a":"xxx…"} is 8 bytes of JSON plus the string.
      const exact = { a: 'x'.repeat(40960 - 8) };
      assert.equal(Buffer.byteLength(JSON.stringify(exact)), 40960);
      await upsert(server, cos, [{ id: 'md-big', values: [1, 0, 0], metadata: exact }], 'meta');
      assert.equal((await fetchMap(server, cos, ['md-big'], 'meta'))['md-big'].metadata.a.length, 40952);
    });

    it('accepts 2048 sparse entries and indices up to 4294967295', async () => {
      const indices = Array.from({ length: 2048 }, (_, i) => 4294967295 - i);
      const values = indices.map((_, i) => i + 1);
      await upsert(server, sparse, [{ id: 'wide', sparseValues: { indices, values } }], 'wide');
      const v = await fetchMap(server, sparse, ['wide'], 'wide');
      assert.equal(v.wide.sparseValues.indices.length, 2048);
      assert.ok(v.wide.sparseValues.indices.includes(4294967295));
    });

    it('a sparse index takes values: [] with sparseValues and returns values: []', async () => {
      await upsert(server, sparse, [
        { id: 'sp1', values: [], sparseValues: { indices: [1, 5], values: [0.5, 2] } },
        { id: 'sp2', sparseValues: { indices: [2], values: [1] }, metadata: { k: 'v' } },
      ]);
      const v = await fetchMap(server, sparse, ['sp1', 'sp2']);
      assert.deepEqual(v.sp1.values ?? [], []);
      assert.deepEqual(v.sp1.sparseValues, { indices: [1, 5], values: [0.5, 2] });
      assert.deepEqual(v.sp2.metadata, { k: 'v' });
    });

    it('reads its own writes at once: fetch, query and stats after each upsert', async () => {
      for (let i = 0; i < 15; i++) {
        await upsert(server, cos, [{ id: `ryw${i}`, values: [1, i + 1, 0] }], 'ryw');
        const v = await fetchMap(server, cos, [`ryw${i}`], 'ryw');
        assert.ok(v[`ryw${i}`], `fetch sees ryw${i}`);
        const q = await dp(server, cos, 'POST', '/query', { body: { namespace: 'ryw', topK: 100, vector: [1, i + 1, 0] } });
        assert.equal(q.status, 200, q.text);
        assert.equal(q.body.matches.length, i + 1);
        assert.equal(q.body.matches[0].id, `ryw${i}`);
        const s = await stats(server, cos);
        assert.equal(s.body.namespaces.ryw.vectorCount, i + 1);
      }
    });
  });

  describe('validation: 400 naming the field, nothing of the batch stored', () => {
    const good = (id: string): Vec => ({ id, values: [1, 2, 3] });
    let seq = 0;

    /** Sends [good, bad] to `host` and checks the 400 and that `good` was not stored. */
    async function rejects(host: string, bad: unknown, pattern: RegExp, goodVec?: Vec): Promise<void> {
      const id = `ok-${seq++}`;
      const first = goodVec ? { ...goodVec, id } : good(id);
      const before = await totalCount(server, host);
      const res = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [first, bad], namespace: 'bad' } });
      assertDataError(res, 400, pattern);
      assert.deepEqual(await fetchMap(server, host, [id], 'bad'), {}, 'the good vector of the batch is not stored');
      assert.equal(await totalCount(server, host), before, 'stats unchanged');
    }

    const denseCases: [string, unknown, RegExp][] = [
      ['dimension mismatch', { id: 'b', values: [1, 2] }, /vectors\[1\]\.values.*dimension 2.*\b3\b/],
      ['dimension too large', { id: 'b', values: [1, 2, 3, 4] }, /vectors\[1\]\.values.*dimension 4/],
      ['a string among the values', { id: 'b', values: [1, '2', 3] }, /vectors\[1\]\.values\[1\]/],
      ['null among the values', { id: 'b', values: [1, null, 3] }, /vectors\[1\]\.values\[1\]/],
      ['a boolean among the values', { id: 'b', values: [true, 1, 3] }, /vectors\[1\]\.values\[0\]/],
      ['1e39 (not finite as float32)', { id: 'b', values: [1, 2, 1e39] }, /vectors\[1\]\.values\[2\]/],
      ['-1e39', { id: 'b', values: [-1e39, 2, 3] }, /vectors\[1\]\.values\[0\]/],
      ['values [] on a dense index', { id: 'b', values: [] }, /vectors\[1\]\.values is required/],
      ['no values on a dense index', { id: 'b', metadata: { a: 1 } }, /vectors\[1\]\.values is required/],
      ['values not an array', { id: 'b', values: '1,2,3' }, /vectors\[1\]\.values/],
      ['values wrapped in one more array', { id: 'b', values: [[1, 2, 3]] }, /vectors\[1\]\.values\[0\] must be a number/],
      ['all zeros on cosine', { id: 'b', values: [0, 0, 0] }, /vectors\[1\]\.values.*zeros/],
      ['empty id', { id: '', values: [1, 2, 3] }, /vectors\[1\]\.id/],
      ['513-character id', { id: 'x'.repeat(513), values: [1, 2, 3] }, /vectors\[1\]\.id.*512/],
      ['non-ASCII id', { id: 'é', values: [1, 2, 3] }, /vectors\[1\]\.id/],
      ['id with NUL', { id: 'a\u0000b', values: [1, 2, 3] }, /vectors\[1\]\.id/],
      ['numeric id', { id: 5, values: [1, 2, 3] }, /vectors\[1\]\.id/],
      ['missing id', { values: [1, 2, 3] }, /vectors\[1\]\.id/],
      ['vector not an object', 'b', /vectors\[1\]/],
      ['sparse lengths differ', { id: 'b', values: [1, 2, 3], sparseValues: { indices: [1, 2], values: [1] } }, /vectors\[1\]\.sparseValues/],
      ['sparse with 0 entries', { id: 'b', values: [1, 2, 3], sparseValues: { indices: [], values: [] } }, /vectors\[1\]\.sparseValues/],
      ['sparse duplicate index', { id: 'b', values: [1, 2, 3], sparseValues: { indices: [4, 4], values: [1, 2] } }, /vectors\[1\]\.sparseValues.*duplicate/],
      ['sparse negative index', { id: 'b', values: [1, 2, 3], sparseValues: { indices: [-1], values: [1] } }, /vectors\[1\]\.sparseValues\.indices\[0\]/],
      ['sparse non-integer index', { id: 'b', values: [1, 2, 3], sparseValues: { indices: [1.5], values: [1] } }, /vectors\[1\]\.sparseValues\.indices\[0\]/],
      ['sparse index 2^32', { id: 'b', values: [1, 2, 3], sparseValues: { indices: [4294967296], values: [1] } }, /vectors\[1\]\.sparseValues\.indices\[0\]/],
      ['sparse value 1e39', { id: 'b', values: [1, 2, 3], sparseValues: { indices: [1], values: [1e39] } }, /vectors\[1\]\.sparseValues\.values\[0\]/],
      ['sparse value a string', { id: 'b', values: [1, 2, 3], sparse_values: { indices: [1], values: ['1'] } }, /vectors\[1\]\.sparse_values\.values\[0\]/],
      ['metadata a string', { id: 'b', values: [1, 2, 3], metadata: 'x' }, /vectors\[1\]\.metadata/],
      ['metadata an array', { id: 'b', values: [1, 2, 3], metadata: ['x'] }, /vectors\[1\]\.metadata/],
      ['metadata with a nested object', { id: 'b', values: [1, 2, 3], metadata: { a: { b: 1 } } }, /vectors\[1\]\.metadata\.a/],
      ['metadata with a null value', { id: 'b', values: [1, 2, 3], metadata: { a: null } }, /vectors\[1\]\.metadata\.a/],
      ['metadata list with a number', { id: 'b', values: [1, 2, 3], metadata: { a: ['x', 1] } }, /vectors\[1\]\.metadata\.a/],
      ['metadata key starting with $', { id: 'b', values: [1, 2, 3], metadata: { $a: 1 } }, /vectors\[1\]\.metadata.*\$a/],
      ['metadata over 40960 bytes', { id: 'b', values: [1, 2, 3], metadata: { a: 'x'.repeat(40960 - 7) } }, /vectors\[1\]\.metadata.*40960/],
    ];
    for (const [name, bad, pattern] of denseCases) {
      it(`dense cosine index: ${name}`, () => rejects(cos, bad, pattern));
    }

    it('sparse 2049 entries', () =>
      rejects(
        cos,
        {
          id: 'b',
          values: [1, 2, 3],
          sparseValues: { indices: Array.from({ length: 2049 }, (_, i) => i), values: Array.from({ length: 2049 }, () => 1) },
        },
        /vectors\[1\]\.sparseValues.*2048/,
      ));

    it('values 1e999 (Infinity after JSON parsing) are refused', async () => {
      const res = await dp(server, cos, 'POST', '/vectors/upsert', {
        rawBody: '{"vectors":[{"id":"inf","values":[1,1e999,2]}],"namespace":"bad"}',
      });
      assertDataError(res, 400, /vectors\[0\]\.values\[1\]/);
      assert.deepEqual(await fetchMap(server, cos, ['inf'], 'bad'), {});
    });

    const sparseGood: Vec = { id: 'x', sparseValues: { indices: [1], values: [1] } };
    it('sparse index: dense values are refused', () =>
      rejects(sparse, { id: 'b', values: [1, 2, 3], sparseValues: { indices: [1], values: [1] } }, /vectors\[1\]\.values/, sparseGood));
    it('sparse index: a record without sparseValues is refused', () =>
      rejects(sparse, { id: 'b', metadata: { a: 1 } }, /vectors\[1\]\.sparseValues is required/, sparseGood));
    it('sparse index: values [] without sparseValues is refused', () =>
      rejects(sparse, { id: 'b', values: [] }, /vectors\[1\]\.sparseValues/, sparseGood));

    const batchCases: [string, unknown, RegExp][] = [
      ['vectors not an array', { vectors: { id: 'a', values: [1, 2, 3] } }, /vectors/],
      ['vectors missing', { namespace: 'bad' }, /vectors/],
      ['vectors empty', { vectors: [] }, /vectors.*1-1000/],
      ['1001 vectors', { vectors: Array.from({ length: 1001 }, (_, i) => ({ id: `v${i}`, values: [1, 2, 3] })) }, /vectors.*1000.*1001/],
      ['namespace not a string', { vectors: [{ id: 'a', values: [1, 2, 3] }], namespace: 5 }, /namespace/],
      ['namespace not ASCII', { vectors: [{ id: 'a', values: [1, 2, 3] }], namespace: 'ñ' }, /namespace/],
      ['body an array', [{ id: 'a', values: [1, 2, 3] }], /body/],
    ];
    for (const [name, body, pattern] of batchCases) {
      it(`batch: ${name}`, async () => {
        const before = await totalCount(server, cos);
        const res = await dp(server, cos, 'POST', '/vectors/upsert', { body });
        assertDataError(res, 400, pattern);
        assert.equal(await totalCount(server, cos), before);
      });
    }

    it('a body that is not JSON is a data-plane 400', async () => {
      const res = await dp(server, cos, 'POST', '/vectors/upsert', { rawBody: '{"vectors": [' });
      assertDataError(res, 400);
    });

    it('a "__proto__" key anywhere in a body is a 400 that says so, on every route', async () => {
      const routes: [string, string][] = [
        ['/vectors/upsert', '{"vectors":[{"id":"m","values":[1,2,3],"metadata":{"__proto__":"x"}}]}'],
        ['/query', '{"vector":[1,2,3],"topK":1,"filter":{"__proto__":"x"}}'],
        ['/vectors/update', '{"id":"m","setMetadata":{"\\u005f_proto__":"x"}}'],
        ['/vectors/fetch_by_metadata', '{"filter":{"a":{"constructor":{"prototype":{"x":1}}}}}'],
      ];
      for (const [path, rawBody] of routes) {
        const res = await dp(server, cos, 'POST', path, { rawBody });
        assertDataError(res, 400, /"__proto__" key, or a "constructor" key whose value holds "prototype"/);
      }
    });
  });

  describe('request size', () => {
    /** A body of `n` vectors each carrying ~39 KB of metadata. */
    const big = (n: number, ns: string) => ({
      vectors: Array.from({ length: n }, (_, i) => ({ id: `big${i}`, values: [1, 2, 3], metadata: { pad: 'p'.repeat(39_000) } })),
      namespace: ns,
    });

    it('a body just under 2,000,000 bytes is stored', async () => {
      const body = big(50, 'size-ok');
      const bytes = Buffer.byteLength(JSON.stringify(body));
      assert.ok(bytes < 2_000_000 && bytes > 1_900_000, String(bytes));
      const res = await dp(server, euc, 'POST', '/vectors/upsert', { body });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { upsertedCount: 50 });
      assert.equal((await stats(server, euc)).body.namespaces['size-ok'].vectorCount, 50);
    });

    it('a body over 2,000,000 bytes but under 2 MiB is a 400 naming the 2 MB limit', async () => {
      const body = big(52, 'size-400');
      const bytes = Buffer.byteLength(JSON.stringify(body));
      assert.ok(bytes > 2_000_000 && bytes < 2 * 1024 * 1024, String(bytes));
      const res = await dp(server, euc, 'POST', '/vectors/upsert', { body });
      assertDataError(res, 400, /2 ?MB/);
      assert.equal((await stats(server, euc)).body.namespaces['size-400'], undefined);
    });

    it('a body over 2 MiB is a 413 PAYLOAD_TOO_LARGE in the error shape', async () => {
      const body = big(56, 'size-413');
      assert.ok(Buffer.byteLength(JSON.stringify(body)) > 2 * 1024 * 1024);
      const res = await dp(server, euc, 'POST', '/vectors/upsert', { body });
      assert.equal(res.status, 413, res.text);
      assert.equal(res.body.error.code, 'PAYLOAD_TOO_LARGE');
      assert.equal(res.body.status, 413);
      assert.equal(typeof res.body.message, 'string');
      assert.equal((await stats(server, euc)).body.namespaces['size-413'], undefined);
    });
  });

  describe('fetch limits', () => {
    it('fetch without ids is a 400', async () => {
      assertDataError(await dp(server, cos, 'GET', '/vectors/fetch'), 400, /ids/);
      assertDataError(await dp(server, cos, 'GET', '/vectors/fetch?namespace=x'), 400, /ids/);
    });

    it('fetch of 1001 ids is a 400; 1000 ids are answered', async () => {
      const ids = Array.from({ length: 1001 }, (_, i) => `m${i}`);
      assertDataError(await dp(server, euc, 'GET', fetchQuery(ids, 'thousand')), 400, /ids.*1000/);
      const v = await fetchMap(server, euc, ids.slice(0, 1000), 'thousand');
      assert.equal(Object.keys(v).length, 1000);
    });

    it('fetch with an invalid id is a 400 naming it', async () => {
      assertDataError(await dp(server, cos, 'GET', fetchQuery(['ok', 'x'.repeat(513)])), 400, /ids\[1\]/);
    });

    it('fetch in a namespace that does not exist is 200 with no vectors', async () => {
      const res = await dp(server, cos, 'GET', fetchQuery(['h1'], 'no-such-namespace'));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.vectors, {});
      assert.equal(res.body.namespace, 'no-such-namespace');
    });

    it('1000 ids of 512 characters fit in one fetch URL (about 0.5 MB)', async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => String(i).padStart(4, '0') + 'L'.repeat(508));
      for (let b = 0; b < 4; b++) {
        await upsert(server, euc, ids.slice(b * 250, (b + 1) * 250).map((id) => ({ id, values: [1, 2, 3] })), 'long-ids');
      }
      const path = fetchQuery(ids, 'long-ids');
      assert.ok(path.length > 500_000);
      const v = await fetchMap(server, euc, ids, 'long-ids');
      assert.equal(Object.keys(v).length, 1000);
      assert.deepEqual(v[ids[999]].values, [1, 2, 3]);
    });

    it('a repeated id is returned once', async () => {
      const v = await fetchMap(server, cos, ['h1', 'h1'], 'happy');
      assert.deepEqual(Object.keys(v), ['h1']);
    });
  });
});
