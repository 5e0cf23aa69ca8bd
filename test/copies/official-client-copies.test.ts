// The official TypeScript client @pinecone-database/pinecone 8.2.0 driving collections,
// backups and restores against the server (controllerHostUrl, no retries) — issue 4.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Pinecone, Errors } from '@pinecone-database/pinecone';
import { startServer, api, type TestServer } from '../helpers/server.js';
import { stopAndClean } from '../server/support.js';
import { assertNamespaceHolds, makeRecords, poll, stats, upsert } from './copies-support.js';

describe('official TypeScript client 8.2.0: collections, backups, restores', () => {
  let server: TestServer;
  let pc: Pinecone;
  const podRecs = makeRecords('p', 30, 8);
  const slRecs = makeRecords('s', 40, 8);
  const slNs = makeRecords('n', 6, 8);

  before(async () => {
    server = await startServer();
    pc = new Pinecone({ apiKey: server.apiKey, controllerHostUrl: server.url, maxRetries: 0 });
    const pod = await pc.createIndex({
      name: 'oc-pod',
      dimension: 8,
      metric: 'euclidean',
      spec: { pod: { environment: 'us-east-1-aws', podType: 'p1.x1', pods: 1 } },
    });
    assert.ok(pod);
    await upsert(server, pod.host, podRecs);
    const sl = await pc.createIndex({
      name: 'oc-sl',
      dimension: 8,
      metric: 'cosine',
      spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
    });
    assert.ok(sl);
    await upsert(server, sl.host, slRecs);
    await upsert(server, sl.host, slNs, 'other');
  });

  after(async () => {
    await stopAndClean(server);
  });

  it('createCollection / describeCollection / listCollections / deleteCollection', async () => {
    const created = await pc.createCollection({ name: 'oc-coll', source: 'oc-pod' });
    assert.equal(created.name, 'oc-coll');
    assert.equal(created.status, 'Initializing');
    assert.equal(created.environment, 'us-east-1-aws');
    assert.equal(created.dimension, 8);

    const ready = await poll(
      'oc-coll to be Ready',
      () => pc.describeCollection('oc-coll'),
      (c) => c.status !== 'Initializing',
    );
    assert.equal(ready.status, 'Ready');
    assert.equal(ready.vectorCount, 30);
    assert.ok((ready.size ?? 0) > 0, `size: ${ready.size}`);
    assert.equal(ready.dimension, 8);

    const list = await pc.listCollections();
    assert.ok(Array.isArray(list.collections));
    const listed = list.collections?.find((c) => c.name === 'oc-coll');
    assert.deepEqual(listed, ready);

    // An index from the collection through the client.
    const fromColl = await pc.createIndex({
      name: 'oc-from-coll',
      dimension: 8,
      metric: 'euclidean',
      spec: { pod: { environment: 'us-east-1-aws', podType: 'p1.x1', sourceCollection: 'oc-coll' } },
    });
    assert.ok(fromColl);
    assert.equal((fromColl.spec as { pod?: { sourceCollection?: string } }).pod?.sourceCollection, 'oc-coll');
    const described = await poll('oc-from-coll to be Ready', () => pc.describeIndex('oc-from-coll'), (i) => i.status.ready);
    assert.equal(described.status.ready, true);
    await assertNamespaceHolds(server, described.host, '', podRecs);

    await assert.rejects(pc.createCollection({ name: 'oc-coll', source: 'oc-pod' }), Errors.PineconeConflictError);
    await assert.rejects(pc.createCollection({ name: 'oc-bad', source: 'oc-sl' }), Errors.PineconeBadRequestError);

    await pc.deleteCollection('oc-coll');
    await poll(
      'oc-coll to be gone',
      async () => {
        try {
          return (await pc.describeCollection('oc-coll')).status;
        } catch (err) {
          return err;
        }
      },
      (v) => typeof v !== 'string',
    ).then((err) => assert.ok(err instanceof Errors.PineconeNotFoundError, String(err)));
    assert.ok(!(await pc.listCollections()).collections?.some((c) => c.name === 'oc-coll'));
    await assert.rejects(pc.describeCollection('oc-coll'), Errors.PineconeNotFoundError);
  });

  it('createBackup / describeBackup / listBackups (paged) / deleteBackup', async () => {
    const b = await pc.createBackup({ indexName: 'oc-sl', name: 'oc-backup', description: 'client made' });
    assert.equal(typeof b.backupId, 'string');
    assert.equal(b.name, 'oc-backup');
    assert.equal(b.description, 'client made');
    assert.equal(b.sourceIndexName, 'oc-sl');
    assert.equal(typeof b.sourceIndexId, 'string');
    assert.equal(b.status, 'Initializing');
    assert.equal(b.cloud, 'aws');
    assert.equal(b.region, 'us-east-1');
    assert.equal(b.dimension, 8);
    assert.equal(b.metric, 'cosine');
    assert.equal(b.recordCount, 46);
    assert.equal(b.namespaceCount, 2);
    assert.ok(b.createdAt !== undefined && !Number.isNaN(Date.parse(String(b.createdAt))), `createdAt: ${String(b.createdAt)}`);

    const ready = await poll('oc-backup to be Ready', () => pc.describeBackup(b.backupId), (x) => x.status !== 'Initializing');
    assert.equal(ready.status, 'Ready');
    assert.equal(ready.recordCount, 46);
    assert.ok((ready.sizeBytes ?? 0) > 0);

    const second = await pc.createBackup({ indexName: 'oc-sl' });
    const third = await pc.createBackup({ indexName: 'oc-sl', name: 'oc-third' });
    const p1 = await pc.listBackups({ indexName: 'oc-sl', limit: 2 });
    assert.equal(p1.data?.length, 2);
    assert.ok(p1.pagination?.next, 'a next token on the first page');
    assert.deepEqual(
      p1.data?.map((x) => x.backupId),
      [third.backupId, second.backupId],
      'newest first',
    );
    const p2 = await pc.listBackups({ indexName: 'oc-sl', limit: 2, paginationToken: p1.pagination?.next });
    assert.deepEqual(p2.data?.map((x) => x.backupId), [b.backupId]);
    assert.equal(p2.pagination, undefined);
    const all = await pc.listBackups({});
    assert.deepEqual(
      new Set(all.data?.map((x) => x.backupId)),
      new Set([b.backupId, second.backupId, third.backupId]),
    );
    await assert.rejects(pc.listBackups({ indexName: 'no-such-index' }), Errors.PineconeNotFoundError);

    for (const x of [second, third]) {
      await poll('backup Ready', () => pc.describeBackup(x.backupId), (y) => y.status !== 'Initializing');
      await pc.deleteBackup(x.backupId);
      await assert.rejects(pc.describeBackup(x.backupId), Errors.PineconeNotFoundError);
    }
    assert.deepEqual((await pc.listBackups({ indexName: 'oc-sl' })).data?.map((x) => x.backupId), [b.backupId]);
    await assert.rejects(pc.createBackup({ indexName: 'no-such-index' }), Errors.PineconeNotFoundError);
  });

  it('createIndexFromBackup / describeRestoreJob / listRestoreJobs, and the restored index holds the records', async () => {
    const backups = await pc.listBackups({ indexName: 'oc-sl' });
    const backupId = backups.data?.[0]?.backupId;
    assert.ok(backupId);

    const started = await pc.createIndexFromBackup({ backupId, name: 'oc-restored', tags: { from: 'backup' } });
    assert.equal(typeof started.restoreJobId, 'string');
    assert.equal(typeof started.indexId, 'string');

    const job = await poll(
      'the restore job to finish',
      () => pc.describeRestoreJob(started.restoreJobId),
      (j) => j.status !== 'Pending',
    );
    assert.equal(job.status, 'Completed');
    assert.equal(job.restoreJobId, started.restoreJobId);
    assert.equal(job.backupId, backupId);
    assert.equal(job.targetIndexName, 'oc-restored');
    assert.equal(job.targetIndexId, started.indexId);
    assert.equal(job.percentComplete, 100);
    assert.ok(job.createdAt instanceof Date && !Number.isNaN(job.createdAt.getTime()));
    assert.ok(job.completedAt instanceof Date && job.completedAt.getTime() >= job.createdAt.getTime());

    const jobs = await pc.listRestoreJobs({ limit: 10 });
    assert.ok(jobs.data?.some((j) => j.restoreJobId === started.restoreJobId));

    const idx = await poll('oc-restored to be Ready', () => pc.describeIndex('oc-restored'), (i) => i.status.ready);
    assert.equal(idx.dimension, 8);
    assert.equal(idx.metric, 'cosine');
    assert.deepEqual(idx.tags, { from: 'backup' });
    const s = await stats(server, idx.host);
    assert.equal(s.totalVectorCount, 46);
    await assertNamespaceHolds(server, idx.host, '', slRecs);
    await assertNamespaceHolds(server, idx.host, 'other', slNs);

    // The data plane through the client works on the restored index.
    const fetched = await pc.index({ name: 'oc-restored', host: idx.host }).fetch({ ids: [slRecs[0].id] });
    assert.deepEqual(fetched.records[slRecs[0].id]?.values, slRecs[0].values);

    await assert.rejects(pc.createIndexFromBackup({ backupId, name: 'oc-restored' }), Errors.PineconeConflictError);
    await assert.rejects(
      pc.createIndexFromBackup({ backupId: '00000000-0000-0000-0000-000000000000', name: 'oc-nowhere' }),
      Errors.PineconeNotFoundError,
    );
    await assert.rejects(pc.describeRestoreJob('00000000-0000-0000-0000-000000000000'), Errors.PineconeNotFoundError);
    assert.equal((await api(server, 'GET', '/indexes/oc-nowhere')).status, 404);
  });
});
