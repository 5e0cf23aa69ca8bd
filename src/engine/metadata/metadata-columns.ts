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
// (key-shapes.ts) they print the object as written, as JSON text — its keys in order, a
// list's elements in order with repeats — so the main thread reads the record store only for a
// record whose fields are not all held (an index declaring its filterable fields, or a
// namespace past the key-shape limits).
//
// Scalar values are also indexed by value (ValuePostings below): the labels holding each
// string and each number, so `$eq`, `$in` and the number ranges cost the matching records
// rather than a pass over the whole column — at 1M records such a pass took 1.2–1.7 ms a
// query (7 ms for a numeric `$in`), more than the graph walk it filtered.
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
        column = new FieldColumn(field, this.capacity);
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
   * `label`'s metadata as JSON text, printed from the columns: what JSON.stringify gives
   * for the object as written (the same keys in the same order, the same values), which a
   * query answer carries back (protocol.ts EngineMatch.metadataJson) without an object
   * being built; METADATA_IN_STORE when the columns do not hold all of it, undefined when
   * the record has none.
   */
  metadataJson(label: number): string | typeof METADATA_IN_STORE | undefined {
    const entry = label < this.capacity ? this.shapeOf[label] : NO_METADATA;
    if (entry === NO_METADATA) return undefined;
    if (entry === IN_STORE) return METADATA_IN_STORE;
    let out = '{';
    for (const key of this.shapes.keys(entry - FIRST_SHAPE)) {
      const column = this.fields.get(key);
      if (!column) throw new Error(`metadata columns: label ${label}'s field ${JSON.stringify(key)} has no column`);
      out += `${out.length === 1 ? '' : ','}${column.keyJson}:${column.valueJson(label)}`;
    }
    return `${out}}`;
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

/** Labels holding one value, in the order they were given it (stale entries included: see ValuePostings). */
class Postings {
  labels = new Uint32Array(4);
  length = 0;
  stale = 0;

  push(label: number): void {
    if (this.length === this.labels.length) this.labels = grown(this.labels, this.labels.length * 2);
    this.labels[this.length++] = label;
  }
}

/**
 * Most distinct values a field's scalar ValuePostings keeps, per kind (strings, numbers).
 * Each costs a map entry and a posting list (~200 bytes); a field with more (an id, a
 * timestamp, a price) stops being indexed by value for good, and its filters scan the
 * column as before, so memory stays bounded by the data rather than by its spread.
 */
export const MAX_INDEXED_VALUES = 4096;

/**
 * The labels holding each value of one kind in one field: a list element's code, a
 * scalar string's code, or a number (Map keys compare as SameValueZero, so 0 and -0 are
 * one key, as `===` makes them one value). Appended on set. A label whose value changes
 * or is cleared leaves a stale entry: `stale()` counts it, readers retest every entry
 * with `holds` while a list has any, and a list is rewritten without them once they
 * outnumber the live ones — so a clear never scans a long posting list. A label cleared
 * and given the same value again is listed twice until then, which a bitmap union absorbs.
 */
class ValuePostings {
  private readonly lists = new Map<number, Postings>();
  /** The keys in ascending order (numbers' ranges), rebuilt when a key comes or goes. */
  private sorted: Float64Array | undefined;

  /** `holds(label, key)`: whether the label has the key now (the column's own answer). */
  constructor(
    private readonly holds: (label: number, key: number) => boolean,
    private readonly limit = Infinity,
  ) {}

  /** False (and nothing added) when `key` would be a value past the limit: the caller drops this index. */
  add(key: number, label: number): boolean {
    let p = this.lists.get(key);
    if (!p) {
      if (this.lists.size >= this.limit) return false;
      p = new Postings();
      this.lists.set(key, p);
      this.sorted = undefined;
    }
    p.push(label);
    return true;
  }

  /** One entry of `key` went stale (its label no longer holds it). */
  stale(key: number): void {
    const p = this.lists.get(key);
    if (!p || ++p.stale * 2 <= p.length) return;
    const keep = new Set<number>();
    for (let i = 0; i < p.length; i++) if (this.holds(p.labels[i], key)) keep.add(p.labels[i]);
    if (keep.size === 0) {
      this.lists.delete(key);
      this.sorted = undefined;
      return;
    }
    p.labels = Uint32Array.from(keep);
    p.length = p.labels.length;
    p.stale = 0;
  }

  /** Adds to `out` the labels holding `key`. */
  addTo(key: number, out: Bitmap): void {
    const p = this.lists.get(key);
    if (!p) return;
    const labels = p.labels;
    if (p.stale === 0) {
      // No clear since the list was built or compacted: every entry is live, so skip the
      // retest (for lists a read at a random place in the pool: the slow part).
      for (let i = 0; i < p.length; i++) out.add(labels[i]);
      return;
    }
    for (let i = 0; i < p.length; i++) if (this.holds(labels[i], key)) out.add(labels[i]);
  }

  /** The keys within [from, to] (inclusive bounds unless open), ascending. */
  keysBetween(from: number, fromOpen: boolean, to: number, toOpen: boolean): number[] {
    if (!this.sorted) this.sorted = Float64Array.from(this.lists.keys()).sort();
    const keys = this.sorted;
    // First key not below the lower bound, by binary search; then walk up to the upper.
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < from || (fromOpen && keys[mid] === from)) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    for (let i = lo; i < keys.length && (keys[i] < to || (!toOpen && keys[i] === to)); i++) out.push(keys[i]);
    return out;
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
  /** Labels by list element code (every list value is indexed). */
  private listLabels?: ValuePostings;
  /** Labels by scalar string code and by number; null once a kind had too many values. */
  private stringLabels?: ValuePostings | null;
  private numberLabels?: ValuePostings | null;
  /** Strings of this field (scalar values and list elements) to their codes. */
  private readonly dictionary = new Map<string, number>();
  /** The same strings by code, as JSON text (what a query's includeMetadata prints). */
  private readonly wordsJson: string[] = [];
  /** The field's name as JSON text. */
  readonly keyJson: string;

  constructor(field: string, private capacity: number) {
    this.present = new Bitmap(capacity);
    this.keyJson = JSON.stringify(field);
  }

  set(label: number, value: MetadataValue): void {
    this.present.add(label);
    if (typeof value === 'number') {
      this.numbers ??= new Float64Array(this.capacity).fill(Number.NaN);
      this.numbers[label] = value;
      // undefined: not made yet; null: dropped at the limit, for good.
      if (this.numberLabels === undefined) this.numberLabels = new ValuePostings((l, v) => this.numbers?.[l] === v, MAX_INDEXED_VALUES);
      if (this.numberLabels?.add(value, label) === false) this.numberLabels = null;
    } else if (typeof value === 'string') {
      this.strings ??= new Int32Array(this.capacity).fill(NO_STRING);
      const code = this.code(value);
      this.strings[label] = code;
      if (this.stringLabels === undefined) this.stringLabels = new ValuePostings((l, c) => this.strings?.[l] === c, MAX_INDEXED_VALUES);
      if (this.stringLabels?.add(code, label) === false) this.stringLabels = null;
    } else if (typeof value === 'boolean') {
      this.trues ??= new Bitmap(this.capacity);
      this.falses ??= new Bitmap(this.capacity);
      (value ? this.trues : this.falses).add(label);
    } else {
      this.lists ??= new ListCodes(this.capacity);
      this.listLabels ??= new ValuePostings((l, c) => this.lists?.has(l, c) === true);
      const codes = value.map((s) => this.code(s));
      this.lists.set(label, codes);
      // One posting per distinct value (a list may repeat one).
      for (const c of new Set(codes)) this.listLabels.add(c, label);
    }
  }

  clear(label: number): void {
    this.present.delete(label);
    if (this.numbers && !Number.isNaN(this.numbers[label])) {
      const value = this.numbers[label];
      this.numbers[label] = Number.NaN;
      this.numberLabels?.stale(value);
    }
    if (this.strings && this.strings[label] !== NO_STRING) {
      const code = this.strings[label];
      this.strings[label] = NO_STRING;
      this.stringLabels?.stale(code);
    }
    this.trues?.delete(label);
    this.falses?.delete(label);
    if (this.lists && this.listLabels) {
      for (const c of new Set(this.lists.clear(label))) this.listLabels.stale(c);
    }
  }

  /** `label`'s value (the label must be present) as the JSON text of exactly what was set. */
  valueJson(label: number): string {
    // A present label has one kind; numbers are NaN and strings NO_STRING where it is another.
    if (this.numbers && !Number.isNaN(this.numbers[label])) return JSON.stringify(this.numbers[label]);
    if (this.strings && this.strings[label] !== NO_STRING) return this.wordsJson[this.strings[label]];
    if (this.trues?.has(label)) return 'true';
    if (this.falses?.has(label)) return 'false';
    if (this.lists) {
      let out = '[';
      for (const c of this.lists.codes(label)) out += `${out.length === 1 ? '' : ','}${this.wordsJson[c]}`;
      return `${out}]`;
    }
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
      this.addNumbers([value], out);
      return out;
    }
    const code = this.dictionary.get(value);
    if (code === undefined) return out;
    this.addStrings([code], out);
    this.listLabels?.addTo(code, out);
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
    // Set: SameValueZero, so 0 and -0 are one member, as in the reference evaluator.
    if (numbers.size > 0) this.addNumbers([...numbers], out);
    if (codes.length > 0) {
      this.addStrings(codes, out);
      for (const c of codes) this.listLabels?.addTo(c, out);
    }
    return out;
  }

  /** Adds the labels whose number is one of `values` (distinct, as SameValueZero). */
  private addNumbers(values: readonly number[], out: Bitmap): void {
    const col = this.numbers;
    if (!col) return;
    if (this.numberLabels) {
      for (const v of values) this.numberLabels.addTo(v, out);
      return;
    }
    // `===` on doubles: 0 equals -0, as in the reference evaluator.
    if (values.length === 1) {
      const v = values[0];
      for (let i = 0; i < col.length; i++) if (col[i] === v) out.add(i);
      return;
    }
    const wanted = new Set(values);
    for (let i = 0; i < col.length; i++) if (wanted.has(col[i])) out.add(i);
  }

  /** Adds the labels whose scalar string has one of `codes` (distinct). */
  private addStrings(codes: readonly number[], out: Bitmap): void {
    const col = this.strings;
    if (!col) return;
    if (this.stringLabels) {
      for (const c of codes) this.stringLabels.addTo(c, out);
      return;
    }
    const wanted = new Uint8Array(this.dictionary.size);
    for (const c of codes) wanted[c] = 1;
    for (let i = 0; i < col.length; i++) if (col[i] !== NO_STRING && wanted[col[i]] === 1) out.add(i);
  }

  /** `$gt`/`$gte`/`$lt`/`$lte`: number fields only (NaN marks "not a number here"). */
  range(op: 'gt' | 'gte' | 'lt' | 'lte', x: number): Bitmap {
    const out = new Bitmap(this.capacity);
    const col = this.numbers;
    if (!col) return out;
    if (this.numberLabels) {
      const keys =
        op === 'gt' || op === 'gte'
          ? this.numberLabels.keysBetween(x, op === 'gt', Infinity, false)
          : this.numberLabels.keysBetween(-Infinity, false, x, op === 'lt');
      this.addNumbers(keys, out);
      return out;
    }
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

  private code(s: string): number {
    let c = this.dictionary.get(s);
    if (c === undefined) {
      c = this.wordsJson.length;
      this.dictionary.set(s, c);
      this.wordsJson.push(JSON.stringify(s));
    }
    return c;
  }
}
