// The searchable records of one namespace, composed from parts with one job each:
// stable labels for ids (vectors/labels.ts), the vector arena (vectors/arena.ts), exact
// scoring and top-k (vectors/exact-scan.ts), and — once the namespace is large enough —
// an HNSW graph (graph/hnsw-graph.ts) with the records not yet in it searched exactly
// beside it (the tail). Per label it also keeps the record's seq; sparse values and
// their inverted index live in sparse/ (sparse-only search, and the sparse half of hybrid
// candidates); metadata lives in columns (metadata/metadata-columns.ts): filters
// evaluate there to a bitmap of matching labels, so the planner (planner/plan.ts) knows
// the exact match count before it chooses how to search. The worker holds no metadata
// objects: includeMetadata prints a hit's metadata as JSON text from the columns (or,
// where they do not hold all of it, the main thread reads it from the record store).
//
// Invariants
// - A write is visible to the next search: a new or changed vector is in the tail until
//   a background slice (work()) inserts it; a deleted or changed record's graph node is
//   marked deleted at once.
// - Below `graphMinRecords` there is no graph (an empty hnswlib index costs ~2.5 MiB);
//   the graph is dropped again below half of it.
// - When more than REBUILD_DELETED_FRACTION of a graph's nodes are deleted, a fresh graph
//   is built in the background from the live records and swapped in when complete;
//   until then the old graph keeps answering.
// - The columns hold exactly the live labels: a label's fields are replaced on upsert and
//   cleared on remove, so a filter never matches a deleted or outdated record.
// - A record waiting in the serving graph's tail has int8 codes in the arena (arena.ts),
//   which the tail scan reads; they are dropped when its insert slice takes it, when it is
//   removed and with the graph. A missing code only costs speed (the scan reads the
//   floats); a stale one cannot exist (storing a vector drops its label's codes).
// - One copy of each vector: a live label's vector is in the arena (HELD), or only in its
//   node of the SERVING graph (RELEASED), which then holds it as written (graph.has()).
//   A label is released when the serving graph takes its current vector (an insert slice,
//   or a restored snapshot once loaded), held again when its vector changes, and every
//   released vector is copied back into the arena before the graph that holds it goes
//   (dropped below the size for one, failed, or replaced by a rebuild that lacks it).
//   Only with the native addon: without it the scan reads the arena alone, and all stay held.
import type { FilterNode } from './filter.js';
import { GraphError, HnswGraph, type InsertSource } from './graph/hnsw-graph.js';
import type { NamespaceToWrite } from './snapshot/snapshot-files.js';
import { ascendingSparse, type Metric, type SparseValues, type StoredRecord } from './model.js';
import { Bitmap } from './metadata/bitmap.js';
import { METADATA_IN_STORE, MetadataColumns } from './metadata/metadata-columns.js';
import { choosePlan, filteredWalkEf, type Plan } from './planner/plan.js';
import { exactScanCost, HYBRID_EXACT_FALLBACK_COST, HYBRID_POSTINGS_COVERAGE, maxDenseCandidates, HYBRID_THRESHOLD_MAX_POSTINGS, HYBRID_THRESHOLD_MAX_RECORDS, hybridSearch } from './sparse/hybrid.js';
import { type PreparedSparse, prepareSparse, SparseIndex, type SparseHit } from './sparse/sparse-index.js';
import { RELEASED, VectorArena } from './vectors/arena.js';
import { bestOf, bestOfLabels, Scorer, type ScoredHit, type VectorSource } from './vectors/exact-scan.js';
import { nativeAddon } from './native-addon.js';
import { LabelMap } from './vectors/labels.js';

export interface SearchQuery {
  dense?: Float32Array;
  sparse?: SparseValues;
  topK: number;
  /** Parsed once on the main thread; evaluated here on the metadata columns. */
  filter?: FilterNode;
  /**
   * Pinecone's maxCandidates: raises the walk's ef (defaultEf, or filteredEf with a
   * filter) to at least this.
   */
  maxCandidates?: number;
  /** Sets the walk's ef outright (tests, bench); raised to topK. */
  ef?: number;
  /** Force an exact scan (tests, diagnosis). */
  exact?: boolean;
  /** Hybrid dense candidates (graph, tail) as a multiple of topK (bench measurement; default sparse/hybrid.ts). */
  hybridMultiple?: number;
  /** Hybrid postings candidates scored in the first stage, as a multiple of topK (bench measurement; default sparse/hybrid.ts). */
  hybridPostingsFirst?: number;
  /** Hybrid threshold step's limits (bench measurement; defaults sparse/hybrid.ts). */
  hybridThresholdLimits?: { maxPostings: number; maxRecords: number };
  /** False: hybrid search skips its step 2b, the sparse side's exact top (tests, bench A/B; sparse/hybrid.ts). */
  hybridSparseTop?: boolean;
  /** The most dense candidates hybrid search's step 3 may ask for (tests, bench; default sparse/hybrid.ts maxDenseCandidates()). */
  hybridMaxDense?: number;
  /** Hybrid search's exact-scan budget when its threshold step did not run (tests, bench; default sparse/hybrid.ts). */
  hybridExactFallbackCost?: number;
  /** Filled in when given: what the planner chose (tests, diagnosis). */
  trace?: SearchTrace;
}

