// Metadata of one namespace held as columns keyed by label (the engine's stable numeric
// id of a live record), one per field: a field that many labels hold is dense, off the
// V8 object graph (dense-field.ts: numbers in Float64Arrays, strings dictionary-encoded in
// Int32Arrays, booleans as two bitmaps, lists of strings as postings per value, and a
// presence bitmap), one that few hold keeps just its holders' values (sparse-field.ts;
// field-column.ts says when and why). Every operator of the filter
// language (src/engine/filter.ts) evaluates here to a Bitmap of matching labels, so the
// planner knows the exact match count before it chooses between an exact scan and the
// graph.
//
// Semantics are exactly `compileFilter`'s (the reference evaluator; the tests compare
// the two on every operator): strict types, `$eq`/`$in` match a list when ANY element
// matches, `$ne`/`$nin` are the exact negations over live records (so a record without
// the field, and a list with no matching element, match them), ranges match numbers only,
// `$exists` looks at presence (an empty list is present).
//
// The columns also answer a query's includeMetadata: with each label's key shape
// (key-shapes.ts) they print the object as written, as JSON text — its keys in order, a
// list's elements in order with repeats — so the main thread reads the record store only for a
// record whose fields are not all held (an index declaring its filterable fields, or a
// namespace past the key-shape limits).
//
// A dense field's scalar values are also indexed by value (value-postings.ts): the labels
// holding each string and each number, so `$eq`, `$in` and the number ranges cost the
// matching records rather than a pass over the whole column — at 1M records such a pass
// took 1.2–1.7 ms a query (7 ms for a numeric `$in`), more than the graph walk it filtered.
//
// Invariant: every bitmap a field keeps, and every result, is a subset of `live`; a label
// that is removed or replaced is cleared from every field it was present in, and its
// shape is NO_METADATA unless it holds a record with metadata.
// Thread rule: owned by the engine worker like every search structure; not shared.
import type { FieldNode, FilterNode, Metadata } from '../filter.js';
import { Bitmap } from './bitmap.js';
import { DenseField } from './dense-field.js';
import { shouldBeDense, shouldBeSparse, type FieldColumn } from './field-column.js';
import { KeyShapes } from './key-shapes.js';
import { SparseField } from './sparse-field.js';
import { grown } from '../typed-arrays.js';

// A label's entry in `shapeOf`: which fields it holds (so a clear visits those fields
// only: visiting every field made a namespace whose records carry their own field names
// quadratic) and whether the columns hold its whole metadata (else its record store row
// is the copy to read).
//   NO_METADATA                          no metadata
//   UNSHAPED                             the held keys had no shape number left (limits in
//                                        key-shapes.ts): they are in `unshaped`; read from
//                                        the store
//   FIRST_SHAPE + 2 × shape + inStore    the held keys are shape `shape`, in the order
//                                        written; inStore 1 when some keys are not held
//                                        (an index declaring its filterable fields)
const NO_METADATA = 0;
const UNSHAPED = 1;
const FIRST_SHAPE = 2;

/** What `metadata(label)` answers for a record whose metadata must be read from the record store. */
export const METADATA_IN_STORE = 'in-store';

export class MetadataColumns {
  private capacity: number;
  private live: Bitmap;
  /** Per label: see NO_METADATA above. */
  private shapeOf: Uint16Array;
  private readonly shapes = new KeyShapes();
  /** The held keys of the UNSHAPED labels. */
  private readonly unshaped = new Map<number, readonly string[]>();
  private readonly fields = new Map<string, FieldColumn>();

  /**
   * `only`: the fields that get columns (an index's filterable fields); others are not
   * held at all — saving their memory is the point of declaring them. The service
   * rejects a filter on another field before it gets here.
   */
  constructor(
    initialCapacity = 64,
    private readonly only?: ReadonlySet<string>,
  ) {
    this.capacity = Math.max(32, initialCapacity);
    this.live = new Bitmap(this.capacity);
    this.shapeOf = new Uint16Array(this.capacity);
  }

  /** Number of labels holding a record. */
  get size(): number {
    return this.live.count();
  }

  /** Gives `label` these fields, replacing whatever it had. */
  set(label: number, metadata: Metadata | undefined): void {
    this.ensure(label + 1);
    if (this.live.has(label)) this.clearFields(label);
    this.live.add(label);
    if (!metadata) {
      this.shapeOf[label] = NO_METADATA;
      return;
    }
    const keys = Object.keys(metadata);
    const only = this.only;
    const held = only ? keys.filter((field) => only.has(field)) : keys;
    for (const field of held) {
      let column = this.fields.get(field);
      if (!column) {
        column = new SparseField(field, this.capacity);
        this.fields.set(field, column);
      }
      column.set(label, metadata[field]);
      if (column instanceof SparseField && shouldBeDense(column.size, this.capacity)) {
        this.fields.set(field, DenseField.from(column, field, this.capacity));
      } else if (column instanceof DenseField && column.wordsOutgrown()) {
        // Rewritten with the values held now: its dictionary keeps every string it was ever given.
        this.fields.set(field, DenseField.from(column, field, this.capacity));
      }
    }
    const shape = this.shapes.numberOf(held);
    if (shape === undefined) {
      this.shapeOf[label] = UNSHAPED;
      this.unshaped.set(label, held);
    } else {
      this.shapeOf[label] = FIRST_SHAPE + 2 * shape + (held.length < keys.length ? 1 : 0);
    }
  }

