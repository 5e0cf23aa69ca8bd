import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  float32ArrayJsonText,
  float32ArrayToJson,
  float32ToShortest,
  isFinite32,
  toFloat32Array,
} from '../../src/engine/float32.js';
import { nativeAddon, nativeAddonError } from '../../src/engine/native-addon.js';

test('toFloat32Array rounds each value to float32', () => {
  const a = toFloat32Array([0.1, -2, 1 / 3]);
  assert.ok(a instanceof Float32Array);
  assert.deepEqual(Array.from(a), [Math.fround(0.1), -2, Math.fround(1 / 3)]);
  assert.equal(toFloat32Array([]).length, 0);
});

test('isFinite32 judges the value after rounding to float32', () => {
  assert.equal(isFinite32(0), true);
  assert.equal(isFinite32(-1.5), true);
  assert.equal(isFinite32(3.4028234663852886e38), true); // the largest float32
  assert.equal(isFinite32(3.4028235e38), true); // rounds down to it
  assert.equal(isFinite32(1e39), false);
  assert.equal(isFinite32(-1e39), false);
  assert.equal(isFinite32(1e300), false);
  assert.equal(isFinite32(Number.NaN), false);
  assert.equal(isFinite32(Number.POSITIVE_INFINITY), false);
  assert.equal(isFinite32(1e-50), true); // underflows to 0, which is finite
});

test('float32ToShortest prints the shortest decimal that reads back as the same float32', () => {
  const cases: [number, number][] = [
    [Math.fround(0.1), 0.1],
    [Math.fround(1 / 3), 0.33333334],
    [Math.fround(1e-45), 1e-45], // the smallest subnormal
    [3.4028234663852886e38, 3.4028235e38], // the largest float32
    [Math.fround(-0.1), -0.1],
    [1, 1],
    [Math.fround(123456.789), 123456.79],
    [Math.fround(16777217), 16777216],
  ];
  for (const [input, expected] of cases) {
    assert.equal(float32ToShortest(input), expected, `shortest form of ${input}`);
  }
  assert.equal(String(float32ToShortest(Math.fround(0.1))), '0.1');
});

test('float32ToShortest keeps -0, 0 and the non-finite values', () => {
  assert.ok(Object.is(float32ToShortest(-0), -0));
  assert.ok(Object.is(float32ToShortest(0), 0));
  assert.ok(Number.isNaN(float32ToShortest(Number.NaN)));
  assert.equal(float32ToShortest(Number.NEGATIVE_INFINITY), Number.NEGATIVE_INFINITY);
});

test('float32ToShortest rounds an unrounded float64 to float32 first', () => {
  assert.equal(float32ToShortest(0.10000000149011612), 0.1);
  assert.equal(float32ToShortest(0.1), 0.1);
});

test('10,000 random float32 values round-trip through their shortest form', () => {
  // A deterministic generator, so a failure reproduces.
  let state = 0x12345678;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const bits = new Uint32Array(1);
  const asFloat = new Float32Array(bits.buffer);
  let checked = 0;
  for (let i = 0; i < 10_000; i++) {
    bits[0] = next(); // every bit pattern: subnormals, huge and tiny exponents, both signs
    const x = asFloat[0];
    if (!Number.isFinite(x)) continue;
    const shortest = float32ToShortest(x);
    assert.ok(Object.is(Math.fround(shortest), x), `${x} printed as ${shortest}`);
    // Through JSON text too, as the wire sends it (JSON has no -0).
    const reread = Math.fround(JSON.parse(JSON.stringify(shortest)) as number);
    assert.equal(reread, x);
    checked++;
  }
  assert.ok(checked > 9_000);
  // Ordinary magnitudes as well: values a user would send.
  for (let i = 0; i < 10_000; i++) {
    const x = Math.fround((next() / 0xffffffff - 0.5) * 10 ** ((next() % 12) - 6));
    const shortest = float32ToShortest(x);
    assert.ok(Object.is(Math.fround(shortest), x), `${x} printed as ${shortest}`);
    const significand = shortest.toExponential().split('e')[0].replace(/[-.]/g, '');
    assert.ok(significand.length <= 9, `${shortest} has more than 9 significant digits`);
  }
});

