// A lone client (engine-shard.ts "A lone client"): once 16 queries in a row were each
// posted with no other call in flight, the posting thread takes each reply from the
// worker's channel itself instead of waiting for its event loop to deliver it, except for
// one query in 8 (a probe for other clients); a query posted beside another resets that,
// and every answer is the same either way. The shard
// here waits up to 10 s in place, so a slow machine cannot make a wait run out before the
// worker answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EngineShard } from '../../src/engine/engine-shard.js';
import { DEFAULT_WORKER_DATA, type EngineQuery } from '../../src/engine/protocol.js';
import { RecordStore } from '../../src/engine/store/record-store.js';
import { removeDir, tempDataDir } from '../helpers/server.js';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

describe('EngineShard with a lone client', () => {
  const dir = tempDataDir();
  const shard = new EngineShard(quiet, DEFAULT_WORKER_DATA, 10_000);
  const query = (x: number): EngineQuery => ({ namespace: 'ns', topK: 3, dense: Float32Array.of(x, 1, 0), includeValues: false, includeMetadata: true });
  /** Runs `n` queries one after another; how many of their replies were taken in place. */
  const alone = async (n: number): Promise<number> => {
    const before = shard.repliesTakenInPlace;
    for (let i = 0; i < n; i++) await shard.query('lone', query(i), 0);
    return shard.repliesTakenInPlace - before;
  };

  before(async () => {
    const store = RecordStore.open(dir);
    try {
      for (let i = 0; i < 40; i++) store.upsert('ns', [{ id: `r${i}`, values: Float32Array.of(i, 1, -i / 3), metadata: { i } }]);
    } finally {
      store.close();
    }
    await shard.open('lone', dir, { dimension: 3, metric: 'cosine' }, 'lone');
  });
  after(async () => {
    await shard.stop();
    removeDir(dir);
  });

  it('takes replies in place from the 16th query alone in a row on, except one in 8', async () => {
    assert.equal(await alone(16), 0); // the 16th: the first of the streak's probes
    assert.equal(await alone(7), 7);
    assert.equal(await alone(1), 0); // the 24th: a probe
    assert.equal(await alone(1), 1);
  });

  it('ends the streak when a query is posted while a probe is in flight', async () => {
    assert.equal(await alone(6), 6); // 31 in a row
    const before = shard.repliesTakenInPlace;
    await Promise.all([shard.query('lone', query(1), 0), shard.query('lone', query(2), 0)]);
    assert.equal(shard.repliesTakenInPlace, before);
    assert.equal(await alone(16), 0);
    assert.equal(await alone(1), 1);
  });

  it("ends the streak when another worker's index is queried while a probe is in flight", async () => {
    const otherDir = tempDataDir();
    const other = new EngineShard(quiet, DEFAULT_WORKER_DATA, 10_000);
    try {
      await other.open('other', otherDir, { dimension: 3, metric: 'cosine' }, 'other', true);
      assert.equal(await alone(7), 6); // 18th to 24th in a row: the 24th is a probe
      assert.equal(await alone(7), 7); // 25th to 31st
      // The 32nd, a probe, with a query of the other worker's index beside it.
      const before = shard.repliesTakenInPlace + other.repliesTakenInPlace;
      await Promise.all([shard.query('lone', query(1), 0), other.query('other', query(2), 0)]);
      assert.equal(shard.repliesTakenInPlace + other.repliesTakenInPlace, before);
      assert.equal(await alone(15), 0);
      assert.equal(await alone(1), 0); // the 16th, a probe
      assert.equal(await alone(1), 1);
    } finally {
      await other.stop();
      removeDir(otherDir);
    }
  });

  it('answers a query whose reply it takes in place as it answers one delivered by the event loop', async () => {
    const inPlace = [];
    const taken = shard.repliesTakenInPlace;
    for (let i = 0; i < 6; i++) inPlace.push(await shard.query('lone', query(i * 3), 0));
    assert.equal(shard.repliesTakenInPlace - taken, 6);
    // The next is a probe; the pair beside it ends the streak, and pairs never start one.
    const looped = [];
    for (let i = 0; i < 6; i++) {
      const [a] = await Promise.all([shard.query('lone', query(i * 3), 0), shard.query('lone', query(0), 0)]);
      looped.push(a);
    }
    assert.equal(shard.repliesTakenInPlace - taken, 6);
    assert.deepEqual(inPlace, looped);
    assert.equal(inPlace[0].matches.length, 3);
    assert.ok(inPlace.every((a) => a.matches.every((m) => typeof m.metadataJson === 'string')));
  });
});
