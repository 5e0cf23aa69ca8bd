// The official TypeScript client 9.0.0 (API 2026-07: deployment + schema index model),
// installed as the alias @pinecone-database/pinecone-v9, driven end to end against one
// server (issue 5, "Done when"); and interop with client 8.2.0 and raw 2026-04 HTTP on the
// same indexes, both ways.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Pinecone, Errors } from '@pinecone-database/pinecone-v9';
import type { IndexModel } from '@pinecone-database/pinecone-v9';
import { Pinecone as Pinecone8 } from '@pinecone-database/pinecone';
import { startServer, api, type TestServer } from '../helpers/server.js';
import { stopAndClean, hostId } from '../server/support.js';
import { assertBothModels, poll, V2604 } from './support-2607.js';

type Meta = { genre: string; year: number };

const REC = [
  { id: 'a', values: [1, 0, 0, 0], metadata: { genre: 'drama', year: 2001 } },
  { id: 'b', values: [0, 1, 0, 0], metadata: { genre: 'comedy', year: 2010 } },
  { id: 'c', values: [0.75, 0.25, 0, 0], metadata: { genre: 'drama', year: 2020 } },
  { id: 'd', values: [0, 0, 1, 0], metadata: { genre: 'action', year: 1999 } },
];

/** Calls `fn` and returns what it threw (fails when it did not throw). */
async function thrown(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    return e as Error;
  }
  assert.fail('expected the call to throw');
}

/** `type` of a schema field (untyped legacy metadata fields have none). */
function fieldType(field: unknown): string | undefined {
  return (field as { type?: string } | undefined)?.type;
}

/** Every legacy getter of a v9 model, read without throwing. */
function legacy(model: IndexModel): { dimension?: number; metric: string; vectorType: string; spec: unknown; embed: unknown } {
  return { dimension: model.dimension, metric: model.metric, vectorType: model.vectorType, spec: model.spec, embed: model.embed };
}

