// Renders a result: an aligned table for stdout, the JSON with every figure, a Markdown
// report and a hand-written SVG chart of recall (x) against QPS (y, log scale).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResult, QueryPhase } from './harness.js';
import type { ImportPhase } from './import-phase.js';
import type { HnswPoint } from './references.js';
import type { LatencySummary } from './stats.js';
import { SHAPE } from './data.js';

const f = (v: number, digits = 2): string => (Number.isFinite(v) ? v.toFixed(digits) : String(v));
const int = (v: number): string => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : String(v));
const mib = (b: number): string => `${f(b / 2 ** 20, 1)} MiB`;
const ms = (v: number): string => `${f(v, v < 0.1 ? 3 : v < 10 ? 2 : 1)} ms`;

type Table = { head: string[]; rows: string[][] };

function markdown(t: Table): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(t.head), line(t.head.map((_, i) => (i === 0 ? '---' : '---:'))), ...t.rows.map(line)].join('\n');
}

function aligned(t: Table): string {
  const widths = t.head.map((h, i) => Math.max(h.length, ...t.rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(t.head), widths.map((w) => '-'.repeat(w)).join('  '), ...t.rows.map(line)].join('\n');
}

function latencyCells(l: LatencySummary): string[] {
  return [ms(l.p50Ms), ms(l.p95Ms), ms(l.p99Ms)];
}

/** The sweep the headline compares with: the one run beside Conifer's query phases (older reports: the start-of-run one). */
function headlineSweep(r: BenchResult): HnswPoint[] {
  return r.references.hnswlibBeside ?? r.references.hnswlib.sweep;
}

function headlineTable(r: BenchResult): Table {
  const h = r.headline;
  const sweep = headlineSweep(r).find((p) => p.ef === h.hnswEf);
  const bf = r.references.bruteForce;
  return {
    head: ['', 'Conifer (HTTP, c=1)', 'Conifer (HTTP, c=8)', `hnswlib-node ef=${h.hnswEf} (in-process)`, 'brute force (in-process)'],
    rows: [
      ['recall@10', f(h.coniferRecall, 4), f(r.query.unfiltered.c8.recall, 4), f(h.hnswRecall, 4), f(bf.recall, 4)],
      ['p50 latency', ms(h.coniferP50Ms), ms(r.query.unfiltered.c8.latency.p50Ms), ms(h.hnswP50Ms), ms(bf.latency.p50Ms)],
      ['p99 latency', ms(r.query.unfiltered.c1.latency.p99Ms), ms(r.query.unfiltered.c8.latency.p99Ms), ms(sweep?.latency.p99Ms ?? NaN), ms(bf.latency.p99Ms)],
      ['QPS', f(h.coniferQpsC1, 1), f(h.coniferQpsC8, 1), f(h.hnswQps, 1), f(bf.qps, 1)],
    ],
  };
}

function ratiosText(r: BenchResult): string[] {
  const h = r.headline;
  const which = h.hnswReachedConiferRecall
    ? `ef=${h.hnswEf}, the first ef whose recall (${f(h.hnswRecall, 4)}) is ≥ Conifer's (${f(h.coniferRecall, 4)})`
    : `ef=${h.hnswEf}: no ef reached Conifer's recall ${f(h.coniferRecall, 4)}, so the best one (${f(h.hnswRecall, 4)}) is used`;
  const atStart = r.references.hnswlibBeside ? r.references.hnswlib.sweep.find((p) => p.ef === h.hnswEf) : undefined;
  return [
    `Conifer p50 ÷ hnswlib p50 at equal recall: ${f(h.p50Ratio, 1)}× (${which}; hnswlib measured right after Conifer's unfiltered phases)`,
    ...(atStart
      ? [`The same ef measured at the start of the run, before the server started: hnswlib p50 ${ms(atStart.latency.p50Ms)}, ${int(atStart.qps)} QPS; against it Conifer's p50 is ${f(h.coniferP50Ms / atStart.latency.p50Ms, 1)}× and its QPS ${f(h.coniferQpsC1 / atStart.qps, 3)} (c=1) and ${f(h.coniferQpsC8 / atStart.qps, 3)} (c=8)`]
      : []),
    `Conifer QPS ÷ hnswlib single-thread QPS: ${f(h.qpsRatio, 3)} at concurrency 1, ${f(h.qpsRatioC8, 3)} at concurrency 8`,
    `Conifer p50 ÷ in-process brute-force p50: ${f(h.p50RatioToBruteForce, 2)}×`,
    `Bare node:http round trip (same client, same bodies): p50 ${ms(h.echoP50Ms)}; Conifer p50 − hnswlib p50 = ${f(h.overheadInEchoRoundTrips, 2)}× that round trip`,
    ...(h.echoQpsC8 === undefined
      ? []
      : [
          `The same bare server at concurrency 8 (no parsing, no work, a fixed answer): ${int(h.echoQpsC8)} QPS, ${f(h.echoQpsC8 / h.hnswQps, 3)}× hnswlib's single-thread QPS — the most any Node HTTP server answers here with this client on the same cores; Conifer's c=8 QPS is ${f(h.coniferQpsC8 / h.echoQpsC8, 3)} of it`,
        ]),
  ];
}

function queryRow(name: string, p: QueryPhase): string[] {
  return [name, String(p.concurrency), String(p.queries) + (p.stoppedEarly ? '*' : ''), f(p.qps, 1), ...latencyCells(p.latency), f(p.recall, 4), String(p.shortAnswers), String(p.filterViolations)];
}

/**
 * How the sparse-only and hybrid phases were warmed up, with the passes' p50s when recorded:
 * every pass's up to 10 passes, else the first three, every tenth and the last (the JSON
 * holds them all).
 */
function warmUpText(r: BenchResult): string {
  const sparse = r.sparse.warmUpP50Ms;
  const hybrid = r.hybrid.warmUpP50Ms;
  if (!sparse || !hybrid) return 'one unmeasured pass over their own queries';
  const shown = (n: number): number[] => Array.from({ length: n }, (_, i) => i).filter((i) => n <= 10 || i < 3 || (i + 1) % 10 === 0 || i === n - 1);
  const p50s = (xs: number[]): string => shown(xs.length).map((i) => (xs.length <= 10 ? ms(xs[i]) : `${i + 1}: ${ms(xs[i])}`)).join(', ');
  const which = sparse.length <= 10 && hybrid.length <= 10 ? "each pass's p50" : 'p50 by pass';
  const passes = sparse.length === hybrid.length ? `${sparse.length}` : `${sparse.length} and ${hybrid.length}`;
  return `${passes} unmeasured passes over their own queries (${which}: sparse-only ${p50s(sparse)}; hybrid ${p50s(hybrid)})`;
}

/** How the dense phases were warmed up, with each unmeasured round's figures when recorded. */
function denseWarmUpText(r: BenchResult): string {
  const rounds = r.query.unfilteredWarmUp;
  if (!rounds) return 'the unfiltered ones follow the queries run while indexing (count below) and 20 unmeasured ones, the filtered ones follow the unfiltered ones on the same index';
  const each = rounds.map((w) => `${int(w.c8Qps)} QPS at c=8, p50 ${ms(w.c1P50Ms)} at c=1`).join('; ');
  return (
    `the unfiltered ones follow the queries run while indexing (count below) and ${rounds.length} unmeasured rounds of a pass at ` +
    `concurrency 8 and one at 1 over the same queries (each round: ${each}; a server's first concurrent queries run ` +
    `while the JIT still optimises Node's HTTP paths), and each filter level follows one unmeasured pass at concurrency 8 over its own queries`
  );
}

function queryTable(r: BenchResult): Table {
  const rows = [queryRow('no filter', r.query.unfiltered.c1), queryRow('no filter', r.query.unfiltered.c8)];
  for (const fr of r.query.filtered) {
    const name = `${fr.label} (${f(fr.selectivity * 100, 2)} %, ${fr.matchingRecords} records)`;
    rows.push(queryRow(name, fr.c1), queryRow(name, fr.c8));
  }
  rows.push(queryRow(`sparse-only (${r.sparse.records} records)`, r.sparse.query));
  rows.push(queryRow(`hybrid dense+sparse (${r.hybrid.records} records)`, r.hybrid.query));
  return { head: ['query (topK 10, metadata)', 'conc.', 'queries', 'QPS', 'p50', 'p95', 'p99', 'recall@10', 'short', 'filter violations'], rows };
}

function filterStrategyTable(r: BenchResult): Table {
  return {
    head: ['filter', 'matching', 'Conifer p50 (HTTP, c=1)', 'recall', 'exact over matches p50 (in-process)', 'hnswlib callback p50 (in-process)', 'callback recall'],
    rows: r.query.filtered.map((fr) => [
      fr.label,
      int(fr.matchingRecords),
      ms(fr.c1.latency.p50Ms),
      f(fr.c1.recall, 4),
      ms(fr.exactOverMatches.latency.p50Ms),
      ms(fr.hnswlibFilterCallback.latency.p50Ms),
      f(fr.hnswlibFilterCallback.recall, 4),
    ]),
  };
}

function ingestTable(r: BenchResult): Table {
  const row = (p: BenchResult['ingest']['c1']): string[] => [
    String(p.concurrency),
    int(p.vectors),
    String(p.requests),
    f(p.meanBatchVectors, 0),
    f(p.meanBatchBytes / 1e6, 2),
    int(p.vectorsPerSecond),
    f(p.megabytesPerSecond, 1),
    ...latencyCells(p.latency),
  ];
  return {
    head: ['concurrency', 'vectors', 'requests', 'vectors/request', 'MB/request', 'vectors/s', 'MB/s', 'p50', 'p95', 'p99'],
    rows: [row(r.ingest.c1), row(r.ingest.c4)],
  };
}

/** What `--only import` measured: the machine, the data and the import phase. */
export interface ImportBenchResult {
  size: string;
  startedAt: string;
  commit: string;
  machine: BenchResult['machine'];
  data: { records: number; dimension: number; metric: 'cosine' };
  /** Records upserted over HTTP (c4) to measure the HTTP rate the import is compared with. */
  httpSampleRecords: number;
  bulkImport: ImportPhase;
}

export function writeImportReport(r: ImportBenchResult, outDir: string): { json: string; md: string; table: string } {
  const stamp = r.startedAt.replace(/[:.]/g, '-');
  const json = join(outDir, `import-${r.size}-${stamp}.json`);
  const md = join(outDir, `import-${r.size}.md`);
  const title = `Conifer bulk import: ${r.size}, ${int(r.data.records)} × ${r.data.dimension} ${r.data.metric}`;
  const note =
    `HTTP upsert rate from ${int(r.httpSampleRecords)} records (largest batches, concurrency 4) into another ` +
    `index on the same server just before, deleted before the import. ${r.machine.cores} × ${r.machine.cpu}, ` +
    `Node ${r.machine.node}, commit ${r.commit}, started ${r.startedAt}.`;
  writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  writeFileSync(md, `# ${title}\n\n${note}\n\n${markdown(importTable(r.bulkImport))}\n`);
  return { json, md, table: [`== ${title} ==`, aligned(importTable(r.bulkImport)), note].join('\n') };
}

export function importTable(b: ImportPhase): Table {
  return {
    head: ['figure', 'value'],
    rows: [
      ['records (Parquet files, size)', `${int(b.records)} (${b.files} files, ${mib(b.parquetBytes)})`],
      ['import: POST /bulk/imports → Completed', `${f(b.seconds, 1)} s`],
      ['import rate', `${int(b.recordsPerSecond)} records/s`],
      ['HTTP upsert rate, same server, same run (c4)', `${int(b.httpUpsertVectorsPerSecond)} vectors/s`],
      ['import ÷ HTTP upsert', `${f(b.ratioToHttpUpsert, 2)}×`],
      ['POST → searchable (every record in a graph, last record found)', `${f(b.searchableSeconds, 1)} s`],
      ['server RSS before the import', mib(b.rssBeforeBytes)],
      ['server peak RSS during the import (sampled every 50 ms)', mib(b.peakRssBytes)],
    ],
  };
}

function twoIndexTable(phases: NonNullable<BenchResult['twoIndexes']>): Table {
  const names = ['bench-dense', 'bench-import (the same records)'];
  return {
    head: ['index', 'conc. each', 'QPS alone', 'p50 alone', 'QPS together', 'p50 together', 'together ÷ alone', 'recall together'],
    rows: phases.flatMap((t) => [0, 1].map((i) => [
      names[i],
      String(t.concurrencyPerIndex),
      f(t.alone[i].qps, 1),
      ms(t.alone[i].latency.p50Ms),
      f(t.together[i].qps, 1),
      ms(t.together[i].latency.p50Ms),
      f(t.together[i].qps / t.alone[i].qps, 2),
      f(t.together[i].recall, 4),
    ])),
  };
}

function importSection(r: BenchResult): string {
  if (!r.bulkImport) {
    return `## Bulk import

Not run at this size (SizeSpec.rebuildPhases: it builds the whole graph again); the import at
this size is measured alone by \`npm run bench -- --size ${r.size} --only import\` (import-${r.size}.md).

`;
  }
  return `## Bulk import

The same dense records written as Parquet in the layout \`conifer export\` writes (row
groups of 10,000, files of up to 100,000 rows; writing is not measured), imported into a
new index through \`POST /bulk/imports\` with a \`file://\` URI under
\`CONIFER_IMPORT_ROOT\`, on the same server right after the phases above; the index is
deleted afterwards.

${markdown(importTable(r.bulkImport))}

`;
}

function clientSection(r: BenchResult): string {
  const c = r.clients;
  if (!c) return '';
  const u = r.query.unfiltered;
  const h = r.headline;
  const n = c.nodeHttp;
  const table: Table = {
    head: ['client', 'harness CPU per query (c=8)', 'Conifer p50 (c=1)', 'Conifer QPS (c=8)', '÷ hnswlib QPS', 'bare server round trip p50', 'bare server QPS (c=8)', '(Conifer p50 − hnswlib p50) ÷ bare round trip'],
    rows: [
      ["the bench's (bench/http.ts, every figure above and below)", `${int(c.bench.harnessCpuUsPerQueryC8)} µs`, ms(u.c1.latency.p50Ms), f(u.c8.qps, 1), f(u.c8.qps / h.hnswQps, 3), ms(h.echoP50Ms), int(h.echoQpsC8 ?? NaN), f(h.overheadInEchoRoundTrips, 2)],
      ["Node's http.request", `${int(n.harnessCpuUsPerQueryC8)} µs`, ms(n.c1.latency.p50Ms), f(n.c8.qps, 1), f(n.c8.qps / h.hnswQps, 3), ms(n.echo.c1.p50Ms), int(n.echo.qpsC8), f((n.c1.latency.p50Ms - h.hnswP50Ms) / n.echo.c1.p50Ms, 2)],
    ],
  };
  return `## The HTTP client

The harness's client (\`bench/http.ts\`) is a minimal keep-alive HTTP/1.1 client over plain
sockets, as load generators such as wrk are: on these shared cores every µs of CPU the
client spends is taken from the server. The unfiltered phases and the bare server were run
again with Node's own \`http.request\` client (the harness's client in reports before
2026-11-27), right after hnswlib's "beside" sweep, the ratios against the same hnswlib
figures. Harness CPU per query: the harness's CPU while the queries ran; every answer is checked
(recall, filters) after the phase's clock stops, so the check takes no core from the server.

${markdown(table)}

`;
}

function twoIndexSection(r: BenchResult): string {
  if (!r.twoIndexes) return '';
  return `## Two indexes queried at once

The dense index and the imported copy of it (above, before it is deleted), each queried
with the unfiltered queries at the same concurrency: first each alone, then both at the same
time (issue 15's target: each keeps ≥ 0.8× the QPS it gets alone). At concurrency 1 an index
alone leaves the cores partly idle; at 4 it keeps them busy, so on this 2-core machine two
indexes together can only share what one alone already used.

${markdown(twoIndexTable(r.twoIndexes))}

`;
}

function ingestQueryNote(r: BenchResult): string {
  const q = r.ingestQueryProbe;
  if (!q) return '';
  const ratio = q.duringIngest.p50Ms / q.idle.p50Ms;
  return `
A query is probed the same way during the dense ingest (the first held-out query, one every
${q.intervalMs} ms from its own thread and connection), then sent idle once the index is
indexed and warm: its p50 during the ingest is ${f(ratio, 1)}× the idle one (issue 15's
target: ≤ 2×). During the ingest every query also scans the records not yet in a graph.`;
}

function opsTable(r: BenchResult): Table {
  const o = r.operations;
  const row = (name: string, l: LatencySummary): string[] => [name, String(l.count), ...latencyCells(l)];
  return {
    head: ['operation (concurrency 1)', 'requests', 'p50', 'p95', 'p99'],
    rows: [
      row('fetch 10 ids', o.fetch10),
      row('fetch 100 ids', o.fetch100),
      row('describe_index_stats', o.describeIndexStats),
      row('list (page of 100, walking pages)', o.listPage),
      row('GET /health, idle', r.healthProbe.idle),
      row('GET /health during ingest', r.healthProbe.duringIngest),
      row('GET /health during queries', r.healthProbe.duringQueries),
      ...(r.ingestQueryProbe
        ? [
            row(`one unfiltered query every ${r.ingestQueryProbe.intervalMs} ms, during ingest`, r.ingestQueryProbe.duringIngest),
            row('the same query, idle (indexed, warm)', r.ingestQueryProbe.idle),
          ]
        : []),
    ],
  };
}

function otherTable(r: BenchResult): Table {
  const m = r.memory;
  return {
    head: ['figure', 'value'],
    rows: [
      ['ingest, all records acknowledged', `${f(r.ingest.totalSeconds, 1)} s`],
      ['ingest start → fully indexed (see note)', `${f(r.ingest.fullyIndexedSeconds, 1)} s`],
      ['… ÷ hnswlib single-thread build of the same data', `${f(r.ingest.indexedToHnswBuildRatio, 2)}×`],
      [
        'queries after the last ack while records were outside a graph',
        `${r.ingest.duringIndexing.queries} (recall ${r.ingest.duringIndexing.recall === null ? 'n/a' : f(r.ingest.duringIndexing.recall, 4)}, short ${r.ingest.duringIndexing.shortAnswers}; ${int(r.ingest.duringIndexing.unindexedAtStart)} unindexed at the start)`,
      ],
      ['last acknowledged upsert → reads see it', ms(r.ingest.visibleAfterLastAckMs)],
      ['sparse upsert', `${int(r.sparse.upsertVectorsPerSecond)} vectors/s`],
      ['sparse memory: server RSS growth per sparse record', r.sparse.rssGrowthBytesPerRecord === undefined ? 'n/a' : `${int(r.sparse.rssGrowthBytesPerRecord)} B`],
      ['… the same at rest (postings trimmed, freed memory released)', r.sparse.rssAtRestBytesPerRecord === undefined ? 'n/a' : `${int(r.sparse.rssAtRestBytesPerRecord)} B`],
      ['hybrid upsert', `${int(r.hybrid.upsertVectorsPerSecond)} vectors/s`],
      ['hybrid: last upsert acknowledged → every record in a graph (queries run after)', `${r.hybrid.indexedAfterAckSeconds.toFixed(1)} s`],
      ['restart: stop (SIGTERM → exit)', `${f(r.restart.stopSeconds, 2)} s`],
      ['restart: process start → listening', ms(r.restart.listeningMs)],
      ['restart: process start → /ready 200', ms(r.restart.readyMs)],
      ['restart: process start → first correct query', ms(r.restart.firstCorrectQueryMs)],
      ['records after restart', int(r.restart.recordsAfterRestart)],
      ...rebuildRows(r.restart, 'ready'),
      ['restart: process start → /ready and every record in a graph (unindexed = 0)', ms(r.restart.searchableMs)],
      ...rebuildRows(r.restart, 'searchable'),
      ['server RSS, empty index', mib(m.rssEmptyBytes)],
      ...(m.rssAtIndexedBytes === undefined ? [] : [['server RSS when the dense load is fully indexed', mib(m.rssAtIndexedBytes)] as [string, string]]),
      [m.rssAtIndexedBytes === undefined ? 'server RSS after dense load' : 'server RSS after dense load, at rest (once it holds steady: freed heap memory handed back)', mib(m.rssAfterLoadBytes)],
      ['RSS growth per dense vector (raw float32: ' + m.rawFloat32BytesPerVector + ' B)', `${int(m.bytesPerVector)} B`],
      ...engineMemoryRows(m),
      ['server peak RSS (VmHWM)', mib(m.peakRssBytes)],
      ['server RSS after restart (all three indexes loaded)', mib(m.rssAfterRestartBytes)],
    ],
  };
}

/**
 * The RSS growth per vector broken down: the engine's structures measured in process
 * (bench/engine-memory.ts), and what the server holds beyond them.
 */
function engineMemoryRows(m: BenchResult['memory']): string[][] {
  const e = m.engineParts;
  if (!e) return [];
  const at = `in process, ${int(e.count)} × ${e.dim}`;
  return [
    [`… engine: ids (labels, id strings, map, seqs) (${at})`, `${int(e.ids)} B`],
    ['… engine: vector arena beside the graph (norms; vectors not yet in the graph)', `${int(e.vectors)} B`],
    ["… engine: metadata (the index's filter columns)", `${int(e.metadata)} B`],
    ['… engine: HNSW graph (its nodes hold the one copy of each vector)', `${int(e.graph)} B`],
    ['… engine total', `${int(e.total)} B`],
    ['… rest of the server (thread heaps, allocator, SQLite caches): RSS growth − engine total', `${int(m.bytesPerVector - e.total)} B`],
  ];
}

/** The restart-without-snapshots rows; one saying where it is measured when this size skips it (SizeSpec.rebuildPhases). */
function rebuildRows(restart: BenchResult['restart'], part: 'ready' | 'searchable'): string[][] {
  const b = restart.rebuild;
  if (!b) return part === 'ready' ? [['restart without snapshots (rebuild)', 'not run at this size (another full build; see the medium report)']] : [];
  if (part === 'ready') {
    return [
      [`restart without snapshots (rebuild; ${b.snapshotFilesRemoved} files removed): start → /ready 200`, ms(b.readyMs)],
      ['restart without snapshots: start → first correct query', ms(b.firstCorrectQueryMs)],
      ['restart → ready ÷ rebuild → ready', `${f((restart.readyToRebuildRatio ?? Number.NaN) * 100, 1)} %`],
    ];
  }
  return [
    ['restart without snapshots: start → every record in a graph', ms(b.searchableMs)],
    ['restart → searchable ÷ rebuild → searchable (target ≤ 15 %)', `${f((restart.searchableToRebuildRatio ?? Number.NaN) * 100, 1)} %`],
  ];
}

function sweepTable(r: BenchResult): Table {
  const beside = r.references.hnswlibBeside;
  if (!beside) {
    return {
      head: ['ef', 'recall@10', 'QPS (1 thread)', 'p50', 'p95', 'p99'],
      rows: r.references.hnswlib.sweep.map((p) => [String(p.ef), f(p.recall, 4), int(p.qps), ...latencyCells(p.latency)]),
    };
  }
  return {
    head: ['ef', 'recall@10', 'QPS at start', 'p50 at start', 'QPS beside', 'p50 beside', 'p95 beside', 'p99 beside'],
    rows: r.references.hnswlib.sweep.map((p) => {
      const b = beside.find((q) => q.ef === p.ef);
      return [String(p.ef), f(p.recall, 4), int(p.qps), ms(p.latency.p50Ms), b ? int(b.qps) : '–', ...(b ? latencyCells(b.latency) : ['–', '–', '–'])];
    }),
  };
}

export function stdoutTable(r: BenchResult): string {
  return [
    '',
    `== Conifer benchmark: ${r.size}, ${r.data.records} × ${r.data.dimension} cosine, ${r.data.queries} queries (${f(r.totalSeconds, 0)} s) ==`,
    aligned(headlineTable(r)),
    '',
    ...ratiosText(r),
    '',
    aligned(queryTable(r)),
    '',
    aligned(filterStrategyTable(r)),
    '',
    aligned(ingestTable(r)),
    '',
    ...(r.bulkImport ? [aligned(importTable(r.bulkImport)), ''] : []),
    aligned(opsTable(r)),
    '',
    aligned(otherTable(r)),
    '',
    'hnswlib-node ef sweep (M=16, efConstruction=200):',
    aligned(sweepTable(r)),
  ].join('\n');
}

export function markdownReport(r: BenchResult, svgName: string): string {
  const mc = r.machine;
  const d = r.data;
  const h = r.references.hnswlib;
  return `# Conifer benchmark: \`${r.size}\`

Run ${r.startedAt} with \`npm run bench -- --size ${r.size}\` in ${f(r.totalSeconds, 0)} s, server built
from commit \`${r.commit}\`.
Machine: ${mc.cores} × ${mc.cpu}, ${mc.totalMemoryGiB} GiB RAM, Node ${mc.node}, ${mc.os}.
The harness (client and references) and the server share these cores.

Data: ${int(d.records)} records × ${d.dimension} dimensions, cosine, seeded synthetic embeddings
(${d.clusters} Gaussian clusters whose centres span a ${SHAPE.globalRank}-dimensional subspace, a rank-${SHAPE.localRank} spread
per cluster (scale ${SHAPE.localSpread}) plus isotropic noise (scale ${SHAPE.noise}), unit-normalised, float32). Metadata: \`bucket\` (integer,
each of 0..999 held by exactly 1/1000 of the records), \`tag\` (10 strings), \`labels\` (list of
strings). ${d.queries} held-out queries from the same distribution; exact ground truth by brute
force in the harness (${f(d.groundTruthSeconds, 1)} s). Request bodies are \`JSON.stringify\` of the
values, as clients send them (17-digit numbers).

## Headline

${markdown(headlineTable(r))}

${ratiosText(r).map((s) => `- ${s}`).join('\n')}

![recall against QPS](${svgName})

Conifer is measured over HTTP on loopback (JSON encode, request, server, JSON decode); the
references run in the harness process with no HTTP at all, on one thread. The bare
\`node:http\` round trip is the floor any HTTP server pays on this machine with this client.

${clientSection(r)}## Queries

\`*\` after the query count: the phase stopped at its time bound (${r.size} phases are bounded)
before running every query. "short": answers with fewer than min(topK, matching records)
matches. "filter violations": matches whose metadata does not satisfy the filter. Every
phase runs warm: ${denseWarmUpText(r)}, and the
sparse-only and hybrid ones each follow ${warmUpText(r)}.

${markdown(queryTable(r))}

Filtered search against the two pure strategies, both in-process on the same data: an exact
scan of only the matching records, and hnswlib's graph walk with the filter as its callback
(at the ef whose unfiltered recall first reaches 0.99, ${r.query.filtered[0]?.hnswlibFilterCallback.ef ?? 'n/a'}).

${markdown(filterStrategyTable(r))}

## Ingest

Largest batches the limits allow (≤ 1000 vectors and ≤ 2,000,000 bytes per request); the
first ~30 % of the records at concurrency 1, the rest at concurrency 4, into one index.
Every body is encoded (\`JSON.stringify\` of the values, as clients send) before the clock
starts (the harness took ${r.ingest.encodeSeconds.toFixed(1)} s for the ${r.data.records.toLocaleString('en-US')} records), so
the phase measures the server: a real client encodes on its own machine, and on these
shared cores encoding while sending took about one of the two. The sparse and hybrid upserts
below are sent the same way.

${markdown(ingestTable(r))}

${importSection(r)}${twoIndexSection(r)}## Other operations and server responsiveness

The latency of \`GET /health\` (probed every 20 ms from its own thread and connection in the
harness, so the harness's own work does not delay the probe)
while the server is busy stands in for the server's event-loop delay — a proxy, not the
delay itself (\`node dist/bench/ingest-health.js\` prints both).${ingestQueryNote(r)}

${markdown(opsTable(r))}

## Ingest visibility, restart, memory

"Fully indexed": ${r.ingest.fullyIndexedMethod}. Memory is the server process's VmRSS from
/proc (engine worker included).

${markdown(otherTable(r))}

## hnswlib-node reference

M=${h.M}, efConstruction=${h.efConstruction}, hnswlib build: ${h.build ?? 'package'} (the one the engine runs), built in ${f(h.buildSeconds, 1)} s
(${int(h.buildVectorsPerSecond)} vectors/s, one thread); searchKnn with k=10.${r.references.hnswlibBeside ? `
Swept twice on the same graph: "at start" right after the build, before the server started;
"beside" right after Conifer's unfiltered query phases (the headline's reference; the server
idle meanwhile). The recall of the two sweeps is the same search, so it is shown once.` : ''}

${markdown(sweepTable(r))}

Every figure is in the JSON file next to this report.
`;
}

