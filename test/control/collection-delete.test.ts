// CollectionService.delete() while an index is being created from the collection: that
// index's load reads the collection's files until it ends, so the delete is refused with
// 412 (as a backup's is while a restore from it is pending) and allowed once it ended.
// Decided here on the catalog's rows, so the race an HTTP test would need is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Catalog } from '../../src/catalog/catalog.js';
import type { Config } from '../../src/config.js';
import { CollectionService, type CopyLog, type IndexSnapshotter } from '../../src/control/collection-service.js';
import type { JobScheduler } from '../../src/control/index-service.js';
import { ApiError } from '../../src/errors.js';

test('a collection cannot be deleted while an index is being created from it (412), and can once that ends', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conifer-collection-delete-'));
  const catalog = Catalog.open(dir);
  try {
    const project = catalog.projects.create('p');
    const createdAt = new Date().toISOString();
    catalog.collections.insert({
      id: 'c1', projectId: project.id, name: 'coll', sourceIndexId: 'i0', sourceIndexName: 'src', environment: 'us-east-1-aws',
      dimension: 4, metric: 'cosine', vectorType: 'dense', status: 'Ready', size: 0, vectorCount: 0, createdAt,
    });
    catalog.backups.insertRestore({
      id: 'r1', projectId: project.id, sourceKind: 'collection', sourceId: 'c1', targetIndexId: 'i1', targetIndexName: 'from-coll',
      status: 'Pending', percentComplete: 0, createdAt, completedAt: null, error: null,
    });
    let nudges = 0;
    // delete() uses only the catalog and the job scheduler.
    const service = new CollectionService({} as Config, catalog, {} as IndexSnapshotter, { nudge: () => nudges++ } as unknown as JobScheduler, {} as CopyLog);
    assert.throws(
      () => service.delete(project, 'coll'),
      (err: unknown) => err instanceof ApiError && err.status === 412 && /coll.*'from-coll'/.test(err.message),
    );
    assert.equal(catalog.collections.get(project.id, 'coll')?.status, 'Ready', 'kept as it was');
    assert.equal(nudges, 0);
    catalog.backups.finishRestore('r1', 'Completed');
    service.delete(project, 'coll');
    assert.equal(catalog.collections.get(project.id, 'coll')?.status, 'Terminating');
    assert.equal(nudges, 1);
  } finally {
    catalog.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
