// `conifer export` beside a running server, then `conifer import` of its output into a
// new index (through the server's /bulk/imports): every record comes back bit for bit —
// float32 dense values, sparse values, metadata — in every namespace. And the official
// client 8.2.0's startImport / listImports / describeImport / cancelImport, unmodified.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pinecone } from '@pinecone-database/pinecone';
import { startServer, api, runCli, removeDir, type TestServer } from '../helpers/server.js';
import { writeImportFile } from '../helpers/parquet.js';
import { prng } from '../helpers/prng.js';
import { pollUntil, stopAndClean } from '../server/support.js';

const DIM = 6;

interface WireRecord {
  id: string;
  values: number[];
  sparseValues?: { indices: number[]; values: number[] };
  metadata?: Record<string, unknown>;
}

describe('export and import round trip', () => {
  let server: TestServer;
  let root: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'conifer-export-root-'));
    server = await startServer({ env: { CONIFER_IMPORT_ROOT: root } });
  });

  after(async () => {
    await stopAndClean(server);
    removeDir(root);
  });

  async function createIndex(name: string): Promise<string> {
    const res = await api(server, 'POST', '/indexes', {
      body: { name, dimension: DIM, metric: 'dotproduct', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.host as string;
  }

  /** Every record of a namespace, through list + fetch, keyed by id. */
  async function dump(host: string, namespace: string): Promise<Map<string, WireRecord>> {
    const out = new Map<string, WireRecord>();
    let token: string | undefined;
    for (let page = 0; page < 100; page++) {
      const list = await api(
        server,
        'GET',
        `${host}/vectors/list?namespace=${namespace}&limit=100${token ? `&paginationToken=${token}` : ''}`,
      );
      assert.equal(list.status, 200, list.text);
      const ids: string[] = list.body.vectors.map((v: { id: string }) => v.id);
      if (ids.length > 0) {
        const fetched = await api(server, 'GET', `${host}/vectors/fetch?namespace=${namespace}&${ids.map((id) => `ids=${encodeURIComponent(id)}`).join('&')}`);
        for (const id of ids) out.set(id, fetched.body.vectors[id]);
      }
      token = list.body.pagination?.next;
      if (!token) return out;
    }
    assert.fail('listing did not end');
  }

  it('round-trips every record bit for bit, in every namespace, while the server keeps running', async () => {
    const source = await createIndex('source');
    const rand = prng(7);
    const namespaces = { '': 230, books: 140 } as Record<string, number>;
    for (const [ns, count] of Object.entries(namespaces)) {
      for (let start = 0; start < count; start += 100) {
        const vectors = Array.from({ length: Math.min(100, count - start) }, (_, k) => {
          const i = start + k;
          const v: Record<string, unknown> = {
            id: `${ns || 'd'}-${i}`,
            // Full-precision doubles: the server keeps their float32 rounding.
            values: Array.from({ length: DIM }, () => (rand() - 0.5) * 10 ** Math.floor(rand() * 8 - 4)),
          };
          if (i % 3 !== 0) {
            v.sparseValues = { indices: [i, i + 7, 4294967295 - i], values: [rand(), -rand(), 1e-7 * rand()] };
          }
          if (i % 4 !== 0) {
            v.metadata = { n: i, ratio: rand(), big: 2 ** 53 - i, text: `é ${i} "q"`, tags: ['a', `t${i}`], flag: i % 2 === 0 };
          }
          return v;
        });
        const res = await api(server, 'POST', `${source}/vectors/upsert`, { body: { namespace: ns, vectors } });
        assert.equal(res.status, 200, res.text);
      }
    }

    const out = join(root, 'exported');
    const exported = await runCli(['export', '--index', 'source', '--out', out, '--data-dir', server.dataDir]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual(JSON.parse(exported.stdout), { namespaces: 2, records: 370, out });
    assert.deepEqual(readdirSync(out).sort(), ['__default__', 'books']);
    // Writes after the export's snapshot are not in it.
    await api(server, 'POST', `${source}/vectors/upsert`, { body: { vectors: [{ id: 'late', values: [1, 1, 1, 1, 1, 1] }] } });

    await createIndex('target');
    const imported = await runCli(['import', '--index', 'target', out, '--url', server.url, '--api-key', server.apiKey]);
    assert.equal(imported.code, 0, imported.stderr);
    const model = JSON.parse(imported.stdout);
    assert.equal(model.status, 'Completed');
    assert.equal(model.recordsImported, 370);
    assert.match(imported.stderr, /100\.0% 370 records/, 'plain progress lines when not on a terminal');

    const target = (await api(server, 'GET', '/indexes/target')).body.host as string;
    for (const ns of Object.keys(namespaces)) {
      const want = await dump(source, ns);
      const got = await dump(target, ns);
      want.delete('late');
      assert.equal(got.size, namespaces[ns]);
      // The JSON form of a float32 is its shortest round-trip decimal: equal text is equal bits.
      assert.deepEqual(got, want, `namespace ${JSON.stringify(ns)}`);
    }
  });

  it('export refuses a non-empty output directory and an unknown index', async () => {
    const busy = await runCli(['export', '--index', 'source', '--out', root, '--data-dir', server.dataDir]);
    assert.notEqual(busy.code, 0);
    assert.match(busy.stderr, /not empty/);
    const unknown = await runCli(['export', '--index', 'nope', '--out', join(root, 'x'), '--data-dir', server.dataDir]);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /index "nope" does not exist/);
  });

  it('export refuses, before writing anything, a namespace whose name is longer than a directory name may be', async () => {
    const host = await createIndex('long-ns');
    const long = 'n'.repeat(300); // a valid namespace (512 characters at most); a file name is 255 bytes at most
    for (const ns of ['aaa', long, 'zzz']) {
      const res = await api(server, 'POST', `${host}/vectors/upsert`, { body: { vectors: [{ id: 'x', values: Array.from({ length: DIM }, (_, i) => i + 1) }], namespace: ns } });
      assert.equal(res.status, 200, res.text);
    }
    const out = join(root, 'long-ns');
    const refused = await runCli(['export', '--index', 'long-ns', '--out', out, '--data-dir', server.dataDir]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /cannot be a directory name \(a single path segment of at most 255 bytes\); export the other namespaces with --namespace/);
    assert.deepEqual(readdirSync(out), []);
    const one = await runCli(['export', '--index', 'long-ns', '--namespace', 'zzz', '--out', out, '--data-dir', server.dataDir]);
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(readdirSync(out), ['zzz']);
  });

  it('client 8.2.0 startImport, listImports, describeImport and cancelImport work unmodified', async () => {
    await api(server, 'POST', '/indexes', {
      body: { name: 'client', dimension: 3, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
    });
    const dir = join(root, 'client-data');
    await writeImportFile(join(dir, '__default__', 'p.parquet'), [
      { id: 'x', values: [1, 2, 3], metadata: { k: 'v' } },
      { id: 'y', values: [3, 2, 1] },
    ]);
    const pc = new Pinecone({ apiKey: server.apiKey, controllerHostUrl: server.url });
    const index = pc.index({ name: 'client' });

    const started = await index.startImport({ uri: `file://${dir}`, errorMode: 'abort' });
    assert.match(started.id ?? '', /^\d+$/);
    const described = await pollUntil(
      () => index.describeImport(started.id!),
      (m) => m.status === 'Completed' || m.status === 'Failed',
      30_000,
    );
    assert.equal(described.status, 'Completed');
    assert.equal(described.recordsImported, 2);
    assert.equal(described.percentComplete, 100);
    assert.ok(described.createdAt instanceof Date && !Number.isNaN(described.createdAt.getTime()));
    assert.ok(described.finishedAt instanceof Date);

    const listed = await index.listImports();
    assert.deepEqual(listed.data?.map((m) => m.id), [started.id]);
    assert.equal(listed.pagination, undefined);

    // Cancelling a finished import has no effect.
    await index.cancelImport(started.id!);
    assert.equal((await index.describeImport(started.id!)).status, 'Completed');

    const fetched = await index.fetch({ ids: ['x'] });
    assert.deepEqual(fetched.records.x.metadata, { k: 'v' });

    await assert.rejects(index.startImport({ uri: 's3://bucket/data/' }), /only local sources are supported/);
  });
});
