// The benchmark: generates the data, computes exact ground truth, measures the
// references (hnswlib-node in-process, brute force), then starts the real server, drives
// it over HTTP as a client would, and writes the report. `run.ts` is the CLI around it.
import { mkdtempSync, rmSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir, cpus, totalmem, platform, release, arch } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  SIZES,
  BUCKETS,
  generateDense,
  generateSparse,
  id,
  indexOfId,
  metadataOf,
  type DenseData,
  type SizeName,
  type Sparse,
  type SparseData,
} from './data.js';
import { Client, NodeHttpClient, runLoad, type HttpClient } from './http.js';
import { memoryOf, startServer, type ServerProcess } from './server-process.js';
import { startProbe, type Probe } from './probe.js';
import { runBruteForce, runExactFiltered, runHnsw, runHnswFiltered, sweepHnsw, type BruteResult, type FilteredHnswPoint, type HnswPoint, type HnswResult } from './references.js';
import { recallAtK, summarize, mean, type LatencySummary } from './stats.js';
import { denseTruth, dot, sparseDot, sparseTruth, truthOf, FILTERS, type DenseTruth } from './truth.js';
import { writeReports } from './report.js';
import { runImportPhase, writeImportSource, type ImportPhase } from './import-phase.js';
import { measureEcho, type EchoFigures } from './echo-server.js';
import { QUIET_MS } from '../src/engine/worker/quiet-release.js';

export const TOP_K = 10;
// How long after the dense index is fully indexed its memory is read: the engine's quiet
// period, a second for the release itself, and two more because the engine writes the
// index's first graph snapshot when indexing ends (~1 s at 100k × 384, on pool threads),
// which is work too: the thread releases memory QUIET_MS after it.
const SETTLE_MS = QUIET_MS + 3000;
/** settle(): the longest it waits for the server's RSS to hold steady after SETTLE_MS. */
const SETTLE_MAX_MS = 60_000;

/** Unmeasured rounds (a pass at concurrency 8, then one at 1) before the unfiltered dense phases (denseWarmUp()). */
const DENSE_WARM_UP_ROUNDS = 5;
/** The fewest unmeasured passes over the sparse-only and hybrid queries before they are measured (warmUp()). */
const MIN_WARM_UP_PASSES = 5;
const UPSERT_MAX_BYTES = 2_000_000;
const UPSERT_MAX_VECTORS = 1000;

export interface BenchOptions {
  size: SizeName;
  /** Where the .json, .md and .svg go (default bench/results next to the sources). */
  outDir: string;
  /** Overrides the number of held-out queries. */
  queries?: number;
  log?: (line: string) => void;
}

export interface QueryPhase {
  concurrency: number;
  queries: number;
  qps: number;
  latency: LatencySummary;
  recall: number;
  /** Answers with fewer than min(topK, matching records) matches. */
  shortAnswers: number;
  /** Matches whose metadata does not satisfy the filter. */
  filterViolations: number;
  /** True when the phase hit its wall-time bound before running every query. */
  stoppedEarly: boolean;
  /** The harness's own CPU (user + system) while the queries ran, per query. */
  harnessCpuUsPerQuery: number;
}

export interface IngestPhase {
  concurrency: number;
  vectors: number;
  requests: number;
  seconds: number;
  vectorsPerSecond: number;
  megabytesPerSecond: number;
  meanBatchVectors: number;
  meanBatchBytes: number;
  latency: LatencySummary;
}

export interface FilterResult {
  label: string;
  filter: string;
  selectivity: number;
  matchingRecords: number;
  c1: QueryPhase;
  c8: QueryPhase;
  /** hnswlib-node in-process with the filter as its search callback (the pure graph strategy). */
  hnswlibFilterCallback: FilteredHnswPoint;
  /** Exact scan of only the matching records, in-process (the pure scan strategy). */
  exactOverMatches: { queries: number; recall: number; qps: number; latency: LatencySummary };
}

/** The engine's memory per vector by structure, in bytes (bench/engine-memory.ts --json). */
export interface EngineMemory {
  count: number;
  dim: number;
  ids: number;
  vectors: number;
  metadata: number;
  graph: number;
  total: number;
  engineBuildSeconds: number;
}

/**
 * Records the engine-memory breakdown is measured at, at most: the medium size's count
 * (its graph build takes about as long as the run's hnswlib reference build). Far fewer
 * records would not do: hnswlib's fixed allocations (65,536 label locks, visited lists)
 * then weigh per vector (at 20k × 384 the graph read 2,232 B against 1,658 B at 100k).
 */
const ENGINE_MEMORY_MAX_RECORDS = 100_000;

/**
 * Runs bench/engine-memory.ts in its own process (it needs --expose-gc and a heap that
 * holds nothing else) on this size's data shape, capped at ENGINE_MEMORY_MAX_RECORDS.
 */
function measureEngineMemory(records: number, dim: number): EngineMemory {
  const script = new URL('./engine-memory.js', import.meta.url).pathname;
  const count = String(Math.min(records, ENGINE_MEMORY_MAX_RECORDS));
  const out = execFileSync(process.execPath, ['--expose-gc', script, count, String(dim), '--json'], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop() ?? '') as EngineMemory;
}

