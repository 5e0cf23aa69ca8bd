// Restores: a new index (state Initializing) is filled from a backup or collection and
// loaded, then becomes Ready. The job row tracks progress; the source is immutable, so
// a restore interrupted by a restart starts again from the beginning.
import type { Catalog } from '../catalog/catalog.js';
import type { RestoreJobRow } from '../catalog/backups.js';
import { newId, nowIso } from '../catalog/ids.js';
import type { Project } from '../catalog/projects.js';
import type { IndexRow } from '../catalog/indexes.js';

export interface RestoreCopier {
  restoreInto(
    kind: 'collection' | 'backup',
    id: string,
    index: IndexRow,
    onProgress: (percent: number) => void,
  ): Promise<void>;
}

export interface RestoreLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export class RestoreRunner {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly catalog: Catalog,
    private readonly copier: RestoreCopier,
    private readonly log: RestoreLog,
  ) {}

  /** Records a pending restore of `index` (call inside the transaction creating it). */
  record(project: Project, kind: 'collection' | 'backup', sourceId: string, index: IndexRow): RestoreJobRow {
    const job: Omit<RestoreJobRow, 'seq'> = {
      id: newId(),
      projectId: project.id,
      sourceKind: kind,
      sourceId,
      targetIndexId: index.id,
      targetIndexName: index.name,
      status: 'Pending',
      percentComplete: 0,
      createdAt: nowIso(),
      completedAt: null,
    };
    return this.catalog.backups.insertRestore(job);
  }

  start(job: RestoreJobRow, index: IndexRow): void {
    const work = this.run(job, index);
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  /** Restarts every restore a previous process left unfinished. */
  resume(): void {
    for (const job of this.catalog.backups.pendingRestores()) {
      const index = this.catalog.indexes.getById(job.targetIndexId);
      if (index) this.start(job, index);
      else this.catalog.backups.updateRestore(job.id, 'Failed', job.percentComplete, nowIso());
    }
  }

  /** Waits for restores under way (used by tests of shutdown; restarts resume them). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async run(job: RestoreJobRow, index: IndexRow): Promise<void> {
    const started = Date.now();
    try {
      await this.copier.restoreInto(job.sourceKind, job.sourceId, index, (percent) => {
        try {
          this.catalog.backups.updateRestore(job.id, 'Pending', Math.min(99, Math.floor(percent)), null);
        } catch (err) {
          // Progress is informative only; a catalog that cannot store it must not stop the copy.
          this.log.error({ err, index: index.name }, 'recording restore progress failed');
        }
      });
      this.catalog.transaction(() => {
        const current = this.catalog.indexes.getById(index.id);
        if (current) this.catalog.indexes.update({ ...current, state: 'Ready' });
        this.catalog.backups.updateRestore(job.id, 'Completed', 100, nowIso());
      });
      this.log.info({ index: index.name, source: job.sourceId, ms: Date.now() - started }, 'restore completed');
    } catch (err) {
      this.log.error({ err, index: index.name, source: job.sourceId }, 'restore failed');
      try {
        this.catalog.transaction(() => {
          const current = this.catalog.indexes.getById(index.id);
          if (current) this.catalog.indexes.update({ ...current, state: 'InitializationFailed' });
          this.catalog.backups.updateRestore(job.id, 'Failed', job.percentComplete, nowIso());
        });
      } catch (failed) {
        // Not even the failure can be recorded (a full disk): the job stays Pending, and the
        // next start runs the restore again.
        this.log.error({ err: failed, index: index.name }, 'recording the failed restore failed');
      }
    }
  }
}
