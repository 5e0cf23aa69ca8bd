// Conifer's native addon (native/, built by `npm ci` through binding.gyp), loaded once per
// thread. If it is missing (a platform where it did not build) the engine runs without
// it — exact scans in JavaScript only, hnswlib as the package built it — and
// `nativeAddonError` says why (the engine worker logs it at start).
import { createRequire } from 'node:module';

export interface NativeAddon {
  /**
   * The exact scan's pre-pass (native/exact-scan.cc; used by vectors/exact-scan.ts):
   * writes to `out` the labels of `labels[0..count)` that can be among the best `k` and
   * returns how many. metric: 0 cosine, 1 euclidean, 2 dot product.
   */
  candidates(
    query: Float32Array,
    metric: 0 | 1 | 2,
    chunks: readonly Float32Array[],
    chunkShift: number,
    norms: Float64Array,
    labels: Uint32Array,
    count: number,
    k: number,
    out: Uint32Array,
  ): number;
  /** What this CPU can run (graph/hnswlib-binding.ts); all false off x86-64. */
  cpuFeatures(): { avx2: boolean; fma: boolean };
}

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
