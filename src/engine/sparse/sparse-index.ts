// Sparse search structures of one namespace: the compact per-label values
// (sparse-store.ts) and the inverted index over them (postings.ts), kept in step by
// set()/remove(), which VectorSet calls under the engine's ordered change stream. The
// postings take writes in batches: set() queues the label and the next reader (or the
// background, or a full queue) appends every queued label's values at once (`queue`,
// flushQueue()); during a load they are built in one pass at its end (deferPostings()).
//
// Scoring rule (Pinecone's, and the exact scan's): a record's sparse score is
// Σ qᵢ·dᵢ over the dimensions it shares with the query; a sparse-only query returns only
// records sharing at least one. Every score here is summed in ascending dimension order
// in float64, as SparseStore.dot() and the exact scan do, so results (float32 scores and
// their ties, broken by id) are identical to an exact scan's.
//
// Two implementations of each search: native/sparse-search.cc (the hot loops in C++,
// used when the addon is loaded) and the JavaScript below (the fallback, CONIFER_NATIVE=0
// or a platform where the addon did not build). The native one returns labels only; every
// score printed comes from SparseStore.dot() here, so both paths give identical answers
// (tests run both against a brute-force scorer). One exception: the search through head
// columns (head-columns.ts) is native only; without the addon MaxScore answers the same
// queries, with the same answers.
import type { Bitmap } from '../metadata/bitmap.js';
import type { SparseValues } from '../model.js';
import { nativeAddon, type NativeAddon, type SparseHeadArgs, type SparseNativeArgs } from '../native-addon.js';
import { TopK } from '../vectors/top-k.js';
import { Postings, type PostingBatch, type PostingList } from './postings.js';
import { clearCode, COLUMN_MIN_RECORDS, headColumn } from './head-columns.js';
import { grown } from '../typed-arrays.js';
import { SparseStore } from './sparse-store.js';
import { scoreFloat32 } from '../float32.js';

/** A query's sparse vector, sorted by dimension, one weight per dimension. */
export interface PreparedSparse {
  dims: Uint32Array;
  weights: Float32Array;
  /** No weight is negative (the bench and tests split their figures by it). */
  nonNegative: boolean;
}

export interface SparseHit {
  label: number;
  id: string;
  /** float32-rounded score. */
  rank: number;
}

/**
 * Slack, relative to the query's magnitude (Σ|qᵢ|·max|dᵢ|), for float64 sums in another
 * order: their difference is below 1e-14 of it for any realistic term count.
 */
const SUM_SLACK = 1e-9;
/** Margin relative to θ, above half a float32 ulp (6e-8). */
const REL_MARGIN = 3e-7;
/**
 * pruned() re-estimates θ (exact scores of the best partial sums) each time the records
 * touched have grown this many times over. When each estimate read every touched
 * record's sum, 2 made them half of step 1 at 100k records of the bench's data and 4
 * cost ~15 % less; now that an estimate reads only the records listed since the last
 * (estimateTheta()), 2 and 4 measure the same, and 4 scores fewer records exactly.
 */
const THETA_REFRESH_GROWTH = 4;

/**
 * The queue of writes for the postings is flushed once it holds this many pairs (~550
 * records of the bench's data), so a reader never waits for a long one (flushQueue()).
 */
const QUEUE_MAX_PAIRS = 1 << 16;

/** The empty arrays every field below starts as (never written: they hold nothing). */
const NO_U8 = new Uint8Array(0);
const NO_U32 = new Uint32Array(0);
const NO_F64 = new Float64Array(0);

export class SparseIndex {
  private readonly store = new SparseStore();
  private readonly postings = new Postings();
  // Every array starts empty (one shared empty array: nothing per namespace) and grows
  // with the labels holding sparse values: most namespaces hold dense vectors only (see
  // SparseStore's sizes).
  /** Current generation per label; postings entries with another one are stale. */
  private gen = NO_U32;
  /** Labels holding sparse values. */
  private records = 0;
  /** One above the highest label ever given values: the labels a head search walks. */
  private labelEnd = 0;
  /**
   * Writes wait here for the postings: set() stores a label's values and queues the label;
   * flushQueue() appends every queued label's values at once, grouped by dimension
   * (Postings.addMany: one lookup and one growth per list and batch, instead of per
   * pair). Invariant: queued[label] === 1 exactly when the label's current values are in
   * the store but not in the postings (nor in any head column); then it is listed in
   * queue[0, queueLength), maybe more than once (set, removed, set again), and only its
   * current values are flushed, once. Every reader of the postings calls postingsReady()
   * first, which flushes, so the queue never changes an answer.
   */
  private queue = NO_U32;
  private queueLength = 0;
  private queued = NO_U8;
  /** Pairs of the labels queued: at least the pairs a flush appends. */
  private queuedPairs = 0;
  // Per-query scratch, reused (the engine thread runs one query at a time).
  private acc = NO_F64;
  private touchedAt = NO_U32;
  private offeredAt = NO_U32;
  /** Labels touched this query, in first-touch order (each once, so label extent bounds it). */
  private touched = NO_U32;
  private survivors = NO_U32;
  /**
   * Labels whose sum rose above pruned()'s bar since its last θ estimate (estimateTheta()),
   * each once: listedAt[label] === listStamp while it is listed.
   */
  private listed = NO_U32;
  private listedAt = NO_U32;
  private listedCount = 0;
  private listStamp = 0;
  private heapLabels = NO_U32;
  private heapValues = NO_F64;
  private epoch = 0;
  /**
   * While true (a load, see deferPostings()), writes keep only the values in the store
   * and the postings are empty; postingsReady() builds them in one pass. Every reader of
   * the postings calls postingsReady() first, so deferral never changes an answer.
   */
  private deferred = false;

