// Export of an index to the Parquet layout the bulk import reads (import-source.ts,
// parquet-file.ts): <out>/<namespace>/part-00000.parquet, `__default__` for the default
// namespace, columns id, values (LIST<FLOAT>), sparse_values (STRUCT<indices:
// LIST<UINT32>, values: LIST<FLOAT>>) and metadata (a JSON string).
//
// It reads a RecordSnapshot — one read transaction on its own read-only connection — so
// the export is one point in time even while a server keeps writing (SQLite WAL lets a
// reader and the writer proceed together). Values are written as FLOAT from the stored
// float32, so an export imported again gives back the same bits.
// Each file is written under a temporary name and renamed when complete; an export that
// fails removes what it wrote.
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { SchemaElement } from 'hyparquet';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import type { StoredRecord } from '../engine/model.js';
import { RecordSnapshot } from '../engine/record-snapshot.js';
import { DEFAULT_NAMESPACE_ALIAS } from './vector-input.js';

/** Rows per row group: the unit the importer decodes at once (about 15 MB at 384 dimensions). */
export const EXPORT_ROW_GROUP_ROWS = 10_000;

const list = (name: string, type: 'FLOAT' | 'INT32', repetition: 'OPTIONAL' | 'REQUIRED'): SchemaElement[] => [
  { name, repetition_type: repetition, converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  type === 'INT32'
    ? { name: 'element', type: 'INT32', converted_type: 'UINT_32', repetition_type: 'REQUIRED' }
    : { name: 'element', type: 'FLOAT', repetition_type: 'REQUIRED' },
];

/** The Parquet schema of Pinecone's import format as Conifer writes it. */
export const IMPORT_PARQUET_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: 4 },
  { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
  ...list('values', 'FLOAT', 'OPTIONAL'),
  { name: 'sparse_values', repetition_type: 'OPTIONAL', num_children: 2 },
  ...list('indices', 'INT32', 'REQUIRED'),
  ...list('values', 'FLOAT', 'REQUIRED'),
  { name: 'metadata', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
];

export interface ExportResult {
  namespaces: number;
  records: number;
}

/**
 * Writes the records of the store in `indexDir` (all namespaces, or one) under `outDir`,
 * which must be absent or empty. `onProgress(done, total)` is called per row group.
 */
export async function exportIndex(
  indexDir: string,
  outDir: string,
  namespace: string | undefined,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<ExportResult> {
  mkdirSync(outDir, { recursive: true });
  if (readdirSync(outDir).length > 0) throw new Error(`the output directory ${outDir} is not empty`);
  const snapshot = RecordSnapshot.open(indexDir);
  try {
    // Records only: an empty namespace (made by POST /namespaces) has no rows to write.
    const namespaces = snapshot.namespaces().filter((n) => n.count > 0 && (namespace === undefined || n.name === namespace));
    if (namespace !== undefined && namespaces.length === 0) {
      throw new Error(`namespace ${JSON.stringify(namespace)} holds no records in this index`);
    }
    for (const { name } of namespaces) directoryName(name); // refuse before writing anything
    const total = namespaces.reduce((sum, n) => sum + n.count, 0);
    let done = 0;
    let writer: NamespaceFile | undefined;
    let group: StoredRecord[] = [];
    const flush = async (): Promise<void> => {
      if (!writer || group.length === 0) return;
      await writer.write(group);
      done += group.length;
      group = [];
      onProgress(done, total);
    };
    try {
      for (const { ns, record } of snapshot.records(namespace)) {
        if (!writer || writer.ns !== ns) {
          await flush();
          await writer?.finish();
          writer = new NamespaceFile(outDir, ns);
        }
        group.push(record);
        if (group.length === EXPORT_ROW_GROUP_ROWS) await flush();
      }
      await flush();
      await writer?.finish();
    } catch (err) {
      // A failed export (a full disk, say) leaves nothing: the namespaces written so far
      // are an import layout, and importing them would copy part of the index unnoticed.
      for (const entry of readdirSync(outDir)) rmSync(path.join(outDir, entry), { recursive: true, force: true });
      throw err;
    }
    return { namespaces: namespaces.length, records: done };
  } finally {
    snapshot.close();
  }
}

/** The longest file name, in bytes, that Linux file systems take (NAME_MAX). */
const NAME_MAX_BYTES = 255;

/** A namespace's directory name: `__default__` for the default one; names that are not a safe single path segment are refused. */
function directoryName(ns: string): string {
  if (ns === '') return DEFAULT_NAMESPACE_ALIAS;
  if (ns === '.' || ns === '..' || ns.includes('/') || ns.includes('\\') || ns.includes('\0') || Buffer.byteLength(ns) > NAME_MAX_BYTES) {
    throw new Error(
      `namespace ${JSON.stringify(ns)} cannot be a directory name (a single path segment of at most ${NAME_MAX_BYTES} bytes); export the other namespaces with --namespace`,
    );
  }
  return ns;
}

class NamespaceFile {
  private readonly writer: ParquetWriter;
  private readonly temp: string;
  private readonly final: string;

  constructor(
    outDir: string,
    readonly ns: string,
  ) {
    const dir = path.join(outDir, directoryName(ns));
    mkdirSync(dir, { recursive: true });
    this.final = path.join(dir, 'part-00000.parquet');
    this.temp = `${this.final}.tmp`;
    this.writer = new ParquetWriter({ writer: fileWriter(this.temp), schema: IMPORT_PARQUET_SCHEMA, createdBy: 'conifer export' });
  }

  async write(records: StoredRecord[]): Promise<void> {
    await this.writer.write({
      columnData: [
        { name: 'id', data: records.map((r) => r.id) },
        { name: 'values', data: records.map((r) => (r.values ? Array.from(r.values) : null)) },
        {
          name: 'sparse_values',
          data: records.map((r) =>
            r.sparse ? { indices: Array.from(r.sparse.indices), values: Array.from(r.sparse.values) } : null,
          ),
        },
        { name: 'metadata', data: records.map((r) => (r.metadata ? JSON.stringify(r.metadata) : null)) },
      ],
      rowGroupSize: records.length,
    });
  }

  async finish(): Promise<void> {
    await this.writer.finish();
    renameSync(this.temp, this.final);
  }
}
