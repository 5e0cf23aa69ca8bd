// lowerThisThreadPriority (src/engine/thread-priority.ts): run in a worker thread, it
// raises that thread's nice value only — the process's main thread keeps its own.
import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { lowerThisThreadPriority, writerNice, type PriorityOutcome } from '../../src/engine/thread-priority.js';

const moduleUrl = new URL('../../src/engine/thread-priority.js', import.meta.url).href;

/** Runs lowerThisThreadPriority(by) in a new worker thread; its outcome. */
function inWorker(by: number): Promise<PriorityOutcome> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.moduleUrl).then((m) => parentPort.postMessage(m.lowerThisThreadPriority(workerData.by)));
  `;
  const worker = new Worker(source, { eval: true, workerData: { moduleUrl, by } });
  return new Promise((resolve, reject) => {
    worker.once('message', (outcome: PriorityOutcome) => {
      resolve(outcome);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

// Linux (the supported server platform; elsewhere the function changes nothing).
describe('lowerThisThreadPriority', () => {
  it('raises the calling thread\'s nice value by the given steps, not the main thread\'s', async () => {
    const main = getPriority(process.pid);
    const outcome = await inWorker(4);
    assert.deepEqual(outcome, { nice: Math.min(19, main + 4) });
    assert.equal(getPriority(process.pid), main);
  });

  it('caps at 19 and leaves the thread alone for 0', async () => {
    assert.deepEqual(await inWorker(40), { nice: 19 });
    const main = getPriority(process.pid);
    assert.deepEqual(lowerThisThreadPriority(0), { skipped: 'disabled (0)' });
    assert.equal(getPriority(process.pid), main);
  });
});

describe('writerNice', () => {
  it('puts the writer halfway, rounded up: below the HTTP thread, above the engine worker', () => {
    assert.equal(writerNice(0), 0);
    assert.equal(writerNice(1), 1);
    assert.equal(writerNice(10), 5);
    assert.equal(writerNice(19), 10);
    for (let b = 1; b <= 19; b++) assert.ok(writerNice(b) >= 1 && writerNice(b) <= b, `background nice ${b}`);
  });
});
