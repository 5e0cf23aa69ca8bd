// POST /query (issue 3; DESIGN.md decision 7): exact results equal a brute-force
// computation in this file for cosine, euclidean (squared distance), dot product, sparse
// and hybrid, with and without filters; ties ordered by id; the filter language checked
// table-driven against a reference evaluator written here; every bad request a 400.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, type TestServer } from '../helpers/server.js';
import {
  assertDataError,
  createIndex,
  denseIndex,
  dp,
  f32,
  fetchMap,
  rng,
  sparseIndex,
  upsert,
  type Vec,
} from './support.js';

type Metadata = Record<string, string | number | boolean | string[]>;
type Sparse = { indices: number[]; values: number[] };
interface Rec {
  id: string;
  values?: number[];
  sparse?: Sparse;
  metadata?: Metadata;
}
type Metric = 'cosine' | 'euclidean' | 'dotproduct';

const DIM = 4;

// ---- the reference: scores and filters computed here, independently of the server ----

/** Dense score in float64 over float32-rounded inputs, summed in index order. */
function denseScore(metric: Metric, q: number[], v: number[]): number {
  const qf = q.map(f32);
  const vf = v.map(f32);
  let s = 0;
  if (metric === 'euclidean') {
    for (let i = 0; i < qf.length; i++) s += (qf[i] - vf[i]) * (qf[i] - vf[i]);
    return s;
  }
  for (let i = 0; i < qf.length; i++) s += qf[i] * vf[i];
  if (metric === 'cosine') {
    const norm = (a: number[]) => Math.sqrt(a.reduce((t, x) => t + x * x, 0));
    s = s / (norm(qf) * norm(vf));
  }
  return s;
}

/** Adds the sparse dot product to `base`, term by term in ascending index order. */
function addSparse(base: number, q: Sparse, r: Sparse | undefined): number {
  if (!r) return base;
  const qm = new Map(q.indices.map((ix, i) => [ix, f32(q.values[i])]));
  const entries = r.indices.map((ix, i) => [ix, f32(r.values[i])]).sort((a, b) => a[0] - b[0]);
  let s = base;
  for (const [ix, x] of entries) s += (qm.get(ix) ?? 0) * x;
  return s;
}

// The documented semantics (filter.ts header, issue 3): list fields match when any
// element matches; $ne / $nin are the negations of $eq / $in, so they match records
// without the field; $gt.. match numbers only; $exists tests presence.
function matches(filter: Record<string, unknown>, m: Metadata | undefined): boolean {
  return Object.entries(filter).every(([key, cond]) => {
    if (key === '$and') return (cond as Record<string, unknown>[]).every((f) => matches(f, m));
    if (key === '$or') return (cond as Record<string, unknown>[]).some((f) => matches(f, m));
    const has = m !== undefined && Object.hasOwn(m, key);
    const v = has ? m![key] : undefined;
    const ops: Record<string, unknown> =
      typeof cond === 'object' && cond !== null && !Array.isArray(cond) ? (cond as Record<string, unknown>) : { $eq: cond };
    const eq = (x: unknown) => has && (Array.isArray(v) ? v.includes(x as string) : v === x);
    const inSet = (xs: unknown[]) => has && (Array.isArray(v) ? v.some((e) => xs.includes(e)) : xs.includes(v));
    const num = (test: (n: number) => boolean) => has && typeof v === 'number' && test(v);
    return Object.entries(ops).every(([op, x]) => {
      switch (op) {
        case '$eq': return eq(x);
        case '$ne': return !eq(x);
        case '$gt': return num((n) => n > (x as number));
        case '$gte': return num((n) => n >= (x as number));
        case '$lt': return num((n) => n < (x as number));
        case '$lte': return num((n) => n <= (x as number));
        case '$in': return inSet(x as unknown[]);
        case '$nin': return !inSet(x as unknown[]);
        case '$exists': return has === x;
        default: throw new Error(`reference evaluator: unknown operator ${op}`);
      }
    });
  });
}

interface Expected {
  id: string;
  score: number;
}

function bruteForce(
  records: Rec[],
  metric: Metric,
  topK: number,
  query: { vector?: number[]; sparse?: Sparse; filter?: Record<string, unknown> },
): Expected[] {
  const scored = records
    .filter((r) => !query.filter || matches(query.filter, r.metadata))
    // A sparse-only query matches only records sharing at least one index with it.
    .filter((r) => (query.vector !== undefined && query.vector.length > 0) || (r.sparse?.indices.some((i) => query.sparse!.indices.includes(i)) ?? false))
    .map((r) => {
      let s = query.vector && r.values ? denseScore(metric, query.vector, r.values) : 0;
      if (query.sparse) s = addSparse(s, query.sparse, r.sparse);
      return { id: r.id, score: s };
    });
  const better = metric === 'euclidean' ? (a: number, b: number) => a - b : (a: number, b: number) => b - a;
  scored.sort((a, b) => better(a.score, b.score) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, topK);
}

