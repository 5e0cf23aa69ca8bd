// One Parquet file of an import, read with hyparquet through byte-range reads on an open
// file handle: only the footer and the row group being decoded are ever in memory, never
// the whole file. The columns are Pinecone's import format:
//   id             STRING (BYTE_ARRAY, UTF8)                     required
//   values         LIST<FLOAT>  (DOUBLE accepted, stored float32)  dense indexes
//   sparse_values  STRUCT<indices: LIST<UINT32>, values: LIST<FLOAT>>  optional
//   metadata       STRING holding a JSON object                    optional
// Other columns are ignored, as Pinecone ignores them.
import { open, type FileHandle } from 'node:fs/promises';
import { parquetMetadataAsync, parquetRead, parquetSchema } from 'hyparquet';
import type { AsyncBuffer, FileMetaData, ParquetRow, SchemaTree } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { ParquetFileError } from './parquet-file-error.js';
import { decodeFloatLists, floatListShape, type FloatLists } from './parquet-float-lists.js';

export { ParquetFileError };

export const IMPORT_COLUMNS = ['id', 'values', 'sparse_values', 'metadata'] as const;

export class ParquetFile {
  private constructor(
    private readonly handle: FileHandle,
    readonly metadata: FileMetaData,
    /** The import columns this file has. */
    readonly columns: string[],
    /** The `values` column's shape when the dedicated decoder can read it (parquet-float-lists.ts). */
    private readonly valuesShape: { listDefined: number } | undefined,
  ) {}

