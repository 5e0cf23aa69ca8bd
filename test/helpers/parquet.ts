// Writes Parquet files in Pinecone's import layout for tests (hyparquet-writer), so test
// data is generated in the test and stays small.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SchemaElement } from 'hyparquet';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';

export interface ParquetRecord {
  id: string;
  values?: number[] | null;
  sparse?: { indices: number[]; values: number[] } | null;
  /** Written as a JSON string (or verbatim when already a string). */
  metadata?: Record<string, unknown> | string | null;
}

const list = (name: string, leaf: SchemaElement): SchemaElement[] => [
  { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { ...leaf, name: 'element', repetition_type: 'REQUIRED' },
];

export const IMPORT_SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: 4 },
  { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
  ...list('values', { name: 'element', type: 'FLOAT' }),
  { name: 'sparse_values', repetition_type: 'OPTIONAL', num_children: 2 },
  ...list('indices', { name: 'element', type: 'INT32', converted_type: 'UINT_32' }),
  ...list('values', { name: 'element', type: 'FLOAT' }),
  { name: 'metadata', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
];

/** Writes `records` to `file` (creating its directory) in row groups of `rowGroupSize`. */
export async function writeImportFile(file: string, records: ParquetRecord[], rowGroupSize = 1000): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const writer = new ParquetWriter({ writer: fileWriter(file), schema: IMPORT_SCHEMA });
  await writer.write({
    columnData: [
      { name: 'id', data: records.map((r) => r.id) },
      { name: 'values', data: records.map((r) => r.values ?? null) },
      { name: 'sparse_values', data: records.map((r) => r.sparse ?? null) },
      {
        name: 'metadata',
        data: records.map((r) =>
          r.metadata === undefined || r.metadata === null
            ? null
            : typeof r.metadata === 'string'
              ? r.metadata
              : JSON.stringify(r.metadata),
        ),
      },
    ],
    rowGroupSize,
  });
  await writer.finish();
}

/** A file of an `id` column and a `values` column of the given schema elements and data, one row group. */
async function writeIdsAndValues(file: string, ids: string[], values: SchemaElement[], data: unknown[]): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const writer = new ParquetWriter({
    writer: fileWriter(file),
    schema: [{ name: 'root', num_children: 2 }, { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' }, ...values],
  });
  await writer.write({
    columnData: [
      { name: 'id', data: ids },
      { name: 'values', data },
    ],
  });
  await writer.finish();
}

/** A file whose `values` column is a STRING instead of LIST<FLOAT>. */
export async function writeWrongTypesFile(file: string, ids: string[]): Promise<void> {
  await writeIdsAndValues(file, ids, [{ name: 'values', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' }], ids.map(() => '[0.1, 0.2]'));
}

/** A file whose `values` column is a LIST<LIST<FLOAT>> (each record's vector wrapped in one more list). */
export async function writeNestedValuesFile(file: string, ids: string[], dimension: number): Promise<void> {
  const half = (f: (j: number) => number): number[] => Array.from({ length: dimension / 2 }, (_, j) => f(j));
  await writeIdsAndValues(
    file,
    ids,
    [
      { name: 'values', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', type: 'FLOAT', repetition_type: 'REQUIRED' },
    ],
    ids.map((_, i) => [half((j) => i + j), half((j) => j)]),
  );
}
