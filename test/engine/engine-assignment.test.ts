// How EngineClient (src/engine/engine-client.ts) assigns indexes to engine workers: a new
// worker while fewer than the configured number run and the least-loaded one owns an
// index, else the worker owning the fewest bytes, then the fewest indexes (the
// lowest-numbered on a tie); a closed index frees its place. IndexRegistry.recover
// assigns the largest first. Real worker threads; only the last tests load indexes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineClient, type EngineLog } from '../../src/engine/engine-client.js';
import { RecordStore } from '../../src/engine/store/record-store.js';

const quiet: EngineLog = { info: () => {}, warn: () => {}, error: () => {} };

test('indexes go to new workers up to the limit, then to the least-loaded; closing frees a place', async () => {
  const engine = new EngineClient(quiet, 3);
  try {
    assert.deepEqual(['a', 'b', 'c'].map((id) => engine.shardOf(id)), [0, 1, 2]);
    assert.equal(engine.workers, 3);
    assert.equal(engine.shardOf('d'), 0); // all own one: the lowest-numbered
    assert.equal(engine.shardOf('b'), 1, 'an assignment stays');
    await engine.close('b');
    await engine.close('b'); // closing twice releases the place once
    assert.equal(engine.shardOf('e'), 1); // owned [2, 0, 1]: worker 1 owns fewest
    assert.equal(engine.shardOf('f'), 1); // owned [2, 1, 1]: the lower of 1 and 2
    assert.equal(engine.shardOf('g'), 2); // owned [2, 2, 1]
    await engine.close('a');
    await engine.close('d');
    assert.equal(engine.shardOf('h'), 0); // owned [0, 2, 2]
    assert.equal(engine.workers, 3, 'never more workers than configured');
  } finally {
    await engine.stop();
  }
});

test('indexes go to the worker holding the fewest bytes, so a start loads in parallel what it can', async () => {
  const engine = new EngineClient(quiet, 2);
  try {
    // The sizes of the medium bench's restart (dense, hybrid, sparse), largest first as
    // recover() opens them: the two large ones on separate workers.
    assert.equal(engine.shardOf('hybrid', 350), 0);
    assert.equal(engine.shardOf('dense', 300), 1);
    assert.equal(engine.shardOf('sparse', 120), 1); // bytes [350, 300]
    assert.equal(engine.shardOf('small', 10), 0); // bytes [350, 420], though worker 1 owns more
    await engine.close('hybrid');
    assert.equal(engine.shardOf('next', 0), 0); // bytes [10, 420]: closing released its bytes
    assert.equal(engine.shardOf('dense', 9999), 1, 'an assignment stays whatever the bytes');
  } finally {
    await engine.stop();
  }
});

test('a second worker starts only once the first owns an index', async () => {
  const engine = new EngineClient(quiet, 2);
  try {
    assert.equal(engine.workers, 1);
    assert.equal(engine.shardOf('a'), 0);
    await engine.close('a');
    assert.equal(engine.shardOf('b'), 0, 'the first worker owns nothing again: no new worker');
    assert.equal(engine.workers, 1);
    assert.equal(engine.shardOf('c'), 1);
    assert.equal(engine.workers, 2);
  } finally {
    await engine.stop();
  }
});

test('the workers for the indexes a start expects start at once, at most the configured number', async () => {
  const engine = new EngineClient(quiet, 3, undefined, 2);
  const capped = new EngineClient(quiet, 2, undefined, 5);
  try {
    assert.equal(engine.workers, 2);
    assert.equal(capped.workers, 2);
    // Started idle, each is the least loaded until it owns an index: the same assignment
    // as starting them on demand.
    assert.deepEqual(['a', 'b', 'c'].map((id) => engine.shardOf(id)), [0, 1, 2]);
    assert.equal(engine.workers, 3);
    assert.deepEqual(['a', 'b', 'c'].map((id) => capped.shardOf(id)), [0, 1, 0]);
  } finally {
    await engine.stop();
    await capped.stop();
  }
});

test('a worker started later reports its snapshots too (tombstone compaction waits for them)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conifer-engine-assignment-'));
  const engine = new EngineClient(quiet, 2);
  const snapshots: string[] = [];
  try {
    const store = RecordStore.open(dir);
    store.upsert('ns', [{ id: 'r1', values: Float32Array.of(1, 0) }, { id: 'r2', values: Float32Array.of(0, 1) }]);
    store.close();
    // Set at start, as IndexRegistry does, while only the first worker runs.
    engine.onSnapshot = (indexId) => snapshots.push(indexId);
    assert.equal(engine.shardOf('a'), 0);
    assert.equal(engine.shardOf('b'), 1, 'b is on the second worker, started after onSnapshot was set');
    await engine.open('b', dir, { dimension: 2, metric: 'cosine' });
  } finally {
    // Stopping writes the snapshot of every index with changes since its last one.
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(snapshots, ['b']);
});
