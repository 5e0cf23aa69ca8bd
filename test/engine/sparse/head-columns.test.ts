// Head columns (src/engine/sparse/head-columns.ts) and the native search through them
// (native/sparse-search.cc HeadSearch), against a brute-force scorer written here and
// against the other two searches (MaxScore and plain accumulation). The data makes the
// columns' quantisation matter: many records score within a code step of each other, so
// a margin too small to cover a column's rounding picks the wrong records. Also: the
// postings' sorted prefix the native walk relies on, and what the native function does
// with bad arguments and with a list that is not in the order it was told. The file runs
// once more in a child process with CONIFER_SPARSE_AVX2=0, so the kernels a CPU without
// AVX2 runs are held to the same answers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { prepareSparse, SparseIndex } from '../../../src/engine/sparse/sparse-index.js';
import { Postings, PostingList } from '../../../src/engine/sparse/postings.js';
import { headColumn, setCode, type HeadColumn } from '../../../src/engine/sparse/head-columns.js';
import type { SparseValues } from '../../../src/engine/model.js';
import { nativeAddon, nativeAddonError } from '../../../src/engine/native-addon.js';
import { Bitmap } from '../../../src/engine/metadata/bitmap.js';
import { prng } from '../../helpers/prng.js';

/** Fewest records for columns in these tests (the default, 4096, is for speed, not correctness). */
const MIN_RECORDS = 64;
const VOCAB = 200;
/** Dimensions whose weights may be negative (they never get a column). */
const signed = (dim: number): boolean => dim % 11 === 5;

/**
 * Records of 5-25 dimensions, frequent ones low (the first ~20 in most records), weights
 * 0.5 + up to 0.004: a column's step is ~0.002, so many scores tie within a step or two.
 */
function record(rand: () => number): SparseValues {
  const chosen = new Set<number>();
  const n = 5 + Math.floor(rand() * 21);
  while (chosen.size < n) chosen.add(Math.floor(VOCAB * rand() ** 2.5));
  const indices = Uint32Array.from([...chosen].sort((a, b) => a - b));
  const values = Float32Array.from(indices, (d) => (signed(d) && rand() < 0.3 ? -0.5 : 0.5) + 0.004 * rand());
  return { indices, values };
}

function query(rand: () => number): SparseValues {
  const chosen = new Set<number>();
  const n = 1 + Math.floor(rand() * 12);
  while (chosen.size < n) chosen.add(Math.floor(VOCAB * rand() ** 2));
  const indices = Uint32Array.from([...chosen].sort((a, b) => a - b));
  // Mostly positive and near-equal; some zero, some negative.
  const values = Float32Array.from(indices, () => {
    const r = rand();
    return r < 0.08 ? 0 : r < 0.2 ? -0.3 - rand() : 1 + 0.01 * rand();
  });
  return { indices, values };
}

function bruteForce(live: Map<number, SparseValues>, q: SparseValues, topK: number): { id: string; score: number }[] {
  const qm = new Map<number, number>();
  for (let i = 0; i < q.indices.length; i++) qm.set(q.indices[i], q.values[i]);
  const hits: { id: string; score: number }[] = [];
  for (const [label, r] of live) {
    let score = 0;
    let shares = false;
    for (let i = 0; i < r.indices.length; i++) {
      const w = qm.get(r.indices[i]);
      if (w === undefined) continue;
      shares = true;
      score += w * r.values[i];
    }
    if (shares) hits.push({ id: idOf(label), score: Math.fround(score) });
  }
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, topK);
}

const idOf = (label: number): string => `r${String(label).padStart(6, '0')}`;

/** The head column of `dim` in the index, if it has one. */
const columnOf = (index: SparseIndex, dim: number): HeadColumn | undefined => (index as unknown as { postings: Postings }).postings.get(dim)?.head;

/** Sets, updates and deletes with label reuse, mirrored in `live`. */
function writes(index: SparseIndex, live: Map<number, SparseValues>, rand: () => number, steps: number): void {
  const free: number[] = [];
  let next = live.size === 0 ? 0 : Math.max(...live.keys()) + 1;
  for (let step = 0; step < steps; step++) {
    const r = rand();
    const labels = [...live.keys()];
    if (r < 0.7 || labels.length === 0) {
      const label = free.pop() ?? next++;
      const v = record(rand);
      index.set(label, v);
      live.set(label, v);
    } else if (r < 0.85) {
      const label = labels[Math.floor(rand() * labels.length)];
      const v = record(rand);
      index.set(label, v);
      live.set(label, v);
    } else {
      const label = labels[Math.floor(rand() * labels.length)];
      index.remove(label);
      live.delete(label);
      free.push(label);
    }
  }
}

