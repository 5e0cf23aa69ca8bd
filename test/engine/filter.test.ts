// The filter language against a reference evaluator written here, independently of the
// module: a direct recursive reading of the raw JSON filter with the documented
// semantics (src/engine/filter.ts header). Hand-written expectations pin the decisions
// that the reference and the module could otherwise get wrong together.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  FILTER_MAX_CONDITIONS,
  FILTER_MAX_DEPTH,
  FILTER_MAX_IN_VALUES,
  FilterError,
  compileFilter,
  isEmptyFilter,
  parseFilter,
  parseFilterNode,
  type FilterNode,
  type Metadata,
  type MetadataValue,
} from '../../src/engine/filter.js';
import { prng as mulberry32 } from '../helpers/prng.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

// ---------------------------------------------------------------------------------------
// Records: missing fields, every value type, lists (empty, with duplicates), type
// look-alikes ("1" / 1 / true / "true"), -0, and names inherited from Object.prototype.

const RECORDS: ReadonlyArray<readonly [string, Metadata | undefined]> = [
  ['r00', undefined],
  ['r01', {}],
  ['r02', { genre: 'drama', year: 1999, rating: 7.5, draft: false, tags: ['a', 'b'] }],
  ['r03', { genre: 'comedy', year: 2005, rating: 6, draft: true, tags: [] }],
  ['r04', { genre: ['comedy', 'documentary'], year: 2010 }],
  ['r05', { genre: ['comedy', 'drama'], year: 2010.5, draft: false }],
  ['r06', { genre: [], year: -3 }],
  ['r07', { genre: 'action', year: 0, tags: ['b'] }],
  ['r08', JSON.parse('{"genre":"Drama","year":-0}') as Metadata],
  ['r09', { code: '1' }],
  ['r10', { code: 1 }],
  ['r11', { code: true }],
  ['r12', { code: ['1', '2'] }],
  ['r13', { code: 'true' }],
  ['r14', { code: 0 }],
  ['r15', { code: false }],
  ['r16', { code: '' }],
  ['r17', { code: [''] }],
  ['r18', { year: '1999', genre: 'drama' }],
  ['r19', { year: 1e300, rating: -1e-300 }],
  ['r20', { year: 2000, rating: 9.99, tags: ['a', 'c', 'a'] }],
  ['r21', JSON.parse('{"constructor":"x","toString":"y"}') as Metadata],
  ['r22', { 'my field': 'v', 'a.b': 1 }],
  ['r23', { draft: true, genre: ['action'] }],
  ['r24', { year: 1999, genre: 'drama', draft: true }],
  ['r25', { tags: ['x'], year: 2005, code: 2 }],
  ['r26', { genre: 'documentary', year: 2020, rating: 8 }],
  ['r27', { rating: 6, code: -1 }],
  ['r28', { genre: ['drama'], year: 1999 }],
  ['r29', JSON.parse('{"__proto__":"p","year":2001}') as Metadata],
];
const ALL_IDS = RECORDS.map(([id]) => id);

// ---------------------------------------------------------------------------------------
// Reference evaluator. Assumes a valid filter. A field's "elements" are the value itself,
// the list's elements, or nothing when the record lacks the field.

const MISSING = Symbol('missing');

function isObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refField(metadata: Metadata | undefined, field: string): MetadataValue | typeof MISSING {
  if (metadata === undefined || !Object.prototype.hasOwnProperty.call(metadata, field)) return MISSING;
  return metadata[field];
}

function refMatch(filter: Json, metadata: Metadata | undefined): boolean {
  if (!isObject(filter)) throw new Error('reference: not an object');
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') {
      if (!(value as Json[]).every((f) => refMatch(f, metadata))) return false;
    } else if (key === '$or') {
      if (!(value as Json[]).some((f) => refMatch(f, metadata))) return false;
    } else {
      const ops: JsonObject = isObject(value) ? value : { $eq: value };
      for (const [op, operand] of Object.entries(ops)) {
        if (!refOp(op, operand, refField(metadata, key))) return false;
      }
    }
  }
  return true;
}

