// Where a filtered query's time goes, in process: `node dist/bench/filter-stages.js
// [count] [dim] [queries] [--ef-sweep]` (defaults 100000 × 384, 200 queries: the medium
// bench's data, bench/data.ts, with its bucket/tag/labels metadata and its filters,
// bench/truth.ts). One VectorSet holds the namespace as the worker does (metadata in
// columns, the graph fully built; the built graph is cached under $TMPDIR so reruns skip
// the build). Per filter it prints the p50 of each stage of VectorSet.search — the filter
// evaluated to a bitmap, the match count, the graph walk with the bitmap inside, the exact
// rescoring — beside the whole search and the unfiltered search in the same run, with the
// ratio filtered ÷ unfiltered, and recall@10 against the exact scan of the matches.
// `--ef-sweep` adds recall and p50 of the filtered walk at several ef (how the filtered
// ef default was chosen: DEFAULT_GRAPH_OPTIONS.filteredEf).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFilterNode } from '../src/engine/filter.js';
import { HnswGraph } from '../src/engine/graph/hnsw-graph.js';
import type { Bitmap } from '../src/engine/metadata/bitmap.js';
import type { VectorArena } from '../src/engine/vectors/arena.js';
import { bestOf, Scorer } from '../src/engine/vectors/exact-scan.js';
import { DEFAULT_GRAPH_OPTIONS, VectorSet, type SearchTrace } from '../src/engine/vector-set.js';
import { generateDense, metadataOf, id } from './data.js';
import { FILTERS } from './truth.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const sweep = process.argv.includes('--ef-sweep');
const count = Number(args[0] ?? 100_000);
const dim = Number(args[1] ?? 384);
const queries = Number(args[2] ?? 200);
const K = 10;
const clusters = Math.max(20, Math.round(count / 333));

const data = generateDense({ n: count, dim, clusters }, queries);
const set = new VectorSet(dim, 'cosine', { ...DEFAULT_GRAPH_OPTIONS, graphMinRecords: 1 });
const upsertAll = (): void => {
  for (let i = 0; i < count; i++) {
    set.upsert(i + 1, { id: id(i), values: data.vectors.subarray(i * dim, (i + 1) * dim), metadata: metadataOf(data, i) });
  }
};

// The graph's cache: hnswlib's file plus the per-label flags and ids, keyed by the data's shape.
const cacheDir = join(tmpdir(), `conifer-filter-stages-${count}x${dim}`);
const graphFile = join(cacheDir, 'graph');
const stateFile = join(cacheDir, 'state.json');
if (existsSync(stateFile)) {
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { seq: number; ids: (string | null)[]; indexed: number[]; inGraph: number[] };
  const graph = HnswGraph.load('cosine', dim, graphFile, Uint8Array.from(state.indexed), Uint8Array.from(state.inGraph));
  set.restore(graph, state.ids, state.seq);
  upsertAll();
  set.finishRestore();
  console.log(`${count} × ${dim}: graph read from ${cacheDir}`);
} else {
  upsertAll();
  const start = performance.now();
  while (set.hasWork) set.work(performance.now() + 1000);
  console.log(`${count} × ${dim}: graph built in ${((performance.now() - start) / 1000).toFixed(1)} s (cached in ${cacheDir})`);
  const snap = set.snapshot('', count);
  if (!snap) throw new Error('no graph was built');
  mkdirSync(cacheDir, { recursive: true });
  snap.writeGraph(graphFile);
  const { seq, ids, indexed, inGraph } = snap.state;
  writeFileSync(stateFile, JSON.stringify({ seq, ids, indexed: [...indexed], inGraph: [...inGraph] }));
}
if (set.hasWork || set.unindexed > 0) throw new Error('the graph is incomplete');

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
const recallOf = (got: { id: string }[], want: { id: string }[]): number => {
  const ids = new Set(want.map((h) => h.id));
  return want.length === 0 ? 1 : got.filter((h) => ids.has(h.id)).length / want.length;
};

// Warm-up: JIT and caches, outside every timing.
for (const dense of qs.slice(0, 20)) for (const f of FILTERS) set.search({ dense, topK: K, filter: f.filter ? parseFilterNode(f.filter) : undefined });

const unfilteredMs = qs.map((dense) => time(() => set.search({ dense, topK: K }))[1]);
const unfiltered = p50(unfilteredMs);
console.log(`unfiltered search p50 ${ms(unfiltered)} ms (ef ${DEFAULT_GRAPH_OPTIONS.defaultEf})`);
console.log('filter\tmatches\tplan\tevaluate\tcount\twalk\trescore\tsearch\t÷ unfiltered\trecall@10\tshort');
const filters = FILTERS.slice(1).map((f) => ({ label: f.label, node: parseFilterNode(f.filter) }));
for (const { label, node } of filters) {
  const stage = { evaluate: [] as number[], count: [] as number[], walk: [] as number[], rescore: [] as number[], search: [] as number[] };
  let recall = 0;
  let short = 0;
  let plan = '';
  let matches = 0;
  for (const dense of qs) {
    const [bits, evaluate] = time(() => set.matching(node));
    const [m, countMs] = time(() => bits.count());
    matches = m;
    stage.evaluate.push(evaluate);
    stage.count.push(countMs);
    const ef = DEFAULT_GRAPH_OPTIONS.defaultEf;
    const [candidates, walk] = time(() => graph.search(dense, K, ef, bits));
    stage.walk.push(walk);
    const scorer = new Scorer('cosine', arena, { dense });
    stage.rescore.push(time(() => bestOf(candidates, K, scorer, (l) => String(l)))[1]);
    const trace: SearchTrace = {};
    const [got, searchMs] = time(() => set.search({ dense, topK: K, filter: node, trace }));
    stage.search.push(searchMs);
    plan = trace.plan ?? '';
    const want = set.search({ dense, topK: K, filter: node, exact: true });
    recall += recallOf(got, want);
    if (got.length < Math.min(K, m)) short++;
  }
  const s = p50(stage.search);
  console.log(
    [label, matches, plan, ms(p50(stage.evaluate)), ms(p50(stage.count)), ms(p50(stage.walk)), ms(p50(stage.rescore)), ms(s), (s / unfiltered).toFixed(2), (recall / qs.length).toFixed(4), short].join('\t'),
  );
}

if (sweep) {
  // The filtered walk alone at several ef: recall@10 against the exact scan of the matches.
  console.log('\nfiltered walk: ef → p50 ms / recall@10');
  const efs = [10, 16, 20, 24, 32, 40, 50, 64, 100];
  console.log(['filter', ...efs.map((e) => `ef ${e}`)].join('\t'));
  for (const { label, node } of filters) {
    const bits: Bitmap = set.matching(node);
    const wants = qs.map((dense) => set.search({ dense, topK: K, filter: node, exact: true }));
    const cells = efs.map((ef) => {
      let recall = 0;
      const t: number[] = [];
      qs.forEach((dense, q) => {
        const [labels, walk] = time(() => graph.search(dense, K, ef, bits));
        t.push(walk);
        const want = new Set(wants[q].map((h) => h.slot));
        recall += wants[q].length === 0 ? 1 : labels.filter((l) => want.has(l)).length / wants[q].length;
      });
      return `${ms(p50(t))}/${(recall / qs.length).toFixed(3)}`;
    });
    console.log([label, ...cells].join('\t'));
  }
}

