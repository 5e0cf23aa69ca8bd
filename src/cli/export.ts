// `conifer export --index NAME [--namespace NS] --out DIR [--project P]`: writes an
// index's records as Parquet in the layout `conifer import` and POST /bulk/imports read.
// It reads the data directory directly (a read-only snapshot of the record store), so it
// works beside a running server without stopping it.
import { Catalog } from '../catalog/catalog.js';
import { indexDir } from '../catalog/paths.js';
import type { Config } from '../config.js';
import { exportIndex, type ExportResult } from '../data/parquet-export.js';
import { DEFAULT_NAMESPACE_ALIAS } from '../data/vector-input.js';
import { UsageError } from './admin.js';
import { Progress } from './progress.js';
import { DEFAULT_PROJECT } from '../catalog/projects.js';

export interface ExportOptions {
  index?: string;
  namespace?: string;
  out?: string;
  project?: string;
}

export async function exportCommand(config: Config, opts: ExportOptions): Promise<ExportResult & { out: string }> {
  if (!opts.index) throw new UsageError('--index NAME is required');
  if (!opts.out) throw new UsageError('--out DIR is required');
  const catalog = Catalog.open(config.dataDir);
  let dir: string;
  try {
    const projectName = opts.project ?? DEFAULT_PROJECT;
    const project = catalog.projects.get(projectName);
    if (!project) throw new UsageError(`project ${JSON.stringify(projectName)} does not exist`);
    const index = catalog.indexes.get(project.id, opts.index);
    if (!index) throw new UsageError(`index ${JSON.stringify(opts.index)} does not exist in project ${projectName}`);
    dir = indexDir(config.dataDir, index.id);
  } finally {
    catalog.close();
  }
  const ns = opts.namespace === DEFAULT_NAMESPACE_ALIAS ? '' : opts.namespace;
  const progress = new Progress(`export ${opts.index}`);
  try {
    const result = await exportIndex(dir, opts.out, ns, (done, total) =>
      progress.update(total === 0 ? 100 : (done / total) * 100, done),
    );
    return { ...result, out: opts.out };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  } finally {
    progress.done();
  }
}
