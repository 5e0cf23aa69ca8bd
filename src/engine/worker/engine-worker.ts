// The engine worker thread: owns every search structure. It hears two ports: the main
// thread's (loads, queries, counts, ids) and the writer thread's (committed changes, in
// commit order; src/data/writer/). Each port's messages are handled in the order posted.
//
// Read-your-writes (DESIGN.md "Threads and order"). Across two ports message order says
// nothing, so it is made explicit with sequence numbers:
// 1. The writer commits a write (seq S is the durable point), posts its changes on its
//    port, and only then replies to the main thread; so once S is acknowledged, every
//    change up to S is committed in the store and posted (or in flight) to this worker.
// 2. The main thread keeps, per index, the highest acknowledged seq, and every read it
//    posts here carries it as `minSeq`.
// 3. This worker answers a read only once it holds every change up to minSeq (slot.seq,
//    the seq of the last change applied or loaded, >= minSeq); until then the read waits
//    in `held`, and each apply releases the reads it satisfies. A write acknowledged
//    before a read was posted is therefore always visible to that read.
// A writer that died after a commit and before its apply leaves a gap no later apply
// fills (the write was answered 503, but it is stored): every new writer port starts
// with 'catch-up', which applies changesSince(slot.seq) from the store, before any of
// the new writer's changes. A restarted worker loads every store after the new writer
// port is connected (engine-client.ts), so it holds every acknowledged change.
//
// Scheduling: messages come first. Background work — loading an index, inserting the
// tail into graphs, rebuilding graphs, writing snapshots — runs in slices between
// messages (setImmediate yields to the message loop after each slice), so a query
// waits at most one slice, and the main thread never waits for any of it. Loading and
// graph inserts are bounded by the slice budget (below); graph inserts also end early,
// after a quantum of ~1 ms, when a read is waiting (read-preemption.ts). A snapshot's graph files are
// written on native pool threads (snapshotInBackground): queries go on meanwhile, while
// that index's graph inserts wait until the write ends (a write that must change a
// graph, a delete, only defers its mark).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { EngineIndex } from '../engine-index.js';
import { pageOfIds } from '../id-order.js';
import type { Change, IndexShape } from '../model.js';
import {
  DEFAULT_WORKER_DATA,
  type EngineCall,
  type EngineMessage,
  type EngineReply,
  type EngineRequest,
  type EngineWorkerData,
  type IndexCount,
  isReadOp,
  type LogLevel,
  type ReadCall,
  type WriterToEngine,
} from '../protocol.js';
import { DEFAULT_GRAPH_OPTIONS, type GraphOptions } from '../vector-set.js';
import { lowerThisThreadPriority } from '../thread-priority.js';
import { RECORD_STORE_FILE, RecordStore } from '../store/record-store.js';
import { writeSnapshot, writeSnapshotInBackground } from '../snapshot/snapshot-files.js';
import { hnswBuild } from '../graph/hnsw-binding.js';
import { nativeAddon, nativeAddonError } from '../native-addon.js';
import { FAULT_CRASH_ID, faultInjectionEnabled } from './fault-injection.js';
import type { IndexLoader } from './loader.js';
import { beginRecovery } from './recovery.js';
import { QuietRelease, releaseThisThreadsMemory } from './quiet-release.js';
import { ReadsWaiting, workInQuanta } from './read-preemption.js';

if (!parentPort) throw new Error('engine-worker must run as a worker thread');
const port = parentPort;
const out: MessagePort = (workerData as Partial<EngineWorkerData> | null)?.replies ?? parentPort;
const post = (msg: EngineMessage): void => out.postMessage(msg);