export interface SearchTrace {
  plan?: Plan | 'sparse';
  /** Records matching the filter (undefined without one). */
  matches?: number;
  /** The graph answered short and the query was rerun exactly. */
  rerunExact?: boolean;
  /** The walk's ef the planner was given (defaultEf, the filtered ef, or more by maxCandidates). */
  ef?: number;
  /** Hybrid search ran its threshold step: exact up to the graph's recall (sparse/hybrid.ts). */
  hybridBounded?: boolean;
  /** Hybrid search scored every postings candidate, not only the first stage's (sparse/hybrid.ts). */
  hybridAllPostings?: boolean;
  /** Hybrid search ran its step 2b, the sparse side's exact top (sparse/hybrid.ts). */
  hybridSparseTop?: boolean;
  /** How many dense candidates hybrid search asked the graph for in the end (sparse/hybrid.ts step 3). */
  hybridDenseCandidates?: number;
  /** Hybrid search's threshold step did not run and an exact scan replaced its answer (sparse/hybrid.ts HYBRID_EXACT_FALLBACK_COST). */
  hybridExactInstead?: boolean;
}

/** VectorSet.plan()'s answer: what search() needs after deciding how to search. */
interface Planned {
  prepared: PreparedSparse | undefined;
  scorer: Scorer;
  idOf: (label: number) => string;
  /** The filter's matches (undefined without a filter) and their count. */
  matches: Bitmap | undefined;
  m: number | undefined;
  ef: number;
  plan: Plan;
  /** Sparse-only: the exact top-k from the inverted index (searchPlanned, searchBatch). */
  sparseOnly?: PreparedSparse;
  /** Set when nothing is to be searched (the answer is empty). */
  hits?: Hit[];
}

/** A query of searchBatch() that walks the graph: its place in the batch, plan and vector. */
interface Walk {
  at: number;
  p: Planned;
  dense: Float32Array;
}

export interface Hit {
  /** The record's label: stable while the record lives. */
  slot: number;
  id: string;
  score: number;
}

export interface GraphOptions {
  /** A namespace gets a graph once it holds this many records. */
  graphMinRecords: number;
  /** The graph walk's ef when a query does not ask for more. */
  defaultEf: number;
  /**
   * A filtered query's walk (when it does not ask for more): ef = filteredEf × the share
   * of records matching, at least filteredEfMin (planner/plan.ts filteredWalkEf).
   * Defaults FILTERED_EF and FILTERED_EF_MIN.
   */
  filteredEf?: number;
  filteredEfMin?: number;
  /**
   * A filtered query scans its matches exactly while they number fewer than
   * filteredExactFactor·√(ef·N) (see planner/plan.ts); 0 sends every filtered query with
   * more than topK matches to the graph (tests). Default FILTERED_EXACT_FACTOR.
   */
  filteredExactFactor?: number;
  /**
   * Native threads a graph insert batch is shared over (CONIFER_INSERT_THREADS; default 1:
   * the graph then depends only on the order of inserts). See HnswGraph.insertUntil.
   */
  insertThreads?: number;
}

// graphMinRecords: below it an exact scan costs at most ~2 ms at 384-d, and a graph's
// fixed ~2.5 MiB would cost more than the vectors themselves. defaultEf: see README
// "Search engine" for the recall it gives.
export const DEFAULT_GRAPH_OPTIONS: GraphOptions = { graphMinRecords: 5000, defaultEf: 100 };

// Re-measured in process (bench/filter-crossover.ts, clustered data, at the filtered ef,
// 16 in that region): at 100k × 384 the walk was slower than the scan of the matches at
// 2,000 matches and faster at 3,000, so c ≈ 2 (at ef 100 it had been ~1.4; the issue's
// first figure was 2.5 at ef 64). README "Filtered search".
export const FILTERED_EXACT_FACTOR = 2;

