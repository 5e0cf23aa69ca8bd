// The rules of the bulk import API (Pinecone's /bulk/imports, camelCase on the wire):
// start checks everything that can be checked at once (uri form, import root, layout)
// and queues the job; the work itself is done by ImportRunner in the background.
import type { Catalog } from '../catalog/catalog.js';
import { FINISHED, type ImportRow, type OnError } from '../catalog/imports.js';
import type { IndexRow } from '../catalog/indexes.js';
import { invalid, notFound } from '../errors.js';
import { IMPORT_LIST_LIMIT_DEFAULT, IMPORT_LIST_LIMIT_MAX } from '../limits.js';
import type { ImportRunner } from './import-runner.js';
import { listSourceFiles, resolveSourceDir, URI_MAX_LENGTH } from './import-source.js';
import { decodePageToken, encodePageToken, scopeHash } from './page-token.js';
import { optionalString, requireObject, typeName } from './vector-input.js';

export class ImportService {
  constructor(
    private readonly catalog: Catalog,
    private readonly runner: ImportRunner,
    private readonly importRoot: string | undefined,
  ) {}

  start(index: IndexRow, body: unknown): { id: string } {
    const obj = requireObject(body, 'request body');
    const uri = obj.uri;
    if (typeof uri !== 'string' || uri.length < 1 || uri.length > URI_MAX_LENGTH) {
      throw invalid(
        uri === undefined
          ? 'uri is required: a file:// URI or absolute path of a directory under CONIFER_IMPORT_ROOT'
          : `uri must be a string of 1-${URI_MAX_LENGTH} characters, got ${typeName(uri)}${typeof uri === 'string' ? ` of length ${uri.length}` : ''}`,
      );
    }
    // Accepted for client compatibility; local sources need no storage integration.
    optionalString(obj.integrationId, 'integrationId');
    const onError = onErrorOf(obj.errorMode);
    const dir = resolveSourceDir(uri, this.importRoot);
    listSourceFiles(dir, this.importRoot); // refuse an empty or mis-laid-out directory now
    const row = this.catalog.imports.create(index.id, uri, dir, onError);
    this.runner.nudge();
    return { id: row.id };
  }

  list(index: IndexRow, query: Record<string, unknown>): { items: ImportRow[]; next?: string } {
    const limit = query.limit === undefined ? IMPORT_LIST_LIMIT_DEFAULT : queryLimit(query.limit);
    const scope = scopeHash('bulk-imports', index.id);
    const token = optionalString(query.paginationToken, 'paginationToken');
    const key = token === undefined || token === '' ? '0' : decodePageToken(token, scope);
    if (!/^\d{1,15}$/.test(key)) throw invalid('paginationToken is not a valid pagination token');
    const after = Number(key);
    const rows = this.catalog.imports.page(index.id, after, limit + 1);
    const items = rows.slice(0, limit);
    return { items, next: rows.length > limit ? encodePageToken(items[items.length - 1].id, scope) : undefined };
  }

  describe(index: IndexRow, id: string): ImportRow {
    const row = this.catalog.imports.get(index.id, id);
    if (!row) throw notFound(`Import ${id} not found in index ${index.name}.`);
    return row;
  }

  /** A pending import is cancelled at once, a running one at its next batch; a finished one is left alone. */
  cancel(index: IndexRow, id: string): void {
    const row = this.describe(index, id);
    if (FINISHED.has(row.status)) return;
    if (row.status === 'Pending') this.catalog.imports.finish(row.id, 'Cancelled');
    else this.catalog.imports.requestCancel(row.id);
  }
}

function onErrorOf(v: unknown): OnError {
  if (v === undefined || v === null) return 'continue';
  const mode = requireObject(v, 'errorMode');
  if (mode.onError === undefined) return 'continue';
  if (mode.onError !== 'abort' && mode.onError !== 'continue') {
    throw invalid(`errorMode.onError must be "abort" or "continue", got ${JSON.stringify(mode.onError)}`);
  }
  return mode.onError;
}

function queryLimit(v: unknown): number {
  const n = typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= IMPORT_LIST_LIMIT_MAX)) {
    throw invalid(`limit must be an integer between 1 and ${IMPORT_LIST_LIMIT_MAX}, got ${JSON.stringify(v)}`);
  }
  return n;
}
