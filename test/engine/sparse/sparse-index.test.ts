// The sparse inverted index (src/engine/sparse/) against a brute-force scorer written
// here: exact top-k of Σ qᵢ·dᵢ over records sharing a dimension with the query, summed in
// ascending dimension order, ranked on the float32 score with ties by id. Covers MaxScore
// (records and queries with negative weights included: a bound that ignores a list's
// minimum, or is 10% too low, fails here) and plain accumulation, filters, updates that replace
// sparse values, deletes with label reuse, namespace drops, background compaction, and
// the index after a random write sequence equal to one built from scratch. Hybrid search
// with a graph is compared with exact hybrid scoring.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { prepareSparse, SparseIndex } from '../../../src/engine/sparse/sparse-index.js';
import { Postings } from '../../../src/engine/sparse/postings.js';
import { EngineIndex } from '../../../src/engine/engine-index.js';
import { VectorSet, type SearchTrace } from '../../../src/engine/vector-set.js';
import type { SparseValues } from '../../../src/engine/model.js';
import { FLOAT32_MAX } from '../../../src/engine/float32.js';
import { Bitmap } from '../../../src/engine/metadata/bitmap.js';
import { HYBRID_CANDIDATE_MULTIPLE } from '../../../src/engine/sparse/hybrid.js';
import { nativeAddon, nativeAddonError } from '../../../src/engine/native-addon.js';
import { prng } from '../../helpers/prng.js';

const VOCAB = 300;

/**
 * Zipf-like dimensions (low ones common), values mostly positive, some negative when
 * asked; `stride` spreads the dimensions (a vocabulary of VOCAB dimensions stride apart).
 */
function zipfSparse(rand: () => number, n: number, negativeShare: number, stride = 1): SparseValues {
  const chosen = new Set<number>();
  while (chosen.size < n) chosen.add(Math.floor(VOCAB * rand() ** 3) * stride);
  const indices = Uint32Array.from(chosen); // unsorted on purpose
  const values = Float32Array.from(indices, () => (rand() < negativeShare ? -rand() : rand()));
  return { indices, values };
}

interface Ref {
  label: number;
  id: string;
  sparse: SparseValues;
  tag: number;
}

function bruteForce(records: Iterable<Ref>, q: SparseValues, topK: number, keep: (r: Ref) => boolean = () => true): { id: string; score: number }[] {
  const qm = new Map<number, number>();
  for (let i = 0; i < q.indices.length; i++) qm.set(q.indices[i], q.values[i]);
  const hits: { id: string; score: number }[] = [];
  for (const r of records) {
    if (!keep(r)) continue;
    const order = Array.from(r.sparse.indices.keys()).sort((a, b) => r.sparse.indices[a] - r.sparse.indices[b]);
    let score = 0;
    let shares = false;
    for (const i of order) {
      const w = qm.get(r.sparse.indices[i]);
      if (w === undefined) continue;
      shares = true;
      score += w * r.sparse.values[i];
    }
    if (shares) hits.push({ id: r.id, score: Math.fround(score) });
  }
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, topK);
}

const sorted = (s: SparseValues): SparseValues => {
  const order = Array.from(s.indices.keys()).sort((a, b) => s.indices[a] - s.indices[b]);
  return { indices: Uint32Array.from(order, (i) => s.indices[i]), values: Float32Array.from(order, (i) => s.values[i]) };
};

/**
 * A random sequence of sets, replacements and removals with label reuse, mirrored in
 * `live`; `dims` maps each drawn sparse vector (e.g. spreads its dimensions). `continued`:
 * go on writing into this index and its mirror (default: a fresh index).
 */
function randomWrites(
  seed: number,
  steps: number,
  dims: (s: SparseValues) => SparseValues = (s) => s,
  continued: { index?: SparseIndex; live?: Map<number, Ref>; load?: boolean } = {},
): { index: SparseIndex; live: Map<number, Ref> } {
  const rand = prng(seed);
  // Reads between the writes, as queries come: each flushes the writes queued for the
  // postings (sparse-index.ts, `queue`), so some values are replaced or removed while
  // queued and others after reaching the lists. Its own generator: the writes stay as
  // they were. None during a load (`load`), which nothing reads until it ends.
  const reads = continued.load ? () => 1 : prng(seed + 0x5eed);
  const draw = (n: number): SparseValues => dims(zipfSparse(rand, n, 0.2));
  const index = continued.index ?? new SparseIndex();
  const live = continued.live ?? new Map<number, Ref>();
  const free: number[] = [];
  let next = live.size === 0 ? 0 : Math.max(...live.keys()) + 1;
  let serial = next;
  for (let step = 0; step < steps; step++) {
    if (reads() < 0.02) index.postingsReady();
    const r = rand();
    if (r < 0.6 || live.size === 0) {
      const label = free.pop() ?? next++;
      const sparse = draw(1 + Math.floor(rand() * 20));
      index.set(label, sorted(sparse));
      live.set(label, { label, id: `r${serial++}`, sparse, tag: Math.floor(rand() * 4) });
    } else {
      const labels = [...live.keys()];
      const label = labels[Math.floor(rand() * labels.length)];
      if (r < 0.8) {
        // Update that replaces the sparse values (sometimes with identical ones).
        const old = live.get(label)!;
        const sparse = rand() < 0.1 ? old.sparse : draw(1 + Math.floor(rand() * 20));
        index.set(label, sorted(sparse));
        live.set(label, { ...old, sparse });
      } else {
        index.remove(label);
        live.delete(label);
        free.push(label);
      }
    }
  }
  return { index, live };
}

