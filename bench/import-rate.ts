// Bulk import rate versus the HTTP upsert path, measured in one run on one server so the
// ratio is meaningful even on a busy machine:
//   node dist/bench/import-rate.js [records=100000] [dimension=384]
// Writes the records as Parquet (10 files of row groups of 10,000), imports them into one
// index through POST /bulk/imports, then upserts the same records into another index over
// HTTP (200 vectors per request, 4 requests in flight), and prints records/s of both, their
// ratio, and the server's peak resident memory after the import phase.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import { IMPORT_PARQUET_SCHEMA } from '../src/data/parquet-export.js';
import { Client, runLoad } from './http.js';
import { Rng } from './prng.js';
import { memoryOf, startServer } from './server-process.js';

const RECORDS = Number(process.argv[2] ?? 100_000);
const DIM = Number(process.argv[3] ?? 384);
const FILES = 10;
const ROW_GROUP = 10_000;
const HTTP_BATCH = 200;
const HTTP_CONCURRENCY = 4;
const KEY = 'bench-import-key';

function vectorOf(rng: Rng): number[] {
  return Array.from({ length: DIM }, () => Math.fround(rng.next() * 2 - 1));
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'conifer-import-bench-'));
  const rng = new Rng(42);
  const vectors: number[][] = Array.from({ length: RECORDS }, () => vectorOf(rng));
  const perFile = Math.ceil(RECORDS / FILES);
  mkdirSync(join(root, 'src', '__default__'), { recursive: true });
  for (let f = 0; f * perFile < RECORDS; f++) {
    const from = f * perFile;
    const to = Math.min(RECORDS, from + perFile);
    const writer = new ParquetWriter({
      writer: fileWriter(join(root, 'src', '__default__', `part-${String(f).padStart(3, '0')}.parquet`)),
      schema: IMPORT_PARQUET_SCHEMA,
    });
    const ids = Array.from({ length: to - from }, (_, k) => `v${from + k}`);
    await writer.write({
      columnData: [
        { name: 'id', data: ids },
        { name: 'values', data: vectors.slice(from, to) },
        { name: 'sparse_values', data: ids.map(() => null) },
        { name: 'metadata', data: ids.map((_, k) => JSON.stringify({ n: from + k })) },
      ],
      rowGroupSize: ROW_GROUP,
    });
    await writer.finish();
  }

  process.env.CONIFER_IMPORT_ROOT = root;
  const server = await startServer(join(root, 'data'), KEY);
  const client = new Client(KEY, HTTP_CONCURRENCY);
  try {
    const create = async (name: string): Promise<string> => {
      const body = JSON.stringify({ name, dimension: DIM, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } });
      const { body: index } = await client.json('POST', `${server.url}/indexes`, body);
      return (index as { host: string }).host;
    };

    // Import phase.
    const importHost = await create('via-import');
    const t0 = performance.now();
    const { body: started } = await client.json('POST', `${importHost}/bulk/imports`, JSON.stringify({ uri: join(root, 'src') }));
    const id = (started as { id: string }).id;
    let status = '';
    for (let i = 0; i < 100_000; i++) {
      const { body } = await client.json('GET', `${importHost}/bulk/imports/${id}`);
      const model = body as { status: string; error?: string };
      status = model.status;
      if (status === 'Failed') throw new Error(`import failed: ${model.error}`);
      if (status === 'Completed' || status === 'Cancelled') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const importMs = performance.now() - t0;
    const afterImport = memoryOf(server.pid);
    // Searchable: queries see each committed batch (exact search beside the graph), so
    // a query right after completion must already find the last record.
    const probe = await client.json(
      'POST',
      `${importHost}/query`,
      JSON.stringify({ vector: vectors[RECORDS - 1], topK: 1 }),
    );
    const searchableMs = performance.now() - t0;
    const top = (probe.body as { matches: { id: string }[] }).matches[0]?.id;

    // HTTP upsert phase, same records.
    const httpHost = await create('via-http');
    const batches = Math.ceil(RECORDS / HTTP_BATCH);
    const load = await runLoad(HTTP_CONCURRENCY, batches, 30 * 60_000, async (b) => {
      const from = b * HTTP_BATCH;
      const body = JSON.stringify({
        vectors: vectors.slice(from, from + HTTP_BATCH).map((values, k) => ({ id: `v${from + k}`, values, metadata: { n: from + k } })),
      });
      return (await client.json('POST', `${httpHost}/vectors/upsert`, body)).ms;
    });
    const httpRate = (load.completed * HTTP_BATCH) / (load.wallMs / 1000);
    const importRate = RECORDS / (importMs / 1000);
    process.stdout.write(
      `${JSON.stringify(
        {
          records: RECORDS,
          dimension: DIM,
          importStatus: status,
          importSeconds: +(importMs / 1000).toFixed(2),
          importRecordsPerSecond: Math.round(importRate),
          searchableAfterSeconds: +(searchableMs / 1000).toFixed(2),
          lastRecordFoundByQuery: top === `v${RECORDS - 1}`,
          httpUpsertSeconds: +(load.wallMs / 1000).toFixed(2),
          httpUpsertRecordsPerSecond: Math.round(httpRate),
          ratio: +(importRate / httpRate).toFixed(2),
          serverPeakRssMiBAfterImport: Math.round(afterImport.hwmBytes / 2 ** 20),
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    client.close();
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
