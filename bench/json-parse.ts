// Body parsing in process: parseJsonBody (src/data/json-body.ts) with the native dense
// vector parse (native/json-floats.cc) against the same bodies through JSON.parse alone,
// for query bodies at 384 and 1536 dimensions and upsert bodies of ~0.8 MB (dense, and
// hybrid: each record also with 120 sparse values), alternated in rounds. Bodies are JSON.stringify of float32 values as doubles (17 significant digits),
// as clients send them.
//   npm run build && node dist/bench/json-parse.js [--rounds 3]
import { parseJsonBody } from '../src/data/json-body.js';
import { nativeAddon } from '../src/engine/native-addon.js';
import { generateDense } from './data.js';
import { flag, queryBodies } from './dense-fixture.js';

if (!nativeAddon) throw new Error('the native addon is not loaded: nothing to compare');
const rounds = Number(flag('rounds', '3'));

/** Mean µs per call of `parse` over `bodies`, `calls` times. */
function timeUs(bodies: Buffer[], calls: number, parse: (b: Buffer) => unknown): number {
  const started = performance.now();
  for (let i = 0; i < calls; i++) parse(bodies[i % bodies.length]);
  return ((performance.now() - started) / calls) * 1000;
}

for (const dim of [384, 1536]) {
  const data = generateDense({ n: 200, dim, clusters: 10 }, 200);
  const queries = queryBodies(data).map((b) => Buffer.from(b));
  const perUpsert = Math.floor(750_000 / (dim * 20));
  const upsertBodies = (sparse: boolean): Buffer[] =>
    [0, 1].map((u) => {
      const vectors = [];
      for (let i = 0; i < perUpsert; i++) {
        const row = (u * perUpsert + i) % data.n;
        const values = Array.from(data.vectors.subarray(row * dim, (row + 1) * dim));
        const sparseValues = { indices: values.slice(0, 120).map((_, j) => j * 200 + (row % 200)), values: values.slice(0, 120) };
        vectors.push({ id: `id-${i}`, values, ...(sparse ? { sparseValues } : {}), metadata: { genre: 'x', year: i } });
      }
      return Buffer.from(JSON.stringify({ vectors }));
    });
  const upserts = upsertBodies(false);
  const hybrids = upsertBodies(true);
  for (let r = 0; r < rounds; r++) {
    const qPlain = timeUs(queries, 5000, (b) => parseJsonBody(b));
    const qNative = timeUs(queries, 5000, (b) => parseJsonBody(b, 'query'));
    const uPlain = timeUs(upserts, 20, (b) => parseJsonBody(b)) / 1000;
    const uNative = timeUs(upserts, 20, (b) => parseJsonBody(b, 'upsert')) / 1000;
    const hPlain = timeUs(hybrids, 20, (b) => parseJsonBody(b)) / 1000;
    const hNative = timeUs(hybrids, 20, (b) => parseJsonBody(b, 'upsert')) / 1000;
    console.log(
      `${dim}-d  query (${queries[0].length} B): JSON.parse ${qPlain.toFixed(1)} µs, native vector ${qNative.toFixed(1)} µs (${(qPlain / qNative).toFixed(2)}×)` +
        `  upsert (${perUpsert} records, ${(upserts[0].length / 1e6).toFixed(2)} MB): JSON.parse ${uPlain.toFixed(2)} ms, native values ${uNative.toFixed(2)} ms (${(uPlain / uNative).toFixed(2)}×)` +
        `  hybrid upsert (${(hybrids[0].length / 1e6).toFixed(2)} MB): JSON.parse ${hPlain.toFixed(2)} ms, native ${hNative.toFixed(2)} ms (${(hPlain / hNative).toFixed(2)}×)`,
    );
  }
}