describe('SparseIndex', () => {
  it('allocates nothing until sparse values arrive (a dense namespace keeps an empty one), then grows and searches as usual', () => {
    const index = new SparseIndex();
    for (let label = 0; label < 200; label++) index.set(label, undefined);
    index.remove(7);
    assert.equal(index.bytes, 0);
    assert.deepEqual(index.search(prepareSparse({ indices: Uint32Array.of(3), values: Float32Array.of(1) }), 5, () => 'x'), []);
    index.set(150, { indices: Uint32Array.of(3, 9), values: Float32Array.of(2, 1) });
    assert.ok(index.bytes > 0);
    assert.deepEqual(index.get(150), { indices: Uint32Array.of(3, 9), values: Float32Array.of(2, 1) });
    assert.equal(index.dot(150, prepareSparse({ indices: Uint32Array.of(3), values: Float32Array.of(1) })), 2);
  });

  it('appends queued writes only when read, each label\'s current values once, leaving no stale entry for values replaced or removed while queued', () => {
    const index = new SparseIndex();
    const v = (dim: number, w: number): SparseValues => ({ indices: Uint32Array.of(dim, dim + 1), values: Float32Array.of(w, w) });
    for (let label = 0; label < 100; label++) index.set(label, v(label % 5, 1));
    for (let label = 0; label < 100; label += 3) index.set(label, v(10, 2)); // replaced while queued
    for (let label = 1; label < 100; label += 3) index.remove(label); // removed while queued
    index.set(1, v(10, 3)); // and set again
    assert.equal(index.hasWork, true, 'the queue is work for the background');
    const fresh = new SparseIndex();
    for (let label = 0; label < 100; label++) {
      const now = index.get(label);
      if (now) fresh.set(label, now);
    }
    assert.deepEqual(index.livePostings(), fresh.livePostings());
    assert.equal(index.hasWork, false, 'nothing stale to compact, nothing queued');
    assert.deepEqual(index.livePostings().get(10)?.slice(0, 2), [[0, 2], [1, 3]]);
    // Values that reached the lists go stale when replaced, as before.
    for (let label = 0; label < 100; label += 2) index.set(label, v(20, 4));
    index.postingsReady();
    assert.equal(index.hasWork, true, 'replaced entries are stale: compaction is due');
  });

  it('after random writes equals an index built from scratch, before and after compaction', () => {
    for (const seed of [1, 2, 3]) {
      const { index, live } = randomWrites(seed, 3000);
      const fresh = new SparseIndex();
      for (const r of live.values()) fresh.set(r.label, sorted(r.sparse));
      assert.deepEqual(index.livePostings(), fresh.livePostings(), `seed ${seed}`);
      assert.ok(index.hasWork, 'replaced values left stale entries to compact');
      index.work(Infinity);
      assert.equal(index.hasWork, false);
      assert.deepEqual(index.livePostings(), fresh.livePostings(), `seed ${seed}, compacted`);
      for (const r of live.values()) assert.deepEqual(index.get(r.label), sorted(r.sparse));
    }
  });

  it('a trim pass in steps, with writes between them, shrinks the postings and changes no answer', () => {
    for (const seed of [41, 42]) {
      const { index, live } = randomWrites(seed, 3000);
      index.postingsReady();
      const before = index.bytes;
      index.startTrim();
      let steps = 0;
      // A deadline already past: each step trims 64 lists and returns.
      while (!index.trimStep(-Infinity)) {
        steps++;
        if (steps % 3 === 0) randomWrites(seed * 1000 + steps, 20, undefined, { index, live });
      }
      assert.ok(steps > 3, `the pass took ${steps} steps`);
      const fresh = new SparseIndex();
      for (const r of live.values()) fresh.set(r.label, sorted(r.sparse));
      assert.deepEqual(index.livePostings(), fresh.livePostings(), `seed ${seed}`);
      const idOf = (label: number): string => live.get(label)!.id;
      const rand = prng(seed);
      for (let qi = 0; qi < 20; qi++) {
        const q = zipfSparse(rand, 1 + Math.floor(rand() * 10), qi % 2 === 0 ? 0 : 0.3);
        const got = index.search(prepareSparse(q), 10, idOf).map((h) => ({ id: h.id, score: h.rank }));
        assert.deepEqual(got, bruteForce(live.values(), q, 10), `seed ${seed} q${qi}`);
      }
      // A pass with no writes during it: the lists (8 entries at first, doubling) now fit.
      index.startTrim();
      assert.equal(index.trimStep(Infinity), true);
      assert.ok(index.bytes < before * 0.9, `bytes ${before} → ${index.bytes}`);
      // Appends after a trim grow the lists again.
      randomWrites(seed + 7, 500, undefined, { index, live });
      const again = new SparseIndex();
      for (const r of live.values()) again.set(r.label, sorted(r.sparse));
      assert.deepEqual(index.livePostings(), again.livePostings(), `seed ${seed}, after more writes`);
    }
  });

  it('addMany() leaves every list as add() of the same entries one by one would: entries, sorted prefix, bounds, due lists', () => {
    const rand = prng(77);
    for (const maxDim of [50, 5000, 4_000_000_000]) {
      const batched = new Postings();
      const single = new Postings();
      for (let round = 0; round < 6; round++) {
        // Mostly ascending labels per dimension (an ingest), with old labels mixed in (updates).
        const n = 200 + Math.floor(rand() * 3000);
        const batch = { dims: new Uint32Array(n), labels: new Uint32Array(n), gens: new Uint32Array(n), weights: new Float32Array(n) };
        for (let i = 0; i < n; i++) {
          batch.dims[i] = Math.floor(rand() ** 3 * maxDim);
          batch.labels[i] = rand() < 0.8 ? round * 10_000 + i : Math.floor(rand() * round * 10_000);
          batch.gens[i] = Math.floor(rand() * 5);
          batch.weights[i] = rand() * 4 - 1;
        }
        batched.addMany(batch, n);
        for (let i = 0; i < n; i++) single.add(batch.dims[i], batch.labels[i], batch.gens[i], batch.weights[i]);
        const state = (p: Postings) =>
          [...p.entries()]
            .sort((a, b) => a[0] - b[0])
            .map(([dim, l]) => ({ dim, entries: Array.from(l.entries.subarray(0, l.length * 3)), sorted: l.sorted, max: l.max, min: l.min }));
        assert.deepEqual(state(batched), state(single), `max dimension ${maxDim}, round ${round}`);
        if (round > 0) assert.ok(state(batched).some((l) => l.sorted < l.entries.length / 3), 'some lists went out of label order');
        assert.equal(batched.hasWork, single.hasWork, 'the same lists are due for a sort');
      }
    }
  });

  it('a trim shrinks a list to its entries only when over an eighth of its buffer is unused', () => {
    const postings = new Postings();
    // Lists start at 8 entries and double: 9 entries sit in 16 (7 unused), 15 in 16 (1), 8 in 8.
    for (const [dim, n] of [[1, 9], [2, 15], [3, 8]]) for (let i = 0; i < n; i++) postings.add(dim, i, 1, dim + i / 100);
    const buffers = new Map([1, 2, 3].map((dim) => [dim, postings.get(dim)!.entries]));
    postings.startTrim();
    assert.equal(postings.trimStep(Infinity), true);
    assert.equal(postings.get(1)!.entries.length, 9 * 3);
    assert.equal(postings.get(2)!.entries, buffers.get(2), 'a sixteenth unused: left alone');
    assert.equal(postings.get(3)!.entries, buffers.get(3), 'full: left alone');
    for (const [dim, n] of [[1, 9], [2, 15], [3, 8]]) {
      const list = postings.get(dim)!;
      assert.equal(list.length, n);
      for (let i = 0; i < n; i++) {
        assert.equal(list.label(i), i);
        assert.equal(list.gen(i), 1);
        assert.equal(list.weight(i), Math.fround(dim + i / 100));
      }
    }
    // The trimmed list grows again on the next append.
    postings.add(1, 9, 1, 5);
    assert.equal(postings.get(1)!.length, 10);
    assert.equal(postings.get(1)!.weight(9), 5);
  });

  // A load defers the postings and bulk-builds them at its end (deferPostings,
  // postingsReady); updates and deletes during the deferral, and writes after the build
  // (which must make the built entries stale correctly), have to leave the same index as
  // appending record by record. stride 100000 puts dimensions past the array-indexed
  // build's range (postings.ts build()), so both of its ways are covered.
  it('postings bulk-built after a deferred load equal postings appended record by record, through later writes', () => {
    const spreadBy = (stride: number) => (s: SparseValues): SparseValues => ({ indices: s.indices.map((d) => d * stride), values: s.values });
    for (const stride of [1, 100_000]) {
      for (const seed of [31, 32, 33]) {
        const deferred = new SparseIndex();
        deferred.deferPostings();
        const { live } = randomWrites(seed, 2000, spreadBy(stride), { index: deferred, load: true });
        const incremental = randomWrites(seed, 2000, spreadBy(stride)).index;
        assert.ok(deferred.hasWork, 'the deferred build is pending work');
        deferred.postingsReady();
        const built = deferred.livePostings();
        assert.ok(built.size > (stride === 1 ? 100 : 50), `postings were built (${built.size} dimensions)`);
        assert.deepEqual(built, incremental.livePostings(), `stride ${stride} seed ${seed}, built`);
        // Bounds (MaxScore prunes with them) are exact over the built entries, as in an
        // index that appended only the live records.
        const appended = new SparseIndex();
        for (const r of live.values()) appended.set(r.label, sorted(r.sparse));
        assert.deepEqual(deferred.postingBounds(), appended.postingBounds(), `stride ${stride} seed ${seed}, bounds`);
        // Writes after the build: replacements and deletes of bulk-built entries.
        randomWrites(seed + 100, 1500, spreadBy(stride), { index: deferred, live });
        const fresh = new SparseIndex();
        for (const r of live.values()) fresh.set(r.label, sorted(r.sparse));
        assert.deepEqual(deferred.livePostings(), fresh.livePostings(), `stride ${stride} seed ${seed}, later writes`);
        deferred.work(Infinity);
        assert.deepEqual(deferred.livePostings(), fresh.livePostings(), `stride ${stride} seed ${seed}, compacted`);
        const idOf = (label: number): string => live.get(label)!.id;
        const rand = prng(seed);
        for (let qi = 0; qi < 20; qi++) {
          const q = zipfSparse(rand, 1 + Math.floor(rand() * 10), qi % 2 === 0 ? 0 : 0.3, stride);
          const got = deferred.search(prepareSparse(q), 10, idOf).map((h) => ({ id: h.id, score: h.rank }));
          assert.deepEqual(got, bruteForce(live.values(), q, 10), `stride ${stride} seed ${seed} q${qi}`);
        }
      }
    }
  });

  it('a search while the postings are deferred builds them first and answers from every record', () => {
    const index = new SparseIndex();
    index.deferPostings();
    const a = sorted({ indices: Uint32Array.of(7, 2), values: Float32Array.of(1, 0.5) });
    const b = sorted({ indices: Uint32Array.of(2), values: Float32Array.of(2) });
    index.set(0, a);
    index.set(1, b);
    index.set(2, a);
    index.remove(2);
    index.set(1, sorted({ indices: Uint32Array.of(2, 9), values: Float32Array.of(3, 1) }));
    const ids = ['a', 'b', 'c'];
    const hits = index.search(prepareSparse({ indices: Uint32Array.of(2), values: Float32Array.of(1) }), 10, (l) => ids[l]);
    assert.deepEqual(hits.map((h) => [h.id, h.rank]), [['b', 3], ['a', 0.5]]);
    assert.equal(index.hasWork, false, 'built once, nothing stale');
  });

  it('search equals brute force: MaxScore and plain, queries with and without negative weights, filters, empty overlaps', () => {
    const { index, live } = randomWrites(7, 4000);
    const idOf = (label: number): string => live.get(label)!.id;
    const rand = prng(99);
    let compared = 0;
    for (let qi = 0; qi < 60; qi++) {
      const q = zipfSparse(rand, 1 + Math.floor(rand() * 12), qi % 2 === 0 ? 0 : 0.3);
      const prepared = prepareSparse(q);
      assert.equal(prepared.nonNegative, !Array.from(q.values).some((v) => v < 0));
      for (const topK of [1, 5, 10, 40, 5000]) {
        const want = bruteForce(live.values(), q, topK);
        const got = index.search(prepared, topK, idOf).map((h) => ({ id: h.id, score: h.rank }));
        assert.deepEqual(got, want, `q${qi} topK=${topK}`);
        const plain = index.search(prepared, topK, idOf, undefined, 'plain').map((h) => ({ id: h.id, score: h.rank }));
        assert.deepEqual(plain, want, `q${qi} topK=${topK} plain`);
        compared++;
      }
      const tag = qi % 4;
      const allow = new Bitmap(5000);
      for (const r of live.values()) if (r.tag === tag) allow.add(r.label);
      const got = index.search(prepared, 10, idOf, allow).map((h) => ({ id: h.id, score: h.rank }));
      assert.deepEqual(got, bruteForce(live.values(), q, 10, (r) => r.tag === tag), `q${qi} filtered`);
    }
    assert.equal(compared, 300);
    // A query sharing no dimension with any record matches nothing.
    const none = prepareSparse({ indices: Uint32Array.of(VOCAB + 5, 4294967295), values: Float32Array.of(1, 2) });
    assert.deepEqual(index.search(none, 10, idOf), []);
  });

  it('high dimensions (hashed vocabularies, up to 4294967295) index, compact and search like low ones', () => {
    const spread = (s: SparseValues): SparseValues => ({
      indices: Uint32Array.from(s.indices, (d) => (d % 3 === 0 ? d : d % 3 === 1 ? 131_072 + d : 4_294_967_295 - d)),
      values: s.values,
    });
    const { index, live } = randomWrites(5, 3000, spread);
    const fresh = new SparseIndex();
    for (const r of live.values()) fresh.set(r.label, sorted(r.sparse));
    const dims = new Set([...index.livePostings().keys()]);
    assert.ok([...dims].some((d) => d < 131_072) && [...dims].some((d) => d >= 131_072 && d < 200_000) && [...dims].some((d) => d > 4_294_000_000));
    assert.deepEqual(index.livePostings(), fresh.livePostings());
    const idOf = (label: number): string => live.get(label)!.id;
    const rand = prng(17);
    for (let qi = 0; qi < 30; qi++) {
      const q = spread(zipfSparse(rand, 1 + Math.floor(rand() * 12), qi % 2 === 0 ? 0 : 0.3));
      const got = index.search(prepareSparse(q), 10, idOf).map((h) => ({ id: h.id, score: h.rank }));
      assert.deepEqual(got, bruteForce(live.values(), q, 10), `q${qi}`);
    }
    index.work(Infinity);
    assert.deepEqual(index.livePostings(), fresh.livePostings(), 'compacted');
  });

  it('MaxScore equals brute force when large values cancel (partial sums far above the scores, rounded in the native sums)', () => {
    // Each record holds three pairs: +b on a dimension of [0, 20) and -b + s on one of
    // [20, 40), b about 2^20 and s a multiple of 1/8 below 1, so a score is the sum of its
    // s while its partial sums pass 3·2^20, where a float32 is rounded to a multiple of
    // 1/4. MaxScore reads the positive lists first (the negative ones bound nothing):
    // pruning those rounded sums without room for the rounding drops records of the top k.
    const rand = prng(77);
    const live: Ref[] = [];
    for (let label = 0; label < 2000; label++) {
      const values = new Map<number, number>();
      while (values.size < 6) {
        const b = 1_048_576 + Math.floor(rand() * 8000) / 8;
        const [up, down] = [Math.floor(rand() * 20), 20 + Math.floor(rand() * 20)];
        if (values.has(up) || values.has(down)) continue;
        values.set(up, b);
        values.set(down, -b + Math.floor(rand() * 8) / 8);
      }
      live.push({ label, id: `r${label}`, sparse: { indices: Uint32Array.from(values.keys()), values: Float32Array.from(values.values()) }, tag: 0 });
    }
    const idOf = (label: number): string => `r${label}`;
    for (const native of [nativeAddon ?? null, null]) {
      const index = new SparseIndex(native);
      for (const r of live) index.set(r.label, sorted(r.sparse));
      for (let qi = 0; qi < 20; qi++) {
        // Every dimension at weight 1 but two positive ones, whose records fall far behind.
        const left = new Set([Math.floor(rand() * 20), Math.floor(rand() * 20)]);
        const dims = Array.from({ length: 40 }, (_, d) => d).filter((d) => !left.has(d));
        const q = { indices: Uint32Array.from(dims), values: new Float32Array(dims.length).fill(1) };
        const got = index.search(prepareSparse(q), 10, idOf).map((h) => ({ id: h.id, score: h.rank }));
        assert.deepEqual(got, bruteForce(live, q, 10), `q${qi} native=${native !== null}`);
      }
    }
  });

  it('after compaction (tightened list bounds) MaxScore still equals brute force', () => {
    const { index, live } = randomWrites(11, 3000);
    index.work(Infinity);
    const idOf = (label: number): string => live.get(label)!.id;
    const rand = prng(5);
    for (let qi = 0; qi < 40; qi++) {
      const q = zipfSparse(rand, 1 + Math.floor(rand() * 12), qi % 2 === 0 ? 0 : 0.3);
      for (const topK of [1, 10, 100]) {
        const got = index.search(prepareSparse(q), topK, idOf).map((h) => ({ id: h.id, score: h.rank }));
        assert.deepEqual(got, bruteForce(live.values(), q, topK), `q${qi} topK=${topK}`);
      }
    }
  });

  it('a record whose partial sum crosses the θ estimate\'s bar, falls back under it and crosses again is scored once (both paths)', () => {
    // Query weights 1 on dims 1..5; list bounds 10, 9.5, 9, 8.9, 1, so MaxScore gathers
    // dims 1..4 in that order. After dim 1 the first estimate scores labels 0 and 1 (k = 2):
    // θ = 9, bar = 9. Label 2 crosses the bar on dim 2 (9.5), falls under it on dim 3
    // (4.5) and crosses it again on dim 4 (13.4); the second estimate (8 records touched)
    // then reads the listed records, where it must appear once: scored twice, it would
    // fill both top places and push label 0 out.
    const records: [number[], number[]][] = [
      [[1], [10]],
      [[1], [9]],
      [[2, 3, 4], [9.5, -5, 8.9]],
      [[2], [0.1]],
      [[2], [0.1]],
      [[3], [9]],
      [[4], [0.2]],
      [[4], [0.2]],
      [[5], [1]],
    ];
    const refs: Ref[] = records.map(([indices, values], label) => ({
      label,
      id: `r${label}`,
      sparse: { indices: Uint32Array.from(indices), values: Float32Array.from(values) },
      tag: 0,
    }));
    const q = { indices: Uint32Array.of(1, 2, 3, 4, 5), values: Float32Array.of(1, 1, 1, 1, 1) };
    const want = bruteForce(refs, q, 2);
    assert.deepEqual(want.map((h) => h.id), ['r2', 'r0']);
    for (const native of [nativeAddon ?? null, null]) {
      const index = new SparseIndex(native);
      for (const r of refs) index.set(r.label, r.sparse);
      const got = index.search(prepareSparse(q), 2, (l) => `r${l}`).map((h) => ({ id: h.id, score: h.rank }));
      assert.deepEqual(got, want, native ? 'native' : 'JavaScript');
    }
  });

  it('ties (identical records) are ordered by id on the pruned path', () => {
    const index = new SparseIndex();
    const s = sorted({ indices: Uint32Array.of(3, 1, 2), values: Float32Array.of(0.5, 0.25, 1) });
    const ids = ['c', 'a', 'd', 'b'];
    ids.forEach((_, label) => index.set(label, s));
    index.set(4, sorted({ indices: Uint32Array.of(1), values: Float32Array.of(0.1) }));
    const hits = index.search(prepareSparse({ indices: Uint32Array.of(1, 2, 3), values: Float32Array.of(1, 1, 1) }), 3, (l) => ids[l] ?? 'e');
    assert.deepEqual(hits.map((h) => h.id), ['a', 'b', 'c']);
    assert.deepEqual(hits.map((h) => h.rank), [1.75, 1.75, 1.75]);
  });
});

