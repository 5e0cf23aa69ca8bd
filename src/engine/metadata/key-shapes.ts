// The key lists ("shapes") of a namespace's metadata objects, numbered, so that each label
// records which keys its object had, in their order, in one small integer. With it a
// query's includeMetadata rebuilds the object from the columns with its keys in the order
// they were written (src/engine/metadata/metadata-columns.ts).
//
// Most namespaces have a handful of shapes (every record written by the same code). One
// whose records each carry different keys stops numbering at MAX_SHAPES shapes or
// MAX_SHAPE_KEYS keys over all shapes (a record may hold thousands of keys within its
// 40 KB); the metadata of the labels it could not number is read from the record store
// instead, which is always correct, only slower. Shapes are never forgotten: they are few, and a label's number
// must stay valid while the label lives.
// Thread rule: owned by the engine worker with the columns.

/** Numbered shapes per namespace at most (each costs its key array and a map entry). */
export const MAX_SHAPES = 4096;
/** Keys over all numbered shapes at most (bounds the memory of a few very wide shapes). */
export const MAX_SHAPE_KEYS = 65_536;

export class KeyShapes {
  private readonly byKeys = new Map<string, number>();
  private readonly shapes: (readonly string[])[] = [];
  private keyCount = 0;

  /** The number of the shape with exactly these keys in this order; undefined for a new shape past the limits. */
  numberOf(keys: readonly string[]): number | undefined {
    // JSON of the array: unambiguous whatever characters the keys hold.
    const text = JSON.stringify(keys);
    let n = this.byKeys.get(text);
    if (n === undefined && this.shapes.length < MAX_SHAPES && this.keyCount + keys.length <= MAX_SHAPE_KEYS) {
      n = this.shapes.length;
      this.keyCount += keys.length;
      this.shapes.push(keys);
      this.byKeys.set(text, n);
    }
    return n;
  }

  /** The keys of shape `n`, in order. */
  keys(n: number): readonly string[] {
    return this.shapes[n];
  }
}
