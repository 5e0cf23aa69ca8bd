// parseJsonBody (src/data/json-body.ts), the parser of upsert bodies (writer thread) and
// query bodies (HTTP thread): its fast path (ASCII, no escapes, no "__proto__"/"constructor") must answer exactly what
// secure-json-parse answers, and everything else must still take secure-json-parse's path
// (prototype poisoning refused, escapes and UTF-8 decoded, invalid JSON a 400).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import secureJson from 'secure-json-parse';
import { FORBIDDEN_KEY_BODY, INVALID_JSON_BODY, parseJsonBody } from '../../src/data/json-body.js';
import { ApiError } from '../../src/errors.js';
import { nativeAddon } from '../../src/engine/native-addon.js';
import { prng } from '../helpers/prng.js';

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));
const reference = (text: string): unknown => secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });

function refused(text: string | Uint8Array, message = `request body is not valid JSON: ${INVALID_JSON_BODY}`): void {
  assert.throws(
    () => parseJsonBody(typeof text === 'string' ? bytes(text) : text),
    (err: unknown) => err instanceof ApiError && err.code === 'INVALID_ARGUMENT' && err.message === message,
  );
}

describe('parseJsonBody', () => {
  it('parses plain ASCII bodies exactly as secure-json-parse does', () => {
    const body = JSON.stringify({
      namespace: 'ns',
      vectors: [
        { id: 'a', values: [0.1, -2.5e-7, 3, 0.30000001192092896], metadata: { genre: 'drama', year: 1999, tags: ['x', 'y'], on: true } },
        { id: 'b', sparseValues: { indices: [1, 40_000], values: [0.5, -1] } },
      ],
    });
    assert.deepEqual(parseJsonBody(bytes(body)), reference(body));
    assert.deepEqual(parseJsonBody(bytes('[1,2]')), [1, 2]);
    assert.equal(parseJsonBody(bytes('7')), 7);
    assert.deepEqual(parseJsonBody(new Uint8Array(0)), {});
  });

  it('decodes UTF-8 and escapes as before', () => {
    const body = '{"vectors":[{"id":"é","metadata":{"title":"Grüße 🌲","quote":"a \\"b\\" \\u00e9 \\n"}}]}';
    const parsed = parseJsonBody(bytes(body)) as { vectors: { id: string; metadata: { title: string; quote: string } }[] };
    assert.equal(parsed.vectors[0].id, 'é');
    assert.equal(parsed.vectors[0].metadata.title, 'Grüße 🌲');
    assert.equal(parsed.vectors[0].metadata.quote, 'a "b" é \n');
    assert.deepEqual(parsed, reference(body));
    // Bytes that are not UTF-8 decode to U+FFFD, as Buffer#toString('utf8') always did.
    const invalid = Uint8Array.from([...Buffer.from('{"id":"'), 0xff, ...Buffer.from('"}')]);
    assert.deepEqual(parseJsonBody(invalid), { id: '\ufffd' });
  });

  it('a view into a larger buffer parses only its own bytes', () => {
    const whole = Buffer.from('xx{"id":"v"}yy');
    assert.deepEqual(parseJsonBody(new Uint8Array(whole.buffer, whole.byteOffset + 2, whole.length - 4)), { id: 'v' });
  });

  it('refuses prototype poisoning, spelled out or escaped, and invalid JSON', () => {
    refused('{"vectors":[],"__proto__":{"x":1}}', FORBIDDEN_KEY_BODY);
    refused('{"vectors":[],"\\u005f_proto__":{"x":1}}', FORBIDDEN_KEY_BODY);
    refused('{"a":{"constructor":{"prototype":{"x":1}}}}', FORBIDDEN_KEY_BODY);
    refused('{"a":{"\\u0063onstructor":{"prototype":{"x":1}}}}', FORBIDDEN_KEY_BODY);
    refused('{"vectors": [');
    refused('{"a":1} trailing');
  });

  it('words that merely look suspicious in values are parsed, not refused', () => {
    const body = '{"vectors":[{"id":"constructor","metadata":{"note":"__proto__ is a key name","path":"C:\\\\dir"}}]}';
    assert.deepEqual(parseJsonBody(bytes(body)), reference(body));
    const ctor = '{"constructor":1}';
    assert.deepEqual(parseJsonBody(bytes(ctor)), reference(ctor));
  });
});

