// The dedicated decoder of an import's `values` column (src/data/parquet-float-lists.ts,
// through ParquetFile.readValueLists) against hyparquet's general reader on the same
// files: every row's list equal as float32, null and empty lists kept apart, across
// row groups, many small pages, both codecs, dictionary-encoded pages; and a column it
// does not handle (DOUBLE) is left to hyparquet (undefined), never misread.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SchemaElement } from 'hyparquet';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import { ParquetFile } from '../../src/data/parquet-file.js';
import { prng } from '../helpers/prng.js';
import { removeDir } from '../helpers/server.js';

const schema = (leaf: 'FLOAT' | 'DOUBLE'): SchemaElement[] => [
  { name: 'root', num_children: 2 },
  { name: 'id', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
  { name: 'values', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'element', type: leaf, repetition_type: 'REQUIRED' },
];

async function write(
  file: string,
  values: (number[] | null)[],
  options: { leaf?: 'FLOAT' | 'DOUBLE'; codec?: 'SNAPPY' | 'UNCOMPRESSED'; pageSize?: number; rowGroupSize: number },
): Promise<void> {
  const writer = new ParquetWriter({
    writer: fileWriter(file),
    schema: schema(options.leaf ?? 'FLOAT'),
    codec: options.codec,
  });
  await writer.write({
    columnData: [
      { name: 'id', data: values.map((_, i) => `r${i}`) },
      { name: 'values', data: values },
    ],
    rowGroupSize: options.rowGroupSize,
    pageSize: options.pageSize,
  });
  await writer.finish();
}

/** Decodes every row group both ways and compares them row by row; returns the row groups the decoder took. */
async function compare(file: string, expected: (number[] | null)[]): Promise<number> {
  const pf = await ParquetFile.open(file, 'test.parquet', true);
  let decoded = 0;
  try {
    for (const [g, { start, end }] of pf.rowGroups().entries()) {
      const rows = await pf.readRows(start, end, 'test.parquet');
      const lists = await pf.readValueLists(g);
      if (!lists) continue;
      decoded++;
      for (let r = 0; r < rows.length; r++) {
        const want = expected[start + r];
        const general = (rows[r].values as number[] | null | undefined) ?? null;
        assert.deepEqual(general?.map(Math.fround) ?? null, want?.map(Math.fround) ?? null, `hyparquet, row ${start + r}`);
        if (want === null) {
          assert.equal(lists.present[r], 0, `row ${start + r} is null`);
          continue;
        }
        assert.equal(lists.present[r], 1, `row ${start + r} is present`);
        const got: number[] = Array.from(lists.values.subarray(lists.offsets[r], lists.offsets[r + 1]));
        assert.deepEqual(got, want.map(Math.fround), `row ${start + r}`);
      }
    }
  } finally {
    await pf.close();
  }
  return decoded;
}

describe('the values column decoder', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'conifer-float-lists-'));
  });
  after(() => removeDir(dir));

  it('reads row groups of many pages, null and empty lists and uneven lengths, as hyparquet does', async () => {
    const rand = prng(3);
    const values = Array.from({ length: 2500 }, (_, i): number[] | null =>
      i % 97 === 5 ? null : i % 89 === 7 ? [] : Array.from({ length: i % 13 === 0 ? 3 : 8 }, () => Math.fround(rand() * 2 - 1)),
    );
    for (const codec of ['SNAPPY', 'UNCOMPRESSED'] as const) {
      const file = join(dir, `pages-${codec}.parquet`);
      await write(file, values, { codec, pageSize: 512, rowGroupSize: 700 });
      assert.equal(await compare(file, values), 4, `${codec}: every row group through the decoder`);
    }
  });

  it('reads dictionary-encoded pages', async () => {
    const palette = [0.5, -1, 2.25, 1e-3];
    const values = Array.from({ length: 1200 }, (_, i) => Array.from({ length: 16 }, (_, k) => palette[(i + k) % palette.length]));
    const file = join(dir, 'dictionary.parquet');
    await write(file, values, { rowGroupSize: 1200 });
    const pf = await ParquetFile.open(file, 'test.parquet', true);
    const encodings = pf.metadata.row_groups[0].columns.find((c) => c.meta_data?.path_in_schema[0] === 'values')?.meta_data?.encodings;
    await pf.close();
    assert.ok(encodings?.includes('RLE_DICTIONARY'), `the writer chose a dictionary: ${encodings?.join(', ')}`);
    assert.equal(await compare(file, values), 1);
  });

  it('leaves a DOUBLE column to hyparquet', async () => {
    const values = [[0.1, 0.2], [0.3, 0.4]];
    const file = join(dir, 'double.parquet');
    await write(file, values, { leaf: 'DOUBLE', rowGroupSize: 2 });
    assert.equal(await compare(file, values), 0);
  });
});
