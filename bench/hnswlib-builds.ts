// hnswlib's AVX2+FMA build against the package's portable build, in process, same data,
// same run: `node dist/bench/hnswlib-builds.js [count] [dim]` (defaults 20000 × 384). Runs
// itself twice as a child process (the build is chosen when hnswlib-reference.ts
// loads), once with CONIFER_HNSW_AVX2=0, and prints build time and search p50 at ef 100.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hnswlib, hnswlibBuild } from './hnswlib-reference.js';
import { Rng } from './prng.js';

const count = Number(process.argv[2] ?? 20_000);
const dim = Number(process.argv[3] ?? 384);
const QUERIES = 500;

if (process.env.HNSWLIB_BUILDS_CHILD !== '1') {
  for (const avx2 of ['0', '1']) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), String(count), String(dim)], {
      env: { ...process.env, HNSWLIB_BUILDS_CHILD: '1', CONIFER_HNSW_AVX2: avx2 },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(r.stderr);
    process.stdout.write(r.stdout);
  }
} else {
  const rng = new Rng(5);
  const vector = (): number[] => Array.from({ length: dim }, () => rng.gaussian());
  const data = Array.from({ length: count }, vector);
  const queries = Array.from({ length: QUERIES }, vector);
  const index = new hnswlib.HierarchicalNSW('cosine', dim);
  index.initIndex(count, 16, 200, 100);
  const started = performance.now();
  data.forEach((v, i) => index.addPoint(v, i));
  const buildSeconds = (performance.now() - started) / 1000;
  index.setEf(100);
  const times = queries.map((q) => {
    const t = performance.now();
    index.searchKnn(q, 10);
    return performance.now() - t;
  });
  times.sort((a, b) => a - b);
  console.log(`hnswlib ${hnswlibBuild}, ${count} × ${dim}: build ${buildSeconds.toFixed(1)} s, search p50 ${times[QUERIES >> 1].toFixed(3)} ms (ef 100, k 10)`);
}
