// Runs the benchmark end to end at the `tiny` size against the real server. Checks that
// every figure is present and finite and that recall is measured correctly; it asserts
// no timings (benchmarks measure, tests do not judge speed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBenchmark, upsertBatches } from '../../bench/harness.js';
import { recallAtK } from '../../bench/stats.js';

/** Every number in a JSON-like value, with its path. */
function numbers(value: unknown, path: string, out: [string, number][]): [string, number][] {
  if (typeof value === 'number') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => numbers(v, `${path}[${i}]`, out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) numbers(v, `${path}.${k}`, out);
  }
  return out;
}

test('recall@k scores a perturbed result list below 1', () => {
  const truth = { ids: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], scores: [10, 9, 8, 7, 6, 5, 4, 3, 2, 1] };
  assert.equal(recallAtK([...truth.ids], truth, 10), 1);
  assert.equal(recallAtK([10, 9, 8, 7, 6, 5, 4, 3, 2, 1], truth, 10), 1, 'order within the top-k does not matter');
  const perturbed = [1, 2, 3, 4, 5, 6, 7, 8, 9, 42];
  assert.ok(recallAtK(perturbed, truth, 10) < 1);
  assert.equal(recallAtK(perturbed, truth, 10), 0.9);
  assert.equal(recallAtK([1, 1, 1, 1, 1, 1, 1, 1, 1, 1], truth, 10), 0.1, 'duplicates count once');
  assert.equal(recallAtK(perturbed, truth, 10, (id) => (id === 42 ? 0.5 : 0)), 0.9, 'a worse score is still a miss');
  assert.equal(recallAtK(perturbed, truth, 10, (id) => (id === 42 ? 1 : 0)), 1, 'a tie with the k-th score is not a miss');
  assert.equal(recallAtK([2, 1], { ids: [1, 2], scores: [2, 1] }, 10), 1, 'fewer than k matching');
});

test('upsert batches cover every record once, in order, within the request limits', () => {
  // Records of varying size, so some batches end at the byte limit and some at 1000 vectors.
  const encode = (i: number): string => JSON.stringify({ id: `r${i}`, pad: 'x'.repeat(i % 7 === 0 ? 90_000 : 100) });
  const batches = upsertBatches(encode, 5, 2600);
  const ids: string[] = [];
  let byBytes = 0;
  for (const b of batches) {
    assert.ok(b.body.length <= 2_000_000, `batch at ${b.first}: ${b.body.length} bytes`);
    const vectors = (JSON.parse(b.body.toString('utf8')) as { vectors: { id: string }[] }).vectors;
    assert.ok(vectors.length <= 1000);
    assert.equal(vectors.length, b.count);
    assert.equal(vectors[0].id, `r${b.first}`);
    if (vectors.length < 1000 && b !== batches[batches.length - 1]) byBytes++;
    ids.push(...vectors.map((v) => v.id));
  }
  assert.ok(byBytes > 0, 'some batches ended at the byte limit');
  assert.deepEqual(ids, Array.from({ length: 2595 }, (_, i) => `r${i + 5}`));
});

