// A dedicated decoder for one column chunk of a LIST<FLOAT> column (an import's `values`),
// straight into one Float32Array with row offsets.
//
// Why: hyparquet assembles a list column into one JS array per row and one JS number per
// element (plus level arrays), which made decoding — not committing — the import's
// bottleneck (about 11k rows/s at 384 dimensions, mostly allocation and GC). Here a
// row group's values are one Float32Array filled page by page with a single copy each.
//
// Scope (everything else throws Unsupported, and the caller falls back to hyparquet,
// which reads any valid file and reports corrupt ones):
// - schema: <values OPTIONAL|REQUIRED> → <one REPEATED group> → <element FLOAT, REQUIRED>
//   (the standard 3-level list, which pyarrow, Spark and hyparquet-writer write)
// - pages: DATA_PAGE (v1) and DATA_PAGE_V2; values PLAIN, or dictionary-encoded
//   (PLAIN_DICTIONARY / RLE_DICTIONARY with a PLAIN dictionary page, pyarrow's default)
// - codecs: UNCOMPRESSED, and whatever hyparquet-compressors decompresses (SNAPPY, GZIP,
//   BROTLI, ZSTD, LZ4, LZ4_RAW)
//
// Levels (Parquet's Dremel encoding, for this schema): a repetition level of 0 starts a
// row; the definition level says how far the path is defined — below `listDefined` the
// row's list is null, at `listDefined` it is empty, at `listDefined + 1` it holds an
// element (and only then is a value stored in the page).
import type { ColumnChunk, CompressionCodec, SchemaTree } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/** This chunk is outside the decoder's scope: use the general reader. */
export class Unsupported extends Error {}

export interface FloatLists {
  /** Row r's values are values[offsets[r] .. offsets[r + 1]). */
  offsets: Int32Array;
  /** 0: the row's list is null (absent), 1: present (possibly empty). */
  present: Uint8Array;
  values: Float32Array;
}

/** The column's shape, or Unsupported when it is not the standard 3-level LIST<FLOAT>. */
export function floatListShape(column: SchemaTree): { listDefined: number } {
  const repeated = column.children.length === 1 ? column.children[0] : undefined;
  const element = repeated?.children.length === 1 ? repeated.children[0] : undefined;
  if (
    !repeated ||
    !element ||
    repeated.element.repetition_type !== 'REPEATED' ||
    element.children.length > 0 ||
    element.element.type !== 'FLOAT' ||
    element.element.repetition_type !== 'REQUIRED' ||
    column.element.repetition_type === 'REPEATED'
  ) {
    throw new Unsupported('not a 3-level LIST<FLOAT> with required elements');
  }
  return { listDefined: column.element.repetition_type === 'OPTIONAL' ? 1 : 0 };
}

