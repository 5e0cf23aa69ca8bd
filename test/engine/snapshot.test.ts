// Graph snapshots: a restore (snapshot + the store's later changes) equals a fresh
// build from the store; only records changed since the snapshot wait for insertion;
// a damaged snapshot (truncated graph, flipped bytes, bad manifest) is refused and the
// index rebuilt from the store; tombstones can be compacted up to a snapshot's seq.
// A hybrid index loaded from its store (sparse postings bulk-built) answers as the
// engine that applied every write in order.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EngineIndex } from '../../src/engine/engine-index.js';
import { HnswGraph } from '../../src/engine/graph/hnsw-graph.js';
import type { IndexShape, StoredRecord } from '../../src/engine/model.js';
import type { EngineMatch } from '../../src/engine/protocol.js';
import { RecordStore } from '../../src/engine/store/record-store.js';
import { readSnapshot, snapshotDir, SnapshotUnusable, writeSnapshot } from '../../src/engine/snapshot/snapshot-files.js';
import type { GraphOptions } from '../../src/engine/vector-set.js';
import { beginRecovery, type Recovery } from '../../src/engine/worker/recovery.js';
import { prng } from '../helpers/prng.js';

const DIM = 16;
const SHAPE: IndexShape = { dimension: DIM, metric: 'cosine' };
const OPTIONS: GraphOptions = { graphMinRecords: 300, defaultEf: 64 };
const dirs: string[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conifer-snapshot-'));
  dirs.push(dir);
  return dir;
}

after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function vec(rand: () => number): Float32Array {
  return Float32Array.from({ length: DIM }, () => rand() * 2 - 1);
}

/** Recovers an index the way the worker does, all slices at once, graphs fully built. */
function recover(dir: string): Recovery {
  const recovery = beginRecovery(dir, SHAPE, () => new EngineIndex(SHAPE, OPTIONS));
  while (!recovery.loader.step(performance.now() + 50, recovery.engine));
  recovery.engine.finishRestore();
  return recovery;
}

function drain(engine: EngineIndex): void {
  for (let i = 0; i < 100_000 && engine.hasWork; i++) engine.work(performance.now() + 50);
  assert.equal(engine.hasWork, false);
}

function snapshot(dir: string, engine: EngineIndex, store: RecordStore): number {
  const seq = store.snapshotSeq();
  writeSnapshot(dir, SHAPE, seq, engine.snapshot(seq));
  return seq;
}

const q = (engine: EngineIndex, namespace: string, dense: Float32Array, topK: number): EngineMatch[] =>
  engine.query({ namespace, topK, dense, includeValues: true, includeMetadata: true });

/** A store with namespace "a" (2,000 records, graph) and "b" (100 records, no graph). */
function seededStore(dir: string, rand: () => number): RecordStore {
  const store = RecordStore.open(dir);
  const batch = (prefix: string, n: number): StoredRecord[] =>
    Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, values: vec(rand), metadata: { i } }));
  for (let i = 0; i < 4; i++) store.upsert('a', batch(`a${i}-`, 500));
  store.upsert('b', batch('b-', 100));
  return store;
}

