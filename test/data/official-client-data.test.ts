// The official TypeScript client @pinecone-database/pinecone 8.2.0 on the data plane:
// upsert, query (by vector and id, with filters), fetch, list, update, delete (ids, filter,
// all), stats and namespaces, sparse indexes — and proof that the client's default
// namespace ("__default__") and a raw HTTP caller's ("" or none) are one namespace
// (DESIGN.md decision 5).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Pinecone, type Index, type QueryOptions, type RecordMetadata } from '@pinecone-database/pinecone';
import { startServer, api, removeDir, type TestServer } from '../helpers/server.js';

type Meta = { genre: string; year: number; tags?: string[]; extra?: string };
interface Rec {
  id: string;
  values: number[];
  metadata: Meta;
}

// Values with short decimal forms: the server prints float32 in the shortest form that
// reads back as the same float32 (decision 8), so they come back exactly as sent.
const RECORDS: Rec[] = [
  { id: 'doc1#a', values: [0.1, 0.2, 0.3, 0.4], metadata: { genre: 'drama', year: 1999, tags: ['x', 'y'] } },
  { id: 'doc1#b', values: [0.4, 0.3, 0.2, 0.1], metadata: { genre: 'comedy', year: 2005 } },
  { id: 'doc1#c', values: [-0.5, 0.25, 0.125, 1.5], metadata: { genre: 'drama', year: 2010, tags: ['z'] } },
  { id: 'doc2#a', values: [1, 0, 0, 0], metadata: { genre: 'action', year: 2020 } },
  { id: 'doc2#b', values: [0, 1, 0, 0], metadata: { genre: 'drama', year: 2021 } },
  { id: 'doc3', values: [0.7, -0.7, 0.1, 0.01], metadata: { genre: 'comedy', year: 1980, tags: ['x'] } },
  { id: 'doc1_x', values: [0.3, 0.3, 0.3, 0.3], metadata: { genre: 'action', year: 2001 } }, // `_` is not a wildcard
];

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = Math.fround(a[i]);
    const y = Math.fround(b[i]);
    dot += x * y;
    aa += x * x;
    bb += y * y;
  }
  return dot / (Math.sqrt(aa) * Math.sqrt(bb));
}

function brute(records: Rec[], q: number[], topK: number, keep: (m: Meta) => boolean = () => true): Array<{ id: string; score: number }> {
  return records
    .filter((r) => keep(r.metadata))
    .map((r) => ({ id: r.id, score: cosine(q, r.values) }))
    .sort((a, b) => Math.fround(b.score) - Math.fround(a.score) || (a.id < b.id ? -1 : 1))
    .slice(0, topK);
}

function assertMatches(got: Array<{ id: string; score?: number }>, want: Array<{ id: string; score: number }>, label: string): void {
  assert.deepEqual(got.map((m) => m.id), want.map((m) => m.id), `${label}: ids`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs((got[i].score ?? NaN) - want[i].score) <= 1e-6, `${label}: score of ${want[i].id} is ${got[i].score}, expected ${want[i].score}`);
  }
}

