// The response cap (DESIGN.md decision 13): a query, fetch or fetch_by_metadata whose
// answer would exceed CONIFER_MAX_RESPONSE_BYTES is a 400 that says what to lower.
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

  it('fetch_by_metadata over the cap is a 400 naming limit', async () => {
    const res = await dp(server, host, 'POST', '/vectors/fetch_by_metadata', { body: { filter: { i: { $gte: 0 } }, limit: 20 } });
    assertDataError(res, 400, /limit/);
    const small = await dp(server, host, 'POST', '/vectors/fetch_by_metadata', { body: { filter: { i: { $gte: 0 } }, limit: 1 } });
    assert.equal(small.status, 200, small.text);
    assert.ok(small.body.pagination?.next);
  });

  it('list is not affected (ids only, at most 100)', async () => {
    const res = await dp(server, host, 'GET', '/vectors/list');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.vectors.length, 20);
  });
});