// A filtered walk needs a smaller ef than an unfiltered one for the same recall: it keeps
// walking through non-matching nodes until it holds ef MATCHING ones, so at a share s of
// records matching it explores about as far as an unfiltered walk with ef ÷ s — and its
// cost grows faster than that as s falls. So its ef scales with s: 64·s (32 at 50 %), but
// never below 16. Measured in process (bench/filter-stages.ts --ef-sweep, 100k × 384,
// clustered data, topK 10, 1000 queries), recall@10 of the walk alone: 50 % matching,
// ef 16 0.991, 24 0.9986, 32 0.9998; 10 %, ef 10 0.9994, 16 1.0; 3 %, ef 16 0.9986.
// README "Filtered search".
export const FILTERED_EF = 64;
export const FILTERED_EF_MIN = 16;

const REBUILD_DELETED_FRACTION = 0.2;

// A graph query's candidates (the walk's and the tail's), gathered for bestOfLabels. Shared
// by every namespace: the engine thread runs one query's afterWalk at a time.
let walkCandidates: Uint32Array = new Uint32Array(1024);

export interface VectorSetEvents {
  /** A native graph call failed; the namespace fell back to exact search. */
  graphFailed(err: Error): void;
  /** A snapshot's graph did not load; the namespace builds a fresh one from its records. */
  graphLoadFailed(err: Error): void;
}

export class VectorSet {
  private readonly labels = new LabelMap();
  private readonly arena: VectorArena;
  /** What the scorers read vectors from: the arena, and the serving graph's nodes. */
  private readonly source: VectorSource;
  /** Whether a vector the serving graph holds leaves the arena (see the invariants above). */
  private readonly oneCopy = nativeAddon !== undefined;
  private readonly seqs: number[] = [];
  /** Sparse values and their inverted index (sparse/). */
  private readonly sparse = new SparseIndex();
  private readonly columns: MetadataColumns;
  private graph: HnswGraph | undefined;
  private rebuild: HnswGraph | undefined;
  /** Set after a native failure: the namespace stays exact until the engine restarts. */
  private graphBroken = false;
  /** While restoring from a snapshot: its labels by id and the seq it holds. */
  private restoring: { labelOf: Map<string, number>; seq: number; extent: number } | undefined;
  /** Whether a label holds a record (the tail keeps a deleted record's label until an insert slice drops it). */
  private readonly isLive = (label: number): boolean => this.labels.id(label) !== undefined;

  constructor(
    private readonly dim: number,
    private readonly metric: Metric,
    private readonly options: GraphOptions = DEFAULT_GRAPH_OPTIONS,
    private readonly events?: VectorSetEvents,
    /** The metadata fields that get filter columns (IndexShape.filterable); absent: all. */
    filterable?: readonly string[],
  ) {
    this.arena = new VectorArena(dim);
    const arena = this.arena;
    this.source = {
      arena,
      rows: () => {
        if (!this.graph) throw new Error('engine: vectors released without a serving graph');
        return this.graph.rows();
      },
    };
    this.columns = new MetadataColumns(undefined, filterable && new Set(filterable));
  }

  /** Whether the namespace has an HNSW graph (what a snapshot saves). */
  get hasGraph(): boolean {
    return this.graph !== undefined;
  }

  get size(): number {
    return this.labels.size;
  }

  /** Bytes the vector arena holds (bench/engine-memory.ts's breakdown). */
  get vectorBytes(): number {
    return this.arena.bytes;
  }

  seqOf(id: string): number | undefined {
    const label = this.labels.label(id);
    return label === undefined ? undefined : this.seqs[label];
  }

  upsert(seq: number, record: StoredRecord): void {
    let label = this.labels.label(record.id);
    let vectorChanged = true;
    const restored = label === undefined && this.restoring && seq <= this.restoring.seq ? this.restoring.labelOf.get(record.id) : undefined;
    if (restored !== undefined) {
      // Unchanged since the snapshot: its graph node (if any) holds this very vector.
      label = restored;
      this.labels.assignAt(record.id, label);
      this.seqs[label] = seq;
      this.arena.set(label, record.values);
      this.sparse.set(label, record.sparse && ascendingSparse(record.sparse));
      this.columns.set(label, record.metadata);
      return;
    }
    if (label === undefined) {
      label = this.labels.assign(record.id);
    } else {
      vectorChanged = !this.hasVector(label, record.values);
    }
    this.seqs[label] = seq;
    if (vectorChanged) this.arena.set(label, record.values);
    this.sparse.set(label, record.sparse && ascendingSparse(record.sparse));
    this.columns.set(label, record.metadata);
    if (vectorChanged) this.graphs((g) => {
      g.invalidate(label);
      g.enqueue(label);
    });
    if (vectorChanged && this.graph) this.arena.code(label);
    if (!this.graph && !this.graphBroken && this.dim > 0 && this.labels.size >= this.options.graphMinRecords) {
      this.serveFreshGraph();
    }
  }

