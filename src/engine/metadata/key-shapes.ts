// The key lists ("shapes") of a namespace's metadata objects, numbered, so that each label
// records which keys its object had, in their order, in one small integer. With it a
// query's includeMetadata rebuilds the object from the columns with its keys in the order
// they were written (src/engine/metadata/metadata-columns.ts).
//
// Most namespaces have a handful of shapes (every record written by the same code). One
// whose records each carry different keys stops numbering at MAX_SHAPES; the metadata of
// the labels it could not number is read from the record store instead, which is always
// correct, only slower. Shapes are never forgotten: they are few, and a label's number
// must stay valid while the label lives.
// Thread rule: owned by the engine worker with the columns.

/** Numbered shapes per namespace at most (each costs its key array and a map entry). */
export const MAX_SHAPES = 4096;

export class KeyShapes {
  private readonly byKeys = new Map<string, number>();
  private readonly shapes: (readonly string[])[] = [];

  /** The number of the shape with exactly these keys in this order; undefined once MAX_SHAPES are numbered. */
  numberOf(keys: readonly string[]): number | undefined {
    // JSON of the array: unambiguous whatever characters the keys hold.
    const text = JSON.stringify(keys);
    let n = this.byKeys.get(text);
    if (n === undefined && this.shapes.length < MAX_SHAPES) {
      n = this.shapes.length;
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
