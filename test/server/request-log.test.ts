// Logs: everything `conifer start` prints is one pino JSON object per line; each request
// gets one info line with method, route pattern, status, duration, project and index, and
// for 4xx/5xx the error code and message; no key ever appears. CONIFER_LOG_FORMAT=pretty
// (or --log-format pretty) prints for humans instead.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, TEST_API_KEY, type ApiResponse, type TestServer } from '../helpers/server.js';
import { pollUntil, serverlessBody, stopAndClean } from './support.js';

type LogLine = Record<string, unknown> & { level: number; msg: string };

/** Every line the process printed, each parsed as JSON (the test fails on any other line). */
function lines(server: TestServer): LogLine[] {
  return server
    .output()
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => {
      try {
        return JSON.parse(l) as LogLine;
      } catch {
        return assert.fail(`a line that is not JSON: ${l}`);
      }
    });
}

/** The request line of a response, found by its request id (it is logged after the answer). */
async function requestLine(server: TestServer, res: ApiResponse): Promise<LogLine> {
  const id = res.headers.get('x-pinecone-request-id');
  const find = (): LogLine | undefined => lines(server).find((l) => l.reqId === id && 'status' in l);
  const line = await pollUntil(async () => find(), (l) => l !== undefined, 5000);
  assert.ok(line, `no request line for ${id}:\n${server.output().slice(-2000)}`);
  return line;
}

const INFO = 30;
const WRONG_KEY = 'wrong-key-0123456789zzzz';

describe('request logs', () => {
  let server: TestServer;
  let host: string;

  before(async () => {
    server = await startServer();
    const created = await api(server, 'POST', '/indexes', { body: serverlessBody('logged', { dimension: 2 }) });
    assert.equal(created.status, 201, created.text);
    host = created.body.host;
  });

  after(async () => {
    await stopAndClean(server);
  });

  it('start-up lines are JSON too', () => {
    const listening = lines(server).find((l) => /listening on http/.test(l.msg));
    assert.ok(listening, server.output());
    assert.equal(listening.level, INFO);
    assert.equal(listening.address, server.url);
  });

  it('a data-plane success names method, route pattern, status, duration, project and index', async () => {
    const res = await api(server, 'POST', `${host}/vectors/upsert`, { body: { vectors: [{ id: 'a', values: [1, 0] }] } });
    assert.equal(res.status, 200, res.text);
    const line = await requestLine(server, res);
    assert.equal(line.level, INFO);
    assert.equal(line.method, 'POST');
    assert.equal(line.route, '/svc/:indexHost/vectors/upsert');
    assert.equal(line.status, 200);
    assert.equal(typeof line.durationMs, 'number');
    assert.ok((line.durationMs as number) >= 0);
    assert.equal(line.project, 'default');
    assert.equal(line.index, 'logged');
    assert.equal(line.error, undefined);
  });

  it('a data-plane 400 carries the error code and message', async () => {
    const res = await api(server, 'POST', `${host}/vectors/upsert`, { body: { vectors: [{ id: 'a', values: [1, 0, 0] }] } });
    assert.equal(res.status, 400, res.text);
    const line = await requestLine(server, res);
    assert.equal(line.status, 400);
    assert.equal(line.index, 'logged');
    assert.deepEqual(line.error, { code: 'INVALID_ARGUMENT', message: res.body.error.message });
  });

  it('a control-plane 404 names the route pattern, the index and the error', async () => {
    const res = await api(server, 'GET', '/indexes/missing-one');
    assert.equal(res.status, 404, res.text);
    const line = await requestLine(server, res);
    assert.equal(line.route, '/indexes/:name');
    assert.equal(line.index, 'missing-one');
    assert.equal(line.project, 'default');
    assert.deepEqual(line.error, { code: 'NOT_FOUND', message: res.body.error.message });
  });

  it('an unknown URL is logged under one route label, not its path', async () => {
    const res = await api(server, 'GET', '/no/such/thing');
    assert.equal(res.status, 404, res.text);
    const line = await requestLine(server, res);
    assert.equal(line.route, '(unmatched)');
    assert.equal((line.error as { code: string }).code, 'NOT_FOUND');
  });

  it('a 401 is logged without the key it was sent, and the valid key never appears', async () => {
    const res = await api(server, 'GET', '/indexes', { key: WRONG_KEY });
    assert.equal(res.status, 401, res.text);
    const line = await requestLine(server, res);
    assert.equal(line.status, 401);
    assert.equal((line.error as { code: string }).code, 'UNAUTHENTICATED');
    assert.equal(line.project, undefined);
    const out = server.output();
    assert.ok(!out.includes(WRONG_KEY), 'a rejected key was printed');
    assert.ok(!out.includes(TEST_API_KEY), 'the API key was printed');
  });
});

describe('pretty logs', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer({ args: ['--log-format', 'pretty'] });
  });

  after(async () => {
    await stopAndClean(server);
  });

  it('print readable lines, not JSON, with the request summary', async () => {
    const res = await api(server, 'GET', '/indexes/nope');
    assert.equal(res.status, 404);
    const out = await pollUntil(async () => server.output(), (o) => o.includes('GET /indexes/:name 404'), 5000);
    assert.ok(out.includes('GET /indexes/:name 404'), out);
    const first = out.split('\n').find((l) => l.includes('listening on'));
    assert.ok(first, out);
    assert.throws(() => JSON.parse(first), 'a pretty line must not be JSON');
    assert.ok(!out.includes(TEST_API_KEY), 'the API key was printed');
  });
});

describe('a quieter log level', () => {
  let server: TestServer;

  after(async () => {
    await stopAndClean(server);
  });

  it('still prints the listening line (scripts wait for it), as JSON', async () => {
    // startServer waits for "listening on": it would time out if the line were filtered.
    server = await startServer({ env: { CONIFER_LOG_LEVEL: 'warn' } });
    const listening = lines(server).find((l) => /listening on http/.test(l.msg));
    assert.ok(listening, server.output());
    assert.equal(listening.address, server.url);
  });
});
