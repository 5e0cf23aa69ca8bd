// Float32 helpers. Dense and sparse values are stored as float32 (DESIGN.md decision 8),
// and printed in the shortest decimal form that reads back as the same float32, so a
// value sent as 0.1 comes back as 0.1 rather than as float64's 0.10000000149011612.
import { nativeAddon, type NativeAddon } from './native-addon.js';

/** Rounds each number to float32. The caller has validated them (see isFinite32). */
export function toFloat32Array(values: number[]): Float32Array {
  return Float32Array.from(values);
}

/** True when x stays finite after rounding to float32: 1e39 and NaN are not. */
export function isFinite32(x: number): boolean {
  return Number.isFinite(Math.fround(x));
}

/** The largest finite float32, (2 − 2^-23) · 2^127. */
export const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * A score (a float64 sum, finite for any float32 inputs) rounded to the float32 that
 * ranks and is printed. A sum beyond float32's range (values near its limit multiplied
 * together) becomes the largest float32 of its sign, not an infinity: JSON has no
 * infinity, so it printed as null, which the official clients refuse as a score. Such
 * scores then tie, and ties are ordered by id (DESIGN.md decision 7). NaN stays NaN.
 */
export function scoreFloat32(x: number): number {
  const f = Math.fround(x);
  if (f === Infinity) return FLOAT32_MAX;
  if (f === -Infinity) return -FLOAT32_MAX;
  return f;
}

/**
 * The shortest decimal (as a JS number) that rounds back to the same float32 as x.
 * Nine significant digits always identify a float32, so the search always ends;
 * -0, NaN and the infinities are returned as they are.
 */
export function float32ToShortest(x: number): number {
  const f = Math.fround(x);
  if (f === 0 || !Number.isFinite(f)) return f; // keeps the sign of -0
  const fast = shortestByArithmetic(f);
  return fast === fast ? fast : shortestByText(f);
}

/** Exact powers of ten: every 10^k with k <= 22 is a double without rounding. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * float32ToShortest without strings (fetch prints millions of values: toPrecision cost
 * ~1 µs per value on the bench machine, this ~0.25). For p digits, m = round(|f|·10^k)
 * is the nearest p-digit significand and m / 10^k (or m · 10^-k) is the double nearest
 * that decimal — exactly what Number(f.toPrecision(p)) gives — because m and 10^|k| are
 * exact doubles (|k| <= 22) and one division or multiplication rounds correctly. NaN
 * (the caller then takes the text path) when |f| is outside 1e-14..1e22 (10^|k| would
 * not be exact) or |f|·10^k lies so near a half that its own rounding could pick the
 * other neighbour.
 */
function shortestByArithmetic(f: number): number {
  const a = Math.abs(f);
  let e = Math.floor(Math.log10(a));
  if (e < -14 || e > 22) return NaN;
  // log10 can miss by one next to a power of ten; settle e so that 1 <= a / 10^e < 10.
  const lead = e >= 0 ? a / POW10[e] : a * POW10[-e];
  if (lead < 1) e--;
  else if (lead >= 10) e++;
  if (e < -14 || e > 22) return NaN;
  // If p digits read back as f, so do p + 1 (a closer decimal stays within f's rounding
  // interval), and 9 always do. Most stored values need 8 or 9 digits, so 8 and 7 are
  // tried first, then a binary search below 7.
  let best = atDigits(a, e, 9);
  let lo = 1;
  let hi = 8;
  for (let p = 8; p >= 7; p--) {
    const d = atDigits(a, e, p);
    if (d !== d) return NaN;
    if (Math.fround(d) !== a) return f < 0 ? -best : best;
    best = d;
    hi = p - 1;
  }
  while (lo <= hi) {
    const p = (lo + hi) >> 1;
    const d = atDigits(a, e, p);
    if (d !== d) return NaN;
    if (Math.fround(d) === a) {
      best = d;
      hi = p - 1;
    } else {
      lo = p + 1;
    }
  }
  return f < 0 ? -best : best;
}

/** The double nearest the p-digit decimal nearest a (10^e <= a < 10^(e+1)); NaN near a half. */
function atDigits(a: number, e: number, p: number): number {
  const k = p - 1 - e;
  const scaled = k >= 0 ? a * POW10[k] : a / POW10[-k];
  if (Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-6) return NaN;
  const m = Math.round(scaled);
  return k >= 0 ? m / POW10[k] : m * POW10[-k];
}

/** The same search through toPrecision (exact decimal conversion), for the rare rest. */
function shortestByText(f: number): number {
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

/**
 * A float32 array as the JSON text of float32ArrayToJson(a), printed by the native addon
 * when it is loaded (~60 ns a value against ~250 for float32ToShortest alone, and no
 * JavaScript number per value: fetching 100 records of 384 dimensions prints 38,400), else
 * by JSON.stringify. `native`: the addon to print with, null for the JavaScript path (the
 * tests compare both on samples, bench/float-json-exhaustive.ts on every float32).
 */
export function float32ArrayJsonText(a: Float32Array, native: NativeAddon | null = nativeAddon ?? null): string {
  return native ? native.float32Json(a) : JSON.stringify(float32ArrayToJson(a));
}
