// Shared helpers of the collection / backup / restore black-box tests. No tests live here.
import assert from 'node:assert/strict';
import { api, type ApiResponse, type TestServer } from '../helpers/server.js';

type Srv = Pick<TestServer, 'url' | 'apiKey'>;

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls every 50 ms until `done(value)` or `timeoutMs`; fails the test with `what` on timeout. */
export async function poll<T>(what: string, fn: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await fn();
  while (!done(last)) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await sleep(50);
    last = await fn();
  }
  return last;
}

export function podIndex(name: string, dimension: number, pod: Record<string, unknown> = {}, metric = 'euclidean'): Record<string, unknown> {
  return { name, dimension, metric, spec: { pod: { environment: 'us-east-1-aws', pod_type: 'p1.x1', ...pod } } };
}

export function serverlessIndex(
  name: string,
  dimension: number,
  serverless: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { name, dimension, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1', ...serverless } }, ...extra };
}

/** POST /indexes expecting 201; returns the index record. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function createIndex(server: Srv, body: Record<string, unknown>): Promise<any> {
  const res = await api(server, 'POST', '/indexes', { body });
  assert.equal(res.status, 201, `create index ${String(body.name)}: ${res.text}`);
  return res.body;
}

export interface Rec {
  id: string;
  values?: number[];
  sparseValues?: { indices: number[]; values: number[] };
  metadata?: Record<string, unknown>;
}

/** Dense values that are exact in float32 (multiples of 1/16), distinct per id. */
export function vec(i: number, dim: number): number[] {
  return Array.from({ length: dim }, (_, j) => (((i * 31 + j * 7) % 64) + 1) / 16);
}

export function pad(i: number): string {
  return String(i).padStart(6, '0');
}

/** n records "<prefix><000001…>" with dense values and (optionally) metadata of every kind. */
export function makeRecords(prefix: string, n: number, dim: number, withMetadata = true, from = 1): Rec[] {
  const out: Rec[] = [];
  for (let i = from; i < from + n; i++) {
    const r: Rec = { id: `${prefix}${pad(i)}`, values: vec(i, dim) };
    if (withMetadata) r.metadata = { n: i, even: i % 2 === 0, label: `L${i % 7}`, tags: [`t${i % 3}`, 'all'] };
    out.push(r);
  }
  return out;
}

export async function upsert(server: Srv, host: string, records: Rec[], namespace = '', batch = 1000): Promise<void> {
  for (let b = 0; b < records.length; b += batch) {
    const res = await api(server, 'POST', `${host}/vectors/upsert`, { body: { vectors: records.slice(b, b + batch), namespace } });
    assert.equal(res.status, 200, `upsert into ${host} (${namespace}): ${res.text}`);
  }
}

/** Every id of a namespace, through /vectors/list paging. */
export async function listAllIds(server: Srv, host: string, namespace = ''): Promise<string[]> {
  const ids: string[] = [];
  let token: string | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const q = new URLSearchParams({ namespace, limit: '100' });
    if (token) q.set('paginationToken', token);
    const res = await api(server, 'GET', `${host}/vectors/list?${q.toString()}`);
    assert.equal(res.status, 200, `list ${host}: ${res.text}`);
    for (const v of res.body.vectors as { id: string }[]) ids.push(v.id);
    token = res.body.pagination?.next;
    if (!token) return ids;
  }
  assert.fail('list did not end');
}

