// Issue 11, crash loop: several kill -9 trials at random points of a concurrent write load
// (upserts, updates, id deletes, namespace deletes, backups). After each restart:
//  - every acknowledged write is there and every acknowledged delete applied;
//  - the one operation per writer in flight at the kill is whole or absent, never partial
//    (all ids of an upsert batch carry its tag, or none do);
//  - stats equal the records that can be listed and fetched, per namespace;
//  - every acknowledged backup exists and settles (Ready, or Failed when the kill
//    interrupted its copy — backup-service.ts failInterrupted).
// Writers own disjoint namespaces, so each id's history is a sequence and the expected
// state is exact. The load and the kill points come from a seed (CONIFER_TEST_SEED to
// replay), printed with any failure.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { prng } from '../helpers/prng.js';
import { api, removeDir, startServer, tempDataDir, type TestServer } from '../helpers/server.js';
import { createIndex, denseIndex, dp, fetchQuery, listAll } from '../data/support.js';

const SEED = Number(process.env.CONIFER_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
const TRIALS = 5;
const WRITERS = 3;
const NAMESPACES_PER_WRITER = 2;
const IDS_PER_NAMESPACE = 60;
const INDEX = 'crashloop';

/** A record's state: the tag of the operation that wrote it last, or null when absent. */
type State = number | null;

interface Pending {
  what: string;
  keys: string[];
  next: State;
}

const key = (ns: string, id: string) => `${ns}\u0000${id}`;
const split = (k: string) => k.split('\u0000') as [string, string];
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Writer {
  readonly known = new Map<string, State>();
  pending: Pending | undefined;
  readonly namespaces: string[];

  constructor(readonly n: number) {
    this.namespaces = Array.from({ length: NAMESPACES_PER_WRITER }, (_, i) => `w${n}-ns${i}`);
  }

  present(ns: string): string[] {
    return [...this.known].filter(([k, s]) => s !== null && split(k)[0] === ns).map(([k]) => split(k)[1]);
  }
}

let nextTag = 1;

/** One write chosen by `rand`; resolves when acknowledged, throws when the server is gone. */
async function step(server: TestServer, host: string, w: Writer, rand: () => number): Promise<void> {
  const ns = w.namespaces[Math.floor(rand() * w.namespaces.length)];
  const pick = () => `id-${Math.floor(rand() * IDS_PER_NAMESPACE)}`;
  const present = w.present(ns);
  const r = rand();
  const tag = nextTag++;
  let pending: Pending;
  let send: () => Promise<{ status: number; text: string }>;
  if (r < 0.55 || present.length === 0) {
    const ids = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 40) }, pick))];
    pending = { what: `upsert tag ${tag}`, keys: ids.map((id) => key(ns, id)), next: tag };
    const vectors = ids.map((id) => ({ id, values: [tag, w.n, rand(), 1], metadata: { t: tag } }));
    send = () => dp(server, host, 'POST', '/vectors/upsert', { body: { vectors, namespace: ns } });
  } else if (r < 0.72) {
    const id = present[Math.floor(rand() * present.length)];
    pending = { what: `update tag ${tag}`, keys: [key(ns, id)], next: tag };
    send = () =>
      dp(server, host, 'POST', '/vectors/update', { body: { id, namespace: ns, values: [tag, w.n, 0.5, 1], setMetadata: { t: tag } } });
  } else if (r < 0.92) {
    const ids = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 10) }, pick))];
    pending = { what: `delete ids (tag ${tag})`, keys: ids.map((id) => key(ns, id)), next: null };
    send = () => dp(server, host, 'POST', '/vectors/delete', { body: { ids, namespace: ns } });
  } else {
    // A namespace delete covers every id the namespace may hold.
    const all = Array.from({ length: IDS_PER_NAMESPACE }, (_, i) => key(ns, `id-${i}`));
    pending = { what: `namespace delete ${ns} (tag ${tag})`, keys: all, next: null };
    send =
      r < 0.96
        ? () => dp(server, host, 'DELETE', `/namespaces/${ns}`)
        : () => dp(server, host, 'POST', '/vectors/delete', { body: { deleteAll: true, namespace: ns } });
  }
  w.pending = pending;
  const res = await send();
  assert.equal(res.status, 200, `${pending.what}: ${res.text}`);
  for (const k of pending.keys) w.known.set(k, pending.next);
  w.pending = undefined;
}

