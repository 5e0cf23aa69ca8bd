// The bench's HTTP client (bench/http.ts) reads answers itself, so every benchmark figure
// rests on it: these tests hold it to what a server may send (lengths, chunked bodies,
// closes, empty answers, large bodies both ways) and to one request per connection at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '../../bench/http.js';

async function withServer(handler: http.RequestListener, run: (base: string) => Promise<void>): Promise<void> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Answers with what it received: method, URL, the body's length and first byte, and the API key. */
const echo: http.RequestListener = (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.url === '/chunked') {
      res.write('{"part":');
      setTimeout(() => res.end('"two"}'), 5);
      return;
    }
    if (req.url === '/close') {
      res.setHeader('Connection', 'close');
      res.end('bye');
      return;
    }
    if (req.url === '/empty') {
      res.statusCode = 204;
      res.end();
      return;
    }
    if (req.url === '/large') {
      res.end('é'.repeat(1_500_000));
      return;
    }
    res.statusCode = req.url === '/missing' ? 404 : 200;
    res.end(JSON.stringify({ method: req.method, url: req.url, bytes: body.length, first: body[0] ?? null, key: req.headers['api-key'], type: req.headers['content-type'] ?? null }));
  });
};

test('the bench client sends method, path, query, key and body, and reads the answer whole', async () => {
  await withServer(echo, async (base) => {
    const client = new Client('key-1', 2);
    try {
      // 9 characters, 10 bytes: Content-Length counts UTF-8 bytes.
      const r = await client.request('POST', `${base}/a/b?x=1&y=2`, JSON.stringify({ v: 'é' }));
      assert.equal(r.status, 200);
      assert.deepEqual(JSON.parse(r.text), { method: 'POST', url: '/a/b?x=1&y=2', bytes: 10, first: 123, key: 'key-1', type: 'application/json' });
      assert.ok(r.ms > 0);
      const get = JSON.parse((await client.request('GET', `${base}/g`)).text);
      assert.deepEqual([get.method, get.bytes, get.type], ['GET', 0, null]);
      const missing = await client.request('GET', `${base}/missing`);
      assert.equal(missing.status, 404);
      const big = JSON.parse((await client.request('POST', `${base}/up`, Buffer.alloc(2_000_000, 7))).text);
      assert.deepEqual([big.bytes, big.first], [2_000_000, 7]);
    } finally {
      client.close();
    }
  });
});

test('the bench client reads chunked, closing, empty and multi-MB answers, then keeps going', async () => {
  await withServer(echo, async (base) => {
    const client = new Client('k', 1);
    try {
      assert.deepEqual(JSON.parse((await client.request('GET', `${base}/chunked`)).text), { part: 'two' });
      assert.equal((await client.request('GET', `${base}/close`)).text, 'bye');
      const empty = await client.request('GET', `${base}/empty`);
      assert.deepEqual([empty.status, empty.text], [204, '']);
      const large = await client.request('GET', `${base}/large`);
      assert.equal(large.text, 'é'.repeat(1_500_000), 'UTF-8 split across reads decodes whole');
      // After each of those, the one connection allowed still serves the next request.
      assert.equal(JSON.parse((await client.request('GET', `${base}/after`)).text).url, '/after');
    } finally {
      client.close();
    }
  });
});

test('the bench client runs many requests over few connections, one in flight on each, each answer to its own request', async () => {
  let inFlight = 0;
  let most = 0;
  await withServer(
    (req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        res.end(req.url);
      }, 2);
    },
    async (base) => {
      const client = new Client('k', 3);
      try {
        const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => client.request('GET', `${base}/r${i}`)));
        assert.deepEqual(
          replies.map((r) => r.text),
          Array.from({ length: 60 }, (_, i) => `/r${i}`),
        );
        assert.equal(most, 3, 'at most maxSockets requests at once, and all of them used');
      } finally {
        client.close();
      }
    },
  );
});

test('the bench client rejects a request whose server is gone, and one that times out', async () => {
  const client = new Client('k', 1, 200);
  try {
    await withServer(() => {}, async (base) => {
      await assert.rejects(client.request('GET', `${base}/never`), /timed out after 200 ms/);
    });
    await assert.rejects(client.request('GET', 'http://127.0.0.1:1/'), /ECONNREFUSED/);
  } finally {
    client.close();
  }
});
