// Conifer's native addon (native/, built by `npm ci` through binding.gyp), loaded once per
// thread. If it is missing (a platform where it did not build) the engine runs without
// it — exact scans in JavaScript only, hnswlib's baseline build (graph/hnsw-binding.ts), values printed
// by JSON.stringify — and `nativeAddonError` says why (the engine worker logs it at start).
import { createRequire } from 'node:module';

export interface NativeAddon {
  /**
   * The exact scan's pre-pass (native/exact-scan.cc; used by vectors/exact-scan.ts):
   * writes to `out` the labels of `labels[0..count)` that can be among the best `k` and
   * returns how many; a label the arena has int8 codes of (`codes`, `params`: its
   * codeLists) is scored from them.
   */
  candidates(
    ...args: [
      ...ScanNativeArgs,
      k: number,
      out: Uint32Array,
      codes: readonly (Int8Array | undefined)[],
      params: readonly (Float32Array | undefined)[],
      ...source: ScanSourceArgs,
    ]
  ): number;
  /**
   * Exact dense parts of labels[0..count)'s scores into out (native/exact-scan.cc; used by
   * vectors/exact-scan.ts): bit for bit what Scorer.denseScore() computes, `qNorm` its query norm.
   */
  denseScores(...args: [...ScanNativeArgs, qNorm: number, out: Float64Array, ...source: ScanSourceArgs]): void;
  /**
   * One vector's int8 codes into codes[codesAt..+dim) and [scale, error, L1] into
   * params[paramsAt..+3) (native/exact-scan.cc; used by vectors/arena.ts code()).
   */
  codeVector(values: Float32Array, codes: Int8Array, codesAt: number, params: Float32Array, paramsAt: number): void;
  /**
   * Sparse search over one namespace's inverted index (native/sparse-search.cc; used by
   * sparse/sparse-index.ts, which rescores what they return). The first five arguments
   * are a query and the index (SparseNativeArgs). sparseSearch: every label that may be
   * in the exact top k (ties at the k-th score included), `allow` a Bitmap's words or
   * null; strategy 0 plain accumulation, 1 MaxScore. sparseCandidates and sparseReaching:
   * SparseIndex.candidates() and .reaching(). sparseDots: exact scores of labels[0..count)
   * into out, bit for bit SparseStore.dot() (NaN: no shared dimension).
   */
  sparseSearch(...args: [...SparseNativeArgs, allow: Uint32Array | null, k: number, strategy: 0 | 1, pairsPerRecord: number]): Uint32Array;
  /**
   * sparseSearch()'s answer (no filter) through head columns (sparse/head-columns.ts): per
   * query term its column's codes or null, the column's step and its list's sorted prefix;
   * labels [0, labelEnd) are searched.
   */
  sparseSearchHead(...args: [...SparseNativeArgs, k: number, ...SparseHeadArgs]): Uint32Array;
  /** sparseSearch() (or sparseSearchHead() for a query given head arguments) for several queries over one index, side by side on up to `threads` threads; answers in query order. */
  sparseSearchMany(
    queries: (
      | [SparseNativeArgs[0], SparseNativeArgs[1], SparseNativeArgs[2], SparseNativeArgs[3]]
      | [SparseNativeArgs[0], SparseNativeArgs[1], SparseNativeArgs[2], SparseNativeArgs[3], ...SparseHeadArgs]
    )[],
    state: SparseNativeArgs[4],
    allow: (Uint32Array | null)[],
    k: Uint32Array,
    strategy: 0 | 1,
    pairsPerRecord: number,
    threads: number,
  ): Uint32Array[];
  sparseCandidates(...args: [...SparseNativeArgs, n: number, coverage: number]): Uint32Array;
  sparseReaching(...args: [...SparseNativeArgs, tau: number, maxPostings: number, maxRecords: number, pairsPerRecord: number]): Uint32Array | undefined;
  sparseDots(dims: Uint32Array, weights: Float32Array, state: SparseNativeArgs[4], labels: Uint32Array, count: number, out: Float64Array): void;
  /**
   * A float32 array as JSON array text (native/float-json.cc; used by float32.ts):
   * exactly JSON.stringify(float32ArrayToJson(values)).
   */
  float32Json(values: Float32Array): string;
  /**
   * A request body's vectors parsed to float32 (native/json-floats.cc; used by
   * data/json-body.ts): shape 0 a query's `vector`, 1 each upsert record's `values` and
   * `sparseValues`. The body's text with each array replaced by `0`, the float32 and the
   * index arrays' values back to back, and per array [record index, kind, length];
   * undefined when the body is not one it handles.
   */
  jsonFloatArrays(bytes: Uint8Array, shape: 0 | 1): [rest: string, values: Float32Array, indices: Uint32Array, layout: Uint32Array] | undefined;
  /** What this CPU can run (graph/hnsw-binding.ts); all false off x86-64. */
  cpuFeatures(): { avx2: boolean; fma: boolean };
  /**
   * Hands the heap memory malloc holds free back to the operating system, every thread's
   * arena, on a libuv pool thread (native/release-memory.cc; used by
   * worker/quiet-release.ts); resolves false where the C library has no such call.
   */
  releaseFreeMemory(): Promise<boolean>;
  /**
   * Starts an incremental collection of the calling thread's JavaScript heap that ends by
   * shrinking it (V8's moderate memory pressure; native/release-memory.cc; used by
   * worker/quiet-release.ts).
   */
  releaseIsolateMemory(): void;
  /**
   * Zeroed memory for one arena chunk, and its release when the arena drops the chunk
   * (native/chunk-memory.cc; used by vectors/arena.ts): freeChunk detaches the buffer and
   * frees the memory at once, where a JavaScript buffer would wait for a collection.
   */
  allocateChunk(bytes: number): ArrayBuffer;
  freeChunk(buffer: ArrayBufferLike): void;
}

