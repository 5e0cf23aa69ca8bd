// The documented dev workflow: `npm run dev` builds, serves, and on a source change
// rebuilds and restarts the server. It runs on a copy of the sources (src/, console/,
// package.json, tsconfig.json; node_modules linked) so the dist/ this suite runs from is never rebuilt.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeDir } from '../helpers/server.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const STEP_TIMEOUT_MS = 180_000;

describe('npm run dev', { timeout: 2 * STEP_TIMEOUT_MS + 30_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'conifer-dev-workflow-'));

  after(() => removeDir(work));

  it('serves, and after a source change rebuilds and restarts on the new code', async () => {
    // `npm run build` also builds the console from console/.
    for (const entry of ['src', 'console', 'package.json', 'tsconfig.json']) cpSync(join(repoRoot, entry), join(work, entry), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'));
    const proc = spawn('npm', ['run', 'dev'], {
      cwd: work,
      env: { ...process.env, CONIFER_HOST: '127.0.0.1', CONIFER_PORT: '0', CONIFER_DATA_DIR: join(work, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: tsc --watch and node --watch stop with it
    });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    /** Resolves once `pattern` shows in the output after `from`; rejects after STEP_TIMEOUT_MS. */
    const waitFor = (pattern: RegExp, from: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + STEP_TIMEOUT_MS;
        const poll = setInterval(() => {
          if (pattern.test(out.slice(from))) {
            clearInterval(poll);
            resolve();
          } else if (Date.now() > deadline || proc.exitCode !== null) {
            clearInterval(poll);
            reject(new Error(`no ${pattern} in the output:\n${out.slice(-4000)}`));
          }
        }, 200);
      });
    try {
      await waitFor(/listening on http/, 0);
      // A top-level statement added to the CLI's start module shows when the new build runs.
      const mark = out.length;
      appendFileSync(join(work, 'src', 'cli', 'start.ts'), "\nprocess.stdout.write('rebuilt by npm run dev\\n');\n");
      await waitFor(/rebuilt by npm run dev[\s\S]*listening on http/, mark);
    } finally {
      if (proc.exitCode === null && proc.pid !== undefined) {
        const group = -proc.pid;
        process.kill(group, 'SIGINT'); // what Ctrl-C sends
        const killer = setTimeout(() => process.kill(group, 'SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      }
    }
    assert.match(out, /rebuilt by npm run dev/);
  });
});
