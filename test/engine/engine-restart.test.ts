// The engine through a real server: a crashed worker is restarted and search comes back
// with correct results; kill -9 while the graph is still being built loses nothing and
// the index comes back searchable; a clean shutdown writes a graph snapshot that the
// next start uses; a damaged snapshot is rebuilt from the store (and says so).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { api, removeDir, startServer, tempDataDir, type TestServer } from '../helpers/server.js';
import { prng } from '../helpers/prng.js';
import { createIndex, denseIndex, dp, fetchMap, upsert, type Vec } from '../data/support.js';

const DIM = 8;
// Above the engine's graph threshold (5,000 records per namespace), so these namespaces get a graph.
const N = 6000;
const FAULT_CRASH_ID = '__conifer_fault_crash_engine_worker__';

function records(seed: number, n: number): Vec[] {
  const rand = prng(seed);
  return Array.from({ length: n }, (_, i) => ({ id: `v${i}`, values: Array.from({ length: DIM }, () => Math.fround(rand() * 2 - 1)) }));
}

async function upsertAll(server: TestServer, host: string, vectors: Vec[]): Promise<void> {
  for (let i = 0; i < vectors.length; i += 500) await upsert(server, host, vectors.slice(i, i + 500));
}

/** Euclidean brute force over the acknowledged records. */
function nearest(vectors: Vec[], q: number[], k: number): string[] {
  return vectors
    .map((v) => ({ id: v.id, d: v.values!.reduce((s, x, i) => s + (x - q[i]) ** 2, 0) }))
    .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : 1))
    .slice(0, k)
    .map((x) => x.id);
}

async function waitReady(server: TestServer): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await api(server, 'GET', '/ready', { key: null })).status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('server not ready');
}

/** Waits for a log line: the worker logs an index's load when it finishes, which may be after /ready. */
async function waitOutput(server: TestServer, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (pattern.test(server.output())) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(server.output(), pattern, server.output().slice(-3000));
}