describe('graph snapshots', () => {
  it('snapshot + later changes equals a fresh build, and only records changed since wait for insertion', () => {
    const dir = tempDir();
    const rand = prng(4242);
    const store = seededStore(dir, rand);
    const first = recover(dir);
    assert.equal(first.snapshotSeq, undefined);
    drain(first.engine);
    snapshot(dir, first.engine, store);

    // Changes after the snapshot: new records, new values, metadata-only updates, deletes,
    // and a drop of namespace "b" followed by new records under the same name.
    store.upsert('a', Array.from({ length: 50 }, (_, i) => ({ id: `new${i}`, values: vec(rand) })));
    store.upsert('a', Array.from({ length: 30 }, (_, i) => ({ id: `a0-${i}`, values: vec(rand), metadata: { changed: true } })));
    for (let i = 0; i < 20; i++) store.update('a', `a1-${i}`, { setMetadata: { touched: i } });
    store.deleteIds('a', Array.from({ length: 40 }, (_, i) => `a2-${i}`));
    store.dropNamespace('b');
    store.upsert('b', [{ id: 'b-new', values: vec(rand) }]);

    const restored = recover(dir);
    assert.ok(restored.snapshotSeq !== undefined, 'the snapshot was used');
    // Only records changed since the snapshot (50 new, 30 re-valued, 20 with new
    // metadata: a seq after the snapshot's) wait for insertion, not all 2,030.
    assert.equal(restored.engine.unindexed, 100);
    const fresh = new EngineIndex(SHAPE, OPTIONS);
    for (const { ns, seq, record } of store.allRecords()) fresh.load(ns, seq, record);

    for (let i = 0; i < 20; i++) {
      const dense = vec(rand);
      for (const ns of ['a', 'b']) {
        // All records, exactly: the same ids, values, metadata and scores.
        assert.deepEqual(q(restored.engine, ns, dense, 5000), q(fresh, ns, dense, 5000), `query ${i} ns ${ns}`);
      }
    }
    drain(restored.engine);
    drain(fresh);
    let hits = 0;
    for (let i = 0; i < 20; i++) {
      const dense = vec(rand);
      const want = new Set(q(fresh, 'a', dense, 2100).slice(0, 10).map((m) => m.id));
      const got = q(restored.engine, 'a', dense, 10);
      hits += got.filter((m) => want.has(m.id)).length;
    }
    assert.ok(hits / 200 >= 0.95, `recall after restore ${hits / 200}`);
    store.close();
  });

  it('a damaged snapshot is refused (truncated graph, flipped bytes, bad manifest) and the index rebuilt', () => {
    const dir = tempDir();
    const rand = prng(99);
    const store = seededStore(dir, rand);
    const built = recover(dir);
    drain(built.engine);
    snapshot(dir, built.engine, store);
    const files = fs.readdirSync(snapshotDir(dir));
    const graphFile = path.join(snapshotDir(dir), files.find((f) => f.endsWith('.graph'))!);
    const stateFile = path.join(snapshotDir(dir), files.find((f) => f.endsWith('.state'))!);
    const manifest = path.join(snapshotDir(dir), 'manifest.json');
    const originals = new Map([graphFile, stateFile, manifest].map((f) => [f, fs.readFileSync(f)]));
    const damage: [string, (f: string) => void][] = [
      ['truncated graph', (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2))],
      ['flipped graph byte', (f) => flip(f, 4000)],
      ['flipped state byte', (f) => flip(f, 30)],
      ['garbage manifest', (f) => fs.writeFileSync(f, '{"body":')],
      ['missing graph', (f) => fs.rmSync(f)],
    ];
    const targets = [graphFile, graphFile, stateFile, manifest, graphFile];
    const dense = vec(rand);
    const want = q(built.engine, 'a', dense, 2000);
    damage.forEach(([what, hurt], i) => {
      for (const [f, bytes] of originals) fs.writeFileSync(f, bytes);
      hurt(targets[i]);
      assert.throws(() => readSnapshot(dir, SHAPE), SnapshotUnusable, what);
      const rebuilt = recover(dir);
      assert.equal(rebuilt.snapshotSeq, undefined, what);
      assert.match(rebuilt.unusable ?? '', /./, what);
      assert.equal(rebuilt.engine.unindexed, 2000, `${what}: every record of "a" waits for insertion`);
      assert.deepEqual(q(rebuilt.engine, 'a', dense, 2000), want, what);
    });
    // A snapshot of another shape is refused too.
    for (const [f, bytes] of originals) fs.writeFileSync(f, bytes);
    assert.throws(() => readSnapshot(dir, { dimension: DIM, metric: 'euclidean' }), SnapshotUnusable);
    assert.equal(recover(dir).snapshotSeq !== undefined, true, 'the intact snapshot is used again');
    store.close();
  });

  it("a snapshot's graph is read while the records load; one that then fails to load is replaced by a fresh graph", () => {
    const dir = tempDir();
    const rand = prng(123);
    const store = seededStore(dir, rand);
    const built = recover(dir);
    drain(built.engine);
    const seq = snapshot(dir, built.engine, store);
    const dense = vec(rand);
    const want = q(built.engine, 'a', dense, 2000);
    const snap = readSnapshot(dir, SHAPE)!;
    const ns = snap.namespaces.find((n) => n.state.name === 'a')!;
    // Verified above; damaged now, after the checks a start-up makes (the read on the native
    // thread is then the first to see it).
    const cut = path.join(dir, 'cut.graph');
    fs.writeFileSync(cut, fs.readFileSync(ns.graphFile).subarray(0, 5000));
    for (const [file, failing] of [[ns.graphFile, false], [cut, true]] as const) {
      const failures: string[] = [];
      const events = { graphFailed: (err: Error) => failures.push(`failed: ${err.message}`), graphLoadFailed: (err: Error) => failures.push(`load: ${err.message}`) };
      const engine = new EngineIndex(SHAPE, OPTIONS, events);
      engine.restore('a', HnswGraph.load(SHAPE.metric, DIM, file, ns.state.indexed, ns.state.inGraph), ns.state.ids, ns.state.seq);
      for (const { ns: name, seq: at, record } of store.allRecords()) if (at <= seq) engine.load(name, at, record);
      engine.finishRestore();
      if (failing) {
        assert.equal(failures.length, 1);
        assert.match(failures[0], /^load: hnswlib: .*corrupted/);
        assert.equal(engine.unindexed, 2000, 'every record of "a" waits for the fresh graph');
      } else {
        assert.deepEqual(failures, []);
        assert.equal(engine.unindexed, 0, 'the snapshot graph holds every record');
      }
      assert.deepEqual(q(engine, 'a', dense, 2000), want);
      drain(engine);
      assert.equal(engine.unindexed, 0);
      assert.deepEqual(q(engine, 'a', dense, 2000), want);
      engine.close();
    }
    store.close();
  });

  it('tombstones up to a snapshot can be compacted and the next restore is still right', () => {
    const dir = tempDir();
    const rand = prng(7);
    const store = seededStore(dir, rand);
    store.deleteIds('a', ['a0-1', 'a0-2', 'a0-3']);
    const built = recover(dir);
    drain(built.engine);
    const seq = snapshot(dir, built.engine, store);
    while (store.compactTombstones(seq, 1000));
    assert.throws(() => [...store.changesSince(0)], /compacted/);
    store.deleteIds('a', ['a0-4']);
    const restored = recover(dir);
    const ids = q(restored.engine, 'a', vec(rand), 5000).map((m) => m.id);
    assert.equal(ids.length, 1996);
    for (const gone of ['a0-1', 'a0-2', 'a0-3', 'a0-4']) assert.ok(!ids.includes(gone), gone);
    store.close();
  });
});