  /**
   * Defers building the postings until postingsReady() (or any search): a load brings
   * every record at once, and bulk-building is several times cheaper than appending
   * record by record (postings.ts build()). Only while the index holds no sparse values.
   */
  deferPostings(): void {
    if (this.records > 0) return;
    this.deferred = true;
    // With no records, every label listed in the queue was removed since: nothing to flush.
    this.queueLength = 0;
    this.queuedPairs = 0;
  }

  /** Makes room for `pairs` more (index, value) pairs ahead of a load. */
  reserve(pairs: number): void {
    this.store.reserve(pairs);
  }

  /** Brings the postings up to date: builds deferred ones, appends queued writes. */
  postingsReady(): void {
    if (this.deferred) {
      this.deferred = false;
      this.postings.build(this.store.layout(), this.gen);
    } else if (this.queueLength > 0) {
      this.flushQueue();
    }
  }

  /**
   * `native`: the addon to search with; null runs the JavaScript path (tests compare both).
   * `columnMinRecords`: the fewest records for head columns (head-columns.ts; tests lower it).
   */
  constructor(
    private readonly native: NativeAddon | null = nativeAddon ?? null,
    private readonly columnMinRecords = COLUMN_MIN_RECORDS,
  ) {}

  /** Replaces the label's sparse values (undefined clears them). `v` must be sorted by index. */
  set(label: number, v: SparseValues | undefined): void {
    if (v && v.indices.length > 0 && this.store.equals(label, v)) return; // unchanged: keep its entries
    this.remove(label);
    if (!v || v.indices.length === 0) return;
    this.ensureLabels(label + 1);
    if (label >= this.labelEnd) this.labelEnd = label + 1;
    this.store.set(label, v);
    this.records++;
    if (this.deferred) return;
    if (this.queueLength === this.queue.length) this.queue = grown(this.queue, Math.max(64, this.queue.length * 2));
    this.queue[this.queueLength++] = label;
    this.queued[label] = 1;
    this.queuedPairs += v.indices.length;
    if (this.queuedPairs >= QUEUE_MAX_PAIRS) this.flushQueue();
  }

  remove(label: number): void {
    if (this.store.length(label) === 0) return;
    // Deferred, or values still queued: no entry exists yet, so none goes stale (deferred,
    // the generation need not move either).
    if (this.queued[label] === 1) {
      this.queued[label] = 0;
    } else if (!this.deferred) {
      this.store.forEach(label, (dim) => {
        const list = this.postings.markStale(dim);
        if (list?.head) clearCode(list, label);
      });
    }
    this.store.clear(label);
    this.records--;
    if (!this.deferred) this.gen[label]++;
  }

  get(label: number): SparseValues | undefined {
    return this.store.get(label);
  }

  /** The label's sparse score for a prepared query; NaN when they share no dimension. */
  dot(label: number, q: PreparedSparse): number {
    return this.store.dot(label, q.dims, q.weights);
  }

  /**
   * dot() of labels[0..count) into out[0..count), bit for bit the same, however computed:
   * for many labels (an exact hybrid scan), by accumulating the query's lists once in
   * ascending dimension order (plain()'s sums, which are dot()'s) when they hold fewer
   * entries than the labels' pairs; else label by label, natively when the addon is
   * loaded. At 19k records of 1–40 pairs each, the hybrid scan took 3.2 ms a query for
   * its sparse parts label by label (native), most of its time.
   */
  dots(q: PreparedSparse, labels: Uint32Array, count: number, out: Float64Array): void {
    if (count > 0 && this.postingsOf(q) < count * this.pairsPerRecord) {
      this.dotsByPostings(q, labels, count, out);
      return;
    }
    if (this.native && count > 0) {
      this.native.sparseDots(q.dims, q.weights, [this.gen, ...this.store.arrays()], labels, count, out);
      return;
    }
    for (let i = 0; i < count; i++) out[i] = this.store.dot(labels[i], q.dims, q.weights);
  }

  /** Entries in the query's lists (live or stale): what reading them all costs. */
  postingsOf(q: PreparedSparse): number {
    this.postingsReady();
    let n = 0;
    for (let t = 0; t < q.dims.length; t++) n += this.postings.get(q.dims[t])?.length ?? 0;
    return n;
  }

