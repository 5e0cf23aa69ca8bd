// Dense vectors of one namespace, addressed by label, with each vector's norm (cosine).
// The exact scan, the tail beside a graph, the exact rescoring of graph candidates and
// fetch read a vector here while the arena holds it, and from its graph node once only
// the node does: the engine keeps one copy of each vector (vector-set.ts decides when).
// A node holds the values exactly as written for every metric (native/hnsw-index.cc), and
// the norms stay here for every label, so both copies score alike, bit for bit.
//
// Per label, one state byte (heldFlags, which the native scan reads too):
//   HELD (1)      the arena holds the label's current vector;
//   RELEASED (2)  a graph node holds it and the arena does not (release());
//   0             neither: a free label, or one never stored.
// A chunk no label of which is HELD is dropped once some label is RELEASED (its memory is
// the point), and made again, zeroed, when a label of it is stored. With the native addon a
// chunk's memory is its own allocation, freed the moment the chunk is dropped or replaced
// (native/chunk-memory.cc says why); nothing may keep a view of a chunk past the call that
// took it (view()), since a freed chunk's views read as empty.
//
// Layout: fixed chunks of CHUNK_VECTORS vectors (label i lives in chunk i >> CHUNK_SHIFT
// at offset (i & CHUNK_MASK) * dim). Growing adds a chunk and never copies the vectors
// already held: one growable array would, at 100k × 384, copy ~150 MiB (stalling every
// query behind it) and hold up to half its capacity unused (growth by 1.5× left 1.4×
// the raw bytes resident). Only chunk 0 grows, by half, up to a full chunk, so a small
// namespace does not hold a whole chunk.
//
// Int8 codes (code(), uncode()): the vectors of a graph's tail — the records a query must
// scan one by one until their slice inserts them — are also kept as int8 codes, which the
// native pre-pass reads instead of the floats (native/exact-scan.cc says why that is still
// exact, and why faster). Per coded label: codes cᵢ = round(vᵢ / s) with s = max|vᵢ| / 127,
// and params [s, e, ‖c‖₁] with e ≥ max|vᵢ − s·cᵢ| measured when coded (rounded up to float32),
// so the bound holds whatever the rounding did. Invariant: a label's codes are of its
// current vector — set() uncodes before it stores, so a code is never stale. A label not
// coded is scanned from its floats; codes are an accelerator, never the answer. Chunks of
// codes are laid out as the vectors' and freed once none of their labels is coded, so the
// codes cost memory only while a tail exists. Without the native addon nothing reads
// codes (the JavaScript scan scores every label from its floats), so none are kept.
import { nativeAddon } from '../native-addon.js';

export const CHUNK_SHIFT = 10;
const CHUNK_VECTORS = 1 << CHUNK_SHIFT;
const CHUNK_MASK = CHUNK_VECTORS - 1;
const INITIAL_VECTORS = 64;

export const HELD = 1;
export const RELEASED = 2;

export class VectorArena {
  /** Per chunk: its vectors, or undefined once dropped (no label of it HELD). */
  private readonly chunks: (Float32Array | undefined)[] = [];
  private normsArray = new Float64Array(INITIAL_VECTORS);
  private states = new Uint8Array(INITIAL_VECTORS);
  /** Per chunk: how many of its labels are HELD. */
  private readonly heldCounts: number[] = [];
  private releasedCount = 0;
  /** Per chunk: the int8 codes of its coded labels, or undefined when it has none. */
  private readonly codeChunks: (Int8Array | undefined)[] = [];
  /** Per chunk: [s, e, ‖c‖₁] per label, s NaN when the label is not coded. */
  private readonly paramChunks: (Float32Array | undefined)[] = [];
  /** Per chunk: how many of its labels are coded. */
  private readonly codedCounts: number[] = [];

  constructor(readonly dim: number) {
    if (dim > 0) this.chunks.push(newChunk(INITIAL_VECTORS * dim));
  }

  /** The chunk holding a HELD `label`'s vector (read-only for callers), at offset(label). */
  chunk(label: number): Float32Array {
    const chunk = this.chunks[label >>> CHUNK_SHIFT];
    if (!chunk) throw new Error(`engine: the arena does not hold label ${label}`);
    return chunk;
  }

  /** Every chunk, in label order, undefined where dropped (the native scan addresses them as chunk(label) does). */
  get chunkList(): readonly (Float32Array | undefined)[] {
    return this.chunks;
  }

  /** The state byte of every label (HELD, RELEASED or 0; read-only for callers; replaced when it grows). */
  get heldFlags(): Uint8Array {
    return this.states;
  }

  /** Whether the arena holds `label`'s vector. */
  holds(label: number): boolean {
    return this.states[label] === HELD;
  }

  /** Labels whose only copy is a graph node (RELEASED). */
  get released(): number {
    return this.releasedCount;
  }

  /** The vector of `label` now lives only in a graph node: stop holding it (a HELD label). */
  release(label: number): void {
    if (this.states[label] !== HELD) return;
    this.uncode(label);
    this.states[label] = RELEASED;
    this.releasedCount++;
    this.unhold(label);
  }

  /** `label` is free: hold nothing for it, wherever its vector was. */
  forget(label: number): void {
    const state = this.states[label];
    if (state === 0) return;
    this.uncode(label);
    this.states[label] = 0;
    if (state === RELEASED) this.releasedCount--;
    else this.unhold(label);
  }

  private unhold(label: number): void {
    const c = label >>> CHUNK_SHIFT;
    if (--this.heldCounts[c] === 0 && this.releasedCount > 0) {
      freeChunk(this.chunks[c]);
      this.chunks[c] = undefined;
    }
  }

