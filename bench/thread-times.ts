// Per-thread CPU of a process on Linux, from /proc/<pid>/task/<tid>/schedstat: time run
// on a CPU and time spent runnable but waiting for one (run-queue wait). The wait of the
// server's main thread over an ingest tells CPU starvation apart from a blocked event
// loop: a thread that waits in the run queue is ready to answer but has no core.
import { readFileSync, readdirSync } from 'node:fs';

export interface ThreadTime {
  tid: number;
  name: string;
  runMs: number;
  waitMs: number;
}

export function threadTimes(pid: number): Map<number, ThreadTime> {
  const out = new Map<number, ThreadTime>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tids) {
    try {
      const [run, wait] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
      const name = readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
      out.set(Number(t), { tid: Number(t), name, runMs: run / 1e6, waitMs: wait / 1e6 });
    } catch {
      // the thread ended while we looked
    }
  }
  return out;
}

/** Each thread's run and wait between two readings, busiest first (threads under 1% of the span left out). */
export function threadDelta(before: Map<number, ThreadTime>, after: Map<number, ThreadTime>, spanMs: number): ThreadTime[] {
  const rows: ThreadTime[] = [];
  for (const [tid, a] of after) {
    const b = before.get(tid);
    const row = { tid, name: a.name, runMs: a.runMs - (b?.runMs ?? 0), waitMs: a.waitMs - (b?.waitMs ?? 0) };
    if (row.runMs + row.waitMs >= spanMs / 100) rows.push(row);
  }
  return rows.sort((x, y) => y.runMs - x.runMs);
}
