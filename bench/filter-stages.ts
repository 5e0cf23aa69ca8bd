// Where a filtered query's time goes, in process: `node dist/bench/filter-stages.js
// [count] [dim] [queries] [--ef-sweep]` (defaults 100000 × 384, 200 queries: the medium
// bench's data and filters, bench/data.ts and bench/truth.ts, on one VectorSet with its
// graph fully built: bench/cached-set.ts). Per filter it prints the p50 of each stage of
// VectorSet.search — the filter evaluated to a bitmap, the match count, the graph walk
// with the bitmap inside (at the ef the planner gives it), the exact rescoring of its
// candidates — and of the whole search, beside the unfiltered search in the same run
// (the ratio filtered ÷ unfiltered), with recall@10 against the exact scan of the matches
// and the count of short answers. `--ef-sweep` adds p50 and recall@10 of the filtered walk
// alone at several ef, at the selectivities the planner sends to the graph: how
// FILTERED_EF (src/engine/vector-set.ts) was chosen.
import { parseFilterNode, type FilterNode } from '../src/engine/filter.js';
import type { HnswGraph } from '../src/engine/graph/hnsw-graph.js';
import type { VectorArena } from '../src/engine/vectors/arena.js';
import { bestOf, Scorer } from '../src/engine/vectors/exact-scan.js';
import { DEFAULT_GRAPH_OPTIONS, type Hit, type SearchTrace } from '../src/engine/vector-set.js';
import { cachedSet } from './cached-set.js';
import { FILTERS } from './truth.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const sweep = process.argv.includes('--ef-sweep');
const count = Number(args[0] ?? 100_000);
const dim = Number(args[1] ?? 384);
const queries = Number(args[2] ?? 200);
const K = 10;

const { set, data } = cachedSet(count, dim, queries, DEFAULT_GRAPH_OPTIONS);
// The set's graph and arena, for timing the walk and the rescoring alone (bench only: the
// engine never exposes them).
const { graph, arena } = set as unknown as { graph: HnswGraph; arena: VectorArena };
const qs = Array.from({ length: queries }, (_, q) => data.queries.subarray(q * dim, (q + 1) * dim));
const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number): string => x.toFixed(3);
const time = <T>(fn: () => T): [T, number] => {
  const t = performance.now();
  const out = fn();
  return [out, performance.now() - t];
};
const recallOf = (got: readonly number[], want: readonly Hit[]): number => {
  const slots = new Set(got);
  return want.length === 0 ? 1 : want.filter((h) => slots.has(h.slot)).length / want.length;
};
const filters: { label: string; node: FilterNode }[] = FILTERS.slice(1).map((f) => ({ label: f.label, node: parseFilterNode(f.filter) }));

// Warm-up: JIT and caches, outside every timing.
for (const dense of qs.slice(0, 20)) {
  set.search({ dense, topK: K });
  for (const f of filters) set.search({ dense, topK: K, filter: f.node });
}

// Each stage is timed in its own loop over the queries, as consecutive queries run in the
// worker: interleaving them with the exact scans that measure recall would evict the
// columns and the graph from the caches and time a cold search.
const loop = (fn: (dense: Float32Array) => void): number => p50(qs.map((dense) => time(() => fn(dense))[1]));
const unfiltered = loop((dense) => set.search({ dense, topK: K }));
console.log(`unfiltered search p50 ${ms(unfiltered)} ms (ef ${DEFAULT_GRAPH_OPTIONS.defaultEf}); ${queries} queries, topK ${K}`);
console.log('filter\tmatches\tplan\tef\tevaluate\tcount\twalk\trescore\tsearch\t÷ unfiltered\trecall@10\tshort');
for (const { label, node } of filters) {
  const trace: SearchTrace = {};
  set.search({ dense: qs[0], topK: K, filter: node, trace });
  const bits = set.matching(node);
  const m = bits.count();
  const evaluate = loop(() => set.matching(node));
  const countMs = loop(() => bits.count());
  let walk = '-';
  let rescore = '-';
  if (trace.plan === 'graph' && trace.ef !== undefined) {
    const ef = trace.ef;
    walk = ms(loop((dense) => graph.search(dense, K, ef, bits)));
    const candidates = qs.map((dense) => graph.search(dense, K, ef, bits));
    const scorers = qs.map((dense) => new Scorer('cosine', { arena, rows: () => graph.rows() }, { dense }));
    rescore = ms(p50(qs.map((_, q) => time(() => bestOf(candidates[q], K, scorers[q], String))[1])));
  }
  const search = loop((dense) => set.search({ dense, topK: K, filter: node }));
  let recall = 0;
  let short = 0;
  for (const dense of qs) {
    const got = set.search({ dense, topK: K, filter: node });
    const want = set.search({ dense, topK: K, filter: node, exact: true });
    recall += recallOf(got.map((h) => h.slot), want);
    if (got.length < Math.min(K, m)) short++;
  }
  console.log(
    [label, m, trace.plan, trace.ef, ms(evaluate), ms(countMs), walk, rescore, ms(search), (search / unfiltered).toFixed(2), (recall / qs.length).toFixed(4), short].join('\t'),
  );
}

if (sweep) {
  // The filtered walk alone at several ef, at the selectivities the planner walks (from
  // its crossover, a few % of N, up): p50 ms / recall@10 against the exact scan.
  const efs = [10, 16, 20, 24, 32, 40, 64, 100];
  const swept = [
    ...[500, 100, 50, 30].map((limit) => ({ label: `bucket < ${limit}`, node: parseFilterNode({ bucket: { $lt: limit } }) })),
    filters[filters.length - 1],
  ];
  console.log('\nfiltered walk alone: p50 ms / recall@10');
  console.log(['filter', ...efs.map((e) => `ef ${e}`)].join('\t'));
  for (const { label, node } of swept) {
    const bits = set.matching(node);
    const wants = qs.map((dense) => set.search({ dense, topK: K, filter: node, exact: true }));
    const cells = efs.map((ef) => {
      let recall = 0;
      const t: number[] = [];
      qs.forEach((dense, q) => {
        const [labels, walk] = time(() => graph.search(dense, K, ef, bits));
        t.push(walk);
        recall += recallOf(labels, wants[q]);
      });
      return `${ms(p50(t))}/${(recall / qs.length).toFixed(4)}`;
    });
    console.log([label, ...cells].join('\t'));
  }
}