  /** Forgets `label` (its record was deleted, or it moved to another label). */
  remove(label: number): void {
    if (!this.live.has(label)) return;
    this.clearFields(label);
    this.live.delete(label);
    this.shapeOf[label] = NO_METADATA;
  }

  /**
   * `label`'s metadata as JSON text, printed from the columns: what JSON.stringify gives
   * for the object as written (the same keys in the same order, the same values), which a
   * query answer carries back (protocol.ts EngineMatch.metadataJson) without an object
   * being built; METADATA_IN_STORE when the columns do not hold all of it, undefined when
   * the record has none.
   */
  metadataJson(label: number): string | typeof METADATA_IN_STORE | undefined {
    const entry = label < this.capacity ? this.shapeOf[label] : NO_METADATA;
    if (entry === NO_METADATA) return undefined;
    if (entry === UNSHAPED || ((entry - FIRST_SHAPE) & 1) === 1) return METADATA_IN_STORE;
    let out = '{';
    for (const key of this.shapes.keys((entry - FIRST_SHAPE) >>> 1)) {
      const column = this.fields.get(key);
      if (!column) throw new Error(`metadata columns: label ${label}'s field ${JSON.stringify(key)} has no column`);
      out += `${out.length === 1 ? '' : ','}${column.keyJson}:${column.valueJson(label)}`;
    }
    return `${out}}`;
  }

  /** The form `field`'s column takes now (field-column.ts), undefined without one: for tests and diagnostics. */
  formOf(field: string): 'dense' | 'sparse' | undefined {
    const column = this.fields.get(field);
    return column && (column instanceof DenseField ? 'dense' : 'sparse');
  }

  /** The labels whose metadata matches `node` (a fresh bitmap the caller may modify). */
  evaluate(node: FilterNode): Bitmap {
    switch (node.kind) {
      case 'all':
        return this.live.copy();
      case 'and': {
        // Cheapest first is not known without evaluating, so evaluate in order and stop
        // once nothing is left.
        const out = this.evaluate(node.children[0]);
        for (let i = 1; i < node.children.length && out.count() > 0; i++) out.and(this.evaluate(node.children[i]));
        return out;
      }
      case 'or': {
        const out = this.evaluate(node.children[0]);
        for (let i = 1; i < node.children.length; i++) out.or(this.evaluate(node.children[i]));
        return out;
      }
      default:
        return this.evaluateField(node);
    }
  }

  private evaluateField(node: FieldNode): Bitmap {
    const column = this.fields.get(node.field);
    const empty = (): Bitmap => new Bitmap(this.capacity);
    // The negations: every live record that the positive form does not match.
    const negate = (positive: Bitmap): Bitmap => this.live.copy().andNot(positive);
    switch (node.kind) {
      case 'eq':
        return column ? column.equal(node.value) : empty();
      case 'ne':
        return negate(column ? column.equal(node.value) : empty());
      case 'in':
        return column ? column.member(node.values) : empty();
      case 'nin':
        return negate(column ? column.member(node.values) : empty());
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        return column ? column.range(node.kind, node.value) : empty();
      case 'exists':
        if (node.value) return column ? column.holders() : empty();
        return column ? negate(column.holders()) : this.live.copy();
    }
  }

  private clearFields(label: number): void {
    const entry = this.shapeOf[label];
    if (entry === NO_METADATA) return;
    const held = entry === UNSHAPED ? this.unshaped.get(label) : this.shapes.keys((entry - FIRST_SHAPE) >>> 1);
    this.unshaped.delete(label);
    for (const field of held ?? []) {
      const column = this.fields.get(field);
      if (!column) throw new Error(`metadata columns: label ${label}'s field ${JSON.stringify(field)} has no column`);
      column.clear(label);
      // A field no label holds is forgotten: records that each carry field names of their
      // own, rewritten with new ones, would otherwise keep every name ever written.
      if (column.size === 0) this.fields.delete(field);
      else if (column instanceof DenseField && shouldBeSparse(column.size, this.capacity)) {
        this.fields.set(field, SparseField.from(column, field, this.capacity));
      }
    }
  }

  /** Grows every column to hold labels below `needed` (doubling, so amortised O(1)). */
  private ensure(needed: number): void {
    if (needed <= this.capacity) return;
    let capacity = this.capacity;
    while (capacity < needed) capacity *= 2;
    this.capacity = capacity;
    this.live = this.live.resized(capacity);
    this.shapeOf = grown(this.shapeOf, capacity);
    for (const [field, column] of this.fields) {
      if (column instanceof DenseField && shouldBeSparse(column.size, capacity)) this.fields.set(field, SparseField.from(column, field, capacity));
      else column.grow(capacity);
    }
  }
}