describe('SparseIndex reaching (hybrid search: every record whose sparse score reaches a threshold)', () => {
  /** Exact sparse scores of the live records sharing a dimension with q, by label. */
  const scores = (live: Map<number, Ref>, q: SparseValues): Map<number, number> => {
    const qm = new Map<number, number>();
    for (let i = 0; i < q.indices.length; i++) qm.set(q.indices[i], q.values[i]);
    const out = new Map<number, number>();
    for (const r of live.values()) {
      let score = 0;
      let shares = false;
      for (let i = 0; i < r.sparse.indices.length; i++) {
        const w = qm.get(r.sparse.indices[i]);
        if (w === undefined) continue;
        shares = true;
        score += w * r.sparse.values[i];
      }
      if (shares) out.set(r.label, score);
    }
    return out;
  };

  it('equals brute force after random writes, before and after compaction, negative weights included', () => {
    const { index, live } = randomWrites(21, 3000);
    const rand = prng(22);
    let nonEmpty = 0;
    for (const compacted of [false, true]) {
      if (compacted) index.work(Infinity);
      for (let qi = 0; qi < 40; qi++) {
        const q = zipfSparse(rand, 1 + Math.floor(rand() * 10), qi % 2 === 0 ? 0 : 0.3);
        const exact = scores(live, q);
        const ranked = [...exact.values()].filter((v) => v > 0).sort((a, b) => b - a);
        // Thresholds at, between and beyond the records' scores.
        for (const tau of [ranked[0], ranked[4], ranked[20], (ranked[9] + ranked[10]) / 2, 1e-6, 1e6]) {
          if (!(tau > 0)) continue;
          const got = new Set(index.reaching(prepareSparse(q), tau));
          const want = [...exact].filter(([, v]) => v >= tau).map(([label]) => label);
          for (const label of want) assert.ok(got.has(label), `q${qi} tau=${tau} label ${label} missing`);
          for (const label of got) assert.ok(exact.get(label)! >= tau * (1 - 1e-6), `q${qi} tau=${tau} label ${label} below`);
          if (want.length > 0) nonEmpty++;
        }
      }
    }
    assert.ok(nonEmpty > 200, `thresholds that select records: ${nonEmpty}`);
  });

  it('prepareSparse sorts by index, keeps the last weight of a repeated index and copies ascending input', () => {
    const messy = prepareSparse({ indices: Uint32Array.of(9, 2, 9, 4000000000, 5), values: Float32Array.of(1, -2, 3, 4, 5) });
    assert.deepEqual([...messy.dims], [2, 5, 9, 4000000000]);
    assert.deepEqual([...messy.weights], [-2, 5, 3, 4]);
    assert.equal(messy.nonNegative, false);
    const input = { indices: Uint32Array.of(1, 7, 8), values: Float32Array.of(0.5, 0, 2) };
    const sorted = prepareSparse(input);
    assert.deepEqual([...sorted.dims], [1, 7, 8]);
    assert.deepEqual([...sorted.weights], [0.5, 0, 2]);
    assert.equal(sorted.nonNegative, true);
    input.indices[0] = 99;
    input.values[0] = 99;
    assert.equal(sorted.dims[0], 1, 'the prepared query does not share the caller\'s arrays');
    assert.equal(sorted.weights[0], 0.5);
  });

  it('returns nothing for a threshold that is not positive (records sharing no dimension would reach it)', () => {
    const index = new SparseIndex();
    index.set(0, { indices: Uint32Array.of(1), values: Float32Array.of(0.5) });
    const q = prepareSparse({ indices: Uint32Array.of(1), values: Float32Array.of(1) });
    assert.deepEqual(index.reaching(q, 0.5), [0]);
    assert.deepEqual(index.reaching(q, 0), []);
    assert.deepEqual(index.reaching(q, -1), []);
    // Over its budget it answers undefined: the caller keeps its candidates.
    assert.equal(index.reaching(q, 0.5, 0), undefined, 'more postings than allowed');
    assert.equal(index.reaching(q, 0.5, Infinity, 0), undefined, 'more records than allowed');
    assert.deepEqual(index.reaching(q, 0.5, 1, 1), [0]);
  });

  it('counts the entries read while narrowing against maxPostings too (both paths)', () => {
    for (const native of [nativeAddon ?? null, null]) {
      const index = new SparseIndex(native);
      // Records 0-9 hold dimension 1 (weight 1); 0-4 also dimension 2 (0.1), as do 90
      // records 10-99; each holds 50 more dimensions the query lacks, so scoring a record
      // exactly looks dear and narrowing by reading dimension 2's list is preferred.
      for (let label = 0; label < 100; label++) {
        const dims = [...(label < 10 ? [1] : []), ...(label < 5 || label >= 10 ? [2] : []), ...Array.from({ length: 50 }, (_, i) => 100 + i)];
        index.set(label, { indices: Uint32Array.from(dims), values: Float32Array.from(dims, (d) => (d === 1 ? 1 : d === 2 ? 0.1 : 0.5)) });
      }
      const q = prepareSparse({ indices: Uint32Array.of(1, 2), values: Float32Array.of(1, 1) });
      // τ = 1.05: dimension 1's list (10 entries) must be read; its 10 records survive
      // until dimension 2's list (95 entries) shows which reach 1.1.
      assert.deepEqual(index.reaching(q, 1.05, 105, 5)?.sort((x, y) => x - y), [0, 1, 2, 3, 4], `native=${native !== null}`);
      assert.equal(index.reaching(q, 1.05, 104, 5), undefined, `native=${native !== null}: 10 survivors, narrowing over budget`);
      assert.deepEqual(index.reaching(q, 1.05, 104, 10)?.sort((x, y) => x - y), [0, 1, 2, 3, 4], `native=${native !== null}: the survivors scored exactly`);
    }
  });
});

