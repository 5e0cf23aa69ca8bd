// Answers only after the request body has been read. Fastify answers an oversized body
// (413) — and auth or routing answer 401/404 — as soon as the headers arrive, then closes
// the connection. A client still writing the body then sees EPIPE/ECONNRESET and never
// reads the answer (Node's fetch fails, client 8 says "Request failed to reach Pinecone").
// So before any answer goes out, the unread rest of the body is read and thrown away,
// chunk by chunk, never buffered. The drain is bounded so that it is neither a memory
// nor a time hole: a body declared larger than DRAIN_MAX_BYTES is not read at all, and
// past DRAIN_MAX_BYTES, DRAIN_IDLE_MS without a byte or DRAIN_MAX_MS in all, the answer
// goes out with `Connection: close` and the socket is closed after it (such a client may
// then miss the answer). The time bounds are an idle limit plus a generous total so that
// a slow but steady sender on a busy machine still gets its answer.
//
// Every answer passes through here: route answers by the onSend hook, router errors
// (undecodable URL, over-long path parameter — answered by frameworkErrors in app.ts,
// before any hook runs) by calling readRestOfBody themselves.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { DRAIN_IDLE_MS, DRAIN_MAX_BYTES, DRAIN_MAX_MS } from '../limits.js';

export function registerBodyDrain(app: FastifyInstance): void {
  // Callback style (sync-hook.ts says why): nearly every answer follows a body read to
  // its end, and goes on at once.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyRead(request.raw)) {
      done(null, payload);
      return;
    }
    readRestOfBody(request.raw, reply).then(() => done(null, payload), done);
  });
}

/** Nothing left to read: the HTTP parser has seen the whole message (always so for bodiless requests), or the stream is over. */
function bodyRead(raw: IncomingMessage): boolean {
  return raw.complete || raw.readableEnded || raw.destroyed;
}

/**
 * Before an answer goes out: reads and discards what is left of the request body, or
 * marks the answer `Connection: close` when a bound stopped that (or it is a 429).
 */
export async function readRestOfBody(raw: IncomingMessage, reply: FastifyReply): Promise<void> {
  if (bodyRead(raw)) return;
  // An overload refusal (429) sheds load: it goes out at once and the connection closes,
  // rather than waiting for a body the server has no room to read (src/server/overload.ts).
  if (reply.statusCode === 429) {
    reply.header('connection', 'close');
    return;
  }
  if (!(await discardRest(raw))) reply.header('connection', 'close');
}

/** Reads and discards what is left of the body; false when a bound stopped it first. */
function discardRest(raw: IncomingMessage): Promise<boolean> {
  const declared = Number(raw.headers['content-length']);
  if (declared > DRAIN_MAX_BYTES) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    let settled = false;
    const finish = (drained: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      clearTimeout(total);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onClose);
      raw.off('error', onClose);
      // Stop reading: the socket is closed after the answer.
      if (!drained) raw.pause();
      resolve(drained);
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) finish(false);
      else idle.refresh();
    };
    const onEnd = (): void => finish(true);
    const onClose = (): void => finish(raw.complete);
    const idle = setTimeout(() => finish(false), DRAIN_IDLE_MS);
    const total = setTimeout(() => finish(false), DRAIN_MAX_MS);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onClose);
    raw.once('error', onClose);
    raw.resume();
  });
}