/** What the server holds: tag per key, from list + fetch, checking values and metadata agree. */
async function observe(server: TestServer, host: string, namespaces: string[]): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  for (const ns of namespaces) {
    const ids = await listAll(server, host, { namespace: ns });
    for (let i = 0; i < ids.length; i += 100) {
      const chunk = ids.slice(i, i + 100);
      const res = await dp(server, host, 'GET', fetchQuery(chunk, ns));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body.vectors).sort(), [...chunk].sort(), `listed ids of ${ns} are fetchable`);
      for (const id of chunk) {
        const v = res.body.vectors[id];
        assert.equal(v.metadata.t, v.values[0], `${ns}/${id}: values and metadata come from one write`);
        seen.set(key(ns, id), v.values[0] as number);
      }
    }
  }
  return seen;
}

/** Checks every writer's records against its model, then adopts what the server shows. */
function checkAndResolve(writers: Writer[], seen: Map<string, number>): void {
  for (const w of writers) {
    const keys = new Set<string>([...w.known.keys(), ...(w.pending?.keys ?? [])]);
    for (const k of seen.keys()) if (w.namespaces.includes(split(k)[0])) keys.add(k);
    const p = w.pending;
    const pendingKeys = new Set(p?.keys ?? []);
    let applied = 0;
    let notApplied = 0;
    for (const k of keys) {
      const was = w.known.get(k) ?? null;
      const now = seen.get(k) ?? null;
      if (pendingKeys.has(k) && p!.next !== was) {
        if (now === p!.next) applied++;
        else if (now === was) notApplied++;
        else assert.fail(`${split(k).join('/')}: ${now} is neither the acknowledged ${was} nor the in-flight ${p!.what}`);
      } else {
        assert.equal(now, was, `${split(k).join('/')}: acknowledged state ${was}, found ${now}`);
      }
    }
    assert.ok(applied === 0 || notApplied === 0, `in-flight ${p?.what} is half applied: ${applied} applied, ${notApplied} not`);
    for (const k of keys) w.known.set(k, seen.get(k) ?? null);
    w.pending = undefined;
  }
}

async function waitReady(server: TestServer): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await api(server, 'GET', '/ready', { key: null })).status === 200) return;
    await delay(50);
  }
  throw new Error('server not ready after restart');
}

