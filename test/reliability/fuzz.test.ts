// Issue 11, hostile input: a seeded fuzzer over every route of both planes — wrong types,
// 10,000-deep nesting, huge strings and arrays, NUL and lone surrogates, invalid UTF-8,
// `__proto__` keys, truncated JSON, wrong content types, oversized bodies, hostile path
// parameters, query strings and version headers. Every answer must be below 500, and every
// 4xx a JSON error body in the shape of its plane (DESIGN.md decision 3). Afterwards the
// server still serves and a canary record is byte-for-byte intact. The request sequence
// comes from a seed (CONIFER_TEST_SEED to replay), printed with any failure.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { prng } from '../helpers/prng.js';
import { rawExchange } from '../helpers/raw-http.js';
import { api, CURRENT_VERSION, removeDir, startServer, tempDataDir, type TestServer } from '../helpers/server.js';
import { createIndex, denseIndex, dp, fetchMap, upsert, POD } from '../data/support.js';

const SEED = Number(process.env.CONIFER_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = 2000;
const LANES = 4;
const DEEP = 10_000;

type Rand = () => number;
/** A JSON body under construction: a JS value, or raw text spliced in where JSON cannot say it. */
type Raw = { raw: string };
type Value = unknown;

const CANARY = {
  id: 'canary-1',
  values: [0.25, -0.5, 0.75, 1],
  metadata: { genre: 'canary', year: 2001, tags: ['a', 'b'], ok: true },
};

interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** `{name}` etc. are filled with a real value or a hostile one. */
  path: string;
  /** A plausible body; the fuzzer breaks it. Absent: the route takes no body. */
  body?: () => Record<string, Value>;
  /** Query parameters a plausible request would send. */
  query?: Record<string, string>;
  /** Path parameters that must never be the real ones (the route destroys). */
  destructive?: boolean;
}

const CONTROL: Route[] = [
  { method: 'GET', path: '/indexes' },
  {
    method: 'POST',
    path: '/indexes',
    // Names an existing index, so a body the fuzzer leaves valid is a 409, not a new index.
    body: () => ({ name: 'fz', dimension: 4, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } }, deletion_protection: 'disabled', tags: { a: 'b' } }),
  },
  { method: 'GET', path: '/indexes/{index}' },
  { method: 'PATCH', path: '/indexes/{index}', body: () => ({ deletion_protection: 'disabled', tags: { team: 'x' } }) },
  { method: 'DELETE', path: '/indexes/{index}', destructive: true },
  { method: 'GET', path: '/collections' },
  { method: 'POST', path: '/collections', body: () => ({ name: 'col1', source: 'fzpod' }) },
  { method: 'GET', path: '/collections/{collection}' },
  { method: 'DELETE', path: '/collections/{collection}', destructive: true },
  { method: 'POST', path: '/indexes/{index}/backups', body: () => ({ name: 'bk1', description: 'fuzz' }) },
  { method: 'GET', path: '/indexes/{index}/backups', query: { limit: '5' } },
  { method: 'GET', path: '/backups', query: { limit: '5' } },
  { method: 'GET', path: '/backups/{backup}' },
  { method: 'DELETE', path: '/backups/{backup}', destructive: true },
  { method: 'POST', path: '/backups/{backup}/create-index', body: () => ({ name: 'fz', deletion_protection: 'disabled' }) },
  { method: 'GET', path: '/restore-jobs', query: { limit: '5' } },
  { method: 'GET', path: '/restore-jobs/{job}' },
];

const DATA: Route[] = [
  {
    method: 'POST',
    path: '/vectors/upsert',
    body: () => ({ vectors: [{ id: 'v1', values: [0.1, 0.2, 0.3, 0.4], metadata: { g: 'x', n: 1 } }], namespace: 'fuzz' }),
  },
  { method: 'POST', path: '/vectors/update', body: () => ({ id: 'v1', values: [1, 2, 3, 4], setMetadata: { g: 'y' }, namespace: 'fuzz' }) },
  { method: 'POST', path: '/vectors/delete', body: () => ({ ids: ['v1'], namespace: 'fuzz', filter: { g: { $eq: 'x' } } }) },
  { method: 'GET', path: '/vectors/fetch', query: { ids: 'v1', namespace: 'fuzz' } },
  { method: 'POST', path: '/vectors/fetch_by_metadata', body: () => ({ filter: { g: { $in: ['x', 'y'] } }, namespace: 'fuzz', limit: 10 }) },
  { method: 'GET', path: '/vectors/list', query: { prefix: 'v', limit: '10', namespace: 'fuzz' } },
  {
    method: 'POST',
    path: '/query',
    body: () => ({ vector: [0.1, 0.2, 0.3, 0.4], topK: 3, filter: { n: { $gte: 0 } }, includeValues: true, includeMetadata: true, namespace: 'fuzz' }),
  },
  { method: 'POST', path: '/describe_index_stats', body: () => ({ filter: {} }) },
  { method: 'GET', path: '/describe_index_stats' },
  { method: 'GET', path: '/namespaces', query: { limit: '5' } },
  { method: 'POST', path: '/namespaces', body: () => ({ name: 'made-by-fuzz' }) },
  { method: 'GET', path: '/namespaces/{namespace}' },
  { method: 'DELETE', path: '/namespaces/{namespace}', destructive: true },
];

