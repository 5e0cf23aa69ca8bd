// Float32 helpers. Dense and sparse values are stored as float32 (DESIGN.md decision 8),
// and printed in the shortest decimal form that reads back as the same float32, so a
// value sent as 0.1 comes back as 0.1 rather than as float64's 0.10000000149011612.

/** Rounds each number to float32. The caller has validated them (see isFinite32). */
export function toFloat32Array(values: number[]): Float32Array {
  return Float32Array.from(values);
}

/** True when x stays finite after rounding to float32: 1e39 and NaN are not. */
export function isFinite32(x: number): boolean {
  return Number.isFinite(Math.fround(x));
}

/**
 * The shortest decimal (as a JS number) that rounds back to the same float32 as x.
 * Nine significant digits always identify a float32, so the loop always returns;
 * -0, NaN and the infinities are returned as they are.
 */
export function float32ToShortest(x: number): number {
  const f = Math.fround(x);
  if (f === 0 || !Number.isFinite(f)) return f; // keeps the sign of -0
  // Binary search on the number of significant digits: if p digits read back as f, so
  // do p + 1 (a closer decimal stays within f's rounding interval), and 9 always do.
  // About 3 conversions per value instead of up to 9 — fetch prints millions of them.
  let lo = 1;
  let hi = 9;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (Math.fround(Number(f.toPrecision(mid))) === f) hi = mid;
    else lo = mid + 1;
  }
  return Number(f.toPrecision(hi));
}

/** A float32 array as JSON-ready numbers in their shortest form. */
export function float32ArrayToJson(a: Float32Array): number[] {
  const out = new Array<number>(a.length);
  for (let i = 0; i < a.length; i++) out[i] = float32ToShortest(a[i]);
  return out;
}
