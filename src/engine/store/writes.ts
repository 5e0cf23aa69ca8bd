// Writes of the record store: every mutating operation, each in ONE immediate
// transaction, so a batch is stored whole or not at all. Each returns the changes it
// committed, in commit order, for the write path to hand to the engine.
//
// Invariants kept here (see record-store.ts for the whole list)
// - Every change gets the next per-index seq; meta.last_seq is written in the same
//   transaction, so a seq is never reused.
// - (nsid, id) is in at most one of records and tombstones.
// - namespaces.count is the number of live records, kept in the write transaction.

import type Database from 'better-sqlite3';
import { invalid } from '../../errors.js';
import { METADATA_MAX_BYTES } from '../../limits.js';
import type { Predicate } from '../filter.js';
import type { Change, Metadata, SparseValues, StoredRecord } from '../model.js';
import { type ImportProgress, toImportProgressRow } from './import-progress.js';
import { type Candidates, forEachMatch } from './reads.js';
import { normalized, readMeta, type Statements, toParams, toRecord } from './statements.js';

/** `values` and `sparse` replace the stored ones; `setMetadata` adds or overwrites keys. */
export interface RecordPatch {
  values?: Float32Array;
  sparse?: SparseValues;
  setMetadata?: Metadata;
}

export class RecordWriter {
  // Caches of meta.last_seq and meta.next_nsid. Only a transaction changes them; it
  // writes them back before committing and restores the cache if it rolls back.
  private lastSeq: number;
  private nextNsid: number;

  constructor(
    private readonly db: Database.Database,
    private readonly st: Statements,
  ) {
    this.lastSeq = readMeta(st, 'last_seq');
    this.nextNsid = readMeta(st, 'next_nsid');
  }

  /** The seq of the last committed change (0 for a new store). */
  lastCommittedSeq(): number {
    return this.lastSeq;
  }

  /** Stores each record whole, replacing any record with its id. One change per record. */
  upsert(ns: string, records: readonly StoredRecord[]): Change[] {
    if (records.length === 0) return [];
    return this.transaction(() => this.upsertInTransaction(ns, records));
  }

  /**
   * One bulk import batch: upserts `records` (possibly none: every row of the batch was
   * skipped) and sets the import's cursor to `progress` in the SAME transaction, so the
   * batch and the cursor past it are durable together or not at all.
   */
  importBatch(ns: string, records: readonly StoredRecord[], importId: number, progress: ImportProgress): Change[] {
    return this.transaction(() => {
      const changes = records.length === 0 ? [] : this.upsertInTransaction(ns, records);
      this.st.saveImportProgress.run(toImportProgressRow(importId, progress));
      return changes;
    });
  }

  /** Patches one record. Null when the id is unknown: nothing is stored, no seq is used. */
  update(ns: string, id: string, patch: RecordPatch): Change | null {
    return this.transaction(() => {
      const namespace = this.st.namespace.get(ns);
      if (namespace === undefined) return null;
      const row = this.st.get.get(namespace.nsid, id);
      if (row === undefined) return null;
      const current = toRecord(row);
      const record = normalized({
        id,
        values: patch.values ?? current.values,
        sparse: patch.sparse ?? current.sparse,
        metadata: mergeMetadata(id, current.metadata, patch.setMetadata),
      });
      return this.rewrite(ns, namespace.nsid, record);
    });
  }

