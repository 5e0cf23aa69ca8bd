// Metadata columns against the reference evaluator (compileFilter): every operator,
// missing fields, lists (empty, duplicates), type look-alikes, -0, inherited names, and
// labels that are replaced and removed (stale postings) — on seeded random data, after a
// random sequence of writes, the bitmap must equal the reference's match set exactly.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileFilter, parseFilterNode, type Metadata, type MetadataValue } from '../../src/engine/filter.js';
import { Bitmap } from '../../src/engine/metadata/bitmap.js';
import { MAX_SHAPE_KEYS, MAX_SHAPES } from '../../src/engine/metadata/key-shapes.js';
import { METADATA_IN_STORE, MetadataColumns } from '../../src/engine/metadata/metadata-columns.js';
import { MAX_INDEXED_VALUES } from '../../src/engine/metadata/value-postings.js';
import { DenseField } from '../../src/engine/metadata/dense-field.js';
import { prng } from '../helpers/prng.js';

const STRINGS = ['a', 'b', 'c', '1', 'true', '', 'say "hi" \\ é\u2028'];
const NUMBERS = [0, -0, 1, -1, 2.5, 1e9, 7];
const FIELDS = ['n', 's', 'b', 'l', 'mixed', 'constructor', '10', 'quote"d'];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)];
}

function randomValue(rand: () => number, field: string): MetadataValue {
  const kind = field === 'mixed' || field === 'constructor' ? Math.floor(rand() * 4) : FIELDS.indexOf(field);
  switch (kind) {
    case 0:
      return pick(rand, NUMBERS);
    case 1:
      return pick(rand, STRINGS);
    case 2:
      return rand() < 0.5;
    default:
      return Array.from({ length: Math.floor(rand() * 4) }, () => pick(rand, STRINGS));
  }
}

function randomMetadata(rand: () => number): Metadata | undefined {
  if (rand() < 0.1) return undefined;
  const m: Metadata = {};
  for (const f of FIELDS) if (rand() < 0.6) m[f] = randomValue(rand, f);
  return m;
}

/** The same fields in a random order, lists with a repeat now and then (undefined stays undefined). */
function shuffledKeys(rand: () => number, m: Metadata | undefined): Metadata | undefined {
  if (!m) return m;
  const out: Metadata = {};
  const keys = Object.keys(m);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [keys[i], keys[j]] = [keys[j], keys[i]];
  }
  for (const k of keys) {
    const v = m[k];
    out[k] = Array.isArray(v) && v.length > 0 && rand() < 0.5 ? [...v, v[0]] : v;
  }
  return out;
}

type Json = string | number | boolean | Json[] | { [k: string]: Json };

function randomCondition(rand: () => number): Json {
  const scalar = (): string | number | boolean => {
    const r = rand();
    return r < 0.45 ? pick(rand, STRINGS) : r < 0.9 ? pick(rand, NUMBERS) : rand() < 0.5;
  };
  const list = (): (string | number)[] =>
    [...new Set(Array.from({ length: Math.floor(rand() * 4) }, () => (rand() < 0.5 ? pick(rand, STRINGS) : pick(rand, NUMBERS))))];
  const field = pick(rand, [...FIELDS, 'absent']);
  const op = pick(rand, ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', 'implicit']);
  switch (op) {
    case 'implicit':
      return { [field]: scalar() };
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return { [field]: { [op]: pick(rand, NUMBERS) } };
    case '$in':
    case '$nin':
      return { [field]: { [op]: list() } };
    case '$exists':
      return { [field]: { $exists: rand() < 0.5 } };
    default:
      return { [field]: { [op]: scalar() } };
  }
}

function randomFilter(rand: () => number, depth = 0): Json {
  const r = rand();
  if (depth < 3 && r < 0.3) {
    const op = rand() < 0.5 ? '$and' : '$or';
    return { [op]: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => randomFilter(rand, depth + 1)) };
  }
  return randomCondition(rand);
}

