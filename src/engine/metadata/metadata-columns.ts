// Metadata of one namespace held as columns keyed by label (the engine's stable numeric
// id of a live record), off the V8 object graph: numbers in Float64Arrays, strings
// dictionary-encoded in Int32Arrays, booleans as two bitmaps, lists of strings as
// postings per value, and a presence bitmap per field. Every operator of the filter
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
// (key-shapes.ts) they rebuild the object as written — its keys in order, a list's
// elements in order with repeats — so the main thread reads the record store only for a
// record whose fields are not all held (an index declaring its filterable fields, or a
// namespace past the key-shape limits).
//
// Invariant: every bitmap a field keeps, and every result, is a subset of `live`; a label
// that is removed or replaced is cleared from every field it was present in, and its
// shape is NO_METADATA unless it holds a record with metadata.
// Thread rule: owned by the engine worker like every search structure; not shared.
import type { FieldNode, FilterNode, FilterScalar, Metadata, MetadataValue } from '../filter.js';
import { Bitmap } from './bitmap.js';
import { KeyShapes } from './key-shapes.js';
import { ListCodes } from './list-codes.js';
import { grown } from '../typed-arrays.js';

/** A string column's value where the label has no string. */
const NO_STRING = -1;

// A label's entry in `shapeOf`: no metadata; metadata the columns do not hold whole (its
// record store row is the copy to read); or FIRST_SHAPE + the number of its key shape.
const NO_METADATA = 0;
const IN_STORE = 1;
const FIRST_SHAPE = 2;

/** What `metadata(label)` answers for a record whose metadata must be read from the record store. */
export const METADATA_IN_STORE = 'in-store';

export class MetadataColumns {
  private capacity: number;
  private live: Bitmap;
  /** Per label: NO_METADATA, IN_STORE or FIRST_SHAPE + its key shape's number (see above). */
  private shapeOf: Uint16Array;
  private readonly shapes = new KeyShapes();
  private readonly fields = new Map<string, FieldColumn>();

  /**
   * `only`: the fields that get columns (an index's filterable fields); others are not
   * held at all — saving their memory is the point of declaring them. The service
   * rejects a filter on another field before it gets here.
   */
  constructor(
    initialCapacity = 1024,
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
    let whole = true;
    for (const field of keys) {
      if (this.only && !this.only.has(field)) {
        whole = false;
        continue;
      }
      let column = this.fields.get(field);
      if (!column) {
        column = new FieldColumn(this.capacity);
        this.fields.set(field, column);
      }
      column.set(label, metadata[field]);
    }
    const shape = whole ? this.shapes.numberOf(keys) : undefined;
    this.shapeOf[label] = shape === undefined ? IN_STORE : FIRST_SHAPE + shape;
  }

  /** Forgets `label` (its record was deleted, or it moved to another label). */
  remove(label: number): void {
    if (!this.live.has(label)) return;
    this.clearFields(label);
    this.live.delete(label);
    this.shapeOf[label] = NO_METADATA;
  }

  /**
   * `label`'s metadata rebuilt from the columns (a fresh object), METADATA_IN_STORE when
   * the columns do not hold all of it, undefined when the record has none.
   */
  metadata(label: number): Metadata | typeof METADATA_IN_STORE | undefined {
    const entry = label < this.capacity ? this.shapeOf[label] : NO_METADATA;
    if (entry === NO_METADATA) return undefined;
    if (entry === IN_STORE) return METADATA_IN_STORE;
    const out: Metadata = {};
    for (const key of this.shapes.keys(entry - FIRST_SHAPE)) {
      const column = this.fields.get(key);
      if (!column) throw new Error(`metadata columns: label ${label}'s field ${JSON.stringify(key)} has no column`);
      out[key] = column.value(label);
    }
    return out;
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
        if (node.value) return column ? column.present.copy() : empty();
        return column ? negate(column.present) : this.live.copy();
    }
  }

  private clearFields(label: number): void {
    for (const column of this.fields.values()) if (column.present.has(label)) column.clear(label);
  }

  /** Grows every column to hold labels below `needed` (doubling, so amortised O(1)). */
  private ensure(needed: number): void {
    if (needed <= this.capacity) return;
    let capacity = this.capacity;
    while (capacity < needed) capacity *= 2;
    this.capacity = capacity;
    this.live = this.live.resized(capacity);
    this.shapeOf = grown(this.shapeOf, capacity);
    for (const column of this.fields.values()) column.grow(capacity);
  }
}

