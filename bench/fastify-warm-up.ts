// How many requests a freshly started Node HTTP server needs before it runs at its steady
// speed, without Conifer in it: a bare Fastify route (Conifer's framework) in its own
// process, answering a query-shaped body with ten matches, driven by the bench's client in
// passes of 1,000 requests at concurrency 8 and then 1. Prints each pass's requests/s and
// the server's CPU per request (every thread of its process, /proc). This is why the
// benchmark's query phases follow unmeasured warm-up rounds (harness.ts denseWarmUp()).
//   npx tsc -p tsconfig.json && node dist/bench/fastify-warm-up.js [--rounds 6]
import { flag } from './dense-fixture.js';
import { startChildServer } from './echo-server.js';
import { Client } from './http.js';
import { threadTimes } from './thread-times.js';

// Runs in the child (from the repository's root, so `fastify` resolves to its node_modules).
const SERVER_SOURCE = `
const app = require('fastify')({ logger: false });
const matches = Array.from({ length: 10 }, (_, i) => ({ id: 'v' + i, score: 0.5 + i / 100, metadata: { bucket: i, tag: 't', labels: ['a', 'b'] } }));
app.post('/query', async () => ({ matches, namespace: '', usage: { readUnits: 1 } }));
app.listen({ port: 0, host: '127.0.0.1' }).then(() => console.log('fastify ' + app.server.address().port));
`;
const PASS = 1000;

const rounds = Number(flag('rounds', '6'));
const { proc, port } = await startChildServer('fastify', SERVER_SOURCE);
const client = new Client('unused', 8);
try {
  const url = `http://127.0.0.1:${port}/query`;
  const body = JSON.stringify({ vector: Array.from({ length: 384 }, (_, i) => Math.sin(i) / 20), topK: 10, includeMetadata: true });
  const cpuMs = (): number => {
    let ms = 0;
    for (const t of threadTimes(proc.pid ?? -1).values()) ms += t.runMs;
    return ms;
  };
  for (let round = 1; round <= rounds; round++) {
    const cells: string[] = [];
    for (const concurrency of [8, 1]) {
      let sent = 0;
      const cpu0 = cpuMs();
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (sent < PASS) {
            sent++;
            const r = await client.request('POST', url, body);
            if (r.status !== 200) throw new Error(`answered ${r.status}`);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      cells.push(`c${concurrency} ${Math.round(PASS / seconds)} requests/s, server CPU ${Math.round(((cpuMs() - cpu0) * 1000) / PASS)} µs/request`);
    }
    console.log(`round ${round}: ${cells.join('; ')}`);
  }
} finally {
  client.close();
  proc.kill('SIGKILL');
}