export interface BenchResult {
  size: SizeName;
  startedAt: string;
  totalSeconds: number;
  machine: { cpu: string; cores: number; totalMemoryGiB: number; node: string; os: string };
  /** The commit the server was built from ("+dirty" when src/ had uncommitted changes). */
  commit: string;
  data: {
    records: number;
    dimension: number;
    metric: 'cosine';
    queries: number;
    clusters: number;
    generateSeconds: number;
    groundTruthSeconds: number;
    sparseRecords: number;
    sparseQueries: number;
  };
  references: {
    /** Built and swept before the server starts; `sweep` is the start-of-run measurement. */
    hnswlib: HnswResult;
    /**
     * The same sweep of the same graph, run right after Conifer's unfiltered query phases:
     * the headline's reference (older reports: absent, the headline used hnswlib.sweep).
     */
    hnswlibBeside?: HnswPoint[];
    bruteForce: BruteResult;
    /** A bare node:http server's round trip for the same query bodies, same client: the HTTP floor. */
    httpEcho: LatencySummary;
  };
  ingest: {
    c1: IngestPhase;
    c4: IngestPhase;
    /** The harness's time to encode every upsert body, before the clock started (upsertBatches). */
    encodeSeconds: number;
    totalSeconds: number;
    /** From the first upsert to the moment stats count every record and a query finds the last one. */
    fullyIndexedSeconds: number;
    /** From the last acknowledged upsert until a query returns the last record and stats count all. */
    visibleAfterLastAckMs: number;
    /** How "fully indexed" was decided. */
    fullyIndexedMethod: string;
    /** fullyIndexedSeconds ÷ hnswlib's single-thread build time of the same data. */
    indexedToHnswBuildRatio: number;
    /** Queries run after the last acknowledged upsert while records were still outside a graph. */
    duringIndexing: { queries: number; recall: number | null; shortAnswers: number; unindexedAtStart: number };
  };
  /**
   * unfilteredWarmUp: each unmeasured round before the unfiltered phases (denseWarmUp());
   * absent in older reports, whose unfiltered phases followed 20 unmeasured queries.
   * Filtered levels each follow one unmeasured pass at concurrency 8 in reports that have it.
   */
  query: { unfiltered: { c1: QueryPhase; c8: QueryPhase }; filtered: FilterResult[]; unfilteredWarmUp?: DenseWarmUpRound[] };
  /** The unfiltered phases and the bare server again with Node's http.request client (absent in older reports). */
  clients?: ClientComparison;
  /** Bulk import (POST /bulk/imports) of the dense records from Parquet, versus ingest.c4. */
  bulkImport?: ImportPhase;
  /**
   * Issue 15's "one busy index does not stall the others": the dense index and the imported
   * copy of it queried at concurrency 1 and 4 each, first alone, then both at once (absent in older reports).
   */
  twoIndexes?: TwoIndexPhase[];
  /**
   * rssGrowthBytesPerRecord: server RSS growth over the sparse ingest ÷ records (store,
   * engine values and postings, ids), read as the last upsert is answered; absent in older
   * reports. rssAtRestBytesPerRecord: the same once at rest (settle(): the engine has trimmed
   * its postings and handed freed memory back), both ends read at rest; absent in older
   * reports.
   */
  /** warmUpP50Ms: p50 of each unmeasured pass before `query` (warmUp()); absent in older reports. */
  sparse: { records: number; upsertVectorsPerSecond: number; query: QueryPhase; warmUpP50Ms?: number[]; rssGrowthBytesPerRecord?: number; rssAtRestBytesPerRecord?: number };
  hybrid: {
    records: number;
    upsertVectorsPerSecond: number;
    /** Last hybrid upsert acknowledged → every record in a graph (the queries run after). */
    indexedAfterAckSeconds: number;
    query: QueryPhase;
    /** As sparse.warmUpP50Ms. */
    warmUpP50Ms?: number[];
  };
  operations: { fetch10: LatencySummary; fetch100: LatencySummary; describeIndexStats: LatencySummary; listPage: LatencySummary };
  restart: {
    stopSeconds: number;
    listeningMs: number;
    readyMs: number;
    firstCorrectQueryMs: number;
    recordsAfterRestart: number;
    /**
     * Process start until /ready is 200 AND /metrics reports conifer_engine_unindexed_records
     * = 0 for every index: searchable at full speed (/ready does not wait for graphs).
     */
    searchableMs: number;
    /** The same restart with every graph snapshot removed: the engine rebuilds from the record stores. */
    rebuild?: { readyMs: number; firstCorrectQueryMs: number; searchableMs: number; snapshotFilesRemoved: number };
    /** readyMs ÷ rebuild.readyMs. */
    readyToRebuildRatio?: number;
    /** searchableMs ÷ rebuild.searchableMs (target ≤ 15 %). */
    searchableToRebuildRatio?: number;
  };
  memory: {
    rssEmptyBytes: number;
    /** The moment every record is in a graph; absent in older reports. */
    rssAtIndexedBytes?: number;
    /** At rest after that (settle(): the engine has handed freed heap memory back); older reports: at the moment indexed. */
    rssAfterLoadBytes: number;
    bytesPerVector: number;
    rawFloat32BytesPerVector: number;
    peakRssBytes: number;
    rssAfterRestartBytes: number;
    /** The engine's part of it, by structure (bench/engine-memory.ts, in its own process); absent in older reports. */
    engineParts?: EngineMemory;
  };
  /** GET /health latency while the server is busy: a proxy for its event-loop delay (not exposed by the server). */
  healthProbe: { idle: LatencySummary; duringIngest: LatencySummary; duringQueries: LatencySummary };
  /**
   * One unfiltered query (the first held-out one) sent every `intervalMs` from its own thread
   * and connection during the dense ingest, and the same query idle once the index is
   * indexed and warm (issue 15: p50 during the ingest ≤ 2× idle). Absent in older reports.
   */
  ingestQueryProbe?: { intervalMs: number; duringIngest: LatencySummary; idle: LatencySummary };
  headline: {
    coniferRecall: number;
    coniferP50Ms: number;
    coniferQpsC1: number;
    coniferQpsC8: number;
    hnswEf: number;
    hnswRecall: number;
    /** Whether some ef reached Conifer's recall (else the best-recall ef is used). */
    hnswReachedConiferRecall: boolean;
    hnswP50Ms: number;
    hnswQps: number;
    p50Ratio: number;
    qpsRatio: number;
    qpsRatioC8: number;
    bruteForceP50Ms: number;
    p50RatioToBruteForce: number;
    echoP50Ms: number;
    /** (Conifer p50 − hnswlib p50) ÷ the bare node:http round trip p50. */
    overheadInEchoRoundTrips: number;
    /** The bare node:http server's QPS at concurrency 8 (absent in reports before it was measured). */
    echoQpsC8?: number;
  };
}

interface Match {
  id: string;
  score: number;
  metadata?: Record<string, unknown>;
}

function matchesOf(body: unknown): Match[] {
  const m = (body as { matches?: Match[] } | undefined)?.matches;
  if (!Array.isArray(m)) throw new Error(`query answer without matches: ${JSON.stringify(body).slice(0, 200)}`);
  return m;
}

function arr(a: Float32Array, i: number, dim: number): number[] {
  return Array.from(a.subarray(i * dim, (i + 1) * dim));
}

function sparseJson(s: Sparse): { indices: number[]; values: number[] } {
  return { indices: Array.from(s.indices), values: Array.from(s.values) };
}

/** Health probe: GET /health every 20 ms on its own thread and connection until stopped (probe.ts). */
const startHealthProbe = (url: string, apiKey: string): Probe => startProbe({ method: 'GET', url: `${url}/health`, apiKey, intervalMs: 20 });

/**
 * The pause between the queries probed during the dense ingest. Each such query also scans
 * the records not yet in a graph, several ms of the engine's time during a medium ingest,
 * taken from graph inserts, so the probe is kept sparse. The first medium run with it
 * (2026-11-28) ingested at 10,400 vectors/s at c4 (10,700 and 9,417 in the two runs
 * before it, without) and was fully indexed in 0.96× hnswlib's build time.
 */
const INGEST_QUERY_INTERVAL_MS = 100;

/**
 * Upsert bodies for records [from, until): the largest batches the limits allow (≤ 1000
 * vectors, ≤ 2,000,000 bytes), each `{"vectors":[…]}` with the records as `encode` writes
 * them (JSON.stringify of the values, as clients send), as bytes.
 *
 * Built before a phase's clock starts: on this shared 2-core machine, encoding the medium
 * ingest's 100,000 records took the harness ~14 s of CPU, about a core for the whole
 * phase, so an ingest that encoded as it sent measured the harness as much as the server.
 * A real client encodes on its own machine.
 */
export function upsertBatches(encode: (i: number) => string, from: number, until: number): UpsertBatch[] {
  const batches: UpsertBatch[] = [];
  let cursor = from;
  let pending: string | undefined;
  while (pending !== undefined || cursor < until) {
    const parts: string[] = [];
    const first = pending !== undefined ? cursor - 1 : cursor;
    let bytes = '{"vectors":[]}'.length;
    while (parts.length < UPSERT_MAX_VECTORS && (pending !== undefined || cursor < until)) {
      const rec = pending ?? encode(cursor++);
      pending = undefined;
      const len = Buffer.byteLength(rec) + (parts.length ? 1 : 0);
      if (bytes + len > UPSERT_MAX_BYTES) {
        if (parts.length === 0) throw new Error(`record ${cursor - 1} alone exceeds ${UPSERT_MAX_BYTES} bytes`);
        pending = rec;
        break;
      }
      parts.push(rec);
      bytes += len;
    }
    batches.push({ first, count: parts.length, body: Buffer.from(`{"vectors":[${parts.join(',')}]}`) });
  }
  return batches;
}

