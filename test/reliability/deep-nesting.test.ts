// Hostile nesting: a value nested 10,000 deep wherever the API expects something else
// answers a 4xx that names the field, on both planes and for both index-body versions,
// and the error message quotes only a bounded prefix of it (issue 11). Before the fix,
// building the message ("got <the value>") overflowed the stack and answered 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, removeDir, startServer, type TestServer } from '../helpers/server.js';
import { createIndex, denseIndex, dp, upsert } from '../data/support.js';

const DEPTH = 10_000;
const DEEP_ARRAY = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const DEEP_OBJECT = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);
/** No error message may grow with the input: anything longer quoted the value unbounded. */
const MAX_MESSAGE = 400;

interface Case {
  method: string;
  /** Relative to the index host when `data`, else to the server. */
  path: string;
  data: boolean;
  /** Request body with DEEP where the nested value goes. */
  body: string;
  status: number;
  /** The field the message must name. */
  field: RegExp;
  version?: string;
}

const SPEC = '{"serverless":{"cloud":"aws","region":"us-east-1"}}';
const d = (path: string, body: string, field: RegExp): Case => ({ method: 'POST', path, data: true, body, status: 400, field });
const c = (method: string, path: string, body: string, field: RegExp, version?: string): Case => ({
  method,
  path,
  data: false,
  body,
  status: 422,
  field,
  version,
});

const CASES: Case[] = [
  d('/query', '{"vector":[1,2],"topK":DEEP}', /\btopK\b/),
  d('/query', '{"vector":[DEEP,2],"topK":1}', /\bvector\[0\]/),
  d('/query', '{"vector":[1,2],"topK":1,"filter":DEEP}', /\bfilter\b/),
  d('/query', '{"vector":[1,2],"topK":1,"filter":{"genre":DEEP}}', /\bfilter\.genre\b/),
  d('/query', '{"vector":[1,2],"topK":1,"namespace":DEEP}', /\bnamespace\b/),
  d('/query', '{"id":DEEP,"topK":1}', /\bid\b/),
  d('/query', '{"vector":[1,2],"topK":1,"sparseVector":{"indices":[1],"values":[DEEP]}}', /\bsparseVector\.values\[0\]/),
  d('/query', '{"vector":[1,2],"topK":1,"includeValues":DEEP}', /\bincludeValues\b/),
  d('/vectors/upsert', '{"vectors":[{"id":"a","values":[DEEP,1]}]}', /\bvectors\[0\]\.values\[0\]/),
  d('/vectors/upsert', '{"vectors":[{"id":"a","values":[1,1],"metadata":{"m":DEEP}}]}', /\bvectors\[0\]\.metadata\.m\b/),
  d('/vectors/upsert', '{"vectors":[{"id":"a","values":[1,1],"metadata":DEEP}]}', /\bvectors\[0\]\.metadata\b/),
  d('/vectors/upsert', '{"vectors":[{"id":"a","values":[1,1],"sparseValues":{"indices":[1],"values":[DEEP]}}]}', /\bvectors\[0\]\.sparseValues\.values\[0\]/),
  d('/vectors/upsert', '{"vectors":[{"id":"a","values":[1,1],"sparseValues":{"indices":[DEEP],"values":[1]}}]}', /\bvectors\[0\]\.sparseValues\.indices\[0\]/),
  d('/vectors/upsert', '{"vectors":[{"id":DEEP,"values":[1,1]}]}', /\bvectors\[0\]\.id\b/),
  d('/vectors/upsert', '{"vectors":[DEEP]}', /\bvectors\[0\]/),
  d('/vectors/upsert', '{"vectors":DEEP}', /\bvectors\b/),
  d('/vectors/update', '{"id":"a","values":[DEEP,1]}', /\bvalues\[0\]/),
  d('/vectors/update', '{"id":"a","values":DEEP}', /\bvalues\b/),
  d('/vectors/update', '{"id":"a","setMetadata":DEEP}', /\bsetMetadata\b/),
  d('/vectors/update', '{"filter":DEEP,"setMetadata":{"a":1}}', /\bfilter\b/),
  d('/vectors/delete', '{"ids":[DEEP]}', /\bids\[0\]/),
  d('/vectors/delete', '{"filter":DEEP}', /\bfilter\b/),
  d('/vectors/delete', '{"deleteAll":DEEP}', /\bdeleteAll\b/),
  d('/vectors/fetch_by_metadata', '{"limit":DEEP}', /\blimit\b/),
  d('/vectors/fetch_by_metadata', '{"filter":DEEP}', /\bfilter\b/),
  d('/describe_index_stats', '{"filter":DEEP}', /\bfilter\b/),
  d('/namespaces', '{"name":DEEP}', /\bname\b/),
  c('POST', '/indexes', `{"name":"b","dimension":DEEP,"metric":"cosine","spec":${SPEC}}`, /\bdimension\b/),
  c('POST', '/indexes', `{"name":DEEP,"dimension":2,"metric":"cosine","spec":${SPEC}}`, /\bname\b/),
  c('POST', '/indexes', '{"name":"b","dimension":2,"metric":"cosine","spec":{"serverless":{"cloud":DEEP,"region":"us-east-1"}}}', /\bspec\.serverless\.cloud\b/),
  c('POST', '/indexes', `{"name":"b","dimension":2,"metric":"cosine","tags":{"a":DEEP},"spec":${SPEC}}`, /\btags\.a\b/),
  c('POST', '/indexes', '{"name":"b","dimension":2,"metric":"cosine","spec":{"pod":DEEP}}', /\bspec\.pod\b/),
  c('POST', '/indexes', '{"name":"c","schema":{"fields":{"_values":{"type":"dense_vector","dimension":DEEP,"metric":"cosine"}}}}', /\bschema\.fields\._values\.dimension\b/, '2026-07'),
  c('POST', '/indexes', '{"name":"c","schema":{"fields":{"_values":{"type":"dense_vector","dimension":2,"metric":"cosine"}}},"deployment":DEEP}', /\bdeployment\b/, '2026-07'),
  c('POST', '/indexes', '{"name":"c","schema":DEEP}', /\bschema\b/, '2026-07'),
  c('PATCH', '/indexes/a', '{"deletion_protection":DEEP}', /\bdeletion_protection\b/),
  c('PATCH', '/indexes/a', '{"tags":DEEP}', /\btags\b/),
  c('PATCH', '/indexes/a', '{"tags":DEEP}', /\btags\b/, '2026-07'),
  c('PATCH', '/indexes/a', '{"read_capacity":DEEP}', /\bread_capacity\b/, '2026-07'),
  c('POST', '/collections', '{"name":"c","source":DEEP}', /\bsource\b/),
  c('POST', '/indexes/a/backups', '{"name":DEEP}', /\bname\b/),
];