test('the tiny benchmark runs end to end and reports every figure', { timeout: 360_000 }, async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'conifer-bench-test-'));
  try {
    const r = await runBenchmark({ size: 'tiny', outDir, log: () => {} });
    const all = numbers(r, 'result', []);
    assert.ok(all.length > 150, `expected many figures, got ${all.length}`);
    for (const [path, v] of all) assert.ok(Number.isFinite(v), `${path} is ${v}`);

    assert.ok((r.headline.echoQpsC8 ?? 0) > 0, 'the bare node:http server was measured at concurrency 8');
    assert.ok((r.ingestQueryProbe?.duringIngest.count ?? 0) >= 1, 'a query was probed during the ingest');
    assert.equal(r.ingestQueryProbe?.idle.count, 200, 'and sent 200 times idle');
    // Exact search today: recall is 1.0 everywhere, answers are never short.
    assert.equal(r.headline.coniferRecall, 1);
    assert.equal(r.query.unfiltered.c1.recall, 1);
    assert.equal(r.query.unfiltered.c8.recall, 1);
    for (const fr of r.query.filtered) {
      assert.equal(fr.c1.recall, 1, fr.filter);
      assert.equal(fr.c8.recall, 1, fr.filter);
      assert.equal(fr.c1.shortAnswers, 0, fr.filter);
      assert.equal(fr.c1.filterViolations, 0, fr.filter);
    }
    // Buckets 0..199 holding 'news' or 'tech' in labels: 92 of 1000 (see metadataLabels).
    assert.deepEqual(r.query.filtered.map((fr) => fr.selectivity), [0.5, 0.1, 0.01, 0.001, 0.092]);
    for (const fr of r.query.filtered) {
      assert.equal(fr.exactOverMatches.recall, 1, `exact over the matches of ${fr.label} is exact`);
      assert.ok(fr.hnswlibFilterCallback.recall > 0 && fr.hnswlibFilterCallback.queries > 0, fr.label);
    }
    assert.equal(r.sparse.query.recall, 1);
    assert.equal(r.hybrid.query.recall, 1);
    assert.equal(r.references.bruteForce.recall, 1);
    assert.equal(r.restart.recordsAfterRestart, r.data.records);
    assert.deepEqual(r.twoIndexes?.map((t) => t.concurrencyPerIndex), [1, 4], 'the two-index phases ran');
    for (const p of (r.twoIndexes ?? []).flatMap((t) => [...t.alone, ...t.together])) {
      assert.equal(p.recall, 1, 'both indexes hold the same records, so both answer exactly');
      assert.equal(p.queries, r.data.queries);
    }
    assert.ok(r.references.httpEcho.count > 0 && r.references.httpEcho.p50Ms > 0);
    // The comparison with Node's own client ran, and its answers were as exact.
    assert.equal(r.clients?.nodeHttp.c8.recall, 1);
    assert.equal(r.clients?.nodeHttp.c1.queries, r.data.queries);
    assert.ok((r.clients?.nodeHttp.echo.qpsC8 ?? 0) > 0 && (r.clients?.bench.harnessCpuUsPerQueryC8 ?? 0) > 0);
    assert.ok(r.restart.rebuild, 'tiny runs the restart without snapshots');
    assert.ok(r.restart.rebuild.firstCorrectQueryMs > 0, 'the restart without snapshots answers correctly');
    assert.ok(r.bulkImport, 'tiny runs the bulk import');
    assert.ok(r.ingest.duringIndexing.queries >= 0 && r.ingest.duringIndexing.shortAnswers === 0);
    assert.equal(r.ingest.c1.vectors + r.ingest.c4.vectors, r.data.records);
    assert.ok(r.query.unfiltered.c1.queries > 0 && r.query.unfiltered.c8.queries > 0);
    const sweep = r.references.hnswlib.sweep;
    assert.ok(sweep.length >= 5);
    for (const p of sweep) assert.ok(p.recall > 0 && p.recall <= 1, `ef ${p.ef} recall ${p.recall}`);
    // The sweep beside the query phases: the same graph and queries, so the same recall; the
    // headline compares with it.
    const beside = r.references.hnswlibBeside ?? [];
    assert.deepEqual(beside.map((p) => [p.ef, p.recall]), sweep.map((p) => [p.ef, p.recall]));
    const picked = beside.find((p) => p.ef === r.headline.hnswEf);
    assert.ok(picked && picked.qps > 0);
    assert.equal(r.headline.hnswP50Ms, picked.latency.p50Ms);
    for (const l of [r.operations.fetch10, r.operations.fetch100, r.operations.describeIndexStats, r.operations.listPage]) {
      assert.ok(l.count > 0);
    }

    // The engine's memory by part (engine-memory.ts in its own process) on this size's data.
    const e = r.memory.engineParts;
    assert.ok(e, 'the engine memory breakdown ran');
    assert.deepEqual([e.count, e.dim], [r.data.records, r.data.dimension]);
    // At 2,000 records each part is a few hundred KB, inside the heap's own noise, so only
    // the whole is checked for size: the graph alone holds a copy of every vector.
    assert.ok(e.total > r.data.dimension * 4, `engine total ${e.total} B per vector`);
    assert.ok(Math.abs(e.total - (e.ids + e.vectors + e.metadata + e.graph)) <= 2, 'the total is the sum of the parts');

    const files = readdirSync(outDir).sort();
    assert.ok(files.includes('tiny.md'), files.join(', '));
    assert.ok(files.includes('tiny-recall-qps.svg'), files.join(', '));
    const json = files.find((name) => /^tiny-.*\.json$/.test(name));
    assert.ok(json, files.join(', '));
    assert.deepEqual(JSON.parse(readFileSync(join(outDir, json), 'utf8')), JSON.parse(JSON.stringify(r)));
    const md = readFileSync(join(outDir, 'tiny.md'), 'utf8');
    assert.match(md, /tiny-recall-qps\.svg/);
    assert.match(md, new RegExp(`engine total .*\\| ${e.total.toLocaleString('en-US')} B`));
    assert.ok(r.sparse.rssAtRestBytesPerRecord !== undefined, 'sparse memory at rest was read');
    assert.match(md, new RegExp(`the same at rest .*\\| ${Math.round(r.sparse.rssAtRestBytesPerRecord).toLocaleString('en-US')} B`));
    // The unfiltered phases follow the unmeasured warm-up rounds, and the report shows them.
    const rounds = r.query.unfilteredWarmUp ?? [];
    assert.equal(rounds.length, 5);
    for (const w of rounds) assert.ok(w.c8Qps > 0 && w.c1P50Ms > 0);
    assert.match(md, new RegExp(`5 unmeasured rounds .*each round: ${Math.round(rounds[0].c8Qps).toLocaleString('en-US')} QPS at c=8`));
    assert.match(readFileSync(join(outDir, 'tiny-recall-qps.svg'), 'utf8'), /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});
