// Physical copies between index storage and collection/backup storage. Every copy is a
// snapshot copy in a worker (snapshot-copy.ts); a directory that a copy reads or writes
// is never removed while the copy runs (the removal job is retried later).
import { rm } from 'node:fs/promises';
import type { IndexRow } from '../catalog/indexes.js';
import { backupDir, collectionDir, indexDir } from '../catalog/paths.js';
import type { IndexRegistry } from './index-registry.js';
import { CopyCancelled, copySnapshot, isCopyActive, type CopyHandle } from './snapshot-copy.js';

export type CopyKind = 'collection' | 'backup';

export interface CopyLog {
  info(obj: object, msg: string): void;
}

export class Copies {
  constructor(
    private readonly dataDir: string,
    private readonly registry: IndexRegistry,
    private readonly log: CopyLog,
  ) {}

  private dirOf(kind: CopyKind, id: string): string {
    return kind === 'collection' ? collectionDir(this.dataDir, id) : backupDir(this.dataDir, id);
  }

  /** Copies the records an index holds now into a new collection or backup. */
  snapshotIndex(index: IndexRow, kind: CopyKind, id: string, signal?: AbortSignal): CopyHandle {
    const target = this.dirOf(kind, id);
    return copySnapshot(
      { source: indexDir(this.dataDir, index.id), target },
      (done, total) => this.log.info({ kind, id, source: index.name, done, total }, `${kind} copy progress`),
      signal,
    );
  }

  /**
   * Fills a new index's storage from a collection or backup and loads it into the
   * engine. Starts from scratch (an interrupted restore leaves a partial copy behind).
   * Aborting `signal` (the index was deleted) stops the copy and rejects with
   * CopyCancelled; a cancelled restore never loads anything.
   */
  async restoreInto(
    kind: CopyKind,
    id: string,
    index: IndexRow,
    onProgress: (percent: number) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const target = indexDir(this.dataDir, index.id);
    await rm(target, { recursive: true, force: true });
    if (signal.aborted) throw new CopyCancelled();
    const handle = copySnapshot(
      { source: this.dirOf(kind, id), target },
      (done, total) => {
        onProgress(total === 0 ? 100 : (100 * done) / total);
        this.log.info({ kind, id, index: index.name, done, total }, 'restore progress');
      },
      signal,
    );
    await handle.done;
    // Checked with no await before load: once load has registered the index, deleting it
    // closes and removes that registration (IndexRegistry.removeIndexFiles).
    if (signal.aborted) throw new CopyCancelled();
    await this.registry.load(index);
  }

  /** Removes a collection's or backup's files; false (nothing done) while a copy uses them. */
  async removeFiles(kind: CopyKind, id: string): Promise<boolean> {
    const dir = this.dirOf(kind, id);
    if (isCopyActive(dir)) return false;
    await rm(dir, { recursive: true, force: true });
    return true;
  }

  isIndexBusy(indexId: string): boolean {
    return isCopyActive(indexDir(this.dataDir, indexId));
  }
}
