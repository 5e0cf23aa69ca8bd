// Randomised sequences of writes (upserts, metadata-only updates, deletes, namespace
// drops, and replays of older upserts) interleaved with filtered queries and counts,
// checked against a model with the reference evaluator: no query may return a deleted,
// dropped, outdated or non-matching record, answer short, or miss a match. Run with the
// graph forced on (factor 0) and with the default planner, while graph inserts lag.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EngineIndex } from '../../src/engine/engine-index.js';
import { compileFilter, parseFilterNode, type Metadata } from '../../src/engine/filter.js';
import type { Change, StoredRecord } from '../../src/engine/model.js';
import { prng } from '../helpers/prng.js';

const DIM = 8;
const COLORS = ['red', 'green', 'blue', 'amber'];

const FILTERS: object[] = [
  { color: 'red' },
  { color: { $ne: 'red' } },
  { n: { $gte: 50 } },
  { n: { $lt: 5 } },
  { tags: { $in: ['a', 'c'] } },
  { tags: { $nin: ['b'] } },
  { flag: { $exists: false } },
  { flag: true },
  { $or: [{ color: 'blue' }, { n: { $lte: 10 } }] },
  { $and: [{ n: { $gte: 20, $lt: 80 } }, { tags: { $in: ['a'] } }] },
  { color: { $in: ['green', 'amber'] }, flag: { $ne: false } },
];

function randomRecord(rand: () => number, id: string): StoredRecord {
  const values = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) values[i] = rand() * 2 - 1;
  return { id, values, metadata: randomMetadata(rand) };
}

function randomMetadata(rand: () => number): Metadata | undefined {
  if (rand() < 0.1) return undefined;
  const m: Metadata = { n: Math.floor(rand() * 100) };
  if (rand() < 0.9) m.color = COLORS[Math.floor(rand() * COLORS.length)];
  if (rand() < 0.7) m.tags = ['a', 'b', 'c', 'd'].filter(() => rand() < 0.4);
  if (rand() < 0.5) m.flag = rand() < 0.5;
  return m;
}

for (const [name, factor] of [['graph forced', 0], ['default planner', undefined]] as const) {
  describe(`filtered queries under random writes (${name})`, () => {
    it('never return a stale or non-matching record, never short, never miss a match', () => {
      const rand = prng(factor === 0 ? 1313 : 2424);
      const engine = new EngineIndex({ dimension: DIM, metric: 'euclidean' }, { graphMinRecords: 80, defaultEf: 32, filteredExactFactor: factor });
      const model = new Map<string, Map<string, StoredRecord>>([['a', new Map()], ['b', new Map()]]);
      const history: Change[] = [];
      let seq = 0;
      const apply = (c: Change): void => {
        engine.apply(c);
        history.push(c);
      };
      for (let step = 0; step < 2500; step++) {
        const ns = rand() < 0.85 ? 'a' : 'b';
        const live = model.get(ns)!;
        const id = `r${Math.floor(rand() * 300)}`;
        const op = rand();
        if (op < 0.5) {
          const record = randomRecord(rand, id);
          apply({ kind: 'upsert', ns, seq: ++seq, record });
          live.set(id, record);
        } else if (op < 0.7 && live.has(id)) {
          const record = { ...live.get(id)!, metadata: randomMetadata(rand) }; // metadata only
          if (record.metadata === undefined) delete record.metadata;
          apply({ kind: 'upsert', ns, seq: ++seq, record });
          live.set(id, record);
        } else if (op < 0.93) {
          if (live.has(id)) apply({ kind: 'delete', ns, seq: ++seq, id });
          live.delete(id);
        } else if (op < 0.935) {
          apply({ kind: 'drop-namespace', ns, seq: ++seq });
          live.clear();
        } else if (history.length > 0) {
          // A replay of an older upsert of a record that is live in a newer state (a reload
          // re-applies changes it may already hold): must be a no-op.
          const old = history[Math.floor(rand() * history.length)];
          const current = old.kind === 'upsert' ? model.get(old.ns)!.get(old.record.id) : undefined;
          if (old.kind === 'upsert' && current && current !== old.record) engine.apply(old);
        }
        if (rand() < 0.3) engine.work(performance.now() + 1);
        if (step % 5 !== 0) continue;

        const raw = FILTERS[Math.floor(rand() * FILTERS.length)];
        const filter = parseFilterNode(raw);
        const keep = compileFilter(filter);
        const matching = [...live.values()].filter((r) => keep(r.metadata));
        const dense = new Float32Array(DIM).map(() => rand() * 2 - 1);
        const topK = 1 + Math.floor(rand() * 15);
        const got = engine.query({ namespace: ns, topK, dense, filter, includeValues: true, includeMetadata: false });
        const where = `step ${step} ${ns} ${JSON.stringify(raw)}`;
        assert.equal(got.length, Math.min(topK, matching.length), `${where}: short answer`);
        for (const m of got) {
          const want = live.get(m.id);
          assert.ok(want, `${where}: ${m.id} is not live`);
          assert.ok(keep(want.metadata), `${where}: ${m.id} does not match`);
          assert.deepEqual(Array.from(m.record!.values!), Array.from(want.values!), `${where}: stale values of ${m.id}`);
        }
        // Asking for every match returns exactly the matching set; count agrees.
        const all = engine.query({ namespace: ns, topK: 10_000, dense, filter, includeValues: false, includeMetadata: false });
        assert.deepEqual(all.map((m) => m.id).sort(), matching.map((r) => r.id).sort(), `${where}: match set`);
        assert.deepEqual(engine.matchingIds(ns, filter).sort(), matching.map((r) => r.id).sort(), `${where}: matching ids`);
        assert.equal(new Map(engine.count(filter)).get(ns) ?? 0, matching.length, `${where}: count`);
      }
    });
  });
}