  remove(id: string): void {
    const label = this.labels.release(id);
    if (label === undefined) return;
    this.graphs((g) => g.invalidate(label));
    this.arena.forget(label);
    this.sparse.remove(label);
    this.columns.remove(label);
    if (this.graph && this.labels.size < this.options.graphMinRecords / 2) this.dropGraphs();
  }

  /** Removes every record whose last change is older than `seq` (a namespace drop). */
  removeOlderThan(seq: number): void {
    for (let label = 0; label < this.labels.extent; label++) {
      const id = this.labels.id(label);
      if (id !== undefined && this.seqs[label] < seq) this.remove(id);
    }
  }

  /** Number of records matching the filter. */
  count(filter: FilterNode): number {
    return this.columns.evaluate(filter).count();
  }

  /**
   * The labels of the records matching `filter`, as a bitmap the caller may keep and
   * modify (a fresh one per call). This is the match set every search path filters with:
   * `bits.has(label)` is total and cheap.
   */
  matching(filter: FilterNode): Bitmap {
    return this.columns.evaluate(filter);
  }

  /** The ids of the records matching `filter` (every record without one), unordered. */
  matchingIds(filter: FilterNode | undefined): string[] {
    const out: string[] = [];
    const push = (label: number): void => {
      const id = this.labels.id(label);
      if (id !== undefined) out.push(id);
    };
    if (filter) this.matching(filter).forEach(push);
    else for (const label of this.live()) push(label);
    return out;
  }

  /** The metadata of the record at `slot` as JSON text (see MetadataColumns.metadataJson). */
  metadataJson(slot: number): string | typeof METADATA_IN_STORE | undefined {
    return this.columns.metadataJson(slot);
  }

  /** The record's id, vector and sparse values (its metadata: `metadataJson(slot)`). */
  record(slot: number): StoredRecord {
    const id = this.labels.id(slot);
    if (id === undefined) throw new Error(`engine: label ${slot} is free`);
    const out: StoredRecord = { id };
    if (this.dim > 0) out.values = this.arena.holds(slot) ? this.arena.get(slot) : this.nodeVectors([slot]);
    const sparse = this.sparse.get(slot);
    if (sparse) out.sparse = sparse;
    return out;
  }

  /**
   * Starts from a snapshot's graph, before any record is loaded. Records then loaded
   * whose seq is <= `seq` take their snapshot label (the graph holds their vector);
   * finishRestore() ends the restore.
   */
  restore(graph: HnswGraph, ids: readonly (string | null)[], seq: number): void {
    const labelOf = new Map<string, number>();
    ids.forEach((id, label) => {
      if (id !== null) labelOf.set(id, label);
    });
    this.labels.reserve(ids.length);
    this.graph = graph;
    this.restoring = { labelOf, seq, extent: ids.length };
  }

  /**
   * Makes room for `records` records (`sparsePairs` sparse pairs) ahead of a load that will bring them, and defers the
   * sparse postings to one bulk build in finishRestore() (sparse-index.ts).
   */
  reserve(records: number, sparsePairs = 0): void {
    this.arena.reserve(Math.max(records, this.labels.extent));
    this.sparse.reserve(sparsePairs);
    this.sparse.deferPostings();
  }

  /**
   * Ends a load: builds the deferred sparse postings, frees snapshot labels no record
   * claimed (marking their nodes deleted) and queues every live record the graph lacks.
   */
  finishRestore(): void {
    this.sparse.postingsReady();
    const restoring = this.restoring;
    if (!restoring) return;
    this.restoring = undefined;
    const freed = this.labels.freeUnclaimed(restoring.extent);
    // The snapshot's graph was read on a native thread while the records loaded. If it did
    // not load, it is not trusted: a fresh graph is built from the records instead.
    const failure = this.graph?.loadFailure();
    if (failure !== undefined) {
      this.dropGraphs(); // nothing to take back: no label is released before the load ends
      this.events?.graphLoadFailed(new GraphError(failure));
      if (this.labels.size >= this.options.graphMinRecords) this.serveFreshGraph();
      return;
    }
    this.graphs((g) => {
      for (const label of freed) g.invalidate(label);
      for (const label of this.live()) {
        if (g.has(label)) continue;
        g.enqueue(label);
        if (g === this.graph) this.arena.code(label);
      }
    });
    if (this.graph && this.oneCopy) this.releaseRestored(this.graph);
    if (this.graph && this.labels.size < this.options.graphMinRecords / 2) this.dropGraphs();
  }