  /** dots() through the postings: every list gathered in dimension order, then each label's sum read (NaN: untouched). */
  private dotsByPostings(q: PreparedSparse, labels: Uint32Array, count: number, out: Float64Array): void {
    const epoch = this.nextEpoch();
    for (let t = 0, touched = 0; t < q.dims.length; t++) {
      const list = this.postings.get(q.dims[t]);
      if (list) touched = this.gather(list, q.weights[t], epoch, touched);
    }
    const { acc, touchedAt } = this;
    for (let i = 0; i < count; i++) {
      const label = labels[i];
      out[i] = label < touchedAt.length && touchedAt[label] === epoch ? acc[label] : NaN;
    }
  }

  get hasWork(): boolean {
    return this.deferred || this.queueLength > 0 || this.postings.hasWork;
  }

  /** Background compaction of postings until `deadline` (performance.now() ms). */
  work(deadline: number): void {
    this.postingsReady();
    this.postings.work(deadline, this.gen);
  }

  /** Starts shrinking the postings to fit (postings.ts); deferred postings are built exactly and need none. */
  startTrim(): void {
    if (this.deferred) return;
    this.postingsReady(); // the queued writes first: appended after a trim, they would grow the lists again
    this.postings.startTrim();
  }

  /** Continues the trim pass until `deadline` (performance.now() ms); true once it is over. */
  trimStep(deadline: number): boolean {
    return this.postings.trimStep(deadline);
  }

  /** Bytes held: values, postings and per-label tables. */
  get bytes(): number {
    return this.store.bytes + this.postings.bytes() + this.gen.byteLength + this.queue.byteLength + this.queued.byteLength;
  }

  /** Live postings as dimension → [label, weight] pairs sorted by label (tests compare indexes with it). */
  livePostings(): Map<number, [number, number][]> {
    this.postingsReady();
    const out = new Map<number, [number, number][]>();
    for (const [dim, list] of this.postings.entries()) {
      const live: [number, number][] = [];
      for (let i = 0; i < list.length; i++) {
        if (this.gen[list.label(i)] === list.gen(i)) live.push([list.label(i), list.weight(i)]);
      }
      if (live.length > 0) out.set(dim, live.sort((a, b) => a[0] - b[0]));
    }
    return out;
  }

  /** Each list's [min, max] weight bounds by dimension (tests compare indexes with it). */
  postingBounds(): Map<number, [number, number]> {
    this.postingsReady();
    const out = new Map<number, [number, number]>();
    for (const [dim, list] of this.postings.entries()) out.set(dim, [list.min, list.max]);
    return out;
  }

  /**
   * Exact top-k by sparse score over the labels in `allow` (all when absent) that share
   * a dimension with the query. `strategy` 'plain' accumulates every list (the bench's
   * and tests' reference); 'maxscore' prunes with MaxScore (see pruned()); the default,
   * 'auto', searches through head columns natively when there is no filter and some
   * term has one (headSearchArgs()), else as 'maxscore'.
   */
  search(q: PreparedSparse, topK: number, idOf: (label: number) => string, allow?: Bitmap, strategy: 'auto' | 'maxscore' | 'plain' = 'auto'): SparseHit[] {
    if (topK <= 0 || q.dims.length === 0) return [];
    this.postingsReady();
    if (this.native) {
      const { args, head } = !allow && strategy === 'auto' ? this.headSearchArgs(q) : { args: this.nativeArgs(q), head: undefined };
      const labels = head
        ? this.native.sparseSearchHead(...args, topK, ...head)
        : this.native.sparseSearch(...args, allow?.words ?? null, topK, strategy === 'plain' ? 0 : 1, this.pairsPerRecord);
      return this.ranked(labels, q, topK, idOf);
    }
    const top = new TopK(topK);
    const epoch = this.nextEpoch();
    const has = allow && ((label: number): boolean => allow.has(label));
    if (strategy === 'plain') this.plain(q, top, epoch, idOf, has);
    else this.pruned(q, top, epoch, idOf, has);
    return top.sorted().map((r) => ({ label: r.slot, id: r.id, rank: r.rank }));
  }

  /**
   * search() for each query, with the same answers; natively, the queries run side by side
   * on up to `threads` threads (sparseSearchMany, through head columns as search() would),
   * else one after another.
   */
  searchMany(qs: readonly { q: PreparedSparse; topK: number; allow?: Bitmap }[], idOf: (label: number) => string, threads: number): SparseHit[][] {
    const native = this.native;
    const searched = qs.filter(({ q, topK }) => topK > 0 && q.dims.length > 0);
    if (!native || searched.length < 2) return qs.map(({ q, topK, allow }) => this.search(q, topK, idOf, allow));
    this.postingsReady();
    const prepared = searched.map(({ q, allow }) => (allow ? { args: this.nativeArgs(q), head: undefined } : this.headSearchArgs(q)));
    const found = native.sparseSearchMany(
      prepared.map(({ args: [lists, meta, dims, weights], head }) => (head ? [lists, meta, dims, weights, ...head] : [lists, meta, dims, weights])),
      prepared[0].args[4],
      searched.map(({ allow }) => allow?.words ?? null),
      Uint32Array.from(searched, ({ topK }) => topK),
      1,
      this.pairsPerRecord,
      threads,
    );
    let next = 0;
    return qs.map(({ q, topK }) => (topK > 0 && q.dims.length > 0 ? this.ranked(found[next++], q, topK, idOf) : []));
  }

