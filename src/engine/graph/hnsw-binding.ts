// Which build of Conifer's hnswlib binding (native/hnsw-index.cc) the graphs use.
// binding.gyp compiles it twice: conifer_hnsw for the x86-64 baseline (SSE), which runs
// on every CPU, and conifer_hnsw_avx2 with AVX2 and FMA, so hnswlib computes distances
// with 256-bit vectors (in process at 20k × 384: search ~25–40 % and graph build ~25–45 %
// faster, `node dist/bench/hnswlib-builds.js`). The AVX2 build is loaded only where the
// CPU has both instruction sets (checked by the native addon); CONIFER_HNSW_AVX2=0 forces
// the baseline. Both read and write the same graph files.
//
// Only ONE of the two is ever loaded into a process: they are the same C++ code, and a
// process should not carry two copies of hnswlib compiled for different instructions.
import { createRequire } from 'node:module';
import { type GraphRows, nativeAddon } from '../native-addon.js';

/** A graph as native/hnsw-index.cc defines it (see that file for each method). */
export interface NativeHnswIndex {
  init(capacity: number, m: number, efConstruction: number, seed: number): void;
  load(path: string, background?: boolean): void;
  wait(): void;
  save(path: string): void;
  saveInBackground(path: string): Promise<void>;
  resize(capacity: number): void;
  capacity(): number;
  count(): number;
  addPoints(vectors: Float32Array, labels: Uint32Array, threads: number): void;
  markDelete(label: number): void;
  search(query: Float32Array, k: number, ef: number, allowed: Uint32Array | null, allowedBits: number): Uint32Array;
  searchMany(
    queries: Float32Array,
    count: number,
    k: number,
    ef: number,
    allowed: (Uint32Array | null)[],
    allowedBits: Uint32Array,
    threads: number,
  ): Uint32Array[];
  close(): void;
  rows(): GraphRows;
  vectors(labels: Uint32Array, out: Float32Array): void;
  holding(labels: Uint32Array, vectors: Float32Array): Uint8Array;
}

export type SpaceName = 'l2' | 'ip' | 'cosine';

interface Binding {
  HnswIndex: new (space: SpaceName, dim: number) => NativeHnswIndex;
}

const require = createRequire(import.meta.url);
// dist/src/engine/graph/ → the package root, where node-gyp puts build/.
const BUILD_DIR = '../../../../build/Release/';

function choose(): { lib: Binding; build: string } {
  const baseline = (why: string): { lib: Binding; build: string } => ({
    lib: require(`${BUILD_DIR}conifer_hnsw.node`) as Binding,
    build: `baseline (${why})`,
  });
  if (process.env.CONIFER_HNSW_AVX2 === '0') return baseline('CONIFER_HNSW_AVX2=0');
  const cpu = nativeAddon?.cpuFeatures();
  if (!cpu?.avx2 || !cpu.fma) return baseline('no AVX2+FMA, or no native addon to ask');
  try {
    return { lib: require(`${BUILD_DIR}conifer_hnsw_avx2.node`) as Binding, build: 'avx2' };
  } catch (err) {
    return baseline(err instanceof Error ? err.message : String(err));
  }
}

const chosen = choose();
export const HnswIndex = chosen.lib.HnswIndex;
/** 'avx2', or 'baseline (why)': logged by the engine worker at start. */
export const hnswBuild: string = chosen.build;