// The vectors of query and upsert bodies are parsed natively (native/json-floats.cc) when
// the addon is loaded, as the server always has it: each must come out as the typed array
// that the JSON.parse path's numbers become (vector-input.ts stores each double in a
// Float32Array, a sparse index in a Uint32Array), bit for bit, with the rest of the body
// as JSON.parse gives it.
describe('parseJsonBody with vectors', () => {
  type Body = Record<string, unknown> & { vector?: unknown; vectors?: Record<string, unknown>[] };
  /** Typed arrays as their type and bits (deepEqual would compare -0 and 0 as numbers). */
  const bitsOf = (v: unknown): unknown => {
    if (v instanceof Float32Array || v instanceof Uint32Array) {
      return { [v.constructor.name]: Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length)) };
    }
    if (Array.isArray(v)) return v.map(bitsOf);
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, bitsOf(x)]));
    return v;
  };
  /** The JSON.parse path's answer with the vectors converted as vector-input.ts converts them. */
  const expected = (text: string, at: 'query' | 'upsert'): unknown => {
    const body = parseJsonBody(bytes(text)) as Body;
    if (at === 'query') {
      body.vector = Float32Array.from(body.vector as number[]);
      return bitsOf(body);
    }
    for (const r of body.vectors ?? []) {
      if (Array.isArray(r.values)) r.values = Float32Array.from(r.values as number[]);
      const sparse = r.sparseValues as { indices: number[]; values: number[] } | undefined;
      if (sparse) r.sparseValues = { indices: Uint32Array.from(sparse.indices), values: Float32Array.from(sparse.values) };
    }
    return bitsOf(body);
  };
  /**
   * The native path's answer; checks that it was taken, and that no two arrays share a
   * byte (they are views of the parse's few buffers: a write to one record's values must
   * never show in another's).
   */
  const taken = (text: string, at: 'query' | 'upsert'): unknown => {
    const body = parseJsonBody(bytes(text), at) as Body;
    const views: (Float32Array | Uint32Array)[] = [];
    const typed = (v: unknown): void => {
      assert.ok(v instanceof Float32Array || v instanceof Uint32Array, `expected a typed array, got ${Object.prototype.toString.call(v)}`);
      views.push(v);
    };
    if (at === 'query') typed(body.vector);
    for (const r of body.vectors ?? []) {
      if (r.values !== undefined) typed(r.values);
      const sparse = r.sparseValues as { indices: unknown; values: unknown } | undefined;
      if (sparse) {
        typed(sparse.indices);
        typed(sparse.values);
      }
    }
    for (let i = 0; i < views.length; i++) {
      for (let j = i + 1; j < views.length; j++) {
        const [a, b] = [views[i], views[j]];
        const overlap = a.buffer === b.buffer && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
        assert.ok(!overlap, `arrays ${i} and ${j} share bytes`);
      }
    }
    return bitsOf(body);
  };
  // Number texts a client may send: 17 significant digits (JSON.stringify of doubles),
  // shortest float32 text, exponents in every spelling, signed zeros, float32 subnormals,
  // and doubles halfway between two float32s and a double ulp either side (the two
  // roundings, decimal to double then double to float32, must be the JSON.parse path's).
  const rand = prng(20261127);
  const f32 = new Float32Array(1);
  const numberTexts = (): string[] => {
    const out = ['0', '-0', '0.0', '-0.0e0', '1', '-12', '1E2', '1e+2', '1.5e-3', '2.5E-7', '1e-45', '-1.4e-45', '1e-46', '3.4028234663852886e38', '-3.4028235e38', '123456789012345678901234567890', '0.30000001192092896', '1.0000000596046448'];
    for (let i = 0; i < 300; i++) {
      const x = (rand() - 0.5) * 10 ** Math.floor(rand() * 20 - 10);
      out.push(JSON.stringify(x));
      f32[0] = x;
      out.push(String(f32[0]));
      // Halfway between f32[0] and the next float32 up, and one double ulp either side.
      const lo = f32[0];
      const u = new Uint32Array(f32.buffer);
      u[0] += 1;
      const mid = (lo + f32[0]) / 2;
      out.push(JSON.stringify(mid));
      const d = new Float64Array([mid]);
      const du = new BigUint64Array(d.buffer);
      du[0] += 1n;
      out.push(JSON.stringify(d[0]));
      du[0] -= 2n;
      out.push(JSON.stringify(d[0]));
    }
    return out;
  };

  it('a query body: the vector bit for bit, the rest as JSON.parse gives it, key order kept', () => {
    const texts = numberTexts();
    const text = `{"topK":10,"vector":[${texts.join(',')}],"filter":{"genre":{"$in":["a","b"]}},"includeMetadata":true}`;
    assert.deepEqual(taken(text, 'query'), expected(text, 'query'));
    assert.deepEqual(Object.keys(parseJsonBody(bytes(text), 'query') as object), ['topK', 'vector', 'filter', 'includeMetadata']);
    // Whitespace wherever JSON allows it.
    const spaced = ` {\n\t"vector" :\r [ ${texts.slice(0, 50).join(' ,\n ')} ] ,"topK":3 } `;
    assert.deepEqual(taken(spaced, 'query'), expected(spaced, 'query'));
  });

  it('an upsert body: each record its own values and sparse values; metadata named "values" untouched', () => {
    const texts = numberTexts();
    const indexTexts = ['0', '-0', '1.0', '1e2', '4294967295', '42.000', '7E0', '65536'];
    const records = [
      `{"id":"a","values":[${texts.slice(0, 400).join(',')}],"metadata":{"values":[1,2],"vector":[3],"indices":[4]}}`,
      `{"id":"b","sparseValues":{"indices":[1,5],"values":[0.5,0.25]}}`,
      `{"values":[${texts.slice(400, 900).join(',')}],"id":"c","sparseValues":{"values":[${texts.slice(900, 908).join(',')}],"indices":[${indexTexts.join(',')}]}}`,
      `{"id":"d","values":[1,2,3]}`,
      `{"id":"e","sparse_values":{"indices":[3],"values":[1.5]}}`,
    ];
    const text = `{"namespace":"ns","vectors":[${records.join(',')}]}`;
    const got = taken(text, 'upsert') as { vectors: Record<string, unknown>[] };
    assert.deepEqual(got, expected(text, 'upsert'));
    // The snake_case spelling is left to JavaScript (arrays), and so is metadata.
    assert.deepEqual(got.vectors[4].sparse_values, { indices: [3], values: [1.5] });
    assert.deepEqual((got.vectors[0].metadata as Record<string, unknown>).values, [1, 2]);
  });

  it('bodies the native scan does not take parse exactly as before', () => {
    const declined: [string, 'query' | 'upsert'][] = [
      ['{"vector":[],"topK":1}', 'query'], // empty: "no dense values" in vector-input.ts
      ['{"vector":[1,"2"]}', 'query'],
      ['{"vector":[1,[2]]}', 'query'],
      ['{"vector":[1e39,2]}', 'query'], // finite as a double, not as float32: refused later with the number named
      ['{"vector":[1e400]}', 'query'],
      ['{"vector":[1,2],"vector":[3]}', 'query'], // JSON.parse keeps the last
      ['{"id":"x","topK":1}', 'query'],
      ['[[1,2]]', 'query'],
      ['{"vectors":[{"id":"m","metadata":{"a":1}},{"id":"d","values":[1]}]}', 'upsert'], // the first record had nothing to take
      ['{"vectors":[{"id":"s","sparse_values":{"indices":[1],"values":[2]}}]}', 'upsert'],
      ['{"vectors":[{"id":"s","sparseValues":{"indices":[1.5],"values":[2]}}]}', 'upsert'],
      ['{"vectors":[{"id":"s","sparseValues":{"indices":[-1],"values":[2]}}]}', 'upsert'],
      ['{"vectors":[{"id":"s","sparseValues":{"indices":[4294967296],"values":[2]}}]}', 'upsert'],
      ['{"vectors":[{"id":"s","sparseValues":{"indices":[9999999999],"values":[2]}}]}', 'upsert'], // 10 digits, over uint32
      ['{"vectors":[{"id":"s","sparseValues":{"indices":[12345678901],"values":[2]}}]}', 'upsert'],
      ['{"vectors":[{"id":"s","sparseValues":{"indices":["1"],"values":[2]}}]}', 'upsert'],
      ['{"vectors":[{"id":"s","sparseValues":{"indices":[1],"values":[2],"indices":[3]}}]}', 'upsert'],
      ['{"vectors":[{"id":"s","sparseValues":{"indices":[1],"values":[1e39]}}]}', 'upsert'],
      ['{"vectors":[{"id":"s","values":[1],"sparseValues":{"indices":[],"values":[]}}]}', 'upsert'],
      ['{"vectors":[{"id":"a","values":[1],"values":[2]}]}', 'upsert'],
      ['{"vectors":{"x":{"values":[1]}}}', 'upsert'],
      ['{"vectors":[[{"values":[1]}]]}', 'upsert'],
      ['{"vectors":[{"id":"é","values":[1]}]}', 'upsert'], // not ASCII
      ['{"vectors":[{"id":"a\\u0062","values":[1]}]}', 'upsert'], // an escape
    ];
    for (const [text, at] of declined) {
      assert.deepEqual(parseJsonBody(bytes(text), at), reference(text), text);
    }
    assert.ok(Array.isArray((parseJsonBody(bytes('{"vector":[1e39,2]}'), 'query') as Body).vector));
  });

  it('prototype poisoning beside vectors the native scan takes is refused; the words as values are not', () => {
    assert.ok(nativeAddon, 'the native addon is built with the server');
    const poisoned: [string, 'query' | 'upsert'][] = [
      ['{"vector":[1,2],"__proto__":{"x":1}}', 'query'],
      ['{"vector":[1,2],"filter":{"constructor":{"prototype":{"x":1}}}}', 'query'],
      ['{"vectors":[{"id":"a","values":[1,2],"metadata":{"__proto__":{"x":1}}}]}', 'upsert'],
      ['{"vectors":[{"id":"a","sparseValues":{"indices":[1],"values":[2]},"constructor":{"prototype":{"x":1}}}]}', 'upsert'],
    ];
    for (const [text, at] of poisoned) {
      assert.ok(nativeAddon.jsonFloatArrays(bytes(text), at === 'query' ? 0 : 1), `the native scan takes ${text}`);
      assert.throws(() => reference(text));
      assert.throws(
        () => parseJsonBody(bytes(text), at),
        (err: unknown) => err instanceof ApiError && err.message === FORBIDDEN_KEY_BODY,
        text,
      );
    }
    // The words as values: secure-json-parse's path (as any body holding them), not refused.
    const innocent = '{"vectors":[{"id":"constructor","values":[1,2],"metadata":{"note":"__proto__"}}]}';
    assert.deepEqual(parseJsonBody(bytes(innocent), 'upsert'), reference(innocent));
  });

  it('the native scan itself declines escapes and UTF-8 anywhere, inside strings too', () => {
    assert.ok(nativeAddon, 'the native addon is built with the server');
    const scan = (text: string) => nativeAddon!.jsonFloatArrays(bytes(text), 0);
    assert.equal(scan('{"a":"x\\"","vector":[1]}'), undefined); // an escaped quote would end the string early
    assert.equal(scan('{"a":"é","vector":[1]}'), undefined);
    assert.equal(scan('{"a":"x","vector":[1]}')?.[0], '{"a":"x","vector":0}');
  });

  it('3,000 mutated bodies: the same answer or the same refusal with and without the native scan', () => {
    // Arrays where the native scan may take vectors, as vector-input.ts would store them
    // (typed arrays, and number arrays that it could have taken, as their bits); others as they are.
    const f32Ok = (v: unknown[]): boolean => v.every((x) => typeof x === 'number' && Number.isFinite(Math.fround(x)));
    const u32Ok = (v: unknown[]): boolean => v.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff);
    const asF32 = (v: unknown): unknown => (v instanceof Float32Array ? v : Array.isArray(v) && v.length > 0 && f32Ok(v) ? Float32Array.from(v as number[]) : v);
    const asU32 = (v: unknown): unknown => (v instanceof Uint32Array ? v : Array.isArray(v) && v.length > 0 && u32Ok(v) ? Uint32Array.from(v as number[]) : v);
    const normal = (body: unknown): unknown => {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return bitsOf(body);
      const b = { ...(body as Body) };
      if ('vector' in b) b.vector = asF32(b.vector);
      if (Array.isArray(b.vectors)) {
        b.vectors = b.vectors.map((r) => {
          if (typeof r !== 'object' || r === null || Array.isArray(r)) return r;
          const out = { ...r };
          if ('values' in out) out.values = asF32(out.values);
          const sv = out.sparseValues;
          if (typeof sv === 'object' && sv !== null && !Array.isArray(sv)) {
            const o = { ...(sv as Record<string, unknown>) };
            if ('values' in o) o.values = asF32(o.values);
            if ('indices' in o) o.indices = asU32(o.indices);
            out.sparseValues = o;
          }
          return out;
        });
      }
      return bitsOf(b);
    };
    const outcome = (text: string, at?: 'query' | 'upsert'): unknown => {
      try {
        return { ok: normal(parseJsonBody(bytes(text), at)) };
      } catch (err) {
        return { refused: err instanceof ApiError ? err.message : String(err) };
      }
    };
    const seeds = [
      '{"topK":3,"vector":[0.5,-1.25e-3,7,0],"filter":{"a":{"$in":["x","y"]}}}',
      '{"namespace":"n","vectors":[{"id":"a","values":[1,2.5,-0],"metadata":{"k":"v"}},{"id":"b","values":[3e-2,4,5],"sparseValues":{"indices":[1,7],"values":[0.5,2]}}]}',
    ];
    const alphabet = '[]{},:"0123456789.-+eE tfnul\\vsaci';
    const rand = prng(4242);
    const pick = (n: number): number => Math.floor(rand() * n);
    let taken = 0;
    for (let i = 0; i < 3000; i++) {
      let text = seeds[i % 2];
      for (let m = 1 + pick(3); m > 0; m--) {
        const at = pick(text.length + 1);
        const op = pick(3);
        if (op === 0) text = text.slice(0, at) + text.slice(at + 1);
        else if (op === 1) text = text.slice(0, at) + alphabet[pick(alphabet.length)] + text.slice(at);
        else text = text.slice(0, at) + text.slice(pick(text.length), pick(text.length)) + text.slice(at);
      }
      const at = i % 2 === 0 ? 'query' : 'upsert';
      if (nativeAddon?.jsonFloatArrays(bytes(text), at === 'query' ? 0 : 1)) taken++;
      assert.deepEqual(outcome(text, at), outcome(text), text);
    }
    assert.ok(taken > 300, `the native scan took only ${taken} of the mutated bodies`);
  });

  it('invalid JSON around or inside a vector is refused as before', () => {
    for (const text of [
      '{"vector":[1,2]',
      '{"vector":[1,2]]}',
      '{"vector":[1,2] .5}',
      '{"vector":[1,2]e5}',
      '{"vector":-[1,2]}',
      '{"vector" [1,2]}',
      '{"vector":[1,2]:[3]}',
      '{"vector":[1,2],}',
      '{"vector":[1,,2]}',
      '{"vector":[01,2]}',
      '{"vector":[1.,2]}',
      '{"vector":[.5,2]}',
      '{"vector":[+1,2]}',
      '{"vector":[1,2,]}',
      '{"vector":[NaN,2]}',
      '{"vector":[Infinity]}',
      '{"vector":[0x10]}',
      '{"vector":[1,2]} x',
      '{"vector":[1,2],"a":"unterminated}',
      '{"vector":[1,2],"a":\u0001}',
    ]) {
      assert.throws(
        () => parseJsonBody(bytes(text), 'query'),
        (err: unknown) => err instanceof ApiError && err.message === `request body is not valid JSON: ${INVALID_JSON_BODY}`,
        text,
      );
    }
    assert.throws(() => parseJsonBody(bytes('{"vectors":[{"id":"a","values":[1,2]},]}'), 'upsert'), ApiError);
    // Sparse indices are read apart from other numbers (an integer fast path): the same refusals.
    for (const indices of ['01', '00', '1 2', '12a', '1,', '1.', '1e', '-', '0x1', '1]']) {
      const text = `{"vectors":[{"id":"s","sparseValues":{"indices":[${indices}],"values":[2]}}]}`;
      assert.throws(
        () => parseJsonBody(bytes(text), 'upsert'),
        (err: unknown) => err instanceof ApiError && err.message === `request body is not valid JSON: ${INVALID_JSON_BODY}`,
        text,
      );
    }
  });
});
