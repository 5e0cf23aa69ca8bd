// Local development mode (`conifer start --dev`, CONIFER_DEV=1), for teams moving CI off
// Pinecone Local: any Api-Key value is the default project's key, the data directory is a
// temporary one removed at exit unless one is given, and only loopback addresses are allowed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { CLI, api, removeDir, startServer, tempDataDir, type TestServer } from '../helpers/server.js';
import { assertError, serverlessBody, stopAndClean } from '../server/support.js';

const BANNER = /\*\*\* DEVELOPMENT MODE: any Api-Key value is accepted/;

/** The data directory the dev banner names. */
function bannerDir(output: string): string {
  const m = /data directory (\S+?)(,| )/.exec(output.slice(output.search(BANNER)));
  assert.ok(m, `no data directory in the banner:\n${output}`);
  return m[1];
}

/** Runs `conifer start ARGS` to its exit (killed after 20 s), without CONIFER_DATA_DIR. */
function startToExit(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const base = { ...(process.env as Record<string, string>) };
  delete base.CONIFER_DATA_DIR;
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI, 'start', ...args], { env: { ...base, ...env } });
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

describe('development mode', () => {
  it('--dev: any key is the default project; a temporary data directory, removed at exit', async () => {
    let server: TestServer | undefined;
    try {
      server = await startServer({ apiKey: null, args: ['--dev'], env: { CONIFER_DATA_DIR: '' } });
      assert.match(server.output(), BANNER);
      const dir = bannerDir(server.output());
      assert.ok(dir.startsWith(tmpdir()), `not a temporary directory: ${dir}`);
      assert.notEqual(dir, server.dataDir, 'the helper’s directory was used');
      assert.ok(existsSync(dir), `${dir} does not exist while serving`);

      const created = await api({ url: server.url, apiKey: 'any-key-at-all' }, 'POST', '/indexes', {
        body: serverlessBody('dev-index'),
      });
      assert.equal(created.status, 201, created.text);
      const listed = await api({ url: server.url, apiKey: 'another-key' }, 'GET', '/indexes');
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.indexes.map((i: { name: string }) => i.name), ['dev-index']);
      assertError(await api(server, 'GET', '/indexes', { key: null }), 401, 'UNAUTHENTICATED');

      assert.equal(await server.stop(), 0, server.output());
      removeDir(server.dataDir); // the helper's own, unused
      server = undefined;
      assert.ok(!existsSync(dir), `${dir} was not removed at exit`);
    } finally {
      await stopAndClean(server);
    }
  });

  it('CONIFER_DEV=1 with CONIFER_DATA_DIR keeps the directory; without dev mode keys count again', async () => {
    const dataDir = tempDataDir();
    let server: TestServer | undefined;
    try {
      server = await startServer({ dataDir, apiKey: null, env: { CONIFER_DEV: '1' } });
      assert.match(server.output(), BANNER);
      assert.equal(bannerDir(server.output()), dataDir);
      const created = await api({ url: server.url, apiKey: 'whatever' }, 'POST', '/indexes', {
        body: serverlessBody('kept'),
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(await server.stop(), 0);
      server = undefined;
      assert.ok(existsSync(dataDir), 'a given data directory was removed');

      server = await startServer({ dataDir, apiKey: null });
      assert.doesNotMatch(server.output(), BANNER);
      assertError(await api({ url: server.url, apiKey: 'whatever' }, 'GET', '/indexes'), 401, 'UNAUTHENTICATED');
    } finally {
      await stopAndClean(server, dataDir);
    }
  });

  for (const [how, args, env] of [
    ['--dev --host 0.0.0.0', ['--dev', '--host', '0.0.0.0'], {}],
    ['CONIFER_DEV=1 CONIFER_HOST=192.168.1.7', [], { CONIFER_DEV: '1', CONIFER_HOST: '192.168.1.7' }],
  ] as const) {
    it(`refuses a non-loopback address: ${how}`, async () => {
      const r = await startToExit([...args], { CONIFER_PORT: '0', ...env });
      assert.equal(r.code, 1, r.output);
      assert.match(r.output, /loopback/);
      assert.doesNotMatch(r.output, /listening/);
    });
  }

  it('refuses a CONIFER_DEV value that is not a switch', async () => {
    const r = await startToExit([], { CONIFER_HOST: '127.0.0.1', CONIFER_PORT: '0', CONIFER_DEV: 'yes' });
    assert.equal(r.code, 1, r.output);
    assert.match(r.output, /CONIFER_DEV.*must be 1, true, 0 or false/);
  });

  it('a dev start that fails (port in use) removes its temporary directory', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const r = await startToExit(['--dev'], { CONIFER_HOST: '127.0.0.1', CONIFER_PORT: String(port) });
      assert.equal(r.code, 1, r.output);
      const dir = bannerDir(r.output);
      assert.ok(!existsSync(dir), `${dir} was left behind`);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
