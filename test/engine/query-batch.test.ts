// Query batches (engine-worker.ts "Query batches"): a batch of queries whose graph walks
// and sparse-only searches run side by side on several native threads answers exactly
// what the same queries answer one by one on the same state — for all three metrics,
// filtered and unfiltered, with different topK and ef in one batch, sparse-only and hybrid
// queries mixed in, records still in the tail, and after random writes. Then over HTTP: a
// server with CONIFER_QUERY_THREADS=3 answers queries sent eight at a time as it answers
// them alone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EngineIndex } from '../../src/engine/engine-index.js';
import { parseFilterNode } from '../../src/engine/filter.js';
import type { Metric } from '../../src/engine/model.js';
import type { EngineQuery } from '../../src/engine/protocol.js';
import { VectorSet, type SearchQuery } from '../../src/engine/vector-set.js';
import { HnswGraph } from '../../src/engine/graph/hnsw-graph.js';
import { Bitmap } from '../../src/engine/metadata/bitmap.js';
import { VectorArena } from '../../src/engine/vectors/arena.js';
import { prepareSparse, SparseIndex } from '../../src/engine/sparse/sparse-index.js';
import { EngineShard } from '../../src/engine/engine-shard.js';
import { api, removeDir, startServer, tempDataDir, type TestServer } from '../helpers/server.js';
import { prng } from '../helpers/prng.js';
import { fromArena } from '../helpers/arena-source.js';

const DIM = 16;

function randomVector(rand: () => number, scale = 1): Float32Array {
  const v = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) v[i] = (rand() * 2 - 1) * scale;
  return v;
}

function randomSparse(rand: () => number): { indices: Uint32Array; values: Float32Array } {
  const dims = new Set<number>();
  const n = 1 + Math.floor(rand() * 6);
  while (dims.size < n) dims.add(Math.floor(rand() * 40));
  const indices = Uint32Array.from([...dims].sort((a, b) => a - b));
  return { indices, values: Float32Array.from(indices, () => rand() * 2 - 0.5) };
}

/** A mix of the queries the engine plans differently. */
function mixedQueries(rand: () => number, metric: Metric, count: number): SearchQuery[] {
  const out: SearchQuery[] = [];
  for (let i = 0; i < count; i++) {
    const dense = randomVector(rand);
    const r = rand();
    if (r < 0.4) out.push({ dense, topK: 10 });
    else if (r < 0.5) out.push({ dense, topK: 1 + Math.floor(rand() * 30) });
    else if (r < 0.6) out.push({ dense, topK: 10, maxCandidates: 200 });
    else if (r < 0.75) out.push({ dense, topK: 10, filter: parseFilterNode({ bucket: { $lt: 1 + Math.floor(rand() * 10) } }) });
    else if (r < 0.8) out.push({ dense, topK: 10, filter: parseFilterNode({ bucket: 3 }) });
    else if (r < 0.85) out.push({ dense, topK: 5, ef: 12 });
    else if (metric === 'dotproduct' && r < 0.9) out.push({ sparse: randomSparse(rand), topK: 10 });
    else if (metric === 'dotproduct' && r < 0.93) out.push({ sparse: randomSparse(rand), topK: 4, filter: parseFilterNode({ bucket: { $gte: 5 } }) });
    else if (metric === 'dotproduct') out.push({ dense, sparse: randomSparse(rand), topK: 10 });
    else out.push({ dense, topK: 10 });
  }
  return out;
}

