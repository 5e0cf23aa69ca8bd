// Returns the memory a burst of work freed to the operating system once the work stops.
// Two kinds of memory stay resident though free after an ingest:
// - a worker thread's JavaScript heap keeps its young generation at the largest size it
//   grew to (32 MiB) until its next collection, which an idle thread never runs: after
//   100k × 384 the writer's and the engine worker's held 64 MiB, mostly empty;
// - every thread that allocates natively gets a glibc arena, and an arena keeps what was
//   freed in it for reuse (the request bodies, what indexing freed).
// So each such thread, QUIET_MS after its last burst of work (the engine worker: its last
// background slice, which every apply, load and graph insert runs in; the writer: its
// last write; the HTTP thread: its last data-plane write, whose young generation an
// ingest's bodies grow to 16 MiB, once reads have paused too; reads alone earn no release,
// routes/data-plane.ts says why), releases both once (the engine worker first shrinks
// its growable structures to fit, engine-worker.ts): it tells V8 its heap is under moderate memory pressure
// (releaseIsolateMemory: an incremental collection that ends by shrinking the heap; the
// thread keeps answering meanwhile), then runs glibc's malloc_trim on a libuv pool thread
// (releaseFreeMemory: one pass after an ingest took 45–75 ms here, which no query should
// wait for). Not again until the next burst; during a long ingest nothing is released
// (the heaps and arenas reuse what they hold). 100k × 384 dense ingest, server RSS growth
// per vector (tmp script, 6 runs): 5,225–5,382 B when fully indexed with no release;
// 4,409–4,920 B at rest with malloc_trim alone; 3,647–3,977 B with the heap step too
// (3,749 B with the incremental one used here). The benchmark reports both moments.
import { nativeAddon } from '../native-addon.js';

/** How long a thread must go without work before it releases memory. */
export const QUIET_MS = 2000;

/** This thread's heap, then malloc's arenas. */
export async function releaseThisThreadsMemory(): Promise<void> {
  if (!nativeAddon) return;
  nativeAddon.releaseIsolateMemory();
  await nativeAddon.releaseFreeMemory();
}

export class QuietRelease {
  private timer: NodeJS.Timeout | undefined;
  private releasing = false;

  /**
   * `release` starts one release and settles when it is done; `onError` hears a release
   * that failed (the process carries on: the memory just stays resident).
   */
  constructor(
    private readonly onError: (err: unknown) => void,
    private readonly release: () => Promise<unknown> = releaseThisThreadsMemory,
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

  /**
   * Activity that earns no release of its own but must not meet one: a release already
   * earned waits until the quiet period has passed after this too (the HTTP thread's
   * reads, routes/data-plane.ts says why).
   */
  noteActivity(): void {
    this.timer?.refresh();
  }

  /** Cancels a pending release (the thread is stopping). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    // One at a time: work noted meanwhile schedules the next.
    if (this.releasing) return this.noteWork();
    this.releasing = true;
    // A release that throws at once is a failed release too, not a crash of the thread.
    Promise.resolve()
      .then(this.release)
      .catch(this.onError)
      .finally(() => {
        this.releasing = false;
      });
  }
}
