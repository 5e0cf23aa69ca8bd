// The graphs run on Conifer's hnswlib binding (native/hnsw-index.cc) in its AVX2+FMA build
// where the CPU has both (binding.gyp, graph/hnsw-binding.ts), and in its baseline build
// everywhere else. Both builds must search well and read each other's graph files
// (snapshots survive a move to another machine), and the files must stay hnswlib's own
// format: a graph hnswlib-node wrote (as Conifer's snapshots were written before the
// binding) loads and answers as it did there, and the other way round.
// The build is chosen once, when the module loads, so each case runs in a child process
// (this file, run again with GRAPH_BUILD_CHILD set); CONIFER_HNSW_AVX2=0 forces the
// baseline of both the binding and hnswlib-node (bench/hnswlib-reference.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeDir } from '../helpers/server.js';

type Library = 'conifer' | 'hnswlib-node';

interface ChildResult {
  build: string;
  recall: number;
  neighbors: number[][];
}

function child(lib: Library, avx2: boolean, mode: 'write' | 'read', file: string): ChildResult {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, CONIFER_HNSW_AVX2: avx2 ? '1' : '0', GRAPH_BUILD_CHILD: `${lib}:${mode}:${file}` },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as ChildResult;
}

const avx2Cpu = (): boolean => {
  const flags = readFileSync('/proc/cpuinfo', 'utf8');
  return process.arch === 'x64' && /\bavx2\b/.test(flags) && /\bfma\b/.test(flags);
};

if (process.env.GRAPH_BUILD_CHILD) await runChild(process.env.GRAPH_BUILD_CHILD);
else {
  test("on an AVX2+FMA CPU the graphs use the binding's AVX2 build; it and the baseline read each other's graph files", () => {
    const dir = mkdtempSync(join(tmpdir(), 'conifer-graph-build-'));
    try {
      const fast = child('conifer', true, 'write', join(dir, 'avx2.graph'));
      const plain = child('conifer', false, 'write', join(dir, 'plain.graph'));
      assert.match(plain.build, /^baseline/);
      if (avx2Cpu()) assert.equal(fast.build, 'avx2');
      else assert.match(fast.build, /^baseline/);
      for (const r of [fast, plain]) assert.ok(r.recall >= 0.95, `recall ${r.recall} (${r.build})`);
      // A graph written by one build and read by the other answers as it did where it was written.
      assert.deepEqual(child('conifer', true, 'read', join(dir, 'plain.graph')).neighbors, plain.neighbors);
      assert.deepEqual(child('conifer', false, 'read', join(dir, 'avx2.graph')).neighbors, fast.neighbors);
    } finally {
      removeDir(dir);
    }
  });

  test("the binding and hnswlib-node read each other's graph files and answer alike from them", () => {
    const dir = mkdtempSync(join(tmpdir(), 'conifer-graph-format-'));
    try {
      // Both baseline builds: the same distance code, so the same graph gives the same answers.
      const theirs = child('hnswlib-node', false, 'write', join(dir, 'theirs.graph'));
      assert.match(theirs.build, /^package/);
      assert.deepEqual(child('conifer', false, 'read', join(dir, 'theirs.graph')).neighbors, theirs.neighbors);
      const ours = child('conifer', false, 'write', join(dir, 'ours.graph'));
      assert.deepEqual(child('hnswlib-node', false, 'read', join(dir, 'ours.graph')).neighbors, ours.neighbors);
    } finally {
      removeDir(dir);
    }
  });
}

/**
 * Builds (write) or reads (read) a graph of seeded data with the library and build this
 * process chose, and prints the build, recall@10 against brute force and the answers.
 */
async function runChild(spec: string): Promise<void> {
  const [lib, mode, ...rest] = spec.split(':');
  const file = rest.join(':');
  const dim = 32;
  const n = 3000;
  let seed = 11;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32 - 0.5;
  };
  const data = Array.from({ length: n }, () => Float32Array.from({ length: dim }, rnd));
  const queries = Array.from({ length: 20 }, () => Float32Array.from({ length: dim }, rnd));
  let build: string;
  let search: (q: Float32Array) => number[];
  if (lib === 'conifer') {
    const { HnswIndex, hnswBuild } = await import('../../src/engine/graph/hnsw-binding.js');
    const index = new HnswIndex('l2', dim);
    if (mode === 'write') {
      index.init(n, 16, 100, 42);
      const all = new Float32Array(n * dim);
      data.forEach((v, i) => all.set(v, i * dim));
      index.addPoints(all, Uint32Array.from({ length: n }, (_, i) => i), 1);
      index.save(file);
    } else {
      index.load(file);
    }
    build = hnswBuild;
    search = (q) => Array.from(index.search(q, 10, 50, null, 0));
  } else {
    const { hnswlib, hnswlibBuild } = await import('../../bench/hnswlib-reference.js');
    const index = new hnswlib.HierarchicalNSW('l2', dim);
    if (mode === 'write') {
      index.initIndex(n, 16, 100, 42);
      data.forEach((v, i) => index.addPoint(Array.from(v), i));
      index.writeIndexSync(file);
    } else {
      index.readIndexSync(file);
    }
    index.setEf(50);
    build = hnswlibBuild;
    search = (q) => index.searchKnn(Array.from(q), 10).neighbors;
  }
  const dist = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0);
  let hits = 0;
  const neighbors = queries.map((q) => {
    const got = search(q);
    const truth = new Set(data.map((v, i) => [dist(q, v), i] as const).sort((a, b) => a[0] - b[0]).slice(0, 10).map(([, i]) => i));
    hits += got.filter((l) => truth.has(l)).length;
    return got;
  });
  process.stdout.write(JSON.stringify({ build, recall: hits / (queries.length * 10), neighbors }));
}
