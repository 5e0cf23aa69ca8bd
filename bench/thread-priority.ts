// Does a lower priority on busy worker threads keep the main thread's event loop
// responsive? Two worker threads spin (standing in for the writer thread and the engine
// worker in a heavy ingest) while the main thread measures its event-loop delay (10 ms
// timer), once with the workers at the main thread's priority and once 10 nice steps
// below it (src/engine/thread-priority.ts). Run it pinned to one core so the three
// threads must share it, as the server's do on a busy 2-core machine:
//   npx tsc -p tsconfig.json && taskset -c 0 node dist/bench/thread-priority.js [--seconds 5]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

const i = process.argv.indexOf('--seconds');
const SECONDS = i >= 0 ? Number(process.argv[i + 1]) : 5;
const moduleUrl = new URL('../src/engine/thread-priority.js', import.meta.url).href;
const spinner = `
  const { parentPort, workerData } = require('node:worker_threads');
  import(workerData.moduleUrl).then((m) => {
    parentPort.postMessage(m.lowerThisThreadPriority(workerData.nice));
    for (;;) { let x = 0; for (let k = 0; k < 1e6; k++) x += k; if (x < 0) break; }
  });
`;

async function measure(nice: number): Promise<string> {
  const workers = [0, 1].map(() => new Worker(spinner, { eval: true, workerData: { moduleUrl, nice } }));
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  h.disable();
  await Promise.all(workers.map((w) => w.terminate()));
  const ms = (ns: number): string => (ns / 1e6).toFixed(1);
  return `p50 ${ms(h.percentile(50))} ms, p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms`;
}

for (const nice of [0, 10, 0, 10]) console.log(`two spinning workers at nice +${nice}: main-thread event-loop delay ${await measure(nice)}`);
