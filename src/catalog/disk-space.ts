// Keeps a full volume survivable (issue 11). Two mechanisms, both on the data
// directory's volume:
//
// 1. A free-space threshold (CONIFER_MIN_FREE_BYTES). Writes that grow storage (upserts,
//    updates, creating indexes, namespaces, collections, backups, restores) are refused
//    with 507 while less than that is free, before SQLite runs out: the headroom stays for
//    what must keep working when space is short — deletes (which add tombstones and WAL
//    frames before they free anything), configure (turning deletion protection off),
//    background file removal and checkpoints.
// 2. A reserve file ("ballast", CONIFER_DISK_RESERVE_BYTES) of zeros written while space
//    is plentiful. When something else eats the headroom too (another process, a copy
//    that outgrew its estimate) and a delete (or a start) finds less than the reserve's
//    size free, the file is deleted, handing its space back so deletes and a restart
//    (which must create the catalog's -wal/-shm files) still succeed. It must exceed what
//    a record store's checkpoint can add to its file: up to SQLite's 1,000-page WAL
//    checkpoint interval, 8 MiB with the stores' 8 KiB pages. It is written again once
//    free space is back above threshold + 2 × reserve.
//
// Free space is measured with statfs (bytes available to this user). For growing writes
// the figure is cached: measured again after MEASURE_EVERY_MS, after admitting a quarter
// of the threshold in writes, or after a write failed for lack of space — not a syscall
// per upsert. Deletes and other writes measure afresh: they are what must succeed.
import { existsSync, rmSync, statfsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { insufficientStorage } from '../errors.js';
import { reserveFile } from './paths.js';

const MEASURE_EVERY_MS = 1000;
/** The reserve is written in chunks of this size (zeros really allocate blocks, unlike a sparse file). */
const RESERVE_CHUNK_BYTES = 1024 * 1024;

export interface DiskSpaceOptions {
  minFreeBytes: number;
  reserveBytes: number;
}

export interface DiskSpaceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export class DiskSpace {
  private free = Number.POSITIVE_INFINITY;
  private measuredAt = 0;
  /** Bytes of growing writes admitted since the last measurement (an estimate: request sizes). */
  private admitted = 0;
  private writingReserve = false;

  constructor(
    private readonly dataDir: string,
    private readonly options: DiskSpaceOptions,
    private readonly log: DiskSpaceLog,
  ) {}

  /**
   * At start, before the catalog opens: a reserve left half-written by a crash is removed,
   * and on a volume already below the reserve's size the reserve is released, so opening
   * the stores (which may need to create their -wal/-shm files) has room.
   */
  prepare(): void {
    rmSync(`${reserveFile(this.dataDir)}.tmp`, { force: true });
    this.measure();
    this.releaseIfShort();
  }

  /** Free bytes on the data directory's volume (cached). */
  freeBytes(): number {
    const stale =
      Date.now() - this.measuredAt >= MEASURE_EVERY_MS || this.admitted >= this.options.minFreeBytes / 4;
    if (stale) this.measure();
    return this.free;
  }

  /**
   * For a write that grows storage by about `bytes`: 507 INSUFFICIENT_STORAGE when it
   * would leave less than the threshold free (a threshold of 0 turns the check off). `what` names the write in the message.
   */
  requireSpace(what: string, bytes: number): void {
    if (this.options.minFreeBytes === 0) return; // the threshold is off: SQLite decides
    const free = this.freeBytes();
    if (free - bytes < this.options.minFreeBytes) {
      throw insufficientStorage(
        `the disk is full: ${what} refused, the data directory's volume has ${free} bytes free and ` +
          `Conifer keeps at least ${this.options.minFreeBytes} (CONIFER_MIN_FREE_BYTES) for deletes. ` +
          'Reads and deletes still work; free space or delete data (a namespace, an index, a backup), then retry.',
      );
    }
    this.admitted += bytes;
  }

  /**
   * For every other write (deletes, configure): never refused, and measured afresh (one
   * statfs, microseconds), so the reserve is released before a delete that needs it.
   */
  touch(): void {
    this.measure();
    this.releaseIfShort();
  }

  /** A storage write failed for lack of space: measure again, releasing the reserve, at once. */
  noteFull(): void {
    this.measure();
    this.releaseIfShort();
  }

  /**
   * Deletes the reserve when less than its size is free. Only for writes that are never
   * refused (and at start): growing writes are refused below the threshold anyway, so
   * they must not spend the reserve that deletes will need.
   */
  private releaseIfShort(): void {
    const path = reserveFile(this.dataDir);
    if (this.writingReserve || this.free >= this.options.reserveBytes || !existsSync(path)) return;
    rmSync(path, { force: true });
    this.log.warn({ freeBytes: this.free, reserveBytes: this.options.reserveBytes }, 'disk nearly full: released the disk reserve');
    this.measure();
  }

  private measure(): void {
    try {
      const s = statfsSync(this.dataDir);
      this.free = s.bavail * s.bsize;
    } catch (err) {
      // Unmeasurable (unlikely on a directory we hold open): assume room, let SQLite decide.
      this.log.warn({ err }, 'could not measure free disk space');
      this.free = Number.POSITIVE_INFINITY;
    }
    this.measuredAt = Date.now();
    this.admitted = 0;
    const reserve = this.options.reserveBytes;
    if (reserve === 0 || this.writingReserve) return;
    // Written again only with room for it and the threshold to spare, so writing it never
    // makes the threshold refuse writes, and releasing and rewriting cannot alternate.
    const path = reserveFile(this.dataDir);
    if (this.free >= this.options.minFreeBytes + 2 * reserve && !existsSync(path)) void this.writeReserve(path);
  }

  /** Writes the reserve to a temporary name and renames it: a partial reserve never counts. */
  private async writeReserve(path: string): Promise<void> {
    this.writingReserve = true;
    const tmp = `${path}.tmp`;
    try {
      const file = await open(tmp, 'w');
      try {
        const chunk = Buffer.alloc(RESERVE_CHUNK_BYTES);
        for (let written = 0; written < this.options.reserveBytes; written += chunk.length) {
          await file.write(chunk, 0, Math.min(chunk.length, this.options.reserveBytes - written));
        }
        // No fsync: the blocks are allocated by the writes (statfs shows them taken), and a
        // reserve lost in a crash is written again at the next measurement.
      } finally {
        await file.close();
      }
      await rename(tmp, path);
      this.log.info({ reserveBytes: this.options.reserveBytes }, 'disk reserve written');
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => undefined);
      this.log.warn({ err }, 'could not write the disk reserve; will try again when space allows');
    } finally {
      this.writingReserve = false;
      this.measuredAt = 0; // the reserve took space: measure before the next write
    }
  }
}