/** Decodes `chunkBytes` (the column chunk, from its first page to its end) holding `rows` rows. */
export function decodeFloatLists(chunkBytes: Uint8Array, meta: ColumnChunk['meta_data'], rows: number, listDefined: number): FloatLists {
  if (!meta || meta.type !== 'FLOAT') throw new Unsupported('not a FLOAT column');
  if (!LITTLE_ENDIAN) throw new Unsupported('big-endian host'); // values are copied byte for byte
  const maxDef = listDefined + 1;
  const defWidth = bitWidth(maxDef);
  const levelCount = Number(meta.num_values);
  const out: FloatLists = { offsets: new Int32Array(rows + 1), present: new Uint8Array(rows), values: new Float32Array(levelCount) };
  let row = -1; // the row being filled
  let filled = 0; // values written to out.values
  let dictionary: Float32Array | undefined;
  const reader = { bytes: chunkBytes, offset: 0 };
  let levelsSeen = 0;
  while (levelsSeen < levelCount) {
    if (reader.offset >= chunkBytes.length) throw new Unsupported('column chunk ended before its values');
    const header = readStruct(reader);
    const pageType = int(header, 1);
    const uncompressedSize = int(header, 2);
    const compressedSize = int(header, 3);
    const body = chunkBytes.subarray(reader.offset, reader.offset + compressedSize);
    if (body.length !== compressedSize) throw new Unsupported('page runs past the column chunk');
    reader.offset += compressedSize;

    if (pageType === PAGE_DICTIONARY) {
      const dict = header.get(7) as Map<number, unknown> | undefined;
      if (!dict || (dict.get(2) !== ENCODING_PLAIN && dict.get(2) !== ENCODING_PLAIN_DICTIONARY)) {
        throw new Unsupported('dictionary page not PLAIN');
      }
      const page = decompress(body, uncompressedSize, meta.codec);
      dictionary = new Float32Array(int(dict, 1));
      copyFloats(page, 0, dictionary.length, dictionary, 0);
      continue;
    }
    let levels: { rep: Uint8Array; def: Uint8Array; count: number };
    let encoding: number;
    let page: Uint8Array;
    let at: number;
    if (pageType === PAGE_DATA) {
      const h = header.get(5) as Map<number, unknown> | undefined;
      if (!h) throw new Unsupported('data page without header');
      const count = int(h, 1);
      encoding = int(h, 2);
      if (int(h, 3) !== ENCODING_RLE || int(h, 4) !== ENCODING_RLE) throw new Unsupported('levels not RLE');
      page = decompress(body, uncompressedSize, meta.codec);
      const cursor = { bytes: page, offset: 0 };
      const rep = new Uint8Array(count);
      readLevels(cursor, 1, rep, readUint32(cursor));
      const def = new Uint8Array(count);
      readLevels(cursor, defWidth, def, readUint32(cursor));
      levels = { rep, def, count };
      at = cursor.offset;
    } else if (pageType === PAGE_DATA_V2) {
      const h = header.get(8) as Map<number, unknown> | undefined;
      if (!h) throw new Unsupported('data page v2 without header');
      const count = int(h, 1);
      encoding = int(h, 4);
      const defBytes = int(h, 5);
      const repBytes = int(h, 6);
      const compressed = h.get(7) !== false; // absent means compressed
      const rep = new Uint8Array(count);
      readLevels({ bytes: body, offset: 0 }, 1, rep, repBytes);
      const def = new Uint8Array(count);
      readLevels({ bytes: body, offset: repBytes }, defWidth, def, defBytes);
      levels = { rep, def, count };
      const rest = body.subarray(repBytes + defBytes);
      page = compressed ? decompress(rest, uncompressedSize - repBytes - defBytes, meta.codec) : rest;
      at = 0;
    } else {
      throw new Unsupported(`page type ${pageType}`);
    }

    // Rows and offsets from the levels; `stored` counts the values this page holds.
    const { rep, def, count } = levels;
    if (row < 0 && count > 0 && rep[0] !== 0) throw new Unsupported('the first row does not start the chunk');
    let stored = 0;
    if (!hasValueBelow(def, maxDef)) {
      // Every level is an element (no null or empty list): rows start where the
      // repetition level is 0, found by the native indexOf.
      for (let i = rep.indexOf(0); i !== -1; i = rep.indexOf(0, i + 1)) {
        row++;
        if (row >= rows) throw new Unsupported('more rows than the row group holds');
        out.offsets[row] = filled + i;
        out.present[row] = 1;
      }
      stored = count;
    } else {
      for (let i = 0; i < count; i++) {
        if (rep[i] === 0) {
          row++;
          if (row >= rows) throw new Unsupported('more rows than the row group holds');
          out.offsets[row] = filled + stored;
          out.present[row] = def[i] >= listDefined ? 1 : 0;
        }
        const d = def[i];
        if (d === maxDef) stored++;
        else if (d > maxDef || rep[i] !== 0) throw new Unsupported('unexpected levels');
      }
    }
    // Repetition levels are 1 bit wide; a definition level above maxDef (possible in 2 bits) is corrupt.
    if (def.indexOf(maxDef + 1) !== -1) throw new Unsupported('definition level out of range');
    if (encoding === ENCODING_PLAIN) {
      copyFloats(page, at, stored, out.values, filled);
    } else if (encoding === ENCODING_PLAIN_DICTIONARY || encoding === ENCODING_RLE_DICTIONARY) {
      if (!dictionary) throw new Unsupported('dictionary-encoded page without a dictionary');
      const width = page[at];
      const keys = new Uint32Array(stored);
      readLevels({ bytes: page, offset: at + 1 }, width, keys, page.length - at - 1);
      for (let i = 0; i < stored; i++) {
        const k = keys[i];
        if (k >= dictionary.length) throw new Unsupported('dictionary index out of range');
        out.values[filled + i] = dictionary[k];
      }
    } else {
      throw new Unsupported(`value encoding ${encoding}`);
    }
    filled += stored;
    levelsSeen += count;
  }
  if (row !== rows - 1) throw new Unsupported(`the chunk holds ${row + 1} rows, expected ${rows}`);
  out.offsets[rows] = filled;
  return out;
}

// Thrift enum values (parquet.thrift).
const PAGE_DATA = 0;
const PAGE_DICTIONARY = 2;
const PAGE_DATA_V2 = 3;
const ENCODING_PLAIN = 0;
const ENCODING_PLAIN_DICTIONARY = 2;
const ENCODING_RLE = 3;
const ENCODING_RLE_DICTIONARY = 8;

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const bitWidth = (max: number): number => (max === 0 ? 0 : 32 - Math.clz32(max));

/** Copies `count` little-endian float32s at `at` into `out` from `to` (a page's values need not be 4-byte aligned). */
function copyFloats(page: Uint8Array, at: number, count: number, out: Float32Array, to: number): void {
  if (at + count * 4 > page.length) throw new Unsupported('page shorter than its values');
  new Uint8Array(out.buffer, out.byteOffset + to * 4, count * 4).set(page.subarray(at, at + count * 4));
}

/** True when some level is below `max` (checked with the native indexOf, value by value). */
function hasValueBelow(levels: Uint8Array, max: number): boolean {
  for (let v = 0; v < max; v++) if (levels.indexOf(v) !== -1) return true;
  return false;
}

