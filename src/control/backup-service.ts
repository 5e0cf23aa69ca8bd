// Backups of serverless indexes and restores from them. A backup is a point-in-time copy
// that outlives its source index; restoring one creates a new index (202 + a restore
// job) that is Initializing until its records are loaded.
import type { BackupRow, RestoreJobRow } from '../catalog/backups.js';
import type { Catalog } from '../catalog/catalog.js';
import { newId, nowIso, randomAlnum } from '../catalog/ids.js';
import { isPodSpec, type IndexRow, type ReadCapacity } from '../catalog/indexes.js';
import type { Project } from '../catalog/projects.js';
import type { Config } from '../config.js';
import { conflict, failedPrecondition, forbidden, invalid, notFound } from '../errors.js';
import { requireLoaded, RunningCopies, type CopyLog, type IndexSnapshotter } from './collection-service.js';
import type { IndexService, JobScheduler } from './index-service.js';
import { requireActive } from './index-service.js';
import { checkDeletionProtection, checkName, checkReadCapacity, checkTags, TAG_RULES, type TagRules } from './index-rules.js';
import type { RestoreRunner } from './restore-runner.js';

export interface Paged<T> {
  items: T[];
  /** The seq to continue below, when more remain. */
  nextBefore?: number;
}

export interface RestoreBody {
  name: string;
  tags?: Record<string, string>;
  deletion_protection?: string;
  read_capacity?: ReadCapacity;
}

export class BackupService {
  constructor(
    private readonly config: Config,
    private readonly catalog: Catalog,
    private readonly indexes: IndexService,
    private readonly copies: IndexSnapshotter,
    private readonly restorer: RestoreRunner,
    private readonly jobs: JobScheduler,
    private readonly log: CopyLog,
  ) {}

  private readonly running = new RunningCopies();

  /**
   * Answers once the copy's content is fixed (the snapshot is pinned). `emptyNameAllowed`:
   * whether a name of "" means "none" (API versions before 2026-07, which require 1-45
   * characters when a name is sent).
   */
  async create(project: Project, indexName: string, body: { name?: string; description?: string }, emptyNameAllowed = true): Promise<BackupRow> {
    const index = this.indexes.describe(project, indexName);
    requireActive(project);
    if (body.name !== undefined && (body.name !== '' || !emptyNameAllowed)) checkName('name', body.name);
    if (isPodSpec(index.spec)) {
      throw invalid(`index ${indexName} is a pod index: backups are for serverless indexes (use a collection)`);
    }
    requireLoaded(index);
    const serverless = index.spec.serverless;
    const row = this.catalog.transaction(() => {
      const count = this.catalog.backups.count(project.id);
      if (count >= this.config.quotaBackups) {
        throw forbidden(
          `backup quota exceeded: the project has ${count} of ${this.config.quotaBackups} allowed ` +
            '(CONIFER_QUOTA_BACKUPS). Delete a backup or raise the quota.',
        );
      }
      return this.catalog.backups.insert({
        id: newId(),
        projectId: project.id,
        // Pinecone names an unnamed backup; so does Conifer, after its index and time.
        name: body.name || `${index.name}-${Date.now().toString(36)}`,
        description: body.description ?? '',
        sourceIndexId: index.id,
        sourceIndexName: index.name,
        cloud: serverless.cloud,
        region: serverless.region,
        dimension: index.dimension,
        metric: index.metric,
        vectorType: index.vectorType,
        schema: serverless.schema ?? { fields: {} },
        tags: { ...index.tags },
        status: 'Initializing',
        namespaceCount: 0,
        recordCount: 0,
        sizeBytes: 0,
        createdAt: nowIso(),
      });
    });
    const { copy, signal } = this.running.start(row.id, (s) => this.copies.snapshotIndex(index, 'backup', row.id, s));
    copy.done.catch(() => undefined); // a copy failing before 'pinned' rejects both; pinned reports it
    let pinned: { records: number; namespaces: number };
    try {
      pinned = (await copy.pinned) as { records: number; namespaces: number };
    } catch (err) {
      this.catalog.backups.delete(row.id);
      throw err;
    }
    // The counts are those of the pinned snapshot: known before the copy completes.
    this.catalog.backups.setCounts(row.id, pinned.records, pinned.namespaces);
    copy.done
      .then(
        (result) => {
          if (this.catalog.backups.getById(row.id)?.status !== 'Initializing') return;
          this.catalog.backups.finish(row.id, 'Ready', result.bytes);
          this.log.info({ backup: row.id, records: result.records, bytes: result.bytes }, 'backup ready');
        },
        (err: unknown) => {
          if (signal.aborted) {
            this.log.info({ backup: row.id }, 'backup copy stopped: the backup was deleted');
            return;
          }
          this.log.error({ err, backup: row.id }, 'backup copy failed');
          if (this.catalog.backups.getById(row.id)?.status !== 'Initializing') return;
          // A partial copy (a full disk, typically) only takes space: remove its files now.
          this.catalog.transaction(() => {
            this.catalog.backups.finish(row.id, 'Failed', 0);
            this.catalog.jobs.add('remove-backup-files', row.id, {});
          });
          this.jobs.nudge();
        },
      )
      // The catalog could not record the outcome (a full disk): the row stays Initializing
      // and the next start marks it Failed (failInterrupted).
      .catch((err: unknown) => this.log.error({ err, backup: row.id }, 'recording the backup outcome failed'));
    return { ...row, recordCount: pinned.records, namespaceCount: pinned.namespaces };
  }

