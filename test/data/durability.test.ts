// Durability (DESIGN.md decision 9, issue 3 "Durability and consistency"): every write the
// server acknowledged survives SIGKILL, deletes stay deleted, batches are atomic, and
// recovery serves search over exactly the acknowledged state. A crash test alone cannot
// see a missing fsync, so the last test checks that every database is opened with
// journal_mode=WAL and synchronous=FULL (2).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer, api, removeDir, type TestServer } from '../helpers/server.js';
import { RecordStore, RECORD_STORE_FILE } from '../../src/engine/store/record-store.js';
import { openCatalogDb } from '../../src/catalog/database.js';
import { prng } from '../helpers/prng.js';


const DIM = 8;
type Meta = Record<string, string | number | boolean | string[]>;
interface Rec {
  id: string;
  values: number[];
  metadata: Meta;
}

const f32 = (xs: number[]): number[] => xs.map((x) => Math.fround(x));

/** Squared euclidean distance in float64 over float32 inputs. */
function dist(a: number[], b: number[]): number {
  const fa = f32(a);
  const fb = f32(b);
  let s = 0;
  for (let i = 0; i < fa.length; i++) s += (fa[i] - fb[i]) ** 2;
  return s;
}

function bruteTop(records: Iterable<Rec>, q: number[], topK: number): Array<{ id: string; score: number }> {
  const hits = [...records].map((r) => ({ id: r.id, score: dist(q, r.values) }));
  hits.sort((a, b) => Math.fround(a.score) - Math.fround(b.score) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return hits.slice(0, topK);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('durability: acknowledged writes survive SIGKILL', () => {
  let server: TestServer | undefined;
  let dataDir: string | undefined;
  const rand = prng(2024);

  // What the server acknowledged, per namespace: the state every later read must show.
  const expected = new Map<string, Map<string, Rec>>([
    ['', new Map()],
    ['other', new Map()],
  ]);
  const deleted = new Map<string, Set<string>>([
    ['', new Set()],
    ['other', new Set()],
  ]);

  before(async () => {
    server = await startServer();
    dataDir = server.dataDir;
  });

  after(async () => {
    await server?.kill();
    if (dataDir) removeDir(dataDir);
  });

  const live = (): TestServer => {
    assert.ok(server, 'no server');
    return server;
  };

  async function hostOf(name: string): Promise<string> {
    const res = await api(live(), 'GET', `/indexes/${name}`);
    assert.equal(res.status, 200, `describe ${name}: ${res.status} ${res.text}`);
    return res.body.host as string;
  }

  async function post(host: string, path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await api(live(), 'POST', `${host}${path}`, { body });
    assert.equal(res.status, 200, `POST ${path} ${JSON.stringify(body).slice(0, 200)}: ${res.status} ${res.text}`);
    return res.body as Record<string, unknown>;
  }

  /** SIGKILL right after the last acknowledgement, restart on the same directory, wait for /ready. */
  async function crashAndRestart(): Promise<void> {
    await live().kill();
    server = await startServer({ dataDir });
    let ready = 0;
    for (let i = 0; i < 300 && ready !== 200; i++) {
      ready = (await api(live(), 'GET', '/ready', { key: null, version: null })).status;
      if (ready !== 200) await sleep(50);
    }
    assert.equal(ready, 200, `GET /ready never answered 200 after restart:\n${live().output().slice(-2000)}`);
  }

  async function fetchAll(host: string, ns: string, ids: string[]): Promise<Record<string, { id: string; values: number[]; metadata?: Meta }>> {
    const out: Record<string, { id: string; values: number[]; metadata?: Meta }> = {};
    for (let i = 0; i < ids.length; i += 1000) {
      const chunk = ids.slice(i, i + 1000);
      const qs = chunk.map((id) => `ids=${encodeURIComponent(id)}`).join('&') + (ns ? `&namespace=${ns}` : '');
      const res = await api(live(), 'GET', `${host}/vectors/fetch?${qs}`);
      assert.equal(res.status, 200, `fetch ${chunk.length} ids: ${res.status} ${res.text.slice(0, 300)}`);
      Object.assign(out, res.body.vectors);
    }
    return out;
  }

  /** Every acknowledged record is there with its values and metadata, and nothing else is. */
  async function verify(label: string): Promise<void> {
    const host = await hostOf('dur');
    let total = 0;
    for (const [ns, recs] of expected) {
      total += recs.size;
      const got = await fetchAll(host, ns, [...recs.keys()]);
      assert.equal(Object.keys(got).length, recs.size, `${label}: ns "${ns}" fetched ${Object.keys(got).length} of ${recs.size} acknowledged records`);
      for (const r of recs.values()) {
        const g = got[r.id];
        assert.ok(g, `${label}: acknowledged record ${ns}/${r.id} is missing`);
        assert.deepEqual(f32(g.values), f32(r.values), `${label}: values of ${ns}/${r.id}`);
        assert.deepEqual(g.metadata, r.metadata, `${label}: metadata of ${ns}/${r.id}`);
      }
      const gone = [...deleted.get(ns)!].filter((id) => !recs.has(id));
      if (gone.length > 0) {
        const back = await fetchAll(host, ns, gone);
        assert.deepEqual(Object.keys(back), [], `${label}: deleted records of ns "${ns}" came back`);
      }
      // Listing pages through exactly the expected ids (nothing resurrected, nothing extra).
      const listed: string[] = [];
      let token: string | undefined;
      for (let page = 0; page < 100; page++) {
        const qs = new URLSearchParams({ limit: '100' });
        if (ns) qs.set('namespace', ns);
        if (token) qs.set('paginationToken', token);
        const res = await api(live(), 'GET', `${host}/vectors/list?${qs}`);
        assert.equal(res.status, 200, res.text);
        for (const v of res.body.vectors as Array<{ id: string }>) listed.push(v.id);
        token = res.body.pagination?.next;
        if (!token) break;
      }
      assert.deepEqual(listed, [...recs.keys()].sort(), `${label}: list of ns "${ns}"`);
    }
    const stats = await post(host, '/describe_index_stats', {});
    assert.equal(stats.totalVectorCount, total, `${label}: totalVectorCount ${JSON.stringify(stats)}`);
    const namespaces = stats.namespaces as Record<string, { vectorCount: number }>;
    assert.equal(namespaces.__default__?.vectorCount, expected.get('')!.size, `${label}: default namespace count ${JSON.stringify(stats)}`);
    assert.equal(namespaces.other?.vectorCount, expected.get('other')!.size, `${label}: "other" count ${JSON.stringify(stats)}`);
    // Search sees exactly the acknowledged records.
    for (const ns of ['', 'other']) {
      for (let qi = 0; qi < 3; qi++) {
        const vector = Array.from({ length: DIM }, () => rand() * 2 - 1);
        const body = await post(host, '/query', { vector, topK: 10, namespace: ns });
        const want = bruteTop(expected.get(ns)!.values(), vector, 10);
        const got = body.matches as Array<{ id: string; score: number }>;
        assert.deepEqual(got.map((m) => m.id), want.map((m) => m.id), `${label}: query in ns "${ns}"`);
        for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i].score - want[i].score) <= 1e-6, `${label}: score ${got[i].score} vs ${want[i].score}`);
      }
    }
    const all = await post(host, '/query', { vector: Array(DIM).fill(0.5), topK: 10_000 });
    assert.equal((all.matches as unknown[]).length, expected.get('')!.size, `${label}: query topK=10000 sees every record`);
  }

  const vec = (): number[] => Array.from({ length: DIM }, () => rand() * 2 - 1);

  it('upserts, updates and deletes acknowledged before SIGKILL are all there after restart', async () => {
    let res = await api(live(), 'POST', '/indexes', {
      body: { name: 'dur', dimension: DIM, metric: 'euclidean', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
    });
    assert.equal(res.status, 201, res.text);
    const host = res.body.host as string;
    res = await api(live(), 'POST', '/indexes', {
      body: { name: 'dur-sparse', vector_type: 'sparse', metric: 'dotproduct', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
    });
    assert.equal(res.status, 201, res.text);
    const sparseHost = res.body.host as string;

    // 20 acknowledged batches of 100 into the default namespace (no namespace field).
    for (let b = 0; b < 20; b++) {
      const batch: Rec[] = [];
      for (let i = 0; i < 100; i++) {
        batch.push({ id: `b${String(b).padStart(2, '0')}-${String(i).padStart(3, '0')}`, values: vec(), metadata: { batch: b, i, even: i % 2 === 0 } });
      }
      const body = await post(host, '/vectors/upsert', { vectors: batch });
      assert.equal(body.upsertedCount, 100);
      for (const r of batch) expected.get('')!.set(r.id, r);
    }
    // A namespace that is filled, wiped with deleteAll, and partly refilled (new incarnation).
    const old: Rec[] = Array.from({ length: 300 }, (_, i) => ({ id: `o-${String(i).padStart(3, '0')}`, values: vec(), metadata: { gen: 1 } }));
    for (let i = 0; i < old.length; i += 100) await post(host, '/vectors/upsert', { vectors: old.slice(i, i + 100), namespace: 'other' });
    await post(host, '/vectors/delete', { deleteAll: true, namespace: 'other' });
    for (const r of old) deleted.get('other')!.add(r.id);
    const fresh: Rec[] = Array.from({ length: 40 }, (_, i) => ({ id: `o-${String(i * 7).padStart(3, '0')}`, values: vec(), metadata: { gen: 2 } }));
    await post(host, '/vectors/upsert', { vectors: fresh, namespace: 'other' });
    for (const r of fresh) expected.get('other')!.set(r.id, r);

    // Updates: metadata merge on some, new values on others.
    for (let k = 0; k < 10; k++) {
      const id = `b03-${String(k * 9).padStart(3, '0')}`;
      await post(host, '/vectors/update', { id, setMetadata: { updated: true, batch: 99 } });
      const r = expected.get('')!.get(id)!;
      r.metadata = { ...r.metadata, updated: true, batch: 99 };
    }
    for (let k = 0; k < 5; k++) {
      const id = `b04-${String(k * 11).padStart(3, '0')}`;
      const values = vec();
      await post(host, '/vectors/update', { id, values });
      expected.get('')!.get(id)!.values = values;
    }
    // Deletes by id (some across batches, one id twice, one unknown) and by filter.
    const byId = [...expected.get('')!.keys()].filter((_, i) => i % 13 === 5);
    for (let i = 0; i < byId.length; i += 50) await post(host, '/vectors/delete', { ids: [...byId.slice(i, i + 50), byId[i], 'never-was'] });
    for (const id of byId) {
      expected.get('')!.delete(id);
      deleted.get('')!.add(id);
    }
    await post(host, '/vectors/delete', { filter: { batch: 7 } });
    for (const [id, r] of expected.get('')!) {
      if (r.metadata.batch === 7) {
        expected.get('')!.delete(id);
        deleted.get('')!.add(id);
      }
    }
    // A deleted id re-created before the crash is live again.
    const reborn: Rec = { id: byId[0], values: vec(), metadata: { reborn: true } };
    await post(host, '/vectors/upsert', { vectors: [reborn] });
    expected.get('')!.set(reborn.id, reborn);

    // The sparse index gets records too (a second record database to recover).
    await post(sparseHost, '/vectors/upsert', {
      vectors: Array.from({ length: 50 }, (_, i) => ({ id: `s${i}`, sparseValues: { indices: [i, i + 100], values: [0.5, -0.25] } })),
    });

    // The last acknowledgement has arrived: kill -9 at once.
    await crashAndRestart();
    await verify('after the first SIGKILL');
    const newSparseHost = await hostOf('dur-sparse');
    const sparseStats = await post(newSparseHost, '/describe_index_stats', {});
    assert.equal(sparseStats.totalVectorCount, 50, JSON.stringify(sparseStats));
    const sq = await post(newSparseHost, '/query', { sparseVector: { indices: [7], values: [2] }, topK: 1 });
    assert.deepEqual(sq.matches, [{ id: 's7', score: 1 }]);
  });

  it('writes after recovery (new seqs, same ids, namespace drop) survive a second SIGKILL', async () => {
    const host = await hostOf('dur');
    // Overwrite some recovered records, delete others, add new ones, drop and refill "other".
    const def = expected.get('')!;
    const ids = [...def.keys()];
    const overwrite = ids.filter((_, i) => i % 17 === 3);
    for (let i = 0; i < overwrite.length; i += 100) {
      const batch = overwrite.slice(i, i + 100).map((id) => ({ id, values: vec(), metadata: { round: 2 } }));
      await post(host, '/vectors/upsert', { vectors: batch });
      for (const r of batch) def.set(r.id, r);
    }
    const drop = ids.filter((_, i) => i % 17 === 11);
    await post(host, '/vectors/delete', { ids: drop });
    for (const id of drop) {
      def.delete(id);
      deleted.get('')!.add(id);
    }
    const added = Array.from({ length: 100 }, (_, i) => ({ id: `after-${i}`, values: vec(), metadata: { round: 2 } }));
    await post(host, '/vectors/upsert', { vectors: added });
    for (const r of added) def.set(r.id, r);
    // Deleting a namespace through the namespaces API is durable too.
    const delNs = await api(live(), 'DELETE', `${host}/namespaces/other`);
    assert.equal(delNs.status, 200, delNs.text);
    for (const id of expected.get('other')!.keys()) deleted.get('other')!.add(id);
    expected.get('other')!.clear();
    const refill = [{ id: 'o-007', values: vec(), metadata: { gen: 3 } }];
    await post(host, '/vectors/upsert', { vectors: refill, namespace: 'other' });
    expected.get('other')!.set(refill[0].id, refill[0]);

    await crashAndRestart();
    await verify('after the second SIGKILL');
  });

  it('batches in flight at SIGKILL are stored whole or not at all; acknowledged ones whole', async () => {
    const created = await api(live(), 'POST', '/indexes', {
      body: { name: 'dur-inflight', dimension: DIM, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
    });
    assert.equal(created.status, 201, created.text);
    const host = created.body.host as string;
    const BATCHES = 12;
    const idsOf = (k: number): string[] => Array.from({ length: 100 }, (_, i) => `k${String(k).padStart(2, '0')}-${i}`);
    const acked = new Set<number>();
    let firstAck!: () => void;
    const oneAcked = new Promise<void>((resolve) => (firstAck = resolve));
    const pending = Array.from({ length: BATCHES }, (_, k) =>
      api(live(), 'POST', `${host}/vectors/upsert`, { body: { vectors: idsOf(k).map((id) => ({ id, values: vec() })) } }).then(
        (res) => {
          if (res.status === 200) {
            acked.add(k);
            firstAck();
          }
        },
        () => undefined, // the connection died with the server
      ),
    );
    await Promise.race([oneAcked, Promise.all(pending)]);
    await crashAndRestart();
    await Promise.all(pending);
    assert.ok(acked.size >= 1, 'no batch was acknowledged before the kill');
    const newHost = await hostOf('dur-inflight');
    let stored = 0;
    for (let k = 0; k < BATCHES; k++) {
      const got = Object.keys(await fetchAll(newHost, '', idsOf(k))).length;
      assert.ok(got === 0 || got === 100, `batch ${k} is partly stored: ${got} of 100 records`);
      if (acked.has(k)) assert.equal(got, 100, `acknowledged batch ${k} lost records`);
      stored += got;
    }
    const stats = await post(newHost, '/describe_index_stats', {});
    assert.equal(stats.totalVectorCount, stored, JSON.stringify(stats));
    await verify('after the third SIGKILL (other index untouched)');
  });

  it('every record database and the catalog use journal_mode=wal and synchronous=2 (FULL)', async () => {
    const exit = await live().stop();
    assert.equal(exit, 0, `graceful stop exited ${exit}`);
    const indexesDir = join(dataDir!, 'indexes');
    const dirs = readdirSync(indexesDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    assert.equal(dirs.length, 3, `one directory per index: ${dirs.join(', ')}`);
    for (const name of dirs) {
      const dir = join(indexesDir, name);
      // File-level settings, read by an independent connection.
      const raw = new Database(join(dir, RECORD_STORE_FILE));
      try {
        assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal', `${name}: journal_mode`);
        assert.equal(raw.pragma('page_size', { simple: true }), 8192, `${name}: page_size`);
        assert.equal(raw.pragma('auto_vacuum', { simple: true }), 2, `${name}: auto_vacuum (2 = INCREMENTAL)`);
        assert.equal(raw.pragma('integrity_check', { simple: true }), 'ok', `${name}: integrity_check`);
      } finally {
        raw.close();
      }
      // synchronous is per connection: check the setting the server's opening code applies.
      const store = RecordStore.open(dir);
      try {
        assert.deepEqual(store.pragmas(), { journalMode: 'wal', synchronous: 2, pageSize: 8192, autoVacuum: 2, journalSizeLimit: 8 * 1024 * 1024 }, name);
      } finally {
        store.close();
      }
    }
    const catalog = openCatalogDb(dataDir!);
    try {
      assert.equal(catalog.pragma('journal_mode', { simple: true }), 'wal', 'catalog journal_mode');
      assert.equal(catalog.pragma('synchronous', { simple: true }), 2, 'catalog synchronous');
    } finally {
      catalog.close();
    }
  });
});
