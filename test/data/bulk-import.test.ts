// Bulk import (POST/GET/DELETE /bulk/imports) from local Parquet directories: the import
// root and source rules, the happy path across namespaces and row groups, paging, the
// 2026-07 validationResult, bad files (not Parquet, truncated, wrong column types, wrong
// dimension under abort and continue, duplicate ids), cancellation at a batch boundary,
// a restart in the middle of an import, and a kill -9 between a batch's commit and the
// catalog's copy of the import's progress.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer, api, removeDir, type TestServer } from '../helpers/server.js';
import { writeImportFile, writeNestedValuesFile, writeWrongTypesFile, type ParquetRecord } from '../helpers/parquet.js';
import { FAULT_IMPORT_KILL_ID } from '../../src/engine/worker/fault-injection.js';
import { prng } from '../helpers/prng.js';
import Database from 'better-sqlite3';
import { catalogFile } from '../../src/catalog/paths.js';
import { assertDataPlaneError, pollUntil, serverlessBody, stopAndClean } from '../server/support.js';

const DIM = 4;
const BATCH_ROWS = 5000; // src/data/import-runner.ts

/** The float32 each number denotes (the server prints float32 in its shortest decimal form). */
const f32 = (xs: number[]): number[] => xs.map(Math.fround);

function records(n: number, seed: number, prefix = 'r'): ParquetRecord[] {
  const rand = prng(seed);
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    values: Array.from({ length: DIM }, () => rand() * 2 - 1),
    metadata: { i, tag: i % 2 === 0 ? 'even' : 'odd' },
  }));
}