/** Pushes right-aligned labels apart vertically (13 px lines) where their boxes would overlap. */
function placeLabels(labels: { x: number; y: number; text: string }[]): void {
  labels.sort((a, b) => a.y - b.y);
  const width = (t: string): number => t.length * 6;
  for (let i = 0; i < labels.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = labels[j];
      const b = labels[i];
      const overlapX = a.x - width(a.text) < b.x && b.x - width(b.text) < a.x;
      if (overlapX && Math.abs(b.y - a.y) < 13) b.y = a.y + 13;
    }
  }
}

export function recallQpsSvg(r: BenchResult): string {
  const W = 760;
  const H = 460;
  const m = { left: 80, right: 30, top: 50, bottom: 60 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const sweep = headlineSweep(r);
  const conifer = [
    { label: 'Conifer, 1 client', recall: r.query.unfiltered.c1.recall, qps: r.query.unfiltered.c1.qps },
    { label: 'Conifer, 8 clients', recall: r.query.unfiltered.c8.recall, qps: r.query.unfiltered.c8.qps },
  ];
  const bf = r.references.bruteForce;
  const recalls = [...sweep.map((p) => p.recall), ...conifer.map((p) => p.recall), bf.recall].filter(Number.isFinite);
  const qpss = [...sweep.map((p) => p.qps), ...conifer.map((p) => p.qps), bf.qps].filter((v) => Number.isFinite(v) && v > 0);
  const xMin = Math.max(0, Math.floor((Math.min(...recalls) - 0.02) * 20) / 20);
  const xMax = 1.0 + (1.0 - xMin) * 0.03; // room for the markers at recall 1.0
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...qpss)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...qpss)) + 1e-9);
  const x = (v: number): number => m.left + ((v - xMin) / (xMax - xMin)) * pw;
  const y = (v: number): number => m.top + ph - ((Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * ph;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${W / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">Recall@10 vs queries per second — ${r.size} (${r.data.records.toLocaleString('en-US')} × ${r.data.dimension}, cosine)</text>`);
  // Grid and ticks.
  for (let e = Math.log10(yMin); e <= Math.log10(yMax) + 1e-9; e++) {
    const v = 10 ** e;
    out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${f(y(v), 1)}" y2="${f(y(v), 1)}" stroke="#ccc"/>`);
    out.push(`<text x="${m.left - 8}" y="${f(y(v) + 4, 1)}" text-anchor="end">${v >= 1 ? v.toLocaleString('en-US') : v}</text>`);
    for (const mult of [2, 5]) {
      const mv = v * mult;
      if (mv < yMax) out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${f(y(mv), 1)}" y2="${f(y(mv), 1)}" stroke="#eee"/>`);
    }
  }
  const step = xMax - xMin > 0.5 ? 0.1 : 0.05;
  for (let v = xMin; v <= 1.0 + 1e-9; v += step) {
    out.push(`<line x1="${f(x(v), 1)}" x2="${f(x(v), 1)}" y1="${m.top}" y2="${m.top + ph}" stroke="#eee"/>`);
    out.push(`<text x="${f(x(v), 1)}" y="${m.top + ph + 18}" text-anchor="middle">${v.toFixed(2)}</text>`);
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${m.left + pw / 2}" y="${H - 18}" text-anchor="middle" font-size="13">recall@10 (against exact search)</text>`);
  out.push(`<text transform="translate(20 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle" font-size="13">queries per second (log scale)</text>`);
  // Labels sit left of their points (text-anchor end) and are pushed apart below.
  const labels: { x: number; y: number; text: string; color: string }[] = [];
  // hnswlib sweep.
  const pts = sweep.filter((p) => Number.isFinite(p.recall) && p.qps > 0);
  out.push(`<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="${pts.map((p) => `${f(x(p.recall), 1)},${f(y(p.qps), 1)}`).join(' ')}"/>`);
  for (const p of pts) {
    out.push(`<circle cx="${f(x(p.recall), 1)}" cy="${f(y(p.qps), 1)}" r="4" fill="#1f77b4"/>`);
    labels.push({ x: x(p.recall) - 8, y: y(p.qps) + 4, text: `ef ${p.ef}`, color: '#1f77b4' });
  }
  // Brute force and Conifer.
  const bx = x(bf.recall);
  const by = y(bf.qps);
  out.push(`<rect x="${f(bx - 5, 1)}" y="${f(by - 5, 1)}" width="10" height="10" fill="#2ca02c"/>`);
  labels.push({ x: bx - 10, y: by + 4, text: `brute force, 1 thread: ${bf.qps.toFixed(1)} QPS`, color: '#2ca02c' });
  out.push(`<polyline fill="none" stroke="#d62728" stroke-width="2" stroke-dasharray="4 3" points="${conifer.map((p) => `${f(x(p.recall), 1)},${f(y(p.qps), 1)}`).join(' ')}"/>`);
  for (const p of conifer) {
    const cx = x(p.recall);
    const cy = y(p.qps);
    out.push(`<path d="M ${f(cx, 1)} ${f(cy - 7, 1)} L ${f(cx + 7, 1)} ${f(cy, 1)} L ${f(cx, 1)} ${f(cy + 7, 1)} L ${f(cx - 7, 1)} ${f(cy, 1)} Z" fill="#d62728"/>`);
    labels.push({ x: cx - 10, y: cy + 4, text: `${p.label}: ${p.qps.toFixed(1)} QPS`, color: '#d62728' });
  }
  placeLabels(labels);
  for (const l of labels) {
    out.push(`<text x="${f(l.x, 1)}" y="${f(l.y, 1)}" text-anchor="end" fill="${l.color}" font-size="11">${l.text}</text>`);
  }
  // Legend (bottom left).
  const lx = m.left + 14;
  const ly = m.top + ph - 70;
  out.push(`<rect x="${lx - 8}" y="${ly - 14}" width="300" height="70" fill="white" stroke="#999"/>`);
  out.push(`<line x1="${lx}" x2="${lx + 24}" y1="${ly}" y2="${ly}" stroke="#1f77b4" stroke-width="2"/><circle cx="${lx + 12}" cy="${ly}" r="4" fill="#1f77b4"/>`);
  out.push(`<text x="${lx + 32}" y="${ly + 4}">hnswlib-node in-process, ef sweep (M=16)</text>`);
  out.push(`<path d="M ${lx + 12} ${ly + 13} L ${lx + 19} ${ly + 20} L ${lx + 12} ${ly + 27} L ${lx + 5} ${ly + 20} Z" fill="#d62728"/>`);
  out.push(`<text x="${lx + 32}" y="${ly + 24}">Conifer over HTTP, 1 and 8 clients</text>`);
  out.push(`<rect x="${lx + 7}" y="${ly + 35}" width="10" height="10" fill="#2ca02c"/>`);
  out.push(`<text x="${lx + 32}" y="${ly + 44}">exact brute force in-process</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}

export function writeReports(r: BenchResult, outDir: string): { json: string; md: string; svg: string; table: string } {
  const stamp = r.startedAt.replace(/[:.]/g, '-');
  const json = join(outDir, `${r.size}-${stamp}.json`);
  const svgName = `${r.size}-recall-qps.svg`;
  const svg = join(outDir, svgName);
  const md = join(outDir, `${r.size}.md`);
  writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  writeFileSync(svg, recallQpsSvg(r));
  writeFileSync(md, markdownReport(r, svgName));
  return { json, md, svg, table: stdoutTable(r) };
}