  /** What a snapshot needs of this namespace; undefined without a graph (nothing slow to rebuild). */
  snapshot(name: string, seq: number): NamespaceToWrite | undefined {
    const graph = this.graph;
    if (!graph) return undefined;
    const extent = this.labels.extent;
    const ids: (string | null)[] = new Array<string | null>(extent);
    for (let label = 0; label < extent; label++) ids[label] = this.labels.id(label) ?? null;
    return {
      state: { name, seq, ids, ...graph.flags(extent) },
      writeGraph: (file) => graph.writeSync(file),
      writeGraphInBackground: (file) => graph.writeInBackground(file),
    };
  }

  /** Bytes of the tail's int8 codes (arena.ts), 0 once every record is in the graph. */
  get tailCodeBytes(): number {
    return this.arena.codeBytes;
  }

  /** Records searched exactly because they are not yet in a graph (0 without a graph). */
  get unindexed(): number {
    return this.graph ? this.labels.size - this.graph.size : 0;
  }

  /** Whether background graph work is waiting. */
  get hasWork(): boolean {
    return this.sparse.hasWork || (this.graph !== undefined && (this.graph.pending > 0 || this.rebuild !== undefined || this.needsRebuild()));
  }

  /** Bytes of sparse values and postings (bench, memory figures). */
  get sparseBytes(): number {
    return this.sparse.bytes;
  }

  /** Starts giving back the slack that appends left in growable structures (the sparse postings); trimStep() runs it. */
  startTrim(): void {
    this.sparse.startTrim();
  }

  /** Continues the trim pass until `deadline` (performance.now() ms); true once it is over. */
  trimStep(deadline: number): boolean {
    return this.sparse.trimStep(deadline);
  }

  /** Inserts into the graph(s) and compacts sparse postings until `deadline` (performance.now() ms). */
  work(deadline: number): void {
    if (this.sparse.hasWork) this.sparse.work(deadline);
    const graph = this.graph;
    if (!graph) return;
    const isLive = (label: number): boolean => this.labels.id(label) !== undefined;
    const threads = this.options.insertThreads ?? 1;
    const source = (serving: boolean): InsertSource => ({
      taken: (label) => this.arena.uncode(label),
      read: (label, out, at) => this.readVector(label, out, at),
      inserted: (labels) => {
        if (serving && this.oneCopy) for (const label of labels) this.arena.release(label);
      },
    });
    try {
      graph.insertUntil(deadline, source(true), isLive, threads);
      if (graph.pending > 0 || performance.now() >= deadline) return;
      if (!this.rebuild && this.needsRebuild()) this.rebuild = this.freshGraph();
      if (this.rebuild) {
        const rebuild = this.rebuild;
        rebuild.insertUntil(deadline, source(false), isLive, threads);
        if (rebuild.pending === 0) {
          // Every live label is in the rebuilt graph now; any released one it lacked
          // would lose its only copy with the old graph, so it is taken back first.
          this.takeBack(graph, (label) => !rebuild.has(label));
          this.graph = rebuild;
          this.rebuild = undefined;
          graph.close();
        }
      }
    } catch (err) {
      this.dropBrokenGraph(err);
    }
  }

  search(q: SearchQuery): Hit[] {
    return this.searchPlanned(q, this.plan(q));
  }

