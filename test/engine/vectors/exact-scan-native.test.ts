// The native pre-pass (native/exact-scan.cc) may only drop labels that cannot be in the
// best k: bestOf with it must equal a plain JavaScript ranking of every label, on data
// built to stress its error bound (ties, near-ties, float32 overflow and underflow,
// zero vectors under cosine), scoring from the floats and from int8 codes (arena.code(),
// as for a graph's tail), with coded and uncoded labels mixed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Metric } from '../../../src/engine/model.js';
import { VectorArena } from '../../../src/engine/vectors/arena.js';
import { arenaSource, bestOf, Scorer } from '../../../src/engine/vectors/exact-scan.js';
import { type GraphRows, nativeAddon, nativeAddonError } from '../../../src/engine/native-addon.js';
import { HnswIndex } from '../../../src/engine/graph/hnsw-binding.js';

test('the native scan is built and loaded (npm ci compiles it through binding.gyp)', () => {
  assert.ok(nativeAddon, `not loaded: ${nativeAddonError}`);
});

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Every label ranked in JavaScript (the Scorer), best first, ties by id: the reference. */
function reference(scorer: Scorer, labels: number[], k: number, idOf: (l: number) => string): { label: number; id: string; score: number }[] {
  const ranked = labels
    .map((label) => ({ label, id: idOf(label), rank: scorer.rank(label) }))
    .filter((r) => r.rank === r.rank)
    .sort((a, b) => b.rank - a.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return ranked.slice(0, k).map((r) => ({ label: r.label, id: r.id, score: scorer.score(r.rank) }));
}

const cases: { name: string; scale: number; dim: number; spike?: number }[] = [
  { name: 'unit-scale values', scale: 1, dim: 384 },
  { name: 'values near float32 underflow', scale: 1e-22, dim: 96 },
  { name: 'values whose products overflow float32', scale: 1e20, dim: 33 },
  { name: 'an odd dimension', scale: 3, dim: 13 },
  { name: 'subnormal float32 values (codes scale 0)', scale: 1e-41, dim: 24 },
  { name: 'one component far larger than the rest (codes of the rest round to 0)', scale: 1, dim: 40, spike: 1e4 },
];

for (const metric of ['cosine', 'euclidean', 'dotproduct'] as Metric[]) {
  for (const c of cases) {
    test(`${metric}, ${c.name}: the native pre-pass never changes the best k`, () => {
      const rnd = prng(c.dim * 7 + metric.length);
      const arena = new VectorArena(c.dim);
      const n = 3000;
      const base: Float32Array[] = [];
      for (let label = 0; label < n; label++) {
        let v: Float32Array;
        if (label % 97 === 5 && base.length > 0) v = base[label % base.length].slice(); // exact duplicates: ties
        else if (label % 89 === 3 && base.length > 0) {
          v = base[label % base.length].slice();
          v[0] = Math.fround(v[0] * (1 + 2 ** -22)); // near-ties, one float32 ulp or two apart
        } else if (label % 501 === 7) v = new Float32Array(c.dim); // zero vector
        else v = Float32Array.from({ length: c.dim }, () => (rnd() - 0.5) * c.scale);
        if (c.spike && label % 3 === 0) v[label % c.dim] = Math.fround(c.spike * (rnd() - 0.5));
        base.push(v);
        arena.set(label, v);
      }
      const labels = Array.from({ length: n }, (_, i) => i);
      const idOf = (l: number): string => `id-${String(l).padStart(5, '0')}`;
      for (let q = 0; q < 20; q++) {
        const query = q % 5 === 0 ? base[(q * 31) % n].slice() : Float32Array.from({ length: c.dim }, () => (rnd() - 0.5) * c.scale);
        if (c.spike && q % 2 === 1) query[q % c.dim] = c.spike;
        for (const coded of [false, true]) {
          // Two labels in three coded, the rest scored from floats, in the same call.
          if (coded) for (let label = 0; label < n; label++) if (label % 3 !== 1) arena.code(label);
          for (const k of [1, 10, 100]) {
            const scorer = new Scorer(metric, arenaSource(arena), { dense: query });
            assert.deepEqual(bestOf(labels, k, scorer, idOf), reference(scorer, labels, k, idOf), `query ${q}, k ${k}, ${coded ? 'codes' : 'floats'}`);
          }
          arena.uncodeAll();
        }
        // denseScores: bit for bit denseScore, in any label order and any count (groups of four and a remainder).
        const scorer = new Scorer(metric, arenaSource(arena), { dense: query });
        const picked = Uint32Array.from({ length: 103 }, (_, i) => (i * 7919 + q * 13) % n);
        const out = new Float64Array(picked.length).fill(12345);
        scorer.denseScores(picked, 102, out);
        picked.subarray(0, 102).forEach((label, i) => assert.ok(Object.is(out[i], scorer.denseScore(label)), `query ${q}, label ${label}: ${out[i]} vs ${scorer.denseScore(label)}`));
        assert.equal(out[102], 12345, 'nothing written past count');
      }
    });
  }
}

test('int8 codes prune: over well-spread data the coded pre-pass keeps a small share of the labels, and those hold the best k', () => {
  const dim = 384;
  const n = 20000;
  const arena = new VectorArena(dim);
  const rnd = prng(11);
  const centres = Array.from({ length: 50 }, () => Float32Array.from({ length: dim }, () => rnd() - 0.5));
  for (let label = 0; label < n; label++) {
    const c = centres[label % 50];
    arena.set(label, Float32Array.from({ length: dim }, (_, i) => c[i] + 0.5 * (rnd() - 0.5)));
    arena.code(label);
  }
  const labels = Uint32Array.from({ length: n }, (_, i) => i);
  const out = new Uint32Array(n);
  for (const metric of [0, 1, 2] as const) {
    for (let q = 0; q < 5; q++) {
      const query = Float32Array.from({ length: dim }, (_, i) => centres[q][i] + 0.5 * (rnd() - 0.5));
      const kept = nativeAddon!.candidates(query, metric, arena.chunkList, 10, arena.norms, labels, n, 10, out, ...arena.codeLists, null, null);
      // Random data's 10th best stands well clear of most labels, so the bound (a few
      // hundredths of the score spread) leaves few candidates; keeping them all would not.
      assert.ok(kept >= 10 && kept < n / 20, `metric ${metric}, query ${q}: kept ${kept} of ${n}`);
      const scorer = new Scorer((['cosine', 'euclidean', 'dotproduct'] as const)[metric], arenaSource(arena), { dense: query });
      const keptSet = new Set(out.subarray(0, kept));
      const all = Array.from(labels);
      for (const hit of reference(scorer, all, 10, String)) assert.ok(keptSet.has(hit.label), `metric ${metric}, query ${q}: best label ${hit.label} dropped`);
    }
  }
});

test('the native call rejects malformed arguments with a TypeError instead of reading out of bounds', () => {
  assert.ok(nativeAddon);
  const arena = new VectorArena(4);
  for (let label = 0; label < 100; label++) arena.set(label, Float32Array.of(label, 1, 2, 3));
  const out = new Uint32Array(100);
  const labels = Uint32Array.from({ length: 100 }, (_, i) => i);
  const call = (over: Partial<{ labels: Uint32Array; count: number; out: Uint32Array; query: Float32Array }>): number =>
    nativeAddon!.candidates(over.query ?? Float32Array.of(1, 0, 0, 0), 2, arena.chunkList, 10, arena.norms, over.labels ?? labels, over.count ?? 100, 5, over.out ?? out, [], [], null, null);
  assert.equal(call({}) >= 5, true);
  assert.throws(() => call({ labels: Uint32Array.of(5000, ...labels.subarray(1)) }), TypeError); // a label past the arena
  assert.throws(() => call({ count: 101 }), TypeError); // count past the labels
  assert.throws(() => call({ out: new Uint32Array(10) }), TypeError); // out too small
  assert.throws(() => call({ query: new Float32Array(0) }), TypeError);
  const codes = new Int8Array(8);
  const params = new Float32Array(3);
  assert.throws(() => nativeAddon!.codeVector(Float32Array.of(1, 2, 3, 4), codes, 5, params, 0), TypeError); // codes past the end
  assert.throws(() => nativeAddon!.codeVector(Float32Array.of(1, 2, 3, 4), codes, 0, params, 1), TypeError); // params past the end
  assert.throws(() => nativeAddon!.codeVector(Float32Array.of(1, 2, 3, 4), new Uint8Array(8) as unknown as Int8Array, 0, params, 0), TypeError);
  nativeAddon!.codeVector(Float32Array.of(1, -2, 3, 127), codes, 4, params, 0);
  assert.deepEqual([...codes.subarray(4)], [1, -2, 3, 127]);
  assert.deepEqual([...params], [1, 0 + 2 ** -148, 133].map(Math.fround));
  const scores = new Float64Array(100);
  const dense = (over: Partial<{ labels: Uint32Array; count: number; out: Float64Array; query: Float32Array }>): void =>
    nativeAddon!.denseScores(over.query ?? Float32Array.of(1, 0, 0, 0), 2, arena.chunkList, 10, arena.norms, over.labels ?? labels, over.count ?? 100, 1, over.out ?? scores, null, null);
  dense({});
  assert.deepEqual([...scores.subarray(0, 3)], [0, 1, 2]);
  assert.throws(() => dense({ labels: Uint32Array.of(5000, ...labels.subarray(1)) }), TypeError);
  assert.throws(() => dense({ count: 101 }), TypeError);
  assert.throws(() => dense({ out: new Float64Array(10) }), TypeError);
  assert.throws(() => dense({ query: new Float32Array(0) }), TypeError);
  // Where released vectors are read: rows need held, must be a graph's rows() of the
  // query's dimension, and nothing else passes for them.
  const withSource = (held: unknown, rows: unknown): void =>
    nativeAddon!.denseScores(Float32Array.of(1, 0, 0, 0), 2, arena.chunkList, 10, arena.norms, labels, 100, 1, scores, held as Uint8Array, rows as GraphRows);
  const graph = new HnswIndex('ip', 4);
  graph.init(10, 16, 100, 1);
  graph.addPoints(Float32Array.of(9, 9, 9, 9), Uint32Array.of(0), 1);
  const wide = new HnswIndex('ip', 8);
  wide.init(10, 16, 100, 1);
  assert.throws(() => withSource(null, graph.rows()), { name: 'TypeError', message: /rows needs held/ });
  assert.throws(() => withSource(new Uint8Array(100), {}), { name: 'TypeError', message: /graph's rows\(\)/ });
  assert.throws(() => withSource(new Uint8Array(100), wide.rows()), { name: 'TypeError', message: /dimension/ });
  assert.throws(() => withSource([1, 1], graph.rows()), { name: 'TypeError', message: /held must be a Uint8Array/ });
  // Label 0 not held: scored from its node (9, 9, 9, 9); every other label has no node and
  // is read from the arena as before.
  const held = new Uint8Array(100).fill(1);
  held[0] = 0;
  withSource(held, graph.rows());
  assert.deepEqual([...scores.subarray(0, 3)], [9, 1, 2]);
  graph.close();
  wide.close();
});

test('a label set to a new vector is scored from the new one, never from codes of the old', () => {
  const dim = 64;
  const arena = new VectorArena(dim);
  const rnd = prng(5);
  const n = 2000;
  for (let label = 0; label < n; label++) {
    arena.set(label, Float32Array.from({ length: dim }, () => rnd() - 0.5));
    arena.code(label);
  }
  const query = Float32Array.from({ length: dim }, () => rnd() - 0.5);
  // Label 77 becomes the query itself: the best match under every metric.
  arena.set(77, query.slice());
  arena.code(78);
  const labels = Array.from({ length: n }, (_, i) => i);
  for (const metric of ['cosine', 'euclidean', 'dotproduct'] as Metric[]) {
    const scorer = new Scorer(metric, arenaSource(arena), { dense: query });
    const best = bestOf(labels, 5, scorer, String);
    assert.deepEqual(best, reference(scorer, labels, 5, String), metric);
    if (metric !== 'dotproduct') assert.equal(best[0].label, 77, metric);
  }
});