describe('bulk import', () => {
  let server: TestServer;
  let root: string;
  let n = 0;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'conifer-import-root-'));
    server = await startServer({ env: { CONIFER_IMPORT_ROOT: root } });
  });

  after(async () => {
    await stopAndClean(server);
    removeDir(root);
  });

  async function createIndex(): Promise<string> {
    const name = `imp-${++n}`;
    const res = await api(server, 'POST', '/indexes', { body: serverlessBody(name, { dimension: DIM }) });
    assert.equal(res.status, 201, res.text);
    return res.body.host as string;
  }

  async function startImport(host: string, body: Record<string, unknown>, version?: string) {
    return api(server, 'POST', `${host}/bulk/imports`, { body, version });
  }

  async function waitFinished(host: string, id: string, version?: string) {
    const res = await pollUntil(
      () => api(server, 'GET', `${host}/bulk/imports/${id}`, { version }),
      (r) => r.status !== 200 || ['Completed', 'Failed', 'Cancelled'].includes(r.body.status),
      60_000,
    );
    assert.equal(res.status, 200, res.text);
    return res.body;
  }

  async function totalCount(host: string): Promise<number> {
    const res = await api(server, 'POST', `${host}/describe_index_stats`, { body: {} });
    assert.equal(res.status, 200, res.text);
    return res.body.totalRecordCount as number;
  }

  it('imports every namespace and row group, records equal to the file as float32', async () => {
    const host = await createIndex();
    const dir = join(root, 'happy');
    const a = records(2500, 1, 'a');
    const b = records(30, 2, 'b');
    await writeImportFile(join(dir, '__default__', 'part-0.parquet'), a.slice(0, 1200), 500);
    await writeImportFile(join(dir, '__default__', 'part-1.parquet'), a.slice(1200), 700);
    await writeImportFile(join(dir, 'second', 'only.parquet'), b);
    writeFileSync(join(dir, 'second', 'notes.log'), 'ignored, as Pinecone ignores other files');

    const started = await startImport(host, { uri: pathToFileURL(dir).href, errorMode: { onError: 'abort' } });
    assert.equal(started.status, 200, started.text);
    assert.match(started.body.id, /^\d+$/);
    const done = await waitFinished(host, started.body.id);
    assert.equal(done.status, 'Completed', JSON.stringify(done));
    assert.equal(done.recordsImported, 2530);
    assert.equal(done.percentComplete, 100);
    assert.equal(done.uri, pathToFileURL(dir).href);
    assert.match(done.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(done.finishedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(done.error, undefined);

    const stats = await api(server, 'POST', `${host}/describe_index_stats`, { body: {} });
    assert.deepEqual(
      Object.fromEntries(Object.entries(stats.body.namespaces).map(([k, v]) => [k, (v as { recordCount: number }).recordCount])),
      { __default__: 2500, second: 30 },
    );
    const ids = ['a0', 'a1199', 'a1200', 'a2499'];
    const fetched = await api(server, 'GET', `${host}/vectors/fetch?${ids.map((id) => `ids=${id}`).join('&')}`);
    for (const id of ids) {
      const want = a[Number(id.slice(1))];
      const got = fetched.body.vectors[id];
      assert.deepEqual(f32(got.values), f32(want.values!), id);
      assert.deepEqual(got.metadata, want.metadata, id);
    }
    const other = await api(server, 'GET', `${host}/vectors/fetch?ids=b29&namespace=second`);
    assert.deepEqual(f32(other.body.vectors.b29.values), f32(b[29].values!));
  });

  it('lists imports in pages with the one page-token codec; 2026-07 adds validationResult', async () => {
    const host = await createIndex();
    const dir = join(root, 'listing');
    await writeImportFile(join(dir, 'ns', 'p.parquet'), records(3, 3));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await startImport(host, { uri: dir });
      assert.equal(res.status, 200, res.text);
      ids.push(res.body.id);
    }
    for (const id of ids) assert.equal((await waitFinished(host, id)).status, 'Completed');

    const first = await api(server, 'GET', `${host}/bulk/imports?limit=2`);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body.data.map((d: { id: string }) => d.id), ids.slice(0, 2));
    assert.equal(typeof first.body.pagination.next, 'string');
    const second = await api(server, 'GET', `${host}/bulk/imports?limit=2&paginationToken=${first.body.pagination.next}`);
    assert.deepEqual(second.body.data.map((d: { id: string }) => d.id), ids.slice(2));
    assert.equal(second.body.pagination, undefined);
    assert.equal(first.body.data[0].validationResult, undefined);

    const v2607 = await api(server, 'GET', `${host}/bulk/imports/${ids[0]}`, { version: '2026-07' });
    assert.deepEqual(v2607.body.validationResult, { importSuccesses: 3, importErrors: 0 });

    const bad = await api(server, 'GET', `${host}/bulk/imports?limit=101`);
    assertDataPlaneError(bad, 400, 'INVALID_ARGUMENT', 3);
    assert.match(bad.body.error.message, /limit must be an integer between 1 and 100/);
    const foreign = await api(server, 'GET', `${host}/bulk/imports?paginationToken=${first.body.pagination.next}x`);
    assertDataPlaneError(foreign, 400, 'INVALID_ARGUMENT', 3);
    const missing = await api(server, 'GET', `${host}/bulk/imports/999999`);
    assertDataPlaneError(missing, 404, 'NOT_FOUND', 5);
  });

  it('refuses object storage, relative paths and anything outside the import root', async () => {
    const host = await createIndex();
    for (const uri of ['s3://bucket/path/', 'gs://bucket/path', 'https://acct.blob.core.windows.net/c/p']) {
      const res = await startImport(host, { uri });
      assertDataPlaneError(res, 400, 'INVALID_ARGUMENT', 3);
      assert.match(res.body.error.message, /only local sources are supported/);
    }
    const relative = await startImport(host, { uri: 'some/dir' });
    assertDataPlaneError(relative, 400, 'INVALID_ARGUMENT', 3);
    assert.match(relative.body.error.message, /absolute/);

    const outside = mkdtempSync(join(tmpdir(), 'conifer-outside-'));
    try {
      await writeImportFile(join(outside, 'ns', 'p.parquet'), records(2, 4));
      const direct = await startImport(host, { uri: outside });
      assertDataPlaneError(direct, 403, 'FORBIDDEN', 7);
      assert.match(direct.body.error.message, /CONIFER_IMPORT_ROOT/);
      // `..` and a symlink inside the root both resolve outside it.
      const dotdot = await startImport(host, { uri: join(root, '..', outside.split('/').pop()!) });
      assertDataPlaneError(dotdot, 403, 'FORBIDDEN', 7);
      symlinkSync(outside, join(root, 'link-out'));
      const linked = await startImport(host, { uri: join(root, 'link-out') });
      assertDataPlaneError(linked, 403, 'FORBIDDEN', 7);
      // A namespace directory that links outside is refused too.
      mkdirSync(join(root, 'mixed'));
      symlinkSync(join(outside, 'ns'), join(root, 'mixed', 'ns'));
      const nested = await startImport(host, { uri: join(root, 'mixed') });
      assertDataPlaneError(nested, 403, 'FORBIDDEN', 7);
      // A sibling whose name merely starts with the root's is outside it.
      const sibling = `${root}-sibling`;
      await writeImportFile(join(sibling, 'ns', 'p.parquet'), records(2, 4));
      const prefixed = await startImport(host, { uri: sibling });
      removeDir(sibling);
      assertDataPlaneError(prefixed, 403, 'FORBIDDEN', 7);
    } finally {
      removeDir(outside);
    }
    assert.equal(await totalCount(host), 0);

    const bodyErrors: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /uri is required/],
      [{ uri: 5 }, /uri must be a string/],
      [{ uri: root, errorMode: { onError: 'explode' } }, /errorMode.onError must be "abort" or "continue"/],
      [{ uri: join(root, 'nope') }, /no directory/],
    ];
    for (const [body, message] of bodyErrors) {
      const res = await startImport(host, body);
      assertDataPlaneError(res, 400, 'INVALID_ARGUMENT', 3);
      assert.match(res.body.error.message, message);
    }
  });

  it('fails files that are not Parquet, truncated or of the wrong column types before writing anything', async () => {
    const host = await createIndex();
    const cases: Array<[string, (dir: string) => Promise<void>, RegExp]> = [
      [
        'not-parquet',
        async (dir) => {
          await writeImportFile(join(dir, 'ns', 'a-good.parquet'), records(10, 5));
          mkdirSync(join(dir, 'ns'), { recursive: true });
          writeFileSync(join(dir, 'ns', 'b-bad.parquet'), 'id,values\nx,"[1,2,3,4]"\n');
        },
        /ns\/b-bad\.parquet: not a readable Parquet file/,
      ],
      [
        'truncated',
        async (dir) => {
          await writeImportFile(join(dir, 'ns', 'a-good.parquet'), records(10, 6));
          await writeImportFile(join(dir, 'ns', 'b-cut.parquet'), records(200, 7));
          const bytes = readFileSync(join(dir, 'ns', 'b-cut.parquet'));
          writeFileSync(join(dir, 'ns', 'b-cut.parquet'), bytes.subarray(0, Math.floor(bytes.length / 2)));
        },
        /ns\/b-cut\.parquet: not a readable Parquet file/,
      ],
      [
        'wrong-types',
        async (dir) => {
          await writeImportFile(join(dir, 'ns', 'a-good.parquet'), records(10, 8));
          await writeWrongTypesFile(join(dir, 'ns', 'b-types.parquet'), ['x', 'y']);
        },
        /ns\/b-types\.parquet: column values must be LIST<FLOAT>, got BYTE_ARRAY/,
      ],
      [
        // The leaf is FLOAT, as in LIST<FLOAT>: only the levels tell them apart.
        'nested-list',
        async (dir) => {
          await writeImportFile(join(dir, 'ns', 'a-good.parquet'), records(10, 9));
          await writeNestedValuesFile(join(dir, 'ns', 'b-nested.parquet'), ['x', 'y'], DIM);
        },
        /ns\/b-nested\.parquet: column values must be LIST<FLOAT>, got LIST<LIST<FLOAT>>/,
      ],
    ];
    for (const [name, make, message] of cases) {
      const dir = join(root, name);
      await make(dir);
      const res = await startImport(host, { uri: dir, errorMode: { onError: 'continue' } });
      assert.equal(res.status, 200, res.text);
      const done = await waitFinished(host, res.body.id);
      assert.equal(done.status, 'Failed', `${name}: ${JSON.stringify(done)}`);
      assert.match(done.error, message);
      assert.equal(done.recordsImported, 0, name);
      assert.equal(await totalCount(host), 0, `${name}: nothing may be written`);
    }
  });

  it('abort stops at the first bad row naming file, row and rule; continue skips and counts it', async () => {
    const host = await createIndex();
    const rows = records(20, 9);
    rows[7] = { ...rows[7], values: [0.1, 0.2, 0.3] }; // dimension 3 in a 4-dimension index
    const dir = join(root, 'bad-row');
    await writeImportFile(join(dir, '__default__', 'p.parquet'), rows);

    const aborted = await startImport(host, { uri: dir, errorMode: { onError: 'abort' } });
    const failed = await waitFinished(host, aborted.body.id);
    assert.equal(failed.status, 'Failed');
    assert.match(failed.error, /__default__\/p\.parquet, row 7: record\.values: vector dimension 3 does not match the dimension of the index 4/);
    assert.notEqual(failed.percentComplete, 100);

    const continued = await startImport(host, { uri: dir, errorMode: { onError: 'continue' } }, '2026-07');
    const done = await waitFinished(host, continued.body.id, '2026-07');
    assert.equal(done.status, 'Completed');
    assert.equal(done.recordsImported, 19);
    assert.deepEqual(done.validationResult, { importSuccesses: 19, importErrors: 1 });
    const fetched = await api(server, 'GET', `${host}/vectors/fetch?ids=r6&ids=r7&ids=r8`);
    assert.deepEqual(Object.keys(fetched.body.vectors).sort(), ['r6', 'r8']);
  });

  it('decoded float32 values get the upsert rules: NaN, all zeros under cosine, a missing vector', async () => {
    const host = await createIndex();
    const rows = records(10, 11);
    rows[3] = { ...rows[3], values: [0.5, Number.NaN, 0.1, 0.2] };
    rows[5] = { ...rows[5], values: [0, 0, 0, 0] };
    rows[8] = { ...rows[8], values: null };
    const dir = join(root, 'float-rules');
    await writeImportFile(join(dir, '__default__', 'p.parquet'), rows);

    const aborted = await waitFinished(host, (await startImport(host, { uri: dir, errorMode: { onError: 'abort' } })).body.id);
    assert.equal(aborted.status, 'Failed');
    assert.match(aborted.error, /p\.parquet, row 3: record\.values\[1\] must be a number that is finite as float32, got NaN/);

    const res = await startImport(host, { uri: dir, errorMode: { onError: 'continue' } }, '2026-07');
    const done = await waitFinished(host, res.body.id, '2026-07');
    assert.equal(done.status, 'Completed');
    assert.deepEqual(done.validationResult, { importSuccesses: 7, importErrors: 3 });
    const fetched = await api(server, 'GET', `${host}/vectors/fetch?ids=r3&ids=r4&ids=r5&ids=r8&ids=r9`);
    assert.deepEqual(Object.keys(fetched.body.vectors).sort(), ['r4', 'r9']);
    assert.deepEqual(f32(fetched.body.vectors.r9.values), f32(rows[9].values!));

    // The other two rules, one file each, under abort: the messages an upsert gives.
    for (const [name, row, message] of [
      ['zeros', rows[5], /row 0: record\.values contains only zeros, which has no direction under the cosine metric/],
      ['missing', rows[8], /row 0: record\.values is required: index imp-\d+ is dense with dimension 4/],
    ] as const) {
      await writeImportFile(join(root, `float-rules-${name}`, '__default__', 'p.parquet'), [row]);
      const r = await startImport(host, { uri: join(root, `float-rules-${name}`), errorMode: { onError: 'abort' } });
      const failed = await waitFinished(host, r.body.id);
      assert.equal(failed.status, 'Failed', name);
      assert.match(failed.error, message);
    }
  });

  it('duplicate ids: the later row wins, as with upsert', async () => {
    const host = await createIndex();
    const rows = records(12, 10);
    rows[9] = { ...rows[9], id: 'r2' };
    const dir = join(root, 'duplicates');
    await writeImportFile(join(dir, '__default__', 'p.parquet'), rows, 5);
    const res = await startImport(host, { uri: dir, errorMode: { onError: 'abort' } });
    const done = await waitFinished(host, res.body.id);
    assert.equal(done.status, 'Completed');
    assert.equal(done.recordsImported, 12);
    assert.equal(await totalCount(host), 11);
    const fetched = await api(server, 'GET', `${host}/vectors/fetch?ids=r2`);
    assert.deepEqual(f32(fetched.body.vectors.r2.values), f32(rows[9].values!));
    assert.deepEqual(fetched.body.vectors.r2.metadata, rows[9].metadata);
  });

  it('cancel stops a running import at a batch boundary; a finished import is left alone', async () => {
    const host = await createIndex();
    const dir = join(root, 'cancel');
    const total = 200_000;
    for (let f = 0; f < 4; f++) {
      await writeImportFile(join(dir, '__default__', `p${f}.parquet`), records(total / 4, 20 + f, `f${f}-`), 10_000);
    }
    const res = await startImport(host, { uri: dir });
    const running = await pollUntil(
      () => api(server, 'GET', `${host}/bulk/imports/${res.body.id}`),
      (r) => r.body.recordsImported > 0,
      60_000,
    );
    assert.equal(running.body.status, 'InProgress', running.text);
    assert.ok(running.body.percentComplete > 0 && running.body.percentComplete < 100, running.text);
    const cancel = await api(server, 'DELETE', `${host}/bulk/imports/${res.body.id}`);
    assert.equal(cancel.status, 200, cancel.text);
    assert.deepEqual(cancel.body, {});
    const done = await waitFinished(host, res.body.id);
    assert.equal(done.status, 'Cancelled');
    assert.ok(done.recordsImported < total, JSON.stringify(done));
    assert.equal(done.recordsImported % BATCH_ROWS, 0, 'cancellation happens between batches');
    assert.equal(await totalCount(host), done.recordsImported, 'what was reported is what was written');

    const again = await api(server, 'DELETE', `${host}/bulk/imports/${res.body.id}`);
    assert.equal(again.status, 200);
    assert.equal((await api(server, 'GET', `${host}/bulk/imports/${res.body.id}`)).body.status, 'Cancelled');
  });
});

