// Deleting an index while a restore into it runs cancels the restore cleanly (issue 10):
// the restore job ends Failed with a message saying why, nothing is loaded for the deleted
// index, its files are removed, and the log holds no stack trace and no "restore completed".
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, api, type TestServer } from '../helpers/server.js';
import { stopAndClean } from '../server/support.js';
import {
  createIndex,
  makeRecords,
  poll,
  readyBackup,
  restore,
  serverlessIndex,
  stats,
  upsert,
  waitRestoreJob,
} from './copies-support.js';

// Enough records that the restore (a copy, then a load) is still running when the delete
// arrives a few milliseconds after the 202; the test checks that it was (job Failed).
const RECORDS = 30_000;
const DIMENSION = 16;

describe('deleting an index while a restore into it runs', () => {
  let server: TestServer;
  let backupId: string;

  before(async () => {
    server = await startServer();
    const source = await createIndex(server, serverlessIndex('rc-src', DIMENSION));
    await upsert(server, source.host, makeRecords('r', RECORDS, DIMENSION, false));
    backupId = (await readyBackup(server, 'rc-src')).backup_id;
  });

  after(async () => {
    await stopAndClean(server);
  });

  it('the job ends Failed with a message, nothing is loaded, files go, no stack trace', async () => {
    const started = await api(server, 'POST', `/backups/${backupId}/create-index`, { body: { name: 'rc-target' } });
    assert.equal(started.status, 202, started.text);
    const { restore_job_id: jobId, index_id: indexId } = started.body;

    const del = await api(server, 'DELETE', '/indexes/rc-target');
    assert.equal(del.status, 202, del.text);

    // The job says so at once: deleting the index is what ended it.
    const job = await waitRestoreJob(server, jobId);
    assert.equal(job.status, 'Failed', JSON.stringify(job));
    assert.match(job.error, /rc-target.*deleted/, JSON.stringify(job));
    assert.equal(typeof job.completed_at, 'string');
    assert.ok(job.percent_complete < 100, JSON.stringify(job));
    assert.equal((await api(server, 'GET', '/indexes/rc-target')).status, 404);

    // The files of the deleted index are removed once the cancelled copy has stopped.
    await poll('files of the deleted index removed', async () => existsSync(join(server.dataDir, 'indexes', indexId)), (e) => !e);

    // The job stays Failed (a late progress report or completion must not overwrite it).
    const later = await api(server, 'GET', `/restore-jobs/${jobId}`);
    assert.equal(later.body.status, 'Failed', later.text);

    const log = server.output();
    const mentions = log.split('\n').filter((line) => line.includes('rc-target'));
    assert.ok(!mentions.some((l) => l.includes('restore completed')), `restore completed logged:\n${mentions.join('\n')}`);
    assert.ok(!mentions.some((l) => l.includes('index loaded')), `the deleted index was loaded:\n${mentions.join('\n')}`);
    assert.ok(!log.includes('"stack"'), `a stack trace was logged:\n${log.slice(-3000)}`);
  });

  it('the name is free and the backup still restores afterwards', async () => {
    const [job, index] = await restore(server, backupId, 'rc-target');
    assert.equal(job.status, 'Completed');
    assert.equal(job.error, undefined);
    assert.equal((await stats(server, index.host)).totalVectorCount, RECORDS);
  });
});
