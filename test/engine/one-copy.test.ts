// One copy of each vector (vector-set.ts invariants, vectors/arena.ts): once a record's
// vector is in a graph node, the arena lets it go and every path reads the node instead.
// For each metric, on unnormalised vectors: the arena's memory goes with the vectors it
// released; values read back (includeValues) are the written ones bit for bit; graph,
// filtered and exact answers equal an exact search over a set that never released a
// vector; and the vectors come back into the arena, unchanged, when their graph goes
// (too few records, a rebuild) or when they change. A restore trusts a snapshot's node
// only where it holds the record's vector exactly.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFilterNode } from '../../src/engine/filter.js';
import { HnswGraph } from '../../src/engine/graph/hnsw-graph.js';
import type { Metric } from '../../src/engine/model.js';
import { VectorSet, type GraphOptions, type Hit } from '../../src/engine/vector-set.js';
import { prng } from '../helpers/prng.js';
import { removeDir } from '../helpers/server.js';

const DIM = 16;
const N = 2500;

function vector(rand: () => number): Float32Array {
  const v = new Float32Array(DIM);
  const scale = 0.05 + rand() * 20; // lengths vary: cosine must not rely on unit vectors
  for (let i = 0; i < DIM; i++) v[i] = (rand() * 2 - 1) * scale;
  return v;
}

function drain(set: VectorSet): void {
  for (let i = 0; i < 100_000 && set.hasWork; i++) set.work(performance.now() + 50);
  assert.equal(set.hasWork, false, 'background work did not finish');
}

/** Every record with its slot and exact score against `dense`. */
function all(set: VectorSet, dense: Float32Array): Hit[] {
  return set.search({ dense, topK: set.size, exact: true });
}

/** Asserts every record's vector reads back as `want` has it, bit for bit. */
function assertValues(set: VectorSet, want: Map<string, Float32Array>): void {
  const hits = all(set, new Float32Array(DIM).fill(1));
  assert.equal(hits.length, want.size);
  for (const h of hits) {
    const got = set.record(h.slot).values;
    assert.ok(got, h.id);
    assert.deepEqual(new Uint32Array(got.buffer, got.byteOffset, DIM), new Uint32Array(want.get(h.id)!.buffer), h.id);
  }
}