for (const metric of ['cosine', 'euclidean', 'dotproduct'] as const) {
  describe(`query batches, ${metric}`, () => {
    const rand = prng(metric.length * 131);
    const set = new VectorSet(DIM, metric, { graphMinRecords: 300, defaultEf: 48, insertThreads: 2 });
    let seq = 0;
    const upsert = (i: number): void =>
      set.upsert(++seq, {
        id: `v${i}`,
        values: randomVector(rand, metric === 'dotproduct' ? 0.2 + rand() * 5 : 1),
        sparse: metric === 'dotproduct' ? randomSparse(rand) : undefined,
        metadata: { bucket: i % 10 },
      });
    for (let i = 0; i < 3000; i++) upsert(i);

    it('answer as the same queries one by one, with part of the records still in the tail', () => {
      set.work(performance.now() + 30); // a partly built graph
      assert.ok(set.unindexed > 0 && set.hasGraph, `tail ${set.unindexed}`);
      const qs = mixedQueries(rand, metric, 60);
      assert.deepEqual(set.searchBatch(qs, 3), qs.map((q) => set.search(q)));
    });

    it('answer as the same queries one by one once indexed, and after random writes', () => {
      for (let i = 0; i < 100_000 && set.hasWork; i++) set.work(performance.now() + 50);
      assert.equal(set.unindexed, 0);
      for (let round = 0; round < 5; round++) {
        const qs = mixedQueries(rand, metric, 40);
        const traces = qs.map(() => ({}));
        const batched = set.searchBatch(qs.map((q, i) => ({ ...q, trace: traces[i] })), 4);
        assert.deepEqual(batched, qs.map((q) => set.search(q)), `round ${round}`);
        assert.ok(
          traces.filter((t: { plan?: string }) => t.plan === 'graph').length >= 10,
          `most queries of round ${round} walked the graph together`,
        );
        for (let w = 0; w < 200; w++) {
          const i = Math.floor(rand() * 3200);
          if (rand() < 0.7) upsert(i);
          else set.remove(`v${i}`);
        }
        set.work(performance.now() + 5);
      }
    });
  });
}

describe('HnswGraph.searchMany', () => {
  it('returns what search() returns for each query, filtered or not, on 1 to 5 threads', () => {
    const rand = prng(7);
    const graph = HnswGraph.create('cosine', DIM, 2000);
    const arena = new VectorArena(DIM);
    for (let i = 0; i < 1500; i++) {
      arena.set(i, randomVector(rand));
      graph.enqueue(i);
    }
    for (let i = 0; i < 1000 && graph.pending > 0; i++) graph.insertUntil(performance.now() + 50, fromArena(arena), () => true, 2);
    assert.equal(graph.pending, 0);
    const allowed = new Bitmap(1500);
    for (let i = 0; i < 1500; i += 3) allowed.add(i);
    const qs = Array.from({ length: 25 }, () => randomVector(rand));
    const filters = qs.map((_, i) => (i % 2 === 0 ? allowed : undefined));
    for (const threads of [1, 2, 5]) {
      assert.deepEqual(
        graph.searchMany(qs, 7, 40, filters, threads),
        qs.map((q, i) => graph.search(q, 7, 40, filters[i])),
        `${threads} threads`,
      );
    }
    for (const labels of graph.searchMany(qs, 7, 40, filters, 2).filter((_, i) => i % 2 === 0)) {
      for (const label of labels) assert.equal(label % 3, 0, 'a filtered walk returns only allowed labels');
    }
    graph.close();
  });
});

describe('SparseIndex.searchMany', () => {
  it('returns what search() returns for each query, with and without an allowed set, natively on 1 to 4 threads and in JavaScript', () => {
    const rand = prng(31);
    const build = (native: boolean): SparseIndex => {
      const index = native ? new SparseIndex() : new SparseIndex(null);
      const r = prng(32);
      for (let label = 0; label < 4000; label++) index.set(label, randomSparse(r));
      return index;
    };
    const native = build(true);
    assert.ok(native.isNative, 'the native addon is loaded');
    const plain = build(false);
    const allowed = new Bitmap(4000);
    for (let i = 0; i < 4000; i += 2) allowed.add(i);
    const qs = Array.from({ length: 30 }, (_, i) => ({
      q: prepareSparse(randomSparse(rand)),
      topK: i % 7 === 0 ? 0 : 1 + (i % 12),
      allow: i % 3 === 0 ? allowed : undefined,
    }));
    const idOf = (label: number): string => `r${label}`;
    const one = qs.map(({ q, topK, allow }) => native.search(q, topK, idOf, allow));
    assert.ok(one.filter((hits) => hits.length > 0).length >= 20, 'most queries find records');
    for (const threads of [1, 2, 4]) assert.deepEqual(native.searchMany(qs, idOf, threads), one, `${threads} threads`);
    assert.deepEqual(plain.searchMany(qs, idOf, 3), one, 'the JavaScript path');
  });
});