export interface UpsertBatch {
  /** The first record in the batch; the batch holds [first, first + count). */
  first: number;
  count: number;
  body: Buffer;
}

/**
 * Sends `batches` in order, `concurrency` requests in flight, stopping once every batch is
 * acknowledged or at `maxMs`. `next`: the index of the first batch not sent.
 */
export async function ingest(
  client: Client,
  host: string,
  batches: readonly UpsertBatch[],
  concurrency: number,
  maxMs: number,
  mustFinish: boolean,
): Promise<{ phase: IngestPhase; next: number }> {
  let cursor = 0;
  const latencies: number[] = [];
  let vectors = 0;
  let bytes = 0;
  client.closeIdle(); // the batches were just encoded: the connections may have idled long
  const started = performance.now();
  const deadline = started + maxMs;
  const lane = async (): Promise<void> => {
    while (cursor < batches.length) {
      if (performance.now() > deadline) {
        if (mustFinish) throw new Error(`ingest did not finish within ${Math.round(maxMs / 1000)} s`);
        return;
      }
      const batch = batches[cursor++];
      const r = await client.request('POST', `${host}/vectors/upsert`, batch.body);
      if (r.status !== 200) throw new Error(`upsert answered ${r.status}: ${r.text.slice(0, 300)}`);
      latencies.push(r.ms);
      vectors += batch.count;
      bytes += batch.body.length;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  return {
    next: cursor,
    phase: {
      concurrency,
      vectors,
      requests: latencies.length,
      seconds,
      vectorsPerSecond: vectors / seconds,
      megabytesPerSecond: bytes / 1e6 / seconds,
      meanBatchVectors: vectors / Math.max(1, latencies.length),
      meanBatchBytes: bytes / Math.max(1, latencies.length),
      latency: summarize(latencies),
    },
  };
}

/**
 * What the HTTP client costs the figures: the bench's client (http.ts) against Node's own
 * http.request client, which the harness used before. The harness process's CPU per query
 * at concurrency 8 is the client's (and the recall check's) share of the shared cores.
 */
export interface ClientComparison {
  bench: { harnessCpuUsPerQueryC8: number };
  nodeHttp: { c1: QueryPhase; c8: QueryPhase; echo: EchoFigures; harnessCpuUsPerQueryC8: number };
}

export interface DenseWarmUpRound {
  c8Qps: number;
  c1P50Ms: number;
}

export interface TwoIndexPhase {
  concurrencyPerIndex: number;
  alone: [QueryPhase, QueryPhase];
  together: [QueryPhase, QueryPhase];
}

interface Evaluation {
  recall: number;
  short: boolean;
  violations: number;
}

/** User + system µs of a process.cpuUsage() difference. */
function cpuMicros(used: NodeJS.CpuUsage): number {
  return used.user + used.system;
}

async function queryPhase(
  client: HttpClient,
  host: string,
  bodies: readonly string[],
  concurrency: number,
  maxMs: number,
  evaluate: (q: number, matches: Match[]) => Evaluation,
): Promise<QueryPhase> {
  // Answers are kept as text and checked (parsed, recall, filters) after the clock stops:
  // the harness shares the server's cores, and checking each answer as it came took
  // ~170 µs of CPU per query from them (medium, 384-d, at concurrency 8).
  const answers: { q: number; text: string }[] = [];
  const cpuBefore = process.cpuUsage();
  const load = await runLoad(concurrency, bodies.length, maxMs, async (q) => {
    const r = await client.request('POST', `${host}/query`, bodies[q]);
    if (r.status !== 200) throw new Error(`query answered ${r.status}: ${r.text.slice(0, 300)}`);
    answers.push({ q, text: r.text });
    return r.ms;
  });
  const harnessCpuUs = cpuMicros(process.cpuUsage(cpuBefore));
  const evals = answers.map(({ q, text }) => evaluate(q, matchesOf(JSON.parse(text))));
  return {
    concurrency,
    queries: load.completed,
    qps: (load.completed * 1000) / load.wallMs,
    latency: summarize(load.latencies),
    recall: mean(evals.map((e) => e.recall)),
    shortAnswers: evals.filter((e) => e.short).length,
    filterViolations: evals.reduce((a, e) => a + e.violations, 0),
    stoppedEarly: load.stoppedEarly,
    harnessCpuUsPerQuery: harnessCpuUs / Math.max(1, load.completed),
  };
}

/**
 * Unmeasured passes over `bodies` at concurrency 1 before the sparse-only and hybrid
 * phases, so every query table compares warm paths: as many queries as the dense phases'
 * unmeasured rounds run (`warmUpQueries`, 10,000 in a medium run; at least
 * MIN_WARM_UP_PASSES passes). On a fresh index the p50 keeps falling for thousands of
 * queries (JIT tier-up and caches): on a new 100k sparse index, passes of 200 gave p50 3.7,
 * 3.2, 3.0 ms ... 2.2 ms by the tenth; and a server 15 s after a 100k sparse ingest (tmp
 * script, rounds of 400 queries) went from 1.42 to 0.93-0.96 ms over 4,000 queries, the
 * engine worker's CPU per query from 816 to ~690 µs and the HTTP thread's scavenges from
 * 42 to 12 a round, with no full collection among them. Five passes of 200, as until
 * 2026-11-29, measured the sparse phases on that ramp while the dense ones ran warm.
 * Returns each pass's p50 (the report shows them).
 */
async function warmUp(
  client: Client,
  host: string,
  bodies: readonly string[],
  warmUpQueries: number,
  maxMs: number,
  evaluate: (q: number, matches: Match[]) => Evaluation,
): Promise<number[]> {
  const passes = Math.max(MIN_WARM_UP_PASSES, Math.ceil(warmUpQueries / bodies.length));
  const p50s: number[] = [];
  for (let pass = 0; pass < passes; pass++) p50s.push((await queryPhase(client, host, bodies, 1, maxMs, evaluate)).latency.p50Ms);
  return p50s;
}

/**
 * Unmeasured rounds over the unfiltered dense queries, each a pass at concurrency 8 and one
 * at 1, before those phases are measured. The queries run while indexing are all at
 * concurrency 1 (and search the tail exactly), and a freshly started server takes thousands
 * of queries to reach its steady speed. Measured here (100k × 384, passes of 1,000
 * alternating c1 and c8 from a fresh index right after indexing, per-thread CPU read around
 * each pass): c8 gave 1,085, 1,571, 1,816, 2,114 and 2,794 QPS in its first five passes and
 * 2,145–2,859 after; the server's HTTP thread went from 446 to 194–242 µs of CPU per query,
 * the engine worker from 470 to 316–362 µs, and V8's helper threads from ~280 to ~20 µs.
 * Part of it is JIT tier-up (--trace-opt: 89 optimisations and 28 deoptimisations of Node's
 * HTTP and stream internals in a first pass, 5 in a third; an earlier tier-up
 * (--interrupt-budget) quietened the helpers from the second pass but left the ramp).
 * A server under steady traffic runs warm, as hnswlib's reference, native code, does after
 * its 20 warm-up queries. Returns each round's c8 QPS and c1 p50 (the report shows them).
 */
async function denseWarmUp(client: Client, host: string, bodies: readonly string[], maxMs: number, evaluate: (q: number, matches: Match[]) => Evaluation): Promise<DenseWarmUpRound[]> {
  const rounds: DenseWarmUpRound[] = [];
  for (let round = 0; round < DENSE_WARM_UP_ROUNDS; round++) {
    const c8 = await queryPhase(client, host, bodies, 8, maxMs, evaluate);
    const c1 = await queryPhase(client, host, bodies, 1, maxMs, evaluate);
    rounds.push({ c8Qps: c8.qps, c1P50Ms: c1.latency.p50Ms });
  }
  return rounds;
}

/**
 * The same queries on two indexes holding the same data: each alone, then both at once
 * (each index's phase runs its own `concurrency` lanes; the two phases start together).
 */
async function twoIndexPhase(
  client: Client,
  hosts: [string, string],
  concurrency: number,
  bodies: readonly string[],
  maxMs: number,
  evaluate: (q: number, matches: Match[]) => Evaluation,
): Promise<TwoIndexPhase> {
  const a = await queryPhase(client, hosts[0], bodies, concurrency, maxMs, evaluate);
  const b = await queryPhase(client, hosts[1], bodies, concurrency, maxMs, evaluate);
  const together = await Promise.all(hosts.map((h) => queryPhase(client, h, bodies, concurrency, maxMs, evaluate)));
  return { concurrencyPerIndex: concurrency, alone: [a, b], together: [together[0], together[1]] };
}

/**
 * Until the server's memory is at rest: SETTLE_MS, then until its RSS has stayed within 1 %
 * for QUIET_MS + 1 s (read every second), at most SETTLE_MAX_MS more. The engine worker
 * releases memory QUIET_MS after its last background work, and after an ingest that work
 * (trimming the postings, finishing a graph) can outlast a fixed wait on a slow machine:
 * the medium report of 3dccb41 read its sparse records "at rest" at 4,460 B each, above the
 * 4,306 B right after the ingest, where readings every few seconds of the same ingest (two
 * builds, tmp script) were ~3.9-4.0 KB at +5 s, 3.5-3.7 KB at +8 s and 3.25-3.65 KB at +30 s.
 */
async function settle(pid: number): Promise<void> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const deadline = performance.now() + SETTLE_MAX_MS;
  let steady = memoryOf(pid).rssBytes;
  let steadySince = performance.now();
  while (performance.now() - steadySince < QUIET_MS + 1000 && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1000));
    const rss = memoryOf(pid).rssBytes;
    // Rising counts too: a trim's new buffers come before the old ones are released.
    if (Math.abs(rss - steady) > steady * 0.01) {
      steady = rss;
      steadySince = performance.now();
    }
  }
}

