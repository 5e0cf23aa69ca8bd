// `npm pack` makes a package that works where Conifer's sources are not: installed into an
// empty directory, `npx conifer start` serves. This is the one test that installs: npm
// compiles better-sqlite3 and hnswlib-node from source (a minute on a quiet machine), from
// npm's cache where it can (--prefer-offline), bounded by INSTALL_TIMEOUT_MS.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, removeDir } from '../helpers/server.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const INSTALL_TIMEOUT_MS = 25 * 60_000; // 12 min measured on a shared, loaded 2-core machine
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const proc = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      proc.kill('SIGKILL');
    }, timeoutMs);
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the npm package', { timeout: INSTALL_TIMEOUT_MS + 120_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'conifer-pack-'));
  let tarball = '';

  after(() => removeDir(work));

  it('npm pack ships the build, README and LICENSE, and no tests or sources', async () => {
    // --ignore-scripts: `pretest` has built dist/; `prepare` would rebuild it under the suite's feet.
    const r = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], repoRoot, 120_000);
    assert.equal(r.code, 0, r.stderr);
    const [packed] = JSON.parse(r.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(work, packed.filename);
    const files = packed.files.map((f) => f.path);
    for (const needed of ['package.json', 'README.md', 'LICENSE', 'dist/build-info.json', 'dist/src/cli/main.js', 'dist/src/engine/worker/engine-worker.js', 'binding.gyp', 'native/exact-scan.cc']) {
      assert.ok(files.includes(needed), `${needed} is not in the package: ${files.join(', ')}`);
    }
    // The server's compiled JavaScript, the console's built assets and the native scan's
    // source (compiled by the package's install script), nothing else.
    const unwanted = files.filter(
      (f) => !/^(package\.json|README\.md|LICENSE|binding\.gyp|native\/[a-z-]+\.cc|dist\/build-info\.json|dist\/src\/.*\.js|dist\/console\/.*)$/.test(f),
    );
    assert.deepEqual(unwanted, [], 'files the package does not need');
  });

  it('installed into an empty directory, `npx conifer start` serves', async () => {
    assert.ok(tarball, 'npm pack did not run');
    const app = join(work, 'app');
    mkdirSync(app);
    const install = await run(
      npm,
      ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
      app,
      INSTALL_TIMEOUT_MS,
    );
    assert.equal(install.code, 0, `npm install failed:\n${install.stdout}\n${install.stderr}`);

    const dataDir = join(work, 'data');
    // --no: run the installed bin, never fetch a package called "conifer".
    const proc = spawn(npm, ['exec', '--no', '--', 'conifer', 'start'], {
      cwd: app,
      env: { ...process.env, CONIFER_HOST: '127.0.0.1', CONIFER_PORT: '0', CONIFER_DATA_DIR: dataDir, CONIFER_API_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so the server under npm exec stops with it
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "listening" in 60 s:\n${out}`)), 60_000);
        const onData = (c: Buffer): void => {
          out += c.toString();
          const m = /listening on (http:\/\/[0-9.:]+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        };
        proc.stdout.on('data', onData);
        proc.stderr.on('data', onData);
        proc.once('exit', (code) => reject(new Error(`npx conifer start exited ${code}:\n${out}`)));
      });
      assert.ok(existsSync(join(dataDir, 'initial-api-key')), out);
      const key = readFileSync(join(dataDir, 'initial-api-key'), 'utf8').trim();
      assert.ok(key.length > 0 && out.includes(key), `the generated key was not printed:\n${out}`);
      const created = await api({ url, apiKey: key }, 'POST', '/indexes', {
        body: { name: 'packed', dimension: 2, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
      });
      assert.equal(created.status, 201, created.text);
      // The install compiled the native scan and the engine loaded it (logged at its start).
      assert.match(out, /exact scans use the native pre-pass/, out);
    } finally {
      if (proc.exitCode === null && proc.pid !== undefined) {
        const group = -proc.pid;
        process.kill(group, 'SIGTERM');
        const killer = setTimeout(() => process.kill(group, 'SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      }
    }
  });
});
