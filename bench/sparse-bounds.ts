// How much of the inverted index an exact sparse top-k must read on the bench's sparse
// data, whatever the algorithm's bookkeeping: `node dist/bench/sparse-bounds.js [records]`
// (default 100000). For each query without negative weights it computes the exact k-th
// best score θ by accumulating every list, then MaxScore's floor: the postings it must
// read in full even when θ is known before the first posting (the "essential" lists, read
// until the bounds of the lists left sum below θ), for three orders of reading:
// - highest bound first (MaxScore as usually described);
// - most bound per entry first, which leaves out the lists holding the most entries per
//   unit of bound (the engine's order: native/sparse-search.cc Bounds(), sparse-index.ts
//   termBounds());
// - the same with each list split into impact tiers, one per octave of weight: a
//   term-at-a-time search can read a term's high weights first, after which what the term
//   can still add is its next tier's largest weight, not its list's.
// It also prints how much a list's weights vary (largest ÷ smallest, median over the query
// terms): a block-max bound can only skip a block whose largest weight is well below its
// list's, so with weights spread uniformly inside a list it cannot skip anything.
// It shows how far an exact MaxScore can go toward issue 14's sparse-only target (p50 ≤ a
// dense graph query's) on this data (README "Search engine").
import { generateSparse } from './data.js';

const records = Number(process.argv[2] ?? 100_000);
const k = 10;
const data = generateSparse(records, 200);

// Postings per dimension: [record, weight] pairs, and each list's largest and smallest weight.
const lists = new Map<number, { records: number[]; weights: number[]; max: number; min: number }>();
data.records.forEach((r, i) => {
  for (let j = 0; j < r.indices.length; j++) {
    let list = lists.get(r.indices[j]);
    if (!list) lists.set(r.indices[j], (list = { records: [], weights: [], max: -Infinity, min: Infinity }));
    list.records.push(i);
    list.weights.push(r.values[j]);
    list.max = Math.max(list.max, r.values[j]);
    list.min = Math.min(list.min, r.values[j]);
  }
});

// Per dimension, its entries in each octave of weight (weights are positive in the bench's
// records), highest octave first, with the octave's largest weight.
const octaves = new Map<number, { length: number; max: number }[]>();
for (const [dim, list] of lists) {
  const byOctave = new Map<number, { length: number; max: number }>();
  for (const w of list.weights) {
    const o = Math.floor(Math.log2(w));
    const tier = byOctave.get(o) ?? { length: 0, max: -Infinity };
    tier.length++;
    tier.max = Math.max(tier.max, w);
    byOctave.set(o, tier);
  }
  octaves.set(dim, [...byOctave.entries()].sort((a, b) => b[0] - a[0]).map(([, tier]) => tier));
}

/**
 * Postings read before the bound of what is left falls below θ. Each term is a sequence of
 * steps (its whole list, or its tiers highest first); taking a term's next step costs its
 * entries and lowers the term's bound to the step after's largest weight × w. `key` picks
 * the next step among the terms' next ones (greatest first).
 */
function mustRead(steps: { length: number; max: number }[][], weights: number[], theta: number, key: (bound: number, next: number, length: number) => number): number {
  const at = steps.map(() => 0);
  const boundAt = (t: number, i: number): number => (i < steps[t].length ? weights[t] * steps[t][i].max : 0);
  let rest = steps.reduce((sum, _, t) => sum + boundAt(t, 0), 0);
  let read = 0;
  while (rest >= theta) {
    let best = -1;
    let bestKey = -Infinity;
    steps.forEach((own, t) => {
      if (at[t] >= own.length) return;
      const k = key(boundAt(t, at[t]), boundAt(t, at[t] + 1), own[at[t]].length);
      if (k > bestKey) [best, bestKey] = [t, k];
    });
    if (best < 0) break;
    rest -= boundAt(best, at[best]) - boundAt(best, at[best] + 1);
    read += steps[best][at[best]].length;
    at[best]++;
  }
  return read;
}
const byBound = (bound: number): number => bound;
const byBoundPerEntry = (bound: number, next: number, length: number): number => (bound - next) / length;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const essential: number[] = [];
const essentialPerEntry: number[] = [];
const essentialTiers: number[] = [];
const total: number[] = [];
const spread: number[] = [];
const acc = new Float64Array(records);
for (const q of data.queries) {
  if (q.values.some((v) => v < 0)) continue;
  acc.fill(0);
  let read = 0;
  const whole: { length: number; max: number }[][] = [];
  const tiered: { length: number; max: number }[][] = [];
  const weights: number[] = [];
  for (let t = 0; t < q.indices.length; t++) {
    const list = lists.get(q.indices[t]);
    if (!list) continue;
    for (let e = 0; e < list.records.length; e++) acc[list.records[e]] += q.values[t] * list.weights[e];
    read += list.records.length;
    whole.push([{ length: list.records.length, max: list.max }]);
    tiered.push(octaves.get(q.indices[t]) ?? []);
    weights.push(q.values[t]);
    if (list.min > 0) spread.push(list.max / list.min);
  }
  const theta = [...acc].sort((a, b) => b - a)[k - 1];
  essential.push(mustRead(whole, weights, theta, byBound));
  essentialPerEntry.push(mustRead(whole, weights, theta, byBoundPerEntry));
  essentialTiers.push(mustRead(tiered, weights, theta, byBoundPerEntry));
  total.push(read);
}
const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
console.log(`${records} records, ${essential.length} queries without negative weights, top-${k}`);
console.log(`postings in the query's lists: mean ${Math.round(mean(total))}, median ${median(total)}`);
const figures = (xs: number[]): string => `mean ${Math.round(mean(xs))} postings, median ${median(xs)}, min ${Math.min(...xs)}, max ${Math.max(...xs)}`;
console.log(`MaxScore's essential lists with the final θ known in advance, highest bound first: ${figures(essential)}`);
console.log(`  most bound per entry first: ${figures(essentialPerEntry)}`);
console.log(`  most bound per entry first, lists split into tiers by octave of weight: ${figures(essentialTiers)}`);
console.log(`largest ÷ smallest weight within a query term's list: median ${median(spread).toFixed(1)}`);
