// Collections: point-in-time copies of pod indexes (decision 10: Initializing until the
// copy is complete, then Ready; delete shows Terminating until the files are gone).
import type { Catalog } from '../catalog/catalog.js';
import type { CollectionRow } from '../catalog/collections.js';
import { newId, nowIso } from '../catalog/ids.js';
import { isPodSpec, type IndexRow } from '../catalog/indexes.js';
import type { Project } from '../catalog/projects.js';
import type { Config } from '../config.js';
import { conflict, failedPrecondition, forbidden, invalid, notFound, show } from '../errors.js';
import type { JobScheduler } from './index-service.js';
import { requireActive } from './index-service.js';
import { checkName } from './index-rules.js';

/** What a service needs to copy an index's records at this moment; aborting `signal` stops the copy before its next batch. */
export interface IndexSnapshotter {
  snapshotIndex(
    index: IndexRow,
    kind: 'collection' | 'backup',
    id: string,
    signal?: AbortSignal,
  ): { pinned: Promise<unknown>; done: Promise<{ records: number; namespaces: number; bytes: number }> };
}

/**
 * The copies (collections, backups) under way, by id: deleting one stops its copy at the
 * next batch instead of letting it copy to the end into files the delete removes anyway.
 */
export class RunningCopies {
  private readonly byId = new Map<string, AbortController>();

  /**
   * Starts the copy of `id` with a signal of its own, forgotten once the copy ends (done,
   * failed or cancelled). Returns the copy and its signal.
   */
  start<C extends { done: Promise<unknown> }>(id: string, copy: (signal: AbortSignal) => C): { copy: C; signal: AbortSignal } {
    const controller = new AbortController();
    this.byId.set(id, controller);
    const started = copy(controller.signal);
    const forget = (): void => {
      if (this.byId.get(id) === controller) this.byId.delete(id);
    };
    started.done.then(forget, forget);
    return { copy: started, signal: controller.signal };
  }

  /** Stops the copy of `id`, if one runs. Call once the deletion is committed. */
  cancel(id: string): void {
    this.byId.get(id)?.abort();
  }
}

export interface CopyLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A copy needs the source's records in place: not while it is being restored. */
export function requireLoaded(index: IndexRow): void {
  if (index.state === 'Initializing' || index.state === 'InitializationFailed') {
    throw failedPrecondition(
      `index ${index.name} is ${index.state}: its records are still being loaded; retry when it is Ready`,
    );
  }
}

export class CollectionService {
  constructor(
    private readonly config: Config,
    private readonly catalog: Catalog,
    private readonly copies: IndexSnapshotter,
    private readonly jobs: JobScheduler,
    private readonly log: CopyLog,
  ) {}

  private readonly running = new RunningCopies();

  list(project: Project): CollectionRow[] {
    return this.catalog.collections.list(project.id);
  }

  describe(project: Project, name: string): CollectionRow {
    const c = this.catalog.collections.get(project.id, name);
    if (!c) throw notFound(`Collection ${name} not found.`);
    return c;
  }

  /** Answers once the copy's content is fixed (the snapshot is pinned), before it is complete. */
  /** `sourceMissingIs404`: API 2026-07 answers an unknown source with 404, earlier ones with 400. */
  async create(project: Project, body: { name: string; source: string }, sourceMissingIs404 = false): Promise<CollectionRow> {
    requireActive(project);
    const name = checkName('name', body.name);
    const row = this.catalog.transaction(() => {
      if (this.catalog.collections.get(project.id, name)) throw conflict(`Resource already exists: collection ${name}.`);
      const index = this.catalog.indexes.get(project.id, body.source);
      if (!index) {
        const message = `source ${show(body.source)} is not an index of this project`;
        throw sourceMissingIs404 ? notFound(message) : invalid(message);
      }
      if (!isPodSpec(index.spec)) {
        throw invalid(`source ${body.source} is a serverless index: serverless indexes do not support collections (use a backup)`);
      }
      requireLoaded(index);
      const count = this.catalog.collections.list(project.id).length;
      if (count >= this.config.quotaCollections) {
        throw forbidden(
          `collection quota exceeded: the project has ${count} of ${this.config.quotaCollections} allowed ` +
            '(CONIFER_QUOTA_COLLECTIONS). Delete a collection or raise the quota.',
        );
      }
      const c: CollectionRow = {
        id: newId(),
        projectId: project.id,
        name,
        sourceIndexId: index.id,
        sourceIndexName: index.name,
        environment: index.spec.pod.environment,
        dimension: index.dimension,
        metric: index.metric,
        vectorType: index.vectorType,
        status: 'Initializing',
        size: 0,
        vectorCount: 0,
        createdAt: nowIso(),
      };
      this.catalog.collections.insert(c);
      return { row: c, index };
    });
    const { copy, signal } = this.running.start(row.row.id, (s) => this.copies.snapshotIndex(row.index, 'collection', row.row.id, s));
    copy.done.catch(() => undefined); // a copy failing before 'pinned' rejects both; pinned reports it
    try {
      await copy.pinned;
    } catch (err) {
      this.catalog.collections.delete(row.row.id);
      throw err;
    }
    copy.done
      .then(
        (result) => {
          const current = this.catalog.collections.getById(row.row.id);
          if (current?.status !== 'Initializing') return; // deleted meanwhile
          this.catalog.collections.update(row.row.id, { status: 'Ready', size: result.bytes, vectorCount: result.records });
          this.log.info({ collection: name, records: result.records, bytes: result.bytes }, 'collection ready');
        },
        (err: unknown) => {
          if (signal.aborted) {
            this.log.info({ collection: name }, 'collection copy stopped: the collection was deleted');
            return;
          }
          this.log.error({ err, collection: name }, 'collection copy failed');
          if (this.catalog.collections.getById(row.row.id)?.status !== 'Initializing') return;
          // A partial copy (a full disk, typically) only takes space: remove its files now.
          this.catalog.transaction(() => {
            this.catalog.collections.update(row.row.id, { status: 'Failed' });
            this.catalog.jobs.add('remove-collection-files', row.row.id, {});
          });
          this.jobs.nudge();
        },
      )
      // The catalog could not record the outcome (a full disk): the row stays Initializing
      // and the next start marks it Failed (failInterrupted).
      .catch((err: unknown) => this.log.error({ err, collection: name }, 'recording the collection outcome failed'));
    return row.row;
  }

  delete(project: Project, name: string): void {
    const id = this.catalog.transaction(() => {
      const c = this.describe(project, name);
      if (c.status === 'Terminating') return undefined;
      // An index being created from it reads its files until loaded (as a backup's restore).
      const pending = this.catalog.backups.pendingRestoresFrom(c.id);
      if (pending.length > 0) {
        throw failedPrecondition(
          `Unable to delete collection ${name}: indexes are being created from it: ` +
            `[${pending.map((j) => `'${j.targetIndexName}'`).join(', ')}]; retry when they are Ready`,
        );
      }
      this.catalog.collections.update(c.id, { status: 'Terminating' });
      this.catalog.jobs.add('remove-collection', c.id, {});
      return c.id;
    });
    if (id !== undefined) this.running.cancel(id);
    this.jobs.nudge();
  }

  /** At start: a copy interrupted by the restart can't resume its point in time. */
  failInterrupted(): void {
    for (const c of this.catalog.collections.withStatus('Initializing')) {
      this.catalog.collections.update(c.id, { status: 'Failed' });
      this.catalog.jobs.add('remove-collection-files', c.id, {});
      this.log.error({ collection: c.name }, 'collection copy was interrupted by a restart; marked Failed');
    }
  }
}