  /** search() once plan() has decided how. */
  private searchPlanned(q: SearchQuery, p: Planned): Hit[] {
    if (p.hits) return p.hits;
    if (p.sparseOnly) return this.sparse.search(p.sparseOnly, q.topK, p.idOf, p.matches).map(sparseHit);
    const { prepared, scorer, idOf, matches, ef, plan } = p;
    if (plan === 'hybrid' && this.graph && q.dense && prepared) {
      try {
        // The tail (records not yet in the graph) gives dense candidates as the graph
        // does (sparse/hybrid.ts); rescoring the whole tail on both parts would make every
        // hybrid query during indexing as slow as an exact scan.
        const graph = this.graph;
        const dense = q.dense;
        const [queued, count] = graph.tailInto(new Uint32Array(graph.pending), 0, this.isLive);
        const tail = queued.subarray(0, count);
        const denseScorer = new Scorer(this.metric, this.source, { dense });
        const found = hybridSearch(q.topK, q.hybridMultiple, {
          graph: (n) => graph.search(dense, n, Math.max(ef, n)),
          tail,
          tailBest: (n) => bestOf(tail, n, denseScorer, idOf).map((h) => h.label),
          dense: (labels, count, out) => scorer.denseScores(labels, count, out),
          sparse: (labels, count, out) => this.sparse.dots(prepared, labels, count, out),
          sparseCandidates: (n) => this.sparse.candidates(prepared, n, HYBRID_POSTINGS_COVERAGE),
          sparseReaching: (tau) =>
            this.sparse.reaching(prepared, tau, q.hybridThresholdLimits?.maxPostings ?? HYBRID_THRESHOLD_MAX_POSTINGS, q.hybridThresholdLimits?.maxRecords ?? HYBRID_THRESHOLD_MAX_RECORDS),
          sparseTop:
            q.hybridSparseTop === false
              ? undefined
              : (m) => {
                  const hits = this.sparse.search(prepared, m, idOf);
                  return { labels: hits.map((h) => h.label), least: hits.length < m ? undefined : hits[hits.length - 1].rank };
                },
          scorer,
          idOf,
        }, q.hybridPostingsFirst, q.hybridMaxDense ?? maxDenseCandidates(this.dim));
        if (q.trace) {
          q.trace.hybridBounded = found?.bounded;
          q.trace.hybridAllPostings = found?.allPostings;
          q.trace.hybridSparseTop = found?.sparseTop;
          q.trace.hybridDenseCandidates = found?.denseCandidates;
        }
        // Not bounded: the candidates' answer may miss records; exact instead when cheap.
        const exactInstead =
          found !== undefined &&
          !found.bounded &&
          exactScanCost(this.labels.size, this.dim, this.sparse.postingsOf(prepared)) <= (q.hybridExactFallbackCost ?? HYBRID_EXACT_FALLBACK_COST);
        if (q.trace) q.trace.hybridExactInstead = exactInstead;
        if (found && !exactInstead) return found.hits.map(toHit);
      } catch (err) {
        this.dropBrokenGraph(err);
      }
    }
    if (plan === 'graph' && this.graph && q.dense) {
      try {
        const hits = this.afterWalk(q, p, this.graph.search(q.dense, q.topK, ef, matches));
        if (hits) return hits;
      } catch (err) {
        this.dropBrokenGraph(err);
      }
    }
    return this.exactly(q, p);
  }

  /**
   * search() for each query, on the same state, with the same answers; the graph walks of
   * the queries planned 'graph' (with the same topK and ef) run side by side on up to
   * `threads` native threads (HnswGraph.searchMany), and so do the sparse-only searches
   * (SparseIndex.searchMany), so one namespace answers a batch of queries on several cores.
   * Every other query runs as search() does.
   */
  searchBatch(qs: readonly SearchQuery[], threads: number): Hit[][] {
    const out: Hit[][] = new Array<Hit[]>(qs.length);
    // Walks to run, grouped by "topK ef" (hnswlib's ef is one setting per call).
    const groups = new Map<string, Walk[]>();
    // Sparse-only queries, searched side by side too (SparseIndex.searchMany).
    const sparse: { at: number; p: Planned; q: PreparedSparse }[] = [];
    qs.forEach((q, at) => {
      const p = this.plan(q);
      if (p.hits) out[at] = p.hits;
      else if (p.sparseOnly) sparse.push({ at, p, q: p.sparseOnly });
      else if (p.plan === 'graph' && this.graph && q.dense) {
        const key = `${q.topK} ${p.ef}`;
        const walk = { at, p, dense: q.dense };
        const group = groups.get(key);
        if (group) group.push(walk);
        else groups.set(key, [walk]);
      } else out[at] = this.searchPlanned(q, p);
    });
    if (sparse.length > 0) {
      const idOf = sparse[0].p.idOf;
      const found = this.sparse.searchMany(
        sparse.map(({ at, p, q }) => ({ q, topK: qs[at].topK, allow: p.matches })),
        idOf,
        threads,
      );
      sparse.forEach(({ at }, i) => (out[at] = found[i].map(sparseHit)));
    }
    for (const group of groups.values()) {
      const walks = this.walkAll(qs, group, threads);
      group.forEach(({ at, p }, i) => {
        out[at] = (walks && this.afterWalk(qs[at], p, walks[i])) ?? this.exactly(qs[at], p);
      });
    }
    return out;
  }

  /** The graph walks of a group of searchBatch() (same topK and ef); undefined when the graph failed (then dropped). */
  private walkAll(qs: readonly SearchQuery[], group: readonly Walk[], threads: number): number[][] | undefined {
    const graph = this.graph;
    if (!graph) return undefined;
    const { topK } = qs[group[0].at];
    const { ef } = group[0].p;
    try {
      if (group.length === 1) return [graph.search(group[0].dense, topK, ef, group[0].p.matches)];
      return graph.searchMany(
        group.map((w) => w.dense),
        topK,
        ef,
        group.map(({ p }) => p.matches),
        threads,
      );
    } catch (err) {
      this.dropBrokenGraph(err);
      return undefined;
    }
  }