describe('bulk import without CONIFER_IMPORT_ROOT', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await stopAndClean(server);
  });

  it('is refused with a message saying how to enable it', async () => {
    const created = await api(server, 'POST', '/indexes', { body: serverlessBody('no-root', { dimension: DIM }) });
    const res = await api(server, 'POST', `${created.body.host}/bulk/imports`, { body: { uri: tmpdir() } });
    assertDataPlaneError(res, 403, 'FORBIDDEN', 7);
    assert.match(res.body.error.message, /disabled.*CONIFER_IMPORT_ROOT.*--import-root/);
  });
});

describe('bulk import across a restart', () => {
  it('resumes from the last committed batch and completes with every record exactly once', async () => {
    const root = mkdtempSync(join(tmpdir(), 'conifer-import-root-'));
    const env = { CONIFER_IMPORT_ROOT: root };
    let server = await startServer({ env });
    const dataDir = server.dataDir;
    try {
      const total = 120_000;
      const all: ParquetRecord[] = [];
      for (let f = 0; f < 3; f++) {
        const part = records(total / 3, 40 + f, `f${f}-`);
        all.push(...part);
        await writeImportFile(join(root, 'big', 'ns', `p${f}.parquet`), part, 8000);
      }
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('restart', { dimension: DIM }) });
      const host = created.body.host as string;
      const res = await api(server, 'POST', `${host}/bulk/imports`, { body: { uri: join(root, 'big') } });
      assert.equal(res.status, 200, res.text);
      const running = await pollUntil(
        () => api(server, 'GET', `${host}/bulk/imports/${res.body.id}`),
        (r) => r.body.recordsImported > 0,
        60_000,
      );
      assert.equal(running.body.status, 'InProgress', running.text);
      await server.kill();

      server = await startServer({ dataDir, env });
      // The port changed: the index host is the new server's.
      const host2 = (await api(server, 'GET', '/indexes/restart')).body.host as string;
      const done = await pollUntil(
        () => api(server, 'GET', `${host2}/bulk/imports/${res.body.id}`),
        (r) => r.status === 200 && ['Completed', 'Failed', 'Cancelled'].includes(r.body.status),
        120_000,
      );
      assert.equal(done.body.status, 'Completed', done.text);
      assert.equal(done.body.recordsImported, total);
      const stats = await api(server, 'POST', `${host2}/describe_index_stats`, { body: {} });
      assert.equal(stats.body.namespaces.ns.recordCount, total);
      const rand = prng(99);
      const sample = Array.from({ length: 50 }, () => all[Math.floor(rand() * all.length)]);
      const fetched = await api(server, 'GET', `${host2}/vectors/fetch?namespace=ns&${sample.map((r) => `ids=${r.id}`).join('&')}`);
      for (const r of sample) assert.deepEqual(f32(fetched.body.vectors[r.id].values), f32(r.values!), r.id);
    } finally {
      await stopAndClean(server, dataDir);
      removeDir(root);
    }
  });
});

