// sparseValues() (src/data/vector-input.ts) on typed arrays, as the native body parse hands
// them over, against the same entries as plain arrays (what JSON.parse gives): the same
// answers and the same refusals, and typed arrays are kept rather than copied.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { metadataOf, sparseValues } from '../../src/data/vector-input.js';
import { ApiError } from '../../src/errors.js';

/** The outcome of sparseValues(): its answer as plain arrays, or the refusal's message. */
function outcome(input: { indices: ArrayLike<number>; values: ArrayLike<number> }): unknown {
  try {
    const out = sparseValues(input, 'vectors[3].sparseValues');
    return out && { indices: Array.from(out.indices), values: Array.from(out.values) };
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err.message;
  }
}

describe('sparseValues', () => {
  it('answers and refuses typed arrays as it does the same entries as plain arrays', () => {
    const cases: [number[], number[]][] = [
      [[1, 5, 9], [0.5, -1, 2]], // ascending
      [[9, 1, 5], [0.5, -1, 2]], // unsorted, no duplicate
      [[4, 1, 4], [1, 2, 3]], // unsorted, a duplicate
      [[1, 1], [1, 2]], // a duplicate in order
      [[0, 4294967295], [1, 2]],
      [[1, 2, 3], [1, Number.NaN, 2]],
      [[1, 2], [Number.POSITIVE_INFINITY, 2]],
      [[7], [0]],
    ];
    for (const [indices, values] of cases) {
      const plain = outcome({ indices, values });
      const typed = outcome({ indices: Uint32Array.from(indices), values: Float32Array.from(values) });
      assert.deepEqual(typed, plain, JSON.stringify([indices, values]));
    }
    // Pairs out of index order come back sorted, each index with its own value.
    assert.deepEqual(outcome({ indices: [9, 1, 5], values: [0.5, -1, 2] }), { indices: [1, 5, 9], values: [-1, 2, 0.5] });
    assert.deepEqual(outcome({ indices: Uint32Array.of(9, 1, 5), values: Float32Array.of(0.5, -1, 2) }), { indices: [1, 5, 9], values: [-1, 2, 0.5] });
    // The refusals above really are refusals.
    assert.match(String(outcome({ indices: Uint32Array.of(4, 1, 4), values: Float32Array.of(1, 2, 3) })), /vectors\[3\]\.sparseValues\.indices has the duplicate index 4/);
    assert.match(String(outcome({ indices: Uint32Array.of(1, 2, 3), values: Float32Array.of(1, Number.NaN, 2) })), /vectors\[3\]\.sparseValues\.values\[1\] must be a number that is finite as float32, got NaN/);
  });

  it('keeps typed arrays as they are (each record owns its own) and copies plain ones', () => {
    const indices = Uint32Array.of(3, 8);
    const values = Float32Array.of(0.25, 4);
    const kept = sparseValues({ indices, values }, 'v');
    assert.equal(kept?.indices, indices);
    assert.equal(kept?.values, values);
    const copied = sparseValues({ indices: [3, 8], values: [0.25, 4] }, 'v');
    assert.ok(copied?.indices instanceof Uint32Array && copied.values instanceof Float32Array);
    assert.deepEqual(Array.from(copied.indices), [3, 8]);
  });
});

describe('metadataOf', () => {
  it('refuses a "__proto__" key, which JSON.parse keeps (a bulk import\'s metadata column), instead of dropping it', () => {
    for (const text of ['{"__proto__":["a"],"b":1}', '{"b":1,"__proto__":"x"}']) {
      assert.throws(() => metadataOf(JSON.parse(text), 'metadata'), (err: unknown) => err instanceof ApiError && /metadata key "__proto__"/.test(err.message), text);
    }
    assert.deepEqual(metadataOf(JSON.parse('{"constructor":"c","toString":["t"]}'), 'metadata'), { constructor: 'c', toString: ['t'] });
  });
});
