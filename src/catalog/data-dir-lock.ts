// The data-directory lock: one server process per data directory. It is an exclusive
// SQLite lock on `conifer.lock` (a POSIX advisory lock underneath), so the kernel
// releases it when the holder dies, even by SIGKILL — no stale lock files to clean up.
// Taking it writes nothing: under locking_mode=EXCLUSIVE, an empty BEGIN EXCLUSIVE ...
// COMMIT acquires the exclusive lock and keeps it until the connection closes. So a
// restart on a full volume still gets its lock (the file exists from the first start).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { lockFile } from './paths.js';

export class DataDirLockedError extends Error {}

export class DataDirLock {
  private constructor(private readonly db: Database.Database) {}

  static acquire(dataDir: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true });
    const path = lockFile(dataDir);
    const db = new Database(path);
    try {
      db.pragma('busy_timeout = 0');
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
      db.exec('COMMIT');
    } catch (err) {
      db.close();
      if ((err as { code?: string }).code === 'SQLITE_BUSY') {
        throw new DataDirLockedError(
          `data directory ${dataDir} is in use by another Conifer process (lock held on ${path}); ` +
            'stop it or choose another CONIFER_DATA_DIR',
        );
      }
      throw err;
    }
    return new DataDirLock(db);
  }

  release(): void {
    this.db.close();
  }
}
