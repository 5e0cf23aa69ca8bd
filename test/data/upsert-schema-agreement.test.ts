// The upsert route validates with hand-written checks (upsertInput) and documents its body
// with a JSON schema (upsertBody). This holds them to each other: on a corpus of good and
// bad bodies, Ajv with the schema (compiled as Fastify would) and the checks must give the
// same verdict. The corpus is built for a dense cosine index of dimension 4 and keeps to
// the rules a static schema can state; the rules that need the index or compare fields
// (the dimension, dense or sparse, the cosine zero vector, equal sparse lengths, the 40 KB
// metadata size) belong to the checks alone and are left out on purpose.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import type { IndexRow } from '../../src/catalog/indexes.js';
import { upsertInput } from '../../src/data/vector-input.js';
import { ApiError } from '../../src/errors.js';
import { upsertBody } from '../../src/server/schemas/vector-schemas.js';
import { compileSchema, type Validate } from '../helpers/schema-validator.js';

const index = { name: 'agree', vectorType: 'dense', dimension: 4, metric: 'cosine' } as IndexRow;
const v = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ id: 'a', values: [0.1, 0.2, 0.3, 0.4], ...over });
const body = (...vectors: unknown[]): Record<string, unknown> => ({ vectors });
const sparse = (indices: unknown, values: unknown): Record<string, unknown> => ({ indices, values });

const GOOD: Array<[string, unknown]> = [
  ['one vector', body(v())],
  ['a namespace', { namespace: 'films', vectors: [v()] }],
  ['the default namespace alias', { namespace: '__default__', vectors: [v()] }],
  ['namespace null', { namespace: null, vectors: [v()] }],
  ['an unknown top-level field is ignored', { vectors: [v()], extra: 1 }],
  ['1000 vectors', body(...Array.from({ length: 1000 }, (_, i) => v({ id: `id-${i}` })))],
  ['a 512-character id', body(v({ id: 'x'.repeat(512) }))],
  ['an id with punctuation and spaces', body(v({ id: 'a b/c#d?e' }))],
  ['the largest float32', body(v({ values: [3.4028234663852886e38, 1, 1, 1] }))],
  ['a value just below the float32 overflow', body(v({ values: [3.4028235e38, 1, 1, 1] }))],
  ['negative and tiny values', body(v({ values: [-1, 1e-45, -0.5, 2] }))],
  ['sparse values beside dense ones', body(v({ sparseValues: sparse([0, 7, 4294967295], [0.5, 1, 2]) }))],
  ['sparse_values spelling', body(v({ sparse_values: sparse([3], [1]) }))],
  ['sparseValues null', body(v({ sparseValues: null }))],
  ['metadata of every kind', body(v({ metadata: { genre: 'drama', year: 1999, ok: true, tags: ['a', 'b'], empty: [] } }))],
  ['metadata null', body(v({ metadata: null }))],
  ['metadata key with a $ inside', body(v({ metadata: { 'a$b': 1 } }))],
  ['an unknown vector field is ignored', body(v({ score: 3 }))],
];

