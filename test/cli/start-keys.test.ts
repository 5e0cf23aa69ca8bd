// The default project's key at start: a first start that fails after generating the key
// (port in use) still shows it, and CONIFER_API_KEY given once the data directory is
// initialised is ignored out loud rather than silently.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { CLI, api, startServer, tempDataDir, TEST_API_KEY, type TestServer } from '../helpers/server.js';
import { assertError, stopAndClean } from '../server/support.js';

/** Runs `conifer start` to its exit (bounded: killed after 20 s). */
function startToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const base = { ...(process.env as Record<string, string>) };
  delete base.CONIFER_API_KEY;
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI, 'start'], { env: { ...base, CONIFER_HOST: '127.0.0.1', ...env } });
    let output = '';
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    proc.stdout.on('data', (c: Buffer) => (output += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (output += c.toString()));
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the default project key at start', () => {
  const dataDir = tempDataDir();
  let blocker: Server | undefined;
  let server: TestServer | undefined;

  after(async () => {
    if (blocker) await new Promise((r) => blocker!.close(r));
    await stopAndClean(server, dataDir);
  });

  it('a first start that cannot listen (port in use) still prints the key it generated, and where it is', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as AddressInfo).port;

    const r = await startToExit({ CONIFER_PORT: String(port), CONIFER_DATA_DIR: dataDir });
    assert.equal(r.code, 1, r.output);
    assert.match(r.output, /EADDRINUSE|port/i);
    const keyFile = join(dataDir, 'initial-api-key');
    const key = readFileSync(keyFile, 'utf8').trim();
    assert.ok(r.output.includes(key), `the generated key was not printed:\n${r.output}`);
    assert.ok(r.output.includes(keyFile), `the key file was not named:\n${r.output}`);

    // The key printed is the one the server accepts once the port is free.
    await new Promise((res) => blocker!.close(res));
    blocker = undefined;
    server = await startServer({ dataDir, apiKey: null });
    const ok = await api(server, 'GET', '/indexes', { key });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(await server.stop(), 0);
    server = undefined;
  });

  it('CONIFER_API_KEY on a later start is ignored, and the log says so', async () => {
    server = await startServer({ dataDir, apiKey: TEST_API_KEY });
    // Logged before listening, so it is in the output the helper waited for.
    assert.match(server.output(), /CONIFER_API_KEY \(--api-key\) IS IGNORED/);
    assert.ok(server.output().includes(dataDir), server.output());
    assertError(await api(server, 'GET', '/indexes', { key: TEST_API_KEY }), 401, 'UNAUTHENTICATED');
  });

  it('the key of the first start, given again, is no reason to warn', async () => {
    await server!.stop();
    const key = readFileSync(join(dataDir, 'initial-api-key'), 'utf8').trim();
    server = await startServer({ dataDir, apiKey: key });
    assert.doesNotMatch(server.output(), /IGNORED/);
    assert.doesNotMatch(server.output(), /can be guessed/);
    assert.equal((await api(server, 'GET', '/indexes', { key })).status, 200);
  });
});

describe('a short CONIFER_API_KEY', () => {
  let server: TestServer | undefined;
  after(async () => stopAndClean(server));

  it('is used, with a warning at every start naming its length; a long one gets none', async () => {
    server = await startServer({ apiKey: 'letmein' });
    assert.match(server.output(), /CONIFER_API_KEY \(--api-key\) is 7 characters: a key that short can be guessed/);
    assert.equal((await api(server, 'GET', '/indexes', { key: 'letmein' })).status, 200);
    const dataDir = server.dataDir;
    await server.stop();
    server = await startServer({ dataDir, apiKey: 'letmein' });
    assert.match(server.output(), /is 7 characters/);
    await stopAndClean(server);
    server = await startServer({ apiKey: TEST_API_KEY });
    assert.doesNotMatch(server.output(), /can be guessed/);
  });
});
