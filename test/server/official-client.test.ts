// The official TypeScript client @pinecone-database/pinecone 8.2.0 (API 2026-04, sends
// X-Pinecone-Api-Version) driven against the server through controllerHostUrl.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Pinecone, Errors } from '@pinecone-database/pinecone';
import { startServer, api, type TestServer } from '../helpers/server.js';
import { hostId, stopAndClean } from './support.js';

describe('official TypeScript client 8.2.0', () => {
  let server: TestServer;
  let pc: Pinecone;

  before(async () => {
    server = await startServer();
    pc = new Pinecone({ apiKey: server.apiKey, controllerHostUrl: server.url, maxRetries: 0 });
  });

  after(async () => {
    await stopAndClean(server);
  });

  it('createIndex serverless returns the parsed model', async () => {
    const model = await pc.createIndex({
      name: 'client-serverless',
      dimension: 8,
      metric: 'cosine',
      spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
      tags: { team: 'search' },
    });
    assert.ok(model, 'createIndex returned nothing');
    assert.equal(model.name, 'client-serverless');
    assert.equal(model.dimension, 8);
    assert.equal(model.metric, 'cosine');
    assert.equal(model.vectorType, 'dense');
    assert.equal(model.deletionProtection, 'disabled');
    assert.deepEqual(model.tags, { team: 'search' });
    assert.equal(model.status.ready, true);
    assert.equal(model.status.state, 'Ready');
    const spec = model.spec as { serverless?: { cloud: string; region: string; readCapacity?: { mode: string } } };
    assert.equal(spec.serverless?.cloud, 'aws');
    assert.equal(spec.serverless?.region, 'us-east-1');
    assert.equal(spec.serverless?.readCapacity?.mode, 'OnDemand');
    hostId(model.host, 'client-serverless', server.url);
  });

  it('createIndex pod returns the pod spec', async () => {
    const model = await pc.createIndex({
      name: 'client-pod',
      dimension: 4,
      metric: 'euclidean',
      spec: { pod: { environment: 'us-east-1-aws', podType: 'p1.x1', pods: 1, replicas: 1, shards: 1 } },
    });
    assert.ok(model);
    const spec = model.spec as { pod?: { environment: string; podType: string; replicas?: number } };
    assert.equal(spec.pod?.environment, 'us-east-1-aws');
    assert.equal(spec.pod?.podType, 'p1.x1');
    assert.equal(spec.pod?.replicas, 1);
    assert.equal(model.metric, 'euclidean');
  });

  it('createIndex sparse (vectorType sparse, dotproduct) has no dimension', async () => {
    const model = await pc.createIndex({
      name: 'client-sparse',
      vectorType: 'sparse',
      metric: 'dotproduct',
      spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
    });
    assert.ok(model);
    assert.equal(model.vectorType, 'sparse');
    assert.equal(model.metric, 'dotproduct');
    assert.equal(model.dimension, undefined);
  });

  it('createIndex with waitUntilReady returns at once (the index is ready)', async () => {
    const model = await pc.createIndex({
      name: 'client-wait',
      dimension: 2,
      spec: { serverless: { cloud: 'gcp', region: 'europe-west4' } },
      waitUntilReady: true,
      timeout: 10_000,
    });
    assert.ok(model);
    assert.equal(model.status.ready, true);
  });

  it('createIndex with Dedicated read capacity round-trips through the client', async () => {
    const model = await pc.createIndex({
      name: 'client-dedicated',
      dimension: 8,
      spec: {
        serverless: {
          cloud: 'aws',
          region: 'us-east-1',
          readCapacity: { mode: 'Dedicated', nodeType: 'b1', manual: { replicas: 1, shards: 1 } },
        },
      },
    });
    assert.ok(model);
    const rc = (model.spec as { serverless?: { readCapacity?: { mode: string } } }).serverless?.readCapacity;
    assert.equal(rc?.mode, 'Dedicated');
  });

  it('listIndexes lists them all', async () => {
    const list = await pc.listIndexes();
    const names = (list.indexes ?? []).map((i) => i.name).sort();
    for (const n of ['client-pod', 'client-serverless', 'client-sparse']) assert.ok(names.includes(n), `${n} missing: ${names}`);
  });

  it('describeIndex returns the model', async () => {
    const model = await pc.describeIndex('client-pod');
    assert.equal(model.name, 'client-pod');
    assert.equal(model.dimension, 4);
    hostId(model.host, 'client-pod', server.url);
  });

  it('configureIndex deletionProtection and tags', async () => {
    const model = await pc.configureIndex({
      name: 'client-serverless',
      deletionProtection: 'enabled',
      tags: { env: 'test', team: '' },
    });
    assert.equal(model.deletionProtection, 'enabled');
    assert.deepEqual(model.tags, { env: 'test' });
    const described = await pc.describeIndex('client-serverless');
    assert.equal(described.deletionProtection, 'enabled');
    assert.deepEqual(described.tags, { env: 'test' });
  });

  it('deleteIndex of a protected index is refused (403 → PineconeBadRequestError)', async () => {
    await assert.rejects(pc.deleteIndex('client-serverless'), (e: Error) => {
      assert.ok(e instanceof Errors.PineconeBadRequestError, `${e.name}: ${e.message}`);
      assert.match(e.message, /deletion protection/i);
      return true;
    });
    await pc.configureIndex({ name: 'client-serverless', deletionProtection: 'disabled' });
  });

  it('configureIndex podType and podReplicas', async () => {
    const sized = await pc.configureIndex({ name: 'client-pod', podType: 'p1.x2' });
    assert.equal((sized.spec as { pod?: { podType: string } }).pod?.podType, 'p1.x2');
    const replicated = await pc.configureIndex({ name: 'client-pod', podReplicas: 2 });
    assert.equal((replicated.spec as { pod?: { replicas?: number } }).pod?.replicas, 2);
    // the change is applied (state returns to Ready)
    const deadline = Date.now() + 5000;
    let model = await pc.describeIndex('client-pod');
    while (model.status.state !== 'Ready' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      model = await pc.describeIndex('client-pod');
    }
    assert.equal(model.status.state, 'Ready');
    const pod = (model.spec as { pod?: { podType: string; replicas?: number } }).pod;
    assert.equal(pod?.podType, 'p1.x2');
    assert.equal(pod?.replicas, 2);
  });

  it('configureIndex downsizing is refused with a typed error', async () => {
    await assert.rejects(pc.configureIndex({ name: 'client-pod', podType: 'p1.x1' }), (e: Error) => {
      assert.ok(e instanceof Errors.PineconeBadRequestError, `${e.name}: ${e.message}`);
      return true;
    });
  });

  it('configureIndex readCapacity on a serverless index', async () => {
    const model = await pc.configureIndex({
      name: 'client-serverless',
      readCapacity: { mode: 'Dedicated', nodeType: 'b1', manual: { replicas: 1, shards: 1 } },
    });
    assert.equal((model.spec as { serverless?: { readCapacity?: { mode: string } } }).serverless?.readCapacity?.mode, 'Dedicated');
  });

  it('deleteIndex, then describeIndex throws PineconeNotFoundError', async () => {
    await pc.deleteIndex('client-sparse');
    await assert.rejects(pc.describeIndex('client-sparse'), (e: Error) => {
      assert.ok(e instanceof Errors.PineconeNotFoundError, `${e.name}: ${e.message}`);
      return true;
    });
    const list = await pc.listIndexes();
    assert.ok(!(list.indexes ?? []).some((i) => i.name === 'client-sparse'));
  });

  it('describeIndex of a missing index throws PineconeNotFoundError', async () => {
    await assert.rejects(pc.describeIndex('never-created'), (e: Error) => {
      assert.ok(e instanceof Errors.PineconeNotFoundError, `${e.name}: ${e.message}`);
      return true;
    });
  });

  it('a duplicate create throws PineconeConflictError; suppressConflicts swallows it', async () => {
    const opts = {
      name: 'client-pod',
      dimension: 4,
      spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
    };
    await assert.rejects(pc.createIndex(opts), (e: Error) => {
      assert.ok(e instanceof Errors.PineconeConflictError, `${e.name}: ${e.message}`);
      return true;
    });
    const suppressed = await pc.createIndex({ ...opts, suppressConflicts: true });
    assert.equal(suppressed, undefined);
  });

  it('an unknown region throws PineconeNotFoundError', async () => {
    await assert.rejects(
      pc.createIndex({ name: 'client-nowhere', dimension: 4, spec: { serverless: { cloud: 'aws', region: 'us-west1' } } }),
      (e: Error) => {
        assert.ok(e instanceof Errors.PineconeNotFoundError, `${e.name}: ${e.message}`);
        return true;
      },
    );
  });

  it('a server-side 400 reaches the caller with the server message', async () => {
    await assert.rejects(
      pc.createIndex({ name: 'client-bad-env', dimension: 4, spec: { pod: { environment: 'mars-1', podType: 'p1.x1' } } }),
      (e: Error) => {
        assert.ok(e instanceof Errors.PineconeBadRequestError, `${e.name}: ${e.message}`);
        assert.match(e.message, /environment/i);
        return true;
      },
    );
  });

  it('a wrong key throws PineconeAuthorizationError', async () => {
    const bad = new Pinecone({ apiKey: 'wrong-key', controllerHostUrl: server.url, maxRetries: 0 });
    await assert.rejects(bad.listIndexes(), (e: Error) => {
      assert.ok(e instanceof Errors.PineconeAuthorizationError, `${e.name}: ${e.message}`);
      return true;
    });
    await assert.rejects(bad.describeIndex('client-pod'), (e: Error) => e instanceof Errors.PineconeAuthorizationError);
  });

  it('deleteIndex of a serverless index and recreate with the same name gets a new host', async () => {
    const before = await pc.describeIndex('client-serverless');
    await pc.deleteIndex('client-serverless');
    const again = await pc.createIndex({
      name: 'client-serverless',
      dimension: 8,
      spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
    });
    assert.ok(again);
    assert.notEqual(again.host, before.host);
    // the raw API agrees with the client
    const raw = await api(server, 'GET', '/indexes/client-serverless');
    assert.equal(raw.body.host, again.host);
  });
});
