// Exact search (VectorSet, TopK, EngineIndex) against a brute-force reference computed
// here in float64 over the float32-rounded inputs (DESIGN.md decision 7: cosine and dot
// product higher first, euclidean = squared distance lower first, ties by id ascending).
// Also VectorSet.remove's swap-with-last bookkeeping and EngineIndex's seq idempotency
// (a snapshot may already hold changes that are then replayed as messages).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { VectorSet, type Hit } from '../../src/engine/vector-set.js';
import { EngineIndex } from '../../src/engine/engine-index.js';
import { parseFilterNode, type Metadata } from '../../src/engine/filter.js';
import type { Metric } from '../../src/engine/model.js';
import type { SparseValues, StoredRecord } from '../../src/engine/model.js';
import { prng, shuffle } from '../helpers/prng.js';

// ---- seeded data ---------------------------------------------------------------------


const DIM = 8;
const TAGS = ['red', 'green', 'blue', 'amber'];
const LIST_TAGS = ['x', 'y', 'z', 'w'];

function randomDense(rand: () => number, dim = DIM): Float32Array {
  const v = new Float32Array(dim);
  for (;;) {
    let nonZero = false;
    for (let i = 0; i < dim; i++) {
      v[i] = rand() * 2 - 1;
      if (v[i] !== 0) nonZero = true;
    }
    if (nonZero) return v;
  }
}

/** Distinct indices in random (unsorted) order, some of them large uint32 values. */
function randomSparse(rand: () => number, maxEntries: number, space: number): SparseValues {
  const n = 1 + Math.floor(rand() * maxEntries);
  const chosen = new Set<number>();
  while (chosen.size < n) {
    // Mostly a small space (so records overlap), sometimes a huge index.
    chosen.add(rand() < 0.1 ? 4294967295 - Math.floor(rand() * 3) : Math.floor(rand() * space));
  }
  const indices = Uint32Array.from(chosen);
  const values = new Float32Array(indices.length);
  for (let i = 0; i < values.length; i++) values[i] = rand() * 2 - 1;
  return { indices, values };
}

function randomMetadata(rand: () => number): Metadata | undefined {
  if (rand() < 0.1) return undefined; // records without metadata
  const m: Metadata = { bucket: Math.floor(rand() * 10), tag: TAGS[Math.floor(rand() * TAGS.length)] };
  if (rand() < 0.8) m.tags = LIST_TAGS.filter(() => rand() < 0.4);
  return m;
}

// ---- the reference ---------------------------------------------------------------------

interface RefHit {
  id: string;
  score: number;
}

interface RefQuery {
  dense?: Float32Array;
  sparse?: SparseValues;
}

/** Float64 arithmetic over float32 inputs (typed arrays hold float32-rounded values). */
function refScore(metric: Metric, q: RefQuery, r: StoredRecord, dim: number): number {
  let score = 0;
  if (q.dense) {
    const v = r.values ?? new Float32Array(dim);
    if (metric === 'euclidean') {
      for (let i = 0; i < dim; i++) score += (q.dense[i] - v[i]) ** 2;
    } else {
      let dot = 0;
      let qq = 0;
      let vv = 0;
      for (let i = 0; i < dim; i++) {
        dot += q.dense[i] * v[i];
        qq += q.dense[i] * q.dense[i];
        vv += v[i] * v[i];
      }
      score = metric === 'cosine' ? dot / (Math.sqrt(qq) * Math.sqrt(vv)) : dot;
    }
  }
  if (q.sparse && r.sparse) {
    const qm = new Map<number, number>();
    for (let i = 0; i < q.sparse.indices.length; i++) qm.set(q.sparse.indices[i], q.sparse.values[i]);
    // Sum in ascending index order, as a scan over sorted postings would.
    const order = Array.from(r.sparse.indices.keys()).sort((a, b) => r.sparse!.indices[a] - r.sparse!.indices[b]);
    for (const i of order) score += (qm.get(r.sparse.indices[i]) ?? 0) * r.sparse.values[i];
  }
  return score;
}

