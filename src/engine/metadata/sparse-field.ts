// One metadata field that few of the namespace's labels hold (field-column.ts says when):
// each holder's value as written, in a Map, so it costs memory per holder rather than
// per label of the namespace. A filter on it is a pass over the holders with the
// reference evaluator's own value tests (filter.ts), so its answers are the reference's.
// Thread rule: owned by the engine worker with the columns.
import { equals, inRange, member, type FilterScalar, type MetadataValue, type ValueTest } from '../filter.js';
import { Bitmap } from './bitmap.js';
import type { FieldColumn } from './field-column.js';

export class SparseField implements FieldColumn {
  /** The holders' values as written (the write's own value: never modified). */
  private readonly values = new Map<number, MetadataValue>();
  readonly keyJson: string;

  constructor(
    field: string,
    private capacity: number,
  ) {
    this.keyJson = JSON.stringify(field);
  }

  /** The field as `from` holds it. */
  static from(from: FieldColumn, field: string, capacity: number): SparseField {
    const out = new SparseField(field, capacity);
    from.forEach((label, value) => out.values.set(label, value));
    return out;
  }

  get size(): number {
    return this.values.size;
  }

  set(label: number, value: MetadataValue): void {
    this.values.set(label, value);
  }

  clear(label: number): void {
    this.values.delete(label);
  }

  valueJson(label: number): string {
    const value = this.values.get(label);
    if (value === undefined) throw new Error(`metadata columns: label ${label} holds no value`);
    return JSON.stringify(value);
  }

  forEach(fn: (label: number, value: MetadataValue) => void): void {
    for (const [label, value] of this.values) fn(label, value);
  }

  equal(value: FilterScalar): Bitmap {
    return this.matching(equals(value));
  }

  member(values: readonly (string | number)[]): Bitmap {
    return this.matching(member(values));
  }

  range(op: 'gt' | 'gte' | 'lt' | 'lte', x: number): Bitmap {
    return this.matching(inRange(op, x));
  }

  holders(): Bitmap {
    return this.matching(() => true);
  }

  grow(capacity: number): void {
    this.capacity = capacity;
  }

  private matching(test: ValueTest): Bitmap {
    const out = new Bitmap(this.capacity);
    for (const [label, value] of this.values) if (test(value)) out.add(label);
    return out;
  }
}
