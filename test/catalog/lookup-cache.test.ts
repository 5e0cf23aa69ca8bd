// The per-request catalog caches (src/catalog/lookup-cache.ts): a write by this
// connection is seen by the very next lookup, a write by another process (the CLI's own
// connection) by the next lookup after revalidate(), and nothing read inside a rolled-back
// transaction survives it.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Catalog } from '../../src/catalog/catalog.js';
import type { IndexRow } from '../../src/catalog/indexes.js';
import { CatalogFreshness } from '../../src/catalog/lookup-cache.js';

const indexRow = (projectId: string, name: string): IndexRow => ({
  id: `id-${name}`,
  projectId,
  name,
  hostId: `${name}-abcdefg`,
  dimension: 4,
  metric: 'cosine',
  vectorType: 'dense',
  deletionProtection: 'disabled',
  tags: {},
  spec: { serverless: { cloud: 'aws', region: 'us-east-1', read_capacity: { mode: 'OnDemand' } } },
  state: 'Ready',
  createdAt: new Date().toISOString(),
});

describe('catalog lookup caches', () => {
  let dir: string;
  let server: Catalog;
  let cli: Catalog;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'conifer-lookup-cache-'));
    server = Catalog.open(dir);
    cli = Catalog.open(dir); // a second connection, as `conifer keys …` opens beside the server
  });
  afterEach(() => {
    server.close();
    cli.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a key revoked by another connection is refused after the next revalidate', () => {
    const project = server.projects.create('alpha');
    const { info, secret } = server.projects.createKey(project.id, 'k');
    server.freshness.revalidate();
    assert.equal(server.projects.authenticate(secret)?.id, project.id); // now cached
    assert.equal(server.projects.authenticate(secret)?.id, project.id);
    assert.equal(cli.projects.revokeKey(project.id, info.id), true);
    server.freshness.revalidate();
    assert.equal(server.projects.authenticate(secret), undefined);
  });

  it('a project suspended by another connection is seen suspended after the next revalidate', () => {
    const project = server.projects.create('beta');
    const { secret } = server.projects.createKey(project.id, 'k');
    server.freshness.revalidate();
    assert.equal(server.projects.authenticate(secret)?.suspended, false);
    cli.projects.setSuspended(project.id, true);
    server.freshness.revalidate();
    assert.equal(server.projects.authenticate(secret)?.suspended, true);
  });

  it('a key revoked through the same connection is refused at once', () => {
    const project = server.projects.create('gamma');
    const { info, secret } = server.projects.createKey(project.id, 'k');
    server.freshness.revalidate();
    assert.equal(server.projects.authenticate(secret)?.id, project.id);
    server.projects.revokeKey(project.id, info.id);
    assert.equal(server.projects.authenticate(secret), undefined);
  });

  it('an index deleted or changed through the same connection is seen by the next host lookup', () => {
    const project = server.projects.create('delta');
    const row = indexRow(project.id, 'one');
    server.indexes.insert(row);
    server.freshness.revalidate();
    assert.equal(server.indexes.getByHost(project.id, row.hostId)?.state, 'Ready');
    server.indexes.update({ ...row, state: 'ScalingUp' });
    assert.equal(server.indexes.getByHost(project.id, row.hostId)?.state, 'ScalingUp');
    server.indexes.delete(row.id);
    assert.equal(server.indexes.getByHost(project.id, row.hostId), undefined);
  });

  it('keeps nothing read inside a transaction that rolled back', () => {
    const project = server.projects.create('epsilon');
    const row = indexRow(project.id, 'rolled-back');
    assert.throws(
      () =>
        server.transaction(() => {
          server.indexes.insert(row);
          assert.equal(server.indexes.getByHost(project.id, row.hostId)?.name, 'rolled-back');
          throw new Error('abort');
        }),
      /abort/,
    );
    assert.equal(server.indexes.getByHost(project.id, row.hostId), undefined);
  });

  it('hands out rows no caller can change for the next request', () => {
    const project = server.projects.create('zeta');
    const row = indexRow(project.id, 'frozen');
    server.indexes.insert(row);
    const cached = server.indexes.getByHost(project.id, row.hostId);
    assert.ok(cached);
    assert.throws(() => {
      (cached as { state: string }).state = 'ScalingDown';
    }, TypeError);
    assert.throws(() => {
      (cached.tags as Record<string, string>).x = 'y';
    }, TypeError);
    assert.equal(server.indexes.getByHost(project.id, row.hostId)?.state, 'Ready');
  });
});

// revalidate() reads the WAL-index header in WAL mode, and SQLite's counters otherwise.
for (const mode of ['wal', 'delete']) {
  it(`revalidate (${mode} journal) clears on another connection's commit and on this connection's, and only then`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'conifer-lookup-cache-journal-'));
    const file = join(dir, 'c.db');
    const db = new Database(file);
    const other = new Database(file);
    try {
      assert.equal(db.pragma(`journal_mode = ${mode}`, { simple: true }), mode);
      db.exec('CREATE TABLE t (v INTEGER)');
      const freshness = new CatalogFreshness(db);
      const cache = freshness.cache<{ v: number }>();
      let loads = 0;
      const lookup = (): { v: number } | undefined =>
        cache.get('k', () => {
          loads++;
          return { v: (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n };
        });
      freshness.revalidate();
      assert.equal(lookup()?.v, 0);
      freshness.revalidate();
      assert.equal(lookup()?.v, 0);
      assert.equal(loads, 1, 'nothing committed: the entry stays');
      other.prepare('INSERT INTO t VALUES (1)').run();
      freshness.revalidate();
      assert.equal(lookup()?.v, 1);
      assert.equal(loads, 2);
      freshness.revalidate();
      assert.equal(lookup()?.v, 1);
      assert.equal(loads, 2, 'nothing committed since: the entry stays');
      db.prepare('INSERT INTO t VALUES (2)').run(); // this connection, outside any cache owner
      freshness.revalidate();
      assert.equal(lookup()?.v, 2);
      assert.equal(loads, 3);
      freshness.close();
    } finally {
      db.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
