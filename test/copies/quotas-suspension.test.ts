// Collection and backup quotas (CONIFER_QUOTA_COLLECTIONS / CONIFER_QUOTA_BACKUPS → 403,
// per project) and a suspended project (402 on every copy or restore it would start;
// reads still work) — issue 4.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, runCli, type TestServer } from '../helpers/server.js';
import { assertError, stopAndClean } from '../server/support.js';
import {
  createIndex,
  makeRecords,
  podIndex,
  poll,
  readyBackup,
  readyCollection,
  serverlessIndex,
  upsert,
} from './copies-support.js';

describe('copy quotas and suspended projects', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ env: { CONIFER_QUOTA_COLLECTIONS: '2', CONIFER_QUOTA_BACKUPS: '2' } });
    const pod = await createIndex(server, podIndex('q-pod', 4));
    await upsert(server, pod.host, makeRecords('q', 5, 4));
    const sl = await createIndex(server, serverlessIndex('q-sl', 4));
    await upsert(server, sl.host, makeRecords('q', 5, 4));
  });

  after(async () => {
    await stopAndClean(server);
  });

  async function otherProject(name: string): Promise<{ url: string; apiKey: string }> {
    const env = { CONIFER_DATA_DIR: server.dataDir };
    const p = await runCli(['projects', 'create', name], env);
    assert.equal(p.code, 0, p.stderr);
    const k = await runCli(['keys', 'create', '--project', name], env);
    assert.equal(k.code, 0, k.stderr);
    return { url: server.url, apiKey: JSON.parse(k.stdout).key as string };
  }

  it('collection quota exceeded → 403 FORBIDDEN; nothing created; room again once one is deleted', async () => {
    await readyCollection(server, 'q-c1', 'q-pod');
    await readyCollection(server, 'q-c2', 'q-pod');
    assertError(await api(server, 'POST', '/collections', { body: { name: 'q-c3', source: 'q-pod' } }), 403, 'FORBIDDEN');
    assert.equal((await api(server, 'GET', '/collections/q-c3')).status, 404);
    assert.equal((await api(server, 'GET', '/collections')).body.collections.length, 2);

    assert.equal((await api(server, 'DELETE', '/collections/q-c1')).status, 202);
    await poll('q-c1 to be gone', () => api(server, 'GET', '/collections/q-c1'), (r) => r.status === 404);
    await readyCollection(server, 'q-c3', 'q-pod');
  });

  it('backup quota exceeded → 403 FORBIDDEN; nothing created; room again once one is deleted', async () => {
    const b1 = await readyBackup(server, 'q-sl');
    await readyBackup(server, 'q-sl');
    assertError(await api(server, 'POST', '/indexes/q-sl/backups', { body: { name: 'over' } }), 403, 'FORBIDDEN');
    const list = await api(server, 'GET', '/backups');
    assert.equal(list.body.data.length, 2);
    assert.ok(!list.body.data.some((b: { name: string }) => b.name === 'over'));

    assert.equal((await api(server, 'DELETE', `/backups/${b1.backup_id}`)).status, 202);
    await readyBackup(server, 'q-sl', { name: 'fits' });
  });

  it('quotas are per project: another project still has room', async () => {
    const other = await otherProject('roomy');
    const pod = await createIndex(other, podIndex('r-pod', 2));
    await upsert(other, pod.host, [{ id: 'a', values: [1, 2] }]);
    const sl = await createIndex(other, serverlessIndex('r-sl', 2));
    await upsert(other, sl.host, [{ id: 'a', values: [1, 2] }]);
    await readyCollection(other, 'r-c1', 'r-pod');
    await readyBackup(other, 'r-sl');
  });

  it('a suspended project gets 402 on collection, backup, restore and index-from-collection; reads still work', async () => {
    const susp = await otherProject('susp');
    const pod = await createIndex(susp, podIndex('s-pod', 2));
    await upsert(susp, pod.host, [{ id: 'a', values: [1, 2] }]);
    const sl = await createIndex(susp, serverlessIndex('s-sl', 2));
    await upsert(susp, sl.host, [{ id: 'a', values: [1, 2] }]);
    const coll = await readyCollection(susp, 's-coll', 's-pod');
    const backup = await readyBackup(susp, 's-sl');

    const r = await runCli(['projects', 'suspend', 'susp', '--data-dir', server.dataDir]);
    assert.equal(r.code, 0, r.stderr);

    assertError(await api(susp, 'POST', '/collections', { body: { name: 's-coll2', source: 's-pod' } }), 402, 'PAYMENT_REQUIRED');
    assertError(await api(susp, 'POST', '/indexes/s-sl/backups', { body: {} }), 402, 'PAYMENT_REQUIRED');
    assertError(
      await api(susp, 'POST', `/backups/${backup.backup_id}/create-index`, { body: { name: 's-restored' } }),
      402,
      'PAYMENT_REQUIRED',
    );
    assertError(
      await api(susp, 'POST', '/indexes', { body: podIndex('s-from-coll', 2, { source_collection: 's-coll' }) }),
      402,
      'PAYMENT_REQUIRED',
    );
    for (const name of ['s-restored', 's-from-coll']) assert.equal((await api(susp, 'GET', `/indexes/${name}`)).status, 404);
    assert.equal((await api(susp, 'GET', '/collections/s-coll2')).status, 404);

    const colls = await api(susp, 'GET', '/collections');
    assert.equal(colls.status, 200, colls.text);
    assert.deepEqual(colls.body.collections, [coll]);
    const got = await api(susp, 'GET', `/backups/${backup.backup_id}`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.body, backup);
    const perIndex = await api(susp, 'GET', '/indexes/s-sl/backups');
    assert.equal(perIndex.status, 200, perIndex.text);
    assert.equal(perIndex.body.data.length, 1);
    assert.equal((await api(susp, 'GET', '/restore-jobs')).status, 200);

    // Other projects are unaffected.
    const b = await api(server, 'GET', '/indexes/q-sl/backups');
    assert.equal(b.status, 200);
  });
});
