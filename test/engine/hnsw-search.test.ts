// The graph path against exact search on seeded data: recall thresholds for all three
// metrics (dot product on unnormalised vectors), exact scores on every returned hit
// (graph candidates are rescored from the arena), the tail searched beside a partly
// built graph, and randomised write sequences checked against a model so that no
// query ever returns a deleted, dropped or outdated record. Each runs with graph inserts
// on one thread and shared over three (GraphOptions.insertThreads).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EngineIndex } from '../../src/engine/engine-index.js';
import { parseFilterNode } from '../../src/engine/filter.js';
import type { Metric, StoredRecord } from '../../src/engine/model.js';
import { VectorSet, type GraphOptions, type Hit } from '../../src/engine/vector-set.js';
import { prng } from '../helpers/prng.js';

const DIM = 16;
const INSERT_THREADS = [1, 3];

function randomVector(rand: () => number, scale = 1): Float32Array {
  const v = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) v[i] = (rand() * 2 - 1) * scale;
  return v;
}

/** Runs background work until the namespace has none (bounded). */
function drain(work: { hasWork: boolean; work(deadline: number): void }): void {
  for (let i = 0; i < 100_000 && work.hasWork; i++) work.work(performance.now() + 50);
  assert.equal(work.hasWork, false, 'background work did not finish');
}

function recall(got: Hit[], want: Hit[]): number {
  const ids = new Set(want.map((h) => h.id));
  return got.filter((h) => ids.has(h.id)).length / Math.max(1, want.length);
}

for (const [metric, seed] of [['cosine', 101], ['euclidean', 202], ['dotproduct', 303]] as const) for (const insertThreads of INSERT_THREADS) {
  describe(`HNSW graph vs exact search, ${metric}, inserts on ${insertThreads} thread(s)`, () => {
    const rand = prng(seed);
    const options: GraphOptions = { graphMinRecords: 300, defaultEf: 64, insertThreads };
    const set = new VectorSet(DIM, metric as Metric, options);
    const N = 3000;
    // Dot product on unnormalised vectors: norms spread over 0.1–10.
    for (let i = 0; i < N; i++) set.upsert(i + 1, { id: `v${i}`, values: randomVector(rand, metric === 'dotproduct' ? 0.1 + rand() * 10 : 1) });

    it('answers exactly while every record is still in the tail', () => {
      assert.equal(set.unindexed, N);
      assert.ok(set.tailCodeBytes >= N * DIM, 'the tail is scanned from int8 codes');
      for (let q = 0; q < 5; q++) {
        const dense = randomVector(rand);
        assert.deepEqual(set.search({ dense, topK: 10 }), set.search({ dense, topK: 10, exact: true }));
      }
    });

    it('reaches recall@10 >= 0.95 once indexed, with exact scores on every hit', () => {
      drain(set);
      assert.equal(set.unindexed, 0);
      assert.equal(set.tailCodeBytes, 0, 'no tail, no codes');
      let total = 0;
      const Q = 60;
      for (let q = 0; q < Q; q++) {
        const dense = randomVector(rand);
        const got = set.search({ dense, topK: 10 });
        const exact = set.search({ dense, topK: N, exact: true });
        const scoreOf = new Map(exact.map((h) => [h.id, h.score]));
        assert.equal(got.length, 10);
        for (const h of got) assert.equal(h.score, scoreOf.get(h.id), `score of ${h.id} is the exact one`);
        for (let i = 1; i < got.length; i++) assert.ok(got[i - 1].score >= got[i].score || metric === 'euclidean', 'ordered');
        total += recall(got, exact.slice(0, 10));
      }
      assert.ok(total / Q >= 0.95, `recall@10 ${total / Q}`);
    });

    it('a larger ef (maxCandidates) does not lower recall, and topK beyond ef still fills', () => {
      let low = 0;
      let high = 0;
      for (let q = 0; q < 30; q++) {
        const dense = randomVector(rand);
        const exact = set.search({ dense, topK: 10, exact: true });
        low += recall(set.search({ dense, topK: 10, ef: 10 }), exact);
        high += recall(set.search({ dense, topK: 10, ef: 400 }), exact);
      }
      assert.ok(high >= low, `ef 400 recall ${high / 30} < ef 10 recall ${low / 30}`);
      assert.ok(high / 30 >= 0.99, `ef 400 recall ${high / 30}`);
      const big = set.search({ dense: randomVector(rand), topK: 2500 });
      assert.equal(big.length, 2500);
      assert.equal(new Set(big.map((h) => h.id)).size, 2500);
    });

    it('new records are found in the tail at once, before any graph insertion', () => {
      const dense = randomVector(rand);
      // A record equal to the query scores best (cosine, dot with a large norm) or nearest (euclidean).
      const values = metric === 'dotproduct' ? dense.map((x) => x * 1000) : Float32Array.from(dense);
      set.upsert(N + 1, { id: 'fresh', values });
      assert.ok(set.unindexed >= 1);
      assert.equal(set.search({ dense, topK: 1 })[0].id, 'fresh');
      set.remove('fresh');
      assert.notEqual(set.search({ dense, topK: 1 })[0].id, 'fresh');
    });
  });
}