  /** The native search's labels rescored with SparseStore.dot() (every printed score comes from it), best first. */
  private ranked(labels: Uint32Array, q: PreparedSparse, topK: number, idOf: (label: number) => string): SparseHit[] {
    const top = new TopK(topK);
    for (const label of labels) {
      const rank = scoreFloat32(this.store.dot(label, q.dims, q.weights));
      if (top.admits(rank)) top.offer(label, idOf(label), rank);
    }
    return top.sorted().map((r) => ({ label: r.slot, id: r.id, rank: r.rank }));
  }

  /** How many dimensions have head columns (head-columns.ts; the bench and tests). */
  get headColumns(): number {
    this.postingsReady();
    return this.postings.headColumns();
  }

  /** Whether searches run natively (the bench prints it). */
  get isNative(): boolean {
    return this.native !== null;
  }

  /** Average pairs per record: what scoring one record exactly costs, beside the query's length. */
  get pairsPerRecord(): number {
    return this.records > 0 ? this.store.pairs / this.records : 0;
  }

  /** The query and this index as native/sparse-search.cc takes them. */
  private nativeArgs(q: PreparedSparse, found?: (PostingList | undefined)[]): SparseNativeArgs {
    const n = q.dims.length;
    const lists: (Uint32Array | null)[] = new Array<Uint32Array | null>(n);
    const meta = new Float64Array(4 * n);
    for (let t = 0; t < n; t++) {
      const list = this.postings.get(q.dims[t]);
      if (found) found[t] = list;
      if (!list) {
        lists[t] = null;
        continue;
      }
      lists[t] = list.entries;
      meta[4 * t] = list.length;
      meta[4 * t + 1] = list.stale > 0 ? 1 : 0;
      meta[4 * t + 2] = list.max;
      meta[4 * t + 3] = list.min;
    }
    return [lists, meta, q.dims, q.weights, [this.gen, ...this.store.arrays()]];
  }

  /**
   * The query as sparseSearchHead() takes it: nativeArgs() and, per query term, its head
   * column's codes or null, the column's step, and its list's sorted prefix; `head` is
   * undefined when no term with a weight ≥ 0 has a column (then MaxScore is the search).
   */
  private headSearchArgs(q: PreparedSparse): { args: SparseNativeArgs; head: SparseHeadArgs | undefined } {
    const n = q.dims.length;
    const found = new Array<PostingList | undefined>(n);
    const args = this.nativeArgs(q, found);
    const columns = new Array<Uint8Array | null>(n).fill(null);
    const steps = new Float64Array(n);
    const sorted = new Uint32Array(n);
    let any = false;
    for (let t = 0; t < n; t++) {
      const list = found[t];
      if (!list) continue;
      sorted[t] = list.sorted;
      if (q.weights[t] < 0) continue;
      const column = headColumn(list, this.records, this.columnMinRecords, this.labelEnd, this.gen);
      if (!column) continue;
      columns[t] = column.codes;
      steps[t] = column.step;
      any = true;
    }
    return { args, head: any ? [columns, steps, sorted, this.labelEnd] : undefined };
  }

  /**
   * Good, not exact, candidates for hybrid search: the `n` labels with the best partial
   * sums over the query's highest-bound lists, taken in bound order until they hold
   * `coverage` of the query's total bound (Σ of the terms' bounds, see pruned()). The
   * lists left out are the long ones of frequent dimensions with small weights: they
   * add little to any score and most of the cost. Best partial sum first (equal sums by
   * label): hybrid search scores the first ones before deciding whether it needs the rest.
   * The caller rescores exactly, so this only decides which records are looked at.
   */
  candidates(q: PreparedSparse, n: number, coverage: number): number[] {
    if (n <= 0 || q.dims.length === 0) return [];
    this.postingsReady();
    if (this.native) return Array.from(this.native.sparseCandidates(...this.nativeArgs(q), n, coverage));
    const epoch = this.nextEpoch();
    const terms: number[] = [];
    const ub = new Float64Array(q.dims.length);
    let total = 0;
    for (let t = 0; t < q.dims.length; t++) {
      const list = this.postings.get(q.dims[t]);
      if (!list) continue;
      const w = q.weights[t];
      ub[t] = Math.max(0, w >= 0 ? w * list.max : w * list.min);
      total += ub[t];
      terms.push(t);
    }
    terms.sort((a, b) => ub[b] - ub[a] || a - b);
    let count = 0;
    let covered = 0;
    for (const t of terms) {
      // At least one list, so a query whose bounds are all 0 still finds its records.
      if (count > 0 && (covered >= coverage * total || ub[t] === 0)) break;
      count = this.gather(this.postings.get(q.dims[t]) as PostingList, q.weights[t], epoch, count);
      covered += ub[t];
    }
    return this.bestPartials(count, n, epoch);
  }

