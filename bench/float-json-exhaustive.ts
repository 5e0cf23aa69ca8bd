// Every float32 printed by the native addon (native/float-json.cc) against the JavaScript
// path that defines the text (src/engine/float32.ts: JSON.stringify of float32ToShortest):
// the tests compare samples; this compares all 2^31 non-negative bit patterns below the
// infinity (0x00000000 to 0x7f7fffff), in chunks of 2^20 shared over worker threads, and
// prints the first differences it finds. The sign is printed apart from the digits by both
// paths (a '-' before the same text), so the negative values follow; `--negative` checks
// them too (twice the time). 17 minutes on the 2-core bench machine (0 differences).
//
//   npx tsc -p tsconfig.json && node dist/bench/float-json-exhaustive.js [--from 0x3f800000] [--to 0x40000000] [--negative]
import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { float32ArrayJsonText } from '../src/engine/float32.js';
import { nativeAddon, nativeAddonError } from '../src/engine/native-addon.js';

const CHUNK = 1 << 20;
const END = 0x7f800000; // +Infinity: every pattern below it is a finite non-negative float32

interface Job {
  from: number;
  to: number;
  negative: boolean;
}
interface Result {
  checked: number;
  differences: string[];
}

/** Compares the patterns [from, to), their negatives too when asked. */
function check(job: Job): Result {
  if (!nativeAddon) throw new Error(`native addon not loaded: ${nativeAddonError}`);
  const bits = new Uint32Array(Math.min(CHUNK, job.to - job.from));
  const values = new Float32Array(bits.buffer);
  const differences: string[] = [];
  let checked = 0;
  for (let start = job.from; start < job.to; start += CHUNK) {
    const n = Math.min(CHUNK, job.to - start);
    const signs = job.negative ? [0, 0x80000000] : [0];
    for (const sign of signs) {
      for (let i = 0; i < n; i++) bits[i] = (start + i) | sign;
      const slice = values.subarray(0, n);
      if (float32ArrayJsonText(slice, nativeAddon) === float32ArrayJsonText(slice, null)) {
        checked += n;
        continue;
      }
      for (let i = 0; i < n && differences.length < 20; i++) {
        const one = slice.subarray(i, i + 1);
        const native = float32ArrayJsonText(one, nativeAddon);
        const js = float32ArrayJsonText(one, null);
        if (native !== js) differences.push(`0x${bits[i].toString(16).padStart(8, '0')}: native ${native}, JavaScript ${js}`);
      }
      checked += n;
    }
  }
  return { checked, differences };
}

if (!isMainThread) {
  // One thread per lane answers its lane's chunks, one message each (a thread's start,
  // loading the modules and the addon, is paid once, not per chunk).
  parentPort?.on('message', (job: Job) => parentPort?.postMessage(check(job)));
} else {
  const arg = (name: string, fallback: number): number => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const from = arg('from', 0);
  const to = Math.min(arg('to', END), END);
  const negative = process.argv.includes('--negative');
  const chunks: Job[] = [];
  for (let start = from; start < to; start += CHUNK) chunks.push({ from: start, to: Math.min(start + CHUNK, to), negative });
  const started = performance.now();
  let checked = 0;
  let done = 0;
  const differences: string[] = [];
  // Each thread takes the next chunk when it finishes one, so the slow chunks (values
  // outside 1e-14..1e22 take the JavaScript path's text search) spread over all of them.
  const lane = async (): Promise<void> => {
    const worker = new Worker(new URL(import.meta.url));
    try {
      for (let job = chunks.shift(); job; job = chunks.shift()) {
        const sent = job;
        const result = await new Promise<Result>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
          worker.postMessage(sent);
        });
        worker.removeAllListeners('error');
        checked += result.checked;
        differences.push(...result.differences);
        if (++done % 64 === 0) console.log(`${checked.toLocaleString('en-US')} values, ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: availableParallelism() }, lane));
  console.log(`checked ${checked.toLocaleString('en-US')} float32 values (0x${from.toString(16)} to 0x${to.toString(16)}${negative ? ', both signs' : ''}) in ${((performance.now() - started) / 1000).toFixed(0)} s: ${differences.length} differences`);
  for (const d of differences.slice(0, 20)) console.log(`  ${d}`);
  if (differences.length > 0) process.exitCode = 1;
}
