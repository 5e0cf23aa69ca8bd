// sparse/hybrid.ts's steps against hand-made sources: which step runs, in what order, and
// when the answer is declared bounded (exact up to the graph's recall). The records'
// dense and sparse parts are tables, so every bound the search relies on is known here.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hybridSearch, type HybridSources } from '../../../src/engine/sparse/hybrid.js';
import type { Scorer } from '../../../src/engine/vectors/exact-scan.js';

interface Table {
  dense: number[];
  /** NaN: the record shares no dimension with the query. */
  sparse: number[];
}

interface Calls {
  reaching: number[];
  sparseTop: number[];
}

/**
 * Sources over `t`: the graph gives the best labels by dense part, the postings'
 * candidates are approximate (every other record by sparse part: the real ones rank by
 * partial sums), sparseTop() is exact, and the
 * threshold step is always over its budget unless `reachingAllowedFrom` is set (it then
 * answers for tau at or above it).
 */
function sources(
  t: Table,
  calls: Calls,
  opts: { withSparseTop?: boolean; reachingAllowedFrom?: number; candidates?: number[]; graphTiesLastFirst?: boolean } = {},
): HybridSources {
  const labels = t.dense.map((_, i) => i);
  // A graph may return any of records tied on the dense part; `graphTiesLastFirst` makes it
  // return the higher labels.
  const byDense = [...labels].sort((a, b) => t.dense[b] - t.dense[a] || (opts.graphTiesLastFirst ? b - a : a - b));
  const sharing = labels.filter((l) => t.sparse[l] === t.sparse[l]);
  const bySparse = [...sharing].sort((a, b) => t.sparse[b] - t.sparse[a] || a - b);
  const scorer = {
    rankWith: (_label: number, dense: number, sparse?: number) => Math.fround(dense + (sparse !== undefined && sparse === sparse ? sparse : 0)),
    score: (rank: number) => rank,
  } as unknown as Scorer;
  return {
    graph: (n) => byDense.slice(0, n),
    tail: [],
    tailBest: () => [],
    dense: (ls, count, out) => {
      for (let i = 0; i < count; i++) out[i] = t.dense[ls[i]];
    },
    sparse: (ls, count, out) => {
      for (let i = 0; i < count; i++) out[i] = t.sparse[ls[i]];
    },
    sparseCandidates: (n) => (opts.candidates ?? bySparse.filter((_, i) => i % 2 === 1)).slice(0, n),
    sparseReaching: (tau) => {
      calls.reaching.push(tau);
      if (opts.reachingAllowedFrom === undefined || tau < opts.reachingAllowedFrom) return undefined;
      return sharing.filter((l) => t.sparse[l] >= tau);
    },
    sparseTop:
      opts.withSparseTop === false
        ? undefined
        : (m) => {
            calls.sparseTop.push(m);
            const top = bySparse.slice(0, m);
            return { labels: top, least: top.length < m ? undefined : Math.fround(t.sparse[top[top.length - 1]]) };
          },
    scorer,
    idOf: (label) => `r${String(label).padStart(4, '0')}`,
  };
}

/** The exact top k of the table by dense + sparse (ties by id). */
function exactTop(t: Table, k: number): number[] {
  const score = (l: number): number => Math.fround(t.dense[l] + (t.sparse[l] === t.sparse[l] ? t.sparse[l] : 0));
  return t.dense
    .map((_, l) => l)
    .sort((a, b) => score(b) - score(a) || a - b)
    .slice(0, k);
}

/** 1,000 records: dense parts in [0, 1), sparse parts `scale` × [0, 1) on 600 of them. */
function table(scale: number, seed: number): Table {
  let x = seed;
  const next = (): number => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const dense: number[] = [];
  const sparse: number[] = [];
  for (let i = 0; i < 1000; i++) {
    dense.push(next());
    sparse.push(i % 5 < 3 ? scale * next() : NaN);
  }
  return { dense, sparse };
}

