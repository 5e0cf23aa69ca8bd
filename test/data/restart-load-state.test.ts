// After a restart the server listens before its indexes are loaded; meanwhile the data
// plane answers 503. The index record (describe and list, under the 2026-04 and 2026-07
// models) must say what the data plane does: Initializing and ready:false until the index
// can serve, then Ready (DESIGN.md decision 10, issue 10).
//
// No timing is assumed: the test alternates "read every record form, then call the data
// plane" until the data plane serves. Loading only ever finishes, so a record read before
// a 503 must say Initializing, and a record read after a 200 must say Ready. The index is
// big enough that the load is seen (at least one 503), which the test also checks.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, api, tempDataDir, type TestServer } from '../helpers/server.js';
import { createIndex, denseIndex, upsert, type Vec } from './support.js';

const RECORDS = 12_000;
const DIMENSION = 64;
const BATCH = 1000;

interface Seen {
  label: string;
  status: { ready: boolean; state: string };
}

describe('index state while an index loads after a restart', () => {
  const dataDir = tempDataDir();
  let server: TestServer | undefined;

  before(async () => {
    server = await startServer({ dataDir });
    const host = await createIndex(server, denseIndex('loads', DIMENSION));
    for (let b = 0; b < RECORDS / BATCH; b++) {
      const vectors: Vec[] = Array.from({ length: BATCH }, (_, i) => ({
        id: `r${b}-${i}`,
        values: Array.from({ length: DIMENSION }, (_, j) => ((i * 7 + j * 13 + b) % 97) / 97 + 0.01),
        metadata: { b, i },
      }));
      await upsert(server, host, vectors);
    }
  });

  after(async () => {
    await server?.stop();
    removeDir(dataDir);
  });

  /** Every form of the record: describe and list, under 2026-04 and 2026-07. */
  async function records(s: TestServer): Promise<Seen[]> {
    const seen: Seen[] = [];
    for (const version of ['2026-04', '2026-07']) {
      const one = await api(s, 'GET', '/indexes/loads', { version });
      assert.equal(one.status, 200, one.text);
      seen.push({ label: `describe ${version}`, status: one.body.status });
      const all = await api(s, 'GET', '/indexes', { version });
      assert.equal(all.status, 200, all.text);
      const listed = all.body.indexes.find((i: { name: string }) => i.name === 'loads');
      seen.push({ label: `list ${version}`, status: listed.status });
    }
    return seen;
  }

  it('says Initializing (ready false) while the data plane answers 503, then Ready', async () => {
    await server!.stop();
    server = await startServer({ dataDir });
    const s = server;
    // The host carries the new port (taken from the Host header).
    const host = `${s.url}/svc/${(await api(s, 'GET', '/indexes/loads')).body.host.split('/svc/')[1]}`;

    let unavailable = 0;
    let served = false;
    for (let i = 0; i < 2000 && !served; i++) {
      const before = await records(s);
      const data = await api(s, 'POST', `${host}/describe_index_stats`, { body: {} });
      if (data.status === 503) {
        unavailable++;
        assert.equal(data.body.code, 14, data.text);
        for (const r of before) {
          assert.deepEqual(r.status, { ready: false, state: 'Initializing' }, `${r.label} before a 503`);
        }
      } else {
        assert.equal(data.status, 200, data.text);
        assert.equal(data.body.totalVectorCount, RECORDS);
        served = true;
      }
    }
    assert.ok(served, 'the index never became servable');
    assert.ok(unavailable > 0, 'the load was not observed: the data plane never answered 503');
    for (const r of await records(s)) {
      assert.deepEqual(r.status, { ready: true, state: 'Ready' }, `${r.label} once the data plane serves`);
    }
  });
});