describe('loading sparse values (postings bulk-built at the end of the load)', () => {
  const HYBRID: IndexShape = { dimension: DIM, metric: 'dotproduct' };
  const sparseOf = (rand: () => number): { indices: Uint32Array; values: Float32Array } => {
    const dims = new Set<number>();
    const n = 1 + Math.floor(rand() * 12);
    while (dims.size < n) dims.add(Math.floor(500 * rand() ** 2));
    const indices = Uint32Array.from(dims).sort();
    return { indices, values: Float32Array.from(indices, () => rand() * 2 - 0.5) };
  };

  it('a hybrid index loaded from its store answers as the engine that applied every write in order', () => {
    const dir = tempDir();
    const rand = prng(77);
    const store = RecordStore.open(dir);
    const live = new EngineIndex(HYBRID, OPTIONS);
    const write = (changes: ReturnType<RecordStore['upsert']>): void => {
      for (const change of changes) live.apply(change);
    };
    const record = (id: string): StoredRecord => ({ id, values: vec(rand), sparse: sparseOf(rand) });
    for (let b = 0; b < 4; b++) write(store.upsert('h', Array.from({ length: 200 }, (_, i) => record(`r${b}-${i}`))));
    // Updates replacing sparse values, records losing them, deletes, and re-inserted ids.
    write(store.upsert('h', Array.from({ length: 80 }, (_, i) => record(`r0-${i}`))));
    write(store.upsert('h', Array.from({ length: 30 }, (_, i) => ({ id: `r1-${i}`, values: vec(rand) }))));
    write(store.deleteIds('h', Array.from({ length: 60 }, (_, i) => `r2-${i}`)));
    write(store.upsert('h', Array.from({ length: 20 }, (_, i) => record(`r2-${i}`))));

    const recovery = beginRecovery(dir, HYBRID, () => new EngineIndex(HYBRID, OPTIONS));
    while (!recovery.loader.step(performance.now() + 50, recovery.engine));
    recovery.engine.finishRestore();
    const loaded = recovery.engine;
    for (let i = 0; i < 30; i++) {
      const sparse = sparseOf(rand);
      const dense = vec(rand);
      const ask = (engine: EngineIndex, query: { dense?: Float32Array; topK: number }): EngineMatch[] =>
        engine.query({ namespace: 'h', sparse, includeValues: true, includeMetadata: false, ...query });
      // Sparse-only search is exact (postings): every answer equal, scores and order.
      assert.deepEqual(ask(loaded, { topK: 50 }), ask(live, { topK: 50 }), `sparse query ${i}`);
      assert.ok(ask(loaded, { topK: 50 }).length > 0, `sparse query ${i} found records`);
      // Hybrid over every record: the whole ranking, exactly.
      assert.deepEqual(ask(loaded, { dense, topK: 1000 }), ask(live, { dense, topK: 1000 }), `hybrid query ${i}`);
    }
    store.close();
  });
});

function flip(file: string, at: number): void {
  const bytes = fs.readFileSync(file);
  bytes[at % bytes.length] ^= 0xff;
  fs.writeFileSync(file, bytes);
}
