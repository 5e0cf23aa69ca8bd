// PATCH /indexes/{name} (pod size, replicas, read capacity, deletion protection, tags,
// transitional states) and DELETE /indexes/{name} (202, protection, immediate 404, name
// reuse, storage removal). The server runs with a scaling delay so that the transitional
// states can be seen in a follow-up GET.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, type TestServer, type ApiResponse } from '../helpers/server.js';
import { assertError, assertCommon, serverlessBody, podBody, pollUntil, indexDirs, hostId, stopAndClean } from './support.js';

const SCALING_DELAY_MS = 500;

describe('index configure and delete', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ env: { CONIFER_SCALING_DELAY_MS: String(SCALING_DELAY_MS) } });
  });

  after(async () => {
    await stopAndClean(server);
  });

  const create = async (body: Record<string, unknown>): Promise<ApiResponse> => {
    const res = await api(server, 'POST', '/indexes', { body });
    assert.equal(res.status, 201, res.text);
    return res;
  };
  const patch = (name: string, body: unknown) => api(server, 'PATCH', `/indexes/${name}`, { body });
  const get = (name: string) => api(server, 'GET', `/indexes/${name}`);
  const waitReady = (name: string) =>
    pollUntil(
      () => get(name),
      (r) => r.body?.status?.state === 'Ready',
      5000 + SCALING_DELAY_MS,
    );

  describe('pod size', () => {
    it('p1.x1 → p1.x2: 202 with ScalingUpPodSize, visible in GET, then Ready with the new size', async () => {
      await create(podBody('size-up'));
      const res = await patch('size-up', { spec: { pod: { pod_type: 'p1.x2' } } });
      assert.equal(res.status, 202, res.text);
      assertCommon(res);
      assert.equal(res.body.name, 'size-up');
      assert.equal(res.body.status.state, 'ScalingUpPodSize');
      const during = await get('size-up');
      assert.equal(during.body.status.state, 'ScalingUpPodSize', during.text);
      const done = await waitReady('size-up');
      assert.equal(done.body.status.state, 'Ready', done.text);
      assert.equal(done.body.status.ready, true);
      assert.equal(done.body.spec.pod.pod_type, 'p1.x2');
      assert.equal(done.body.deployment.pod_type, 'p1.x2');
    });

    it('s1.x1 → s1.x8 is allowed (any larger size of the same family)', async () => {
      await create(podBody('size-jump', { pod_type: 's1.x1' }));
      const res = await patch('size-jump', { spec: { pod: { pod_type: 's1.x8' } } });
      assert.equal(res.status, 202, res.text);
      const done = await waitReady('size-jump');
      assert.equal(done.body.spec.pod.pod_type, 's1.x8');
    });

    it('p1.x2 → p1.x1 (smaller) is 400 and the size is unchanged', async () => {
      await create(podBody('size-down', { pod_type: 'p1.x2' }));
      const res = await patch('size-down', { spec: { pod: { pod_type: 'p1.x1' } } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['pod_type']);
      const got = await get('size-down');
      assert.equal(got.body.spec.pod.pod_type, 'p1.x2');
      assert.equal(got.body.status.state, 'Ready');
    });

    it('p1.x1 → s1.x2 (another family) is 400', async () => {
      await create(podBody('size-family'));
      const res = await patch('size-family', { spec: { pod: { pod_type: 's1.x2' } } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['pod_type']);
      const got = await get('size-family');
      assert.equal(got.body.spec.pod.pod_type, 'p1.x1');
    });

    it('an unknown pod type is 400', async () => {
      await create(podBody('size-unknown'));
      const res = await patch('size-unknown', { spec: { pod: { pod_type: 'p1.x16' } } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['pod_type']);
    });

    it('pod_type of the wrong JSON type is 422', async () => {
      await create(podBody('size-type'));
      const res = await patch('size-type', { spec: { pod: { pod_type: 2 } } });
      assertError(res, 422, 'UNPROCESSABLE_ENTITY', ['pod_type']);
    });
  });

  describe('replicas', () => {
    it('up: ScalingUp then Ready with the new count; down: ScalingDown then Ready', async () => {
      await create(podBody('replicas'));
      const up = await patch('replicas', { spec: { pod: { replicas: 3 } } });
      assert.equal(up.status, 202, up.text);
      assert.equal(up.body.status.state, 'ScalingUp');
      const upGet = await get('replicas');
      assert.equal(upGet.body.status.state, 'ScalingUp', upGet.text);
      let done = await waitReady('replicas');
      assert.equal(done.body.status.state, 'Ready', done.text);
      assert.equal(done.body.spec.pod.replicas, 3);
      assert.equal(done.body.deployment.replicas, 3);
      assert.equal(done.body.spec.pod.pods, 3, 'pods are shards × replicas');

      const down = await patch('replicas', { spec: { pod: { replicas: 2 } } });
      assert.equal(down.status, 202, down.text);
      assert.equal(down.body.status.state, 'ScalingDown');
      const downGet = await get('replicas');
      assert.equal(downGet.body.status.state, 'ScalingDown', downGet.text);
      done = await waitReady('replicas');
      assert.equal(done.body.status.state, 'Ready', done.text);
      assert.equal(done.body.spec.pod.replicas, 2);
      assert.equal(done.body.spec.pod.pods, 2);
    });

    it('replicas 0 is 400 naming replicas', async () => {
      await create(podBody('replicas-zero'));
      const res = await patch('replicas-zero', { spec: { pod: { replicas: 0 } } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['replicas']);
      assert.equal((await get('replicas-zero')).body.spec.pod.replicas, 1);
    });

    it('replicas as a string is 422 (no coercion)', async () => {
      await create(podBody('replicas-str'));
      const res = await patch('replicas-str', { spec: { pod: { replicas: '2' } } });
      assertError(res, 422, 'UNPROCESSABLE_ENTITY', ['replicas']);
      assert.equal((await get('replicas-str')).body.spec.pod.replicas, 1);
    });
  });

  describe('spec kind must match the index', () => {
    it('a pod field on a serverless index is 400', async () => {
      await create(serverlessBody('sl-podfield'));
      const res = await patch('sl-podfield', { spec: { pod: { replicas: 2 } } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['pod']);
      const got = await get('sl-podfield');
      assert.deepEqual(Object.keys(got.body.spec), ['serverless']);
    });

    it('a pod_type on a serverless index is 400', async () => {
      await create(serverlessBody('sl-podtype'));
      const res = await patch('sl-podtype', { spec: { pod: { pod_type: 'p1.x2' } } });
      assertError(res, 400, 'INVALID_ARGUMENT');
    });

    it('a serverless field on a pod index is 400', async () => {
      await create(podBody('pod-slfield'));
      const res = await patch('pod-slfield', { spec: { serverless: { read_capacity: { mode: 'OnDemand' } } } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['serverless']);
    });
  });

  describe('fields fixed at create', () => {
    it('dimension, metric, vector_type, cloud, region, environment, pods, shards and metadata_config are 400 naming the field, and nothing changes', async () => {
      await create(serverlessBody('sl-fixed'));
      await create(podBody('pod-fixed'));
      const cases: [string, unknown, string][] = [
        ['sl-fixed', { dimension: 8 }, 'dimension'],
        ['sl-fixed', { metric: 'euclidean', tags: { a: 'b' } }, 'metric'],
        ['sl-fixed', { vector_type: 'sparse' }, 'vector_type'],
        ['sl-fixed', { spec: { serverless: { cloud: 'gcp', region: 'us-central1' } } }, 'spec.serverless.cloud'],
        ['pod-fixed', { spec: { pod: { environment: 'us-west1-gcp' } } }, 'spec.pod.environment'],
        ['pod-fixed', { spec: { pod: { pods: 4 } } }, 'spec.pod.pods'],
        ['pod-fixed', { spec: { pod: { replicas: 2, shards: 4 } } }, 'spec.pod.shards'],
        ['pod-fixed', { spec: { pod: { metadata_config: { indexed: ['genre'] } } } }, 'spec.pod.metadata_config'],
      ];
      const before = { sl: (await get('sl-fixed')).body, pod: (await get('pod-fixed')).body };
      for (const [name, body, field] of cases) {
        const res = await patch(name, body);
        assertError(res, 400, 'INVALID_ARGUMENT', [`${field} cannot be changed by configure`]);
      }
      assert.deepEqual((await get('sl-fixed')).body, before.sl);
      assert.deepEqual((await get('pod-fixed')).body, before.pod);
    });
  });

  describe('read capacity', () => {
    it('serverless read_capacity can switch to Dedicated and back to OnDemand', async () => {
      await create(serverlessBody('rc-switch'));
      const rc = { mode: 'Dedicated', dedicated: { node_type: 'b1', scaling: 'Manual', manual: { replicas: 1, shards: 2 } } };
      const res = await patch('rc-switch', { spec: { serverless: { read_capacity: rc } } });
      assert.equal(res.status, 202, res.text);
      const done = await waitReady('rc-switch');
      const got = done.body.spec.serverless.read_capacity;
      assert.equal(got.mode, 'Dedicated');
      assert.equal(got.dedicated.node_type, 'b1');
      assert.equal(got.dedicated.scaling, 'Manual');
      assert.deepEqual(got.dedicated.manual, { replicas: 1, shards: 2 });
      assert.equal(got.status.state, 'Ready');
      assert.equal(done.body.read_capacity.mode, 'Dedicated');

      const back = await patch('rc-switch', { spec: { serverless: { read_capacity: { mode: 'OnDemand' } } } });
      assert.equal(back.status, 202, back.text);
      const final = await waitReady('rc-switch');
      assert.deepEqual(final.body.spec.serverless.read_capacity, { mode: 'OnDemand', status: { state: 'Ready' } });
    });

    it('an unknown read_capacity mode is 400 naming the field and changes nothing', async () => {
      await create(serverlessBody('rc-bad'));
      const res = await patch('rc-bad', { spec: { serverless: { read_capacity: { mode: 'Turbo' } } } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['spec.serverless.read_capacity.mode', 'Turbo']);
      assert.equal((await get('rc-bad')).body.spec.serverless.read_capacity.mode, 'OnDemand');
    });
  });

  describe('deletion protection', () => {
    it('enabled blocks DELETE with 403 FORBIDDEN; the alias delete_protection disables it', async () => {
      await create(serverlessBody('protected'));
      const on = await patch('protected', { deletion_protection: 'enabled' });
      assert.equal(on.status, 202, on.text);
      assert.equal(on.body.deletion_protection, 'enabled');
      assert.equal((await get('protected')).body.deletion_protection, 'enabled');

      const blocked = await api(server, 'DELETE', '/indexes/protected');
      assertError(blocked, 403, 'FORBIDDEN', ['deletion protection', 'disable']);
      assert.equal((await get('protected')).status, 200, 'still there after the refused delete');

      const off = await patch('protected', { delete_protection: 'disabled' });
      assert.equal(off.status, 202, off.text);
      assert.equal(off.body.deletion_protection, 'disabled');

      const del = await api(server, 'DELETE', '/indexes/protected');
      assert.equal(del.status, 202, del.text);
    });

    it('the alias delete_protection can also enable it', async () => {
      await create(serverlessBody('alias-on'));
      const on = await patch('alias-on', { delete_protection: 'enabled' });
      assert.equal(on.status, 202, on.text);
      assert.equal((await get('alias-on')).body.deletion_protection, 'enabled');
      assertError(await api(server, 'DELETE', '/indexes/alias-on'), 403, 'FORBIDDEN');
      assert.equal((await patch('alias-on', { deletion_protection: 'disabled' })).status, 202);
    });

    it('protection set at create blocks delete too', async () => {
      await create(podBody('pod-protected', {}, { deletion_protection: 'enabled' }));
      assertError(await api(server, 'DELETE', '/indexes/pod-protected'), 403, 'FORBIDDEN');
      assert.equal((await patch('pod-protected', { deletion_protection: 'disabled' })).status, 202);
      assert.equal((await api(server, 'DELETE', '/indexes/pod-protected')).status, 202);
    });

    it('an unknown value is 400 and a boolean is 422', async () => {
      await create(serverlessBody('dp-values'));
      assertError(await patch('dp-values', { deletion_protection: 'yes' }), 400, 'INVALID_ARGUMENT', ['deletion_protection']);
      assertError(await patch('dp-values', { deletion_protection: true }), 422, 'UNPROCESSABLE_ENTITY', ['deletion_protection']);
      assert.equal((await get('dp-values')).body.deletion_protection, 'disabled');
    });
  });

  describe('tags', () => {
    it('merge into existing tags; an empty value removes the key', async () => {
      await create(serverlessBody('tagged', { tags: { a: '1', b: '2' } }));
      const res = await patch('tagged', { tags: { b: '', c: '3', a: 'one' } });
      assert.equal(res.status, 202, res.text);
      assert.deepEqual(res.body.tags, { a: 'one', c: '3' });
      assert.deepEqual((await get('tagged')).body.tags, { a: 'one', c: '3' });
    });

    it('removing every tag leaves an empty object', async () => {
      await create(serverlessBody('untag', { tags: { only: 'x' } }));
      const res = await patch('untag', { tags: { only: '' } });
      assert.equal(res.status, 202, res.text);
      assert.deepEqual((await get('untag')).body.tags, {});
    });

    it('a key of 80 characters and a value of 120 are accepted', async () => {
      await create(serverlessBody('tag-limits'));
      const key = 'k'.repeat(80);
      const value = 'v'.repeat(120);
      const res = await patch('tag-limits', { tags: { [key]: value } });
      assert.equal(res.status, 202, res.text);
      assert.equal((await get('tag-limits')).body.tags[key], value);
    });

    it('a key over 80 characters is 400', async () => {
      await create(serverlessBody('tag-key-long'));
      const res = await patch('tag-key-long', { tags: { ['k'.repeat(81)]: 'v' } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['tag']);
      assert.deepEqual((await get('tag-key-long')).body.tags, {});
    });

    it('a value over 120 characters is 400', async () => {
      await create(serverlessBody('tag-value-long'));
      const res = await patch('tag-value-long', { tags: { k: 'v'.repeat(121) } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['tag']);
      assert.deepEqual((await get('tag-value-long')).body.tags, {});
    });

    it('a key over 80 characters is 400 on create too', async () => {
      const res = await api(server, 'POST', '/indexes', { body: serverlessBody('tag-create-long', { tags: { ['k'.repeat(81)]: 'v' } }) });
      assertError(res, 400, 'INVALID_ARGUMENT', ['tag']);
    });

    it('a tag value that is not a string is 422', async () => {
      await create(serverlessBody('tag-type'));
      assertError(await patch('tag-type', { tags: { a: 1 } }), 422, 'UNPROCESSABLE_ENTITY', ['tags']);
    });

    it('tags and deletion protection can change in one request', async () => {
      await create(serverlessBody('combo'));
      const res = await patch('combo', { tags: { env: 'prod' }, deletion_protection: 'enabled' });
      assert.equal(res.status, 202, res.text);
      const got = await get('combo');
      assert.deepEqual(got.body.tags, { env: 'prod' });
      assert.equal(got.body.deletion_protection, 'enabled');
      assert.equal((await patch('combo', { deletion_protection: 'disabled' })).status, 202);
    });
  });

  describe('configure errors', () => {
    it('an unknown index is 404 naming it', async () => {
      const res = await patch('no-such-index', { tags: { a: 'b' } });
      assertError(res, 404, 'NOT_FOUND', ['no-such-index']);
    });

    it('spec of the wrong JSON type is 422', async () => {
      await create(serverlessBody('patch-types'));
      assertError(await patch('patch-types', { spec: 'x' }), 422, 'UNPROCESSABLE_ENTITY', ['spec']);
      assertError(await patch('patch-types', { tags: 'x' }), 422, 'UNPROCESSABLE_ENTITY', ['tags']);
    });

    it('the body is required: none, or an empty one, is 422 under both API models; nothing changes', async () => {
      await create(serverlessBody('patch-nobody', { tags: { keep: 'me' } }));
      for (const version of ['2026-04', '2026-07']) {
        const none = await api(server, 'PATCH', '/indexes/patch-nobody', { version });
        assertError(none, 422, 'UNPROCESSABLE_ENTITY', ['body is required']);
        const empty = await api(server, 'PATCH', '/indexes/patch-nobody', { version, rawBody: '' });
        assertError(empty, 422, 'UNPROCESSABLE_ENTITY', ['body is required']);
      }
      // The body is checked before the index is looked up, like any undeserializable body.
      assertError(await api(server, 'PATCH', '/indexes/no-such-index'), 422, 'UNPROCESSABLE_ENTITY');
      const got = await get('patch-nobody');
      assert.deepEqual(got.body.tags, { keep: 'me' });
      assert.equal(got.body.status.state, 'Ready');
    });

    it('refuses fields fixed at create (dimension, metric) with a 400 and changes nothing, tags included', async () => {
      const created = await create(serverlessBody('immutable', { dimension: 8 }));
      const res = await patch('immutable', { dimension: 16, metric: 'euclidean', tags: { t: 'x' } });
      assertError(res, 400, 'INVALID_ARGUMENT', ['dimension', 'fixed when the index is created']);
      const got = await get('immutable');
      assert.deepEqual(got.body.tags, {});
      assert.equal(got.body.dimension, 8);
      assert.equal(got.body.metric, 'cosine');
      assert.equal(got.body.host, created.body.host);
    });
  });

  describe('delete', () => {
    it('answers 202 with an empty body; describe is 404 at once; list excludes it', async () => {
      await create(serverlessBody('to-delete'));
      const res = await api(server, 'DELETE', '/indexes/to-delete');
      assert.equal(res.status, 202, res.text);
      assertCommon(res);
      assert.equal(res.text, '');
      assertError(await get('to-delete'), 404, 'NOT_FOUND', ['to-delete']);
      const list = await api(server, 'GET', '/indexes');
      assert.ok(!list.body.indexes.some((i: { name: string }) => i.name === 'to-delete'));
    });

    it('deleting twice: the second is 404', async () => {
      await create(podBody('twice'));
      assert.equal((await api(server, 'DELETE', '/indexes/twice')).status, 202);
      assertError(await api(server, 'DELETE', '/indexes/twice'), 404, 'NOT_FOUND', ['twice']);
    });

    it('an unknown index is 404', async () => {
      assertError(await api(server, 'DELETE', '/indexes/never-was'), 404, 'NOT_FOUND', ['never-was']);
    });

    it('the name is free at once; the new index has a different host', async () => {
      const first = await create(serverlessBody('reborn', { dimension: 8 }));
      const firstId = hostId(first.body.host, 'reborn', server.url);
      assert.equal((await api(server, 'DELETE', '/indexes/reborn')).status, 202);
      const second = await create(podBody('reborn', {}, { dimension: 4 }));
      const secondId = hostId(second.body.host, 'reborn', server.url);
      assert.notEqual(secondId, firstId, 'a recreated index must get a new host');
      const got = await get('reborn');
      assert.equal(got.body.dimension, 4);
      assert.ok(got.body.spec.pod);
      assert.deepEqual(got.body.tags, {});
    });

    it('a pod index in a transitional state (scaling) is deleted at once: 202, then 404', async () => {
      await create(podBody('scaling-delete', { pod_type: 'p2.x1' }));
      assert.equal((await patch('scaling-delete', { spec: { pod: { pod_type: 'p2.x2' } } })).status, 202);
      assert.notEqual((await get('scaling-delete')).body.status.state, 'Ready', 'still scaling when deleted');
      const del = await api(server, 'DELETE', '/indexes/scaling-delete');
      assert.equal(del.status, 202, del.text);
      assertError(await get('scaling-delete'), 404, 'NOT_FOUND');
    });

    it('create then delete at once, twenty times concurrently: the server stays up and all are gone', async () => {
      const names = Array.from({ length: 20 }, (_, i) => `flash-${i}`);
      await Promise.all(
        names.map(async (name) => {
          const c = await api(server, 'POST', '/indexes', { body: serverlessBody(name) });
          assert.equal(c.status, 201, c.text);
          const d = await api(server, 'DELETE', `/indexes/${name}`);
          assert.equal(d.status, 202, d.text);
        }),
      );
      const health = await api(server, 'GET', '/health', { key: null });
      assert.equal(health.status, 200);
      const list = await api(server, 'GET', '/indexes');
      assert.equal(list.status, 200, list.text);
      assert.ok(!list.body.indexes.some((i: { name: string }) => i.name.startsWith('flash-')), list.text);
      // the background removals run without taking the server down
      const settled = await pollUntil(
        async () => {
          const l = await api(server, 'GET', '/indexes');
          return { dirs: indexDirs(server.dataDir).length, count: l.body.indexes.length as number };
        },
        (v) => v.dirs === v.count,
      );
      assert.equal(settled.dirs, settled.count);
      assert.equal(server.proc.exitCode, null, `server exited:\n${server.output().slice(-2000)}`);
    });

    it('storage: one directory per index; a deleted index loses its directory', async () => {
      // Let earlier background deletions finish, then compare directories with the catalog.
      const settled = await pollUntil(
        async () => {
          const list = await api(server, 'GET', '/indexes');
          return { dirs: indexDirs(server.dataDir), count: list.body.indexes.length as number };
        },
        (s) => s.dirs.length === s.count,
        5000,
      );
      assert.equal(settled.dirs.length, settled.count, `dirs ${settled.dirs.length} vs indexes ${settled.count}`);

      const before = indexDirs(server.dataDir);
      await create(serverlessBody('dir-check'));
      const withIndex = indexDirs(server.dataDir);
      const added = withIndex.filter((d) => !before.includes(d));
      assert.equal(added.length, 1, `expected one new directory: ${added}`);

      assert.equal((await api(server, 'DELETE', '/indexes/dir-check')).status, 202);
      const after = await pollUntil(
        async () => indexDirs(server.dataDir),
        (dirs) => !dirs.includes(added[0]),
        5000,
      );
      assert.ok(!after.includes(added[0]), `directory ${added[0]} still present after delete`);
      assert.deepEqual(after, before);
    });
  });
});
