// Collections (pod indexes only): create / list / describe / delete, their status codes,
// independence from the source index, indexes created from a collection, and the 412 on
// deleting an index while a collection is being made from it (issue 4).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, runCli, type TestServer } from '../helpers/server.js';
import { assertCommon, assertError, assertDataPlaneError, stopAndClean } from '../server/support.js';
import {
  assertNamespaceHolds,
  createIndex,
  isServerAlive,
  loggedOutcome,
  makeRecords,
  podIndex,
  poll,
  readyCollection,
  serverlessIndex,
  stats,
  upsert,
  waitCollection,
  waitIndexReady,
  type Rec,
} from './copies-support.js';

describe('collections', () => {
  let server: TestServer;
  const nsDefault = makeRecords('d', 30, 8);
  const nsA = makeRecords('a', 20, 8);

  before(async () => {
    server = await startServer();
    const src = await createIndex(server, podIndex('src', 8));
    await upsert(server, src.host, nsDefault);
    await upsert(server, src.host, nsA, 'ns-a');
  });

  after(async () => {
    await stopAndClean(server);
  });

  it('POST /collections → 201 Initializing with the record fields, then Ready with size and vector_count', async () => {
    const res = await api(server, 'POST', '/collections', { body: { name: 'coll-a', source: 'src' } });
    assert.equal(res.status, 201, res.text);
    assertCommon(res);
    const c = res.body;
    assert.equal(c.name, 'coll-a');
    assert.equal(c.status, 'Initializing');
    assert.equal(c.environment, 'us-east-1-aws');
    assert.equal(c.dimension, 8);
    assert.ok(Number.isInteger(c.size) && c.size >= 0, `size: ${res.text}`);
    assert.ok(Number.isInteger(c.vector_count) && c.vector_count >= 0, `vector_count: ${res.text}`);

    const ready = await waitCollection(server, 'coll-a');
    assert.equal(ready.status, 'Ready', JSON.stringify(ready));
    assert.equal(ready.name, 'coll-a');
    assert.equal(ready.environment, 'us-east-1-aws');
    assert.equal(ready.dimension, 8);
    assert.equal(ready.vector_count, 50, 'records of every namespace');
    assert.ok(Number.isInteger(ready.size) && ready.size > 0, `size in bytes: ${JSON.stringify(ready)}`);

    const list = await api(server, 'GET', '/collections');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(Object.keys(list.body), ['collections']);
    assert.ok(Array.isArray(list.body.collections));
    const listed = list.body.collections.find((x: { name: string }) => x.name === 'coll-a');
    assert.deepEqual(listed, ready, 'the listed record equals the described one');
  });

  it('GET and DELETE /collections/{unknown} → 404 NOT_FOUND', async () => {
    assertError(await api(server, 'GET', '/collections/no-such-coll'), 404, 'NOT_FOUND', ['no-such-coll']);
    assertError(await api(server, 'DELETE', '/collections/no-such-coll'), 404, 'NOT_FOUND', ['no-such-coll']);
  });

  it('a name breaking the name rule → 400 INVALID_ARGUMENT, nothing created', async () => {
    const bad = ['Upper', '-lead', 'trail-', 'under_score', 'sp ace', 'dot.name', '', 'x'.repeat(46)];
    for (const name of bad) {
      assertError(await api(server, 'POST', '/collections', { body: { name, source: 'src' } }), 400, 'INVALID_ARGUMENT', ['name']);
    }
    const list = await api(server, 'GET', '/collections');
    for (const name of bad) assert.ok(!list.body.collections.some((c: { name: string }) => c.name === name), name);
  });

  it('a 45-character name is accepted', async () => {
    const name = 'n'.repeat(44) + '9';
    const res = await api(server, 'POST', '/collections', { body: { name, source: 'src' } });
    assert.equal(res.status, 201, res.text);
    assert.equal((await waitCollection(server, name)).status, 'Ready');
    assert.equal((await api(server, 'DELETE', `/collections/${name}`)).status, 202);
  });

  it('a missing field, a field of the wrong type or a body that is not JSON → 422', async () => {
    const bodies: unknown[] = [
      { source: 'src' },
      { name: 'no-source' },
      {},
      { name: 5, source: 'src' },
      { name: 'wrong-source', source: ['src'] },
      { name: null, source: 'src' },
      [],
    ];
    for (const body of bodies) {
      assertError(await api(server, 'POST', '/collections', { body }), 422, 'UNPROCESSABLE_ENTITY');
    }
    assertError(await api(server, 'POST', '/collections', { rawBody: '{"name":' }), 422, 'UNPROCESSABLE_ENTITY');
    for (const name of ['no-source', 'wrong-source']) {
      assert.equal((await api(server, 'GET', `/collections/${name}`)).status, 404, name);
    }
  });

  it('a name already taken → 409 ALREADY_EXISTS', async () => {
    assertError(await api(server, 'POST', '/collections', { body: { name: 'coll-a', source: 'src' } }), 409, 'ALREADY_EXISTS');
    const after = await api(server, 'GET', '/collections/coll-a');
    assert.equal(after.body.vector_count, 50);
  });

  it('a source that is not an index of the project → 400 naming it', async () => {
    assertError(
      await api(server, 'POST', '/collections', { body: { name: 'orphan', source: 'no-such-index' } }),
      400,
      'INVALID_ARGUMENT',
      ['no-such-index'],
    );
    assert.equal((await api(server, 'GET', '/collections/orphan')).status, 404);
  });

  it("another project's index is not a source, and projects do not see each other's collections", async () => {
    const env = { CONIFER_DATA_DIR: server.dataDir };
    assert.equal((await runCli(['projects', 'create', 'other'], env)).code, 0);
    const created = await runCli(['keys', 'create', '--project', 'other'], env);
    assert.equal(created.code, 0, created.stderr);
    const other = { url: server.url, apiKey: JSON.parse(created.stdout).key as string };
    await createIndex(other, podIndex('theirs', 8));
    assertError(
      await api(server, 'POST', '/collections', { body: { name: 'stolen', source: 'theirs' } }),
      400,
      'INVALID_ARGUMENT',
      ['theirs'],
    );
    assertError(await api(other, 'GET', '/collections/coll-a'), 404, 'NOT_FOUND');
    const theirList = await api(other, 'GET', '/collections');
    assert.deepEqual(theirList.body, { collections: [] });
    // The other project may use the same collection name.
    const same = await api(other, 'POST', '/collections', { body: { name: 'coll-a', source: 'theirs' } });
    assert.equal(same.status, 201, same.text);
    assert.equal((await waitCollection(other, 'coll-a')).vector_count, 0);
    assert.equal((await api(server, 'GET', '/collections/coll-a')).body.vector_count, 50);
  });

  it('a serverless source → 400 saying serverless indexes do not support collections', async () => {
    await createIndex(server, serverlessIndex('sl-src', 8));
    assertError(
      await api(server, 'POST', '/collections', { body: { name: 'from-sl', source: 'sl-src' } }),
      400,
      'INVALID_ARGUMENT',
      ['serverless'],
    );
    assert.equal((await api(server, 'GET', '/collections/from-sl')).status, 404);
  });

  it('a collection of an empty pod index is Ready with vector_count 0', async () => {
    await createIndex(server, podIndex('empty-pod', 3));
    const ready = await readyCollection(server, 'empty-coll', 'empty-pod');
    assert.equal(ready.vector_count, 0);
    assert.equal(ready.dimension, 3);
    const idx = await createIndex(server, podIndex('from-empty', 3, { source_collection: 'empty-coll' }));
    await waitIndexReady(server, 'from-empty');
    assert.equal((await stats(server, idx.host)).totalVectorCount, 0);
  });

  it('an index from a collection (spec.pod.source_collection) is Initializing (data plane 503 + Retry-After), then Ready with every record', async () => {
    const res = await api(server, 'POST', '/indexes', { body: podIndex('from-coll', 8, { source_collection: 'coll-a' }) });
    assert.equal(res.status, 201, res.text);
    const state = res.body.status;
    assert.ok(
      (state.ready === false && state.state === 'Initializing') || (state.ready === true && state.state === 'Ready'),
      `status on create: ${JSON.stringify(state)}`,
    );
    assert.equal(res.body.dimension, 8);
    assert.equal(res.body.spec.pod.source_collection, 'coll-a');
    const host = res.body.host as string;
    if (state.state === 'Initializing') {
      const dp = await api(server, 'POST', `${host}/describe_index_stats`, { body: {} });
      const now = await api(server, 'GET', '/indexes/from-coll');
      if (now.body.status.state === 'Initializing') {
        // Still loading after the data-plane answer: that answer must have been the 503.
        assertDataPlaneError(dp, 503, 'UNAVAILABLE', 14);
        const retry = dp.headers.get('retry-after');
        assert.ok(retry !== null && /^\d+$/.test(retry), `Retry-After: ${retry}`);
      }
    }
    await waitIndexReady(server, 'from-coll');
    const s = await stats(server, host);
    assert.equal(s.totalVectorCount, 50);
    await assertNamespaceHolds(server, host, '', nsDefault);
    await assertNamespaceHolds(server, host, 'ns-a', nsA);
  });

  it('an index from a collection with spec.serverless.source_collection holds every record', async () => {
    const idx = await createIndex(server, serverlessIndex('sl-from-coll', 8, { source_collection: 'coll-a' }));
    await waitIndexReady(server, 'sl-from-coll');
    await assertNamespaceHolds(server, idx.host, '', nsDefault);
    await assertNamespaceHolds(server, idx.host, 'ns-a', nsA);
  });

  it('an index from a collection: dimension mismatch → 400, unknown collection → 404, nothing created', async () => {
    assertError(
      await api(server, 'POST', '/indexes', { body: podIndex('wrong-dim', 9, { source_collection: 'coll-a' }) }),
      400,
      'INVALID_ARGUMENT',
      ['dimension'],
    );
    assertError(
      await api(server, 'POST', '/indexes', { body: serverlessIndex('wrong-dim-sl', 7, { source_collection: 'coll-a' }) }),
      400,
      'INVALID_ARGUMENT',
      ['dimension'],
    );
    assertError(
      await api(server, 'POST', '/indexes', { body: podIndex('no-coll', 8, { source_collection: 'no-such-coll' }) }),
      404,
      'NOT_FOUND',
      ['no-such-coll'],
    );
    assertError(
      await api(server, 'POST', '/indexes', { body: serverlessIndex('no-coll-sl', 8, { source_collection: 'no-such-coll' }) }),
      404,
      'NOT_FOUND',
    );
    for (const name of ['wrong-dim', 'wrong-dim-sl', 'no-coll', 'no-coll-sl']) {
      assert.equal((await api(server, 'GET', `/indexes/${name}`)).status, 404, name);
    }
  });

  it('a collection never changes when its source is written to or deleted afterwards', async () => {
    const original = makeRecords('m', 10, 4);
    const src = await createIndex(server, podIndex('mutable', 4));
    await upsert(server, src.host, original, 'ns1');
    const frozen = await readyCollection(server, 'frozen', 'mutable');
    assert.equal(frozen.vector_count, 10);

    // Change the source: new records, a changed record, a deleted one.
    await upsert(server, src.host, makeRecords('m', 5, 4, true, 100), 'ns1');
    await upsert(server, src.host, [{ id: original[1].id, values: [9, 9, 9, 9], metadata: { changed: true } }], 'ns1');
    const del = await api(server, 'POST', `${src.host}/vectors/delete`, { body: { ids: [original[0].id], namespace: 'ns1' } });
    assert.equal(del.status, 200, del.text);
    assert.equal((await api(server, 'GET', '/collections/frozen')).body.vector_count, 10);

    const a = await createIndex(server, podIndex('frozen-a', 4, { source_collection: 'frozen' }));
    await waitIndexReady(server, 'frozen-a');
    await assertNamespaceHolds(server, a.host, 'ns1', original);

    // Delete the source: the collection stays, Ready, and still makes indexes.
    const gone = await api(server, 'DELETE', '/indexes/mutable');
    assert.equal(gone.status, 202, gone.text);
    const still = await api(server, 'GET', '/collections/frozen');
    assert.equal(still.status, 200, still.text);
    assert.deepEqual(still.body, frozen);
    const b = await createIndex(server, podIndex('frozen-b', 4, { source_collection: 'frozen' }));
    await waitIndexReady(server, 'frozen-b');
    await assertNamespaceHolds(server, b.host, 'ns1', original);
  });

  it('DELETE /collections/{name} → 202, Terminating until gone, then 404 and out of the list', async () => {
    await readyCollection(server, 'doomed-coll', 'src');
    const del = await api(server, 'DELETE', '/collections/doomed-coll');
    assert.equal(del.status, 202, del.text);
    assertCommon(del);
    const seen: string[] = [];
    const last = await poll(
      'the deleted collection to disappear',
      () => api(server, 'GET', '/collections/doomed-coll'),
      (r) => {
        if (r.status === 200) seen.push(r.body.status);
        return r.status !== 200;
      },
    );
    assertError(last, 404, 'NOT_FOUND');
    for (const s of seen) assert.equal(s, 'Terminating', `status while being deleted: ${seen.join(',')}`);
    const list = await api(server, 'GET', '/collections');
    assert.ok(!list.body.collections.some((c: { name: string }) => c.name === 'doomed-coll'));
    // An index cannot be made from it any more.
    assertError(
      await api(server, 'POST', '/indexes', { body: podIndex('from-doomed', 8, { source_collection: 'doomed-coll' }) }),
      404,
      'NOT_FOUND',
    );
  });

  it('DELETE /indexes/{source} while a collection of it is Initializing → 412 FAILED_PRECONDITION naming it', async () => {
    let caught = false;
    let size = 20_000;
    const dim = 64;
    for (let attempt = 1; attempt <= 3 && !caught; attempt++, size *= 2) {
      const source = `big-src-${attempt}`;
      const idx = await createIndex(server, podIndex(source, dim));
      const records: Rec[] = makeRecords('b', size, dim, false);
      await upsert(server, idx.host, records);
      const coll = `pending-${attempt}`;
      const created = await api(server, 'POST', '/collections', { body: { name: coll, source } });
      assert.equal(created.status, 201, created.text);
      const del = await api(server, 'DELETE', `/indexes/${source}`);
      const after = await api(server, 'GET', `/collections/${coll}`);
      assert.equal(after.status, 200, after.text);
      if (del.status === 412) {
        caught = true;
        assertError(del, 412, 'FAILED_PRECONDITION', [coll]);
        assert.equal((await api(server, 'GET', `/indexes/${source}`)).status, 200, 'the index was not deleted');
        const ready = await waitCollection(server, coll);
        assert.equal(ready.status, 'Ready');
        assert.equal(ready.vector_count, size);
        // Once the collection is Ready the index can go, and the collection stays.
        assert.equal((await api(server, 'DELETE', `/indexes/${source}`)).status, 202);
        assert.deepEqual((await api(server, 'GET', `/collections/${coll}`)).body, ready);
      } else {
        // Only legitimate when the copy had already finished.
        assert.notEqual(after.body.status, 'Initializing', `DELETE answered ${del.status} while ${coll} is Initializing: ${del.text}`);
        assert.equal(del.status, 202, del.text);
        assert.equal(after.body.status, 'Ready');
        assert.equal(after.body.vector_count, size);
      }
      // Keep the data directory small for the rest of the file.
      assert.equal((await api(server, 'DELETE', `/collections/${coll}`)).status, 202);
    }
    if (!caught) console.log('412 case not exercised: every copy finished before the DELETE arrived');
    assert.ok(isServerAlive(server));
  });

  it('deleting a collection while it is copied stops its copy (logged as stopped, not failed), then it is gone', async () => {
    const dim = 64;
    const idx = await createIndex(server, podIndex('stop-src', dim));
    await upsert(server, idx.host, makeRecords('s', 20_000, dim, false));
    const seen: string[] = [];
    for (let attempt = 0; attempt < 3 && !seen.includes('collection copy stopped: the collection was deleted'); attempt++) {
      const name = `stopped-${attempt}`;
      const created = await api(server, 'POST', '/collections', { body: { name, source: 'stop-src' } });
      assert.equal(created.status, 201, created.text);
      assert.equal((await api(server, 'DELETE', `/collections/${name}`)).status, 202);
      const got = await loggedOutcome(server, 'collection', name, ['collection copy stopped: the collection was deleted', 'collection ready', 'collection copy failed']);
      assert.ok(got !== undefined, `no outcome logged for collection ${name}`);
      seen.push(got);
      await poll('collection gone', async () => (await api(server, 'GET', `/collections/${name}`)).status, (status) => status === 404);
    }
    assert.ok(!seen.includes('collection copy failed'), seen.join(', '));
    // A 20,000-record copy takes far longer than a DELETE sent right after the 201.
    assert.ok(seen.includes('collection copy stopped: the collection was deleted'), seen.join(', '));
    assert.equal((await api(server, 'DELETE', '/indexes/stop-src')).status, 202);
  });

  // Last in the file: at the time of writing this crashes the server (see report).
  it('a collection of an index still loading from a collection is refused (4xx) or holds all its records', async () => {
    const dim = 64;
    const size = 20_000;
    const idx = await createIndex(server, podIndex('load-src', dim));
    await upsert(server, idx.host, makeRecords('l', size, dim, false));
    await readyCollection(server, 'load-coll', 'load-src');
    const loading = await api(server, 'POST', '/indexes', { body: podIndex('loading', dim, { source_collection: 'load-coll' }) });
    assert.equal(loading.status, 201, loading.text);
    const res = await api(server, 'POST', '/collections', { body: { name: 'of-loading', source: 'loading' } });
    const stateAfter = (await api(server, 'GET', '/indexes/loading')).body?.status?.state;
    assert.ok(res.status < 500, `POST /collections of an index being loaded (state after: ${stateAfter}) → ${res.status}: ${res.text}`);
    if (res.status === 201) {
      const done = await waitCollection(server, 'of-loading');
      assert.equal(done.status, 'Ready');
      assert.equal(done.vector_count, size, `collection of a loading index: ${JSON.stringify(done)}`);
    } else {
      assert.ok(res.status >= 400 && res.status < 500, res.text);
      assertCommon(res);
    }
    await waitIndexReady(server, 'loading');
    assert.equal((await stats(server, loading.body.host)).totalVectorCount, size);
    assert.ok(isServerAlive(server), 'the server is still running');
  });
});
