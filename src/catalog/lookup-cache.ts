// The per-request catalog lookups (API key → project, index host → index) served from
// memory instead of SQLite (issue 15: every request paid two catalog queries).
//
// Invariant: a cached answer is never older than the last catalog commit that happened
// before the request started, whoever made it. Two kinds of writer exist:
// - this process, through this connection: every write method of Projects and Indexes
//   clears its cache synchronously, before it returns, so the next lookup (even within
//   the same request) reads SQLite again;
// - another process (`conifer keys revoke`, `conifer projects suspend` run beside the
//   server, src/cli/admin.ts): SQLite's `data_version` changes when another connection
//   commits. `revalidate()` — called once at the start of every authenticated request —
//   reads it, together with this connection's `total_changes()` (catalog writes made
//   elsewhere in this process, e.g. a restore job changing what an index row joins),
//   and clears every cache when either moved. One statement per request instead of
//   two lookups and their row decoding.
// Nothing is cached while a transaction is open: a row read inside a transaction that
// later rolls back must not outlive it. Cached values are frozen so no caller can change
// what the next request sees.
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

export class CatalogFreshness {
  private readonly versionStmt;
  private readonly caches: LookupCache<object>[] = [];
  private lastChanges = -1;
  private lastVersion = -1;

  constructor(private readonly db: Db) {
    this.versionStmt = db.prepare<[], { changes: number; version: number }>(
      'SELECT total_changes() AS changes, data_version AS version FROM pragma_data_version',
    );
  }

  /** A cache that revalidate() clears; its owner clears it on its own writes too. */
  cache<V extends object>(): LookupCache<V> {
    const cache = new LookupCache<V>(this.db);
    this.caches.push(cache);
    return cache;
  }

  /** Clears every cache if any connection committed to the catalog since the last call. */
  revalidate(): void {
    const row = this.versionStmt.get();
    if (!row) return;
    if (row.changes === this.lastChanges && row.version === this.lastVersion) return;
    this.lastChanges = row.changes;
    this.lastVersion = row.version;
    for (const cache of this.caches) cache.clear();
  }
}

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) deepFreeze(v as object);
  return Object.freeze(value);
}
