// Growing a typed array: the engine's per-label tables, pools and posting lists all grow by
// copying into a longer array of the same kind (typed arrays cannot be resized in place).
type Growable = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

/**
 * A copy of `a` lengthened to `length` (≥ a.length), of the same kind; the new entries
 * are `fill` (0 unless given: a column's "no value here" marker, say).
 */
export function grown<T extends Growable>(a: T, length: number, fill = 0): T {
  const Kind = a.constructor as new (length: number) => T;
  const out = new Kind(length);
  if (fill !== 0) out.fill(fill, a.length);
  out.set(a);
  return out;
}
