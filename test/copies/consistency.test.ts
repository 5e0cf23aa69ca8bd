// A copy is exactly the records committed when it began (issue 4, "Done when"): while a
// sequential stream of single-record upserts r000001, r000002, … runs, a backup (and a
// collection) is created. With m = writes acknowledged before the create request was sent
// and M = writes acknowledged before its 201 arrived, the copy — restored into a new
// index — holds exactly {r1 … rk} for some m ≤ k ≤ M + 1: no gaps, nothing later. (M + 1:
// the write in flight when the 201 arrived may have committed before the copy began, its
// own answer arriving after the 201; the writer awaits each upsert, so only one can be.)
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, type ApiResponse, type TestServer } from '../helpers/server.js';
import { stopAndClean } from '../server/support.js';
import {
  createIndex,
  fetchRecords,
  firstK,
  listAllIds,
  pad,
  podIndex,
  poll,
  restore,
  serverlessIndex,
  vec,
  waitBackup,
  waitCollection,
  waitIndexReady,
} from './copies-support.js';

const DIM = 4;
const PREFIX = 'r';

interface StreamResult {
  m: number;
  M: number;
  res: ApiResponse;
  written: number;
}

/**
 * Starts a sequential writer of r000001… into `host` (each upsert awaited), waits until
 * `warmup` are acknowledged, sends `create()`, keeps writing `tail` more after its answer,
 * then stops the writer.
 */
async function duringStream(
  server: TestServer,
  host: string,
  create: () => Promise<ApiResponse>,
  warmup = 60,
  tail = 40,
): Promise<StreamResult> {
  let acked = 0;
  let stop = false;
  let failure: string | undefined;
  const writer = (async () => {
    for (let i = 1; !stop && i < 100_000; i++) {
      const r = await api(server, 'POST', `${host}/vectors/upsert`, {
        body: { vectors: [{ id: `${PREFIX}${pad(i)}`, values: vec(i, DIM), metadata: { i } }] },
      });
      if (r.status !== 200) {
        failure = `upsert ${i} → ${r.status}: ${r.text}`;
        return;
      }
      acked = i;
    }
  })();
  await poll('the writer to warm up', async () => acked, (n) => n >= warmup || failure !== undefined);
  const m = acked;
  const res = await create();
  const M = acked;
  const target = M + tail;
  await poll('the writer to go on after the 201', async () => acked, (n) => n >= target || failure !== undefined);
  stop = true;
  await writer;
  assert.equal(failure, undefined, failure);
  return { m, M, res, written: acked };
}

/** Asserts that `host` (namespace "") holds exactly r1…rk for m ≤ k ≤ M + 1, with their values; returns k. */
async function assertPrefix(server: TestServer, host: string, m: number, M: number): Promise<number> {
  const ids = (await listAllIds(server, host)).sort();
  const k = ids.length;
  assert.ok(k >= m && k <= M + 1, `the copy holds ${k} records; expected between m=${m} and M+1=${M + 1}`);
  assert.deepEqual(ids, firstK(PREFIX, k), `the copy holds exactly r1…r${k} (no gaps)`);
  const sample = [ids[0], ids[Math.floor(k / 2)], ids[k - 1]];
  const got = await fetchRecords(server, host, sample);
  for (const id of sample) {
    const i = Number(id.slice(PREFIX.length));
    assert.deepEqual(got.get(id)?.values, vec(i, DIM), `values of ${id}`);
    assert.deepEqual(got.get(id)?.metadata, { i }, `metadata of ${id}`);
  }
  return k;
}

describe('copies are point-in-time during a stream of writes', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });

  after(async () => {
    await stopAndClean(server);
  });

  it('a backup holds exactly r1…rk with m ≤ k ≤ M + 1, and its 201 record_count is k', async () => {
    const idx = await createIndex(server, serverlessIndex('stream-sl', DIM));
    const { m, M, res, written } = await duringStream(server, idx.host, () =>
      api(server, 'POST', '/indexes/stream-sl/backups', { body: { name: 'mid-stream' } }),
    );
    assert.equal(res.status, 201, res.text);
    assert.ok(written > M, 'writes went on after the 201');
    const count = res.body.record_count as number;
    assert.ok(count >= m && count <= M + 1, `record_count ${count} outside [${m}, ${M + 1}]`);
    const ready = await waitBackup(server, res.body.backup_id);
    assert.equal(ready.status, 'Ready');
    assert.equal(ready.record_count, count);
    const [, restored] = await restore(server, res.body.backup_id, 'stream-restored');
    const k = await assertPrefix(server, restored.host, m, M);
    assert.equal(k, count, 'the restored index holds record_count records');
    console.log(`backup: m=${m} k=${k} M=${M} (written ${written})`);
  });

  it('a backup taken later in a stream (longer warm-up, second index) holds an exact prefix too', async () => {
    const idx = await createIndex(server, serverlessIndex('stream-sl2', DIM));
    const { m, M, res } = await duringStream(
      server,
      idx.host,
      () => api(server, 'POST', '/indexes/stream-sl2/backups', { body: {} }),
      150,
      20,
    );
    assert.equal(res.status, 201, res.text);
    assert.equal((await waitBackup(server, res.body.backup_id)).status, 'Ready');
    const [, restored] = await restore(server, res.body.backup_id, 'stream-restored2');
    const k = await assertPrefix(server, restored.host, m, M);
    assert.equal(k, res.body.record_count);
  });

  it('a collection holds exactly r1…rk with m ≤ k ≤ M + 1 (vector_count k)', async () => {
    const idx = await createIndex(server, podIndex('stream-pod', DIM));
    const { m, M, res, written } = await duringStream(server, idx.host, () =>
      api(server, 'POST', '/collections', { body: { name: 'mid-stream', source: 'stream-pod' } }),
    );
    assert.equal(res.status, 201, res.text);
    const ready = await waitCollection(server, 'mid-stream');
    assert.equal(ready.status, 'Ready');
    const count = ready.vector_count as number;
    assert.ok(count >= m && count <= M + 1, `vector_count ${count} outside [${m}, ${M + 1}]`);
    const made = await createIndex(server, podIndex('stream-from-coll', DIM, { source_collection: 'mid-stream' }));
    await waitIndexReady(server, 'stream-from-coll');
    const k = await assertPrefix(server, made.host, m, M);
    assert.equal(k, count);
    console.log(`collection: m=${m} k=${k} M=${M} (written ${written})`);
  });
});
