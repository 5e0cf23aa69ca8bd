// The per-index gauges of GET /metrics (records, namespaces, bytes on disk) and the
// number of open indexes, set just before each scrape is serialized. They mirror state
// kept elsewhere (the counts tables, the index directories), so they are read, never
// kept twice. A scrape costs one small query per index and a stat of each file in its
// directory: no record is read.
//
// The `index` label is the index's host segment `<name>-<id7>`: readable, the segment
// its data-plane URLs carry, and unique across projects (two projects may both have an
// index named "movies").
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Catalog } from '../catalog/catalog.js';
import { indexDir } from '../catalog/paths.js';
import { indexDiskBytes, indexNamespaces, indexRecords, openIndexes } from '../metrics.js';
import type { IndexRegistry } from './index-registry.js';

/** Bytes of the regular files under `dir` (0 when it does not exist yet or is gone). */
async function dirBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    try {
      if (entry.isDirectory()) total += await dirBytes(path);
      else if (entry.isFile()) total += (await stat(path)).size;
    } catch {
      // removed while we looked (a checkpoint, a deleted index): it no longer counts
    }
  }
  return total;
}

export class IndexGauges {
  constructor(
    private readonly catalog: Catalog,
    private readonly registry: IndexRegistry,
    private readonly dataDir: string,
  ) {}

  async refresh(): Promise<void> {
    const indexes = this.catalog.indexes.listAll();
    const bytes = await Promise.all(indexes.map((index) => dirBytes(indexDir(this.dataDir, index.id))));
    // Reset and set with no await in between: a concurrent scrape sees one whole picture,
    // and a deleted index's series disappear.
    indexRecords.reset();
    indexNamespaces.reset();
    indexDiskBytes.reset();
    indexes.forEach((index, i) => {
      const labels = { index: index.hostId };
      indexDiskBytes.set(labels, bytes[i]);
      const counts = this.registry.counts(index.id);
      if (!counts) return; // still loading: no figure rather than a wrong 0
      indexRecords.set(labels, counts.records);
      indexNamespaces.set(labels, counts.namespaces);
    });
    openIndexes.set(this.registry.openCount());
  }
}