function refOp(op: string, operand: Json, value: MetadataValue | typeof MISSING): boolean {
  const elements: unknown[] = value === MISSING ? [] : Array.isArray(value) ? value : [value];
  const isNumber = typeof value === 'number';
  switch (op) {
    case '$eq':
      return elements.some((e) => e === operand);
    case '$ne':
      return !elements.some((e) => e === operand);
    case '$gt':
      return isNumber && value > (operand as number);
    case '$gte':
      return isNumber && value >= (operand as number);
    case '$lt':
      return isNumber && value < (operand as number);
    case '$lte':
      return isNumber && value <= (operand as number);
    case '$in':
      return elements.some((e) => (operand as unknown[]).includes(e));
    case '$nin':
      return !elements.some((e) => (operand as unknown[]).includes(e));
    case '$exists':
      return (value !== MISSING) === operand;
    default:
      throw new Error(`reference: unknown operator ${op}`);
  }
}

function matchingIds(match: (m: Metadata | undefined) => boolean): string[] {
  return RECORDS.filter(([, m]) => match(m)).map(([id]) => id);
}

function allBut(...excluded: string[]): string[] {
  return ALL_IDS.filter((id) => !excluded.includes(id));
}

// ---------------------------------------------------------------------------------------
// Table: filters as they arrive on the wire (JSON text, so `__proto__` is an own key).

const TABLE: readonly string[] = [
  '{}',
  '{"genre":"drama"}',
  '{"genre":{"$eq":"drama"}}',
  '{"genre":"comedy"}',
  '{"genre":{"$ne":"drama"}}',
  '{"genre":{"$ne":"comedy"}}',
  '{"genre":{"$ne":"Drama"}}',
  '{"genre":{"$in":["documentary","action"]}}',
  '{"genre":{"$nin":["documentary","action"]}}',
  '{"genre":{"$in":[]}}',
  '{"genre":{"$nin":[]}}',
  '{"$and":[{"genre":"comedy"},{"genre":"documentary"}]}',
  '{"$and":[{"genre":"comedy"},{"genre":"drama"}]}',
  '{"genre":{"$exists":true}}',
  '{"genre":{"$exists":false}}',
  '{"genre":{"$gt":0}}',
  '{"genre":{"$in":["comedy"],"$nin":["drama"]}}',
  '{"genre":{"$eq":"comedy","$ne":"documentary"}}',
  '{"tags":{"$exists":true}}',
  '{"tags":{"$ne":"a"}}',
  '{"tags":{"$nin":["a","b"]}}',
  '{"tags":"a"}',
  '{"tags":{"$in":["c","x"]}}',
  '{"year":1999}',
  '{"year":{"$eq":1999}}',
  '{"year":"1999"}',
  '{"year":{"$ne":1999}}',
  '{"year":{"$gt":1999}}',
  '{"year":{"$gte":1999}}',
  '{"year":{"$lt":2005}}',
  '{"year":{"$lte":2005}}',
  '{"year":{"$gte":2000,"$lte":2010}}',
  '{"year":{"$gt":2010,"$lt":2010.75}}',
  '{"year":{"$gt":0}}',
  '{"year":0}',
  '{"year":{"$lt":-1}}',
  '{"year":{"$gte":1e300}}',
  '{"year":{"$in":[1999,2010,"2005"]}}',
  '{"year":{"$nin":[1999,2010]}}',
  '{"rating":{"$gte":6,"$lt":8}}',
  '{"rating":{"$lt":0}}',
  '{"rating":{"$lt":0,"$gt":-1}}',
  '{"draft":true}',
  '{"draft":false}',
  '{"draft":{"$ne":true}}',
  '{"draft":{"$exists":false}}',
  '{"code":1}',
  '{"code":"1"}',
  '{"code":true}',
  '{"code":"true"}',
  '{"code":0}',
  '{"code":false}',
  '{"code":""}',
  '{"code":{"$in":["1",2]}}',
  '{"code":{"$nin":["1",1]}}',
  '{"code":{"$ne":"1"}}',
  '{"code":{"$gt":0}}',
  '{"code":{"$in":[""]}}',
  '{"genre":"drama","year":1999}',
  '{"genre":"drama","year":1999,"draft":true}',
  '{"$or":[{"genre":"action"},{"year":{"$gte":2010}}]}',
  '{"$or":[{"genre":{"$exists":false}},{"genre":{"$in":[]}}]}',
  '{"$and":[{"$or":[{"genre":"drama"},{"genre":"comedy"}]},{"$or":[{"year":{"$lt":2000}},{"draft":true}]}]}',
  '{"$or":[{},{"year":-999}]}',
  '{"$and":[{},{"year":1999}]}',
  '{"$or":[{"$and":[{"genre":"comedy"},{"year":2010}]},{"$and":[{"genre":{"$ne":"comedy"}},{"year":{"$exists":false}}]}]}',
  '{"genre":"drama","$or":[{"year":1999},{"year":"1999"}]}',
  '{"$or":[{"$or":[{"$or":[{"code":2}]}]},{"code":-1}]}',
  '{"constructor":{"$exists":true}}',
  '{"toString":{"$exists":false}}',
  '{"constructor":"x"}',
  '{"__proto__":"p"}',
  '{"__proto__":{"$exists":true}}',
  '{"hasOwnProperty":{"$ne":"z"}}',
  '{"my field":"v","a.b":1}',
  '{"missing":{"$ne":1}}',
  '{"missing":{"$nin":["a"]}}',
  '{"missing":{"$gt":0}}',
  '{"missing":{"$exists":false}}',
];

