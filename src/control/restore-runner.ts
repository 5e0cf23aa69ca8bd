// Restores: a new index (state Initializing) is filled from a backup or collection and
// loaded, then becomes Ready. The job row tracks progress; the source is immutable, so
// a restore interrupted by a restart starts again from the beginning. Deleting the
// target index cancels its restore: the job ends Failed saying so, in the delete's own
// transaction, and the copy stops without loading anything.
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
    signal: AbortSignal,
  ): Promise<void>;
}

export interface RestoreLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export class RestoreRunner {
  private readonly running = new Set<Promise<void>>();
  /** Restores under way by target index id, to cancel them when the index is deleted. */
  private readonly cancels = new Map<string, AbortController>();

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
      error: null,
    };
    return this.catalog.backups.insertRestore(job);
  }

  start(job: RestoreJobRow, index: IndexRow): void {
    const controller = new AbortController();
    this.cancels.set(index.id, controller);
    const work = this.run(job, index, controller.signal);
    this.running.add(work);
    void work.finally(() => {
      this.running.delete(work);
      if (this.cancels.get(index.id) === controller) this.cancels.delete(index.id);
    });
  }

  /**
   * Call inside the transaction that deletes `index`: its pending restore ends Failed with
   * the reason. Then call cancel() once that transaction has committed.
   */
  failForDeletedIndex(index: IndexRow): void {
    for (const job of this.catalog.backups.pendingRestoresInto(index.id)) {
      this.catalog.backups.finishRestore(job.id, 'Failed', deletedMessage(index.name));
    }
  }

  /** Stops the restore into a deleted index: its copy stops and nothing is loaded. */
  cancel(indexId: string): void {
    this.cancels.get(indexId)?.abort();
  }

  /** Restarts every restore a previous process left unfinished. */
  resume(): void {
    for (const job of this.catalog.backups.pendingRestores()) {
      const index = this.catalog.indexes.getById(job.targetIndexId);
      if (index) this.start(job, index);
      else this.catalog.backups.finishRestore(job.id, 'Failed', deletedMessage(job.targetIndexName));
    }
  }

  /** Waits for restores under way (used by tests of shutdown; restarts resume them). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async run(job: RestoreJobRow, index: IndexRow, signal: AbortSignal): Promise<void> {
    const started = Date.now();
    const where = { index: index.name, indexId: index.id, source: job.sourceId, restoreJob: job.id };
    try {
      await this.copier.restoreInto(
        job.sourceKind,
        job.sourceId,
        index,
        (percent) => {
          try {
            this.catalog.backups.restoreProgress(job.id, Math.min(99, Math.floor(percent)));
          } catch (err) {
            // Progress is informative only; a catalog that cannot store it must not stop the copy.
            this.log.error({ ...where, err }, 'recording restore progress failed');
          }
        },
        signal,
      );
      const completed = this.catalog.transaction(() => {
        const current = this.catalog.indexes.getById(index.id);
        if (!current) return false; // deleted: the delete already failed the job
        this.catalog.indexes.update({ ...current, state: 'Ready' });
        this.catalog.backups.finishRestore(job.id, 'Completed');
        return true;
      });
      if (completed) this.log.info({ ...where, ms: Date.now() - started }, 'restore completed');
      else this.log.info(where, 'restore cancelled: its index was deleted');
    } catch (err) {
      if (signal.aborted || !this.catalog.indexes.getById(index.id)) {
        // Expected: the index was deleted while the restore ran (see failForDeletedIndex).
        this.log.info(where, 'restore cancelled: its index was deleted');
        return;
      }
      this.log.error({ ...where, err }, 'restore failed');
      const reason = err instanceof Error ? err.message : String(err);
      try {
        this.catalog.transaction(() => {
          const current = this.catalog.indexes.getById(index.id);
          if (current) this.catalog.indexes.update({ ...current, state: 'InitializationFailed' });
          this.catalog.backups.finishRestore(job.id, 'Failed', `restore into index ${index.name} failed: ${reason}`);
        });
      } catch (failed) {
        // Not even the failure can be recorded (a full disk): the job stays Pending, and the
        // next start runs the restore again.
        this.log.error({ ...where, err: failed }, 'recording the failed restore failed');
      }
    }
  }
}

function deletedMessage(indexName: string): string {
  return `Index ${indexName} was deleted while the restore into it was running; the restore was cancelled and nothing was restored.`;
}
