// The one error shape for Fastify's own failures, and the transport limits (DESIGN.md
// decisions 3, 4 and 13): bad JSON, media type, empty body, body size, long route
// parameters, long URLs and headers, unknown routes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { startServer, api, TEST_API_KEY, CURRENT_VERSION, type TestServer } from '../helpers/server.js';
import { assertError, assertCommon, assertDataPlaneError, serverlessBody, stopAndClean } from './support.js';

const MiB = 1024 * 1024;

/** A raw HTTP/1.1 request with node:http, so that an early answer on a large body is still read. */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      res.on('error', reject);
    });
    // The server may answer and close before it read the whole body; the answer is what counts.
    req.on('error', reject);
    if (body) req.end(body);
    else req.end();
  });
}

describe('errors and transport', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });

  after(async () => {
    await stopAndClean(server);
  });

  describe('unknown routes and methods', () => {
    it('an unknown route is 404 in the error shape', async () => {
      const res = await api(server, 'GET', '/definitely/not/a/route');
      assertError(res, 404, 'NOT_FOUND');
    });

    it('an unknown route with a POST body is 404 in the error shape', async () => {
      const res = await api(server, 'POST', '/indexes-nope', { body: { a: 1 } });
      assertError(res, 404, 'NOT_FOUND');
    });

    it('a method a known path is not served for is 405 naming the methods it is, in the Allow header too', async () => {
      const res = await api(server, 'PUT', '/indexes', { body: {} });
      assertError(res, 405, 'METHOD_NOT_ALLOWED', ['PUT', '/indexes', 'GET, HEAD, POST']);
      assert.equal(res.headers.get('allow'), 'GET, HEAD, POST');
      const param = await api(server, 'POST', '/indexes/some-name');
      assertError(param, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(param.headers.get('allow'), 'DELETE, GET, HEAD, PATCH');
      // Routes outside the API too: /health is GET only.
      const health = await api(server, 'POST', '/health', { body: {} });
      assertError(health, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(health.headers.get('allow'), 'GET, HEAD');
    });

    it('on the data plane: 405 in its gRPC shape for a known index, 404 for an unknown one', async () => {
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('method-405') });
      assert.equal(created.status, 201, created.text);
      const base = new URL(created.body.host).pathname;
      // Pinecone answers DELETE /vectors/delete with 405 (pinecone-wire.md §3).
      const res = await api(server, 'DELETE', `${base}/vectors/delete`);
      assertDataPlaneError(res, 405, 'METHOD_NOT_ALLOWED', 12);
      assert.equal(res.headers.get('allow'), 'POST');
      assertDataPlaneError(await api(server, 'DELETE', '/svc/no-such-host/vectors/delete'), 404, 'NOT_FOUND', 5);
      assertDataPlaneError(await api(server, 'GET', `${base}/vectors/nothing-here`), 404, 'NOT_FOUND', 5);
      // A route of the method asked that answers "not found" itself stays 404: a console file that is not there.
      const missing = await api(server, 'GET', '/console/no-such-file.js', { key: null, version: null });
      assert.equal(missing.status, 404, missing.text);
      assert.equal(missing.headers.get('allow'), null);
    });
  });

  describe('bodies that cannot be deserialized', () => {
    it('truncated JSON is 422 UNPROCESSABLE_ENTITY', async () => {
      const res = await api(server, 'POST', '/indexes', { rawBody: '{"name":' });
      assertError(res, 422, 'UNPROCESSABLE_ENTITY');
    });

    it('garbage is 422', async () => {
      const res = await api(server, 'POST', '/indexes', { rawBody: 'not json at all' });
      assertError(res, 422, 'UNPROCESSABLE_ENTITY');
    });

    it('a JSON value that is not an object is 422', async () => {
      for (const raw of ['[]', '42', '"name"', 'null']) {
        const res = await api(server, 'POST', '/indexes', { rawBody: raw });
        assertError(res, 422, 'UNPROCESSABLE_ENTITY');
      }
    });

    it('bad JSON on PATCH is 422', async () => {
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('patch-json') });
      assert.equal(created.status, 201, created.text);
      const res = await api(server, 'PATCH', '/indexes/patch-json', { rawBody: '{"tags":' });
      assertError(res, 422, 'UNPROCESSABLE_ENTITY');
    });

    it('a text/plain body is 422, not 415, saying the Content-Type must be JSON', async () => {
      const res = await api(server, 'POST', '/indexes', {
        rawBody: JSON.stringify(serverlessBody('plain-text')),
        contentType: 'text/plain',
      });
      assertError(res, 422, 'UNPROCESSABLE_ENTITY');
      assert.equal(res.body.error.message, 'Content-Type must be application/json');
      const check = await api(server, 'GET', '/indexes/plain-text');
      assert.equal(check.status, 404, 'nothing should have been created');
    });

    it('another non-JSON media type is 422', async () => {
      const res = await api(server, 'POST', '/indexes', {
        rawBody: 'name=x',
        contentType: 'application/x-www-form-urlencoded',
      });
      assertError(res, 422, 'UNPROCESSABLE_ENTITY');
    });

    it('application/json with a charset parameter is accepted', async () => {
      const res = await api(server, 'POST', '/indexes', {
        rawBody: JSON.stringify(serverlessBody('charset-json')),
        contentType: 'application/json; charset=utf-8',
      });
      assert.equal(res.status, 201, res.text);
    });

    it('an empty body with a JSON content type means {} (422 naming `name`)', async () => {
      const res = await api(server, 'POST', '/indexes', { rawBody: '' });
      assertError(res, 422, 'UNPROCESSABLE_ENTITY', ['name']);
    });

    it('DELETE with a JSON content type and an empty body is served (202)', async () => {
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('delete-empty-json') });
      assert.equal(created.status, 201, created.text);
      const res = await api(server, 'DELETE', '/indexes/delete-empty-json', { rawBody: '' });
      assert.equal(res.status, 202, res.text);
      assert.equal((await api(server, 'GET', '/indexes/delete-empty-json')).status, 404);
    });

    it('PATCH requires its body: an empty JSON body is 422 (decision 13), {} is served', async () => {
      const created = await api(server, 'POST', '/indexes', {
        body: serverlessBody('patch-empty', { tags: { keep: 'me' } }),
      });
      assert.equal(created.status, 201, created.text);
      const empty = await api(server, 'PATCH', '/indexes/patch-empty', { rawBody: '' });
      assertError(empty, 422, 'UNPROCESSABLE_ENTITY', ['body is required']);
      const braces = await api(server, 'PATCH', '/indexes/patch-empty', { rawBody: '{}' });
      assert.equal(braces.status, 202, braces.text);
      const after = await api(server, 'GET', '/indexes/patch-empty');
      assert.deepEqual(after.body.tags, { keep: 'me' });
    });
  });

  describe('body size', () => {
    it('a body just under 2 MiB reaches the handler', async () => {
      const base = JSON.stringify({ ...serverlessBody('big-body'), padding: '' });
      const padding = 'x'.repeat(2 * MiB - base.length - 16);
      const raw = JSON.stringify({ ...serverlessBody('big-body'), padding });
      assert.ok(Buffer.byteLength(raw) < 2 * MiB && Buffer.byteLength(raw) > 2 * MiB - 64);
      const res = await api(server, 'POST', '/indexes', { rawBody: raw });
      assert.equal(res.status, 201, res.text.slice(0, 500));
      assert.equal(res.body.name, 'big-body');
      assert.equal(res.body.padding, undefined, 'unknown fields are ignored, not echoed');
    });

    it('a body over 2 MiB is 413 PAYLOAD_TOO_LARGE in the error shape (fetch)', async () => {
      const raw = JSON.stringify({ ...serverlessBody('too-big'), padding: 'x'.repeat(2 * MiB + 10) });
      const res = await api(server, 'POST', '/indexes', { rawBody: raw });
      assertError(res, 413, 'PAYLOAD_TOO_LARGE');
      const check = await api(server, 'GET', '/indexes/too-big');
      assert.equal(check.status, 404);
    });

    it('a body over 2 MiB is answered 413, not a dropped connection (raw HTTP)', async () => {
      const body = Buffer.from(JSON.stringify({ name: 'too-big-raw', padding: 'y'.repeat(3 * MiB) }));
      const res = await rawRequest(
        server.url + '/indexes',
        'POST',
        {
          'Api-Key': TEST_API_KEY,
          'X-Service-Api-Version': CURRENT_VERSION,
          'Content-Type': 'application/json',
          'Content-Length': String(body.length),
        },
        body,
      );
      assert.equal(res.status, 413, res.text);
      const parsed = JSON.parse(res.text);
      assert.equal(parsed.error.code, 'PAYLOAD_TOO_LARGE');
      assert.equal(parsed.status, 413);
    });

    it('the server still serves after an oversized body', async () => {
      const res = await api(server, 'GET', '/indexes');
      assert.equal(res.status, 200, res.text);
    });
  });

  describe('long route parameters, URLs and headers', () => {
    it('a 1600-character index name reaches the handler (404, not 414/431)', async () => {
      const name = 'a'.repeat(1600);
      const res = await api(server, 'GET', `/indexes/${name}`);
      assertError(res, 404, 'NOT_FOUND');
    });

    it('a 1700-character index name is a 400 naming the path parameter limit', async () => {
      const name = 'b'.repeat(1700);
      const res = await api(server, 'GET', `/indexes/${name}`);
      assertError(res, 400, 'INVALID_ARGUMENT', ['path parameter exceeds 1600 characters']);
    });

    it('a 1600-character name (the limit) on PATCH and DELETE is a 404 in the JSON shape, not a transport failure', async () => {
      const name = 'c'.repeat(1600);
      for (const method of ['PATCH', 'DELETE']) {
        const res = await api(server, method, `/indexes/${name}`, method === 'PATCH' ? { body: { tags: {} } } : {});
        assertError(res, 404, 'NOT_FOUND');
      }
    });

    it('a GET with a 200 KB query string is served normally', async () => {
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('long-url') });
      assert.equal(created.status, 201, created.text);
      const qs = Array.from({ length: 20_000 }, (_, i) => `ids=id${i}`).join('&');
      assert.ok(qs.length >= 200_000);
      const res = await api(server, 'GET', `/indexes?${qs}`);
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.ok(res.body.indexes.some((i: { name: string }) => i.name === 'long-url'));
    });

    it('a request with a 100 KB header is served normally', async () => {
      const res = await api(server, 'GET', '/indexes', { headers: { 'X-Filler': 'z'.repeat(100_000) } });
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.ok(Array.isArray(res.body.indexes));
    });
  });

  describe('no internals on the wire', () => {
    it('error bodies for odd inputs carry no stack traces', async () => {
      const odd = [
        await api(server, 'POST', '/indexes', { rawBody: '{"name": "x", "spec": {"serverless": null}}' }),
        await api(server, 'POST', '/indexes', { body: { name: 'x', metric: 'cosine', dimension: 8, spec: { serverless: {} } } }),
        await api(server, 'POST', '/indexes', { body: { name: 'x', metric: 'cosine', dimension: 8, spec: { pod: null } } }),
        await api(server, 'PATCH', '/indexes/patch-json', { body: { spec: { pod: { replicas: null } } } }),
        await api(server, 'GET', '/indexes/%E0%A4%A'),
      ];
      for (const r of odd) {
        assertCommon(r);
        assert.ok(r.status >= 400 && r.status < 500, `expected a 4xx, got ${r.status}: ${r.text}`);
        assert.equal(r.body?.status, r.status, r.text);
        assert.equal(typeof r.body?.error?.message, 'string', r.text);
      }
    });
  });
});