const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)];

/** The hostile values, each one kind of trouble. */
function hostile(rand: Rand): Value {
  const n = rand();
  if (n < 0.12) return pick(rand, [null, true, false, 0, -1, 1.5, -0, '8', '', [], {}, [1, 'a'], { a: 1 }, 2 ** 53 + 2, 1e308, -1e308]);
  if (n < 0.22) return { raw: deep(rand) };
  if (n < 0.3) return 'x'.repeat(1 + Math.floor(rand() * 300_000));
  if (n < 0.38) return { raw: `[${Array.from({ length: 20_000 + Math.floor(rand() * 100_000) }, () => (rand() < 0.9 ? '0.5' : '"s"')).join(',')}]` };
  if (n < 0.48) return pick(rand, ['a\u0000b', '\u0000', '\ud800', 'x\udfffy', '\udc00\ud800', '🙂'.repeat(100), 'a\u0000\ud800']);
  if (n < 0.56) return { raw: '{"__proto__":{"polluted":1,"toString":1},"constructor":{"prototype":{"x":1}},"hasOwnProperty":1}' };
  if (n < 0.62) return { raw: pick(rand, ['1e999', '-1e999', '1e39', '123456789012345678901234567890', '-0.0e-400']) };
  if (n < 0.7) return Array.from({ length: 1 + Math.floor(rand() * 3000) }, () => hostileSmall(rand));
  if (n < 0.8) {
    const o: Record<string, Value> = {};
    for (let i = 0; i < 1 + Math.floor(rand() * 50); i++) o[pick(rand, ['$eq', '$in', '$and', 'id', '', '$', 'a.b', '__proto__', 'constructor', `k${i}`])] = hostileSmall(rand);
    return o;
  }
  return hostileSmall(rand);
}

function hostileSmall(rand: Rand): Value {
  return pick(rand, [null, 1, -1, 'v1', '', {}, [], '\u0000', '\ud800', true, 1e308, 'x'.repeat(600), { $gt: 'a' }, [[]]]);
}

/** 10,000-deep arrays or objects around a number, or left unclosed. */
function deep(rand: Rand): string {
  const kind = rand();
  if (kind < 0.4) return '['.repeat(DEEP) + '1' + ']'.repeat(DEEP);
  if (kind < 0.8) return '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP);
  return '{"$and":['.repeat(DEEP) + '{}' + ']}'.repeat(DEEP);
}