// Slice budget: SLICE_MS, as long as the messages handled since the previous slice took,
// or READ_SHARE_FACTOR times as long as the reads among them took, whichever is longest
// (up to MAX_SLICE_MS). Under a steady stream of expensive queries (exact scans of a large
// tail while indexing catches up) background work thus still gets about two thirds of the
// thread instead of a 4 ms sliver per query — and every slice of graph work shrinks the
// tail those queries scan. A read that arrives during a slice ends it once the slice has
// had that reads' share (runSlice), so it waits for a long slice only while reads
// themselves are that costly; other messages (writes applied) lengthen a slice but no
// longer make a read wait for all of it.
const SLICE_MS = 4;
const MAX_SLICE_MS = 50;
/** Graph work a slice does before it may yield to a read, per ms spent on reads since the previous slice. */
const READ_SHARE_FACTOR = 2;
const STATUS_INTERVAL_MS = 1000;
const PROGRESS_LOG_INTERVAL_MS = 5000;
// When to snapshot an index: once its graphs have caught up (no tail left) and at least
// SNAPSHOT_MIN_CHANGES changes arrived since the last snapshot, at most once per
// SNAPSHOT_MIN_INTERVAL_MS; and at clean shutdown ('flush'). A snapshot only saves graph
// insertion work, which is large only after many changes; writing it costs I/O and holds
// the index's graph inserts until it ends (~1 s at 100k × 384, fsync and checksum
// included), so it is kept rare and never taken while the tail is still being inserted
// (that snapshot would be outdated at once). A snapshot without graphs (a manifest: it
// lets tombstones be compacted) is rate-limited the same way but does not delay an index's
// first snapshot with a graph.
const SNAPSHOT_MIN_CHANGES = 1000;
const SNAPSHOT_MIN_INTERVAL_MS = 60_000;
// A read waits for its minSeq at most this long, then answers "retry" (503). Reaching it
// normally takes one message; the bound only keeps a lost change from hanging a read.
const HOLD_LIMIT_MS = 10_000;

/** A read waiting until its index has applied `minSeq`. */
interface HeldRead {
  msg: ReadCall;
  timer: NodeJS.Timeout;
}

interface IndexSlot {
  dir: string;
  shape: IndexShape;
  engine: EngineIndex;
  /** Present while the index loads; queries answer "retry" until it is gone. */
  loader?: IndexLoader;
  /** Changes that arrived during the load, applied (seq-idempotently) after it. */
  buffered: Change[];
  /** The open calls waiting for this load (an index opened again while loading keeps the first caller waiting too). */
  openReqIds: number[];
  started: number;
  fromSnapshot: boolean;
  /** The seq of the last change the engine holds. */
  seq: number;
  /** Reads waiting for a higher seq (see "Read-your-writes" above). */
  held: HeldRead[];
  changesSinceSnapshot: number;
  lastSnapshotAt: number;
  /** Whether that snapshot held a graph (see SNAPSHOT_MIN_INTERVAL_MS). */
  lastSnapshotHadGraphs: boolean;
  /** A background snapshot write is in progress (the index's graph work waits for it). */
  writingSnapshot: boolean;
  /** Bumped by every snapshot: a background write commits only if none started after it. */
  snapshotGeneration: number;
  /** Set while a snapshot is due but waits for SNAPSHOT_MIN_INTERVAL_MS (maybeSnapshot). */
  snapshotTimer?: NodeJS.Timeout;
  lastProgressLog: number;
}

const indexes = new Map<string, IndexSlot>();
const faults = faultInjectionEnabled();
// Set once this worker is about to be terminated (after a shutdown flush, or after it
// reported a fatal apply failure): no background slice runs any more. Terminating a
// worker while it is inside a native call is not something to rely on (with hnswlib-node's
// binding it aborted the whole process: node-addon-api cannot throw into a terminating
// environment), so the worker must be idle by then.
let halted = false;

function log(level: LogLevel, msg: string, fields: Record<string, string | number>): void {
  post({ type: 'log', level, msg, fields });
}