/**
 * An index fed by an import of 4 batches whose second batch holds FAULT_IMPORT_KILL_ID:
 * with CONIFER_FAULT_INJECTION=1 the server SIGKILLs itself right after that batch
 * committed, before the catalog saved the import's progress. Resolves once it is dead.
 */
async function importUntilKilled(name: string, root: string): Promise<{ dataDir: string; importId: string; all: ParquetRecord[] }> {
  const all = records(4 * BATCH_ROWS, 70, `${name}-`);
  all[BATCH_ROWS + 123].id = FAULT_IMPORT_KILL_ID;
  // Row groups of BATCH_ROWS: the reader cuts batches within row groups, so batch k is rows [5000k, 5000k + 5000).
  await writeImportFile(join(root, name, 'ns', 'p.parquet'), all, BATCH_ROWS);
  const server = await startServer({ env: { CONIFER_IMPORT_ROOT: root, CONIFER_FAULT_INJECTION: '1' } });
  const exited = new Promise<void>((resolve) => server.proc.once('exit', () => resolve()));
  let importId: string;
  try {
    const created = await api(server, 'POST', '/indexes', { body: serverlessBody(name, { dimension: DIM }) });
    assert.equal(created.status, 201, created.text);
    const res = await api(server, 'POST', `${created.body.host}/bulk/imports`, { body: { uri: join(root, name) } });
    assert.equal(res.status, 200, res.text);
    importId = res.body.id as string;
    let timer: NodeJS.Timeout | undefined;
    const died = await Promise.race([exited.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), 60_000)))]);
    clearTimeout(timer);
    assert.ok(died, `the server did not kill itself after the second batch:\n${server.output()}`);
    assert.equal(server.proc.signalCode, 'SIGKILL');
  } catch (err) {
    if (server.proc.exitCode === null && server.proc.signalCode === null) await server.kill();
    removeDir(server.dataDir);
    throw err;
  }
  return { dataDir: server.dataDir, importId, all };
}

