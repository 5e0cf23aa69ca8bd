// One HNSW graph over a namespace's labels: the only module that touches hnswlib (through
// Conifer's binding, native/hnsw-index.cc, loaded by hnsw-binding.ts).
//
// Thread rule: a graph belongs to the engine worker thread that created it and is only
// ever called from it. An insert batch may fan out over native threads (insertUntil's
// `threads`), but the call joins them before it returns, so a search never runs beside an
// insert (hnswlib's search takes no locks). The one call that returns before its native
// work ends is writeInBackground: a pool thread reads the graph while this thread goes on
// searching; until it ends the graph does not change (see `saving`).
//
// What the graph holds, per label:
//   indexed[label] = 1  the graph has a live node with the label's CURRENT vector;
//   inGraph[label] = 1  the graph has a node under that label (live or marked deleted);
//   queued[label]  = 1  the label waits in `queue` to be inserted (the tail).
// A label's node is marked deleted as soon as its record is deleted or its vector
// changes, so a graph search never returns a stale record; the changed record waits in
// the tail (searched exactly beside the graph) until its slice re-inserts it, which
// for a node marked deleted means addPoint(v, label): hnswlib then updates the node in
// place and unmarks it. hnswlib's "replace deleted" mode is never used: it takes ANY
// deleted slot without checking that the label is new.
//
// Every native call is wrapped so an error surfaces as a GraphError (the caller drops the
// graph and falls back to exact search). A filtered search tests the Bitmap's words
// natively: no JavaScript runs inside the walk.
import { grown } from '../typed-arrays.js';
import { HnswIndex, type NativeHnswIndex, type SpaceName } from './hnsw-binding.js';
import type { Bitmap } from '../metadata/bitmap.js';
import type { Metric } from '../model.js';
import type { GraphRows } from '../native-addon.js';

/** What insertUntil() takes its vectors from, and tells about its progress. */
export interface InsertSource {
  /** `label` leaves the queue: no query scans it in this graph's tail any more. */
  taken(label: number): void;
  /** Copies `label`'s current vector into out[at..at + dim). */
  read(label: number, out: Float32Array, at: number): void;
  /** These labels' current vectors are now in nodes of the graph (has(label) holds). */
  inserted(labels: Uint32Array): void;
}

export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 200;
/** Fixed so a rebuild from the same data gives the same graph. */
const RANDOM_SEED = 100;
const INITIAL_CAPACITY = 1024;

/**
 * Labels one native insert call takes per insert thread: a slice checks its deadline, and
 * whether a read waits, between calls, so this bounds how far a slice overruns and how
 * long a read waits for graph work (4 inserts are ~1.3 ms at 384-d).
 */
const INSERT_BATCH_PER_THREAD = 4;

export class GraphError extends Error {}

const SPACE: Record<Metric, SpaceName> = { cosine: 'cosine', euclidean: 'l2', dotproduct: 'ip' };

export class HnswGraph {
  private indexed = new Uint8Array(0);
  private inGraph = new Uint8Array(0);
  private queued = new Uint8Array(0);
  /** Labels waiting for insertion, from `head`; entries may be stale (checked on use). */
  private queue: number[] = [];
  private head = 0;
  /** Nodes marked deleted (inGraph && !indexed). */
  private deletedNodes = 0;
  private liveNodes = 0;
  /** An insert batch's labels and vectors, reused (calls are synchronous); sized on use. */
  private batchLabels = new Uint32Array(0);
  private batchVectors = new Float32Array(0);

  /**
   * While a snapshot's graph is still being read on a native thread (load()): the labels
   * invalidated meanwhile, marked deleted once it is in. Every other native call settles
   * the load first.
   */
  private loading: { deferredDeletes: number[] } | undefined;
  /**
   * While writeInBackground's file is being written: the graph must stay as it was when the
   * write began (its flags were captured then), so inserts wait (insertUntil does nothing)
   * and the labels invalidated meanwhile are only marked deleted once it ends. Until then
   * the native graph may still return them, so search() drops every label no longer
   * `indexed`.
   */
  private saving: { deferredDeletes: number[] } | undefined;

