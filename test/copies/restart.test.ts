// A restart (SIGKILL) in the middle of a copy never leaves a half-made collection or
// backup marked Ready: after recovery it is either Failed or Ready with every record
// (issue 4). Also a restore interrupted by a restart. One data directory, one server
// process at a time, restarted in place.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, tempDataDir, type TestServer } from '../helpers/server.js';
import { assertCommon, assertError, stopAndClean } from '../server/support.js';
import {
  createBackup,
  createIndex,
  fetchRecords,
  makeRecords,
  podIndex,
  poll,
  readyBackup,
  serverlessIndex,
  stats,
  upsert,
  vec,
  waitBackup,
  waitCollection,
  waitIndexReady,
  waitRestoreJob,
} from './copies-support.js';

const DIM = 64;
const SIZE = 40_000;

describe('restart during a copy', () => {
  const dataDir = tempDataDir();
  let server: TestServer | undefined;
  const paths: string[] = [];

  const srv = (): TestServer => {
    assert.ok(server, 'no server running');
    return server;
  };

  async function restart(): Promise<void> {
    await srv().kill();
    server = await startServer({ dataDir });
    await poll(
      'GET /ready',
      () => api(srv(), 'GET', '/ready', { key: null }),
      (r) => r.status === 200,
    );
  }

  async function assertFullIndex(host: string, prefix: string): Promise<void> {
    const s = await stats(srv(), host);
    assert.equal(s.totalVectorCount, SIZE);
    const ids = [1, 2, SIZE / 2, SIZE - 1, SIZE].map((i) => `${prefix}${String(i).padStart(6, '0')}`);
    const got = await fetchRecords(srv(), host, ids);
    for (const id of ids) assert.deepEqual(got.get(id)?.values, vec(Number(id.slice(prefix.length)), DIM), id);
  }

  before(async () => {
    server = await startServer({ dataDir });
    const sl = await createIndex(server, serverlessIndex('rs-sl', DIM));
    await upsert(server, sl.host, makeRecords('s', SIZE, DIM, false));
    const pod = await createIndex(server, podIndex('rs-pod', DIM));
    await upsert(server, pod.host, makeRecords('p', SIZE, DIM, false));
  });

  after(async () => {
    console.log(`restart paths exercised: ${paths.join('; ')}`);
    await stopAndClean(server, dataDir);
  });

  it('a backup killed mid-copy is Failed or Ready with every record after the restart — never Ready with fewer', async () => {
    const b = await createBackup(srv(), 'rs-sl', { name: 'interrupted' });
    assert.equal(b.record_count, SIZE);
    await restart();

    const after = await waitBackup(srv(), b.backup_id);
    assert.ok(['Failed', 'Ready'].includes(after.status), `status after restart: ${JSON.stringify(after)}`);
    if (after.status === 'Ready') {
      paths.push('backup → Ready (copy finished before the kill or was completed on recovery)');
      assert.equal(after.record_count, SIZE);
      assert.ok(after.size_bytes > 0);
      const res = await api(srv(), 'POST', `/backups/${b.backup_id}/create-index`, { body: { name: 'rs-from-backup' } });
      assert.equal(res.status, 202, res.text);
      assert.equal((await waitRestoreJob(srv(), res.body.restore_job_id)).status, 'Completed');
      const idx = await waitIndexReady(srv(), 'rs-from-backup');
      await assertFullIndex(idx.host, 's');
    } else {
      paths.push('backup → Failed (copy interrupted)');
      assertError(
        await api(srv(), 'POST', `/backups/${b.backup_id}/create-index`, { body: { name: 'rs-from-failed' } }),
        412,
        'FAILED_PRECONDITION',
      );
      assert.equal((await api(srv(), 'GET', '/indexes/rs-from-failed')).status, 404);
      const del = await api(srv(), 'DELETE', `/backups/${b.backup_id}`);
      assert.equal(del.status, 202, del.text);
      assertError(await api(srv(), 'GET', `/backups/${b.backup_id}`), 404, 'NOT_FOUND');
    }
    // Nothing anywhere is a Ready backup of fewer records.
    const all = await api(srv(), 'GET', '/backups?limit=100');
    for (const x of all.body.data) {
      if (x.status === 'Ready') assert.equal(x.record_count, SIZE, JSON.stringify(x));
      assert.notEqual(x.status, 'Initializing', `still Initializing after recovery: ${JSON.stringify(x)}`);
    }
    // The source is intact and a new backup works.
    const src = await api(srv(), 'GET', '/indexes/rs-sl');
    assert.equal(src.status, 200, src.text);
    await waitIndexReady(srv(), 'rs-sl');
    await assertFullIndex(src.body.host, 's');
    const fresh = await readyBackup(srv(), 'rs-sl');
    assert.equal(fresh.record_count, SIZE);
  });

  it('a collection killed mid-copy is Failed or Ready with every record after the restart — never Ready with fewer', async () => {
    const res = await api(srv(), 'POST', '/collections', { body: { name: 'rs-coll', source: 'rs-pod' } });
    assert.equal(res.status, 201, res.text);
    await restart();

    const after = await waitCollection(srv(), 'rs-coll');
    assert.ok(['Failed', 'Ready'].includes(after.status), `status after restart: ${JSON.stringify(after)}`);
    if (after.status === 'Ready') {
      paths.push('collection → Ready');
      assert.equal(after.vector_count, SIZE);
      assert.ok(after.size > 0);
      const idx = await createIndex(srv(), podIndex('rs-from-coll', DIM, { source_collection: 'rs-coll' }));
      await waitIndexReady(srv(), 'rs-from-coll');
      await assertFullIndex(idx.host, 'p');
    } else {
      paths.push('collection → Failed (copy interrupted)');
      const made = await api(srv(), 'POST', '/indexes', { body: podIndex('rs-from-failed-coll', DIM, { source_collection: 'rs-coll' }) });
      assert.ok(made.status >= 400 && made.status < 500, `index from a Failed collection → ${made.status}: ${made.text}`);
      assertCommon(made);
      assert.equal((await api(srv(), 'GET', '/indexes/rs-from-failed-coll')).status, 404);
      // The source index is no longer held by a pending collection.
      const del = await api(srv(), 'DELETE', '/collections/rs-coll');
      assert.equal(del.status, 202, del.text);
      await poll('the Failed collection to go', () => api(srv(), 'GET', '/collections/rs-coll'), (r) => r.status === 404);
    }
    const list = await api(srv(), 'GET', '/collections');
    for (const c of list.body.collections) {
      if (c.status === 'Ready') assert.equal(c.vector_count, SIZE, JSON.stringify(c));
      assert.notEqual(c.status, 'Initializing', JSON.stringify(c));
    }
    const src = await api(srv(), 'GET', '/indexes/rs-pod');
    assert.equal(src.status, 200, src.text);
    await waitIndexReady(srv(), 'rs-pod');
    await assertFullIndex(src.body.host, 'p');
  });

  it('a restore killed mid-copy ends Completed with every record, or Failed without a Ready index', async () => {
    const b = await readyBackup(srv(), 'rs-sl', { name: 'for-restore' });
    const res = await api(srv(), 'POST', `/backups/${b.backup_id}/create-index`, { body: { name: 'rs-restored' } });
    assert.equal(res.status, 202, res.text);
    await restart();

    const job = await waitRestoreJob(srv(), res.body.restore_job_id);
    assert.ok(['Completed', 'Failed'].includes(job.status), JSON.stringify(job));
    const idx = await api(srv(), 'GET', '/indexes/rs-restored');
    if (job.status === 'Completed') {
      paths.push('restore → Completed');
      assert.equal(job.percent_complete, 100);
      const ready = await waitIndexReady(srv(), 'rs-restored');
      await assertFullIndex(ready.host, 's');
    } else {
      paths.push('restore → Failed');
      assert.ok(idx.status === 404 || idx.body.status.ready === false, `a failed restore left a ready index: ${idx.text}`);
    }
    // The backup itself is untouched and deletable now that no restore is pending.
    const again = await api(srv(), 'GET', `/backups/${b.backup_id}`);
    assert.equal(again.body.status, 'Ready');
    assert.equal(again.body.record_count, SIZE);
    assert.equal((await api(srv(), 'DELETE', `/backups/${b.backup_id}`)).status, 202);
  });
});
