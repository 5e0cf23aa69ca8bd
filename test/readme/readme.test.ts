// The README cannot rot: every shell and JavaScript block of README.md runs, as written,
// in README order, against a server this test starts, in a working directory laid out
// like a user's clone (package.json, dist/ and node_modules/ of this repository, and the
// server's ./conifer-data with the initial-api-key file a first start writes).
//
// How blocks run, and the one change made to them:
// - A shell block is a bash script that stops at its first failing command (`bash -euo
//   pipefail`), so a broken line fails this test even in a block that does not say
//   `set -e` itself. Variables it exports carry over to later blocks, as in one terminal.
// - A JavaScript block names its file on its first line (`// example.mjs`); it is written
//   there and run with `node FILE`, the way the README tells the user to — twice, because
//   the README says a second run works.
// - The server listens on a free port rather than 5080 (tests never take a fixed port):
//   `http://127.0.0.1:5080` in a block is replaced by the server's address. Nothing else.
// - A block preceded by `<!-- readme-test: skip (REASON) -->` is not run; the marker must
//   give its reason. Only blocks that cannot run inside a test are marked: `npm ci && npm
//   start` (this test starts the server itself; test/package/pack.test.ts installs and
//   starts a packed Conifer), `npm run dev` (runs until stopped, rebuilding the dist/ the
//   suite runs from) and the benchmark (minutes; test/bench covers the harness).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, removeDir, startServer, type TestServer } from '../helpers/server.js';
import { stopAndClean } from '../server/support.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const README_ADDRESS = 'http://127.0.0.1:5080';
const BLOCK_TIMEOUT_MS = 90_000;

interface Block {
  lang: string;
  code: string;
  /** Line number of the opening fence, for messages. */
  line: number;
  skipReason?: string;
}

