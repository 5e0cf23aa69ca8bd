// One metadata field held densely: arrays indexed by label, for a field that many of the
// namespace's labels hold (metadata/field-column.ts says when). See metadata-columns.ts for
// the semantics every field answers with.
// Thread rule: owned by the engine worker with the columns.
import type { FilterScalar, MetadataValue } from '../filter.js';
import { Bitmap } from './bitmap.js';
import { ListCodes } from './list-codes.js';
import type { FieldColumn } from './field-column.js';
import { MAX_INDEXED_VALUES, ValuePostings } from './value-postings.js';
import { grown } from '../typed-arrays.js';

/** A string column's value where the label has no string. */
const NO_STRING = -1;
/** Strings a dictionary may hold before wordsOutgrown() looks at its size. */
const MIN_WORDS_LIMIT = 1024;

/** One metadata field across the namespace; each kind's storage exists once used. */
export class DenseField implements FieldColumn {
  private present: Bitmap;
  /** Labels holding the field. */
  size = 0;
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
  private wordsLimit = MIN_WORDS_LIMIT;
  /** The same strings by code, and as JSON text (what a query's includeMetadata prints). */
  private readonly words: string[] = [];
  private readonly wordsJson: string[] = [];
  /** The field's name as JSON text. */
  readonly keyJson: string;

  constructor(field: string, private capacity: number) {
    this.present = new Bitmap(capacity);
    this.keyJson = JSON.stringify(field);
  }

  /** The field as `from` holds it, in columns for labels below `capacity`. */
  static from(from: FieldColumn, field: string, capacity: number): DenseField {
    const out = new DenseField(field, capacity);
    from.forEach((label, value) => out.set(label, value));
    out.wordsLimit = Math.max(MIN_WORDS_LIMIT, 2 * out.words.length);
    return out;
  }

  /**
   * Whether the dictionary has outgrown the strings held when the field was last written
   * whole (twice as many, at least MIN_WORDS_LIMIT): it never forgets a string, so a field
   * whose values keep changing (a timestamp) would grow without bound. The owner then
   * writes the field anew (from()), each string once more at most per doubling: O(1)
   * amortised per new string.
   */
  wordsOutgrown(): boolean {
    return this.words.length > this.wordsLimit;
  }

  /** `label` must not hold the field (MetadataColumns clears it first). */
  set(label: number, value: MetadataValue): void {
    this.present.add(label);
    this.size++;
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

  /** `label` must hold the field. */
  clear(label: number): void {
    this.present.delete(label);
    this.size--;
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

  /** Calls `fn` for each label holding the field, in label order, with its value as written. */
  forEach(fn: (label: number, value: MetadataValue) => void): void {
    this.present.forEach((label) => fn(label, this.value(label)));
  }

  private value(label: number): MetadataValue {
    if (this.numbers && !Number.isNaN(this.numbers[label])) return this.numbers[label];
    if (this.strings && this.strings[label] !== NO_STRING) return this.words[this.strings[label]];
    if (this.trues?.has(label)) return true;
    if (this.falses?.has(label)) return false;
    if (this.lists) return [...this.lists.codes(label)].map((c) => this.words[c]);
    throw new Error(`metadata columns: label ${label} holds no value`);
  }

  /** `$exists: true` (a fresh bitmap). */
  holders(): Bitmap {
    return this.present.copy();
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
      c = this.words.length;
      this.dictionary.set(s, c);
      this.words.push(s);
      this.wordsJson.push(JSON.stringify(s));
    }
    return c;
  }
}
