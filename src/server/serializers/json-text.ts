// JSON text with parts printed ahead of time: a response is a tree of plain values in
// which some leaves are JsonText, JSON already rendered (a record's values, printed by
// float32ArrayJsonText). stringifyJson prints the tree as JSON.stringify would, splicing
// each JsonText in as it is.
//
// It follows JSON.stringify's rules for what responses hold (parsed JSON metadata and the
// objects the routes build): object keys in insertion order, undefined properties left
// out, undefined in an array printed as null, every other leaf printed by JSON.stringify
// itself. Plain objects and arrays are walked; anything else is a leaf.

/** JSON text to splice into a response unchanged. The caller vouches that it is valid JSON. */
export class JsonText {
  constructor(readonly text: string) {}
}

export function stringifyJson(value: unknown): string {
  return print(value) ?? 'null';
}

/** The value's JSON text; undefined where JSON.stringify leaves the value out. */
function print(value: unknown): string | undefined {
  if (value instanceof JsonText) return value.text;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + (print(value[i]) ?? 'null');
    return out + ']';
  }
  if (value !== null && typeof value === 'object' && isPlain(value)) {
    let out = '{';
    let first = true;
    for (const key of Object.keys(value)) {
      const text = print((value as Record<string, unknown>)[key]);
      if (text === undefined) continue;
      out += (first ? '' : ',') + JSON.stringify(key) + ':' + text;
      first = false;
    }
    return out + '}';
  }
  return JSON.stringify(value);
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
