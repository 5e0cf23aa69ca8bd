// Measures what validating the upsert path with a JSON schema would cost, beside the
// hand-written checks it uses (src/data/vector-input.ts upsertInput, which validates and
// converts to float32 in one pass). Body: 1000 vectors × 384 dimensions with two metadata
// fields, already parsed (both would run after JSON.parse). Prints medians of 30 runs.
//   npx tsc -p tsconfig.json && node dist/bench/validate-upsert.js
import { performance } from 'node:perf_hooks';
import type { IndexRow } from '../src/catalog/indexes.js';
import { upsertInput } from '../src/data/vector-input.js';
import { upsertBody } from '../src/server/schemas/vector-schemas.js';
import { compileSchema } from '../test/helpers/schema-validator.js';
import { Rng } from './prng.js';

const VECTORS = 1000;
const DIMENSION = 384;
const RUNS = 30;

const rng = new Rng(42);
const body = {
  namespace: 'bench',
  vectors: Array.from({ length: VECTORS }, (_, i) => ({
    id: `doc-${i}`,
    values: Array.from({ length: DIMENSION }, () => rng.gaussian()),
    metadata: { genre: i % 2 === 0 ? 'drama' : 'comedy', year: 1950 + (i % 70) },
  })),
};
const text = JSON.stringify(body);
const index = { name: 'bench', vectorType: 'dense', dimension: DIMENSION, metric: 'cosine' } as IndexRow;
const validate = await compileSchema(upsertBody);

function median(fn: () => unknown): number {
  for (let i = 0; i < 5; i++) fn(); // warm up the JIT
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)];
}

if (!validate(body)) throw new Error('the benchmark body must be valid');
const parse = median(() => JSON.parse(text));
const checks = median(() => upsertInput(body, index));
const ajv = median(() => validate(body));
const fmt = (ms: number): string => `${ms.toFixed(2)} ms`;
process.stdout.write(
  `upsert body ${VECTORS}×${DIMENSION} (${(text.length / 1e6).toFixed(2)} MB), median of ${RUNS}:\n` +
    `  JSON.parse                         ${fmt(parse)}\n` +
    `  hand-written checks + float32      ${fmt(checks)}\n` +
    `  Ajv (schemas/vector-schemas.ts)    ${fmt(ajv)}\n` +
    `  a schema pass would add ${((ajv / (parse + checks)) * 100).toFixed(0)}% to parse + checks ` +
    `(the checks stay either way: they convert values and apply the index's rules)\n`,
);