  /** The (at most) n touched labels with the highest partial sums, best first (equal sums by label). */
  private bestPartials(count: number, n: number, epoch: number): number[] {
    let best: number[];
    if (count <= n) {
      best = Array.from(this.touched.subarray(0, count));
    } else {
      const size = this.heapSelect(this.touched, count, n, epoch, undefined);
      best = Array.from(this.heapLabels.subarray(0, size));
    }
    const acc = this.acc;
    return best.sort((a, b) => acc[b] - acc[a] || a - b);
  }

  /** Term-at-a-time over every query dimension in ascending order: the float64 sums equal dot()'s. */
  private plain(q: PreparedSparse, top: TopK, epoch: number, idOf: (label: number) => string, allow?: (label: number) => boolean): void {
    let count = 0;
    for (let t = 0; t < q.dims.length; t++) {
      const list = this.postings.get(q.dims[t]);
      if (list) count = this.gather(list, q.weights[t], epoch, count);
    }
    const acc = this.acc;
    const touched = this.touched;
    for (let i = 0; i < count; i++) {
      const label = touched[i];
      if (allow && !allow(label)) continue;
      const rank = scoreFloat32(acc[label]);
      if (top.admits(rank)) top.offer(label, idOf(label), rank);
    }
  }

  /**
   * Every label whose sparse score reaches `tau` (> 0), and none scoring below `tau`
   * minus a rounding margin (REL_MARGIN, slack): the threshold half of MaxScore (see
   * pruned()) with θ fixed at `tau`. Lists are accumulated in bound order until the
   * terms left cannot reach `tau` on their own; touched records whose partial sum + the
   * bound left reaches it survive, narrowed by scanning further cheap lists, then scored
   * exactly. Records sharing no dimension score 0 and are never returned, hence tau > 0.
   * Undefined when the lists to accumulate hold more than `maxPostings` entries (known
   * before reading any) or more than `maxRecords` survive the bounds (a low tau); the
   * narrowing stops before a list that would take the entries read past `maxPostings`,
   * so the survivors left decide.
   */
  reaching(q: PreparedSparse, tau: number, maxPostings = Infinity, maxRecords = Infinity): number[] | undefined {
    if (q.dims.length === 0 || !(tau > 0)) return [];
    this.postingsReady();
    if (this.native) {
      const found = this.native.sparseReaching(...this.nativeArgs(q), tau, maxPostings, maxRecords, this.pairsPerRecord);
      return found && Array.from(found);
    }
    const { order, restFrom, slack } = this.termBounds(q);
    const m = order.length;
    const floor = tau - REL_MARGIN * tau - slack;
    let needed = 0;
    for (let i = 0; i < m && restFrom[i] >= floor; i++) needed += (this.postings.get(q.dims[order[i]]) as PostingList).length;
    if (needed > maxPostings) return undefined;
    const epoch = this.nextEpoch();
    let count = 0;
    let i = 0;
    while (i < m && restFrom[i] >= floor) {
      count = this.gather(this.postings.get(q.dims[order[i]]) as PostingList, q.weights[order[i]], epoch, count);
      i++;
    }
    const acc = this.acc;
    const touched = this.touched;
    const survivors = this.survivors;
    let alive = 0;
    let need = floor - restFrom[i];
    for (let j = 0; j < count; j++) {
      const label = touched[j];
      if (acc[label] >= need) survivors[alive++] = label;
    }
    const dotCost = this.pairsPerRecord + q.dims.length;
    for (; i < m && alive > 0; i++) {
      const list = this.postings.get(q.dims[order[i]]) as PostingList;
      // maxPostings bounds every entry read, these too (then the survivors decide).
      if (list.length >= alive * dotCost || needed + list.length > maxPostings) break;
      needed += list.length;
      this.addTo(list, q.weights[order[i]], epoch);
      need = floor - restFrom[i + 1];
      let kept = 0;
      for (let j = 0; j < alive; j++) {
        const label = survivors[j];
        if (acc[label] >= need) survivors[kept++] = label;
      }
      alive = kept;
    }
    if (alive > maxRecords) return undefined;
    const out: number[] = [];
    for (let j = 0; j < alive; j++) {
      const label = survivors[j];
      if (acc[label] + restFrom[i] >= floor && this.store.dot(label, q.dims, q.weights) >= floor) out.push(label);
    }
    return out;
  }

  /**
   * The query's terms that have a list, by bound descending, or by bound per list entry
   * when `perEntry` (order[i] indexes q.dims; ties by query order), restFrom[i] the bound
   * of terms order[i..], and the slack for summation order. A term's bound is the most it
   * can add to a score: w·max of its list when w ≥ 0, w·min when w < 0, and never below 0.
   */
  private termBounds(q: PreparedSparse, perEntry = false): { order: number[]; restFrom: Float64Array; slack: number } {
    const n = q.dims.length;
    const ub = new Float64Array(n);
    const key = new Float64Array(n);
    const order: number[] = [];
    // The most Σ|qᵢ·dᵢ| can be for any record: scales the slack for summation order.
    let magnitude = 0;
    for (let t = 0; t < n; t++) {
      const list = this.postings.get(q.dims[t]);
      if (!list) continue;
      const w = q.weights[t];
      ub[t] = Math.max(0, w >= 0 ? w * list.max : w * list.min);
      key[t] = perEntry ? ub[t] / Math.max(1, list.length) : ub[t];
      magnitude += Math.abs(w) * Math.max(Math.abs(list.max), Math.abs(list.min));
      order.push(t);
    }
    order.sort((a, b) => key[b] - key[a] || a - b);
    const m = order.length;
    // Summed from the end (no cancellation error).
    const restFrom = new Float64Array(m + 1);
    for (let i = m - 1; i >= 0; i--) restFrom[i] = restFrom[i + 1] + ub[order[i]];
    return { order, restFrom, slack: Math.max(SUM_SLACK * magnitude, 1e-30) };
  }

