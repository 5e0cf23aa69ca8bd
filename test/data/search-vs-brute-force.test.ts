// Black-box: POST /query over HTTP equals a brute-force search computed in this test, for
// every metric, sparse and hybrid indexes, with and without filters (DESIGN.md decision 7:
// cosine and dot product higher first, euclidean = squared distance lower first, ties by
// id; scores within 1e-6). The server stores float32 (decision 8), so the reference runs
// in float64 over Math.fround'ed values.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, removeDir, type TestServer } from '../helpers/server.js';
import { prng, shuffle } from '../helpers/prng.js';

// ---- seeded data ---------------------------------------------------------------------


type Metric = 'cosine' | 'euclidean' | 'dotproduct';
type Meta = { bucket: number; tag: string; tags?: string[] };
interface Sparse {
  indices: number[];
  values: number[];
}
/** A record as sent (doubles); the reference rounds with Math.fround. */
interface Rec {
  id: string;
  values?: number[];
  sparseValues?: Sparse;
  metadata?: Meta;
}

const DIM = 8;
const TAGS = ['red', 'green', 'blue', 'amber'];
const LIST_TAGS = ['x', 'y', 'z', 'w'];

const dense = (rand: () => number): number[] => Array.from({ length: DIM }, () => rand() * 2 - 1);

function sparse(rand: () => number, maxEntries: number, space: number): Sparse {
  const n = 1 + Math.floor(rand() * maxEntries);
  const chosen = new Set<number>();
  while (chosen.size < n) chosen.add(rand() < 0.05 ? 4294967295 - Math.floor(rand() * 3) : Math.floor(rand() * space));
  const indices = [...chosen]; // unsorted on purpose
  return { indices, values: indices.map(() => rand() * 2 - 1) };
}

function meta(rand: () => number): Meta {
  const m: Meta = { bucket: Math.floor(rand() * 10), tag: TAGS[Math.floor(rand() * TAGS.length)] };
  if (rand() < 0.8) m.tags = LIST_TAGS.filter(() => rand() < 0.4);
  return m;
}

// ---- the reference ---------------------------------------------------------------------

interface Hit {
  id: string;
  score: number;
}

const f32 = (xs: number[]): number[] => xs.map((x) => Math.fround(x));

function score(metric: Metric, q: { vector?: number[]; sparseVector?: Sparse }, r: Rec): number {
  let s = 0;
  if (q.vector) {
    const qv = f32(q.vector);
    const v = r.values ? f32(r.values) : new Array<number>(DIM).fill(0);
    if (metric === 'euclidean') {
      for (let i = 0; i < DIM; i++) s += (qv[i] - v[i]) ** 2;
    } else {
      let dot = 0;
      let qq = 0;
      let vv = 0;
      for (let i = 0; i < DIM; i++) {
        dot += qv[i] * v[i];
        qq += qv[i] * qv[i];
        vv += v[i] * v[i];
      }
      s = metric === 'cosine' ? dot / (Math.sqrt(qq) * Math.sqrt(vv)) : dot;
    }
  }
  if (q.sparseVector && r.sparseValues) {
    const qm = new Map<number, number>();
    q.sparseVector.indices.forEach((ix, i) => qm.set(ix, Math.fround(q.sparseVector!.values[i])));
    const pairs = r.sparseValues.indices.map((ix, i) => [ix, Math.fround(r.sparseValues!.values[i])] as const);
    pairs.sort((a, b) => a[0] - b[0]);
    for (const [ix, v] of pairs) s += (qm.get(ix) ?? 0) * v;
  }
  return s;
}

