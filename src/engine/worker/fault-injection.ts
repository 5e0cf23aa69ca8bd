// TEST-ONLY fault injection. With CONIFER_FAULT_INJECTION=1 in the environment, an
// upsert of a record whose id is FAULT_CRASH_ID makes the engine worker's apply throw,
// which the engine treats like any apply failure: it restarts the worker and rebuilds
// its state from the record stores. Never set it in production; it exists so a test can
// kill the worker through the public API and watch search come back.
export const FAULT_CRASH_ID = '__conifer_fault_crash_engine_worker__';

export function faultInjectionEnabled(): boolean {
  return process.env.CONIFER_FAULT_INJECTION === '1';
}
