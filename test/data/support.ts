// Shared helpers of the data-plane black-box tests: index creation, one-line wrappers
// for the vector operations, and the data-plane error assertion (DESIGN.md decision 3).
import assert from 'node:assert/strict';
import { api, type ApiResponse, type RequestOptions, type TestServer } from '../helpers/server.js';

export type Server = Pick<TestServer, 'url' | 'apiKey'>;

export interface Vec {
  id: string;
  values?: number[];
  sparseValues?: { indices: number[]; values: number[] };
  metadata?: Record<string, unknown>;
}

export const SERVERLESS = { serverless: { cloud: 'aws', region: 'us-east-1' } };
export const POD = { pod: { environment: 'us-east-1-aws', pod_type: 'p1.x1' } };

/** Creates an index and returns its data-plane base URL (the `host` field). */
export async function createIndex(server: Server, body: Record<string, unknown>): Promise<string> {
  const res = await api(server, 'POST', '/indexes', { body });
  assert.equal(res.status, 201, `create index ${JSON.stringify(body)}: ${res.text}`);
  assert.equal(typeof res.body.host, 'string');
  assert.match(res.body.host, /^http:\/\/127\.0\.0\.1:\d+\/svc\//);
  return res.body.host as string;
}

export const denseIndex = (name: string, dimension: number, metric = 'cosine', spec: unknown = SERVERLESS) => ({
  name,
  dimension,
  metric,
  spec,
});

export const sparseIndex = (name: string) => ({
  name,
  vector_type: 'sparse',
  metric: 'dotproduct',
  spec: SERVERLESS,
});

/** One request to a data-plane path under `host`. */
export const dp = (server: Server, host: string, method: string, path: string, opts: RequestOptions = {}) =>
  api(server, method, host + path, opts);

export async function upsert(server: Server, host: string, vectors: Vec[], namespace?: string): Promise<void> {
  const body: Record<string, unknown> = { vectors };
  if (namespace !== undefined) body.namespace = namespace;
  const res = await dp(server, host, 'POST', '/vectors/upsert', { body });
  assert.equal(res.status, 200, `upsert: ${res.text}`);
  assert.deepEqual(res.body, { upsertedCount: vectors.length });
}

export function fetchQuery(ids: string[], namespace?: string): string {
  const q = new URLSearchParams();
  for (const id of ids) q.append('ids', id);
  if (namespace !== undefined) q.append('namespace', namespace);
  return `/vectors/fetch?${q.toString()}`;
}

/** Fetches ids and returns the `vectors` map (asserting 200). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function fetchMap(server: Server, host: string, ids: string[], namespace?: string): Promise<Record<string, any>> {
  const res = await dp(server, host, 'GET', fetchQuery(ids, namespace));
  assert.equal(res.status, 200, `fetch: ${res.text}`);
  return res.body.vectors;
}

export async function stats(server: Server, host: string, opts: RequestOptions = {}): Promise<ApiResponse> {
  const res = await dp(server, host, 'POST', '/describe_index_stats', { body: {}, ...opts });
  assert.equal(res.status, 200, `stats: ${res.text}`);
  return res;
}

export async function totalCount(server: Server, host: string): Promise<number> {
  return (await stats(server, host)).body.totalVectorCount as number;
}

/** Every id of a namespace, walking list pages. */
export async function listAll(server: Server, host: string, params: Record<string, string> = {}): Promise<string[]> {
  const ids: string[] = [];
  let token: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const q = new URLSearchParams(params);
    if (token) q.set('paginationToken', token);
    const res = await dp(server, host, 'GET', `/vectors/list?${q.toString()}`);
    assert.equal(res.status, 200, `list: ${res.text}`);
    for (const v of res.body.vectors) ids.push(v.id);
    token = res.body.pagination?.next;
    if (!token) return ids;
  }
  throw new Error('list did not end');
}

/**
 * A data-plane error: HTTP status, the {error:{code,message},status,code,message,details}
 * shape with the gRPC number, and (optionally) a message pattern.
 */
export function assertDataError(res: ApiResponse, status: number, pattern?: RegExp): void {
  const grpc: Record<number, number> = { 400: 3, 401: 16, 404: 5, 409: 6, 413: 3, 503: 14 };
  const names: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    404: 'NOT_FOUND',
    409: 'ALREADY_EXISTS',
    413: 'PAYLOAD_TOO_LARGE',
  };
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  const b = res.body;
  assert.ok(b && typeof b === 'object', `error body is JSON: ${res.text}`);
  assert.equal(b.status, status);
  assert.equal(typeof b.error?.message, 'string');
  if (names[status]) assert.equal(b.error.code, names[status]);
  if (grpc[status] !== undefined) assert.equal(b.code, grpc[status], `gRPC code in ${res.text}`);
  assert.equal(b.message, b.error.message);
  assert.deepEqual(b.details, []);
  assert.ok(b.message.length > 0);
  if (pattern) assert.match(b.message, pattern);
}

/** float32 rounding of a JS number, as the server stores values. */
export const f32 = Math.fround;

export { prng as rng } from '../helpers/prng.js';