/**
 * Labels holding one list value. Appended on set; a cleared label leaves a stale entry
 * that readers skip (the label's current list no longer has the value) until the
 * postings are compacted, which happens once stale entries outnumber live ones — so a
 * clear never scans a long posting list.
 */
class Postings {
  labels = new Uint32Array(4);
  length = 0;
  stale = 0;

  push(label: number): void {
    if (this.length === this.labels.length) this.labels = grown(this.labels, this.labels.length * 2);
    this.labels[this.length++] = label;
  }
}

/** One metadata field across the namespace; each kind's storage exists once used. */
class FieldColumn {
  present: Bitmap;
  private numbers?: Float64Array;
  private strings?: Int32Array;
  private trues?: Bitmap;
  private falses?: Bitmap;
  /** Codes of each label's list value, as written; none when not a list. */
  private lists?: ListCodes;
  private postings?: Map<number, Postings>;
  /** Strings of this field (scalar values and list elements) to their codes. */
  private readonly dictionary = new Map<string, number>();
  /** The same strings by code (a query's includeMetadata reads values back). */
  private readonly words: string[] = [];

  constructor(private capacity: number) {
    this.present = new Bitmap(capacity);
  }

  set(label: number, value: MetadataValue): void {
    this.present.add(label);
    if (typeof value === 'number') {
      this.numbers ??= new Float64Array(this.capacity).fill(Number.NaN);
      this.numbers[label] = value;
    } else if (typeof value === 'string') {
      this.strings ??= new Int32Array(this.capacity).fill(NO_STRING);
      this.strings[label] = this.code(value);
    } else if (typeof value === 'boolean') {
      this.trues ??= new Bitmap(this.capacity);
      this.falses ??= new Bitmap(this.capacity);
      (value ? this.trues : this.falses).add(label);
    } else {
      this.lists ??= new ListCodes(this.capacity);
      this.postings ??= new Map();
      const codes = value.map((s) => this.code(s));
      this.lists.set(label, codes);
      // One posting per distinct value (a list may repeat one).
      for (const c of new Set(codes)) {
        let p = this.postings.get(c);
        if (!p) {
          p = new Postings();
          this.postings.set(c, p);
        }
        p.push(label);
      }
    }
  }

  clear(label: number): void {
    this.present.delete(label);
    if (this.numbers) this.numbers[label] = Number.NaN;
    if (this.strings) this.strings[label] = NO_STRING;
    this.trues?.delete(label);
    this.falses?.delete(label);
    if (this.lists && this.postings) {
      for (const c of new Set(this.lists.clear(label))) {
        const p = this.postings.get(c);
        if (p && ++p.stale * 2 > p.length) this.compact(c, p);
      }
    }
  }

  /** `label`'s value (the label must be present): exactly what was set, a list as a fresh array. */
  value(label: number): MetadataValue {
    // A present label has one kind; numbers are NaN and strings NO_STRING where it is another.
    if (this.numbers && !Number.isNaN(this.numbers[label])) return this.numbers[label];
    if (this.strings && this.strings[label] !== NO_STRING) return this.words[this.strings[label]];
    if (this.trues?.has(label)) return true;
    if (this.falses?.has(label)) return false;
    if (this.lists) return Array.from(this.lists.codes(label), (c) => this.words[c]);
    throw new Error(`metadata columns: label ${label} holds no value`);
  }

  grow(capacity: number): void {
    this.capacity = capacity;
    this.present = this.present.resized(capacity);
    if (this.numbers) this.numbers = grown(this.numbers, capacity, Number.NaN);
    if (this.strings) this.strings = grown(this.strings, capacity, NO_STRING);
    if (this.trues) this.trues = this.trues.resized(capacity);
    if (this.falses) this.falses = this.falses.resized(capacity);
    this.lists?.grow(capacity);
  }

  /** `$eq value`: the field equals it, or (strings) any element of a list field does. */
  equal(value: FilterScalar): Bitmap {
    const out = new Bitmap(this.capacity);
    if (typeof value === 'boolean') {
      const bits = value ? this.trues : this.falses;
      return bits ? out.or(bits) : out;
    }
    if (typeof value === 'number') {
      const numbers = this.numbers;
      // `===` on doubles: 0 equals -0, as in the reference evaluator.
      if (numbers) for (let i = 0; i < numbers.length; i++) if (numbers[i] === value) out.add(i);
      return out;
    }
    const code = this.dictionary.get(value);
    if (code === undefined) return out;
    const strings = this.strings;
    if (strings) for (let i = 0; i < strings.length; i++) if (strings[i] === code) out.add(i);
    this.addListMatches(code, out);
    return out;
  }

