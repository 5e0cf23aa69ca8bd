// Returns the memory a burst of work freed to the operating system once the work stops.
// Every thread that allocates gets a glibc arena of its own, and an arena keeps what was
// freed in it for reuse: after an ingest, the request bodies received on the HTTP thread
// and parsed on the writer thread, and what indexing freed here, stay resident though
// free (~0.9 KB per 384-d vector ingested; 100k vectors: server RSS 633 → 543 MiB after
// one release). So the engine worker, QUIET_MS after its last background slice (every
// apply, load and graph insert runs in one), asks once for the native
// releaseFreeMemory() (native/release-memory.cc), then not again until the next slice.
// The release runs on a libuv pool thread (one pass after an ingest took 75 ms here), so
// no query waits for it; malloc's own locks make it safe beside every other thread.
// During a long ingest nothing is released: the arenas reuse what they hold.
import { nativeAddon } from '../native-addon.js';

/** How long the worker must go without background work before memory is released. */
export const QUIET_MS = 2000;

export class QuietRelease {
  private timer: NodeJS.Timeout | undefined;
  private releasing = false;

  /**
   * `release` starts one release and settles when it is done; `onError` hears a release
   * that failed (the process carries on: the memory just stays resident).
   */
  constructor(
    private readonly onError: (err: unknown) => void,
    private readonly release: () => Promise<unknown> = () => nativeAddon?.releaseFreeMemory() ?? Promise.resolve(false),
    private readonly quietMs = QUIET_MS,
  ) {}

  /** Work was done: the quiet period starts again from now. */
  noteWork(): void {
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => this.fire(), this.quietMs);
    // Never what keeps the thread alive.
    this.timer.unref();
  }

  /** Cancels a pending release (the worker is stopping). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    // One at a time: work noted meanwhile schedules the next.
    if (this.releasing) return this.noteWork();
    this.releasing = true;
    this.release()
      .catch(this.onError)
      .finally(() => {
        this.releasing = false;
      });
  }
}
