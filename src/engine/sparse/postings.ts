// The inverted index of one namespace: for each sparse dimension, the labels holding it
// with their weights, in growable typed arrays.
//
// Invariants
// - Entries are only appended. Each carries the generation its label had when it was
//   written; an entry is live iff that generation is still the label's current one
//   (SparseIndex bumps a label's generation on every change of its sparse values and on
//   delete, so a reused label never revives an old entry). Stale entries are skipped by
//   readers and dropped by compact(), which the background slice runs for lists whose
//   stale share passed COMPACT_STALE_FRACTION.
// - `max` is at least, and `min` at most, every weight in the list, stale ones included
//   (bounds for pruning: a query weight w contributes at most w·max when w ≥ 0 and w·min
//   when w < 0; compact() tightens them).
// - The first `sorted` entries have strictly ascending labels (the native head-column
//   search walks them block by block, native/sparse-search.cc HeadSearch); entries from
//   `sorted` on are in any order. Appends in label order (an ingest) keep the whole list
//   sorted; the first out-of-order append (an update, a reused label) ends the prefix,
//   and compact() sorts the list again, which add() asks for once the unsorted part
//   reaches UNSORTED_FRACTION of the list.
// Writes reach the lists in batches (addMany(), from SparseIndex's queue): grouped by
// dimension, so each list is looked up, grown and appended to once per batch instead of
// once per entry, which is what an append cost (a map lookup and a cache miss on the
// list's tail, ~330 ns an entry at 100k records of the bench's data).
// Appends grow a list's buffer by doubling, so after an ingest the buffers are about 70 %
// full (100k records of the bench's sparse data: 0.69, ~630 B of slack per record). A trim
// pass (startTrim, trimStep), which the engine worker runs once its writes have stopped
// (worker/quiet-release.ts), shrinks each list to fit; a list appended to later grows again.
import { grown } from '../typed-arrays.js';
import { setCode, type HeadColumn } from './head-columns.js';

const INITIAL_LIST = 8;
/** A trim reallocates a list only when more than this share of its buffer is unused. */
const TRIM_SLACK_FRACTION = 0.125;
/** A list is due for compaction once this share of its entries is stale. */
const COMPACT_STALE_FRACTION = 0.25;
/** ...and it has at least this many stale entries (short lists are cheap to skip over). */
const COMPACT_MIN_STALE = 8;
/** A list is due for compaction (which sorts it) once this share of its entries lies past its sorted prefix... */
const UNSORTED_FRACTION = 0.125;
/** ...and at least this many do. */
const UNSORTED_MIN = 64;

/**
 * One dimension's entries, interleaved in one buffer as [label, gen, weight] triples:
 * one allocation per growth (three separate arrays cost three, and growth dominated
 * ingest), and a search reads the three fields of an entry from one cache line.
 */
export class PostingList {
  /** Entry i: entries[3i] label, entries[3i+1] generation; weights[3i+2] its weight. */
  entries: Uint32Array;
  /** A float32 view of the same buffer. */
  weights: Float32Array;
  length = 0;
  stale = 0;
  /** Entries [0, sorted) have strictly ascending labels (see the header). */
  sorted = 0;
  /** The dimension's head column, when it has one (head-columns.ts). */
  head: HeadColumn | undefined = undefined;
  max = -Infinity;
  min = Infinity;

  /** `capacity`: entries to make room for (a bulk build knows the exact count). */
  constructor(capacity = INITIAL_LIST) {
    this.entries = new Uint32Array(Math.max(1, capacity) * 3);
    this.weights = new Float32Array(this.entries.buffer);
  }

  add(label: number, gen: number, weight: number): void {
    let at = this.length * 3;
    if (at === this.entries.length) this.grow();
    if (this.sorted === this.length && (this.length === 0 || this.entries[at - 3] < label)) this.sorted++;
    this.entries[at++] = label;
    this.entries[at++] = gen;
    this.weights[at] = weight;
    this.length++;
    if (weight > this.max) this.max = weight;
    if (weight < this.min) this.min = weight;
  }

  /**
   * add() of entries order[from, to) of `batch`, in that order, with the same rules (the
   * sorted prefix, the bounds), growing the buffer once: a flush appends thousands of
   * short runs (Postings.addMany), and a call of add() per entry cost a third of it.
   */
  addRun(batch: PostingBatch, order: Uint32Array, from: number, to: number): void {
    const need = (this.length + to - from) * 3;
    if (need > this.entries.length) {
      this.entries = grown(this.entries, Math.max(need, this.entries.length * 2));
      this.weights = new Float32Array(this.entries.buffer);
    }
    const { labels, gens, weights } = batch;
    const e = this.entries;
    const w = this.weights;
    let at = this.length * 3;
    let inOrder = this.sorted === this.length;
    let last = at > 0 ? e[at - 3] : -1;
    let { sorted, max, min } = this;
    for (let i = from; i < to; i++) {
      const k = order[i];
      const label = labels[k];
      const weight = weights[k];
      if (inOrder && label > last) sorted++;
      else inOrder = false;
      last = label;
      e[at] = label;
      e[at + 1] = gens[k];
      w[at + 2] = weight;
      at += 3;
      if (weight > max) max = weight;
      if (weight < min) min = weight;
    }
    this.length = at / 3;
    this.sorted = sorted;
    this.max = max;
    this.min = min;
  }

