// What evaluating a filter on the metadata columns costs by itself, before any search:
// `node dist/bench/filter-eval.js [records]` (default 1,000,000). The records carry the
// benchmark's metadata shapes — `bucket` (integer 0..999, each held by 1/1000 of them),
// `tag` (one of 10 strings) and `labels` (a list of two of them) — written to one
// MetadataColumns as the engine worker holds a namespace's; each filter is evaluated 50
// times and the p50 printed with its match count. At 1M records this used to be a pass
// over the column for every scalar filter (1.2–1.7 ms, 7 ms for a numeric $in), more than
// the search it decided.
import { parseFilterNode } from '../src/engine/filter.js';
import { MetadataColumns } from '../src/engine/metadata/metadata-columns.js';

const records = Number(process.argv[2] ?? 1_000_000);
const TAGS = ['news', 'tech', 'sports', 'arts', 'science', 'health', 'travel', 'food', 'music', 'games'];
const FILTERS = [
  { bucket: { $lt: 1 } },
  { bucket: { $lt: 10 } },
  { bucket: { $lt: 500 } },
  { bucket: { $eq: 7 } },
  { bucket: { $in: [1, 2, 3] } },
  { tag: { $eq: 'news' } },
  { tag: { $in: ['news', 'arts'] } },
  { labels: { $in: ['news', 'tech'] } },
  { bucket: { $lt: 200 }, labels: { $in: ['news', 'tech'] } },
];

const columns = new MetadataColumns(1024);
for (let i = 0; i < records; i++) {
  columns.set(i, { bucket: i % 1000, tag: TAGS[i % 10], labels: [TAGS[(i * 7) % 10], TAGS[(i * 3) % 10]] });
}
console.log(`${records.toLocaleString('en-US')} records; filter evaluation on the columns, p50 of 50`);
for (const filter of FILTERS) {
  const node = parseFilterNode(filter);
  const times: number[] = [];
  let matches = 0;
  for (let run = 0; run < 50; run++) {
    const started = performance.now();
    matches = columns.evaluate(node).count();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`${JSON.stringify(filter).padEnd(58)} ${String(matches).padStart(8)} matches  ${times[times.length >> 1].toFixed(3)} ms`);
}
