// Bulk imports on the wire (Pinecone's ImportModel, camelCase). `validationResult` was
// added in API 2026-07 and is sent to callers of that version only.
import type { ImportRow } from '../../catalog/imports.js';
import type { ApiVersion } from '../api-version.js';

export function importJson(row: ImportRow, version: ApiVersion): Record<string, unknown> {
  const percent =
    row.status === 'Completed' ? 100 : row.totalRows === 0 ? 0 : Math.floor((row.rowsDone / row.totalRows) * 10000) / 100;
  const out: Record<string, unknown> = {
    id: row.id,
    uri: row.uri,
    status: row.status,
    createdAt: row.createdAt,
  };
  if (row.finishedAt) out.finishedAt = row.finishedAt;
  out.percentComplete = percent;
  out.recordsImported = row.recordsImported;
  if (row.error) out.error = row.error;
  if (version === '2026-07') {
    out.validationResult = { importSuccesses: row.recordsImported, importErrors: row.recordsFailed };
  }
  return out;
}