  describe(project: Project, id: string): BackupRow {
    const b = this.catalog.backups.get(project.id, id);
    if (!b) throw notFound(`Backup ${id} not found.`);
    return b;
  }

  /** Backups of one index (404 when it does not exist, unless includeDeleted) or of the project. */
  list(project: Project, indexName: string | undefined, includeDeleted: boolean, before: number | undefined, limit: number): Paged<BackupRow> {
    // Without include_deleted, only backups of the live index of that name (not of
    // earlier indexes that had it).
    const live = indexName !== undefined && !includeDeleted ? this.indexes.describe(project, indexName) : undefined;
    const rows = this.catalog.backups.page(project.id, indexName, { before, limit: limit + 1 }, live?.id);
    return page(rows, limit);
  }

  delete(project: Project, id: string): void {
    const deleted = this.catalog.transaction(() => {
      const b = this.describe(project, id);
      const pending = this.catalog.backups.pendingRestoresFrom(b.id);
      if (pending.length > 0) {
        throw failedPrecondition(
          `Unable to delete backup ${id}: there are pending restore jobs for this backup: ` +
            `[${pending.map((j) => `'${j.id}'`).join(', ')}]`,
        );
      }
      this.catalog.backups.delete(b.id);
      this.catalog.jobs.add('remove-backup-files', b.id, {});
      return b.id;
    });
    this.running.cancel(deleted);
    this.jobs.nudge();
  }

  /** `tagRules`: those of the request's API version (index-rules.ts TagRules). */
  restore(project: Project, backupId: string, body: RestoreBody, tagRules: TagRules = TAG_RULES): RestoreJobRow {
    requireActive(project);
    const backup = this.describe(project, backupId);
    const name = checkName('name', body.name);
    if (backup.status !== 'Ready') {
      throw failedPrecondition(`Backup ${backupId} is not completed (status ${backup.status}); retry when it is Ready`);
    }
    // The backup's tags passed its index's rules (perhaps another API version's): only
    // tags given here are checked, by the rules of this request's version.
    if (body.tags !== undefined) checkTags(body.tags, false, tagRules);
    const tags = body.tags ?? { ...backup.tags };
    const readCapacity = body.read_capacity === undefined ? { mode: 'OnDemand' as const } : checkReadCapacity('read_capacity', body.read_capacity);
    const index: IndexRow = {
      id: newId(),
      projectId: project.id,
      name,
      hostId: `${name}-${randomAlnum(7)}`,
      dimension: backup.dimension,
      metric: backup.metric,
      vectorType: backup.vectorType,
      deletionProtection: checkDeletionProtection('deletion_protection', body.deletion_protection ?? 'disabled'),
      tags,
      spec: {
        serverless: {
          cloud: backup.cloud,
          region: backup.region,
          read_capacity: readCapacity,
          ...(Object.keys(backup.schema.fields).length > 0 ? { schema: backup.schema } : {}),
        },
      },
      state: 'Initializing',
      createdAt: nowIso(),
    };
    const job = this.catalog.transaction(() => {
      if (this.catalog.indexes.get(project.id, name)) throw conflict(`Resource already exists: index ${name}.`);
      this.indexes.insertChecked(project, index);
      return this.restorer.record(project, 'backup', backup.id, index);
    });
    this.restorer.start(job, index);
    return job;
  }

  describeRestore(project: Project, id: string): RestoreJobRow {
    const job = this.catalog.backups.getRestore(project.id, id);
    if (!job || job.sourceKind !== 'backup') throw notFound(`Restore job ${id} not found.`);
    return job;
  }

  listRestores(project: Project, before: number | undefined, limit: number): Paged<RestoreJobRow> {
    return page(this.catalog.backups.restorePage(project.id, { before, limit: limit + 1 }), limit);
  }

  /** At start: a backup interrupted by the restart can't resume its point in time. */
  failInterrupted(): void {
    for (const b of this.catalog.backups.withStatus('Initializing')) {
      this.catalog.backups.finish(b.id, 'Failed', 0);
      this.catalog.jobs.add('remove-backup-files', b.id, {});
      this.log.error({ backup: b.id }, 'backup copy was interrupted by a restart; marked Failed');
    }
  }
}

function page<T extends { seq: number }>(rows: T[], limit: number): Paged<T> {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, nextBefore: items[items.length - 1].seq };
}
