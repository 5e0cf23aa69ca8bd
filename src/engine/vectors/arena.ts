// Dense vectors of one namespace, addressed by label, with each vector's norm (cosine).
// This is the one copy of the values the engine scores from: the exact scan, the tail
// beside a graph and the exact rescoring of graph candidates all read it, so every path
// prints the same float32 scores.
//
// Layout: fixed chunks of CHUNK_VECTORS vectors (label i lives in chunk i >> CHUNK_SHIFT
// at offset (i & CHUNK_MASK) * dim). Growing adds a chunk and never copies the vectors
// already held: one growable array would, at 100k × 384, copy ~150 MiB (stalling every
// query behind it) and hold up to half its capacity unused (growth by 1.5× left 1.4×
// the raw bytes resident). Only chunk 0 grows, by half, up to a full chunk, so a small
// namespace does not hold a whole chunk.
export const CHUNK_SHIFT = 10;
const CHUNK_VECTORS = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_VECTORS - 1;
const INITIAL_VECTORS = 64;

export class VectorArena {
  private readonly chunks: Float32Array[] = [];
  private normsArray = new Float64Array(INITIAL_VECTORS);

  constructor(readonly dim: number) {
    if (dim > 0) this.chunks.push(new Float32Array(INITIAL_VECTORS * dim));
  }

  /** The chunk holding `label`'s vector (read-only for callers), at offset(label). */
  chunk(label: number): Float32Array {
    return this.chunks[label >>> CHUNK_SHIFT];
  }

  /** Every chunk, in label order (the native scan addresses them as chunk(label) does). */
  get chunkList(): readonly Float32Array[] {
    return this.chunks;
  }

  /** Where `label`'s vector starts inside chunk(label). */
  offset(label: number): number {
    return (label & CHUNK_MASK) * this.dim;
  }

  /** Norms by label; read-only for callers (replaced when it grows). */
  get norms(): Float64Array {
    return this.normsArray;
  }

  /** Stores a vector (zeros when absent) under `label`, growing as needed. */
  set(label: number, values: Float32Array | undefined): void {
    if (this.dim === 0) return;
    this.ensure(label + 1, false);
    const chunk = this.chunk(label);
    const base = this.offset(label);
    if (values) {
      chunk.set(values, base);
      let n = 0;
      for (let i = 0; i < this.dim; i++) n += values[i] * values[i];
      this.normsArray[label] = Math.sqrt(n);
    } else {
      chunk.fill(0, base, base + this.dim);
      this.normsArray[label] = 0;
    }
  }

  /** Whether `label` holds exactly these values (a metadata-only change keeps them). */
  equals(label: number, values: Float32Array | undefined): boolean {
    const chunk = this.chunk(label);
    const base = this.offset(label);
    for (let i = 0; i < this.dim; i++) if (chunk[base + i] !== (values ? values[i] : 0)) return false;
    return true;
  }

  /** A copy of one vector. */
  get(label: number): Float32Array {
    return this.view(label).slice();
  }

  /** The vector as a view (no copy); valid while the label keeps its vector. */
  view(label: number): Float32Array {
    const base = this.offset(label);
    return this.chunk(label).subarray(base, base + this.dim);
  }

  /** Bytes held (for the memory breakdown). */
  get bytes(): number {
    let n = this.normsArray.byteLength;
    for (const c of this.chunks) n += c.byteLength;
    return n;
  }

  /** Makes room for labels [0, n) when the count is known ahead (a load): norms sized exactly. */
  reserve(n: number): void {
    if (this.dim > 0) this.ensure(n, true);
  }

  private ensure(n: number, exact: boolean): void {
    if (n > this.normsArray.length) {
      const norms = new Float64Array(exact ? n : Math.max(n, Math.ceil(this.normsArray.length * 1.5)));
      norms.set(this.normsArray);
      this.normsArray = norms;
    }
    const first = this.chunks[0];
    const firstHolds = first.length / this.dim;
    if (this.chunks.length === 1 && firstHolds < CHUNK_VECTORS && n > firstHolds) {
      // Chunk 0 grows until it is full: by half, exactly to n on reserve, and straight
      // to a full chunk once more than a chunk is needed.
      const holds =
        n > CHUNK_VECTORS ? CHUNK_VECTORS : exact ? n : Math.min(CHUNK_VECTORS, Math.max(n, Math.ceil(firstHolds * 1.5)));
      const grown = new Float32Array(holds * this.dim);
      grown.set(first);
      this.chunks[0] = grown;
    }
    while (this.chunks.length * CHUNK_VECTORS < n) this.chunks.push(new Float32Array(CHUNK_VECTORS * this.dim));
  }
}
