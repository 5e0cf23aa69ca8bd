// Issue 11, overload: with small configured limits, data-plane requests beyond the running
// and waiting places of their kind get 429 RESOURCE_EXHAUSTED (gRPC 8) with Retry-After at
// once, while /health, the control plane and the other kind keep answering; every
// acknowledged write is durable, no refused write is applied, and requests succeed again
// once the burst ends. Places are held deterministically by uploads whose bodies are left
// unfinished, so no outcome depends on timing.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Pinecone } from '@pinecone-database/pinecone';
import { api, CURRENT_VERSION, removeDir, startServer, tempDataDir, type ApiResponse, type TestServer } from '../helpers/server.js';
import { createIndex, denseIndex, dp, fetchMap, listAll, stats } from '../data/support.js';

const LIMITS = {
  CONIFER_MAX_INFLIGHT_WRITES: '2',
  CONIFER_MAX_QUEUED_WRITES: '3',
  CONIFER_MAX_INFLIGHT_READS: '1',
  CONIFER_MAX_QUEUED_READS: '0',
};
const WRITE_PLACES = 2 + 3;

interface Holder {
  ids: string[];
  /** Settles with the response, which for an admitted holder comes only after finish(). */
  response: Promise<{ status: number; text: string; retryAfter?: string }>;
  responded: boolean;
  finish(): void;
}

/** Sends a request's headers and the first half of its body, and holds the rest back. */
function hold(server: TestServer, host: string, path: string, payload: unknown, ids: string[] = []): Holder {
  const body = Buffer.from(JSON.stringify(payload));
  const half = Math.floor(body.length / 2);
  const req = httpRequest(host + path, {
    method: 'POST',
    agent: false,
    headers: {
      'Content-Type': 'application/json',
      'Content-Length': String(body.length),
      'Api-Key': server.apiKey,
      'X-Service-Api-Version': CURRENT_VERSION,
    },
  });
  const holder: Holder = {
    ids,
    responded: false,
    response: new Promise((resolve, reject) => {
      req.on('response', (res) => {
        holder.responded = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, retryAfter: res.headers['retry-after'] as string | undefined }));
      });
      req.on('error', reject);
    }),
    finish: () => {
      if (!req.writableEnded) req.end(body.subarray(half));
    },
  };
  req.write(body.subarray(0, half));
  opened.push(holder);
  return holder;
}

/** Every holder opened, finished in after() so a failed test cannot leave the server waiting. */
const opened: Holder[] = [];

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function assertOverloaded(status: number, text: string, retryAfter: string | null | undefined, kind: string): void {
  assert.equal(status, 429, text);
  assert.equal(retryAfter, '1');
  const body = JSON.parse(text);
  assert.equal(body.status, 429);
  assert.equal(body.error.code, 'RESOURCE_EXHAUSTED');
  assert.equal(body.code, 8);
  assert.deepEqual(body.details, []);
  assert.equal(body.message, body.error.message);
  assert.match(body.message, new RegExp(`Too many concurrent data-plane ${kind}s`));
}

/** Opens write holders until the server refuses one, so every write place is taken. */
async function fillWritePlaces(server: TestServer, host: string, tag: string): Promise<Holder[]> {
  const holders: Holder[] = [];
  for (let k = 0; k < 40; k++) {
    const ids = Array.from({ length: 50 }, (_, i) => `${tag}-${k}-${i}`);
    const h = hold(server, host, '/vectors/upsert', { vectors: ids.map((id, i) => ({ id, values: [k, i, 1, 1] })) }, ids);
    holders.push(h);
    // An admitted or waiting holder never answers before finish(); a refused one at once.
    await Promise.race([h.response, delay(200)]);
    if (h.responded) return holders;
  }
  throw new Error('the server never refused a write holder');
}

