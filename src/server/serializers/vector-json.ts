// Records and namespaces on the data-plane wire (camelCase). Dense values print in the
// shortest form that reads back as the same float32 (decision 8): 0.1 comes back as 0.1.
// Values arrive as JSON text already printed (json-text.ts): printing them is most of the
// cost of a fetch, and text skips a JavaScript number per value.
import type { StoredRecord } from '../../engine/model.js';
import { float32ArrayJsonText } from '../../engine/float32.js';
import { JsonText } from './json-text.js';
import { namesDefaultNamespace, type ApiVersion } from '../api-version.js';

/** A record's wire object; serialize it with jsonBytes (json-text.ts), not JSON.stringify. */
export function recordJson(r: StoredRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { id: r.id, values: r.values ? new JsonText(float32ArrayJsonText(r.values)) : [] };
  if (r.sparse) {
    out.sparseValues = { indices: Array.from(r.sparse.indices), values: new JsonText(float32ArrayJsonText(r.sparse.values)) };
  }
  if (r.metadata) out.metadata = r.metadata;
  return out;
}

/**
 * Records keyed by id (fetch's `vectors`), without a prototype: an id may be "__proto__",
 * which on a plain {} would replace the object's prototype instead of adding a key (the
 * record vanished, and jsonBytes no longer walked the object, printing every other
 * record's values as {"text": ...}).
 */
export function recordsById(records: readonly StoredRecord[]): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const r of records) out[r.id] = recordJson(r);
  return out;
}

/** The default namespace is "__default__" from 2025-04 on and "" before (decision 5). */
export const displayNamespace = (ns: string, version: ApiVersion): string =>
  ns === '' && namesDefaultNamespace(version) ? '__default__' : ns;
