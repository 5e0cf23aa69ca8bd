// The JSON body rule of every route, in one place for both threads: the HTTP thread's
// content-type parsers (src/server/app.ts; the query route's, routes/data-plane.ts) and
// the writer thread, which parses upsert bodies itself (src/data/writer/). Same parser
// (secure-json-parse, as Fastify's default, refusing __proto__ and constructor.prototype
// keys), same empty-body rule (decision 13: an empty body means {}), same message on the
// data plane.
import { isAscii } from 'node:buffer';
import secureJson from 'secure-json-parse';
import { nativeAddon } from '../engine/native-addon.js';
import { ApiError } from '../errors.js';

const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;
const BACKSLASH = 0x5c;

/** Fastify's own text for FST_ERR_CTP_INVALID_JSON_BODY, which error-mapper.ts quotes. */
export const INVALID_JSON_BODY = "Body is not valid JSON but content-type is set to 'application/json'";

/** A body's chunks as one buffer (one chunk: itself, no copy). */
export function joinChunks(chunks: readonly Uint8Array[]): Uint8Array {
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/**
 * Where a body's vectors are, for `vectors`: a query's `vector`, or each upsert record's
 * `values` and `sparseValues`.
 */
export type VectorsAt = 'query' | 'upsert';

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
 * - on that path, with `vectors` given, the vectors are parsed natively straight to
 *   float32 (native/json-floats.cc, which says why the answer is the same): they arrive
 *   as Float32Arrays (a sparse vector's indices as a Uint32Array), which vector-input.ts
 *   takes as it takes arrays of numbers. JSON.parse's numbers were most of the parse:
 *   8 KB of a 384-d query body took ~55 µs, an upsert of 2 MB ~150 ms. Without the addon,
 *   or for a body the native scan does not take, the body parses as before.
 */
export function parseJsonBody(bytes: Uint8Array, vectors?: VectorsAt): unknown {
  if (bytes.byteLength === 0) return {};
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    if (!isAscii(buf)) return secureParse(buf);
    // The native scan refuses a body holding a backslash, and the arrays it takes hold
    // only numbers, so a key spelled "__proto__" or "constructor" can only be in the rest
    // of the text it hands back: looking there instead of in the whole body spares two
    // scans of every byte (most of an upsert's bytes are its numbers).
    const taken = vectors === undefined ? undefined : nativeAddon?.jsonFloatArrays(buf, vectors === 'query' ? 0 : 1);
    if (taken !== undefined) return mayHoldProtoKey(taken[0]) ? secureParse(buf) : withVectors(taken, vectors === 'query');
    if (buf.indexOf(BACKSLASH) !== -1 || mayHoldProtoKey(buf)) return secureParse(buf);
    return JSON.parse(buf.toString('latin1'));
  } catch (err) {
    // secure-json-parse's refusal of valid JSON (the same message for both keys) said as what it is.
    if ((err as Error).message === FORBIDDEN_KEY) throw new ApiError('INVALID_ARGUMENT', FORBIDDEN_KEY_BODY);
    throw new ApiError('INVALID_ARGUMENT', `request body is not valid JSON: ${INVALID_JSON_BODY}`);
  }
}

/** secure-json-parse's message for a key it refuses (protoAction and constructorAction 'error'). */
const FORBIDDEN_KEY = 'Object contains forbidden prototype property';
/** Our answer to it. */
export const FORBIDDEN_KEY_BODY =
  'request body holds a "__proto__" key, or a "constructor" key whose value holds "prototype": no body may hold either, at any depth';

/** Whether JSON text without backslashes may spell a key secure-json-parse refuses. */
function mayHoldProtoKey(text: Buffer | string): boolean {
  return text.indexOf('__proto__') !== -1 || text.indexOf('constructor') !== -1;
}

function secureParse(buf: Buffer): unknown {
  return secureJson.parse(buf.toString('utf8'), null, PARSE_OPTIONS);
}

/** The layout's kinds (native/json-floats.cc). */
const DENSE = 0;
const SPARSE_VALUES = 1;

/**
 * The body from jsonFloatArrays()'s answer: its rest parsed, each `0` put there in place
 * of an array replaced by that array. The native scan took each array only from a
 * top-level object (query), an object inside its `vectors` array (upsert) or the object
 * of such a record's `sparseValues`, so those are objects here.
 *
 * Each array put in place is a view of `values` or `indices` (disjoint ones), not a copy:
 * the writer thread posts the records to the engine worker, and a structured clone sends
 * an ArrayBuffer that many views share once, as one buffer the views share again on the
 * other side; the engine copies every vector into its own storage as it applies the
 * change (vectors/arena.ts, sparse/sparse-store.ts), so the body's arrays live only until
 * then. A copy for each array (one to three allocations per record) cost the writer
 * thread a third of its time per upsert record: bench-shaped bodies of 384-d records,
 * parsed, validated, committed and posted in process, took 58 µs per dense record and
 * 82 per hybrid one with copies, 39 and 48 with views.
 */
function withVectors([rest, values, indices, layout]: [string, Float32Array, Uint32Array, Uint32Array], query: boolean): unknown {
  type Sparse = { values?: unknown; indices?: unknown };
  const body = JSON.parse(rest) as { vector?: unknown; vectors: ({ values?: unknown; sparseValues: Sparse })[] };
  if (query) {
    body.vector = values;
    return body;
  }
  let atValue = 0;
  let atIndex = 0;
  for (let a = 0; a < layout.length; a += 3) {
    const record = body.vectors[layout[a]];
    const kind = layout[a + 1];
    const length = layout[a + 2];
    if (kind === DENSE) record.values = values.subarray(atValue, (atValue += length));
    else if (kind === SPARSE_VALUES) record.sparseValues.values = values.subarray(atValue, (atValue += length));
    else record.sparseValues.indices = indices.subarray(atIndex, (atIndex += length));
  }
  return body;
}