describe('reliability: overload answers 429 from bounded queues', () => {
  const dataDir = tempDataDir();
  let server: TestServer;
  let host: string;

  before(async () => {
    server = await startServer({ dataDir, env: LIMITS });
    host = await createIndex(server, denseIndex('burst', 4, 'euclidean'));
  });

  after(async () => {
    for (const h of opened) h.finish();
    await server?.stop();
    removeDir(dataDir);
  });

  it('refuses a burst beyond the write places, keeps other requests answering, and loses nothing acknowledged', async () => {
    const holders = await fillWritePlaces(server, host, 'h');
    const refusedHolder = holders[holders.length - 1];
    const first = await refusedHolder.response;
    assertOverloaded(first.status, first.text, first.retryAfter, 'write');

    // Every place is held: a burst of writes is refused at once, none of it applied.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, b) =>
        dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [{ id: `burst-${b}`, values: [b, 0, 0, 1] }] } }),
      ),
    );
    for (const res of burst) assertOverloaded(res.status, res.text, res.headers.get('retry-after'), 'write');
    const del = await dp(server, host, 'POST', '/vectors/delete', { body: { deleteAll: true } });
    assertOverloaded(del.status, del.text, del.headers.get('retry-after'), 'write');

    // Meanwhile: health, the control plane and data-plane reads answer normally.
    assert.equal((await api(server, 'GET', '/health', { key: null })).status, 200);
    assert.equal((await api(server, 'GET', '/indexes')).status, 200);
    assert.equal((await api(server, 'GET', '/indexes/burst')).status, 200);
    const st = await stats(server, host);
    assert.equal(st.body.totalVectorCount, 0, 'nothing is committed while every write waits for its body');
    const q = await dp(server, host, 'POST', '/query', { body: { vector: [0, 0, 0, 1], topK: 5 } });
    assert.equal(q.status, 200, q.text);

    // The burst ends: the held uploads complete, exactly the places' worth acknowledged.
    for (const h of holders) h.finish();
    const results = await Promise.all(holders.map((h) => h.response));
    const acked = holders.filter((_, i) => results[i].status === 200);
    assert.equal(acked.length, WRITE_PLACES, JSON.stringify(results.map((r) => r.status)));
    for (let i = 0; i < holders.length; i++) {
      if (results[i].status === 200) assert.deepEqual(JSON.parse(results[i].text), { upsertedCount: 50 });
      else assertOverloaded(results[i].status, results[i].text, results[i].retryAfter, 'write');
    }

    // Requests succeed again, one after another.
    for (let b = 0; b < 5; b++) {
      const res = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [{ id: `after-${b}`, values: [b, 1, 1, 1] }] } });
      assert.equal(res.status, 200, res.text);
    }

    // Durable: after kill -9 exactly the acknowledged records are there.
    const expected = [...acked.flatMap((h) => h.ids), ...Array.from({ length: 5 }, (_, b) => `after-${b}`)].sort();
    await server.kill();
    server = await startServer({ dataDir, env: LIMITS });
    host = host.replace(/^http:\/\/[^/]+/, server.url);
    await waitReady(server);
    assert.deepEqual(await listAll(server, host), expected);
    assert.equal((await stats(server, host)).body.totalVectorCount, expected.length);
    const refusedIds = holders.filter((_, i) => results[i].status !== 200).flatMap((h) => h.ids);
    assert.deepEqual(await fetchMap(server, host, [...refusedIds.slice(0, 100), 'burst-0', 'burst-19']), {});
  });

  it('limits reads separately: a held query place refuses the next query while writes go on', async () => {
    const holdQuery = (): Holder =>
      hold(server, host, '/query', { vector: [0, 0, 0, 1], topK: 3, filter: { pad: { $nin: Array.from({ length: 200 }, (_, i) => `v${i}`) } } });
    let held = holdQuery();
    let refused: ApiResponse | undefined;
    // Up to ~20 s for the holder to reach the server: on a loaded CI machine it can take seconds.
    for (let k = 0; k < 400 && !refused; k++) {
      if (held.responded) {
        // A place is freed when its response closes, a moment after the client has read
        // it; a holder that arrived in that moment was refused. Hold again.
        const early = await held.response;
        assertOverloaded(early.status, early.text, early.retryAfter, 'read');
        held = holdQuery();
        await delay(50);
        continue;
      }
      const res = await dp(server, host, 'POST', '/query', { body: { vector: [1, 0, 0, 0], topK: 1 } });
      if (res.status === 429) refused = res;
      else {
        assert.equal(res.status, 200, res.text); // the holder had not reached the server yet
        await delay(50);
      }
    }
    assert.ok(refused, 'a query was refused while the only read place was held');
    assertOverloaded(refused.status, refused.text, refused.headers.get('retry-after'), 'read');
    const fetchRefused = await dp(server, host, 'GET', '/vectors/fetch?ids=after-0');
    assertOverloaded(fetchRefused.status, fetchRefused.text, fetchRefused.headers.get('retry-after'), 'read');
    const write = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [{ id: 'w', values: [1, 2, 3, 4] }] } });
    assert.equal(write.status, 200, write.text);
    held.finish();
    const done = await held.response;
    assert.equal(done.status, 200, done.text);
    assert.equal(JSON.parse(done.text).matches.length, 3);
    assert.deepEqual(Object.keys(await fetchMap(server, host, ['w'])), ['w']);
  });

  it('the official client 8.2.0 does not retry a 429: one request, PineconeUnmappedHttpError with status 429', async () => {
    const holders = await fillWritePlaces(server, host, 'c');
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    // Default retries (3): the client retries 5xx only (utils/fetch.js isRetryableResponse).
    const pc = new Pinecone({ apiKey: server.apiKey, controllerHostUrl: server.url, fetchApi: counting });
    const index = pc.index({ host });
    await assert.rejects(index.upsert({ records: [{ id: 'client-1', values: [1, 1, 1, 1] }] }), (err: Error) => {
      assert.equal(err.name, 'PineconeUnmappedHttpError');
      assert.match(err.message, /Status: 429/);
      assert.match(err.message, /Too many concurrent data-plane writes/);
      return true;
    });
    assert.equal(calls, 1, 'the client sent the refused upsert once');
    for (const h of holders) h.finish();
    await Promise.all(holders.map((h) => h.response));
    await index.upsert({ records: [{ id: 'client-1', values: [1, 1, 1, 1] }] });
    assert.deepEqual(Object.keys(await fetchMap(server, host, ['client-1'])), ['client-1']);
  });
});

async function waitReady(server: TestServer): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if ((await api(server, 'GET', '/ready', { key: null })).status === 200) return;
    await delay(50);
  }
  throw new Error('server not ready after restart');
}
