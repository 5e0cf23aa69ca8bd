// Reads end a background slice early (src/engine/worker/read-preemption.ts): the policy
// on a fake clock, the shared counter across threads, and the shard and worker counting
// every read in and out.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { QUANTUM_MS, ReadsWaiting, workInQuanta } from '../../src/engine/worker/read-preemption.js';
import { EngineShard } from '../../src/engine/engine-shard.js';
import { parseFilterNode } from '../../src/engine/filter.js';
import { removeDir, tempDataDir } from '../helpers/server.js';

/**
 * workInQuanta on a clock that each step advances by `stepMs`; a read waits from the
 * moment the clock reaches `readAt`. Returns what it returned and every step's `until`.
 */
function run(opts: { deadline: number; yieldAfter: number; stepMs: number; readAt?: number; workMs?: number }): {
  preempted: boolean;
  untils: number[];
  clock: number;
} {
  let clock = 0;
  const untils: number[] = [];
  const preempted = workInQuanta(
    (until) => {
      untils.push(until);
      clock += opts.stepMs;
    },
    () => opts.workMs === undefined || clock < opts.workMs,
    opts.deadline,
    opts.yieldAfter,
    () => opts.readAt !== undefined && clock >= opts.readAt,
    () => clock,
  );
  return { preempted, untils, clock };
}

describe('workInQuanta', () => {
  it('runs quanta of QUANTUM_MS up to the deadline when no read comes', () => {
    const r = run({ deadline: 10, yieldAfter: 0, stepMs: QUANTUM_MS });
    assert.equal(r.preempted, false);
    assert.equal(r.clock, 10);
    assert.deepEqual(r.untils, Array.from({ length: 10 }, (_, i) => Math.min(10, i * QUANTUM_MS + QUANTUM_MS)));
  });

  it('never asks a step to run past the deadline', () => {
    const r = run({ deadline: 2.5, yieldAfter: 0, stepMs: 1 });
    assert.deepEqual(r.untils, [1, 2, 2.5]);
  });

  it('stops after the quantum in which a read arrives', () => {
    const r = run({ deadline: 50, yieldAfter: 0, stepMs: 1, readAt: 3.5 });
    assert.equal(r.preempted, true);
    assert.equal(r.clock, 4, 'the quantum running when the read came ends, then the slice');
  });

  it('runs one quantum even when a read already waits', () => {
    const r = run({ deadline: 50, yieldAfter: 0, stepMs: 1, readAt: 0 });
    assert.equal(r.preempted, true);
    assert.equal(r.untils.length, 1);
  });

  it('keeps working through waiting reads until yieldAfter', () => {
    const r = run({ deadline: 50, yieldAfter: 7, stepMs: 1, readAt: 0 });
    assert.equal(r.preempted, true);
    assert.equal(r.clock, 7);
  });

  it('stops, not preempted, when the work runs out', () => {
    const r = run({ deadline: 50, yieldAfter: 0, stepMs: 1, workMs: 3 });
    assert.equal(r.preempted, false);
    assert.equal(r.clock, 3);
  });
});

describe('ReadsWaiting', () => {
  it('counts reads posted on one thread and received on another', async () => {
    const reads = new ReadsWaiting();
    for (let i = 0; i < 3; i++) reads.posted();
    assert.equal(reads.value, 3);
    assert.equal(reads.any, true);
    // The worker counts two of them out through its own view of the same buffer.
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const count = new Int32Array(workerData);
       Atomics.sub(count, 0, 1);
       Atomics.sub(count, 0, 1);
       parentPort.postMessage('done');`,
      { eval: true, workerData: reads.buffer },
    );
    await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    assert.equal(reads.value, 1);
    reads.received();
    assert.equal(reads.any, false);
  });
});

describe('EngineShard and its worker count every read in and out', () => {
  it('reads to zero once every query, count and ids call is answered', async () => {
    const dir = tempDataDir();
    const quiet = { info: () => {}, warn: () => {}, error: () => {} };
    const shard = new EngineShard(quiet);
    try {
      await shard.open('reads', dir, { dimension: 4, metric: 'euclidean' }, 'reads', true);
      const query = { namespace: '', topK: 3, dense: new Float32Array(4), includeValues: false, includeMetadata: false };
      const filter = parseFilterNode({ n: { $gt: 1 } });
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < 20; i++) {
        calls.push(shard.query('reads', query, 0), shard.count('reads', filter, 0), shard.ids('reads', '', undefined, 0));
      }
      await Promise.all(calls);
      assert.equal(shard.readsNotReceived, 0);
      // A close is not a read: it neither adds to the count nor takes from it.
      await shard.close('reads');
      assert.equal(shard.readsNotReceived, 0);
    } finally {
      await shard.stop();
      removeDir(dir);
    }
  });
});
