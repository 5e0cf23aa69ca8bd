// Random identifiers and secrets for catalog rows.
import { createHash, randomBytes, randomUUID } from 'node:crypto';

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

export const hashApiKey = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export const nowIso = (): string => new Date().toISOString();
