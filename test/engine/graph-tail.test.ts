// HnswGraph.tailInto: the labels a query scans exactly beside the graph (the tail) are
// those queued and not yet inserted that the caller's liveness check accepts, each once,
// after what `out` already holds; `out` is replaced by a longer copy when it has no room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HnswGraph } from '../../src/engine/graph/hnsw-graph.js';
import { VectorArena } from '../../src/engine/vectors/arena.js';
import { fromArena } from '../helpers/arena-source.js';

const DIM = 4;

test('tailInto gives the queued live labels, once each, after the prefix, growing the array', () => {
  const arena = new VectorArena(DIM);
  const graph = HnswGraph.create('euclidean', DIM, 64);
  try {
    for (let label = 0; label < 10; label++) arena.set(label, Float32Array.from({ length: DIM }, (_, i) => label * 10 + i));
    for (let label = 0; label < 4; label++) graph.enqueue(label);
    assert.equal(graph.insertUntil(Infinity, fromArena(arena), () => true), 4, 'labels 0-3 leave the tail for the graph');
    for (let label = 4; label < 10; label++) graph.enqueue(label);
    graph.enqueue(5); // queued already: still once
    graph.enqueue(3); // in the graph, its vector changed: back in the tail
    const dead = 7; // a record deleted while queued: its label stays queued until a slice drops it
    const [out, count] = graph.tailInto(Uint32Array.of(100, 101), 2, (label) => label !== dead);
    assert.deepEqual(Array.from(out.subarray(0, count)), [100, 101, 4, 5, 6, 8, 9, 3]);
    // With room to spare the same array is filled in place.
    const roomy = new Uint32Array(64);
    const [same, n] = graph.tailInto(roomy, 0, () => true);
    assert.equal(same, roomy);
    assert.deepEqual(Array.from(same.subarray(0, n)), [4, 5, 6, 7, 8, 9, 3]);
  } finally {
    graph.close();
  }
});