function decompress(body: Uint8Array, size: number, codec: CompressionCodec): Uint8Array {
  if (codec === 'UNCOMPRESSED') return body;
  const inflate = compressors[codec];
  if (!inflate) throw new Unsupported(`codec ${codec}`);
  const page = inflate(body, size);
  if (page.length !== size) throw new Unsupported('decompressed page has the wrong size');
  return page;
}

interface Cursor {
  bytes: Uint8Array;
  offset: number;
}

function readUint32(c: Cursor): number {
  if (c.offset + 4 > c.bytes.length) throw new Unsupported('page too short');
  const v = c.bytes[c.offset] | (c.bytes[c.offset + 1] << 8) | (c.bytes[c.offset + 2] << 16) | (c.bytes[c.offset + 3] << 24);
  c.offset += 4;
  return v >>> 0;
}

function readVarint(c: Cursor): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (c.offset >= c.bytes.length) throw new Unsupported('truncated varint');
    const b = c.bytes[c.offset++];
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return result;
    shift += 7;
    if (shift > 63) throw new Unsupported('varint too long');
  }
}

/**
 * Parquet's RLE / bit-packed hybrid encoding of `out.length` small integers in `length`
 * bytes from the cursor; the cursor ends after those bytes. Width 0 means all zeros.
 */
function readLevels(c: Cursor, width: number, out: Uint8Array | Uint32Array, length: number): void {
  const end = c.offset + length;
  if (end > c.bytes.length) throw new Unsupported('levels run past the page');
  if (width === 0) {
    c.offset = end;
    return; // already zero
  }
  if (width > 24) throw new Unsupported(`bit width ${width}`);
  const bytesPerValue = (width + 7) >> 3;
  const mask = (1 << width) - 1;
  let seen = 0;
  while (seen < out.length) {
    if (c.offset >= end) throw new Unsupported('levels ended early');
    const header = readVarint(c);
    if ((header & 1) === 0) {
      const run = Math.min(Math.floor(header / 2), out.length - seen);
      let value = 0;
      for (let i = 0; i < bytesPerValue; i++) value |= c.bytes[c.offset++] << (8 * i);
      out.fill(value >>> 0, seen, seen + run);
      seen += run;
    } else {
      // Groups of 8 values, `width` bits each, least significant bit first. With
      // width <= 24 the bit buffer never holds more than 31 bits.
      const values = Math.floor(header / 2) * 8;
      let bits = 0;
      let buffer = 0;
      for (let i = 0; i < values; i++) {
        while (bits < width) {
          buffer = (buffer | ((c.offset < end ? c.bytes[c.offset++] : 0) << bits)) >>> 0;
          bits += 8;
        }
        if (seen < out.length) out[seen++] = buffer & mask;
        buffer >>>= width;
        bits -= width;
      }
    }
  }
  c.offset = end;
}

// Thrift compact protocol: just enough to read a PageHeader (structs of ints, booleans,
// binaries, nested structs; lists and maps only skipped). Fields are keyed by field id.
type ThriftStruct = Map<number, unknown>;

function readStruct(c: Cursor): ThriftStruct {
  const out: ThriftStruct = new Map();
  let lastId = 0;
  for (;;) {
    if (c.offset >= c.bytes.length) throw new Unsupported('truncated page header');
    const byte = c.bytes[c.offset++];
    const type = byte & 0x0f;
    if (type === 0) return out; // STOP
    const delta = byte >> 4;
    lastId = delta === 0 ? zigzag(readVarint(c)) : lastId + delta;
    out.set(lastId, readValue(c, type));
  }
}

/** A required non-negative integer field of a header. */
function int(s: ThriftStruct, id: number): number {
  const v = s.get(id);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new Unsupported(`page header field ${id} missing`);
  return v;
}

const zigzag = (n: number): number => (n % 2 === 0 ? n / 2 : -(n + 1) / 2);

function readValue(c: Cursor, type: number): unknown {
  switch (type) {
    case 1:
      return true;
    case 2:
      return false;
    case 3:
      return c.bytes[c.offset++];
    case 4: // i16
    case 5: // i32
    case 6: // i64 (page header values fit a double)
      return zigzag(readVarint(c));
    case 7:
      c.offset += 8;
      return undefined;
    case 8: {
      const length = readVarint(c);
      c.offset += length;
      return undefined;
    }
    case 9:
    case 10: {
      const head = c.bytes[c.offset++];
      const size = head >> 4 === 15 ? readVarint(c) : head >> 4;
      const kind = head & 0x0f;
      // Booleans in a list are one byte each (not folded into a field header).
      for (let i = 0; i < size; i++) if (kind === 1 || kind === 2) c.offset++;
      else readValue(c, kind);
      return undefined;
    }
    case 11: {
      const size = readVarint(c);
      if (size > 0) {
        const kinds = c.bytes[c.offset++];
        for (let i = 0; i < size; i++) {
          readValue(c, kinds >> 4);
          readValue(c, kinds & 0x0f);
        }
      }
      return undefined;
    }
    case 12:
      return readStruct(c);
    default:
      throw new Unsupported(`thrift type ${type}`);
  }
}
