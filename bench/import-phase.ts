// The bench's bulk import phase: the dense data written as Parquet in the layout the
// import reads (the exporter's schema, src/data/parquet-export.ts), imported through
// POST /bulk/imports with a file:// URI under the server's CONIFER_IMPORT_ROOT, and
// measured: records/s, the server's resident memory while it runs, and the time until
// every record is in a graph. The caller compares the rate with the HTTP upsert path's
// vectors/s measured on the same server in the same run.
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import { IMPORT_PARQUET_SCHEMA } from '../src/data/parquet-export.js';
import { id, metadataOf, type DenseData } from './data.js';
import type { Client } from './http.js';
import { memoryOf } from './server-process.js';

/** Rows per row group (the importer's unit of decoding) and per file, as an exporter might write them. */
const ROW_GROUP_ROWS = 10_000;
const FILE_ROWS = 100_000;

export interface ImportPhase {
  records: number;
  files: number;
  parquetBytes: number;
  /** Time the bench took to write the Parquet files (not part of the import). */
  writeSeconds: number;
  /** POST /bulk/imports until describeImport says Completed. */
  seconds: number;
  recordsPerSecond: number;
  /** recordsPerSecond ÷ the HTTP upsert path's vectors/s on the same server in the same run. */
  ratioToHttpUpsert: number;
  httpUpsertVectorsPerSecond: number;
  /** POST /bulk/imports until conifer_engine_unindexed_records{index} is 0 and a query finds the last record. */
  searchableSeconds: number;
  rssBeforeBytes: number;
  /** The largest VmRSS sampled (every 50 ms) from the POST until searchable. */
  peakRssBytes: number;
}

/** Writes records [0, n) of `data` under `<root>/__default__/`; returns the files' total size. */
export async function writeImportSource(data: DenseData, root: string): Promise<{ files: number; bytes: number; seconds: number }> {
  const started = performance.now();
  const dir = join(root, '__default__');
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  let files = 0;
  for (let from = 0; from < data.n; from += FILE_ROWS, files++) {
    const file = join(dir, `part-${String(files).padStart(5, '0')}.parquet`);
    const writer = new ParquetWriter({ writer: fileWriter(file), schema: IMPORT_PARQUET_SCHEMA, createdBy: 'conifer bench' });
    const to = Math.min(data.n, from + FILE_ROWS);
    // One row group at a time, so the bench holds one group's JS arrays, not a file's.
    for (let g = from; g < to; g += ROW_GROUP_ROWS) {
      const end = Math.min(to, g + ROW_GROUP_ROWS);
      const rows = Array.from({ length: end - g }, (_, k) => g + k);
      await writer.write({
        columnData: [
          { name: 'id', data: rows.map((i) => id(i)) },
          { name: 'values', data: rows.map((i) => Array.from(data.vectors.subarray(i * data.dim, (i + 1) * data.dim))) },
          { name: 'sparse_values', data: rows.map(() => null) },
          { name: 'metadata', data: rows.map((i) => JSON.stringify(metadataOf(data, i))) },
        ],
        rowGroupSize: ROW_GROUP_ROWS,
      });
    }
    await writer.finish();
    bytes += statSync(file).size;
  }
  return { files, bytes, seconds: (performance.now() - started) / 1000 };
}

/**
 * Records of `index` not yet in a graph, from /metrics; NaN when the gauge is absent (not
 * reported yet). The gauge's label is the index's host id, `<name>-<7 letters or digits>`
 * (src/control/index-service.ts), not its name.
 */
async function unindexedOf(client: Client, url: string, index: string): Promise<number> {
  const r = await client.request('GET', `${url}/metrics`);
  if (r.status !== 200) return Number.NaN;
  const m = new RegExp(`^conifer_engine_unindexed_records\\{index="${index}-[A-Za-z0-9]{7}"\\} ([0-9.eE+-]+)$`, 'm').exec(r.text);
  return m ? Number(m[1]) : Number.NaN;
}

/**
 * Imports `<root>` (written by writeImportSource) into the existing index at `host` and
 * waits until it is searchable. `pid` is the server's, for its memory.
 */
