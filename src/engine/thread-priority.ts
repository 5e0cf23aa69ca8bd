// The CPU priority of the threads that do the heavy work — the writer thread (parse,
// validate, commit every write) and the engine worker (queries, and graph building in
// the background) — relative to the HTTP thread. On a small machine these two can keep
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