describe('SparseIndex dots() through the postings', () => {
  it('equal dot() bit for bit (NaN where nothing is shared), after updates and deletes, natively and in JavaScript', () => {
    for (const native of [nativeAddon ?? null, null]) {
      const { index, live } = randomWrites(41, 3000, undefined, { index: new SparseIndex(native) });
      const labels = Uint32Array.from({ length: 5000 }, (_, i) => i); // live, deleted and never used labels
      const rand = prng(42);
      for (let qi = 0; qi < 20; qi++) {
        const q = prepareSparse(zipfSparse(rand, 1 + Math.floor(rand() * 12), 0.3));
        // This many labels take the postings path (its condition, checked here).
        assert.ok(index.postingsOf(q) < labels.length * index.pairsPerRecord, `q${qi}: postings path`);
        const out = new Float64Array(labels.length);
        index.dots(q, labels, labels.length, out);
        labels.forEach((label, i) => assert.ok(Object.is(out[i], index.dot(label, q)), `q${qi} label ${label}: ${out[i]} vs ${index.dot(label, q)}`));
        assert.ok(out.some((x) => x === x) && out.some((x) => x !== x), 'both shared and unshared dimensions occur');
      }
      assert.ok(live.size > 1000);
    }
  });
});

describe('SparseIndex scores beyond float32 range', () => {
  it('rank as the largest float32 of their sign and tie by id, natively and in JavaScript, pruned and plain', () => {
    const big = Math.fround(3.4e38);
    const ids = ['b', 'a', 'c', 'd'];
    const records = [
      { indices: Uint32Array.of(1), values: Float32Array.of(big) },
      { indices: Uint32Array.of(1, 2), values: Float32Array.of(big, big) },
      { indices: Uint32Array.of(1), values: Float32Array.of(1) },
      { indices: Uint32Array.of(2), values: Float32Array.of(-big) },
    ];
    const q = prepareSparse({ indices: Uint32Array.of(1, 2), values: Float32Array.of(big, big) });
    for (const native of [nativeAddon ?? null, null]) {
      const index = new SparseIndex(native);
      records.forEach((r, label) => index.set(label, r));
      for (const strategy of ['maxscore', 'plain'] as const) {
        const hits = index.search(q, 4, (l) => ids[l], undefined, strategy);
        const what = `${native ? 'native' : 'JavaScript'} ${strategy}`;
        assert.deepEqual(hits.map((h) => h.id), ['a', 'b', 'c', 'd'], what);
        assert.deepEqual(hits.map((h) => h.rank), [FLOAT32_MAX, FLOAT32_MAX, big, -FLOAT32_MAX], what);
        // Only the two tied at the top: the tie at the k-th score is broken by id.
        assert.deepEqual(index.search(q, 1, (l) => ids[l], undefined, strategy).map((h) => h.id), ['a'], what);
      }
    }
  });
});