function refSearch(
  metric: Metric,
  dim: number,
  records: Iterable<StoredRecord>,
  q: RefQuery,
  topK: number,
  keep: (m: Metadata | undefined) => boolean = () => true,
): RefHit[] {
  const hits: RefHit[] = [];
  for (const r of records) {
    // A sparse-only query matches only records sharing at least one index with it.
    const shares = q.sparse !== undefined && r.sparse !== undefined && Array.from(r.sparse.indices).some((i) => q.sparse!.indices.includes(i));
    if (!q.dense && !shares) continue;
    if (keep(r.metadata)) hits.push({ id: r.id, score: refScore(metric, q, r, dim) });
  }
  const lowerFirst = metric === 'euclidean';
  // Ranked on the float32 score (what the wire shows); random data has no near-ties, so
  // this equals float64 ranking here, and it stays right if the engine ranks on float32.
  hits.sort((a, b) => {
    const sa = Math.fround(a.score);
    const sb = Math.fround(b.score);
    if (sa !== sb) return lowerFirst ? sa - sb : sb - sa;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  return hits.slice(0, topK);
}

// 1e-6, or two float32 ulps for large scores (should the engine score in float32).
const close = (got: number, want: number): boolean => Math.abs(got - want) <= Math.max(1e-6, Math.abs(want) * 2 ** -22);

function assertHits(got: Array<{ id: string; score: number }>, want: RefHit[], label: string): void {
  const show = (hs: Array<{ id: string; score: number }>): string =>
    hs.slice(0, 12).map((h) => `${h.id}:${h.score}`).join(', ') + (hs.length > 12 ? ', …' : '');
  assert.equal(got.length, want.length, `${label}: ${got.length} hits, expected ${want.length}\n got  ${show(got)}\n want ${show(want)}`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(
      got[i].id === want[i].id && close(got[i].score, want[i].score),
      `${label}: hit ${i} is ${got[i].id}:${got[i].score}, expected ${want[i].id}:${want[i].score}\n got  ${show(got)}\n want ${show(want)}`,
    );
  }
}

// Filters paired with a predicate written independently of the filter module.
const has = (m: Metadata | undefined, k: string): boolean => m !== undefined && Object.hasOwn(m, k);
const FILTERS: Array<{ raw: object; keep: (m: Metadata | undefined) => boolean }> = [
  { raw: { bucket: { $lt: 5 } }, keep: (m) => has(m, 'bucket') && (m!.bucket as number) < 5 },
  { raw: { tag: { $in: ['red', 'blue'] } }, keep: (m) => has(m, 'tag') && ['red', 'blue'].includes(m!.tag as string) },
  {
    raw: { $or: [{ bucket: { $gte: 8 } }, { tags: 'x' }] },
    keep: (m) =>
      (has(m, 'bucket') && (m!.bucket as number) >= 8) || (has(m, 'tags') && (m!.tags as string[]).includes('x')),
  },
  // $ne matches records without the field (documented in filter.ts).
  { raw: { tag: { $ne: 'red' } }, keep: (m) => !has(m, 'tag') || m!.tag !== 'red' },
  { raw: { tag: 'green', bucket: { $gte: 2, $lte: 7 } }, keep: (m) => has(m, 'tag') && m!.tag === 'green' && (m!.bucket as number) >= 2 && (m!.bucket as number) <= 7 },
  { raw: { tags: { $exists: false } }, keep: (m) => !has(m, 'tags') },
  { raw: { bucket: { $in: [1, 3, 5] } }, keep: (m) => has(m, 'bucket') && [1, 3, 5].includes(m!.bucket as number) },
  { raw: { bucket: 99 }, keep: () => false }, // matches nothing
];

interface Fixture {
  set: VectorSet;
  records: Map<string, StoredRecord>;
}

/** A dense VectorSet of `n` random records plus a group of exact duplicates (ties). */
function denseFixture(metric: Metric, seed: number, n: number, dupVector?: Float32Array): Fixture {
  const rand = prng(seed);
  const set = new VectorSet(DIM, metric);
  const records = new Map<string, StoredRecord>();
  const input: StoredRecord[] = [];
  for (let i = 0; i < n; i++) input.push({ id: `r${i}`, values: randomDense(rand), metadata: randomMetadata(rand) });
  // Five identical vectors under ids that sort differently from their insertion order.
  const dup = dupVector ?? randomDense(rand);
  for (const id of ['dup-3', 'dup-0', 'dup-4', 'dup-1', 'dup-2']) {
    input.push({ id, values: Float32Array.from(dup), metadata: { bucket: 1, tag: 'red', tags: ['x'] } });
  }
  let seq = 0;
  for (const r of shuffle(rand, input)) {
    set.upsert(++seq, r);
    records.set(r.id, r);
  }
  return { set, records };
}

const toSorted = (hits: Hit[]): RefHit[] => hits.map((h) => ({ id: h.id, score: h.score }));

// ---- VectorSet: dense metrics ---------------------------------------------------------------

for (const [metric, seed] of [['cosine', 11], ['dotproduct', 22], ['euclidean', 33]] as const) {
  describe(`VectorSet exact search, ${metric}`, () => {
    const fx = denseFixture(metric, seed, 200);
    const rand = prng(seed * 7 + 1);
    const dup = fx.records.get('dup-0')!.values!;

    it('equals brute force for random queries and several topK, with and without filters', () => {
      assert.equal(fx.set.size, 205);
      for (let qi = 0; qi < 25; qi++) {
        const dense = randomDense(rand);
        for (const topK of [1, 7, 50, 205, 1000]) {
          assertHits(
            toSorted(fx.set.search({ dense, topK })),
            refSearch(metric, DIM, fx.records.values(), { dense }, topK),
            `${metric} q${qi} topK=${topK}`,
          );
        }
        for (const [fi, f] of FILTERS.entries()) {
          const topK = 1 + Math.floor(rand() * 40);
          assertHits(
            toSorted(fx.set.search({ dense, topK, filter: parseFilterNode(f.raw) })),
            refSearch(metric, DIM, fx.records.values(), { dense }, topK, f.keep),
            `${metric} q${qi} filter ${fi} ${JSON.stringify(f.raw)} topK=${topK}`,
          );
        }
      }
    });

    it('orders exact ties by id ascending, also when topK cuts through the tie group', () => {
      for (const topK of [1, 2, 3, 5, 6]) {
        const hits = toSorted(fx.set.search({ dense: dup, topK }));
        assertHits(hits, refSearch(metric, DIM, fx.records.values(), { dense: dup }, topK), `${metric} tie topK=${topK}`);
        const dupIds = hits.map((h) => h.id).filter((id) => id.startsWith('dup-'));
        assert.deepEqual(dupIds, ['dup-0', 'dup-1', 'dup-2', 'dup-3', 'dup-4'].slice(0, Math.min(topK, 5)));
      }
      // Ties below the top: a query far from the duplicates still lists them in id order.
      const far = Float32Array.from(dup, (x) => -x);
      const all = toSorted(fx.set.search({ dense: far, topK: 1000 }));
      const dupPositions = all.map((h, i) => [h.id, i] as const).filter(([id]) => id.startsWith('dup-'));
      assert.deepEqual(dupPositions.map(([id]) => id), ['dup-0', 'dup-1', 'dup-2', 'dup-3', 'dup-4']);
      const first = dupPositions[0][1];
      assert.deepEqual(dupPositions.map(([, i]) => i), [first, first + 1, first + 2, first + 3, first + 4]);
    });

    it('a filter that matches fewer than topK returns all matches, in order', () => {
      const keep = (m: Metadata | undefined): boolean => has(m, 'tag') && m!.tag === 'amber' && (m!.bucket as number) === 4;
      const dense = randomDense(rand);
      const want = refSearch(metric, DIM, fx.records.values(), { dense }, 10_000, keep);
      assert.ok(want.length > 0 && want.length < 50, `fixture should have a few matches, has ${want.length}`);
      assertHits(
        toSorted(fx.set.search({ dense, topK: 10_000, filter: parseFilterNode({ tag: 'amber', bucket: 4 }) })),
        want,
        `${metric} selective filter`,
      );
    });
  });
}

describe('VectorSet exact search, dot product ties everywhere', () => {
  it('a zero query scores every record 0 and returns them by id ascending', () => {
    const fx = denseFixture('dotproduct', 44, 120);
    const zero = new Float32Array(DIM);
    const hits = toSorted(fx.set.search({ dense: zero, topK: 30 }));
    const ids = [...fx.records.keys()].sort();
    assert.deepEqual(hits.map((h) => h.id), ids.slice(0, 30));
    for (const h of hits) assert.equal(h.score, 0);
  });

  it('euclidean: a query equal to a record gives distance 0 first', () => {
    const fx = denseFixture('euclidean', 45, 50);
    const target = fx.records.get('r17')!.values!;
    const hits = toSorted(fx.set.search({ dense: target, topK: 3 }));
    assert.equal(hits[0].id, 'r17');
    assert.equal(hits[0].score, 0);
    assert.ok(hits[1].score > 0);
  });
});

// ---- VectorSet: sparse and hybrid -----------------------------------------------------------

describe('VectorSet exact search, sparse-only (dimension 0, dotproduct)', () => {
  const rand = prng(55);
  const set = new VectorSet(0, 'dotproduct');
  const records = new Map<string, StoredRecord>();
  const input: StoredRecord[] = [];
  for (let i = 0; i < 150; i++) input.push({ id: `s${i}`, sparse: randomSparse(rand, 12, 50), metadata: randomMetadata(rand) });
  const twin = randomSparse(rand, 6, 50);
  for (const id of ['tw-b', 'tw-a', 'tw-c']) {
    input.push({ id, sparse: { indices: Uint32Array.from(twin.indices), values: Float32Array.from(twin.values) } });
  }
  let seq = 0;
  for (const r of shuffle(rand, input)) {
    set.upsert(++seq, r);
    records.set(r.id, r);
  }

  it('equals brute force, with and without filters (only records sharing an index match)', () => {
    for (let qi = 0; qi < 25; qi++) {
      const sparse = randomSparse(rand, 8, 50);
      for (const topK of [1, 10, 153, 500]) {
        assertHits(toSorted(set.search({ sparse, topK })), refSearch('dotproduct', 0, records.values(), { sparse }, topK), `sparse q${qi} topK=${topK}`);
      }
      for (const [fi, f] of FILTERS.entries()) {
        const topK = 1 + Math.floor(rand() * 30);
        assertHits(
          toSorted(set.search({ sparse, topK, filter: parseFilterNode(f.raw) })),
          refSearch('dotproduct', 0, records.values(), { sparse }, topK, f.keep),
          `sparse q${qi} filter ${fi} topK=${topK}`,
        );
      }
    }
  });

  it('identical sparse records tie and are ordered by id', () => {
    const hits = toSorted(set.search({ sparse: twin, topK: 500 }));
    assertHits(hits, refSearch('dotproduct', 0, records.values(), { sparse: twin }, 500), 'sparse twins');
    const tw = hits.filter((h) => h.id.startsWith('tw-'));
    assert.deepEqual(tw.map((h) => h.id), ['tw-a', 'tw-b', 'tw-c']);
  });

  it('returns the stored sparse values (sorted by index) for a hit', () => {
    const [hit] = set.search({ sparse: twin, topK: 1 });
    const r = set.record(hit.slot);
    const original = records.get(r.id)!.sparse!;
    const pairs = Array.from(original.indices, (ix, i) => [ix, original.values[i]] as const).sort((a, b) => a[0] - b[0]);
    assert.deepEqual(Array.from(r.sparse!.indices), pairs.map((p) => p[0]));
    assert.deepEqual(Array.from(r.sparse!.values), pairs.map((p) => p[1]));
  });
});

describe('VectorSet exact search, hybrid (dense dot + sparse dot)', () => {
  const rand = prng(66);
  const set = new VectorSet(DIM, 'dotproduct');
  const records = new Map<string, StoredRecord>();
  for (let i = 0; i < 180; i++) {
    const r: StoredRecord = { id: `h${i}`, values: randomDense(rand), metadata: randomMetadata(rand) };
    if (rand() < 0.7) r.sparse = randomSparse(rand, 10, 40); // some records carry no sparse part
    set.upsert(i + 1, r);
    records.set(r.id, r);
  }

  it('equals brute force for dense+sparse queries, with and without filters', () => {
    for (let qi = 0; qi < 25; qi++) {
      const q = { dense: randomDense(rand), sparse: randomSparse(rand, 8, 40) };
      for (const topK of [1, 10, 180, 400]) {
        assertHits(toSorted(set.search({ ...q, topK })), refSearch('dotproduct', DIM, records.values(), q, topK), `hybrid q${qi} topK=${topK}`);
      }
      for (const [fi, f] of FILTERS.entries()) {
        const topK = 1 + Math.floor(rand() * 30);
        assertHits(
          toSorted(set.search({ ...q, topK, filter: parseFilterNode(f.raw) })),
          refSearch('dotproduct', DIM, records.values(), q, topK, f.keep),
          `hybrid q${qi} filter ${fi} topK=${topK}`,
        );
      }
    }
  });

  it('the sparse part changes the ranking (it is really added)', () => {
    const dense = new Float32Array(DIM); // dense part 0 for every record
    const target = [...records.values()].find((r) => r.sparse)!;
    const sparse = { indices: Uint32Array.from(target.sparse!.indices), values: Float32Array.from(target.sparse!.values, (v) => v * 100) };
    const want = refSearch('dotproduct', DIM, records.values(), { dense, sparse }, 5);
    assertHits(toSorted(set.search({ dense, sparse, topK: 5 })), want, 'hybrid sparse-dominated');
    assert.ok(want[0].score > 0);
  });
});

// ---- VectorSet: remove, replace ------------------------------------------------------------

describe('VectorSet.remove (swap with last) and replace', () => {
  it('keeps search, values and seqs right after removing the middle, first and last slots', () => {
    const rand = prng(77);
    const set = new VectorSet(DIM, 'cosine');
    const live = new Map<string, StoredRecord>();
    const seqs = new Map<string, number>();
    const order: string[] = [];
    for (let i = 0; i < 21; i++) {
      const r: StoredRecord = { id: `m${String(i).padStart(2, '0')}`, values: randomDense(rand), metadata: { bucket: i % 10, tag: TAGS[i % 4] } };
      set.upsert(100 + i, r);
      live.set(r.id, r);
      seqs.set(r.id, 100 + i);
      order.push(r.id);
    }
    const check = (label: string): void => {
      assert.equal(set.size, live.size, `${label}: size`);
      const dense = randomDense(rand);
      const hits = set.search({ dense, topK: 100 });
      assertHits(toSorted(hits), refSearch('cosine', DIM, live.values(), { dense }, 100), label);
      for (const h of hits) {
        const rec = set.record(h.slot);
        assert.equal(rec.id, h.id, `${label}: record(slot) id`);
        assert.deepEqual(Array.from(rec.values!), Array.from(live.get(h.id)!.values!), `${label}: values of ${h.id}`);
        assert.equal(set.seqOf(h.id), seqs.get(h.id), `${label}: seq of ${h.id}`);
      }
      assertHits(
        toSorted(set.search({ dense, topK: 100, filter: parseFilterNode({ bucket: { $lt: 5 } }) })),
        refSearch('cosine', DIM, live.values(), { dense }, 100, FILTERS[0].keep),
        `${label} filtered`,
      );
    };
    const remove = (id: string): void => {
      set.remove(id);
      live.delete(id);
      seqs.delete(id);
      assert.equal(set.seqOf(id), undefined, `${id} still has a seq after remove`);
    };
    remove(order[10]); // middle: the last record moves into its slot
    check('after removing the middle');
    remove(order[0]); // first
    check('after removing the first');
    remove(order[20]); // m20 moved into slot 10 when m10 went; remove it from there
    check('after removing m20');
    const lastId = set.record(set.size - 1).id;
    remove(lastId); // the last slot: nothing moves
    check('after removing the last slot');
    set.remove('never-there');
    check('after removing an unknown id');

    // Re-adding a removed id reuses a slot at the end; replacing an id rewrites its norm.
    const back: StoredRecord = { id: order[10], values: randomDense(rand), metadata: { bucket: 3, tag: 'red' } };
    set.upsert(500, back);
    live.set(back.id, back);
    seqs.set(back.id, 500);
    check('after re-adding a removed id');
    const replaced: StoredRecord = { id: order[5], values: Float32Array.from(live.get(order[5])!.values!, (v) => v * -3.5) };
    set.upsert(501, replaced);
    live.set(replaced.id, replaced);
    seqs.set(replaced.id, 501);
    check('after replacing a record (new norm, metadata dropped)');

    // Remove everything in random order, checking each step.
    for (const id of shuffle(rand, [...live.keys()])) {
      remove(id);
      if (live.size > 0) check(`after removing ${id}`);
    }
    assert.equal(set.size, 0);
    assert.deepEqual(set.search({ dense: randomDense(rand), topK: 10 }), []);
  });

  it('removeOlderThan removes exactly the records changed before the seq', () => {
    const rand = prng(78);
    const set = new VectorSet(DIM, 'euclidean');
    const all = new Map<string, StoredRecord>();
    const seqOf = new Map<string, number>();
    for (let i = 0; i < 90; i++) {
      const r: StoredRecord = { id: `o${i}`, values: randomDense(rand) };
      const seq = 1 + Math.floor(rand() * 1000);
      set.upsert(seq, r);
      all.set(r.id, r);
      seqOf.set(r.id, seq);
    }
    set.removeOlderThan(500);
    const kept = [...all.values()].filter((r) => seqOf.get(r.id)! >= 500);
    assert.equal(set.size, kept.length);
    const dense = randomDense(rand);
    assertHits(toSorted(set.search({ dense, topK: 1000 })), refSearch('euclidean', DIM, kept, { dense }, 1000), 'after removeOlderThan');
  });

  it('grows past its initial capacity without corrupting earlier slots', () => {
    const rand = prng(79);
    const set = new VectorSet(3, 'dotproduct');
    const recs: StoredRecord[] = [];
    for (let i = 0; i < 300; i++) {
      const r = { id: `g${i}`, values: randomDense(rand, 3) };
      recs.push(r);
      set.upsert(i + 1, r);
    }
    const dense = randomDense(rand, 3);
    assertHits(toSorted(set.search({ dense, topK: 300 })), refSearch('dotproduct', 3, recs, { dense }, 300), 'after growth');
  });
});

// ---- EngineIndex ----------------------------------------------------------------------------

describe('EngineIndex', () => {
  const v = (...xs: number[]): Float32Array => Float32Array.from(xs);
  const rec = (id: string, values: Float32Array, metadata?: Metadata): StoredRecord => (metadata ? { id, values, metadata } : { id, values });
  const ids = (engine: EngineIndex, ns: string, dense = v(1, 0, 0, 0), topK = 100): string[] =>
    engine.query({ namespace: ns, topK, dense, includeValues: false, includeMetadata: false }).map((m) => m.id);
  const valuesOf = (engine: EngineIndex, ns: string, id: string): number[] | undefined => {
    const m = engine
      .query({ namespace: ns, topK: 1000, dense: v(1, 0, 0, 0), includeValues: true, includeMetadata: false })
      .find((x) => x.id === id);
    return m?.record?.values ? Array.from(m.record.values) : undefined;
  };

  it('ignores an upsert older than (or as old as) the seq it holds, applies a newer one', () => {
    const engine = new EngineIndex({ dimension: 4, metric: 'dotproduct' });
    engine.apply({ kind: 'upsert', ns: '', seq: 5, record: rec('a', v(1, 1, 1, 1)) });
    engine.apply({ kind: 'upsert', ns: '', seq: 3, record: rec('a', v(2, 2, 2, 2)) });
    assert.deepEqual(valuesOf(engine, '', 'a'), [1, 1, 1, 1], 'older upsert applied');
    engine.apply({ kind: 'upsert', ns: '', seq: 5, record: rec('a', v(3, 3, 3, 3)) });
    assert.deepEqual(valuesOf(engine, '', 'a'), [1, 1, 1, 1], 'same-seq replay applied');
    engine.apply({ kind: 'upsert', ns: '', seq: 9, record: rec('a', v(4, 4, 4, 4)) });
    assert.deepEqual(valuesOf(engine, '', 'a'), [4, 4, 4, 4], 'newer upsert not applied');
  });

  it('ignores a delete older than the record it holds, applies a newer one', () => {
    const engine = new EngineIndex({ dimension: 4, metric: 'cosine' });
    engine.load('ns', 10, rec('a', v(1, 0, 0, 0)));
    engine.load('ns', 11, rec('b', v(0, 1, 0, 0)));
    engine.apply({ kind: 'delete', ns: 'ns', seq: 7, id: 'a' }); // a delete replayed from before the snapshot
    assert.deepEqual(ids(engine, 'ns'), ['a', 'b']);
    engine.apply({ kind: 'delete', ns: 'ns', seq: 12, id: 'a' });
    assert.deepEqual(ids(engine, 'ns'), ['b']);
    engine.apply({ kind: 'delete', ns: 'ns', seq: 13, id: 'zzz' }); // unknown id: no-op
    engine.apply({ kind: 'delete', ns: 'other', seq: 14, id: 'b' }); // unknown namespace: no-op
    assert.deepEqual(ids(engine, 'ns'), ['b']);
    engine.apply({ kind: 'delete', ns: 'ns', seq: 15, id: 'b' });
    assert.deepEqual(ids(engine, 'ns'), []);
  });

  it('replaying a write stream over a snapshot that already holds it gives the same state', () => {
    // Stream: upsert a@1, b@2, c@3, delete a@4, upsert b@5 (new values), upsert a@6, delete c@7.
    const stream = [
      { kind: 'upsert', ns: '', seq: 1, record: rec('a', v(1, 0, 0, 0)) },
      { kind: 'upsert', ns: '', seq: 2, record: rec('b', v(0, 1, 0, 0)) },
      { kind: 'upsert', ns: '', seq: 3, record: rec('c', v(0, 0, 1, 0)) },
      { kind: 'delete', ns: '', seq: 4, id: 'a' },
      { kind: 'upsert', ns: '', seq: 5, record: rec('b', v(0, 2, 0, 0)) },
      { kind: 'upsert', ns: '', seq: 6, record: rec('a', v(0, 0, 0, 3)) },
      { kind: 'delete', ns: '', seq: 7, id: 'c' },
    ] as const;
    const direct = new EngineIndex({ dimension: 4, metric: 'dotproduct' });
    for (const c of stream) direct.apply(c);
    // The snapshot taken at the end (a@6, b@5), then the whole stream replayed on top.
    const replayed = new EngineIndex({ dimension: 4, metric: 'dotproduct' });
    replayed.load('', 6, rec('a', v(0, 0, 0, 3)));
    replayed.load('', 5, rec('b', v(0, 2, 0, 0)));
    for (const c of stream) replayed.apply(c);
    for (const engine of [direct, replayed]) {
      assert.deepEqual(ids(engine, '', v(1, 1, 1, 1)), ['a', 'b']);
      assert.deepEqual(valuesOf(engine, '', 'a'), [0, 0, 0, 3]);
      assert.deepEqual(valuesOf(engine, '', 'b'), [0, 2, 0, 0]);
    }
  });

  it('a namespace drop removes only records older than the drop, in that namespace only', () => {
    const engine = new EngineIndex({ dimension: 4, metric: 'euclidean' });
    engine.apply({ kind: 'upsert', ns: 'x', seq: 1, record: rec('a', v(1, 0, 0, 0)) });
    engine.apply({ kind: 'upsert', ns: 'x', seq: 2, record: rec('b', v(0, 1, 0, 0)) });
    engine.apply({ kind: 'upsert', ns: 'y', seq: 3, record: rec('a', v(0, 0, 1, 0)) });
    engine.apply({ kind: 'upsert', ns: 'x', seq: 6, record: rec('c', v(0, 0, 0, 1)) }); // newer than the drop (snapshot)
    engine.apply({ kind: 'drop-namespace', ns: 'x', seq: 4 });
    assert.deepEqual(ids(engine, 'x'), ['c']);
    assert.deepEqual(ids(engine, 'y'), ['a']);
    // A replayed pre-drop upsert of an id the new incarnation holds is ignored.
    engine.apply({ kind: 'upsert', ns: 'x', seq: 2, record: rec('c', v(9, 9, 9, 9)) });
    assert.deepEqual(valuesOf(engine, 'x', 'c'), [0, 0, 0, 1]);
    engine.apply({ kind: 'drop-namespace', ns: 'x', seq: 7 });
    assert.deepEqual(ids(engine, 'x'), []);
    assert.deepEqual(engine.count(parseFilterNode({})), [['y', 1]]);
    engine.apply({ kind: 'drop-namespace', ns: 'never', seq: 8 }); // no-op
    assert.deepEqual(ids(engine, 'y'), ['a']);
    // The namespace can be written again after the drop.
    engine.apply({ kind: 'upsert', ns: 'x', seq: 9, record: rec('d', v(1, 1, 0, 0)) });
    assert.deepEqual(ids(engine, 'x'), ['d']);
  });

  it('query equals brute force through filters; includeValues returns values, includeMetadata the metadata as written', () => {
    const rand = prng(88);
    const engine = new EngineIndex({ dimension: DIM, metric: 'cosine' });
    const records = new Map<string, StoredRecord>();
    for (let i = 0; i < 120; i++) {
      const r: StoredRecord = { id: `e${i}`, values: randomDense(rand) };
      const m = randomMetadata(rand);
      if (m) r.metadata = m;
      engine.apply({ kind: 'upsert', ns: 'n1', seq: i + 1, record: r });
      records.set(r.id, r);
    }
    for (let qi = 0; qi < 10; qi++) {
      const dense = randomDense(rand);
      for (const f of FILTERS) {
        const topK = 1 + Math.floor(rand() * 60);
        const got = engine.query({ namespace: 'n1', topK, dense, filter: parseFilterNode(f.raw), includeValues: true, includeMetadata: true });
        assertHits(got, refSearch('cosine', DIM, records.values(), { dense }, topK, f.keep), `engine q${qi} ${JSON.stringify(f.raw)}`);
        for (const m of got) {
          const want = records.get(m.id)!;
          assert.deepEqual(Array.from(m.record!.values!), Array.from(want.values!));
          // Rebuilt from the filter columns (no field subset declared: every field has one),
          // and sent as its JSON text.
          assert.deepEqual(m.metadataJson === undefined ? undefined : JSON.parse(m.metadataJson), want.metadata);
          assert.equal(m.metadataInStore, undefined);
        }
      }
    }
    const bare = engine.query({ namespace: 'n1', topK: 3, dense: randomDense(rand), includeValues: false, includeMetadata: false });
    for (const m of bare) assert.equal(m.record, undefined);
    assert.deepEqual(engine.query({ namespace: 'none', topK: 3, dense: randomDense(rand), includeValues: false, includeMetadata: false }), []);
    const lt5 = [...records.values()].filter((r) => FILTERS[0].keep(r.metadata)).length;
    assert.deepEqual(engine.count(parseFilterNode({ bucket: { $lt: 5 } })), [['n1', lt5]]);
  });
});
