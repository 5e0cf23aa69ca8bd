// parseJsonBody (src/data/json-body.ts), the writer thread's parser of upsert bodies: its
// fast path (ASCII, no escapes, no "__proto__"/"constructor") must answer exactly what
// secure-json-parse answers, and everything else must still take secure-json-parse's path
// (prototype poisoning refused, escapes and UTF-8 decoded, invalid JSON a 400).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import secureJson from 'secure-json-parse';
import { INVALID_JSON_BODY, parseJsonBody } from '../../src/data/json-body.js';
import { ApiError } from '../../src/errors.js';

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));
const reference = (text: string): unknown => secureJson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });

function refused(text: string | Uint8Array): void {
  assert.throws(
    () => parseJsonBody(typeof text === 'string' ? bytes(text) : text),
    (err: unknown) => err instanceof ApiError && err.code === 'INVALID_ARGUMENT' && err.message === `request body is not valid JSON: ${INVALID_JSON_BODY}`,
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
    refused('{"vectors":[],"__proto__":{"x":1}}');
    refused('{"vectors":[],"\\u005f_proto__":{"x":1}}');
    refused('{"a":{"constructor":{"prototype":{"x":1}}}}');
    refused('{"a":{"\\u0063onstructor":{"prototype":{"x":1}}}}');
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
