// Reads of the record store: records by id, id listings, scans and namespace counts.
// Reads never write and take no seq; they see the last committed state (or the cut of
// an open read transaction, see change-log.ts).

import type { Predicate } from '../filter.js';
import type { Metadata, StoredRecord } from '../model.js';
import { fromImportProgressRow, type ImportProgress } from './import-progress.js';
import { decodeMetadata, prefixUpperBound } from './record-codec.js';
import { ABOVE_EVERY_ID, CHUNK_ROWS, type RecordRow, type Statements, toRecord } from './statements.js';

export interface ListOptions {
  /** Only ids starting with this string (a key range, never LIKE). */
  prefix?: string;
  /** Only ids after this one (the last id of the previous page). */
  after?: string;
  limit: number;
}

export class RecordReader {
  constructor(private readonly st: Statements) {}

  get(ns: string, id: string): StoredRecord | null {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined) return null;
    const row = this.st.get.get(namespace.nsid, id);
    return row === undefined ? null : toRecord(row);
  }

  /** The records with these ids, in the order asked, each once; missing ids are absent. */
  fetch(ns: string, ids: readonly string[]): StoredRecord[] {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined || ids.length === 0) return [];
    const rows = new Map<string, RecordRow>();
    for (const row of this.st.getMany.all(namespace.nsid, JSON.stringify(ids))) rows.set(row.id, row);
    const out: StoredRecord[] = [];
    for (const id of new Set(ids)) {
      const row = rows.get(id);
      if (row !== undefined) out.push(toRecord(row));
    }
    return out;
  }

  /**
   * The metadata of the records with these ids, by id; a record without metadata, and a
   * missing id, is absent. Reads only the metadata column (a query's includeMetadata:
   * the values are not needed, and decoding them cost more than the lookups).
   */
  metadataOf(ns: string, ids: readonly string[]): Map<string, Metadata> {
    const out = new Map<string, Metadata>();
    if (ids.length === 0) return out;
    for (const row of this.st.metadataMany.all(ns, JSON.stringify(ids))) {
      const metadata = decodeMetadata(row.metadata);
      if (metadata !== undefined) out.set(row.id, metadata);
    }
    return out;
  }

  /** Ids in byte order after `after`, starting with `prefix`; `more` when another page exists. */
  list(ns: string, options: ListOptions): { ids: string[]; more: boolean } {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined || options.limit <= 0) return { ids: [], more: false };
    const prefix = options.prefix ?? '';
    const upper = prefixUpperBound(prefix) ?? ABOVE_EVERY_ID;
    const limit = options.limit;
    // The lower bound is the larger of "after the page token" and "at the prefix".
    const rows =
      options.after !== undefined && options.after >= prefix
        ? this.st.listAfter.all(namespace.nsid, options.after, upper, limit + 1)
        : this.st.listFrom.all(namespace.nsid, prefix, upper, limit + 1);
    const more = rows.length > limit;
    return { ids: rows.slice(0, limit).map((row) => row.id), more };
  }

  /** The cursor of bulk import `importId` after its last committed batch; undefined before its first. */
  importProgress(importId: number): ImportProgress | undefined {
    const row = this.st.importProgress.get(importId);
    return row === undefined ? undefined : fromImportProgressRow(row);
  }

  /** Live records in id order after `after`, at most `limit` (for filtered paging). */
  scan(ns: string, after: string | undefined, limit: number): StoredRecord[] {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined || limit <= 0) return [];
    return this.st.scan.all(namespace.nsid, after ?? '', limit).map(toRecord);
  }

  /** Whether the namespace exists: it holds records or was created explicitly. */
  hasNamespace(ns: string): boolean {
    const row = this.st.namespace.get(ns);
    return row !== undefined && (row.count > 0 || row.explicit === 1);
  }

  /** Existing namespaces (non-empty or explicitly created) in byte order of name. */
  namespaces(): { name: string; count: number }[] {
    return this.st.liveNamespaces.all().map(({ name, count }) => ({ name, count }));
  }

  count(ns: string): number {
    return this.st.namespace.get(ns)?.count ?? 0;
  }

  totalCount(): number {
    return this.st.totalCount.get()?.total ?? 0;
  }

  /** (index, value) pairs of sparse values the namespace's records hold in all. */
  sparsePairs(ns: string): number {
    const namespace = this.st.namespace.get(ns);
    if (namespace === undefined) return 0;
    return (this.st.sparseBytes.get(namespace.nsid)?.bytes ?? 0) / 4;
  }

  /** Every live record of every live namespace, by namespace then id, with its seq. */
  *allRecords(): Iterable<{ ns: string; seq: number; record: StoredRecord }> {
    for (const { name, nsid } of this.st.liveNamespaces.all()) {
      let after = '';
      for (;;) {
        const rows = this.st.scan.all(nsid, after, CHUNK_ROWS);
        for (const row of rows) yield { ns: name, seq: row.seq, record: toRecord(row) };
        if (rows.length < CHUNK_ROWS) break;
        after = rows[rows.length - 1].id;
      }
    }
  }
}

/**
 * The ids a search engine found matching a filter at seq `asOf` or later (it may answer
 * from a later state, never an earlier one): an update or delete by filter examines these
 * instead of scanning the namespace.
 */
export interface Candidates {
  ids: readonly string[];
  asOf: number;
}

/**
 * Calls `onMatch(id)` for each record of namespace `nsid` whose metadata matches, in id
 * order. Safe while the callback deletes the id it was given: the keyset scan resumes
 * after the last id it read. `candidates`: only these ids are examined (the engine's
 * match set, so nothing is scanned), and the records written after their `asOf`, each
 * checked against its current metadata. Invariant: a record matching now either matched
 * at asOf and was not written since (so it is a candidate), or was written since; writes
 * the writer committed while the engine looked (acknowledged before this operation's seq)
 * are therefore not missed.
 */
export function forEachMatch(
  st: Statements,
  nsid: number,
  predicate: Predicate,
  candidates: Candidates | undefined,
  onMatch: (id: string, metadata: Metadata | undefined) => void,
): void {
  if (candidates) {
    const ids = new Set(candidates.ids);
    for (const { id } of st.writtenAfter.all(candidates.asOf, nsid)) ids.add(id);
    for (const id of ids) {
      const row = st.get.get(nsid, id);
      if (row === undefined) continue;
      const metadata = decodeMetadata(row.metadata);
      if (predicate(metadata)) onMatch(id, metadata);
    }
    return;
  }
  let after = '';
  for (;;) {
    const rows = st.scanMetadata.all(nsid, after, CHUNK_ROWS);
    for (const row of rows) {
      const metadata = decodeMetadata(row.metadata);
      if (predicate(metadata)) onMatch(row.id, metadata);
    }
    if (rows.length < CHUNK_ROWS) return;
    after = rows[rows.length - 1].id;
  }
}
