// grown(): the copy-into-a-longer-array every engine table uses to grow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grown } from '../../src/engine/typed-arrays.js';

describe('grown', () => {
  it('keeps the kind and the entries, and fills only the new ones', () => {
    const ints = Int32Array.of(5, -1, 7);
    const longer = grown(ints, 6, -1);
    assert.ok(longer instanceof Int32Array);
    assert.deepEqual(Array.from(longer), [5, -1, 7, -1, -1, -1]);
    assert.deepEqual(Array.from(ints), [5, -1, 7], 'the original is left as it was');
    const floats = grown(Float64Array.of(1.5, 0), 4, Number.NaN);
    assert.ok(floats instanceof Float64Array);
    assert.deepEqual(Array.from(floats), [1.5, 0, Number.NaN, Number.NaN]);
    const words = grown(Uint32Array.of(4294967295), 3);
    assert.ok(words instanceof Uint32Array);
    assert.deepEqual(Array.from(words), [4294967295, 0, 0]);
    assert.equal(words.buffer.byteLength, 12, 'a buffer of its own, exactly as long (postings view it as float32)');
  });
});
