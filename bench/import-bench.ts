// `npm run bench -- --size S --only import`: the bulk import phase alone, without the
// references, ground truth and query phases — how the 1M × 128 (`large`) import is run
// on a small machine. The HTTP upsert rate it is compared with is measured first on the
// same server, from a sample of the records (a full HTTP ingest of `large` would take
// most of an hour and say nothing more about the rate).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, platform, release, arch, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SIZES, generateDense, id, metadataOf, type SizeName } from './data.js';
import { commitOf, createIndex, ingest, upsertBatches } from './harness.js';
import { Client } from './http.js';
import { runImportPhase, writeImportSource } from './import-phase.js';
import { writeImportReport, type ImportBenchResult } from './report.js';
import { startServer, type ServerProcess } from './server-process.js';

/** Records upserted over HTTP to measure the rate the import is compared with. */
const HTTP_SAMPLE_MAX = 50_000;

export async function runImportBenchmark(options: {
  size: SizeName;
  outDir: string;
  log?: (line: string) => void;
}): Promise<ImportBenchResult> {
  const log = options.log ?? ((s: string): void => console.log(s));
  const spec = SIZES[options.size];
  const startedAt = new Date().toISOString();
  log(`Conifer bulk import benchmark, size ${spec.name}: ${spec.n} × ${spec.dim}`);
  const data = generateDense(spec, 1);
  const importRoot = mkdtempSync(join(tmpdir(), 'conifer-bench-import-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'conifer-bench-'));
  const apiKey = `bench-${randomBytes(12).toString('hex')}`;
  const client = new Client(apiKey, 16);
  let server: ServerProcess | undefined;
  try {
    const source = await writeImportSource(data, importRoot);
    log(`import source: ${source.files} Parquet files, ${(source.bytes / 2 ** 20).toFixed(0)} MiB, written in ${source.seconds.toFixed(1)} s`);
    server = await startServer(dataDir, apiKey, undefined, [], { CONIFER_IMPORT_ROOT: importRoot });

    const sample = Math.min(spec.n, HTTP_SAMPLE_MAX);
    const httpHost = await createIndex(client, server.url, { name: 'bench-http', dimension: data.dim, metric: 'cosine' });
    const encode = (i: number): string =>
      JSON.stringify({ id: id(i), values: Array.from(data.vectors.subarray(i * data.dim, (i + 1) * data.dim)), metadata: metadataOf(data, i) });
    const http = await ingest(client, httpHost, upsertBatches(encode, 0, sample), 4, 30 * 60_000, true);
    await client.json('DELETE', `${server.url}/indexes/bench-http`);
    log(`HTTP upsert: ${Math.round(http.phase.vectorsPerSecond)} vectors/s (${sample} records, c4)`);

    const importHost = await createIndex(client, server.url, { name: 'bench-import', dimension: data.dim, metric: 'cosine' });
    const bulkImport = await runImportPhase({
      client,
      url: server.url,
      host: importHost,
      index: 'bench-import',
      pid: server.pid,
      root: importRoot,
      data,
      source,
      httpUpsertVectorsPerSecond: http.phase.vectorsPerSecond,
      maxMs: 3 * 60 * 60_000,
      log,
    });
    const result: ImportBenchResult = {
      size: spec.name,
      startedAt,
      commit: commitOf(),
      machine: {
        cpu: cpus()[0]?.model ?? 'unknown',
        cores: cpus().length,
        totalMemoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
        node: process.version,
        os: `${platform()} ${release()} ${arch()}`,
      },
      data: { records: spec.n, dimension: spec.dim, metric: 'cosine' },
      httpSampleRecords: sample,
      bulkImport,
    };
    mkdirSync(options.outDir, { recursive: true });
    const files = writeImportReport(result, options.outDir);
    log(files.table);
    log(`wrote ${files.json}, ${files.md}`);
    return result;
  } finally {
    client.close();
    if (server) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(importRoot, { recursive: true, force: true });
  }
}
