// What applying hybrid/sparse upserts costs the engine thread, per record: SparseIndex.set
// (values store, and the postings appends it queues, flushed in batches) on the bench's learned-sparse data (~120 terms per
// record over a 30,000-term Zipf-like vocabulary, bench/data.ts), in upsert-sized batches,
// the way VectorSet applies an upsert's changes. Prints the median of several runs, as
// CPU time of the process (user + system, GC threads included), which a busy shared
// machine disturbs far less than wall time.
//   npx tsc -p tsconfig.json && node dist/bench/sparse-apply.js [--records 50000] [--runs 5]
import { SparseIndex } from '../src/engine/sparse/sparse-index.js';
import { generateSparse } from './data.js';

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const RECORDS = flag('records', 50_000);
const RUNS = flag('runs', 5);

const data = generateSparse(RECORDS, 1, 7);
const pairs = data.records.reduce((a, r) => a + r.indices.length, 0);
const times: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const index = new SparseIndex();
  const started = process.cpuUsage();
  for (let label = 0; label < RECORDS; label++) index.set(label, data.records[label]);
  index.postingsReady(); // the writes still queued for the postings (sparse-index.ts, \`queue\`)
  const used = process.cpuUsage(started);
  times.push((used.user + used.system) / 1000);
}
times.sort((a, b) => a - b);
const ms = times[times.length >> 1];
console.log(`SparseIndex.set: ${RECORDS} records (${(pairs / RECORDS).toFixed(0)} pairs each) in ${ms.toFixed(0)} ms of CPU (median of ${RUNS}, min ${times[0].toFixed(0)} ms) = ${((ms * 1000) / RECORDS).toFixed(1)} µs per record, ${Math.round(RECORDS / (ms / 1000))} records/s`);
