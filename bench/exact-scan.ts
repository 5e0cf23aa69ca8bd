// The exact scan with and without the native pre-pass, in process, same data, same run:
// `node dist/bench/exact-scan.js [count] [dim]` (defaults 20000 × 384). It runs itself
// as a child process three times — with CONIFER_NATIVE=0 (the addon is chosen when the
// module loads), with the pre-pass over the float32 vectors, and over int8 codes of every
// vector (arena.code(), as for a graph's tail) — and checks that all return the same answers.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Metric } from '../src/engine/model.js';
import { VectorArena } from '../src/engine/vectors/arena.js';
import { arenaSource, bestOf, Scorer } from '../src/engine/vectors/exact-scan.js';
import { nativeAddon } from '../src/engine/native-addon.js';
import { Rng } from './prng.js';

const count = Number(process.argv[2] ?? 20_000);
const dim = Number(process.argv[3] ?? 384);
const QUERIES = 60;

if (process.env.EXACT_SCAN_CHILD !== '1') {
  const run = (native: boolean, codes: boolean): string => {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), String(count), String(dim)], {
      env: { ...process.env, EXACT_SCAN_CHILD: '1', CONIFER_NATIVE: native ? '1' : '0', EXACT_SCAN_CODES: codes ? '1' : '0' },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout;
  };
  const outputs = [run(false, false), run(true, false), run(true, true)];
  process.stdout.write(outputs.join(''));
  const digests = new Set(outputs.map((s) => /answers (\w+)/.exec(s)?.[1]));
  console.log(digests.size === 1 ? 'same answers in all three runs' : 'ANSWERS DIFFER');
} else {
  const rng = new Rng(7);
  const rnd = (): number => rng.next();
  const arena = new VectorArena(dim);
  const codes = process.env.EXACT_SCAN_CODES === '1';
  for (let label = 0; label < count; label++) {
    arena.set(label, Float32Array.from({ length: dim }, () => rnd() - 0.5));
    if (codes) arena.code(label);
  }
  const labels = Array.from({ length: count }, (_, i) => i);
  const idOf = (label: number): string => `r${label}`;
  const answers = createHash('sha1');
  const line: string[] = [];
  for (const metric of ['cosine', 'euclidean', 'dotproduct'] as Metric[]) {
    const times: number[] = [];
    for (let q = 0; q < QUERIES; q++) {
      const scorer = new Scorer(metric, arenaSource(arena), { dense: Float32Array.from({ length: dim }, () => rnd() - 0.5) });
      const started = performance.now();
      answers.update(JSON.stringify(bestOf(labels, 10, scorer, idOf)));
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    line.push(`${metric} p50 ${times[QUERIES >> 1].toFixed(2)} ms`);
  }
  const kind = !nativeAddon ? 'JavaScript only' : codes ? 'native pre-pass, int8 codes' : 'native pre-pass, float32';
  console.log(`${kind}, ${count} × ${dim}, top 10: ${line.join(', ')}; answers ${answers.digest('hex').slice(0, 12)}`);
}