describe('hybridSearch step 2b: the sparse side\'s exact top when the threshold step is over budget', () => {
  it('where the sparse part decides, runs once after step 2 fails and bounds the answer, which is the exact top k', () => {
    // Sparse parts up to 20 against dense parts below 1: the 100th best sparse part plus
    // the 100th best dense part is far below the 10th best score.
    const t = table(20, 1);
    const calls: Calls = { reaching: [], sparseTop: [] };
    const found = hybridSearch(10, 10, sources(t, calls), 1)!;
    assert.equal(found.allPostings, true, 'a postings candidate entered the top k');
    assert.equal(found.sparseTop, true);
    assert.equal(found.bounded, true);
    assert.deepEqual(calls.sparseTop, [100], 'asked once, for as many as the dense candidates');
    assert.equal(calls.reaching.length, 1, 'step 2 ran first, once');
    assert.deepEqual(
      found.hits.map((h) => h.label),
      exactTop(t, 10),
    );
  });

  it('without it (the same query) the answer is not bounded', () => {
    const t = table(20, 1);
    const calls: Calls = { reaching: [], sparseTop: [] };
    const found = hybridSearch(10, 10, sources(t, calls, { withSparseTop: false }), 1)!;
    assert.equal(found.sparseTop, false);
    assert.equal(found.bounded, false);
  });

  it('does not run where the dense part decides (no postings candidate reached the top k)', () => {
    const t = table(0.001, 2);
    const calls: Calls = { reaching: [], sparseTop: [] };
    const found = hybridSearch(10, 10, sources(t, calls), 1)!;
    assert.equal(found.allPostings, false);
    assert.equal(found.sparseTop, false);
    assert.deepEqual(calls.sparseTop, []);
  });

  it('when θ stays below the outside bound, is not bounded by itself and step 2 runs again with τ raised by the new θ', () => {
    // Dense parts 1 - i/1000 (the graph's 100 candidates: records 0-99, dMax 0.901);
    // records 500+j have sparse part 1 - j/1000, so their scores fall by 0.002 a step in j.
    // The postings' candidates are the odd j: θ is j = 19's score, 1.462, and τ = 0.561.
    // 2b adds the even j below 100: θ rises to j = 9's, 1.482 (τ 0.581), while a record
    // outside may still score dMax + the 100th sparse part = 1.802.
    const dense = Array.from({ length: 1000 }, (_, i) => 1 - i / 1000);
    const sparse = dense.map((_, i) => (i >= 500 ? 1 - (i - 500) / 1000 : NaN));
    const t = { dense, sparse };
    const calls: Calls = { reaching: [], sparseTop: [] };
    const found = hybridSearch(10, 10, sources(t, calls), 1)!;
    assert.equal(found.allPostings, true);
    assert.equal(found.sparseTop, true);
    assert.equal(found.bounded, false);
    assert.equal(calls.reaching.length, 2, 'step 2, then step 2 again after 2b');
    const [before, after] = calls.reaching;
    assert.ok(Math.abs(before - 0.561) < 1e-6 && Math.abs(after - 0.581) < 1e-6, `τ ${before} then ${after}`);
    assert.deepEqual(
      found.hits.map((h) => h.label),
      exactTop(t, 10),
      '2b found the even j the candidates missed',
    );
    // A threshold step affordable from a τ between the two: it fails before 2b, runs after
    // it, and bounds the answer.
    const calls2: Calls = { reaching: [], sparseTop: [] };
    const again = hybridSearch(10, 10, sources(t, calls2, { reachingAllowedFrom: (before + after) / 2 }), 1)!;
    assert.equal(calls2.reaching.length, 2);
    assert.equal(again.bounded, true);
    assert.deepEqual(
      again.hits.map((h) => h.label),
      exactTop(t, 10),
    );
  });

  it('with fewer than m records sharing a dimension, bounds the others by the dense part alone', () => {
    // 50 records share a dimension, each with a sparse part near 50: they hold the top 10,
    // and the records outside score at most dMax < 1.
    const dense = Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 1000) / 1000);
    const sparse = dense.map((_, i) => (i % 20 === 5 ? 50 + (i % 7) / 10 : NaN));
    const t = { dense, sparse };
    const calls: Calls = { reaching: [], sparseTop: [] };
    const found = hybridSearch(10, 10, sources(t, calls), 1)!;
    assert.equal(found.sparseTop, true);
    assert.equal(found.bounded, true);
    assert.deepEqual(
      found.hits.map((h) => h.label),
      exactTop(t, 10),
    );
  });
  it('claims no bound when θ and the bound outside are both exactly 0: a record outside may tie and win on id', () => {
    // Records 0-29 score 0 on the dense part, the rest -1; the graph returns 29..20 of the
    // tied ones (dMax 0). Record 5 shares a dimension with a sparse part of 0, so it ties
    // at 0 too and is the top 1 by id among the candidates, as a postings candidate (the
    // sparse part "decides"). Record 0, outside every candidate set, also scores 0 and wins
    // on id: the exact answer. θ = 0 and the bound outside = dMax + 0 = 0.
    const dense = Array.from({ length: 1000 }, (_, i) => (i < 30 ? 0 : -1));
    const sparse = dense.map((_, i) => (i === 5 ? 0 : i === 600 ? -5 : NaN));
    const t = { dense, sparse };
    const calls: Calls = { reaching: [], sparseTop: [] };
    const found = hybridSearch(1, 10, sources(t, calls, { candidates: [5, 600], graphTiesLastFirst: true }), 0.1)!;
    assert.equal(found.allPostings, true);
    assert.equal(found.sparseTop, true);
    assert.deepEqual(exactTop(t, 1), [0]);
    assert.deepEqual(
      found.hits.map((h) => h.label),
      [5],
    );
    assert.equal(found.bounded, false, 'an answer that misses record 0 is not claimed exact');
  });
});
