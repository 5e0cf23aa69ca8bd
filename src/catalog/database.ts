// Opens the catalog (SQLite, WAL) and brings its schema up to date. The server and the
// `conifer` admin commands may open it at the same time; WAL plus a busy timeout lets
// them share it, and the server reads keys per request so admin changes apply at once.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { MIGRATIONS } from './migrations.js';
import { catalogFile } from './paths.js';

export type Db = Database.Database;

export function openCatalogDb(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(catalogFile(dataDir));
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `catalog schema version ${current} is newer than this Conifer (${MIGRATIONS.length}); upgrade Conifer`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}
