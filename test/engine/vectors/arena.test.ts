import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RELEASED, VectorArena } from '../../../src/engine/vectors/arena.js';
import { nativeAddon } from '../../../src/engine/native-addon.js';

const vec = (seed: number, dim: number): Float32Array => Float32Array.from({ length: dim }, (_, i) => seed + i / 8);
const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

test('vectors set across many chunks read back exactly, with their norms, through get, view and chunk/offset', () => {
  const arena = new VectorArena(3);
  const labels = [0, 1, 63, 64, 500, 1023, 1024, 1025, 2047, 2048, 5000];
  for (const label of labels) arena.set(label, vec(label + 1, 3));
  for (const label of labels) {
    const v = vec(label + 1, 3);
    assert.deepEqual(arena.get(label), v);
    assert.deepEqual(arena.view(label), v);
    const chunk = arena.chunk(label);
    const at = arena.offset(label);
    assert.deepEqual(chunk.subarray(at, at + 3), v);
    assert.equal(arena.norms[label], norm(v));
    assert.ok(arena.equals(label, v));
    assert.ok(!arena.equals(label, vec(label + 2, 3)));
  }
  // Labels never set read as zeros.
  assert.deepEqual(arena.get(3000), new Float32Array(3));
});

test('growing keeps every vector already held, and clearing a label zeroes only it', () => {
  const arena = new VectorArena(2);
  for (let label = 0; label < 3000; label++) arena.set(label, vec(label, 2));
  arena.set(1500, undefined);
  assert.deepEqual(arena.get(1500), new Float32Array(2));
  assert.equal(arena.norms[1500], 0);
  for (const label of [0, 1023, 1024, 1499, 1501, 2999]) assert.deepEqual(arena.get(label), vec(label, 2));
});

test('a small namespace holds a small arena; reserve sizes it to the count given', () => {
  const small = new VectorArena(384);
  small.set(0, vec(1, 384));
  assert.ok(small.bytes < 200 * 1024, `one vector holds ${small.bytes} B`);
  const reserved = new VectorArena(4);
  reserved.set(0, vec(1, 4));
  reserved.reserve(300);
  assert.equal(reserved.norms.length, 300);
  assert.equal(reserved.bytes, 300 * 4 * 4 + 300 * 8 + 300); // vectors, norms, a state byte each
  assert.deepEqual(reserved.get(0), vec(1, 4));
  reserved.reserve(10); // less than held: nothing changes
  assert.equal(reserved.norms.length, 300);
});

test('a dimension-0 arena (sparse-only index) holds nothing and accepts sets', () => {
  const arena = new VectorArena(0);
  arena.set(5, undefined);
  arena.reserve(100);
  assert.equal(arena.bytes, arena.norms.byteLength + arena.heldFlags.byteLength);
});

test('int8 codes: kept per label until uncoded or the label is set again, each chunk freed with its last code', () => {
  const dim = 8;
  const arena = new VectorArena(dim);
  for (let label = 0; label < 3000; label++) arena.set(label, vec(label, dim));
  assert.equal(arena.codeBytes, 0);
  const coded = (label: number): boolean => {
    const params = arena.codeLists[1][label >>> 10];
    return params !== undefined && !Number.isNaN(params[(label & 1023) * 3]);
  };
  for (const label of [5, 6, 2047, 2048]) arena.code(label);
  assert.deepEqual([5, 6, 7, 2047, 2048].map(coded), [true, true, false, true, true]);
  // The codes and the measured error reproduce every value within that error.
  const [codes, params] = arena.codeLists;
  const v = arena.view(2047);
  const [s, e] = [params[1]![1023 * 3], params[1]![1023 * 3 + 1]];
  for (let i = 0; i < dim; i++) assert.ok(Math.abs(v[i] - s * codes[1]![1023 * dim + i]) <= e, `component ${i}`);
  assert.equal(params[1]![1023 * 3 + 2], Array.from(codes[1]!.subarray(1023 * dim, 1024 * dim)).reduce((a, c) => a + Math.abs(c), 0));
  // A new vector drops the old codes: a code is never of a vector the label no longer holds.
  arena.set(5, vec(99, dim));
  assert.equal(coded(5), false);
  arena.uncode(6);
  assert.equal(coded(6), false);
  assert.equal(arena.codeLists[0][0], undefined, 'chunk 0 had no code left: freed');
  assert.ok(arena.codeLists[0][1] !== undefined);
  arena.uncode(2047);
  arena.uncode(2048);
  assert.equal(arena.codeBytes, 0);
  arena.code(3);
  arena.uncodeAll();
  assert.equal(arena.codeBytes, 0);
  assert.equal(coded(3), false);
});

test('release: a chunk none of whose labels is held is freed at once, made again zeroed when a label of it is stored', () => {
  assert.ok(nativeAddon, 'the native addon is built (npm ci)');
  const dim = 4;
  const arena = new VectorArena(dim);
  for (let label = 0; label < 3000; label++) arena.set(label, vec(label, dim));
  const chunk1 = arena.chunk(1024);
  const before = arena.bytes;
  // Labels 1024-2047 (chunk 1) go to a graph, all but one; then the last one too.
  for (let label = 1024; label < 2047; label++) arena.release(label);
  assert.equal(arena.released, 1023);
  assert.equal(chunk1.length, 1024 * dim, 'a chunk with a held label stays');
  arena.release(2047);
  assert.equal(chunk1.length, 0, 'the dropped chunk is freed: its views read as empty');
  assert.equal(arena.bytes, before - 1024 * dim * 4);
  assert.deepEqual([arena.holds(1500), arena.heldFlags[1500], arena.holds(1023), arena.holds(2048)], [false, RELEASED, true, true]);
  assert.throws(() => arena.chunk(1500), /does not hold label 1500/);
  assert.deepEqual(arena.get(1023), vec(1023, dim), 'neighbouring chunks untouched');
  // Stored again: a fresh zeroed chunk, holding only that label.
  arena.set(1500, vec(7, dim));
  assert.equal(arena.released, 1023);
  assert.deepEqual(arena.get(1500), vec(7, dim));
  assert.deepEqual(arena.chunk(1500).subarray(0, dim), new Float32Array(dim), 'the rest of the new chunk is zeros');
  // A free label held nowhere: forget() of a released one counts it out.
  arena.forget(1600);
  assert.equal(arena.released, 1022);
  assert.equal(arena.heldFlags[1600], 0);
  arena.close();
  assert.equal(arena.chunkList.length, 0);
});

test('chunk memory: allocateChunk gives zeroed memory; freeChunk detaches and frees it once, and refuses other buffers', () => {
  assert.ok(nativeAddon);
  const buffer = nativeAddon.allocateChunk(4096);
  const view = new Float32Array(buffer);
  assert.equal(view.length, 1024);
  assert.ok(view.every((v) => v === 0));
  view[5] = 3;
  nativeAddon.freeChunk(buffer);
  assert.equal(view.length, 0);
  assert.equal(buffer.byteLength, 0);
  nativeAddon.freeChunk(buffer); // twice: nothing more to free
  assert.throws(() => nativeAddon!.freeChunk(new ArrayBuffer(8)), { name: 'TypeError', message: /from allocateChunk/ });
  assert.throws(() => nativeAddon!.allocateChunk(0), { name: 'TypeError', message: /whole number/ });
});