describe('filter: table against the reference evaluator', () => {
  for (const text of TABLE) {
    it(text, () => {
      const filter = JSON.parse(text) as Json;
      const predicate = parseFilter(filter);
      assert.deepEqual(matchingIds(predicate), matchingIds((m) => refMatch(filter, m)));
    });
  }
});

// ---------------------------------------------------------------------------------------
// Pinned decisions, by hand.

const PINNED: ReadonlyArray<readonly [string, string[]]> = [
  // Pinecone's list examples (§4): a list "takes on all values".
  ['{"genre":"comedy"}', ['r03', 'r04', 'r05']],
  ['{"genre":{"$in":["documentary","action"]}}', ['r04', 'r07', 'r23', 'r26']],
  ['{"$and":[{"genre":"comedy"},{"genre":"documentary"}]}', ['r04']],
  ['{"$and":[{"genre":"comedy"},{"genre":"drama"}]}', ['r05']],
  // $ne / $nin: no element matches; records without the field match; empty list matches.
  ['{"genre":{"$ne":"drama"}}', allBut('r02', 'r05', 'r18', 'r24', 'r28')],
  ['{"genre":{"$nin":["documentary","action"]}}', allBut('r04', 'r07', 'r23', 'r26')],
  ['{"tags":{"$ne":"a"}}', allBut('r02', 'r20')],
  ['{"missing":{"$ne":1}}', ALL_IDS],
  ['{"missing":{"$nin":["a"]}}', ALL_IDS],
  // $exists: an empty list is present; metadata undefined and {} have no fields.
  ['{"genre":{"$exists":false}}',
    ['r00', 'r01', 'r09', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15', 'r16', 'r17', 'r19', 'r20', 'r21', 'r22', 'r25', 'r27', 'r29']],
  ['{"tags":{"$exists":true}}', ['r02', 'r03', 'r07', 'r20', 'r25']],
  // Everything else needs the field.
  ['{"missing":{"$gt":0}}', []],
  ['{"missing":{"$in":["a",1]}}', []],
  // Strict types.
  ['{"code":1}', ['r10']],
  ['{"code":"1"}', ['r09', 'r12']],
  ['{"code":true}', ['r11']],
  ['{"code":0}', ['r14']],
  ['{"code":false}', ['r15']],
  ['{"code":{"$in":[1,0]}}', ['r10', 'r14']],
  ['{"year":"1999"}', ['r18']],
  ['{"year":0}', ['r07', 'r08']],
  // Numeric comparisons: numbers only, never strings or lists.
  ['{"year":{"$lte":1999}}', ['r02', 'r06', 'r07', 'r08', 'r24', 'r28']],
  ['{"genre":{"$gt":0}}', []],
  // Own fields only.
  ['{"constructor":{"$exists":true}}', ['r21']],
  ['{"__proto__":{"$exists":true}}', ['r29']],
  ['{"toString":"y"}', ['r21']],
  ['{"valueOf":{"$exists":true}}', []],
];

describe('filter: pinned semantics', () => {
  for (const [text, expected] of PINNED) {
    it(text, () => {
      const filter = JSON.parse(text) as Json;
      assert.deepEqual(matchingIds(parseFilter(filter)), expected, 'module');
      assert.deepEqual(matchingIds((m) => refMatch(filter, m)), expected, 'reference');
    });
  }
});

// ---------------------------------------------------------------------------------------
// Seeded random filters.


// Real fields weigh more; the rest cover missing fields and inherited names.
const FIELDS = [
  'genre', 'genre', 'genre', 'year', 'year', 'year', 'rating', 'rating', 'draft', 'draft',
  'tags', 'tags', 'code', 'code', 'code', 'missing', 'constructor', 'toString', '__proto__', 'my field'];
const STRINGS = ['drama', 'comedy', 'action', 'documentary', 'Drama', 'a', 'b', 'c', 'x', '1', '2', '', 'true', 'y', 'p', 'v', '1999'];
const NUMBERS = [0, -0, 1, 2, -1, -3, 6, 7.5, 8, 1999, 2000, 2001, 2005, 2010, 2010.5, 2020, 1e300, -1e-300];
/** Values that occur in each field, so that most random conditions split the records. */
const TYPICAL: Readonly<Record<string, readonly Json[]>> = {
  genre: ['drama', 'comedy', 'action', 'documentary', 'Drama'],
  year: [0, 1999, 2000, 2001, 2005, 2010, 2010.5, -3, '1999'],
  rating: [6, 7.5, 8, 9.99, -1e-300],
  draft: [true, false],
  tags: ['a', 'b', 'c', 'x'],
  code: ['1', 1, true, 'true', 0, false, '', 2, -1],
};
const FIELD_OPS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists'] as const;

/** Sets an own enumerable key even when it is `__proto__`. */
function put(obj: JsonObject, key: string, value: Json): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function randomFilter(rand: () => number, depth: number): JsonObject {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const scalar = (field: string): Json => {
    const typical = Object.hasOwn(TYPICAL, field) ? TYPICAL[field] : undefined;
    if (typical && rand() < 0.85) return pick(typical);
    const r = rand();
    return r < 0.5 ? pick(STRINGS) : r < 0.85 ? pick(NUMBERS) : rand() < 0.5;
  };
  const list = (field: string): Json[] => {
    const n = Math.floor(rand() * 5);
    const out: Json[] = [];
    for (let i = 0; i < n; i++) {
      const v = scalar(field);
      out.push(typeof v === 'boolean' ? pick(STRINGS) : v);
    }
    return out;
  };
  const filter: JsonObject = {};
  const r0 = rand(); // mostly one key (records are sparse, so ANDs rarely match)
  const keys = r0 < 0.05 ? 0 : r0 < 0.8 ? 1 : r0 < 0.97 ? 2 : 3;
  for (let k = 0; k < keys; k++) {
    const field = pick(FIELDS);
    const r = rand();
    if (r < 0.25 && depth < 4) {
      const n = 1 + Math.floor(rand() * 3);
      const children: Json[] = [];
      for (let i = 0; i < n; i++) children.push(randomFilter(rand, depth + 1));
      put(filter, rand() < 0.35 ? '$and' : '$or', children);
    } else if (r < 0.45) {
      put(filter, field, scalar(field));
    } else {
      const ops: JsonObject = {};
      const n = rand() < 0.8 ? 1 : 2;
      for (let i = 0; i < n; i++) {
        const op = pick(FIELD_OPS);
        if (op === '$eq' || op === '$ne') ops[op] = scalar(field);
        else if (op === '$in' || op === '$nin') ops[op] = list(field);
        else if (op === '$exists') ops[op] = rand() < 0.5;
        else {
          const v = scalar(field);
          ops[op] = typeof v === 'number' ? v : pick(NUMBERS);
        }
      }
      put(filter, field, ops);
    }
  }
  return filter;
}

describe('filter: seeded random filters against the reference evaluator', () => {
  it('agrees on 500 filters x every record', () => {
    const rand = mulberry32(20260417);
    let nonTrivial = 0;
    let none = 0;
    for (let i = 0; i < 500; i++) {
      const filter = randomFilter(rand, 0);
      const got = matchingIds(parseFilter(filter));
      const want = matchingIds((m) => refMatch(filter, m));
      assert.deepEqual(got, want, `filter #${i}: ${JSON.stringify(filter)}`);
      if (want.length > 0 && want.length < RECORDS.length) nonTrivial++;
      if (want.length === 0) none++;
    }
    // The generator is useful only if many filters split the records.
    assert.ok(nonTrivial >= 200, `only ${nonTrivial} filters split the records (${none} match none)`);
  });
});

// ---------------------------------------------------------------------------------------
// Errors: every invalid form names its path.

const ERRORS: ReadonlyArray<readonly [string, unknown, string, RegExp?]> = [
  ['string filter', 'genre', 'filter', /must be an object, got string/],
  ['array filter', [{ a: 1 }], 'filter', /got array/],
  ['number filter', 5, 'filter', /got number/],
  ['unknown operator on a field', { genre: { $regex: 'dr.*' } }, 'filter.genre.$regex', /unknown operator "\$regex".*\$eq.*\$exists/],
  ['$not', { genre: { $not: { $eq: 'a' } } }, 'filter.genre.$not', /unknown operator "\$not"/],
  ['$foo at the top', { $foo: 1 }, 'filter.$foo', /unknown operator "\$foo".*\$and, \$or/],
  ['$nor', { $nor: [{ a: 1 }] }, 'filter.$nor', /unknown operator/],
  ['$elemMatch', { tags: { $elemMatch: { $eq: 'a' } } }, 'filter.tags.$elemMatch', /unknown operator/],
  ['field operator at filter level', { $eq: 1 }, 'filter.$eq', /must be applied to a field/],
  ['$in at filter level', { $in: [1] }, 'filter.$in', /must be applied to a field/],
  ['$and inside a field', { genre: { $and: [{}] } }, 'filter.genre.$and', /cannot be applied to a field/],
  ['list as implicit equality', { genre: ['comedy', 'documentary'] }, 'filter.genre', /\$in/],
  ['empty list as implicit equality', { genre: [] }, 'filter.genre', /list/],
  ['list as $eq operand', { genre: { $eq: ['comedy', 'documentary'] } }, 'filter.genre.$eq', /got array/],
  ['list as $ne operand', { genre: { $ne: ['a'] } }, 'filter.genre.$ne', /got array/],
  ['null value', { genre: null }, 'filter.genre', /got null/],
  ['null $eq', { genre: { $eq: null } }, 'filter.genre.$eq', /got null/],
  ['object $eq', { genre: { $eq: {} } }, 'filter.genre.$eq', /got object/],
  ['NaN $eq', { year: { $eq: Number.NaN } }, 'filter.year.$eq', /non-finite/],
  ['string $gt', { year: { $gt: '5' } }, 'filter.year.$gt', /must be a number, got string/],
  ['boolean $gte', { year: { $gte: true } }, 'filter.year.$gte', /got boolean/],
  ['null $lt', { year: { $lt: null } }, 'filter.year.$lt', /got null/],
  ['list $lte', { year: { $lte: [1] } }, 'filter.year.$lte', /got array/],
  ['Infinity $gt (JSON 1e999)', JSON.parse('{"year":{"$gt":1e999}}'), 'filter.year.$gt', /non-finite/],
  ['string $in', { genre: { $in: 'drama' } }, 'filter.genre.$in', /must be an array of strings or numbers, got string/],
  ['object $in', { genre: { $in: {} } }, 'filter.genre.$in', /^filter\.genre\.\$in: must be an array of strings or numbers, got object$/],
  ['boolean in $in', { genre: { $in: ['a', true] } }, 'filter.genre.$in[1]', /must be a string or number, got boolean/],
  ['null in $in', { genre: { $in: [null] } }, 'filter.genre.$in[0]', /got null/],
  ['list in $nin', { genre: { $nin: [['a']] } }, 'filter.genre.$nin[0]', /got array/],
  ['number $nin', { genre: { $nin: 3 } }, 'filter.genre.$nin', /got number/],
  ['string $exists', { genre: { $exists: 'yes' } }, 'filter.genre.$exists', /must be a boolean, got string/],
  ['number $exists', { genre: { $exists: 1 } }, 'filter.genre.$exists', /got number/],
  ['null $exists', { genre: { $exists: null } }, 'filter.genre.$exists', /got null/],
  ['empty $and', { $and: [] }, 'filter.$and', /non-empty array/],
  ['empty $or', { $or: [] }, 'filter.$or', /non-empty array/],
  ['object $or', { $or: {} }, 'filter.$or', /got object/],
  ['string $and', { $and: 'x' }, 'filter.$and', /got string/],
  ['null $and', { $and: null }, 'filter.$and', /got null/],
  ['number in $and', { $and: [1] }, 'filter.$and[0]', /must be a filter object, got number/],
  ['null in $and', { $and: [{}, null] }, 'filter.$and[1]', /got null/],
  ['list in $or', { $or: [[]] }, 'filter.$or[0]', /got array/],
  ['deep path', { $and: [{}, {}, { year: { $gt: 'x' } }] }, 'filter.$and[2].year.$gt', /must be a number/],
  ['deeper path', { $or: [{ $and: [{ a: 1 }, { genre: { $regex: 'x' } }] }] }, 'filter.$or[0].$and[1].genre.$regex', /unknown/],
  ['empty operator object', { genre: {} }, 'filter.genre', /empty object/],
  ['sub-field key', { genre: { sub: 1 } }, 'filter.genre.sub', /metadata is flat/],
  ['sub-field key after an operator', { genre: { $eq: 'a', sub: 1 } }, 'filter.genre.sub', /expected an operator/],
  ['quoted field name', { 'my field': { $gt: 'x' } }, 'filter["my field"].$gt', /must be a number/],
  ['dotted field name', { 'a.b': null }, 'filter["a.b"]', /got null/],
  ['error after a valid key', { $and: [{ a: 1 }], b: { $in: 5 } }, 'filter.b.$in', /got number/],
];

function assertFilterError(fn: () => unknown, path: string, pattern?: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof FilterError, `expected FilterError, got ${String(err)}`);
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'FilterError');
    assert.equal(err.path, path);
    assert.ok(err.message.startsWith(`${path}: `), `message ${JSON.stringify(err.message)} should start with ${path}`);
    if (pattern) assert.match(err.message, pattern);
    return true;
  });
}