describe('EngineIndex.queryBatch', () => {
  it('answers queries of several namespaces, with values and metadata, as query() does', () => {
    const rand = prng(99);
    const engine = new EngineIndex({ dimension: DIM, metric: 'cosine' }, { graphMinRecords: 100, defaultEf: 32, insertThreads: 1 });
    let seq = 0;
    for (let i = 0; i < 900; i++) {
      const ns = ['a', 'b', 'c'][i % 3];
      engine.apply({ kind: 'upsert', ns, seq: ++seq, record: { id: `r${i}`, values: randomVector(rand), metadata: { i, tag: `t${i % 4}` } } });
    }
    for (let i = 0; i < 1000 && engine.hasWork; i++) engine.work(performance.now() + 50);
    const qs: EngineQuery[] = Array.from({ length: 30 }, (_, i) => ({
      namespace: ['a', 'b', 'c', 'missing'][i % 4],
      topK: 3 + (i % 5),
      dense: randomVector(rand),
      filter: i % 3 === 0 ? parseFilterNode({ tag: 't1' }) : undefined,
      includeValues: i % 2 === 0,
      includeMetadata: i % 4 !== 1,
    }));
    assert.deepEqual(engine.queryBatch(qs, 3), qs.map((q) => engine.query(q)));
  });
});

describe('query batches in the engine worker', () => {
  it('answer a query before a close posted right after it (the close does not overtake the batch)', async () => {
    const dir = tempDataDir();
    const quiet = { info: () => {}, warn: () => {}, error: () => {} };
    const shard = new EngineShard(quiet, { backgroundNice: 0, insertThreads: 1, queryThreads: 2 });
    try {
      await shard.open('batch-close', dir, { dimension: 4, metric: 'euclidean' }, 'batch-close', true);
      const query = { namespace: '', topK: 3, dense: new Float32Array(4), includeValues: false, includeMetadata: false };
      // Posted in the same turn: the worker receives both in one delivery of its port.
      const answers = [shard.query('batch-close', query, 0), shard.query('batch-close', query, 0)];
      const closed = shard.close('batch-close');
      for (const answer of await Promise.all(answers)) assert.deepEqual(answer.matches, []);
      await closed;
      await assert.rejects(shard.query('batch-close', query, 0), /not open/);
    } finally {
      await shard.stop();
      removeDir(dir);
    }
  });
});

describe('query batches over HTTP (CONIFER_QUERY_THREADS=3)', () => {
  let server: TestServer;
  let host = '';
  const rand = prng(2024);
  before(async () => {
    server = await startServer({ env: { CONIFER_QUERY_THREADS: '3' } });
    const created = await api(server, 'POST', '/indexes', {
      body: { name: 'batch', dimension: DIM, metric: 'euclidean', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    host = created.body.host;
    // Past the graph threshold (5,000 records), so the queries walk a graph.
    for (let from = 0; from < 6000; from += 500) {
      const vectors = Array.from({ length: 500 }, (_, j) => ({ id: `v${from + j}`, values: Array.from(randomVector(rand)), metadata: { n: (from + j) % 7 } }));
      const r = await api(server, 'POST', `${host}/vectors/upsert`, { body: { vectors } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    // Every record in the graph first: graph inserts meanwhile would change the state the
    // two passes below search (a record leaving the exact tail for the approximate graph).
    // The gauge counts acknowledged upserts the engine has not applied yet too.
    for (let i = 0; i < 1200; i++) {
      const metrics = await api(server, 'GET', '/metrics', { key: null });
      if (/^conifer_engine_unindexed_records\{[^}]*\} 0$/m.test(metrics.text)) return;
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.fail('the index was not fully indexed within 60 s');
  });
  after(async () => {
    await server?.stop();
  });

  it('answers queries sent eight at a time as it answers each alone', async () => {
    const bodies = Array.from({ length: 64 }, (_, i) => ({
      vector: Array.from(randomVector(rand)),
      topK: 10,
      includeMetadata: true,
      ...(i % 4 === 0 ? { filter: { n: { $lt: 3 } } } : {}),
    }));
    const alone: unknown[] = [];
    for (const body of bodies) alone.push((await api(server, 'POST', `${host}/query`, { body })).body);
    for (let from = 0; from < bodies.length; from += 8) {
      const together = await Promise.all(bodies.slice(from, from + 8).map((body) => api(server, 'POST', `${host}/query`, { body })));
      together.forEach((r, i) => {
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, alone[from + i], `query ${from + i}`);
      });
    }
  });
});
