// GET /version and GET /metrics: no key needed (unless CONIFER_METRICS_AUTH=key), and the
// metrics move with the requests served: request counts and latencies by route pattern
// and status, per-index records and namespaces equal to what was upserted, engine query
// latency, open indexes, process figures.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, api, type TestServer } from '../helpers/server.js';
import { assertError, serverlessBody, stopAndClean } from './support.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

type Sample = { name: string; labels: Record<string, string>; value: number };

/** Prometheus text format → samples (comments skipped). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of one series (0 when it does not exist yet); labels must all match. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const s = samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s?.value ?? 0;
}

const has = (samples: Sample[], name: string, labels: Record<string, string> = {}): boolean =>
  samples.some((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));

describe('GET /version', () => {
  let server: TestServer;
  before(async () => {
    // What `npm run build` does after tsc: record the commit this checkout is at.
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'write-build-info.mjs')]);
    server = await startServer();
  });
  after(async () => {
    await stopAndClean(server);
  });

  it('answers version, build commit and API versions without a key', async () => {
    const res = await api(server, 'GET', '/version', { key: null, version: null });
    assert.equal(res.status, 200, res.text);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    let commit = 'unknown';
    try {
      commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      // not a git checkout: the build says "unknown"
    }
    assert.deepEqual(res.body, {
      version: pkg.version,
      commit,
      apiVersions: ['2024-04', '2024-07', '2024-10', '2025-01', '2025-04', '2025-10', '2026-04', '2026-07'],
    });
  });
});

describe('GET /metrics', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await stopAndClean(server);
  });

  const scrape = async (): Promise<Sample[]> => {
    const res = await api(server, 'GET', '/metrics', { key: null, version: null });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    return parseMetrics(res.text);
  };

  it('moves with the requests served', async () => {
    const upsertRoute = { method: 'POST', route: '/svc/:indexHost/vectors/upsert', status: '200' };
    const queryRoute = { method: 'POST', route: '/svc/:indexHost/query', status: '200' };
    const badRoute = { method: 'POST', route: '/svc/:indexHost/vectors/upsert', status: '400' };
    const before = await scrape();
    assert.ok(value(before, 'process_resident_memory_bytes') > 0, 'process RSS');
    assert.ok(has(before, 'nodejs_eventloop_lag_seconds'), 'event-loop delay');

    const created = await api(server, 'POST', '/indexes', { body: serverlessBody('metered', { dimension: 3 }) });
    assert.equal(created.status, 201, created.text);
    const host: string = created.body.host;
    const hostId = host.split('/').pop() as string;
    const vec = (id: string) => ({ id, values: [1, Number(id.slice(1)) + 1, 0.5] });
    for (const [ns, ids] of [['a', ['v1', 'v2', 'v3', 'v4']], ['b', ['v5', 'v6', 'v7']]] as const) {
      const res = await api(server, 'POST', `${host}/vectors/upsert`, { body: { namespace: ns, vectors: ids.map(vec) } });
      assert.equal(res.status, 200, res.text);
    }
    const bad = await api(server, 'POST', `${host}/vectors/upsert`, { body: { vectors: [{ id: 'x', values: [1] }] } });
    assert.equal(bad.status, 400, bad.text);
    const q = await api(server, 'POST', `${host}/query`, { body: { namespace: 'a', vector: [1, 1, 1], topK: 2 } });
    assert.equal(q.status, 200, q.text);
    assert.equal(q.body.matches.length, 2);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}): number => value(after, name, labels) - value(before, name, labels);
    assert.equal(delta('conifer_http_requests_total', upsertRoute), 2);
    assert.equal(delta('conifer_http_requests_total', badRoute), 1);
    assert.equal(delta('conifer_http_requests_total', queryRoute), 1);
    assert.equal(delta('conifer_http_requests_total', { method: 'POST', route: '/indexes', status: '201' }), 1);
    assert.equal(delta('conifer_http_request_duration_seconds_count', upsertRoute), 2);
    assert.ok(delta('conifer_http_request_duration_seconds_sum', upsertRoute) > 0);
    assert.equal(delta('conifer_engine_query_duration_seconds_count'), 1);
    assert.equal(value(after, 'conifer_index_records', { index: hostId }), 7);
    assert.equal(value(after, 'conifer_index_namespaces', { index: hostId }), 2);
    assert.ok(value(after, 'conifer_index_disk_bytes', { index: hostId }) > 0, 'bytes on disk');
    assert.equal(value(after, 'conifer_open_indexes'), 1);
    assert.equal(value(after, 'conifer_engine_queue_depth'), 0);

    const del = await api(server, 'POST', `${host}/vectors/delete`, { body: { namespace: 'b', ids: ['v5'] } });
    assert.equal(del.status, 200, del.text);
    assert.equal(value(await scrape(), 'conifer_index_records', { index: hostId }), 6);

    const gone = await api(server, 'DELETE', '/indexes/metered');
    assert.equal(gone.status, 202, gone.text);
    const last = await scrape();
    assert.ok(!has(last, 'conifer_index_records', { index: hostId }), 'a deleted index keeps its series');
    // Three scrapes answered before this one, which is counted once it is sent.
    assert.equal(value(last, 'conifer_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }), 3);
  });
});

describe('GET /metrics with CONIFER_METRICS_AUTH=key', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ env: { CONIFER_METRICS_AUTH: 'key' } });
  });
  after(async () => {
    await stopAndClean(server);
  });

  it('needs a valid key; /version, /health and /openapi.json still do not', async () => {
    assertError(await api(server, 'GET', '/metrics', { key: null, version: null }), 401, 'UNAUTHENTICATED');
    assertError(await api(server, 'GET', '/metrics', { key: 'not-a-key-000000000000', version: null }), 401, 'UNAUTHENTICATED');
    const ok = await api(server, 'GET', '/metrics', { version: null });
    assert.equal(ok.status, 200, ok.text);
    assert.ok(has(parseMetrics(ok.text), 'conifer_http_requests_total'));
    for (const path of ['/version', '/health', '/openapi.json']) {
      const res = await api(server, 'GET', path, { key: null, version: null });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
  });
});
