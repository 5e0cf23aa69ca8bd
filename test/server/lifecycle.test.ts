// Operating basics: /health and /ready, SIGTERM, the data-directory lock, a restart that
// keeps the catalog, the generated first key, and CONIFER_PUBLIC_URL. These need more
// than one server process by nature; each is stopped and its directory removed.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, api, tempDataDir, CLI, TEST_API_KEY, type TestServer } from '../helpers/server.js';
import { assertError, serverlessBody, podBody, hostId, indexDirs, pollUntil, sleep, stopAndClean } from './support.js';

/** Runs `conifer start` on `dataDir` expecting it to exit by itself; kills it if it listens instead. */
function startExpectingExit(dataDir: string): Promise<{ code: number | null; output: string; listened: boolean }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI, 'start'], {
      env: {
        ...(process.env as Record<string, string>),
        CONIFER_HOST: '127.0.0.1',
        CONIFER_PORT: '0',
        CONIFER_DATA_DIR: dataDir,
        CONIFER_API_KEY: TEST_API_KEY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let listened = false;
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    const onData = (c: Buffer): void => {
      output += c.toString();
      if (!listened && /listening on http/.test(output)) {
        listened = true;
        proc.kill('SIGTERM');
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, listened });
    });
  });
}

describe('lifecycle', () => {
  describe('health, ready, lock, restart, SIGTERM', () => {
    let server: TestServer;
    const dataDir = tempDataDir();

    before(async () => {
      server = await startServer({ dataDir });
    });

    after(async () => {
      await stopAndClean(server, dataDir);
    });

    it('GET /health needs no key and no version header', async () => {
      const res = await api(server, 'GET', '/health', { key: null, version: null });
      assert.equal(res.status, 200, res.text);
    });

    it('GET /ready needs no key and no version header', async () => {
      const res = await api(server, 'GET', '/ready', { key: null, version: null });
      assert.equal(res.status, 200, res.text);
    });

    it('a second server on the same data directory exits non-zero, saying why; the first keeps serving', async () => {
      const created = await api(server, 'POST', '/indexes', { body: serverlessBody('before-lock') });
      assert.equal(created.status, 201, created.text);
      const second = await startExpectingExit(dataDir);
      assert.equal(second.listened, false, `second server started listening:\n${second.output}`);
      assert.notEqual(second.code, 0, `second server exit code:\n${second.output}`);
      assert.notEqual(second.code, null, 'second server had to be killed');
      assert.match(second.output, /lock|another (conifer )?process|in use|already running/i);
      const still = await api(server, 'GET', '/indexes/before-lock');
      assert.equal(still.status, 200, still.text);
      const list = await api(server, 'GET', '/indexes');
      assert.equal(list.status, 200);
    });

    it('SIGTERM exits 0; a restart on the same directory keeps the catalog', async () => {
      const pod = await api(server, 'POST', '/indexes', {
        body: podBody('survivor', { pod_type: 's1.x2', replicas: 2 }, { tags: { keep: 'yes' }, deletion_protection: 'enabled' }),
      });
      assert.equal(pod.status, 201, pod.text);
      const sparse = await api(server, 'POST', '/indexes', {
        body: { name: 'sparse-survivor', metric: 'dotproduct', vector_type: 'sparse', spec: { serverless: { cloud: 'aws', region: 'us-west-2' } } },
      });
      assert.equal(sparse.status, 201, sparse.text);
      const podId = hostId(pod.body.host, 'survivor', server.url);
      const deleted = await api(server, 'POST', '/indexes', { body: serverlessBody('deleted-before-restart') });
      assert.equal(deleted.status, 201);
      assert.equal((await api(server, 'DELETE', '/indexes/deleted-before-restart')).status, 202);
      // Indexes created in the last moment before SIGTERM (their stores may still be
      // opening) must neither crash the shutdown nor be lost.
      const late = await Promise.all(
        Array.from({ length: 8 }, (_, i) => api(server, 'POST', '/indexes', { body: serverlessBody(`late-${i}`) })),
      );
      for (const r of late) assert.equal(r.status, 201, r.text);
      const dirsBefore = indexDirs(dataDir);

      const code = await server.stop();
      assert.equal(code, 0, `exit code after SIGTERM:\n${server.output()}`);

      server = await startServer({ dataDir });
      const list = await api(server, 'GET', '/indexes');
      assert.equal(list.status, 200, list.text);
      const names = list.body.indexes.map((i: { name: string }) => i.name).sort();
      assert.deepEqual(names, ['before-lock', ...Array.from({ length: 8 }, (_, i) => `late-${i}`), 'sparse-survivor', 'survivor']);

      // Indexes load in the background after a start: describe says Initializing until then.
      const got = await pollUntil(
        async () => api(server, 'GET', '/indexes/survivor'),
        (r) => r.status !== 200 || r.body.status?.state !== 'Initializing',
        20_000,
      );
      assert.equal(got.status, 200, got.text);
      assert.equal(hostId(got.body.host, 'survivor', server.url), podId, 'host id survives a restart');
      assert.equal(got.body.spec.pod.pod_type, 's1.x2');
      assert.equal(got.body.spec.pod.replicas, 2);
      assert.deepEqual(got.body.tags, { keep: 'yes' });
      assert.equal(got.body.deletion_protection, 'enabled');
      assert.deepEqual(got.body.status, { ready: true, state: 'Ready' });

      const gotSparse = await api(server, 'GET', '/indexes/sparse-survivor');
      assert.equal(gotSparse.body.vector_type, 'sparse');
      assert.ok(!('dimension' in gotSparse.body));
      assert.equal(gotSparse.body.spec.serverless.region, 'us-west-2');

      assertError(await api(server, 'GET', '/indexes/deleted-before-restart'), 404, 'NOT_FOUND');
      assertError(await api(server, 'DELETE', '/indexes/survivor'), 403, 'FORBIDDEN');
      // The eleven live indexes keep their directories; the deleted one's is gone (removal
      // resumes after a restart if it was interrupted).
      const dirsAfter = await pollUntil(async () => indexDirs(dataDir), (d) => d.length === 11);
      assert.equal(dirsAfter.length, 11, `directories after restart: ${dirsAfter}`);
      for (const d of dirsAfter) assert.ok(dirsBefore.includes(d), `unexpected new directory ${d}`);
    });

    it('after a restart the name rule for duplicates still holds (409)', async () => {
      const res = await api(server, 'POST', '/indexes', { body: serverlessBody('survivor') });
      assertError(res, 409, 'ALREADY_EXISTS');
    });
  });

  describe('first start without CONIFER_API_KEY', () => {
    const dataDir = tempDataDir();
    let server: TestServer | undefined;

    after(async () => {
      await stopAndClean(server, dataDir);
    });

    it('generates a key, prints it once, writes it with mode 0600; it works; a restart prints none', async () => {
      server = await startServer({ dataDir, apiKey: null });
      const file = join(dataDir, 'initial-api-key');
      assert.ok(existsSync(file), 'initial-api-key was not written');
      assert.equal(statSync(file).mode & 0o777, 0o600, 'initial-api-key must be mode 0600');
      const key = readFileSync(file, 'utf8').trim();
      assert.ok(key.length >= 16, `generated key looks too short: ${key}`);
      // The key may be printed just after the "listening" line the helper waits for.
      const srv = server;
      await pollUntil(async () => srv.output(), (out) => out.includes(key), 3000);
      assert.ok(server.output().includes(key), `the key should be printed at first start:\n${server.output()}`);

      const ok = await api(server, 'GET', '/indexes', { key });
      assert.equal(ok.status, 200, ok.text);
      assertError(await api(server, 'GET', '/indexes', { key: TEST_API_KEY }), 401, 'UNAUTHENTICATED');
      const created = await api(server, 'POST', '/indexes', { key, body: serverlessBody('keyed') });
      assert.equal(created.status, 201, created.text);

      assert.equal(await server.stop(), 0);
      server = await startServer({ dataDir, apiKey: null });
      const again0 = await api(server, 'GET', '/indexes', { key });
      assert.equal(again0.status, 200, again0.text);
      await sleep(300); // give a (wrong) late print the same chance the first start had
      assert.ok(!server.output().includes(key), `the key must not be printed again:\n${server.output()}`);
      assert.equal(readFileSync(file, 'utf8').trim(), key, 'the key file must not change');
      const again = await api(server, 'GET', '/indexes', { key });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(
        again.body.indexes.map((i: { name: string }) => i.name),
        ['keyed'],
      );
    });
  });

  describe('CONIFER_PUBLIC_URL', () => {
    let server: TestServer;

    before(async () => {
      server = await startServer({ env: { CONIFER_PUBLIC_URL: 'https://vectors.example.com' } });
    });

    after(async () => {
      await stopAndClean(server);
    });

    it('sets the advertised host: https://vectors.example.com/svc/<name>-<id7>', async () => {
      const res = await api(server, 'POST', '/indexes', { body: serverlessBody('public') });
      assert.equal(res.status, 201, res.text);
      const id = hostId(res.body.host, 'public', 'https://vectors.example.com');
      const got = await api(server, 'GET', '/indexes/public');
      assert.equal(got.body.host, `https://vectors.example.com/svc/public-${id}`);
      const list = await api(server, 'GET', '/indexes');
      assert.equal(list.body.indexes[0].host, got.body.host);
    });

    it('delete then recreate gives a different host', async () => {
      const first = await api(server, 'POST', '/indexes', { body: serverlessBody('again') });
      assert.equal(first.status, 201, first.text);
      assert.equal((await api(server, 'DELETE', '/indexes/again')).status, 202);
      const second = await api(server, 'POST', '/indexes', { body: serverlessBody('again') });
      assert.equal(second.status, 201, second.text);
      assert.notEqual(
        hostId(first.body.host, 'again', 'https://vectors.example.com'),
        hostId(second.body.host, 'again', 'https://vectors.example.com'),
      );
    });
  });
});
