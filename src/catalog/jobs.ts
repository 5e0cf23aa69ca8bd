// Durable background work. A job is inserted in the same transaction as the change
// that needs it, and deleted when done, so a restart resumes whatever was unfinished.
import type { Db } from './database.js';
import { nowIso } from './ids.js';

export type JobKind =
  | 'finish-scaling'
  | 'remove-index-files'
  /** Removes a collection's files and then its row (a delete). */
  | 'remove-collection'
  /** Removes only the files (a failed collection keeps its row). */
  | 'remove-collection-files'
  | 'remove-backup-files';

export interface Job {
  id: number;
  kind: JobKind;
  /** The id of the thing the job works on (an index id). */
  target: string;
  payload: Record<string, unknown>;
  runAfter: number;
}

interface SqlJob {
  id: number;
  kind: string;
  target: string;
  payload: string;
  run_after: number;
}

export class Jobs {
  private readonly insertStmt;
  private readonly dueStmt;
  private readonly deleteStmt;
  private readonly deleteForStmt;
  private readonly nextStmt;
  private readonly postponeStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO jobs (kind, target, payload, run_after, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.dueStmt = db.prepare<[number], SqlJob>('SELECT * FROM jobs WHERE run_after <= ? ORDER BY id');
    this.deleteStmt = db.prepare('DELETE FROM jobs WHERE id = ?');
    this.deleteForStmt = db.prepare('DELETE FROM jobs WHERE target = ? AND kind = ?');
    this.nextStmt = db.prepare<[], { next: number | null }>('SELECT MIN(run_after) AS next FROM jobs');
    this.postponeStmt = db.prepare('UPDATE jobs SET run_after = ? WHERE id = ?');
  }

  add(kind: JobKind, target: string, payload: Record<string, unknown>, runAfter: number = Date.now()): void {
    this.insertStmt.run(kind, target, JSON.stringify(payload), runAfter, nowIso());
  }

  /** Jobs whose time has come, oldest first. */
  due(now: number = Date.now()): Job[] {
    return this.dueStmt.all(now).map((r) => ({
      id: r.id,
      kind: r.kind as JobKind,
      target: r.target,
      payload: JSON.parse(r.payload) as Record<string, unknown>,
      runAfter: r.run_after,
    }));
  }

  /** When the earliest pending job is due, if any. */
  nextRunAfter(): number | undefined {
    return this.nextStmt.get()?.next ?? undefined;
  }

  postpone(id: number, runAfter: number): void {
    this.postponeStmt.run(runAfter, id);
  }

  done(id: number): void {
    this.deleteStmt.run(id);
  }

  /** Drops pending jobs of one kind for a target (a newer change supersedes them). */
  cancel(target: string, kind: JobKind): void {
    this.deleteForStmt.run(target, kind);
  }
}