/**
 * A dense query and the arena it is scored against, as native/exact-scan.cc takes them:
 * metric 0 cosine, 1 euclidean, 2 dot product; the arena's chunks, chunk shift and norms;
 * the labels to score, labels[0..count).
 */
export type ScanNativeArgs = [
  query: Float32Array,
  metric: 0 | 1 | 2,
  chunks: readonly (Float32Array | undefined)[],
  chunkShift: number,
  norms: Float64Array,
  labels: Uint32Array,
  count: number,
];

/**
 * Where the scan finds the vectors the arena does not hold (native/exact-scan.cc):
 * `held` marks with 1 the labels the arena holds (vectors/arena.ts heldFlags), and every
 * other label's vector is read from its node in the graph `rows` describes; both null
 * when the arena holds every vector.
 */
export type ScanSourceArgs = [held: Uint8Array | null, rows: GraphRows | null];

/**
 * A graph's node array as the exact scan reads it (native/graph-rows.h), from the graph's
 * rows(): valid only until the graph next changes, so it is asked for per call, never kept.
 */
export type GraphRows = { readonly __graphRows: unique symbol };

/**
 * A sparse query and the index it runs on, as native/sparse-search.cc takes them: per
 * query dimension its postings entry buffer (or null) and [entries, has stale entries,
 * max, min]; the query's dimensions and weights; [gen, indices, values, start, len].
 */
export type SparseNativeArgs = [
  lists: (Uint32Array | null)[],
  meta: Float64Array,
  dims: Uint32Array,
  weights: Float32Array,
  state: [gen: Uint32Array, indices: Uint32Array, values: Float32Array, start: Uint32Array, len: Uint32Array],
];

/** A query's head-column arguments (SparseIndex.headArgs(), native sparseSearchHead). */
export type SparseHeadArgs = [columns: (Uint8Array | null)[], steps: Float64Array, sorted: Uint32Array, labelEnd: number];

// dist/src/engine/ → the package root, where node-gyp puts build/.
const ADDON = '../../../build/Release/conifer_native.node';

function load(): { addon?: NativeAddon; error?: string } {
  if (process.env.CONIFER_NATIVE === '0') return { error: 'switched off by CONIFER_NATIVE=0' };
  try {
    return { addon: createRequire(import.meta.url)(ADDON) as NativeAddon };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

const loaded = load();
export const nativeAddon: NativeAddon | undefined = loaded.addon;
export const nativeAddonError: string | undefined = loaded.error;