  /**
   * What search() decides before it searches: the scorer, the filter's matches, the walk's
   * ef and the plan (or `sparseOnly`); `hits` when nothing is to be searched.
   */
  private plan(q: SearchQuery): Planned {
    const prepared = q.sparse && prepareSparse(q.sparse);
    const sparseScore = prepared && ((label: number): number => this.sparse.dot(label, prepared));
    const sparseScores = prepared && ((labels: Uint32Array, count: number, out: Float64Array): void => this.sparse.dots(prepared, labels, count, out));
    const scorer = new Scorer(this.metric, this.source, { dense: q.dense, sparseScore, sparseScores });
    const idOf = (label: number): string => this.labels.id(label) ?? '';
    const matches = q.filter ? this.columns.evaluate(q.filter) : undefined;
    const m = matches?.count();
    if (q.trace) q.trace.matches = m;
    const planned = { prepared, scorer, idOf, matches, m, ef: 0, plan: 'empty' as Plan };
    if (prepared && !q.dense && !q.exact && m !== 0) {
      if (q.trace) q.trace.plan = 'sparse';
      return { ...planned, sparseOnly: prepared };
    }
    const baseEf =
      m === undefined
        ? this.options.defaultEf
        : filteredWalkEf(m, this.labels.size, this.options.filteredEf ?? FILTERED_EF, this.options.filteredEfMin ?? FILTERED_EF_MIN);
    const ef = q.ef ?? Math.max(baseEf, q.maxCandidates ?? 0);
    const plan = choosePlan({
      hasGraph: this.graph !== undefined,
      dense: q.dense !== undefined,
      sparse: q.sparse !== undefined,
      exact: q.exact === true,
      records: this.labels.size,
      matches: m,
      topK: q.topK,
      ef,
      filteredExactFactor: this.options.filteredExactFactor ?? FILTERED_EXACT_FACTOR,
    });
    if (q.trace) {
      q.trace.plan = plan;
      q.trace.ef = ef;
    }
    return plan === 'empty' ? { ...planned, ef, plan, hits: [] } : { ...planned, ef, plan };
  }

  /**
   * The answer from a graph walk's candidates: with the records not yet in the graph
   * (matching the filter), rescored exactly from the arena (the same float32 scores and
   * tie order as a scan). Undefined when it is short, and the query must be rerun exactly:
   * the graph may miss records (unreachable nodes after many deletes, or a filter whose
   * matches the walk did not reach); an exact scan over the matches is always complete.
   */
  private afterWalk(q: SearchQuery, p: Planned, candidates: number[]): Hit[] | undefined {
    const { matches, scorer, idOf, m } = p;
    if (walkCandidates.length < candidates.length) walkCandidates = new Uint32Array(candidates.length * 2);
    walkCandidates.set(candidates);
    let count = candidates.length;
    if (this.graph) {
      const isCandidate = matches === undefined ? this.isLive : (label: number) => this.isLive(label) && matches.has(label);
      [walkCandidates, count] = this.graph.tailInto(walkCandidates, count, isCandidate);
    }
    const hits = bestOfLabels(walkCandidates, count, q.topK, scorer, idOf);
    if (hits.length >= Math.min(q.topK, m ?? this.labels.size)) return hits.map(toHit);
    if (q.trace) q.trace.rerunExact = true;
    return undefined;
  }

  /** The exact scan: it visits only the matching labels (a bitmap's set bits), so its cost is proportional to m, not N. */
  private exactly(q: SearchQuery, p: Planned): Hit[] {
    const labels = p.matches ? bitsOf(p.matches) : this.live();
    return bestOf(labels, q.topK, p.scorer, p.idOf).map(toHit);
  }

  private needsRebuild(): boolean {
    return this.graph !== undefined && this.graph.deletedFraction > REBUILD_DELETED_FRACTION;
  }

  /** A fresh graph answers from now on; every record is in its tail, so all are coded (arena.ts). */
  private serveFreshGraph(): void {
    this.graph = this.freshGraph();
    for (const label of this.live()) this.arena.code(label);
  }

  private freshGraph(): HnswGraph {
    const graph = HnswGraph.create(this.metric, this.dim, Math.ceil(this.labels.size * 1.5));
    for (const label of this.live()) graph.enqueue(label);
    return graph;
  }

  private graphs(each: (g: HnswGraph) => void): void {
    try {
      if (this.graph) each(this.graph);
      if (this.rebuild) each(this.rebuild);
    } catch (err) {
      this.dropBrokenGraph(err);
    }
  }

  /** Frees the graphs' native memory and the arena's now: the set is dropped (unusable afterwards). */
  close(): void {
    this.closeGraphs();
    this.arena.close();
  }

  private closeGraphs(): void {
    this.graphs((g) => g.close());
    this.graph = undefined;
    this.rebuild = undefined;
  }

