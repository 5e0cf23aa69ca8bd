// The native pre-pass of the exact scan (native/exact-scan.cc, built by `npm ci` through
// binding.gyp): float32 SIMD scores with a proven error bound select the labels that can
// still be among the best k; exact-scan.ts rescores only those. It changes no score and no
// order — only how many records the JavaScript scorer has to visit.
//
// Loaded once per thread. If the addon is missing (a platform where it did not build) the
// engine runs the plain JavaScript scan, and `nativeScanError` says why (logged at start).
import { createRequire } from 'node:module';

export interface NativeScan {
  /**
   * Writes to `out` the labels (of `labels[0..count)`) that can be among the best `k` and
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
}

// dist/src/engine/vectors/ → the package root, where node-gyp puts build/.
const ADDON = '../../../../build/Release/conifer_native.node';

function load(): { scan?: NativeScan; error?: string } {
  if (process.env.CONIFER_NATIVE_SCAN === '0') return { error: 'switched off by CONIFER_NATIVE_SCAN=0' };
  try {
    return { scan: createRequire(import.meta.url)(ADDON) as NativeScan };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

const loaded = load();
export const nativeScan: NativeScan | undefined = loaded.scan;
export const nativeScanError: string | undefined = loaded.error;