describe('SparseIndex native and JavaScript paths', () => {
  it('answer every search identically (MaxScore, plain, filtered) and pick the same hybrid candidates', () => {
    const { index: a, live } = randomWrites(31, 3000, undefined, { index: new SparseIndex(nativeAddon ?? null) });
    const { index: b } = randomWrites(31, 3000, undefined, { index: new SparseIndex(null) });
    const idOf = (label: number): string => live.get(label)!.id;
    const allow = new Bitmap(5000);
    for (const r of live.values()) if (r.tag === 1) allow.add(r.label);
    assert.ok(a.isNative, `addon not loaded: ${nativeAddonError}`);
    const rand = prng(32);
    for (let qi = 0; qi < 40; qi++) {
      const q = prepareSparse(zipfSparse(rand, 1 + Math.floor(rand() * 12), qi % 2 === 0 ? 0 : 0.3));
      for (const topK of [1, 10, 100]) {
        assert.deepEqual(a.search(q, topK, idOf), b.search(q, topK, idOf), `q${qi} topK=${topK}`);
        assert.deepEqual(a.search(q, topK, idOf, undefined, 'plain'), b.search(q, topK, idOf, undefined, 'plain'), `q${qi} topK=${topK} plain`);
        assert.deepEqual(a.search(q, topK, idOf, allow), b.search(q, topK, idOf, allow), `q${qi} topK=${topK} filtered`);
        const reach = (x: SparseIndex): number[] | undefined => x.reaching(q, 0.2)?.sort((u, v) => u - v);
        assert.deepEqual(reach(a), reach(b), `q${qi} reaching`);
      }
      // dots(): the native sums are the JavaScript ones bit for bit (NaN where nothing is shared).
      const labels = Uint32Array.from({ length: 300 }, (_, i) => (i * 37 + qi) % 5000);
      const [na, nb] = [new Float64Array(300), new Float64Array(300)];
      a.dots(q, labels, 300, na);
      b.dots(q, labels, 300, nb);
      labels.forEach((label, i) => assert.ok(Object.is(na[i], nb[i]) && Object.is(nb[i], b.dot(label, q)), `q${qi} label ${label}: ${na[i]} vs ${nb[i]}`));
      assert.ok(nb.some((x) => x === x) && nb.some((x) => x !== x), 'both shared and unshared dimensions occur');
      // The same candidates in the same order, best partial sum first (equal sums by label).
      for (const [n, coverage] of [[5, 0.5], [50, 0.3], [100000, 1]]) {
        assert.deepEqual(a.candidates(q, n, coverage), b.candidates(q, n, coverage), `q${qi} n=${n} coverage=${coverage}`);
      }
      // Every list read (coverage 1): the partial sums are the exact scores.
      const byScore = [...live.values()]
        .map((r) => ({ label: r.label, score: b.dot(r.label, q) }))
        .filter((r) => r.score === r.score)
        .sort((x, y) => y.score - x.score || x.label - y.label)
        .map((r) => r.label);
      assert.deepEqual(a.candidates(q, 100000, 1), byScore, `q${qi} best first`);
    }
  });

  it('score the same on both sides of dimension 65,536, where the native table of query dimensions ends', () => {
    // Every drawn dimension d becomes 65,535 - d (below the edge) or that plus 65,536 (above
    // it), by position: records hold both kinds, and an above one aliases a below one under
    // any wrap-around. Queries kept below the edge score through the native table, the
    // others through the merge.
    const edge = (s: SparseValues): SparseValues => ({ indices: Uint32Array.from(s.indices, (d, i) => 65_535 - d + (i % 2) * 65_536), values: s.values });
    const { index: a, live } = randomWrites(41, 2000, edge, { index: new SparseIndex(nativeAddon ?? null) });
    const { index: b } = randomWrites(41, 2000, edge, { index: new SparseIndex(null) });
    assert.ok(a.isNative, `addon not loaded: ${nativeAddonError}`);
    // And one record on the edge itself.
    const onEdge = { indices: Uint32Array.of(65_535, 65_536), values: Float32Array.of(2, 3) };
    const label = Math.max(...live.keys()) + 1;
    for (const x of [a, b]) x.set(label, onEdge);
    live.set(label, { label, id: 'edge', sparse: onEdge, tag: 0 });
    const idOf = (l: number): string => live.get(l)!.id;
    const score = (x: SparseIndex, q: SparseValues): number | undefined => x.search(prepareSparse(q), 100000, idOf).find((h) => h.id === 'edge')?.rank;
    assert.equal(score(a, { indices: Uint32Array.of(65_535), values: Float32Array.of(1) }), 2);
    assert.equal(score(a, { indices: Uint32Array.of(65_535, 65_536), values: Float32Array.of(1, 1) }), 5);
    assert.equal(score(a, { indices: Uint32Array.of(65_536), values: Float32Array.of(1) }), 3);
    const rand = prng(42);
    const labels = Uint32Array.from({ length: 400 }, (_, i) => i * 3);
    for (let qi = 0; qi < 40; qi++) {
      // Odd queries draw two dimensions or more, so that edge() puts one above.
      const drawn = zipfSparse(rand, 1 + (qi % 2) + Math.floor(rand() * 12), qi % 4 < 2 ? 0 : 0.3);
      const q = qi % 2 === 0 ? { indices: Uint32Array.from(drawn.indices, (d) => 65_535 - d), values: drawn.values } : edge(drawn);
      assert.equal(Math.max(...q.indices) < 65_536, qi % 2 === 0);
      assert.deepEqual(a.search(prepareSparse(q), 10, idOf).map((h) => ({ id: h.id, score: h.rank })), bruteForce(live.values(), q, 10), `q${qi}`);
      const [na, nb] = [new Float64Array(labels.length), new Float64Array(labels.length)];
      a.dots(prepareSparse(q), labels, labels.length, na);
      b.dots(prepareSparse(q), labels, labels.length, nb);
      labels.forEach((l, i) => assert.ok(Object.is(na[i], nb[i]), `q${qi} label ${l}: ${na[i]} vs ${nb[i]}`));
      assert.ok(nb.some((x) => x === x), `q${qi}: some label shares a dimension`);
    }
  });

  it('the native functions reject bad arguments with a TypeError and an inconsistent index with an Error', () => {
    const addon = nativeAddon;
    assert.ok(addon, `addon not loaded: ${nativeAddonError}`);
    const entries = Uint32Array.of(0, 0, 0, 1, 0, 0);
    new Float32Array(entries.buffer)[2] = 0.5;
    new Float32Array(entries.buffer)[5] = 0.25;
    const meta = Float64Array.of(2, 0, 0.5, 0.25);
    const dims = Uint32Array.of(7);
    const weights = Float32Array.of(1);
    const state = (): [Uint32Array, Uint32Array, Float32Array, Uint32Array, Uint32Array] => [new Uint32Array(2), Uint32Array.of(7, 7), Float32Array.of(0.5, 0.25), Uint32Array.of(0, 1), Uint32Array.of(1, 1)];
    // A well-formed call: both labels, the better first or not (the caller ranks).
    assert.deepEqual([...addon.sparseSearch([entries], meta, dims, weights, state(), null, 2, 1, 1)].sort(), [0, 1]);
    assert.deepEqual([...addon.sparseSearch([entries], meta, dims, weights, state(), null, 1, 0, 1)], [0]);
    assert.deepEqual([...addon.sparseSearch([entries], meta, dims, weights, state(), Uint32Array.of(2), 1, 1, 1)], [1], 'bitmap allows label 1 only');
    assert.deepEqual([...addon.sparseCandidates([entries], meta, dims, weights, state(), 1, 0.5)], [0]);
    assert.deepEqual([...(addon.sparseReaching([entries], meta, dims, weights, state(), 0.3, Infinity, Infinity, 1) ?? [])], [0]);
    assert.equal(addon.sparseReaching([entries], meta, dims, weights, state(), 0.3, 1, Infinity, 1), undefined);
    const out = new Float64Array(3);
    addon.sparseDots(dims, weights, state(), Uint32Array.of(1, 0, 2), 3, out);
    assert.deepEqual([...out], [0.25, 0.5, NaN]);
    const bad: [string, () => unknown][] = [
      ['too few arguments', () => (addon.sparseSearch as unknown as (...a: unknown[]) => unknown)([entries], meta, dims, weights, state())],
      ['dims not a Uint32Array', () => addon.sparseSearch([entries], meta, Float32Array.of(7) as unknown as Uint32Array, weights, state(), null, 1, 1, 1)],
      ['weights shorter than dims', () => addon.sparseSearch([entries], meta, dims, new Float32Array(0), state(), null, 1, 1, 1)],
      ['meta too short', () => addon.sparseSearch([entries], Float64Array.of(2), dims, weights, state(), null, 1, 1, 1)],
      ['a list shorter than meta says', () => addon.sparseSearch([entries], Float64Array.of(3, 0, 0.5, 0.25), dims, weights, state(), null, 1, 1, 1)],
      ['a missing list with entries', () => addon.sparseSearch([null], meta, dims, weights, state(), null, 1, 1, 1)],
      ['lists not an array', () => addon.sparseSearch(entries as unknown as Uint32Array[], meta, dims, weights, state(), null, 1, 1, 1)],
      ['state too short', () => addon.sparseSearch([entries], meta, dims, weights, state().slice(0, 4) as unknown as ReturnType<typeof state>, null, 1, 1, 1)],
      ['allow not a Uint32Array', () => addon.sparseSearch([entries], meta, dims, weights, state(), [1] as unknown as Uint32Array, 1, 1, 1)],
      ['k 0', () => addon.sparseSearch([entries], meta, dims, weights, state(), null, 0, 1, 1)],
      ['strategy 2', () => addon.sparseSearch([entries], meta, dims, weights, state(), null, 1, 2 as 1, 1)],
      ['coverage above 1', () => addon.sparseCandidates([entries], meta, dims, weights, state(), 1, 2)],
      ['tau 0', () => addon.sparseReaching([entries], meta, dims, weights, state(), 0, 1, 1, 1)],
      ['pairsPerRecord NaN', () => addon.sparseReaching([entries], meta, dims, weights, state(), 1, 1, 1, NaN)],
      ['dots: count past the labels', () => addon.sparseDots(dims, weights, state(), Uint32Array.of(0), 2, out)],
      ['dots: out too small', () => addon.sparseDots(dims, weights, state(), Uint32Array.of(0, 1), 2, new Float64Array(1))],
      ['dots: weights shorter than dims', () => addon.sparseDots(dims, new Float32Array(0), state(), Uint32Array.of(0), 1, out)],
    ];
    for (const [what, f] of bad) assert.throws(f, TypeError, what);
    // Labels beyond the generation table: an Error, not a crash.
    const far = Uint32Array.of(9, 0, 0);
    assert.throws(() => addon.sparseSearch([far], Float64Array.of(1, 0, 1, 1), dims, weights, state(), null, 1, 1, 1), (err: Error) => !(err instanceof TypeError) && /outside/.test(err.message));
    // A label whose values lie beyond the pools.
    const s = state();
    s[3][0] = 5;
    assert.throws(() => addon.sparseSearch([entries], meta, dims, weights, s, null, 1, 1, 1), /outside/);
    assert.throws(() => addon.sparseDots(dims, weights, s, Uint32Array.of(0), 1, out), /outside/);
    // A list that goes bad after touching a label (1) leaves no trace: the per-thread sums
    // and "touched" marks are cleared when a search throws, so in the next search label 1
    // (now the best) is found again.
    const late = Uint32Array.of(1, 0, 0, 9, 0, 0);
    new Float32Array(late.buffer)[2] = 100;
    assert.throws(() => addon.sparseSearch([late], Float64Array.of(2, 0, 100, 0), dims, weights, state(), null, 1, 0, 1), /outside/);
    const flipped = Uint32Array.of(0, 0, 0, 1, 0, 0);
    new Float32Array(flipped.buffer)[2] = 0.25;
    new Float32Array(flipped.buffer)[5] = 0.5;
    const flippedState = (): ReturnType<typeof state> => [new Uint32Array(2), Uint32Array.of(7, 7), Float32Array.of(0.25, 0.5), Uint32Array.of(0, 1), Uint32Array.of(1, 1)];
    for (const strategy of [0, 1] as const) {
      assert.deepEqual([...addon.sparseSearch([flipped], Float64Array.of(2, 0, 0.5, 0.25), dims, weights, flippedState(), null, 1, strategy, 1)], [1], `strategy ${strategy} after a failed search`);
    }
  });
});

