// Per-project quotas (CONIFER_QUOTA_SERVERLESS_INDEXES, CONIFER_QUOTA_PODS) → 403 FORBIDDEN
// naming the quota, on create and on replica increase. A pod index uses
// max(pods, shards × replicas) pods.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, type TestServer } from '../helpers/server.js';
import { assertError, serverlessBody, podBody, pollUntil, stopAndClean } from './support.js';

describe('quotas', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ env: { CONIFER_QUOTA_SERVERLESS_INDEXES: '2', CONIFER_QUOTA_PODS: '4' } });
  });

  after(async () => {
    await stopAndClean(server);
  });

  const create = (body: unknown) => api(server, 'POST', '/indexes', { body });
  const exists = async (name: string) => (await api(server, 'GET', `/indexes/${name}`)).status === 200;
  const waitReady = (name: string) =>
    pollUntil(
      () => api(server, 'GET', `/indexes/${name}`),
      (r) => r.body?.status?.state === 'Ready',
    );

  describe('serverless indexes', () => {
    it('allows up to the quota, then 403 FORBIDDEN naming the quota', async () => {
      assert.equal((await create(serverlessBody('sl-1'))).status, 201);
      assert.equal((await create(serverlessBody('sl-2', { vector_type: 'dense' }))).status, 201);
      const third = await create(serverlessBody('sl-3'));
      assertError(third, 403, 'FORBIDDEN', ['quota']);
      assert.match(third.body.error.message, /serverless|index/i);
      assert.equal(await exists('sl-3'), false);
    });

    it('sparse indexes count against the same quota', async () => {
      const res = await create({
        name: 'sl-sparse',
        metric: 'dotproduct',
        vector_type: 'sparse',
        spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
      });
      assertError(res, 403, 'FORBIDDEN', ['quota']);
    });

    it('a deleted index frees its slot', async () => {
      assert.equal((await api(server, 'DELETE', '/indexes/sl-1')).status, 202);
      const res = await create(serverlessBody('sl-3'));
      assert.equal(res.status, 201, res.text);
    });

    it('a bad name at the quota is refused as a bad name (400: the body is checked before the quota), never created', async () => {
      const res = await create(serverlessBody('Bad_Name'));
      assertError(res, 400, 'INVALID_ARGUMENT', ['name']);
    });
  });

  describe('concurrent creates at the quota', () => {
    it('five simultaneous creates with room for two: exactly two succeed', async () => {
      // free every serverless slot first
      const list = await api(server, 'GET', '/indexes');
      for (const i of list.body.indexes as Array<{ name: string; spec: { serverless?: unknown } }>) {
        if (i.spec.serverless) assert.equal((await api(server, 'DELETE', `/indexes/${i.name}`)).status, 202);
      }
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => create(serverlessBody(`burst-${i}`))));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 201, 403, 403, 403], JSON.stringify(statuses));
      const after = await api(server, 'GET', '/indexes');
      const serverless = after.body.indexes.filter((i: { spec: { serverless?: unknown } }) => i.spec.serverless);
      assert.equal(serverless.length, 2);
    });
  });

  describe('pods', () => {
    it('pod indexes are not limited by the serverless quota', async () => {
      const res = await create(podBody('pod-a', { replicas: 2 }));
      assert.equal(res.status, 201, res.text);
    });

    it('shards × replicas counts when larger than pods (1 pod, 3 shards → 3 pods, 2 + 3 > 4)', async () => {
      const res = await create(podBody('pod-shards', { pods: 1, shards: 3, replicas: 1 }));
      assertError(res, 403, 'FORBIDDEN', ['quota']);
      assert.match(res.body.error.message, /pod/i);
      assert.equal(await exists('pod-shards'), false);
    });

    it('pods counts when larger than shards × replicas (3 pods, 2 + 3 > 4)', async () => {
      const res = await create(podBody('pod-pods', { pods: 3, shards: 1, replicas: 1 }));
      assertError(res, 403, 'FORBIDDEN', ['quota']);
      assert.equal(await exists('pod-pods'), false);
    });

    it('filling the quota exactly is allowed (2 + 2 = 4)', async () => {
      const res = await create(podBody('pod-b', { pods: 2 }));
      assert.equal(res.status, 201, res.text);
    });

    it('one more pod is 403', async () => {
      const res = await create(podBody('pod-c'));
      assertError(res, 403, 'FORBIDDEN', ['quota']);
    });

    it('a replica increase beyond the quota is 403 and changes nothing', async () => {
      const res = await api(server, 'PATCH', '/indexes/pod-a', { body: { spec: { pod: { replicas: 3 } } } });
      assertError(res, 403, 'FORBIDDEN', ['quota']);
      const got = await api(server, 'GET', '/indexes/pod-a');
      assert.equal(got.body.spec.pod.replicas, 2);
      assert.equal(got.body.status.state, 'Ready');
    });

    it('a replica decrease is always allowed and frees pods for an increase', async () => {
      const down = await api(server, 'PATCH', '/indexes/pod-a', { body: { spec: { pod: { replicas: 1 } } } });
      assert.equal(down.status, 202, down.text);
      await waitReady('pod-a');
      const c = await create(podBody('pod-c'));
      assert.equal(c.status, 201, c.text);
      const up = await api(server, 'PATCH', '/indexes/pod-a', { body: { spec: { pod: { replicas: 2 } } } });
      assertError(up, 403, 'FORBIDDEN', ['quota']);
    });

    it('deleting a pod index frees its pods', async () => {
      assert.equal((await api(server, 'DELETE', '/indexes/pod-b')).status, 202);
      const up = await api(server, 'PATCH', '/indexes/pod-a', { body: { spec: { pod: { replicas: 3 } } } });
      assert.equal(up.status, 202, up.text);
    });
  });
});
