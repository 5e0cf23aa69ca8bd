// The console's static files: served under /console/ without a key (they hold no
// secret), /console redirects to /console/, and nothing outside the built directory is
// reachable through the prefix. The console's behaviour is tested in Chromium
// (test/console/console.test.ts).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { api, startServer, type TestServer } from '../helpers/server.js';

describe('console static files', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server.stop();
  });

  test('/console redirects to /console/, which serves the page without a key', async () => {
    const redirect = await fetch(`${server.url}/console`, { redirect: 'manual' });
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get('location'), '/console/');

    const page = await api(server, 'GET', '/console/', { key: null, version: null });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.match(page.text, /<title>Conifer console<\/title>/);

    // Every script and stylesheet the page names is served, without a key, from /console/.
    const assets = [...page.text.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), page.text);
    for (const asset of assets) {
      const res = await api(server, 'GET', asset, { key: null, version: null });
      assert.equal(res.status, 200, asset);
      assert.match(res.headers.get('content-type') ?? '', asset.endsWith('.js') ? /javascript/ : /^text\/css/);
    }
  });

  test('the page loads nothing from another origin (works offline)', async () => {
    const page = await api(server, 'GET', '/console/', { key: null, version: null });
    assert.doesNotMatch(page.text, /(?:src|href)="(?:https?:)?\/\//);
  });

  test('paths outside the console directory are not served', async () => {
    // Sent raw: fetch would resolve the dot segments before sending.
    for (const path of ['/console/../../package.json', '/console/%2e%2e/%2e%2e/package.json', '/console/..%2f..%2fpackage.json']) {
      const res = await rawGet(server.url, path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.body, /"name": "conifer"/, path);
    }
    const missing = await api(server, 'GET', '/console/no-such-file.js', { key: null, version: null });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');
  });

  test('the API beside the console still needs a key', async () => {
    const res = await api(server, 'GET', '/indexes', { key: null });
    assert.equal(res.status, 401);
  });
});

/** A GET with the path exactly as given (no URL normalisation). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET', timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}
