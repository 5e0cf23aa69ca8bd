// The response cap (DESIGN.md decision 13): a query or fetch whose answer would exceed
// CONIFER_MAX_RESPONSE_BYTES is a 400 that says what to lower; fetch_by_metadata, which is
// paged, answers a shorter page instead.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, type TestServer } from '../helpers/server.js';
import { assertDataError, createIndex, denseIndex, dp, fetchQuery, upsert } from './support.js';

describe('data plane: response cap (2048 bytes)', () => {
  let server: TestServer;
  let host: string;
  const ids = Array.from({ length: 20 }, (_, i) => `v${i}`);

  before(async () => {
    server = await startServer({ env: { CONIFER_MAX_RESPONSE_BYTES: '2048' } });
    host = await createIndex(server, denseIndex('cap', 16, 'euclidean'));
    await upsert(
      server,
      host,
      ids.map((id, i) => ({ id, values: Array.from({ length: 16 }, (_, j) => (i + 1) / 3 + j / 7), metadata: { i } })),
    );
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  const q = (body: unknown) => dp(server, host, 'POST', '/query', { body });
  const zero = Array.from({ length: 16 }, () => 0);

  it('a query whose answer is under the cap is answered', async () => {
    const res = await q({ vector: zero, topK: 20 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.matches.length, 20);
    assert.ok(Buffer.byteLength(res.text) <= 2048);
  });

  it('a query with includeValues over the cap is a 400 naming topK and includeValues', async () => {
    const res = await q({ vector: zero, topK: 20, includeValues: true });
    assertDataError(res, 400, /topK/);
    assert.match(res.body.message, /includeValues/);
    assert.match(res.body.message, /2048/);
  });

  it('a query without values over the cap (its metadata) is a 400 naming topK and includeMetadata, not includeValues', async () => {
    await upsert(server, host, ['m1', 'm2'].map((id) => ({ id, values: zero.map((_, j) => j / 9), metadata: { text: 'm'.repeat(1500) } })), 'meta');
    const res = await q({ vector: zero, topK: 2, includeMetadata: true, namespace: 'meta' });
    assertDataError(res, 400, /topK/);
    assert.match(res.body.message, /includeMetadata/);
    assert.doesNotMatch(res.body.message, /includeValues/);
  });

  it('a smaller topK with includeValues fits', async () => {
    const res = await q({ vector: zero, topK: 2, includeValues: true });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.matches[0].values.length, 16);
  });

  it('a fetch over the cap is a 400 saying to fetch fewer ids; one id fits', async () => {
    const res = await dp(server, host, 'GET', fetchQuery(ids));
    assertDataError(res, 400, /fewer ids/);
    const one = await dp(server, host, 'GET', fetchQuery(['v3']));
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.vectors.v3.values.length, 16);
  });

  it('fetch_by_metadata over the cap answers a shorter page and pages on: every record once', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const res = await dp(server, host, 'POST', '/vectors/fetch_by_metadata', { body: { filter: { i: { $gte: 0 } }, limit: 20, paginationToken: token } });
      assert.equal(res.status, 200, res.text);
      assert.ok(Buffer.byteLength(res.text) <= 2048, `${Buffer.byteLength(res.text)} bytes`);
      const got = Object.keys(res.body.vectors);
      assert.ok(got.length > 0 && got.length < 20, `page ${pages}: ${got.length} records`);
      for (const id of got) assert.equal(res.body.vectors[id].values.length, 16);
      seen.push(...got);
      token = res.body.pagination?.next;
      pages++;
    } while (token && pages < 20);
    assert.deepEqual([...seen].sort(), [...ids].sort());
    assert.ok(pages > 1);
  });

  it('fetch_by_metadata of one record over the cap is a 400 saying so', async () => {
    await upsert(server, host, [{ id: 'wide', values: zero.map((_, j) => j + 1), metadata: { i: -1, pad: 'p'.repeat(2100) } }], 'wide');
    const res = await dp(server, host, 'POST', '/vectors/fetch_by_metadata', { body: { filter: { i: -1 }, namespace: 'wide' } });
    assertDataError(res, 400, /one record alone is over it/);
  });

  it('list is not affected (ids only, at most 100)', async () => {
    const res = await dp(server, host, 'GET', '/vectors/list');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.vectors.length, 20);
  });
});
