// The graphs run on hnswlib's AVX2+FMA build where the CPU has both (binding.gyp,
// graph/hnswlib-binding.ts), and on the package's own build everywhere else. Both must
// give the same search behaviour and read each other's graph files (snapshots survive a
// move to another machine). The package build is forced here with CONIFER_HNSW_AVX2=0 in
// a child process (this file, run again with GRAPH_BUILD_CHILD set), since the choice is
// made once, when the module loads.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { hnswlib, hnswlibBuild } from '../../src/engine/graph/hnswlib-binding.js';
import { removeDir } from '../helpers/server.js';

interface ChildResult {
  build: string;
  recall: number;
  neighbors: number[][];
}

function child(avx2: boolean, mode: 'write' | 'read', file: string): ChildResult {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, CONIFER_HNSW_AVX2: avx2 ? '1' : '0', GRAPH_BUILD_CHILD: `${mode}:${file}` },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as ChildResult;
}

if (process.env.GRAPH_BUILD_CHILD) runChild(process.env.GRAPH_BUILD_CHILD);
else
  test('on an AVX2+FMA CPU the graphs use the AVX2 build; it and the package build read each other\'s graph files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conifer-graph-build-'));
  try {
    const fast = child(true, 'write', join(dir, 'avx2.graph'));
    const plain = child(false, 'write', join(dir, 'plain.graph'));
    assert.match(plain.build, /^package/);
    const cpu = child(true, 'read', join(dir, 'plain.graph'));
    if (process.arch === 'x64' && /\bavx2\b/.test(cpuFlags()) && /\bfma\b/.test(cpuFlags())) assert.equal(fast.build, 'avx2');
    else assert.match(fast.build, /^package/);
    for (const r of [fast, plain]) assert.ok(r.recall >= 0.95, `recall ${r.recall} (${r.build})`);
    // A graph written by one build and read by the other answers as it did where it was written.
    assert.deepEqual(cpu.neighbors, plain.neighbors);
    assert.deepEqual(child(false, 'read', join(dir, 'avx2.graph')).neighbors, fast.neighbors);
  } finally {
    removeDir(dir);
  }
});

function cpuFlags(): string {
  const r = spawnSync('cat', ['/proc/cpuinfo'], { encoding: 'utf8' });
  return r.stdout ?? '';
}

/** Builds (write) or reads (read) a graph with the hnswlib build this process chose, and prints the choice, recall@10 and the answers. */
function runChild(spec: string): void {
  const [mode, file] = [spec.slice(0, spec.indexOf(':')), spec.slice(spec.indexOf(':') + 1)];
  const dim = 32;
  const n = 3000;
  let seed = 11;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32 - 0.5;
  };
  const data = Array.from({ length: n }, () => Array.from({ length: dim }, rnd));
  const queries = Array.from({ length: 20 }, () => Array.from({ length: dim }, rnd));
  const index = new hnswlib.HierarchicalNSW('l2', dim);
  if (mode === 'write') {
    index.initIndex(n, 16, 100, 42);
    data.forEach((v, i) => index.addPoint(v, i));
    index.writeIndexSync(file);
  } else {
    index.readIndexSync(file);
  }
  index.setEf(50);
  const dist = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0);
  let hits = 0;
  const neighbors = queries.map((q) => {
    const got = index.searchKnn(q, 10).neighbors;
    const truth = new Set(data.map((v, i) => [dist(q, v), i] as const).sort((a, b) => a[0] - b[0]).slice(0, 10).map(([, i]) => i));
    hits += got.filter((l) => truth.has(l)).length;
    return got;
  });
  process.stdout.write(JSON.stringify({ build: hnswlibBuild, recall: hits / (queries.length * 10), neighbors }));
}
