// Records and namespaces on the data-plane wire (camelCase). Dense values print in the
// shortest form that reads back as the same float32 (decision 8): 0.1 comes back as 0.1.
import type { StoredRecord } from '../../engine/model.js';
import { float32ArrayToJson } from '../../engine/float32.js';
import { namesDefaultNamespace, type ApiVersion } from '../api-version.js';

export function recordJson(r: StoredRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { id: r.id, values: r.values ? float32ArrayToJson(r.values) : [] };
  if (r.sparse) {
    out.sparseValues = { indices: Array.from(r.sparse.indices), values: float32ArrayToJson(r.sparse.values) };
  }
  if (r.metadata) out.metadata = r.metadata;
  return out;
}

/** The default namespace is "__default__" from 2025-04 on and "" before (decision 5). */
export const displayNamespace = (ns: string, version: ApiVersion): string =>
  ns === '' && namesDefaultNamespace(version) ? '__default__' : ns;
