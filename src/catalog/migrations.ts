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
  `
  -- Collections and backups are copies of an index's records taken at one point in
  -- time, stored under collections/<id>/ and backups/<id>/. Status Initializing until
  -- the copy is complete; a copy interrupted by a restart is marked Failed.
  CREATE TABLE collections (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects(id),
    name         TEXT NOT NULL,
    source_index_id   TEXT NOT NULL,
    source_index_name TEXT NOT NULL,
    environment  TEXT NOT NULL,
    dimension    INTEGER,
    metric       TEXT NOT NULL,
    vector_type  TEXT NOT NULL,
    status       TEXT NOT NULL,
    size         INTEGER NOT NULL DEFAULT 0,
    vector_count INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL,
    UNIQUE (project_id, name)
  );
  -- seq orders listings newest first and is the key of their page tokens.
  CREATE TABLE backups (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    project_id   TEXT NOT NULL REFERENCES projects(id),
    name         TEXT NOT NULL,
    description  TEXT NOT NULL,
    source_index_id   TEXT NOT NULL,
    source_index_name TEXT NOT NULL,
    cloud        TEXT NOT NULL,
    region       TEXT NOT NULL,
    dimension    INTEGER,
    metric       TEXT NOT NULL,
    vector_type  TEXT NOT NULL,
    schema       TEXT NOT NULL,
    tags         TEXT NOT NULL,
    status       TEXT NOT NULL,
    namespace_count INTEGER NOT NULL DEFAULT 0,
    record_count INTEGER NOT NULL DEFAULT 0,
    size_bytes   INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL
  );
  CREATE INDEX backups_by_index ON backups (project_id, source_index_name, seq);
  -- A restore loads a backup or collection into a new index (state Initializing).
  -- Sources are immutable, so an interrupted restore simply starts again.
  CREATE TABLE restore_jobs (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    project_id   TEXT NOT NULL REFERENCES projects(id),
    source_kind  TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    target_index_id   TEXT NOT NULL,
    target_index_name TEXT NOT NULL,
    status       TEXT NOT NULL,
    percent_complete REAL NOT NULL DEFAULT 0,
    created_at   TEXT NOT NULL,
    completed_at TEXT
  );
  `,
  `
  -- Bulk imports (Pinecone's /bulk/imports) into one index from a local Parquet
  -- directory. seq is the import id on the wire ("101") and the key of list pages.
  -- The cursor (file_index, row_in_file) is the first row not yet known to be committed;
  -- it advances after each committed batch, so a restart resumes there (a batch whose
  -- commit raced the crash is written again: imports upsert, so that is harmless).
  CREATE TABLE bulk_imports (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    index_id         TEXT NOT NULL,
    uri              TEXT NOT NULL,
    source_dir       TEXT NOT NULL,
    -- Names, sizes and modification times of the source files when the import started;
    -- a resumed import refuses a source that changed meanwhile.
    source_fingerprint TEXT,
    on_error         TEXT NOT NULL CHECK (on_error IN ('abort', 'continue')),
    status           TEXT NOT NULL,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    total_rows       INTEGER NOT NULL DEFAULT 0,
    rows_done        INTEGER NOT NULL DEFAULT 0,
    records_imported INTEGER NOT NULL DEFAULT 0,
    records_failed   INTEGER NOT NULL DEFAULT 0,
    file_index       INTEGER NOT NULL DEFAULT 0,
    row_in_file      INTEGER NOT NULL DEFAULT 0,
    error            TEXT,
    created_at       TEXT NOT NULL,
    finished_at      TEXT
  );
  CREATE INDEX bulk_imports_by_index ON bulk_imports (index_id, seq);
  `,
  `
  -- Why a restore job failed (for example: its target index was deleted while it ran).
  ALTER TABLE restore_jobs ADD COLUMN error TEXT;
  `,
];
