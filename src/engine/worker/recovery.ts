// Starting an index's engine state: the graph snapshot (if one is usable) restored
// first, then the record store's live records loaded over it in slices (IndexLoader),
// then finishRestore() reconciles the two by seq. A snapshot that is missing, damaged,
// stale (newer than the store) or unreadable is never trusted and never fatal: the
// state is rebuilt from the store alone, and `unusable` says why, for the log.
import { EngineIndex } from '../engine-index.js';
import { GraphError, HnswGraph } from '../graph/hnsw-graph.js';
import type { IndexShape } from '../model.js';
import { readSnapshot, SnapshotUnusable } from '../snapshot/snapshot-files.js';
import { IndexLoader } from './loader.js';

export interface Recovery {
  engine: EngineIndex;
  loader: IndexLoader;
  /** The seq of the snapshot restored; undefined when starting from the store alone. */
  snapshotSeq: number | undefined;
  /** Why an existing snapshot was not used. */
  unusable?: string;
}

export function beginRecovery(dir: string, shape: IndexShape, makeEngine: () => EngineIndex): Recovery {
  const loader = new IndexLoader(dir);
  try {
    const engine = makeEngine();
    const snapshot = readSnapshot(dir, shape);
    if (!snapshot) return { engine: reserved(engine, loader, shape), loader, snapshotSeq: undefined };
    if (snapshot.seq > loader.seq) throw new SnapshotUnusable(`it holds seq ${snapshot.seq}, the store only ${loader.seq}`);
    for (const ns of snapshot.namespaces) {
      const graph = HnswGraph.load(shape.metric, shape.dimension, ns.graphFile, ns.state.indexed, ns.state.inGraph);
      engine.restore(ns.state.name, graph, ns.state.ids, ns.state.seq);
    }
    return { engine: reserved(engine, loader, shape), loader, snapshotSeq: snapshot.seq };
  } catch (err) {
    if (err instanceof SnapshotUnusable || err instanceof GraphError) {
      return { engine: reserved(makeEngine(), loader, shape), loader, snapshotSeq: undefined, unusable: err.message };
    }
    loader.close();
    throw err;
  }
}

/**
 * Sizes the engine for the records the load brings (after any restore, which sets label
 * extents), sparse pools included: grown pair by pair instead, they cost ~4× as much to
 * fill (bench/restart-load.ts). Only dotproduct indexes hold sparse values (the data
 * plane rejects them elsewhere), so only they pay for counting the pairs; a pool that
 * was not reserved just grows, so this is never a matter of correctness.
 */
function reserved(engine: EngineIndex, loader: IndexLoader, shape: IndexShape): EngineIndex {
  for (const ns of loader.namespaces) {
    engine.reserve(ns.name, ns.count, shape.metric === 'dotproduct' ? loader.sparsePairs(ns.name) : 0);
  }
  return engine;
}
