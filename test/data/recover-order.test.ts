// IndexRegistry.recover (src/data/index-registry.ts) hands the indexes to the engine
// largest first, each with its record store's size: EngineClient places each on the
// worker holding the fewest bytes, so the workers' loads at start come out balanced
// (engine-assignment.test.ts covers the placement itself). A recording engine stands in
// for the real one here; the stores are real files of different sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexDir } from '../../src/catalog/paths.js';
import type { IndexRow } from '../../src/catalog/indexes.js';
import { IndexRegistry } from '../../src/data/index-registry.js';
import type { WriterClient } from '../../src/data/writer/writer-client.js';
import type { EngineClient } from '../../src/engine/engine-client.js';
import { RecordStore } from '../../src/engine/store/record-store.js';

function row(id: string): IndexRow {
  return {
    id,
    projectId: 'p',
    name: id,
    hostId: `${id}-0000000`,
    dimension: 64,
    metric: 'cosine',
    vectorType: 'dense',
    deletionProtection: 'disabled',
    tags: {},
    spec: { serverless: { cloud: 'aws', region: 'us-east-1' } },
    state: 'Ready',
    createdAt: new Date(0).toISOString(),
  } as IndexRow;
}

test('recover opens the largest index first, and tells the engine each one\'s size', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'conifer-recover-order-'));
  const registry: IndexRegistry[] = [];
  try {
    // Records per index; catalog order is not size order.
    const sizes: Record<string, number> = { small: 200, large: 3000, medium: 1000, empty: 0 };
    for (const [id, n] of Object.entries(sizes)) {
      const store = RecordStore.open(indexDir(dataDir, id));
      for (let from = 0; from < n; from += 500) {
        const batch = Array.from({ length: Math.min(500, n - from) }, (_, i) => ({ id: `r${from + i}`, values: new Float32Array(64).fill(from + i) }));
        store.upsert('', batch);
      }
      store.close();
    }
    const opened: { id: string; bytes: number }[] = [];
    const engine = {
      set onSnapshot(_: unknown) {},
      open: async (indexId: string, _dir: string, _shape: unknown, _name: string, _fresh: boolean, bytes: number) => {
        opened.push({ id: indexId, bytes });
      },
    } as unknown as EngineClient;
    const writer = { noteSeq: () => {}, close: async () => {} } as unknown as WriterClient;
    registry.push(new IndexRegistry(dataDir, engine, writer, { info: () => {}, error: () => {} }));
    await registry[0].recover(Object.keys(sizes).map(row));
    assert.deepEqual(opened.map((o) => o.id), ['large', 'medium', 'small', 'empty']);
    for (let i = 1; i < opened.length; i++) assert.ok(opened[i - 1].bytes > opened[i].bytes, `${opened[i - 1].id} is larger than ${opened[i].id}`);
    assert.ok(opened[3].bytes > 0, 'an empty store still has a file (its schema)');
  } finally {
    for (const r of registry) r.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
