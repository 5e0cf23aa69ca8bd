// Routes Pinecone serves and Conifer does not answer 501 UNIMPLEMENTED naming the feature
// (data plane: gRPC code 12), after authentication (401 without a key) — not a generic
// 404 that the clients report as "not found" (issue 10; README "What Conifer does not do").
// Checked over raw HTTP only: the TypeScript clients 8.2.0 and 9.0.0 retry every 5xx,
// 501 included, and then throw PineconeMaxRetriesExceededError without the message
// (utils/fetch.js in both); the Python client does not retry 501 and shows the message.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, type TestServer } from '../helpers/server.js';
import { assertError, serverlessBody, stopAndClean } from './support.js';

interface Case {
  method: string;
  path: string;
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  /** Words the message must contain: the feature's name. */
  names: string[];
}

const CONTROL: Case[] = [
  { method: 'POST', path: '/embed', body: { model: 'multilingual-e5-large', inputs: [{ text: 'a' }] }, names: ['embed', 'inference'] },
  { method: 'POST', path: '/rerank', body: { model: 'bge-reranker-v2-m3', query: 'q', documents: [] }, names: ['rerank', 'inference'] },
  { method: 'GET', path: '/models', names: ['models', 'inference'] },
  { method: 'GET', path: '/models/multilingual-e5-large', names: ['models', 'inference'] },
  {
    method: 'POST',
    path: '/indexes/create-for-model',
    body: { name: 'x', cloud: 'aws', region: 'us-east-1', embed: { model: 'm', field_map: { text: 't' } } },
    names: ['integrated embedding', 'create-for-model'],
  },
  { method: 'GET', path: '/indexes/plain/backup-schedules', names: ['backup schedules'] },
  { method: 'POST', path: '/indexes/plain/backup-schedules', body: { schedule: 'daily' }, names: ['backup schedules'] },
  { method: 'GET', path: '/backup-schedules/s1', names: ['backup schedules'] },
  { method: 'PATCH', path: '/backup-schedules/s1', body: {}, names: ['backup schedules'] },
  { method: 'DELETE', path: '/backup-schedules/s1', names: ['backup schedules'] },
  { method: 'GET', path: '/backup-schedules/s1/history', names: ['backup schedules'] },
  { method: 'GET', path: '/assistant/assistants', names: ['assistant'] },
  { method: 'POST', path: '/assistant/assistants', body: { name: 'helper' }, names: ['assistant'] },
  { method: 'GET', path: '/assistants', names: ['assistant'] },
  { method: 'DELETE', path: '/assistants/helper', names: ['assistant'] },
  { method: 'POST', path: '/assistant/chat/helper', body: { messages: [] }, names: ['assistant'] },
];

const DATA: Case[] = [
  {
    method: 'POST',
    path: '/records/namespaces/ns/upsert',
    rawBody: '{"_id":"a","chunk_text":"hello"}\n{"_id":"b","chunk_text":"world"}\n',
    contentType: 'application/x-ndjson',
    names: ['records upsert', 'integrated embedding'],
  },
  {
    method: 'POST',
    path: '/records/namespaces/__default__/search',
    body: { query: { top_k: 3, inputs: { text: 'hello' } } },
    names: ['records search', 'integrated embedding'],
  },
  ...['upsert', 'search', 'fetch', 'list', 'update', 'delete'].map(
    (op): Case => ({ method: 'POST', path: `/namespaces/ns/documents/${op}`, body: {}, names: ['documents API', '2026-07'] }),
  ),
];

describe('features Conifer does not implement answer 501', () => {
  let server: TestServer;
  let host: string;

  before(async () => {
    server = await startServer();
    const res = await api(server, 'POST', '/indexes', { body: serverlessBody('plain') });
    assert.equal(res.status, 201, res.text);
    host = res.body.host;
  });

  after(async () => {
    await stopAndClean(server);
  });

  const send = (c: Case, base: string, key?: null) =>
    api(server, c.method, base + c.path, { body: c.body, rawBody: c.rawBody, contentType: c.contentType, key });

  describe('control plane', () => {
    for (const c of CONTROL) {
      it(`${c.method} ${c.path}: 401 without a key, 501 naming the feature with one`, async () => {
        assertError(await send(c, server.url, null), 401, 'UNAUTHENTICATED');
        const res = await send(c, server.url);
        assertError(res, 501, 'UNIMPLEMENTED', c.names);
        assert.equal(res.body.code, undefined, 'control-plane shape has no gRPC code');
      });
    }
  });

  describe('data plane', () => {
    for (const c of DATA) {
      it(`${c.method} ${c.path}: 401 without a key, 501 with gRPC code 12 naming the feature`, async () => {
        assertError(await send(c, host, null), 401, 'UNAUTHENTICATED');
        const res = await send(c, host);
        assertError(res, 501, 'UNIMPLEMENTED', c.names);
        assert.equal(res.body.code, 12, res.text);
        assert.equal(res.body.message, res.body.error.message);
        assert.deepEqual(res.body.details, []);
      });
    }

    it('an unknown index host is still 404', async () => {
      const res = await api(server, 'POST', `${server.url}/svc/nope-abcdefg/records/namespaces/ns/search`, { body: {} });
      assertError(res, 404, 'NOT_FOUND', ['nope-abcdefg']);
    });
  });
});
