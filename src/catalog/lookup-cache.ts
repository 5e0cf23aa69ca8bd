// The per-request catalog lookups (API key → project, index host → index) served from
// memory instead of SQLite (issue 15: every request paid two catalog queries).
//
// Invariant: a cached answer is never older than the last catalog commit that happened
// before the request started, whoever made it. Two kinds of writer exist:
// - this process, through this connection: every write method of Projects and Indexes
//   clears its cache synchronously, before it returns, so the next lookup (even within
//   the same request) reads SQLite again;
// - anyone else: another process (`conifer keys revoke`, `conifer projects suspend` run
//   beside the server, src/cli/admin.ts), or this connection outside those methods (e.g.
//   a restore job changing what an index row joins). `revalidate()`, called once at the
//   start of every authenticated request, clears every cache when any commit happened
//   since its last call.
// How revalidate() sees a commit: the catalog is in WAL mode, and every commit, by any
// connection of any process, rewrites the header at the start of the WAL-index (the
// `-shm` file: its iChange counts transactions, mxFrame the WAL's frames; documented for
// the unix VFS in https://www.sqlite.org/walformat.html, and fixed, since processes of
// different SQLite versions share it). revalidate() reads that header's 48 bytes with one
// pread — about 1 µs — where a statement reading `data_version` must start a read
// transaction: ~7 µs in a loop, ~40 µs measured at the start of a request on the HTTP
// thread. A commit finished before the read has changed the header (the page cache is
// shared with SQLite's mapping); a read torn by a commit in progress differs too, and
// only costs a needless clear. The descriptor stays valid: SQLite removes the -shm file
// only when the last connection closes, and this connection is open until close().
// Where the catalog is not in WAL mode (SQLite could not map shared memory), revalidate()
// falls back to that statement.
// Nothing is cached while a transaction is open: a row read inside a transaction that
// later rolls back must not outlive it. Cached values are frozen so no caller can change
// what the next request sees.
import { closeSync, openSync, readSync } from 'node:fs';
import type { Db } from './database.js';

/** Entries per cache; past it the cache starts over (keys and indexes are few; this only bounds a pathological case). */
const MAX_ENTRIES = 10_000;

export class LookupCache<V extends object> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly db: Db) {}

  /** The cached value of `key`, else `load()` (cached when found and no transaction is open). */
  get(key: string, load: () => V | undefined): V | undefined {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = load();
    if (value === undefined || this.db.inTransaction) return value;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, deepFreeze(value));
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Bytes of the first copy of the WAL-index header (walformat.html §2.1). */
const WAL_INDEX_HEADER_BYTES = 48;

export class CatalogFreshness {
  private readonly caches: LookupCache<object>[] = [];
  /** The WAL-index file, open for reading; undefined when the catalog is not in WAL mode. */
  private walIndex: number | undefined;
  private readonly header = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  private readonly lastHeader = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  /** The fallback without a WAL-index: SQLite's commit counters, by statement. */
  private readonly versionStmt;
  private lastChanges = -1;
  private lastVersion = -1;

  constructor(private readonly db: Db) {
    this.versionStmt = db.prepare<[], { changes: number; version: number }>(
      'SELECT total_changes() AS changes, data_version AS version FROM pragma_data_version',
    );
    if (db.pragma('journal_mode', { simple: true }) === 'wal' && !db.memory) {
      // The connection has mapped the file by now (opening in WAL mode reads the schema).
      this.walIndex = openSync(`${db.name}-shm`, 'r');
    }
  }

  /** A cache that revalidate() clears; its owner clears it on its own writes too. */
  cache<V extends object>(): LookupCache<V> {
    const cache = new LookupCache<V>(this.db);
    this.caches.push(cache);
    return cache;
  }

  /** Clears every cache if any connection committed to the catalog since the last call. */
  revalidate(): void {
    if (!this.committedSinceLastCall()) return;
    for (const cache of this.caches) cache.clear();
  }

  close(): void {
    if (this.walIndex !== undefined) closeSync(this.walIndex);
    this.walIndex = undefined;
  }

  private committedSinceLastCall(): boolean {
    if (this.walIndex !== undefined) {
      const n = readSync(this.walIndex, this.header, 0, WAL_INDEX_HEADER_BYTES, 0);
      if (n === WAL_INDEX_HEADER_BYTES && this.header.equals(this.lastHeader)) return false;
      this.header.copy(this.lastHeader);
      return true;
    }
    const row = this.versionStmt.get();
    if (row && row.changes === this.lastChanges && row.version === this.lastVersion) return false;
    this.lastChanges = row?.changes ?? -1;
    this.lastVersion = row?.version ?? -1;
    return true;
  }
}

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) deepFreeze(v as object);
  return Object.freeze(value);
}
