// What the single-purpose dense benches (fixed-cost.ts, engine-threads.ts) share: their
// `--name value` flags, the query bodies, hnswlib in this process with the engine's graph
// parameters (the yardstick), and loading an index over HTTP until every record is in a graph.
import { hnswlib } from './hnswlib-reference.js';
import type { DenseData } from './data.js';
import type { Client } from './http.js';
import { HNSW_EF_CONSTRUCTION, HNSW_M } from './references.js';
import { summarize } from './stats.js';

/** src/engine/vector-set.ts DEFAULT_GRAPH_OPTIONS.defaultEf */
export const DEFAULT_EF = 100;
export const TOP_K = 10;

/** The value after `--name` on the command line, or `fallback`. */
export function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

export const row = (data: DenseData, arena: Float32Array, i: number): number[] => Array.from(arena.subarray(i * data.dim, (i + 1) * data.dim));

/** One unfiltered topK query body per query vector. */
export const queryBodies = (data: DenseData): string[] =>
  Array.from({ length: data.queryCount }, (_, q) => JSON.stringify({ vector: row(data, data.queries, q), topK: TOP_K }));

/** hnswlib-node over the records in this thread, at the engine's M, efConstruction and default ef. */
export function hnswReference(data: DenseData): { search(q: number): void } {
  const ref = new hnswlib.HierarchicalNSW('cosine', data.dim);
  ref.initIndex(data.n, HNSW_M, HNSW_EF_CONSTRUCTION, 100);
  for (let i = 0; i < data.n; i++) ref.addPoint(row(data, data.vectors, i), i);
  ref.setEf(DEFAULT_EF);
  const queries = Array.from({ length: data.queryCount }, (_, q) => row(data, data.queries, q));
  return { search: (q) => void ref.searchKnn(queries[q % queries.length], TOP_K) };
}

/** hnswlib's p50 over `count` searches one at a time (ms). */
export function hnswP50(ref: { search(q: number): void }, count: number): number {
  const lat: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    ref.search(i);
    lat.push(performance.now() - t);
  }
  return summarize(lat).p50Ms;
}

/** Creates a cosine serverless index `name` on the server at `url`, loads every record and waits until all are in a graph; returns its host. */
export async function loadedIndex(client: Client, url: string, name: string, data: DenseData): Promise<string> {
  const spec = { serverless: { cloud: 'aws', region: 'us-east-1' } };
  const created = await client.json('POST', `${url}/indexes`, JSON.stringify({ name, dimension: data.dim, metric: 'cosine', spec }));
  const host = (created.body as { host: string }).host;
  await upsertAll(client, host, data);
  await waitIndexed(client, url, 1);
  return host;
}

/** Upserts every record into the index at `host`, in batches under the 2 MB body limit at any dimension. */
export async function upsertAll(client: Client, host: string, data: DenseData): Promise<void> {
  // ~20 bytes per JSON number.
  const batch = Math.max(1, Math.min(500, Math.floor(80_000 / data.dim)));
  for (let from = 0; from < data.n; from += batch) {
    const vectors = [];
    for (let i = from; i < Math.min(data.n, from + batch); i++) vectors.push({ id: `v${i}`, values: row(data, data.vectors, i) });
    await client.json('POST', `${host}/vectors/upsert`, JSON.stringify({ vectors }));
  }
}

/** Until /metrics shows `indexes` indexes with no record outside a graph (no exact-scanned tail), for at most 10 minutes. */
export async function waitIndexed(client: Client, url: string, indexes: number): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const metrics = (await client.request('GET', `${url}/metrics`)).text;
    const left = [...metrics.matchAll(/^conifer_engine_unindexed_records\{[^}]*\} (\d+)$/gm)];
    if (left.length === indexes && left.every((m) => m[1] === '0')) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('records still outside a graph after 10 minutes');
}
