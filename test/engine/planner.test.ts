// The filter planner: choosePlan's branches as a table, then each branch forced on a real
// namespace with a graph (through the crossover factor and the `exact` switch, observed
// through the search trace) and compared with an exact search of the same query.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HnswGraph } from '../../src/engine/graph/hnsw-graph.js';
import { compileFilter, parseFilterNode, type Metadata } from '../../src/engine/filter.js';
import { choosePlan, filteredExactCrossover, filteredWalkEf, type PlanInput } from '../../src/engine/planner/plan.js';
import { VectorSet, type GraphOptions, type Hit, type SearchTrace } from '../../src/engine/vector-set.js';
import { prng } from '../helpers/prng.js';

const DIM = 16;

function randomVector(rand: () => number): Float32Array {
  const v = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) v[i] = rand() * 2 - 1;
  return v;
}

function drain(set: VectorSet): void {
  for (let i = 0; i < 100_000 && set.hasWork; i++) set.work(performance.now() + 50);
  assert.equal(set.hasWork, false, 'background work did not finish');
}

describe('choosePlan', () => {
  const base: PlanInput = {
    hasGraph: true,
    dense: true,
    sparse: false,
    exact: false,
    records: 100_000,
    matches: undefined,
    topK: 10,
    ef: 64,
    filteredExactFactor: 2.5,
  };
  // 2.5·√(64·100000) = 6324.6
  const crossover = filteredExactCrossover(64, 100_000, 2.5);
  const cases: [string, Partial<PlanInput>, string][] = [
    ['unfiltered dense with a graph', {}, 'graph'],
    ['no graph (small namespace)', { hasGraph: false }, 'exact'],
    ['the exact switch', { exact: true }, 'exact'],
    ['the exact switch with matches', { exact: true, matches: 50_000 }, 'exact'],
    ['sparse-only', { dense: false, sparse: true }, 'exact'],
    ['hybrid, unfiltered', { sparse: true }, 'hybrid'],
    ['hybrid, filtered', { sparse: true, matches: 50_000 }, 'exact'],
    ['hybrid, no graph', { sparse: true, hasGraph: false }, 'exact'],
    ['nothing matches', { matches: 0 }, 'empty'],
    ['nothing matches, no graph', { matches: 0, hasGraph: false }, 'empty'],
    ['nothing matches, exact switch', { matches: 0, exact: true }, 'empty'],
    ['matches <= topK', { matches: 10 }, 'exact'],
    ['matches just below the crossover', { matches: Math.floor(crossover) }, 'exact'],
    ['matches at the crossover', { matches: Math.ceil(crossover) }, 'graph'],
    ['half matching', { matches: 50_000 }, 'graph'],
    ['factor 0: anything above topK walks the graph', { matches: 11, filteredExactFactor: 0 }, 'graph'],
    ['a larger ef moves the crossover up', { matches: 7000, ef: 100 }, 'exact'],
  ];
  for (const [name, over, want] of cases) {
    it(`${name} → ${want}`, () => assert.equal(choosePlan({ ...base, ...over }), want));
  }
  it('the filtered walk ef is full × m/N, rounded up, at least min', () => {
    assert.equal(filteredWalkEf(50_000, 100_000, 64, 16), 32);
    assert.equal(filteredWalkEf(10_000, 100_000, 64, 16), 16);
    assert.equal(filteredWalkEf(60_001, 100_000, 64, 16), 39);
    assert.equal(filteredWalkEf(100_000, 100_000, 64, 16), 64);
  });
  it('the crossover is factor·√(ef·N)', () => {
    assert.equal(Math.round(crossover), 6325);
    assert.equal(Math.round(filteredExactCrossover(100, 100_000, 1.5)), 4743);
  });
});

