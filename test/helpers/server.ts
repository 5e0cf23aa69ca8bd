// Starts a real Conifer server in a child process on a free loopback port with a
// temporary data directory, and speaks HTTP to it. Every black-box test uses this, so
// the server under test is exactly what `npm start` runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// dist/test/helpers -> dist/src/cli/main.js
export const CLI = join(here, '..', '..', 'src', 'cli', 'main.js');

export const TEST_API_KEY = 'test-key-0123456789abcdef';
export const CURRENT_VERSION = '2026-04';

export interface TestServer {
  url: string;
  apiKey: string;
  dataDir: string;
  proc: ChildProcess;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>;
}

export interface StartOptions {
  dataDir?: string;
  env?: Record<string, string>;
  apiKey?: string | null;
  args?: string[];
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'conifer-test-'));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDataDir();
  const apiKey = opts.apiKey === undefined ? TEST_API_KEY : opts.apiKey;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    CONIFER_HOST: '127.0.0.1',
    CONIFER_PORT: '0',
    CONIFER_DATA_DIR: dataDir,
    CONIFER_LOG_LEVEL: 'info',
    ...(apiKey === null ? {} : { CONIFER_API_KEY: apiKey }),
    ...opts.env,
  };
  const proc = spawn(process.execPath, [CLI, 'start', ...(opts.args ?? [])], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s:\n${out}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /listening on (http:\/\/[0-9.:]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    apiKey: apiKey ?? '',
    dataDir,
    proc,
    output: () => out,
    stop: async () => {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  body: any;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent verbatim instead of JSON-encoding `body`. */
  rawBody?: string;
  contentType?: string | null;
  /** API key; null sends none. Defaults to the server's key. */
  key?: string | null;
  /** Version header value; null sends none. Defaults to the current version. */
  version?: string | null;
  /** Which header carries the version (default X-Service-Api-Version). */
  versionHeader?: string;
  headers?: Record<string, string>;
}

/** One HTTP request to the server; `path` is relative to its base URL or absolute. */
export async function api(
  server: Pick<TestServer, 'url' | 'apiKey'>,
  method: string,
  path: string,
  opts: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? server.apiKey : opts.key;
  if (key !== null) headers['Api-Key'] = key;
  const version = opts.version === undefined ? CURRENT_VERSION : opts.version;
  if (version !== null) headers[opts.versionHeader ?? 'X-Service-Api-Version'] = version;
  let payload: string | undefined;
  if (opts.rawBody !== undefined) payload = opts.rawBody;
  else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
  if (payload !== undefined && opts.contentType !== null) {
    headers['Content-Type'] = opts.contentType ?? 'application/json';
  }
  const target = /^https?:\/\//.test(path) ? path : server.url + path;
  const res = await fetch(target, { method, headers, body: payload });
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** Runs the `conifer` command to completion. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI, ...args], {
      env: { ...(process.env as Record<string, string>), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