  label(i: number): number {
    return this.entries[i * 3];
  }

  gen(i: number): number {
    return this.entries[i * 3 + 1];
  }

  weight(i: number): number {
    return this.weights[i * 3 + 2];
  }

  get bytes(): number {
    return this.entries.byteLength;
  }

  /** Whether enough entries lie past the sorted prefix for compact() to sort the list. */
  get unsortedDue(): boolean {
    const unsorted = this.length - this.sorted;
    return unsorted >= UNSORTED_MIN && unsorted >= this.length * UNSORTED_FRACTION;
  }

  /** Shrinks the buffer to the entries held when over TRIM_SLACK_FRACTION of it is unused. */
  trim(): void {
    const used = Math.max(1, this.length) * 3;
    if (this.entries.length - used <= this.entries.length * TRIM_SLACK_FRACTION) return;
    this.entries = this.entries.slice(0, used);
    this.weights = new Float32Array(this.entries.buffer);
  }

  private grow(): void {
    this.entries = grown(this.entries, this.entries.length * 2);
    this.weights = new Float32Array(this.entries.buffer);
  }
}

/** The sparse values of every label, as SparseStore.layout() exposes them (read-only). */
export interface SparseLayout {
  indices: Uint32Array;
  weights: Float32Array;
  /** Per label: where its pairs start in the pools, and how many (0: none). */
  start: Uint32Array;
  len: Uint32Array;
  /** Labels [0, extent) are covered by start and len. */
  extent: number;
}

export class Postings {
  private readonly lists = new Map<number, PostingList>();
  /** Dimensions whose list is due for compaction. */
  private readonly due = new Set<number>();
  /** The lists the current trim pass has yet to visit (a live view: lists added meanwhile are visited too). */
  private trimming: Iterator<PostingList> | undefined;

  get(dim: number): PostingList | undefined {
    return this.lists.get(dim);
  }

  get dimensions(): number {
    return this.lists.size;
  }

  /** Appends an entry to `dim`'s list (made if absent) and returns the list. */
  add(dim: number, label: number, gen: number, weight: number): PostingList {
    let list = this.lists.get(dim);
    if (!list) {
      list = new PostingList();
      this.lists.set(dim, list);
    }
    list.add(label, gen, weight);
    if (list.sorted < list.length && list.unsortedDue) this.due.add(dim);
    return list;
  }

  /**
   * Appends entries [0, count) of `batch` (entry i: dimension dims[i], label labels[i],
   * generation gens[i], weight weights[i]), each list's in batch order, as add() one by
   * one would; and records each weight in its list's head column, if it has one.
   */
  addMany(batch: PostingBatch, count: number): void {
    const { dims, labels, gens, weights } = batch;
    const order = byDimension(dims, count);
    for (let run = 0; run < count; ) {
      const dim = dims[order[run]];
      let end = run + 1;
      while (end < count && dims[order[end]] === dim) end++;
      let list = this.lists.get(dim);
      if (!list) {
        list = new PostingList(end - run);
        this.lists.set(dim, list);
      }
      list.addRun(batch, order, run, end);
      if (list.head) for (let i = run; i < end; i++) setCode(list, labels[order[i]], weights[order[i]]);
      if (list.sorted < list.length && list.unsortedDue) this.due.add(dim);
      run = end;
    }
  }

  /**
   * Builds every list at once from the sparse values of labels [0, extent) (the
   * SparseStore's pools, see sparse-store.ts), all at generation `gen[label]`: one pass
   * counts each dimension's entries, a second fills lists allocated at their exact size,
   * in label order. Appending the same entries one record at a time costs a map lookup
   * and amortised list growth per entry — most of a large index's load. Only for an
   * empty index (a load); the result equals what add() in ascending label order gives
   * (readers depend on the order of a list's entries only through `sorted`).
   */
  build(values: SparseLayout, gen: Uint32Array): void {
    if (this.lists.size > 0) throw new Error('engine: postings can only be bulk-built when empty');
    const { indices, start, len, extent } = values;
    let maxDim = -1;
    let pairs = 0;
    for (let label = 0; label < extent; label++) {
      const n = len[label];
      if (n === 0) continue;
      pairs += n;
      // Indices are sorted per label: the last one is the label's largest.
      const last = indices[start[label] + n - 1];
      if (last > maxDim) maxDim = last;
    }
    if (pairs === 0) return;
    // Dimensions are arbitrary uint32s: count in arrays indexed by dimension when the range
    // is small next to the data (learned sparse vocabularies: ~30k), else in a map.
    if (maxDim < Math.max(1 << 20, 2 * pairs)) this.buildByArray(values, gen, maxDim + 1);
    else this.buildByMap(values, gen);
  }

