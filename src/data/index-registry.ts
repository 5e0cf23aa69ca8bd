// The registry of open indexes: each index's record store (main thread: reads, purges,
// compaction), its write connection (the writer thread) and its search structures (the
// engine worker). It creates an index's storage, recovers
// every index at start, hides an index while it loads (503 with Retry-After), frees
// dropped namespaces in bounded background chunks, and removes a deleted index's files.
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IndexRow } from '../catalog/indexes.js';
import { indexDir } from '../catalog/paths.js';
import type { IndexStorage, LoadState } from '../control/index-service.js';
import type { EngineClient } from '../engine/engine-client.js';
import type { IndexShape } from '../engine/model.js';
import { filterableFields } from './filterable-fields.js';
import { RecordStore } from '../engine/store/record-store.js';
import { isStorageFull, unavailable } from '../errors.js';
import { isCopyActive } from './snapshot-copy.js';
import type { WriterClient } from './writer/writer-client.js';

/** Rows freed per purge step; each step is one short transaction between requests. */
const PURGE_ROWS_PER_STEP = 2000;
/** Tombstones forgotten per compaction step (one short transaction each). */
const COMPACT_ROWS_PER_STEP = 2000;
/** Wait before retrying a purge step that failed for lack of space. */
const PURGE_RETRY_MS = 5000;

interface OpenIndex {
  store: RecordStore;
  loaded: boolean;
  /** The engine could not load it: 503 until a restart. */
  failed: boolean;
  purging: boolean;
}

export interface RegistryLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const shapeOf = (index: IndexRow): IndexShape => {
  const filterable = filterableFields(index);
  const shape: IndexShape = { dimension: index.dimension ?? 0, metric: index.metric };
  if (filterable) shape.filterable = filterable;
  return shape;
};

export class IndexRegistry implements IndexStorage {
  private readonly open = new Map<string, OpenIndex>();
  private closed = false;

  constructor(
    private readonly dataDir: string,
    readonly engine: EngineClient,
    readonly writer: WriterClient,
    private readonly log: RegistryLog,
  ) {
    engine.onSnapshot = (indexId, seq) => this.scheduleCompaction(indexId, seq);
  }