describe('official TypeScript client 9.0.0 (API 2026-07)', () => {
  let server: TestServer;
  let pc: Pinecone;
  let pc8: Pinecone8;
  let denseHost = '';
  let backupId = '';

  before(async () => {
    server = await startServer();
    pc = new Pinecone({ apiKey: server.apiKey, controllerHostUrl: server.url, maxRetries: 0 });
    pc8 = new Pinecone8({ apiKey: server.apiKey, controllerHostUrl: server.url, maxRetries: 0 });
  });

  after(async () => {
    await stopAndClean(server);
  });

  describe('control plane', () => {
    it('indexes.create (legacy options) makes a dense serverless index with tags and deletion protection', async () => {
      const model = await pc.indexes.create({
        name: 'v9-dense',
        dimension: 4,
        metric: 'cosine',
        spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
        tags: { team: 'search', env: 'dev' },
        deletionProtection: 'enabled',
      });
      assert.ok(model, 'create returned nothing');
      assert.equal(model.name, 'v9-dense');
      assert.equal(model.status.ready, true);
      assert.equal(model.status.state, 'Ready');
      assert.equal(model.deletionProtection, 'enabled');
      assert.deepEqual(model.tags, { team: 'search', env: 'dev' });
      // 2026-07 model, parsed by v9
      assert.equal(model.deployment.deploymentType, 'managed');
      const dep = model.deployment as { cloud?: string; region?: string };
      assert.equal(dep.cloud, 'aws');
      assert.equal(dep.region, 'us-east-1');
      const values = model.schema.fields._values as { type?: string; dimension?: number; metric?: string };
      assert.deepEqual([values.type, values.dimension, values.metric], ['dense_vector', 4, 'cosine']);
      assert.equal(fieldType(model.schema.fields._sparse_values), 'sparse_vector');
      assert.equal(model.readCapacity?.mode, 'OnDemand');
      // legacy getters derived from it
      const l = legacy(model);
      assert.equal(l.dimension, 4);
      assert.equal(l.metric, 'cosine');
      assert.equal(l.vectorType, 'dense');
      assert.equal(l.embed, undefined);
      const spec = l.spec as { serverless?: { cloud: string; region: string; readCapacity?: { mode: string } } };
      assert.equal(spec.serverless?.cloud, 'aws');
      assert.equal(spec.serverless?.region, 'us-east-1');
      assert.equal(spec.serverless?.readCapacity?.mode, 'OnDemand');
      denseHost = model.host;
      hostId(model.host, 'v9-dense', server.url);
    });

    it('createIndex sparse (vectorType sparse) reports only _sparse_values, dotproduct and no dimension', async () => {
      const model = await pc.createIndex({
        name: 'v9-sparse',
        vectorType: 'sparse',
        spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
      });
      assert.ok(model);
      assert.deepEqual(Object.keys(model.schema.fields), ['_sparse_values']);
      assert.equal(fieldType(model.schema.fields._sparse_values), 'sparse_vector');
      const l = legacy(model);
      assert.equal(l.vectorType, 'sparse');
      assert.equal(l.metric, 'dotproduct');
      assert.equal(l.dimension, undefined);
      assert.equal(model.deletionProtection, 'disabled');
    });

    it('indexes.create with the native 2026-07 options (schema + deployment + dedicated read capacity)', async () => {
      const model = await pc.indexes.create({
        name: 'v9-native',
        schema: { fields: { _values: { type: 'dense_vector', dimension: 3, metric: 'euclidean' } } },
        deployment: { deploymentType: 'managed', cloud: 'gcp', region: 'europe-west4' },
        readCapacity: { mode: 'Dedicated', dedicated: { nodeType: 'b1', scaling: 'Manual', manual: { replicas: 1, shards: 1 } } },
      });
      assert.ok(model);
      assert.equal(model.dimension, 3);
      assert.equal(model.metric, 'euclidean');
      const dep = model.deployment as { deploymentType: string; cloud?: string; region?: string };
      assert.equal(dep.deploymentType, 'managed');
      assert.equal(dep.cloud, 'gcp');
      assert.equal(dep.region, 'europe-west4');
      assert.equal(model.readCapacity?.mode, 'Dedicated');
      const rc = model.readCapacity as { dedicated?: { nodeType: string; scaling: string; manual: { replicas: number; shards: number } } };
      assert.deepEqual(rc.dedicated, { nodeType: 'b1', scaling: 'Manual', manual: { replicas: 1, shards: 1 } });
    });

    it('describe parses deployment/schema and every legacy getter works', async () => {
      const model = await pc.indexes.describe('v9-dense');
      assert.equal(model.name, 'v9-dense');
      assert.equal(model.host, denseHost);
      assert.equal(model.deployment.deploymentType, 'managed');
      assert.equal(fieldType(model.schema.fields._values), 'dense_vector');
      const l = legacy(model);
      assert.equal(l.dimension, 4);
      assert.equal(l.metric, 'cosine');
      assert.equal(l.vectorType, 'dense');
      // the Pinecone-level alias too
      const again = await pc.describeIndex('v9-sparse');
      assert.equal(again.vectorType, 'sparse');
      assert.equal(again.dimension, undefined);
    });

    it('list returns every index, each with working legacy getters', async () => {
      const list = await pc.indexes.list();
      const names = (list.indexes ?? []).map((i) => i.name).sort();
      assert.deepEqual(names, ['v9-dense', 'v9-native', 'v9-sparse']);
      for (const model of list.indexes ?? []) {
        const l = legacy(model);
        assert.ok(['dense', 'sparse'].includes(l.vectorType), model.name);
        assert.ok(l.spec && typeof l.spec === 'object', model.name);
      }
      const legacyList = await pc.listIndexes();
      assert.equal(legacyList.indexes?.length, 3);
    });

    it('configure tags (merged; "" removes a key) and deletion protection', async () => {
      const model = await pc.indexes.configure('v9-dense', { tags: { env: '', owner: 'ana' }, deletionProtection: 'disabled' });
      assert.deepEqual(model.tags, { team: 'search', owner: 'ana' });
      assert.equal(model.deletionProtection, 'disabled');
      assert.equal(model.dimension, 4);
      const described = await pc.describeIndex('v9-dense');
      assert.deepEqual(described.tags, { team: 'search', owner: 'ana' });
      assert.equal(described.deletionProtection, 'disabled');
      // Pinecone-level alias with the name in the options
      const again = await pc.configureIndex({ name: 'v9-dense', deletionProtection: 'enabled' });
      assert.equal(again.deletionProtection, 'enabled');
    });

    it('configure read capacity: OnDemand -> Dedicated, a node_type-only patch keeps replicas/shards, back to OnDemand', async () => {
      const dedicated = await pc.indexes.configure('v9-sparse', {
        readCapacity: { mode: 'Dedicated', dedicated: { nodeType: 't1', scaling: 'Manual', manual: { replicas: 2, shards: 1 } } },
      });
      assert.equal(dedicated.readCapacity?.mode, 'Dedicated');
      const rc = dedicated.readCapacity as { dedicated?: { nodeType: string; manual: { replicas: number; shards: number } } };
      assert.equal(rc.dedicated?.nodeType, 't1');
      assert.deepEqual(rc.dedicated?.manual, { replicas: 2, shards: 1 });
      // legacy getter carries it as well
      const spec = dedicated.spec as { serverless?: { readCapacity?: { mode: string } } };
      assert.equal(spec.serverless?.readCapacity?.mode, 'Dedicated');

      const patched = await pc.indexes.configure('v9-sparse', { readCapacity: { mode: 'Dedicated', dedicated: { nodeType: 'b1' } } });
      const rc2 = patched.readCapacity as { dedicated?: { nodeType: string; scaling: string; manual: { replicas: number; shards: number } } };
      assert.equal(rc2.dedicated?.nodeType, 'b1');
      assert.equal(rc2.dedicated?.scaling, 'Manual');
      assert.deepEqual(rc2.dedicated?.manual, { replicas: 2, shards: 1 });

      const back = await pc.indexes.configure('v9-sparse', { readCapacity: { mode: 'OnDemand' } });
      assert.equal(back.readCapacity?.mode, 'OnDemand');
    });

    it('delete: protected index is refused (403 -> PineconeBadRequestError); unprotected is deleted', async () => {
      const err = await thrown(() => pc.indexes.delete('v9-dense'));
      assert.ok(err instanceof Errors.PineconeBadRequestError, `${err.name}: ${err.message}`);
      assert.match(err.message, /deletion protection/i);

      await pc.indexes.delete('v9-native');
      const gone = await thrown(() => pc.indexes.describe('v9-native'));
      assert.ok(gone instanceof Errors.PineconeNotFoundError, `${gone.name}: ${gone.message}`);
      const list = await pc.indexes.list();
      assert.deepEqual((list.indexes ?? []).map((i) => i.name).sort(), ['v9-dense', 'v9-sparse']);
    });

    it('typed errors: 404 PineconeNotFoundError, 409 PineconeConflictError, 401 PineconeAuthorizationError', async () => {
      const nf = await thrown(() => pc.indexes.describe('never-created'));
      assert.ok(nf instanceof Errors.PineconeNotFoundError, `${nf.name}: ${nf.message}`);
      assert.equal(nf.name, 'PineconeNotFoundError');

      const opts = { name: 'v9-sparse', vectorType: 'sparse' as const, spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } };
      const conflict = await thrown(() => pc.indexes.create(opts));
      assert.ok(conflict instanceof Errors.PineconeConflictError, `${conflict.name}: ${conflict.message}`);
      assert.equal(conflict.name, 'PineconeConflictError');
      // suppressConflicts turns the 409 into a no-op
      assert.equal(await pc.indexes.create({ ...opts, suppressConflicts: true }), undefined);

      const bad = new Pinecone({ apiKey: 'wrong-key', controllerHostUrl: server.url, maxRetries: 0 });
      const unauth = await thrown(() => bad.indexes.list());
      assert.ok(unauth instanceof Errors.PineconeAuthorizationError, `${unauth.name}: ${unauth.message}`);
      assert.equal(unauth.name, 'PineconeAuthorizationError');
      // the data plane too (host given, so no describe call)
      const badIndex = bad.index({ name: 'v9-dense', host: denseHost });
      const unauthData = await thrown(() => badIndex.fetch({ ids: ['a'] }));
      assert.ok(unauthData instanceof Errors.PineconeAuthorizationError, `${unauthData.name}: ${unauthData.message}`);

      // data-plane 404: an unknown namespace
      const nsErr = await thrown(() => pc.index({ name: 'v9-dense' }).describeNamespace('no-such-namespace'));
      assert.ok(nsErr instanceof Errors.PineconeNotFoundError, `${nsErr.name}: ${nsErr.message}`);
    });
  });

  describe('data plane', () => {
    it('upsert, then fetch returns values and metadata', async () => {
      const index = pc.index<Meta>({ name: 'v9-dense' });
      await index.upsert({ records: REC });
      const res = await index.fetch({ ids: ['a', 'c', 'missing'] });
      assert.deepEqual(Object.keys(res.records).sort(), ['a', 'c']);
      assert.deepEqual(res.records.a.values, [1, 0, 0, 0]);
      assert.deepEqual(res.records.c.metadata, { genre: 'drama', year: 2020 });
    });

    it('query by vector, by id and with a filter', async () => {
      const index = pc.index<Meta>({ name: 'v9-dense' });
      const byVector = await index.query({ vector: [1, 0, 0, 0], topK: 2, includeMetadata: true });
      assert.deepEqual(byVector.matches.map((m) => m.id), ['a', 'c']);
      assert.ok(Math.abs((byVector.matches[0].score ?? 0) - 1) < 1e-6);
      assert.equal(byVector.matches[0].metadata?.genre, 'drama');

      const byId = await index.query({ id: 'b', topK: 1, includeValues: true });
      assert.equal(byId.matches[0].id, 'b');
      assert.deepEqual(byId.matches[0].values, [0, 1, 0, 0]);

      const filtered = await index.query({ vector: [1, 0, 0, 0], topK: 10, filter: { genre: { $eq: 'drama' }, year: { $gte: 2010 } } });
      assert.deepEqual(filtered.matches.map((m) => m.id), ['c']);
    });

    it('list ids (listPaginated) with a prefix and paging', async () => {
      const index = pc.index({ name: 'v9-dense' });
      const all = await index.listPaginated();
      assert.deepEqual((all.vectors ?? []).map((v) => v.id), ['a', 'b', 'c', 'd']);
      const page1 = await index.listPaginated({ limit: 3 });
      assert.deepEqual((page1.vectors ?? []).map((v) => v.id), ['a', 'b', 'c']);
      assert.ok(page1.pagination?.next, 'a next token');
      const page2 = await index.listPaginated({ limit: 3, paginationToken: page1.pagination?.next });
      assert.deepEqual((page2.vectors ?? []).map((v) => v.id), ['d']);
      const prefixed = await index.listPaginated({ prefix: 'c' });
      assert.deepEqual((prefixed.vectors ?? []).map((v) => v.id), ['c']);
    });

    it('fetchByMetadata with a filter', async () => {
      const index = pc.index<Meta>({ name: 'v9-dense' });
      const res = await index.fetchByMetadata({ filter: { genre: 'drama' } });
      assert.deepEqual(Object.keys(res.records).sort(), ['a', 'c']);
    });

    it('update by id (values + merged metadata) and by filter', async () => {
      const index = pc.index<Meta & { seen?: boolean }>({ name: 'v9-dense' });
      await index.update({ id: 'd', values: [0, 0, 0, 1], metadata: { year: 2000 } });
      let res = await index.fetch({ ids: ['d'] });
      assert.deepEqual(res.records.d.values, [0, 0, 0, 1]);
      assert.deepEqual(res.records.d.metadata, { genre: 'action', year: 2000 });

      await index.update({ filter: { genre: 'drama' }, metadata: { seen: true } });
      res = await index.fetch({ ids: ['a', 'b', 'c'] });
      assert.equal(res.records.a.metadata?.seen, true);
      assert.equal(res.records.c.metadata?.seen, true);
      assert.equal(res.records.b.metadata?.seen, undefined);
    });

    it('describeIndexStats counts records per namespace', async () => {
      const index = pc.index({ name: 'v9-dense' });
      await index.namespace('other').upsert({ records: [{ id: 'x', values: [0, 0, 1, 1] }] });
      const stats = await index.describeIndexStats();
      assert.equal(stats.dimension, 4);
      assert.equal(stats.totalRecordCount, 5);
      assert.equal(stats.namespaces?.__default__?.recordCount, 4);
      assert.equal(stats.namespaces?.other?.recordCount, 1);
    });

    it('namespaces: create, list, describe, delete', async () => {
      const index = pc.index({ name: 'v9-dense' });
      const created = await index.createNamespace({ name: 'made-by-v9' });
      assert.equal(created.name, 'made-by-v9');
      assert.equal(Number(created.recordCount), 0);

      const list = await index.listNamespaces();
      const names = (list.namespaces ?? []).map((n) => n.name).sort();
      assert.deepEqual(names, ['__default__', 'made-by-v9', 'other']);

      const described = await index.describeNamespace('other');
      assert.equal(described.name, 'other');
      assert.equal(Number(described.recordCount), 1);

      const conflict = await thrown(() => index.createNamespace({ name: 'made-by-v9' }));
      assert.ok(conflict instanceof Errors.PineconeConflictError, `${conflict.name}: ${conflict.message}`);

      await index.deleteNamespace('made-by-v9');
      const gone = await thrown(() => index.describeNamespace('made-by-v9'));
      assert.ok(gone instanceof Errors.PineconeNotFoundError, `${gone.name}: ${gone.message}`);
    });

    it('delete by ids, by filter and all', async () => {
      const index = pc.index({ name: 'v9-dense' });
      const other = index.namespace('other');
      await other.upsert({
        records: [
          { id: 'y', values: [1, 1, 0, 0], metadata: { k: 1 } },
          { id: 'z', values: [1, 0, 1, 0], metadata: { k: 2 } },
          { id: 'w', values: [0, 1, 1, 0], metadata: { k: 3 } },
        ],
      });
      await other.deleteOne({ id: 'x' });
      await other.deleteMany({ ids: ['y'] });
      let ids = ((await other.listPaginated()).vectors ?? []).map((v) => v.id);
      assert.deepEqual(ids, ['w', 'z']);
      await other.deleteMany({ filter: { k: { $gte: 3 } } });
      ids = ((await other.listPaginated()).vectors ?? []).map((v) => v.id);
      assert.deepEqual(ids, ['z']);
      await other.deleteAll();
      const after = await other.fetch({ ids: ['z'] });
      assert.deepEqual(after.records, {});
      // the default namespace is untouched
      const kept = await index.fetch({ ids: ['a', 'b', 'c', 'd'] });
      assert.equal(Object.keys(kept.records).length, 4);
    });

    it('sparse index: upsert and query sparse vectors', async () => {
      const index = pc.index({ name: 'v9-sparse' });
      await index.upsert({
        records: [
          { id: 's1', sparseValues: { indices: [1, 5], values: [0.5, 0.5] } },
          { id: 's2', sparseValues: { indices: [2, 7], values: [1, 2] } },
        ],
      });
      const res = await index.query({ sparseVector: { indices: [7], values: [1] }, topK: 2 } as never);
      assert.equal(res.matches[0].id, 's2');
      assert.ok(Math.abs((res.matches[0].score ?? 0) - 2) < 1e-6);
    });
  });

  describe('backups and restore', () => {
    it('backups.create -> BackupModel with the 2026-07 schema', async () => {
      const backup = await pc.backups.create('v9-dense', { name: 'v9-backup', description: 'made by client 9' });
      assert.ok(backup.backupId, 'backupId');
      assert.equal(backup.sourceIndexName, 'v9-dense');
      assert.equal(backup.name, 'v9-backup');
      assert.equal(backup.description, 'made by client 9');
      assert.equal(backup.cloud, 'aws');
      assert.equal(backup.region, 'us-east-1');
      assert.ok(['Initializing', 'Ready'].includes(backup.status), backup.status);
      assert.equal(fieldType(backup.schema?.fields._values), 'dense_vector');
      const values = backup.schema?.fields._values as { dimension?: number; metric?: string } | undefined;
      assert.equal(values?.dimension, 4);
      assert.equal(values?.metric, 'cosine');
      backupId = backup.backupId;
    });

    it('backups.describe until Ready; list by index and for the project', async () => {
      const ready = await poll('backup Ready', () => pc.backups.describe(backupId), (b) => b.status !== 'Initializing');
      assert.equal(ready.status, 'Ready');
      assert.equal(ready.recordCount, 4);
      assert.equal(ready.namespaceCount, 1);
      assert.ok(ready.createdAt instanceof Date);

      const byIndex = await pc.backups.listByIndex('v9-dense');
      assert.deepEqual((byIndex.data ?? []).map((b) => b.backupId), [backupId]);
      const all = await pc.backups.list();
      assert.deepEqual((all.data ?? []).map((b) => b.backupId), [backupId]);
      const legacyList = await pc.listBackups({ indexName: 'v9-dense' });
      assert.equal(legacyList.data?.length, 1);
      const legacyDescribe = await pc.describeBackup(backupId);
      assert.equal(legacyDescribe.name, 'v9-backup');
    });

    it('restore: backups.createIndex, describe the restore job until Completed, the index has the records', async () => {
      const started = await pc.backups.createIndex(backupId, { name: 'v9-restored', tags: { from: 'backup' } });
      assert.ok(started.restoreJobId, 'restoreJobId');
      assert.ok(started.indexId, 'indexId');
      const job = await poll(
        'restore job Completed',
        () => pc.restoreJobs.describe(started.restoreJobId),
        (j) => j.status === 'Completed' || j.status === 'Failed',
      );
      assert.equal(job.status, 'Completed');
      assert.equal(job.backupId, backupId);
      assert.equal(job.targetIndexName, 'v9-restored');
      assert.equal(job.percentComplete, 100);
      const jobs = await pc.restoreJobs.list();
      assert.deepEqual((jobs.data ?? []).map((j) => j.restoreJobId), [started.restoreJobId]);
      assert.equal((await pc.describeRestoreJob(started.restoreJobId)).status, 'Completed');

      const model = await pc.indexes.describe('v9-restored');
      assert.equal(model.dimension, 4);
      assert.equal(model.metric, 'cosine');
      assert.deepEqual(model.tags, { from: 'backup' });
      const ready = await poll('restored index ready', () => pc.indexes.describe('v9-restored'), (m) => m.status.ready);
      assert.equal(ready.status.state, 'Ready');
      const index = pc.index({ name: 'v9-restored' });
      const res = await index.fetch({ ids: ['a', 'b', 'c', 'd'] });
      assert.equal(Object.keys(res.records).length, 4);
      assert.deepEqual(res.records.d.values, [0, 0, 0, 1]);
      const q = await index.query({ vector: [0, 1, 0, 0], topK: 1 });
      assert.equal(q.matches[0].id, 'b');
    });

    it('backup errors: unknown backup 404; restore onto an existing name 409', async () => {
      const nf = await thrown(() => pc.backups.describe('00000000-0000-0000-0000-000000000000'));
      assert.ok(nf instanceof Errors.PineconeNotFoundError, `${nf.name}: ${nf.message}`);
      const conflict = await thrown(() => pc.backups.createIndex(backupId, { name: 'v9-sparse' }));
      assert.ok(conflict instanceof Errors.PineconeConflictError, `${conflict.name}: ${conflict.message}`);
    });

    it('backups.delete removes it', async () => {
      await pc.backups.delete(backupId);
      const gone = await thrown(() => pc.backups.describe(backupId));
      assert.ok(gone instanceof Errors.PineconeNotFoundError, `${gone.name}: ${gone.message}`);
      assert.deepEqual((await pc.backups.list()).data ?? [], []);
    });
  });

  describe('interop with client 8.2.0 and raw 2026-04 HTTP', () => {
    it('an index created with v9 is described by 8.2.0 and raw 2026-04 with both models', async () => {
      const m8 = await pc8.describeIndex('v9-dense');
      assert.equal(m8.dimension, 4);
      assert.equal(m8.metric, 'cosine');
      assert.equal(m8.vectorType, 'dense');
      assert.equal(m8.host, denseHost);
      const spec = m8.spec as { serverless?: { cloud: string; region: string } };
      assert.equal(spec.serverless?.cloud, 'aws');
      assert.deepEqual(m8.tags, { team: 'search', owner: 'ana' });

      const raw = await api(server, 'GET', '/indexes/v9-dense', { version: V2604 });
      assert.equal(raw.status, 200, raw.text);
      assertBothModels(raw.body, 'v9-dense via 2026-04');
      assert.equal(raw.body.dimension, 4);
      const sparse = await api(server, 'GET', '/indexes/v9-sparse', { version: V2604 });
      assertBothModels(sparse.body, 'v9-sparse via 2026-04');
      assert.equal(sparse.body.vector_type, 'sparse');
    });

    it('records written by v9 are read by 8.2.0 and raw 2026-04, and their writes are read by v9', async () => {
      const idx8 = pc8.index({ name: 'v9-dense' });
      const fetched8 = await idx8.fetch({ ids: ['a', 'b', 'c', 'd'] });
      assert.deepEqual(Object.keys(fetched8.records).sort(), ['a', 'b', 'c', 'd']);
      assert.deepEqual(fetched8.records.b.values, [0, 1, 0, 0]);
      const q8 = await idx8.query({ vector: [1, 0, 0, 0], topK: 1 });
      assert.equal(q8.matches[0].id, 'a');

      const raw = await api(server, 'GET', `${denseHost}/vectors/fetch?ids=a&ids=d`, { version: V2604 });
      assert.equal(raw.status, 200, raw.text);
      assert.deepEqual(Object.keys(raw.body.vectors).sort(), ['a', 'd']);
      assert.deepEqual(raw.body.vectors.d.metadata, { genre: 'action', year: 2000 });

      await idx8.upsert({ records: [{ id: 'e8', values: [0, 0, 0.5, 0.5], metadata: { genre: 'v8' } }] });
      const up = await api(server, 'POST', `${denseHost}/vectors/upsert`, {
        version: V2604,
        body: { vectors: [{ id: 'r4', values: [0.5, 0.5, 0, 0], metadata: { genre: 'raw' } }] },
      });
      assert.equal(up.status, 200, up.text);
      const f9 = await pc.index({ name: 'v9-dense' }).fetch({ ids: ['e8', 'r4'] });
      assert.deepEqual(Object.keys(f9.records).sort(), ['e8', 'r4']);
      const stats = await pc.index({ name: 'v9-dense' }).describeIndexStats();
      assert.equal(stats.namespaces?.__default__?.recordCount, 6);
    });

    it('a serverless index created with 8.2.0 (metadata schema) is usable from v9', async () => {
      const m8 = await pc8.createIndex({
        name: 'v8-made',
        dimension: 2,
        metric: 'dotproduct',
        spec: { serverless: { cloud: 'aws', region: 'us-east-1', schema: { fields: { genre: { filterable: true } } } } },
        tags: { by: 'v8' },
      });
      assert.ok(m8);
      const m9 = await pc.indexes.describe('v8-made');
      assert.equal(m9.dimension, 2);
      assert.equal(m9.metric, 'dotproduct');
      assert.equal(m9.vectorType, 'dense');
      assert.equal(m9.deployment.deploymentType, 'managed');
      assert.deepEqual(m9.schema.fields.genre, { filterable: true });
      assert.deepEqual(m9.tags, { by: 'v8' });
      const spec = m9.spec as { serverless?: { cloud: string } };
      assert.equal(spec.serverless?.cloud, 'aws');

      await pc8.index({ name: 'v8-made' }).upsert({ records: [{ id: 'p', values: [1, 2], metadata: { genre: 'g' } }] });
      const idx9 = pc.index({ name: 'v8-made' });
      await idx9.upsert({ records: [{ id: 'q', values: [2, 1], metadata: { genre: 'h' } }] });
      const q = await idx9.query({ vector: [1, 0], topK: 2, filter: { genre: 'g' } });
      assert.deepEqual(q.matches.map((m) => m.id), ['p']);
      const f8 = await pc8.index({ name: 'v8-made' }).fetch({ ids: ['q'] });
      assert.deepEqual(f8.records.q.values, [2, 1]);

      const configured = await pc.indexes.configure('v8-made', { tags: { by: 'v9' } });
      assert.deepEqual(configured.tags, { by: 'v9' });
      assert.deepEqual((await pc8.describeIndex('v8-made')).tags, { by: 'v9' });
    });

    it('a pod index created with 8.2.0 is described (deployment pod) and rescaled by v9', async () => {
      await pc8.createIndex({
        name: 'v8-pod',
        dimension: 2,
        metric: 'euclidean',
        spec: { pod: { environment: 'us-east-1-aws', podType: 'p1.x1', pods: 1, replicas: 1, shards: 1 } },
      });
      const m9 = await pc.indexes.describe('v8-pod');
      assert.equal(m9.deployment.deploymentType, 'pod');
      const dep = m9.deployment as { environment?: string; podType?: string; replicas?: number; shards?: number };
      assert.equal(dep.environment, 'us-east-1-aws');
      assert.equal(dep.podType, 'p1.x1');
      assert.equal(m9.dimension, 2);
      assert.equal(m9.metric, 'euclidean');
      const spec = m9.spec as { pod?: { environment: string; podType: string; replicas?: number; pods?: number } };
      assert.equal(spec.pod?.podType, 'p1.x1');
      assert.equal(spec.pod?.pods, 1);

      const scaled = await pc.indexes.configure('v8-pod', { podReplicas: 2, podType: 'p1.x2' });
      const d2 = scaled.deployment as { replicas?: number; podType?: string };
      assert.equal(d2.replicas, 2);
      assert.equal(d2.podType, 'p1.x2');
      const settled = await poll('pod index Ready', () => pc.indexes.describe('v8-pod'), (m) => m.status.ready && m.status.state === 'Ready');
      assert.equal((settled.deployment as { replicas?: number }).replicas, 2);
      const m8 = await pc8.describeIndex('v8-pod');
      const spec8 = m8.spec as { pod?: { replicas?: number; podType: string } };
      assert.equal(spec8.pod?.replicas, 2);
      assert.equal(spec8.pod?.podType, 'p1.x2');

      const idx9 = pc.index({ name: 'v8-pod' });
      await idx9.upsert({ records: [{ id: 'p1', values: [1, 1] }, { id: 'p2', values: [5, 5] }] });
      const q = await pc8.index({ name: 'v8-pod' }).query({ vector: [4, 4], topK: 1 });
      assert.equal(q.matches[0].id, 'p2');
    });

    it('an index created over raw 2026-04 HTTP is usable from v9', async () => {
      const res = await api(server, 'POST', '/indexes', {
        version: V2604,
        body: { name: 'raw-made', vector_type: 'sparse', metric: 'dotproduct', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
      });
      assert.equal(res.status, 201, res.text);
      assertBothModels(res.body, 'raw-made created via 2026-04');
      const up = await api(server, 'POST', `${res.body.host}/vectors/upsert`, {
        version: V2604,
        body: { vectors: [{ id: 'r1', sparseValues: { indices: [3], values: [2] }, metadata: { k: 'v' } }] },
      });
      assert.equal(up.status, 200, up.text);

      const m9 = await pc.indexes.describe('raw-made');
      assert.equal(m9.vectorType, 'sparse');
      assert.equal(m9.metric, 'dotproduct');
      assert.equal(m9.dimension, undefined);
      const idx9 = pc.index({ name: 'raw-made' });
      const f = await idx9.fetch({ ids: ['r1'] });
      assert.deepEqual(f.records.r1.sparseValues, { indices: [3], values: [2] });
      await idx9.upsert({ records: [{ id: 'r2', sparseValues: { indices: [3, 4], values: [1, 1] } }] });
      const listed = await api(server, 'GET', `${res.body.host}/vectors/list`, { version: V2604 });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.vectors.map((v: { id: string }) => v.id), ['r1', 'r2']);

      await pc.indexes.delete('raw-made');
      const gone = await api(server, 'GET', '/indexes/raw-made', { version: V2604 });
      assert.equal(gone.status, 404, gone.text);
    });

    it('every record listed to 2026-04 and 2026-07 carries both models', async () => {
      for (const version of [V2604, '2026-07']) {
        const res = await api(server, 'GET', '/indexes', { version });
        assert.equal(res.status, 200, res.text);
        assert.ok(res.body.indexes.length >= 4, res.text);
        for (const rec of res.body.indexes) assertBothModels(rec, `list ${version}`);
      }
    });
  });
});