function assertSameResults(got: { id: string; score: number }[], expected: Expected[], label: string): void {
  assert.deepEqual(got.map((m) => m.id), expected.map((e) => e.id), `${label}: ids in order`);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(Math.abs(got[i].score - expected[i].score) <= 1e-6, `${label}: score of ${expected[i].id}: ${got[i].score} vs ${expected[i].score}`);
  }
}

// ---- the data set -----------------------------------------------------------------

function makeRecords(seed: number, withSparse: boolean, dense: boolean): Rec[] {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const out: Rec[] = [];
  for (let i = 0; i < 70; i++) {
    const rec: Rec = { id: `r${String(i).padStart(2, '0')}` };
    if (dense) rec.values = Array.from({ length: DIM }, () => Math.round((r() * 2 - 1) * 1000) / 1000);
    if (withSparse && (!dense || r() < 0.7)) {
      const n = 1 + Math.floor(r() * 5);
      const ix = new Set<number>();
      while (ix.size < n) ix.add(Math.floor(r() * 30));
      const indices = [...ix].sort(() => r() - 0.5);
      rec.sparse = { indices, values: indices.map(() => Math.round(r() * 1000) / 500) };
    }
    if (r() < 0.9) {
      const md: Metadata = {};
      const genre = pick(['drama', 'comedy', 'action', null]);
      if (genre) md.genre = genre;
      if (r() < 0.8) md.year = 1990 + Math.floor(r() * 31);
      if (r() < 0.7) md.tags = ['a', 'b', 'c'].filter(() => r() < 0.4);
      if (r() < 0.6) md.flag = r() < 0.5;
      if (r() < 0.3) md.code = r() < 0.5 ? 1 : '1';
      if (r() < 0.2) md.score = Math.round(r() * 100) / 10;
      rec.metadata = md;
    }
    out.push(rec);
  }
  // Ties: an exact duplicate, and (for cosine) a scaled copy, under ids before and after.
  if (dense) {
    out.push({ ...out[5], id: 'dup-a' }, { ...out[5], id: 'a-dup' }, { ...out[5], id: 'zz-dup' });
    out.push({ id: 'scaled', values: out[7].values!.map((x) => x * 2), metadata: { genre: 'drama' } });
  }
  return out;
}

const toVec = (r: Rec): Vec => {
  const v: Vec = { id: r.id };
  if (r.values) v.values = r.values;
  if (r.sparse) v.sparseValues = r.sparse;
  if (r.metadata) v.metadata = r.metadata;
  return v;
};

const FILTERS: Record<string, unknown>[] = [
  { genre: 'drama' },
  { genre: { $eq: 'drama' } },
  { genre: { $ne: 'drama' } },
  { year: { $gt: 2005 } },
  { year: { $gte: 2000, $lte: 2010 } },
  { year: { $lt: 1995 } },
  { year: { $lte: 1990 } },
  { year: { $in: [1999, 2001, 2010] } },
  { year: { $nin: [1999, 2001, 2010] } },
  { genre: { $in: ['drama', 'action'] } },
  { genre: { $nin: ['drama'] } },
  { tags: 'a' },
  { tags: { $in: ['b', 'c'] } },
  { tags: { $nin: ['a'] } },
  { tags: { $ne: 'a' } },
  { tags: { $exists: true } },
  { genre: { $exists: false } },
  { $and: [{ tags: 'a' }, { tags: 'b' }] },
  { $or: [{ genre: 'drama' }, { year: { $gt: 2015 } }] },
  { $and: [{ $or: [{ genre: 'comedy' }, { flag: true }] }, { year: { $exists: true } }] },
  { flag: true },
  { flag: false },
  { flag: { $ne: true } },
  { code: 1 },
  { code: '1' },
  { code: { $in: [1] } },
  { code: { $in: ['1'] } },
  { genre: 'drama', year: { $gte: 2005 } },
  { genre: { $gt: 5 } },
  { year: { $eq: 2000 }, flag: { $exists: false } },
  { score: { $gte: 5 } },
  { tags: { $in: [] } },
  { tags: { $nin: [] } },
  { $or: [{ nothing: 'x' }, { genre: { $nin: ['comedy', 'action'] } }] },
];