/** Polls a query until it answers 200 (503 with Retry-After while the engine loads). */
async function queryWhenUp(server: TestServer, host: string, body: Record<string, unknown>): Promise<{ id: string; score: number }[]> {
  for (let i = 0; i < 600; i++) {
    const res = await dp(server, host, 'POST', '/query', { body });
    if (res.status === 200) return res.body.matches;
    assert.equal(res.status, 503, res.text);
    assert.ok(res.headers.get('retry-after'), 'a 503 carries Retry-After');
    assert.equal(res.body.code, 14, res.text);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('search did not come back');
}

/** Recall@10 of 20 seeded queries against brute force (the graph is approximate). */
async function recall(server: TestServer, host: string, vectors: Vec[], seed: number): Promise<number> {
  const rand = prng(seed);
  let hits = 0;
  for (let i = 0; i < 20; i++) {
    const vector = Array.from({ length: DIM }, () => rand() * 2 - 1);
    const want = new Set(nearest(vectors, vector, 10));
    const got = await queryWhenUp(server, host, { vector, topK: 10 });
    assert.equal(got.length, 10);
    hits += got.filter((m) => want.has(m.id)).length;
  }
  return hits / 200;
}

/**
 * Polls GET /metrics (and nothing else, so no other request wakes the engine) until
 * conifer_engine_unindexed_records is 0 for every index: every record is in a graph and
 * the engine said so on its own.
 */
async function waitFullyIndexed(server: TestServer): Promise<void> {
  let last = '';
  for (let i = 0; i < 1200; i++) {
    const res = await api(server, 'GET', '/metrics', { key: null });
    assert.equal(res.status, 200, res.text);
    const values = [...res.text.matchAll(/^conifer_engine_unindexed_records\{[^}]*\} ([0-9.eE+-]+)$/gm)].map((m) => Number(m[1]));
    last = values.join(',');
    if (values.length > 0 && values.every((v) => v === 0)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`records still outside a graph: ${last}`);
}

const hostOf = async (server: TestServer, name: string): Promise<string> => {
  const res = await api(server, 'GET', `/indexes/${name}`);
  assert.equal(res.status, 200, res.text);
  return res.body.host as string;
};

describe('engine worker restart and graph recovery (black box)', () => {
  const cleanup: { server?: TestServer; dir: string }[] = [];
  after(async () => {
    for (const c of cleanup) {
      await c.server?.kill();
      removeDir(c.dir);
    }
  });

  type Entry = { server?: TestServer; dir: string };

  /** A server on a fresh data directory (killed after the suite) whose index `name` holds N seeded records. */
  async function serverWithIndex(name: string, seed: number, env?: Record<string, string>): Promise<{ entry: Entry; server: TestServer; host: string; vectors: Vec[] }> {
    const dir = tempDataDir();
    const server = await startServer({ dataDir: dir, env });
    const entry: Entry = { server, dir };
    cleanup.push(entry);
    const host = await createIndex(server, denseIndex(name, DIM, 'euclidean'));
    const vectors = records(seed, N);
    await upsertAll(server, host, vectors);
    return { entry, server, host, vectors };
  }

  /** Starts a server again on the entry's data directory and waits until it is ready. */
  async function restart(entry: Entry): Promise<TestServer> {
    const server = await startServer({ dataDir: entry.dir });
    entry.server = server;
    await waitReady(server);
    return server;
  }

  it('a crashed engine worker is restarted and search comes back with every record', async () => {
    const { server, host, vectors } = await serverWithIndex('crash', 1, { CONIFER_FAULT_INJECTION: '1' });
    // This write commits, then makes the worker's apply throw: the worker is replaced.
    await upsert(server, host, [{ id: FAULT_CRASH_ID, values: Array(DIM).fill(9) }]);
    await upsert(server, host, [{ id: 'after-crash', values: Array(DIM).fill(5) }]);
    // Every acknowledged record is found once search is back, including the ones written
    // while the worker was down or reloading.
    const top = await queryWhenUp(server, host, { vector: Array(DIM).fill(9), topK: 2 });
    assert.deepEqual(top.map((m) => m.id), [FAULT_CRASH_ID, 'after-crash']);
    const all = await queryWhenUp(server, host, { vector: Array(DIM).fill(0), topK: 10_000 });
    assert.equal(all.length, N + 2);
    assert.ok((await recall(server, host, vectors, 11)) >= 0.9);
    assert.match(server.output(), /engine worker failed; restarting it/);
    assert.match(server.output(), /engine loaded index/);
  });

  it('the unindexed gauge counts an acknowledged upsert until the engine has applied it, here after its worker failed applying it', async () => {
    const dir = tempDataDir();
    const server = await startServer({ dataDir: dir, env: { CONIFER_FAULT_INJECTION: '1' } });
    cleanup.push({ server, dir });
    const host = await createIndex(server, denseIndex('gauge', DIM, 'euclidean'));
    // A small namespace: no graph, so once applied its records are searched exactly and count 0.
    await upsert(server, host, records(3, 10));
    await waitFullyIndexed(server);
    // Committed and acknowledged, then the worker's apply throws: the write stays unapplied
    // until a new worker (after a restart delay of at least 100 ms) has loaded the store.
    // The engine's last count was 0, and it alone read 0 all that time.
    const batch: Vec[] = [{ id: FAULT_CRASH_ID, values: Array(DIM).fill(9) }, ...records(4, 4).map((v) => ({ ...v, id: `late-${v.id}` }))];
    await upsert(server, host, batch);
    const res = await api(server, 'GET', '/metrics', { key: null });
    const value = /^conifer_engine_unindexed_records\{index="gauge[^"]*"\} ([0-9.eE+-]+)$/m.exec(res.text);
    assert.ok(value, res.text);
    assert.ok(Number(value[1]) >= batch.length, `the acknowledged batch is counted: ${value[1]}`);
    // Once it reads 0 again, the new worker holds the batch: a query finds it at once.
    await waitFullyIndexed(server);
    const found = await queryWhenUp(server, host, { vector: Array(DIM).fill(9), topK: 1 });
    assert.equal(found[0]?.id, FAULT_CRASH_ID);
  });

  it('kill -9 while the graph is being built loses nothing; the index comes back searchable', async () => {
    const created = await serverWithIndex('k9', 2);
    const { entry, host, vectors } = created;
    let server = created.server;
    // Acknowledged writes are visible at once, indexed or not.
    const first = await queryWhenUp(server, host, { vector: vectors[N - 1].values, topK: 1 });
    assert.equal(first[0].id, vectors[N - 1].id);
    await server.kill();
    server = await restart(entry);
    // The rebuild finishes in the background and reports it without any query to wake it.
    await waitFullyIndexed(server);
    const host2 = await hostOf(server, 'k9');
    const fetched = await fetchMap(server, host2, vectors.slice(0, 1000).map((v) => v.id));
    assert.equal(Object.keys(fetched).length, 1000);
    const all = await queryWhenUp(server, host2, { vector: Array(DIM).fill(0), topK: 10_000 });
    assert.deepEqual(all.map((m) => m.id).sort(), vectors.map((v) => v.id).sort());
    assert.ok((await recall(server, host2, vectors, 12)) >= 0.9);
  });

  it('a snapshot written in the background while writes go on is used after kill -9, with every later write', async () => {
    const created = await serverWithIndex('bg', 5);
    const { entry, host, vectors } = created;
    let server = created.server;
    // Once the graph holds every record, the worker writes its first snapshot with a
    // graph (≥ 1,000 changes), though no write follows to wake it.
    await waitOutput(server, /^(?=.*"msg":"graph snapshot written")(?=.*"graphs":1[,}]).*$/m);
    // Writes after it: new records, replaced vectors, deletes; the next start replays them.
    const extra = records(6, N + 300).slice(N);
    await upsert(server, host, extra);
    const replaced = vectors.slice(0, 200).map((v) => ({ id: v.id, values: v.values!.map((x) => -x) }));
    await upsert(server, host, replaced);
    const deleted = vectors.slice(200, 300).map((v) => v.id);
    const del = await dp(server, host, 'POST', '/vectors/delete', { body: { ids: deleted } });
    assert.equal(del.status, 200, del.text);
    await server.kill();

    server = await restart(entry);
    await waitOutput(server, /"fromSnapshot":"yes"/);
    const expected = [...replaced, ...vectors.slice(300), ...extra];
    const host2 = await hostOf(server, 'bg');
    const all = await queryWhenUp(server, host2, { vector: Array(DIM).fill(0), topK: 10_000 });
    assert.deepEqual(all.map((m) => m.id).sort(), expected.map((v) => v.id).sort());
    // A replaced record is found by its new vector.
    const top = await queryWhenUp(server, host2, { vector: replaced[5].values, topK: 1 });
    assert.equal(top[0].id, replaced[5].id);
    assert.ok((await recall(server, host2, expected, 15)) >= 0.9);
  });

  it('a clean shutdown writes a snapshot the next start uses; a damaged one is rebuilt', async () => {
    const created = await serverWithIndex('snap', 3);
    const { entry, host, vectors } = created;
    let server = created.server;
    assert.equal(await server.stop(), 0, server.output().slice(-3000));
    const indexDirs = fs.readdirSync(path.join(entry.dir, 'indexes'));
    assert.equal(indexDirs.length, 1);
    const snapDir = path.join(entry.dir, 'indexes', indexDirs[0], 'engine');
    assert.ok(fs.existsSync(path.join(snapDir, 'manifest.json')), 'snapshot written at shutdown');

    server = await restart(entry);
    await waitOutput(server, /"fromSnapshot":"yes"/);
    assert.ok((await recall(server, await hostOf(server, 'snap'), vectors, 13)) >= 0.9);
    await server.kill();

    // Flip bytes in the middle of the graph file: the start must not trust it.
    const graph = path.join(snapDir, fs.readdirSync(snapDir).find((f) => f.endsWith('.graph'))!);
    const bytes = fs.readFileSync(graph);
    for (let i = 0; i < 64; i++) bytes[Math.floor(bytes.length / 2) + i] ^= 0xa5;
    fs.writeFileSync(graph, bytes);
    server = await restart(entry);
    await waitOutput(server, /graph snapshot unusable; rebuilding the graphs from the record store/);
    await waitOutput(server, /"fromSnapshot":"no"/);
    const host3 = await hostOf(server, 'snap');
    const all = await queryWhenUp(server, host3, { vector: Array(DIM).fill(0), topK: 10_000 });
    assert.equal(all.length, N);
    assert.ok((await recall(server, host3, vectors, 14)) >= 0.9);
  });
});