describe('HNSW graph: writes are never stale (randomised sequences against a model)', () => {
  for (const metric of ['cosine', 'euclidean', 'dotproduct'] as const) for (const insertThreads of INSERT_THREADS) {
    it(`${metric}, inserts on ${insertThreads} thread(s): upserts, value updates, metadata updates, deletes and drops`, () => {
      const rand = prng(metric.length * 977);
      const engine = new EngineIndex({ dimension: DIM, metric }, { graphMinRecords: 60, defaultEf: 32, insertThreads });
      const model = new Map<string, Map<string, StoredRecord>>([['a', new Map()], ['b', new Map()]]);
      let seq = 0;
      for (let step = 0; step < 1500; step++) {
        const ns = rand() < 0.8 ? 'a' : 'b';
        const live = model.get(ns)!;
        const r = rand();
        const id = `r${Math.floor(rand() * 250)}`;
        if (r < 0.55) {
          const record: StoredRecord = { id, values: randomVector(rand, 1 + rand()), metadata: { step } };
          engine.apply({ kind: 'upsert', ns, seq: ++seq, record });
          live.set(id, record);
        } else if (r < 0.65 && live.has(id)) {
          const record = { ...live.get(id)!, metadata: { step } }; // metadata only, same values
          engine.apply({ kind: 'upsert', ns, seq: ++seq, record });
          live.set(id, record);
        } else if (r < 0.95) {
          if (live.has(id)) engine.apply({ kind: 'delete', ns, seq: ++seq, id });
          live.delete(id);
        } else if (r < 0.955) {
          engine.apply({ kind: 'drop-namespace', ns, seq: ++seq });
          live.clear();
        }
        if (rand() < 0.3) engine.work(performance.now() + 1); // a slice of graph inserts now and then
        if (step % 10 !== 0) continue;
        const dense = randomVector(rand);
        const topK = 1 + Math.floor(rand() * 20);
        const got = engine.query({ namespace: ns, topK, dense, includeValues: true, includeMetadata: true });
        assert.equal(got.length, Math.min(topK, live.size), `step ${step}: short answer`);
        for (const m of got) {
          const want = live.get(m.id);
          assert.ok(want, `step ${step}: ${m.id} is not live in ${ns}`);
          assert.deepEqual(Array.from(m.record!.values!), Array.from(want.values!), `step ${step}: stale values of ${m.id}`);
          // Metadata is held as filter columns: the record's current step, and only it, matches.
          const byStep = engine.query({ namespace: ns, topK: 5, dense, filter: parseFilterNode({ step: want.metadata!.step }), includeValues: false, includeMetadata: false });
          assert.deepEqual(byStep.map((h) => h.id), [m.id], `step ${step}: stale metadata of ${m.id}`);
        }
        // A query for all records returns exactly the live set.
        const all = engine.query({ namespace: ns, topK: 10_000, dense, includeValues: false, includeMetadata: false });
        assert.deepEqual(all.map((m) => m.id).sort(), [...live.keys()].sort(), `step ${step}: live set`);
      }
      assert.deepEqual(Object.fromEntries(engine.count(parseFilterNode({})).filter(([, n]) => n > 0)), Object.fromEntries([...model].filter(([, m]) => m.size > 0).map(([ns, m]) => [ns, m.size])));
    });
  }
});
