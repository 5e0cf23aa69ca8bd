// The fixed cost of one small query (issues 12 and 15): Conifer's p50 over HTTP at
// concurrency 1 against hnswlib in-process (same data, same M/efConstruction, ef = the
// engine's default) and against a bare node:http echo round trip, measured by the same
// client in the same run, several rounds interleaved so a noisy shared machine affects
// both sides alike. The figure of merit: (Conifer p50 − hnswlib p50) / echo p50.
// Each round then measures QPS at concurrency 8 (8 requests always in flight) against
// hnswlib's single-thread QPS (issue 15's target: ≥ 0.4×), and where the cores went at
// concurrency 8: each server thread's CPU per query (and its run-queue wait, from
// /proc/<pid>/task/*/schedstat; main is the HTTP thread), and the harness's own.
//
//   npm run build && node dist/bench/fixed-cost.js [--n 20000] [--dim 128] [--queries 3000]
//     [--rounds 3] [--cpu-prof DIR]   (--cpu-prof profiles the server process into DIR)
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { generateDense } from './data.js';
import { DEFAULT_EF, flag, hnswP50, hnswReference, loadedIndex, queryBodies, TOP_K } from './dense-fixture.js';
import { measureEcho } from './echo-server.js';
import { Client } from './http.js';
import { startServer } from './server-process.js';
import { summarize } from './stats.js';
import { threadDelta, threadTimes } from './thread-times.js';

const n = Number(flag('n', '20000'));
const dim = Number(flag('dim', '128'));
const queryCount = Number(flag('queries', '3000'));
const rounds = Number(flag('rounds', '3'));
const profDir = flag('cpu-prof', '');

const data = generateDense({ n, dim, clusters: 100 }, 500);
const bodies = queryBodies(data);

// hnswlib in-process: the floor of the search itself.
const ref = hnswReference(data);
const CONCURRENCY = 8;
const cores = availableParallelism();
/** hnswlib's single-thread queries per second over queryCount back-to-back searches. */
const hnswQps = (): number => {
  const started = performance.now();
  for (let i = 0; i < queryCount; i++) ref.search(i);
  return queryCount / ((performance.now() - started) / 1000);
};

const dataDir = mkdtempSync(join(tmpdir(), 'conifer-fixed-cost-'));
const apiKey = `bench-${randomBytes(12).toString('hex')}`;
const client = new Client(apiKey, 8);
const server = await startServer(dataDir, apiKey, 120_000, profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []);
try {
  const host = await loadedIndex(client, server.url, 'fixed-cost', data);
  const url = `${host}/query`;
  for (let i = 0; i < 200; i++) await client.request('POST', url, bodies[i % bodies.length]); // warm-up
  console.log(`n=${n} dim=${dim} queries/round=${queryCount} topK=${TOP_K} ef=${DEFAULT_EF}`);
  console.log('round  conifer_p50  hnswlib_p50  echo_p50  (conifer-hnswlib)/echo  conifer_qps_c8  hnswlib_qps  c8/hnswlib');
  const cpuLines: string[] = [];
  for (let r = 0; r < rounds; r++) {
    const echo = (await measureEcho(bodies, queryCount)).c1.p50Ms;
    const lat: number[] = [];
    for (let i = 0; i < queryCount; i++) {
      const reply = await client.request('POST', url, bodies[i % bodies.length]);
      if (reply.status !== 200) throw new Error(`query answered ${reply.status}: ${reply.text.slice(0, 300)}`);
      lat.push(reply.ms);
    }
    const conifer = summarize(lat).p50Ms;
    const hnsw = hnswP50(ref, queryCount);
    // Concurrency 8: each of 8 loops sends its next query as soon as its last is answered.
    let next = 0;
    const threadsBefore = threadTimes(server.pid);
    const harnessBefore = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < queryCount) {
          const reply = await client.request('POST', url, bodies[next++ % bodies.length]);
          if (reply.status !== 200) throw new Error(`query answered ${reply.status}: ${reply.text.slice(0, 300)}`);
        }
      }),
    );
    const spanMs = performance.now() - started;
    const qps = queryCount / (spanMs / 1000);
    const harness = process.cpuUsage(harnessBefore);
    // Per query, so a QPS figure can be read as "which thread, or the cores, set it".
    const perQuery = (ms: number): string => `${((ms * 1000) / queryCount).toFixed(0)}`;
    const threads = threadDelta(threadsBefore, threadTimes(server.pid), spanMs)
      .map((t) => `${t.tid === server.pid ? 'main' : `${t.name} ${t.tid}`} ${perQuery(t.runMs)}+${perQuery(t.waitMs)}w`)
      .join(', ');
    cpuLines.push(`round ${r + 1} c8 CPU µs per query (run+wait): ${threads}; harness ${perQuery((harness.user + harness.system) / 1000)}; wall ${perQuery(spanMs)} (${cores} cores: ${perQuery(cores * spanMs)} of CPU)`);
    const refQps = hnswQps();
    console.log(
      `${r + 1}      ${conifer.toFixed(3)}        ${hnsw.toFixed(3)}        ${echo.toFixed(3)}     ${((conifer - hnsw) / echo).toFixed(2)}` +
        `                    ${qps.toFixed(0)}           ${refQps.toFixed(0)}        ${(qps / refQps).toFixed(2)}`,
    );
  }
  for (const line of cpuLines) console.log(line);
} finally {
  client.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