// Memory a burst of work left behind goes back to the OS once the slices stop
// (quiet-release.ts): first the slack appends left in growable structures (EngineIndex
// startTrim: sparse postings), trimmed in slices like any background work so a query
// waits at most one, then the heap and malloc's arenas, where the old buffers went.
const memory = new QuietRelease(
  (err) => log('warn', 'releasing free heap memory failed', { error: err instanceof Error ? err.message : String(err) }),
  async () => {
    const engines = [...indexes.values()].filter((slot) => !slot.loader).map((slot) => slot.engine);
    for (const engine of engines) engine.startTrim();
    for (const engine of engines) {
      while (!engine.trimStep(performance.now() + SLICE_MS)) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await releaseThisThreadsMemory();
  },
);

// Below the HTTP thread, so it gets a core first when it wakes (thread-priority.ts).
const settings: EngineWorkerData = { ...DEFAULT_WORKER_DATA, ...(workerData as Partial<EngineWorkerData> | null) };
const readsWaiting = settings.readsWaiting ? new ReadsWaiting(settings.readsWaiting) : undefined;
const readWaiting = (): boolean => readsWaiting?.any === true;
const priority = lowerThisThreadPriority(settings.backgroundNice);
// Graph inserts fan out over this many native threads, which inherit this thread's priority.
const graphOptions: GraphOptions = { ...DEFAULT_GRAPH_OPTIONS, insertThreads: settings.insertThreads };
if ('nice' in priority) log('info', 'engine worker runs at a lower CPU priority than the HTTP thread', { nice: priority.nice });
else log('info', 'engine worker runs at the HTTP thread\'s CPU priority', { reason: priority.skipped });

if (nativeAddon) log('info', 'exact scans use the native pre-pass', { hnswlib: hnswBuild });
else log('warn', 'native addon unavailable; exact scans run in JavaScript only (slower, same results)', { reason: nativeAddonError ?? 'unknown', hnswlib: hnswBuild });

class Retryable extends Error {}

function ready(indexId: string): EngineIndex {
  const slot = indexes.get(indexId);
  if (!slot) throw new Error(`engine: index ${indexId} is not open`);
  if (slot.loader) throw new Retryable(`index ${indexId} is loading`);
  return slot.engine;
}

function newEngine(indexId: string, shape: IndexShape): EngineIndex {
  return new EngineIndex(shape, graphOptions, {
    graphFailed: (err) => log('error', 'a graph failed; its namespace is searched exactly', { indexId, err: err.message }),
    graphLoadFailed: (err) => log('warn', "a snapshot's graph did not load; rebuilding it from the records", { indexId, err: err.message }),
  });
}

function open(msg: Extract<EngineCall, { op: 'open' }>): void {
  const previous = indexes.get(msg.indexId);
  previous?.loader?.close();
  if (previous) failHeld(previous, `index ${msg.indexId} is reloading`);
  const waiting = previous?.loader ? previous.openReqIds : [];
  const { engine, loader, snapshotSeq, unusable } = beginRecovery(msg.dir, msg.shape, () => newEngine(msg.indexId, msg.shape));
  if (unusable !== undefined) {
    log('warn', 'graph snapshot unusable; rebuilding the graphs from the record store', { indexId: msg.indexId, reason: unusable });
  }
  indexes.set(msg.indexId, {
    dir: msg.dir,
    shape: msg.shape,
    engine,
    loader,
    buffered: [],
    openReqIds: [...waiting, msg.reqId],
    started: performance.now(),
    fromSnapshot: snapshotSeq !== undefined,
    seq: loader.seq,
    held: [],
    changesSinceSnapshot: loader.seq - (snapshotSeq ?? 0),
    lastSnapshotAt: snapshotSeq !== undefined ? performance.now() : -Infinity,
    lastSnapshotHadGraphs: true,
    writingSnapshot: false,
    snapshotGeneration: 0,
    lastProgressLog: performance.now(),
  });
  // One slice at once: a small index is then searchable as soon as its open is handled; a
  // fresh one (just created) must be, whatever was written to it before this message came.
  const slot = indexes.get(msg.indexId);
  if (slot) loadStep(msg.indexId, slot, msg.fresh === true ? Infinity : performance.now() + SLICE_MS);
  schedule();
}

function handle(msg: EngineCall): EngineReply | undefined {
  switch (msg.op) {
    case 'open':
      open(msg);
      return undefined; // answered when the load completes
    case 'close': {
      const slot = indexes.get(msg.indexId);
      if (slot?.loader) {
        slot.loader.close();
        for (const reqId of slot.openReqIds) post({ type: 'error', reqId, error: `index ${msg.indexId} was closed while loading`, retryable: false });
      }
      if (slot) failHeld(slot, `index ${msg.indexId} was closed`);
      clearTimeout(slot?.snapshotTimer);
      slot?.engine.close();
      removeSlot(msg.indexId);
      return { type: 'reply', op: 'close', reqId: msg.reqId, result: null };
    }
    case 'query':
    case 'count':
    case 'ids':
      return read(msg);
    case 'flush':
      for (const [indexId, slot] of indexes) if (!slot.loader && slot.changesSinceSnapshot > 0) snapshotIndex(indexId, slot);
      halted = true; // the client terminates this worker next
      memory.stop();
      return { type: 'reply', op: 'flush', reqId: msg.reqId, result: null };
  }
}

/** Answers a read, or holds it (undefined) until its index has applied `minSeq`. */
function read(msg: HeldRead['msg']): EngineReply | undefined {
  const engine = ready(msg.indexId);
  const slot = indexes.get(msg.indexId);
  if (slot && slot.seq < msg.minSeq) {
    const held: HeldRead = {
      msg,
      timer: setTimeout(() => {
        if (!slot.held.includes(held)) return;
        slot.held.splice(slot.held.indexOf(held), 1);
        const error = `index ${msg.indexId} has not yet applied write ${msg.minSeq} (it holds ${slot.seq})`;
        post({ type: 'error', reqId: msg.reqId, error, retryable: true });
      }, HOLD_LIMIT_MS),
    };
    slot.held.push(held);
    return undefined;
  }
  switch (msg.op) {
    case 'query':
      if (settings.queryThreads > 1) {
        batchQuery(msg);
        return undefined;
      }
      return { type: 'reply', op: 'query', reqId: msg.reqId, result: { matches: engine.query(msg.query), seq: slot?.seq ?? 0 } };
    case 'count':
      return { type: 'reply', op: 'count', reqId: msg.reqId, result: engine.count(msg.filter) };
    case 'ids': {
      const ids = engine.matchingIds(msg.namespace, msg.filter);
      const result = msg.page ? pageOfIds(ids, msg.page.after, msg.page.limit) : ids;
      return { type: 'reply', op: 'ids', reqId: msg.reqId, result };
    }
  }
}

// ---- query batches ----------------------------------------------------------------------
//
// With settings.queryThreads > 1, the queries that arrive in one turn of this thread's
// event loop (the messages the port delivers together: those that queued while the thread
// was busy) are answered together, after every message of that turn and before any
// background slice (runSlice answers them first), so no query waits for graph work. Their
// graph walks and sparse-only searches run side by side on up to queryThreads native
// threads (EngineIndex queryBatch), all done before the answers are posted: the graphs
// still have one owner thread, and no change is applied while they are searched. Each
// query was checked against its minSeq when it arrived and is answered from a state at
// least that new (the seq in its answer is the one at that moment). A lone query is a
// batch of one. A message that closes, reloads or flushes an index answers the batch
// first (answer()), so no query that arrived before it is overtaken.
let batch: Extract<EngineCall, { op: 'query' }>[] = [];

function batchQuery(msg: Extract<EngineCall, { op: 'query' }>): void {
  batch.push(msg);
  if (batch.length === 1) setImmediate(answerBatch);
}

function answerBatch(): void {
  if (batch.length === 0) return;
  const started = performance.now();
  try {
    answerQueries();
  } finally {
    readMs += performance.now() - started;
  }
}

function answerQueries(): void {
  const taken = batch;
  batch = [];
  const byIndex = new Map<string, Extract<EngineCall, { op: 'query' }>[]>();
  for (const msg of taken) {
    const msgs = byIndex.get(msg.indexId);
    if (msgs) msgs.push(msg);
    else byIndex.set(msg.indexId, [msg]);
  }
  for (const [indexId, msgs] of byIndex) {
    try {
      // The index may have closed or begun reloading since these queries arrived.
      const engine = ready(indexId);
      const seq = indexes.get(indexId)?.seq ?? 0;
      const answers = engine.queryBatch(msgs.map((m) => m.query), settings.queryThreads);
      msgs.forEach((msg, i) => post({ type: 'reply', op: 'query', reqId: msg.reqId, result: { matches: answers[i], seq } }));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      for (const msg of msgs) post({ type: 'error', reqId: msg.reqId, error, retryable: err instanceof Retryable });
    }
  }
}

/** Answers the held reads of `slot` that its seq now satisfies. */
function releaseHeld(slot: IndexSlot): void {
  if (slot.held.length === 0) return;
  const due = slot.held.filter((h) => h.msg.minSeq <= slot.seq);
  if (due.length === 0) return;
  slot.held = slot.held.filter((h) => h.msg.minSeq > slot.seq);
  for (const h of due) {
    clearTimeout(h.timer);
    answer(h.msg);
  }
}

function failHeld(slot: IndexSlot, error: string): void {
  for (const h of slot.held) {
    clearTimeout(h.timer);
    post({ type: 'error', reqId: h.msg.reqId, error, retryable: true });
  }
  slot.held = [];
}

function apply(indexId: string, changes: Change[]): void {
  // Changes for an index closed meanwhile (deleted) have nowhere to go.
  const slot = indexes.get(indexId);
  if (!slot) return;
  if (faults && changes.some((c) => c.kind === 'upsert' && c.record.id === FAULT_CRASH_ID)) {
    throw new Error('fault injection: apply failed on purpose');
  }
  for (const change of changes) if (change.seq > slot.seq) slot.seq = change.seq;
  slot.changesSinceSnapshot += changes.length;
  if (slot.loader) {
    for (const change of changes) slot.buffered.push(change);
    return;
  }
  for (const change of changes) slot.engine.apply(change);
  releaseHeld(slot);
  reportStatus(false);
  schedule(); // its slice, the last of a burst when no work follows, reports this seq
}

/** 'catch-up' (protocol.ts): applies what the stores committed beyond each slot's seq. */
function catchUp(): void {
  for (const [indexId, slot] of indexes) {
    // An index whose files are being removed has nothing to catch up (and open would recreate them).
    if (!existsSync(join(slot.dir, RECORD_STORE_FILE))) continue;
    const store = RecordStore.open(slot.dir);
    try {
      const missed = [...store.changesSince(slot.seq)];
      if (missed.length > 0) {
        log('info', 'applied committed changes a failed writer thread had not posted', { indexId, changes: missed.length });
        apply(indexId, missed);
      }
    } finally {
      store.close();
    }
  }
}

// ---- background work ------------------------------------------------------------------

let scheduled = false;
/** Time spent handling messages since the last background slice (sets the next slice's budget). */
let messageMs = 0;
/** The part of it, and of query batches, spent answering reads (sets how soon the next slice may yield to one). */
let readMs = 0;
let workCursor = 0;
let lastStatus = -Infinity;
/** The counts of the last status posted, by index id. */
const lastReported = new Map<string, IndexCount>();

/** Forgets an index (closed, or its load failed); reopened, it reports its count afresh. */
function removeSlot(indexId: string): void {
  indexes.delete(indexId);
  lastReported.delete(indexId);
}

/**
 * Starts background slices after a message that created work (apply, open). While work
 * remains, each slice queues the next itself (nextSlice), so queries never schedule one:
 * an idle worker runs no slice per query.
 */
function schedule(): void {
  if (scheduled || halted) return;
  // From idle: the messages handled while nothing was waiting must not lengthen the first slice.
  messageMs = 0;
  nextSlice();
}

function nextSlice(): void {
  scheduled = true;
  setImmediate(runSlice);
}

function runSlice(): void {
  scheduled = false;
  answerBatch(); // queries first (see "Query batches")
  if (halted) return;
  memory.noteWork();
  const started = performance.now();
  const deadline = started + Math.min(MAX_SLICE_MS, Math.max(SLICE_MS, messageMs, READ_SHARE_FACTOR * readMs));
  // A read arriving during the slice ends its graph work early, but not before the slice
  // has run twice as long as the reads since the previous slice took: under a steady
  // stream of costly queries (exact scans of a large tail) graph work keeps about two
  // thirds of the thread, about what it kept before reads could end a slice (at 1×, a
  // client querying without pause while 100k × 384 records were indexed got 2.3× the
  // answers and indexing took 33% longer; at 2×, 1.6× and 12%), while writes applied
  // meanwhile no longer make a query wait for a long slice.
  const yieldAfter = started + Math.min(MAX_SLICE_MS, READ_SHARE_FACTOR * readMs);
  messageMs = 0;
  readMs = 0;
  let more = false;
  let preempted = false;
  const slots = [...indexes];
  // Loads first: an index that cannot answer at all matters more than a faster one.
  for (const [indexId, slot] of slots) {
    if (!slot.loader) continue;
    if (performance.now() >= deadline || !loadStep(indexId, slot, deadline)) more = true;
  }
  // Then graph work, starting one index further each slice so every index progresses.
  workCursor = (workCursor + 1) % Math.max(1, slots.length);
  for (let i = 0; i < slots.length; i++) {
    const [indexId, slot] = slots[(workCursor + i) % slots.length];
    // A snapshot being written holds the index's graphs still; its end schedules again.
    if (slot.loader || slot.writingSnapshot) continue;
    if (!preempted && slot.engine.hasWork && performance.now() < deadline) {
      const engine = slot.engine;
      preempted = workInQuanta((until) => engine.work(until), () => engine.hasWork, deadline, yieldAfter, readWaiting);
      logProgress(indexId, slot);
    }
    // Checked again at once, so the snapshot follows the end of indexing without waiting for a message.
    if (slot.engine.hasWork) more = true;
    else maybeSnapshot(indexId, slot);
  }
  // The last slice of a burst always reports: nothing may run after it for a long time,
  // and a throttled report would leave the metric showing records still unindexed.
  reportStatus(!more);
  if (more && !halted) nextSlice();
}

/** One load slice; true when the index is loaded (and its open answered). */
function loadStep(indexId: string, slot: IndexSlot, deadline: number): boolean {
  const loader = slot.loader;
  if (!loader) return true;
  try {
    if (!loader.step(deadline, slot.engine)) return false;
    slot.engine.finishRestore();
  } catch (err) {
    loader.close();
    removeSlot(indexId);
    const error = err instanceof Error ? err.message : String(err);
    for (const reqId of slot.openReqIds) post({ type: 'error', reqId, error, retryable: false });
    return true;
  }
  slot.loader = undefined;
  for (const change of slot.buffered) slot.engine.apply(change);
  slot.buffered = [];
  log('info', 'engine loaded index', {
    indexId,
    records: loader.loaded,
    fromSnapshot: slot.fromSnapshot ? 'yes' : 'no',
    unindexed: slot.engine.unindexed,
    ms: Math.round(performance.now() - slot.started),
  });
  for (const reqId of slot.openReqIds) post({ type: 'reply', op: 'open', reqId, result: null });
  return true;
}

function logProgress(indexId: string, slot: IndexSlot): void {
  const now = performance.now();
  if (now - slot.lastProgressLog < PROGRESS_LOG_INTERVAL_MS) return;
  slot.lastProgressLog = now;
  log('info', 'indexing: records not yet in a graph are searched exactly meanwhile', { indexId, unindexed: slot.engine.unindexed });
}

function maybeSnapshot(indexId: string, slot: IndexSlot): void {
  if (slot.changesSinceSnapshot < SNAPSHOT_MIN_CHANGES || slot.writingSnapshot) return;
  const firstGraph = !slot.lastSnapshotHadGraphs && slot.engine.hasGraph;
  const wait = firstGraph ? 0 : slot.lastSnapshotAt + SNAPSHOT_MIN_INTERVAL_MS - performance.now();
  if (wait > 0) {
    // Come back when the interval has passed: an index whose writes stopped runs no more
    // slices, and its graphs would otherwise wait for the next write (or a clean shutdown)
    // to be saved, so a crash meanwhile meant rebuilding them all.
    slot.snapshotTimer ??= setTimeout(() => {
      slot.snapshotTimer = undefined;
      if (halted || indexes.get(indexId) !== slot || slot.loader) return;
      if (slot.engine.hasWork) schedule(); // the slice that ends the work checks again
      else maybeSnapshot(indexId, slot);
    }, wait).unref();
    return;
  }
  snapshotInBackground(indexId, slot);
}

/**
 * A snapshot of the index as it is now, written while the worker goes on (see
 * writeSnapshotInBackground). Never throws and never rejects: a snapshot is a cache, so a
 * failed write is logged and retried later; one given up (the index closed, the worker
 * flushing, a newer snapshot) is dropped silently.
 */
function snapshotInBackground(indexId: string, slot: IndexSlot): void {
  const started = performance.now();
  const seq = slot.seq;
  const changes = slot.changesSinceSnapshot;
  const generation = ++slot.snapshotGeneration;
  const current = (): boolean => !halted && indexes.get(indexId) === slot && slot.snapshotGeneration === generation;
  // Set before anything can fail: a failed snapshot is retried no sooner than a written one.
  slot.lastSnapshotAt = started;
  let namespaces;
  try {
    namespaces = slot.engine.snapshot(seq);
  } catch (err) {
    log('error', 'writing a graph snapshot failed; the next start rebuilds the graphs', { indexId, err: err instanceof Error ? err.message : String(err) });
    return;
  }
  slot.lastSnapshotHadGraphs = namespaces.length > 0;
  slot.writingSnapshot = true;
  writeSnapshotInBackground(slot.dir, slot.shape, seq, namespaces, current)
    .then(
      (committed) => {
        if (!committed || !current()) return;
        // Changes that arrived during the write are not in it.
        slot.changesSinceSnapshot = Math.max(0, slot.changesSinceSnapshot - changes);
        log('info', 'graph snapshot written', { indexId, seq, graphs: namespaces.length, ms: Math.round(performance.now() - started) });
        post({ type: 'snapshot', indexId, seq });
      },
      (err: unknown) => {
        if (!current()) return;
        log('error', 'writing a graph snapshot failed; the next start rebuilds the graphs', {
          indexId,
          err: err instanceof Error ? err.message : String(err),
        });
      },
    )
    .finally(() => {
      slot.writingSnapshot = false;
      // A burst of work: what it freed goes back to the OS once the thread is quiet again.
      memory.noteWork();
      if (indexes.get(indexId) !== slot || halted) return;
      // Changes that arrived meanwhile: their graph work, or (none) their own snapshot in due time.
      if (slot.engine.hasWork) schedule();
      else maybeSnapshot(indexId, slot);
    });
}

/**
 * A snapshot written before this returns (clean shutdown). Never throws: a snapshot is a
 * cache, so a failed write is logged and the next start rebuilds.
 */
function snapshotIndex(indexId: string, slot: IndexSlot): void {
  slot.lastSnapshotAt = performance.now();
  slot.snapshotGeneration++;
  const started = performance.now();
  try {
    const namespaces = slot.engine.snapshot(slot.seq);
    writeSnapshot(slot.dir, slot.shape, slot.seq, namespaces);
    slot.changesSinceSnapshot = 0;
    log('info', 'graph snapshot written', { indexId, seq: slot.seq, graphs: namespaces.length, ms: Math.round(performance.now() - started) });
    post({ type: 'snapshot', indexId, seq: slot.seq });
  } catch (err) {
    log('error', 'writing a graph snapshot failed; the next start rebuilds the graphs', {
      indexId,
      err: err instanceof Error ? err.message : String(err),
    });
  }
}

/**
 * Posts, for each index whose count changed, its records outside a graph and the seq they
 * were counted at (the main thread adds the acknowledged writes above that seq: the
 * conifer_engine_unindexed_records gauge, indexing-backlog.ts), at most once per
 * STATUS_INTERVAL_MS unless `force`d, and at once whenever an index's count rises from 0.
 * That rise must not wait: "the gauge is 0" is how a client (and the bench) knows every
 * acknowledged record is in a graph, and a throttled report left it at 0 for seconds while
 * an import's first batches waited for graph inserts. Called after every slice and every
 * applied batch of changes; forced after the last slice of a burst (every apply schedules
 * at least one slice), so the seq of the last change applied is always reported.
 */
function reportStatus(force: boolean): void {
  const now = performance.now();
  const changed: Record<string, IndexCount> = {};
  let any = false;
  let rose = false;
  for (const [indexId, slot] of indexes) {
    // A loading index is not searchable at all yet: all of its records count as outside a graph.
    const count = { unindexed: slot.loader ? slot.loader.total : slot.engine.unindexed, seq: slot.seq };
    const last = lastReported.get(indexId);
    if (last && last.unindexed === count.unindexed && last.seq === count.seq) continue;
    changed[indexId] = count;
    any = true;
    if (count.unindexed > 0 && !(last && last.unindexed > 0)) rose = true;
  }
  if (!any || (!force && !rose && now - lastStatus < STATUS_INTERVAL_MS)) return;
  lastStatus = now;
  for (const [indexId, count] of Object.entries(changed)) lastReported.set(indexId, count);
  post({ type: 'status', indexes: changed });
}

// ---- the message loop -------------------------------------------------------------------

port.on('message', (msg: EngineRequest) => {
  const started = performance.now();
  const isRead = isReadOp(msg.op);
  if (isRead) readsWaiting?.received();
  try {
    onMessage(msg);
  } finally {
    const ms = performance.now() - started;
    messageMs += ms;
    if (isRead) readMs += ms;
  }
});

/** The current writer thread's port; a new one replaces it (writer or worker restart). */
let writerPort: MessagePort | undefined;

function connectWriter(next: MessagePort): void {
  writerPort?.close();
  writerPort = next;
  next.on('message', (msg: WriterToEngine) => {
    if (next !== writerPort || halted) return;
    const started = performance.now();
    try {
      if (msg.op === 'apply') apply(msg.indexId, msg.changes);
      else catchUp();
    } catch (err) {
      // The structures no longer match the stores: the client restarts this worker.
      halted = true;
      post({ type: 'fatal', error: err instanceof Error ? err.message : String(err) });
    } finally {
      messageMs += performance.now() - started;
    }
  });
}

function onMessage(msg: EngineRequest): void {
  if (msg.op === 'connect-writer') {
    connectWriter(msg.port);
    return;
  }
  answer(msg);
}

function answer(msg: EngineCall): void {
  // A close, reload or flush must not overtake a query that arrived before it.
  if (!isReadOp(msg.op)) answerBatch();
  let reply: EngineReply | undefined;
  try {
    reply = handle(msg);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    reply = { type: 'error', reqId: msg.reqId, error, retryable: err instanceof Retryable };
  }
  if (reply) post(reply);
}
