// Reads before background work, even in the middle of a slice (engine-worker.ts
// "Scheduling"). A worker sees a message only between turns of its event loop, so a read
// that arrives while a slice inserts into a graph used to wait for the whole slice: during
// an ingest the slices grow with the writes applied between them (up to MAX_SLICE_MS),
// and a query waited ~18 ms at p50 for the slice before it (100k × 384 medium ingest,
// bench/ingest-health.ts). So the thread that posts reads (engine-shard.ts) counts each
// one into a shared counter as it posts it, the worker counts it out as it receives it,
// and a slice does its graph work in quanta of QUANTUM_MS, ending after the quantum in
// which it sees a read waiting.
//
// Invariant: the counter only steers scheduling, never what a read sees (read-your-writes
// rests on sequence numbers, engine-worker.ts). A count that is off costs speed only; a
// worker that dies with reads in flight takes its counter with it (its successor gets a
// fresh one).
// Thread rule: the posting thread only adds, the worker only subtracts and reads, both
// with Atomics; nothing else touches the buffer.

/** How long one piece of a slice's graph work runs before the slice looks for waiting reads. */
export const QUANTUM_MS = 1;

/** The shared count of reads posted to one worker and not yet received by it. */
export class ReadsWaiting {
  private readonly count: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)) {
    this.count = new Int32Array(buffer);
  }

  /** On the posting thread, before it posts a read. */
  posted(): void {
    Atomics.add(this.count, 0, 1);
  }

  /** On the worker, as it receives a read. */
  received(): void {
    Atomics.sub(this.count, 0, 1);
  }

  get any(): boolean {
    return this.value > 0;
  }

  get value(): number {
    return Atomics.load(this.count, 0);
  }
}

/**
 * Runs `step(until)` in quanta of QUANTUM_MS until `deadline` or until `hasWork()` is
 * false; once `yieldAfter` has passed it also stops after any quantum that ends with
 * `readWaiting()` true, and then returns true ("stopped for a read"). The first quantum
 * always runs, so background work progresses under any stream of reads; `yieldAfter` is
 * how the caller keeps background work's share (engine-worker.ts runSlice).
 */
export function workInQuanta(
  step: (until: number) => void,
  hasWork: () => boolean,
  deadline: number,
  yieldAfter: number,
  readWaiting: () => boolean,
  now: () => number = () => performance.now(),
): boolean {
  for (;;) {
    step(Math.min(deadline, now() + QUANTUM_MS));
    if (!hasWork()) return false;
    const t = now();
    if (t >= deadline) return false;
    if (t >= yieldAfter && readWaiting()) return true;
  }
}
