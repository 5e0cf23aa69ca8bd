// What the writer thread spends per upsert record, dense against hybrid (issue 14's ingest
// target): the steps it runs for an upsert body (src/data/writer/index-writes.ts), in
// process, on the medium benchmark's bodies — 384-d dense records, and the same with ~120
// sparse values each (bench/data.ts), JSON.stringify'd and batched as the harness sends
// them (≤ 2 MB, ≤ 1000 records a request):
//   parse     parseJsonBody (native vector parse, json-body.ts)
//   validate  upsertInput (vector-input.ts)
//   commit    RecordStore.upsert: one SQLite transaction, synchronous=FULL (fsync)
//   post      postMessage of the committed changes to a worker (the engine's 'apply')
// Dense and hybrid bodies alternate request by request, so both see the same machine; each
// step's figure is µs per record, the lowest of the rounds (a busy shared machine only adds).
// In the server, the writer thread bounds the ingest rate: it runs these steps for every
// write, one at a time (the HTTP thread only hands it the bytes).
//   npx tsc -p tsconfig.json && node dist/bench/writer-steps.js [--records 12000] [--rounds 5]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IndexRow } from '../src/catalog/indexes.js';
import { parseJsonBody } from '../src/data/json-body.js';
import { upsertInput } from '../src/data/vector-input.js';
import { RecordStore } from '../src/engine/store/record-store.js';
import { generateDense, generateSparse, id } from './data.js';
import { flag } from './dense-fixture.js';
import { upsertBatches } from './harness.js';

const RECORDS = Number(flag('records', '12000'));
const ROUNDS = Number(flag('rounds', '5'));
const DIM = 384;
const STEPS = ['parse', 'validate', 'commit', 'post'] as const;
type Kind = 'dense' | 'hybrid';

const dense = generateDense({ n: RECORDS, dim: DIM, clusters: 100 }, 10);
const sparse = generateSparse(RECORDS, 10);
const values = (i: number): number[] => Array.from(dense.vectors.subarray(i * DIM, (i + 1) * DIM));
const encode = (kind: Kind) => (i: number): string => {
  if (kind === 'dense') return JSON.stringify({ id: id(i), values: values(i) });
  const s = sparse.records[i];
  return JSON.stringify({ id: id(i), values: values(i), sparseValues: { indices: Array.from(s.indices), values: Array.from(s.values) } });
};
const bodies: Record<Kind, Buffer[]> = {
  dense: upsertBatches(encode('dense'), 0, RECORDS).map((b) => Buffer.from(b.body)),
  hybrid: upsertBatches(encode('hybrid'), 0, RECORDS).map((b) => Buffer.from(b.body)),
};
const index = { name: 'bench', vectorType: 'dense', dimension: DIM, metric: 'dotproduct' } as IndexRow;
const sink = new Worker('require("node:worker_threads").parentPort.on("message", () => {});', { eval: true });
const dir = mkdtempSync(join(tmpdir(), 'conifer-writer-steps-'));
const best: Record<Kind, Record<(typeof STEPS)[number], number>> = {
  dense: { parse: Infinity, validate: Infinity, commit: Infinity, post: Infinity },
  hybrid: { parse: Infinity, validate: Infinity, commit: Infinity, post: Infinity },
};
const bestTotal: Record<Kind, number> = { dense: Infinity, hybrid: Infinity };
try {
  for (let round = 0; round < ROUNDS; round++) {
    const stores = { dense: RecordStore.open(join(dir, `dense-${round}`)), hybrid: RecordStore.open(join(dir, `hybrid-${round}`)) };
    const ms = { dense: { parse: 0, validate: 0, commit: 0, post: 0 }, hybrid: { parse: 0, validate: 0, commit: 0, post: 0 } };
    const requests = Math.max(bodies.dense.length, bodies.hybrid.length);
    for (let r = 0; r < requests; r++) {
      for (const kind of ['dense', 'hybrid'] as const) {
        const body = bodies[kind][r];
        if (!body) continue;
        const bytes = Buffer.from(body); // the writer receives its own copy of the bytes
        let t = performance.now();
        const parsed = parseJsonBody(bytes, 'upsert');
        let now = performance.now();
        ms[kind].parse += now - t;
        t = now;
        const { namespace, records } = upsertInput(parsed, index);
        now = performance.now();
        ms[kind].validate += now - t;
        t = now;
        const changes = stores[kind].upsert(namespace, records);
        now = performance.now();
        ms[kind].commit += now - t;
        t = now;
        sink.postMessage({ op: 'apply', indexId: kind, changes });
        ms[kind].post += performance.now() - t;
      }
    }
    for (const kind of ['dense', 'hybrid'] as const) {
      stores[kind].close();
      let total = 0;
      for (const step of STEPS) {
        const us = (ms[kind][step] * 1000) / RECORDS;
        best[kind][step] = Math.min(best[kind][step], us);
        total += us;
      }
      bestTotal[kind] = Math.min(bestTotal[kind], total);
    }
  }
  const bytesPerRecord = (kind: Kind): number => bodies[kind].reduce((n, b) => n + b.length, 0) / RECORDS;
  console.log(`µs per record, lowest of ${ROUNDS} rounds of ${RECORDS} records (${bodies.dense.length} dense and ${bodies.hybrid.length} hybrid requests)`);
  console.log('kind     B/record  ' + STEPS.map((s) => s.padStart(9)).join('') + '     total');
  for (const kind of ['dense', 'hybrid'] as const) {
    console.log(`${kind.padEnd(8)} ${bytesPerRecord(kind).toFixed(0).padStart(8)}  ${STEPS.map((s) => best[kind][s].toFixed(1).padStart(9)).join('')}${bestTotal[kind].toFixed(1).padStart(10)}`);
  }
  console.log(`dense/hybrid: ${(bestTotal.dense / bestTotal.hybrid).toFixed(2)} (the ingest-rate ratio if the writer thread alone bounds both)`);
} finally {
  await sink.terminate();
  rmSync(dir, { recursive: true, force: true });
}