describe('bulk import killed between a batch commit and its progress save', () => {
  it('the resumed import starts after that batch: every record once, counts exact, no batch written twice', async () => {
    const root = mkdtempSync(join(tmpdir(), 'conifer-import-root-'));
    let server: TestServer | undefined;
    let dataDir: string | undefined;
    try {
      const killed = await importUntilKilled('killed', root);
      dataDir = killed.dataDir;
      server = await startServer({ dataDir, env: { CONIFER_IMPORT_ROOT: root } });
      const host = (await api(server, 'GET', '/indexes/killed')).body.host as string;
      const done = await pollUntil(
        () => api(server!, 'GET', `${host}/bulk/imports/${killed.importId}`),
        (r) => r.status === 200 && ['Completed', 'Failed', 'Cancelled'].includes(r.body.status),
        120_000,
      );
      assert.equal(done.body.status, 'Completed', done.text);
      assert.equal(done.body.recordsImported, 4 * BATCH_ROWS);
      assert.equal(done.body.percentComplete, 100);
      const stats = await api(server, 'POST', `${host}/describe_index_stats`, { body: {} });
      assert.equal(stats.body.namespaces.ns.recordCount, 4 * BATCH_ROWS);
      // One seq per record written: a resume that wrote the second batch again would have used 5000 more.
      assert.equal(stats.headers.get('x-pinecone-max-indexed-lsn'), String(4 * BATCH_ROWS));
      const sample = [0, BATCH_ROWS - 1, BATCH_ROWS, BATCH_ROWS + 123, 2 * BATCH_ROWS - 1, 2 * BATCH_ROWS, 4 * BATCH_ROWS - 1].map((i) => killed.all[i]);
      const fetched = await api(server, 'GET', `${host}/vectors/fetch?namespace=ns&${sample.map((r) => `ids=${r.id}`).join('&')}`);
      assert.equal(fetched.status, 200, fetched.text);
      for (const r of sample) {
        assert.deepEqual(f32(fetched.body.vectors[r.id].values), f32(r.values!), r.id);
        assert.deepEqual(fetched.body.vectors[r.id].metadata, r.metadata, r.id);
      }
    } finally {
      await stopAndClean(server, dataDir);
      removeDir(root);
    }
  });

  it('a resume that fails at once reports exactly the records the index holds, the killed batch included', async () => {
    const root = mkdtempSync(join(tmpdir(), 'conifer-import-root-'));
    let server: TestServer | undefined;
    let dataDir: string | undefined;
    try {
      const killed = await importUntilKilled('killed-full', root);
      dataDir = killed.dataDir;
      // Below the free-space threshold: the resumed import fails at its first batch.
      server = await startServer({
        dataDir,
        env: { CONIFER_IMPORT_ROOT: root, CONIFER_MIN_FREE_BYTES: String(2 ** 52), CONIFER_DISK_RESERVE_BYTES: '0' },
      });
      const host = (await api(server, 'GET', '/indexes/killed-full')).body.host as string;
      const done = await pollUntil(
        () => api(server!, 'GET', `${host}/bulk/imports/${killed.importId}`),
        (r) => r.status === 200 && ['Completed', 'Failed', 'Cancelled'].includes(r.body.status),
        60_000,
      );
      assert.equal(done.body.status, 'Failed', done.text);
      assert.equal(done.body.recordsImported, 2 * BATCH_ROWS);
      assert.match(done.body.error, new RegExp(`\\(${2 * BATCH_ROWS} records were imported before the failure and remain in the index\\)`));
      const stats = await api(server, 'POST', `${host}/describe_index_stats`, { body: {} });
      assert.equal(stats.body.namespaces.ns.recordCount, 2 * BATCH_ROWS);
      const fetched = await api(server, 'GET', `${host}/vectors/fetch?namespace=ns&ids=${FAULT_IMPORT_KILL_ID}`);
      assert.deepEqual(f32(fetched.body.vectors[FAULT_IMPORT_KILL_ID].values), f32(killed.all[BATCH_ROWS + 123].values!));
    } finally {
      await stopAndClean(server, dataDir);
      removeDir(root);
    }
  });
  it('an import cancelled before the crash ends Cancelled reporting exactly the records the index holds, the killed batch included', async () => {
    const root = mkdtempSync(join(tmpdir(), 'conifer-import-root-'));
    let server: TestServer | undefined;
    let dataDir: string | undefined;
    try {
      const killed = await importUntilKilled('killed-cancelled', root);
      dataDir = killed.dataDir;
      // The cancel was acknowledged (the catalog holds it) before the process died: set it
      // as DELETE /bulk/imports/{id} does, while the server is down.
      const catalog = new Database(catalogFile(dataDir));
      try {
        assert.equal(catalog.prepare('UPDATE bulk_imports SET cancel_requested = 1 WHERE seq = ?').run(Number(killed.importId)).changes, 1);
      } finally {
        catalog.close();
      }
      server = await startServer({ dataDir, env: { CONIFER_IMPORT_ROOT: root } });
      const host = (await api(server, 'GET', '/indexes/killed-cancelled')).body.host as string;
      const done = await pollUntil(
        () => api(server!, 'GET', `${host}/bulk/imports/${killed.importId}`),
        (r) => r.status === 200 && ['Completed', 'Failed', 'Cancelled'].includes(r.body.status),
        60_000,
      );
      assert.equal(done.body.status, 'Cancelled', done.text);
      assert.equal(done.body.recordsImported, 2 * BATCH_ROWS);
      const stats = await api(server, 'POST', `${host}/describe_index_stats`, { body: {} });
      assert.equal(stats.body.namespaces.ns.recordCount, 2 * BATCH_ROWS);
    } finally {
      await stopAndClean(server, dataDir);
      removeDir(root);
    }
  });
});

