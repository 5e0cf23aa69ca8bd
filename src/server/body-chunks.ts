// A content-type parser that hands a route the body as the chunks the socket delivered,
// without joining them. Fastify's `parseAs: 'buffer'` joins them with Buffer.concat: for a
// 2 MB upsert that is a fresh 2 MB allocation and copy on the HTTP thread per request
// (page faults included, ~5-15 ms on the bench VM), only for the bytes to be handed to the
// writer thread. Here the chunks (each owning its ArrayBuffer: Node's HTTP parser copies
// every body chunk out of the socket buffer) are transferred to the writer thread as they
// are, and joined there (src/data/writer/index-writes.ts).
//
// The limits and errors are exactly Fastify's own (rawBody in fastify/lib/content-type-
// parser.js): over the body limit → FST_ERR_CTP_BODY_TOO_LARGE (413), a Content-Length
// that does not match the bytes received → FST_ERR_CTP_INVALID_CONTENT_LENGTH (400), a
// stream error → that error as a 400; error-mapper.ts maps them as before.
import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyRequest } from 'fastify';

const { FST_ERR_CTP_BODY_TOO_LARGE, FST_ERR_CTP_INVALID_CONTENT_LENGTH } = errorCodes;

/** The body as received: chunks in order, `bytes` in all. */
export interface BodyChunks {
  chunks: Buffer[];
  bytes: number;
}

export function isBodyChunks(v: unknown): v is BodyChunks {
  return typeof v === 'object' && v !== null && Array.isArray((v as BodyChunks).chunks);
}

/** The parser function for `addContentTypeParser(type, parser)` (no parseAs: it reads the stream). */
export function bodyChunksParser(limit: number) {
  return (request: FastifyRequest, payload: IncomingMessage, done: (err: Error | null, body?: BodyChunks) => void): void => {
    const contentLength = Number(request.headers['content-length']);
    if (contentLength > limit) {
      done(new FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    const stream = payload as IncomingMessage & { receivedEncodedLength?: number };
    const chunks: Buffer[] = [];
    let received = 0;
    const detach = (): void => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onEnd);
    };
    function onData(chunk: Buffer | string): void {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > limit || (stream.receivedEncodedLength ?? 0) > limit) {
        detach();
        done(new FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      chunks.push(bytes);
    }
    function onEnd(err?: Error & { statusCode?: number }): void {
      detach();
      if (err != null) {
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
        done(err);
        return;
      }
      if (!Number.isNaN(contentLength) && (stream.receivedEncodedLength || received) !== contentLength) {
        done(new FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return;
      }
      done(null, { chunks, bytes: received });
    }
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onEnd);
    stream.resume();
  };
}
