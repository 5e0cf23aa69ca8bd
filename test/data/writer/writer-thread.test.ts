// The writer thread (issue 15): writes are parsed, validated and committed off the HTTP
// thread, and the engine learns of them on another port than the reads. These tests
// check what that must not change: a query sent after a write was acknowledged sees it
// (on two indexes, under concurrent writers, seeded random operations against a model),
// an upsert then a delete of one id end deleted, LSNs never go back, error messages are
// the same whichever thread parsed the body, and a writer thread that dies mid-write
// answers 503, comes back, and loses nothing that was committed.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { removeDir, startServer, type ApiResponse, type TestServer } from '../../helpers/server.js';
import { prng } from '../../helpers/prng.js';
import { createIndex, denseIndex, dp, fetchMap, upsert } from '../support.js';

const DIM = 8;
const WRITE_LSN = 'x-pinecone-request-lsn';
const READ_LSN = 'x-pinecone-max-indexed-lsn';
const FAULT_WRITER_CRASH_ID = '__conifer_fault_crash_writer_thread__';

const vectorOf = (i: number): number[] => Array.from({ length: DIM }, (_, j) => Math.cos(i * 3.7 + j) + (j === i % DIM ? 2 : 0));

function ok(res: ApiResponse, what: string): ApiResponse {
  assert.equal(res.status, 200, `${what}: ${res.status} ${res.text}`);
  return res;
}

const lsn = (res: ApiResponse, header: string): number => Number(res.headers.get(header));

/** Ids of the matches of a filtered query in the engine (its filter columns, not the store). */
async function matching(server: TestServer, host: string, filter: Record<string, unknown>): Promise<{ ids: string[]; lsn: number }> {
  const res = ok(await dp(server, host, 'POST', '/query', { body: { vector: vectorOf(0), topK: 100, filter } }), 'query');
  return { ids: (res.body.matches as { id: string }[]).map((m) => m.id).sort(), lsn: lsn(res, READ_LSN) };
}

// With two engine workers the two indexes are owned by different workers (the writer
// thread posts each index's changes on its own worker's port).
for (const workers of ['1', '2']) describe(`data plane: writes on the writer thread, ${workers} engine worker(s)`, () => {
  let server: TestServer;
  let hosts: string[];

  before(async () => {
    server = await startServer({ env: { CONIFER_ENGINE_WORKERS: workers } });
    hosts = [await createIndex(server, denseIndex('writer-a', DIM)), await createIndex(server, denseIndex('writer-b', DIM))];
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('concurrent writers on two indexes: every acknowledged write is seen by the next query, and LSNs never go back', async () => {
    // Each client owns its keys, so its model of them is exact; clients of both indexes
    // run at once, so reads are posted while other writes are between commit and engine.
    const CLIENTS_PER_INDEX = 4;
    const OPS = 30;
    const client = async (host: string, c: number): Promise<void> => {
      const rand = prng(1000 * hosts.indexOf(host) + c + 1);
      const model = new Map<string, number | null>(); // id -> version, null when deleted
      let lastReadLsn = 0;
      for (let op = 0; op < OPS; op++) {
        const id = `c${c}-k${Math.floor(rand() * 5)}`;
        const roll = rand();
        let writeLsn: number;
        if (roll < 0.5 || model.get(id) === undefined || model.get(id) === null) {
          const version = op;
          const res = ok(
            await dp(server, host, 'POST', '/vectors/upsert', {
              body: { vectors: [{ id, values: vectorOf(op + c), metadata: { key: id, version } }] },
            }),
            'upsert',
          );
          model.set(id, version);
          writeLsn = lsn(res, WRITE_LSN);
        } else if (roll < 0.75) {
          const version = op;
          const res = ok(await dp(server, host, 'POST', '/vectors/update', { body: { id, setMetadata: { version } } }), 'update');
          model.set(id, version);
          writeLsn = lsn(res, WRITE_LSN);
        } else {
          const res = ok(await dp(server, host, 'POST', '/vectors/delete', { body: { ids: [id] } }), 'delete');
          model.set(id, null);
          writeLsn = lsn(res, WRITE_LSN);
        }
        // The engine's filter columns must hold exactly the acknowledged state of the key.
        const seen = await matching(server, host, { key: { $eq: id } });
        const version = model.get(id);
        if (version === null) assert.deepEqual(seen.ids, [], `${id} was deleted (acknowledged at LSN ${writeLsn})`);
        else {
          assert.deepEqual(seen.ids, [id], `${id} was written (acknowledged at LSN ${writeLsn})`);
          const current = await matching(server, host, { key: { $eq: id }, version: { $eq: version } });
          assert.deepEqual(current.ids, [id], `${id} must be seen at version ${version}, the acknowledged one`);
        }
        assert.ok(seen.lsn >= writeLsn, `a read after a write reports LSN ${seen.lsn} >= the write's ${writeLsn}`);
        assert.ok(seen.lsn >= lastReadLsn, `reads never go back: ${seen.lsn} after ${lastReadLsn}`);
        lastReadLsn = seen.lsn;
      }
      // The store agrees with the model at the end (fetch reads the store, not the engine).
      const ids = [...model.keys()];
      const fetched = await fetchMap(server, host, ids);
      for (const [id, version] of model) {
        if (version === null) assert.equal(fetched[id], undefined, `${id} deleted`);
        else assert.equal(fetched[id]?.metadata?.version, version, `${id} at version ${version}`);
      }
    };
    await Promise.all(hosts.flatMap((host) => Array.from({ length: CLIENTS_PER_INDEX }, (_, c) => client(host, c))));
  });

  it('an upsert then a delete of the same id, repeated, ends as the last acknowledged write says', async () => {
    const host = hosts[0];
    for (let round = 0; round < 10; round++) {
      await upsert(server, host, [{ id: 'flip', values: vectorOf(round), metadata: { key: 'flip', round } }]);
      ok(await dp(server, host, 'POST', '/vectors/delete', { body: { ids: ['flip'] } }), 'delete');
      assert.deepEqual((await matching(server, host, { key: 'flip' })).ids, [], `round ${round}: deleted`);
      assert.deepEqual(await fetchMap(server, host, ['flip']), {});
      if (round % 2 === 0) {
        await upsert(server, host, [{ id: 'flip', values: vectorOf(round + 1), metadata: { key: 'flip', round } }]);
        assert.deepEqual((await matching(server, host, { key: 'flip', round })).ids, ['flip'], `round ${round}: upserted again`);
        ok(await dp(server, host, 'POST', '/vectors/delete', { body: { ids: ['flip'] } }), 'delete');
      }
    }
    assert.deepEqual((await matching(server, host, { key: 'flip' })).ids, []);
  });

  it('a body the writer thread parses is refused with the same message as one parsed on the HTTP thread', async () => {
    const host = hosts[1];
    const bad = '{"vectors": [';
    const viaWriter = await dp(server, host, 'POST', '/vectors/upsert', { rawBody: bad });
    const viaHttp = await dp(server, host, 'POST', '/vectors/update', { rawBody: bad });
    assert.equal(viaWriter.status, 400);
    assert.equal(viaWriter.body.code, 3);
    assert.equal(viaWriter.body.message, "request body is not valid JSON: Body is not valid JSON but content-type is set to 'application/json'");
    assert.equal(viaWriter.body.message, viaHttp.body.message);
    // Prototype poisoning is refused the same way as by the HTTP thread's parser.
    const poisonedBody = `{"vectors":[{"id":"p","values":${JSON.stringify(vectorOf(1))}}],"__proto__":{"x":1}}`;
    const poisoned = await dp(server, host, 'POST', '/vectors/upsert', { rawBody: poisonedBody });
    assert.equal(poisoned.status, 400);
    assert.match(poisoned.body.message, /"__proto__" key/);
    assert.equal(poisoned.body.message, (await dp(server, host, 'POST', '/vectors/update', { rawBody: poisonedBody })).body.message);
    assert.deepEqual(await fetchMap(server, host, ['p']), {});
    // An empty body means {} (decision 13), validated as before.
    const empty = await dp(server, host, 'POST', '/vectors/upsert', { rawBody: '' });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.message, 'vectors must be an array of vectors, got undefined');
    const none = await dp(server, host, 'POST', '/vectors/upsert', { contentType: null });
    assert.equal(none.status, 400);
    assert.equal(none.body.message, 'request body must be an object, got undefined');
    // Field-level messages come from the same validation code.
    const wrongDim = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [{ id: 'd', values: [1, 2] }] } });
    assert.equal(wrongDim.status, 400);
    assert.equal(wrongDim.body.message, 'vectors[0].values: vector dimension 2 does not match the dimension of the index 8');
  });
});