describe('Sparse search through EngineIndex (deletes, updates, namespace drop)', () => {
  it('answers from current records only', () => {
    const engine = new EngineIndex({ dimension: 0, metric: 'dotproduct' });
    const rand = prng(5);
    const live = new Map<string, SparseValues>();
    let seq = 0;
    for (let i = 0; i < 400; i++) {
      const sparse = zipfSparse(rand, 8, 0.1);
      engine.apply({ kind: 'upsert', ns: 'a', seq: ++seq, record: { id: `a${i}`, sparse } });
      live.set(`a${i}`, sparse);
    }
    for (let i = 0; i < 400; i += 3) {
      engine.apply({ kind: 'delete', ns: 'a', seq: ++seq, id: `a${i}` });
      live.delete(`a${i}`);
    }
    for (let i = 1; i < 400; i += 5) {
      const sparse = zipfSparse(rand, 8, 0.1);
      engine.apply({ kind: 'upsert', ns: 'a', seq: ++seq, record: { id: `a${i}`, sparse } });
      live.set(`a${i}`, sparse);
    }
    const refs = (): Ref[] => [...live].map(([id, sparse]) => ({ label: 0, id, sparse, tag: 0 }));
    for (let qi = 0; qi < 20; qi++) {
      const sparse = zipfSparse(rand, 6, qi % 2 ? 0.4 : 0);
      const got = engine.query({ namespace: 'a', sparse, topK: 25, includeValues: false, includeMetadata: false }).map((m) => ({ id: m.id, score: m.score }));
      assert.deepEqual(got, bruteForce(refs(), sparse, 25), `q${qi}`);
    }
    engine.apply({ kind: 'drop-namespace', ns: 'a', seq: ++seq });
    const q = zipfSparse(rand, 10, 0);
    assert.deepEqual(engine.query({ namespace: 'a', sparse: q, topK: 10, includeValues: false, includeMetadata: false }), []);
    engine.apply({ kind: 'upsert', ns: 'a', seq: ++seq, record: { id: 'after', sparse: q } });
    assert.deepEqual(engine.query({ namespace: 'a', sparse: q, topK: 10, includeValues: false, includeMetadata: false }).map((m) => m.id), ['after']);
  });
});

