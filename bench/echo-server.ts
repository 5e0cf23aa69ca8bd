// The floor of any HTTP round trip on this machine: a bare `node:http` server in its own
// process that reads the body and answers a small JSON document. Measured by the same
// client, with the same query bodies, in the same run as Conifer, so "Conifer's p50 minus
// hnswlib's p50" can be stated as a multiple of what HTTP alone costs, and Conifer's QPS
// at concurrency 8 beside the most a Node HTTP server doing no work at all answers here.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { Client, runLoad, type HttpClient } from './http.js';
import { summarize, type LatencySummary } from './stats.js';

// Runs in the child: no framework, no parsing, no logging.
export const ECHO_SOURCE = `
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

export interface EchoFigures {
  /** `count` sequential POSTs. */
  c1: LatencySummary;
  /** Requests per second over 5 × `count` POSTs with 8 always in flight. */
  qpsC8: number;
}

/**
 * The bare node:http server answering `count` POSTs of `bodies` (cycled) one at a time,
 * then 5 × `count` with 8 in flight, from `makeClient`'s client (the bench's own by default).
 */
export async function measureEcho(bodies: readonly string[], count: number, makeClient: () => HttpClient = () => new Client('unused', 8)): Promise<EchoFigures> {
  const { proc, port } = await startChildServer('echo', ECHO_SOURCE);
  try {
    const client = makeClient();
    try {
      const url = `http://127.0.0.1:${port}/query`;
      const post = async (i: number): Promise<number> => (await client.request('POST', url, bodies[i % bodies.length])).ms;
      for (let i = 0; i < 50; i++) await post(i); // warm-up
      const latencies: number[] = [];
      for (let i = 0; i < count; i++) latencies.push(await post(i));
      // Warm-up of the 8 connections, then a pass long enough to time (a short one measured
      // a third of the steady rate: the bare server answers tens of thousands a second).
      await runLoad(8, 2000, 60_000, post);
      const c8 = await runLoad(8, 5 * count, 60_000, post);
      return { c1: summarize(latencies), qpsC8: (c8.completed * 1000) / c8.wallMs };
    } finally {
      client.close();
    }
  } finally {
    proc.kill('SIGKILL');
  }
}
