// The writes themselves, run on the writer thread against an index's write connection:
// validate (the same vector-input.ts the HTTP thread used before), then ONE store
// transaction (the durable point) returning the changes it committed, in commit order.
// The caller (writer-worker.ts) posts those changes to the engine before it answers.
import type { IndexRow } from '../../catalog/indexes.js';
import { compileFilter } from '../../engine/filter.js';
import type { Change } from '../../engine/model.js';
import type { RecordStore } from '../../engine/store/record-store.js';
import { joinChunks, parseJsonBody } from '../json-body.js';
import { checkPodCapacity } from '../pod-capacity.js';
import { upsertInput } from '../vector-input.js';
import type { Write, WriteResult } from './protocol.js';

export interface Committed {
  changes: Change[];
  result: WriteResult;
}

export function runWrite(store: RecordStore, index: IndexRow, write: Write): Committed {
  switch (write.op) {
    case 'upsert': {
      const { namespace, records } = upsertInput(write.body === null ? undefined : parseJsonBody(joinChunks(write.body), 'upsert'), index);
      checkPodCapacity(index, store.totalCount(), records.length);
      return { changes: store.upsert(namespace, records), result: records.length };
    }
    case 'import-batch':
      checkPodCapacity(index, store.totalCount(), write.records.length);
      return { changes: store.importBatch(write.ns, write.records, write.importId, write.progress), result: write.records.length };
    case 'update': {
      const change = store.update(write.ns, write.id, write.patch);
      return { changes: change === null ? [] : [change], result: change !== null };
    }
    case 'update-where': {
      const predicate = compileFilter(write.filter);
      const { matched, changes } = store.updateMetadataWhere(write.ns, predicate, write.setMetadata, write.dryRun, write.candidates);
      return { changes, result: matched };
    }
    case 'delete-ids':
      return { changes: store.deleteIds(write.ns, write.ids), result: null };
    case 'delete-where':
      return { changes: store.deleteWhere(write.ns, compileFilter(write.filter), write.candidates), result: null };
    case 'drop-namespace': {
      const change = store.dropNamespace(write.ns);
      return { changes: change === null ? [] : [change], result: change !== null };
    }
    case 'create-namespace':
      return { changes: [], result: store.createNamespace(write.ns) };
  }
}
