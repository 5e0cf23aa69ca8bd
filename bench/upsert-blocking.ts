// How long one upsert blocks the HTTP thread, per MB of body (issue 15: "the HTTP thread
// only does HTTP"). Runs, on this thread, the steps an upsert ran on the server's HTTP
// thread before the writer thread (src/data/writer/), one body at a time — which are now
// the writer thread's steps:
//   parse     Fastify's own JSON parser (what app.ts installs: proto/constructor = 'error')
//   validate  upsertInput (src/data/vector-input.ts): checks and converts to float32
//   commit    RecordStore.upsert: one SQLite transaction, synchronous=FULL (fsync)
//   post      postMessage of the committed changes to a worker (the engine's 'apply'),
//             i.e. their structured clone on the sending thread
// and what the HTTP thread does now instead:
//   hand-off  postMessage of the body bytes to a worker with the ArrayBuffer transferred
//             (what WritePath.upsertBody does; the bytes are not copied)
// Bodies of just under 2 MB (the upsert limit) at 128 and 384 dimensions, with two
// metadata fields. Prints each step's median over the runs (after a warm-up), in ms and ms per MB.
//   npx tsc -p tsconfig.json && node dist/bench/upsert-blocking.js [--runs 15]
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { FastifyRequest } from 'fastify';
import type { IndexRow } from '../src/catalog/indexes.js';
import { upsertInput } from '../src/data/vector-input.js';
import { RecordStore } from '../src/engine/store/record-store.js';
import { UPSERT_MAX_BYTES } from '../src/limits.js';
import { Rng } from './prng.js';

const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag >= 0 ? Number(process.argv[runsFlag + 1]) : 15;
/** Runs not counted: the first ones also pay for compiling the code. */
const WARM_UP = 3;

const parser = Fastify().getDefaultJsonParser('error', 'error');
const parse = (text: string): unknown =>
  new Promise((resolve, reject) =>
    parser({} as FastifyRequest, text, (err, body) => (err ? reject(err) : resolve(body))),
  );

function bodyOf(dimension: number, rng: Rng): { text: string; count: number } {
  const vectors: unknown[] = [];
  let text = '';
  for (let i = 0; ; i++) {
    vectors.push({
      id: `doc-${i}`,
      values: Array.from({ length: dimension }, () => rng.gaussian()),
      metadata: { genre: i % 2 === 0 ? 'drama' : 'comedy', year: 1950 + (i % 70) },
    });
    const next = JSON.stringify({ namespace: 'bench', vectors });
    if (Buffer.byteLength(next) > UPSERT_MAX_BYTES) {
      vectors.pop();
      return { text, count: vectors.length };
    }
    text = next;
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const sink = new Worker('require("node:worker_threads").parentPort.on("message", () => {});', { eval: true });
const rng = new Rng(42);
const dir = mkdtempSync(join(tmpdir(), 'conifer-upsert-blocking-'));
try {
  console.log('dim  vectors  MB    parse_ms  validate_ms  commit_ms  post_ms  total_ms  total_ms_per_MB  hand-off_ms (HTTP thread now)');
  for (const dimension of [128, 384]) {
    const { text, count } = bodyOf(dimension, rng);
    const mb = Buffer.byteLength(text) / 1e6;
    const index = { name: 'bench', vectorType: 'dense', dimension, metric: 'cosine' } as IndexRow;
    const store = RecordStore.open(join(dir, `d${dimension}`));
    const steps = { parse: [] as number[], validate: [] as number[], commit: [] as number[], post: [] as number[], handOff: [] as number[] };
    const bytes = Buffer.from(text);
    for (let run = 0; run < WARM_UP + RUNS; run++) {
      if (run === WARM_UP) for (const list of Object.values(steps)) list.length = 0;
      let t = performance.now();
      const body = await parse(text);
      steps.parse.push(performance.now() - t);
      t = performance.now();
      const { namespace, records } = upsertInput(body, index);
      steps.validate.push(performance.now() - t);
      t = performance.now();
      const changes = store.upsert(namespace, records);
      steps.commit.push(performance.now() - t);
      t = performance.now();
      sink.postMessage({ op: 'apply', indexId: 'bench', changes });
      steps.post.push(performance.now() - t);
      // A fresh buffer per run, as the body parser gives one per request (not timed).
      const raw = new Uint8Array(bytes);
      t = performance.now();
      sink.postMessage({ op: 'upsert', body: raw }, [raw.buffer]);
      steps.handOff.push(performance.now() - t);
    }
    store.close();
    const m = {
      parse: median(steps.parse),
      validate: median(steps.validate),
      commit: median(steps.commit),
      post: median(steps.post),
      handOff: median(steps.handOff),
    };
    const total = m.parse + m.validate + m.commit + m.post;
    console.log(
      `${dimension}  ${count}     ${mb.toFixed(2)}  ${m.parse.toFixed(1)}      ${m.validate.toFixed(1)}         ${m.commit.toFixed(1)}       ${m.post.toFixed(1)}     ${total.toFixed(1)}      ${(total / mb).toFixed(1)}             ${m.handOff.toFixed(2)}`,
    );
  }
} finally {
  await sink.terminate();
  rmSync(dir, { recursive: true, force: true });
}
