// The floor of any HTTP round trip on this machine: a bare `node:http` server in its own
// process that reads the body and answers a small JSON document. Measured by the same
// client, with the same query bodies, in the same run as Conifer, so "Conifer's p50 minus
// hnswlib's p50" can be stated as a multiple of what HTTP alone costs.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { Client } from './http.js';
import { summarize, type LatencySummary } from './stats.js';

// Runs in the child: no framework, no parsing, no logging.
const ECHO_SOURCE = `
const http = require('node:http');
const answer = JSON.stringify({ matches: [], namespace: '', usage: { readUnits: 1 } });
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => console.log('echo ' + server.address().port));
`;

/**
 * Starts `source` (CommonJS, run with `node -e`) in a child process, which must print
 * `<name> <port>` once it listens; resolves with the child and that port. The caller
 * kills the child.
 */
export async function startChildServer(name: string, source: string): Promise<{ proc: ChildProcessByStdio<null, Readable, null>; port: number }> {
  const proc = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} server did not start in 10 s`)), 10_000);
      proc.stdout.on('data', (chunk: Buffer) => {
        const m = new RegExp(`${name} (\\d+)`).exec(chunk.toString());
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      proc.once('exit', (code) => reject(new Error(`${name} server exited with ${code}`)));
    });
    return { proc, port };
  } catch (err) {
    proc.kill('SIGKILL');
    throw err;
  }
}

/** p50 etc. of `count` sequential POSTs of `bodies` (cycled) to a bare node:http server. */
export async function measureEcho(bodies: readonly string[], count: number): Promise<LatencySummary> {
  const { proc, port } = await startChildServer('echo', ECHO_SOURCE);
  try {
    const client = new Client('unused', 1);
    try {
      const url = `http://127.0.0.1:${port}/query`;
      for (let i = 0; i < 50; i++) await client.request('POST', url, bodies[i % bodies.length]); // warm-up
      const latencies: number[] = [];
      for (let i = 0; i < count; i++) latencies.push((await client.request('POST', url, bodies[i % bodies.length])).ms);
      return summarize(latencies);
    } finally {
      client.close();
    }
  } finally {
    proc.kill('SIGKILL');
  }
}
