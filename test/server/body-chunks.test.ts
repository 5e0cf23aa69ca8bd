// bodyChunksParser (src/server/body-chunks.ts): the upsert route's body arrives as the
// socket's chunks, unjoined, with Fastify's own limits and errors.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { bodyChunksParser, isBodyChunks } from '../../src/server/body-chunks.js';

const LIMIT = 100_000;

function post(port: number, body: Buffer, headers: Record<string, string | number> = {}): Promise<{ status: number; text: string }> {
  // Chunked transfer: no Content-Length, so only the bytes received can exceed the limit.
  const length = headers['transfer-encoding'] === 'chunked' ? {} : { 'content-length': body.length };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/echo', headers: { 'content-type': 'application/json', ...length, ...headers }, timeout: 10_000 },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.end(body);
  });
}

describe('bodyChunksParser', () => {
  let app: FastifyInstance;
  let port: number;

  before(async () => {
    app = Fastify();
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', bodyChunksParser(LIMIT));
    app.post('/echo', async (request) => {
      if (!isBodyChunks(request.body)) return { chunks: -1 };
      const { chunks, bytes } = request.body;
      const joined = Buffer.concat(chunks);
      return { chunks: chunks.length, bytes, length: joined.length, sum: joined.reduce((a, b) => (a + b) % 65521, 0), owned: chunks.every((c) => c.byteOffset === 0 && c.byteLength === c.buffer.byteLength) };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });

  after(async () => {
    await app.close();
  });

  it('delivers every byte, in order, as chunks that each own their buffer', async () => {
    const body = Buffer.alloc(LIMIT - 10);
    for (let i = 0; i < body.length; i++) body[i] = (i * 31) % 251;
    const res = await post(port, body);
    assert.equal(res.status, 200);
    const got = JSON.parse(res.text) as { chunks: number; bytes: number; length: number; sum: number; owned: boolean };
    assert.equal(got.bytes, body.length);
    assert.equal(got.length, body.length);
    assert.equal(got.sum, body.reduce((a, b) => (a + b) % 65521, 0));
    assert.ok(got.chunks >= 1);
    assert.equal(got.owned, true);
    const empty = JSON.parse((await post(port, Buffer.alloc(0))).text) as { chunks: number; bytes: number };
    assert.deepEqual([empty.chunks, empty.bytes], [0, 0]);
  });

  it('refuses a body over the limit with Fastify\'s 413, by Content-Length or by bytes received', async () => {
    const declared = await post(port, Buffer.alloc(LIMIT + 1));
    assert.equal(declared.status, 413);
    assert.equal((JSON.parse(declared.text) as { code: string }).code, 'FST_ERR_CTP_BODY_TOO_LARGE');
    const chunked = await post(port, Buffer.alloc(LIMIT + 1), { 'transfer-encoding': 'chunked' });
    assert.equal(chunked.status, 413);
    assert.equal((JSON.parse(chunked.text) as { code: string }).code, 'FST_ERR_CTP_BODY_TOO_LARGE');
  });
});
