// A full data volume never takes the server down (issue 11). The data directory lives
// on a tmpfs of a few MiB: writes fill it until the server answers 507, a file eats the
// rest, and then reads, deletes and a restart must still work, new writes must resume
// once space is back (no restart), and every acknowledged record must still be there.
import assert from 'node:assert/strict';
import { existsSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, removeDir, startServer, tempDataDir, type ApiResponse, type TestServer } from '../helpers/server.js';
import { fillVolume, mountSmallVolume, type SmallVolume } from '../helpers/small-volume.js';
import { prng } from '../helpers/prng.js';
import { createIndex, denseIndex, dp, fetchQuery } from '../data/support.js';

// Records are mostly metadata (8 KB each), so a few MiB fill with a few hundred records
// and the checks that fetch every record stay quick.
const DIMENSION = 8;
const BATCH = 50;
const PAD = 'x'.repeat(8000);
const MiB = 1024 * 1024;

const volume = mountSmallVolume(40);
const skip = 'skip' in volume ? volume.skip : false;
if (skip) console.log(`# ${skip}`);

type Stored = Map<string, number[]>;

function batch(rand: () => number, from: number, prefix: string): { id: string; values: number[]; metadata: object }[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    id: `${prefix}${from + i}`,
    // Three decimals: printed back exactly as sent (decision 8)
    values: Array.from({ length: DIMENSION }, () => Math.round(rand() * 2000 - 1000) / 1000 || 0.5),
    metadata: { n: from + i, pad: PAD },
  }));
}

function assertDiskFull(res: ApiResponse, plane: 'data' | 'control'): void {
  assert.equal(res.status, 507, res.text);
  assert.equal(res.body.status, 507);
  assert.equal(res.body.error.code, 'INSUFFICIENT_STORAGE');
  assert.match(res.body.error.message, /disk is full/);
  if (plane === 'data') {
    assert.equal(res.body.code, 8); // gRPC RESOURCE_EXHAUSTED
    assert.equal(res.body.message, res.body.error.message);
  } else {
    assert.equal(res.body.code, undefined);
  }
}

/** Every acknowledged record is fetchable with the values that were sent. */
async function assertAllStored(server: TestServer, host: string, stored: Stored, namespace: string): Promise<void> {
  const ids = [...stored.keys()];
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    const res = await dp(server, host, 'GET', fetchQuery(chunk, namespace));
    assert.equal(res.status, 200, res.text);
    for (const id of chunk) {
      assert.deepEqual(res.body.vectors[id]?.values, stored.get(id), `record ${id} lost`);
    }
  }
}

const freeBytes = (dir: string): number => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};

