import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryAnswerJson } from '../../src/server/serializers/query-json.js';
import { float32ToShortest } from '../../src/engine/float32.js';

// queryAnswerJson prints by hand what the query route used to hand to JSON.stringify: the
// answer with each match's metadata object in place of its JSON text.
const viaStringify = (matches: { id: string; score: number; metadata?: object }[], namespace: string, usage: object): string =>
  JSON.stringify({
    matches: matches.map((m) => ({ id: m.id, score: float32ToShortest(m.score), ...(m.metadata === undefined ? {} : { metadata: m.metadata }) })),
    namespace,
    usage,
  });

test('queryAnswerJson gives the text JSON.stringify gives for the same answer', () => {
  const metadata = [
    { genre: ['drama', 'say "hi"'], year: 2020, rating: -0, ok: true, bad: false },
    { 'é ключ': 'line\u2028sep\\', n: 1e21, tiny: 5e-324 },
    {},
  ];
  const matches = [
    { id: 'plain', score: 0.9999999999999998, metadata: metadata[0] },
    { id: 'quote " and \\ backslash\ttab', score: -0, metadata: metadata[1] },
    { id: '\u0001control', score: 1e-7 },
    { id: 'empty-metadata', score: Infinity, metadata: metadata[2] },
    { id: 'nan', score: Number.NaN },
    { id: 'float64 noise', score: 0.1 + 0.2 },
  ];
  const usage = { readUnits: 1 };
  for (const namespace of ['', '__default__', 'ns "quoted"\n']) {
    for (const list of [[], matches.slice(0, 1), matches]) {
      const text = queryAnswerJson(
        list.map((m) => ({ id: m.id, score: m.score, metadataJson: m.metadata === undefined ? undefined : JSON.stringify(m.metadata) })),
        namespace,
        usage,
      );
      assert.equal(text, viaStringify(list, namespace, usage));
    }
  }
});

test('queryAnswerJson splices the metadata text unchanged and leaves out absent metadata', () => {
  const text = queryAnswerJson(
    [
      { id: 'a', score: 0.5, metadataJson: '{"k":[1,2],"s":"x"}' },
      { id: 'b', score: 0.25 },
    ],
    'n',
    { readUnits: 1 },
  );
  assert.equal(text, '{"matches":[{"id":"a","score":0.5,"metadata":{"k":[1,2],"s":"x"}},{"id":"b","score":0.25}],"namespace":"n","usage":{"readUnits":1}}');
});