  /** `$in values` (strings and numbers; distinct). */
  member(values: readonly (string | number)[]): Bitmap {
    const out = new Bitmap(this.capacity);
    const numbers = new Set<number>();
    const codes: number[] = [];
    for (const v of values) {
      if (typeof v === 'number') numbers.add(v);
      else {
        const c = this.dictionary.get(v);
        if (c !== undefined) codes.push(c);
      }
    }
    if (numbers.size > 0 && this.numbers) {
      const col = this.numbers;
      // Set.has is SameValueZero: 0 and -0 are one member, as in the reference evaluator.
      for (let i = 0; i < col.length; i++) if (numbers.has(col[i])) out.add(i);
    }
    if (codes.length > 0) {
      if (this.strings) {
        const wanted = new Uint8Array(this.dictionary.size);
        for (const c of codes) wanted[c] = 1;
        const col = this.strings;
        for (let i = 0; i < col.length; i++) if (col[i] !== NO_STRING && wanted[col[i]] === 1) out.add(i);
      }
      for (const c of codes) this.addListMatches(c, out);
    }
    return out;
  }

  /** `$gt`/`$gte`/`$lt`/`$lte`: number fields only (NaN marks "not a number here"). */
  range(op: 'gt' | 'gte' | 'lt' | 'lte', x: number): Bitmap {
    const out = new Bitmap(this.capacity);
    const col = this.numbers;
    if (!col) return out;
    // Each 32-bit word is built in a register and stored once (a per-bit add() is a
    // read-modify-write of memory per match: 0.7 ms at 50 % of 100k). The operator test
    // sits outside the 32-bit inner loops, and `+(a < b)` compiles without a branch
    // (a `? 1 : 0` or an `if` is a branch that mispredicts at 50 % matching: 6× slower).
    // NaN (no number here) compares false: no match.
    // (A comparison passed in as a function is not inlined: 4 call sites make it
    // megamorphic, and that made it slower than the per-bit version.)
    const words = out.words;
    const n = Math.min(words.length, col.length >>> 5);
    for (let w = 0; w < n; w++) {
      const base = w << 5;
      let word = 0;
      if (op === 'gt') for (let b = 0; b < 32; b++) word |= +(col[base + b] > x) << b;
      else if (op === 'gte') for (let b = 0; b < 32; b++) word |= +(col[base + b] >= x) << b;
      else if (op === 'lt') for (let b = 0; b < 32; b++) word |= +(col[base + b] < x) << b;
      else for (let b = 0; b < 32; b++) word |= +(col[base + b] <= x) << b;
      words[w] = word;
    }
    // A column shorter than a whole number of words (never, with capacities that are
    // multiples of 32, but cheap to get right): the rest bit by bit.
    for (let i = n << 5; i < col.length; i++) {
      const v = col[i];
      if (op === 'gt' ? v > x : op === 'gte' ? v >= x : op === 'lt' ? v < x : v <= x) out.add(i);
    }
    return out;
  }

  private addListMatches(code: number, out: Bitmap): void {
    const p = this.postings?.get(code);
    const lists = this.lists;
    if (!p || !lists) return;
    if (p.stale === 0) {
      // No clear since the list was built or compacted: every entry is live, so skip the
      // per-label list check (a read at a random place in the pool: the slow part).
      for (let i = 0; i < p.length; i++) out.add(p.labels[i]);
      return;
    }
    for (let i = 0; i < p.length; i++) {
      const label = p.labels[i];
      if (lists.has(label, code)) out.add(label);
    }
  }

  /** Rewrites a posting list without its stale (and duplicate) entries. */
  private compact(code: number, p: Postings): void {
    const keep = new Set<number>();
    for (let i = 0; i < p.length; i++) {
      const label = p.labels[i];
      if (this.lists?.has(label, code)) keep.add(label);
    }
    if (keep.size === 0) {
      this.postings?.delete(code);
      return;
    }
    p.labels = Uint32Array.from(keep);
    p.length = p.labels.length;
    p.stale = 0;
  }

  private code(s: string): number {
    let c = this.dictionary.get(s);
    if (c === undefined) {
      c = this.words.length;
      this.dictionary.set(s, c);
      this.words.push(s);
    }
    return c;
  }
}
