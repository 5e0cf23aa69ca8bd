// Versioned schema of the catalog. Each entry moves the database from version i to i+1
// (PRAGMA user_version); entries are never edited once released, only appended.
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE projects (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    suspended  INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
  );
  -- Keys are stored only as SHA-256 hashes of random secrets and found by hash.
  CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(id),
    name       TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  -- One row per live index. Deleting an index removes its row in the same transaction
  -- that queues the removal of its files, so the name is free at once.
  CREATE TABLE indexes (
    id                  TEXT PRIMARY KEY,
    project_id          TEXT NOT NULL REFERENCES projects(id),
    name                TEXT NOT NULL,
    host_id             TEXT NOT NULL UNIQUE,
    dimension           INTEGER,
    metric              TEXT NOT NULL,
    vector_type         TEXT NOT NULL,
    deletion_protection TEXT NOT NULL,
    tags                TEXT NOT NULL,
    spec                TEXT NOT NULL,
    state               TEXT NOT NULL,
    created_at          TEXT NOT NULL,
    UNIQUE (project_id, name)
  );
  -- Background work that must survive a restart (finish a scaling change, remove the
  -- files of a deleted index). A job row is deleted when its work is done.
  CREATE TABLE jobs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL,
    target     TEXT NOT NULL,
    payload    TEXT NOT NULL,
    run_after  INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  `,
];
