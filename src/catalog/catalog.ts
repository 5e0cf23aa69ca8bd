// The catalog: one SQLite database holding projects, keys, indexes and durable jobs.
import type { Db } from './database.js';
import { openCatalogDb } from './database.js';
import { Backups } from './backups.js';
import { Collections } from './collections.js';
import { Imports } from './imports.js';
import { Indexes } from './indexes.js';
import { Jobs } from './jobs.js';
import { CatalogFreshness } from './lookup-cache.js';
import { Projects } from './projects.js';

export class Catalog {
  readonly projects: Projects;
  readonly indexes: Indexes;
  readonly jobs: Jobs;
  readonly collections: Collections;
  readonly backups: Backups;
  readonly imports: Imports;
  /** Keeps the per-request lookup caches current; `revalidate()` once per request (src/server/auth.ts). */
  readonly freshness: CatalogFreshness;

  private constructor(private readonly db: Db) {
    this.freshness = new CatalogFreshness(db);
    this.projects = new Projects(db, this.freshness);
    this.indexes = new Indexes(db, this.freshness);
    this.jobs = new Jobs(db);
    this.collections = new Collections(db);
    this.backups = new Backups(db);
    this.imports = new Imports(db);
  }

  static open(dataDir: string): Catalog {
    return new Catalog(openCatalogDb(dataDir));
  }

  /** Runs fn in one IMMEDIATE transaction: the catalog's unit of atomic change. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  close(): void {
    this.freshness.close();
    this.db.close();
  }
}