describe('data plane: the writer thread fails', () => {
  let server: TestServer;

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('a write in flight answers 503 with Retry-After; writes resume, and what was committed is searchable', async () => {
    server = await startServer({ env: { CONIFER_FAULT_INJECTION: '1' } });
    const host = await createIndex(server, denseIndex('writer-crash', DIM));
    await upsert(server, host, [{ id: 'before', values: vectorOf(1), metadata: { key: 'before' } }]);
    // The engine has loaded the index (so what follows reaches it through the writer, not a load).
    assert.deepEqual((await matching(server, host, { key: 'before' })).ids, ['before']);
    // The writer thread commits this batch, then dies before it posts it to the engine or answers.
    const crashed = await dp(server, host, 'POST', '/vectors/upsert', {
      body: { vectors: [{ id: FAULT_WRITER_CRASH_ID, values: vectorOf(2), metadata: { key: 'crash' } }, { id: 'with-crash', values: vectorOf(3), metadata: { key: 'crash' } }] },
    });
    assert.equal(crashed.status, 503, crashed.text);
    assert.equal(crashed.body.error.code, 'UNAVAILABLE');
    assert.equal(crashed.headers.get('retry-after'), '1');
    // A new writer thread starts (bounded wait); until then writes answer 503.
    let res: ApiResponse | undefined;
    for (let i = 0; i < 100; i++) {
      res = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [{ id: 'after', values: vectorOf(4), metadata: { key: 'after' } }] } });
      if (res.status !== 503) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(res?.status, 200, res?.text);
    // Acknowledged before the crash: still there. Committed by the dead thread: the engine caught up from the store.
    assert.deepEqual((await matching(server, host, { key: 'before' })).ids, ['before']);
    assert.deepEqual((await matching(server, host, { key: 'crash' })).ids, [FAULT_WRITER_CRASH_ID, 'with-crash'].sort());
    assert.deepEqual((await matching(server, host, { key: 'after' })).ids, ['after']);
    assert.deepEqual(Object.keys(await fetchMap(server, host, ['before', 'with-crash', 'after'])).sort(), ['after', 'before', 'with-crash']);
    assert.match(server.output(), /writer thread failed; restarting it/);
    assert.match(server.output(), /applied committed changes a failed writer thread had not posted/);
  });
});