function compare(index: SparseIndex, live: Map<number, SparseValues>, rand: () => number, what: string): number {
  let compared = 0;
  for (let qi = 0; qi < 40; qi++) {
    const q = query(rand);
    const prepared = prepareSparse(q);
    for (const topK of [1, 3, 10, 50, 100_000]) {
      const want = bruteForce(live, q, topK);
      for (const strategy of ['auto', 'maxscore', 'plain'] as const) {
        const got = index.search(prepared, topK, idOf, undefined, strategy).map((h) => ({ id: h.id, score: h.rank }));
        assert.deepEqual(got, want, `${what}: q${qi} topK=${topK} ${strategy}`);
      }
      compared++;
    }
  }
  return compared;
}

describe('Sparse search through head columns', () => {
  it('equals brute force, MaxScore and plain after random writes, with lists out of label order, after compaction, and after a column is dropped and rebuilt', () => {
    assert.ok(nativeAddon, `addon not loaded: ${nativeAddonError}`);
    const rand = prng(41);
    const index = new SparseIndex(nativeAddon, MIN_RECORDS);
    const live = new Map<number, SparseValues>();
    writes(index, live, rand, 3000);
    assert.equal(compare(index, live, rand, 'after writes'), 200);
    assert.ok(index.headColumns >= 10, `the frequent unsigned dimensions have columns (${index.headColumns})`);
    // Updates and reused labels appended entries out of label order: the walk adds those
    // apart (its pre-pass). Compaction sorts every list again.
    writes(index, live, rand, 1500);
    assert.equal(compare(index, live, rand, 'after more writes'), 200);
    index.work(Infinity);
    assert.equal(compare(index, live, rand, 'compacted'), 200);
    // A weight above a column's max drops the column; the next query builds it again.
    const columns = index.headColumns;
    const dim0 = columnOf(index, 0);
    assert.ok(dim0 && dim0.max < 3);
    const [label] = live.keys();
    const big: SparseValues = { indices: Uint32Array.of(0, 1), values: Float32Array.of(3, 0.5) };
    index.set(label, big);
    live.set(label, big);
    assert.equal(index.headColumns, columns - 1);
    assert.equal(compare(index, live, rand, 'after a weight above the max'), 200);
    assert.equal(index.headColumns, columns);
    assert.equal(index.search(prepareSparse({ indices: Uint32Array.of(0), values: Float32Array.of(1) }), 1, idOf)[0].id, idOf(label));
  });

  it('a record whose codes round up does not hide one that scores higher, and exact ties rank by id (the margin covers a column\'s rounding)', () => {
    assert.ok(nativeAddon, `addon not loaded: ${nativeAddonError}`);
    const index = new SparseIndex(nativeAddon, MIN_RECORDS);
    const live = new Map<number, SparseValues>();
    const put = (label: number, a: number, b: number): void => {
      const v = { indices: Uint32Array.of(0, 1), values: Float32Array.of(a, b) };
      index.set(label, v);
      live.set(label, v);
    };
    // Columns of dimensions 0 and 1 with max 1: step 1/255. X's weights round up to codes
    // 101 and 101, Y's down to 101 and 100, yet Y scores higher: 201.8 steps against 201.02.
    const step = 1 / 255;
    put(0, 1, 1);
    put(1, 100.51 * step, 100.51 * step); // X
    put(2, 101.4 * step, 100.4 * step); // Y
    for (let label = 3; label < 70; label++) put(label, 0.01, 0.01);
    put(70, 1, 1); // an exact tie with label 0
    const q = { indices: Uint32Array.of(0, 1), values: Float32Array.of(1, 1) };
    for (const topK of [1, 2, 3, 4, 10]) {
      const got = index.search(prepareSparse(q), topK, idOf).map((h) => ({ id: h.id, score: h.rank }));
      assert.deepEqual(got, bruteForce(live, q, topK), `topK=${topK}`);
    }
    assert.deepEqual(index.search(prepareSparse(q), 3, idOf).map((h) => h.id), [idOf(0), idOf(70), idOf(2)]);
    assert.equal(index.headColumns, 2);
  });
});

