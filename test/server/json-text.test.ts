import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonText, jsonBytes } from '../../src/server/serializers/json-text.js';

const text = (v: unknown): string => jsonBytes(v).toString('utf8');

test('jsonBytes prints plain values exactly as JSON.stringify does, in UTF-8', () => {
  const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: [true, null] });
  const values: unknown[] = [
    null, 0, -0, 1.5, Number.NaN, Infinity, 'text with "quotes", \\\\ and \\u2028', true, [], {},
    [1, undefined, 'x', null, [2, [3]]],
    { z: 1, a: undefined, 10: 'ten', 2: 'two', nested: { deep: { deeper: [{}] } }, 'é ключ': 'v' },
    { toJSON: 'a string, not a method' },
    nullProto,
    { matches: [{ id: 'a', score: 0.5, metadata: { genre: ['x', 'y'], year: 2020 } }], namespace: '', usage: { readUnits: 1 } },
  ];
  for (const v of values) assert.equal(text(v), JSON.stringify(v));
});

test('jsonBytes splices JsonText in unchanged, wherever it sits', () => {
  const body = { vectors: { a: { id: 'a', values: new JsonText('[0.1,0.2]') } }, list: [new JsonText('{"x":1}'), 2], skipped: undefined };
  assert.equal(text(body), '{"vectors":{"a":{"id":"a","values":[0.1,0.2]}},"list":[{"x":1},2]}');
  assert.deepEqual(JSON.parse(text(body)), { vectors: { a: { id: 'a', values: [0.1, 0.2] } }, list: [{ x: 1 }, 2] });
});