export async function runImportPhase(options: {
  client: Client;
  url: string;
  host: string;
  index: string;
  pid: number;
  root: string;
  data: DenseData;
  source: { files: number; bytes: number; seconds: number };
  httpUpsertVectorsPerSecond: number;
  maxMs: number;
  /** Progress lines while the import runs (every ~10 s). */
  log?: (line: string) => void;
}): Promise<ImportPhase> {
  const { client, url, host, index, pid, root, data } = options;
  const rssBeforeBytes = memoryOf(pid).rssBytes;
  let peakRssBytes = rssBeforeBytes;
  const sampler = setInterval(() => {
    try {
      peakRssBytes = Math.max(peakRssBytes, memoryOf(pid).rssBytes);
    } catch {
      // The server exited: the phase's next request fails and says so.
    }
  }, 50);
  try {
    const t0 = performance.now();
    const deadline = t0 + options.maxMs;
    const { body } = await options.client.json('POST', `${host}/bulk/imports`, JSON.stringify({ uri: pathToFileURL(root).href, errorMode: { onError: 'abort' } }));
    const importId = (body as { id: string }).id;
    let completedAt = Number.NaN;
    let nextLog = t0 + 10_000;
    while (performance.now() < deadline) {
      const { body: described } = await client.json('GET', `${host}/bulk/imports/${importId}`);
      const d = described as { status: string; error?: string; recordsImported?: number; percentComplete?: number };
      if (options.log && performance.now() > nextLog) {
        nextLog += 10_000;
        options.log(
          `import ${d.status}: ${d.recordsImported ?? 0} records after ${((performance.now() - t0) / 1000).toFixed(0)} s, ` +
            `server RSS ${(memoryOf(pid).rssBytes / 2 ** 20).toFixed(0)} MiB (peak ${(peakRssBytes / 2 ** 20).toFixed(0)} MiB)`,
        );
      }
      if (d.status === 'Failed' || d.status === 'Cancelled') throw new Error(`the bench import ended ${d.status}: ${d.error ?? ''}`);
      if (d.status === 'Completed') {
        if (d.recordsImported !== data.n) throw new Error(`the bench import completed with ${d.recordsImported} of ${data.n} records`);
        completedAt = performance.now();
        const seconds = (completedAt - t0) / 1000;
        options.log?.(
          `import Completed: ${data.n} records in ${seconds.toFixed(1)} s (${Math.round(data.n / seconds)} records/s), ` +
            `peak RSS so far ${(peakRssBytes / 2 ** 20).toFixed(0)} MiB; waiting until every record is in a graph`,
        );
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!Number.isFinite(completedAt)) throw new Error(`the bench import did not complete within ${Math.round(options.maxMs / 1000)} s`);

    // Searchable: every record in a graph, stats count them all, the last one is found.
    const lastBody = JSON.stringify({ vector: Array.from(data.vectors.subarray((data.n - 1) * data.dim, data.n * data.dim)), topK: 1 });
    let searchableAt = Number.NaN;
    while (performance.now() < deadline) {
      // Absent (NaN) means the engine never reported the index: no graph, nothing waits.
      if (!((await unindexedOf(client, url, index)) > 0)) {
        const stats = (await client.json('POST', `${host}/describe_index_stats`, '{}')).body as { totalVectorCount?: number };
        const top = ((await client.json('POST', `${host}/query`, lastBody)).body as { matches: { id: string }[] }).matches[0]?.id;
        if (stats.totalVectorCount === data.n && top === id(data.n - 1)) {
          searchableAt = performance.now();
          break;
        }
      }
      if (options.log && performance.now() > nextLog) {
        nextLog += 10_000;
        options.log(`indexing: ${await unindexedOf(client, url, index)} records not yet in a graph after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!Number.isFinite(searchableAt)) throw new Error(`the imported records were not all indexed within ${Math.round(options.maxMs / 1000)} s`);
    const seconds = (completedAt - t0) / 1000;
    const recordsPerSecond = data.n / seconds;
    return {
      records: data.n,
      files: options.source.files,
      parquetBytes: options.source.bytes,
      writeSeconds: options.source.seconds,
      seconds,
      recordsPerSecond,
      ratioToHttpUpsert: recordsPerSecond / options.httpUpsertVectorsPerSecond,
      httpUpsertVectorsPerSecond: options.httpUpsertVectorsPerSecond,
      searchableSeconds: (searchableAt - t0) / 1000,
      rssBeforeBytes,
      peakRssBytes,
    };
  } finally {
    clearInterval(sampler);
  }
}
