// Shared assertions and request bodies for the black-box API tests. No tests live here.
import assert from 'node:assert/strict';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, type ApiResponse, type TestServer } from '../helpers/server.js';

/** A stack trace line as V8 prints it ("    at fn (file.js:1:2)"). */
const STACK_LINE = /\n\s+at\s+\S+.*(\.js|\.ts|node:)/;

/** Every response carries a non-empty request id and never a stack trace. */
export function assertCommon(res: ApiResponse): void {
  const rid = res.headers.get('x-pinecone-request-id');
  assert.ok(rid && rid.trim().length > 0, `x-pinecone-request-id missing on ${res.status}: ${res.text}`);
  assert.doesNotMatch(res.text, STACK_LINE, `stack trace in body: ${res.text}`);
}

/**
 * Control-plane error shape: {"error":{"code","message"},"status"} with status equal to the
 * HTTP status. `mentions` are substrings (case-insensitive) or patterns the message must contain.
 */
export function assertError(
  res: ApiResponse,
  status: number,
  code: string,
  mentions: Array<string | RegExp> = [],
): void {
  assert.equal(res.status, status, `expected HTTP ${status} ${code}, got ${res.status}: ${res.text}`);
  assertCommon(res);
  assert.ok(res.body && typeof res.body === 'object', `error body is not JSON: ${res.text}`);
  assert.ok(res.body.error && typeof res.body.error === 'object', `no error object: ${res.text}`);
  assert.equal(res.body.error.code, code, `error.code: ${res.text}`);
  assert.equal(typeof res.body.error.message, 'string', `error.message: ${res.text}`);
  assert.ok(res.body.error.message.length > 0, `empty error.message: ${res.text}`);
  assert.equal(res.body.status, status, `body.status: ${res.text}`);
  for (const m of mentions) {
    if (typeof m === 'string') {
      assert.ok(
        res.body.error.message.toLowerCase().includes(m.toLowerCase()),
        `message should mention ${JSON.stringify(m)}: ${res.body.error.message}`,
      );
    } else {
      assert.match(res.body.error.message, m);
    }
  }
}

/** Data-plane error shape: control-plane shape plus gRPC-style code, message and details. */
export function assertDataPlaneError(res: ApiResponse, status: number, code: string, grpc: number): void {
  assertError(res, status, code);
  assert.equal(res.body.code, grpc, `gRPC code: ${res.text}`);
  assert.equal(typeof res.body.message, 'string', `top-level message: ${res.text}`);
  assert.ok(res.body.message.length > 0);
  assert.deepEqual(res.body.details, [], `details: ${res.text}`);
}

export function serverlessBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    dimension: 8,
    metric: 'cosine',
    spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
    ...extra,
  };
}

export function podBody(
  name: string,
  pod: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    dimension: 8,
    metric: 'euclidean',
    spec: { pod: { environment: 'us-east-1-aws', pod_type: 'p1.x1', ...pod } },
    ...extra,
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Calls `fn` until `done(result)` or the deadline; returns the last result. */
export async function pollUntil<T>(fn: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await fn();
  while (!done(last) && Date.now() < deadline) {
    await sleep(50);
    last = await fn();
  }
  return last;
}

/** Directory names under `<dataDir>/indexes/` (empty when the folder does not exist yet). */
export function indexDirs(dataDir: string): string[] {
  const dir = join(dataDir, 'indexes');
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/** `<scheme>://<authority>/svc/<name>-<id7>` → id7; fails the test when the host is malformed. */
export function hostId(host: string, name: string, base: string): string {
  assert.equal(typeof host, 'string');
  const prefix = `${base}/svc/${name}-`;
  assert.ok(host.startsWith(prefix), `host ${host} should start with ${prefix}`);
  const id = host.slice(prefix.length);
  assert.match(id, /^[a-z0-9]{7}$/, `host id of ${host}`);
  return id;
}

/**
 * For `after` hooks: SIGTERM the server, remove its data directory, and fail loudly (with
 * the end of its output) if it died during the tests or did not exit 0 on SIGTERM.
 */
export async function stopAndClean(server: TestServer | undefined, dataDir?: string): Promise<void> {
  if (!server) {
    if (dataDir) removeDir(dataDir);
    return;
  }
  const wasRunning = server.proc.exitCode === null && server.proc.signalCode === null;
  const code = await server.stop();
  removeDir(dataDir ?? server.dataDir);
  const tail = server.output().slice(-3000);
  assert.ok(wasRunning, `the server died during the tests (exit ${server.proc.exitCode}):\n${tail}`);
  assert.equal(code, 0, `the server exited ${code} (signal ${server.proc.signalCode}) on SIGTERM:\n${tail}`);
}
