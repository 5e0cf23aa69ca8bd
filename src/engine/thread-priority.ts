// The CPU priority of the threads that do the heavy work — the writer thread (parse,
// validate, commit every write) and the engine worker (queries, and graph building in
// the background) — relative to the HTTP thread (and the writer's relative to the
// engine's, writerNice below). On a small machine these two can keep
// every core busy during an ingest; the HTTP thread then waits in the run queue behind
// them (measured with bench/ingest-health.ts: per-thread run-queue wait from /proc
// schedstat), and every request, /health included, waits with it. With a higher nice
// value on the busy threads the kernel runs the HTTP thread first whenever it wakes; the
// busy threads still get every cycle nobody else wants, so throughput is unchanged when
// the machine is otherwise idle.
//
// Linux only: setpriority(PRIO_PROCESS, tid) sets one thread's nice value there (POSIX
// says process; Linux applies it per thread), and /proc/thread-self names the caller's
// thread id. Raising one's own nice value needs no privilege. Elsewhere nothing changes.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value this thread runs at, or why it was left alone. */
export type PriorityOutcome = { nice: number } | { skipped: string };

/**
 * The writer thread's nice steps for a configured background nice value: half of it,
 * rounded up (5 at the default 10; 0 stays 0). Both busy threads stay below the HTTP
 * thread, and the writer stays above the engine worker: when the two want the same
 * core, the writer (which every write's acknowledgement waits for) gets ~3× the engine's
 * share (kernel weights 335 : 110 at nice 5 : 10), while graph inserts, which nobody
 * waits for, take what is left and catch up once the ingest stops. Measured with
 * `node dist/bench/ingest-health.js --dim 384 --digits full --vectors 60000` (2 cores, 2
 * runs each, the writer at 10 and at 5): ingest 6,471–7,273 → 8,299–8,760 vectors/s,
 * every record in a graph 36.6–42.3 → 37.7–38.2 s after the ingest's start, /health p99
 * 9.4–10.7 → 11.3–12.7 ms (the same band: 8.9–12.8 over every run); a query during the
 * ingest waits longer at its p99 (120–153 → 255–296 ms), its p50 alike (18–27 ms).
 */
export function writerNice(backgroundNice: number): number {
  return Math.ceil(backgroundNice / 2);
}

/** Raises the calling thread's nice value by `by` (capped at 19); 0 leaves it alone. */
export function lowerThisThreadPriority(by: number): PriorityOutcome {
  if (by <= 0) return { skipped: 'disabled (0)' };
  if (process.platform !== 'linux') return { skipped: `per-thread priority is Linux only (${process.platform})` };
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return { skipped: 'no thread id in /proc/thread-self' };
    const nice = Math.min(19, getPriority(tid) + by);
    setPriority(tid, nice);
    return { nice: getPriority(tid) };
  } catch (err) {
    return { skipped: err instanceof Error ? err.message : String(err) };
  }
}
