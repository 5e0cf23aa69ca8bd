// HTTP/1.1 over a plain socket, for tests that must see exactly what the server answered
// even when it answers before reading the request body and closes the connection.
//
// Node's http client (and fetch) cannot: when the server closes while the body is still
// being written, the client's write fails (EPIPE/ECONNRESET) and Node destroys the socket,
// often before it parsed the answer already sitting in the socket's receive buffer — the
// request then fails with "write EPIPE" although the server did answer. Here a write
// that fails with EPIPE/ECONNRESET is recorded and stops the upload but does not destroy
// the socket (UploadTolerantSocket), so the answer the kernel already received is still
// read; the read side then ends or fails by itself. The body goes in 64 KiB chunks, each
// after the previous was accepted, and writing stops as soon as the answer begins.
import { Socket } from 'node:net';

export interface RawAnswer {
  /** The status of the answer's status line; 0 when no status line arrived. */
  status: number;
  /** The status line and headers, as sent. */
  head: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The body, decoded as UTF-8 (de-chunked when the answer was chunked). */
  body: string;
  /** The whole answer arrived: its head and, by Content-Length, chunking or the connection's end, its body. */
  complete: boolean;
  /** Every byte of the body was handed to the socket before the answer began. */
  bodyWritten: boolean;
  /** An error the socket raised (while the body was being written, typically), if any. */
  writeError?: string;
}

const CHUNK = 64 * 1024;

/** The errors of a write into a connection the server has closed or reset. */
const UPLOAD_REFUSED = new Set(['EPIPE', 'ECONNRESET']);

/**
 * A socket whose failed writes (EPIPE/ECONNRESET) are recorded in `uploadError` instead
 * of destroying it: Node destroys a socket on any write error, dropping the bytes that
 * already arrived but were not yet read — the server's early answer.
 */
class UploadTolerantSocket extends Socket {
  uploadError: string | undefined;

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    super._write(chunk, encoding, this.tolerant(callback));
  }

  override _writev(chunks: { chunk: Buffer; encoding: BufferEncoding }[], callback: (error?: Error | null) => void): void {
    super._writev!(chunks, this.tolerant(callback));
  }

  private tolerant(callback: (error?: Error | null) => void): (error?: Error | null) => void {
    return (error) => {
      const code = (error as NodeJS.ErrnoException | null | undefined)?.code;
      if (code === undefined || !UPLOAD_REFUSED.has(code)) return callback(error);
      this.uploadError ??= code;
      callback();
    };
  }
}
const TIMEOUT_MS = 60_000;

/**
 * Sends `head` (request line and headers, ending with the blank line) and then `body`,
 * and resolves with the answer once it is complete, the server closed the connection or
 * the socket failed. Rejects only when nothing at all arrived within 60 s.
 */
export function rawExchange(url: string, head: string, body: Buffer | null): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = new UploadTolerantSocket();
    socket.connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let writeError: string | undefined;
    let bodyWritten = body === null;
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(new Error(`no complete answer in ${TIMEOUT_MS / 1000} s; got: ${received.toString('latin1').slice(0, 300)}`));
    }, TIMEOUT_MS);
    const finish = (ended: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseAnswer(received, ended), bodyWritten, writeError: writeError ?? socket.uploadError });
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (parseAnswer(received, false).complete) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (err: Error & { code?: string }) => {
      writeError ??= err.code ?? err.message;
      finish(true);
    });
    socket.on('connect', async () => {
      socket.write(head);
      if (!body) return;
      for (let at = 0; at < body.length; at += CHUNK) {
        // Answered (the rest is not wanted), refused or closed: stop uploading.
        if (socket.destroyed || socket.uploadError !== undefined || received.length > 0) return;
        const ok = socket.write(body.subarray(at, at + CHUNK));
        if (!ok) await new Promise((r) => socket.once('drain', r).once('close', r));
      }
      bodyWritten = received.length === 0 && !socket.destroyed && socket.uploadError === undefined;
    });
  });
}

/** The answer in `bytes`; `ended`: the connection ended, so a body without a length is whole. */
function parseAnswer(bytes: Buffer, ended: boolean): Omit<RawAnswer, 'writeError' | 'bodyWritten'> {
  const split = bytes.indexOf('\r\n\r\n');
  const head = (split >= 0 ? bytes.subarray(0, split) : bytes).toString('latin1');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (split < 0 || status === 0) return { status, head, headers, body: '', complete: false };
  const rest = bytes.subarray(split + 4);
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const { body, complete } = dechunk(rest);
    return { status, head, headers, body: body.toString('utf8'), complete };
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return { status, head, headers, body: rest.subarray(0, length).toString('utf8'), complete: rest.length >= length };
  }
  return { status, head, headers, body: rest.toString('utf8'), complete: ended };
}

function dechunk(bytes: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol < 0) return { body: Buffer.concat(parts), complete: false };
    const size = parseInt(bytes.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), complete: false };
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    if (bytes.length < eol + 2 + size + 2) return { body: Buffer.concat(parts), complete: false };
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