describe('values nested 10,000 deep', () => {
  let server: TestServer;
  let host: string;
  before(async () => {
    server = await startServer();
    host = await createIndex(server, denseIndex('a', 2));
    await upsert(server, host, [{ id: 'canary', values: [0.5, 0.25], metadata: { genre: 'drama' } }]);
  });
  after(async () => {
    await server.stop();
    removeDir(server.dataDir);
  });

  for (const t of CASES) {
    for (const [shape, deep] of [
      ['array', DEEP_ARRAY],
      ['object', DEEP_OBJECT],
    ] as const) {
      const label = `${t.version ?? '2026-04'} ${t.method} ${t.path} ${t.body.slice(0, 70)} with a deep ${shape}`;
      it(`${label} is a ${t.status} naming the field`, async () => {
        const res = await api(server, t.method, t.data ? host + t.path : t.path, {
          rawBody: t.body.replace('DEEP', deep),
          version: t.version,
        });
        assert.equal(res.status, t.status, res.text.slice(0, 500));
        assert.equal(res.body.status, t.status);
        const message: string = res.body.error.message;
        assert.match(message, t.field);
        assert.ok(message.length <= MAX_MESSAGE, `message of ${message.length} characters: ${message.slice(0, 200)}`);
        if (t.data) assert.equal(res.body.code, 3);
      });
    }
  }

  it('still serves, and the canary record is intact', async () => {
    const res = await dp(server, host, 'GET', '/vectors/fetch?ids=canary');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.vectors.canary.values, [0.5, 0.25]);
  });
});