describe('planner branches on a namespace with a graph, against exact search', () => {
  const rand = prng(4242);
  const N = 2000;
  const metadata = new Map<string, Metadata>();
  const build = (options: GraphOptions): VectorSet => {
    const set = new VectorSet(DIM, 'cosine', options);
    const r = prng(99);
    for (let i = 0; i < N; i++) {
      const m: Metadata = { pct: i % 100, tags: i % 7 === 0 ? ['seven', 'x'] : ['x'] };
      if (i % 3 === 0) m.three = true;
      metadata.set(`v${i}`, m);
      set.upsert(i + 1, { id: `v${i}`, values: randomVector(r), metadata: m });
    }
    drain(set);
    return set;
  };
  // Factor 0 sends every filtered query with more than topK matches to the graph.
  const walk = build({ graphMinRecords: 300, defaultEf: 64, filteredExactFactor: 0 });
  const planned = build({ graphMinRecords: 300, defaultEf: 64 });
  const filters = [
    { pct: { $lt: 50 } }, // 50 %
    { pct: { $lt: 10 } }, // 10 %
    { pct: 3 }, // 1 %
    { $and: [{ pct: { $gte: 20, $lt: 60 } }, { tags: { $in: ['seven'] } }] }, // two fields, list field
    { three: { $ne: true } },
  ];
  const matchCount = (raw: object): number => {
    const keep = compileFilter(parseFilterNode(raw));
    return [...metadata.values()].filter((m) => keep(m)).length;
  };
  const checkAgainstExact = (got: Hit[], want: Hit[], raw: object, minRecall: number): void => {
    const keep = compileFilter(parseFilterNode(raw));
    for (const h of got) assert.ok(keep(metadata.get(h.id)), `${h.id} does not match ${JSON.stringify(raw)}`);
    assert.equal(got.length, want.length, 'short answer');
    const ids = new Set(want.map((h) => h.id));
    const found = got.filter((h) => ids.has(h.id)).length;
    assert.ok(found / want.length >= minRecall, `recall ${found}/${want.length} for ${JSON.stringify(raw)}`);
    const exactScore = new Map(want.map((h) => [h.id, h.score]));
    for (const h of got) if (exactScore.has(h.id)) assert.equal(h.score, exactScore.get(h.id));
  };

  it('graph branch: with ef ≥ N the filtered walk equals exact search', () => {
    for (const raw of filters) {
      for (let q = 0; q < 5; q++) {
        const dense = randomVector(rand);
        const filter = parseFilterNode(raw);
        const trace: SearchTrace = {};
        const got = walk.search({ dense, topK: 10, filter, ef: N, trace });
        assert.equal(trace.plan, 'graph');
        assert.equal(trace.matches, matchCount(raw));
        assert.notEqual(trace.rerunExact, true);
        assert.deepEqual(got, walk.search({ dense, topK: 10, filter, exact: true }));
      }
    }
  });

  it('graph branch at the default ef: every hit matches, never short, recall >= 0.9 per query', () => {
    for (const raw of filters) {
      for (let q = 0; q < 10; q++) {
        const dense = randomVector(rand);
        const filter = parseFilterNode(raw);
        const trace: SearchTrace = {};
        const got = walk.search({ dense, topK: 10, filter, trace });
        assert.equal(trace.plan, 'graph');
        checkAgainstExact(got, walk.search({ dense, topK: 10, filter, exact: true }), raw, 0.9);
      }
    }
  });

  it('exact branch below the crossover: the planned namespace scans the matches', () => {
    // Default factor 2 at the filtered ef (64·m/N, at least 16): 2·√(16·2000) ≈ 358
    // matches, so 1 % (20) and the two-field filter (~114) fall below; 50 % (1,000,
    // ef 32: 2·√(32·2000) ≈ 506) above.
    const expectations: [object, string][] = [
      [{ pct: 3 }, 'exact'],
      [{ $and: [{ pct: { $gte: 20, $lt: 60 } }, { tags: { $in: ['seven'] } }] }, 'exact'],
      [{ pct: { $lt: 50 } }, 'graph'],
    ];
    for (const [raw, plan] of expectations) {
      const dense = randomVector(rand);
      const filter = parseFilterNode(raw);
      const trace: SearchTrace = {};
      const got = planned.search({ dense, topK: 10, filter, trace });
      assert.equal(trace.plan, plan, JSON.stringify(raw));
      const want = planned.search({ dense, topK: 10, filter, exact: true });
      if (plan === 'exact') assert.deepEqual(got, want);
      else checkAgainstExact(got, want, raw, 0.9);
    }
  });

  it('exact branch when matches <= topK, even with factor 0', () => {
    const raw = { pct: 3, tags: { $in: ['seven'] } }; // ~3 records
    const m = matchCount(raw);
    assert.ok(m > 0 && m <= 10);
    const dense = randomVector(rand);
    const trace: SearchTrace = {};
    const got = walk.search({ dense, topK: 10, filter: parseFilterNode(raw), trace });
    assert.equal(trace.plan, 'exact');
    assert.equal(got.length, m);
  });

  it('empty branch: nothing matches, nothing returned', () => {
    const trace: SearchTrace = {};
    assert.deepEqual(walk.search({ dense: randomVector(rand), topK: 10, filter: parseFilterNode({ pct: 1000 }), trace }), []);
    assert.equal(trace.plan, 'empty');
    assert.equal(trace.matches, 0);
  });

  it('a filtered walk scales its ef with the share matching; maxCandidates raises it, an explicit ef sets it', () => {
    const set = build({ graphMinRecords: 300, defaultEf: 64, filteredEf: 64, filteredEfMin: 8, filteredExactFactor: 0 });
    const dense = randomVector(rand);
    const half = parseFilterNode({ pct: { $lt: 50 } }); // 1,000 of 2,000
    const tenth = parseFilterNode({ pct: { $lt: 10 } }); // 200 of 2,000
    const efOf = (q: Partial<Parameters<VectorSet['search']>[0]>): number | undefined => {
      const trace: SearchTrace = {};
      set.search({ dense, topK: 10, ...q, trace });
      assert.equal(trace.plan, 'graph');
      return trace.ef;
    };
    assert.equal(efOf({}), 64, 'unfiltered: defaultEf');
    assert.equal(efOf({ filter: half }), 32, '64 × 1/2');
    assert.equal(efOf({ filter: tenth }), 8, '64 × 1/10 = 6.4, raised to the minimum');
    assert.equal(efOf({ filter: half, maxCandidates: 10 }), 32);
    assert.equal(efOf({ filter: half, maxCandidates: 200 }), 200);
    assert.equal(efOf({ maxCandidates: 200 }), 200);
    assert.equal(efOf({ filter: half, ef: 12 }), 12);
    // The crossover is computed at the filtered ef (the minimum, 16, here):
    // 2·√(16·2000) ≈ 358 matches.
    const planned = build({ graphMinRecords: 300, defaultEf: 64 });
    const plans = [{ pct: { $lt: 15 } }, { pct: { $lt: 18 } }].map((raw) => {
      const trace: SearchTrace = {};
      planned.search({ dense, topK: 10, filter: parseFilterNode(raw), trace });
      return `${trace.matches}:${trace.ef}:${trace.plan}`;
    });
    assert.deepEqual(plans, ['300:16:exact', '360:16:graph']);
  });

  it('the exact switch overrides the planner', () => {
    const trace: SearchTrace = {};
    walk.search({ dense: randomVector(rand), topK: 10, filter: parseFilterNode({ pct: { $lt: 50 } }), exact: true, trace });
    assert.equal(trace.plan, 'exact');
  });

  it('graph branch with a tail: matching records not yet in the graph are found', () => {
    const set = build({ graphMinRecords: 300, defaultEf: 64, filteredExactFactor: 0 });
    const r = prng(7);
    // New records, not inserted into the graph yet (no work slice runs).
    for (let i = 0; i < 50; i++) set.upsert(N + 1 + i, { id: `t${i}`, values: randomVector(r), metadata: { pct: 3, fresh: true } });
    assert.ok(set.unindexed >= 50);
    const dense = randomVector(rand);
    const filter = parseFilterNode({ pct: 3 });
    const trace: SearchTrace = {};
    const got = set.search({ dense, topK: 30, filter, ef: N + 100, trace });
    assert.equal(trace.plan, 'graph');
    assert.deepEqual(got, set.search({ dense, topK: 30, filter, exact: true }));
    assert.ok(got.some((h) => h.id.startsWith('t')), 'a tail record is among the best');
  });

  it('graph answered short: the query is rerun exactly and equals exact search', () => {
    // Deterministic construction of matches the walk cannot reach: a namespace restored
    // from a snapshot whose flags claim 20 extra labels are in the graph while the graph
    // file lacks them (a graph that lost nodes). Those records are then neither in the
    // graph nor in the tail, so the filtered walk returns none of them: short.
    const source = build({ graphMinRecords: 300, defaultEf: 64 });
    const snap = source.snapshot('', N);
    assert.ok(snap, 'the source namespace has a graph');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conifer-planner-'));
    try {
      const file = path.join(dir, 'graph');
      snap.writeGraph(file);
      const LOST = 20;
      const extent = snap.state.ids.length + LOST;
      const indexed = new Uint8Array(extent);
      const inGraph = new Uint8Array(extent);
      indexed.set(snap.state.indexed);
      inGraph.set(snap.state.inGraph);
      indexed.fill(1, snap.state.ids.length);
      inGraph.fill(1, snap.state.ids.length);
      const ids = [...snap.state.ids, ...Array.from({ length: LOST }, (_, i) => `lost${i}`)];
      const set = new VectorSet(DIM, 'cosine', { graphMinRecords: 300, defaultEf: 64, filteredExactFactor: 0 });
      set.restore(HnswGraph.load('cosine', DIM, file, indexed, inGraph), ids, N);
      const r = prng(99);
      for (let i = 0; i < N; i++) set.upsert(i + 1, { id: `v${i}`, values: randomVector(r), metadata: { lost: false } });
      const lostRand = prng(5);
      for (let i = 0; i < LOST; i++) set.upsert(N, { id: `lost${i}`, values: randomVector(lostRand), metadata: { lost: true } });
      set.finishRestore();
      assert.equal(set.unindexed, 0, 'the lost records are not in the tail');

      const filter = parseFilterNode({ lost: true });
      for (let q = 0; q < 3; q++) {
        const dense = randomVector(rand);
        const trace: SearchTrace = {};
        const got = set.search({ dense, topK: 10, filter, trace });
        assert.equal(trace.plan, 'graph');
        assert.equal(trace.matches, LOST);
        assert.equal(trace.rerunExact, true);
        const want = set.search({ dense, topK: 10, filter, exact: true });
        assert.equal(want.length, 10);
        assert.ok(want.every((h) => h.id.startsWith('lost')));
        assert.deepEqual(got, want);
      }
      // Records the graph does hold are still answered by the walk, without a rerun.
      const trace: SearchTrace = {};
      set.search({ dense: randomVector(rand), topK: 10, filter: parseFilterNode({ lost: false }), trace });
      assert.equal(trace.plan, 'graph');
      assert.notEqual(trace.rerunExact, true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
