// The engine worker's memory release (src/engine/worker/quiet-release.ts): once per quiet
// period after work, never during a stream of work or of activity after it, never for
// activity alone, one at a time, never after stop();
// and the native calls it makes hand freed memory back to the operating system.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { QuietRelease } from '../../src/engine/worker/quiet-release.js';
import { nativeAddon } from '../../src/engine/native-addon.js';

describe('QuietRelease', () => {
  it('releases once after the work stops, not while it streams, not after stop()', async () => {
    let releases = 0;
    const errors: unknown[] = [];
    const quiet = new QuietRelease((err) => errors.push(err), async () => releases++, 60);
    // Work every 15 ms for ~300 ms: the quiet period (60 ms) never passes.
    for (let i = 0; i < 20; i++) {
      quiet.noteWork();
      await sleep(15);
    }
    assert.equal(releases, 0, 'no release while work keeps coming');
    await sleep(200);
    assert.equal(releases, 1, 'one release once it stops');
    await sleep(200);
    assert.equal(releases, 1, 'and not again without work');
    quiet.noteWork();
    await sleep(200);
    assert.equal(releases, 2, 'the next burst earns the next release');
    quiet.noteWork();
    quiet.stop();
    await sleep(200);
    assert.equal(releases, 2, 'stop() cancels a pending release');
    assert.deepEqual(errors, []);
  });

  it('activity alone earns no release, and postpones one that work earned', async () => {
    let releases = 0;
    const quiet = new QuietRelease(() => undefined, async () => releases++, 60);
    // Activity every 15 ms for ~300 ms, with no work before it.
    for (let i = 0; i < 20; i++) {
      quiet.noteActivity();
      await sleep(15);
    }
    await sleep(200);
    assert.equal(releases, 0, 'activity alone never releases');
    // Work, then activity every 15 ms for ~300 ms: the release waits until both stop.
    quiet.noteWork();
    for (let i = 0; i < 20; i++) {
      await sleep(15);
      quiet.noteActivity();
    }
    assert.equal(releases, 0, 'no release while activity keeps coming after the work');
    await sleep(200);
    assert.equal(releases, 1, 'the release once it stops too');
    quiet.noteActivity();
    await sleep(200);
    assert.equal(releases, 1, 'activity after a release earns no other');
    quiet.stop();
  });

  it('runs one release at a time and reports a failed one', async () => {
    let running = 0;
    let most = 0;
    let calls = 0;
    const errors: unknown[] = [];
    const quiet = new QuietRelease((err) => errors.push(err), async () => {
      calls++;
      running++;
      most = Math.max(most, running);
      await sleep(150);
      running--;
      if (calls === 1) throw new Error('no memory to give');
    }, 20);
    quiet.noteWork();
    await sleep(60); // the first release is running
    quiet.noteWork(); // its timer fires while the first still runs: waits for it
    await sleep(400);
    assert.equal(most, 1, 'never two at once');
    assert.equal(calls, 2, 'the work noted during a release gets its own release after it');
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]), /no memory to give/);
  });

  it('the native release returns freed heap memory to the operating system', () => {
    assert.ok(nativeAddon, 'the native addon is built');
    // A child process, so this process's heap does not blur the figure: it frees 200
    // MiB of 256 KiB blocks and reports its RSS before and after the release. The blocks
    // come from malloc's heap, not mmap (a freed 16 MiB block first raises glibc's mmap
    // threshold past them), and one block allocated after them stays, so free() cannot
    // give the space back by itself by lowering the heap's top: only a release can.
    const script = `
      const addon = require(${JSON.stringify(new URL('../../../build/Release/conifer_native.node', import.meta.url).pathname)});
      const rss = () => Number(require('fs').readFileSync('/proc/self/statm', 'utf8').split(' ')[1]) * 4096;
      let big = Buffer.alloc(16 * 2 ** 20, 1); big = null; globalThis.gc();
      let blocks = Array.from({ length: 800 }, () => Buffer.alloc(256 * 1024, 1));
      const pin = Buffer.alloc(256 * 1024, 1);
      blocks = null; globalThis.gc(); globalThis.gc();
      const before = rss();
      addon.releaseFreeMemory().then((released) => console.log(JSON.stringify({ released, before, after: rss(), pinned: pin.length })));`;
    const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const { released, before, after } = JSON.parse(child.stdout) as { released: boolean; before: number; after: number };
    assert.equal(released, true);
    assert.ok(before - after > 100 * 2 ** 20, `RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB`);
  });

  it('the isolate release shrinks a worker thread\'s grown young generation', async () => {
    // Left alone, an idle worker keeps its young generation at the size it grew to (32
    // MiB here); after the call V8 collects incrementally and shrinks it within a second.
    const addonPath = new URL('../../../build/Release/conifer_native.node', import.meta.url).pathname;
    const source = `
      const { parentPort } = require('node:worker_threads');
      const v8 = require('node:v8');
      const addon = require(${JSON.stringify(addonPath)});
      const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
      let keep = [];
      for (let i = 0; i < 200000; i++) {
        keep.push({ a: i, b: 'x' + i, c: [i, i] });
        if (keep.length > 50000) keep = [];
      }
      keep = null;
      const grown = newSpace();
      addon.releaseIsolateMemory();
      setTimeout(() => parentPort.postMessage({ grown, later: newSpace() }), 1500);`;
    const worker = new Worker(source, { eval: true });
    try {
      const { grown, later } = await new Promise<{ grown: number; later: number }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      assert.ok(grown >= 16 * 2 ** 20, `the young generation grew: ${(grown / 2 ** 20).toFixed(1)} MiB`);
      assert.ok(later <= 4 * 2 ** 20, `and shrank after the call: ${(later / 2 ** 20).toFixed(1)} MiB`);
    } finally {
      await worker.terminate();
    }
  });
});
