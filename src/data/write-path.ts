// The main thread's side of the write path (DESIGN.md "Write path", "Threads and order").
// Every write to an index goes to the writer thread (src/data/writer/), which validates
// what is left to validate, commits in one transaction (the durable point), posts the
// committed changes to the engine in commit order, and only then answers; this resolves
// with the write's result and its LSN (the seq of the index after the commit). No write
// to a record store happens on this thread any more, except background purges and
// tombstone compaction (index-registry.ts), which never allocate a seq.
import type { IndexRow } from '../catalog/indexes.js';
import type { FilterNode } from '../engine/filter.js';
import type { Metadata, StoredRecord } from '../engine/model.js';
import type { Candidates, ImportProgress, RecordPatch } from '../engine/store/record-store.js';
import type { IndexRegistry } from './index-registry.js';
import type { Write, WriteCalls } from './writer/protocol.js';

export interface Written<T> {
  /** The index's seq after the write committed (x-pinecone-request-lsn). */
  lsn: number;
  result: T;
}

export class WritePath {
  constructor(private readonly registry: IndexRegistry) {}

  /**
   * An upsert's body bytes as the chunks received, in order (null: no body), parsed and
   * validated on the writer thread; the buffers are transferred (unusable here afterwards).
   */
  upsertBody(index: IndexRow, body: readonly Uint8Array[] | null): Promise<Written<number>> {
    if (body === null) return this.send(index, { op: 'upsert', body });
    const owned = body.map(ownBuffer);
    return this.send(index, { op: 'upsert', body: owned }, owned.map((b) => b.buffer as ArrayBuffer));
  }

  /** A bulk import batch and its import's cursor past it, in one transaction. */
  importBatch(index: IndexRow, ns: string, records: StoredRecord[], importId: number, progress: ImportProgress): Promise<Written<number>> {
    return this.send(index, { op: 'import-batch', ns, records, importId, progress });
  }

  /** False when the id does not exist (nothing written). */
  update(index: IndexRow, ns: string, id: string, patch: RecordPatch): Promise<Written<boolean>> {
    return this.send(index, { op: 'update', ns, id, patch });
  }

  /**
   * The number of matching records (all changed unless `dryRun`). `candidates`: the ids
   * the engine found matching; the store checks each again, and the records written since
   * (store forEachMatch), and examines no other.
   */
  updateMetadataWhere(
    index: IndexRow,
    ns: string,
    filter: FilterNode,
    setMetadata: Metadata,
    dryRun: boolean,
    candidates: Candidates,
  ): Promise<Written<number>> {
    return this.send(index, { op: 'update-where', ns, filter, setMetadata, dryRun, candidates });
  }

  deleteIds(index: IndexRow, ns: string, ids: string[]): Promise<Written<null>> {
    return this.send(index, { op: 'delete-ids', ns, ids });
  }

  /** Deletes the `candidates` (the engine's matches) that still match `filter`. */
  deleteWhere(index: IndexRow, ns: string, filter: FilterNode, candidates: Candidates): Promise<Written<null>> {
    return this.send(index, { op: 'delete-where', ns, filter, candidates });
  }

  /** Hides the namespace at once and frees its rows in the background; false when it does not exist. */
  async dropNamespace(index: IndexRow, ns: string): Promise<Written<boolean>> {
    const written = await this.send(index, { op: 'drop-namespace', ns });
    if (written.result) this.registry.schedulePurge(index.id);
    return written;
  }

  /** False when the namespace already exists. */
  createNamespace(index: IndexRow, ns: string): Promise<Written<boolean>> {
    return this.send(index, { op: 'create-namespace', ns });
  }

  private async send<W extends Write>(index: IndexRow, write: W, transfer: ArrayBuffer[] = []): Promise<Written<WriteCalls[W['op']]['result']>> {
    const dir = this.registry.writableDir(index); // 503 while the index loads
    const { seq, result } = await this.registry.writer.write(index, dir, write, transfer);
    return { lsn: seq, result };
  }
}

/**
 * A view that owns its whole ArrayBuffer, so transferring it moves only these bytes:
 * a small Buffer is a slice of Node's shared pool, which must never be transferred
 * (it would detach the pool); those few bytes are copied instead.
 */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes;
  return new Uint8Array(bytes);
}
