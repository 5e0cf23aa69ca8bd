// The engine worker thread: owns every search structure and applies messages strictly
// in the order they were posted, so a query posted after a write's changes sees them
// (read-your-writes, DESIGN.md decision 9).
import { parentPort } from 'node:worker_threads';
import { EngineIndex } from './engine-index.js';
import type { EngineRequest, EngineResponse } from './engine-protocol.js';
import { RecordStore } from './record-store.js';

if (!parentPort) throw new Error('engine-worker must run as a worker thread');
const port = parentPort;
const indexes = new Map<string, EngineIndex>();

function index(indexId: string): EngineIndex {
  const found = indexes.get(indexId);
  if (!found) throw new Error(`engine: index ${indexId} is not open`);
  return found;
}

function handle(msg: EngineRequest): unknown {
  switch (msg.op) {
    case 'open': {
      const engine = new EngineIndex(msg.shape);
      // A connection of the worker's own, used only to read the snapshot. Changes
      // committed after it was taken arrive as 'apply' messages (seq-idempotent).
      const store = RecordStore.open(msg.dir);
      try {
        for (const { ns, seq, record } of store.allRecords()) engine.load(ns, seq, record);
      } finally {
        store.close();
      }
      indexes.set(msg.indexId, engine);
      return null;
    }
    case 'close':
      indexes.delete(msg.indexId);
      return null;
    case 'apply': {
      // Changes for an index closed meanwhile (deleted) have nowhere to go.
      const engine = indexes.get(msg.indexId);
      if (engine) for (const change of msg.changes) engine.apply(change);
      return undefined;
    }
    case 'query':
      return index(msg.indexId).query(msg.query);
    case 'count':
      return index(msg.indexId).count(msg.filter);
  }
}

port.on('message', (msg: EngineRequest) => {
  let response: EngineResponse | undefined;
  try {
    const result = handle(msg);
    if ('reqId' in msg) response = { reqId: msg.reqId, ok: true, result };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    if ('reqId' in msg) response = { reqId: msg.reqId, ok: false, error };
    else port.postMessage({ reqId: -1, ok: false, error } satisfies EngineResponse);
  }
  if (response) port.postMessage(response);
});