  /** Drops the graphs (the set is small again, or its graph failed to load) after taking every released vector back. */
  private dropGraphs(): void {
    if (this.graph) this.takeBack(this.graph, () => true);
    this.closeGraphs();
    this.arena.uncodeAll(); // no graph, no tail
  }

  private dropBrokenGraph(err: unknown): void {
    if (!(err instanceof GraphError)) throw err;
    // The failed graph's nodes are still in memory: the released vectors are read back
    // before it goes. If even that fails, the namespace cannot answer from memory; the
    // error escapes so the worker fails the call (a restart reloads from the record store).
    if (this.graph) {
      try {
        this.takeBack(this.graph, () => true);
      } catch (again) {
        throw new Error(`engine: a graph failed (${err.message}) and its vectors could not be read back: ${String(again)}`);
      }
    }
    // Best effort: a graph that failed may fail again on close, and is dropped either way.
    for (const g of [this.graph, this.rebuild]) {
      try {
        g?.close();
      } catch {
        // already unusable
      }
    }
    this.graph = undefined;
    this.rebuild = undefined;
    this.arena.uncodeAll();
    this.graphBroken = true;
    this.events?.graphFailed(err);
  }

  /**
   * After a restore: the arena lets go of each vector the snapshot's graph has() and whose
   * node holds it bit for bit. The check costs a compare per record; it is what makes a
   * node safe as the only copy when the file and its flags disagree (a damaged snapshot
   * the checksums did not catch): such a vector simply stays in the arena.
   */
  private releaseRestored(graph: HnswGraph): void {
    const batch: number[] = [];
    const vectors = new Float32Array(1024 * this.dim);
    const flush = (): void => {
      batch.forEach((label, i) => vectors.set(this.arena.view(label), i * this.dim));
      const same = graph.holding(Uint32Array.from(batch), vectors.subarray(0, batch.length * this.dim));
      batch.forEach((label, i) => {
        if (same[i]) this.arena.release(label);
      });
      batch.length = 0;
    };
    for (const label of this.live()) {
      if (!graph.has(label) || !this.arena.holds(label)) continue;
      batch.push(label);
      if (batch.length === 1024) flush();
    }
    if (batch.length > 0) flush();
  }

  /** Whether `label`'s current vector is `values` (zeros when absent). */
  private hasVector(label: number, values: Float32Array | undefined): boolean {
    if (this.dim === 0) return true;
    if (this.arena.holds(label)) return this.arena.equals(label, values);
    const current = this.nodeVectors([label]);
    for (let i = 0; i < this.dim; i++) if (current[i] !== (values ? values[i] : 0)) return false;
    return true;
  }

  /** Copies `label`'s current vector into out[at..at + dim), from the arena or its serving graph node. */
  private readVector(label: number, out: Float32Array, at: number): void {
    if (this.arena.holds(label)) out.set(this.arena.view(label), at);
    else out.set(this.nodeVectors([label]), at);
  }

  /** The serving graph's node vectors of released labels, one after another. */
  private nodeVectors(labels: readonly number[]): Float32Array {
    if (!this.graph) throw new Error('engine: vectors released without a serving graph');
    const out = new Float32Array(labels.length * this.dim);
    this.graph.vectorsInto(Uint32Array.from(labels), out);
    return out;
  }

  /** Holds again in the arena every released vector for which `which(label)`, read from `graph`'s nodes. */
  private takeBack(graph: HnswGraph, which: (label: number) => boolean): void {
    if (this.arena.released === 0) return;
    const states = this.arena.heldFlags;
    const batch: number[] = [];
    const flush = (): void => {
      const out = new Float32Array(batch.length * this.dim);
      graph.vectorsInto(Uint32Array.from(batch), out);
      batch.forEach((label, i) => this.arena.set(label, out.subarray(i * this.dim, (i + 1) * this.dim)));
      batch.length = 0;
    };
    for (let label = 0; label < this.labels.extent; label++) {
      if (states[label] !== RELEASED || !which(label)) continue;
      batch.push(label);
      if (batch.length === 1024) flush();
    }
    if (batch.length > 0) flush();
  }

  private *live(): Iterable<number> {
    for (let label = 0; label < this.labels.extent; label++) if (this.labels.id(label) !== undefined) yield label;
  }

}

/** The set labels of a bitmap, ascending. */
function bitsOf(bits: Bitmap): number[] {
  const out: number[] = [];
  bits.forEach((label) => out.push(label));
  return out;
}

const toHit = (h: ScoredHit): Hit => ({ slot: h.label, id: h.id, score: h.score });
const sparseHit = (h: SparseHit): Hit => ({ slot: h.label, id: h.id, score: h.rank });