function labelsOf(b: Bitmap): number[] {
  const out: number[] = [];
  b.forEach((l) => out.push(l));
  return out;
}

/** One write to the columns and to the model they are compared with: set a record's metadata, or remove it. */
function write(columns: MetadataColumns, model: Map<number, Metadata | undefined>, label: number, metadata: Metadata | undefined | 'remove'): void {
  if (metadata === 'remove') {
    columns.remove(label);
    model.delete(label);
  } else {
    columns.set(label, metadata);
    model.set(label, metadata);
  }
}

/** The columns' match set for `filter` equals the reference evaluator's over the model. */
function assertMatchesReference(columns: MetadataColumns, model: Map<number, Metadata | undefined>, filter: Json, context: string): void {
  const node = parseFilterNode(filter);
  const predicate = compileFilter(node);
  const expected = [...model.entries()].filter(([, m]) => predicate(m)).map(([l]) => l).sort((x, y) => x - y);
  assert.deepEqual(labelsOf(columns.evaluate(node)), expected, `${context}: ${JSON.stringify(filter)}`);
}

describe('MetadataColumns', () => {
  // Capacity 32: the columns grow several times during the run, and its fields turn dense
  // early. 65,536: 300 labels never make a field dense (field-column.ts), so every field
  // stays sparse.
  for (const capacity of [32, 65_536]) {
  it(`equals the reference evaluator on every operator after random writes, replaces and removes (capacity ${capacity})`, () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rand = prng(seed);
      const columns = new MetadataColumns(capacity);
      const model = new Map<number, Metadata | undefined>();
      for (let step = 0; step < 600; step++) {
        const label = Math.floor(rand() * 300);
        write(columns, model, label, rand() < 0.2 ? 'remove' : randomMetadata(rand));
        if (step % 20 !== 19) continue;
        for (let f = 0; f < 15; f++) assertMatchesReference(columns, model, randomFilter(rand), `seed ${seed} step ${step}`);
      }
      assert.equal(columns.size, model.size);
    }
  });

  it(`prints each record as JSON.stringify prints it as written (key order, list order and repeats) after random writes (capacity ${capacity})`, () => {
    for (const seed of [8, 9, 10]) {
      const rand = prng(seed);
      const columns = new MetadataColumns(capacity);
      const model = new Map<number, Metadata | undefined>();
      for (let step = 0; step < 3000; step++) {
        const label = Math.floor(rand() * 250);
        write(columns, model, label, rand() < 0.15 ? 'remove' : shuffledKeys(rand, randomMetadata(rand)));
      }
      for (let label = 0; label < 300; label++) {
        const expected = model.get(label);
        // The exact text: key order, list order and repeats, and every value as JSON prints it.
        assert.equal(columns.metadataJson(label), expected && JSON.stringify(expected), `seed ${seed} label ${label}`);
      }
    }
  });
  }

  it('keeps a field sparse while few labels hold it and dense once many do, both ways, with the same answers', () => {
    const rand = prng(31);
    const columns = new MetadataColumns(32);
    const model = new Map<number, Metadata | undefined>();
    const check = (context: string): void => {
      for (let f = 0; f < 40; f++) {
        // A random condition (one field each), on `mixed`.
        const [condition] = Object.values(randomCondition(rand) as Record<string, Json>);
        assertMatchesReference(columns, model, { mixed: condition }, context);
      }
      for (const [label, m] of model) assert.equal(columns.metadataJson(label), m && JSON.stringify(m), `${context}: label ${label}`);
    };
    const give = (label: number): void => write(columns, model, label, { mixed: randomValue(rand, 'mixed'), [`own${label}`]: label });
    // 40 holders at capacity 64: dense.
    for (let label = 0; label < 40; label++) give(label);
    assert.equal(columns.formOf('mixed'), 'dense');
    assert.equal(columns.formOf('own7'), 'sparse');
    check('dense after 40 sets');
    // The namespace grows to 32,768 labels: 41 holders are too few, sparse again.
    give(20_000);
    assert.equal(columns.formOf('mixed'), 'sparse');
    check('sparse after growing');
    // 600 holders of 32,768 (more than one in 64): dense.
    for (let label = 100; label < 700; label++) give(label);
    assert.equal(columns.formOf('mixed'), 'dense');
    check('dense again');
    // Removes and replaces without the field down to 100 holders (fewer than one in 256): sparse.
    for (let label = 100; label < 700; label++) {
      if (model.size <= 100) break;
      write(columns, model, label, rand() < 0.5 ? 'remove' : { other: label });
    }
    assert.equal(columns.formOf('mixed'), 'sparse');
    check('sparse after removes');
  });

  it('forgets a field once no record holds it (records rewritten with field names of their own)', () => {
    const columns = new MetadataColumns();
    const model = new Map<number, Metadata | undefined>();
    for (let round = 0; round < 5; round++) {
      for (let label = 0; label < 100; label++) write(columns, model, label, { [`own${label}-${round}`]: round, shared: `r${round}` });
      for (let label = 0; label < 100; label++) {
        assert.equal(columns.formOf(`own${label}-${round}`), 'sparse');
        if (round > 0) assert.equal(columns.formOf(`own${label}-${round - 1}`), undefined, `round ${round} label ${label}`);
      }
      assertMatchesReference(columns, model, { [`own7-${round}`]: round }, `round ${round}`);
      assertMatchesReference(columns, model, { shared: { $ne: `r${round}` } }, `round ${round}`);
    }
    for (let label = 0; label < 100; label++) write(columns, model, label, 'remove');
    assert.equal(columns.formOf('shared'), undefined);
  });

  it('a dense string field whose values keep changing is rewritten as its dictionary outgrows them, with the same answers', () => {
    const rand = prng(41);
    const columns = new MetadataColumns();
    const model = new Map<number, Metadata | undefined>();
    for (let step = 0; step < 6000; step++) {
      const label = step % 50;
      write(columns, model, label, { ts: `t${step}`, tags: [`t${step}`, 'fixed'] });
      if (step % 997 === 996) {
        assert.equal(columns.formOf('ts'), 'dense');
        const recent = `t${step - Math.floor(rand() * 50)}`;
        const filters: Json[] = [{ ts: recent }, { tags: recent }, { ts: { $in: [recent, 't1'] } }, { tags: { $nin: ['fixed'] } }, { ts: { $ne: recent } }];
        for (const filter of filters) {
          assertMatchesReference(columns, model, filter, `step ${step}`);
        }
      }
    }
    for (let label = 0; label < 50; label++) assert.equal(columns.metadataJson(label), JSON.stringify(model.get(label)));
  });

  it('takes memory in proportion to the records when every record has field names of its own', () => {
    // Before fields could be sparse, each field had arrays over the whole namespace: 8,000
    // such records took 800 MB of array buffers, and quadratic time.
    const columns = new MetadataColumns();
    const before = process.memoryUsage().arrayBuffers;
    for (let label = 0; label < 8000; label++) columns.set(label, { [`a${label}`]: label, [`b${label}`]: `s${label}` });
    for (let label = 0; label < 8000; label += 2) columns.remove(label);
    const grown = process.memoryUsage().arrayBuffers - before;
    assert.ok(grown < 20e6, `array buffers grew ${grown} bytes`);
    assert.deepEqual(labelsOf(columns.evaluate(parseFilterNode({ a7: 7 }))), [7]);
    assert.deepEqual(labelsOf(columns.evaluate(parseFilterNode({ a8: 8 }))), []);
    assert.equal(columns.evaluate(parseFilterNode({ b7: { $exists: false } })).count(), 3999);
    // Shapes are numbered up to MAX_SHAPES; the later records' metadata is read from the store.
    assert.equal(columns.metadataJson(7), JSON.stringify({ a7: 7, b7: 's7' }));
    assert.equal(columns.metadataJson(7999), METADATA_IN_STORE);
  });

  it('with a field subset, rebuilds the records whose fields all have columns and sends the rest to the store', () => {
    const rand = prng(12);
    const filterable = ['n', 's', 'b', 'l', 'mixed'];
    const columns = new MetadataColumns(32, new Set(filterable));
    const model = new Map<number, Metadata | undefined>();
    for (let step = 0; step < 2000; step++) write(columns, model, Math.floor(rand() * 200), rand() < 0.15 ? 'remove' : shuffledKeys(rand, randomMetadata(rand)));
    let rebuilt = 0;
    let inStore = 0;
    for (let label = 0; label < 200; label++) {
      const expected = model.get(label);
      const got = columns.metadataJson(label);
      if (expected && Object.keys(expected).some((k) => !filterable.includes(k))) {
        assert.equal(got, METADATA_IN_STORE, `label ${label}`);
        inStore++;
      } else {
        assert.equal(got, expected && JSON.stringify(expected), `label ${label}`);
        if (expected) rebuilt++;
      }
    }
    // Both kinds occur in this data (or the test would not test both).
    assert.ok(rebuilt > 10 && inStore > 10, `rebuilt ${rebuilt}, in store ${inStore}`);
  });

  it(`numbers at most ${MAX_SHAPES} key shapes; records of later new shapes are read from the store`, () => {
    // Shape i: the i-th ordering of seven keys (5,040 of them), so few columns are made.
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const shaped = (i: number, value: number): Metadata => {
      const rest = [...keys];
      const out: Metadata = {};
      for (let radix = rest.length; radix > 0; radix--) {
        out[rest.splice(i % radix, 1)[0]] = value;
        i = Math.floor(i / radix);
      }
      return out;
    };
    const columns = new MetadataColumns(32);
    const n = MAX_SHAPES + 5;
    for (let label = 0; label < n; label++) columns.set(label, shaped(label, label));
    columns.set(n, shaped(0, -1)); // shape 0 again: still numbered
    for (let label = 0; label < MAX_SHAPES; label++) assert.equal(columns.metadataJson(label), JSON.stringify(shaped(label, label)));
    for (let label = MAX_SHAPES; label < n; label++) assert.equal(columns.metadataJson(label), METADATA_IN_STORE, `label ${label}`);
    assert.equal(columns.metadataJson(n), JSON.stringify(shaped(0, -1)));
    assert.equal(columns.metadataJson(n + 1), undefined);
  });

  it(`numbers shapes up to ${MAX_SHAPE_KEYS} keys in all; past that, a record of a new shape is read from the store`, () => {
    const columns = new MetadataColumns(32);
    // Two shapes of half the budget each fill it: the same keys, in two orders.
    const wide = (order: number, value: number): Metadata => {
      const out: Metadata = {};
      for (let i = 0; i < MAX_SHAPE_KEYS / 2; i++) out[`k${(i * order) % 64}-${Math.floor(i / 64)}`] = value;
      return out;
    };
    columns.set(0, wide(1, 0));
    columns.set(1, wide(3, 1));
    columns.set(2, { small: true });
    columns.set(3, wide(1, 3)); // shape 0 again
    assert.equal(columns.metadataJson(0), JSON.stringify(wide(1, 0)));
    assert.equal(columns.metadataJson(1), JSON.stringify(wide(3, 1)));
    assert.equal(columns.metadataJson(2), METADATA_IN_STORE);
    assert.equal(columns.metadataJson(3), JSON.stringify(wide(1, 3)));
  });

  it('long lists rewritten many times (pooled list codes grow and compact) match the reference', () => {
    const rand = prng(11);
    const words = Array.from({ length: 1000 }, (_, i) => `w${i}`);
    const columns = new MetadataColumns(32);
    const model = new Map<number, Metadata | undefined>();
    for (let step = 0; step < 400; step++) {
      const label = Math.floor(rand() * 100);
      write(columns, model, label, rand() < 0.15 ? 'remove' : { l: Array.from({ length: Math.floor(rand() * 500) }, () => pick(rand, words)) });
      if (step % 20 !== 19) continue;
      const filters: Json[] = [
        { l: { $in: [pick(rand, words), pick(rand, words)] } },
        { l: { $nin: [pick(rand, words)] } },
        { l: pick(rand, words) },
        { l: { $exists: true } },
      ];
      for (const filter of filters) assertMatchesReference(columns, model, filter, `step ${step}`);
    }
  });

  it('pins the documented edge cases', () => {
    const c = new MetadataColumns();
    c.set(0, { tags: ['x', 'y'], year: 2000 });
    c.set(1, { tags: [], year: -0 });
    c.set(2, { tags: 'x', year: '2000' });
    c.set(3, undefined);
    const run = (filter: Json): number[] => labelsOf(c.evaluate(parseFilterNode(filter)));
    assert.deepEqual(run({ tags: 'x' }), [0, 2], 'a list matches $eq when any element does');
    assert.deepEqual(run({ tags: { $ne: 'x' } }), [1, 3], 'an empty list and a missing field match $ne');
    assert.deepEqual(run({ tags: { $nin: ['y', 'x'] } }), [1, 3]);
    assert.deepEqual(run({ tags: { $exists: true } }), [0, 1, 2], 'an empty list is present');
    assert.deepEqual(run({ year: 0 }), [1], '-0 equals 0');
    assert.deepEqual(run({ year: { $in: [0, 2000] } }), [0, 1], 'the string "2000" is not the number 2000');
    assert.deepEqual(run({ year: { $gte: 0 } }), [0, 1], 'ranges match numbers only');
    assert.deepEqual(run({ year: { $exists: false } }), [3]);
    // Replacing a list drops the old values (stale postings are skipped).
    c.set(0, { tags: ['z'] });
    assert.deepEqual(run({ tags: 'x' }), [2]);
    assert.deepEqual(run({ tags: { $in: ['z'] } }), [0]);
    c.remove(2);
    assert.deepEqual(run({ tags: 'x' }), []);
    assert.deepEqual(run({}), [0, 1, 3]);
  });

  it(`indexes up to ${MAX_INDEXED_VALUES} distinct values per kind, then scans: the same matches on both sides of the switch`, () => {
    const rand = prng(21);
    const columns = new MetadataColumns(32);
    const model = new Map<number, Metadata | undefined>();
    const filters = (): Json[] => {
      const n = Math.floor(rand() * MAX_INDEXED_VALUES * 2);
      return [
        { n },
        { n: { $in: [n, n + 1, -0, 3] } },
        { n: { $gte: n } },
        { n: { $lt: n } },
        { n: { $ne: n } },
        { s: `s${n}` },
        { s: { $in: [`s${n}`, 's1', 'nothing'] } },
        { s: { $nin: [`s${n}`] } },
        { $and: [{ n: { $gt: 10 } }, { s: { $in: ['s11', 's12', `s${n}`] } }] },
      ];
    };
    // Distinct values grow past the limit (numbers and strings both), with rewrites and
    // removes throughout; every check compares with the reference evaluator.
    for (let step = 0; step < MAX_INDEXED_VALUES * 2; step++) {
      const label = rand() < 0.8 ? step : Math.floor(rand() * (step + 1));
      const r = rand();
      write(columns, model, label, r < 0.1 ? 'remove' : { n: r < 0.2 ? -0 : step, s: `s${rand() < 0.3 ? 1 : step}` });
      if (step % 500 === 0) {
        for (const filter of filters()) assertMatchesReference(columns, model, filter, `step ${step}`);
      }
    }
  });

  it('keeps scalar value postings exact when the same labels change values many times', () => {
    const c = new MetadataColumns();
    for (let round = 0; round < 200; round++) for (let l = 0; l < 10; l++) c.set(l, { n: (round + l) % 3, s: `v${(round + l) % 2}` });
    // Round 199 wrote n = (199 + l) % 3 = (l + 1) % 3 and s = v(l + 1) % 2.
    assert.deepEqual(labelsOf(c.evaluate(parseFilterNode({ n: 0 }))), [2, 5, 8]);
    assert.deepEqual(labelsOf(c.evaluate(parseFilterNode({ n: { $gte: 1 } }))), [0, 1, 3, 4, 6, 7, 9]);
    assert.deepEqual(labelsOf(c.evaluate(parseFilterNode({ s: 'v0' }))), [1, 3, 5, 7, 9]);
    c.remove(3);
    c.set(5, { n: 1 });
    assert.deepEqual(labelsOf(c.evaluate(parseFilterNode({ n: { $in: [1] } }))), [0, 5, 6, 9]);
    assert.deepEqual(labelsOf(c.evaluate(parseFilterNode({ s: { $in: ['v0', 'v1'] } }))), [0, 1, 2, 4, 6, 7, 8, 9]);
  });

  it('keeps posting lists bounded when the same labels are rewritten many times', () => {
    const c = new MetadataColumns();
    for (let round = 0; round < 200; round++) for (let l = 0; l < 10; l++) c.set(l, { tags: ['hot', `r${round % 3}`] });
    assert.deepEqual(labelsOf(c.evaluate(parseFilterNode({ tags: 'hot' }))), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(labelsOf(c.evaluate(parseFilterNode({ tags: 'r1' }))), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.deepEqual(labelsOf(c.evaluate(parseFilterNode({ tags: 'r0' }))), []);
  });
});

