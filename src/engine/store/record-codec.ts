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

// SQLite hands BLOBs back as Buffers that may sit at any offset of a shared pool, so
// they are copied into a fresh, aligned ArrayBuffer before being viewed as 32-bit values.
function copyAligned(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteLength % 4 !== 0) {
    throw new Error(`corrupt record store: a 32-bit column holds ${bytes.byteLength} bytes`);
  }
  const buffer = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(buffer).set(bytes);
  if (!LITTLE_ENDIAN) {
    const view = new DataView(buffer);
    const words = new Uint32Array(buffer);
    for (let i = 0; i < words.length; i++) words[i] = view.getUint32(i * 4, true);
  }
  return buffer;
}

export function decodeFloat32(bytes: Uint8Array): Float32Array {
  return new Float32Array(copyAligned(bytes));
}

export function decodeUint32(bytes: Uint8Array): Uint32Array {
  return new Uint32Array(copyAligned(bytes));
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