describe('filter: invalid filters', () => {
  for (const [name, filter, path, pattern] of ERRORS) {
    it(`${name} -> ${path}`, () => assertFilterError(() => parseFilter(filter), path, pattern));
  }

  it('roots the path at the given field name', () => {
    assertFilterError(() => parseFilter({ a: null }, 'delete.filter'), 'delete.filter.a', /got null/);
    assertFilterError(() => parseFilter(7, 'delete.filter'), 'delete.filter', /got number/);
  });

  it(`allows ${FILTER_MAX_IN_VALUES} $in/$nin values and refuses one more`, () => {
    const values = Array.from({ length: FILTER_MAX_IN_VALUES }, (_, i) => `id-${i}`);
    const predicate = parseFilter({ tag: { $in: values } });
    assert.equal(predicate({ tag: `id-${FILTER_MAX_IN_VALUES - 1}` }), true);
    assert.equal(predicate({ tag: ['zz', 'id-0'] }), true);
    assert.equal(predicate({ tag: 'id-x' }), false);
    assert.equal(parseFilter({ tag: { $nin: values } })({ tag: 'id-5' }), false);
    const tooMany = [...values, 'one-more'];
    assertFilterError(() => parseFilter({ tag: { $in: tooMany } }), 'filter.tag.$in', /10001 values; at most 10000/);
    assertFilterError(() => parseFilter({ tag: { $nin: tooMany } }), 'filter.tag.$nin', /at most 10000/);
  });

  it(`allows ${FILTER_MAX_DEPTH} levels of $and/$or and refuses one more`, () => {
    const nest = (levels: number): JsonObject => {
      let filter: JsonObject = { year: 1999 };
      // Each level is neutral: `$and` with {}, `$or` with a branch no record matches.
      for (let i = 0; i < levels; i++) {
        filter = i % 2 === 0 ? { $and: [filter, {}] } : { $or: [filter, { nope: { $exists: true } }] };
      }
      return filter;
    };
    const ok = parseFilter(nest(FILTER_MAX_DEPTH));
    assert.equal(ok({ year: 1999 }), true);
    assert.equal(ok({ year: 2000 }), false);
    const tooDeep = nest(FILTER_MAX_DEPTH + 1);
    const outer = FILTER_MAX_DEPTH % 2 === 0 ? '$and' : '$or';
    assert.ok(outer in tooDeep);
    assert.throws(() => parseFilter(tooDeep), (err: unknown) => {
      assert.ok(err instanceof FilterError);
      assert.match(err.message, /^filter\.\$(and|or)\[0\]\./);
      assert.match(err.message, new RegExp(`at most ${FILTER_MAX_DEPTH} levels`));
      // The path runs through every level down to the one that is too deep.
      assert.equal(err.path.split('[0]').length - 1, FILTER_MAX_DEPTH);
      return true;
    });
    // A pathologically deep filter fails on the bound, not on the stack.
    assert.throws(() => parseFilter(nest(100_000)), FilterError);
  });

  it(`allows ${FILTER_MAX_CONDITIONS} conditions and refuses one more`, () => {
    const keys = (n: number): JsonObject => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));
    const ok = parseFilter(keys(FILTER_MAX_CONDITIONS));
    assert.equal(ok(keys(FILTER_MAX_CONDITIONS) as Metadata), true);
    assertFilterError(() => parseFilter(keys(FILTER_MAX_CONDITIONS + 1)), `filter.f${FILTER_MAX_CONDITIONS}`, /more than 1024 conditions/);
    // $and/$or elements holding no condition ({}) count one, so a huge array of {} is refused.
    parseFilter({ $or: Array.from({ length: FILTER_MAX_CONDITIONS }, () => ({})) });
    assertFilterError(() => parseFilter({ $or: Array.from({ length: 100_000 }, () => ({})) }), `filter.$or[${FILTER_MAX_CONDITIONS}]`, /conditions/);
    // An element's own conditions are all it counts: an $or of 1,024 equalities is allowed.
    const equalities = (n: number): JsonObject => ({ $or: Array.from({ length: n }, (_, i) => ({ x: i })) });
    assert.equal(parseFilter(equalities(FILTER_MAX_CONDITIONS))({ x: FILTER_MAX_CONDITIONS - 1 }), true);
    assertFilterError(() => parseFilter(equalities(FILTER_MAX_CONDITIONS + 1)), `filter.$or[${FILTER_MAX_CONDITIONS}].x`, /more than 1024 conditions/);
    assert.equal(parseFilter({ $and: [{ $or: equalities(FILTER_MAX_CONDITIONS / 2).$or as JsonObject[] }, { y: 1 }] })({ x: 3, y: 1 }), true);
    // Operators on one field count one each.
    const half = FILTER_MAX_CONDITIONS / 2;
    const twoOps = Object.fromEntries(Array.from({ length: half }, (_, i) => [`f${i}`, { $gte: 0, $lte: 9 }]));
    parseFilter(twoOps);
    assert.throws(() => parseFilter({ ...twoOps, extra: 1 }), /conditions/);
  });
});