describe('a full data volume', { skip }, () => {
  const vol = volume as SmallVolume;
  const dataDir = join(vol.dir ?? '', 'data');
  const eater = join(vol.dir ?? '', 'eater');
  // The reserve must cover a record store's checkpoint (up to 8 MiB of WAL, see disk-space.ts).
  const env = { CONIFER_MIN_FREE_BYTES: String(12 * MiB), CONIFER_DISK_RESERVE_BYTES: String(12 * MiB) };
  const rand = prng(11);
  const stored: Stored = new Map();
  const scratch: Stored = new Map();
  let server: TestServer;
  let host: string;

  before(async () => {
    server = await startServer({ dataDir, env });
    host = await createIndex(server, denseIndex('full', DIMENSION));
  });
  after(async () => {
    await server?.stop();
    vol.unmount();
  });

  it('writes the disk reserve while space is plentiful', async () => {
    // Written in the background at start; bounded wait.
    for (let i = 0; i < 100 && !existsSync(join(dataDir, 'disk-reserve')); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(join(dataDir, 'disk-reserve')));
  });

  it('answers 507 INSUFFICIENT_STORAGE once upserts fill the volume, and keeps running', async () => {
    let refused: ApiResponse | undefined;
    // 40 MiB hold about 40 batches of 50 records of 8 KB; bounded either way.
    for (let n = 0; n < 400 && !refused; n++) {
      const namespace = n % 4 === 0 ? 'scratch' : 'main';
      const vectors = batch(rand, n * BATCH, namespace === 'main' ? 'm' : 's');
      const res = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors, namespace } });
      if (res.status === 200) {
        for (const v of vectors) (namespace === 'main' ? stored : scratch).set(v.id, v.values);
      } else {
        refused = res;
      }
    }
    assert.ok(refused, 'the volume never filled');
    assertDiskFull(refused, 'data');
    assert.ok(stored.size > 0 && scratch.size > 0);
    assert.equal(server.proc.exitCode, null);
  });

  it('refuses writes and creates no index, but serves reads, when nothing is left free', async () => {
    fillVolume(eater);
    assert.ok(freeBytes(vol.dir) < 64 * 1024, `volume not full: ${freeBytes(vol.dir)} bytes free`);

    const up = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: batch(rand, 0, 'late'), namespace: 'main' } });
    assertDiskFull(up, 'data');
    // The store's checkpoint cuts its WAL back to 8 MiB (journal_size_limit) and gives the
    // rest to the volume, enough for the next writes: fill what it gave back, and wait out
    // the free-space figure the guard measured meanwhile (it is kept for up to 1 s).
    fillVolume(eater);
    assert.ok(freeBytes(vol.dir) < 64 * 1024, `volume not full: ${freeBytes(vol.dir)} bytes free`);
    await new Promise((r) => setTimeout(r, 1100));
    const update = await dp(server, host, 'POST', '/vectors/update', {
      body: { id: [...stored.keys()][0], setMetadata: { more: 'x' }, namespace: 'main' },
    });
    assertDiskFull(update, 'data');
    assertDiskFull(await api(server, 'POST', '/indexes', { body: denseIndex('another', 4) }), 'control');

    const query = await dp(server, host, 'POST', '/query', {
      body: { vector: stored.values().next().value, topK: 3, namespace: 'main' },
    });
    assert.equal(query.status, 200, query.text);
    assert.equal(query.body.matches.length, 3);
    await assertAllStored(server, host, stored, 'main');

    assert.equal(server.proc.exitCode, null);
  });

  it('restarts on the full volume and serves reads', async () => {
    assert.equal(await server.stop(), 0);
    // A clean stop checkpoints and removes the WAL files; eat what that gave back too, so
    // the server really starts with nothing free.
    fillVolume(`${eater}-2`);
    assert.ok(freeBytes(vol.dir) < 64 * 1024, `volume not full: ${freeBytes(vol.dir)} bytes free`);
    server = await startServer({ dataDir, env });
    let ready = await api(server, 'GET', '/ready');
    for (let i = 0; i < 100 && ready.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ready = await api(server, 'GET', '/ready');
    }
    assert.equal(ready.status, 200, ready.text);
    // The start found no room and released the reserve, which is what let the catalog open.
    assert.equal(existsSync(join(dataDir, 'disk-reserve')), false);
    host = host.replace(/^http:\/\/[^/]+/, server.url);
    const list = await api(server, 'GET', '/indexes');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.indexes.map((i: { name: string }) => i.name),
      ['full'],
    );
    await assertAllStored(server, host, stored, 'main');
    assertDiskFull(
      await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: batch(rand, 0, 'late'), namespace: 'main' } }),
      'data',
    );
  });

  it('deletes by id and whole namespaces on the full volume', async () => {
    const doomed = [...stored.keys()].slice(0, 10);
    const del = await dp(server, host, 'POST', '/vectors/delete', { body: { ids: doomed, namespace: 'main' } });
    assert.equal(del.status, 200, del.text);
    for (const id of doomed) stored.delete(id);
    const gone = await dp(server, host, 'GET', fetchQuery(doomed, 'main'));
    assert.deepEqual(gone.body.vectors, {});
    const drop = await dp(server, host, 'POST', '/vectors/delete', { body: { deleteAll: true, namespace: 'scratch' } });
    assert.equal(drop.status, 200, drop.text);
    scratch.clear();
    assert.equal(server.proc.exitCode, null);
  });

  it('a second server on the same data directory is still refused (the lock holds without writing)', async () => {
    await assert.rejects(startServer({ dataDir, env }), /in use by another Conifer process/);
  });

  it('resumes writes without a restart once space is freed, and lost nothing acknowledged', async () => {
    rmSync(eater);
    rmSync(`${eater}-2`);
    const vectors = batch(rand, 0, 'after');
    let res: ApiResponse | undefined;
    // Free space is re-measured within about a second; bounded wait.
    for (let i = 0; i < 50; i++) {
      res = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors, namespace: 'main' } });
      if (res.status !== 507) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(res?.status, 200, res?.text);
    for (const v of vectors) stored.set(v.id, v.values);
    const created = await api(server, 'POST', '/indexes', { body: denseIndex('another', 4) });
    assert.equal(created.status, 201, created.text);

    await assertAllStored(server, host, stored, 'main');
    const stats = await dp(server, host, 'POST', '/describe_index_stats', { body: {} });
    assert.equal(stats.body.totalRecordCount, stored.size);
    assert.equal(server.proc.exitCode, null);
  });
});

