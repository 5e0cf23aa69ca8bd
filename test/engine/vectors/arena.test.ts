import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VectorArena } from '../../../src/engine/vectors/arena.js';

const vec = (seed: number, dim: number): Float32Array => Float32Array.from({ length: dim }, (_, i) => seed + i / 8);

test('a reserved arena holds exactly what was reserved, and keeps every vector and norm when it grows past it', () => {
  const arena = new VectorArena(4);
  arena.set(0, vec(1, 4));
  arena.reserve(1000);
  assert.equal(arena.norms.length, 1000, 'reserve sizes to the count, not a growth step');
  for (let label = 1; label < 1500; label++) arena.set(label, vec(label + 1, 4));
  for (const label of [0, 1, 999, 1000, 1499]) {
    assert.deepEqual(arena.get(label), vec(label + 1, 4));
    const v = vec(label + 1, 4);
    assert.equal(arena.norms[label], Math.sqrt(v.reduce((s, x) => s + x * x, 0)));
  }
});

test('reserving less than the arena holds changes nothing', () => {
  const arena = new VectorArena(2);
  for (let label = 0; label < 100; label++) arena.set(label, vec(label, 2));
  const before = arena.norms.length;
  arena.reserve(10);
  assert.equal(arena.norms.length, before);
  assert.deepEqual(arena.get(99), vec(99, 2));
});