describe('Hybrid search with a graph', () => {
  const DIM = 16;
  // The first candidates' own answer, which these tests measure: no growth of the dense
  // candidates, no exact scan in place of an unbounded answer (the last tests check those).
  const candidatesOnly = { hybridMaxDense: 0, hybridExactFallbackCost: 0 };
  const rand = prng(11);
  const set = new VectorSet(DIM, 'dotproduct', { graphMinRecords: 200, defaultEf: 64 });
  const records = new Map<string, { values: Float32Array; sparse?: SparseValues }>();
  for (let i = 0; i < 2000; i++) {
    const values = Float32Array.from({ length: DIM }, () => rand() * 2 - 1);
    const sparse = rand() < 0.9 ? zipfSparse(rand, 1 + Math.floor(rand() * 15), 0.1) : undefined;
    set.upsert(i + 1, { id: `h${i}`, values, sparse });
    records.set(`h${i}`, { values, sparse });
  }
  for (let i = 0; i < 50 && set.hasWork; i++) set.work(Infinity);

  const exact = (dense: Float32Array, sparse: SparseValues, topK: number): { id: string; score: number }[] =>
    set.search({ dense, sparse, topK, exact: true }).map((h) => ({ id: h.id, score: h.score }));

  it('scores every hit exactly and keeps recall@10 >= 0.98 against exact hybrid scoring', () => {
    assert.equal(set.hasWork, false, 'graph built');
    let found = 0;
    let wanted = 0;
    for (let qi = 0; qi < 50; qi++) {
      const dense = Float32Array.from({ length: DIM }, () => rand() * 2 - 1);
      const sparse = zipfSparse(rand, 1 + Math.floor(rand() * 8), 0.2);
      const got = set.search({ dense, sparse, topK: 10, ...candidatesOnly });
      const all = new Map(exact(dense, sparse, 2000).map((h) => [h.id, h.score]));
      for (const h of got) assert.equal(h.score, all.get(h.id), `q${qi} ${h.id} rescored exactly`);
      const truth = new Set(exact(dense, sparse, 10).map((h) => h.id));
      wanted += truth.size;
      found += got.filter((h) => truth.has(h.id)).length;
    }
    assert.ok(found / wanted >= 0.98, `recall ${found / wanted}`);
  });

  it('keeps recall@10 >= 0.98 whether the dense or the sparse part dominates the score', () => {
    const rand3 = prng(13);
    for (const scale of [0.01, 1, 10, 100]) {
      let found = 0;
      let wanted = 0;
      let bounded = 0;
      for (let qi = 0; qi < 40; qi++) {
        const dense = Float32Array.from({ length: DIM }, () => rand3() * 2 - 1);
        const raw = zipfSparse(rand3, 1 + Math.floor(rand3() * 8), 0.2);
        const sparse = { indices: raw.indices, values: raw.values.map((v) => v * scale) };
        const trace: SearchTrace = {};
        const got = set.search({ dense, sparse, topK: 10, ...candidatesOnly, trace });
        assert.equal(trace.plan, 'hybrid');
        if (trace.hybridBounded) bounded++;
        const all = new Map(exact(dense, sparse, 2000).map((h) => [h.id, h.score]));
        for (const h of got) assert.equal(h.score, all.get(h.id), `scale ${scale} q${qi} ${h.id} rescored exactly`);
        const truth = new Set(exact(dense, sparse, 10).map((h) => h.id));
        wanted += truth.size;
        found += got.filter((h) => truth.has(h.id)).length;
      }
      assert.ok(found / wanted >= 0.98, `scale ${scale}: recall ${found / wanted}`);
      // When the sparse part dominates, the threshold step is affordable and runs.
      if (scale >= 10) assert.ok(bounded >= 30, `scale ${scale}: threshold step ran ${bounded}/40`);
    }
  });

  it('scores the postings\' other candidates only when their first ones reach the top k, and then as if all were scored at once', () => {
    const rand4 = prng(14);
    // The threshold step and step 2b (the sparse side's exact top) off, so the candidates
    // alone decide the answer.
    const noStep = { maxPostings: 0, maxRecords: 0 };
    for (const scale of [0.01, 100]) {
      let second = 0;
      for (let qi = 0; qi < 40; qi++) {
        const dense = Float32Array.from({ length: DIM }, () => rand4() * 2 - 1);
        const raw = zipfSparse(rand4, 4 + Math.floor(rand4() * 8), 0);
        const sparse = { indices: raw.indices, values: raw.values.map((v) => v * scale) };
        const trace: SearchTrace = {};
        const got = set.search({ dense, sparse, topK: 10, ...candidatesOnly, trace, hybridThresholdLimits: noStep, hybridSparseTop: false });
        if (!trace.hybridAllPostings) continue;
        second++;
        const allAtOnce = set.search({ dense, sparse, topK: 10, ...candidatesOnly, hybridThresholdLimits: noStep, hybridSparseTop: false, hybridPostingsFirst: HYBRID_CANDIDATE_MULTIPLE });
        assert.deepEqual(got, allAtOnce, `scale ${scale} q${qi}`);
      }
      // Dense-dominated: the graph's candidates hold the top k. Sparse-dominated: the postings' do.
      if (scale < 1) assert.equal(second, 0, `scale ${scale}: second stage ran ${second}/40`);
      else assert.ok(second >= 30, `scale ${scale}: second stage ran ${second}/40`);
    }
  });

  it('while records wait outside the graph, hybrid candidates from the tail keep recall and exact scores', () => {
    const rand2 = prng(12);
    const pending = new VectorSet(DIM, 'dotproduct', { graphMinRecords: 200, defaultEf: 64 });
    for (let i = 0; i < 2000; i++) {
      const values = Float32Array.from({ length: DIM }, () => rand2() * 2 - 1);
      const sparse = rand2() < 0.9 ? zipfSparse(rand2, 1 + Math.floor(rand2() * 15), 0.1) : undefined;
      pending.upsert(i + 1, { id: `t${i}`, values, sparse });
    }
    assert.ok(pending.unindexed >= 1800, `most records in the tail: ${pending.unindexed}`);
    let found = 0;
    let wanted = 0;
    for (let qi = 0; qi < 50; qi++) {
      const dense = Float32Array.from({ length: DIM }, () => rand2() * 2 - 1);
      const sparse = zipfSparse(rand2, 1 + Math.floor(rand2() * 8), 0.2);
      const trace: SearchTrace = {};
      const got = pending.search({ dense, sparse, topK: 10, ...candidatesOnly, trace });
      assert.equal(trace.plan, 'hybrid');
      const all = new Map(pending.search({ dense, sparse, topK: 2000, exact: true }).map((h) => [h.id, h.score]));
      for (const h of got) assert.equal(h.score, all.get(h.id), `q${qi} ${h.id} rescored exactly`);
      const truth = new Set(pending.search({ dense, sparse, topK: 10, exact: true }).map((h) => h.id));
      wanted += truth.size;
      found += got.filter((h) => truth.has(h.id)).length;
    }
    assert.ok(found / wanted >= 0.98, `recall ${found / wanted}`);
  });

  it('grows the dense candidates until the threshold step fits its budget, within the dense budget, and is then exact', () => {
    const rand6 = prng(16);
    // Step 2 allowed few postings: with 100 dense candidates (a low dMax) it rarely fits.
    const tight = { maxPostings: 300, maxRecords: 50 };
    let grown = 0;
    for (let qi = 0; qi < 40; qi++) {
      const dense = Float32Array.from({ length: DIM }, () => rand6() * 2 - 1);
      const sparse = zipfSparse(rand6, 1 + Math.floor(rand6() * 8), 0.2);
      const query = { dense, sparse, topK: 10, hybridThresholdLimits: tight, hybridExactFallbackCost: 0 };
      const fixed: SearchTrace = {};
      set.search({ ...query, trace: fixed, hybridMaxDense: 0 });
      assert.equal(fixed.hybridDenseCandidates, 100, `q${qi}: no growth without budget`);
      const trace: SearchTrace = {};
      const got = set.search({ ...query, trace, hybridMaxDense: 1600 });
      assert.ok(trace.hybridDenseCandidates! <= 1600, `q${qi}: within budget`);
      if (fixed.hybridBounded) {
        assert.equal(trace.hybridDenseCandidates, 100, `q${qi}: no growth once bounded`);
        continue;
      }
      if (!trace.hybridBounded) continue;
      grown++;
      assert.ok(trace.hybridDenseCandidates! > 100, `q${qi}`);
      assert.deepEqual(got, set.search({ dense, sparse, topK: 10, exact: true }), `q${qi}: exact once bounded`);
    }
    assert.ok(grown >= 10, `grew to a bounded answer on ${grown}/40`);
  });

  it('scans exactly instead when the threshold step did not run and the scan is within its budget', () => {
    const rand5 = prng(15);
    const noStep = { maxPostings: 0, maxRecords: 0 };
    let instead = 0;
    for (let qi = 0; qi < 30; qi++) {
      const dense = Float32Array.from({ length: DIM }, () => rand5() * 2 - 1);
      const sparse = zipfSparse(rand5, 1 + Math.floor(rand5() * 8), 0.2);
      const exact = set.search({ dense, sparse, topK: 10, exact: true });
      const trace: SearchTrace = {};
      const got = set.search({ dense, sparse, topK: 10, trace, hybridThresholdLimits: noStep, hybridMaxDense: 0 });
      assert.equal(trace.plan, 'hybrid');
      // With no postings allowed the step still runs when no list can lift a record to τ.
      assert.equal(trace.hybridExactInstead, !trace.hybridBounded, `q${qi}`);
      if (trace.hybridBounded) continue;
      assert.deepEqual(got, exact, `q${qi}`);
      instead++;
      // Over the budget (it is 1 unit here), the candidates' answer stands.
      const over: SearchTrace = {};
      set.search({ dense, sparse, topK: 10, trace: over, hybridThresholdLimits: noStep, hybridMaxDense: 0, hybridExactFallbackCost: 1 });
      assert.equal(over.hybridExactInstead, false, `q${qi} over budget`);
      // A bounded answer (the step ran) is kept whatever the budget.
      const bounded: SearchTrace = {};
      set.search({ dense, sparse: { indices: sparse.indices, values: sparse.values.map((v) => v * 100) }, topK: 10, trace: bounded });
      if (bounded.hybridBounded) assert.equal(bounded.hybridExactInstead, false, `q${qi} bounded`);
    }
    assert.ok(instead >= 20, `exact instead on ${instead}/30`);
  });

  it('sees updates and deletes at once', () => {
    const dense = Float32Array.from({ length: DIM }, () => 1);
    const sparse = { indices: Uint32Array.of(VOCAB + 1), values: Float32Array.of(1000) };
    set.upsert(5000, { id: 'h7', values: records.get('h7')!.values, sparse });
    assert.equal(set.search({ dense, sparse, topK: 1 })[0].id, 'h7');
    set.remove('h7');
    assert.notEqual(set.search({ dense, sparse, topK: 1 })[0].id, 'h7');
  });
});
