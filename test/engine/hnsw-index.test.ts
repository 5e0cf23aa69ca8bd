// Conifer's hnswlib binding (native/hnsw-index.cc) on its own: batches inserted on one
// or several threads, the three metrics, the native bitmap filter, deletes and updates in
// place, capacity, huge-page advice for large graphs, and every failure as a JavaScript
// error rather than a crash.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HnswIndex, type NativeHnswIndex, type SpaceName } from '../../src/engine/graph/hnsw-binding.js';
import { prng } from '../helpers/prng.js';
import { removeDir } from '../helpers/server.js';

const DIM = 16;

function data(seed: number, n: number, scale = 1): Float32Array {
  const rand = prng(seed);
  return Float32Array.from({ length: n * DIM }, () => (rand() - 0.5) * scale * (1 + rand()));
}

const row = (all: Float32Array, i: number): Float32Array => all.subarray(i * DIM, (i + 1) * DIM);
const labelsTo = (n: number, from = 0): Uint32Array => Uint32Array.from({ length: n }, (_, i) => from + i);

/** Higher is nearer, as each space ranks (hnswlib-node's definitions). */
function closeness(space: SpaceName, a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  let l2 = 0;
  for (let i = 0; i < DIM; i++) {
    dot += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
    l2 += (a[i] - b[i]) ** 2;
  }
  if (space === 'l2') return -l2;
  if (space === 'ip') return dot;
  return dot / Math.sqrt(aa * bb);
}

/** The exact k nearest labels among `allowed` (all when omitted). */
function exact(space: SpaceName, all: Float32Array, q: Float32Array, k: number, allowed?: (label: number) => boolean): number[] {
  const n = all.length / DIM;
  return Array.from({ length: n }, (_, i) => i)
    .filter((i) => !allowed || allowed(i))
    .map((i) => [closeness(space, q, row(all, i)), i] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, k)
    .map(([, i]) => i);
}

function built(space: SpaceName, all: Float32Array, threads: number, capacity = all.length / DIM): NativeHnswIndex {
  const index = new HnswIndex(space, DIM);
  index.init(capacity, 16, 100, 7);
  index.addPoints(all, labelsTo(all.length / DIM), threads);
  return index;
}

function recall(space: SpaceName, index: NativeHnswIndex, all: Float32Array, queries: Float32Array, ef: number): number {
  let hits = 0;
  const nq = queries.length / DIM;
  for (let i = 0; i < nq; i++) {
    const q = row(queries, i);
    const truth = new Set(exact(space, all, q, 10));
    for (const label of index.search(q, 10, ef, null, 0)) if (truth.has(label)) hits++;
  }
  return hits / (nq * 10);
}

