// Shared helpers of the API 2026-07 tests (test/v2607). No tests live here.
import assert from 'node:assert/strict';
import { api, type ApiResponse, type TestServer } from '../helpers/server.js';

export const V2607 = '2026-07';
export const V2604 = '2026-04';

type Srv = Pick<TestServer, 'url' | 'apiKey'>;

/** The 2026-04 index name rule: 1-45 chars, lowercase alphanumerics and '-', alphanumeric at both ends. */
export const INDEX_NAME_RULE = /^(?=.{1,45}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls every 50 ms until `done(value)`; fails with `what` after `timeoutMs` (at most 20 s). */
export async function poll<T>(what: string, fn: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + Math.min(timeoutMs, 20_000);
  let last = await fn();
  while (!done(last)) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await sleep(50);
    last = await fn();
  }
  return last;
}

/** A 2026-07 dense schema (`_values`), plus optional metadata fields. */
export function denseSchema(dimension: number, metric?: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const values: Record<string, unknown> = { type: 'dense_vector', dimension };
  if (metric !== undefined) values.metric = metric;
  return { fields: { _values: values, ...extra } };
}

/** POST /indexes with version 2026-07. */
export function create2607(server: Srv, body: unknown): Promise<ApiResponse> {
  return api(server, 'POST', '/indexes', { version: V2607, body });
}

/** PATCH /indexes/{name} with version 2026-07. */
export function configure2607(server: Srv, name: string, body: unknown): Promise<ApiResponse> {
  return api(server, 'PATCH', `/indexes/${name}`, { version: V2607, body });
}

/**
 * DESIGN.md decision 1: a record carries both models. Checks the 2026-04 keys (dimension,
 * metric, vector_type, spec) and the 2026-07 keys (deployment, schema.fields with the
 * reserved vector fields, read_capacity for serverless) and that they agree.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function assertBothModels(rec: any, where = ''): void {
  const ctx = `${where} ${JSON.stringify(rec)}`;
  assert.ok(rec && typeof rec === 'object', `no record: ${ctx}`);
  assert.equal(typeof rec.name, 'string', `name: ${ctx}`);
  assert.equal(typeof rec.host, 'string', `host: ${ctx}`);
  assert.ok(rec.status && typeof rec.status.ready === 'boolean' && typeof rec.status.state === 'string', `status: ${ctx}`);
  assert.ok(['enabled', 'disabled'].includes(rec.deletion_protection), `deletion_protection: ${ctx}`);
  // 2026-04 model
  assert.ok(['dense', 'sparse'].includes(rec.vector_type), `vector_type: ${ctx}`);
  assert.ok(['cosine', 'euclidean', 'dotproduct'].includes(rec.metric), `metric: ${ctx}`);
  assert.ok(rec.spec && typeof rec.spec === 'object', `spec: ${ctx}`);
  const kinds = Object.keys(rec.spec);
  assert.equal(kinds.length, 1, `spec has one variant: ${ctx}`);
  // 2026-07 model
  assert.ok(rec.deployment && typeof rec.deployment === 'object', `deployment: ${ctx}`);
  assert.ok(rec.schema && rec.schema.fields && typeof rec.schema.fields === 'object', `schema.fields: ${ctx}`);
  const fields = rec.schema.fields;
  assert.deepEqual(fields._sparse_values, { type: 'sparse_vector' }, `_sparse_values: ${ctx}`);
  if (rec.vector_type === 'dense') {
    assert.equal(typeof rec.dimension, 'number', `dimension: ${ctx}`);
    assert.equal(fields._values?.type, 'dense_vector', `_values.type: ${ctx}`);
    assert.equal(fields._values.dimension, rec.dimension, `_values.dimension = dimension: ${ctx}`);
    assert.equal(fields._values.metric, rec.metric, `_values.metric = metric: ${ctx}`);
  } else {
    assert.equal(rec.dimension, undefined, `sparse has no dimension: ${ctx}`);
    assert.equal(rec.metric, 'dotproduct', `sparse metric: ${ctx}`);
    assert.equal(fields._values, undefined, `sparse has no _values: ${ctx}`);
  }
  if (kinds[0] === 'serverless') {
    assert.equal(rec.deployment.deployment_type, 'managed', `deployment_type: ${ctx}`);
    assert.equal(rec.deployment.cloud, rec.spec.serverless.cloud, `cloud: ${ctx}`);
    assert.equal(rec.deployment.region, rec.spec.serverless.region, `region: ${ctx}`);
    assert.ok(rec.read_capacity && ['OnDemand', 'Dedicated'].includes(rec.read_capacity.mode), `read_capacity: ${ctx}`);
    assert.deepEqual(rec.read_capacity, rec.spec.serverless.read_capacity, `read_capacity = spec's: ${ctx}`);
  } else if (kinds[0] === 'pod') {
    assert.equal(rec.deployment.deployment_type, 'pod', `deployment_type: ${ctx}`);
    assert.equal(rec.deployment.environment, rec.spec.pod.environment, `environment: ${ctx}`);
    assert.equal(rec.deployment.pod_type, rec.spec.pod.pod_type, `pod_type: ${ctx}`);
    assert.equal(rec.deployment.replicas, rec.spec.pod.replicas, `replicas: ${ctx}`);
    assert.equal(rec.deployment.shards, rec.spec.pod.shards, `shards: ${ctx}`);
  } else {
    assert.fail(`unexpected spec variant ${kinds[0]}: ${ctx}`);
  }
}
