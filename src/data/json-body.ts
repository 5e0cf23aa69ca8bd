// The JSON body rule of every route, in one place for both threads: the HTTP thread's
// content-type parser (src/server/app.ts) and the writer thread, which parses upsert
// bodies itself (src/data/writer/). Same parser (secure-json-parse, as Fastify's
// default, refusing __proto__ and constructor.prototype keys), same empty-body rule
// (decision 13: an empty body means {}), same message on the data plane.
import { isAscii } from 'node:buffer';
import secureJson from 'secure-json-parse';
import { ApiError } from '../errors.js';

const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;
const BACKSLASH = 0x5c;

/** Fastify's own text for FST_ERR_CTP_INVALID_JSON_BODY, which error-mapper.ts quotes. */
export const INVALID_JSON_BODY = "Body is not valid JSON but content-type is set to 'application/json'";

/**
 * A data-plane body: the bytes the client sent; throws the 400 the HTTP thread would.
 *
 * Fast path for what clients send (an upsert body of up to 2 MB: ASCII JSON, no escapes):
 * - ASCII bytes decode to the same string as latin1 or as UTF-8, and Node decodes latin1
 *   without the UTF-8 transcoding pass (about half the decode time per 2 MB body on the
 *   writer thread; bench/upsert-blocking.ts, step "parse");
 * - secure-json-parse scans the whole text with two regular expressions after parsing,
 *   looking for a "__proto__" or "constructor" key, spelled out or with \u escapes. Text
 *   with no backslash and neither word cannot hold such a key, so plain JSON.parse gives
 *   exactly its answer. Anything else takes secure-json-parse's own path.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return {};
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const plain = isAscii(buf) && buf.indexOf(BACKSLASH) === -1 && buf.indexOf('__proto__') === -1 && buf.indexOf('constructor') === -1;
  try {
    return plain ? JSON.parse(buf.toString('latin1')) : secureJson.parse(buf.toString('utf8'), null, PARSE_OPTIONS);
  } catch {
    throw new ApiError('INVALID_ARGUMENT', `request body is not valid JSON: ${INVALID_JSON_BODY}`);
  }
}