describe('a full data volume without headroom (threshold and reserve off)', { skip }, () => {
  let vol: SmallVolume;
  let server: TestServer;
  before(async () => {
    // A volume of its own: the first group's may still be unmounting.
    const v = mountSmallVolume(8);
    assert.ok(!('skip' in v), 'skip' in v ? v.skip : '');
    vol = v;
    server = await startServer({
      dataDir: join(vol.dir, 'data'),
      env: { CONIFER_MIN_FREE_BYTES: '0', CONIFER_DISK_RESERVE_BYTES: '0' },
    });
  });
  after(async () => {
    await server?.stop();
    vol?.unmount();
  });

  it('maps SQLite running out of space to 507 and keeps serving; creating an index is a 507, not a crash', async () => {
    const host = await createIndex(server, denseIndex('tiny', DIMENSION));
    const rand = prng(12);
    const stored: Stored = new Map();
    let refused: ApiResponse | undefined;
    for (let n = 0; n < 400 && !refused; n++) {
      const vectors = batch(rand, n * BATCH, 'r');
      const res = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors } });
      if (res.status === 200) for (const v of vectors) stored.set(v.id, v.values);
      else refused = res;
    }
    assert.ok(refused, 'the volume never filled');
    assertDiskFull(refused, 'data');
    assert.match(refused.body.error.message, /nothing changed/); // SQLite's failure, mapped
    fillVolume(join(vol.dir, 'eater'));
    // Without headroom the catalog's own write fails: it must be a 507, never a crash.
    assertDiskFull(await api(server, 'POST', '/indexes', { body: denseIndex('other', 4) }), 'control');
    assert.equal(server.proc.exitCode, null);
    await assertAllStored(server, host, stored, '');
    assert.equal((await api(server, 'GET', '/indexes')).body.indexes.length, 1);
    assert.equal(server.proc.exitCode, null);
  });
});

describe('the free-space threshold (any volume, no mount needed)', () => {
  let server: TestServer;
  let host: string;
  const dataDir = tempDataDir();
  before(async () => {
    const first = await startServer({ dataDir });
    host = await createIndex(first, denseIndex('kept', 2));
    const res = await dp(first, host, 'POST', '/vectors/upsert', {
      body: { vectors: [{ id: 'a', values: [0.5, 0.25] }, { id: 'b', values: [0.25, 0.5] }] },
    });
    assert.equal(res.status, 200, res.text);
    await first.stop();
    // No volume has 4 PiB free: every growing write is below the threshold.
    server = await startServer({ dataDir, env: { CONIFER_MIN_FREE_BYTES: String(2 ** 52), CONIFER_DISK_RESERVE_BYTES: '0' } });
    host = host.replace(/^http:\/\/[^/]+/, server.url);
    // Reads answer 503 until recovery has loaded the index; what is checked below is the threshold, not the load.
    for (let i = 0; i < 600 && (await api(server, 'GET', '/ready', { key: null })).status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => {
    await server.stop();
    removeDir(dataDir);
  });

  it('refuses every write that adds data with 507 naming the setting, and nothing else', async () => {
    const refusals: ApiResponse[] = [
      await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [{ id: 'c', values: [1, 1] }] } }),
      await dp(server, host, 'POST', '/vectors/update', { body: { id: 'a', values: [1, 1] } }),
      await dp(server, host, 'POST', '/namespaces', { body: { name: 'fresh' } }),
    ];
    for (const res of refusals) {
      assertDiskFull(res, 'data');
      assert.match(res.body.error.message, /CONIFER_MIN_FREE_BYTES/);
    }
    assertDiskFull(await api(server, 'POST', '/indexes', { body: denseIndex('new', 2) }), 'control');
    assertDiskFull(await api(server, 'POST', '/indexes/kept/backups', { body: { name: 'b1' } }), 'control');

    const fetched = await dp(server, host, 'GET', fetchQuery(['a', 'b']));
    assert.deepEqual(fetched.body.vectors.a.values, [0.5, 0.25]);
    const query = await dp(server, host, 'POST', '/query', { body: { vector: [0.5, 0.25], topK: 1 } });
    assert.equal(query.status, 200, query.text);
    assert.equal(query.body.matches[0].id, 'a');
    const del = await dp(server, host, 'POST', '/vectors/delete', { body: { ids: ['b'] } });
    assert.equal(del.status, 200, del.text);
    const patch = await api(server, 'PATCH', '/indexes/kept', { body: { tags: { env: 'test' } } });
    assert.equal(patch.status, 202, patch.text);
    assert.equal((await api(server, 'DELETE', '/indexes/kept')).status, 202);
  });
});
