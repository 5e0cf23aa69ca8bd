// The `conifer` command (projects and keys) used while a server runs on the same data
// directory, and what it enables over HTTP: per-project keys, revocation at once,
// project isolation by name and by host, and suspension (402).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, api, runCli, TEST_API_KEY, type TestServer } from '../helpers/server.js';
import { assertError, assertDataPlaneError, serverlessBody, podBody, stopAndClean } from '../server/support.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('conifer CLI', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer();
  });

  after(async () => {
    await stopAndClean(server);
  });

  /** Runs a command with --data-dir, expects exit 0 and one JSON document on stdout. */
  async function cli(...args: string[]): Promise<any> {
    const r = await runCli([...args, '--data-dir', server.dataDir]);
    assert.equal(r.code, 0, `conifer ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    try {
      return JSON.parse(r.stdout);
    } catch {
      assert.fail(`conifer ${args.join(' ')} did not print one JSON document:\n${r.stdout}`);
    }
  }

  /** Runs a command expected to fail: non-zero exit and a message on stderr. */
  async function cliFails(...args: string[]): Promise<string> {
    const r = await runCli([...args, '--data-dir', server.dataDir]);
    assert.notEqual(r.code, 0, `conifer ${args.join(' ')} should fail\nstdout: ${r.stdout}`);
    assert.ok(r.stderr.trim().length > 0, `conifer ${args.join(' ')} printed nothing on stderr`);
    return r.stderr;
  }

  const as = (key: string) => ({ url: server.url, apiKey: key });

  let alphaKey = '';
  let alphaKeyId = '';
  let alphaSecondKey = '';
  let betaKey = '';

  describe('projects', () => {
    it('list includes the default project', async () => {
      const out = await cli('projects', 'list');
      assert.ok(Array.isArray(out.projects), JSON.stringify(out));
      const def = out.projects.find((p: { name: string }) => p.name === 'default');
      assert.ok(def, `no default project: ${JSON.stringify(out)}`);
      assert.equal(def.suspended, false);
      assert.equal(typeof def.id, 'string');
    });

    it('create prints {id, name, suspended:false, created_at}', async () => {
      const out = await cli('projects', 'create', 'alpha');
      assert.equal(typeof out.id, 'string');
      assert.ok(out.id.length > 0);
      assert.equal(out.name, 'alpha');
      assert.equal(out.suspended, false);
      assert.match(out.created_at, ISO);
      const list = await cli('projects', 'list');
      const names = list.projects.map((p: { name: string }) => p.name);
      assert.ok(names.includes('alpha') && names.includes('default'), JSON.stringify(list));
    });

    it('creating a project twice fails with a message', async () => {
      const err = await cliFails('projects', 'create', 'alpha');
      assert.match(err, /alpha|exist/i);
    });

    it('reads the data directory from CONIFER_DATA_DIR too', async () => {
      const r = await runCli(['projects', 'list'], { CONIFER_DATA_DIR: server.dataDir });
      assert.equal(r.code, 0, r.stderr);
      const names = JSON.parse(r.stdout).projects.map((p: { name: string }) => p.name);
      assert.ok(names.includes('alpha'), r.stdout);
    });

    it('an unknown command fails', async () => {
      await cliFails('frobnicate');
    });

    it('a data directory that is a file, or lies under one, fails with the error and path, not a stack', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'conifer-file-')), 'plain-file');
      writeFileSync(file, 'x');
      for (const dataDir of [file, join(file, 'below')]) {
        const r = await runCli(['start', '--port', '0'], { CONIFER_DATA_DIR: dataDir });
        assert.equal(r.code, 1);
        assert.match(r.stderr, /^conifer: (EEXIST|ENOTDIR)\b.*plain-file/);
        assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      }
    });
  });

  describe('keys', () => {
    it('create prints {id, project, key, created_at}; the key works at once', async () => {
      const out = await cli('keys', 'create', '--project', 'alpha', '--name', 'ci');
      assert.equal(typeof out.id, 'string');
      assert.equal(out.project, 'alpha');
      assert.equal(typeof out.key, 'string');
      assert.ok(out.key.length >= 16, `key too short: ${out.key}`);
      assert.match(out.created_at, ISO);
      alphaKey = out.key;
      alphaKeyId = out.id;

      const res = await api(as(alphaKey), 'GET', '/indexes');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { indexes: [] });
    });

    it('keys are unique', async () => {
      const out = await cli('keys', 'create', '--project', 'alpha');
      assert.notEqual(out.key, alphaKey);
      assert.notEqual(out.id, alphaKeyId);
      alphaSecondKey = out.key;
    });

    it('list shows metadata and never the secrets', async () => {
      const r = await runCli(['keys', 'list', '--project', 'alpha', '--data-dir', server.dataDir]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!r.stdout.includes(alphaKey), 'keys list printed a secret');
      assert.ok(!r.stdout.includes(alphaSecondKey), 'keys list printed a secret');
      const out = JSON.parse(r.stdout);
      assert.equal(out.keys.length, 2, r.stdout);
      const ci = out.keys.find((k: { id: string }) => k.id === alphaKeyId);
      assert.ok(ci, r.stdout);
      assert.equal(ci.name, 'ci');
      assert.equal(ci.project, 'alpha');
      assert.equal(ci.revoked, false);
      assert.match(ci.created_at, ISO);
      for (const k of out.keys) assert.ok(!('key' in k), `a listed key carries a 'key' field: ${JSON.stringify(k)}`);
    });

    it('the default project has a key that is not listed in clear', async () => {
      const r = await runCli(['keys', 'list', '--project', 'default', '--data-dir', server.dataDir]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(JSON.parse(r.stdout).keys.length >= 1, r.stdout);
      assert.ok(!r.stdout.includes(TEST_API_KEY), 'keys list printed the default key');
    });

    it('create for an unknown project fails', async () => {
      await cliFails('keys', 'create', '--project', 'no-such-project');
    });

    it('revoke: the key gets 401 at once; the project’s other key still works', async () => {
      const tmp = await cli('keys', 'create', '--project', 'alpha', '--name', 'temporary');
      assert.equal((await api(as(tmp.key), 'GET', '/indexes')).status, 200);
      await cli('keys', 'revoke', tmp.id, '--project', 'alpha');
      assertError(await api(as(tmp.key), 'GET', '/indexes'), 401, 'UNAUTHENTICATED');
      assertError(await api(as(tmp.key), 'POST', '/indexes', { body: serverlessBody('by-revoked') }), 401, 'UNAUTHENTICATED');
      assert.equal((await api(as(alphaKey), 'GET', '/indexes')).status, 200);
      const list = await cli('keys', 'list', '--project', 'alpha');
      const listed = list.keys.find((k: { id: string }) => k.id === tmp.id);
      assert.equal(listed.revoked, true);
    });

    it('revoking an unknown key id fails', async () => {
      await cliFails('keys', 'revoke', 'no-such-key-id', '--project', 'alpha');
    });

    it('a key cannot be revoked through another project', async () => {
      await cli('projects', 'create', 'beta');
      const b = await cli('keys', 'create', '--project', 'beta');
      betaKey = b.key;
      await cliFails('keys', 'revoke', alphaKeyId, '--project', 'beta');
      assert.equal((await api(as(alphaKey), 'GET', '/indexes')).status, 200, 'alpha key must still work');
    });
  });

  describe('project isolation', () => {
    let alphaHost = '';

    it('another project cannot see an index by name or in the list', async () => {
      const created = await api(as(alphaKey), 'POST', '/indexes', { body: serverlessBody('iso-index') });
      assert.equal(created.status, 201, created.text);
      alphaHost = created.body.host;

      assertError(await api(as(betaKey), 'GET', '/indexes/iso-index'), 404, 'NOT_FOUND');
      const list = await api(as(betaKey), 'GET', '/indexes');
      assert.equal(list.status, 200);
      assert.ok(!list.body.indexes.some((i: { name: string }) => i.name === 'iso-index'), list.text);
      const def = await api(server, 'GET', '/indexes');
      assert.ok(!def.body.indexes.some((i: { name: string }) => i.name === 'iso-index'), 'default project sees alpha');
    });

    it('another project cannot configure or delete it', async () => {
      assertError(await api(as(betaKey), 'PATCH', '/indexes/iso-index', { body: { tags: { x: 'y' } } }), 404, 'NOT_FOUND');
      assertError(await api(as(betaKey), 'DELETE', '/indexes/iso-index'), 404, 'NOT_FOUND');
      const got = await api(as(alphaKey), 'GET', '/indexes/iso-index');
      assert.equal(got.status, 200);
      assert.deepEqual(got.body.tags, {});
    });

    it('the same name is free in another project, with another host', async () => {
      const res = await api(as(betaKey), 'POST', '/indexes', { body: podBody('iso-index') });
      assert.equal(res.status, 201, res.text);
      assert.notEqual(res.body.host, alphaHost);
      assert.ok((await api(as(alphaKey), 'GET', '/indexes/iso-index')).body.spec.serverless, 'alpha index unchanged');
      assert.ok((await api(as(betaKey), 'GET', '/indexes/iso-index')).body.spec.pod);
      assertError(await api(as(betaKey), 'POST', '/indexes', { body: podBody('iso-index') }), 409, 'ALREADY_EXISTS');
    });

    it('a data-plane request to another project’s host is 404, indistinguishable from no index', async () => {
      const res = await api(as(betaKey), 'POST', alphaHost + '/describe_index_stats', { body: {} });
      assertDataPlaneError(res, 404, 'NOT_FOUND', 5);
      // The same request to a host that never existed must look the same (no existence leak).
      const alphaSegment = new URL(alphaHost).pathname.split('/')[2];
      const fakeSegment = 'iso-index-zzzzzzz';
      const fake = await api(as(betaKey), 'POST', `${server.url}/svc/${fakeSegment}/describe_index_stats`, { body: {} });
      assert.equal(fake.status, res.status);
      assert.equal(fake.body.error.code, res.body.error.code);
      assert.equal(
        res.body.error.message.replaceAll(alphaSegment, 'HOST'),
        fake.body.error.message.replaceAll(fakeSegment, 'HOST'),
        'another project’s index must answer like a missing one',
      );
      const upsert = await api(as(betaKey), 'POST', alphaHost + '/vectors/upsert', {
        body: { vectors: [{ id: 'a', values: [1, 2, 3, 4, 5, 6, 7, 8] }] },
      });
      assertDataPlaneError(upsert, 404, 'NOT_FOUND', 5);
    });

    it('the owner’s key is routed to the index (not the answer a stranger gets)', async () => {
      const stranger = await api(as(betaKey), 'POST', alphaHost + '/describe_index_stats', { body: {} });
      const owner = await api(as(alphaKey), 'POST', alphaHost + '/describe_index_stats', { body: {} });
      assert.notEqual(owner.status, 401, owner.text);
      assert.notDeepEqual(owner.body, stranger.body, 'owner and stranger got the same answer');
    });
  });

  describe('suspension', () => {
    it('a suspended project gets 402 on create and configure; list and describe still work', async () => {
      const created = await api(as(betaKey), 'POST', '/indexes', { body: serverlessBody('before-suspend') });
      assert.equal(created.status, 201, created.text);

      await cli('projects', 'suspend', 'beta');
      const list = await cli('projects', 'list');
      const beta = list.projects.find((p: { name: string }) => p.name === 'beta');
      assert.equal(beta.suspended, true);

      assertError(await api(as(betaKey), 'POST', '/indexes', { body: serverlessBody('while-suspended') }), 402, 'PAYMENT_REQUIRED');
      assertError(
        await api(as(betaKey), 'PATCH', '/indexes/before-suspend', { body: { tags: { a: 'b' } } }),
        402,
        'PAYMENT_REQUIRED',
      );
      const described = await api(as(betaKey), 'GET', '/indexes/before-suspend');
      assert.equal(described.status, 200, described.text);
      assert.deepEqual(described.body.tags, {}, 'the refused configure changed nothing');
      const listed = await api(as(betaKey), 'GET', '/indexes');
      assert.equal(listed.status, 200, listed.text);
      assert.ok(!listed.body.indexes.some((i: { name: string }) => i.name === 'while-suspended'));

      // other projects are not affected
      const alphaCreate = await api(as(alphaKey), 'POST', '/indexes', { body: serverlessBody('alpha-during-suspend') });
      assert.equal(alphaCreate.status, 201, alphaCreate.text);
    });

    it('resume restores create and configure', async () => {
      await cli('projects', 'resume', 'beta');
      const list = await cli('projects', 'list');
      assert.equal(list.projects.find((p: { name: string }) => p.name === 'beta').suspended, false);
      const created = await api(as(betaKey), 'POST', '/indexes', { body: serverlessBody('after-resume') });
      assert.equal(created.status, 201, created.text);
      const patched = await api(as(betaKey), 'PATCH', '/indexes/before-suspend', { body: { tags: { a: 'b' } } });
      assert.equal(patched.status, 202, patched.text);
    });

    it('suspending an unknown project fails', async () => {
      await cliFails('projects', 'suspend', 'no-such-project');
    });
  });

  describe('after a restart', () => {
    it('projects, keys, revocations and per-project indexes persist', async () => {
      const revoked = await cli('keys', 'create', '--project', 'alpha', '--name', 'to-revoke');
      await cli('keys', 'revoke', revoked.id, '--project', 'alpha');
      assert.equal(await server.stop(), 0);
      server = await startServer({ dataDir: server.dataDir });

      const alphaList = await api(as(alphaKey), 'GET', '/indexes');
      assert.equal(alphaList.status, 200, alphaList.text);
      assert.deepEqual(
        alphaList.body.indexes.map((i: { name: string }) => i.name).sort(),
        ['alpha-during-suspend', 'iso-index'],
      );
      const betaList = await api(as(betaKey), 'GET', '/indexes');
      assert.deepEqual(
        betaList.body.indexes.map((i: { name: string }) => i.name).sort(),
        ['after-resume', 'before-suspend', 'iso-index'],
      );
      assertError(await api(as(revoked.key), 'GET', '/indexes'), 401, 'UNAUTHENTICATED');
      const projects = await cli('projects', 'list');
      assert.deepEqual(
        projects.projects.map((p: { name: string }) => p.name).sort(),
        ['alpha', 'beta', 'default'],
      );
    });
  });
});
