// The thread of a probe (probe.ts): sends the request, pauses, repeats; on 'stop' it
// answers with every latency once the request in flight is done.
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from './http.js';
import type { ProbeRequest } from './probe.js';

if (!parentPort) throw new Error('probe-worker must run as a worker thread');
const port = parentPort;
const request = workerData as ProbeRequest;
const client = new Client(request.apiKey, 1, 30_000);
let running = true;
port.once('message', () => (running = false));

const latencies: number[] = [];
while (running && latencies.length < 100_000) {
  const r = await client.request(request.method, request.url, request.body);
  if (r.status !== 200) throw new Error(`probe ${request.method} ${request.url} answered ${r.status}: ${r.text.slice(0, 300)}`);
  latencies.push(r.ms);
  await new Promise((res) => setTimeout(res, request.intervalMs));
}
client.close();
port.postMessage(latencies);
