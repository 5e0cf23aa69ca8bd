// Freshness headers (issue 15): writes answer `x-pinecone-request-lsn`, reads
// `x-pinecone-max-indexed-lsn`, from the index's sequence numbers. LSNs grow with every
// write, are per index, and a read reporting an LSN >= a write's LSN sees that write.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, removeDir, type ApiResponse, type TestServer } from '../helpers/server.js';
import { createIndex, denseIndex, dp, fetchQuery } from './support.js';

const WRITE = 'x-pinecone-request-lsn';
const READ = 'x-pinecone-max-indexed-lsn';

function lsnOf(res: ApiResponse, header: string): number {
  assert.ok(res.status >= 200 && res.status < 300, `${res.status}: ${res.text}`);
  const raw = res.headers.get(header);
  assert.ok(raw !== null && /^\d+$/.test(raw), `${header} must be a decimal integer, got ${raw}`);
  return Number(raw);
}

/** A distinct direction per i, so a query for it finds it under cosine. */
const vectorOf = (i: number): number[] => Array.from({ length: 8 }, (_, j) => Math.sin(i * 7.1 + j * 1.3) + (j === i % 8 ? 2 : 0));

describe('data plane: freshness headers (LSN)', () => {
  let server: TestServer;
  let host: string;
  let other: string;

  before(async () => {
    server = await startServer();
    host = await createIndex(server, denseIndex('lsn-a', 8));
    other = await createIndex(server, denseIndex('lsn-b', 8));
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  it('every kind of write answers a larger LSN than the write before it', async () => {
    const lsns: number[] = [];
    const write = async (method: string, path: string, body?: unknown): Promise<number> => {
      const lsn = lsnOf(await dp(server, host, method, path, body === undefined ? {} : { body }), WRITE);
      lsns.push(lsn);
      return lsn;
    };
    await write('POST', '/vectors/upsert', { vectors: [{ id: 'w1', values: vectorOf(1) }, { id: 'w2', values: vectorOf(2) }] });
    await write('POST', '/vectors/update', { id: 'w1', setMetadata: { k: 1 } });
    await write('POST', '/vectors/delete', { ids: ['w2'] });
    await write('POST', '/vectors/upsert', { vectors: [{ id: 'n1', values: vectorOf(3) }], namespace: 'ns' });
    await write('DELETE', '/namespaces/ns');
    await write('POST', '/vectors/update', { filter: { k: 1 }, setMetadata: { k: 2 } });
    for (let i = 1; i < lsns.length; i++) assert.ok(lsns[i] > lsns[i - 1], `LSNs must grow: ${lsns.join(', ')}`);
    // A write that changes nothing (an unknown id) is given the LSN already reached.
    const last = lsns[lsns.length - 1];
    assert.equal(lsnOf(await dp(server, host, 'POST', '/vectors/update', { body: { id: 'nobody', setMetadata: { k: 3 } } }), WRITE), last);
  });

  it('reads report the LSN of the last write, which they reflect; other indexes do not move it', async () => {
    const written = lsnOf(await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [{ id: 'r1', values: vectorOf(11) }] } }), WRITE);
    // Writes to another index have their own sequence.
    lsnOf(await dp(server, other, 'POST', '/vectors/upsert', { body: { vectors: [{ id: 'x', values: vectorOf(5) }] } }), WRITE);
    const reads: [string, string, unknown][] = [
      ['POST', '/query', { vector: vectorOf(11), topK: 1 }],
      ['GET', fetchQuery(['r1']), undefined],
      ['GET', '/vectors/list', undefined],
      ['POST', '/vectors/fetch_by_metadata', {}],
      ['POST', '/describe_index_stats', {}],
      ['GET', '/describe_index_stats', undefined],
    ];
    for (const [method, path, body] of reads) {
      const res = await dp(server, host, method, path, body === undefined ? {} : { body });
      assert.equal(lsnOf(res, READ), written, `${method} ${path}`);
      assert.equal(res.headers.get(WRITE), null, `${method} ${path} is a read`);
    }
    const query = await dp(server, host, 'POST', '/query', { body: { vector: vectorOf(11), topK: 1 } });
    assert.equal(query.body.matches[0].id, 'r1');
  });

  it('a refused write answers no LSN', async () => {
    const res = await dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [{ id: 'bad', values: [1, 2] }] } });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get(WRITE), null);
  });

  it('a query whose LSN is >= a concurrent write’s LSN sees that write', async () => {
    // Writes and queries race; whichever order the server takes them in, the headers
    // must tell the truth about what each query saw.
    const results: { id: string; writeLsn: number; queryLsn: number; found: boolean }[] = [];
    for (let i = 100; i < 140; i++) {
      const id = `c${i}`;
      const values = vectorOf(i);
      const [w, q] = await Promise.all([
        dp(server, host, 'POST', '/vectors/upsert', { body: { vectors: [{ id, values }] } }),
        dp(server, host, 'POST', '/query', { body: { vector: values, topK: 100 } }),
      ]);
      const found = (q.body.matches as { id: string }[]).some((m) => m.id === id);
      results.push({ id, writeLsn: lsnOf(w, WRITE), queryLsn: lsnOf(q, READ), found });
    }
    for (const r of results) {
      if (r.queryLsn >= r.writeLsn) assert.ok(r.found, `query at LSN ${r.queryLsn} missed ${r.id} written at ${r.writeLsn}`);
      else assert.ok(!r.found, `query at LSN ${r.queryLsn} saw ${r.id}, written later at ${r.writeLsn}`);
    }
  });
});
