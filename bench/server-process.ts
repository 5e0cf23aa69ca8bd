// Starts the real Conifer server (dist/src/cli/main.js, i.e. what `npm start` runs) on a
// free loopback port with a given data directory, and always stops it: callers use
// try/finally, and a process 'exit' handler kills any server still running.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import http from 'node:http';

const here = dirname(fileURLToPath(import.meta.url));
/** dist/bench -> dist/src/cli/main.js */
export const CLI = join(here, '..', 'src', 'cli', 'main.js');

const running = new Set<ChildProcess>();
let handlersInstalled = false;

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
      process.exit(130);
    });
  }
}

export interface ServerProcess {
  url: string;
  pid: number;
  /** ms from spawn to the "listening" line. */
  listeningMs: number;
  /** ms from spawn to the first 200 of GET /ready. */
  readyMs: number;
  output(): string;
  stop(): Promise<void>;
}

function get(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 5_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * `execArgv`: extra node flags for the server process (e.g. `--cpu-prof`, bench/fixed-cost.ts).
 * `env`: more environment for the server (CONIFER_IMPORT_ROOT for the import phase).
 */
export async function startServer(
  dataDir: string,
  apiKey: string,
  timeoutMs = 120_000,
  execArgv: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  installExitHandlers();
  const t0 = performance.now();
  const proc = spawn(process.execPath, [...execArgv, CLI, 'start'], {
    env: {
      ...process.env,
      CONIFER_HOST: '127.0.0.1',
      CONIFER_PORT: '0',
      CONIFER_DATA_DIR: dataDir,
      CONIFER_API_KEY: apiKey,
      CONIFER_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let out = '';
  const exited = new Promise<void>((resolve) =>
    proc.once('exit', () => {
      running.delete(proc);
      resolve();
    }),
  );
  const stop = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not listen within ${timeoutMs} ms:\n${out}`)), timeoutMs);
      const onData = (chunk: Buffer): void => {
        out = (out + chunk.toString()).slice(-20_000);
        const m = /listening on (http:\/\/[0-9.:]+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      proc.stdout?.on('data', onData);
      proc.stderr?.on('data', onData);
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code} before listening:\n${out}`));
      });
    });
    const listeningMs = performance.now() - t0;
    const deadline = t0 + timeoutMs;
    for (;;) {
      if ((await get(`${url}/ready`)) === 200) break;
      if (performance.now() > deadline) throw new Error(`server not ready within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const readyMs = performance.now() - t0;
    return { url, pid: proc.pid ?? -1, listeningMs, readyMs, output: () => out, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Resident and peak resident memory of a process, in bytes (Linux /proc). */
export function memoryOf(pid: number): { rssBytes: number; hwmBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : Number.NaN;
  };
  return { rssBytes: kb('VmRSS'), hwmBytes: kb('VmHWM') };
}
