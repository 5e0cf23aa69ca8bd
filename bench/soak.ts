// `npm run soak [-- --minutes N] [--restart-every S] [--seed N]`: a longer mixed load for
// humans (issue 11), not part of `npm test`. Writers upsert, update and delete over a
// bounded id space, readers query and fetch, a backup is taken every 30 s and the server
// is restarted every S seconds (alternately SIGTERM and kill -9). Every acknowledged write
// is kept in a model; at the end the server's records are listed and fetched and compared
// with it. Prints progress every 10 s and a verdict: lost or resurrected writes, 5xx,
// 429s, latency percentiles, RSS over time. Exit code 1 when the verdict is FAIL.
// It lives in bench/ beside the benchmark because it is the same kind of tool — a load
// generator with a report, sharing bench's server process, HTTP client and statistics.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, type Reply } from './http.js';
import { Rng } from './prng.js';
import { memoryOf, startServer, type ServerProcess } from './server-process.js';
import { summarize } from './stats.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    'restart-every': { type: 'string', default: '60' },
    seed: { type: 'string' },
    writers: { type: 'string', default: '4' },
    readers: { type: 'string', default: '4' },
  },
});
const MINUTES = Number(args.minutes);
const RESTART_EVERY_S = Number(args['restart-every']);
const SEED = Number(args.seed ?? Math.floor(Math.random() * 2 ** 31));
const WRITERS = Number(args.writers);
const READERS = Number(args.readers);
const DIM = 16;
const IDS_PER_WRITER = 5000;
const API_KEY = 'soak-key-0123456789abcdef';

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Tally {
  ok: number;
  s429: number;
  s5xx: number;
  other4xx: number;
  /** Connection refused or cut: the server was restarting. */
  down: number;
  latencies: number[];
}
const newTally = (): Tally => ({ ok: 0, s429: 0, s5xx: 0, other4xx: 0, down: 0, latencies: [] });
const total = newTally();
let interval = newTally();
const fivexx: string[] = [];

function count(method: string, path: string, r: Reply | undefined): void {
  for (const t of [total, interval]) {
    if (!r) t.down++;
    else if (r.status < 300) {
      t.ok++;
      t.latencies.push(r.ms);
    } else if (r.status === 429) t.s429++;
    else if (r.status >= 500 && r.status !== 503) t.s5xx++;
    else if (r.status === 503) t.down++; // recovering after a restart
    else t.other4xx++;
  }
  if (r && r.status >= 500 && r.status !== 503 && fivexx.length < 20) fivexx.push(`${method} ${path} -> ${r.status} ${r.text.slice(0, 200)}`);
  if (r && r.status >= 400 && r.status < 500 && r.status !== 429 && fivexx.length < 20) fivexx.push(`(4xx) ${method} ${path} -> ${r.status} ${r.text.slice(0, 200)}`);
}

/** The server of the moment; swapped by restarts. */
let server: ServerProcess;
let host = '';
let hostPath = '';
const client = new Client(API_KEY, 64, 60_000);

async function call(method: string, path: string, body?: unknown): Promise<Reply | undefined> {
  try {
    const r = await client.request(method, server.url + path, body === undefined ? undefined : JSON.stringify(body));
    count(method, path.replace(/\?.*/, ''), r);
    return r;
  } catch {
    count(method, path, undefined);
    return undefined;
  }
}

/** Per writer: id -> tag of the last acknowledged write, or null once deleted. */
const known = Array.from({ length: WRITERS }, () => new Map<string, number | null>());
/** Ids whose last write was cut by a kill: either state is allowed until written again. */
const uncertain = new Set<string>();
let nextTag = 1;
let stopping = false;