  /**
   * MaxScore, exact for any query weights. Each term's bound is the most it can add to a
   * score: w·max of its list when w ≥ 0, w·min when w < 0, and never below 0. Terms go by
   * bound per list entry, descending: any terms whose bounds sum below θ can be left out
   * of step 1, and leaving out those with the most entries per unit of bound reads the
   * fewest. On the bench's data, with the final θ known in advance, step 1 must read a
   * median 27k postings in this order against 42k by bound descending (MaxScore as
   * usually described; bench/sparse-bounds.js).
   * 1. Essential terms: lists are accumulated (partial sums in `acc`, new records joining
   *    `touched`) until the bound of the terms left (`rest`) is below θ, the k-th best
   *    exact score so far. A record none of them holds scores at most `rest`, so it cannot
   *    enter: the candidates are now fixed. θ comes from scoring exactly (dot()) the
   *    records with the best partial sums, refreshed each time `touched` has grown
   *    THETA_REFRESH_GROWTH-fold.
   * 2. Candidates whose partial sum + rest cannot reach θ are dropped. While scanning the
   *    next list (only adding to touched records) costs less than scoring the survivors
   *    one by one, it is scanned and the survivors filtered again with the smaller rest.
   * 3. The survivors left are scored exactly by dot(), each only while its bound still
   *    reaches θ (which rises as they enter).
   * Every offered rank comes from dot(), so scores and ties equal the exact scan's; the
   * bounds only decide which records are never scored, and each such record provably
   * scores below θ (with slack for summation order, see cutoff()).
   * Negative query weights just get a bound of 0 (or w·min when a list holds negative
   * values), so they are the last terms and usually never scanned.
   */
  private pruned(q: PreparedSparse, top: TopK, epoch: number, idOf: (label: number) => string, allow?: (label: number) => boolean): void {
    const { order, restFrom, slack } = this.termBounds(q, true);
    const m = order.length;
    const n = q.dims.length;
    const listOf = (i: number): PostingList => this.postings.get(q.dims[order[i]]) as PostingList;

    // 1. Essential terms. `bar`: estimateTheta()'s, Infinity (nothing listed) until an
    // estimate has found k sums.
    this.clearListed();
    let bar = Infinity;
    let count = 0;
    let nextTheta = top.k;
    let i = 0;
    while (i < m && restFrom[i] >= cutoff(top, slack)) {
      count = this.gather(listOf(i), q.weights[order[i]], epoch, count, bar);
      i++;
      if (count >= nextTheta) {
        bar = this.estimateTheta(count, bar, top, q, epoch, idOf, allow);
        nextTheta = count * THETA_REFRESH_GROWTH;
      }
    }
    this.offerBest(this.touched, count, top, q, epoch, idOf, allow);

    // 2. Survivors, narrowed by scanning cheap lists.
    const acc = this.acc;
    const offered = this.offeredAt;
    const touched = this.touched;
    const survivors = this.survivors;
    let alive = 0;
    let need = cutoff(top, slack) - restFrom[i]; // a partial sum below this cannot enter
    for (let j = 0; j < count; j++) {
      const label = touched[j];
      if (offered[label] === epoch || acc[label] < need) continue;
      if (allow && !allow(label)) continue;
      survivors[alive++] = label;
    }
    const dotCost = this.pairsPerRecord + n;
    while (i < m && alive > 0 && listOf(i).length < alive * dotCost) {
      this.addTo(listOf(i), q.weights[order[i]], epoch);
      i++;
      need = cutoff(top, slack) - restFrom[i];
      let kept = 0;
      for (let j = 0; j < alive; j++) {
        const label = survivors[j];
        if (acc[label] >= need) survivors[kept++] = label;
      }
      alive = kept;
    }

    // 3. Exact scores for the rest.
    const rest = restFrom[i];
    for (let j = 0; j < alive; j++) {
      const label = survivors[j];
      if (acc[label] + rest < cutoff(top, slack)) continue;
      const rank = scoreFloat32(this.store.dot(label, q.dims, q.weights));
      if (top.admits(rank)) top.offer(label, idOf(label), rank);
    }
  }