  private buildByArray(values: SparseLayout, gen: Uint32Array, dims: number): void {
    const { indices, weights, start, len, extent } = values;
    const counts = new Uint32Array(dims);
    for (let label = 0; label < extent; label++) {
      for (let i = start[label], end = i + len[label]; i < end; i++) counts[indices[i]]++;
    }
    // The fill scatters entries over every list, so its loop touches only flat arrays:
    // each list's buffers and a write position per dimension (no list objects).
    const entriesOf = new Array<Uint32Array>(dims);
    const weightsOf = new Array<Float32Array>(dims);
    const built: PostingList[] = [];
    for (let dim = 0; dim < dims; dim++) {
      if (counts[dim] === 0) continue;
      const list = new PostingList(counts[dim]);
      list.length = counts[dim];
      entriesOf[dim] = list.entries;
      weightsOf[dim] = list.weights;
      this.lists.set(dim, list);
      built.push(list);
    }
    const at = new Uint32Array(dims);
    for (let label = 0; label < extent; label++) {
      const g = gen[label];
      for (let i = start[label], end = i + len[label]; i < end; i++) {
        const dim = indices[i];
        const p = at[dim];
        const e = entriesOf[dim];
        e[p] = label;
        e[p + 1] = g;
        weightsOf[dim][p + 2] = weights[i];
        at[dim] = p + 3;
      }
    }
    for (const list of built) {
      list.sorted = list.length; // filled in ascending label order, one entry per label
      const w = list.weights;
      for (let i = 2; i < list.length * 3; i += 3) {
        if (w[i] > list.max) list.max = w[i];
        if (w[i] < list.min) list.min = w[i];
      }
    }
  }

  private buildByMap(values: SparseLayout, gen: Uint32Array): void {
    const { indices, weights, start, len, extent } = values;
    const counts = new Map<number, number>();
    for (let label = 0; label < extent; label++) {
      for (let i = start[label], end = i + len[label]; i < end; i++) counts.set(indices[i], (counts.get(indices[i]) ?? 0) + 1);
    }
    for (const [dim, count] of counts) this.lists.set(dim, new PostingList(count));
    // Each list was made exactly large enough: add() never grows one here.
    for (let label = 0; label < extent; label++) {
      for (let i = start[label], end = i + len[label]; i < end; i++) this.add(indices[i], label, gen[label], weights[i]);
    }
  }

  /** Records that one entry of `dim`'s list went stale; returns the list unless that left it empty (then dropped). */
  markStale(dim: number): PostingList | undefined {
    const list = this.lists.get(dim);
    if (!list) return undefined;
    list.stale++;
    if (list.stale >= COMPACT_MIN_STALE && list.stale >= list.length * COMPACT_STALE_FRACTION) this.due.add(dim);
    if (list.stale === list.length) {
      // Nothing live is left: drop the list now (cheap, and keeps the map small).
      this.lists.delete(dim);
      this.due.delete(dim);
      return undefined;
    }
    return list;
  }

  get hasWork(): boolean {
    return this.due.size > 0;
  }

  /** Compacts due lists until `deadline` (performance.now() ms). */
  work(deadline: number, currentGen: Uint32Array): void {
    for (const dim of this.due) {
      if (performance.now() >= deadline) return;
      this.due.delete(dim);
      const list = this.lists.get(dim);
      if (list) this.compact(list, currentGen);
    }
  }

  /** Compacts every list (tests, and a caller that wants a tight index now). */
  compactAll(currentGen: Uint32Array): void {
    for (const list of this.lists.values()) this.compact(list, currentGen);
    this.due.clear();
  }

  /** Starts a pass that shrinks every list to fit (see the header); trimStep() runs it. */
  startTrim(): void {
    this.trimming = this.lists.values();
  }

  /** Continues the trim pass until `deadline` (performance.now() ms); true once it is over. */
  trimStep(deadline: number): boolean {
    const lists = this.trimming;
    if (!lists) return true;
    for (let n = 1; ; n++) {
      const next = lists.next();
      if (next.done) {
        this.trimming = undefined;
        return true;
      }
      next.value.trim();
      if (n % 64 === 0 && performance.now() >= deadline) return false;
    }
  }

