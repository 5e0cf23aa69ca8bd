// The engine's id order must be the record store's (SQLite BINARY = UTF-8 bytes), or a
// fetch_by_metadata page token would skip or repeat records.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareIds, pageOfIds } from '../../src/engine/id-order.js';
import { prng } from '../helpers/prng.js';

// ASCII, Latin, BMP above the surrogates (U+E000–U+FFFF) and astral characters (surrogate pairs).
const ALPHABET = ['a', 'b', 'z', '0', '~', 'é', '\u{ff5e}', '\u{e000}', '\u{1f600}', '\u{10000}', '\u{ffff}'];

function randomId(rand: () => number): string {
  let s = '';
  const n = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return s;
}

const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('id order', () => {
  it('compareIds agrees in sign with UTF-8 byte comparison', () => {
    const rand = prng(5);
    for (let i = 0; i < 5000; i++) {
      const a = randomId(rand);
      const b = randomId(rand);
      assert.equal(Math.sign(compareIds(a, b)), Math.sign(byBytes(a, b)), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
    // The case where UTF-16 order is wrong: an astral character sorts after U+FFFF in bytes.
    assert.ok('\u{1f600}' < '\u{ffff}');
    assert.ok(compareIds('\u{1f600}', '\u{ffff}') > 0);
  });

  it('pageOfIds returns the first `limit` after `after`, as a full sort would', () => {
    const rand = prng(6);
    for (let round = 0; round < 200; round++) {
      const ids = [...new Set(Array.from({ length: Math.floor(rand() * 60) }, () => randomId(rand)))];
      const sorted = [...ids].sort(byBytes);
      const after = rand() < 0.3 ? undefined : sorted[Math.floor(rand() * sorted.length)] ?? randomId(rand);
      const limit = 1 + Math.floor(rand() * 10);
      const want = sorted.filter((id) => after === undefined || byBytes(id, after) > 0).slice(0, limit);
      assert.deepEqual(pageOfIds(ids, after, limit), want);
    }
  });
});