for (const [metric, seed] of [['cosine', 11], ['euclidean', 22], ['dotproduct', 33]] as const) {
  describe(`one copy of each vector, ${metric}`, () => {
    const options: GraphOptions = { graphMinRecords: 1000, defaultEf: 64 };

    /** The same records in a set that keeps a graph and one that never has one (the reference). */
    function pair(rand: () => number): { set: VectorSet; ref: VectorSet; want: Map<string, Float32Array> } {
      const set = new VectorSet(DIM, metric as Metric, options);
      const ref = new VectorSet(DIM, metric as Metric, { graphMinRecords: 1e9, defaultEf: 64 });
      const want = new Map<string, Float32Array>();
      for (let i = 0; i < N; i++) {
        const values = vector(rand);
        const record = { id: `v${i}`, values, metadata: { bucket: i % 10 } };
        set.upsert(i + 1, record);
        ref.upsert(i + 1, record);
        want.set(record.id, values);
      }
      return { set, ref, want };
    }

    /** Graph, filtered and exact answers of `set` equal the reference's exact ones (ids and scores). */
    function assertAnswers(set: VectorSet, ref: VectorSet, rand: () => number): void {
      for (let q = 0; q < 5; q++) {
        const dense = vector(rand);
        const exact = ref.search({ dense, topK: 10, exact: true });
        assert.deepEqual(set.search({ dense, topK: 10, ef: N }), exact, 'graph walk, rescored from the nodes');
        assert.deepEqual(set.search({ dense, topK: 10, exact: true }), exact, 'exact scan over the nodes');
        const filter = parseFilterNode({ bucket: 3 });
        assert.deepEqual(set.search({ dense, topK: 10, filter, exact: true }), ref.search({ dense, topK: 10, filter, exact: true }), 'filtered');
      }
    }

    it('a vector in the graph leaves the arena; values and answers stay exact', () => {
      const rand = prng(seed);
      const { set, ref, want } = pair(rand);
      const held = set.vectorBytes;
      assert.ok(held >= N * DIM * 4, `before indexing the arena holds every vector (${held} B)`);
      drain(set);
      assert.equal(set.unindexed, 0);
      assert.ok(set.vectorBytes < N * DIM, `the arena let the vectors go: ${set.vectorBytes} B left of ${held}`);
      assertValues(set, want);
      assertAnswers(set, ref, rand);
    });

    it('a changed vector is held again until its node has it; an unchanged upsert reads the node', () => {
      const rand = prng(seed + 1);
      const { set, ref, want } = pair(rand);
      drain(set);
      const released = set.vectorBytes;
      // Metadata-only change: compared against the node, found equal, nothing queued.
      set.upsert(N + 1, { id: 'v7', values: want.get('v7'), metadata: { bucket: 3 } });
      ref.upsert(N + 1, { id: 'v7', values: want.get('v7'), metadata: { bucket: 3 } });
      assert.equal(set.unindexed, 0, 'an unchanged vector is not queued again');
      // New vectors for 50 records: held in the arena (a chunk again) and searched in the tail.
      for (let i = 0; i < 50; i++) {
        const record = { id: `v${i * 37}`, values: vector(rand), metadata: { bucket: i % 10 } };
        set.upsert(N + 2 + i, record);
        ref.upsert(N + 2 + i, record);
        want.set(record.id, record.values);
      }
      assert.equal(set.unindexed, 50);
      assert.ok(set.vectorBytes > released, 'the changed vectors are held');
      assertValues(set, want);
      assertAnswers(set, ref, rand);
      drain(set);
      assert.ok(set.vectorBytes <= released, `released again once inserted: ${set.vectorBytes} B, ${released} before`);
      assertValues(set, want);
      assertAnswers(set, ref, rand);
    });

    it('vectors come back into the arena when a rebuild replaces the graph and when the graph is dropped', () => {
      const rand = prng(seed + 2);
      const { set, ref, want } = pair(rand);
      const removeRange = (from: number, to: number): void => {
        for (let i = from; i < to; i++) {
          set.remove(`v${i}`);
          ref.remove(`v${i}`);
          want.delete(`v${i}`);
        }
      };
      drain(set);
      // Over a fifth deleted: a fresh graph is built and swapped in.
      removeRange(0, 700);
      drain(set);
      assert.ok(set.hasGraph);
      assertValues(set, want);
      assertAnswers(set, ref, rand);
      // Below half of graphMinRecords: the graph goes, every vector is held again.
      removeRange(700, 2100);
      assert.equal(set.hasGraph, false);
      assert.ok(set.vectorBytes >= want.size * DIM * 4, 'the arena holds every vector again');
      assertValues(set, want);
      assertAnswers(set, ref, rand);
    });

    it("a restore releases a vector only where the snapshot's node holds it bit for bit", () => {
      const rand = prng(seed + 3);
      const { set, want } = pair(rand);
      drain(set);
      const snap = set.snapshot('', N);
      assert.ok(snap);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conifer-one-copy-'));
      try {
        const file = path.join(dir, 'graph');
        snap.writeGraph(file);
        const restored = new VectorSet(DIM, metric as Metric, options);
        restored.restore(HnswGraph.load(metric as Metric, DIM, file, snap.state.indexed, snap.state.inGraph), snap.state.ids, N);
        // v5 comes back with other values under a seq the snapshot claims to hold: its
        // node disagrees, so the arena must keep it (and answer with it).
        const other = vector(rand);
        for (let i = 0; i < N; i++) restored.upsert(i + 1, { id: `v${i}`, values: i === 5 ? other : want.get(`v${i}`), metadata: { bucket: i % 10 } });
        restored.finishRestore();
        want.set('v5', other);
        assert.ok(restored.vectorBytes < N * DIM * 4, `the restored nodes' vectors left the arena: ${restored.vectorBytes} B`);
        assertValues(restored, want);
        restored.close();
      } finally {
        removeDir(dir);
      }
    });
  });
}
