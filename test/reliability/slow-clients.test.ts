// Slow and idle clients cannot hold connections (issue 11): idle sockets, a slowloris
// (one header byte at a time) and a slow body are closed after the configured timeouts
// with a 408, while a normal client keeps being served; beyond the connection cap new
// connections are closed at once while an existing keep-alive client keeps working.
// The timeouts are configured small so the test runs in seconds.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { api, removeDir, startServer, type TestServer } from '../helpers/server.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Watched {
  socket: net.Socket;
  closed: boolean;
  received: string;
}

async function openSocket(port: number): Promise<Watched> {
  const socket = net.connect(port, '127.0.0.1');
  const w: Watched = { socket, closed: false, received: '' };
  socket.on('data', (d: Buffer) => (w.received += d.toString()));
  socket.on('close', () => (w.closed = true));
  socket.on('error', () => undefined); // a reset is one way of being closed
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return w;
}

/** Writes `text` one byte every `everyMs` until the socket closes; resolves with the bytes sent. */
function trickle(w: Watched, text: string, everyMs: number): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    const timer = setInterval(() => {
      if (w.closed || w.socket.destroyed || sent === text.length) {
        clearInterval(timer);
        resolve(sent);
        return;
      }
      w.socket.write(text[sent++]);
    }, everyMs);
  });
}

describe('slow and idle clients', () => {
  let server: TestServer;
  let port: number;
  before(async () => {
    server = await startServer({
      env: {
        CONIFER_HEADERS_TIMEOUT_MS: '500',
        CONIFER_REQUEST_TIMEOUT_MS: '1500',
        CONIFER_KEEP_ALIVE_TIMEOUT_MS: '500',
      },
    });
    port = Number(new URL(server.url).port);
  });
  after(async () => {
    await server.stop();
    removeDir(server.dataDir);
  });

  it('closes idle connections, a slowloris and a slow body with 408 while a normal client is served', async () => {
    const idle = await Promise.all(Array.from({ length: 50 }, () => openSocket(port)));
    const loris = await openSocket(port);
    // 200 header bytes at one per 50 ms would take 10 s: far beyond the 500 ms allowed.
    const lorisRequest = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(160)}\r\n\r\n`;
    const lorisSent = trickle(loris, lorisRequest, 50);
    const slowBody = await openSocket(port);
    const body = JSON.stringify({ name: 'x'.repeat(1000) });
    slowBody.socket.write(
      `POST /indexes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nApi-Key: ${server.apiKey}\r\nX-Pinecone-Api-Version: 2026-04\r\n\r\n`,
    );
    const bodySent = trickle(slowBody, body, 50);

    const everyone = [...idle, loris, slowBody];
    let served = 0;
    // Bounded: the timeouts close everything within a few seconds.
    for (let i = 0; i < 300 && everyone.some((w) => !w.closed); i++) {
      const res = await api(server, 'GET', '/indexes');
      assert.equal(res.status, 200, res.text);
      served++;
      await sleep(20);
    }
    assert.ok(everyone.every((w) => w.closed), `${everyone.filter((w) => !w.closed).length} connections still open`);
    assert.ok(served > 0);

    assert.ok((await lorisSent) < lorisRequest.length, 'the slowloris finished its headers');
    assert.match(loris.received, /^HTTP\/1\.1 408 /);
    assert.match(loris.received, /not received in time/);
    assert.ok((await bodySent) < body.length, 'the slow body was allowed to finish');
    assert.match(slowBody.received, /^HTTP\/1\.1 408 /);
    // The server still serves new clients.
    assert.equal((await api(server, 'GET', '/health')).status, 200);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    // A raw socket: an HTTP agent would close it itself, following the Keep-Alive header.
    const w = await openSocket(port);
    w.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    for (let i = 0; i < 100 && !w.received.includes('\r\n\r\n'); i++) await sleep(20);
    assert.match(w.received, /^HTTP\/1\.1 200 /);
    assert.equal(w.closed, false);
    // Bounded wait: the server closes it 500 ms after the response.
    for (let i = 0; i < 100 && !w.closed; i++) await sleep(50);
    assert.ok(w.closed, 'the idle keep-alive connection stayed open');
    // Closed quietly, not as a timed-out request (the status line, not a 408 inside a request id).
    assert.doesNotMatch(w.received, /HTTP\/1\.1 408 /);
  });
});

describe('the connection cap', () => {
  const CAP = 20;
  let server: TestServer;
  let port: number;
  before(async () => {
    // Generous timeouts, so only the cap closes anything here.
    server = await startServer({
      env: {
        CONIFER_MAX_CONNECTIONS: String(CAP),
        CONIFER_HEADERS_TIMEOUT_MS: '60000',
        CONIFER_REQUEST_TIMEOUT_MS: '120000',
        CONIFER_KEEP_ALIVE_TIMEOUT_MS: '60000',
      },
    });
    port = Number(new URL(server.url).port);
  });
  after(async () => {
    await server.stop();
    removeDir(server.dataDir);
  });

  it('closes connections beyond the cap at once, while a keep-alive client keeps working', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (): Promise<{ status: number; reused: boolean }> =>
      new Promise((resolve, reject) => {
        const req = http.get(`${server.url}/health`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        });
        req.on('error', reject);
      });
    const idle: Watched[] = [];
    try {
      assert.deepEqual(await get(), { status: 200, reused: false });
      // The keep-alive connection is one of the CAP; one at a time, so they arrive in order.
      for (let i = 0; i < CAP - 1; i++) idle.push(await openSocket(port));
      const beyond: Watched[] = [];
      for (let i = 0; i < 5; i++) beyond.push(await openSocket(port));
      for (let i = 0; i < 100 && beyond.some((w) => !w.closed); i++) await sleep(20);
      assert.ok(beyond.every((w) => w.closed), 'a connection beyond the cap was kept');
      assert.ok(beyond.every((w) => w.received === ''));
      assert.ok(idle.every((w) => !w.closed), 'a connection within the cap was closed');

      // The existing keep-alive client is unaffected, on the same connection.
      assert.deepEqual(await get(), { status: 200, reused: true });

      // Once connections go away, new ones are accepted again.
      for (const w of idle) w.socket.destroy();
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = await api(server, 'GET', '/health').then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 200) await sleep(50);
      }
      assert.equal(status, 200);
    } finally {
      for (const w of idle) w.socket.destroy();
      agent.destroy();
    }
  });
});