  private constructor(
    private readonly index: NativeHnswIndex,
    private readonly dim: number,
    private capacity: number,
  ) {}

  /** An empty graph with room for `expected` nodes. */
  static create(metric: Metric, dim: number, expected: number): HnswGraph {
    const capacity = Math.max(INITIAL_CAPACITY, expected);
    const index = native(() => {
      const created = new HnswIndex(SPACE[metric], dim);
      created.init(capacity, HNSW_M, HNSW_EF_CONSTRUCTION, RANDOM_SEED);
      return created;
    });
    return new HnswGraph(index, dim, capacity);
  }

  /**
   * A graph read back from a snapshot file (verified by its checksum first: hnswlib
   * trusts what it reads), with the per-label flags saved beside it. Every label the
   * caller keeps must then be confirmed or invalidated (see VectorSet.restore).
   * The file is read on a native thread while the caller goes on (start-up loads the
   * records meanwhile); loadFailure() waits for it, and so does any search or insert.
   */
  static load(metric: Metric, dim: number, file: string, indexed: Uint8Array, inGraph: Uint8Array): HnswGraph {
    const index = native(() => {
      const loaded = new HnswIndex(SPACE[metric], dim);
      loaded.load(file, true);
      return loaded;
    });
    const graph = new HnswGraph(index, dim, 0);
    graph.loading = { deferredDeletes: [] };
    graph.grow(indexed.length);
    graph.indexed.set(indexed);
    graph.inGraph.set(inGraph);
    for (let label = 0; label < indexed.length; label++) {
      if (indexed[label]) graph.liveNodes++;
      else if (inGraph[label]) graph.deletedNodes++;
    }
    return graph;
  }

  /** The per-label flags for a snapshot, `extent` labels long. */
  flags(extent: number): { indexed: Uint8Array; inGraph: Uint8Array } {
    this.grow(extent);
    return { indexed: this.indexed.slice(0, extent), inGraph: this.inGraph.slice(0, extent) };
  }

  /** Nodes with a current vector. */
  get size(): number {
    return this.liveNodes;
  }

  /** Share of the graph's nodes that are marked deleted (rebuild when it grows large). */
  get deletedFraction(): number {
    const nodes = this.liveNodes + this.deletedNodes;
    return nodes === 0 ? 0 : this.deletedNodes / nodes;
  }

  /** Labels waiting for insertion (an upper bound: stale entries are dropped on use). */
  get pending(): number {
    return this.queue.length - this.head;
  }

  /** Queues a label whose (new) vector must be inserted. */
  enqueue(label: number): void {
    this.grow(label + 1);
    if (this.queued[label]) return;
    this.queued[label] = 1;
    this.queue.push(label);
  }

