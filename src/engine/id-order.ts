// Record ids in the record store's order: SQLite compares TEXT with the BINARY
// collation, i.e. by UTF-8 bytes, which is code point order. JavaScript's `<` compares
// UTF-16 code units, which differs for characters above U+FFFF (surrogates, 0xD800–
// 0xDFFF) against U+E000–U+FFFF; pages cut by the engine must follow the store's order
// so a page token (the last id of a page) means the same thing to both.

/** Negative, zero or positive as `a` sorts before, with or after `b` in UTF-8 byte order. */
export function compareIds(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Only when both are at or above the surrogates does UTF-16 order disagree with code
    // point order: move surrogates above U+E000–U+FFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * The first `limit` of `ids` (distinct) after `after`, in byte order. One pass keeping
 * the smallest `limit` seen in a sorted array, rather than sorting every match for each
 * page: on unordered input an id enters the array ~limit·ln(m/limit) times in all.
 */
export function pageOfIds(ids: readonly string[], after: string | undefined, limit: number): string[] {
  const best: string[] = [];
  if (limit <= 0) return best;
  for (const id of ids) {
    if (after !== undefined && compareIds(id, after) <= 0) continue;
    if (best.length === limit && compareIds(id, best[limit - 1]) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareIds(best[mid], id) < 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, id);
    if (best.length > limit) best.pop();
  }
  return best;
}