describe('reliability: crash loop under concurrent writes', () => {
  const dataDir = tempDataDir();
  let server: TestServer | undefined;

  after(async () => {
    await server?.kill();
    removeDir(dataDir);
  });

  it(`kill -9 at random points loses nothing acknowledged and applies no batch in half (seed ${SEED})`, { timeout: 240_000 }, async () => {
    try {
      const rand = prng(SEED);
      const writers = Array.from({ length: WRITERS }, (_, n) => new Writer(n));
      const namespaces = writers.flatMap((w) => w.namespaces);
      const backups = new Map<string, string>(); // acknowledged: name -> backup_id
      server = await startServer({ dataDir });
      let host = await createIndex(server, denseIndex(INDEX, 4, 'euclidean'));

      for (let trial = 0; trial < TRIALS; trial++) {
        const s = server;
        let killed = false;
        const seeds = writers.map(() => Math.floor(rand() * 2 ** 31));
        const loads = writers.map(async (w, i) => {
          const wr = prng(seeds[i]);
          while (!killed) {
            try {
              await step(s, host, w, wr);
            } catch (err) {
              if (killed) return; // the kill cut this request: it stays pending
              killed = true; // stop the other loads too, then report
              throw err;
            }
          }
        });
        // Backups run beside the writes; on odd trials the kill lands just after one is asked for.
        const killAfterBackup = trial % 2 === 1;
        const backupSeed = Math.floor(rand() * 2 ** 31);
        const killAt = 300 + Math.floor(rand() * 1200);
        const doKill = async () => {
          if (killed) return;
          killed = true;
          await s.kill();
        };
        const backupLoad = (async () => {
          const br = prng(backupSeed);
          const started = Date.now();
          for (let b = 0; !killed; b++) {
            const name = `t${trial}-b${b}`;
            const req = api(s, 'POST', `/indexes/${INDEX}/backups`, { body: { name } });
            req.catch(() => undefined); // awaited below; a kill in between must not leave it unhandled
            if (killAfterBackup && Date.now() - started >= killAt) {
              await delay(Math.floor(br() * 5));
              await doKill();
            }
            try {
              const res = await req;
              if (!killed || res.status === 201) {
                assert.equal(res.status, 201, `backup ${name}: ${res.text}`);
                backups.set(name, res.body.backup_id as string);
              }
            } catch (err) {
              if (!killed) {
                killed = true;
                throw err;
              }
            }
            await delay(100 + Math.floor(br() * 300));
          }
        })();
        if (!killAfterBackup) setTimeout(() => void doKill(), killAt);
        else setTimeout(() => void doKill(), killAt + 2000); // bound, if no backup was asked for in time
        const outcomes = await Promise.allSettled([...loads, backupLoad]);
        await doKill();
        for (const o of outcomes) if (o.status === 'rejected') throw o.reason;

        server = await startServer({ dataDir });
        host = host.replace(/^http:\/\/[^/]+/, server.url);
        await waitReady(server);
        const seen = await observe(server, host, namespaces);
        checkAndResolve(writers, seen);

        // Stats count exactly the fetchable records, per namespace.
        const st = await dp(server, host, 'POST', '/describe_index_stats', { body: {} });
        assert.equal(st.status, 200, st.text);
        const perNs: Record<string, { vectorCount: number; recordCount: number }> = {};
        for (const k of seen.keys()) {
          const ns = split(k)[0];
          perNs[ns] ??= { vectorCount: 0, recordCount: 0 };
          perNs[ns].vectorCount++;
          perNs[ns].recordCount++;
        }
        assert.deepEqual(st.body.namespaces, perNs, `trial ${trial}: stats per namespace`);
        assert.equal(st.body.totalVectorCount, seen.size);

        // The rebuilt search structures see the same records.
        const ns0 = namespaces[trial % namespaces.length];
        const q = await dp(server, host, 'POST', '/query', { body: { vector: [0, 0, 0, 1], topK: 1000, namespace: ns0 } });
        assert.equal(q.status, 200, q.text);
        assert.equal(q.body.matches.length, perNs[ns0]?.vectorCount ?? 0, `trial ${trial}: query sees every record of ${ns0}`);

        // Every acknowledged backup is there and settles.
        for (const [name, id] of backups) {
          let status = '';
          for (let i = 0; i < 200; i++) {
            const d = await api(server, 'GET', `/backups/${id}`);
            assert.equal(d.status, 200, `backup ${name}: ${d.text}`);
            status = d.body.status as string;
            if (status !== 'Initializing') break;
            await delay(50);
          }
          assert.ok(status === 'Ready' || status === 'Failed', `backup ${name} settled, got ${status}`);
        }
      }
      assert.ok(backups.size > 0, 'backups were acknowledged during the load');
    } catch (err) {
      if (err instanceof Error) {
        err.message = `[crash loop seed ${SEED}; replay with CONIFER_TEST_SEED=${SEED}] ${err.message}${err.cause ? ` (cause: ${String(err.cause)})` : ''}`;
      }
      throw err;
    }
  });
});
