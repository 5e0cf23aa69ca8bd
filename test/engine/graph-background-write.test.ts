// A graph written in the background (HnswGraph.writeInBackground, the periodic snapshot's
// write): searches are answered while the file is still being written, the file holds the
// graph as it was when the write began, a label invalidated meanwhile is never returned
// and is marked in the graph once the write ends, and inserts wait for the end.
//
// The write is held open deterministically: its target is a FIFO, so hnswlib's write on
// the pool thread blocks in open() until this test opens the other end and reads.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GraphError, HnswGraph } from '../../src/engine/graph/hnsw-graph.js';
import { VectorArena } from '../../src/engine/vectors/arena.js';
import { prng } from '../helpers/prng.js';
import { removeDir } from '../helpers/server.js';
import { fromArena } from '../helpers/arena-source.js';

const DIM = 16;
const N = 2000;
const dir = mkdtempSync(join(tmpdir(), 'conifer-graph-write-'));
after(() => removeDir(dir));

function graphOf(n: number): { graph: HnswGraph; arena: VectorArena; vectors: Float32Array[] } {
  const rand = prng(7);
  const arena = new VectorArena(DIM);
  const vectors: Float32Array[] = [];
  const graph = HnswGraph.create('euclidean', DIM, n);
  for (let label = 0; label < n; label++) {
    const v = Float32Array.from({ length: DIM }, () => rand() * 2 - 1);
    vectors.push(v);
    arena.set(label, v);
    graph.enqueue(label);
  }
  graph.insertUntil(Infinity, fromArena(arena), () => true);
  assert.equal(graph.size, n);
  return { graph, arena, vectors };
}

describe('a graph written in the background', () => {
  it('answers searches during the write, writes the graph as it began, and marks labels invalidated meanwhile after it', async () => {
    const { graph, arena, vectors } = graphOf(N);
    const before = join(dir, 'before.graph');
    graph.writeSync(before);

    const fifo = join(dir, 'held.graph');
    execFileSync('mkfifo', [fifo]);
    const written = graph.writeInBackground(fifo);
    // The pool thread now waits in open() for a reader: the write has begun and cannot end.
    assert.equal(graph.writing, true);

    // A search runs beside it, and finds a record's own vector first.
    assert.equal(graph.search(vectors[42], 1, 64)[0], 42);

    // A label invalidated during the write is never returned, though its node is marked
    // only after the write; the search still answers k labels.
    graph.invalidate(42);
    const near42 = graph.search(vectors[42], 10, 64);
    assert.equal(near42.length, 10);
    assert.ok(!near42.includes(42), `invalidated label returned: ${near42.join(',')}`);

    // Inserts wait: a label queued during the write stays queued.
    arena.set(N, vectors[7]);
    graph.enqueue(N);
    assert.equal(graph.insertUntil(Infinity, fromArena(arena), () => true), 0);
    assert.equal(graph.pending, 1);

    // Read the other end: the file is the graph as it stood when the write began.
    const held = readFileSync(fifo);
    await written;
    assert.equal(graph.writing, false);
    assert.ok(held.equals(readFileSync(before)), 'the background write holds the graph as it began');

    // After the write the delete is marked in the graph itself (a new file differs), and
    // the queued insert goes in.
    const afterDelete = join(dir, 'after.graph');
    graph.writeSync(afterDelete);
    assert.ok(!readFileSync(afterDelete).equals(readFileSync(before)), 'the deferred delete reached the graph');
    assert.equal(graph.insertUntil(Infinity, fromArena(arena), () => true), 1);
    assert.equal(graph.size, N);
    assert.ok(!graph.search(vectors[42], 10, 64).includes(42));
    graph.close();
  });

  it('a write that fails rejects with a GraphError and leaves the graph usable', async () => {
    const { graph, vectors } = graphOf(500);
    // hnswlib's own save reports nothing here; the binding's size check does.
    await assert.rejects(graph.writeInBackground(join(dir, 'no-such-dir', 'x.graph')), (err) => err instanceof GraphError && /could not be written/.test(err.message));
    assert.equal(graph.writing, false);
    assert.equal(graph.search(vectors[3], 1, 64)[0], 3);
    graph.close();
  });
});