function brute(
  metric: Metric,
  records: Iterable<Rec>,
  q: { vector?: number[]; sparseVector?: Sparse },
  topK: number,
  keep: (m: Meta | undefined) => boolean = () => true,
): Hit[] {
  const hits: Hit[] = [];
  for (const r of records) {
    // A sparse-only query matches only records sharing at least one index with it.
    const shares = q.sparseVector !== undefined && r.sparseValues !== undefined && r.sparseValues.indices.some((i) => q.sparseVector!.indices.includes(i));
    if (!q.vector && !shares) continue;
    if (keep(r.metadata)) hits.push({ id: r.id, score: score(metric, q, r) });
  }
  const lowerFirst = metric === 'euclidean';
  // Ranked on the float32 score a client sees, so equal printed scores are ties (by id).
  hits.sort((a, b) => {
    const sa = Math.fround(a.score);
    const sb = Math.fround(b.score);
    if (sa !== sb) return lowerFirst ? sa - sb : sb - sa;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  return hits.slice(0, topK);
}

// Scores travel as float32 (printed in shortest form), so a large score carries float32
// rounding: allow 1e-6 or two float32 ulps, whichever is larger.
const close = (got: number, want: number): boolean =>
  typeof got === 'number' && Math.abs(got - want) <= Math.max(1e-6, Math.abs(want) * 2 ** -22);

function assertHits(got: Hit[], want: Hit[], label: string): void {
  const show = (hs: Hit[]): string => hs.slice(0, 10).map((h) => `${h.id}:${h.score}`).join(', ') + (hs.length > 10 ? ', …' : '');
  assert.ok(Array.isArray(got), `${label}: matches is not an array`);
  assert.equal(got.length, want.length, `${label}: ${got.length} matches, expected ${want.length}\n got  ${show(got)}\n want ${show(want)}`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(
      got[i].id === want[i].id && close(got[i].score, want[i].score),
      `${label}: match ${i} is ${got[i].id}:${got[i].score}, expected ${want[i].id}:${want[i].score}\n got  ${show(got)}\n want ${show(want)}`,
    );
  }
}

// Filters with a reference predicate written independently of the server's filter code.
const has = (m: Meta | undefined, k: keyof Meta): boolean => m !== undefined && m[k] !== undefined;
const FILTERS: Array<{ filter: object; keep: (m: Meta | undefined) => boolean }> = [
  { filter: { bucket: { $lt: 5 } }, keep: (m) => has(m, 'bucket') && m!.bucket < 5 },
  { filter: { tag: { $in: ['red', 'amber'] } }, keep: (m) => has(m, 'tag') && ['red', 'amber'].includes(m!.tag) },
  { filter: { $or: [{ bucket: { $gte: 8 } }, { tags: 'x' }] }, keep: (m) => (has(m, 'bucket') && m!.bucket >= 8) || (has(m, 'tags') && m!.tags!.includes('x')) },
  { filter: { tag: 'blue', bucket: { $ne: 3 } }, keep: (m) => has(m, 'tag') && m!.tag === 'blue' && m!.bucket !== 3 },
  { filter: { $and: [{ bucket: { $gte: 2 } }, { bucket: { $lte: 6 } }, { tag: { $nin: ['green'] } }] }, keep: (m) => has(m, 'bucket') && m!.bucket >= 2 && m!.bucket <= 6 && m!.tag !== 'green' },
  { filter: { tags: { $in: ['y', 'z'] } }, keep: (m) => has(m, 'tags') && m!.tags!.some((t) => t === 'y' || t === 'z') },
  { filter: { tags: { $exists: false } }, keep: (m) => !has(m, 'tags') },
  { filter: { bucket: { $in: [1, 3, 5, 7] }, tag: { $eq: 'green' } }, keep: (m) => has(m, 'bucket') && [1, 3, 5, 7].includes(m!.bucket) && m!.tag === 'green' },
];

// ---- the server ------------------------------------------------------------------------

describe('exact search over HTTP equals brute force', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  async function createIndex(body: Record<string, unknown>): Promise<string> {
    const res = await api(server, 'POST', '/indexes', {
      body: { spec: { serverless: { cloud: 'aws', region: 'us-east-1' } }, ...body },
    });
    assert.equal(res.status, 201, `create ${JSON.stringify(body)}: ${res.status} ${res.text}`);
    assert.equal(typeof res.body.host, 'string');
    return res.body.host as string;
  }

  async function upsert(host: string, records: Rec[], namespace?: string): Promise<void> {
    for (let i = 0; i < records.length; i += 100) {
      const body: Record<string, unknown> = { vectors: records.slice(i, i + 100) };
      if (namespace !== undefined) body.namespace = namespace;
      const res = await api(server, 'POST', `${host}/vectors/upsert`, { body });
      assert.equal(res.status, 200, `upsert: ${res.status} ${res.text}`);
      assert.equal(res.body.upsertedCount, Math.min(100, records.length - i));
    }
  }

  async function query(host: string, body: Record<string, unknown>): Promise<Hit[]> {
    const res = await api(server, 'POST', `${host}/query`, { body });
    assert.equal(res.status, 200, `query ${JSON.stringify(body).slice(0, 300)}: ${res.status} ${res.text}`);
    return res.body.matches as Hit[];
  }

  /** 300 random records + 5 exact duplicates whose ids sort unlike their insertion order. */
  function denseRecords(rand: () => number, n = 300): Rec[] {
    const recs: Rec[] = [];
    for (let i = 0; i < n; i++) recs.push({ id: `v${i}`, values: dense(rand), metadata: meta(rand) });
    const dup = dense(rand);
    for (const id of ['dup-3', 'dup-0', 'dup-4', 'dup-1', 'dup-2']) recs.push({ id, values: [...dup], metadata: { bucket: 1, tag: 'red', tags: ['x'] } });
    return shuffle(rand, recs);
  }

  const cases: Array<[Metric, number, string | undefined]> = [
    ['cosine', 101, undefined], // default namespace, no namespace field
    ['euclidean', 202, 'ns-e'],
    ['dotproduct', 303, ''], // default namespace spelled ""
  ];

  for (const [metric, seed, namespace] of cases) {
    it(`${metric}: queries with and without filters, ties, topK beyond the set, query by id`, async () => {
      const rand = prng(seed);
      const host = await createIndex({ name: `bf-${metric}`, dimension: DIM, metric });
      const recs = denseRecords(rand);
      await upsert(host, recs, namespace);
      const ns = namespace === undefined ? {} : { namespace };

      for (let qi = 0; qi < 20; qi++) {
        const vector = dense(rand);
        const topK = [1, 5, 10, 33, 100][qi % 5];
        assertHits(await query(host, { vector, topK, ...ns }), brute(metric, recs, { vector }, topK), `${metric} q${qi} topK=${topK}`);
        const f = FILTERS[qi % FILTERS.length];
        assertHits(
          await query(host, { vector, topK, filter: f.filter, ...ns }),
          brute(metric, recs, { vector }, topK, f.keep),
          `${metric} q${qi} filter ${JSON.stringify(f.filter)} topK=${topK}`,
        );
      }

      // topK larger than the set: every record, in order.
      const vector = dense(rand);
      assertHits(await query(host, { vector, topK: 1000, ...ns }), brute(metric, recs, { vector }, 1000), `${metric} topK=1000`);
      assertHits(
        await query(host, { vector, topK: 1000, filter: FILTERS[2].filter, ...ns }),
        brute(metric, recs, { vector }, 1000, FILTERS[2].keep),
        `${metric} topK=1000 filtered`,
      );

      // Exact ties (identical vectors) are ordered by id, also where topK cuts the group.
      const dupVector = recs.find((r) => r.id === 'dup-0')!.values!;
      for (const topK of [1, 3, 5]) {
        const got = await query(host, { vector: dupVector, topK, ...ns });
        assertHits(got, brute(metric, recs, { vector: dupVector }, topK), `${metric} ties topK=${topK}`);
        if (metric !== 'dotproduct') {
          // For cosine and euclidean the duplicates are the best possible matches.
          assert.deepEqual(got.map((h) => h.id), ['dup-0', 'dup-1', 'dup-2', 'dup-3', 'dup-4'].slice(0, topK));
        }
      }

      // Query by id equals query by that record's stored vector (and the reference).
      for (const id of ['v0', 'v17', 'dup-2', 'v299']) {
        const fetched = await api(server, 'GET', `${host}/vectors/fetch?ids=${id}${namespace ? `&namespace=${namespace}` : ''}`);
        assert.equal(fetched.status, 200, fetched.text);
        const stored = fetched.body.vectors[id].values as number[];
        assert.deepEqual(f32(stored), f32(recs.find((r) => r.id === id)!.values!), `stored values of ${id} are the float32 of what was sent`);
        for (const f of [undefined, FILTERS[0]]) {
          const filter = f ? { filter: f.filter } : {};
          const byId = await query(host, { id, topK: 15, ...filter, ...ns });
          const byVector = await query(host, { vector: stored, topK: 15, ...filter, ...ns });
          assert.deepEqual(byId, byVector, `${metric}: query by id ${id} ${f ? 'filtered' : ''} differs from query by its vector`);
          assertHits(byId, brute(metric, recs, { vector: stored }, 15, f?.keep), `${metric} by id ${id}`);
        }
      }
      // Query by an unknown id: no matches.
      assert.deepEqual(await query(host, { id: 'nope', topK: 5, ...ns }), []);
      // Another namespace sees nothing of this one.
      assert.deepEqual(await query(host, { vector, topK: 5, namespace: 'elsewhere' }), []);
    });
  }

  it('sparse index (dotproduct): sparseVector queries with and without filters, query by id', async () => {
    const rand = prng(404);
    const host = await createIndex({ name: 'bf-sparse', vector_type: 'sparse', metric: 'dotproduct' });
    const recs: Rec[] = [];
    for (let i = 0; i < 300; i++) recs.push({ id: `s${i}`, sparseValues: sparse(rand, 12, 60), metadata: meta(rand) });
    const twin = sparse(rand, 6, 60);
    for (const id of ['tw-b', 'tw-a', 'tw-c']) recs.push({ id, sparseValues: { indices: [...twin.indices], values: [...twin.values] }, metadata: { bucket: 0, tag: 'red' } });
    await upsert(host, shuffle(rand, recs), 'sp');
    for (let qi = 0; qi < 20; qi++) {
      const sparseVector = sparse(rand, 8, 60);
      const topK = [1, 5, 10, 40, 400][qi % 5];
      assertHits(await query(host, { sparseVector, topK, namespace: 'sp' }), brute('dotproduct', recs, { sparseVector }, topK), `sparse q${qi} topK=${topK}`);
      const f = FILTERS[qi % FILTERS.length];
      assertHits(
        await query(host, { sparseVector, topK, filter: f.filter, namespace: 'sp' }),
        brute('dotproduct', recs, { sparseVector }, topK, f.keep),
        `sparse q${qi} filter ${JSON.stringify(f.filter)} topK=${topK}`,
      );
    }
    const ties = await query(host, { sparseVector: twin, topK: 3, namespace: 'sp' });
    assertHits(ties, brute('dotproduct', recs, { sparseVector: twin }, 3), 'sparse twins');
    // Query by id equals query by the record's sparse vector.
    for (const id of ['s0', 's150', 'tw-c']) {
      const r = recs.find((x) => x.id === id)!;
      const byId = await query(host, { id, topK: 12, namespace: 'sp' });
      const bySparse = await query(host, { sparseVector: r.sparseValues, topK: 12, namespace: 'sp' });
      assert.deepEqual(byId, bySparse, `sparse: query by id ${id} differs from query by its sparse vector`);
      assertHits(byId, brute('dotproduct', recs, { sparseVector: r.sparseValues }, 12), `sparse by id ${id}`);
    }
  });

  it('hybrid dense dotproduct index: vector + sparseVector queries with and without filters', async () => {
    const rand = prng(505);
    const host = await createIndex({ name: 'bf-hybrid', dimension: DIM, metric: 'dotproduct' });
    const recs: Rec[] = [];
    for (let i = 0; i < 300; i++) {
      const r: Rec = { id: `h${i}`, values: dense(rand), metadata: meta(rand) };
      if (rand() < 0.7) r.sparseValues = sparse(rand, 10, 40); // some records have no sparse part
      recs.push(r);
    }
    await upsert(host, recs);
    for (let qi = 0; qi < 20; qi++) {
      const q = { vector: dense(rand), sparseVector: sparse(rand, 8, 40) };
      const topK = [1, 5, 10, 40, 400][qi % 5];
      assertHits(await query(host, { ...q, topK }), brute('dotproduct', recs, q, topK), `hybrid q${qi} topK=${topK}`);
      const f = FILTERS[qi % FILTERS.length];
      assertHits(
        await query(host, { ...q, topK, filter: f.filter }),
        brute('dotproduct', recs, q, topK, f.keep),
        `hybrid q${qi} filter ${JSON.stringify(f.filter)} topK=${topK}`,
      );
    }
    // A sparse part big enough to dominate: the ranking must follow it.
    const target = recs.find((r) => r.sparseValues)!;
    const q = { vector: dense(rand), sparseVector: { indices: target.sparseValues!.indices, values: target.sparseValues!.values.map((v) => v * 1000) } };
    assertHits(await query(host, { ...q, topK: 5 }), brute('dotproduct', recs, q, 5), 'hybrid sparse-dominated');
    // Values come back as float32 with includeValues, sparse values included.
    const [top] = await query(host, { ...q, topK: 1, includeValues: true, includeMetadata: true });
    const want = recs.find((r) => r.id === top.id)!;
    const m = top as Hit & { values: number[]; sparseValues?: Sparse; metadata?: Meta };
    assert.deepEqual(f32(m.values), f32(want.values!));
    assert.deepEqual(m.metadata, want.metadata);
    if (want.sparseValues) {
      const pairs = (s: Sparse): Array<[number, number]> =>
      s.indices.map((ix, i) => [ix, Math.fround(s.values[i])] as [number, number]).sort((a, b) => a[0] - b[0]);
      assert.deepEqual(pairs(m.sparseValues!), pairs(want.sparseValues));
    }
  });

  it('ties as a client sees them (equal float32 scores) are ordered by id', async () => {
    // Scores print as float32. a's float64 score is 1 + 2^-30 and b's is 1: both print as
    // 1, so the client sees a tie, and ties are ordered by id (decision 7): a-lo first.
    const host = await createIndex({ name: 'bf-wire-ties', dimension: 2, metric: 'dotproduct' });
    await upsert(host, [
      { id: 'z-hi', values: [1, 2 ** -30] },
      { id: 'a-lo', values: [1, 0] },
    ]);
    const got = await query(host, { vector: [1, 1], topK: 2 });
    assert.deepEqual(got.map((h) => h.score), [1, 1], JSON.stringify(got));
    assert.deepEqual(got.map((h) => h.id), ['a-lo', 'z-hi'], `equal printed scores not ordered by id: ${JSON.stringify(got)}`);
  });

  it('a sparseVector on a non-dotproduct index is a 400', async () => {
    const host = await createIndex({ name: 'bf-cos-sparse', dimension: DIM, metric: 'cosine' });
    await upsert(host, [{ id: 'a', values: dense(prng(1)) }]);
    const res = await api(server, 'POST', `${host}/query`, {
      body: { vector: dense(prng(2)), sparseVector: { indices: [1], values: [0.5] }, topK: 1 },
    });
    assert.equal(res.status, 400, res.text);
  });
});
