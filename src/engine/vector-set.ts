// The records of one namespace as the search engine holds them: dense values packed in
// one growable Float32Array (slot i at [i*dim, (i+1)*dim)), their norms, sparse values
// with sorted indices, metadata and the sequence number of each record's last change.
// Deleting swaps the last slot into the hole, so slots stay dense and a scan touches
// only live records. Exact search is a full scan with a bounded top-k.
import type { Metric } from './metric.js';
import type { Metadata, Predicate } from './filter.js';
import type { SparseValues, StoredRecord } from './record-codec.js';
import { TopK } from './top-k.js';

export interface SearchQuery {
  dense?: Float32Array;
  sparse?: SparseValues;
  topK: number;
  predicate?: Predicate;
}

export interface Hit {
  slot: number;
  id: string;
  score: number;
}

const INITIAL_CAPACITY = 64;

export class VectorSet {
  private ids: string[] = [];
  private readonly slotOf = new Map<string, number>();
  private seqs: number[] = [];
  private dense: Float32Array;
  private norms: Float64Array;
  private sparse: (SparseValues | undefined)[] = [];
  private metadata: (Metadata | undefined)[] = [];

  constructor(
    private readonly dim: number,
    private readonly metric: Metric,
  ) {
    this.dense = new Float32Array(INITIAL_CAPACITY * dim);
    this.norms = new Float64Array(INITIAL_CAPACITY);
  }

  get size(): number {
    return this.ids.length;
  }

  seqOf(id: string): number | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.seqs[slot];
  }

  upsert(seq: number, record: StoredRecord): void {
    let slot = this.slotOf.get(record.id);
    if (slot === undefined) {
      slot = this.ids.length;
      this.ensureCapacity(slot + 1);
      this.ids.push(record.id);
      this.slotOf.set(record.id, slot);
      this.seqs.push(seq);
      this.sparse.push(undefined);
      this.metadata.push(undefined);
    }
    this.seqs[slot] = seq;
    const base = slot * this.dim;
    if (record.values && this.dim > 0) {
      this.dense.set(record.values, base);
      let n = 0;
      for (let i = 0; i < this.dim; i++) n += record.values[i] * record.values[i];
      this.norms[slot] = Math.sqrt(n);
    } else if (this.dim > 0) {
      this.dense.fill(0, base, base + this.dim);
      this.norms[slot] = 0;
    }
    this.sparse[slot] = record.sparse && sortSparse(record.sparse);
    this.metadata[slot] = record.metadata;
  }

  remove(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const last = this.ids.length - 1;
    if (slot !== last) {
      const moved = this.ids[last];
      this.ids[slot] = moved;
      this.slotOf.set(moved, slot);
      this.seqs[slot] = this.seqs[last];
      this.dense.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      this.norms[slot] = this.norms[last];
      this.sparse[slot] = this.sparse[last];
      this.metadata[slot] = this.metadata[last];
    }
    this.slotOf.delete(id);
    this.ids.pop();
    this.seqs.pop();
    this.sparse.pop();
    this.metadata.pop();
  }

  /** Removes every record whose last change is older than `seq` (a namespace drop). */
  removeOlderThan(seq: number): void {
    for (let slot = this.ids.length - 1; slot >= 0; slot--) {
      if (slot < this.ids.length && this.seqs[slot] < seq) this.remove(this.ids[slot]);
    }
  }

  /** Number of records matching the predicate. */
  count(predicate: Predicate): number {
    let n = 0;
    for (let slot = 0; slot < this.ids.length; slot++) if (predicate(this.metadata[slot])) n++;
    return n;
  }

  record(slot: number): StoredRecord {
    const out: StoredRecord = { id: this.ids[slot] };
    if (this.dim > 0) out.values = this.dense.slice(slot * this.dim, (slot + 1) * this.dim);
    if (this.sparse[slot]) out.sparse = this.sparse[slot];
    if (this.metadata[slot]) out.metadata = this.metadata[slot];
    return out;
  }

  /** Exact search: scores every (matching) record and keeps the best topK. */
  search(q: SearchQuery): Hit[] {
    const top = new TopK(q.topK);
    const dim = this.dim;
    const dense = this.dense;
    const qd = q.dense;
    const qSparse = q.sparse && sparseLookup(q.sparse);
    let qNorm = 0;
    if (qd) for (let i = 0; i < dim; i++) qNorm += qd[i] * qd[i];
    qNorm = Math.sqrt(qNorm);
    const euclidean = this.metric === 'euclidean';
    const cosine = this.metric === 'cosine';
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (q.predicate && !q.predicate(this.metadata[slot])) continue;
      let score = 0;
      if (qd) {
        const base = slot * dim;
        if (euclidean) {
          for (let i = 0; i < dim; i++) {
            const d = qd[i] - dense[base + i];
            score += d * d;
          }
        } else {
          for (let i = 0; i < dim; i++) score += qd[i] * dense[base + i];
          if (cosine) score = score / (qNorm * this.norms[slot]);
        }
      }
      if (qSparse) {
        const s = this.sparse[slot];
        let overlap = false;
        if (s) {
          for (let i = 0; i < s.indices.length; i++) {
            const w = qSparse.get(s.indices[i]);
            if (w !== undefined) {
              score += w * s.values[i];
              overlap = true;
            }
          }
        }
        // A sparse-only query matches records that share at least one index with it.
        if (!overlap && !qd) continue;
      }
      // Rank on the float32 score that goes on the wire, so scores a client sees as
      // equal are ties, ordered by id (decision 7).
      const rank = Math.fround(euclidean ? -score : score);
      if (top.admits(rank)) top.offer(slot, this.ids[slot], rank);
    }
    return top.sorted().map((r) => ({ slot: r.slot, id: r.id, score: euclidean ? -r.rank : r.rank }));
  }

  private ensureCapacity(n: number): void {
    if (n <= this.norms.length) return;
    const cap = Math.max(n, this.norms.length * 2);
    const dense = new Float32Array(cap * this.dim);
    dense.set(this.dense);
    this.dense = dense;
    const norms = new Float64Array(cap);
    norms.set(this.norms);
    this.norms = norms;
  }
}

function sortSparse(s: SparseValues): SparseValues {
  let sorted = true;
  for (let i = 1; i < s.indices.length; i++) if (s.indices[i - 1] > s.indices[i]) sorted = false;
  if (sorted) return s;
  const order = Array.from(s.indices.keys()).sort((a, b) => s.indices[a] - s.indices[b]);
  return {
    indices: Uint32Array.from(order, (i) => s.indices[i]),
    values: Float32Array.from(order, (i) => s.values[i]),
  };
}

function sparseLookup(s: SparseValues): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i < s.indices.length; i++) m.set(s.indices[i], s.values[i]);
  return m;
}
