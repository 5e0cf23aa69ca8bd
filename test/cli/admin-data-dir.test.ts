// The admin commands never create a data directory: run from the wrong place they refuse,
// instead of minting keys in a fresh catalog the running server does not know. Every run
// says which directory it used, as an absolute path.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, removeDir, startServer, type TestServer } from '../helpers/server.js';
import { stopAndClean } from '../server/support.js';

/** Runs `conifer ARGS` in `cwd` with CONIFER_DATA_DIR unset unless given. */
function cliIn(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = { ...(process.env as Record<string, string>) };
  delete base.CONIFER_DATA_DIR;
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('admin commands and the data directory', () => {
  // realpath: the directory the CLI resolves is the canonical one (tmpdir may be a symlink).
  const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'conifer-cwd-')));
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });

  after(async () => {
    await stopAndClean(server);
    removeDir(elsewhere);
  });

  for (const args of [
    ['projects', 'list'],
    ['projects', 'create', 'team-a'],
    ['keys', 'create', '--project', 'default'],
  ]) {
    it(`\`conifer ${args.join(' ')}\` where there is no ./conifer-data refuses and creates nothing`, async () => {
      const r = await cliIn(elsewhere, args);
      assert.notEqual(r.code, 0, `it should fail: ${r.stdout}`);
      assert.equal(r.stdout, '', 'nothing on stdout (no key printed)');
      const dir = join(elsewhere, 'conifer-data');
      assert.ok(r.stderr.includes(dir), `stderr should name ${dir}:\n${r.stderr}`);
      assert.match(r.stderr, /not a Conifer data directory/);
      assert.match(r.stderr, /conifer start/);
      assert.ok(!existsSync(dir), 'the command created a data directory');
    });
  }

  it('an empty directory given by --data-dir is refused too', async () => {
    const r = await cliIn(elsewhere, ['projects', 'list', '--data-dir', elsewhere]);
    assert.notEqual(r.code, 0, r.stdout);
    assert.ok(r.stderr.includes(elsewhere), r.stderr);
    assert.ok(!existsSync(join(elsewhere, 'catalog.db')), 'the command created a catalog');
  });

  it('a relative --data-dir is resolved and named as an absolute path', async () => {
    const r = await cliIn(elsewhere, ['projects', 'list', '--data-dir', 'sub/dir']);
    assert.notEqual(r.code, 0, r.stdout);
    assert.ok(r.stderr.includes(join(elsewhere, 'sub', 'dir')), r.stderr);
    assert.ok(!existsSync(join(elsewhere, 'sub')), 'the command created a directory');
  });

  it('a successful command names the directory it used on stderr; stdout stays one JSON document', async () => {
    const r = await cliIn(elsewhere, ['projects', 'list'], { CONIFER_DATA_DIR: server.dataDir });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stderr.includes(`data directory ${server.dataDir}`), r.stderr);
    const names = JSON.parse(r.stdout).projects.map((p: { name: string }) => p.name);
    assert.deepEqual(names, ['default']);
  });
});