  /** Frees every chunk now (the namespace is dropped: the arena is unusable afterwards). */
  close(): void {
    for (const chunk of this.chunks) freeChunk(chunk);
    this.chunks.length = 0;
  }

  /** Where `label`'s vector starts inside chunk(label). */
  offset(label: number): number {
    return (label & CHUNK_MASK) * this.dim;
  }

  /** Norms by label; read-only for callers (replaced when it grows). */
  get norms(): Float64Array {
    return this.normsArray;
  }

  /** Stores a vector (zeros when absent) under `label`, growing as needed; the arena then holds it. */
  set(label: number, values: Float32Array | undefined): void {
    if (this.dim === 0) return;
    this.uncode(label);
    this.ensure(label + 1, false);
    const c = label >>> CHUNK_SHIFT;
    const state = this.states[label];
    if (state !== HELD) {
      if (state === RELEASED) this.releasedCount--;
      this.states[label] = HELD;
      this.heldCounts[c] = (this.heldCounts[c] ?? 0) + 1;
      this.chunks[c] ??= newChunk(CHUNK_VECTORS * this.dim);
    }
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

  /** Whether HELD `label` holds exactly these values (a metadata-only change keeps them). */
  equals(label: number, values: Float32Array | undefined): boolean {
    const chunk = this.chunk(label);
    const base = this.offset(label);
    for (let i = 0; i < this.dim; i++) if (chunk[base + i] !== (values ? values[i] : 0)) return false;
    return true;
  }

  /** A copy of one HELD label's vector. */
  get(label: number): Float32Array {
    return this.view(label).slice();
  }

  /** A HELD label's vector as a view (no copy); valid while the label keeps its vector. */
  view(label: number): Float32Array {
    const base = this.offset(label);
    return this.chunk(label).subarray(base, base + this.dim);
  }

  /** Keeps int8 codes of `label`'s current vector (see the top of this file; made natively). */
  code(label: number): void {
    if (this.dim === 0 || this.states[label] !== HELD || !nativeAddon) return;
    const c = label >>> CHUNK_SHIFT;
    const slot = label & CHUNK_MASK;
    let codes = this.codeChunks[c];
    let params = this.paramChunks[c];
    if (!codes || !params) {
      codes = this.codeChunks[c] = new Int8Array(CHUNK_VECTORS * this.dim);
      params = this.paramChunks[c] = new Float32Array(CHUNK_VECTORS * 3).fill(NaN);
      this.codedCounts[c] = 0;
    }
    if (params[slot * 3] !== params[slot * 3]) this.codedCounts[c]++;
    nativeAddon.codeVector(this.view(label), codes, slot * this.dim, params, slot * 3);
  }

  /** Drops `label`'s codes (it is scanned from its floats again), freeing a chunk left with none. */
  uncode(label: number): void {
    const c = label >>> CHUNK_SHIFT;
    const params = this.paramChunks[c];
    const at = (label & CHUNK_MASK) * 3;
    if (!params || params[at] !== params[at]) return;
    params[at] = NaN;
    if (--this.codedCounts[c] === 0) {
      this.codeChunks[c] = undefined;
      this.paramChunks[c] = undefined;
    }
  }

  /** Drops every label's codes. */
  uncodeAll(): void {
    this.codeChunks.length = 0;
    this.paramChunks.length = 0;
    this.codedCounts.length = 0;
  }

  /** The codes' chunks and their params' (native pre-pass; read-only for callers). */
  get codeLists(): [readonly (Int8Array | undefined)[], readonly (Float32Array | undefined)[]] {
    return [this.codeChunks, this.paramChunks];
  }

  /** Bytes of the int8 codes held (for the memory breakdown). */
  get codeBytes(): number {
    let n = 0;
    for (const c of this.codeChunks) n += c?.byteLength ?? 0;
    for (const p of this.paramChunks) n += p?.byteLength ?? 0;
    return n;
  }

  /** Bytes held (for the memory breakdown). */
  get bytes(): number {
    let n = this.normsArray.byteLength + this.states.byteLength + this.codeBytes;
    for (const c of this.chunks) n += c?.byteLength ?? 0;
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
      const states = new Uint8Array(norms.length);
      states.set(this.states);
      this.states = states;
    }
    const first = this.chunks[0];
    const firstHolds = first ? first.length / this.dim : CHUNK_VECTORS;
    if (first && this.chunks.length === 1 && firstHolds < CHUNK_VECTORS && n > firstHolds) {
      // Chunk 0 grows until it is full: by half, exactly to n on reserve, and straight
      // to a full chunk once more than a chunk is needed.
      const holds =
        n > CHUNK_VECTORS ? CHUNK_VECTORS : exact ? n : Math.min(CHUNK_VECTORS, Math.max(n, Math.ceil(firstHolds * 1.5)));
      const grown = newChunk(holds * this.dim);
      grown.set(first);
      freeChunk(first);
      this.chunks[0] = grown;
    }
    while (this.chunks.length * CHUNK_VECTORS < n) this.chunks.push(newChunk(CHUNK_VECTORS * this.dim));
  }
}

/** A zeroed chunk of `floats` floats: native memory freeChunk() gives back at once, or a plain array without the addon. */
function newChunk(floats: number): Float32Array {
  return nativeAddon ? new Float32Array(nativeAddon.allocateChunk(floats * 4)) : new Float32Array(floats);
}

/** Frees a chunk's memory now when newChunk() took it natively (every view of it then reads as empty). */
function freeChunk(chunk: Float32Array | undefined): void {
  if (chunk && nativeAddon) nativeAddon.freeChunk(chunk.buffer);
}