describe('MetadataColumns: every operator, table-driven', () => {
  // Labels 0-5; expectations written by hand, and each also checked against compileFilter.
  const RECORDS: (Metadata | undefined)[] = [
    { genre: 'drama', year: 2019, rating: 4.5, tags: ['a', 'b'], seen: true },
    { genre: 'comedy', year: 2021, tags: ['b'], seen: false },
    { genre: 'drama', year: 2021, rating: 3, tags: [] },
    { genre: 2021, year: '2021', seen: true },
    undefined,
    { year: 2020, tags: ['c'] },
  ];
  const columns = new MetadataColumns();
  RECORDS.forEach((m, label) => columns.set(label, m));
  const TABLE: [string, Json, number[]][] = [
    ['$eq string', { genre: { $eq: 'drama' } }, [0, 2]],
    ['implicit $eq', { genre: 'drama' }, [0, 2]],
    ['$eq number (a string "2021" is not 2021)', { year: 2021 }, [1, 2]],
    ['$eq number on a field holding a number elsewhere', { genre: 2021 }, [3]],
    ['$eq boolean', { seen: true }, [0, 3]],
    ['$eq on a list: any element', { tags: 'b' }, [0, 1]],
    ['$ne string: missing fields match', { genre: { $ne: 'drama' } }, [1, 3, 4, 5]],
    ['$ne boolean', { seen: { $ne: true } }, [1, 2, 4, 5]],
    ['$ne on a list: no element equal', { tags: { $ne: 'b' } }, [2, 3, 4, 5]],
    ['$gt', { year: { $gt: 2020 } }, [1, 2]],
    ['$gte', { year: { $gte: 2020 } }, [1, 2, 5]],
    ['$lt (numbers only; the string is skipped)', { year: { $lt: 2021 } }, [0, 5]],
    ['$lte on a sparse field', { rating: { $lte: 3 } }, [2]],
    ['$in strings', { genre: { $in: ['comedy', 'horror'] } }, [1]],
    ['$in mixed types', { genre: { $in: ['drama', 2021] } }, [0, 2, 3]],
    ['$in on a list', { tags: { $in: ['c', 'a'] } }, [0, 5]],
    ['$in nothing known', { genre: { $in: ['western'] } }, []],
    ['$nin: missing fields match', { genre: { $nin: ['drama', 'comedy'] } }, [3, 4, 5]],
    ['$nin on a list', { tags: { $nin: ['b'] } }, [2, 3, 4, 5]],
    ['$exists true (an empty list is present)', { tags: { $exists: true } }, [0, 1, 2, 5]],
    ['$exists false', { rating: { $exists: false } }, [1, 3, 4, 5]],
    ['$exists false on a field no record has', { nothing: { $exists: false } }, [0, 1, 2, 3, 4, 5]],
    ['$eq on a field no record has', { nothing: 'x' }, []],
    ['$ne on a field no record has', { nothing: { $ne: 'x' } }, [0, 1, 2, 3, 4, 5]],
    ['$and', { $and: [{ genre: 'drama' }, { year: { $gte: 2020 } }] }, [2]],
    ['two fields at the top level (implicit $and)', { genre: 'drama', tags: 'a' }, [0]],
    ['$or', { $or: [{ seen: false }, { tags: 'c' }] }, [1, 5]],
    ['$or inside $and', { $and: [{ $or: [{ genre: 'drama' }, { genre: 'comedy' }] }, { tags: { $in: ['b'] } }] }, [0, 1]],
  ];
  for (const [name, filter, want] of TABLE) {
    it(`${name}: ${JSON.stringify(filter)}`, () => {
      const node = parseFilterNode(filter);
      assert.deepEqual(labelsOf(columns.evaluate(node)), want);
      const reference = compileFilter(node);
      assert.deepEqual(RECORDS.flatMap((m, label) => (reference(m) ? [label] : [])), want, 'the reference evaluator agrees');
    });
  }

  it('with a field subset (filterable fields), other fields get no column at all', () => {
    const only = new MetadataColumns(32, new Set(['genre']));
    RECORDS.forEach((m, label) => only.set(label, m));
    assert.deepEqual(labelsOf(only.evaluate(parseFilterNode({ genre: 'drama' }))), [0, 2]);
    // Not held: the field looks absent (the service refuses such filters before this).
    assert.deepEqual(labelsOf(only.evaluate(parseFilterNode({ year: { $exists: false } }))), [0, 1, 2, 3, 4, 5]);
  });
});

