// The native pre-pass (native/exact-scan.cc) may only drop labels that cannot be in the
// best k: bestOf with it must equal a plain JavaScript ranking of every label, on data
// built to stress its error bound (ties, near-ties, float32 overflow and underflow,
// zero vectors under cosine).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Metric } from '../../../src/engine/model.js';
import { VectorArena } from '../../../src/engine/vectors/arena.js';
import { bestOf, Scorer } from '../../../src/engine/vectors/exact-scan.js';
import { nativeAddon, nativeAddonError } from '../../../src/engine/native-addon.js';

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

const cases: { name: string; scale: number; dim: number }[] = [
  { name: 'unit-scale values', scale: 1, dim: 384 },
  { name: 'values near float32 underflow', scale: 1e-22, dim: 96 },
  { name: 'values whose products overflow float32', scale: 1e20, dim: 33 },
  { name: 'an odd dimension', scale: 3, dim: 13 },
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
        base.push(v);
        arena.set(label, v);
      }
      const labels = Array.from({ length: n }, (_, i) => i);
      const idOf = (l: number): string => `id-${String(l).padStart(5, '0')}`;
      for (let q = 0; q < 20; q++) {
        const query = q % 5 === 0 ? base[(q * 31) % n].slice() : Float32Array.from({ length: c.dim }, () => (rnd() - 0.5) * c.scale);
        for (const k of [1, 10, 100]) {
          const scorer = new Scorer(metric, arena, { dense: query });
          assert.deepEqual(bestOf(labels, k, scorer, idOf), reference(scorer, labels, k, idOf), `query ${q}, k ${k}`);
        }
        // denseScores: bit for bit denseScore, in any label order and any count (groups of four and a remainder).
        const scorer = new Scorer(metric, arena, { dense: query });
        const picked = Uint32Array.from({ length: 103 }, (_, i) => (i * 7919 + q * 13) % n);
        const out = new Float64Array(picked.length).fill(12345);
        scorer.denseScores(picked, 102, out);
        picked.subarray(0, 102).forEach((label, i) => assert.ok(Object.is(out[i], scorer.denseScore(label)), `query ${q}, label ${label}: ${out[i]} vs ${scorer.denseScore(label)}`));
        assert.equal(out[102], 12345, 'nothing written past count');
      }
    });
  }
}

test('the native call rejects malformed arguments with a TypeError instead of reading out of bounds', () => {
  assert.ok(nativeAddon);
  const arena = new VectorArena(4);
  for (let label = 0; label < 100; label++) arena.set(label, Float32Array.of(label, 1, 2, 3));
  const out = new Uint32Array(100);
  const labels = Uint32Array.from({ length: 100 }, (_, i) => i);
  const call = (over: Partial<{ labels: Uint32Array; count: number; out: Uint32Array; query: Float32Array }>): number =>
    nativeAddon!.candidates(over.query ?? Float32Array.of(1, 0, 0, 0), 2, arena.chunkList, 10, arena.norms, over.labels ?? labels, over.count ?? 100, 5, over.out ?? out);
  assert.equal(call({}) >= 5, true);
  assert.throws(() => call({ labels: Uint32Array.of(5000, ...labels.subarray(1)) }), TypeError); // a label past the arena
  assert.throws(() => call({ count: 101 }), TypeError); // count past the labels
  assert.throws(() => call({ out: new Uint32Array(10) }), TypeError); // out too small
  assert.throws(() => call({ query: new Float32Array(0) }), TypeError);
  const scores = new Float64Array(100);
  const dense = (over: Partial<{ labels: Uint32Array; count: number; out: Float64Array; query: Float32Array }>): void =>
    nativeAddon!.denseScores(over.query ?? Float32Array.of(1, 0, 0, 0), 2, arena.chunkList, 10, arena.norms, over.labels ?? labels, over.count ?? 100, 1, over.out ?? scores);
  dense({});
  assert.deepEqual([...scores.subarray(0, 3)], [0, 1, 2]);
  assert.throws(() => dense({ labels: Uint32Array.of(5000, ...labels.subarray(1)) }), TypeError);
  assert.throws(() => dense({ count: 101 }), TypeError);
  assert.throws(() => dense({ out: new Float64Array(10) }), TypeError);
  assert.throws(() => dense({ query: new Float32Array(0) }), TypeError);
});