  /** Opens a file and checks its footer and columns; `name` is used in messages. */
  static async open(file: string, name: string, needsValues: boolean): Promise<ParquetFile> {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      let metadata: FileMetaData;
      try {
        metadata = await parquetMetadataAsync(rangeReader(handle, size));
      } catch (err) {
        throw new ParquetFileError(
          `${name}: not a readable Parquet file (truncated or another format): ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      const schema = parquetSchema(metadata);
      const columns = checkColumns(schema, name, needsValues);
      return new ParquetFile(handle, metadata, columns, fastValuesShape(schema));
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  get rowCount(): number {
    return Number(this.metadata.num_rows);
  }

  /** [start, end) row ranges of the row groups: the unit of decoding. */
  rowGroups(): { start: number; end: number }[] {
    const out: { start: number; end: number }[] = [];
    let start = 0;
    for (const group of this.metadata.row_groups) {
      const end = start + Number(group.num_rows);
      out.push({ start, end });
      start = end;
    }
    return out;
  }

  /**
   * Row group `group`'s `values` column through the dedicated decoder, or undefined when
   * the decoder does not apply to it (then readRows must include `values`). A chunk the
   * decoder rejects for any reason — an encoding it does not know, or corrupt bytes — is
   * left to hyparquet, which reads every valid file and names the fault in corrupt ones.
   */
  async readValueLists(group: number): Promise<FloatLists | undefined> {
    if (!this.valuesShape) return undefined;
    const rowGroup = this.metadata.row_groups[group];
    const chunk = rowGroup.columns.find((c) => c.meta_data?.path_in_schema.length === 3 && c.meta_data.path_in_schema[0] === 'values');
    const meta = chunk?.meta_data;
    if (!meta) return undefined;
    const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
    const length = Number(meta.total_compressed_size);
    const { size } = await this.handle.stat();
    if (!(start >= 0 && length > 0 && start + length <= size)) return undefined;
    const bytes = new Uint8Array(await rangeReader(this.handle, size).slice(start, start + length));
    try {
      return decodeFloatLists(bytes, meta, Number(rowGroup.num_rows), this.valuesShape.listDefined);
    } catch {
      return undefined;
    }
  }

  /** Rows [start, end) as objects keyed by `columns` (default: every import column). */
  async readRows(start: number, end: number, name: string, columns: string[] = this.columns): Promise<ParquetRow[]> {
    const { size } = await this.handle.stat();
    let rows: ParquetRow[] = [];
    try {
      await parquetRead({
        file: rangeReader(this.handle, size),
        metadata: this.metadata,
        columns,
        rowStart: start,
        rowEnd: end,
        rowFormat: 'object',
        compressors,
        onComplete: (r) => {
          rows = r;
        },
      });
    } catch (err) {
      throw new ParquetFileError(
        `${name}, rows ${start}-${end - 1}: cannot be decoded (corrupt or truncated data): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    return rows;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** hyparquet's AsyncBuffer over an open file: each slice is one positioned read. */
function rangeReader(handle: FileHandle, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end: number = size): Promise<ArrayBuffer> {
      const length = Math.max(0, Math.min(end, size) - start);
      const buffer = new ArrayBuffer(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(new Uint8Array(buffer, done), 0, length - done, start + done);
        if (bytesRead === 0) throw new Error(`file ended at byte ${start + done}, expected ${size} bytes`);
        done += bytesRead;
      }
      return buffer;
    },
  };
}

function fastValuesShape(schema: SchemaTree): { listDefined: number } | undefined {
  const values = schema.children.find((c) => c.element.name === 'values');
  if (!values) return undefined;
  try {
    return floatListShape(values);
  } catch {
    return undefined;
  }
}

const FLOATS = new Set(['FLOAT', 'DOUBLE']);
const INTEGERS = new Set(['INT32', 'INT64']);

/** The first leaf under a node (the element of a LIST, whatever its nesting style). */
/**
 * A group's single-child path down to its leaf and how many REPEATED levels it passes
 * (a list is one: the 3-level `group LIST → repeated list → element` and the legacy
 * 2-level `group → repeated element` alike); undefined when a group on it has several
 * children (a struct).
 */
function listShape(node: SchemaTree): { leaf: SchemaTree; levels: number } | undefined {
  let n = node;
  let levels = 0;
  while (n.children.length > 0) {
    if (n.children.length !== 1) return undefined;
    n = n.children[0];
    if (n.element.repetition_type === 'REPEATED') levels++;
  }
  return { leaf: n, levels };
}

function typeOf(node: SchemaTree): string {
  if (node.children.length === 0) return node.element.type ?? 'unknown';
  const shape = listShape(node);
  if (!shape || shape.levels === 0) return 'STRUCT';
  return `${'LIST<'.repeat(shape.levels)}${shape.leaf.element.type ?? 'group'}${'>'.repeat(shape.levels)}`;
}

/** A list (exactly one level: a list of lists is not) of one of `leafTypes`. */
function isListOf(node: SchemaTree | undefined, leafTypes: Set<string>): boolean {
  if (!node || node.children.length === 0) return false;
  const shape = listShape(node);
  return shape !== undefined && shape.levels === 1 && shape.leaf.element.type !== undefined && leafTypes.has(shape.leaf.element.type);
}

function checkColumns(schema: SchemaTree, name: string, needsValues: boolean): string[] {
  const byName = new Map(schema.children.map((c) => [c.element.name, c]));
  const wrong = (column: string, expected: string, node: SchemaTree): ParquetFileError =>
    new ParquetFileError(`${name}: column ${column} must be ${expected}, got ${typeOf(node)}`);
  const id = byName.get('id');
  if (!id) throw new ParquetFileError(`${name}: the required column id is missing`);
  if (id.children.length > 0 || id.element.type !== 'BYTE_ARRAY') throw wrong('id', 'STRING', id);
  const columns = ['id'];
  const values = byName.get('values');
  if (values) {
    if (!isListOf(values, FLOATS)) throw wrong('values', 'LIST<FLOAT>', values);
    columns.push('values');
  } else if (needsValues) {
    throw new ParquetFileError(`${name}: the column values (LIST<FLOAT>) is required to import into a dense index`);
  }
  const sparse = byName.get('sparse_values');
  if (sparse) {
    const parts = new Map(sparse.children.map((c) => [c.element.name, c]));
    if (!isListOf(parts.get('indices'), INTEGERS) || !isListOf(parts.get('values'), FLOATS)) {
      throw wrong('sparse_values', 'STRUCT<indices: LIST<UINT32>, values: LIST<FLOAT>>', sparse);
    }
    columns.push('sparse_values');
  }
  const metadata = byName.get('metadata');
  if (metadata) {
    if (metadata.children.length > 0 || metadata.element.type !== 'BYTE_ARRAY') {
      throw wrong('metadata', 'STRING (a JSON object)', metadata);
    }
    columns.push('metadata');
  }
  return columns;
}
