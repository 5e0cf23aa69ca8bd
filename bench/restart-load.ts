// How long an index takes to load at start, phase by phase, in process (the engine
// worker runs the same code): `node dist/bench/restart-load.js [records] [dim] [--dir D]
// [--only dense|sparse|hybrid] [--repeat N]` (defaults 100000 × 384, dir
// /tmp/conifer-restart-load-<records>x<dim>). Profile with
// `node --cpu-prof --cpu-prof-dir=/tmp/prof dist/bench/restart-load.js ...`.
//
// The first run builds the data directory once, through the record store's own write
// path: three indexes like the full bench's restart (bench/harness.ts) — dense (cosine,
// metadata bucket/tag/labels), sparse-only and hybrid (dotproduct + sparse), all from
// bench/data.ts — then loads each into an engine, builds its graphs to the end and
// writes the graph snapshot, as the worker does. Later runs reuse the directory.
//
// Per index it then prints, in CPU ms of the process (user + system: the machine may be
// shared; every phase runs on this one thread, except the snapshot's graph read, which
// runs on a native thread beside the records' load), each the best of --repeat runs:
//   rows      reading the rows from SQLite (the loader's statement, no decoding)
//   records   rows + decoding (store.allRecords(): BLOB views, metadata JSON)
//   arena / columns / sparse   each part of the engine fed the decoded records alone
//   engine    the decoded records applied to a fresh EngineIndex (every part, labels, seqs)
//   rebuild   the real start without graph files: beginRecovery + loader + finishRestore
//   snapshot  the same with the graph files (readSnapshot, hnswlib readIndex, restore)
//   graph     reading and verifying the snapshot and loading its graphs alone
// and then rebuild and snapshot again in wall ms (where the graph read overlaps the load).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EngineIndex } from '../src/engine/engine-index.js';
import { HnswGraph } from '../src/engine/graph/hnsw-graph.js';
import { MetadataColumns } from '../src/engine/metadata/metadata-columns.js';
import type { IndexShape, StoredRecord } from '../src/engine/model.js';
import { readSnapshot, snapshotDir, writeSnapshot } from '../src/engine/snapshot/snapshot-files.js';
import { SparseIndex } from '../src/engine/sparse/sparse-index.js';
import { RecordStore, RECORD_STORE_FILE } from '../src/engine/store/record-store.js';
import { VectorArena } from '../src/engine/vectors/arena.js';
import { beginRecovery } from '../src/engine/worker/recovery.js';
import { generateDense, generateSparse, id, metadataOf } from './data.js';

const argv = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const positional = argv.filter((a, i) => !a.startsWith('--') && !(i > 0 && argv[i - 1].startsWith('--')));
const records = Number(positional[0] ?? 100_000);
const dim = Number(positional[1] ?? 384);
const root = flag('--dir') ?? `/tmp/conifer-restart-load-${records}x${dim}`;
const only = flag('--only');
const repeat = Number(flag('--repeat') ?? 1);
const NS = 'ns';

interface Kind {
  name: 'dense' | 'sparse' | 'hybrid';
  shape: IndexShape;
}
const KINDS: Kind[] = [
  { name: 'dense', shape: { dimension: dim, metric: 'cosine' } },
  { name: 'sparse', shape: { dimension: 0, metric: 'dotproduct' } },
  { name: 'hybrid', shape: { dimension: dim, metric: 'dotproduct' } },
];

const ms = (t0: number): number => performance.now() - t0;
const fmt = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1)).padStart(7);

function build(): void {
  console.log(`building ${root}: 3 indexes × ${records} records (once)`);
  const dense = generateDense({ n: records, dim, clusters: Math.max(1, Math.round(records / 500)) }, 0);
  const sparse = generateSparse(records, 0);
  for (const kind of KINDS) {
    const dir = path.join(root, kind.name);
    const store = RecordStore.open(dir);
    let t0 = performance.now();
    for (let from = 0; from < records; from += 1000) {
      const batch: StoredRecord[] = [];
      for (let i = from; i < Math.min(records, from + 1000); i++) {
        const r: StoredRecord = { id: id(i) };
        if (kind.name !== 'sparse') r.values = dense.vectors.subarray(i * dim, (i + 1) * dim);
        if (kind.name !== 'dense') r.sparse = sparse.records[i];
        if (kind.name === 'dense') r.metadata = metadataOf(dense, i);
        batch.push(r);
      }
      store.upsert(NS, batch);
    }
    store.close();
    console.log(`  ${kind.name}: records written in ${ms(t0).toFixed(0)} ms`);
    t0 = performance.now();
    const { engine, loader } = beginRecovery(dir, kind.shape, () => new EngineIndex(kind.shape));
    while (!loader.step(Infinity, engine));
    engine.finishRestore();
    while (engine.hasWork) engine.work(performance.now() + 1000);
    writeSnapshot(dir, kind.shape, loader.seq, engine.snapshot(loader.seq));
    console.log(`  ${kind.name}: graphs built and snapshot written in ${ms(t0).toFixed(0)} ms`);
  }
}

