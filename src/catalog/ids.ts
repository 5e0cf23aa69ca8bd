// Random identifiers and secrets for catalog rows.
import { hash, randomBytes, randomUUID } from 'node:crypto';

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** n random lower-case alphanumerics (the `<id7>` of an index host). */
export function randomAlnum(n: number): string {
  const bytes = randomBytes(n * 2);
  let out = '';
  // 252 = 7 × 36: rejecting bytes >= 252 keeps every character equally likely.
  for (let i = 0; i < bytes.length && out.length < n; i++) {
    if (bytes[i] < 252) out += ALNUM[bytes[i] % 36];
  }
  return out.length === n ? out : out + randomAlnum(n - out.length);
}

export const newId = (): string => randomUUID();

/** A new API key secret: a recognisable prefix and 32 random bytes. */
export const newApiKeySecret = (): string => `cnf_${randomBytes(32).toString('base64url')}`;

/**
 * SHA-256 of a key, hex: how keys are stored and looked up (every request hashes its key).
 * Node's one-shot hash() (Node 20.12 on, hence package.json's engines) spares the Hash
 * object createHash() makes: 1.1 against 2.9 µs a key in a loop here, and the profile of a
 * concurrency-8 query run had createHash's path at ~10 µs a request.
 */
export const hashApiKey = (secret: string): string => hash('sha256', secret, 'hex');

export const nowIso = (): string => new Date().toISOString();