async function writer(n: number, rng: Rng): Promise<void> {
  const ns = `w${n}`;
  while (!stopping) {
    const r = rng.next();
    const tag = nextTag++;
    let ids: string[];
    let next: number | null;
    let res: Reply | undefined;
    if (r < 0.7) {
      ids = [...new Set(Array.from({ length: 1 + rng.int(50) }, () => `${ns}-${rng.int(IDS_PER_WRITER)}`))];
      next = tag;
      const vectors = ids.map((id) => ({ id, values: Array.from({ length: DIM }, (_, d) => (d === 0 ? tag : rng.next())), metadata: { t: tag } }));
      res = await call('POST', `${hostPath}/vectors/upsert`, { vectors, namespace: ns });
    } else if (r < 0.85) {
      const present = [...known[n]].filter(([, s]) => s !== null);
      if (present.length === 0) continue;
      ids = [present[rng.int(present.length)][0]];
      next = tag;
      res = await call('POST', `${hostPath}/vectors/update`, {
        id: ids[0],
        namespace: ns,
        values: Array.from({ length: DIM }, (_, d) => (d === 0 ? tag : 0.5)),
        setMetadata: { t: tag },
      });
    } else {
      ids = [...new Set(Array.from({ length: 1 + rng.int(20) }, () => `${ns}-${rng.int(IDS_PER_WRITER)}`))];
      next = null;
      res = await call('POST', `${hostPath}/vectors/delete`, { ids, namespace: ns });
    }
    if (res?.status === 200) {
      for (const id of ids) {
        known[n].set(id, next);
        uncertain.delete(id);
      }
    } else if (!res) {
      for (const id of ids) uncertain.add(id); // cut by a restart: may or may not be applied
      await delay(200);
    } else if (res.status === 429 || res.status === 503) await delay(1000);
  }
}

async function reader(rng: Rng): Promise<void> {
  while (!stopping) {
    const ns = `w${rng.int(WRITERS)}`;
    const res =
      rng.next() < 0.7
        ? await call('POST', `${hostPath}/query`, { vector: Array.from({ length: DIM }, () => rng.next() - 0.5), topK: 10, namespace: ns, includeMetadata: true })
        : await call('GET', `${hostPath}/vectors/fetch?namespace=${ns}&ids=${ns}-${rng.int(IDS_PER_WRITER)}&ids=${ns}-${rng.int(IDS_PER_WRITER)}`);
    if (!res || res.status === 429 || res.status === 503) await delay(200);
  }
}

const rss: { atS: number; mib: number }[] = [];
const t0 = Date.now();
const elapsedS = () => Math.round((Date.now() - t0) / 1000);

function progress(): void {
  const s = summarize(interval.latencies);
  let mib = Number.NaN;
  try {
    mib = memoryOf(server.pid).rssBytes / 1048576;
  } catch {
    // restarting
  }
  console.log(
    `[${String(elapsedS()).padStart(4)} s] ok ${interval.ok}, 429 ${interval.s429}, 5xx ${interval.s5xx}, other 4xx ${interval.other4xx}, ` +
      `down ${interval.down}; p50 ${s.p50Ms.toFixed(1)} ms, p99 ${s.p99Ms.toFixed(1)} ms; RSS ${mib.toFixed(0)} MiB`,
  );
  interval = newTally();
}

async function restart(kind: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  const old = server;
  if (kind === 'SIGTERM') await old.stop();
  else {
    process.kill(old.pid, 'SIGKILL');
    for (let i = 0; i < 500; i++) {
      try {
        process.kill(old.pid, 0);
      } catch {
        break;
      }
      await delay(20);
    }
  }
  server = await startServer(dataDir, API_KEY);
  console.log(`[${String(elapsedS()).padStart(4)} s] restarted after ${kind} (ready in ${server.readyMs.toFixed(0)} ms)`);
}

/** Lists and fetches every record of the writers' namespaces and compares them with the model. */
async function verify(): Promise<{ lost: number; resurrected: number; wrong: number; statsMismatch: boolean; records: number }> {
  let lost = 0;
  let resurrected = 0;
  let wrong = 0;
  let records = 0;
  for (let n = 0; n < WRITERS; n++) {
    const ns = `w${n}`;
    const seen = new Map<string, number>();
    let token: string | undefined;
    const ids: string[] = [];
    for (let page = 0; page < 10_000; page++) {
      const { body } = await client.json('GET', `${server.url}${hostPath}/vectors/list?namespace=${ns}&limit=100${token ? `&paginationToken=${token}` : ''}`);
      const b = body as { vectors: { id: string }[]; pagination?: { next: string } };
      ids.push(...b.vectors.map((v) => v.id));
      token = b.pagination?.next;
      if (!token) break;
    }
    for (let i = 0; i < ids.length; i += 100) {
      const q = ids.slice(i, i + 100).map((id) => `ids=${encodeURIComponent(id)}`).join('&');
      const { body } = await client.json('GET', `${server.url}${hostPath}/vectors/fetch?namespace=${ns}&${q}`);
      for (const [id, v] of Object.entries((body as { vectors: Record<string, { values: number[] }> }).vectors)) seen.set(id, v.values[0]);
    }
    records += seen.size;
    for (const [id, state] of known[n]) {
      if (uncertain.has(id)) continue;
      const now = seen.get(id);
      if (state === null && now !== undefined) resurrected++;
      else if (state !== null && now === undefined) lost++;
      else if (state !== null && Math.fround(state) !== now) wrong++;
    }
    for (const id of seen.keys()) if (!known[n].has(id) && !uncertain.has(id)) resurrected++;
  }
  const { body } = await client.json('POST', `${server.url}${hostPath}/describe_index_stats`, '{}');
  const statsMismatch = (body as { totalVectorCount: number }).totalVectorCount !== records;
  return { lost, resurrected, wrong, statsMismatch, records };
}