/** JSON text of a value that may hold Raw pieces. */
function encode(value: Value): string {
  if (value !== null && typeof value === 'object' && 'raw' in value && typeof (value as Raw).raw === 'string' && Object.keys(value).length === 1) {
    return (value as Raw).raw;
  }
  if (Array.isArray(value)) return `[${value.map(encode).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${encode(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Replaces one field somewhere in `body` (descending into objects and arrays) with a hostile value. */
function mutate(rand: Rand, body: Value, depth = 0): Value {
  if (body === null || typeof body !== 'object' || depth > 4 || rand() < 0.25) return hostile(rand);
  if (Array.isArray(body)) {
    if (body.length === 0) return [hostile(rand)];
    const i = Math.floor(rand() * body.length);
    return body.map((v, j) => (j === i ? mutate(rand, v, depth + 1) : v));
  }
  const keys = Object.keys(body);
  const out: Record<string, Value> = { ...(body as Record<string, Value>) };
  if (keys.length === 0 || rand() < 0.15) {
    out[pick(rand, ['__proto__', 'extra', 'vectors', 'topK', 'id', 'name', 'spec'])] = hostile(rand);
  } else {
    const k = pick(rand, keys);
    out[k] = mutate(rand, out[k], depth + 1);
  }
  return out;
}

function hostileParam(rand: Rand): string {
  return pick(rand, [
    'does-not-exist',
    'x'.repeat(1 + Math.floor(rand() * 3000)),
    '%00',
    '%ud800',
    '%ED%A0%80', // a UTF-8-encoded lone surrogate
    '%FF%FE',
    '..%2F..%2Fetc%2Fpasswd',
    '__proto__',
    'constructor',
    '%20',
    'UPPER',
    '%F0%9F%99%82%00%ED%B0%80', // an emoji, NUL and a lone low surrogate, UTF-8 encoded
    '%',
    '-',
  ]);
}

function hostileQuery(rand: Rand, base: Record<string, string> = {}): string {
  const q = new URLSearchParams(base);
  for (let i = 0; i < 1 + Math.floor(rand() * 3); i++) {
    const k = pick(rand, ['ids', 'limit', 'paginationToken', 'namespace', 'prefix', 'includeDeleted', '__proto__', 'pagination_token']);
    const v = pick(rand, ['-1', '0', '1e9', 'abc', '', '\u0000', '\ud800', 'x'.repeat(3000), '%', 'true', '1.5', 'null', '[]', '{}']);
    if (rand() < 0.5) q.append(k, v);
    else q.set(k, v);
  }
  if (rand() < 0.1) for (let i = 0; i < 1200; i++) q.append('ids', `id-${i}`);
  // URLSearchParams cannot carry a malformed escape; append one raw now and then.
  return q.toString() + (rand() < 0.1 ? '&bad=%E0%A4%A' : '');
}

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  plane: 'control' | 'data';
  describe: string;
}

interface Targets {
  server: TestServer;
  dataPrefix: string; // /svc/<name>-<id7>
  real: Record<string, string>;
}

function build(rand: Rand, t: Targets): Sent {
  const plane: 'control' | 'data' = rand() < 0.5 ? 'control' : 'data';
  const route = pick(rand, plane === 'control' ? CONTROL : DATA);
  const notes: string[] = [];
  let path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (route.destructive || rand() < 0.3) {
      notes.push(`hostile {${name}}`);
      return hostileParam(rand);
    }
    return encodeURIComponent(t.real[name]);
  });
  if (plane === 'data') path = (rand() < 0.05 ? `/svc/${hostileParam(rand)}` : t.dataPrefix) + path;
  const headers: Record<string, string> = { 'Api-Key': t.server.apiKey, 'X-Service-Api-Version': CURRENT_VERSION };
  const h = rand();
  if (h < 0.03) delete headers['Api-Key'];
  else if (h < 0.05) headers['Api-Key'] = 'wrong';
  else if (h < 0.09) headers['X-Service-Api-Version'] = pick(rand, ['1999-01', 'latest', '', '2026-4', '2026-04; drop', 'x'.repeat(500)]);
  else if (h < 0.11) headers['X-Service-Api-Version'] = '2026-07';
  let query = route.query ? new URLSearchParams(route.query).toString() : '';
  if (route.method === 'GET' && rand() < 0.5) {
    query = hostileQuery(rand, route.query);
    notes.push('hostile query');
  }
  let body: Buffer | undefined;
  // fetch cannot send a GET body; other methods get one now and then where none is expected.
  if (route.body || (route.method !== 'GET' && rand() < 0.1)) {
    const base = route.body?.() ?? {};
    const b = rand();
    let text: string | Buffer;
    let contentType: string | undefined = 'application/json';
    if (b < 0.55) {
      text = encode(mutate(rand, base));
      notes.push('mutated body');
    } else if (b < 0.67) {
      text = encode(hostile(rand));
      notes.push('hostile body');
    } else if (b < 0.77) {
      const full = encode(base);
      text = full.slice(0, Math.floor(rand() * full.length));
      notes.push('truncated JSON');
    } else if (b < 0.87) {
      text = encode(base);
      contentType = pick(rand, ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1', undefined]);
      notes.push(`content type ${contentType}`);
    } else if (b < 0.95) {
      text = Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 2000) }, () => Math.floor(rand() * 256)));
      notes.push('random bytes');
    } else if (b < 0.97) {
      text = `{"vectors":[${'{"id":"o","values":[0.5,0.5,0.5,0.5]},'.repeat(60_000)}{"id":"o2","values":[1,1,1,1]}]}`;
      notes.push('oversized body');
    } else {
      text = `{"a":"${'\u0000'.repeat(10)}","b":"\\ud800\\udc00\\ud800","c":${'1'.repeat(400)}}`;
      notes.push('escapes');
    }
    body = typeof text === 'string' ? Buffer.from(text) : text;
    if (contentType !== undefined) headers['Content-Type'] = contentType;
  }
  const url = t.server.url + path + (query ? `?${query}` : '');
  return { method: route.method, url, headers, body, plane, describe: `${route.method} ${route.path} (${notes.join(', ') || 'plausible'})` };
}

/**
 * Sends one request over its own connection (test/helpers/raw-http.ts). A server may
 * answer before it read the body and close the connection; the answer counts, and the
 * client's broken upload that follows (EPIPE, ECONNRESET) does not — but a connection that
 * fails or closes without a complete answer is a failure ("no answer").
 */
async function send(req: Sent): Promise<{ status: number; text: string; contentType: string | null }> {
  const url = new URL(req.url);
  const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close'];
  for (const [name, value] of Object.entries(req.headers)) lines.push(`${name}: ${value}`);
  if (req.body) lines.push(`Content-Length: ${req.body.length}`);
  const res = await rawExchange(req.url, `${lines.join('\r\n')}\r\n\r\n`, req.body ?? null);
  const broken = res.writeError ? ` (socket error: ${res.writeError})` : '';
  if (res.status === 0) throw new Error(`${req.describe}: no answer${broken}`);
  if (!res.complete) throw new Error(`${req.describe}: answer cut off after ${res.head.split('\r\n')[0]}${broken}`);
  return { status: res.status, text: res.body, contentType: res.headers['content-type'] ?? null };
}

function checkAnswer(req: Sent, res: { status: number; text: string; contentType: string | null }): void {
  const what = `${req.describe} -> ${res.status} ${res.text.slice(0, 300)}`;
  assert.ok(res.status < 500, `no 5xx: ${what}`);
  if (res.status < 400) return;
  assert.match(res.contentType ?? '', /^application\/json/, `4xx is JSON: ${what}`);
  const body = JSON.parse(res.text);
  assert.equal(body.status, res.status, what);
  assert.equal(typeof body.error?.code, 'string', what);
  assert.equal(typeof body.error?.message, 'string', what);
  assert.ok(body.error.message.length > 0 && body.error.message.length <= 2000, `a short, non-empty message: ${what}`);
  if (req.plane === 'data' && new URL(req.url).pathname.startsWith('/svc/')) {
    assert.equal(typeof body.code, 'number', what);
    assert.equal(body.message, body.error.message, what);
    assert.deepEqual(body.details, [], what);
  }
}

describe('reliability: seeded fuzzer over both planes', () => {
  const dataDir = tempDataDir();
  let server: TestServer;
  let targets: Targets;
  let host: string;

  before(async () => {
    server = await startServer({ dataDir });
    host = await createIndex(server, denseIndex('fz', 4, 'cosine'));
    await createIndex(server, denseIndex('fzpod', 4, 'cosine', POD));
    await upsert(server, host, [CANARY], 'canary');
    const col = await api(server, 'POST', '/collections', { body: { name: 'col1', source: 'fzpod' } });
    assert.equal(col.status, 201, col.text);
    const bk = await api(server, 'POST', '/indexes/fz/backups', { body: { name: 'bk1' } });
    assert.equal(bk.status, 201, bk.text);
    targets = {
      server,
      dataPrefix: new URL(host).pathname,
      real: { index: 'fz', collection: 'col1', backup: bk.body.backup_id as string, job: 'none', namespace: 'canary' },
    };
  });

  after(async () => {
    await server?.stop();
    removeDir(dataDir);
  });

  it(`${REQUESTS} hostile requests: no 5xx, every 4xx a JSON error, the canary intact (seed ${SEED})`, { timeout: 300_000 }, async () => {
    try {
      const rand = prng(SEED);
      // Requests are built in one seeded sequence, then sent by a few lanes at once.
      const requests = Array.from({ length: REQUESTS }, () => build(rand, targets));
      let next = 0;
      await Promise.all(
        Array.from({ length: LANES }, async () => {
          while (next < requests.length) {
            const req = requests[next++];
            checkAnswer(req, await send(req));
          }
        }),
      );
      // Still serving, and the canary is exactly as written.
      assert.equal((await api(server, 'GET', '/health', { key: null })).status, 200);
      assert.deepEqual(await fetchMap(server, host, [CANARY.id], 'canary'), { [CANARY.id]: CANARY });
      const q = await dp(server, host, 'POST', '/query', { body: { vector: CANARY.values, topK: 1, namespace: 'canary', includeMetadata: true } });
      assert.equal(q.status, 200, q.text);
      assert.deepEqual(q.body.matches.map((m: { id: string; metadata: unknown }) => [m.id, m.metadata]), [[CANARY.id, CANARY.metadata]]);
      assert.equal((await api(server, 'GET', '/indexes/fz')).status, 200);
      assert.equal((await api(server, 'GET', '/collections/col1')).status, 200);
      await upsert(server, host, [{ id: 'after-fuzz', values: [1, 0, 0, 0] }], 'canary');
    } catch (err) {
      if (err instanceof Error) {
        // A 5xx names its request id; the server's log line for it says what went wrong.
        const id = /request id ([0-9a-f-]{36})/.exec(err.message)?.[1];
        const logged = id ? server.output().split('\n').filter((line) => line.includes(id)).join('\n').slice(0, 3000) : '';
        err.message = `[fuzz seed ${SEED}; replay with CONIFER_TEST_SEED=${SEED}] ${err.message}${logged ? `\nserver log: ${logged}` : ''}`;
      }
      throw err;
    }
  });
});