describe('official TypeScript client 8.2.0 on the data plane', () => {
  let server: TestServer;
  let pc: Pinecone;
  let index: Index<Meta>;
  let host: string;

  before(async () => {
    server = await startServer();
    pc = new Pinecone({ apiKey: server.apiKey, controllerHostUrl: server.url, maxRetries: 0 });
    const model = await pc.createIndex({
      name: 'oc-data',
      dimension: 4,
      metric: 'cosine',
      spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
    });
    assert.ok(model && model.status.ready, 'index should be ready at once');
    host = model.host;
    index = pc.index<Meta>({ name: 'oc-data' }); // resolves the host through describeIndex
  });

  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dataDir);
  });

  /** Raw HTTP against the index host, as a non-client caller would speak. */
  const raw = (method: string, path: string, body?: unknown) => api(server, method, `${host}${path}`, body === undefined ? {} : { body });

  it('upsert and fetch: records come back with their values and metadata', async () => {
    await index.upsert({ records: RECORDS });
    const res = await index.fetch({ ids: [...RECORDS.map((r) => r.id), 'missing'] });
    assert.deepEqual(Object.keys(res.records).sort(), RECORDS.map((r) => r.id).sort(), 'missing ids are absent');
    for (const r of RECORDS) {
      const got = res.records[r.id];
      assert.equal(got.id, r.id);
      assert.deepEqual(got.values, r.values, `values of ${r.id} read back as sent`);
      assert.deepEqual(got.metadata, r.metadata, `metadata of ${r.id}`);
    }
  });

  it('query by vector, with and without filters, equals brute force', async () => {
    const q = [0.3, 0.1, -0.2, 0.9];
    let res = await index.query({ vector: q, topK: 4 });
    assertMatches(res.matches, brute(RECORDS, q, 4), 'no filter');
    assert.equal(res.matches[0].metadata, undefined, 'metadata only when asked');
    res = await index.query({ vector: q, topK: 10, filter: { genre: { $eq: 'drama' } }, includeMetadata: true });
    assertMatches(res.matches, brute(RECORDS, q, 10, (m) => m.genre === 'drama'), 'genre = drama');
    for (const m of res.matches) assert.deepEqual(m.metadata, RECORDS.find((r) => r.id === m.id)!.metadata);
    res = await index.query({ vector: q, topK: 10, filter: { $or: [{ year: { $lt: 2000 } }, { tags: { $in: ['z'] } }] } });
    assertMatches(res.matches, brute(RECORDS, q, 10, (m) => m.year < 2000 || (m.tags ?? []).includes('z')), '$or');
    res = await index.query({ vector: q, topK: 3, filter: { genre: 'nope' } });
    assert.deepEqual(res.matches, []);
    res = await index.query({ vector: q, topK: 1, includeValues: true });
    const top = RECORDS.find((r) => r.id === res.matches[0].id)!;
    assert.deepEqual(res.matches[0].values, top.values);
  });

  it('query by id (with a filter) equals query by that record vector', async () => {
    for (const r of RECORDS.slice(0, 4)) {
      const byId = await index.query({ id: r.id, topK: 5, filter: { year: { $gte: 2000 } } });
      const byVector = await index.query({ vector: r.values, topK: 5, filter: { year: { $gte: 2000 } } });
      assert.deepEqual(byId.matches, byVector.matches, `query by id ${r.id}`);
      assertMatches(byId.matches, brute(RECORDS, r.values, 5, (m) => m.year >= 2000), `by id ${r.id}`);
    }
    const none = await index.query({ id: 'missing', topK: 3 });
    assert.deepEqual(none.matches, []);
  });

  it('listPaginated with a prefix pages through ids in byte order', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await index.listPaginated({ prefix: 'doc1#', limit: 2, paginationToken: token });
      for (const v of res.vectors ?? []) seen.push(v.id!);
      token = res.pagination?.next;
      if (!token) break;
    }
    assert.deepEqual(seen, ['doc1#a', 'doc1#b', 'doc1#c']);
    const all = await index.listPaginated();
    assert.deepEqual(all.vectors?.map((v) => v.id), RECORDS.map((r) => r.id).sort());
    const underscore = await index.listPaginated({ prefix: 'doc1_' });
    assert.deepEqual(underscore.vectors?.map((v) => v.id), ['doc1_x']);
  });

  it('update changes values and merges metadata', async () => {
    await index.update({ id: 'doc3', values: [0.5, 0.5, 0.5, 0.5], metadata: { extra: 'new', year: 1981 } });
    const res = await index.fetch({ ids: ['doc3'] });
    assert.deepEqual(res.records.doc3.values, [0.5, 0.5, 0.5, 0.5]);
    assert.deepEqual(res.records.doc3.metadata, { genre: 'comedy', year: 1981, tags: ['x'], extra: 'new' });
    const rec = RECORDS.find((r) => r.id === 'doc3')!;
    rec.values = [0.5, 0.5, 0.5, 0.5];
    rec.metadata = { ...rec.metadata, extra: 'new', year: 1981 };
    // Search sees the update at once (decision 9).
    const q = [0.5, 0.5, 0.5, 0.5];
    const top = await index.query({ vector: q, topK: 3 });
    assertMatches(top.matches, brute(RECORDS, q, 3), 'after update');
    const filtered = await index.query({ vector: q, topK: 3, filter: { extra: 'new' } });
    assert.deepEqual(filtered.matches.map((m) => m.id), ['doc3']);
  });

  it('describeIndexStats names the default namespace __default__', async () => {
    await index.namespace('ns1').upsert({ records: RECORDS.slice(0, 3) });
    const stats = await index.describeIndexStats();
    assert.equal(stats.dimension, 4);
    assert.equal(stats.totalRecordCount, RECORDS.length + 3);
    assert.deepEqual(stats.namespaces, { __default__: { recordCount: RECORDS.length }, ns1: { recordCount: 3 } });
  });

  it('namespaces: list, describe, create and delete', async () => {
    const list = await index.listNamespaces();
    const byName = new Map((list.namespaces ?? []).map((n) => [n.name, Number(n.recordCount)]));
    assert.deepEqual([...byName.entries()].sort(), [['__default__', RECORDS.length], ['ns1', 3]]);
    assert.equal(list.totalCount, 2);
    const limited = await index.listNamespaces({ limit: 1 });
    assert.equal(limited.namespaces?.length, 1);
    assert.ok(limited.pagination?.next, 'a next token when more namespaces remain');
    const rest = await index.listNamespaces({ limit: 1, paginationToken: limited.pagination!.next });
    assert.deepEqual([limited.namespaces![0].name, rest.namespaces![0].name].sort(), ['__default__', 'ns1']);
    const prefixed = await index.listNamespaces({ prefix: 'ns' });
    assert.deepEqual(prefixed.namespaces?.map((n) => n.name), ['ns1']);

    const ns1 = await index.describeNamespace('ns1');
    assert.equal(ns1.name, 'ns1');
    assert.equal(Number(ns1.recordCount), 3);
    const def = await index.describeNamespace('__default__');
    assert.equal(Number(def.recordCount), RECORDS.length);

    const created = await index.createNamespace({ name: 'empty-ns' });
    assert.equal(created.name, 'empty-ns');
    assert.equal(Number((await index.describeNamespace('empty-ns')).recordCount), 0);
    await index.deleteNamespace('empty-ns');

    await index.deleteNamespace('ns1');
    await assert.rejects(index.describeNamespace('ns1'), (err: Error) => err.name === 'PineconeNotFoundError', 'deleted namespace is 404');
    const after = await index.describeIndexStats();
    assert.deepEqual(after.namespaces, { __default__: { recordCount: RECORDS.length } });
    const q = await index.namespace('ns1').query({ vector: [1, 0, 0, 0], topK: 3 });
    assert.deepEqual(q.matches, []);
  });

  it("the client's __default__ and a raw caller's \"\" or absent namespace are one namespace", async () => {
    // Raw upsert without a namespace field; the client fetches, queries and lists it.
    let res = await raw('POST', '/vectors/upsert', { vectors: [{ id: 'raw-none', values: [0.9, 0.1, 0.1, 0.1], metadata: { genre: 'raw', year: 1 } }] });
    assert.equal(res.status, 200, res.text);
    res = await raw('POST', '/vectors/upsert', { vectors: [{ id: 'raw-empty', values: [0.1, 0.9, 0.1, 0.1], metadata: { genre: 'raw', year: 2 } }], namespace: '' });
    assert.equal(res.status, 200, res.text);
    const fetched = await index.fetch({ ids: ['raw-none', 'raw-empty'] });
    assert.deepEqual(Object.keys(fetched.records).sort(), ['raw-empty', 'raw-none']);
    assert.deepEqual(fetched.records['raw-none'].values, [0.9, 0.1, 0.1, 0.1]);
    const q = await index.query({ vector: [1, 1, 0.1, 0.1], topK: 2, filter: { genre: 'raw' } });
    assert.deepEqual(q.matches.map((m) => m.id).sort(), ['raw-empty', 'raw-none']);
    const listed = await index.listPaginated({ prefix: 'raw-' });
    assert.deepEqual(listed.vectors?.map((v) => v.id), ['raw-empty', 'raw-none']);

    // Client upsert (namespace "__default__"); raw callers see it with "" and with none.
    await index.upsert({ records: [{ id: 'client-rec', values: [0.2, 0.2, 0.9, 0.2], metadata: { genre: 'client', year: 3 } }] });
    for (const qs of ['', '&namespace=', '&namespace=__default__']) {
      res = await raw('GET', `/vectors/fetch?ids=client-rec&ids=raw-none${qs}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body.vectors).sort(), ['client-rec', 'raw-none'], `raw fetch${qs || ' (no namespace)'}`);
      assert.deepEqual(res.body.vectors['client-rec'].values, [0.2, 0.2, 0.9, 0.2]);
    }
    for (const ns of [{}, { namespace: '' }, { namespace: '__default__' }]) {
      res = await raw('POST', '/query', { vector: [0.2, 0.2, 0.9, 0.2], topK: 1, ...ns });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.matches[0]?.id, 'client-rec', `raw query ${JSON.stringify(ns)}`);
    }
    // One namespace in the stats, counted once.
    const total = RECORDS.length + 3;
    const stats = await index.describeIndexStats();
    assert.deepEqual(stats.namespaces, { __default__: { recordCount: total } });
    res = await raw('POST', '/describe_index_stats', {});
    assert.deepEqual(Object.keys(res.body.namespaces), ['__default__']);
    assert.equal(res.body.totalVectorCount, total);

    // Deletes cross over too: raw delete (no namespace) of a client record, client delete of a raw one.
    res = await raw('POST', '/vectors/delete', { ids: ['client-rec'] });
    assert.equal(res.status, 200, res.text);
    await index.deleteOne({ id: 'raw-none' });
    res = await raw('POST', '/vectors/delete', { ids: ['raw-empty'], namespace: '' });
    assert.equal(res.status, 200, res.text);
    const left = await index.fetch({ ids: ['client-rec', 'raw-none', 'raw-empty'] });
    assert.deepEqual(left.records, {});
    res = await raw('GET', '/vectors/fetch?ids=client-rec&ids=raw-none&ids=raw-empty');
    assert.deepEqual(res.body.vectors, {});
  });

  it('deleteOne, deleteMany (ids and filter) and deleteAll', async () => {
    await index.deleteOne({ id: 'doc2#a' });
    await index.deleteMany({ ids: ['doc2#b', 'doc1_x', 'never-existed'] });
    let left = RECORDS.filter((r) => !['doc2#a', 'doc2#b', 'doc1_x'].includes(r.id));
    let listed = await index.listPaginated();
    assert.deepEqual(listed.vectors?.map((v) => v.id), left.map((r) => r.id).sort());

    await index.deleteMany({ filter: { genre: { $eq: 'drama' } } });
    left = left.filter((r) => r.metadata.genre !== 'drama');
    listed = await index.listPaginated();
    assert.deepEqual(listed.vectors?.map((v) => v.id), left.map((r) => r.id).sort());
    const q = [0.1, 0.2, 0.3, 0.4];
    const res = await index.query({ vector: q, topK: 10 });
    assertMatches(res.matches, brute(left, q, 10), 'after deletes');
    assert.equal((await index.describeIndexStats()).totalRecordCount, left.length);

    // deleteAll empties the default namespace only.
    await index.namespace('keep').upsert({ records: [{ id: 'k1', values: [1, 2, 3, 4] }] });
    await index.deleteAll();
    const stats = await index.describeIndexStats();
    assert.deepEqual(stats.namespaces, { keep: { recordCount: 1 } });
    assert.deepEqual((await index.query({ vector: q, topK: 10 })).matches, []);
    assert.deepEqual((await index.listPaginated()).vectors ?? [], []);
    const raw0 = await raw('POST', '/query', { vector: q, topK: 10 });
    assert.deepEqual(raw0.body.matches, []);
    // deleteAll on an empty namespace is a no-op, not an error.
    await index.deleteAll();
  });

  it('sparse index: createIndex, upsert sparse records, query with sparseVector and by id', async () => {
    const model = await pc.createIndex({
      name: 'oc-sparse',
      vectorType: 'sparse',
      metric: 'dotproduct',
      spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
    });
    assert.ok(model);
    assert.equal(model.vectorType, 'sparse');
    const sparse = pc.index<RecordMetadata>({ name: 'oc-sparse' });
    const records = [
      { id: 's1', sparseValues: { indices: [1, 5, 9], values: [0.5, 0.25, 1] }, metadata: { kind: 'a' } },
      { id: 's2', sparseValues: { indices: [5, 10], values: [2, 0.5] }, metadata: { kind: 'b' } },
      { id: 's3', sparseValues: { indices: [9, 4294967295], values: [0.75, 3] }, metadata: { kind: 'a' } },
      { id: 's0', sparseValues: { indices: [5, 10], values: [2, 0.5] }, metadata: { kind: 'b' } }, // ties s2
    ];
    await sparse.upsert({ records });
    const fetched = await sparse.fetch({ ids: ['s3'] });
    assert.deepEqual(fetched.records.s3.sparseValues, { indices: [9, 4294967295], values: [0.75, 3] });
    assert.deepEqual(fetched.records.s3.metadata, { kind: 'a' });

    // Scores by hand: q = {5: 1, 9: 2, 4294967295: 0.5}.
    // s1 = 0.25 + 2 = 2.25; s2 = s0 = 2; s3 = 1.5 + 1.5 = 3.
    const query = { sparseVector: { indices: [5, 9, 4294967295], values: [1, 2, 0.5] }, topK: 4 };
    let res = await sparse.query(query as unknown as QueryOptions); // no dense `vector` for a sparse index
    assert.deepEqual(res.matches.map((m) => [m.id, m.score]), [['s3', 3], ['s1', 2.25], ['s0', 2], ['s2', 2]]);
    res = await sparse.query({ ...query, topK: 4, filter: { kind: 'a' } } as unknown as QueryOptions);
    assert.deepEqual(res.matches.map((m) => [m.id, m.score]), [['s3', 3], ['s1', 2.25]]);
    // By id: s2's own sparse vector {5: 2, 10: 0.5} → s0 = s2 = 4.25, s1 = 0.5.
    res = await sparse.query({ id: 's2', topK: 3 });
    assert.deepEqual(res.matches.map((m) => [m.id, m.score]), [['s0', 4.25], ['s2', 4.25], ['s1', 0.5]]);
    const stats = await sparse.describeIndexStats();
    assert.equal(stats.totalRecordCount, 4);
    assert.equal(stats.dimension, undefined);
  });
});
