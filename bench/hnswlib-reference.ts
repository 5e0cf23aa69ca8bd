// The hnswlib-node build the bench's in-process references use. binding.gyp compiles
// hnswlib-node's own addon source a second time with AVX2 and FMA
// (build/Release/hnswlib_avx2.node), as it compiles the engine's own binding
// (src/engine/graph/hnsw-binding.ts), so the reference and the engine run the same
// instructions and the ratios measure the engine, not the compiler flags. It is loaded only
// where the CPU has both and the build exists; otherwise the package's own build.
// CONIFER_HNSW_AVX2=0 forces the package build, as it forces the engine's baseline.
//
// Only ONE of the two is ever loaded into a process: they are the same C++ code, and its
// vague-linkage symbols (node-addon-api's templates, static members) are unified process
// wide by the dynamic linker, so two copies would share and tear down each other's state
// at thread exit. (The engine's binding hides its symbols, so it may sit beside either.)
import { createRequire } from 'node:module';
import { nativeAddon } from '../src/engine/native-addon.js';

type Hnswlib = typeof import('hnswlib-node');

const require = createRequire(import.meta.url);
const packageBuild = (): Hnswlib => require('hnswlib-node') as Hnswlib;

// dist/bench/ → the package root, where node-gyp puts build/.
const AVX2_BUILD = '../../build/Release/hnswlib_avx2.node';

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
/** 'avx2', or 'package (why)': printed in the bench reports. */
export const hnswlibBuild: string = chosen.build;