/** Fetches records by id (chunks of 100); returns id → record as the data plane prints it. */
export async function fetchRecords(server: Srv, host: string, ids: string[], namespace = ''): Promise<Map<string, Rec>> {
  const out = new Map<string, Rec>();
  for (let b = 0; b < ids.length; b += 100) {
    const q = new URLSearchParams({ namespace });
    for (const id of ids.slice(b, b + 100)) q.append('ids', id);
    const res = await api(server, 'GET', `${host}/vectors/fetch?${q.toString()}`);
    assert.equal(res.status, 200, `fetch ${host}: ${res.text}`);
    for (const [id, rec] of Object.entries(res.body.vectors as Record<string, Rec>)) out.set(id, rec);
  }
  return out;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function stats(server: Srv, host: string): Promise<any> {
  const res = await api(server, 'POST', `${host}/describe_index_stats`, { body: {} });
  assert.equal(res.status, 200, `stats ${host}: ${res.text}`);
  return res.body;
}

/** Asserts that a namespace of an index holds exactly `expected` (ids, values, metadata, sparse values). */
export async function assertNamespaceHolds(server: Srv, host: string, namespace: string, expected: Rec[]): Promise<void> {
  const ids = await listAllIds(server, host, namespace);
  assert.deepEqual(
    [...ids].sort(),
    expected.map((r) => r.id).sort(),
    `ids of namespace ${JSON.stringify(namespace)} at ${host}`,
  );
  const got = await fetchRecords(server, host, ids, namespace);
  for (const want of expected) {
    const rec = got.get(want.id);
    assert.ok(rec, `record ${want.id} missing from fetch in ${JSON.stringify(namespace)}`);
    if (want.values !== undefined) assert.deepEqual(rec.values, want.values, `values of ${want.id}`);
    if (want.sparseValues !== undefined) assert.deepEqual(rec.sparseValues, want.sparseValues, `sparse values of ${want.id}`);
    assert.deepEqual(rec.metadata, want.metadata, `metadata of ${want.id}`);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function waitCollection(server: Srv, name: string): Promise<any> {
  const res = await poll(
    `collection ${name} to leave Initializing`,
    () => api(server, 'GET', `/collections/${name}`),
    (r) => r.status !== 200 || r.body.status !== 'Initializing',
  );
  assert.equal(res.status, 200, `describe collection ${name}: ${res.text}`);
  return res.body;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function waitBackup(server: Srv, id: string): Promise<any> {
  const res = await poll(
    `backup ${id} to leave Initializing`,
    () => api(server, 'GET', `/backups/${id}`),
    (r) => r.status !== 200 || r.body.status !== 'Initializing',
  );
  assert.equal(res.status, 200, `describe backup ${id}: ${res.text}`);
  return res.body;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function waitIndexReady(server: Srv, name: string): Promise<any> {
  const res = await poll(
    `index ${name} to be Ready`,
    () => api(server, 'GET', `/indexes/${name}`),
    (r) => r.status !== 200 || r.body.status?.state !== 'Initializing',
  );
  assert.equal(res.status, 200, `describe index ${name}: ${res.text}`);
  assert.deepEqual(res.body.status, { ready: true, state: 'Ready' }, `status of ${name}: ${res.text}`);
  return res.body;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function waitRestoreJob(server: Srv, id: string): Promise<any> {
  const res = await poll(
    `restore job ${id} to finish`,
    () => api(server, 'GET', `/restore-jobs/${id}`),
    (r) => r.status !== 200 || r.body.status !== 'Pending',
  );
  assert.equal(res.status, 200, `describe restore job ${id}: ${res.text}`);
  return res.body;
}

/** POST /indexes/{name}/backups expecting 201; returns the record. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function createBackup(server: Srv, index: string, body: Record<string, unknown> = {}): Promise<any> {
  const res = await api(server, 'POST', `/indexes/${index}/backups`, { body });
  assert.equal(res.status, 201, `backup of ${index}: ${res.text}`);
  return res.body;
}

/** Backup of `index`, waited until Ready. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function readyBackup(server: Srv, index: string, body: Record<string, unknown> = {}): Promise<any> {
  const b = await createBackup(server, index, body);
  const ready = await waitBackup(server, b.backup_id);
  assert.equal(ready.status, 'Ready', `backup ${b.backup_id}: ${JSON.stringify(ready)}`);
  return ready;
}

/** Restores a backup into `name`, waits for the job and the index; returns [job, index]. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function restore(server: Srv, backupId: string, name: string, extra: Record<string, unknown> = {}): Promise<[any, any]> {
  const res = await api(server, 'POST', `/backups/${backupId}/create-index`, { body: { name, ...extra } });
  assert.equal(res.status, 202, `restore ${backupId} into ${name}: ${res.text}`);
  const job = await waitRestoreJob(server, res.body.restore_job_id);
  assert.equal(job.status, 'Completed', `restore job: ${JSON.stringify(job)}`);
  const index = await waitIndexReady(server, name);
  return [job, index];
}

/** Collection of `source`, waited until Ready. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function readyCollection(server: Srv, name: string, source: string): Promise<any> {
  const res = await api(server, 'POST', '/collections', { body: { name, source } });
  assert.equal(res.status, 201, `collection ${name} of ${source}: ${res.text}`);
  const ready = await waitCollection(server, name);
  assert.equal(ready.status, 'Ready', `collection ${name}: ${JSON.stringify(ready)}`);
  return ready;
}

/** The set {prefix+1 … prefix+k} as a sorted array. */
export function firstK(prefix: string, k: number): string[] {
  return Array.from({ length: k }, (_, i) => `${prefix}${pad(i + 1)}`);
}

export function isServerAlive(server: TestServer): boolean {
  return server.proc.exitCode === null && server.proc.signalCode === null;
}

export type { ApiResponse };

/**
 * The first of `messages` the server logged on a line whose `field` is `value` (its JSON
 * log: `"field":"value"`, `"msg":"…"`), waited for up to 10 s; undefined if none came.
 */
export async function loggedOutcome(server: Pick<TestServer, 'output'>, field: string, value: string, messages: readonly string[]): Promise<string | undefined> {
  for (let i = 0; i < 200; i++) {
    for (const line of server.output().split('\n')) {
      if (!line.includes(`"${field}":"${value}"`)) continue;
      for (const msg of messages) if (line.includes(`"msg":"${msg}"`)) return msg;
    }
    await sleep(50);
  }
  return undefined;
}
