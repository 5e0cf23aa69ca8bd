// The JSON body rule of every route, in one place for both threads: the HTTP thread's
// content-type parser (src/server/app.ts) and the writer thread, which parses upsert
// bodies itself (src/data/writer/). Same parser (secure-json-parse, as Fastify's
// default, refusing __proto__ and constructor.prototype keys), same empty-body rule
// (decision 13: an empty body means {}), same message on the data plane.
import secureJson from 'secure-json-parse';
import { ApiError } from '../errors.js';

const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

/** Fastify's own text for FST_ERR_CTP_INVALID_JSON_BODY, which error-mapper.ts quotes. */
export const INVALID_JSON_BODY = "Body is not valid JSON but content-type is set to 'application/json'";

/** A data-plane body: the bytes the client sent; throws the 400 the HTTP thread would. */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return {};
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    return secureJson.parse(text, null, PARSE_OPTIONS);
  } catch {
    throw new ApiError('INVALID_ARGUMENT', `request body is not valid JSON: ${INVALID_JSON_BODY}`);
  }
}