  /**
   * Merges `setMetadata` into every record of the namespace whose metadata matches.
   * A dry run only counts; otherwise each match is one change. `candidates`: only these
   * ids are examined (see forEachMatch).
   */
  updateMetadataWhere(
    ns: string,
    predicate: Predicate,
    setMetadata: Metadata,
    dryRun: boolean,
    candidates?: Candidates,
  ): { matched: number; changes: Change[] } {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined) return { matched: 0, changes: [] };
    if (dryRun) {
      // Counts, and refuses what the real update would refuse (a merge over the limit).
      let matched = 0;
      forEachMatch(this.st, namespace.nsid, predicate, candidates, (id, metadata) => {
        mergeMetadata(id, metadata, setMetadata);
        matched++;
      });
      return { matched, changes: [] };
    }
    const changes = this.transaction(() => {
      const out: Change[] = [];
      forEachMatch(this.st, namespace.nsid, predicate, candidates, (id) => {
        const row = this.st.get.get(namespace.nsid, id);
        if (row === undefined) throw new Error(`record ${id} vanished during its own transaction`);
        const current = toRecord(row);
        out.push(this.rewrite(ns, namespace.nsid, { ...current, metadata: mergeMetadata(id, current.metadata, setMetadata) }));
      });
      return out;
    });
    return { matched: changes.length, changes };
  }

  /** Deletes the given ids, leaving tombstones. Unknown ids are skipped (no tombstone, no seq). */
  deleteIds(ns: string, ids: readonly string[]): Change[] {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined || ids.length === 0) return [];
    return this.transaction(() => {
      const changes: Change[] = [];
      for (const id of ids) {
        const change = this.deleteOne(ns, namespace.nsid, id);
        if (change !== null) changes.push(change);
      }
      if (changes.length > 0) this.st.addToCount.run(-changes.length, namespace.nsid);
      return changes;
    });
  }

  /** Deletes every record of the namespace whose metadata matches (`candidates`: see forEachMatch). */
  deleteWhere(ns: string, predicate: Predicate, candidates?: Candidates): Change[] {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined) return [];
    return this.transaction(() => {
      const changes: Change[] = [];
      // Safe while scanning: the keyset scan resumes after the last id it read, and only
      // ids at or before it are deleted.
      forEachMatch(this.st, namespace.nsid, predicate, candidates, (id) => {
        const change = this.deleteOne(ns, namespace.nsid, id);
        if (change !== null) changes.push(change);
      });
      if (changes.length > 0) this.st.addToCount.run(-changes.length, namespace.nsid);
      return changes;
    });
  }

  /**
   * Hides the whole namespace at once: reads, counts and listings stop seeing it and a
   * later upsert under the name starts a fresh, empty namespace. Its rows are freed later
   * by purgeStep. Null when the namespace has no records (decision 5: it does not exist).
   */
  dropNamespace(ns: string): Change | null {
    return this.transaction(() => {
      const namespace = this.st.namespace.get(ns);
      if (namespace === undefined || (namespace.count === 0 && namespace.explicit === 0)) return null;
      const seq = this.nextSeq();
      this.st.deleteNamespace.run(namespace.nsid);
      this.st.insertDropped.run(namespace.nsid, ns, seq);
      return { kind: 'drop-namespace', ns, seq } satisfies Change;
    });
  }

  /**
   * Creates an empty namespace that exists until dropped, even while empty (POST
   * /namespaces). False when the namespace already exists. Uses no seq: the search
   * engine has nothing to apply for an empty namespace.
   */
  createNamespace(ns: string): boolean {
    return this.transaction(() => {
      const existing = this.st.namespace.get(ns);
      if (existing === undefined) {
        const nsid = this.nextNsid;
        this.nextNsid += 1;
        this.st.insertNamespace.run(ns, nsid, 1);
        return true;
      }
      if (existing.count > 0 || existing.explicit === 1) return false;
      this.st.markExplicit.run(existing.nsid);
      return true;
    });
  }

  private transaction<T>(work: () => T): T {
    const { lastSeq, nextNsid } = this;
    try {
      return this.db
        .transaction(() => {
          const result = work();
          if (this.lastSeq !== lastSeq) this.st.setMeta.run(this.lastSeq, 'last_seq');
          if (this.nextNsid !== nextNsid) this.st.setMeta.run(this.nextNsid, 'next_nsid');
          return result;
        })
        .immediate();
    } catch (err) {
      this.lastSeq = lastSeq;
      this.nextNsid = nextNsid;
      throw err;
    }
  }

  private nextSeq(): number {
    this.lastSeq += 1;
    return this.lastSeq;
  }

  /** The upsert itself; the caller holds the transaction. */
  private upsertInTransaction(ns: string, records: readonly StoredRecord[]): Change[] {
    const nsid = this.namespaceForWrite(ns);
    let added = 0;
    const changes: Change[] = [];
    for (const input of records) {
      const record = normalized(input);
      const seq = this.nextSeq();
      if (this.st.exists.get(nsid, record.id) === undefined) {
        added++;
        this.st.deleteTombstone.run(nsid, record.id); // a re-created id supersedes its tombstone
      }
      this.st.upsert.run(...toParams(nsid, record, seq));
      changes.push({ kind: 'upsert', ns, seq, record });
    }
    if (added > 0) this.st.addToCount.run(added, nsid);
    return changes;
  }

  /** The live nsid of `ns`, creating the namespace (count 0) when absent. */
  private namespaceForWrite(ns: string): number {
    const existing = this.st.namespace.get(ns);
    if (existing !== undefined) return existing.nsid;
    const nsid = this.nextNsid;
    this.nextNsid += 1;
    this.st.insertNamespace.run(ns, nsid, 0);
    return nsid;
  }

  /** Stores `record` (which exists) under a new seq. */
  private rewrite(ns: string, nsid: number, record: StoredRecord): Change {
    const seq = this.nextSeq();
    this.st.upsert.run(...toParams(nsid, record, seq));
    return { kind: 'upsert', ns, seq, record };
  }

  /** Deletes one live record and leaves its tombstone; the caller adjusts the count. */
  private deleteOne(ns: string, nsid: number, id: string): Change | null {
    if (this.st.deleteRecord.run(nsid, id).changes === 0) return null;
    const seq = this.nextSeq();
    this.st.insertTombstone.run(nsid, id, seq);
    return { kind: 'delete', ns, seq, id };
  }
}

/**
 * The record's metadata with `set`'s keys added or overwritten. The result must keep the
 * per-record limit an upsert's metadata is held to (vector-input.ts): each part may be
 * within it and the merge not. Throwing rolls back the whole write (its transaction), so
 * an update by filter changes every match or none.
 */
function mergeMetadata(id: string, current: Metadata | undefined, set: Metadata | undefined): Metadata | undefined {
  // Nothing to set changes nothing (a record without metadata does not get an empty one).
  if (set === undefined || Object.keys(set).length === 0) return current;
  const merged = { ...current, ...set };
  const bytes = Buffer.byteLength(JSON.stringify(merged));
  if (bytes > METADATA_MAX_BYTES) {
    throw invalid(`setMetadata would make the metadata of record ${JSON.stringify(id)} ${bytes} bytes as JSON, over the limit of ${METADATA_MAX_BYTES} bytes per record`);
  }
  return merged;
}
