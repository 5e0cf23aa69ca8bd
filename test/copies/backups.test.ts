// Backups of serverless indexes and restores from them: every field and status code of
// POST/GET /indexes/{name}/backups, GET /backups, GET/DELETE /backups/{id},
// POST /backups/{id}/create-index and /restore-jobs, paging across pages (also while
// backups are added), restore round-trips, and independence from the source (issue 4).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startServer, api, runCli, type TestServer } from '../helpers/server.js';
import { assertCommon, assertError, assertDataPlaneError, stopAndClean } from '../server/support.js';
import {
  ISO,
  assertNamespaceHolds,
  createBackup,
  createIndex,
  isServerAlive,
  loggedOutcome,
  makeRecords,
  podIndex,
  poll,
  readyBackup,
  restore,
  serverlessIndex,
  stats,
  upsert,
  waitBackup,
  waitIndexReady,
  waitRestoreJob,
  type Rec,
} from './copies-support.js';

const BACKUP_FIELDS = [
  'backup_id',
  'cloud',
  'created_at',
  'description',
  'metric',
  'name',
  'namespace_count',
  'record_count',
  'region',
  'schema',
  'size_bytes',
  'source_index_id',
  'source_index_name',
  'status',
  'tags',
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function assertBackupShape(b: any): void {
  for (const f of BACKUP_FIELDS) assert.ok(f in b, `backup record lacks ${f}: ${JSON.stringify(b)}`);
  for (const f of ['backup_id', 'cloud', 'region', 'name', 'description', 'metric', 'source_index_id', 'source_index_name', 'status']) {
    assert.equal(typeof b[f], 'string', `${f}: ${JSON.stringify(b)}`);
  }
  assert.ok(b.backup_id.length > 0 && b.source_index_id.length > 0);
  for (const f of ['namespace_count', 'record_count', 'size_bytes']) {
    assert.ok(Number.isInteger(b[f]) && b[f] >= 0, `${f}: ${JSON.stringify(b)}`);
  }
  // dimension is absent only for a backup of a sparse index (which has none).
  if (b.dimension !== undefined || b.metric !== 'dotproduct') {
    assert.ok(Number.isInteger(b.dimension) && b.dimension >= 1, `dimension: ${JSON.stringify(b)}`);
  }
  assert.match(b.created_at, ISO);
  assert.ok(!Number.isNaN(Date.parse(b.created_at)));
  assert.ok(b.schema && typeof b.schema === 'object' && b.schema.fields && typeof b.schema.fields === 'object', `schema: ${JSON.stringify(b.schema)}`);
  assert.ok(b.tags && typeof b.tags === 'object' && !Array.isArray(b.tags));
  for (const v of Object.values(b.tags)) assert.equal(typeof v, 'string');
  assert.ok(['Initializing', 'Ready', 'Failed'].includes(b.status), b.status);
}

describe('backups and restores', () => {
  let server: TestServer;
  let srcHost = '';
  const nsDefault = makeRecords('d', 25, 4);
  const ns1 = makeRecords('x', 15, 4);
  const ns2 = makeRecords('y', 5, 4, false);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let first: any; // the first backup of bk-src, once Ready

  before(async () => {
    server = await startServer();
    const idx = await createIndex(
      server,
      serverlessIndex('bk-src', 4, { schema: { fields: { label: { filterable: true } } } }, { tags: { team: 'search' } }),
    );
    srcHost = idx.host;
    await upsert(server, srcHost, nsDefault);
    await upsert(server, srcHost, ns1, 'ns1');
    await upsert(server, srcHost, ns2, 'ns2');
  });

  after(async () => {
    await stopAndClean(server);
  });

  it('POST /indexes/{name}/backups with {} → 201 with every field and the snapshot counts, Initializing then Ready', async () => {
    const res = await api(server, 'POST', '/indexes/bk-src/backups', { body: {} });
    assert.equal(res.status, 201, res.text);
    assertCommon(res);
    const b = res.body;
    assertBackupShape(b);
    assert.equal(b.status, 'Initializing');
    assert.equal(b.source_index_name, 'bk-src');
    assert.equal(b.cloud, 'aws');
    assert.equal(b.region, 'us-east-1');
    assert.equal(b.dimension, 4);
    assert.equal(b.metric, 'cosine');
    assert.equal(b.record_count, 45, 'record_count of the snapshot, in the 201');
    assert.equal(b.namespace_count, 3, 'namespace_count of the snapshot, in the 201');
    assert.deepEqual(b.schema, { fields: { label: { filterable: true } } });

    const ready = await waitBackup(server, b.backup_id);
    assertBackupShape(ready);
    assert.equal(ready.status, 'Ready');
    assert.ok(ready.size_bytes > 0, `size_bytes: ${ready.size_bytes}`);
    assert.equal(ready.dimension, 4);
    for (const f of BACKUP_FIELDS.filter((x) => x !== 'status' && x !== 'size_bytes')) {
      assert.deepEqual(ready[f], b[f], `${f} changed between the 201 and Ready`);
    }
    first = ready;
  });

  it('POST with {name, description} echoes them', async () => {
    const b = await createBackup(server, 'bk-src', { name: 'nightly-1', description: 'before the migration' });
    assert.equal(b.name, 'nightly-1');
    assert.equal(b.description, 'before the migration');
    const got = await api(server, 'GET', `/backups/${b.backup_id}`);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.name, 'nightly-1');
    assert.equal(got.body.description, 'before the migration');
    assert.equal((await waitBackup(server, b.backup_id)).status, 'Ready');
  });

  it('a bad name → 400; a field of the wrong type or a non-object body → 422; nothing created', async () => {
    const before = (await api(server, 'GET', '/indexes/bk-src/backups?limit=100')).body.data.length;
    for (const name of ['Upper', 'under_score', '-lead', 'trail-', 'x'.repeat(46)]) {
      assertError(await api(server, 'POST', '/indexes/bk-src/backups', { body: { name } }), 400, 'INVALID_ARGUMENT', ['name']);
    }
    for (const body of [{ name: 5 }, { description: 7 }, { name: ['a'] }, [], 'text']) {
      assertError(await api(server, 'POST', '/indexes/bk-src/backups', { body }), 422, 'UNPROCESSABLE_ENTITY');
    }
    assertError(await api(server, 'POST', '/indexes/bk-src/backups', { rawBody: '{"name":' }), 422, 'UNPROCESSABLE_ENTITY');
    const after = (await api(server, 'GET', '/indexes/bk-src/backups?limit=100')).body.data.length;
    assert.equal(after, before, 'no backup was created by a refused request');
  });

  it('unknown index → 404; a pod index → 400 (backups are for serverless indexes)', async () => {
    assertError(await api(server, 'POST', '/indexes/no-such-index/backups', { body: {} }), 404, 'NOT_FOUND', ['no-such-index']);
    await createIndex(server, podIndex('a-pod', 4));
    assertError(await api(server, 'POST', '/indexes/a-pod/backups', { body: {} }), 400, 'INVALID_ARGUMENT');
    assertError(await api(server, 'GET', '/indexes/no-such-index/backups'), 404, 'NOT_FOUND');
  });

  it('GET /backups/{id}: the record; unknown id → 404', async () => {
    const got = await api(server, 'GET', `/backups/${first.backup_id}`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.body, first);
    assertError(await api(server, 'GET', '/backups/00000000-0000-0000-0000-000000000000'), 404, 'NOT_FOUND');
    assertError(await api(server, 'GET', '/backups/not-a-backup'), 404, 'NOT_FOUND');
  });

  it('restore: 202 {restore_job_id, index_id}; the job goes Pending → Completed (100%); the index has the backup’s dimension, metric and records', async () => {
    // Change the source after the backup: the restore must show the backup, not the source.
    await upsert(server, srcHost, makeRecords('late', 5, 4));
    await upsert(server, srcHost, [{ id: nsDefault[0].id, values: [1, 1, 1, 1], metadata: { changed: true } }]);
    const del = await api(server, 'POST', `${srcHost}/vectors/delete`, { body: { ids: [ns1[0].id], namespace: 'ns1' } });
    assert.equal(del.status, 200, del.text);

    const res = await api(server, 'POST', `/backups/${first.backup_id}/create-index`, { body: { name: 'bk-restored' } });
    assert.equal(res.status, 202, res.text);
    assertCommon(res);
    assert.deepEqual(Object.keys(res.body).sort(), ['index_id', 'restore_job_id']);
    assert.equal(typeof res.body.restore_job_id, 'string');
    assert.equal(typeof res.body.index_id, 'string');

    const early = await api(server, 'GET', `/restore-jobs/${res.body.restore_job_id}`);
    assert.equal(early.status, 200, early.text);
    assert.equal(early.body.restore_job_id, res.body.restore_job_id);
    assert.equal(early.body.backup_id, first.backup_id);
    assert.equal(early.body.target_index_name, 'bk-restored');
    assert.equal(early.body.target_index_id, res.body.index_id);
    assert.ok(['Pending', 'Completed'].includes(early.body.status), early.text);
    assert.ok(typeof early.body.percent_complete === 'number' && early.body.percent_complete >= 0 && early.body.percent_complete <= 100);
    assert.match(early.body.created_at, ISO);

    const job = await waitRestoreJob(server, res.body.restore_job_id);
    assert.equal(job.status, 'Completed');
    assert.equal(job.percent_complete, 100);
    assert.match(job.completed_at, ISO);
    assert.ok(Date.parse(job.completed_at) >= Date.parse(job.created_at));
    assert.equal(job.created_at, early.body.created_at);

    const idx = await waitIndexReady(server, 'bk-restored');
    assert.equal(idx.dimension, 4);
    assert.equal(idx.metric, 'cosine');
    assert.equal(idx.spec.serverless.cloud, 'aws');
    assert.equal(idx.spec.serverless.region, 'us-east-1');
    assert.deepEqual(idx.spec.serverless.schema, { fields: { label: { filterable: true } } });
    const s = await stats(server, idx.host);
    assert.equal(s.totalVectorCount, 45);
    assert.equal(Object.keys(s.namespaces).length, 3);
    await assertNamespaceHolds(server, idx.host, '', nsDefault);
    await assertNamespaceHolds(server, idx.host, 'ns1', ns1);
    await assertNamespaceHolds(server, idx.host, 'ns2', ns2);

    // A backup of the restored index names the index id of the 202.
    const again = await createBackup(server, 'bk-restored');
    assert.equal(again.source_index_id, res.body.index_id);
    assert.equal(again.record_count, 45);
    assert.equal((await waitBackup(server, again.backup_id)).status, 'Ready');

    const jobs = await api(server, 'GET', '/restore-jobs');
    assert.equal(jobs.status, 200, jobs.text);
    assert.ok(Array.isArray(jobs.body.data));
    assert.deepEqual(
      jobs.body.data.find((j: { restore_job_id: string }) => j.restore_job_id === res.body.restore_job_id),
      job,
    );
  });

  it('restore with tags and deletion_protection sets them on the new index', async () => {
    const [, idx] = await restore(server, first.backup_id, 'bk-protected', {
      tags: { env: 'restored' },
      deletion_protection: 'enabled',
    });
    assert.deepEqual(idx.tags, { env: 'restored' });
    assert.equal(idx.deletion_protection, 'enabled');
    assertError(await api(server, 'DELETE', '/indexes/bk-protected'), 403, 'FORBIDDEN');
  });

  it('a name of "" is no name under 2026-04 (one is generated) and a 400 under 2026-07, which wants 1-45 characters', async () => {
    const unnamed = await createBackup(server, 'bk-src', { name: '' });
    assert.match(unnamed.name, /^bk-src-[a-z0-9]+$/);
    assert.equal((await waitBackup(server, unnamed.backup_id)).status, 'Ready');
    const before = (await api(server, 'GET', '/indexes/bk-src/backups?limit=100')).body.data.length;
    assertError(await api(server, 'POST', '/indexes/bk-src/backups', { version: '2026-07', body: { name: '' } }), 400, 'INVALID_ARGUMENT', ['name']);
    assert.equal((await api(server, 'GET', '/indexes/bk-src/backups?limit=100')).body.data.length, before, 'nothing created');
  });

  it('restore checks the tags it is given by the rules of its API version, and keeps the backup\'s own', async () => {
    const value = 'https://example.com/x';
    const refused = await api(server, 'POST', `/backups/${first.backup_id}/create-index`, { body: { name: 'bk-tags-old', tags: { link: value } } });
    assertError(refused, 400, 'INVALID_ARGUMENT', ['tags.link']);
    const res = await api(server, 'POST', `/backups/${first.backup_id}/create-index`, { version: '2026-07', body: { name: 'bk-tags-new', tags: { link: value } } });
    assert.equal(res.status, 202, res.text);
    assert.equal((await waitRestoreJob(server, res.body.restore_job_id)).status, 'Completed');
    assert.deepEqual((await waitIndexReady(server, 'bk-tags-new')).tags, { link: value });
    // A backup of that index restores under 2026-04 with the tags it holds (they are not checked again).
    const again = await readyBackup(server, 'bk-tags-new');
    const [, idx] = await restore(server, again.backup_id, 'bk-tags-kept');
    assert.deepEqual(idx.tags, { link: value });
  });

  it('restore with read_capacity sets it on the new index; a bad one is 400 and creates nothing', async () => {
    const dedicated = { mode: 'Dedicated', dedicated: { node_type: 'b1', scaling: 'Manual', manual: { replicas: 2, shards: 1 } } };
    const [, idx] = await restore(server, first.backup_id, 'bk-dedicated', { read_capacity: dedicated });
    assert.equal(idx.spec.serverless.read_capacity.mode, 'Dedicated');
    assert.deepEqual(idx.spec.serverless.read_capacity.dedicated, dedicated.dedicated);
    assertError(await api(server, 'POST', `/backups/${first.backup_id}/create-index`, { body: { name: 'bk-weird', read_capacity: { mode: 'Weird' } } }), 400, 'INVALID_ARGUMENT', ['read_capacity.mode']);
    assert.equal((await api(server, 'GET', '/indexes/bk-weird')).status, 404);
  });

  it('restore errors: name taken → 409, unknown backup → 404, bad name → 400, missing name → 422; unknown job → 404', async () => {
    assertError(
      await api(server, 'POST', `/backups/${first.backup_id}/create-index`, { body: { name: 'bk-src' } }),
      409,
      'ALREADY_EXISTS',
    );
    assertError(
      await api(server, 'POST', '/backups/00000000-0000-0000-0000-000000000000/create-index', { body: { name: 'nowhere' } }),
      404,
      'NOT_FOUND',
    );
    assertError(
      await api(server, 'POST', `/backups/${first.backup_id}/create-index`, { body: { name: 'Bad_Name' } }),
      400,
      'INVALID_ARGUMENT',
      ['name'],
    );
    assertError(await api(server, 'POST', `/backups/${first.backup_id}/create-index`, { body: {} }), 422, 'UNPROCESSABLE_ENTITY');
    assertError(
      await api(server, 'POST', `/backups/${first.backup_id}/create-index`, { body: { name: 3 } }),
      422,
      'UNPROCESSABLE_ENTITY',
    );
    for (const name of ['nowhere', 'Bad_Name']) assert.equal((await api(server, 'GET', `/indexes/${name}`)).status, 404);
    assertError(await api(server, 'GET', '/restore-jobs/00000000-0000-0000-0000-000000000000'), 404, 'NOT_FOUND');
  });

  it('a backup of a sparse index restores its sparse records', async () => {
    const idx = await createIndex(server, {
      name: 'sparse-src',
      vector_type: 'sparse',
      metric: 'dotproduct',
      spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
    });
    const recs: Rec[] = Array.from({ length: 12 }, (_, i) => ({
      id: `s${i}`,
      sparseValues: { indices: [i, i + 10, 1000 + i], values: [0.5, 0.25, (i + 1) / 8] },
      metadata: { i },
    }));
    await upsert(server, idx.host, recs, 'sp');
    const b = await readyBackup(server, 'sparse-src');
    assert.equal(b.record_count, 12);
    assert.ok(b.dimension === undefined || b.dimension === null, `a sparse backup has no dimension: ${JSON.stringify(b)}`);
    assert.equal(b.metric, 'dotproduct');
    const [, restored] = await restore(server, b.backup_id, 'sparse-restored');
    assert.equal(restored.vector_type, 'sparse');
    assert.equal(restored.metric, 'dotproduct');
    assert.equal(restored.dimension, undefined);
    await assertNamespaceHolds(server, restored.host, 'sp', recs);
  });

  it('a backup of an empty index has zero counts and restores to an empty index', async () => {
    await createIndex(server, serverlessIndex('empty-sl', 3));
    const b = await readyBackup(server, 'empty-sl');
    assert.equal(b.record_count, 0);
    assert.equal(b.namespace_count, 0);
    const [, idx] = await restore(server, b.backup_id, 'empty-restored');
    assert.equal(idx.dimension, 3);
    assert.equal((await stats(server, idx.host)).totalVectorCount, 0);
  });

  it('a namespace made by POST /namespaces is copied while empty: listed by the restored index, counted by the backup', async () => {
    const src = await createIndex(server, serverlessIndex('ns-src', 4));
    const made = await api(server, 'POST', `${src.host}/namespaces`, { body: { name: 'made-empty' } });
    assert.equal(made.status, 200, made.text);
    const recs = makeRecords('n', 3, 4);
    await upsert(server, src.host, recs, 'full');
    const b = await readyBackup(server, 'ns-src');
    assert.equal(b.namespace_count, 2);
    assert.equal(b.record_count, 3);
    const [, idx] = await restore(server, b.backup_id, 'ns-restored');
    const listed = await api(server, 'GET', `${idx.host}/namespaces`);
    assert.equal(listed.status, 200, listed.text);
    const byName = Object.fromEntries((listed.body.namespaces as { name: string; record_count: string }[]).map((n) => [n.name, n.record_count]));
    assert.deepEqual(byName, { 'made-empty': '0', full: '3' });
    await assertNamespaceHolds(server, idx.host, 'full', recs);
    // Still a namespace of its own: creating it again is a conflict.
    assert.equal((await api(server, 'POST', `${idx.host}/namespaces`, { body: { name: 'made-empty' } })).status, 409);
  });

  describe('listing and paging', () => {
    const created: string[] = []; // backup ids of page-src, oldest first

    before(async () => {
      const idx = await createIndex(server, serverlessIndex('page-src', 2));
      await upsert(server, idx.host, [{ id: 'only', values: [1, 2] }]);
      for (let i = 0; i < 12; i++) created.push((await createBackup(server, 'page-src', { name: `p-${i}` })).backup_id);
    });

    it('default limit 10, newest first, pagination.next continues, absent on the last page', async () => {
      const p1 = await api(server, 'GET', '/indexes/page-src/backups');
      assert.equal(p1.status, 200, p1.text);
      assertCommon(p1);
      assert.equal(p1.body.data.length, 10);
      for (const b of p1.body.data) assertBackupShape(b);
      assert.equal(typeof p1.body.pagination?.next, 'string', p1.text);
      assert.ok(p1.body.pagination.next.length > 0);
      const p2 = await api(server, 'GET', `/indexes/page-src/backups?paginationToken=${encodeURIComponent(p1.body.pagination.next)}`);
      assert.equal(p2.status, 200, p2.text);
      assert.equal(p2.body.data.length, 2);
      assert.ok(!('pagination' in p2.body) || p2.body.pagination === null, `pagination on the last page: ${p2.text}`);
      const ids = [...p1.body.data, ...p2.body.data].map((b: { backup_id: string }) => b.backup_id);
      assert.deepEqual(ids, [...created].reverse(), 'newest first, each once');
      for (const b of [...p1.body.data, ...p2.body.data]) assert.equal(b.source_index_name, 'page-src');
    });

    it('limit=5 gives pages of 5, 5, 2; limit=100 gives all without pagination', async () => {
      const seen: string[] = [];
      const sizes: number[] = [];
      let token: string | undefined;
      for (let guard = 0; guard < 10; guard++) {
        const q = `limit=5${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`;
        const page = await api(server, 'GET', `/indexes/page-src/backups?${q}`);
        assert.equal(page.status, 200, page.text);
        sizes.push(page.body.data.length);
        seen.push(...page.body.data.map((b: { backup_id: string }) => b.backup_id));
        token = page.body.pagination?.next;
        if (!token) break;
      }
      assert.deepEqual(sizes, [5, 5, 2]);
      assert.deepEqual(seen, [...created].reverse());
      const all = await api(server, 'GET', '/indexes/page-src/backups?limit=100');
      assert.equal(all.body.data.length, 12);
      assert.ok(!('pagination' in all.body) || all.body.pagination === null, all.text);
      const exact = await api(server, 'GET', '/indexes/page-src/backups?limit=12');
      assert.equal(exact.body.data.length, 12);
      assert.ok(!('pagination' in exact.body) || exact.body.pagination === null, `a full last page has no next: ${exact.text}`);
    });

    it('limit 0, 101, -1, 1.5 or "x" → 400; a malformed token → 400', async () => {
      // An empty limit is refused too: "limit=" is not the same as no limit.
      for (const limit of ['0', '101', '-1', '1.5', 'x', '']) {
        const res = await api(server, 'GET', `/indexes/page-src/backups?limit=${limit}`);
        assertError(res, 400, 'INVALID_ARGUMENT', ['limit']);
        assertError(await api(server, 'GET', `/backups?limit=${limit}`), 400, 'INVALID_ARGUMENT', ['limit']);
        assertError(await api(server, 'GET', `/restore-jobs?limit=${limit}`), 400, 'INVALID_ARGUMENT', ['limit']);
      }
      for (const token of ['garbage', 'dXNlcl9pZD11c2VyXzE=', '%%%', 'a'.repeat(300)]) {
        assertError(
          await api(server, 'GET', `/indexes/page-src/backups?paginationToken=${encodeURIComponent(token)}`),
          400,
          'INVALID_ARGUMENT',
        );
        assertError(await api(server, 'GET', `/backups?paginationToken=${encodeURIComponent(token)}`), 400, 'INVALID_ARGUMENT');
      }
    });

    it('a token from another listing → 400', async () => {
      const pageSrc = await api(server, 'GET', '/indexes/page-src/backups?limit=1');
      const projectWide = await api(server, 'GET', '/backups?limit=1');
      const bkSrc = await api(server, 'GET', '/indexes/bk-src/backups?limit=1');
      const t = (r: typeof pageSrc): string => encodeURIComponent(r.body.pagination.next as string);
      assertError(await api(server, 'GET', `/indexes/bk-src/backups?paginationToken=${t(pageSrc)}`), 400, 'INVALID_ARGUMENT');
      assertError(await api(server, 'GET', `/indexes/page-src/backups?paginationToken=${t(bkSrc)}`), 400, 'INVALID_ARGUMENT');
      assertError(await api(server, 'GET', `/indexes/page-src/backups?paginationToken=${t(projectWide)}`), 400, 'INVALID_ARGUMENT');
      assertError(await api(server, 'GET', `/backups?paginationToken=${t(pageSrc)}`), 400, 'INVALID_ARGUMENT');
      assertError(await api(server, 'GET', `/restore-jobs?paginationToken=${t(projectWide)}`), 400, 'INVALID_ARGUMENT');
    });

    it('paging gives every backup exactly once while new backups are created between pages', async () => {
      const seen: string[] = [];
      const added: string[] = [];
      let token: string | undefined;
      for (let guard = 0; guard < 20; guard++) {
        const q = `limit=3${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`;
        const page = await api(server, 'GET', `/indexes/page-src/backups?${q}`);
        assert.equal(page.status, 200, page.text);
        seen.push(...page.body.data.map((b: { backup_id: string }) => b.backup_id));
        token = page.body.pagination?.next;
        if (!token) break;
        added.push((await createBackup(server, 'page-src', { name: `during-${guard}` })).backup_id);
      }
      assert.equal(new Set(seen).size, seen.length, `duplicates: ${seen.join(',')}`);
      for (const id of created) assert.ok(seen.includes(id), `backup ${id} missing from the paged listing`);
      for (const id of seen) assert.ok(created.includes(id) || added.includes(id), `unknown backup ${id}`);
      created.push(...added);
    });

    it('GET /backups lists every backup of the project (all indexes), paged, each exactly once', async () => {
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      for (let guard = 0; guard < 50; guard++) {
        const q = `limit=7${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`;
        const page = await api(server, 'GET', `/backups?${q}`);
        assert.equal(page.status, 200, page.text);
        pages++;
        for (const b of page.body.data) assertBackupShape(b);
        seen.push(...page.body.data.map((b: { backup_id: string }) => b.backup_id));
        token = page.body.pagination?.next;
        if (!token) {
          assert.ok(!('pagination' in page.body) || page.body.pagination === null);
          break;
        }
      }
      assert.ok(pages > 1, 'more than one page');
      assert.equal(new Set(seen).size, seen.length, 'no duplicates');
      for (const id of created) assert.ok(seen.includes(id), `page-src backup ${id} missing`);
      assert.ok(seen.includes(first.backup_id), 'bk-src backup missing');
      const def = await api(server, 'GET', '/backups');
      assert.equal(def.body.data.length, 10, 'default limit 10');
      const times = def.body.data.map((b: { created_at: string }) => Date.parse(b.created_at));
      for (let i = 1; i < times.length; i++) assert.ok(times[i - 1] >= times[i], 'newest first');
    });

    it('DELETE /backups/{id} → 202; then 404 and out of every listing', async () => {
      const victim = created[0];
      const res = await api(server, 'DELETE', `/backups/${victim}`);
      assert.equal(res.status, 202, res.text);
      assertCommon(res);
      assertError(await api(server, 'GET', `/backups/${victim}`), 404, 'NOT_FOUND');
      assertError(await api(server, 'DELETE', `/backups/${victim}`), 404, 'NOT_FOUND');
      assertError(await api(server, 'POST', `/backups/${victim}/create-index`, { body: { name: 'from-deleted' } }), 404, 'NOT_FOUND');
      const perIndex = await api(server, 'GET', '/indexes/page-src/backups?limit=100');
      assert.ok(!perIndex.body.data.some((b: { backup_id: string }) => b.backup_id === victim));
      const all = await api(server, 'GET', '/backups?limit=100');
      assert.ok(!all.body.data.some((b: { backup_id: string }) => b.backup_id === victim));
    });
  });

  it('a backup survives deletion of its source index and still restores; include_deleted lists it', async () => {
    const recs = makeRecords('z', 8, 3);
    const idx = await createIndex(server, serverlessIndex('doomed', 3));
    await upsert(server, idx.host, recs, 'keep');
    const b = await readyBackup(server, 'doomed', { name: 'last-words' });
    assert.equal((await api(server, 'DELETE', '/indexes/doomed')).status, 202);

    const got = await api(server, 'GET', `/backups/${b.backup_id}`);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.body.status, 'Ready');
    assert.equal(got.body.record_count, 8);
    assert.equal(got.body.source_index_name, 'doomed');
    assertError(await api(server, 'GET', '/indexes/doomed/backups'), 404, 'NOT_FOUND');
    const withDeleted = await api(server, 'GET', '/indexes/doomed/backups?include_deleted=true');
    assert.equal(withDeleted.status, 200, withDeleted.text);
    assert.deepEqual(withDeleted.body.data.map((x: { backup_id: string }) => x.backup_id), [b.backup_id]);
    const all = await api(server, 'GET', '/backups?limit=100');
    assert.ok(all.body.data.some((x: { backup_id: string }) => x.backup_id === b.backup_id));

    const [, restored] = await restore(server, b.backup_id, 'doomed-restored');
    assert.equal(restored.dimension, 3);
    await assertNamespaceHolds(server, restored.host, 'keep', recs);
  });

  it('the per-index listing shows the backups of the live index only; include_deleted=true adds those of earlier indexes of that name', async () => {
    await createIndex(server, serverlessIndex('reborn', 2));
    const old = await readyBackup(server, 'reborn');
    assert.equal((await api(server, 'DELETE', '/indexes/reborn')).status, 202);
    await createIndex(server, serverlessIndex('reborn', 2));
    const fresh = await readyBackup(server, 'reborn');
    assert.notEqual(fresh.source_index_id, old.source_index_id, 'a recreated index has a new id');
    const live = await api(server, 'GET', '/indexes/reborn/backups');
    assert.equal(live.status, 200, live.text);
    const both = await api(server, 'GET', '/indexes/reborn/backups?include_deleted=true');
    assert.equal(both.status, 200, both.text);
    assert.deepEqual(
      both.body.data.map((x: { backup_id: string }) => x.backup_id).sort(),
      [old.backup_id, fresh.backup_id].sort(),
    );
    assert.deepEqual(
      live.body.data.map((x: { backup_id: string }) => x.backup_id),
      [fresh.backup_id],
      `without include_deleted only the live index's backups: ${live.text}`,
    );
    const explicit = await api(server, 'GET', '/indexes/reborn/backups?include_deleted=false');
    assert.deepEqual(explicit.body.data, live.body.data);
    // Anything else is refused, not read as false.
    assertError(await api(server, 'GET', '/indexes/reborn/backups?include_deleted=yes'), 400, 'INVALID_ARGUMENT', ['include_deleted must be true or false']);
  });

  it("another project neither sees nor uses this project's backups and restore jobs", async () => {
    const env = { CONIFER_DATA_DIR: server.dataDir };
    assert.equal((await runCli(['projects', 'create', 'other'], env)).code, 0);
    const created = await runCli(['keys', 'create', '--project', 'other'], env);
    assert.equal(created.code, 0, created.stderr);
    const other = { url: server.url, apiKey: JSON.parse(created.stdout).key as string };
    assertError(await api(other, 'GET', `/backups/${first.backup_id}`), 404, 'NOT_FOUND');
    assertError(await api(other, 'DELETE', `/backups/${first.backup_id}`), 404, 'NOT_FOUND');
    assertError(await api(other, 'POST', `/backups/${first.backup_id}/create-index`, { body: { name: 'heist' } }), 404, 'NOT_FOUND');
    assertError(await api(other, 'POST', '/indexes/bk-src/backups', { body: {} }), 404, 'NOT_FOUND');
    const list = await api(other, 'GET', '/backups');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.body.data, []);
    const jobs = await api(other, 'GET', '/restore-jobs');
    assert.equal(jobs.status, 200, jobs.text);
    assert.deepEqual(jobs.body.data, []);
    const mine = await api(server, 'GET', '/restore-jobs?limit=1');
    assertError(await api(other, 'GET', `/restore-jobs/${mine.body.data[0].restore_job_id}`), 404, 'NOT_FOUND');
    assert.equal((await api(server, 'GET', `/backups/${first.backup_id}`)).status, 200, 'still there');
  });

  describe('with a large index (copies take a moment)', () => {
    const dim = 64;
    const size = 20_000;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let bigReady: any;

    before(async () => {
      const idx = await createIndex(server, serverlessIndex('big-sl', dim));
      await upsert(server, idx.host, makeRecords('b', size, dim, false));
    });

    it('create-index from a backup that is not Ready → 412 FAILED_PRECONDITION', async () => {
      let caught = false;
      for (let attempt = 1; attempt <= 3 && !caught; attempt++) {
        const b = await createBackup(server, 'big-sl');
        assert.equal(b.record_count, size);
        const res = await api(server, 'POST', `/backups/${b.backup_id}/create-index`, { body: { name: `early-${attempt}` } });
        const now = await api(server, 'GET', `/backups/${b.backup_id}`);
        if (res.status === 412) {
          caught = true;
          assertError(res, 412, 'FAILED_PRECONDITION');
          assert.equal((await api(server, 'GET', `/indexes/early-${attempt}`)).status, 404, 'no index was created');
        } else {
          assert.notEqual(now.body.status, 'Initializing', `create-index answered ${res.status} while the backup is Initializing: ${res.text}`);
          assert.equal(res.status, 202, res.text);
          const job = await waitRestoreJob(server, res.body.restore_job_id);
          assert.equal(job.status, 'Completed');
        }
        const ready = await waitBackup(server, b.backup_id);
        assert.equal(ready.status, 'Ready');
        assert.equal(ready.record_count, size);
        bigReady = ready;
      }
      if (!caught) console.log('412 (backup not Ready) not exercised: every backup finished first');
    });

    it('DELETE /backups/{id} while a restore from it is pending → 412; the restore completes with every record', async () => {
      let caught = false;
      for (let attempt = 1; attempt <= 3 && !caught; attempt++) {
        const name = `pending-restore-${attempt}`;
        const res = await api(server, 'POST', `/backups/${bigReady.backup_id}/create-index`, { body: { name } });
        assert.equal(res.status, 202, res.text);
        const del = await api(server, 'DELETE', `/backups/${bigReady.backup_id}`);
        const job = await api(server, 'GET', `/restore-jobs/${res.body.restore_job_id}`);
        if (del.status === 412) {
          caught = true;
          assertError(del, 412, 'FAILED_PRECONDITION');
          assert.equal((await api(server, 'GET', `/backups/${bigReady.backup_id}`)).status, 200, 'the backup is kept');
        } else {
          assert.notEqual(job.body.status, 'Pending', `DELETE answered ${del.status} while a restore is Pending: ${del.text}`);
          assert.equal(del.status, 202, del.text);
        }
        const done = await waitRestoreJob(server, res.body.restore_job_id);
        assert.equal(done.status, 'Completed');
        const idx = await waitIndexReady(server, name);
        assert.equal((await stats(server, idx.host)).totalVectorCount, size);
        if (del.status === 202) bigReady = await readyBackup(server, 'big-sl');
      }
      if (!caught) console.log('412 (pending restore) not exercised: every restore finished first');
      assert.equal((await api(server, 'DELETE', `/backups/${bigReady.backup_id}`)).status, 202, 'deletable once no restore is pending');
    });

    it('deleting a backup while it is copied stops its copy (logged as stopped, not failed); the files go', async () => {
      const seen: string[] = [];
      for (let attempt = 0; attempt < 3 && !seen.includes('backup copy stopped: the backup was deleted'); attempt++) {
        const b = await createBackup(server, 'big-sl');
        assert.equal((await api(server, 'DELETE', `/backups/${b.backup_id}`)).status, 202);
        const got = await loggedOutcome(server, 'backup', b.backup_id, ['backup copy stopped: the backup was deleted', 'backup ready', 'backup copy failed']);
        assert.ok(got !== undefined, `no outcome logged for backup ${b.backup_id}`);
        seen.push(got);
        assert.equal((await api(server, 'GET', `/backups/${b.backup_id}`)).status, 404);
        await poll('backup files removed', async () => existsSync(path.join(server.dataDir, 'backups', b.backup_id)), (exists) => !exists);
      }
      assert.ok(!seen.includes('backup copy failed'), seen.join(', '));
      // A 20,000-record copy takes far longer than a DELETE sent right after the 201.
      assert.ok(seen.includes('backup copy stopped: the backup was deleted'), seen.join(', '));
    });

    it('a restored index answers 503 with Retry-After on its data plane while Initializing', async () => {
      const b = await readyBackup(server, 'big-sl');
      const res = await api(server, 'POST', `/backups/${b.backup_id}/create-index`, { body: { name: 'loading-503' } });
      assert.equal(res.status, 202, res.text);
      const idx = await api(server, 'GET', '/indexes/loading-503');
      assert.equal(idx.status, 200, idx.text);
      const dp = await api(server, 'POST', `${idx.body.host}/describe_index_stats`, { body: {} });
      const after = await api(server, 'GET', '/indexes/loading-503');
      if (after.body.status.state === 'Initializing') {
        assert.deepEqual(after.body.status, { ready: false, state: 'Initializing' });
        assertDataPlaneError(dp, 503, 'UNAVAILABLE', 14);
        assert.match(dp.headers.get('retry-after') ?? '', /^\d+$/);
      } else {
        console.log('503 while Initializing not exercised: the restore finished first');
        assert.equal(dp.status, 200, dp.text);
      }
      await waitIndexReady(server, 'loading-503');
      assert.equal((await stats(server, idx.body.host)).totalVectorCount, size);
    });

    it('a backup still being copied survives deletion of its source right after the 201 and becomes Ready with every record', async () => {
      const b = await createBackup(server, 'big-sl', { name: 'outlives' });
      const del = await api(server, 'DELETE', '/indexes/big-sl');
      assert.equal(del.status, 202, del.text);
      const ready = await waitBackup(server, b.backup_id);
      assert.equal(ready.status, 'Ready', JSON.stringify(ready));
      assert.equal(ready.record_count, size);
      assert.ok(ready.size_bytes > 0);
      const [, idx] = await restore(server, b.backup_id, 'outlived');
      assert.equal((await stats(server, idx.host)).totalVectorCount, size);
      bigReady = ready;
    });

    // Last in the file: at the time of writing this crashes the server (see report).
    it('a backup of an index still being restored is refused (4xx) or holds all its records', async () => {
      const res = await api(server, 'POST', `/backups/${bigReady.backup_id}/create-index`, { body: { name: 'restoring' } });
      assert.equal(res.status, 202, res.text);
      const b = await api(server, 'POST', '/indexes/restoring/backups', { body: {} });
      assert.ok(b.status < 500, `POST /indexes/restoring/backups while it loads → ${b.status}: ${b.text}`);
      if (b.status === 201) {
        const done = await waitBackup(server, b.body.backup_id);
        assert.equal(done.status, 'Ready');
        assert.equal(done.record_count, size, JSON.stringify(done));
      } else {
        assert.ok(b.status >= 400, b.text);
        assertCommon(b);
      }
      await waitIndexReady(server, 'restoring');
      assert.ok(isServerAlive(server), 'the server is still running');
    });
  });
});