describe('data plane: query', () => {
  let server: TestServer;
  const hosts: Record<Metric, string> = { cosine: '', euclidean: '', dotproduct: '' };
  let sparseHost: string;
  const dense: Record<Metric, Rec[]> = { cosine: [], euclidean: [], dotproduct: [] };
  let sparseRecs: Rec[] = [];

  before(async () => {
    server = await startServer();
    [hosts.cosine, hosts.euclidean, hosts.dotproduct, sparseHost] = await Promise.all([
      createIndex(server, denseIndex('q-cos', DIM, 'cosine')),
      createIndex(server, denseIndex('q-euc', DIM, 'euclidean')),
      createIndex(server, denseIndex('q-dot', DIM, 'dotproduct')),
      createIndex(server, sparseIndex('q-sparse')),
    ]);
    dense.cosine = makeRecords(1, false, true);
    dense.euclidean = makeRecords(2, false, true);
    dense.dotproduct = makeRecords(3, true, true); // hybrid records on the dotproduct index
    sparseRecs = makeRecords(4, true, false);
    for (const m of ['cosine', 'euclidean', 'dotproduct'] as Metric[]) {
      await upsert(server, hosts[m], dense[m].map(toVec));
      // Another namespace with the same ids and different vectors must never leak in.
      await upsert(server, hosts[m], dense[m].map((r) => ({ id: r.id, values: [9, 9, 9, 9] })), 'other');
    }
    await upsert(server, sparseHost, sparseRecs.map(toVec));
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  const query = (host: string, body: unknown) => dp(server, host, 'POST', '/query', { body });

  async function check(metric: Metric, host: string, records: Rec[], body: Record<string, unknown>, label: string) {
    const res = await query(host, body);
    assert.equal(res.status, 200, `${label}: ${res.text}`);
    const expected = bruteForce(records, metric, body.topK as number, {
      vector: body.vector as number[] | undefined,
      sparse: body.sparseVector as Sparse | undefined,
      filter: body.filter as Record<string, unknown> | undefined,
    });
    assertSameResults(res.body.matches, expected, label);
    return res;
  }

  describe('exact results equal brute force', () => {
    for (const metric of ['cosine', 'euclidean', 'dotproduct'] as Metric[]) {
      it(`${metric}: random queries, topK 1, 10 and all`, async () => {
        const r = rng(100);
        for (let qi = 0; qi < 6; qi++) {
          const vector = Array.from({ length: DIM }, () => Math.round((r() * 2 - 1) * 1000) / 1000);
          for (const topK of [1, 10, 10000]) {
            const res = await check(metric, hosts[metric], dense[metric], { vector, topK }, `${metric} q${qi} topK ${topK}`);
            if (topK === 10000) assert.equal(res.body.matches.length, dense[metric].length);
          }
        }
      });

      it(`${metric}: ties are ordered by id`, async () => {
        const base = dense[metric][5].values!;
        const res = await check(metric, hosts[metric], dense[metric], { vector: base, topK: 10000 }, `${metric} tie`);
        const ids: string[] = res.body.matches.map((m: { id: string }) => m.id);
        const pos = ['a-dup', 'dup-a', 'r05', 'zz-dup'].map((id) => ids.indexOf(id));
        assert.deepEqual([...pos].sort((a, b) => a - b), pos, `tied ids in id order: ${pos}`);
        assert.equal(pos[3] - pos[0], 3, 'the four tied records are adjacent');
        if (metric === 'euclidean') assert.equal(res.body.matches[0].score, 0, 'squared distance 0 to itself');
      });

      it(`${metric}: with filters`, async () => {
        const vector = [0.5, -0.25, 0.125, 1];
        // The table is only a test if most filters select a proper, non-empty subset.
        const proper = FILTERS.filter((f) => {
          const n = dense[metric].filter((r) => matches(f, r.metadata)).length;
          return n > 0 && n < dense[metric].length;
        });
        assert.ok(proper.length >= FILTERS.length - 4, `${proper.length} of ${FILTERS.length} filters are selective`);
        for (const filter of FILTERS) {
          await check(metric, hosts[metric], dense[metric], { vector, topK: 10000, filter }, `${metric} ${JSON.stringify(filter)}`);
          await check(metric, hosts[metric], dense[metric], { vector, topK: 3, filter }, `${metric} top3 ${JSON.stringify(filter)}`);
        }
      });
    }

    it('cosine scores are similarities in [-1, 1], higher first; a scaled copy scores the same', async () => {
      const v = dense.cosine.find((r) => r.id === 'r07')!.values!;
      const res = await query(hosts.cosine, { vector: v, topK: 10000 });
      const scores: number[] = res.body.matches.map((m: { score: number }) => m.score);
      for (const s of scores) assert.ok(s >= -1 - 1e-6 && s <= 1 + 1e-6);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
      assert.deepEqual(res.body.matches.slice(0, 2).map((m: { id: string }) => m.id), ['r07', 'scaled']);
      assert.ok(Math.abs(res.body.matches[0].score - 1) < 1e-6);
    });

    it('euclidean scores are squared distances, lower first', async () => {
      await upsert(server, hosts.euclidean, [{ id: 'o', values: [0, 0, 0, 0] }, { id: 'p', values: [3, 4, 0, 0] }], 'sq');
      const res = await query(hosts.euclidean, { vector: [0, 0, 0, 0], topK: 2, namespace: 'sq' });
      assert.deepEqual(res.body.matches, [{ id: 'o', score: 0 }, { id: 'p', score: 25 }]);
    });

    it('dotproduct hybrid: dense plus sparse dot product', async () => {
      const r = rng(7);
      for (let qi = 0; qi < 5; qi++) {
        const vector = Array.from({ length: DIM }, () => Math.round((r() * 2 - 1) * 1000) / 1000);
        const sparseVector = { indices: [3, 1, 17, 29, 8], values: [0.5, 1.5, -1, 2, 0.25] };
        await check('dotproduct', hosts.dotproduct, dense.dotproduct, { vector, sparseVector, topK: 15 }, `hybrid q${qi}`);
        await check('dotproduct', hosts.dotproduct, dense.dotproduct, { vector, sparseVector, topK: 10000, filter: { year: { $gte: 2000 } } }, `hybrid filtered q${qi}`);
      }
      // sparse_vector is accepted as a spelling too.
      const res = await query(hosts.dotproduct, { vector: [1, 0, 0, 0], sparse_vector: { indices: [1], values: [1] }, topK: 5 });
      assert.equal(res.status, 200, res.text);
      assertSameResults(res.body.matches, bruteForce(dense.dotproduct, 'dotproduct', 5, { vector: [1, 0, 0, 0], sparse: { indices: [1], values: [1] } }), 'sparse_vector');
    });

    it('dotproduct dense index: sparseVector alone ranks the records sharing a dimension by sparse dot product', async () => {
      const queries: Sparse[] = [
        { indices: [3, 1, 17, 29, 8], values: [0.5, 1.5, -1, 2, 0.25] },
        { indices: [29, 3], values: [0.3, -2] },
      ];
      for (const sv of queries) {
        const all = await check('dotproduct', hosts.dotproduct, dense.dotproduct, { sparseVector: sv, topK: 10000 }, `sparse-only ${JSON.stringify(sv)}`);
        const n = all.body.matches.length;
        assert.ok(n > 0 && n < dense.dotproduct.length, `only the records sharing a dimension: ${n} of ${dense.dotproduct.length}`);
        await check('dotproduct', hosts.dotproduct, dense.dotproduct, { sparseVector: sv, topK: 3 }, `sparse-only top 3 ${JSON.stringify(sv)}`);
        // Python sends "vector": [] beside a sparse-only query.
        await check('dotproduct', hosts.dotproduct, dense.dotproduct, { vector: [], sparseVector: sv, topK: 10000, filter: { year: { $gte: 2000 } } }, `sparse-only filtered`);
      }
    });

    it('sparse index: sparse dot product, with and without filters', async () => {
      const queries: Sparse[] = [
        { indices: [0, 5, 10, 15, 20, 25], values: [1, 1, 1, 1, 1, 1] },
        { indices: [29, 3], values: [0.3, -2] },
        { indices: [7], values: [1] },
      ];
      for (const sv of queries) {
        await check('dotproduct', sparseHost, sparseRecs, { sparseVector: sv, topK: 10 }, `sparse ${JSON.stringify(sv)}`);
        await check('dotproduct', sparseHost, sparseRecs, { sparseVector: sv, topK: 10000 }, `sparse all ${JSON.stringify(sv)}`);
        await check('dotproduct', sparseHost, sparseRecs, { vector: [], sparseVector: sv, topK: 10000, filter: { genre: { $ne: 'drama' } } }, `sparse filtered`);
      }
    });
  });

  describe('query by id', () => {
    it('equals a query by the stored vector', async () => {
      for (const metric of ['cosine', 'euclidean', 'dotproduct'] as Metric[]) {
        const rec = dense[metric][11];
        const res = await query(hosts[metric], { id: rec.id, topK: 8 });
        assert.equal(res.status, 200, res.text);
        assertSameResults(res.body.matches, bruteForce(dense[metric], metric, 8, { vector: rec.values }), `${metric} by id`);
      }
    });

    it('on a sparse index uses the stored sparse values', async () => {
      const rec = sparseRecs[3];
      const res = await query(sparseHost, { id: rec.id, topK: 8 });
      assert.equal(res.status, 200, res.text);
      assertSameResults(res.body.matches, bruteForce(sparseRecs, 'dotproduct', 8, { sparse: rec.sparse }), 'sparse by id');
    });

    it('with a filter', async () => {
      const rec = dense.euclidean[2];
      const res = await query(hosts.euclidean, { id: rec.id, topK: 10000, filter: { tags: { $exists: true } } });
      assertSameResults(res.body.matches, bruteForce(dense.euclidean, 'euclidean', 10000, { vector: rec.values, filter: { tags: { $exists: true } } }), 'by id filtered');
    });

    it('an unknown id is 200 with no matches', async () => {
      const res = await query(hosts.cosine, { id: 'no-such-id', topK: 5 });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.matches, []);
    });
  });

  describe('response fields', () => {
    it('values and metadata only when asked; namespace and usage always', async () => {
      const v = [0.1, 0.2, 0.3, 1 / 3];
      const plain = await query(hosts.euclidean, { vector: v, topK: 3 });
      assert.equal(plain.body.namespace, '__default__');
      assert.equal(typeof plain.body.usage?.readUnits, 'number');
      for (const m of plain.body.matches) assert.deepEqual(Object.keys(m).sort(), ['id', 'score']);

      const full = await query(hosts.euclidean, { vector: v, topK: 10000, includeValues: true, includeMetadata: true });
      const ids = full.body.matches.map((m: { id: string }) => m.id);
      const stored = await fetchMap(server, hosts.euclidean, ids);
      for (const m of full.body.matches) {
        assert.deepEqual(m.values, stored[m.id].values, `values of ${m.id} as fetch prints them`);
        assert.deepEqual(m.metadata, stored[m.id].metadata, `metadata of ${m.id}`);
      }
      const withoutMd = full.body.matches.find((m: { id: string }) => !dense.euclidean.find((r) => r.id === m.id)?.metadata);
      assert.ok(withoutMd, 'the data set has a record without metadata');
      assert.equal(withoutMd.metadata, undefined);

      const onlyMd = await query(hosts.euclidean, { vector: v, topK: 5, includeMetadata: true });
      for (const m of onlyMd.body.matches) assert.equal(m.values, undefined);
    });

    it('metadata follows each record\'s latest write: dropped by an upsert without, added by an update', async () => {
      // The engine tells the HTTP thread which hits carry metadata (it reads the store for
      // those only): that bit must follow every write that gives or takes metadata.
      const ns = 'md-follows';
      const metadataById = async (): Promise<Record<string, unknown>> => {
        const res = await query(hosts.euclidean, { vector: [1, 1, 1, 1], topK: 10, includeMetadata: true, namespace: ns });
        assert.equal(res.status, 200, res.text);
        return Object.fromEntries(res.body.matches.map((m: { id: string; metadata?: unknown }) => [m.id, m.metadata ?? null]));
      };
      await upsert(server, hosts.euclidean, [
        { id: 'a', values: [1, 1, 1, 1], metadata: { x: 1 } },
        { id: 'b', values: [1, 1, 1, 2] },
        { id: 'c', values: [1, 1, 2, 2], metadata: { x: 3 } },
      ], ns);
      assert.deepEqual(await metadataById(), { a: { x: 1 }, b: null, c: { x: 3 } });
      await upsert(server, hosts.euclidean, [{ id: 'a', values: [1, 1, 1, 1] }], ns);
      const update = await dp(server, hosts.euclidean, 'POST', '/vectors/update', { body: { id: 'b', setMetadata: { y: 'z' }, namespace: ns } });
      assert.equal(update.status, 200, update.text);
      assert.deepEqual(await metadataById(), { a: null, b: { y: 'z' }, c: { x: 3 } });
      // A deleted label is reused by the next new record, which has no metadata.
      await dp(server, hosts.euclidean, 'POST', '/vectors/delete', { body: { ids: ['c'], namespace: ns } });
      await upsert(server, hosts.euclidean, [{ id: 'd', values: [1, 1, 2, 2] }], ns);
      assert.deepEqual(await metadataById(), { a: null, b: { y: 'z' }, d: null });
    });

    it('metadata comes back as written and as fetch prints it: key order, list order and repeats', async () => {
      // The engine rebuilds it from its columns (key shapes, pooled list codes); fetch reads the stored JSON.
      const ns = 'md-as-written';
      await upsert(server, hosts.euclidean, [
        { id: 'p', values: [1, 0, 0, 0], metadata: { b: 'x', a: 2, l: ['z', 'y', 'z'], t: true } },
        { id: 'q', values: [0, 1, 0, 0], metadata: { a: -1.5, b: 'x', l: [], t: false } },
        { id: 'r', values: [0, 0, 1, 0], metadata: { l: ['y'], zz: 'only here' } },
      ], ns);
      const update = await dp(server, hosts.euclidean, 'POST', '/vectors/update', { body: { id: 'r', setMetadata: { a: 7, l: ['w', 'w'] }, namespace: ns } });
      assert.equal(update.status, 200, update.text);
      const res = await query(hosts.euclidean, { vector: [1, 1, 1, 0], topK: 3, includeMetadata: true, namespace: ns });
      assert.equal(res.status, 200, res.text);
      const text = (id: string): string => JSON.stringify(res.body.matches.find((m: { id: string }) => m.id === id)?.metadata);
      assert.equal(text('p'), '{"b":"x","a":2,"l":["z","y","z"],"t":true}');
      assert.equal(text('q'), '{"a":-1.5,"b":"x","l":[],"t":false}');
      const fetched = await dp(server, hosts.euclidean, 'GET', `/vectors/fetch?ids=p&ids=q&ids=r&namespace=${ns}`);
      assert.equal(fetched.status, 200, fetched.text);
      for (const id of ['p', 'q', 'r']) assert.equal(text(id), JSON.stringify(fetched.body.vectors[id].metadata), `metadata of ${id}`);
    });

    it('float32 values are printed in shortest form', async () => {
      await upsert(server, hosts.euclidean, [{ id: 'short', values: [0.1, 1 / 3, 0.7, -0.2] }], 'short');
      const res = await query(hosts.euclidean, { vector: [0, 0, 0, 0], topK: 1, includeValues: true, namespace: 'short' });
      assert.deepEqual(res.body.matches[0].values, [0.1, 0.33333334, 0.7, -0.2]);
      assert.equal(res.body.namespace, 'short');
    });

    it('hybrid and sparse matches carry sparseValues when includeValues', async () => {
      const rec = dense.dotproduct.find((r) => r.sparse)!;
      const res = await query(hosts.dotproduct, { id: rec.id, topK: 10000, includeValues: true });
      const m = res.body.matches.find((x: { id: string }) => x.id === rec.id);
      const pairs = (s: Sparse) => s.indices.map((ix, i) => `${ix}:${f32(s.values[i])}`).sort();
      assert.deepEqual(pairs(m.sparseValues), pairs(rec.sparse!));
      const sres = await query(sparseHost, { id: sparseRecs[0].id, topK: 1, includeValues: true });
      assert.deepEqual(pairs(sres.body.matches[0].sparseValues), pairs(sparseRecs[0].sparse!));
    });

    it('query and fetch print sparse values sent out of index order alike: ascending, pairs kept', async () => {
      await upsert(server, sparseHost, [{ id: 'unsorted', sparseValues: { indices: [30, 10, 20], values: [3, 1, 2] } }], 'order');
      const res = await query(sparseHost, { id: 'unsorted', topK: 1, includeValues: true, namespace: 'order' });
      assert.deepEqual(res.body.matches[0].sparseValues, { indices: [10, 20, 30], values: [1, 2, 3] });
      const fetched = await dp(server, sparseHost, 'GET', '/vectors/fetch?ids=unsorted&namespace=order');
      assert.equal(fetched.status, 200, fetched.text);
      assert.deepEqual(fetched.body.vectors.unsorted.sparseValues, res.body.matches[0].sparseValues);
    });

    it('scores beyond float32 range print as the largest float32 of their sign (never null), ties by id', async () => {
      const ns = 'huge';
      const big = 3.4e38;
      await upsert(
        server,
        sparseHost,
        [
          { id: 'b2', sparseValues: { indices: [1], values: [big] } },
          { id: 'b1', sparseValues: { indices: [1, 2, 3], values: [big, big, big] } },
          { id: 'one', sparseValues: { indices: [1], values: [1] } },
        ],
        ns,
      );
      const scores = (res: { body: { matches: { id: string; score: number }[] } }) => res.body.matches.map((m) => [m.id, m.score]);
      let res = await query(sparseHost, { topK: 3, namespace: ns, sparseVector: { indices: [1, 2, 3], values: [big, big, big] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(scores(res), [['b1', 3.4028235e38], ['b2', 3.4028235e38], ['one', big]]);
      res = await query(sparseHost, { topK: 3, namespace: ns, sparseVector: { indices: [1, 2, 3], values: [-big, big, -big] } });
      assert.deepEqual(scores(res), [['one', -big], ['b1', -3.4028235e38], ['b2', -3.4028235e38]]);
      await upsert(server, hosts.dotproduct, [{ id: 'd1', values: [big, big, big, big] }, { id: 'd2', values: [1, 0, 0, 0] }], ns);
      res = await query(hosts.dotproduct, { topK: 2, namespace: ns, vector: [big, big, big, big] });
      assert.deepEqual(scores(res), [['d1', 3.4028235e38], ['d2', big]]);
      await upsert(server, hosts.euclidean, [{ id: 'far', values: [big, big, big, big] }, { id: 'near', values: [-big, -big, -big, -big] }], ns);
      res = await query(hosts.euclidean, { topK: 2, namespace: ns, vector: [-big, -big, -big, -big] });
      assert.deepEqual(scores(res), [['near', 0], ['far', 3.4028235e38]]);
    });

    it('an empty or unknown namespace is 200 with no matches', async () => {
      for (const namespace of ['nobody-here', 'another']) {
        const res = await query(hosts.cosine, { vector: [1, 0, 0, 0], topK: 5, namespace });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.matches, []);
        assert.equal(res.body.namespace, namespace);
      }
    });

    it('the other namespace is searched on its own', async () => {
      const res = await query(hosts.cosine, { vector: [1, 1, 1, 1], topK: 10000, namespace: 'other' });
      assert.equal(res.body.matches.length, dense.cosine.length);
      for (const m of res.body.matches) assert.ok(Math.abs(m.score - 1) < 1e-6);
      const ids = res.body.matches.map((m: { id: string }) => m.id);
      assert.deepEqual(ids, [...ids].sort(), 'all tied: id order');
    });
  });

  describe('bad requests are 400 naming the field', () => {
    const cases: [string, Metric | 'sparse', unknown, RegExp][] = [
      ['topK 0', 'cosine', { vector: [1, 0, 0, 0], topK: 0 }, /topK must be between 1 and 10000/],
      ['topK 10001', 'cosine', { vector: [1, 0, 0, 0], topK: 10001 }, /topK must be between 1 and 10000/],
      ['topK "5"', 'cosine', { vector: [1, 0, 0, 0], topK: '5' }, /topK/],
      ['topK 5.5', 'cosine', { vector: [1, 0, 0, 0], topK: 5.5 }, /topK/],
      ['topK missing', 'cosine', { vector: [1, 0, 0, 0] }, /topK/],
      ['zero vector on cosine', 'cosine', { vector: [0, 0, 0, 0], topK: 5 }, /vector.*zeros/],
      ['dimension mismatch', 'euclidean', { vector: [1, 0, 0], topK: 5 }, /vector.*dimension/],
      ['a string in the vector', 'euclidean', { vector: [1, 'x', 0, 0], topK: 5 }, /vector\[1\]/],
      ['1e39 in the vector', 'euclidean', { vector: [1, 1e39, 0, 0], topK: 5 }, /vector\[1\]/],
      ['sparseVector on cosine', 'cosine', { vector: [1, 0, 0, 0], sparseVector: { indices: [1], values: [1] }, topK: 5 }, /sparseVector.*dotproduct/],
      ['sparseVector on euclidean', 'euclidean', { vector: [1, 0, 0, 0], sparseVector: { indices: [1], values: [1] }, topK: 5 }, /sparseVector.*dotproduct/],
      ['sparseVector alone on cosine', 'cosine', { sparseVector: { indices: [1], values: [1] }, topK: 5 }, /sparseVector.*dotproduct/],
      ['id with vector', 'cosine', { id: 'r01', vector: [1, 0, 0, 0], topK: 5 }, /\bid\b/],
      ['id with sparseVector', 'dotproduct', { id: 'r01', sparseVector: { indices: [1], values: [1] }, topK: 5 }, /\bid\b/],
      ['no vector, sparseVector or id', 'cosine', { topK: 5 }, /vector|id/],
      ['the deprecated queries batch', 'cosine', { topK: 5, queries: [{ values: [1, 0, 0, 0] }] }, /^queries .*not supported.*vector, sparseVector or id/],
      ['bad id', 'cosine', { id: '', topK: 5 }, /\bid\b/],
      ['includeValues not a boolean', 'cosine', { vector: [1, 0, 0, 0], topK: 5, includeValues: 'yes' }, /includeValues/],
      ['duplicate sparse index', 'dotproduct', { vector: [1, 0, 0, 0], sparseVector: { indices: [1, 1], values: [1, 1] }, topK: 5 }, /sparseVector/],
      ['dense vector on a sparse index', 'sparse', { vector: [1, 0, 0, 0], topK: 5 }, /vector/],
      ['nothing on a sparse index', 'sparse', { topK: 5 }, /sparseVector|id/],
      ['namespace a number', 'cosine', { vector: [1, 0, 0, 0], topK: 5, namespace: 3 }, /namespace/],
      ['filter $regex', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { genre: { $regex: 'dr.*' } } }, /filter\.genre\.\$regex/],
      ['filter $gt a string', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { year: { $gt: '2000' } } }, /filter\.year\.\$gt/],
      ['filter $in not an array', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { genre: { $in: 'drama' } } }, /filter\.genre\.\$in/],
      ['filter $in 10001 values', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { year: { $in: Array.from({ length: 10001 }, (_, i) => i) } } }, /filter\.year\.\$in.*10000/],
      ['filter $nin 10001 values', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { year: { $nin: Array.from({ length: 10001 }, (_, i) => i) } } }, /filter\.year\.\$nin/],
      ['filter $exists not a boolean', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { genre: { $exists: 1 } } }, /filter\.genre\.\$exists/],
      ['filter a list as value', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { tags: ['a', 'b'] } }, /filter\.tags/],
      ['filter $eq a list', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { tags: { $eq: ['a'] } } }, /filter\.tags\.\$eq/],
      ['filter null value', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { genre: null } }, /filter\.genre/],
      ['filter $and not an array', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { $and: { genre: 'drama' } } }, /filter\.\$and/],
      ['filter $or empty', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { $or: [] } }, /filter\.\$or/],
      ['filter a string', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: 'genre = drama' }, /filter/],
      ['filter operator at top level', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { $eq: 1 } }, /filter\.\$eq/],
      ['filter $and inside $or path', 'cosine', { vector: [1, 0, 0, 0], topK: 5, filter: { $or: [{ genre: 'x' }, { year: { $lt: 'x' } }] } }, /filter\.\$or\[1\]\.year\.\$lt/],
    ];
    for (const [name, target, body, pattern] of cases) {
      it(name, async () => {
        const host = target === 'sparse' ? sparseHost : hosts[target];
        assertDataError(await query(host, body), 400, pattern);
      });
    }

    it("the query route's own body parser (native vector parse) answers bad bodies as every other route does", async () => {
      const host = hosts.cosine;
      const viaUpdate = await dp(server, host, 'POST', '/vectors/update', { rawBody: '{"vector": [1, 0' });
      assert.equal(viaUpdate.status, 400);
      for (const rawBody of ['{"vector": [1, 0', '{"vector":[1,0,0,0],"topK":5', '{"vector":[1,0,0,0] .5,"topK":5}']) {
        const res = await dp(server, host, 'POST', '/query', { rawBody });
        assertDataError(res, 400);
        assert.equal(res.body.message, viaUpdate.body.message, rawBody);
      }
      // A key no body may hold: the same answer as on the update route, which says so.
      const poisoned = '{"vector":[1,0,0,0],"topK":5,"__proto__":{"x":1}}';
      const poisonedUpdate = await dp(server, host, 'POST', '/vectors/update', { rawBody: poisoned });
      assertDataError(poisonedUpdate, 400, /__proto__/);
      const poisonedQuery = await dp(server, host, 'POST', '/query', { rawBody: poisoned });
      assertDataError(poisonedQuery, 400);
      assert.equal(poisonedQuery.body.message, poisonedUpdate.body.message);
      // An empty body means {} (decision 13): refused for what it lacks, not as JSON.
      assertDataError(await dp(server, host, 'POST', '/query', { rawBody: '' }), 400, /topK/);
      // Spaces, exponents and 17 digits: the same answer as the body JSON.stringify prints.
      const vector = [0.30000001192092896, -1.5e-3, 2, 0.1];
      const plain = await query(host, { vector, topK: 5 });
      const spaced = await dp(server, host, 'POST', '/query', { rawBody: ' {"topK" : 5 ,\n "vector" : [ 3.0000001192092896E-1 ,-15e-4, 2.0 , 0.1000000000000000055511151231257827 ] } ' });
      assert.equal(spaced.status, 200, spaced.text);
      assert.equal(plain.status, 200);
      assert.deepEqual(spaced.body, plain.body);
    });

    it('$and nested 20 levels is refused; 10 levels work', async () => {
      const nest = (n: number) => {
        let f: Record<string, unknown> = { genre: 'drama' };
        for (let i = 0; i < n; i++) f = { $and: [f] };
        return f;
      };
      assertDataError(await query(hosts.cosine, { vector: [1, 0, 0, 0], topK: 5, filter: nest(20) }), 400, /filter\.\$and/);
      await check('cosine', hosts.cosine, dense.cosine, { vector: [1, 0, 0, 0], topK: 100, filter: nest(10) }, 'nested 10');
    });

    it('$in with exactly 10000 values works', async () => {
      const filter = { year: { $in: Array.from({ length: 10000 }, (_, i) => i) } };
      await check('cosine', hosts.cosine, dense.cosine, { vector: [1, 0, 0, 0], topK: 100, filter }, '$in 10000');
    });

    it('an empty filter {} is no filter', async () => {
      await check('cosine', hosts.cosine, dense.cosine, { vector: [1, 0, 0, 0], topK: 10000, filter: {} }, 'filter {}');
    });

    it('zero vectors are fine queries on euclidean and dotproduct', async () => {
      await check('euclidean', hosts.euclidean, dense.euclidean, { vector: [0, 0, 0, 0], topK: 5 }, 'euclidean zero');
      const res = await query(hosts.dotproduct, { vector: [0, 0, 0, 0], topK: 5 });
      assert.equal(res.status, 200, res.text);
      for (const m of res.body.matches) assert.equal(m.score, 0);
    });
  });

  describe('read-your-writes', () => {
    it('an upsert, update and delete are seen by the next query', async () => {
      const ns = 'ryw';
      for (let i = 0; i < 10; i++) {
        await upsert(server, hosts.dotproduct, [{ id: `w${i}`, values: [i + 1, 0, 0, 0] }], ns);
        const q = await query(hosts.dotproduct, { vector: [1, 0, 0, 0], topK: 1, namespace: ns });
        assert.equal(q.body.matches[0]?.id, `w${i}`);
      }
      await dp(server, hosts.dotproduct, 'POST', '/vectors/update', { body: { id: 'w0', values: [100, 0, 0, 0], namespace: ns } });
      assert.equal((await query(hosts.dotproduct, { vector: [1, 0, 0, 0], topK: 1, namespace: ns })).body.matches[0].id, 'w0');
      await dp(server, hosts.dotproduct, 'POST', '/vectors/delete', { body: { ids: ['w0'], namespace: ns } });
      assert.equal((await query(hosts.dotproduct, { vector: [1, 0, 0, 0], topK: 1, namespace: ns })).body.matches[0].id, 'w9');
      await dp(server, hosts.dotproduct, 'POST', '/vectors/update', { body: { filter: { x: { $exists: false } }, setMetadata: { x: 'y' }, namespace: ns } });
      const md = await query(hosts.dotproduct, { vector: [1, 0, 0, 0], topK: 100, namespace: ns, filter: { x: 'y' } });
      assert.equal(md.body.matches.length, 9);
      await dp(server, hosts.dotproduct, 'POST', '/vectors/delete', { body: { deleteAll: true, namespace: ns } });
      assert.deepEqual((await query(hosts.dotproduct, { vector: [1, 0, 0, 0], topK: 1, namespace: ns })).body.matches, []);
    });
  });
});