// ---------------------------------------------------------------------------------------
// Empty filters, the AST, compileFilter.

describe('filter: empty filters and the AST', () => {
  it('isEmptyFilter: undefined, null and {} only', () => {
    for (const f of [undefined, null, {}]) assert.equal(isEmptyFilter(f), true, JSON.stringify(f));
    for (const f of [{ a: 1 }, { $and: [{}] }, [], '', 0, false, 'x']) assert.equal(isEmptyFilter(f), false, JSON.stringify(f));
  });

  it('undefined, null and {} match every record', () => {
    for (const f of [undefined, null, {}]) {
      assert.deepEqual(parseFilterNode(f), { kind: 'all' });
      assert.deepEqual(matchingIds(parseFilter(f)), ALL_IDS);
    }
  });

  it('parses implicit $eq, several keys and several operators into one flat and', () => {
    const node = parseFilterNode({ genre: 'drama', year: { $gte: 2000, $lte: 2010 }, $and: [{ draft: true }] });
    const expected: FilterNode = {
      kind: 'and',
      children: [
        { kind: 'eq', field: 'genre', value: 'drama' },
        { kind: 'gte', field: 'year', value: 2000 },
        { kind: 'lte', field: 'year', value: 2010 },
        { kind: 'eq', field: 'draft', value: true },
      ],
    };
    assert.deepEqual(node, expected);
  });

  it('normalises $and/$or: single children unwrap, {} vanishes from $and and absorbs $or', () => {
    assert.deepEqual(parseFilterNode({ $and: [{ a: 1 }] }), { kind: 'eq', field: 'a', value: 1 });
    assert.deepEqual(parseFilterNode({ $and: [{}, { a: { $ne: 'x' } }] }), { kind: 'ne', field: 'a', value: 'x' });
    assert.deepEqual(parseFilterNode({ $or: [{ a: 1 }, {}] }), { kind: 'all' });
    assert.deepEqual(parseFilterNode({ $or: [{ $or: [{ a: 1 }, { b: 2 }] }, { c: { $exists: false } }] }), {
      kind: 'or',
      children: [
        { kind: 'eq', field: 'a', value: 1 },
        { kind: 'eq', field: 'b', value: 2 },
        { kind: 'exists', field: 'c', value: false },
      ],
    });
  });

  it('keeps $in values distinct, strings and numbers apart', () => {
    assert.deepEqual(parseFilterNode({ a: { $nin: ['1', 1, '1', 2, 1] } }), { kind: 'nin', field: 'a', values: ['1', 1, 2] });
    assert.deepEqual(parseFilterNode({ a: { $in: [] } }), { kind: 'in', field: 'a', values: [] });
  });

  it('compileFilter evaluates a hand-built AST', () => {
    const node: FilterNode = {
      kind: 'or',
      children: [
        { kind: 'and', children: [{ kind: 'gt', field: 'year', value: 2000 }, { kind: 'lt', field: 'year', value: 2011 }] },
        { kind: 'in', field: 'genre', values: ['action'] },
      ],
    };
    assert.deepEqual(matchingIds(compileFilter(node)), ['r03', 'r04', 'r05', 'r07', 'r23', 'r25', 'r29']);
    assert.equal(compileFilter({ kind: 'and', children: [] })(undefined), true);
    assert.equal(compileFilter({ kind: 'or', children: [] })({ a: 1 }), false);
  });

  it('parsing does not keep references to the input', () => {
    const values = ['a', 'b'];
    const predicate = parseFilter({ tag: { $in: values } });
    values.push('c');
    assert.equal(predicate({ tag: 'c' }), false);
  });
});