function decodedRecords(dir: string): StoredRecord[] {
  const store = RecordStore.open(dir);
  try {
    return [...store.allRecords()].map((r) => r.record);
  } finally {
    store.close();
  }
}

/** CPU time of this process (user + system), ms: less disturbed than wall time on a shared machine. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The best of `repeat` runs of fn, in CPU ms of the process (every thread). */
function best(fn: () => void): number {
  return bestOf(fn).cpu;
}

/** The best of `repeat` runs of fn: CPU ms of the process, and wall ms. */
function bestOf(fn: () => void): { cpu: number; wall: number } {
  const out = { cpu: Infinity, wall: Infinity };
  for (let i = 0; i < repeat; i++) {
    const c0 = cpuMs();
    const t0 = performance.now();
    fn();
    out.wall = Math.min(out.wall, performance.now() - t0);
    out.cpu = Math.min(out.cpu, cpuMs() - c0);
  }
  return out;
}

function measure(kind: Kind): void {
  const dir = path.join(root, kind.name);
  const rows = best(() => {
    const db = new Database(path.join(dir, RECORD_STORE_FILE), { readonly: true });
    let n = 0;
    for (const _ of db.prepare('SELECT id, seq, dense, sparse_indices, sparse_values, metadata FROM records ORDER BY nsid, id').iterate()) n++;
    db.close();
    if (n !== records) throw new Error(`expected ${records} rows, read ${n}`);
  });
  const recordsMs = best(() => void decodedRecords(dir));
  const decoded = decodedRecords(dir);
  // As a load sizes the sparse pools (recovery.ts reserved()).
  let pairs = 0;
  for (const r of decoded) pairs += r.sparse?.indices.length ?? 0;
  const arena = best(() => {
    const a = new VectorArena(kind.shape.dimension);
    a.reserve(decoded.length);
    decoded.forEach((r, label) => a.set(label, r.values));
  });
  const columns = best(() => {
    const c = new MetadataColumns();
    decoded.forEach((r, label) => c.set(label, r.metadata));
  });
  const sparse = best(() => {
    const s = new SparseIndex();
    s.reserve(pairs);
    s.deferPostings(); // as a load does (VectorSet.reserve)
    decoded.forEach((r, label) => s.set(label, r.sparse));
    s.postingsReady();
  });
  const engineMs = best(() => {
    const e = new EngineIndex(kind.shape);
    e.reserve(NS, decoded.length, pairs);
    decoded.forEach((r, i) => e.load(NS, i + 1, r));
    e.finishRestore();
  });
  const start = (withSnapshot: boolean): { cpu: number; wall: number } =>
    bestOf(() => {
      const engineDir = snapshotDir(dir);
      const hidden = `${engineDir}.hidden`;
      if (!withSnapshot && fs.existsSync(engineDir)) fs.renameSync(engineDir, hidden);
      try {
        const { engine, loader, snapshotSeq } = beginRecovery(dir, kind.shape, () => new EngineIndex(kind.shape));
        if (withSnapshot !== (snapshotSeq !== undefined) && kind.name !== 'sparse') throw new Error(`${kind.name}: snapshot use unexpected`);
        while (!loader.step(Infinity, engine));
        engine.finishRestore();
        if (withSnapshot && engine.unindexed !== 0) throw new Error(`${kind.name}: ${engine.unindexed} records outside the restored graph`);
      } finally {
        if (fs.existsSync(hidden)) fs.renameSync(hidden, engineDir);
      }
    });
  const rebuild = start(false);
  const snapshot = start(true);
  const graph = best(() => {
    const snap = readSnapshot(dir, kind.shape);
    for (const ns of snap?.namespaces ?? []) {
      const g = HnswGraph.load(kind.shape.metric, kind.shape.dimension, ns.graphFile, ns.state.indexed, ns.state.inGraph);
      const failure = g.loadFailure(); // the read runs on a native thread: wait for it
      if (failure) throw new Error(failure);
      g.close();
    }
  });
  console.log(
    `${kind.name.padEnd(7)}${fmt(rows)}${fmt(recordsMs)}${fmt(arena)}${fmt(columns)}${fmt(sparse)}${fmt(engineMs)}${fmt(rebuild.cpu)}${fmt(snapshot.cpu)}${fmt(graph)}${fmt(rebuild.wall)}${fmt(snapshot.wall)}`,
  );
}

if (!fs.existsSync(path.join(root, 'hybrid', 'engine'))) {
  fs.rmSync(root, { recursive: true, force: true });
  build();
}
console.log(`${records} records × ${dim}, CPU ms (user + system, every thread), best of ${repeat}; then rebuild and snapshot in wall ms`);
console.log(`index     rows records   arena columns  sparse  engine rebuild snapshot  graph rebuild snapshot`);
for (const kind of KINDS) if (!only || only === kind.name) measure(kind);