  /**
   * Raises θ while pruned() gathers: offerBest() over every touched record at first, and
   * once an estimate has found k, over only the records listed since (gather() lists a
   * record when its sum crosses the bar upwards), which hold all it could pick. The sums
   * are read at random, and reading every touched one at each estimate took about a third
   * of step 1 (native: 146 of 407 µs per query at 100k records of the bench's data).
   *
   * Invariant (while bar is finite): every touched record that `allow` takes, not offered
   * and whose sum exceeds bar is listed. It holds when an estimate sets bar to the least
   * of the k sums it picked (all now offered), and gather() keeps it. Each estimate picks
   * every listed record that qualifies or k better ones, so afterwards none qualifying is
   * left above bar and the list starts empty again; bar only rises, keeping the invariant.
   * Returns the bar for the gathers that follow.
   */
  private estimateTheta(count: number, bar: number, top: TopK, q: PreparedSparse, epoch: number, idOf: (label: number) => string, allow?: (label: number) => boolean): number {
    const tracking = bar !== Infinity;
    const size = tracking ? this.heapSelect(this.listed, this.listedCount, top.k, epoch, allow) : this.heapSelect(this.touched, count, top.k, epoch, allow);
    const next = size === top.k && (!tracking || this.heapValues[0] > bar) ? this.heapValues[0] : bar;
    this.clearListed();
    this.offerHeap(size, top, q, epoch, idOf);
    return next;
  }

  /** Empties the list of estimateTheta(). */
  private clearListed(): void {
    this.listedCount = 0;
    if (this.listStamp === 0xffffffff) {
      this.listedAt.fill(0);
      this.listStamp = 0;
    }
    this.listStamp++;
  }

  /**
   * Scores exactly (dot()) the k of labels[0..count) with the best partial sums that were
   * not scored yet, and offers them: this raises θ.
   */
  private offerBest(labels: Uint32Array, count: number, top: TopK, q: PreparedSparse, epoch: number, idOf: (label: number) => string, allow?: (label: number) => boolean): void {
    this.offerHeap(this.heapSelect(labels, count, top.k, epoch, allow), top, q, epoch, idOf);
  }

  /** Scores exactly and offers the `size` labels heapSelect() left in the heap. */
  private offerHeap(size: number, top: TopK, q: PreparedSparse, epoch: number, idOf: (label: number) => string): void {
    const hl = this.heapLabels;
    const offered = this.offeredAt;
    for (let j = 0; j < size; j++) {
      const label = hl[j];
      offered[label] = epoch;
      const rank = scoreFloat32(this.store.dot(label, q.dims, q.weights));
      if (top.admits(rank)) top.offer(label, idOf(label), rank);
    }
  }

  /**
   * Selects into heapLabels[0..size) the (at most) k of labels[0..count) (touched labels)
   * with the highest partial sums, skipping those offered this query and those `allow`
   * rejects: a typed min-heap of the best k. Returns size.
   */
  private heapSelect(labels: Uint32Array, count: number, k: number, epoch: number, allow: ((label: number) => boolean) | undefined): number {
    const acc = this.acc;
    const offered = this.offeredAt;
    if (this.heapLabels.length < k) {
      this.heapLabels = new Uint32Array(k);
      this.heapValues = new Float64Array(k);
    }
    const hl = this.heapLabels;
    const hv = this.heapValues;
    let size = 0;
    for (let j = 0; j < count; j++) {
      const label = labels[j];
      const v = acc[label];
      if (size === k && v <= hv[0]) continue;
      if (offered[label] === epoch || (allow && !allow(label))) continue;
      if (size < k) {
        // Sift up.
        let c = size++;
        while (c > 0) {
          const p = (c - 1) >> 1;
          if (hv[p] <= v) break;
          hv[c] = hv[p];
          hl[c] = hl[p];
          c = p;
        }
        hv[c] = v;
        hl[c] = label;
      } else {
        // Replace the root and sift down.
        let c = 0;
        for (;;) {
          const l = 2 * c + 1;
          if (l >= size) break;
          const r = l + 1;
          const s = r < size && hv[r] < hv[l] ? r : l;
          if (hv[s] >= v) break;
          hv[c] = hv[s];
          hl[c] = hl[s];
          c = s;
        }
        hv[c] = v;
        hl[c] = label;
      }
    }
    return size;
  }

  /**
   * Adds weight × entry weight of the list's live entries into the accumulator; labels
   * touched for the first time this query are appended to `touched` from `count` on, and
   * labels whose sum crosses `bar` upwards to `listed` (pruned()'s estimateTheta(); the
   * default, Infinity, lists none). Returns the new count.
   */
  private gather(list: PostingList, weight: number, epoch: number, count: number, bar = Infinity): number {
    const { entries, weights } = list;
    const end = list.length * 3;
    const gen = this.gen;
    const acc = this.acc;
    const touchedAt = this.touchedAt;
    const touched = this.touched;
    // A list without stale entries (the common case) needs no generation check.
    const checkGen = list.stale > 0;
    for (let i = 0; i < end; i += 3) {
      const label = entries[i];
      if (checkGen && gen[label] !== entries[i + 1]) continue;
      if (touchedAt[label] !== epoch) {
        touchedAt[label] = epoch;
        acc[label] = 0;
        touched[count++] = label;
      }
      const before = acc[label];
      const after = before + weight * weights[i + 2];
      acc[label] = after;
      // Once listed, a sum that falls back under bar (negative terms) and crosses it again stays listed once.
      if (after > bar && before <= bar && this.listedAt[label] !== this.listStamp) {
        this.listedAt[label] = this.listStamp;
        this.listed[this.listedCount++] = label;
      }
    }
    return count;
  }

