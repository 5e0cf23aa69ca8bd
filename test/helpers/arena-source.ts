// An HnswGraph insert source over a bare VectorArena, as VectorSet's is without releasing
// vectors: for tests that drive a graph directly.
import type { InsertSource } from '../../src/engine/graph/hnsw-graph.js';
import type { VectorArena } from '../../src/engine/vectors/arena.js';

export function fromArena(arena: VectorArena): InsertSource {
  return {
    taken: (label) => arena.uncode(label),
    read: (label, out, at) => out.set(arena.view(label), at),
    inserted: () => {},
  };
}