describe('hnswlib binding', () => {
  const N = 2000;
  const all = data(1, N, 3); // unnormalised: lengths vary, which 'ip' must rank by
  const queries = data(2, 50, 3);

  for (const space of ['l2', 'ip', 'cosine'] as const) {
    for (const threads of [1, 3]) {
      it(`${space}, inserted on ${threads} thread(s): every point once, recall@10 ≥ 0.95 at ef 100`, () => {
        const index = built(space, all, threads);
        assert.equal(index.count(), N);
        const r = recall(space, index, all, queries, 100);
        assert.ok(r >= 0.95, `recall ${r}`);
        // Each point is findable under its own label (near itself, for l2 and cosine).
        if (space !== 'ip') for (const i of [0, 1, 999, N - 1]) assert.equal(index.search(row(all, i), 1, 50, null, 0)[0], i);
        index.close();
      });
    }
  }

  it('every space keeps the vectors as written: vectors() reads them back bit for bit, holding() compares them', () => {
    const some = all.subarray(0, 300 * DIM);
    for (const space of ['l2', 'ip', 'cosine'] as const) {
      const index = built(space, some, 2);
      const labels = Uint32Array.of(0, 7, 299, 150);
      const out = new Float32Array(labels.length * DIM);
      index.vectors(labels, out);
      labels.forEach((label, i) => assert.deepEqual(row(out, i), row(some, label), `${space} label ${label}`));
      const changed = out.slice();
      changed[DIM + 3] = Math.fround(changed[DIM + 3] + 1e-3); // label 7's copy, one value off
      assert.deepEqual([...index.holding(labels, changed)], [1, 0, 1, 1], space);
      assert.deepEqual([...index.holding(Uint32Array.of(300), row(some, 0))], [0], `${space}: a label without a node`);
      assert.throws(() => index.vectors(Uint32Array.of(300), new Float32Array(DIM)), /label 300 has no node/);
      assert.equal(typeof index.rows(), 'object');
      index.close();
    }
  });

  it('cosine orders vectors of any length: tiny, huge and zero vectors among ordinary ones', () => {
    // Lengths from 1e-30 to 1e30: a float32 dot of two of them underflows or overflows,
    // and their inverse lengths do not fit float32 either, so the walk's float64 path runs.
    const base = all.subarray(0, 400 * DIM);
    const scaled = base.slice();
    const scales = [1e-30, 1e-18, 1, 1e18, 1e30];
    for (let i = 0; i < 400; i++) for (let d = 0; d < DIM; d++) scaled[i * DIM + d] *= scales[i % scales.length];
    scaled.fill(0, 399 * DIM); // a zero vector: distance 1 to everything, as before
    const index = built('cosine', scaled, 1);
    for (const i of [0, 1, 2, 3, 4, 100, 201, 333]) {
      // The same direction at another length must be nearest to itself.
      const q = Float32Array.from(row(base, i), (v) => v * 1e-25);
      assert.equal(index.search(q, 1, 100, null, 0)[0], i, `label ${i} (length × ${scales[i % scales.length]})`);
    }
    const r = recall('cosine', index, scaled.subarray(0, 399 * DIM), queries, 100);
    assert.ok(r >= 0.95, `recall ${r}`);
    index.close();
  });

  it('one batch on more threads than points, and batches after the first, insert every point', () => {
    const index = new HnswIndex('l2', DIM);
    index.init(100, 16, 100, 7);
    index.addPoints(all.subarray(0, 2 * DIM), labelsTo(2), 8);
    index.addPoints(all.subarray(2 * DIM, 50 * DIM), labelsTo(48, 2), 8);
    assert.equal(index.count(), 50);
    assert.deepEqual(
      [...index.search(row(all, 30), 50, 100, null, 0)].sort((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => i),
    );
    index.close();
  });

  it('a filtered search returns only labels set in the bitmap; at ef ≥ N it is the exact answer among them', () => {
    const index = built('l2', all, 2);
    const words = new Uint32Array(Math.ceil(N / 32));
    const allowed = (label: number): boolean => label % 7 === 3;
    for (let label = 0; label < N; label++) if (allowed(label)) words[label >>> 5] |= 1 << (label & 31);
    for (let i = 0; i < 10; i++) {
      const q = row(queries, i);
      const got = [...index.search(q, 10, N, words, N)];
      assert.deepEqual(got, exact('l2', all, q, 10, allowed));
    }
    // Bits past `allowedBits` count as unset even where the words hold more.
    const short = [...index.search(row(queries, 0), 10, N, words, 100)];
    assert.ok(short.length > 0 && short.every((l) => l < 100 && allowed(l)), String(short));
    index.close();
  });

  it('a deleted label is never returned; inserting it again updates its node in place and brings it back', () => {
    const index = built('l2', all, 1);
    const target = 42;
    index.markDelete(target);
    assert.ok(![...index.search(row(all, target), 20, 200, null, 0)].includes(target));
    // Its new vector: a copy of point 1500's, so it must be found there now.
    index.addPoints(Float32Array.from(row(all, 1500)), Uint32Array.of(target), 1);
    assert.equal(index.count(), N, 'an update takes no new node');
    const near = [...index.search(row(all, 1500), 2, 100, null, 0)].sort((a, b) => a - b);
    assert.deepEqual(near, [target, 1500]);
    index.close();
  });

  it('capacity: inserting past it fails and leaves the graph usable; resize makes room', () => {
    const index = built('l2', all.subarray(0, 100 * DIM), 1, 100);
    assert.equal(index.capacity(), 100);
    assert.throws(() => index.addPoints(row(all, 100), Uint32Array.of(100), 1), /not enough capacity/);
    assert.equal(index.search(row(all, 5), 1, 50, null, 0)[0], 5);
    index.resize(200);
    assert.equal(index.capacity(), 200);
    index.addPoints(row(all, 100), Uint32Array.of(100), 1);
    assert.equal(index.search(row(all, 100), 1, 50, null, 0)[0], 100);
    index.close();
  });

  it('bad arguments are TypeErrors naming what is expected; a closed graph refuses every call', () => {
    const index = built('l2', all.subarray(0, 10 * DIM), 1, 10);
    assert.throws(() => index.search(new Float32Array(DIM + 1), 1, 10, null, 0), { name: 'TypeError', message: /graph's dimension/ });
    assert.throws(() => index.search(Array.from(row(all, 0)) as unknown as Float32Array, 1, 10, null, 0), { name: 'TypeError', message: /Float32Array/ });
    assert.throws(() => index.addPoints(new Float32Array(DIM), Uint32Array.of(1, 2), 1), { name: 'TypeError', message: /labels.length × dim/ });
    assert.throws(() => index.addPoints(new Float32Array(DIM), Uint32Array.of(1), 0), { name: 'TypeError', message: /threads: 1\.\.64/ });
    assert.throws(() => index.search(row(all, 0), 1, 10, new Uint32Array(1), 33), { name: 'TypeError', message: /allowedBits/ });
    assert.throws(() => new HnswIndex('manhattan' as SpaceName, DIM), { name: 'TypeError', message: /'l2', 'ip' or 'cosine'/ });
    index.close();
    assert.throws(() => index.search(row(all, 0), 1, 10, null, 0), /closed/);
    assert.throws(() => index.count(), /closed/);
  });

  it('a damaged or foreign graph file is an error, never a crash, read now or in the background', () => {
    const dir = mkdtempSync(join(tmpdir(), 'conifer-hnsw-index-'));
    try {
      const file = join(dir, 'g.graph');
      const index = built('l2', all.subarray(0, 200 * DIM), 1, 200);
      index.save(file);
      index.close();
      const whole = readFileSync(file);
      writeFileSync(join(dir, 'cut.graph'), whole.subarray(0, whole.length - 100));
      assert.throws(() => new HnswIndex('l2', DIM).load(join(dir, 'cut.graph')), /corrupted/);
      assert.throws(() => new HnswIndex('l2', DIM * 2).load(file), /another dimension/);
      assert.throws(() => new HnswIndex('l2', DIM).load(join(dir, 'missing.graph')), /Cannot open file/);
      const again = new HnswIndex('l2', DIM);
      again.load(file);
      assert.equal(again.count(), 200);
      assert.equal(again.search(row(all, 17), 1, 50, null, 0)[0], 17);
      again.close();
      // In the background: the next call waits for the read; a failure surfaces there.
      const behind = new HnswIndex('l2', DIM);
      behind.load(file, true);
      assert.equal(behind.search(row(all, 17), 1, 50, null, 0)[0], 17);
      behind.load(join(dir, 'cut.graph'), true);
      assert.throws(() => behind.wait(), /corrupted/);
      assert.throws(() => behind.count(), /closed or was never initialised/);
      behind.load(file, true);
      behind.wait();
      assert.equal(behind.count(), 200);
      behind.load(file, true);
      behind.close(); // while (or after) the read runs: joins it, frees the graph
      assert.throws(() => behind.count(), /closed/);
    } finally {
      removeDir(dir);
    }
  });

  // native/huge-pages.h: the node array of a large graph read from a file is advised for
  // huge pages before the read fills it, and freed with the graph; one built in memory
  // (init, resize) is not (building measured slower with the advice). Measured as the
  // growth of the mappings /proc/self/smaps flags "hg" (MADV_HUGEPAGE), which only Linux has.
  it("a large graph's node array is advised for huge pages when read from a file, not when built", (t) => {
    if (process.platform !== 'linux') return t.skip('/proc/self/smaps and MADV_HUGEPAGE are Linux only');
    // 16 dims at M 16: 204 bytes a node (64 of vector, 132 of links, 8 of label).
    const capacity = 250_000;
    const nodeArray = capacity * 204;
    const before = hugeAdvisedBytes();
    const grown = (): number => hugeAdvisedBytes() - before;

    const created = new HnswIndex('l2', DIM);
    created.init(capacity, 16, 100, 7);
    created.addPoints(all.subarray(0, 100 * DIM), labelsTo(100), 1);
    assert.ok(grown() < 1 << 20, `a graph built in memory was advised: ${grown()}`);
    created.resize(capacity * 2);
    assert.ok(grown() < 1 << 20, `a resized graph was advised: ${grown()}`);
    const dir = mkdtempSync(join(tmpdir(), 'conifer-hnsw-huge-'));
    try {
      const file = join(dir, 'large.graph');
      created.save(file); // the file keeps the capacity, so a load allocates it again
      created.close();

      const loaded = new HnswIndex('l2', DIM);
      loaded.load(file);
      assert.ok(grown() >= 2 * nodeArray - 8192, `advised ${grown()} of ${2 * nodeArray} after load`);
      assert.equal(loaded.search(row(all, 42), 1, 50, null, 0)[0], 42);
      // Growing a graph read from a file keeps the advice (glibc moves the mapping).
      loaded.resize(capacity * 3);
      assert.ok(grown() >= 3 * nodeArray - 8192, `advised ${grown()} of ${3 * nodeArray} after resize`);
      assert.equal(loaded.search(row(all, 42), 1, 50, null, 0)[0], 42);
      loaded.close();
      assert.ok(grown() < 1 << 20, `still advised after close: ${grown()}`);

      // In the background (the start's way), on a native thread.
      const behind = new HnswIndex('l2', DIM);
      behind.load(file, true);
      behind.wait();
      assert.ok(grown() >= 2 * nodeArray - 8192, `advised ${grown()} of ${2 * nodeArray} after a background load`);
      behind.close();
    } finally {
      removeDir(dir);
    }
  });
});

/** Bytes of this process's mappings advised for huge pages (VmFlags "hg" in /proc/self/smaps). */
function hugeAdvisedBytes(): number {
  let total = 0;
  let size = 0;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    if (line.startsWith('Size:')) size = Number(line.split(/\s+/)[1]) * 1024;
    else if (line.startsWith('VmFlags:') && line.split(/\s+/).includes('hg')) total += size;
  }
  return total;
}
