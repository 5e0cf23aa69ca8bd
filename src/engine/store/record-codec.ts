// How a record's fields are laid out in the record store's SQLite columns.
//
// File format (stable; changing it needs a schema migration in schema.ts):
//   dense           BLOB  float32 little-endian, 4 bytes per value
//   sparse_indices  BLOB  uint32 little-endian, 4 bytes per index
//   sparse_values   BLOB  float32 little-endian, 4 bytes per value (same count as indices)
//   metadata        TEXT  JSON object, NULL when the record has none
// Every platform Node 20 ships for is little-endian; a big-endian host still reads and
// writes the same bytes through the slow path below.

import type { Metadata } from '../model.js';

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Bytes of a 32-bit typed array as a Buffer, little-endian (no copy on little-endian hosts). */
export function encode32(a: Float32Array | Uint32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const out = Buffer.alloc(a.byteLength);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let i = 0; i < a.length; i++) {
    if (a instanceof Float32Array) view.setFloat32(i * 4, a[i], true);
    else view.setUint32(i * 4, a[i], true);
  }
  return out;
}

// SQLite hands BLOBs back as Buffers of their own (better-sqlite3 copies each value out
// of SQLite), so a 32-bit column is normally viewed in place: the Buffer is aligned and
// belongs to this row alone. A Buffer at an unaligned offset (a slice of a shared pool),
// or a big-endian host, gets a fresh, aligned copy instead.
function words(bytes: Uint8Array): { buffer: ArrayBufferLike; offset: number; length: number } {
  if (bytes.byteLength % 4 !== 0) {
    throw new Error(`corrupt record store: a 32-bit column holds ${bytes.byteLength} bytes`);
  }
  const length = bytes.byteLength / 4;
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return { buffer: bytes.buffer, offset: bytes.byteOffset, length };
  const buffer = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(buffer).set(bytes);
  if (!LITTLE_ENDIAN) {
    const view = new DataView(buffer);
    const out = new Uint32Array(buffer);
    for (let i = 0; i < out.length; i++) out[i] = view.getUint32(i * 4, true);
  }
  return { buffer, offset: 0, length };
}

export function decodeFloat32(bytes: Uint8Array): Float32Array {
  const w = words(bytes);
  return new Float32Array(w.buffer, w.offset, w.length);
}

export function decodeUint32(bytes: Uint8Array): Uint32Array {
  const w = words(bytes);
  return new Uint32Array(w.buffer, w.offset, w.length);
}

export function encodeMetadata(metadata: Metadata | undefined): string | null {
  return metadata === undefined ? null : JSON.stringify(metadata);
}

export function decodeMetadata(text: string | null): Metadata | undefined {
  return text === null ? undefined : (JSON.parse(text) as Metadata);
}

/**
 * The smallest string above every string that starts with `prefix`, or null when there
 * is none. Ids are ASCII (DESIGN.md decision 8), so the bound is the prefix with trailing
 * '\x7f' (and any non-ASCII character, which no id contains) removed and its last
 * character incremented: with SQLite's BINARY collation (byte order),
 * `id >= prefix AND id < bound` is exactly "id starts with prefix" — no LIKE, whose
 * `_`/`%` wildcards and case folding would widen the match.
 */
export function prefixUpperBound(prefix: string): string | null {
  let end = prefix.length;
  while (end > 0 && prefix.charCodeAt(end - 1) >= 0x7f) end--;
  if (end === 0) return null;
  return prefix.slice(0, end - 1) + String.fromCharCode(prefix.charCodeAt(end - 1) + 1);
}
