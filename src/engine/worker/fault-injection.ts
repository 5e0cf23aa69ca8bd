// TEST-ONLY fault injection. With CONIFER_FAULT_INJECTION=1 in the environment:
// - an upsert of a record whose id is FAULT_CRASH_ID makes the engine worker's apply
//   throw, which the engine treats like any apply failure: it restarts the worker and
//   rebuilds its state from the record stores;
// - an upsert of a record whose id is FAULT_WRITER_CRASH_ID makes the writer thread exit
//   right after its commit, before it posts the changes to the engine or answers: the
//   write answers 503, a new writer thread starts, and the engine catches up from the
//   store (src/data/writer/writer-worker.ts);
// - a bulk import batch holding a record whose id is FAULT_IMPORT_KILL_ID makes the
//   server SIGKILL itself right after that batch committed, before the catalog's mirror
//   of the import's progress is saved (src/data/import-runner.ts).
// Never set it in production; it exists so a test can kill a thread through the public
// API and watch the service come back.
export const FAULT_CRASH_ID = '__conifer_fault_crash_engine_worker__';
export const FAULT_WRITER_CRASH_ID = '__conifer_fault_crash_writer_thread__';
export const FAULT_IMPORT_KILL_ID = '__conifer_fault_kill_after_import_batch__';

export function faultInjectionEnabled(): boolean {
  return process.env.CONIFER_FAULT_INJECTION === '1';
}