  bytes(): number {
    let n = 0;
    for (const list of this.lists.values()) n += list.bytes + (list.head?.codes.byteLength ?? 0) + 64; // + object and map entry, roughly
    return n;
  }

  /** How many lists have a head column (the bench and tests). */
  headColumns(): number {
    let n = 0;
    for (const list of this.lists.values()) if (list.head) n++;
    return n;
  }

  /** Every (dimension, list) pair; readers skip stale entries themselves. */
  entries(): IterableIterator<[number, PostingList]> {
    return this.lists.entries();
  }

  /** Drops the list's stale entries and sorts the rest by label (see the header). */
  private compact(list: PostingList, currentGen: Uint32Array): void {
    const e = list.entries;
    const w = list.weights;
    const sortedBefore = list.sorted;
    let at = 0;
    let keptSorted = 0;
    let max = -Infinity;
    let min = Infinity;
    for (let i = 0; i < list.length * 3; i += 3) {
      const label = e[i];
      if (currentGen[label] !== e[i + 1]) continue;
      e[at] = label;
      e[at + 1] = e[i + 1];
      w[at + 2] = w[i + 2];
      if (w[i + 2] > max) max = w[i + 2];
      if (w[i + 2] < min) min = w[i + 2];
      at += 3;
      if (i < sortedBefore * 3) keptSorted++;
    }
    list.length = at / 3;
    list.stale = 0;
    list.max = max;
    list.min = min;
    list.sorted = keptSorted;
    if (keptSorted < list.length) sortByLabel(list);
  }
}

/**
 * Sorts a compacted list's entries by label (live entries: one per label). The prefix
 * [0, sorted) is in order already: only the rest is sorted, then the two are merged.
 */
function sortByLabel(list: PostingList): void {
  const n = list.length;
  const from = list.sorted;
  const e = list.entries;
  const rest = Array.from({ length: n - from }, (_, i) => from + i).sort((a, b) => e[a * 3] - e[b * 3]);
  const out = new Uint32Array(e.length);
  let i = 0;
  let j = 0;
  let at = 0;
  const copy = (k: number): void => {
    out[at] = e[k * 3];
    out[at + 1] = e[k * 3 + 1];
    out[at + 2] = e[k * 3 + 2];
    at += 3;
  };
  while (i < from || j < rest.length) {
    if (j >= rest.length || (i < from && e[i * 3] < e[rest[j] * 3])) copy(i++);
    else copy(rest[j++]);
  }
  list.entries = out;
  list.weights = new Float32Array(out.buffer);
  list.sorted = n;
}

/** Entries for Postings.addMany(), in parallel arrays. */
export interface PostingBatch {
  dims: Uint32Array;
  labels: Uint32Array;
  gens: Uint32Array;
  weights: Float32Array;
}

/** Bits of the key each pass of byDimension() sorts on. */
const RADIX_BITS = 11;
const radixBuckets = new Uint32Array(1 << RADIX_BITS);
/**
 * byDimension()'s two arrays of `count` entries, reused from flush to flush (the engine
 * thread runs one at a time; the order returned is read before the next): a flush's
 * ~1 MB of new arrays was a tenth of its time, in allocation and garbage collection.
 */
let sortScratch = new Uint32Array(0);

/**
 * The order of dims[0, count) by value, ties kept in index order: a least-significant-
 * digit radix sort, one pass per 11 bits up to the largest dimension's highest bit (two
 * passes for vocabularies under 4M terms). A comparison sort of the same ~20k entries (an
 * upsert's) took several times as long.
 */
function byDimension(dims: Uint32Array, count: number): Uint32Array {
  let max = 0;
  for (let i = 0; i < count; i++) if (dims[i] > max) max = dims[i];
  if (sortScratch.length < count * 2) sortScratch = new Uint32Array(count * 2);
  let order = sortScratch.subarray(0, count);
  for (let i = 0; i < count; i++) order[i] = i;
  let next = sortScratch.subarray(count, count * 2);
  const buckets = radixBuckets;
  const mask = (1 << RADIX_BITS) - 1;
  for (let shift = 0; shift < 32 && (shift === 0 || max >>> shift > 0); shift += RADIX_BITS) {
    buckets.fill(0);
    for (let i = 0; i < count; i++) buckets[(dims[i] >>> shift) & mask]++;
    for (let b = 0, at = 0; b < buckets.length; b++) {
      const n = buckets[b];
      buckets[b] = at;
      at += n;
    }
    for (let i = 0; i < count; i++) {
      const entry = order[i];
      next[buckets[(dims[entry] >>> shift) & mask]++] = entry;
    }
    [order, next] = [next, order];
  }
  return order;
}
