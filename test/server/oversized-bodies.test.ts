// Oversized request bodies get the 413 answer in the error shape, never a dropped
// connection (issue 10): the server reads and discards the rest of the body before it
// answers (src/server/body-drain.ts), up to DRAIN_MAX_BYTES; past that bound it answers
// at once and closes. Checked with plain fetch, the official client 8.2.0 and raw sockets,
// on both planes, for bodies of 3, 6 and 50 MB.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Pinecone } from '@pinecone-database/pinecone';
import { DRAIN_MAX_BYTES } from '../../src/limits.js';
import { rawExchange } from '../helpers/raw-http.js';
import { startServer, api, CURRENT_VERSION, type TestServer } from '../helpers/server.js';
import { assertError, serverlessBody, stopAndClean } from './support.js';

const MB = 1_000_000;
const SIZES_MB = [3, 6, 50];

/** A JSON body of about `bytes` bytes that would be valid but for its size. */
function paddedJson(base: Record<string, unknown>, bytes: number): string {
  return JSON.stringify({ ...base, padding: 'x'.repeat(bytes) });
}

describe('oversized request bodies', () => {
  let server: TestServer;
  let host: string;

  before(async () => {
    server = await startServer();
    const res = await api(server, 'POST', '/indexes', { body: serverlessBody('sink') });
    assert.equal(res.status, 201, res.text);
    host = res.body.host;
  });

  after(async () => {
    await stopAndClean(server);
  });

  const headers = (): Record<string, string> => ({
    'Api-Key': server.apiKey,
    'X-Pinecone-Api-Version': CURRENT_VERSION,
    'Content-Type': 'application/json',
  });

  describe('plain fetch gets the 413 answer', () => {
    for (const mb of SIZES_MB) {
      it(`control plane, ${mb} MB: 413 PAYLOAD_TOO_LARGE and nothing created`, async () => {
        const res = await api(server, 'POST', '/indexes', {
          rawBody: paddedJson(serverlessBody(`big-${mb}`), mb * MB),
        });
        assertError(res, 413, 'PAYLOAD_TOO_LARGE', ['2097152 bytes']);
        assert.equal((await api(server, 'GET', `/indexes/big-${mb}`)).status, 404);
      });

      it(`data plane, ${mb} MB: 413 in the data-plane shape and nothing stored`, async () => {
        const body = paddedJson({ vectors: [{ id: `v${mb}`, values: [1, 2, 3, 4, 5, 6, 7, 8] }], namespace: `n${mb}` }, mb * MB);
        const res = await api(server, 'POST', `${host}/vectors/upsert`, { rawBody: body });
        assertError(res, 413, 'PAYLOAD_TOO_LARGE', ['2097152 bytes']);
        assert.equal(res.body.code, 3, res.text);
        assert.equal(res.body.message, res.body.error.message);
        const stats = await api(server, 'POST', `${host}/describe_index_stats`, { body: {} });
        assert.equal(stats.body.namespaces[`n${mb}`], undefined, stats.text);
      });
    }

    it('an oversized body without a key gets the 401 answer, not a closed connection', async () => {
      const res = await api(server, 'POST', `${host}/vectors/upsert`, {
        key: null,
        rawBody: paddedJson({ vectors: [] }, 6 * MB),
      });
      assertError(res, 401, 'UNAUTHENTICATED');
    });
  });

  describe('the official client 8.2.0 gets the 413 answer', () => {
    let pc: Pinecone;
    before(() => {
      pc = new Pinecone({ apiKey: server.apiKey, controllerHostUrl: server.url, maxRetries: 0 });
    });

    /** The client's error for a 413: the status and our message, not "failed to reach Pinecone". */
    const assert413 = (err: unknown): true => {
      assert.ok(err instanceof Error);
      assert.equal(err.name, 'PineconeUnmappedHttpError', `${err.name}: ${err.message}`);
      assert.match(err.message, /Status: 413/);
      assert.match(err.message, /exceeds the limit of 2097152 bytes/);
      return true;
    };

    for (const mb of SIZES_MB) {
      it(`data plane upsert of ${mb} MB`, async () => {
        const index = pc.index({ host });
        // Records of ~100 KB of metadata each; the client sends them in one request.
        const count = Math.ceil((mb * MB) / 100_000);
        const records = Array.from({ length: count }, (_, i) => ({
          id: `c${mb}-${i}`,
          values: [1, 2, 3, 4, 5, 6, 7, 8],
          metadata: { pad: 'p'.repeat(100_000) },
        }));
        await assert.rejects(index.namespace(`client-${mb}`).upsert({ records }), assert413);
        const stats = await index.describeIndexStats();
        assert.equal(stats.namespaces?.[`client-${mb}`], undefined);
      });

      it(`control plane configure of ${mb} MB`, async () => {
        await assert.rejects(
          pc.configureIndex({ name: 'sink', tags: { pad: 'x'.repeat(mb * MB) } }),
          assert413,
        );
        const model = await pc.describeIndex('sink');
        assert.equal(model.tags?.pad, undefined);
      });
    }
  });

  describe('the answer comes after the body is read (raw socket)', () => {
    const head = (path: string, extra: string): string =>
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nApi-Key: ${server.apiKey}\r\n` +
      `X-Service-Api-Version: ${CURRENT_VERSION}\r\nContent-Type: application/json\r\n${extra}\r\n`;

    it('a 50 MB body is written completely, then answered 413', async () => {
      const body = Buffer.from(paddedJson(serverlessBody('raw-50'), 50 * MB));
      const res = await rawExchange(server.url, head('/indexes', `Content-Length: ${body.length}\r\n`), body);
      assert.equal(res.writeError, undefined, `the server closed while the body was being sent: ${res.head}`);
      assert.equal(res.status, 413, res.head);
      assert.equal(JSON.parse(res.body).error.code, 'PAYLOAD_TOO_LARGE');
    });

    // Router errors are answered before any hook runs (app.ts frameworkErrors); they too
    // must read the body first, or a client still sending it gets EPIPE, not the answer.
    for (const [what, param] of [
      ['an undecodable URL', '%'],
      ['an over-long path parameter', 'x'.repeat(3000)],
    ]) {
      it(`a router error (${what}) with a 50 MB body: the body is read, then answered 400`, async () => {
        const body = Buffer.from(paddedJson({ ids: ['a'] }, 50 * MB));
        const path = `${new URL(host).pathname}/namespaces/${param}`;
        const res = await rawExchange(
          server.url,
          head(path, `Content-Length: ${body.length}\r\n`).replace(/^POST /, 'DELETE '),
          body,
        );
        assert.equal(res.writeError, undefined, `the server closed while the body was being sent: ${res.head}`);
        assert.ok(res.bodyWritten, `the server answered before it read the body: ${res.head}`);
        assert.equal(res.status, 400, res.head);
        const parsed = JSON.parse(res.body);
        assert.equal(parsed.error.code, 'INVALID_ARGUMENT');
        assert.equal(parsed.code, 3);
      });
    }

    it('a 6 MB chunked body (no Content-Length) is read and answered 413', async () => {
      const payload = Buffer.from(paddedJson(serverlessBody('raw-chunked'), 6 * MB));
      const chunked = Buffer.concat([
        Buffer.from(`${payload.length.toString(16)}\r\n`),
        payload,
        Buffer.from('\r\n0\r\n\r\n'),
      ]);
      const res = await rawExchange(server.url, head('/indexes', 'Transfer-Encoding: chunked\r\n'), chunked);
      assert.equal(res.writeError, undefined, `the server closed while the body was being sent: ${res.head}`);
      assert.equal(res.status, 413, res.head);
      assert.equal(JSON.parse(res.body).error.code, 'PAYLOAD_TOO_LARGE');
    });

    it('a body declared over the drain bound is answered at once and the connection closed', async () => {
      // No body bytes are sent: the answer must not wait for them.
      const declared = DRAIN_MAX_BYTES + 2 * 1024 * 1024 + 1;
      const res = await rawExchange(server.url, head(new URL(host).pathname + '/vectors/upsert', `Content-Length: ${declared}\r\n`), null);
      assert.equal(res.status, 413, res.head);
      assert.match(res.head, /\r\nconnection: close/i);
      const parsed = JSON.parse(res.body);
      assert.equal(parsed.error.code, 'PAYLOAD_TOO_LARGE');
      assert.equal(parsed.code, 3);
    });

    it('the server still serves afterwards', async () => {
      assert.equal((await api(server, 'GET', '/indexes')).status, 200);
    });
  });
});