  /**
   * Creates the empty storage of a new index (inside its catalog transaction). It is
   * usable at once (decision 10): the worker handles the open message before any change
   * or query posted after it, so nothing needs to wait for the load to finish.
   */
  create(index: IndexRow): void {
    const dir = indexDir(this.dataDir, index.id);
    let store: RecordStore;
    try {
      store = RecordStore.open(dir);
    } catch (err) {
      // A full disk, typically: leave no half-made store behind, and let the caller answer.
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    void this.attach(index, store, true, store.fileBytes());
  }

  discard(indexId: string): void {
    this.removeIndexFiles(indexId).catch((err: unknown) =>
      this.log.error({ err, indexId }, 'removing the storage of an index that was not created failed'),
    );
  }

  /**
   * Opens and loads every index; resolves when all are searchable (GET /ready). Largest
   * first, each to the engine worker with the fewest bytes so far (EngineClient.shardOf):
   * the workers load in parallel, so the start lasts as long as the busiest worker's
   * loads, and placing the largest first balances them best.
   */
  async recover(indexes: IndexRow[]): Promise<void> {
    const opened: { index: IndexRow; store: RecordStore; bytes: number }[] = [];
    for (const index of indexes) {
      const store = this.openStore(index);
      if (store) opened.push({ index, store, bytes: store.fileBytes() });
    }
    opened.sort((a, b) => b.bytes - a.bytes);
    await Promise.all(opened.map(({ index, store, bytes }) => this.attach(index, store, false, bytes)));
  }

  /** Opens and loads one index whose storage was filled by a restore. */
  async load(index: IndexRow): Promise<void> {
    await this.openIndex(index);
    if (!this.open.get(index.id)?.loaded) throw new Error(`index ${index.name} could not be loaded`);
  }

  /**
   * Whether an index's data plane can serve. An index the catalog calls Ready is still
   * 'loading' after a restart until recovery has loaded it (no entry yet, or not loaded),
   * so its record must not say Ready meanwhile (decision 10).
   */
  loadState(index: IndexRow): LoadState {
    const entry = this.open.get(index.id);
    if (!entry) return 'loading';
    if (entry.failed) return 'failed';
    return entry.loaded ? 'loaded' : 'loading';
  }

  /** The store of a loaded index; 503 while it is still loading. */
  store(index: IndexRow): RecordStore {
    const entry = this.open.get(index.id);
    if (entry?.failed) {
      throw unavailable(`Index ${index.name} failed to load (see the server log); restart the server to retry.`, 60);
    }
    if (!entry || !entry.loaded) {
      throw unavailable(`Index ${index.name} is loading; retry shortly.`, 1);
    }
    return entry.store;
  }

  /** The store directory of a loaded index, for a write on the writer thread; 503 while it loads. */
  writableDir(index: IndexRow): string {
    this.store(index);
    return indexDir(this.dataDir, index.id);
  }

  /**
   * Records and namespaces holding records of a loaded index, read from its counts table
   * (never a record scan, so a metrics scrape stays cheap); undefined while it loads.
   */
  counts(indexId: string): { records: number; namespaces: number } | undefined {
    const entry = this.open.get(indexId);
    if (!entry || !entry.loaded) return undefined;
    const namespaces = entry.store.namespaces();
    let records = 0;
    let holding = 0;
    for (const ns of namespaces) {
      records += ns.count;
      if (ns.count > 0) holding++;
    }
    return { records, namespaces: holding };
  }

  /** Indexes whose store is open (loaded or loading). */
  openCount(): number {
    return this.open.size;
  }

  /** Starts freeing the rows of dropped namespaces in the background. */
  schedulePurge(indexId: string): void {
    const entry = this.open.get(indexId);
    if (!entry || entry.purging) return;
    entry.purging = true;
    const step = (): void => {
      if (this.closed || this.open.get(indexId) !== entry) return;
      try {
        if (entry.store.purgeStep(PURGE_ROWS_PER_STEP)) {
          setImmediate(step);
          return;
        }
      } catch (err) {
        if (isStorageFull(err)) {
          // Freeing needs a little space (WAL frames) before it returns any; try again later.
          this.log.error({ err, indexId }, 'freeing dropped records failed: the disk is full; will retry');
          setTimeout(step, PURGE_RETRY_MS).unref();
          return;
        }
        this.log.error({ err, indexId }, 'freeing dropped records failed; will retry at next start');
      }
      entry.purging = false;
    };
    setImmediate(step);
  }

  /**
   * Forgets tombstones up to `seq` once the engine's snapshot at `seq` is durable: the
   * engine rebuilds from the store's live records plus that snapshot, so nothing needs
   * those deletions any more (they would otherwise grow forever).
   */
  private scheduleCompaction(indexId: string, seq: number): void {
    const entry = this.open.get(indexId);
    if (!entry) return;
    const step = (): void => {
      if (this.closed || this.open.get(indexId) !== entry) return;
      try {
        if (entry.store.compactTombstones(seq, COMPACT_ROWS_PER_STEP)) setImmediate(step);
      } catch (err) {
        this.log.error({ err, indexId }, 'compacting tombstones failed; will retry after the next snapshot');
      }
    };
    setImmediate(step);
  }

  /** Closes and removes a deleted index; false (nothing done) while a copy uses its files. */
  async removeIndexFiles(indexId: string): Promise<boolean> {
    if (isCopyActive(indexDir(this.dataDir, indexId))) return false;
    const entry = this.open.get(indexId);
    if (entry) {
      this.open.delete(indexId);
      entry.store.close();
      await this.writer.close(indexId);
      await this.engine.close(indexId);
    }
    // Retries (ENOTEMPTY): a snapshot the engine was writing in the background checks that
    // its index is still open before each file it creates, but one file may be on its way.
    await rm(indexDir(this.dataDir, indexId), { recursive: true, force: true, maxRetries: 3 });
    return true;
  }

  /** Closes every store; the engine worker is stopped by its owner. */
  close(): void {
    this.closed = true;
    for (const entry of this.open.values()) entry.store.close();
    this.open.clear();
  }

  /** Never rejects: a failure is logged and the index answers 503 until a restart. */
  private async openIndex(index: IndexRow): Promise<void> {
    const store = this.openStore(index);
    if (store) await this.attach(index, store, false, store.fileBytes());
  }

  /** The index's record store, or undefined after logging why it cannot be opened. */
  private openStore(index: IndexRow): RecordStore | undefined {
    try {
      return RecordStore.open(indexDir(this.dataDir, index.id));
    } catch (err) {
      this.log.error({ err, index: index.name, indexId: index.id }, 'opening index storage failed');
      return undefined;
    }
  }

  /**
   * Never rejects: a failure is logged and the index answers 503 until a restart. `bytes`:
   * the store's size, by which the engine spreads indexes over its workers.
   */
  private async attach(index: IndexRow, store: RecordStore, usableAtOnce: boolean, bytes: number): Promise<void> {
    const dir = indexDir(this.dataDir, index.id);
    const entry: OpenIndex = { store, loaded: usableAtOnce, failed: false, purging: false };
    this.open.set(index.id, entry);
    // Reads report (and wait for) at least the store's last seq, so LSNs never go back across a restart.
    this.writer.noteSeq(index.id, store.snapshotSeq());
    const started = Date.now();
    try {
      await this.engine.open(index.id, dir, shapeOf(index), index.hostId, usableAtOnce, bytes);
    } catch (err) {
      entry.loaded = false;
      entry.failed = true;
      this.log.error({ err, index: index.name, indexId: index.id }, 'loading index failed');
      return;
    }
    // Closed (shutdown) or deleted while it loaded: the store is no longer ours to use.
    if (this.closed || this.open.get(index.id) !== entry) return;
    entry.loaded = true;
    if (!usableAtOnce) {
      this.log.info(
        { index: index.name, records: entry.store.totalCount(), ms: Date.now() - started },
        'index loaded',
      );
    }
    this.schedulePurge(index.id);
  }
}
