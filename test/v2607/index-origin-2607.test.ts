// API 2026-07 names where an index came from at the top level of its record:
// `source_backup_id` for an index restored from a backup, `source_collection` for one
// created from a collection (pinecone-wire.md §2.11) — in describe and in list, and as
// client 9 reads them (issue 10).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Pinecone } from '@pinecone-database/pinecone-v9';
import { startServer, api, type TestServer } from '../helpers/server.js';
import { stopAndClean } from '../server/support.js';
import {
  createIndex,
  makeRecords,
  podIndex,
  readyBackup,
  restore,
  serverlessIndex,
  upsert,
  waitCollection,
  waitIndexReady,
} from '../copies/copies-support.js';
import { V2607 } from './support-2607.js';

describe('API 2026-07: the origin of an index in its record', () => {
  let server: TestServer;
  let backupId: string;

  before(async () => {
    server = await startServer();
    const source = await createIndex(server, serverlessIndex('origin-src', 4));
    await upsert(server, source.host, makeRecords('r', 20, 4));
    backupId = (await readyBackup(server, 'origin-src')).backup_id;
    await restore(server, backupId, 'from-backup');

    const pod = await createIndex(server, podIndex('origin-pod', 4));
    await upsert(server, pod.host, makeRecords('p', 10, 4));
    assert.equal((await api(server, 'POST', '/collections', { body: { name: 'origin-coll', source: 'origin-pod' } })).status, 201);
    assert.equal((await waitCollection(server, 'origin-coll')).status, 'Ready');
    await createIndex(server, podIndex('from-coll', 4, { source_collection: 'origin-coll' }));
    await waitIndexReady(server, 'from-coll');
  });

  after(async () => {
    await stopAndClean(server);
  });

  const describe2607 = async (name: string) => {
    const res = await api(server, 'GET', `/indexes/${name}`, { version: V2607 });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const listed2607 = async (name: string) => {
    const res = await api(server, 'GET', '/indexes', { version: V2607 });
    assert.equal(res.status, 200, res.text);
    return res.body.indexes.find((i: { name: string }) => i.name === name);
  };

  it('a restored index carries source_backup_id in describe and list', async () => {
    for (const record of [await describe2607('from-backup'), await listed2607('from-backup')]) {
      assert.equal(record.source_backup_id, backupId, JSON.stringify(record));
      assert.equal(record.source_collection, undefined);
      // The rest of its 2026-07 model comes from the backup.
      assert.deepEqual(record.deployment, { deployment_type: 'managed', cloud: 'aws', region: 'us-east-1' });
      assert.deepEqual(record.schema.fields._values, { type: 'dense_vector', dimension: 4, metric: 'cosine' });
      assert.deepEqual(record.read_capacity, { mode: 'OnDemand', status: { state: 'Ready' } });
      assert.deepEqual(record.status, { ready: true, state: 'Ready' });
    }
  });

  it('an index created from a collection carries source_collection at the top level', async () => {
    for (const record of [await describe2607('from-coll'), await listed2607('from-coll')]) {
      assert.equal(record.source_collection, 'origin-coll', JSON.stringify(record));
      assert.equal(record.source_backup_id, undefined);
    }
  });

  it('an index made by create carries neither', async () => {
    const record = await describe2607('origin-src');
    assert.equal(record.source_backup_id, undefined);
    assert.equal(record.source_collection, undefined);
  });

  it('client 9 reads sourceBackupId and sourceCollection', async () => {
    const pc = new Pinecone({ apiKey: server.apiKey, controllerHostUrl: server.url, maxRetries: 0 });
    assert.equal((await pc.indexes.describe('from-backup')).sourceBackupId, backupId);
    assert.equal((await pc.indexes.describe('from-coll')).sourceCollection, 'origin-coll');
    const list = await pc.indexes.list();
    assert.equal(list.indexes?.find((i) => i.name === 'from-backup')?.sourceBackupId, backupId);
  });
});