export async function createIndex(client: Client, url: string, body: Record<string, unknown>): Promise<string> {
  const spec = { serverless: { cloud: 'aws', region: 'us-east-1' } };
  const r = await client.json('POST', `${url}/indexes`, JSON.stringify({ ...body, spec }));
  const host = (r.body as { host?: unknown }).host;
  if (typeof host !== 'string') throw new Error(`index record without host: ${JSON.stringify(r.body)}`);
  return host;
}

async function describeHost(client: Client, url: string, name: string): Promise<string> {
  const r = await client.json('GET', `${url}/indexes/${name}`);
  const host = (r.body as { host?: unknown }).host;
  if (typeof host !== 'string') throw new Error(`index record without host: ${JSON.stringify(r.body)}`);
  return host;
}

async function totalCount(client: Client, host: string): Promise<number> {
  const r = await client.json('POST', `${host}/describe_index_stats`, '{}');
  const b = r.body as { totalVectorCount?: unknown; totalRecordCount?: unknown };
  return Number(b.totalVectorCount ?? b.totalRecordCount);
}

/**
 * Records not yet in a graph, summed over every index, from the server's /metrics
 * (`conifer_engine_unindexed_records`); NaN when the server does not expose it.
 */
async function unindexedRecords(client: Client, url: string): Promise<number> {
  const r = await client.request('GET', `${url}/metrics`);
  if (r.status !== 200) return Number.NaN;
  let sum = 0;
  let seen = false;
  for (const line of r.text.split('\n')) {
    const m = /^conifer_engine_unindexed_records(?:\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
    if (m) {
      sum += Number(m[1]);
      seen = true;
    }
  }
  return seen ? sum : Number.NaN;
}

/**
 * Polls /metrics only (a query would compete with the graph work it waits for) until
 * conifer_engine_unindexed_records is 0 for every index; returns performance.now() then.
 * Throws when the server exposes no such metric or it stays above 0 for `maxMs`.
 */
async function waitFullyIndexed(client: Client, url: string, maxMs: number): Promise<number> {
  const deadline = performance.now() + maxMs;
  for (;;) {
    const left = await unindexedRecords(client, url);
    if (Number.isNaN(left)) throw new Error('the server exposes no conifer_engine_unindexed_records');
    if (left === 0) return performance.now();
    if (performance.now() > deadline) throw new Error(`${left} records still outside a graph after ${Math.round(maxMs / 1000)} s`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/**
 * Removes every file of every index directory except the record store (records.db and its
 * WAL/SHM): what is left is exactly what a rebuild starts from. Returns the files removed.
 */
function removeSnapshots(dataDir: string): number {
  let removed = 0;
  const root = join(dataDir, 'indexes');
  for (const indexId of readdirSync(root)) {
    for (const entry of readdirSync(join(root, indexId), { withFileTypes: true })) {
      if (/^records\.db(-wal|-shm)?$/.test(entry.name)) continue;
      rmSync(join(root, indexId, entry.name), { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

async function timed(count: number, maxMs: number, op: (i: number) => Promise<number>): Promise<LatencySummary> {
  const load = await runLoad(1, count, maxMs, op);
  return summarize(load.latencies);
}

export function commitOf(): string {
  try {
    const cwd = new URL('../../', import.meta.url).pathname;
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd, encoding: 'utf8' }).trim();
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown';
  }
}

function pickHnsw(sweep: HnswPoint[], recall: number): { point: HnswPoint; reached: boolean } {
  const reached = sweep.find((p) => p.recall >= recall - 1e-9);
  if (reached) return { point: reached, reached: true };
  let best = sweep[0];
  for (const p of sweep) if (p.recall > best.recall) best = p;
  return { point: best, reached: false };
}

export async function runBenchmark(options: BenchOptions): Promise<BenchResult> {
  const log = options.log ?? ((s: string): void => console.log(s));
  const spec = { ...SIZES[options.size] };
  if (options.queries !== undefined) spec.queries = Math.max(1, Math.floor(options.queries));
  const k = TOP_K;
  const phaseMs = spec.phaseSeconds * 1000;
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    totalMemoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${platform()} ${release()} ${arch()}`,
  };
  log(`Conifer benchmark, size ${spec.name}: ${spec.n} × ${spec.dim}, ${spec.queries} queries, on ${machine.cores} × ${machine.cpu}`);

  // Data and ground truth.
  let t = performance.now();
  const data: DenseData = generateDense(spec, spec.queries);
  const sparse: SparseData = generateSparse(spec.sparseN, spec.sparseQueries);
  const generateSeconds = (performance.now() - t) / 1000;
  log(`data generated in ${generateSeconds.toFixed(1)} s`);
  t = performance.now();
  const truth: DenseTruth = await denseTruth(data, k);
  const groundTruthSeconds = (performance.now() - t) / 1000;
  log(`exact ground truth (${spec.queries} queries × ${FILTERS.length} filters) in ${groundTruthSeconds.toFixed(1)} s`);
  const sparseTruthList = sparseTruth(sparse, undefined, k, spec.sparseQueries);
  const hybridTruthList = sparseTruth(sparse, data, k, spec.sparseQueries);

  // References, before the server exists (so nothing competes for the cores).
  const { result: hnswlib, index: hnswIndex } = runHnsw(data, truth, k, spec.queries, spec.phaseSeconds, (s) => log(s));
  log(`hnswlib: built in ${hnswlib.buildSeconds.toFixed(1)} s; ` + hnswlib.sweep.map((p) => `ef ${p.ef}: recall ${p.recall.toFixed(3)} ${Math.round(p.qps)} QPS`).join(', '));
  const bruteForce = runBruteForce(data, truth, k, spec.queries, Math.min(15, spec.phaseSeconds));
  // The pure graph strategy for filters: hnswlib's in-walk callback, at the ef whose
  // unfiltered recall first reaches 0.99, on each filter.
  const filterEf = (hnswlib.sweep.find((p) => p.recall >= 0.99) ?? hnswlib.sweep[hnswlib.sweep.length - 1]).ef;
  const hnswFiltered = FILTERS.slice(1).map((f, i) => runHnswFiltered(hnswIndex, data, truth, k, i + 1, f.mask, filterEf, Math.min(200, spec.queries), Math.min(10, spec.phaseSeconds)));
  const exactFiltered = FILTERS.slice(1).map((f, i) => runExactFiltered(data, truth, k, i + 1, f.mask, Math.min(200, spec.queries), Math.min(10, spec.phaseSeconds)));
  log(`hnswlib filter callback (ef ${filterEf}): ` + hnswFiltered.map((p, i) => `${FILTERS[i + 1].label} p50 ${p.latency.p50Ms.toFixed(2)} ms recall ${p.recall.toFixed(3)}`).join('; '));
  log(`brute force: ${Math.round(bruteForce.qps)} QPS single-thread, recall ${bruteForce.recall.toFixed(3)}`);

  const scoreOf = (q: number) => (i: number): number => dot(data.queries, q * data.dim, data.vectors, i * data.dim, data.dim);
  const dataDir = mkdtempSync(join(tmpdir(), 'conifer-bench-'));
  // The import phase's Parquet files, written before the server starts (not measured).
  const importRoot = mkdtempSync(join(tmpdir(), 'conifer-bench-import-'));
  const apiKey = `bench-${randomBytes(12).toString('hex')}`;
  const client = new Client(apiKey, 16);
  let server: ServerProcess | undefined;
  try {
    // Absent with the rebuild phases off (SizeSpec.rebuildPhases): the import is one of them.
    const importSource = spec.rebuildPhases ? await writeImportSource(data, importRoot) : undefined;
    if (importSource) log(`import source: ${importSource.files} Parquet files, ${(importSource.bytes / 2 ** 20).toFixed(0)} MiB, written in ${importSource.seconds.toFixed(1)} s`);
    server = await startServer(dataDir, apiKey, undefined, [], { CONIFER_IMPORT_ROOT: importRoot });
    const firstServer = server;
    log(`server pid ${server.pid} ready in ${server.readyMs.toFixed(0)} ms at ${server.url}`);
    // Idle health latency and empty-server memory.
    const idleProbe = await timed(50, 5_000, async () => (await client.request('GET', `${firstServer.url}/health`)).ms);
    const host = await createIndex(client, server.url, { name: 'bench-dense', dimension: data.dim, metric: 'cosine' });
    const rssEmptyBytes = memoryOf(server.pid).rssBytes;

    // Query bodies and their evaluation against the exact ground truth.
    const denseBodies = (level: number): string[] =>
      Array.from({ length: data.queryCount }, (_, q) =>
        JSON.stringify({ vector: arr(data.queries, q, data.dim), topK: k, includeMetadata: true, ...(FILTERS[level].filter ? { filter: FILTERS[level].filter } : {}) }),
      );
    const matchingOf = (level: number): number => (data.n / BUCKETS) * FILTERS[level].mask.reduce((a, v) => a + v, 0);
    const evaluator = (level: number) => {
      const { mask, filter } = FILTERS[level];
      const matching = matchingOf(level);
      return (q: number, matches: Match[]): Evaluation => {
        const ids = matches.map((m) => indexOfId(m.id));
        let violations = 0;
        // Every field is a function of the record's bucket, so the mask decides (and the
        // returned metadata must be the record's own: its bucket must match the id's).
        if (filter) for (const m of matches) if (!(m.metadata?.bucket === data.bucket[indexOfId(m.id)] && mask[data.bucket[indexOfId(m.id)]] === 1)) violations++;
        return { recall: recallAtK(ids, truthOf(truth, q, level), k, filter ? undefined : scoreOf(q)), short: matches.length < Math.min(k, matching), violations };
      };
    };
    // Ingest: the first ~30 % at concurrency 1, the rest at concurrency 4.
    const encodeDense = (i: number): string => JSON.stringify({ id: id(i), values: arr(data.vectors, i, data.dim), metadata: metadataOf(data, i) });
    const encodeStart = performance.now();
    const c1Batches = upsertBatches(encodeDense, 0, Math.ceil(data.n * 0.3));
    const c4Batches = upsertBatches(encodeDense, Math.ceil(data.n * 0.3), data.n);
    const encodeSeconds = (performance.now() - encodeStart) / 1000;
    const probe = startHealthProbe(server.url, apiKey);
    const ingestQueryBody = JSON.stringify({ vector: arr(data.queries, 0, data.dim), topK: k, includeMetadata: true });
    await client.json('POST', `${host}/query`, ingestQueryBody); // the server's first query (cold paths) is not the probe's
    const ingestQueries = startProbe({ method: 'POST', url: `${host}/query`, apiKey, body: ingestQueryBody, intervalMs: INGEST_QUERY_INTERVAL_MS });
    const ingestStart = performance.now();
    const c1 = await ingest(client, host, c1Batches, 1, phaseMs * 2, false);
    // What the bounded c1 phase did not send goes first at c4.
    const c4 = await ingest(client, host, [...c1Batches.slice(c1.next), ...c4Batches], 4, 30 * 60_000, true);
    c1Batches.length = 0;
    c4Batches.length = 0;
    const lastAck = performance.now();
    const ingestHealth = await probe.stop();
    const ingestQueryMs = await ingestQueries.stop();
    log(`ingest: c1 ${Math.round(c1.phase.vectorsPerSecond)} vectors/s (${c1.phase.vectors}), c4 ${Math.round(c4.phase.vectorsPerSecond)} vectors/s (${c4.phase.vectors})`);
    // Visible: stats count every record and a query for the last record finds it first.
    const lastBody = JSON.stringify({ vector: arr(data.vectors, data.n - 1, data.dim), topK: 1 });
    let visibleAt = Number.NaN;
    for (let attempt = 0; attempt < 600; attempt++) {
      const count = await totalCount(client, host);
      const top = matchesOf((await client.json('POST', `${host}/query`, lastBody)).body);
      if (count === data.n && top[0]?.id === id(data.n - 1)) {
        visibleAt = performance.now();
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!Number.isFinite(visibleAt)) throw new Error('the ingested data never became visible (30 s)');

    // Indexing: until /metrics says no record is outside a graph, keep querying — recall
    // and short answers while the engine still searches part of the data exactly.
    const unfilteredBodies = denseBodies(0);
    const evalUnfiltered = evaluator(0);
    const unindexedAtStart = await unindexedRecords(client, server.url);
    const during: Evaluation[] = [];
    let indexedAt = Number.NaN;
    const indexDeadline = performance.now() + 30 * 60_000;
    for (let q = 0; performance.now() < indexDeadline; q++) {
      const left = await unindexedRecords(client, server.url);
      if (!(left > 0)) {
        indexedAt = Math.max(performance.now(), visibleAt);
        break;
      }
      const qi = q % unfilteredBodies.length;
      const r = await client.request('POST', `${host}/query`, unfilteredBodies[qi]);
      if (r.status !== 200) throw new Error(`query during indexing answered ${r.status}: ${r.text.slice(0, 300)}`);
      during.push(evalUnfiltered(qi, matchesOf(JSON.parse(r.text))));
      if (q % 20 === 19) await new Promise((res) => setTimeout(res, 50));
    }
    if (!Number.isFinite(indexedAt)) throw new Error('indexing did not finish within 30 minutes');
    log(`indexed ${((indexedAt - ingestStart) / 1000).toFixed(1)} s after the first upsert (hnswlib alone: ${hnswlib.buildSeconds.toFixed(1)} s); ${during.length} queries while indexing, recall ${during.length ? mean(during.map((e) => e.recall)).toFixed(4) : 'n/a'}`);
    // Memory at rest: the engine hands the heap memory indexing and the ingest freed back
    // to the OS QUIET_MS after its last background slice (src/engine/worker/quiet-release.ts).
    const rssAtIndexedBytes = memoryOf(server.pid).rssBytes;
    await settle(server.pid);
    const memAfterLoad = memoryOf(server.pid);

    // Queries.
    const unfilteredWarmUp = await denseWarmUp(client, host, unfilteredBodies, phaseMs, evaluator(0));
    log('warm-up rounds (unmeasured): ' + unfilteredWarmUp.map((w) => `c8 ${w.c8Qps.toFixed(0)} QPS, c1 p50 ${w.c1P50Ms.toFixed(2)} ms`).join('; '));
    // The query probed during the ingest, now idle: sent as the probe sent it, one at a time.
    const ingestQueryIdle = await timed(200, 10_000, async () => (await client.json('POST', `${host}/query`, ingestQueryBody)).ms);
    log(`query during ingest p50 ${summarize(ingestQueryMs).p50Ms.toFixed(2)} ms (n=${ingestQueryMs.length}), idle p50 ${ingestQueryIdle.p50Ms.toFixed(2)} ms`);
    const httpEcho = await measureEcho(unfilteredBodies, Math.min(2000, unfilteredBodies.length * 4));
    log(`bare node:http (same client, same bodies): round trip p50 ${httpEcho.c1.p50Ms.toFixed(3)} ms, ${httpEcho.qpsC8.toFixed(0)} QPS at concurrency 8`);
    const queryProbe = startHealthProbe(server.url, apiKey);
    const u1 = await queryPhase(client, host, unfilteredBodies, 1, phaseMs, evaluator(0));
    const u8 = await queryPhase(client, host, unfilteredBodies, 8, phaseMs, evaluator(0));
    const benchClientCpuUs = u8.harnessCpuUsPerQuery;
    log(`query: c1 ${u1.qps.toFixed(1)} QPS p50 ${u1.latency.p50Ms.toFixed(2)} ms recall ${u1.recall.toFixed(4)}; c8 ${u8.qps.toFixed(1)} QPS p50 ${u8.latency.p50Ms.toFixed(2)} ms`);
    // The reference again, within seconds of the phases above (the server is idle now): on
    // this shared VM hnswlib's own speed moved up to 1.6× between runs an hour apart, so a
    // reference measured minutes before Conifer's phases can skew the ratios either way.
    const hnswlibBeside = sweepHnsw(hnswIndex, data, truth, k, spec.queries, spec.phaseSeconds);
    log('hnswlib beside the query phases: ' + hnswlibBeside.map((p) => `ef ${p.ef}: recall ${p.recall.toFixed(3)} ${Math.round(p.qps)} QPS`).join(', '));
    // The same with Node's own client, after a warm-up pass of it (its JIT paths are cold).
    const nodeClient = new NodeHttpClient(apiKey, 16);
    await queryPhase(nodeClient, host, unfilteredBodies, 8, phaseMs, evaluator(0));
    const n1 = await queryPhase(nodeClient, host, unfilteredBodies, 1, phaseMs, evaluator(0));
    const n8 = await queryPhase(nodeClient, host, unfilteredBodies, 8, phaseMs, evaluator(0));
    const nodeClientCpuUs = n8.harnessCpuUsPerQuery;
    nodeClient.close();
    const nodeEcho = await measureEcho(unfilteredBodies, Math.min(2000, unfilteredBodies.length * 4), () => new NodeHttpClient('unused', 8));
    const clients: ClientComparison = {
      bench: { harnessCpuUsPerQueryC8: benchClientCpuUs },
      nodeHttp: { c1: n1, c8: n8, echo: nodeEcho, harnessCpuUsPerQueryC8: nodeClientCpuUs },
    };
    log(`with node:http's client: c1 p50 ${n1.latency.p50Ms.toFixed(2)} ms, c8 ${n8.qps.toFixed(0)} QPS (harness CPU ${nodeClientCpuUs.toFixed(0)} µs/query, against ${benchClientCpuUs.toFixed(0)} with the bench's); bare server ${nodeEcho.c1.p50Ms.toFixed(3)} ms, ${nodeEcho.qpsC8.toFixed(0)} QPS at c8`);
    const filtered: FilterResult[] = [];
    for (let level = 1; level < FILTERS.length; level++) {
      const bodies = denseBodies(level);
      await queryPhase(client, host, bodies, 8, phaseMs, evaluator(level)); // warm-up: the filter's own paths
      const f1 = await queryPhase(client, host, bodies, 1, phaseMs, evaluator(level));
      const f8 = await queryPhase(client, host, bodies, 8, phaseMs, evaluator(level));
      const matchingRecords = matchingOf(level);
      const ref = hnswFiltered[level - 1];
      filtered.push({ label: FILTERS[level].label, filter: JSON.stringify(FILTERS[level].filter), selectivity: matchingRecords / data.n, matchingRecords, c1: f1, c8: f8, hnswlibFilterCallback: ref, exactOverMatches: exactFiltered[level - 1] });
      log(`${FILTERS[level].label} (${matchingRecords} records): c1 ${f1.qps.toFixed(1)} QPS p50 ${f1.latency.p50Ms.toFixed(2)} ms recall ${f1.recall.toFixed(4)}, short ${f1.shortAnswers}; c8 ${f8.qps.toFixed(1)} QPS; hnswlib callback p50 ${ref.latency.p50Ms.toFixed(2)} ms recall ${ref.recall.toFixed(4)}`);
    }
    const queryHealth = await queryProbe.stop();

    // Other operations.
    const fetchUrl = (count: number, i: number): string => {
      const ids = Array.from({ length: count }, (_, j) => `ids=${id((i * 7919 + j * 104729) % data.n)}`).join('&');
      return `${host}/vectors/fetch?${ids}`;
    };
    const ok = async (method: string, url: string, body?: string): Promise<number> => {
      const r = await client.request(method, url, body);
      if (r.status !== 200) throw new Error(`${method} ${url.slice(0, 120)} answered ${r.status}: ${r.text.slice(0, 300)}`);
      return r.ms;
    };
    const fetch10 = await timed(200, phaseMs, (i) => ok('GET', fetchUrl(10, i)));
    const fetch100 = await timed(100, phaseMs, (i) => ok('GET', fetchUrl(100, i)));
    const describeIndexStats = await timed(100, phaseMs, () => ok('POST', `${host}/describe_index_stats`, '{}'));
    let token: string | undefined;
    const listPage = await timed(200, phaseMs, async () => {
      const r = await client.request('GET', `${host}/vectors/list?limit=100${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`);
      if (r.status !== 200) throw new Error(`list answered ${r.status}: ${r.text.slice(0, 300)}`);
      token = (JSON.parse(r.text) as { pagination?: { next?: string } }).pagination?.next;
      return r.ms;
    });
    log(`fetch 10 ids p50 ${fetch10.p50Ms.toFixed(2)} ms, 100 ids ${fetch100.p50Ms.toFixed(2)} ms; describe_index_stats ${describeIndexStats.p50Ms.toFixed(2)} ms; list page ${listPage.p50Ms.toFixed(2)} ms`);

    // Sparse-only and hybrid, on dotproduct indexes. Memory is read at rest before and
    // after the ingest (the phases above leave the threads' heaps to be released).
    await settle(server.pid);
    const rssBeforeSparse = memoryOf(server.pid).rssBytes;
    const sparseHost = await createIndex(client, server.url, { name: 'bench-sparse', vector_type: 'sparse', metric: 'dotproduct' });
    const sparseBatches = upsertBatches((i) => JSON.stringify({ id: id(i), sparseValues: sparseJson(sparse.records[i]) }), 0, spec.sparseN);
    const sp = await ingest(client, sparseHost, sparseBatches, 4, 30 * 60_000, true);
    sparseBatches.length = 0;
    const sparseRssPerRecord = (memoryOf(server.pid).rssBytes - rssBeforeSparse) / spec.sparseN;
    await settle(server.pid);
    const sparseRssAtRestPerRecord = (memoryOf(server.pid).rssBytes - rssBeforeSparse) / spec.sparseN;
    const sparseBodies = sparse.queries.map((s) => JSON.stringify({ sparseVector: sparseJson(s), topK: k, includeMetadata: true }));
    const sparseScore = (q: number) => (i: number): number => sparseDot(sparse.queries[q], sparse.records[i]);
    const sparseEvaluate = (q: number, m: Match[]): Evaluation => ({
      recall: recallAtK(m.map((x) => indexOfId(x.id)), sparseTruthList[q], k, sparseScore(q)),
      short: m.length < Math.min(k, sparseTruthList[q].ids.length),
      violations: 0,
    });
    // As many unmeasured queries as the dense phases' warm-up rounds ran (warmUp()).
    const denseWarmUpQueries = DENSE_WARM_UP_ROUNDS * 2 * data.queryCount;
    const sparseWarmUp = await warmUp(client, sparseHost, sparseBodies, denseWarmUpQueries, phaseMs, sparseEvaluate);
    const sparseQuery = await queryPhase(client, sparseHost, sparseBodies, 1, phaseMs, sparseEvaluate);
    const hybridHost = await createIndex(client, server.url, { name: 'bench-hybrid', dimension: data.dim, metric: 'dotproduct' });
    const hybridBatches = upsertBatches(
      (i) => JSON.stringify({ id: id(i), values: arr(data.vectors, i, data.dim), sparseValues: sparseJson(sparse.records[i]) }),
      0,
      spec.sparseN,
    );
    const hy = await ingest(client, hybridHost, hybridBatches, 4, 30 * 60_000, true);
    hybridBatches.length = 0;
    // Queried once every record is in the graph, as the dense queries are: a hybrid query
    // scans the not-yet-indexed tail, so during indexing it measures the tail, not the engine.
    const hybridAckedAt = performance.now();
    const hybridBodies = sparse.queries.map((s, q) => JSON.stringify({ vector: arr(data.queries, q, data.dim), sparseVector: sparseJson(s), topK: k, includeMetadata: true }));
    const hybridIndexedAfterAckSeconds = ((await waitFullyIndexed(client, server.url, 30 * 60_000)) - hybridAckedAt) / 1000;
    const hybridScore = (q: number) => (i: number): number => sparseDot(sparse.queries[q], sparse.records[i]) + scoreOf(q)(i);
    const hybridEvaluate = (q: number, m: Match[]): Evaluation => ({
      recall: recallAtK(m.map((x) => indexOfId(x.id)), hybridTruthList[q], k, hybridScore(q)),
      short: m.length < Math.min(k, hybridTruthList[q].ids.length),
      violations: 0,
    });
    const hybridWarmUp = await warmUp(client, hybridHost, hybridBodies, denseWarmUpQueries, phaseMs, hybridEvaluate);
    const hybridQuery = await queryPhase(client, hybridHost, hybridBodies, 1, phaseMs, hybridEvaluate);
    log(`sparse: ${Math.round(sp.phase.vectorsPerSecond)} vectors/s, RSS +${Math.round(sparseRssPerRecord)} B/record (at rest +${Math.round(sparseRssAtRestPerRecord)}), query p50 ${sparseQuery.latency.p50Ms.toFixed(2)} ms recall ${sparseQuery.recall.toFixed(4)} (warm-up passes: p50 ${sparseWarmUp.map((x) => x.toFixed(2)).join(', ')} ms); hybrid: ${Math.round(hy.phase.vectorsPerSecond)} vectors/s, p50 ${hybridQuery.latency.p50Ms.toFixed(2)} ms recall ${hybridQuery.recall.toFixed(4)} (warm-up passes: p50 ${hybridWarmUp.map((x) => x.toFixed(2)).join(', ')} ms)`);
    const peakRssBytes = memoryOf(server.pid).hwmBytes;

    // Bulk import of the same dense data into a new index, compared with the HTTP upsert
    // rate above (c4); the index is deleted afterwards so the restarts below measure the same data.
    let bulkImport: ImportPhase | undefined;
    const twoIndexes: TwoIndexPhase[] = [];
    if (importSource) {
      const importHost = await createIndex(client, server.url, { name: 'bench-import', dimension: data.dim, metric: 'cosine' });
      bulkImport = await runImportPhase({
        client,
        url: server.url,
        host: importHost,
        index: 'bench-import',
        pid: server.pid,
        root: importRoot,
        data,
        source: importSource,
        httpUpsertVectorsPerSecond: c4.phase.vectorsPerSecond,
        maxMs: 30 * 60_000,
      });
      for (const concurrency of [1, 4]) {
        const two = await twoIndexPhase(client, [host, importHost], concurrency, unfilteredBodies, phaseMs, evaluator(0));
        twoIndexes.push(two);
        log(
          `two indexes at c${concurrency} each: alone ${two.alone.map((p) => p.qps.toFixed(0)).join(' / ')} QPS, together ` +
            `${two.together.map((p) => p.qps.toFixed(0)).join(' / ')} QPS`,
        );
      }
      await client.json('DELETE', `${server.url}/indexes/bench-import`);
      log(`bulk import: ${Math.round(bulkImport.recordsPerSecond)} records/s (${bulkImport.ratioToHttpUpsert.toFixed(2)}× HTTP upsert c4), searchable after ${bulkImport.searchableSeconds.toFixed(1)} s, peak RSS ${(bulkImport.peakRssBytes / 2 ** 20).toFixed(0)} MiB (${(bulkImport.rssBeforeBytes / 2 ** 20).toFixed(0)} MiB before)`);
    }

    // Restart: process start to /ready with the data loaded, then to a correct answer.
    let ts = performance.now();
    await server.stop();
    const stopSeconds = (performance.now() - ts) / 1000;
    server = undefined;
    ts = performance.now();
    server = await startServer(dataDir, apiKey);
    const restarted = server;
    const host2 = await describeHost(client, restarted.url, 'bench-dense');
    /** ms from `startedAt` until a query on `host` returns the last record first; throws after `attempts` tries 50 ms apart. */
    const firstCorrectQuery = async (host: string, startedAt: number, attempts: number, what: string): Promise<number> => {
      for (let attempt = 0; attempt < attempts; attempt++) {
        const r = await client.request('POST', `${host}/query`, lastBody);
        if (r.status === 200 && matchesOf(JSON.parse(r.text))[0]?.id === id(data.n - 1)) return performance.now() - startedAt;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error(`after ${what} no query found the data (${(attempts * 50) / 1000} s)`);
    };
    const firstCorrectQueryMs = await firstCorrectQuery(host2, ts, 600, 'restart');
    const searchableMs = (await waitFullyIndexed(client, restarted.url, 30 * 60_000)) - ts;
    const recordsAfterRestart = await totalCount(client, host2);
    const rssAfterRestartBytes = memoryOf(restarted.pid).rssBytes;
    log(`restart: listening ${restarted.listeningMs.toFixed(0)} ms, ready ${restarted.readyMs.toFixed(0)} ms, first correct query ${firstCorrectQueryMs.toFixed(0)} ms, every record in a graph ${searchableMs.toFixed(0)} ms`);

    // The same restart without graph snapshots: what a rebuild from the record stores costs.
    let rebuild: BenchResult['restart']['rebuild'];
    if (spec.rebuildPhases) {
      await server.stop();
      server = undefined;
      const snapshotFilesRemoved = removeSnapshots(dataDir);
      ts = performance.now();
      server = await startServer(dataDir, apiKey);
      const rebuilt = server;
      const host3 = await describeHost(client, rebuilt.url, 'bench-dense');
      const rebuildFirstCorrectMs = await firstCorrectQuery(host3, ts, 6000, 'a rebuild');
      const rebuildSearchableMs = (await waitFullyIndexed(client, rebuilt.url, 30 * 60_000)) - ts;
      rebuild = { readyMs: rebuilt.readyMs, firstCorrectQueryMs: rebuildFirstCorrectMs, searchableMs: rebuildSearchableMs, snapshotFilesRemoved };
      log(`restart without snapshots (${snapshotFilesRemoved} files removed): ready ${rebuilt.readyMs.toFixed(0)} ms, first correct query ${rebuildFirstCorrectMs.toFixed(0)} ms, every record in a graph ${rebuildSearchableMs.toFixed(0)} ms`);
    }

    const pick = pickHnsw(hnswlibBeside, u1.recall);
    const result: BenchResult = {
      size: spec.name,
      startedAt,
      totalSeconds: 0,
      machine,
      commit: commitOf(),
      data: {
        records: data.n,
        dimension: data.dim,
        metric: 'cosine',
        queries: data.queryCount,
        clusters: spec.clusters,
        generateSeconds,
        groundTruthSeconds,
        sparseRecords: spec.sparseN,
        sparseQueries: spec.sparseQueries,
      },
      references: { hnswlib, hnswlibBeside, bruteForce, httpEcho: httpEcho.c1 },
      ingest: {
        c1: c1.phase,
        c4: c4.phase,
        encodeSeconds,
        totalSeconds: (lastAck - ingestStart) / 1000,
        fullyIndexedSeconds: (indexedAt - ingestStart) / 1000,
        visibleAfterLastAckMs: visibleAt - lastAck,
        fullyIndexedMethod: Number.isNaN(unindexedAtStart)
          ? 'the server exposes no conifer_engine_unindexed_records, so "fully indexed" = stats count every record and a query returns the last one'
          : '/metrics reports conifer_engine_unindexed_records = 0, stats count every record and a query returns the last one (polled every few queries)',
        indexedToHnswBuildRatio: (indexedAt - ingestStart) / 1000 / hnswlib.buildSeconds,
        duringIndexing: {
          queries: during.length,
          recall: during.length ? mean(during.map((e) => e.recall)) : null,
          shortAnswers: during.filter((e) => e.short).length,
          unindexedAtStart: Number.isNaN(unindexedAtStart) ? 0 : unindexedAtStart,
        },
      },
      query: { unfiltered: { c1: u1, c8: u8 }, filtered, unfilteredWarmUp },
      clients,
      bulkImport,
      twoIndexes: twoIndexes.length ? twoIndexes : undefined,
      sparse: { records: spec.sparseN, upsertVectorsPerSecond: sp.phase.vectorsPerSecond, query: sparseQuery, warmUpP50Ms: sparseWarmUp, rssGrowthBytesPerRecord: sparseRssPerRecord, rssAtRestBytesPerRecord: sparseRssAtRestPerRecord },
      hybrid: { records: spec.sparseN, upsertVectorsPerSecond: hy.phase.vectorsPerSecond, indexedAfterAckSeconds: hybridIndexedAfterAckSeconds, query: hybridQuery, warmUpP50Ms: hybridWarmUp },
      operations: { fetch10, fetch100, describeIndexStats, listPage },
      restart: {
        stopSeconds,
        listeningMs: restarted.listeningMs,
        readyMs: restarted.readyMs,
        firstCorrectQueryMs,
        recordsAfterRestart,
        rebuild,
        searchableMs,
        readyToRebuildRatio: rebuild && restarted.readyMs / rebuild.readyMs,
        searchableToRebuildRatio: rebuild && searchableMs / rebuild.searchableMs,
      },
      memory: {
        rssEmptyBytes,
        rssAtIndexedBytes,
        rssAfterLoadBytes: memAfterLoad.rssBytes,
        bytesPerVector: (memAfterLoad.rssBytes - rssEmptyBytes) / data.n,
        rawFloat32BytesPerVector: data.dim * 4,
        peakRssBytes,
        rssAfterRestartBytes,
      },
      healthProbe: { idle: idleProbe, duringIngest: summarize(ingestHealth), duringQueries: summarize(queryHealth) },
      ingestQueryProbe: { intervalMs: INGEST_QUERY_INTERVAL_MS, duringIngest: summarize(ingestQueryMs), idle: ingestQueryIdle },
      headline: {
        coniferRecall: u1.recall,
        coniferP50Ms: u1.latency.p50Ms,
        coniferQpsC1: u1.qps,
        coniferQpsC8: u8.qps,
        hnswEf: pick.point.ef,
        hnswRecall: pick.point.recall,
        hnswReachedConiferRecall: pick.reached,
        hnswP50Ms: pick.point.latency.p50Ms,
        hnswQps: pick.point.qps,
        p50Ratio: u1.latency.p50Ms / pick.point.latency.p50Ms,
        qpsRatio: u1.qps / pick.point.qps,
        qpsRatioC8: u8.qps / pick.point.qps,
        bruteForceP50Ms: bruteForce.latency.p50Ms,
        p50RatioToBruteForce: u1.latency.p50Ms / bruteForce.latency.p50Ms,
        echoP50Ms: httpEcho.c1.p50Ms,
        overheadInEchoRoundTrips: (u1.latency.p50Ms - pick.point.latency.p50Ms) / httpEcho.c1.p50Ms,
        echoQpsC8: httpEcho.qpsC8,
      },
    };
    await server.stop();
    server = undefined;
    log('engine memory by part (bench/engine-memory.ts)');
    result.memory.engineParts = measureEngineMemory(data.n, data.dim);
    result.totalSeconds = (performance.now() - t0) / 1000;
    mkdirSync(options.outDir, { recursive: true });
    const files = writeReports(result, options.outDir);
    log(files.table);
    log(`wrote ${files.json}, ${files.md}, ${files.svg}`);
    return result;
  } finally {
    client.close();
    if (server) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(importRoot, { recursive: true, force: true });
  }
}

