// POST /indexes (every rule), GET /indexes and GET /indexes/{name}, the index record's
// shape in both API models, and the advertised host (DESIGN.md decision 2).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { startServer, api, TEST_API_KEY, CURRENT_VERSION, type TestServer } from '../helpers/server.js';
import { assertError, assertCommon, serverlessBody, podBody, hostId, indexDirs, stopAndClean } from './support.js';

const SERVERLESS_PAIRS: Array<[string, string]> = [
  ['aws', 'us-east-1'],
  ['aws', 'us-west-2'],
  ['aws', 'eu-west-1'],
  ['gcp', 'us-central1'],
  ['gcp', 'europe-west4'],
  ['azure', 'eastus2'],
];

const POD_ENVIRONMENTS = [
  'us-west1-gcp',
  'us-central1-gcp',
  'us-west4-gcp',
  'us-east4-gcp',
  'northamerica-northeast1-gcp',
  'asia-northeast1-gcp',
  'asia-southeast1-gcp',
  'us-east1-gcp',
  'eu-west1-gcp',
  'eu-west4-gcp',
  'us-east-1-aws',
  'eastus-azure',
];

/** GET with an explicit Host header (fetch does not let us set one). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'GET',
        headers: { Host: host, 'Api-Key': TEST_API_KEY, 'X-Service-Api-Version': CURRENT_VERSION },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('index create, list and describe', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });

  after(async () => {
    await stopAndClean(server);
  });

  const create = (body: unknown) => api(server, 'POST', '/indexes', { body });

  describe('empty project', () => {
    it('GET /indexes lists no indexes as {"indexes":[]}', async () => {
      const res = await api(server, 'GET', '/indexes');
      assert.equal(res.status, 200, res.text);
      assertCommon(res);
      assert.deepEqual(res.body, { indexes: [] });
    });
  });

  describe('successful creates', () => {
    it('serverless dense: 201 with the full 2026-04 record', async () => {
      const res = await create(serverlessBody('sl-dense', { dimension: 1536 }));
      assert.equal(res.status, 201, res.text);
      assertCommon(res);
      const r = res.body;
      assert.equal(r.name, 'sl-dense');
      assert.equal(r.dimension, 1536);
      assert.equal(r.metric, 'cosine');
      assert.equal(r.vector_type, 'dense');
      assert.equal(r.deletion_protection, 'disabled');
      assert.deepEqual(r.tags, {});
      assert.deepEqual(r.status, { ready: true, state: 'Ready' });
      assert.deepEqual(Object.keys(r.spec), ['serverless']);
      assert.equal(r.spec.serverless.cloud, 'aws');
      assert.equal(r.spec.serverless.region, 'us-east-1');
      assert.deepEqual(r.spec.serverless.read_capacity, { mode: 'OnDemand', status: { state: 'Ready' } });
      hostId(r.host, 'sl-dense', server.url);
    });

    it('serverless dense: the record also carries the 2026-07 keys', async () => {
      const res = await create(serverlessBody('sl-v2607', { dimension: 3, metric: 'dotproduct' }));
      assert.equal(res.status, 201, res.text);
      const r = res.body;
      assert.deepEqual(r.deployment, { deployment_type: 'managed', cloud: 'aws', region: 'us-east-1' });
      assert.deepEqual(r.schema.fields._values, { type: 'dense_vector', dimension: 3, metric: 'dotproduct' });
      assert.deepEqual(r.schema.fields._sparse_values, { type: 'sparse_vector' });
      assert.deepEqual(r.read_capacity, { mode: 'OnDemand', status: { state: 'Ready' } });
    });

    it('describe returns the same record as create', async () => {
      const created = await create(serverlessBody('sl-same', { tags: { team: 'search' } }));
      assert.equal(created.status, 201, created.text);
      const got = await api(server, 'GET', '/indexes/sl-same');
      assert.equal(got.status, 200, got.text);
      assertCommon(got);
      assert.deepEqual(got.body, created.body);
    });

    it('metric defaults are not invented: each metric is echoed', async () => {
      for (const metric of ['cosine', 'euclidean', 'dotproduct']) {
        const res = await create(serverlessBody(`metric-${metric}`, { metric }));
        assert.equal(res.status, 201, res.text);
        assert.equal(res.body.metric, metric);
        assert.equal(res.body.schema.fields._values.metric, metric);
      }
    });

    it('sparse: no dimension, dotproduct, vector_type sparse; schema has only _sparse_values', async () => {
      const res = await create({
        name: 'sl-sparse',
        metric: 'dotproduct',
        vector_type: 'sparse',
        spec: { serverless: { cloud: 'gcp', region: 'us-central1' } },
      });
      assert.equal(res.status, 201, res.text);
      const r = res.body;
      assert.equal(r.vector_type, 'sparse');
      assert.equal(r.metric, 'dotproduct');
      assert.ok(!('dimension' in r), `sparse record must not carry dimension: ${res.text}`);
      assert.deepEqual(r.schema.fields._sparse_values, { type: 'sparse_vector' });
      assert.ok(!('_values' in r.schema.fields), `sparse index must not report _values: ${res.text}`);
      assert.deepEqual(r.deployment, { deployment_type: 'managed', cloud: 'gcp', region: 'us-central1' });
    });

    it('explicit vector_type dense is accepted', async () => {
      const res = await create(serverlessBody('sl-explicit-dense', { vector_type: 'dense' }));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.vector_type, 'dense');
    });

    it('every configured serverless cloud/region pair is accepted and echoed', async () => {
      for (const [cloud, region] of SERVERLESS_PAIRS) {
        const name = `pair-${cloud}-${region}`;
        const res = await create(serverlessBody(name, { spec: { serverless: { cloud, region } } }));
        assert.equal(res.status, 201, `${cloud} ${region}: ${res.text}`);
        assert.equal(res.body.spec.serverless.cloud, cloud);
        assert.equal(res.body.spec.serverless.region, region);
        assert.deepEqual(res.body.deployment, { deployment_type: 'managed', cloud, region });
      }
    });

    it('an unknown region is 404 naming it, clipped: a 10,000-character region is not echoed whole', async () => {
      const region = 'x'.repeat(10_000);
      const res = await create(serverlessBody('sl-long-region', { spec: { serverless: { cloud: 'aws', region } } }));
      assertError(res, 404, 'NOT_FOUND', [/region: x+\.\.\. not found/]);
      assert.ok(res.body.error.message.length < 1000, `message is ${res.body.error.message.length} characters`);
    });

    it('Dedicated read capacity is echoed with status Ready, in spec and at top level', async () => {
      const rc = { mode: 'Dedicated', dedicated: { node_type: 'b1', scaling: 'Manual', manual: { replicas: 2, shards: 1 } } };
      const res = await create(
        serverlessBody('sl-dedicated', { spec: { serverless: { cloud: 'aws', region: 'us-east-1', read_capacity: rc } } }),
      );
      assert.equal(res.status, 201, res.text);
      const got = res.body.spec.serverless.read_capacity;
      assert.equal(got.mode, 'Dedicated');
      assert.equal(got.dedicated.node_type, 'b1');
      assert.equal(got.dedicated.scaling, 'Manual');
      assert.deepEqual(got.dedicated.manual, { replicas: 2, shards: 1 });
      assert.equal(got.status.state, 'Ready');
      assert.equal(res.body.read_capacity.mode, 'Dedicated');
      assert.deepEqual(res.body.read_capacity.dedicated.manual, { replicas: 2, shards: 1 });
    });

    it('explicit OnDemand read capacity is echoed with status', async () => {
      const res = await create(
        serverlessBody('sl-ondemand', {
          spec: { serverless: { cloud: 'aws', region: 'us-east-1', read_capacity: { mode: 'OnDemand' } } },
        }),
      );
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.spec.serverless.read_capacity, { mode: 'OnDemand', status: { state: 'Ready' } });
    });

    it('serverless schema is echoed', async () => {
      const schema = { fields: { genre: { filterable: true }, year: { filterable: true } } };
      const res = await create(
        serverlessBody('sl-schema', { spec: { serverless: { cloud: 'aws', region: 'us-east-1', schema } } }),
      );
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.spec.serverless.schema, schema);
    });

    it('tags and deletion protection are stored', async () => {
      const res = await create(
        serverlessBody('sl-tagged', { tags: { env: 'dev', owner: 'team-a' }, deletion_protection: 'enabled' }),
      );
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.tags, { env: 'dev', owner: 'team-a' });
      assert.equal(res.body.deletion_protection, 'enabled');
      const got = await api(server, 'GET', '/indexes/sl-tagged');
      assert.deepEqual(got.body.tags, { env: 'dev', owner: 'team-a' });
      assert.equal(got.body.deletion_protection, 'enabled');
      // clean up so that nothing protected lingers
      const off = await api(server, 'PATCH', '/indexes/sl-tagged', { body: { deletion_protection: 'disabled' } });
      assert.equal(off.status, 202, off.text);
    });

    it('deletion_protection disabled is accepted explicitly', async () => {
      const res = await create(serverlessBody('sl-dp-off', { deletion_protection: 'disabled' }));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.deletion_protection, 'disabled');
    });

    it('unknown fields are ignored', async () => {
      const res = await create(serverlessBody('sl-unknown-field', { flavour: 'vanilla', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } }));
      assert.equal(res.status, 201, res.text);
      assert.ok(!('flavour' in res.body));
    });

    it('pod: 201 with defaults pods/replicas/shards 1 and both models', async () => {
      const res = await create(podBody('pod-basic', {}, { dimension: 16 }));
      assert.equal(res.status, 201, res.text);
      const r = res.body;
      assert.equal(r.name, 'pod-basic');
      assert.equal(r.dimension, 16);
      assert.equal(r.metric, 'euclidean');
      assert.equal(r.vector_type, 'dense');
      assert.deepEqual(r.status, { ready: true, state: 'Ready' });
      assert.deepEqual(Object.keys(r.spec), ['pod']);
      assert.equal(r.spec.pod.environment, 'us-east-1-aws');
      assert.equal(r.spec.pod.pod_type, 'p1.x1');
      assert.equal(r.spec.pod.pods, 1);
      assert.equal(r.spec.pod.replicas, 1);
      assert.equal(r.spec.pod.shards, 1);
      assert.deepEqual(r.tags, {});
      assert.equal(r.deletion_protection, 'disabled');
      assert.deepEqual(r.deployment, {
        deployment_type: 'pod',
        environment: 'us-east-1-aws',
        pod_type: 'p1.x1',
        replicas: 1,
        shards: 1,
      });
      assert.deepEqual(r.schema.fields._values, { type: 'dense_vector', dimension: 16, metric: 'euclidean' });
      assert.deepEqual(r.schema.fields._sparse_values, { type: 'sparse_vector' });
      hostId(r.host, 'pod-basic', server.url);
    });

    it('pod: explicit pods, replicas, shards and metadata_config are echoed', async () => {
      const res = await create(
        podBody('pod-full', { pod_type: 's1.x4', pods: 4, replicas: 2, shards: 2, metadata_config: { indexed: ['genre', 'year'] } }),
      );
      assert.equal(res.status, 201, res.text);
      const p = res.body.spec.pod;
      assert.equal(p.pod_type, 's1.x4');
      assert.equal(p.pods, 4);
      assert.equal(p.replicas, 2);
      assert.equal(p.shards, 2);
      assert.deepEqual(p.metadata_config, { indexed: ['genre', 'year'] });
      assert.equal(res.body.deployment.replicas, 2);
      assert.equal(res.body.deployment.shards, 2);
      assert.equal(res.body.deployment.pod_type, 's1.x4');
    });

    it('pod: every pod type s1|p1|p2 × x1|x2|x4|x8 is accepted', async () => {
      for (const family of ['s1', 'p1', 'p2']) {
        for (const size of ['x1', 'x2', 'x4', 'x8']) {
          const res = await create(podBody(`podtype-${family}-${size}`, { pod_type: `${family}.${size}` }));
          assert.equal(res.status, 201, `${family}.${size}: ${res.text}`);
          assert.equal(res.body.spec.pod.pod_type, `${family}.${size}`);
        }
      }
    });

    it('pod: every configured environment is accepted', async () => {
      for (const env of POD_ENVIRONMENTS) {
        const res = await create(podBody(`env-${env}`.slice(0, 45), { environment: env }));
        assert.equal(res.status, 201, `${env}: ${res.text}`);
        assert.equal(res.body.spec.pod.environment, env);
        assert.equal(res.body.deployment.environment, env);
      }
    });

    it('boundary values are accepted: 45-char name, dimension 1 and 20000', async () => {
      const long = 'a' + 'b'.repeat(43) + 'c';
      assert.equal(long.length, 45);
      const r1 = await create(serverlessBody(long));
      assert.equal(r1.status, 201, r1.text);
      assert.equal(r1.body.name, long);
      const r2 = await create(serverlessBody('dim-one', { dimension: 1 }));
      assert.equal(r2.status, 201, r2.text);
      assert.equal(r2.body.dimension, 1);
      const r3 = await create(serverlessBody('dim-max', { dimension: 20000 }));
      assert.equal(r3.status, 201, r3.text);
      assert.equal(r3.body.dimension, 20000);
    });

    it('single-character and digit names are valid', async () => {
      for (const name of ['x', '7', 'a-b', '0-z-9']) {
        const res = await create(serverlessBody(name));
        assert.equal(res.status, 201, `${name}: ${res.text}`);
      }
    });

    it('creating an index creates one storage directory under <dataDir>/indexes/', async () => {
      const before = indexDirs(server.dataDir);
      const res = await create(serverlessBody('with-dir'));
      assert.equal(res.status, 201, res.text);
      const after = indexDirs(server.dataDir);
      const added = after.filter((d) => !before.includes(d));
      assert.equal(added.length, 1, `expected exactly one new directory, before=${before} after=${after}`);
    });
  });

  describe('host', () => {
    it('is http://<Host header>/svc/<name>-<id7>, following the Host of each request', async () => {
      const created = await create(serverlessBody('host-follow'));
      assert.equal(created.status, 201, created.text);
      const id = hostId(created.body.host, 'host-follow', server.url);
      const viaProxy = await getWithHost(server.url + '/indexes/host-follow', 'vectors.proxy.test:8443');
      assert.equal(viaProxy.status, 200);
      assert.equal(viaProxy.body.host, `http://vectors.proxy.test:8443/svc/host-follow-${id}`);
    });

    it('create through a different Host header advertises that Host', async () => {
      const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
        const body = JSON.stringify(serverlessBody('host-create'));
        const req = httpRequest(
          server.url + '/indexes',
          {
            method: 'POST',
            headers: {
              Host: 'localhost:5080',
              'Api-Key': TEST_API_KEY,
              'X-Service-Api-Version': CURRENT_VERSION,
              'Content-Type': 'application/json',
              'Content-Length': String(Buffer.byteLength(body)),
            },
          },
          (r) => {
            let text = '';
            r.setEncoding('utf8');
            r.on('data', (c: string) => (text += c));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      assert.equal(res.status, 201);
      hostId(res.body.host, 'host-create', 'http://localhost:5080');
    });

    it('differs between indexes and appears in list and describe alike', async () => {
      const a = await create(serverlessBody('host-a'));
      const b = await create(serverlessBody('host-b'));
      assert.equal(a.status, 201);
      assert.equal(b.status, 201);
      assert.notEqual(hostId(a.body.host, 'host-a', server.url), hostId(b.body.host, 'host-b', server.url));
      const list = await api(server, 'GET', '/indexes');
      const listed = list.body.indexes.find((i: { name: string }) => i.name === 'host-a');
      assert.equal(listed.host, a.body.host);
    });
  });

  describe('list and describe', () => {
    it('GET /indexes lists full records of the created indexes', async () => {
      const res = await api(server, 'GET', '/indexes');
      assert.equal(res.status, 200, res.text);
      assert.ok(Array.isArray(res.body.indexes));
      const names = res.body.indexes.map((i: { name: string }) => i.name);
      for (const n of ['sl-dense', 'sl-sparse', 'pod-basic', 'pod-full']) assert.ok(names.includes(n), `${n} not in ${names}`);
      const sparse = res.body.indexes.find((i: { name: string }) => i.name === 'sl-sparse');
      assert.equal(sparse.vector_type, 'sparse');
      assert.ok(!('dimension' in sparse));
      const pod = res.body.indexes.find((i: { name: string }) => i.name === 'pod-full');
      assert.equal(pod.spec.pod.replicas, 2);
      assert.deepEqual(pod.status, { ready: true, state: 'Ready' });
      assert.equal(new Set(names).size, names.length, 'no duplicates in the list');
    });

    it('describe of an unknown index is 404 naming the index', async () => {
      const res = await api(server, 'GET', '/indexes/does-not-exist');
      assertError(res, 404, 'NOT_FOUND', ['does-not-exist']);
    });

    it('describe of a name no index could have is 404, as for any unknown name', async () => {
      const res = await api(server, 'GET', '/indexes/Upper_Case');
      assertError(res, 404, 'NOT_FOUND', ['Upper_Case']);
    });
  });

  describe('409', () => {
    it('a taken name is 409 ALREADY_EXISTS and the original is unchanged', async () => {
      const first = await create(serverlessBody('dup-name', { dimension: 8 }));
      assert.equal(first.status, 201, first.text);
      const second = await create(podBody('dup-name', {}, { dimension: 99 }));
      assertError(second, 409, 'ALREADY_EXISTS');
      const got = await api(server, 'GET', '/indexes/dup-name');
      assert.equal(got.body.dimension, 8);
      assert.ok(got.body.spec.serverless);
      assert.equal(got.body.host, first.body.host);
    });
  });

  describe('concurrent creates', () => {
    it('ten simultaneous creates of one name: exactly one 201, the rest 409', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => create(serverlessBody('race-name', { dimension: i + 1 }))),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409, 409, 409], JSON.stringify(statuses));
      const winner = results.find((r) => r.status === 201)!;
      const got = await api(server, 'GET', '/indexes/race-name');
      assert.equal(got.body.dimension, winner.body.dimension);
      assert.equal(got.body.host, winner.body.host);
      const list = await api(server, 'GET', '/indexes');
      assert.equal(list.body.indexes.filter((i: { name: string }) => i.name === 'race-name').length, 1);
    });
  });

  describe('422: body cannot be deserialized', () => {
    const cases: Array<[string, unknown, string]> = [
      ['missing name', { dimension: 8, metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } }, 'name'],
      ['missing spec', { name: 'no-spec', dimension: 8, metric: 'cosine' }, 'spec'],
      ['missing metric', { name: 'no-metric', dimension: 8, spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } }, 'metric'],
      ['dimension as string', serverlessBody('dim-str', { dimension: '8' }), 'dimension'],
      ['dimension fractional', serverlessBody('dim-frac', { dimension: 8.5 }), 'dimension'],
      ['dimension boolean', serverlessBody('dim-bool', { dimension: true }), 'dimension'],
      ['spec as string', serverlessBody('spec-str', { spec: 'x' }), 'spec'],
      ['spec as array', serverlessBody('spec-arr', { spec: [] }), 'spec'],
      ['tags value not a string', serverlessBody('tags-num', { tags: { a: 1 } }), 'tags'],
      ['tags as array', serverlessBody('tags-arr', { tags: ['a'] }), 'tags'],
      ['deletion_protection boolean', serverlessBody('dp-bool', { deletion_protection: true }), 'deletion_protection'],
      ['name as number', serverlessBody('x', { name: 42 }), 'name'],
      ['metric as number', serverlessBody('metric-num', { metric: 1 }), 'metric'],
      ['vector_type as number', serverlessBody('vt-num', { vector_type: 0 }), 'vector_type'],
      ['pods as string', podBody('pods-str', { pods: '2' }), 'pods'],
      ['replicas fractional', podBody('replicas-frac', { replicas: 1.5 }), 'replicas'],
    ];
    for (const [title, body, field] of cases) {
      it(`${title} → 422 naming ${field}`, async () => {
        const res = await create(body);
        assertError(res, 422, 'UNPROCESSABLE_ENTITY', [field]);
        const name = (body as { name?: unknown }).name;
        if (typeof name === 'string') {
          const check = await api(server, 'GET', `/indexes/${name}`);
          assert.equal(check.status, 404, `${name} must not exist after a 422`);
        }
      });
    }
  });

  describe('400: values that break a rule', () => {
    const badNames = ['', 'A', 'Abc', '-a', 'a-', 'a_b', 'a.b', 'a b', 'ä', 'a'.repeat(46)];
    for (const name of badNames) {
      it(`name ${JSON.stringify(name.length > 20 ? `${name.length} chars` : name)} → 400 naming name`, async () => {
        const res = await create(serverlessBody(name));
        assertError(res, 400, 'INVALID_ARGUMENT', ['name']);
      });
    }

    const cases: Array<[string, unknown, Array<string | RegExp>]> = [
      ['dimension 0', serverlessBody('dim-zero', { dimension: 0 }), ['dimension', '20000']],
      ['dimension 20001', serverlessBody('dim-big', { dimension: 20001 }), ['dimension', '20000']],
      ['dimension negative', serverlessBody('dim-neg', { dimension: -5 }), ['dimension']],
      ['unknown metric', serverlessBody('bad-metric', { metric: 'manhattan' }), ['metric']],
      ['metric in wrong case', serverlessBody('bad-metric-case', { metric: 'Cosine' }), ['metric']],
      ['unknown vector_type', serverlessBody('bad-vt', { vector_type: 'hybrid' }), ['vector_type']],
      ['unknown deletion_protection', serverlessBody('bad-dp', { deletion_protection: 'on' }), ['deletion_protection']],
      ['dense without dimension', { name: 'dense-nodim', metric: 'cosine', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } }, ['dimension']],
      [
        'sparse with cosine',
        { name: 'sparse-cos', metric: 'cosine', vector_type: 'sparse', spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
        ['dotproduct'],
      ],
      [
        'sparse with a dimension',
        { name: 'sparse-dim', metric: 'dotproduct', vector_type: 'sparse', dimension: 8, spec: { serverless: { cloud: 'aws', region: 'us-east-1' } } },
        ['dimension'],
      ],
      [
        'spec with both serverless and pod',
        serverlessBody('spec-both', { spec: { serverless: { cloud: 'aws', region: 'us-east-1' }, pod: { environment: 'us-east-1-aws', pod_type: 'p1.x1' } } }),
        ['spec'],
      ],
      ['spec with neither', serverlessBody('spec-none', { spec: {} }), ['spec']],
      ['unknown pod_type family', podBody('bad-pt-family', { pod_type: 'p3.x1' }), ['pod_type']],
      ['unknown pod_type size', podBody('bad-pt-size', { pod_type: 'p1.x3' }), ['pod_type']],
      ['pod_type without size', podBody('bad-pt-bare', { pod_type: 'p1' }), ['pod_type']],
      ['pods 0', podBody('pods-zero', { pods: 0 }), ['pods']],
      ['replicas 0', podBody('replicas-zero', { replicas: 0 }), ['replicas']],
      ['shards 0', podBody('shards-zero', { shards: 0 }), ['shards']],
      ['replicas negative', podBody('replicas-neg', { replicas: -1 }), ['replicas']],
      ['pod environment not configured', podBody('bad-env', { environment: 'mars-west1-gcp' }), ['environment']],
      // The names API 2026-07 reports an index's vectors under (a client read a cosine
      // 4-d index declaring "_values" filterable as sparse dotproduct).
      [
        'schema field named _values',
        serverlessBody('schema-values', { spec: { serverless: { cloud: 'aws', region: 'us-east-1', schema: { fields: { _values: { filterable: true } } } } } }),
        ['spec.serverless.schema.fields', '"_values"', 'reserved'],
      ],
      ['metadata_config indexing _sparse_values', podBody('pod-sparse-values', { metadata_config: { indexed: ['genre', '_sparse_values'] } }), ['metadata_config.indexed', '"_sparse_values"', 'reserved']],
    ];
    for (const [title, body, mentions] of cases) {
      it(`${title} → 400`, async () => {
        const res = await create(body);
        assertError(res, 400, 'INVALID_ARGUMENT', mentions);
        const name = (body as { name: string }).name;
        const check = await api(server, 'GET', `/indexes/${name}`);
        assert.equal(check.status, 404, `${name} must not exist after a 400`);
      });
    }
  });

  describe('404 on create', () => {
    it('an unconfigured serverless cloud/region pair is 404 naming the pair', async () => {
      const res = await create(serverlessBody('bad-region', { spec: { serverless: { cloud: 'aws', region: 'us-west1' } } }));
      assertError(res, 404, 'NOT_FOUND', [/cloud:? aws/i, /region:? us-west1/i]);
      const check = await api(server, 'GET', '/indexes/bad-region');
      assert.equal(check.status, 404);
    });

    it('a region of another cloud is 404 (gcp us-east-1)', async () => {
      const res = await create(serverlessBody('cross-region', { spec: { serverless: { cloud: 'gcp', region: 'us-east-1' } } }));
      assertError(res, 404, 'NOT_FOUND', ['gcp', 'us-east-1']);
    });

    it('source_collection naming no collection is 404', async () => {
      const res = await create(
        serverlessBody('from-nothing', {
          spec: { serverless: { cloud: 'aws', region: 'us-east-1', source_collection: 'no-such-collection' } },
        }),
      );
      assertError(res, 404, 'NOT_FOUND', ['no-such-collection']);
      const check = await api(server, 'GET', '/indexes/from-nothing');
      assert.equal(check.status, 404);
    });

    it('pod source_collection naming no collection is 404', async () => {
      const res = await create(podBody('pod-from-nothing', { source_collection: 'no-such-collection' }));
      assertError(res, 404, 'NOT_FOUND', ['no-such-collection']);
    });
  });
});
