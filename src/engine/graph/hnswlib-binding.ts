// Which build of hnswlib-node the graphs use. binding.gyp compiles hnswlib-node's own
// addon source a second time with AVX2 and FMA (build/Release/hnswlib_avx2.node): hnswlib
// then computes distances with 256-bit vectors instead of the SSE of the package's
// baseline build (in process at 20k × 384: search ~25–40 % and graph build ~25–45 %
// faster). Same source and API, same graph file format, so snapshots move between the two.
// It is loaded only where the CPU has both instruction sets (checked by the native addon)
// and the build exists; otherwise the package's own build, which runs on every CPU.
//
// Only ONE of the two is ever loaded into a process: they are the same C++ code, and its
// vague-linkage symbols (node-addon-api's templates, static members) are unified process
// wide by the dynamic linker, so two copies would share and tear down each other's state
// at thread exit.
import { createRequire } from 'node:module';
import { nativeAddon } from '../native-addon.js';

type Hnswlib = typeof import('hnswlib-node');

const require = createRequire(import.meta.url);
const packageBuild = (): Hnswlib => require('hnswlib-node') as Hnswlib;

// dist/src/engine/graph/ → the package root, where node-gyp puts build/.
const AVX2_BUILD = '../../../../build/Release/hnswlib_avx2.node';

function choose(): { lib: Hnswlib; build: string } {
  if (process.env.CONIFER_HNSW_AVX2 === '0') return { lib: packageBuild(), build: 'package (CONIFER_HNSW_AVX2=0)' };
  const cpu = nativeAddon?.cpuFeatures();
  if (!cpu?.avx2 || !cpu.fma) return { lib: packageBuild(), build: 'package (no AVX2+FMA, or no native addon)' };
  try {
    return { lib: require(AVX2_BUILD) as Hnswlib, build: 'avx2' };
  } catch (err) {
    return { lib: packageBuild(), build: `package (${err instanceof Error ? err.message : String(err)})` };
  }
}

const chosen = choose();
export const hnswlib: Hnswlib = chosen.lib;
/** 'avx2', or 'package (why)': logged by the engine worker at start. */
export const hnswlibBuild: string = chosen.build;