describe('Bitmap', () => {
  it('counts, negates and iterates exactly at word edges', () => {
    for (const size of [1, 31, 32, 33, 64, 100]) {
      const a = new Bitmap(size);
      const b = new Bitmap(size);
      for (let i = 0; i < size; i += 3) a.add(i);
      for (let i = 0; i < size; i += 2) b.add(i);
      const expectAnd = Array.from({ length: size }, (_, i) => i).filter((i) => i % 6 === 0);
      assert.deepEqual(labelsOf(a.copy().and(b)), expectAnd);
      assert.equal(a.copy().or(b).count(), Array.from({ length: size }, (_, i) => i).filter((i) => i % 2 === 0 || i % 3 === 0).length);
      assert.equal(a.copy().andNot(b).count(), a.count() - expectAnd.length);
      const grown = a.resized(size * 3);
      assert.deepEqual(labelsOf(grown), labelsOf(a));
      assert.equal(grown.has(size * 3 - 1), false);
    }
  });
});

describe('DenseField', () => {
  it('knows when its dictionary has outgrown the strings it holds, and a rewrite holds only those', () => {
    const field = new DenseField('ts', 64);
    for (let i = 0; i < 1024; i++) {
      if (i > 0) field.clear(i % 10);
      field.set(i % 10, `v${i}`);
    }
    assert.equal(field.wordsOutgrown(), false, '1,024 strings: within the first limit');
    field.clear(3);
    field.set(3, 'one-more');
    assert.equal(field.wordsOutgrown(), true);
    const rewritten = DenseField.from(field, 'ts', 64);
    assert.equal(rewritten.wordsOutgrown(), false);
    assert.deepEqual(labelsOf(rewritten.equal('one-more')), [3]);
    assert.deepEqual(labelsOf(rewritten.equal('v1020')), [0]);
    assert.deepEqual(labelsOf(rewritten.equal('v5')), []);
    assert.equal(rewritten.valueJson(9), '"v1019"');
  });
});
