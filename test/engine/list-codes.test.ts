// The pooled per-label lists of a list metadata field against a plain Map model: after
// every step of a seeded random sequence of sets and clears (with growth), each label's
// codes and membership answers equal the model's, and under long churn of a few labels
// the pool stays bounded (compaction happens and keeps every list).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListCodes } from '../../src/engine/metadata/list-codes.js';
import { prng } from '../helpers/prng.js';

function check(lists: ListCodes, model: Map<number, number[]>, labels: number, codes: number): void {
  for (let label = 0; label < labels; label++) {
    const want = model.get(label) ?? [];
    for (let code = 0; code < codes; code++) {
      assert.equal(lists.has(label, code), want.includes(code), `label ${label} code ${code}`);
    }
  }
}

describe('ListCodes', () => {
  it('answers as a map of lists after random sets, clears and growth', () => {
    const rand = prng(17);
    let capacity = 8;
    const lists = new ListCodes(capacity);
    const model = new Map<number, number[]>();
    for (let step = 0; step < 3000; step++) {
      const label = Math.floor(rand() * 200);
      if (label >= capacity) {
        while (capacity <= label) capacity *= 2;
        lists.grow(capacity);
      }
      if (rand() < 0.3) {
        const cleared = [...lists.clear(label)];
        assert.deepEqual(cleared, model.get(label) ?? [], `clear returns label ${label}'s codes`);
        model.delete(label);
      } else {
        const codes = [...new Set(Array.from({ length: Math.floor(rand() * 6) }, () => Math.floor(rand() * 12)))];
        lists.set(label, codes);
        if (codes.length > 0) model.set(label, codes);
        else model.delete(label);
      }
      if (step % 100 === 0) check(lists, model, capacity, 12);
    }
    check(lists, model, capacity, 12);
  });

  it('keeps its pool bounded while a few labels are rewritten many times', () => {
    const capacity = 4096;
    const lists = new ListCodes(capacity);
    for (let label = 0; label < capacity; label++) lists.set(label, [label % 7, 7 + (label % 5)]);
    const settled = lists.bytes;
    for (let round = 0; round < 20_000; round++) lists.set(round % 3, [round % 11, 11 + (round % 13), 30]);
    // 20k rewrites append 60k codes; without compaction the pool would have grown to hold them.
    assert.ok(lists.bytes <= settled * 2, `pool grew from ${settled} to ${lists.bytes} bytes`);
    for (let label = 3; label < capacity; label++) {
      assert.ok(lists.has(label, label % 7) && lists.has(label, 7 + (label % 5)), `label ${label} kept its codes`);
    }
    const held = (label: number): number[] => Array.from({ length: 64 }, (_, c) => c).filter((c) => lists.has(label, c));
    for (let label = 0; label < 3; label++) {
      const round = 19_999 - ((19_999 - label) % 3); // the last round that rewrote this label
      assert.deepEqual(held(label), [round % 11, 11 + (round % 13), 30].sort((x, y) => x - y), `label ${label}`);
    }
  });
});
