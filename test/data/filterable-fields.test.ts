// Declared filterable fields (pod metadata_config.indexed, serverless
// schema.fields.*.filterable): filters on them work, a filter on any other field is a
// 400 naming it and the filterable ones, on every operation that takes a filter; the
// undeclared fields are still stored and returned (includeMetadata, fetch). Also
// fetch_by_metadata paging, now cut by the engine's columns in id order.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, type TestServer } from '../helpers/server.js';
import { POD, assertDataError, createIndex, denseIndex, dp, stats, upsert, type Vec } from './support.js';

const RECORDS: Vec[] = [1, 2, 3, 4, 5, 6].map((i) => ({
  id: `r${i}`,
  values: [i, 1],
  metadata: { genre: i % 2 === 0 ? 'even' : 'odd', year: 2000 + i },
}));

describe('filterable fields', () => {
  let server: TestServer;
  let pod: string;
  let serverless: string;

  before(async () => {
    server = await startServer();
    [pod, serverless] = await Promise.all([
      createIndex(server, denseIndex('ff-pod', 2, 'euclidean', { pod: { ...POD.pod, metadata_config: { indexed: ['genre'] } } })),
      createIndex(
        server,
        denseIndex('ff-sl', 2, 'euclidean', { serverless: { cloud: 'aws', region: 'us-east-1', schema: { fields: { genre: { filterable: true } } } } }),
      ),
    ]);
    await Promise.all([upsert(server, pod, RECORDS), upsert(server, serverless, RECORDS)]);
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  for (const [kind, hostOf] of [['pod', () => pod], ['serverless', () => serverless]] as const) {
    describe(kind, () => {
      it('a filter on a filterable field matches; undeclared fields still come back as metadata', async () => {
        const res = await dp(server, hostOf(), 'POST', '/query', {
          body: { vector: [0, 1], topK: 10, filter: { genre: 'even' }, includeMetadata: true },
        });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(
          res.body.matches.map((m: { id: string; metadata: unknown }) => [m.id, m.metadata]),
          [
            ['r2', { genre: 'even', year: 2002 }],
            ['r4', { genre: 'even', year: 2004 }],
            ['r6', { genre: 'even', year: 2006 }],
          ],
        );
      });

      const where = kind === 'pod' ? /metadata_config\.indexed lists "genre"/ : /schema\.fields \(filterable: true\) lists "genre"/;
      const bad = { $and: [{ genre: 'odd' }, { year: { $gt: 2002 } }] };
      const cases: [string, string, Record<string, unknown>][] = [
        ['query', '/query', { vector: [0, 1], topK: 3, filter: bad }],
        ['fetch_by_metadata', '/vectors/fetch_by_metadata', { filter: bad }],
        ['update by filter', '/vectors/update', { filter: bad, setMetadata: { x: 1 } }],
        ['delete by filter', '/vectors/delete', { filter: bad }],
      ];
      for (const [name, path, body] of cases) {
        it(`${name}: a filter on an undeclared field is a 400 naming it and the filterable ones`, async () => {
          const res = await dp(server, hostOf(), 'POST', path, { body });
          assertDataError(res, 400, /"year", not filterable in index ff-/);
          assert.match(res.body.message ?? res.body.error?.message ?? res.text, where);
        });
      }

      it('nothing was deleted or changed by the refused requests', async () => {
        const res = await dp(server, hostOf(), 'POST', '/vectors/fetch_by_metadata', { body: { filter: { genre: 'odd' } } });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.body.vectors).sort(), ['r1', 'r3', 'r5']);
        for (const v of Object.values(res.body.vectors) as { metadata: Record<string, unknown> }[]) assert.equal(v.metadata.x, undefined);
      });
    });
  }

  it('describe_index_stats with a filter on an undeclared field is a 400 (pod)', async () => {
    assertDataError(await dp(server, pod, 'POST', '/describe_index_stats', { body: { filter: { year: 2001 } } }), 400, /"year"/);
    const ok = await stats(server, pod, { body: { filter: { genre: 'odd' } } });
    assert.deepEqual(Object.values(ok.body.namespaces), [{ vectorCount: 3, recordCount: 3 }]);
  });
});

describe('fetch_by_metadata paging from the engine columns', () => {
  let server: TestServer;
  let host: string;

  before(async () => {
    server = await startServer();
    host = await createIndex(server, denseIndex('fbm', 2, 'cosine'));
    // Ids inserted out of order; 'b' matches, 'n' does not.
    const ids = ['m07', 'm03', 'm10', 'm01', 'm05', 'm09', 'm02', 'm08', 'm04', 'm06'];
    await upsert(server, host, ids.map((id, i) => ({ id, values: [1, i + 1], metadata: { b: Number(id.slice(1)) % 3 !== 0 } })));
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('pages through the matches in id order; a record deleted between pages is not returned', async () => {
    const page = async (token?: string): Promise<{ ids: string[]; next?: string }> => {
      const body: Record<string, unknown> = { filter: { b: true }, limit: 3 };
      if (token) body.paginationToken = token;
      const res = await dp(server, host, 'POST', '/vectors/fetch_by_metadata', { body });
      assert.equal(res.status, 200, res.text);
      return { ids: Object.keys(res.body.vectors), next: res.body.pagination?.next };
    };
    const first = await page();
    assert.deepEqual(first.ids, ['m01', 'm02', 'm04']);
    assert.ok(first.next);
    const del = await dp(server, host, 'POST', '/vectors/delete', { body: { ids: ['m05'] } });
    assert.equal(del.status, 200, del.text);
    const second = await page(first.next);
    assert.deepEqual(second.ids, ['m07', 'm08', 'm10']);
    assert.equal(second.next, undefined);
  });
});
