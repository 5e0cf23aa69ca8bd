// Runs the catalog's durable jobs in the background, one at a time, in id order. A job
// is deleted only after its work is done, so a crash or restart simply runs it again;
// every job is therefore idempotent.
import type { Catalog } from '../catalog/catalog.js';
import type { Job } from '../catalog/jobs.js';
import type { JobScheduler } from './index-service.js';

/**
 * The removals answer false, without removing anything, while a copy still uses the
 * files (for example a cancelled restore that has not stopped yet): the job is then run
 * again later. That is expected, not a failure, so it is not logged as one.
 */
export interface JobHandlers {
  /** Removes everything stored for a deleted index; false while a copy uses its files. */
  removeIndexFiles(indexId: string): Promise<boolean>;
  /** Removes a collection's or backup's files; false while a copy uses them. */
  removeCopyFiles(kind: 'collection' | 'backup', id: string): Promise<boolean>;
}

export interface JobLog {
  error(obj: object, msg: string): void;
}

const SCALING_STATES = new Set(['ScalingUp', 'ScalingDown', 'ScalingUpPodSize']);
const RETRY_AFTER_FAILURE_MS = 1000;
const RETRY_AFTER_BUSY_MS = 200;

export class JobRunner implements JobScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly catalog: Catalog,
    private readonly handlers: JobHandlers,
    private readonly log: JobLog,
  ) {}

  /** Runs every job that is due now (recovery at start), then keeps running in the background. */
  async start(): Promise<void> {
    await this.tick();
  }

  nudge(): void {
    if (this.stopped) return;
    this.schedule(0);
  }

  /** Stops at a safe point: the job under way finishes, no new one starts. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined); // already logged by its tick
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  private async tick(): Promise<void> {
    if (this.running) {
      // A tick is under way; run again once it ends so nothing queued meanwhile waits.
      await this.running.catch(() => undefined); // the tick that runs it reports failures
      if (!this.stopped) this.schedule(0);
      return;
    }
    this.running = this.runDue();
    try {
      await this.running;
      if (this.stopped) return;
      const next = this.catalog.jobs.nextRunAfter();
      if (next !== undefined) this.schedule(Math.max(0, next - Date.now()));
    } catch (err) {
      // The catalog itself failed (a full disk cannot record a job as done or postponed):
      // the jobs stay in the catalog, so try again later instead of crashing.
      this.log.error({ err }, 'background jobs could not run; will retry');
      if (!this.stopped) this.schedule(RETRY_AFTER_FAILURE_MS);
    } finally {
      this.running = undefined;
    }
  }

  private async runDue(): Promise<void> {
    for (const job of this.catalog.jobs.due()) {
      if (this.stopped) return;
      try {
        if (await this.run(job)) this.catalog.jobs.done(job.id);
        else this.catalog.jobs.postpone(job.id, Date.now() + RETRY_AFTER_BUSY_MS);
      } catch (err) {
        this.log.error({ err, job: job.id, kind: job.kind }, 'background job failed; will retry');
        this.catalog.jobs.postpone(job.id, Date.now() + RETRY_AFTER_FAILURE_MS);
      }
    }
  }

  /** Does the job's work; false when it cannot yet (files in use) and must run again. */
  private async run(job: Job): Promise<boolean> {
    switch (job.kind) {
      case 'finish-scaling': {
        // Nothing physical changes in one process (DESIGN.md "Pods, replicas, shards"):
        // the change is applied once its transitional state has been shown.
        const index = this.catalog.indexes.getById(job.target);
        if (index && SCALING_STATES.has(index.state)) {
          this.catalog.indexes.update({ ...index, state: 'Ready' });
        }
        return true;
      }
      case 'remove-index-files':
        return this.handlers.removeIndexFiles(job.target);
      case 'remove-collection':
        // The row stays (status Terminating) until its files are gone.
        if (!(await this.handlers.removeCopyFiles('collection', job.target))) return false;
        this.catalog.collections.delete(job.target);
        return true;
      case 'remove-collection-files':
        return this.handlers.removeCopyFiles('collection', job.target);
      case 'remove-backup-files':
        return this.handlers.removeCopyFiles('backup', job.target);
    }
  }
}