describe('bulk import on a full disk', () => {
  it('a resumed import fails at its next batch saying the disk is full; committed batches stay; a new one is a 507', async () => {
    const root = mkdtempSync(join(tmpdir(), 'conifer-import-root-'));
    let server = await startServer({ env: { CONIFER_IMPORT_ROOT: root } });
    const dataDir = server.dataDir;
    try {
      const total = 120_000;
      for (let f = 0; f < 3; f++) await writeImportFile(join(root, 'big', 'ns', `p${f}.parquet`), records(total / 3, 60 + f, `f${f}-`), 8000);
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('full', { dimension: DIM }) });
      const res = await api(server, 'POST', `${created.body.host}/bulk/imports`, { body: { uri: join(root, 'big') } });
      assert.equal(res.status, 200, res.text);
      const running = await pollUntil(
        () => api(server, 'GET', `${created.body.host}/bulk/imports/${res.body.id}`),
        (r) => r.body.recordsImported > 0,
        60_000,
      );
      assert.equal(running.body.status, 'InProgress', running.text);
      await server.kill();

      // No volume has 4 PiB free: below the threshold, as on a full disk.
      server = await startServer({
        dataDir,
        env: { CONIFER_IMPORT_ROOT: root, CONIFER_MIN_FREE_BYTES: String(2 ** 52), CONIFER_DISK_RESERVE_BYTES: '0' },
      });
      const host = (await api(server, 'GET', '/indexes/full')).body.host as string;
      const done = await pollUntil(
        () => api(server, 'GET', `${host}/bulk/imports/${res.body.id}`),
        (r) => r.status === 200 && ['Completed', 'Failed', 'Cancelled'].includes(r.body.status),
        60_000,
      );
      assert.equal(done.body.status, 'Failed', done.text);
      assert.match(done.body.error, /^the disk is full: a bulk import batch refused/);
      const kept = done.body.recordsImported as number;
      assert.ok(kept > 0 && kept < total, `committed batches stay: ${kept}`);
      assert.match(done.body.error, new RegExp(`\\(${kept} records were imported before the failure and remain in the index\\)`));
      const stats = await api(server, 'POST', `${host}/describe_index_stats`, { body: {} });
      assert.equal(stats.body.namespaces.ns.recordCount, kept);

      const again = await api(server, 'POST', `${host}/bulk/imports`, { body: { uri: join(root, 'big') } });
      assert.equal(again.status, 507, again.text);
      assert.equal(again.body.error.code, 'INSUFFICIENT_STORAGE');
      assert.match(again.body.error.message, /disk is full: starting a bulk import refused/);
    } finally {
      await stopAndClean(server, dataDir);
      removeDir(root);
    }
  });
});
