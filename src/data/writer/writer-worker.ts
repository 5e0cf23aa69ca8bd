// The writer thread: owns the write connection of every index, so the HTTP thread only
// does HTTP (issue 15). Messages are handled one at a time, in the order posted; each
// write is parsed, validated, committed in one transaction (the durable point) and its
// changes posted to the engine worker on `engine` — all before the reply to the main
// thread. That order is what read-your-writes rests on (engine-worker.ts
// "Read-your-writes"): when the main thread hears seq S, every change up to S is stored
// and already posted to the engine. One thread for every index keeps commit order and
// post order the same per index without any lock; SQLite commits one at a time anyway.
//
// The main thread keeps its own connections for reads (fetch, list, stats, query by id):
// under WAL they see every commit made here, at once. It also runs purges and tombstone
// compaction on them (short transactions that never touch meta.last_seq or next_nsid,
// which this thread's RecordWriter caches).
import fs from 'node:fs';
import path from 'node:path';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { ApiError, notFound } from '../../errors.js';
import type { WriterToEngine } from '../../engine/protocol.js';
import { RECORD_STORE_FILE, RecordStore } from '../../engine/store/record-store.js';
import { FAULT_WRITER_CRASH_ID, faultInjectionEnabled } from '../../engine/worker/fault-injection.js';
import { lowerThisThreadPriority } from '../../engine/thread-priority.js';
import { QuietRelease } from '../../engine/worker/quiet-release.js';
import { runWrite } from './index-writes.js';
import type { WriteFailure, WriterData, WriterReply, WriterRequest } from './protocol.js';

if (!parentPort) throw new Error('writer-worker must run as a worker thread');
const main = parentPort;
const reply = (msg: WriterReply): void => main.postMessage(msg);

// Below the HTTP thread, so it gets a core first when it wakes (thread-priority.ts); the
// outcome is not logged here (this thread has no logger), the engine workers log their own.
lowerThisThreadPriority((workerData as WriterData).backgroundNice);
// engines[i]: the port to engine worker i. The first message on every new port is
// 'catch-up': that worker applies what a previous writer committed but never posted.
const engines: (MessagePort | undefined)[] = (workerData as WriterData).enginePorts;
for (const port of engines) port?.postMessage({ op: 'catch-up' } satisfies WriterToEngine);

const stores = new Map<string, RecordStore>();
const faults = faultInjectionEnabled();
// This thread's heap and malloc's arenas go back to the OS once writes stop
// (quiet-release.ts). Nothing to report a failure to: the memory just stays resident.
const memory = new QuietRelease(() => undefined);

/** The index's write connection, opened on its first write; never creates a store. */
function storeOf(indexId: string, name: string, dir: string): RecordStore {
  const open = stores.get(indexId);
  if (open) return open;
  // The main thread created the store with the index; a missing file means it was deleted.
  if (!fs.existsSync(path.join(dir, RECORD_STORE_FILE))) throw notFound(`Index ${name} not found.`);
  const store = RecordStore.open(dir);
  stores.set(indexId, store);
  return store;
}

function failure(err: unknown): WriteFailure {
  if (err instanceof ApiError) return { api: true, code: err.code, message: err.message, retryAfter: err.retryAfter };
  const code = (err as { code?: unknown } | null)?.code;
  return { api: false, message: err instanceof Error ? err.message : String(err), code: typeof code === 'string' ? code : undefined };
}

main.on('message', (msg: WriterRequest) => {
  switch (msg.type) {
    case 'write': {
      memory.noteWork();
      const engine = engines[msg.shard];
      if (!engine) {
        // Never committed: a change with no engine port to go to would be invisible until a restart.
        reply({ type: 'failed', reqId: msg.reqId, error: { api: false, message: `writer protocol: no port to engine worker ${msg.shard}` } });
        return;
      }
      let seq: number;
      let committed;
      try {
        const store = storeOf(msg.index.id, msg.index.name, msg.dir);
        committed = runWrite(store, msg.index, msg.write);
        seq = store.snapshotSeq();
      } catch (err) {
        reply({ type: 'failed', reqId: msg.reqId, error: failure(err) });
        return;
      }
      if (faults && committed.changes.some((c) => c.kind === 'upsert' && c.record.id === FAULT_WRITER_CRASH_ID)) {
        // Committed, never posted nor answered: the gap 'catch-up' exists for.
        process.exit(70);
      }
      if (committed.changes.length > 0) {
        engine.postMessage({ op: 'apply', indexId: msg.index.id, changes: committed.changes } satisfies WriterToEngine);
      }
      reply({ type: 'written', reqId: msg.reqId, seq, result: committed.result });
      return;
    }
    case 'close':
      stores.get(msg.indexId)?.close();
      stores.delete(msg.indexId);
      reply({ type: 'done', reqId: msg.reqId });
      return;
    case 'stop':
      memory.stop();
      for (const store of stores.values()) store.close();
      stores.clear();
      reply({ type: 'done', reqId: msg.reqId });
      return;
    case 'engine-port':
      engines[msg.shard]?.close(); // none yet: a worker started on demand
      engines[msg.shard] = msg.port;
      msg.port.postMessage({ op: 'catch-up' } satisfies WriterToEngine);
      reply({ type: 'done', reqId: msg.reqId });
      return;
  }
});