test('float32ArrayToJson maps every element to its shortest form', () => {
  const a = Float32Array.from([0.1, 0.2, 0.3, -1e-45]);
  assert.deepEqual(float32ArrayToJson(a), [0.1, 0.2, 0.3, -1e-45]);
  assert.equal(JSON.stringify(float32ArrayToJson(a)), '[0.1,0.2,0.3,-1e-45]');
  assert.deepEqual(float32ArrayToJson(new Float32Array(0)), []);
});

test('float32ToShortest equals the toPrecision search over every kind of value', () => {
  // The oracle: the nearest p-digit decimal for the smallest p that reads back, by text.
  const oracle = (f: number): number => {
    for (let p = 1; p < 9; p++) {
      const d = Number(f.toPrecision(p));
      if (Math.fround(d) === f) return d;
    }
    return Number(f.toPrecision(9));
  };
  let state = 0x9e3779b9;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const bits = new Uint32Array(1);
  const asFloat = new Float32Array(bits.buffer);
  const values: number[] = [];
  for (let i = 0; i < 100_000; i++) {
    bits[0] = next();
    values.push(asFloat[0]);
    values.push(Math.fround((next() / 0xffffffff - 0.5) * 10 ** ((next() % 16) - 8)));
  }
  // Neighbours of every power of ten (where a decimal exponent is easy to get wrong),
  // halves and small integers (ties when rounding to few digits).
  for (let e = -45; e <= 38; e++) {
    asFloat[0] = Math.fround(10 ** e);
    const base = bits[0];
    for (let d = -20; d <= 20; d++) {
      bits[0] = base + d;
      values.push(asFloat[0]);
    }
  }
  for (let i = -2000; i <= 2000; i++) values.push(i, i / 8, Math.fround(i * 0.1), i + 0.5);
  for (const x of values) {
    if (!Number.isFinite(x) || x === 0) continue;
    assert.equal(float32ToShortest(x), oracle(Math.fround(x)), `shortest form of ${x}`);
  }
});

test('the native addon prints float32 arrays exactly as JSON.stringify of the JavaScript path', () => {
  assert.ok(nativeAddon, `not loaded: ${nativeAddonError}`);
  // Every kind of value the two searches treat differently: ties at the last digit
  // (24.2890625: the JavaScript rounds half away from zero, where shortest-with-ties-to-
  // even would print 24.289062), neighbours of powers of two and ten, subnormals, the
  // extremes, the layouts of Number::toString (1e-7 against 0.000001, 1e21 against
  // 100000000000000000000), negative zero, and 200k floats from random bit patterns.
  const edges = [
    0, -0, 1, -1, 0.1, -0.1, 24.2890625, -177.140625, 1149143.25, 3291389.25, 1e-7, 1e-6, 1.5e-6, 1e21, 1e20, 1e22,
    123456789, 1.17549435e-38, 1.4e-45, -1.4e-45, 3.4028235e38, -3.4028235e38, 1e-14, 1e-15, 9.999999e-15, 0.5, 0.25,
    1024, 1023.99994, 1024.0001, 33554432, 16777217, 9.999999, 10.000001, 99999.99, 0.30000001192092896,
    // The longest texts (an integer of 21 digits and a sign), and values just below a
    // power of ten, whose decimal exponent is one less than the next float's.
    -1e20, -1.2345678e20, -9.9999998e20, 0.099999994, 999999.94, 9.9999994e-15, 9.9999998e22, 1e23,
  ];
  const cases = [Float32Array.from(edges), new Float32Array(0)];
  const random = new Float32Array(200_000);
  const bits = new Uint32Array(random.buffer);
  let seed = 12345;
  for (let i = 0; i < random.length; i++) {
    do {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      bits[i] = seed ^ (Math.imul(seed >>> 7, 2654435761) >>> 0);
    } while (!Number.isFinite(random[i]));
  }
  for (let i = 0; i < random.length; i += 1000) cases.push(random.subarray(i, i + 1000));
  // Embedding-like values: small, mostly 8 or 9 significant digits.
  cases.push(Float32Array.from({ length: 5000 }, (_, i) => Math.sin(i * 12.9898) * 0.2));
  for (const a of cases) {
    const want = JSON.stringify(float32ArrayToJson(a));
    assert.equal(float32ArrayJsonText(a, null), want);
    assert.equal(float32ArrayJsonText(a, nativeAddon), want);
  }
  assert.equal(float32ArrayJsonText(Float32Array.of(24.2890625, -177.140625, 1e-7, 1e21)), '[24.289063,-177.14063,1e-7,1e+21]');
});