  /**
   * Waits for a snapshot's graph to be read (load()); undefined when it is in, else why it
   * could not be (the graph is then unusable: drop it and build another).
   */
  loadFailure(): string | undefined {
    try {
      this.settle();
      return undefined;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  /** The label's record was deleted or its vector changed: hide its node at once. */
  invalidate(label: number): void {
    if (label >= this.indexed.length || !this.indexed[label]) return;
    if (this.loading) this.loading.deferredDeletes.push(label);
    else if (this.saving) this.saving.deferredDeletes.push(label);
    else native(() => this.index.markDelete(label));
    this.indexed[label] = 0;
    this.liveNodes--;
    this.deletedNodes++;
  }

  /** Whether the label's current vector is in the graph (else it is searched in the tail). */
  has(label: number): boolean {
    return label < this.indexed.length && this.indexed[label] === 1;
  }

  /**
   * Writes each label waiting in the tail that `isLive` accepts into out[at..]; returns the
   * array (a longer copy when `out` had no room) and the new count. One pass into a typed
   * array: with closures pushing onto a JavaScript array, collecting an 85k tail took
   * ~2.8 ms of a ~6.2 ms query at 384-d, more than the int8 scan of it (in process).
   */
  tailInto(out: Uint32Array, at: number, isLive: (label: number) => boolean): [Uint32Array, number] {
    const { queue, queued } = this;
    const room = at + queue.length - this.head;
    if (out.length < room) out = grown(out, Math.max(room, out.length * 2));
    let n = at;
    for (let i = this.head; i < queue.length; i++) {
      const label = queue[i];
      if (queued[label] && isLive(label)) out[n++] = label;
    }
    return [out, n];
  }

  /**
   * Inserts queued labels until `deadline` (performance.now() ms) or the queue is empty;
   * returns how many it inserted. Labels no longer live are dropped from the queue.
   * `threads`: native threads each batch is shared over (1: this thread alone, and the
   * graph is the same for the same inserts; more: it depends on scheduling).
   */
  insertUntil(deadline: number, source: InsertSource, isLive: (label: number) => boolean, threads = 1): number {
    if (this.saving) return 0; // the queue keeps its labels: they go in once the write ends
    let inserted = 0;
    if (this.batchLabels.length !== INSERT_BATCH_PER_THREAD * threads) {
      this.batchLabels = new Uint32Array(INSERT_BATCH_PER_THREAD * threads);
      this.batchVectors = new Float32Array(this.batchLabels.length * this.dim);
    }
    while (this.head < this.queue.length) {
      // A batch: the next live labels not yet in the graph, their vectors copied out of
      // the source (the arena, whose chunks may move as it grows, or another graph; the
      // native call keeps no pointer).
      let n = 0;
      while (n < this.batchLabels.length && this.head < this.queue.length) {
        const label = this.queue[this.head++];
        if (!this.queued[label]) continue;
        this.queued[label] = 0;
        source.taken(label);
        if (!isLive(label) || this.indexed[label]) continue;
        this.batchLabels[n] = label;
        source.read(label, this.batchVectors, n * this.dim);
        n++;
      }
      if (n === 0) break;
      this.settle();
      this.ensureCapacity(n);
      const labels = this.batchLabels.subarray(0, n);
      native(() => this.index.addPoints(this.batchVectors.subarray(0, n * this.dim), labels, threads));
      for (const label of labels) {
        if (this.inGraph[label]) this.deletedNodes--; // an update in place unmarks the node
        this.inGraph[label] = 1;
        this.indexed[label] = 1;
        this.liveNodes++;
      }
      source.inserted(labels);
      inserted += n;
      if (performance.now() >= deadline) break;
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return inserted;
  }

  /**
   * Up to k live labels near `q`, approximately; the caller rescores them exactly.
   * `ef` is raised to at least k (hnswlib searches with max(ef, k)). With `allowed`, only
   * labels in it are returned: the walk still passes through the others (that is why its
   * recall holds), it just does not collect them. May return fewer than k.
   */
  search(q: Float32Array, k: number, ef: number, allowed?: Bitmap): number[] {
    if (this.liveNodes === 0) return [];
    this.settle();
    // During a background write, nodes invalidated meanwhile are not marked yet: ask for
    // as many more as there are, and drop them.
    const hidden = this.saving?.deferredDeletes.length ?? 0;
    const n = Math.min(k + hidden, this.capacity);
    const found = native(() => this.index.search(q, n, Math.max(ef, n), allowed?.words ?? null, allowed?.size ?? 0));
    return this.liveOf(found, hidden, k);
  }

  /**
   * search() for several queries with the same k and ef, run side by side on up to
   * `threads` native threads (joined before it returns; this thread is one of them), so
   * one graph answers a batch of queries on several cores. Answers in query order.
   */
  searchMany(qs: readonly Float32Array[], k: number, ef: number, allowed: readonly (Bitmap | undefined)[], threads: number): number[][] {
    if (this.liveNodes === 0) return qs.map(() => []);
    this.settle();
    const hidden = this.saving?.deferredDeletes.length ?? 0;
    const n = Math.min(k + hidden, this.capacity);
    const dim = qs[0]?.length ?? 0;
    const packed = new Float32Array(qs.length * dim);
    qs.forEach((q, i) => packed.set(q, i * dim));
    const bits = Uint32Array.from(allowed, (a) => a?.size ?? 0);
    const words = allowed.map((a) => a?.words ?? null);
    const found = native(() => this.index.searchMany(packed, qs.length, n, Math.max(ef, n), words, bits, threads));
    return found.map((labels) => this.liveOf(labels, hidden, k));
  }

  /** A walk's labels without those invalidated during a background write (`hidden` of them), at most k. */
  private liveOf(found: Uint32Array, hidden: number, k: number): number[] {
    if (hidden === 0) return Array.from(found);
    const live: number[] = [];
    for (const label of found) if (this.indexed[label] && live.length < k) live.push(label);
    return live;
  }

  /**
   * The node array as the exact scan reads it (native/graph-rows.h): valid only until the
   * graph next changes, so a caller passes it straight to one native call.
   */
  rows(): GraphRows {
    this.settle();
    return native(() => this.index.rows());
  }

  /** Copies the node vectors of `labels` (each has(label) or a node) into `out`, one after another. */
  vectorsInto(labels: Uint32Array, out: Float32Array): void {
    this.settle();
    native(() => this.index.vectors(labels, out));
  }

  /** Per label, whether a node holds exactly its vector in `vectors` (one after another): 1 or 0. */
  holding(labels: Uint32Array, vectors: Float32Array): Uint8Array {
    this.settle();
    return native(() => this.index.holding(labels, vectors));
  }

  /** Writes the graph to `file` (hnswlib's format). */
  writeSync(file: string): void {
    this.settle();
    this.endSave();
    native(() => this.index.save(file));
  }

  /**
   * Writes the graph to `file` (hnswlib's format) on a native pool thread; this thread
   * goes on meanwhile (searches run, the graph does not change: see `saving`). Settles
   * when the file is written; the caller makes it durable.
   */
  async writeInBackground(file: string): Promise<void> {
    this.settle();
    this.endSave();
    const written = native(() => this.index.saveInBackground(file));
    const saving: { deferredDeletes: number[] } = { deferredDeletes: [] };
    this.saving = saving;
    try {
      await written;
    } catch (err) {
      throw new GraphError(`hnswlib: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      // Unless a later write (or close) already ended it.
      if (this.saving === saving) this.endSave();
    }
  }

  /** Whether a background write is in progress (the graph takes no inserts until it ends). */
  get writing(): boolean {
    return this.saving !== undefined;
  }

  /** Frees the graph's native memory now (the graph is unusable afterwards). */
  close(): void {
    this.loading = undefined;
    this.saving = undefined;
    native(() => this.index.close());
  }

  /**
   * Ends the state of a background write: marks the labels invalidated during it. The
   * native calls wait for the write itself to end, so this may block when called early
   * (by another write); called when it settled, it does not.
   */
  private endSave(): void {
    const saving = this.saving;
    if (!saving) return;
    this.saving = undefined;
    for (const label of saving.deferredDeletes) native(() => this.index.markDelete(label));
  }

  /** Ends a background load (load()): takes its capacity and applies the deferred deletes. */
  private settle(): void {
    const loading = this.loading;
    if (!loading) return;
    this.loading = undefined;
    native(() => this.index.wait());
    this.capacity = native(() => this.index.capacity());
    for (const label of loading.deferredDeletes) native(() => this.index.markDelete(label));
  }

  /** Room for `more` new nodes. */
  private ensureCapacity(more: number): void {
    const nodes = native(() => this.index.count());
    if (nodes + more <= this.capacity) return;
    // Grow ahead of need by half (like the vector arena), so resizes stay rare (each
    // copies the whole graph) while at most a third of the capacity is unused (doubling:
    // half), and most of a node is its copy of the vector.
    this.capacity = Math.max(nodes + more, Math.ceil(this.capacity * 1.5));
    native(() => this.index.resize(this.capacity));
  }

  private grow(n: number): void {
    if (n <= this.queued.length) return;
    const size = Math.max(n, this.queued.length * 2, 64);
    for (const key of ['indexed', 'inGraph', 'queued'] as const) {
      const next = new Uint8Array(size);
      next.set(this[key]);
      this[key] = next;
    }
  }
}

/** Runs a native call; any error it throws becomes a GraphError. */
function native<T>(call: () => T): T {
  try {
    return call();
  } catch (err) {
    throw new GraphError(`hnswlib: ${err instanceof Error ? err.message : String(err)}`);
  }
}