const BAD: Array<[string, unknown]> = [
  ['not an object', [v()]],
  ['null body', null],
  ['vectors missing', { namespace: 'x' }],
  ['vectors not an array', { vectors: v() }],
  ['no vectors', body()],
  ['1001 vectors', body(...Array.from({ length: 1001 }, (_, i) => v({ id: `id-${i}` })))],
  ['namespace a number', { namespace: 5, vectors: [v()] }],
  ['namespace with a non-ASCII character', { namespace: 'café', vectors: [v()] }],
  ['namespace of 513 characters', { namespace: 'n'.repeat(513), vectors: [v()] }],
  ['a vector that is a string', body('a')],
  ['a vector that is null', body(null)],
  ['id missing', body({ values: [0.1, 0.2, 0.3, 0.4] })],
  ['id a number', body(v({ id: 7 }))],
  ['id empty', body(v({ id: '' }))],
  ['id of 513 characters', body(v({ id: 'x'.repeat(513) }))],
  ['id with NUL', body(v({ id: 'a\u0000b' }))],
  ['id with a non-ASCII character', body(v({ id: 'é' }))],
  ['values a string', body(v({ values: '0.1,0.2' }))],
  ['values an object', body(v({ values: { 0: 1 } }))],
  ['a value that is a string', body(v({ values: [0.1, '0.2', 0.3, 0.4] }))],
  ['a value that is null', body(v({ values: [0.1, null, 0.3, 0.4] }))],
  ['a value that overflows float32', body(v({ values: [1e39, 1, 1, 1] }))],
  ['a value at the float32 overflow', body(v({ values: [2 ** 128 - 2 ** 103, 1, 1, 1] }))],
  ['a negative value that overflows float32', body(v({ values: [1, -4e38, 1, 1] }))],
  ['a value of 1e308', body(v({ values: [1, 1, 1e308, 1] }))],
  ['sparseValues an array', body(v({ sparseValues: [1, 2] }))],
  ['sparseValues without indices', body(v({ sparseValues: { values: [1] } }))],
  ['sparseValues without values', body(v({ sparseValues: { indices: [1] } }))],
  ['sparse indices empty', body(v({ sparseValues: sparse([], []) }))],
  ['sparse indices not integers', body(v({ sparseValues: sparse([1.5], [1]) }))],
  ['a negative sparse index', body(v({ sparseValues: sparse([-1], [1]) }))],
  ['a sparse index over 2^32-1', body(v({ sparseValues: sparse([4294967296], [1]) }))],
  ['a duplicate sparse index', body(v({ sparseValues: sparse([2, 2], [1, 1]) }))],
  ['a sparse value that is a string', body(v({ sparseValues: sparse([1], ['1']) }))],
  ['a sparse value that overflows float32', body(v({ sparseValues: sparse([1], [1e39]) }))],
  ['2049 sparse entries', body(v({ sparseValues: sparse(Array.from({ length: 2049 }, (_, i) => i), Array(2049).fill(1)) }))],
  ['a bad sparse_values', body(v({ sparse_values: sparse([1], [null]) }))],
  ['metadata an array', body(v({ metadata: ['a'] }))],
  ['metadata a string', body(v({ metadata: 'genre=drama' }))],
  ['a metadata value that is null', body(v({ metadata: { genre: null } }))],
  ['a nested metadata object', body(v({ metadata: { nested: { a: 1 } } }))],
  ['a list of numbers in metadata', body(v({ metadata: { years: [1999, 2000] } }))],
  ['a metadata key starting with $', body(v({ metadata: { $eq: 1 } }))],
  ['one bad vector among good ones', body(v(), v({ id: 'b', values: [1, 1, 'x', 1] }), v({ id: 'c' }))],
];

/** The checks' verdict: accepted, or refused with a 400 (anything else is a defect). */
function checksAccept(input: unknown): boolean {
  try {
    upsertInput(input, index);
    return true;
  } catch (err) {
    assert.ok(err instanceof ApiError && err.status === 400, `the checks threw something other than a 400: ${String(err)}`);
    return false;
  }
}

describe('upsert body: schema and hand-written checks agree', () => {
  let validate: Validate;
  before(async () => {
    validate = await compileSchema(upsertBody);
  });

  it('accept every good body', () => {
    const disagree = GOOD.filter(([, b]) => !validate(b) || !checksAccept(b)).map(
      ([name, b]) => `${name}: schema ${validate(b) ? 'accepts' : 'rejects'}, checks ${checksAccept(b) ? 'accept' : 'reject'}`,
    );
    assert.deepEqual(disagree, []);
  });

  it('reject every bad body', () => {
    const disagree = BAD.filter(([, b]) => validate(b) || checksAccept(b)).map(
      ([name, b]) => `${name}: schema ${validate(b) ? 'accepts' : 'rejects'}, checks ${checksAccept(b) ? 'accept' : 'reject'}`,
    );
    assert.deepEqual(disagree, []);
  });
});
