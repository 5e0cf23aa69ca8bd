// The one pagination token codec (DESIGN.md decision 12): an opaque base64url string
// holding the last key of the page and a hash of what the listing is scoped to, so a
// token only continues the listing it came from. Keyset paging: the next page starts
// strictly after the key, so rows added or removed meanwhile cause no duplicates or gaps.
import { createHash } from 'node:crypto';
import { invalid } from '../errors.js';

interface TokenBody {
  /** Last key of the page. */
  k: string;
  /** Scope hash. */
  s: string;
}

/** A short hash of the listing's scope (project, index, namespace, prefix, filter...). */
export function scopeHash(...parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

export function encodePageToken(lastKey: string, scope: string): string {
  return Buffer.from(JSON.stringify({ k: lastKey, s: scope } satisfies TokenBody)).toString('base64url');
}

/** The key to continue after; 400 for a malformed token or one from another listing. */
export function decodePageToken(token: string, scope: string, field = 'paginationToken'): string {
  let body: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error('not base64url');
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid(`${field} is not a valid pagination token; pass pagination.next of the previous page unchanged`);
  }
  const b = body as Partial<TokenBody>;
  if (typeof b !== 'object' || b === null || typeof b.k !== 'string' || typeof b.s !== 'string') {
    throw invalid(`${field} is not a valid pagination token; pass pagination.next of the previous page unchanged`);
  }
  if (b.s !== scope) {
    throw invalid(`${field} belongs to a different listing (other namespace, prefix, filter or index)`);
  }
  return b.k;
}
