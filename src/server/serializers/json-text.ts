// JSON text with parts printed ahead of time: a response is a tree of plain values in
// which some leaves are JsonText, JSON already rendered (a record's values, printed by
// float32ArrayJsonText). jsonBytes prints the tree as JSON.stringify would, splicing each
// JsonText in as it is, straight into the UTF-8 bytes sent.
//
// It follows JSON.stringify's rules for what responses hold (parsed JSON metadata and the
// objects the routes build): object keys in insertion order, properties JSON.stringify
// leaves out (undefined, functions) left out, those in an array printed as null, every
// other leaf printed by JSON.stringify itself. Plain objects and arrays are walked;
// anything else is a leaf.
//
// Why bytes, not one string: these bodies are large (a fetch of 100 records of 384
// dimensions is ~450 KB), and a string that size is a fresh allocation of V8's large-object
// space each time, paid in page faults: joining the pieces took 2-3 ms on the bench
// machine, as long as printing the values, and appending them instead builds a rope that
// Buffer.byteLength then flattened at the same cost. A Buffer comes from malloc, which
// reuses freed memory once warm, and the socket sends it without encoding a string again.

/** JSON text to splice into a response unchanged. The caller vouches that it is valid JSON. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** The value's JSON text as UTF-8 bytes. */
export function jsonBytes(value: unknown): Buffer {
  const parts: string[] = [];
  write(value, parts);
  let total = 0;
  for (const part of parts) total += Buffer.byteLength(part);
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const part of parts) at += out.write(part, at);
  return out;
}

/** Appends the value's JSON text (null where JSON.stringify gives none, as in an array). */
function write(value: unknown, parts: string[]): void {
  if (value instanceof JsonText) {
    parts.push(value.text);
  } else if (Array.isArray(value)) {
    parts.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i) parts.push(',');
      write(value[i], parts);
    }
    parts.push(']');
  } else if (isWalked(value)) {
    parts.push('{');
    let first = true;
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      const leaf = v instanceof JsonText || Array.isArray(v) || isWalked(v) ? null : JSON.stringify(v);
      if (leaf === undefined) continue; // left out, as JSON.stringify leaves it out
      parts.push(first ? '' : ',', JSON.stringify(key), ':');
      first = false;
      if (leaf === null) write(v, parts);
      else parts.push(leaf);
    }
    parts.push('}');
  } else {
    parts.push(JSON.stringify(value) ?? 'null');
  }
}

/** A plain object without toJSON: walked key by key. */
function isWalked(value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
