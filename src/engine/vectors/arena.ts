// Dense vectors of one namespace packed in one growable Float32Array, addressed by label
// (label i at [i*dim, (i+1)*dim)), with each vector's norm (cosine). This is the one
// copy of the values the engine scores from: the exact scan, the tail beside a graph
// and the exact rescoring of graph candidates all read it, so every path prints the
// same float32 scores.
const INITIAL_CAPACITY = 64;

export class VectorArena {
  private data: Float32Array;
  private normsArray: Float64Array;

  constructor(readonly dim: number) {
    this.data = new Float32Array(INITIAL_CAPACITY * dim);
    this.normsArray = new Float64Array(INITIAL_CAPACITY);
  }

  /** The packed vectors; read-only for callers (a view that is replaced on growth). */
  get vectors(): Float32Array {
    return this.data;
  }

  get norms(): Float64Array {
    return this.normsArray;
  }

  /** Stores a vector (zeros when absent) under `label`, growing as needed. */
  set(label: number, values: Float32Array | undefined): void {
    if (this.dim === 0) return;
    this.ensure(label + 1);
    const base = label * this.dim;
    if (values) {
      this.data.set(values, base);
      let n = 0;
      for (let i = 0; i < this.dim; i++) n += values[i] * values[i];
      this.normsArray[label] = Math.sqrt(n);
    } else {
      this.data.fill(0, base, base + this.dim);
      this.normsArray[label] = 0;
    }
  }

  /** Whether `label` holds exactly these values (a metadata-only change keeps them). */
  equals(label: number, values: Float32Array | undefined): boolean {
    const base = label * this.dim;
    for (let i = 0; i < this.dim; i++) if (this.data[base + i] !== (values ? values[i] : 0)) return false;
    return true;
  }

  /** A copy of one vector. */
  get(label: number): Float32Array {
    return this.data.slice(label * this.dim, (label + 1) * this.dim);
  }

  /** The vector as a view (no copy); valid until the next set(). */
  view(label: number): Float32Array {
    return this.data.subarray(label * this.dim, (label + 1) * this.dim);
  }

  /** Bytes held (for the memory breakdown). */
  get bytes(): number {
    return this.data.byteLength + this.normsArray.byteLength;
  }

  /**
   * Grows to hold labels [0, n) exactly, when the count is known ahead (a load): growing
   * record by record would copy the whole arena ~log1.5(n) times (a third of a 100k load).
   */
  reserve(n: number): void {
    if (this.dim === 0 || n <= this.normsArray.length) return;
    this.grow(n);
  }

  private ensure(n: number): void {
    if (n <= this.normsArray.length) return;
    // Grow by half (not double): the arena is most of the engine's memory, and doubling
    // would leave up to half of it unused.
    this.grow(Math.max(n, Math.ceil(this.normsArray.length * 1.5)));
  }

  private grow(cap: number): void {
    const data = new Float32Array(cap * this.dim);
    data.set(this.data);
    this.data = data;
    const norms = new Float64Array(cap);
    norms.set(this.normsArray);
    this.normsArray = norms;
  }
}
