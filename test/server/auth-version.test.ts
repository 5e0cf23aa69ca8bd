// Authentication (Api-Key, 401 on both planes) and API versions (DESIGN.md decision 1).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, type TestServer } from '../helpers/server.js';
import { assertError, assertDataPlaneError, assertCommon, serverlessBody, stopAndClean } from './support.js';

const ACCEPTED = ['2024-04', '2024-07', '2024-10', '2025-01', '2025-04', '2025-10', '2026-04', '2026-07'];

describe('authentication and versions', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });

  after(async () => {
    await stopAndClean(server);
  });

  describe('Api-Key', () => {
    it('a request without Api-Key is 401 UNAUTHENTICATED', async () => {
      const res = await api(server, 'GET', '/indexes', { key: null });
      assertError(res, 401, 'UNAUTHENTICATED');
    });

    it('an unknown Api-Key is 401 UNAUTHENTICATED', async () => {
      const res = await api(server, 'GET', '/indexes', { key: 'not-a-real-key' });
      assertError(res, 401, 'UNAUTHENTICATED');
    });

    it('an empty Api-Key is 401', async () => {
      const res = await api(server, 'GET', '/indexes', { key: '' });
      assertError(res, 401, 'UNAUTHENTICATED');
    });

    it('a key differing only in case is not accepted', async () => {
      const res = await api(server, 'GET', '/indexes', { key: server.apiKey.toUpperCase() });
      assertError(res, 401, 'UNAUTHENTICATED');
    });

    it('is checked before the version header (no key, no version → 401)', async () => {
      const res = await api(server, 'GET', '/indexes', { key: null, version: null });
      assertError(res, 401, 'UNAUTHENTICATED');
    });

    it('is checked before the version header (bad key, malformed version → 401)', async () => {
      const res = await api(server, 'GET', '/indexes', { key: 'wrong', version: 'latest' });
      assertError(res, 401, 'UNAUTHENTICATED');
    });

    it('protects create: no index is made without a key', async () => {
      const res = await api(server, 'POST', '/indexes', { key: null, body: serverlessBody('no-key-index') });
      assertError(res, 401, 'UNAUTHENTICATED');
      const check = await api(server, 'GET', '/indexes/no-key-index');
      assert.equal(check.status, 404);
    });

    it('protects describe, configure and delete', async () => {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { tags: { a: 'b' } }],
        ['DELETE', undefined],
      ] as const) {
        const res = await api(server, method, '/indexes/anything', { key: 'wrong', body });
        assertError(res, 401, 'UNAUTHENTICATED');
      }
    });

    it('the valid key is accepted', async () => {
      const res = await api(server, 'GET', '/indexes');
      assert.equal(res.status, 200, res.text);
      assertCommon(res);
      assert.ok(Array.isArray(res.body.indexes));
    });
  });

  describe('data plane authentication', () => {
    it('a data-plane path without a key is 401 with both error shapes', async () => {
      const res = await api(server, 'POST', '/svc/whatever-abc1234/describe_index_stats', {
        key: null,
        body: {},
      });
      assertDataPlaneError(res, 401, 'UNAUTHENTICATED', 16);
    });

    it('a data-plane path of a real index without a key is 401', async () => {
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('dp-auth') });
      assert.equal(created.status, 201, created.text);
      const path = new URL(created.body.host).pathname;
      for (const sub of ['/describe_index_stats', '/vectors/upsert', '/query']) {
        const res = await api(server, 'POST', path + sub, { key: null, body: {} });
        assertDataPlaneError(res, 401, 'UNAUTHENTICATED', 16);
      }
      const get = await api(server, 'GET', path + '/vectors/fetch?ids=a', { key: null });
      assertDataPlaneError(get, 401, 'UNAUTHENTICATED', 16);
    });

    it('a data-plane path with an unknown key is 401', async () => {
      const res = await api(server, 'POST', '/svc/whatever-abc1234/describe_index_stats', {
        key: 'wrong-key',
        body: {},
      });
      assertDataPlaneError(res, 401, 'UNAUTHENTICATED', 16);
    });
  });

  describe('version header', () => {
    it('missing on the control plane is 400 naming the header and the current version', async () => {
      const res = await api(server, 'GET', '/indexes', { version: null });
      assertError(res, 400, 'INVALID_ARGUMENT', [/X-(Pinecone|Service)-Api-Version/i, '2026-04']);
    });

    it('missing on create is 400 and creates nothing', async () => {
      const res = await api(server, 'POST', '/indexes', { version: null, body: serverlessBody('no-version') });
      assertError(res, 400, 'INVALID_ARGUMENT', [/X-(Pinecone|Service)-Api-Version/i]);
      const check = await api(server, 'GET', '/indexes/no-version');
      assert.equal(check.status, 404);
    });

    it('an unknown version is 400 listing the supported versions', async () => {
      const res = await api(server, 'GET', '/indexes', { version: '2023-01' });
      assertError(res, 400, 'INVALID_ARGUMENT', ['2026-04', '2025-10']);
    });

    it('a malformed version is 400 listing the supported versions', async () => {
      for (const v of ['latest', '2026-4', '2026-04-01', '2026-13']) {
        const res = await api(server, 'GET', '/indexes', { version: v });
        assertError(res, 400, 'INVALID_ARGUMENT', ['2026-04', '2025-10']);
      }
    });

    for (const v of ACCEPTED) {
      it(`accepts ${v} in X-Service-Api-Version`, async () => {
        const res = await api(server, 'GET', '/indexes', { version: v });
        assert.equal(res.status, 200, res.text);
        assert.ok(Array.isArray(res.body.indexes));
      });
    }

    it('accepts every published version in the X-Pinecone-Api-Version alias', async () => {
      for (const v of ACCEPTED) {
        const res = await api(server, 'GET', '/indexes', { version: v, versionHeader: 'X-Pinecone-Api-Version' });
        assert.equal(res.status, 200, `${v}: ${res.text}`);
      }
    });

    it('reads the alias (an unknown version in X-Pinecone-Api-Version is 400 naming that header)', async () => {
      const res = await api(server, 'GET', '/indexes', { version: '2023-01', versionHeader: 'X-Pinecone-Api-Version' });
      assertError(res, 400, 'INVALID_ARGUMENT', ['2026-04', 'in X-Pinecone-Api-Version;']);
      const main = await api(server, 'GET', '/indexes', { version: '2023-01' });
      assertError(main, 400, 'INVALID_ARGUMENT', ['in X-Service-Api-Version;']);
    });

    it('both headers naming different versions is 400 naming both; the same version in both is fine', async () => {
      const res = await api(server, 'GET', '/indexes', { version: '2026-07', headers: { 'X-Pinecone-Api-Version': '2026-04' } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['X-Service-Api-Version says "2026-07"', 'X-Pinecone-Api-Version says "2026-04"']);
      const same = await api(server, 'GET', '/indexes', { version: '2026-04', headers: { 'X-Pinecone-Api-Version': '2026-04' } });
      assert.equal(same.status, 200, same.text);
    });

    it('the alias works for create (what the official clients send)', async () => {
      const res = await api(server, 'POST', '/indexes', {
        version: '2026-04',
        versionHeader: 'X-Pinecone-Api-Version',
        body: serverlessBody('alias-create'),
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.name, 'alias-create');
    });

    it('the data plane treats a missing version as current (not 400 for the version)', async () => {
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('dp-version') });
      assert.equal(created.status, 201, created.text);
      const res = await api(server, 'POST', created.body.host + '/describe_index_stats', {
        version: null,
        body: {},
      });
      assertCommon(res);
      if (res.status === 400) {
        assert.doesNotMatch(res.text, /version/i, `data plane refused a missing version: ${res.text}`);
      }
    });
  });

  describe('version 2026-07', () => {
    it('POST /indexes takes the 2026-07 body (deployment + schema) and refuses a 2026-04 spec body', async () => {
      const spec = await api(server, 'POST', '/indexes', { version: '2026-07', body: serverlessBody('v0726-create') });
      assertError(spec, 422, 'UNPROCESSABLE_ENTITY', ['spec']);
      assert.equal((await api(server, 'GET', '/indexes/v0726-create')).status, 404, 'nothing should be created');
      const res = await api(server, 'POST', '/indexes', {
        version: '2026-07',
        body: {
          name: 'v0726-create',
          schema: { fields: { _values: { type: 'dense_vector', dimension: 6, metric: 'euclidean' } } },
        },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.dimension, 6);
      assert.equal(res.body.metric, 'euclidean');
      assert.deepEqual(res.body.deployment, { deployment_type: 'managed', cloud: 'aws', region: 'us-east-1' });
    });

    it('PATCH takes the 2026-07 body and answers 200', async () => {
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('v0726-patch') });
      assert.equal(created.status, 201, created.text);
      const res = await api(server, 'PATCH', '/indexes/v0726-patch', {
        version: '2026-07',
        body: { deletion_protection: 'enabled' },
      });
      assert.equal(res.status, 200, res.text);
      const after = await api(server, 'GET', '/indexes/v0726-patch');
      assert.equal(after.body.deletion_protection, 'enabled');
      const unknown = await api(server, 'PATCH', '/indexes/v0726-patch', { version: '2026-07', body: { spec: {} } });
      assertError(unknown, 422, 'UNPROCESSABLE_ENTITY', ['spec']);
    });

    it('describe, list and delete work with 2026-07 and records carry the 2026-07 keys', async () => {
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('v0726-rw', { dimension: 4 }) });
      assert.equal(created.status, 201, created.text);
      const got = await api(server, 'GET', '/indexes/v0726-rw', { version: '2026-07' });
      assert.equal(got.status, 200, got.text);
      assert.equal(got.body.name, 'v0726-rw');
      assert.deepEqual(got.body.deployment, { deployment_type: 'managed', cloud: 'aws', region: 'us-east-1' });
      assert.deepEqual(got.body.schema.fields._values, { type: 'dense_vector', dimension: 4, metric: 'cosine' });
      const list = await api(server, 'GET', '/indexes', { version: '2026-07' });
      assert.equal(list.status, 200, list.text);
      assert.ok(list.body.indexes.some((i: { name: string }) => i.name === 'v0726-rw'));
      const del = await api(server, 'DELETE', '/indexes/v0726-rw', { version: '2026-07' });
      assert.equal(del.status, 202, del.text);
      const gone = await api(server, 'GET', '/indexes/v0726-rw');
      assert.equal(gone.status, 404);
    });

    it('older versions can create (2024-07 and 2025-10)', async () => {
      for (const [v, name] of [
        ['2024-07', 'old-2024-07'],
        ['2025-10', 'old-2025-10'],
      ]) {
        const res = await api(server, 'POST', '/indexes', { version: v, body: serverlessBody(name) });
        assert.equal(res.status, 201, `${v}: ${res.text}`);
      }
    });
  });

  describe('request id', () => {
    it('is present on successes, errors, 401s and unknown routes', async () => {
      const responses = [
        await api(server, 'GET', '/indexes'),
        await api(server, 'GET', '/indexes/missing-one'),
        await api(server, 'GET', '/indexes', { key: null }),
        await api(server, 'GET', '/no/such/route'),
      ];
      for (const r of responses) assertCommon(r);
    });

    it('differs between requests', async () => {
      const a = await api(server, 'GET', '/indexes');
      const b = await api(server, 'GET', '/indexes');
      assert.notEqual(a.headers.get('x-pinecone-request-id'), b.headers.get('x-pinecone-request-id'));
    });
  });
});