function readmeBlocks(): Block[] {
  const text = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const blocks: Block[] = [];
  const fence = /^```([\w-]*)[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;
  for (let m = fence.exec(text); m; m = fence.exec(text)) {
    const before = text.slice(0, m.index).trimEnd();
    const lastLine = before.slice(before.lastIndexOf('\n') + 1);
    const marker = /^<!-- readme-test: skip \((.+)\) -->$/.exec(lastLine);
    if (lastLine.startsWith('<!-- readme-test') && !marker) {
      throw new Error(`malformed readme-test marker before line ${lineOf(text, m.index)}: ${lastLine}`);
    }
    blocks.push({ lang: m[1], code: m[2], line: lineOf(text, m.index), skipReason: marker?.[1] });
  }
  return blocks;
}

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

interface Run {
  code: number | null;
  output: string;
}

/** Runs a command in `cwd` with exactly `env`, bounded by BLOCK_TIMEOUT_MS. */
function run(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const proc = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      output += `\n[killed after ${BLOCK_TIMEOUT_MS} ms]`;
      proc.kill('SIGKILL');
    }, BLOCK_TIMEOUT_MS);
    proc.stdout.on('data', (c: Buffer) => (output += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (output += c.toString()));
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** A user's environment: none of the variables the examples are meant to set themselves. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('PINECONE_') && !k.startsWith('CONIFER_')) env[k] = v;
  }
  return env;
}

describe('README examples', () => {
  const blocks = readmeBlocks();
  const work = mkdtempSync(join(tmpdir(), 'conifer-readme-'));
  const envFile = join(work, '.exported-env');
  let env = userEnv();
  let server: TestServer | undefined;
  /** Output of each block that ran, by its README line. */
  const outputs = new Map<number, string>();

  before(async () => {
    for (const entry of ['package.json', 'dist', 'node_modules']) {
      symlinkSync(join(repoRoot, entry), join(work, entry));
    }
    server = await startServer({ dataDir: join(work, 'conifer-data'), apiKey: null });
  });

  after(async () => {
    await stopAndClean(server, join(work, 'conifer-data'));
    removeDir(work);
  });

  it('has shell and JavaScript examples, and every skipped block says why', () => {
    assert.ok(blocks.some((b) => b.lang === 'sh' && !b.skipReason), 'no runnable shell block');
    assert.ok(blocks.some((b) => b.lang === 'js' && !b.skipReason), 'no runnable JavaScript block');
    assert.ok(
      blocks.some((b) => b.code.includes(README_ADDRESS)),
      `no block names ${README_ADDRESS}: the port substitution would hide a wrong address`,
    );
    for (const b of blocks) {
      assert.ok(
        b.skipReason !== undefined || ['sh', 'js'].includes(b.lang),
        `README line ${b.line}: a \`${b.lang || '(no language)'}\` block is neither sh nor js nor marked skip`,
      );
    }
  });

  for (const block of blocks.filter((b) => !b.skipReason)) {
    // Substituted when the block runs: the server's address is known only then.
    const codeFor = (url: string): string => block.code.replaceAll(README_ADDRESS, url);
    if (block.lang === 'sh') {
      it(`shell block at README line ${block.line} runs`, async () => {
        // package.json, dist/ and node_modules/ are links to this checkout: an install or a
        // build here would change the tree the rest of the suite runs from.
        assert.doesNotMatch(block.code, /\bnpm (ci|install|i|run|start|test)\b/, `README line ${block.line}: mark it skip`);
        const script = join(work, `block-${block.line}.sh`);
        // The exported variables are saved at exit, so the next block starts with them.
        writeFileSync(script, `trap 'env -0 > ${JSON.stringify(envFile)}' EXIT\n${codeFor(server!.url)}`);
        const r = await run('bash', ['--noprofile', '--norc', '-euo', 'pipefail', script], work, env);
        outputs.set(block.line, r.output);
        assert.equal(r.code, 0, `README line ${block.line} failed (exit ${r.code}):\n${r.output}`);
        env = Object.fromEntries(
          readFileSync(envFile, 'utf8')
            .split('\0')
            .filter((kv) => kv.includes('='))
            .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
        );
      });
    } else {
      it(`JavaScript block at README line ${block.line} runs with node, twice`, async () => {
        const code = codeFor(server!.url);
        const name = /^\/\/ ([\w.-]+\.m?js)\n/.exec(code)?.[1];
        assert.ok(name, `README line ${block.line}: the block's first line must name its file (// example.mjs)`);
        writeFileSync(join(work, name), code);
        for (const attempt of [1, 2]) {
          const r = await run(process.execPath, [name], work, env);
          outputs.set(block.line, r.output);
          assert.equal(r.code, 0, `node ${name} (run ${attempt}) failed (exit ${r.code}):\n${r.output}`);
        }
      });
    }
  }

  /** The output of the one runnable block containing `snippet`. */
  function outputOf(snippet: string): string {
    const found = blocks.filter((b) => !b.skipReason && b.code.includes(snippet));
    assert.equal(found.length, 1, `expected one README block containing ${JSON.stringify(snippet)}`);
    const out = outputs.get(found[0].line);
    assert.ok(out !== undefined, `the block containing ${JSON.stringify(snippet)} did not run`);
    return out;
  }

  it('the examples did what the README says', async () => {
    // curl: the filtered query finds the 1994 film.
    assert.match(outputOf('"$HOST/query"'), /"matches":\[\{"id":"m1","score":1/);
    // client: both records upserted, the nearest first.
    assert.match(outputOf('example.mjs'), /\[\s*\{\s*id: 'm1',\s*score: 1,[\s\S]*id: 'm2'/);
    // backups: the restore job names the restored index.
    assert.match(outputOf('/restore-jobs"'), /"target_index_name":"movies-restored"/);

    const key = readFileSync(join(work, 'conifer-data', 'initial-api-key'), 'utf8').trim();
    const listed = await api({ url: server!.url, apiKey: key }, 'GET', '/indexes');
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.indexes.map((i: { name: string }) => i.name).sort(),
      ['movies-client', 'movies-curl', 'movies-restored'],
    );
    // projects and keys: team-a exists, is suspended, and its only key is revoked.
    const projects = outputOf('projects suspend team-a');
    assert.match(projects, /"name": "team-a",\s*"suspended": true/);
    assert.match(projects, /"revoked": true/);
  });
});
