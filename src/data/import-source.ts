// Where a bulk import reads from: a local directory laid out as Pinecone's import
// expects, and only inside the configured import root (CONIFER_IMPORT_ROOT).
//
// Layout (Pinecone's): <dir>/<namespace>/*.parquet, one sub-directory per namespace,
// `__default__` for the default namespace. Other files are ignored, as Pinecone does.
// Every path is resolved to its real path (symlinks, `..`) before it is compared with
// the root, and the check is repeated for each file, so a link inside the root cannot
// lead outside it. Object-storage URIs are refused: Conifer reads local files only.
import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forbidden, invalid } from '../errors.js';
import { namespaceOf } from './vector-input.js';

export const URI_MAX_LENGTH = 1500;
const PARQUET_SUFFIX = '.parquet';

export interface SourceFile {
  /** Namespace as stored ("" for the default one). */
  ns: string;
  /** Real absolute path. */
  file: string;
  /** Path relative to the import directory, for messages ("__default__/part-0.parquet"). */
  name: string;
}

/** The directory a `uri` names, after every rule that can be checked at once. */
export function resolveSourceDir(uri: string, importRoot: string | undefined): string {
  if (/^(s3|gs|az|abfss?|wasbs?):\/\//i.test(uri) || /^https?:\/\//i.test(uri)) {
    throw invalid(
      `uri: only local sources are supported (file:// URIs or absolute paths under CONIFER_IMPORT_ROOT); ` +
        `Conifer cannot read from object storage such as s3://, gs:// or Azure Blob Storage, got ${JSON.stringify(uri.slice(0, 100))}`,
    );
  }
  let local: string;
  if (/^file:/i.test(uri)) {
    try {
      local = fileURLToPath(uri);
    } catch {
      throw invalid(`uri is not a valid file:// URI (use file:///absolute/path), got ${JSON.stringify(uri.slice(0, 100))}`);
    }
  } else if (path.isAbsolute(uri)) {
    local = uri;
  } else {
    throw invalid(`uri must be a file:// URI or an absolute directory path, got ${JSON.stringify(uri.slice(0, 100))}`);
  }
  if (importRoot === undefined) {
    throw forbidden(
      'bulk import from local files is disabled on this server; start it with CONIFER_IMPORT_ROOT ' +
        '(or --import-root) set to the directory imports may read',
    );
  }
  let real: string;
  try {
    real = realpathSync(local);
  } catch {
    // Say nothing about paths outside the root, not even whether they exist.
    if (!isInside(path.resolve(local), importRoot)) throw outsideRoot(importRoot);
    throw invalid(`uri: no directory at ${local}`);
  }
  if (!isInside(real, importRoot)) throw outsideRoot(importRoot);
  if (!statSync(real).isDirectory()) throw invalid(`uri must name a directory (one sub-directory per namespace), got a file: ${local}`);
  return real;
}

/**
 * The Parquet files of an import directory, namespaces and files in name order (the
 * order is the import's cursor, so it must not change between runs of the same job).
 */
export function listSourceFiles(dir: string, importRoot: string | undefined): SourceFile[] {
  if (importRoot === undefined || !isInside(dir, importRoot)) throw outsideRoot(importRoot ?? '(unset)');
  const out: SourceFile[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => compare(a.name, b.name));
  for (const entry of entries) {
    const sub = path.join(dir, entry.name);
    if (entry.name.endsWith(PARQUET_SUFFIX) && !isDirectory(sub)) {
      throw invalid(
        `uri: ${entry.name} lies directly in the import directory; put each namespace's files in a ` +
          'sub-directory named after it (__default__ for the default namespace)',
      );
    }
    if (!isDirectory(sub)) continue;
    const ns = namespaceOf(entry.name, `namespace directory ${JSON.stringify(entry.name)}`);
    const realSub = realpathSync(sub);
    if (!isInside(realSub, importRoot)) throw outsideRoot(importRoot);
    const files = readdirSync(realSub).filter((f) => f.endsWith(PARQUET_SUFFIX)).sort(compare);
    for (const f of files) {
      const file = realpathSync(path.join(realSub, f));
      if (!isInside(file, importRoot)) throw outsideRoot(importRoot);
      if (!statSync(file).isFile()) continue;
      out.push({ ns, file, name: `${entry.name}/${f}` });
    }
  }
  if (out.length === 0) {
    throw invalid(
      'uri: no Parquet files found; the directory must hold one sub-directory per namespace ' +
        '(__default__ for the default namespace) with .parquet files in it',
    );
  }
  return out;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function isInside(p: string, root: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const outsideRoot = (root: string) =>
  forbidden(`uri: imports may only read inside the server's import root (CONIFER_IMPORT_ROOT=${root})`);