  /** Like gather(), but only into records already touched this query. */
  private addTo(list: PostingList, weight: number, epoch: number): void {
    const { entries, weights } = list;
    const end = list.length * 3;
    const gen = this.gen;
    const acc = this.acc;
    const touchedAt = this.touchedAt;
    const checkGen = list.stale > 0;
    for (let i = 0; i < end; i += 3) {
      const label = entries[i];
      if (touchedAt[label] !== epoch || (checkGen && gen[label] !== entries[i + 1])) continue;
      acc[label] += weight * weights[i + 2];
    }
  }

  private nextEpoch(): number {
    const extent = this.gen.length;
    if (this.acc.length < extent) {
      this.acc = new Float64Array(extent);
      this.touchedAt = new Uint32Array(extent);
      this.offeredAt = new Uint32Array(extent);
      this.touched = new Uint32Array(extent);
      this.survivors = new Uint32Array(extent);
      this.listed = new Uint32Array(extent);
      this.listedAt = new Uint32Array(extent);
      this.listStamp = 0;
      this.epoch = 0;
    }
    if (this.epoch === 0xffffffff) {
      this.touchedAt.fill(0);
      this.offeredAt.fill(0);
      this.epoch = 0;
    }
    return ++this.epoch;
  }

  private ensureLabels(n: number): void {
    if (n <= this.gen.length) return;
    let cap = Math.max(this.gen.length, 64);
    while (cap < n) cap *= 2;
    this.gen = grown(this.gen, cap);
    this.queued = grown(this.queued, cap);
  }

  /** Appends every queued label's current values to the postings (see `queue`). */
  private flushQueue(): void {
    const { indices, weights, start, len } = this.store.layout();
    const batch = batchOf(this.queuedPairs);
    let count = 0;
    for (let q = 0; q < this.queueLength; q++) {
      const label = this.queue[q];
      if (this.queued[label] !== 1) continue; // removed since, or listed again and taken already
      this.queued[label] = 0;
      const g = this.gen[label];
      for (let i = start[label], end = i + len[label]; i < end; i++) {
        batch.dims[count] = indices[i];
        batch.labels[count] = label;
        batch.gens[count] = g;
        batch.weights[count] = weights[i];
        count++;
      }
    }
    this.queueLength = 0;
    this.queuedPairs = 0;
    this.postings.addMany(batch, count);
  }
}

/**
 * The bound below which a record cannot enter `top` (-Infinity until it is full). A
 * record's bound b (partial sum in bound order + bound of the terms left) and its exact
 * score s (dot(), in dimension order) differ by float64 rounding, at most a few ulps of
 * the query's magnitude: `slack` covers that. Below θ by more than half a float32 ulp of
 * θ (REL_MARGIN covers it), s rounds to a float32 strictly below θ, so it cannot enter
 * even on a tie.
 */
function cutoff(top: TopK, slack: number): number {
  const theta = top.threshold;
  if (theta === undefined) return -Infinity;
  return theta - REL_MARGIN * Math.abs(theta) - slack;
}

/** Sorts a sparse vector by index and keeps the last weight of a repeated index. */
export function prepareSparse(s: SparseValues): PreparedSparse {
  // Clients send their indices ascending: then the arrays are the answer, copied (the
  // caller may reuse its own). The general path below cost ~40 µs a query (a Map and
  // typed arrays built from iterators), a twentieth of a whole sparse search.
  let ascending = true;
  for (let i = 1; i < s.indices.length && ascending; i++) ascending = s.indices[i - 1] < s.indices[i];
  if (ascending) {
    const weights = s.values.slice(0, s.indices.length);
    let nonNegative = true;
    for (let i = 0; i < weights.length; i++) if (weights[i] < 0) nonNegative = false;
    return { dims: s.indices.slice(), weights, nonNegative };
  }
  const byDim = new Map<number, number>();
  for (let i = 0; i < s.indices.length; i++) byDim.set(s.indices[i], s.values[i]);
  const dims = Uint32Array.from(byDim.keys()).sort();
  const weights = Float32Array.from(dims, (d) => byDim.get(d) ?? 0);
  let nonNegative = true;
  for (let i = 0; i < weights.length; i++) if (weights[i] < 0) nonNegative = false;
  return { dims, weights, nonNegative };
}

/**
 * flushQueue()'s batch, room for at least `pairs` entries: reused from flush to flush
 * (the engine thread runs one at a time, and Postings.addMany() keeps nothing of it).
 */
function batchOf(pairs: number): PostingBatch {
  if (flushBatch.dims.length < pairs) {
    const n = Math.max(pairs, flushBatch.dims.length * 2);
    flushBatch = { dims: new Uint32Array(n), labels: new Uint32Array(n), gens: new Uint32Array(n), weights: new Float32Array(n) };
  }
  return flushBatch;
}
let flushBatch: PostingBatch = { dims: NO_U32, labels: NO_U32, gens: NO_U32, weights: new Float32Array(0) };
