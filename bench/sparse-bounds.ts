// How much of the inverted index an exact sparse top-k must read on the bench's sparse
// data, whatever the algorithm's bookkeeping: `node dist/bench/sparse-bounds.js [records]`
// (default 100000). For each query without negative weights it computes the exact k-th
// best score θ by accumulating every list, then MaxScore's floor: the lists it must read
// in full even when θ is known before the first posting (the "essential" lists — highest
// bound first — until the bounds of the lists left sum below θ). It also prints how much
// a list's weights vary (largest ÷ smallest, median over the query terms): a block-max
// bound can only skip a block whose largest weight is well below its list's, so with
// weights spread uniformly inside a list it cannot skip anything.
// This is the reason issue 14's sparse-only target (p50 ≤ a dense graph query's) is out
// of reach for an exact search on this data (README "Search engine").
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

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const essential: number[] = [];
const total: number[] = [];
const spread: number[] = [];
const acc = new Float64Array(records);
for (const q of data.queries) {
  if (q.values.some((v) => v < 0)) continue;
  acc.fill(0);
  let read = 0;
  const terms: { length: number; bound: number }[] = [];
  for (let t = 0; t < q.indices.length; t++) {
    const list = lists.get(q.indices[t]);
    if (!list) continue;
    for (let e = 0; e < list.records.length; e++) acc[list.records[e]] += q.values[t] * list.weights[e];
    read += list.records.length;
    terms.push({ length: list.records.length, bound: q.values[t] * list.max });
    if (list.min > 0) spread.push(list.max / list.min);
  }
  const theta = [...acc].sort((a, b) => b - a)[k - 1];
  terms.sort((a, b) => b.bound - a.bound);
  let rest = terms.reduce((s, t) => s + t.bound, 0);
  let mustRead = 0;
  for (const t of terms) {
    if (rest < theta) break;
    mustRead += t.length;
    rest -= t.bound;
  }
  essential.push(mustRead);
  total.push(read);
}
const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
console.log(`${records} records, ${essential.length} queries without negative weights, top-${k}`);
console.log(`postings in the query's lists: mean ${Math.round(mean(total))}, median ${median(total)}`);
console.log(
  `MaxScore's essential lists with the final θ known in advance: mean ${Math.round(mean(essential))} postings, ` +
    `median ${median(essential)}, min ${Math.min(...essential)}, max ${Math.max(...essential)}`,
);
console.log(`largest ÷ smallest weight within a query term's list: median ${median(spread).toFixed(1)}`);
