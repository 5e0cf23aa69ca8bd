// Black-box tests of API version 2026-07 index create and configure bodies (deployment +
// schema model, pinecone-wire.md §2.11) over raw HTTP, of the rule that every record
// carries both index models (DESIGN.md decision 1), and of the version's other visible
// differences, which apply only to requests that send 2026-07 (issue 5).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, api, type ApiResponse, type TestServer } from '../helpers/server.js';
import { assertError, stopAndClean } from '../server/support.js';
import {
  V2604,
  V2607,
  INDEX_NAME_RULE,
  assertBothModels,
  configure2607,
  create2607,
  denseSchema,
  poll,
} from './support-2607.js';

const SPARSE_SCHEMA = { fields: { _sparse_values: { type: 'sparse_vector' } } };

describe('API 2026-07 index create and configure', () => {
  let server: TestServer;

  before(async () => {
    // A visible transitional state for pod scaling (the default shows it only in the PATCH answer).
    server = await startServer({ env: { CONIFER_SCALING_DELAY_MS: '300' } });
  });

  after(async () => {
    await stopAndClean(server);
  });

  /** Creates with 2026-07 expecting 201; checks both models; returns the record. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function created(body: unknown): Promise<any> {
    const res = await create2607(server, body);
    assert.equal(res.status, 201, `create ${JSON.stringify(body)}: ${res.text}`);
    assertBothModels(res.body, 'create 2026-07');
    return res.body;
  }

  /** GET /indexes/{name} with both versions: same record, both models. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function describeBoth(name: string): Promise<any> {
    const r07 = await api(server, 'GET', `/indexes/${name}`, { version: V2607 });
    const r04 = await api(server, 'GET', `/indexes/${name}`, { version: V2604 });
    assert.equal(r07.status, 200, r07.text);
    assert.equal(r04.status, 200, r04.text);
    assertBothModels(r07.body, `describe ${name} 2026-07`);
    assertBothModels(r04.body, `describe ${name} 2026-04`);
    assert.deepEqual(r07.body, r04.body, 'the record does not depend on the version');
    return r07.body;
  }

  describe('create: name and deployment', () => {
    it('a name is generated when absent and follows the index name rule', async () => {
      const a = await created({ schema: denseSchema(4) });
      const b = await created({ schema: denseSchema(4) });
      assert.match(a.name, INDEX_NAME_RULE);
      assert.match(b.name, INDEX_NAME_RULE);
      assert.notEqual(a.name, b.name);
      const got = await describeBoth(a.name);
      assert.equal(got.name, a.name);
      assert.equal(got.host, a.host);
    });

    it('deployment defaults to managed aws us-east-1', async () => {
      const rec = await created({ name: 'dep-default', schema: denseSchema(4) });
      assert.deepEqual(rec.deployment, { deployment_type: 'managed', cloud: 'aws', region: 'us-east-1' });
      assert.equal(rec.spec.serverless.cloud, 'aws');
      assert.equal(rec.spec.serverless.region, 'us-east-1');
      assert.deepEqual(rec.read_capacity, { mode: 'OnDemand', status: { state: 'Ready' } });
      assert.equal(rec.status.ready, true);
      assert.equal(rec.status.state, 'Ready');
      assert.equal(rec.deletion_protection, 'disabled');
    });

    it('an explicit managed deployment is echoed', async () => {
      const rec = await created({
        name: 'dep-gcp',
        deployment: { deployment_type: 'managed', cloud: 'gcp', region: 'europe-west4' },
        schema: denseSchema(4),
      });
      assert.deepEqual(rec.deployment, { deployment_type: 'managed', cloud: 'gcp', region: 'europe-west4' });
      assert.deepEqual(rec.spec.serverless.cloud, 'gcp');
    });

    it('deployment_type pod, byoc and unknown values are 400', async () => {
      const pod = await create2607(server, {
        name: 'dep-pod',
        deployment: { deployment_type: 'pod', environment: 'us-east-1-aws', pod_type: 'p1.x1' },
        schema: denseSchema(4),
      });
      assertError(pod, 400, 'INVALID_ARGUMENT', ['pod']);
      const byoc = await create2607(server, {
        name: 'dep-byoc',
        deployment: { deployment_type: 'byoc', environment: 'aws-us-east-1-b921' },
        schema: denseSchema(4),
      });
      assertError(byoc, 400, 'INVALID_ARGUMENT', ['byoc']);
      const other = await create2607(server, {
        name: 'dep-other',
        deployment: { deployment_type: 'serverless', cloud: 'aws', region: 'us-east-1' },
        schema: denseSchema(4),
      });
      assertError(other, 400, 'INVALID_ARGUMENT', ['deployment_type', 'serverless']);
      for (const name of ['dep-pod', 'dep-byoc', 'dep-other']) {
        assert.equal((await api(server, 'GET', `/indexes/${name}`, { version: V2607 })).status, 404);
      }
    });

    it('an unconfigured cloud/region is 404', async () => {
      const res = await create2607(server, {
        name: 'dep-mars',
        deployment: { deployment_type: 'managed', cloud: 'aws', region: 'mars-north-1' },
        schema: denseSchema(4),
      });
      assertError(res, 404, 'NOT_FOUND', ['mars-north-1']);
      const azure = await create2607(server, {
        name: 'dep-mars',
        deployment: { deployment_type: 'managed', cloud: 'ibm', region: 'us-east-1' },
        schema: denseSchema(4),
      });
      assertError(azure, 404, 'NOT_FOUND', ['ibm']);
    });

    it('an invalid name is 400 and a taken one 409', async () => {
      assertError(await create2607(server, { name: 'Bad_Name', schema: denseSchema(4) }), 400, 'INVALID_ARGUMENT', ['name']);
      assertError(await create2607(server, { name: 'x'.repeat(46), schema: denseSchema(4) }), 400, 'INVALID_ARGUMENT', ['name']);
      assertError(await create2607(server, { name: 'dep-default', schema: SPARSE_SCHEMA }), 409, 'ALREADY_EXISTS');
    });
  });

  describe('create: schema fields', () => {
    it('_values dense_vector {dimension, metric} makes a dense index', async () => {
      const rec = await created({ name: 'sch-dense', schema: denseSchema(8, 'euclidean') });
      assert.equal(rec.vector_type, 'dense');
      assert.equal(rec.dimension, 8);
      assert.equal(rec.metric, 'euclidean');
      assert.deepEqual(rec.schema.fields, {
        _values: { type: 'dense_vector', dimension: 8, metric: 'euclidean' },
        _sparse_values: { type: 'sparse_vector' },
      });
      // usable at once over the data plane with 2026-07
      const up = await api(server, 'POST', `${rec.host}/vectors/upsert`, {
        version: V2607,
        body: { vectors: [{ id: 'v1', values: [1, 2, 3, 4, 5, 6, 7, 8] }], namespace: '__default__' },
      });
      assert.equal(up.status, 200, up.text);
      assert.equal(up.body.upsertedCount, 1);
      const wrongDim = await api(server, 'POST', `${rec.host}/vectors/upsert`, {
        version: V2607,
        body: { vectors: [{ id: 'v2', values: [1, 2] }] },
      });
      assert.equal(wrongDim.status, 400, wrongDim.text);
    });

    it('the dense metric defaults to cosine; dotproduct is kept', async () => {
      const cos = await created({ name: 'sch-cosine', schema: denseSchema(3) });
      assert.equal(cos.metric, 'cosine');
      assert.equal(cos.schema.fields._values.metric, 'cosine');
      const dot = await created({ name: 'sch-dot', schema: denseSchema(3, 'dotproduct') });
      assert.equal(dot.metric, 'dotproduct');
      assert.equal(dot.schema.fields._values.metric, 'dotproduct');
    });

    it('_sparse_values sparse_vector alone makes a sparse index (dotproduct, no dimension)', async () => {
      const rec = await created({ name: 'sch-sparse', schema: SPARSE_SCHEMA });
      assert.equal(rec.vector_type, 'sparse');
      assert.equal(rec.metric, 'dotproduct');
      assert.equal('dimension' in rec, false);
      assert.deepEqual(rec.schema.fields, { _sparse_values: { type: 'sparse_vector' } });
      const up = await api(server, 'POST', `${rec.host}/vectors/upsert`, {
        version: V2607,
        body: { vectors: [{ id: 's', sparseValues: { indices: [1], values: [1] } }] },
      });
      assert.equal(up.status, 200, up.text);
    });

    it('both vector fields make a dense index that reports both', async () => {
      const rec = await created({
        name: 'sch-both',
        schema: { fields: { _values: { type: 'dense_vector', dimension: 5, metric: 'dotproduct' }, _sparse_values: { type: 'sparse_vector' } } },
      });
      assert.equal(rec.vector_type, 'dense');
      assert.equal(rec.dimension, 5);
      assert.equal(rec.metric, 'dotproduct');
      assert.deepEqual(rec.schema.fields, {
        _values: { type: 'dense_vector', dimension: 5, metric: 'dotproduct' },
        _sparse_values: { type: 'sparse_vector' },
      });
      // hybrid records go in
      const up = await api(server, 'POST', `${rec.host}/vectors/upsert`, {
        version: V2607,
        body: { vectors: [{ id: 'h', values: [1, 0, 0, 0, 0], sparseValues: { indices: [3], values: [2] } }] },
      });
      assert.equal(up.status, 200, up.text);
    });

    it('a schema without a vector field is 400', async () => {
      const onlyMeta = await create2607(server, { name: 'sch-none', schema: { fields: { genre: { type: 'string', filterable: true } } } });
      assertError(onlyMeta, 400, 'INVALID_ARGUMENT', ['_values', '_sparse_values']);
      const empty = await create2607(server, { name: 'sch-none', schema: { fields: {} } });
      assert.ok([400, 422].includes(empty.status), empty.text);
      assertError(empty, empty.status, empty.status === 400 ? 'INVALID_ARGUMENT' : 'UNPROCESSABLE_ENTITY');
    });

    it('semantic_text (integrated embedding) is 400 naming semantic_text', async () => {
      const res = await create2607(server, {
        name: 'sch-semantic',
        schema: {
          fields: {
            chunk_text: { type: 'semantic_text', model: 'multilingual-e5-large', metric: 'cosine', read_parameters: {}, write_parameters: {} },
          },
        },
      });
      assertError(res, 400, 'INVALID_ARGUMENT', ['semantic_text']);
      const withDense = await create2607(server, {
        name: 'sch-semantic',
        schema: { fields: { _values: { type: 'dense_vector', dimension: 4, metric: 'cosine' }, body: { type: 'semantic_text', model: 'm' } } },
      });
      assertError(withDense, 400, 'INVALID_ARGUMENT', ['semantic_text']);
    });

    it('a vector field under another name is 400', async () => {
      const dense = await create2607(server, {
        name: 'sch-named',
        schema: { fields: { embedding: { type: 'dense_vector', dimension: 4, metric: 'cosine' } } },
      });
      assertError(dense, 400, 'INVALID_ARGUMENT', ['_values']);
      const sparse = await create2607(server, {
        name: 'sch-named',
        schema: { fields: { _values: { type: 'dense_vector', dimension: 4 }, keywords: { type: 'sparse_vector' } } },
      });
      assertError(sparse, 400, 'INVALID_ARGUMENT', ['_sparse_values']);
      const swapped = await create2607(server, { name: 'sch-named', schema: { fields: { _values: { type: 'sparse_vector' } } } });
      assertError(swapped, 400, 'INVALID_ARGUMENT', ['dense_vector']);
    });

    it("field names starting with '_' or '$', or over 64 bytes, are 400", async () => {
      for (const name of ['_private', '$price', 'é'.repeat(33)]) {
        const res = await create2607(server, {
          name: 'sch-fieldname',
          schema: denseSchema(4, 'cosine', { [name]: { type: 'string', filterable: true } }),
        });
        assertError(res, 400, 'INVALID_ARGUMENT');
        assert.ok(res.body.error.message.includes(name), `message names ${name}: ${res.body.error.message}`);
      }
      // 64 bytes exactly is fine
      const ok = await created({ name: 'sch-fieldname', schema: denseSchema(4, 'cosine', { ['f'.repeat(64)]: { type: 'string' } }) });
      assert.ok(ok.schema.fields['f'.repeat(64)]);
    });

    it('an unknown field type is 400; full_text_search is 400', async () => {
      const unknown = await create2607(server, { name: 'sch-type', schema: denseSchema(4, 'cosine', { place: { type: 'geo_point' } }) });
      assertError(unknown, 400, 'INVALID_ARGUMENT', ['geo_point']);
      const fts = await create2607(server, {
        name: 'sch-type',
        schema: denseSchema(4, 'cosine', { body: { type: 'string', full_text_search: { language: 'en' } } }),
      });
      assertError(fts, 400, 'INVALID_ARGUMENT', ['full_text_search']);
    });

    it('metadata fields of every kind are echoed in schema.fields (and in spec.serverless.schema)', async () => {
      const meta = {
        genre: { type: 'string', filterable: true },
        price: { type: 'float', filterable: true },
        labels: { type: 'string_list', filterable: true },
        count: { type: 'integer', filterable: true },
        active: { type: 'boolean', filterable: true },
        legacy: { filterable: true },
      };
      const rec = await created({ name: 'sch-meta', schema: denseSchema(4, 'cosine', meta) });
      for (const [name, field] of Object.entries(meta)) {
        assert.deepEqual(rec.schema.fields[name], field, `schema.fields.${name}: ${JSON.stringify(rec.schema.fields)}`);
        assert.equal(rec.spec.serverless.schema?.fields?.[name]?.filterable, true, `spec.serverless.schema.fields.${name}`);
      }
      assert.equal(rec.schema.fields._values.dimension, 4);
      const again = await describeBoth('sch-meta');
      assert.deepEqual(again.schema.fields, rec.schema.fields);

      // a sparse index with metadata fields
      const sparse = await created({ name: 'sch-meta-sparse', schema: { fields: { ...SPARSE_SCHEMA.fields, genre: { type: 'string' } } } });
      assert.equal(sparse.vector_type, 'sparse');
      assert.equal(sparse.schema.fields.genre.type, 'string');
    });

    it('dimension 0 or 20001 and a bad metric are 400 naming the 2026-07 field; a missing dimension is 422', async () => {
      for (const dimension of [0, 20001, -3]) {
        const res = await create2607(server, { name: 'sch-dim', schema: denseSchema(dimension) });
        assertError(res, 400, 'INVALID_ARGUMENT', ['schema.fields._values.dimension', '1-20000']);
      }
      const metric = await create2607(server, { name: 'sch-dim', schema: denseSchema(4, 'manhattan') });
      assertError(metric, 400, 'INVALID_ARGUMENT', ['schema.fields._values.metric', 'manhattan']);
      const missing = await create2607(server, { name: 'sch-dim', schema: { fields: { _values: { type: 'dense_vector' } } } });
      // A missing required field cannot be deserialized: 422 (decision 4), naming it.
      assertError(missing, 422, 'UNPROCESSABLE_ENTITY', ['schema.fields._values.dimension']);
      const ok = await created({ name: 'sch-dim', schema: denseSchema(1) });
      assert.equal(ok.dimension, 1);
    });

    it('at most 50 metadata fields besides the vector fields', async () => {
      const fields = (n: number): Record<string, unknown> => ({
        ...(denseSchema(4).fields as Record<string, unknown>),
        ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, { type: 'string', filterable: true }])),
      });
      assertError(await create2607(server, { name: 'sch-51', schema: { fields: fields(51) } }), 400, 'INVALID_ARGUMENT', ['51 metadata fields', 'at most 50']);
      const ok = await created({ name: 'sch-50', schema: { fields: fields(50) } });
      assert.equal(Object.keys(ok.schema.fields).length, 52);
    });
  });

  describe('create: body shape (422) and unsupported options (400)', () => {
    it('a 2026-04 spec body is 422 naming spec', async () => {
      const res = await create2607(server, {
        name: 'shape-spec',
        dimension: 4,
        metric: 'cosine',
        spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
      });
      assertError(res, 422, 'UNPROCESSABLE_ENTITY', ['spec']);
      // ... while the same body with 2026-04 works
      const ok = await api(server, 'POST', '/indexes', {
        version: V2604,
        body: { name: 'shape-spec', dimension: 4, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
      });
      assert.equal(ok.status, 201, ok.text);
      assertBothModels(ok.body, 'create 2026-04');
    });

    it('an unknown top-level field is 422 naming it (additionalProperties false)', async () => {
      for (const extra of [{ dimension: 4 }, { vector_type: 'dense' }, { embed: { model: 'm' } }, { colour: 'red' }]) {
        const res = await create2607(server, { name: 'shape-extra', schema: denseSchema(4), ...extra });
        assertError(res, 422, 'UNPROCESSABLE_ENTITY', [Object.keys(extra)[0]]);
      }
    });

    it('a missing schema (or schema.fields) is 422', async () => {
      assertError(await create2607(server, { name: 'shape-noschema' }), 422, 'UNPROCESSABLE_ENTITY', ['schema']);
      assertError(await create2607(server, { name: 'shape-noschema', schema: {} }), 422, 'UNPROCESSABLE_ENTITY', ['fields']);
      assertError(await create2607(server, {}), 422, 'UNPROCESSABLE_ENTITY', ['schema']);
      assertError(
        await create2607(server, { name: 'shape-noschema', deployment: { cloud: 'aws', region: 'us-east-1' }, schema: denseSchema(4) }),
        422,
        'UNPROCESSABLE_ENTITY',
        ['deployment_type'],
      );
    });

    it('top-level fields of the wrong JSON type are 422', async () => {
      const cases: Array<Record<string, unknown>> = [
        { name: 5, schema: denseSchema(4) },
        { name: 'shape-types', schema: 'dense' },
        { name: 'shape-types', schema: { fields: [] } },
        { name: 'shape-types', schema: { fields: { _values: 'dense_vector' } } },
        { name: 'shape-types', schema: denseSchema(4), deployment: 'managed' },
        { name: 'shape-types', schema: denseSchema(4), deployment: { deployment_type: 1 } },
        { name: 'shape-types', schema: denseSchema(4), tags: { team: 1 } },
        { name: 'shape-types', schema: denseSchema(4), tags: ['a'] },
        { name: 'shape-types', schema: denseSchema(4), deletion_protection: true },
        { name: 'shape-types', schema: denseSchema(4), read_capacity: { mode: 1 } },
        { name: 'shape-types', schema: denseSchema(4), read_capacity: { mode: 'Dedicated', dedicated: { manual: { replicas: '1' } } } },
        { name: 'shape-types', schema: denseSchema(4), cmek_id: 7 },
      ];
      for (const body of cases) {
        const res = await create2607(server, body);
        assertError(res, 422, 'UNPROCESSABLE_ENTITY');
      }
      const notJson = await api(server, 'POST', '/indexes', { version: V2607, rawBody: '{"schema":' });
      assert.ok([400, 422].includes(notJson.status), notJson.text);
      assert.equal((await api(server, 'GET', '/indexes/shape-types', { version: V2607 })).status, 404);
    });

    it('field attributes of the wrong JSON type, or a missing dimension, are 422, never coerced (decision 4)', async () => {
      // index-schemas-2607.ts: "Types and required fields only (422); values are checked in
      // control/index-model-2607.ts". DESIGN.md decision 4: wrong JSON type / missing required field -> 422.
      const cases: Array<[string, Record<string, unknown>]> = [
        ['dimension "8"', { schema: { fields: { _values: { type: 'dense_vector', dimension: '8', metric: 'cosine' } } } }],
        ['dimension 8.5', { schema: { fields: { _values: { type: 'dense_vector', dimension: 8.5, metric: 'cosine' } } } }],
        ['metric 5', { schema: { fields: { _values: { type: 'dense_vector', dimension: 8, metric: 5 } } } }],
        ['dimension missing', { schema: { fields: { _values: { type: 'dense_vector', metric: 'cosine' } } } }],
        ['filterable "yes"', { schema: { fields: { _sparse_values: { type: 'sparse_vector' }, genre: { type: 'string', filterable: 'yes' } } } }],
        ['deployment.cloud 5', { deployment: { deployment_type: 'managed', cloud: 5, region: 'us-east-1' }, schema: SPARSE_SCHEMA }],
      ];
      const got: string[] = [];
      for (const [label, body] of cases) {
        const res = await create2607(server, { name: 'shape-field-types', ...body });
        got.push(`${label}: ${res.status} ${res.body?.error?.code}`);
      }
      assert.deepEqual(
        got,
        cases.map(([label]) => `${label}: 422 UNPROCESSABLE_ENTITY`),
      );
      assert.equal((await api(server, 'GET', '/indexes/shape-field-types', { version: V2607 })).status, 404);
    });

    it('cmek_id is 400 naming cmek_id', async () => {
      const res = await create2607(server, { name: 'shape-cmek', schema: denseSchema(4), cmek_id: 'cmek-123' });
      assertError(res, 400, 'INVALID_ARGUMENT', ['cmek_id']);
    });
  });

  describe('create: read capacity, tags, deletion protection', () => {
    it('read_capacity OnDemand is echoed', async () => {
      const rec = await created({ name: 'rc-ondemand', schema: denseSchema(4), read_capacity: { mode: 'OnDemand' } });
      assert.deepEqual(rec.read_capacity, { mode: 'OnDemand', status: { state: 'Ready' } });
    });

    it('read_capacity Dedicated is echoed (top level and spec.serverless)', async () => {
      const dedicated = { node_type: 't1', scaling: 'Manual', manual: { replicas: 2, shards: 3 } };
      const rec = await created({ name: 'rc-dedicated', schema: denseSchema(4), read_capacity: { mode: 'Dedicated', dedicated } });
      assert.equal(rec.read_capacity.mode, 'Dedicated');
      assert.deepEqual(rec.read_capacity.dedicated, dedicated);
      assert.equal(rec.read_capacity.status.state, 'Ready');
      assert.deepEqual(rec.spec.serverless.read_capacity, rec.read_capacity);
    });

    it('an invalid read_capacity is 400', async () => {
      const bad = [
        { mode: 'Burst' },
        { mode: 'Dedicated' },
        { mode: 'Dedicated', dedicated: { node_type: 'z9', scaling: 'Manual', manual: { replicas: 1, shards: 1 } } },
        { mode: 'Dedicated', dedicated: { node_type: 'b1', scaling: 'Manual', manual: { replicas: 1, shards: 0 } } },
      ];
      for (const read_capacity of bad) {
        const res = await create2607(server, { name: 'rc-bad', schema: denseSchema(4), read_capacity });
        assertError(res, 400, 'INVALID_ARGUMENT', ['read_capacity']);
      }
    });

    it('tags and deletion_protection are echoed; a protected index cannot be deleted', async () => {
      const rec = await created({
        name: 'tags-dp',
        schema: SPARSE_SCHEMA,
        tags: { team: 'search', env: 'prod' },
        deletion_protection: 'enabled',
      });
      assert.deepEqual(rec.tags, { team: 'search', env: 'prod' });
      assert.equal(rec.deletion_protection, 'enabled');
      const del = await api(server, 'DELETE', '/indexes/tags-dp', { version: V2607 });
      assertError(del, 403, 'FORBIDDEN', ['deletion protection']);

      assertError(
        await create2607(server, { name: 'tags-bad', schema: SPARSE_SCHEMA, deletion_protection: 'maybe' }),
        400,
        'INVALID_ARGUMENT',
        ['deletion_protection'],
      );
      assertError(await create2607(server, { name: 'tags-bad', schema: SPARSE_SCHEMA, tags: { 'bad key!': 'v' } }), 400, 'INVALID_ARGUMENT', [
        'tags',
      ]);
    });
  });

  describe('tags: the rules of the request\'s API version', () => {
    it('2026-07 takes tag values of any printable ASCII; 2026-04 keeps its narrower set', async () => {
      const value = 'https://example.com/a?b=c&d=[e]';
      const rec = await created({ name: 'tags-ascii', schema: denseSchema(4), tags: { link: value } });
      assert.deepEqual(rec.tags, { link: value });
      const patched = await configure2607(server, 'tags-ascii', { tags: { path: '/x/y:z' } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.body.tags, { link: value, path: '/x/y:z' });
      // Outside printable ASCII (a control character, a non-ASCII letter) stays refused.
      for (const bad of ['tab\there', 'café']) {
        assertError(await create2607(server, { name: 'tags-bad', schema: denseSchema(4), tags: { t: bad } }), 400, 'INVALID_ARGUMENT', ['tags.t', 'printable ASCII']);
      }
      // 2026-04: the same value is refused on create and configure.
      const old = { name: 'tags-old', dimension: 4, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } }, tags: { link: value } };
      assertError(await api(server, 'POST', '/indexes', { version: V2604, body: old }), 400, 'INVALID_ARGUMENT', ['tags.link', ';@_-.+']);
      assertError(await api(server, 'PATCH', '/indexes/tags-ascii', { version: V2604, body: { tags: { more: value } } }), 400, 'INVALID_ARGUMENT', ['tags.more']);
      // An index holding such a value is still configured under 2026-04 (only the patch is checked).
      const ok = await api(server, 'PATCH', '/indexes/tags-ascii', { version: V2604, body: { tags: { team: 'a' } } });
      assert.equal(ok.status, 202, ok.text);
    });

    it('2026-07 allows at most 20 tags on create and after a configure', async () => {
      const tags = (n: number, prefix = 'k'): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));
      assertError(await create2607(server, { name: 'tags-many', schema: denseSchema(4), tags: tags(21) }), 400, 'INVALID_ARGUMENT', ['at most 20 tags', '21']);
      const rec = await created({ name: 'tags-many', schema: denseSchema(4), tags: tags(20) });
      assert.equal(Object.keys(rec.tags).length, 20);
      assertError(await configure2607(server, 'tags-many', { tags: { extra: 'v' } }), 400, 'INVALID_ARGUMENT', ['at most 20 tags', '21']);
      // Replacing one (one removed, one added) keeps 20: allowed.
      const swapped = await configure2607(server, 'tags-many', { tags: { k0: '', extra: 'v' } });
      assert.equal(swapped.status, 200, swapped.text);
      assert.equal(Object.keys(swapped.body.tags).length, 20);
      assert.equal(swapped.body.tags.k0, undefined);
      // 2026-04 has no cap: the index may hold more, and 2026-07 may still remove from them.
      const more = await api(server, 'PATCH', '/indexes/tags-many', { version: V2604, body: { tags: tags(5, 'x') } });
      assert.equal(more.status, 202, more.text);
      assert.equal(Object.keys(more.body.tags).length, 25);
      const fewer = await configure2607(server, 'tags-many', { tags: { x0: '' } });
      assert.equal(fewer.status, 200, fewer.text);
      assert.equal(Object.keys(fewer.body.tags).length, 24);
    });
  });

  describe('configure', () => {
    it('tags and deletion_protection: 200 with the full record (2026-04 answers 202)', async () => {
      const res = await configure2607(server, 'tags-dp', { tags: { env: '', owner: 'ana' }, deletion_protection: 'disabled' });
      assert.equal(res.status, 200, res.text);
      assertBothModels(res.body, 'configure 2026-07');
      assert.deepEqual(res.body.tags, { team: 'search', owner: 'ana' });
      assert.equal(res.body.deletion_protection, 'disabled');
      const old = await api(server, 'PATCH', '/indexes/tags-dp', { version: V2604, body: { tags: { v: '4' } } });
      assert.equal(old.status, 202, old.text);
      assertBothModels(old.body, 'configure 2026-04');
      const del = await api(server, 'DELETE', '/indexes/tags-dp', { version: V2607 });
      assert.equal(del.status, 202, del.text);
      assert.equal((await api(server, 'GET', '/indexes/tags-dp', { version: V2607 })).status, 404);
    });

    it('an unknown index is 404', async () => {
      assertError(await configure2607(server, 'no-such-index', { tags: { a: 'b' } }), 404, 'NOT_FOUND');
    });

    it('deployment.replicas and deployment.pod_type on a pod index (created with 2026-04 spec.pod)', async () => {
      const pod = await api(server, 'POST', '/indexes', {
        version: V2604,
        body: { name: 'pod-ix', dimension: 4, metric: 'euclidean', spec: { pod: { environment: 'us-east-1-aws', pod_type: 'p1.x1' } } },
      });
      assert.equal(pod.status, 201, pod.text);
      assertBothModels(pod.body, 'pod create 2026-04');
      assert.deepEqual(pod.body.deployment, { deployment_type: 'pod', environment: 'us-east-1-aws', pod_type: 'p1.x1', replicas: 1, shards: 1 });
      assert.equal('read_capacity' in pod.body, false);

      const up = await configure2607(server, 'pod-ix', { deployment: { replicas: 2 } });
      assert.equal(up.status, 200, up.text);
      assertBothModels(up.body, 'pod configure replicas');
      assert.equal(up.body.deployment.replicas, 2);
      assert.equal(up.body.spec.pod.replicas, 2);
      assert.equal(up.body.status.state, 'ScalingUp');
      const ready = await poll(
        'pod-ix Ready after ScalingUp',
        async () => (await api(server, 'GET', '/indexes/pod-ix', { version: V2607 })).body,
        (b) => b.status.state === 'Ready',
      );
      assert.equal(ready.deployment.replicas, 2);
      assert.equal(ready.status.ready, true);

      const size = await configure2607(server, 'pod-ix', { deployment: { pod_type: 'p1.x2' } });
      assert.equal(size.status, 200, size.text);
      assert.equal(size.body.status.state, 'ScalingUpPodSize');
      assert.equal(size.body.deployment.pod_type, 'p1.x2');
      const seen = await api(server, 'GET', '/indexes/pod-ix', { version: V2604 });
      assert.equal(seen.body.spec.pod.pod_type, 'p1.x2');
      const sized = await poll(
        'pod-ix Ready after ScalingUpPodSize',
        async () => (await api(server, 'GET', '/indexes/pod-ix', { version: V2607 })).body,
        (b) => b.status.state === 'Ready',
      );
      assertBothModels(sized, 'pod after resize');
      assert.equal(sized.deployment.pod_type, 'p1.x2');
      assert.equal(sized.deployment.replicas, 2);
    });

    it('pod deployment patches: downsizing, bad values and deployment_type are refused', async () => {
      assertError(await configure2607(server, 'pod-ix', { deployment: { pod_type: 'p1.x1' } }), 400, 'INVALID_ARGUMENT', ['pod_type']);
      assertError(await configure2607(server, 'pod-ix', { deployment: { pod_type: 's1.x2' } }), 400, 'INVALID_ARGUMENT', ['pod_type']);
      assertError(await configure2607(server, 'pod-ix', { deployment: { replicas: 0 } }), 400, 'INVALID_ARGUMENT', ['replicas']);
      assertError(await configure2607(server, 'pod-ix', { deployment: { replicas: '3' } }), 422, 'UNPROCESSABLE_ENTITY');
      assertError(
        await configure2607(server, 'pod-ix', { deployment: { deployment_type: 'pod', replicas: 3 } }),
        422,
        'UNPROCESSABLE_ENTITY',
        ['deployment_type'],
      );
      assertError(
        await configure2607(server, 'pod-ix', { read_capacity: { mode: 'OnDemand' } }),
        400,
        'INVALID_ARGUMENT',
        ['read_capacity'],
      );
      const unchanged = await describeBoth('pod-ix');
      assert.equal(unchanged.deployment.replicas, 2);
      assert.equal(unchanged.deployment.pod_type, 'p1.x2');
    });

    it('deployment on a serverless index is 400', async () => {
      assertError(await configure2607(server, 'dep-default', { deployment: { replicas: 2 } }), 400, 'INVALID_ARGUMENT', ['pod']);
      assertError(await configure2607(server, 'dep-default', { deployment: { pod_type: 'p1.x2' } }), 400, 'INVALID_ARGUMENT');
    });

    it('read_capacity patch form: omitted dedicated fields keep their values', async () => {
      // rc-dedicated: t1, Manual, replicas 2, shards 3
      const nodeOnly = await configure2607(server, 'rc-dedicated', { read_capacity: { mode: 'Dedicated', dedicated: { node_type: 'b1' } } });
      assert.equal(nodeOnly.status, 200, nodeOnly.text);
      assertBothModels(nodeOnly.body, 'read_capacity patch');
      assert.deepEqual(nodeOnly.body.read_capacity.dedicated, { node_type: 'b1', scaling: 'Manual', manual: { replicas: 2, shards: 3 } });

      const scaling = await configure2607(server, 'rc-dedicated', {
        read_capacity: { mode: 'Dedicated', dedicated: { scaling: 'Manual', manual: { replicas: 4 } } },
      });
      assert.equal(scaling.status, 200, scaling.text);
      assert.deepEqual(scaling.body.read_capacity.dedicated, { node_type: 'b1', scaling: 'Manual', manual: { replicas: 4, shards: 3 } });

      const empty = await configure2607(server, 'rc-dedicated', { read_capacity: { mode: 'Dedicated' } });
      assert.equal(empty.status, 200, empty.text);
      assert.deepEqual(empty.body.read_capacity.dedicated, { node_type: 'b1', scaling: 'Manual', manual: { replicas: 4, shards: 3 } });

      const described = await describeBoth('rc-dedicated');
      assert.deepEqual(described.read_capacity.dedicated, { node_type: 'b1', scaling: 'Manual', manual: { replicas: 4, shards: 3 } });
    });

    it('read_capacity patch: scaling without manual (and manual without scaling) is 400', async () => {
      assertError(
        await configure2607(server, 'rc-dedicated', { read_capacity: { mode: 'Dedicated', dedicated: { scaling: 'Manual' } } }),
        400,
        'INVALID_ARGUMENT',
        ['manual'],
      );
      assertError(
        await configure2607(server, 'rc-dedicated', { read_capacity: { mode: 'Dedicated', dedicated: { manual: { replicas: 1 } } } }),
        400,
        'INVALID_ARGUMENT',
        ['scaling'],
      );
      assertError(
        await configure2607(server, 'rc-dedicated', { read_capacity: { mode: 'Dedicated', dedicated: { node_type: 'q7' } } }),
        400,
        'INVALID_ARGUMENT',
        ['node_type'],
      );
      assertError(await configure2607(server, 'rc-dedicated', { read_capacity: { mode: 'Burst' } }), 400, 'INVALID_ARGUMENT', ['mode']);
      const unchanged = await describeBoth('rc-dedicated');
      assert.deepEqual(unchanged.read_capacity.dedicated, { node_type: 'b1', scaling: 'Manual', manual: { replicas: 4, shards: 3 } });
    });

    it('from OnDemand a partial Dedicated is 400, a complete one is applied, and OnDemand returns', async () => {
      assertError(
        await configure2607(server, 'rc-ondemand', { read_capacity: { mode: 'Dedicated', dedicated: { node_type: 't1' } } }),
        400,
        'INVALID_ARGUMENT',
        ['read_capacity'],
      );
      assertError(
        await configure2607(server, 'rc-ondemand', { read_capacity: { mode: 'Dedicated', dedicated: { scaling: 'Manual', manual: { replicas: 1 } } } }),
        400,
        'INVALID_ARGUMENT',
        ['read_capacity'],
      );
      assert.equal((await describeBoth('rc-ondemand')).read_capacity.mode, 'OnDemand');

      const full = { node_type: 't1', scaling: 'Manual', manual: { replicas: 1, shards: 1 } };
      const res = await configure2607(server, 'rc-ondemand', { read_capacity: { mode: 'Dedicated', dedicated: full } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.read_capacity.dedicated, full);
      const back = await configure2607(server, 'rc-ondemand', { read_capacity: { mode: 'OnDemand' } });
      assert.equal(back.status, 200, back.text);
      assert.deepEqual(back.body.read_capacity, { mode: 'OnDemand', status: { state: 'Ready' } });
      assert.deepEqual(back.body.spec.serverless.read_capacity, { mode: 'OnDemand', status: { state: 'Ready' } });
    });

    it('read_capacity {mode: OnDemand, dedicated} is 400 on configure as on create', async () => {
      const dedicated = { node_type: 'b1', scaling: 'Manual', manual: { replicas: 1, shards: 1 } };
      const onCreate = await create2607(server, { name: 'rc-mixed', schema: SPARSE_SCHEMA, read_capacity: { mode: 'OnDemand', dedicated } });
      assertError(onCreate, 400, 'INVALID_ARGUMENT', ['dedicated']);
      const onConfigure = await configure2607(server, 'dep-default', { read_capacity: { mode: 'OnDemand', dedicated } });
      assertError(onConfigure, 400, 'INVALID_ARGUMENT', ['dedicated']);
    });

    it('2026-07 errors name the fields of the 2026-07 body, never the 2026-04 spec.* paths', async () => {
      const responses: Array<[string, ApiResponse]> = [
        ['create read_capacity.mode', await create2607(server, { name: 'msg-x', schema: SPARSE_SCHEMA, read_capacity: { mode: 'Burst' } })],
        [
          'configure read_capacity scaling',
          await configure2607(server, 'rc-dedicated', { read_capacity: { mode: 'Dedicated', dedicated: { scaling: 'Auto', manual: { replicas: 1 } } } }),
        ],
        ['configure deployment.replicas', await configure2607(server, 'pod-ix', { deployment: { replicas: 0 } })],
        ['configure deployment.pod_type downsize', await configure2607(server, 'pod-ix', { deployment: { pod_type: 'p1.x1' } })],
        ['configure deployment.pod_type unknown', await configure2607(server, 'pod-ix', { deployment: { pod_type: 'p9.x9' } })],
      ];
      const offenders: string[] = [];
      for (const [label, res] of responses) {
        assertError(res, 400, 'INVALID_ARGUMENT');
        if (/\bspec\./.test(res.body.error.message)) offenders.push(`${label}: ${res.body.error.message}`);
      }
      assert.deepEqual(offenders, []);
    });

    it('schema is 400; unknown fields and a spec body are 422', async () => {
      assertError(
        await configure2607(server, 'dep-default', { schema: { fields: { body: { read_parameters: {} } } } }),
        400,
        'INVALID_ARGUMENT',
        ['schema'],
      );
      assertError(await configure2607(server, 'dep-default', { colour: 'red' }), 422, 'UNPROCESSABLE_ENTITY', ['colour']);
      assertError(await configure2607(server, 'dep-default', { embed: { model: 'm' } }), 422, 'UNPROCESSABLE_ENTITY', ['embed']);
      assertError(
        await configure2607(server, 'dep-default', { spec: { serverless: { read_capacity: { mode: 'OnDemand' } } } }),
        422,
        'UNPROCESSABLE_ENTITY',
        ['spec'],
      );
      assertError(await configure2607(server, 'dep-default', { tags: { a: 1 } }), 422, 'UNPROCESSABLE_ENTITY');
      assertError(await configure2607(server, 'dep-default', { deletion_protection: 'maybe' }), 400, 'INVALID_ARGUMENT', [
        'deletion_protection',
      ]);
    });
  });

  describe('both models in every record, for both versions', () => {
    it('list and describe for 2026-04 and 2026-07 carry both models on every index', async () => {
      const l07 = await api(server, 'GET', '/indexes', { version: V2607 });
      const l04 = await api(server, 'GET', '/indexes', { version: V2604 });
      assert.equal(l07.status, 200, l07.text);
      assert.equal(l04.status, 200, l04.text);
      assert.deepEqual(l07.body, l04.body);
      assert.ok(l07.body.indexes.length >= 10, `indexes: ${l07.body.indexes.length}`);
      for (const rec of l07.body.indexes) {
        assertBothModels(rec, 'list');
        await describeBoth(rec.name);
      }
    });

    it('an index created with 2026-04 reports the 2026-07 keys, and one created with 2026-07 the 2026-04 keys', async () => {
      const old = await describeBoth('shape-spec');
      assert.deepEqual(old.deployment, { deployment_type: 'managed', cloud: 'aws', region: 'us-east-1' });
      assert.deepEqual(old.schema.fields._values, { type: 'dense_vector', dimension: 4, metric: 'cosine' });
      const made = await describeBoth('sch-dense');
      assert.equal(made.dimension, 8);
      assert.equal(made.metric, 'euclidean');
      assert.equal(made.vector_type, 'dense');
      assert.equal(made.spec.serverless.cloud, 'aws');
    });
  });

  describe('version-specific behaviour applies only to 2026-07 requests', () => {
    let host = '';

    it('create backup answers 200 for 2026-07 and 201 for 2026-04; the 2026-07 schema is the index schema', async () => {
      const src = await created({
        name: 'bk-src',
        schema: denseSchema(2, 'cosine', { genre: { type: 'string', filterable: true } }),
      });
      host = src.host;
      const up = await api(server, 'POST', `${host}/vectors/upsert`, {
        version: V2607,
        body: {
          vectors: [
            { id: 'a', values: [1, 0], metadata: { genre: 'x' } },
            { id: 'b', values: [0, 1], metadata: { genre: 'y' } },
            { id: 'c', values: [1, 1], metadata: { genre: 'x' } },
          ],
        },
      });
      assert.equal(up.status, 200, up.text);

      const b07 = await api(server, 'POST', '/indexes/bk-src/backups', { version: V2607, body: { name: 'bk-0' } });
      assert.equal(b07.status, 200, b07.text);
      assert.equal(b07.body.source_index_name, 'bk-src');
      assert.equal(b07.body.schema.fields._values.type, 'dense_vector');
      assert.equal(b07.body.schema.fields._values.dimension, 2);
      assert.equal(b07.body.schema.fields._values.metric, 'cosine');
      assert.deepEqual(b07.body.schema.fields._sparse_values, { type: 'sparse_vector' });
      assert.equal(b07.body.schema.fields.genre.filterable, true);

      const b04 = await api(server, 'POST', '/indexes/bk-src/backups', { version: V2604, body: { name: 'bk-1' } });
      assert.equal(b04.status, 201, b04.text);
      assert.equal(b04.body.dimension, 2);
      assert.equal(b04.body.metric, 'cosine');
      assert.equal(b04.body.schema.fields._values, undefined, `2026-04 backup schema is the metadata schema: ${b04.text}`);
      assert.equal(b04.body.schema.fields.genre.filterable, true);

      // the same backup described with each version
      const d07 = await api(server, 'GET', `/backups/${b04.body.backup_id}`, { version: V2607 });
      assert.equal(d07.status, 200, d07.text);
      assert.equal(d07.body.schema.fields._values.dimension, 2);
      const d04 = await api(server, 'GET', `/backups/${b07.body.backup_id}`, { version: V2604 });
      assert.equal(d04.status, 200, d04.text);
      assert.equal(d04.body.schema.fields._values, undefined);
      await poll(
        'backups Ready',
        async () => (await api(server, 'GET', '/indexes/bk-src/backups', { version: V2607 })).body,
        (b) => b.data.every((x: { status: string }) => x.status === 'Ready'),
      );
    });

    it('backup lists default to 100 per page for 2026-07 and 10 for 2026-04', async () => {
      for (let i = 2; i < 12; i++) {
        const res = await api(server, 'POST', '/indexes/bk-src/backups', { version: i % 2 ? V2607 : V2604, body: { name: `bk-${i}` } });
        assert.ok([200, 201].includes(res.status), res.text);
      }
      const l07 = await api(server, 'GET', '/indexes/bk-src/backups', { version: V2607 });
      assert.equal(l07.status, 200, l07.text);
      assert.equal(l07.body.data.length, 12);
      assert.ok(l07.body.pagination === undefined || l07.body.pagination === null, `no next page: ${JSON.stringify(l07.body.pagination)}`);
      const p07 = await api(server, 'GET', '/backups', { version: V2607 });
      assert.equal(p07.body.data.length, 12);

      const l04 = await api(server, 'GET', '/indexes/bk-src/backups', { version: V2604 });
      assert.equal(l04.status, 200, l04.text);
      assert.equal(l04.body.data.length, 10);
      assert.equal(typeof l04.body.pagination?.next, 'string');
      const rest = await api(server, 'GET', `/indexes/bk-src/backups?paginationToken=${encodeURIComponent(l04.body.pagination.next)}`, {
        version: V2604,
      });
      assert.equal(rest.body.data.length, 2);
      const p04 = await api(server, 'GET', '/backups', { version: V2604 });
      assert.equal(p04.body.data.length, 10);

      // an explicit limit is honoured by both
      const lim = await api(server, 'GET', '/indexes/bk-src/backups?limit=5', { version: V2607 });
      assert.equal(lim.body.data.length, 5);
      assert.equal(typeof lim.body.pagination?.next, 'string');
      const ids = new Set([...l07.body.data.map((b: { backup_id: string }) => b.backup_id)]);
      assert.equal(ids.size, 12);
      // a malformed token is 400
      assertError(await api(server, 'GET', '/indexes/bk-src/backups?paginationToken=@@@', { version: V2607 }), 400, 'INVALID_ARGUMENT');
    });

    it('restore jobs list with 2026-07', async () => {
      // the previous test's backups may still be copying; restore needs a Ready one
      const backups = await poll(
        'backups Ready',
        async () => (await api(server, 'GET', '/indexes/bk-src/backups', { version: V2607 })).body,
        (b) => b.data.every((x: { status: string }) => x.status === 'Ready'),
      );
      const id = backups.data[0].backup_id;
      const job = await api(server, 'POST', `/backups/${id}/create-index`, { version: V2607, body: { name: 'bk-restored' } });
      assert.ok(job.status >= 200 && job.status < 300, job.text);
      const done = await poll(
        'restore Completed',
        async () => (await api(server, 'GET', `/restore-jobs/${job.body.restore_job_id}`, { version: V2607 })).body,
        (j) => j.status === 'Completed' || j.status === 'Failed',
      );
      assert.equal(done.status, 'Completed');
      assert.equal(done.percent_complete, 100);
      const restored = await describeBoth('bk-restored');
      assert.equal(restored.schema.fields.genre.filterable, true);
      assert.equal(restored.dimension, 2);
      const list = await api(server, 'GET', '/restore-jobs', { version: V2607 });
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.data.length, 1);
    });

    it('fetch_by_metadata without a filter is 400 for 2026-07 only', async () => {
      const r07 = await api(server, 'POST', `${host}/vectors/fetch_by_metadata`, { version: V2607, body: {} });
      assert.equal(r07.status, 400, r07.text);
      assert.match(r07.body.message ?? r07.body.error?.message, /filter/);
      const empty07 = await api(server, 'POST', `${host}/vectors/fetch_by_metadata`, { version: V2607, body: { filter: {} } });
      assert.equal(empty07.status, 400, empty07.text);

      const r04 = await api(server, 'POST', `${host}/vectors/fetch_by_metadata`, { version: V2604, body: {} });
      assert.equal(r04.status, 200, r04.text);
      assert.deepEqual(Object.keys(r04.body.vectors).sort(), ['a', 'b', 'c']);
      const none = await api(server, 'POST', `${host}/vectors/fetch_by_metadata`, { version: null, body: {} });
      assert.equal(none.status, 200, none.text);

      const f07 = await api(server, 'POST', `${host}/vectors/fetch_by_metadata`, { version: V2607, body: { filter: { genre: 'x' } } });
      assert.equal(f07.status, 200, f07.text);
      assert.deepEqual(Object.keys(f07.body.vectors).sort(), ['a', 'c']);
    });

    it('a collection from an unknown source index is 404 for 2026-07 and 400 for 2026-04', async () => {
      const r07 = await api(server, 'POST', '/collections', { version: V2607, body: { name: 'col-x', source: 'no-such-index' } });
      assertError(r07, 404, 'NOT_FOUND', ['no-such-index']);
      const r04 = await api(server, 'POST', '/collections', { version: V2604, body: { name: 'col-x', source: 'no-such-index' } });
      assertError(r04, 400, 'INVALID_ARGUMENT', ['no-such-index']);
    });

    it('create index answers 201 for both versions', async () => {
      const r07: ApiResponse = await create2607(server, { name: 'status-07', schema: SPARSE_SCHEMA });
      assert.equal(r07.status, 201, r07.text);
      const r04 = await api(server, 'POST', '/indexes', {
        version: V2604,
        body: { name: 'status-04', vector_type: 'sparse', metric: 'dotproduct', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
      });
      assert.equal(r04.status, 201, r04.text);
      assert.deepEqual({ ...r04.body, name: '', host: '' }, { ...r07.body, name: '', host: '' });
    });
  });
});
