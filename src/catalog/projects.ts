// Projects and their API keys. A key belongs to exactly one project and sees only it.
import type { Db } from './database.js';
import { hashApiKey, newApiKeySecret, newId, nowIso } from './ids.js';
import type { CatalogFreshness, LookupCache } from './lookup-cache.js';

/** The project `conifer start` creates on first start; dev mode's keys all belong to it. */
export const DEFAULT_PROJECT = 'default';

export interface Project {
  id: string;
  name: string;
  suspended: boolean;
  createdAt: string;
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  projectId: string;
  createdAt: string;
  revoked: boolean;
}

interface ProjectRow {
  id: string;
  name: string;
  suspended: number;
  created_at: string;
}

interface KeyRow {
  id: string;
  name: string;
  project_id: string;
  created_at: string;
  revoked_at: string | null;
}

const toProject = (r: ProjectRow): Project => ({
  id: r.id,
  name: r.name,
  suspended: r.suspended === 1,
  createdAt: r.created_at,
});

const toKey = (r: KeyRow): ApiKeyInfo => ({
  id: r.id,
  name: r.name,
  projectId: r.project_id,
  createdAt: r.created_at,
  revoked: r.revoked_at !== null,
});

export class Projects {
  private readonly byKeyHash;
  private readonly byName;
  private readonly byId;
  /** Key hash → its project (active keys only), see lookup-cache.ts; cleared by every write below. */
  private readonly byKeyCache: LookupCache<Project>;

  constructor(
    private readonly db: Db,
    freshness: CatalogFreshness,
  ) {
    this.byKeyCache = freshness.cache<Project>();
    this.byKeyHash = db.prepare<[string], ProjectRow>(
      `SELECT p.* FROM api_keys k JOIN projects p ON p.id = k.project_id
       WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    );
    this.byName = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE name = ?');
    this.byId = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE id = ?');
  }

  /** The project a key secret belongs to, or undefined for an unknown or revoked key. */
  authenticate(secret: string): Project | undefined {
    const hash = hashApiKey(secret);
    return this.byKeyCache.get(hash, () => {
      const row = this.byKeyHash.get(hash);
      return row && toProject(row);
    });
  }

  get(name: string): Project | undefined {
    const row = this.byName.get(name);
    return row && toProject(row);
  }

  getById(id: string): Project | undefined {
    const row = this.byId.get(id);
    return row && toProject(row);
  }

  list(): Project[] {
    return this.db.prepare<[], ProjectRow>('SELECT * FROM projects ORDER BY name').all().map(toProject);
  }

  create(name: string): Project {
    this.byKeyCache.clear();
    const row: ProjectRow = { id: newId(), name, suspended: 0, created_at: nowIso() };
    this.db
      .prepare('INSERT INTO projects (id, name, suspended, created_at) VALUES (@id, @name, @suspended, @created_at)')
      .run(row);
    return toProject(row);
  }

  setSuspended(id: string, suspended: boolean): void {
    this.byKeyCache.clear();
    this.db.prepare('UPDATE projects SET suspended = ? WHERE id = ?').run(suspended ? 1 : 0, id);
  }

  /** Creates a key; the secret is returned here and never stored. */
  createKey(projectId: string, name: string, secret: string = newApiKeySecret()): { info: ApiKeyInfo; secret: string } {
    this.byKeyCache.clear();
    const row: KeyRow & { key_hash: string } = {
      id: newId(),
      name,
      project_id: projectId,
      key_hash: hashApiKey(secret),
      created_at: nowIso(),
      revoked_at: null,
    };
    this.db
      .prepare(
        `INSERT INTO api_keys (id, project_id, name, key_hash, created_at, revoked_at)
         VALUES (@id, @project_id, @name, @key_hash, @created_at, @revoked_at)`,
      )
      .run(row);
    return { info: toKey(row), secret };
  }

  listKeys(projectId: string): ApiKeyInfo[] {
    return this.db
      .prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, id')
      .all(projectId)
      .map(toKey);
  }

  /** Returns false when the project has no such key. */
  revokeKey(projectId: string, keyId: string): boolean {
    this.byKeyCache.clear();
    const result = this.db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND project_id = ? AND revoked_at IS NULL')
      .run(nowIso(), keyId, projectId);
    return result.changes === 1;
  }
}