const dataDir = mkdtempSync(join(tmpdir(), 'conifer-soak-'));

async function main(): Promise<void> {
  console.log(`soak: ${MINUTES} min, restart every ${RESTART_EVERY_S} s, ${WRITERS} writers, ${READERS} readers, seed ${SEED}, data ${dataDir}`);
  server = await startServer(dataDir, API_KEY);
  const created = await client.json(
    'POST',
    `${server.url}/indexes`,
    JSON.stringify({ name: 'soak', dimension: DIM, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } }),
  );
  host = (created.body as { host: string }).host;
  hostPath = new URL(host).pathname;
  const rng = new Rng(SEED);
  const loads = [
    ...Array.from({ length: WRITERS }, (_, n) => writer(n, new Rng(rng.int(2 ** 31)))),
    ...Array.from({ length: READERS }, () => reader(new Rng(rng.int(2 ** 31)))),
  ];
  const endAt = t0 + MINUTES * 60_000;
  let nextProgress = Date.now() + 10_000;
  let nextBackup = Date.now() + 30_000;
  let nextRestart = Date.now() + RESTART_EVERY_S * 1000;
  let restarts = 0;
  let backups = 0;
  while (Date.now() < endAt) {
    await delay(250);
    const now = Date.now();
    if (now >= nextProgress) {
      progress();
      try {
        rss.push({ atS: elapsedS(), mib: memoryOf(server.pid).rssBytes / 1048576 });
      } catch {
        // restarting
      }
      nextProgress = now + 10_000;
    }
    if (now >= nextBackup) {
      const r = await call('POST', '/indexes/soak/backups', { name: `soak-${backups}` });
      if (r?.status === 201) backups++;
      nextBackup = now + 30_000;
    }
    if (RESTART_EVERY_S > 0 && now >= nextRestart && now < endAt - 15_000) {
      await restart(restarts % 2 === 0 ? 'SIGKILL' : 'SIGTERM');
      restarts++;
      nextRestart = Date.now() + RESTART_EVERY_S * 1000;
    }
  }
  stopping = true;
  await Promise.all(loads);
  console.log('verifying every acknowledged write ...');
  const v = await verify();
  const lat = summarize(total.latencies);
  console.log('\n== soak verdict ==');
  console.log(`requests: ok ${total.ok}, 429 ${total.s429}, 5xx ${total.s5xx}, other 4xx ${total.other4xx}, refused while restarting ${total.down}`);
  console.log(`latency of successful requests: p50 ${lat.p50Ms.toFixed(1)} ms, p95 ${lat.p95Ms.toFixed(1)} ms, p99 ${lat.p99Ms.toFixed(1)} ms, max ${lat.maxMs.toFixed(1)} ms`);
  console.log(`restarts ${restarts}, backups ${backups}, records at the end ${v.records}, ids left uncertain by kills ${uncertain.size}`);
  console.log(`lost writes ${v.lost}, resurrected deletes ${v.resurrected}, wrong versions ${v.wrong}, stats ${v.statsMismatch ? 'DIFFER from' : 'equal'} the fetchable records`);
  console.log(`RSS over time (MiB): ${rss.map((r) => `${r.atS}s:${r.mib.toFixed(0)}`).join(' ')}`);
  for (const line of fivexx) console.log(`  ${line}`);
  const pass = v.lost === 0 && v.resurrected === 0 && v.wrong === 0 && !v.statsMismatch && total.s5xx === 0 && total.other4xx === 0;
  console.log(`verdict: ${pass ? 'PASS' : 'FAIL'} (seed ${SEED})`);
  await server.stop();
  client.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exitCode = pass ? 0 : 1;
}

main().catch(async (err: unknown) => {
  console.error(err);
  stopping = true;
  await server?.stop();
  process.exitCode = 2;
});
