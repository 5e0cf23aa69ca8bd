// The unindexed gauge's arithmetic (src/engine/indexing-backlog.ts): the worker's count plus
// the acknowledged writes above the seq it was counted at, whatever order the two threads'
// messages reach the main thread in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IndexingBacklog } from '../../src/engine/indexing-backlog.js';

test('acknowledged records count until a report at or past their seq, then only the report does', () => {
  const b = new IndexingBacklog();
  assert.equal(b.value('i'), 0);
  b.acknowledged('i', 3, 100);
  b.acknowledged('i', 5, 40);
  assert.equal(b.value('i'), 140, 'nothing applied yet: both writes wait');
  b.reported('i', { unindexed: 100, seq: 3 });
  assert.equal(b.value('i'), 140, 'the first write is in the tail, the second still unapplied');
  b.reported('i', { unindexed: 0, seq: 5 });
  assert.equal(b.value('i'), 0, 'both applied and in a graph');
  b.acknowledged('i', 6, 0);
  assert.equal(b.value('i'), 0, 'a delete adds nothing');
});

test('a report that arrives before the acknowledgement it covers is not counted twice', () => {
  const b = new IndexingBacklog();
  b.reported('i', { unindexed: 7, seq: 9 });
  b.acknowledged('i', 9, 7);
  assert.equal(b.value('i'), 7);
  b.acknowledged('i', 8, 3);
  assert.equal(b.value('i'), 7, 'an older write is applied too');
});

test('an older report than the last changes nothing; a restart accepts the new worker\'s counts', () => {
  const b = new IndexingBacklog();
  b.acknowledged('i', 4, 10);
  b.reported('i', { unindexed: 0, seq: 4 });
  b.reported('i', { unindexed: 50, seq: 2 });
  assert.equal(b.value('i'), 0, 'a late report of an earlier state is ignored');
  b.acknowledged('i', 6, 5);
  b.restarted(['i']);
  assert.equal(b.value('i'), 5, 'until the new worker reports, the old count and the backlog stand');
  b.reported('i', { unindexed: 15, seq: 0 });
  assert.equal(b.value('i'), 20, 'a loading index counts all it holds, the backlog beside it');
  b.reported('i', { unindexed: 0, seq: 6 });
  assert.equal(b.value('i'), 0);
});

test('indexes are counted apart, and a forgotten index reads 0', () => {
  const b = new IndexingBacklog();
  b.acknowledged('a', 1, 3);
  b.acknowledged('b', 1, 4);
  b.reported('a', { unindexed: 0, seq: 1 });
  assert.deepEqual([b.value('a'), b.value('b')], [0, 4]);
  b.forget('b');
  assert.equal(b.value('b'), 0);
});