describe('Sparse search through head columns at the edges', () => {
  it('head terms of weight 0 only mark presence; scores near float32\'s range rank as MaxScore ranks them', () => {
    assert.ok(nativeAddon, `addon not loaded: ${nativeAddonError}`);
    const rand = prng(23);
    const index = new SparseIndex(nativeAddon, MIN_RECORDS);
    const live = new Map<number, SparseValues>();
    writes(index, live, rand, 2000);
    // Frequent dimensions 0-3 at weight 0 beside a rarer one, and all at weight 0.
    for (const values of [[0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]) {
      const q = { indices: Uint32Array.of(0, 1, 2, 3, 150), values: Float32Array.from(values) };
      for (const topK of [1, 10, 5000]) {
        const got = index.search(prepareSparse(q), topK, idOf).map((h) => ({ id: h.id, score: h.rank }));
        assert.deepEqual(got, bruteForce(live, q, topK), `weights ${values} topK=${topK}`);
      }
    }
    assert.ok(index.headColumns >= 4);
    // Weights whose products pass float32's largest value: the same answers as MaxScore,
    // which ranks saturated scores as the largest float32 and orders their ties by id.
    const huge = new SparseIndex(nativeAddon, MIN_RECORDS);
    for (let label = 0; label < 200; label++) {
      huge.set(label, { indices: Uint32Array.of(0, 1 + (label % 3)), values: Float32Array.of(label % 7 === 0 ? 3e38 : 1 + label / 100, 2e38) });
    }
    const q = prepareSparse({ indices: Uint32Array.of(0, 1), values: Float32Array.of(2, 1e-3) });
    for (const topK of [1, 10, 100]) {
      assert.deepEqual(huge.search(q, topK, idOf), huge.search(q, topK, idOf, undefined, 'maxscore'), `topK=${topK}`);
    }
    assert.ok(huge.headColumns >= 1);
  });
});

describe('SparseIndex searchMany through head columns', () => {
  it('answers each query as search() does, on several threads, filtered queries by MaxScore beside them', () => {
    assert.ok(nativeAddon, `addon not loaded: ${nativeAddonError}`);
    const rand = prng(17);
    const index = new SparseIndex(nativeAddon, MIN_RECORDS);
    const live = new Map<number, SparseValues>();
    writes(index, live, rand, 3000);
    const allow = new Bitmap(4000);
    for (const label of live.keys()) if (label % 3 === 0) allow.add(label);
    const qs = Array.from({ length: 30 }, (_, i) => ({ q: prepareSparse(query(rand)), topK: 1 + (i % 12), allow: i % 4 === 0 ? allow : undefined }));
    const many = index.searchMany(qs, idOf, 2);
    assert.ok(index.headColumns >= 10);
    qs.forEach(({ q, topK, allow: a }, i) => {
      assert.deepEqual(many[i], index.search(q, topK, idOf, a), `query ${i}`);
      if (!a) assert.deepEqual(many[i].map((h) => ({ id: h.id, score: h.rank })), bruteForce(live, { indices: q.dims, values: q.weights }, topK), `query ${i} against brute force`);
    });
  });
});

describe('Head columns', () => {
  it('hold every label\'s current code through sets, updates, deletes and reuse, equal to columns built from scratch', () => {
    const rand = prng(9);
    const index = new SparseIndex(nativeAddon, MIN_RECORDS);
    const live = new Map<number, SparseValues>();
    writes(index, live, rand, 2000);
    const q = prepareSparse({ indices: Uint32Array.from({ length: 20 }, (_, i) => i), values: new Float32Array(20).fill(1) });
    index.search(q, 1, idOf); // builds the columns
    writes(index, live, rand, 2000);
    const fresh = new SparseIndex(nativeAddon, MIN_RECORDS);
    for (const [label, v] of live) fresh.set(label, v);
    fresh.search(q, 1, idOf);
    index.postingsReady(); // the last writes may still be queued (sparse-index.ts, `queue`)
    const codesOf = (i: SparseIndex): Map<number, number[]> => {
      const out = new Map<number, number[]>();
      for (let dim = 0; dim < 20; dim++) {
        const c = columnOf(i, dim);
        if (c) out.set(dim, Array.from({ length: 4000 }, (_, label) => c.codes[label] ?? 0));
      }
      return out;
    };
    // The same dimensions, and the same code for every label where the step is the same.
    const kept = codesOf(index);
    const built = codesOf(fresh);
    assert.ok(built.size >= 10);
    for (const [dim, codes] of built) {
      const mine = kept.get(dim);
      if (!mine) continue; // dropped by a weight above its max: rebuilt by the next query
      const step = columnOf(index, dim)!.step;
      const freshStep = columnOf(fresh, dim)!.step;
      for (let label = 0; label < 4000; label++) {
        const v = live.get(label);
        const at = v ? v.indices.indexOf(dim) : -1;
        const want = at < 0 ? 0 : Math.min(255, Math.max(1, Math.round(v!.values[at] / step)));
        assert.equal(mine[label], want, `dim ${dim} label ${label}`);
        if (step === freshStep) assert.equal(mine[label], codes[label]);
      }
    }
  });

  it('build a column only for a dimension held by an eighth of at least minRecords records with no negative weight', () => {
    const list = new PostingList();
    const gen = new Uint32Array(1000);
    for (let label = 0; label < 30; label++) list.add(label, 0, 0.5);
    assert.equal(headColumn(list, 99, 100, 1000, gen), undefined, 'below minRecords');
    assert.equal(headColumn(list, 300, 100, 1000, gen), undefined, '30 of 300 is under an eighth');
    const column = headColumn(list, 200, 100, 1000, gen);
    assert.ok(column);
    assert.equal(list.head, column);
    assert.equal(column.codes.length, 1024, 'padded to 32 labels');
    assert.equal(column.codes[0], 255);
    assert.equal(column.codes[30], 0);
    setCode(list, 2000, 0.25);
    assert.equal(list.head?.codes[2000], 128, 'a label past the column grows it');
    const signed = new PostingList();
    for (let label = 0; label < 30; label++) signed.add(label, 0, label === 7 ? -0.1 : 0.5);
    assert.equal(headColumn(signed, 200, 100, 1000, gen), undefined, 'a negative weight');
    setCode(list, 31, -0.1);
    assert.equal(list.head, undefined, 'a negative weight drops the column');
  });
});

describe('Postings sorted prefix', () => {
  it('grows with appends in label order, ends at the first out of order, and compaction sorts the list again', () => {
    const postings = new Postings();
    const gen = new Uint32Array(500);
    for (let label = 0; label < 200; label++) postings.add(3, label, 0, label / 1000);
    const list = postings.get(3)!;
    assert.equal(list.sorted, 200);
    postings.add(3, 50, 1, 0.9); // label 50 updated: its old entry is stale
    gen[50] = 1;
    postings.markStale(3);
    postings.add(3, 300, 0, 0.3); // in order, but after the prefix ended
    assert.equal(list.sorted, 200);
    assert.equal(postings.hasWork, false, 'two entries past the prefix are not worth a sort');
    for (let label = 499; label >= 301; label--) postings.add(3, label, 0, 0.1);
    assert.equal(postings.hasWork, true, 'a large unsorted part makes the list due');
    postings.work(Infinity, gen);
    const after = postings.get(3)!;
    assert.equal(after.sorted, after.length);
    const labels = Array.from({ length: after.length }, (_, i) => after.label(i));
    assert.deepEqual(labels, [...labels].sort((a, b) => a - b));
    assert.equal(after.length, 200 + 1 + 199);
    assert.equal(after.weight(labels.indexOf(50)), Math.fround(0.9), 'the live entry of the updated label');
  });
});

describe('sparseSearchHead', () => {
  it('rejects bad arguments with a TypeError and a list out of the order it claims with an Error', () => {
    const addon = nativeAddon;
    assert.ok(addon, `addon not loaded: ${nativeAddonError}`);
    const entries = Uint32Array.of(0, 0, 0, 1, 0, 0);
    new Float32Array(entries.buffer)[2] = 0.5;
    new Float32Array(entries.buffer)[5] = 0.25;
    const meta = Float64Array.of(2, 0, 0.5, 0.25, 0, 0, 0, 0);
    const dims = Uint32Array.of(7, 9);
    const weights = Float32Array.of(1, 1);
    const state = (): [Uint32Array, Uint32Array, Float32Array, Uint32Array, Uint32Array] => [new Uint32Array(2), Uint32Array.of(7, 9, 7), Float32Array.of(0.5, 1, 0.25), Uint32Array.of(0, 2), Uint32Array.of(2, 1)];
    // Dimension 9 through a column (label 0, weight 1: code 255 at step 1/255), 7 through its list.
    const column = new Uint8Array(32);
    column[0] = 255;
    const steps = Float64Array.of(0, 1 / 255);
    const call = (over: Partial<Record<'lists' | 'columns' | 'steps' | 'sorted' | 'labelEnd' | 'k', unknown>> = {}): Uint32Array =>
      (addon.sparseSearchHead as unknown as (...a: unknown[]) => Uint32Array)(
        over.lists ?? [entries, null],
        meta,
        dims,
        weights,
        state(),
        over.k ?? 1,
        over.columns ?? [null, column],
        over.steps ?? steps,
        over.sorted ?? Uint32Array.of(2, 0),
        over.labelEnd ?? 2,
      );
    assert.deepEqual([...call()], [0], 'label 0 scores 1.5, label 1 0.25');
    assert.deepEqual([...call({ k: 2 })].sort(), [0, 1]);
    assert.deepEqual([...call({ sorted: Uint32Array.of(0, 0) })], [0], 'the list added apart (not sorted)');
    const bad: [string, () => unknown][] = [
      ['k 0', () => call({ k: 0 })],
      ['labelEnd past the generation table', () => call({ labelEnd: 3 })],
      ['columns not an array', () => call({ columns: column })],
      ['columns of the wrong length', () => call({ columns: [column] })],
      ['a column shorter than labelEnd rounded up to 32', () => call({ columns: [null, new Uint8Array(16)] })],
      ['a column of another type', () => call({ columns: [null, new Uint16Array(32)] })],
      ['a column with step 0', () => call({ steps: Float64Array.of(0, 0) })],
      ['steps of the wrong length', () => call({ steps: Float64Array.of(1) })],
      ['sorted of the wrong type', () => call({ sorted: Float64Array.of(2, 0) })],
    ];
    for (const [what, f] of bad) assert.throws(f, TypeError, what);
    // The same through sparseSearchMany: a query with head arguments, and one without.
    const headQuery = [[entries, null], meta, dims, weights, [null, column], steps, Uint32Array.of(2, 0), 2] as const;
    const many = addon.sparseSearchMany as unknown as (...a: unknown[]) => Uint32Array[];
    assert.deepEqual(many([headQuery, [[entries, null], meta, dims, weights]], state(), [null, null], Uint32Array.of(1, 2), 1, 1, 2).map((l) => [...l].sort()), [[0], [0, 1]]);
    assert.throws(() => many([headQuery], state(), [Uint32Array.of(3)], Uint32Array.of(1), 1, 1, 1), TypeError, 'head arguments with an allow');
    assert.throws(() => many([headQuery.slice(0, 6)], state(), [null], Uint32Array.of(1), 1, 1, 1), TypeError, 'six parts');
    // Within a block the walk adds in any order; a label behind the block it has reached
    // (a "sorted" list that goes back across a block) is an Error, not a wrong answer.
    const back = Uint32Array.of(5000, 0, 0, 10, 0, 0);
    new Float32Array(back.buffer)[2] = 0.25;
    new Float32Array(back.buffer)[5] = 0.5;
    const wide = (): ReturnType<typeof state> => {
      const start = new Uint32Array(5001);
      const len = new Uint32Array(5001);
      len[10] = 1;
      start[5000] = 1;
      len[5000] = 1;
      return [new Uint32Array(5001), Uint32Array.of(7, 7), Float32Array.of(0.5, 0.25), start, len];
    };
    const search = addon.sparseSearchHead as unknown as (...a: unknown[]) => Uint32Array;
    assert.throws(() => search([back, null], meta, dims, weights, wide(), 1, [null, null], steps, Uint32Array.of(2, 0), 5001), (err: Error) => !(err instanceof TypeError) && /outside/.test(err.message));
    assert.deepEqual([...search([back, null], meta, dims, weights, wide(), 1, [null, null], steps, Uint32Array.of(0, 0), 5001)], [10], 'the same list added apart');
    // A label past labelEnd in the part added apart, after one it added (label 1, 100):
    // an Error, and the next search does not see that sum.
    const far = Uint32Array.of(1, 0, 0, 5, 0, 0);
    new Float32Array(far.buffer)[2] = 100;
    assert.throws(() => call({ lists: [far, null], sorted: Uint32Array.of(0, 0) }), /outside/);
    assert.deepEqual([...call()], [0], 'after a failed search');
    assert.deepEqual([...call({ k: 2 })].sort(), [0, 1], 'after a failed search');
  });
});

// The child run (below) sets CONIFER_SPARSE_AVX2 itself: it runs every test above, not this one.
if (process.env.CONIFER_SPARSE_AVX2 !== '0') {
  describe('Sparse search through head columns without AVX2', () => {
    it('passes every test of this file with the plain kernels (CONIFER_SPARSE_AVX2=0)', () => {
      // Without NODE_TEST_CONTEXT, which the runner sets and which would make the child
      // report to it instead of printing.
      const env: NodeJS.ProcessEnv = { ...process.env, CONIFER_SPARSE_AVX2: '0' };
      delete env.NODE_TEST_CONTEXT;
      const child = spawnSync(process.execPath, ['--test', '--test-reporter=tap', fileURLToPath(import.meta.url)], { encoding: 'utf8', env });
      assert.equal(child.status, 0, child.stdout + child.stderr);
      assert.match(child.stdout, /# pass 8\n/, 'the child ran every test of this file but this one');
      assert.match(child.stdout, /# fail 0\n/);
    });
  });
}
