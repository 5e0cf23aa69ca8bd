// The raw HTTP client the fuzz and oversized-body tests rely on (raw-http.ts): it must
// return an answer the server sent before reading the body even when the server then
// resets the connection under the upload, and must report "no answer" (status 0) when
// the server closes without one. A loopback server stands in for a hostile one.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { rawExchange } from './raw-http.js';

const BODY = Buffer.alloc(50 * 1024 * 1024, 'x');
const HEAD = `POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n`;

/** Serves each connection with `onHeaders` once the request's headers arrived (the body is never read). */
function serverAnswering(onHeaders: (socket: Socket) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((socket) => {
    let seen = '';
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.pause(); // the body stays unread: closing now resets the connection
      onHeaders(socket);
    };
    socket.on('data', onData);
    socket.on('error', () => {});
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      resolve({ server, url: `http://127.0.0.1:${address.port}` });
    }),
  );
}

describe('raw HTTP client', () => {
  let early: { server: Server; url: string };
  let silent: { server: Server; url: string };

  before(async () => {
    early = await serverAnswering((socket) => {
      const body = '{"error":{"code":"PAYLOAD_TOO_LARGE","message":"too big"},"status":413}';
      socket.write(`HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      socket.destroy();
    });
    silent = await serverAnswering((socket) => socket.destroy());
  });

  after(() => {
    early.server.close();
    silent.server.close();
  });

  it('keeps an answer sent before the body was read, whatever the upload then met (20 times)', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await rawExchange(early.url, HEAD, BODY);
      assert.equal(res.status, 413, `attempt ${i}: ${res.head} (socket error ${res.writeError})`);
      assert.ok(res.complete, `attempt ${i}`);
      assert.equal(JSON.parse(res.body).error.code, 'PAYLOAD_TOO_LARGE');
      assert.equal(res.bodyWritten, false);
    }
  });

  it('reports no answer (status 0) when the server closes without one', async () => {
    const res = await rawExchange(silent.url, HEAD, BODY);
    assert.equal(res.status, 0);
    assert.equal(res.complete, false);
  });
});
