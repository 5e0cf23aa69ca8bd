/**
 * The metadata filter language: Pinecone's MongoDB-style subset (pinecone-wire.md §4),
 * parsed once into a small AST (`FilterNode`) and compiled to a closure (`Predicate`)
 * that a scan calls per record. The AST is the seam for the columnar engine: it can
 * evaluate the same nodes over typed arrays instead of calling the closure.
 *
 * Grammar
 * - A filter is an object. Each key is `$and`, `$or` or a field name; keys are ANDed.
 *   `{}` matches every record, at the top level and as an element of `$and`/`$or`.
 *   `undefined` and `null` mean "no filter" (match all); see `isEmptyFilter`.
 * - `$and`/`$or`: a non-empty array of filter objects.
 * - A field's value is either a scalar (implicit `$eq`) or a non-empty object of field
 *   operators, which are ANDed: `{"year":{"$gte":2000,"$lte":2010}}`.
 * - Field operators and operands:
 *     `$eq` `$ne`               string, number or boolean
 *     `$gt` `$gte` `$lt` `$lte` number
 *     `$in` `$nin`              array of strings and/or numbers, at most FILTER_MAX_IN_VALUES;
 *                               `[]` is allowed (`$in: []` matches nothing, `$nin: []` all).
 *                               Booleans are refused, as Pinecone does (use `$eq`).
 *     `$exists`                 boolean
 *   Numbers must be finite (JSON's `1e999` parses to Infinity and is refused).
 * - Refused with FilterError, whose message starts with the path inside the filter
 *   (`filter.$and[2].year.$gt: must be a number, got string`): a non-object filter or
 *   `$and`/`$or` element; an unknown operator (`$regex`, `$not`, ...; the message lists
 *   the supported ones); a field operator at filter level (`{"$eq":1}`) or `$and`/`$or`
 *   inside a field; a list as an implicit-equality value or `$eq`/`$ne` operand (Pinecone
 *   refuses `{"genre":["a","b"]}`; use `$in`); `null` anywhere as a value; a field with an
 *   empty operator object (`{"genre":{}}`); a non-operator key inside a field's operator
 *   object (metadata is flat, there are no sub-fields); `$and`/`$or` nested more than
 *   FILTER_MAX_DEPTH levels; more than FILTER_MAX_CONDITIONS conditions.
 *   A field name is any key not starting with `$` (the empty string included).
 *
 * Semantics (value = the record's own field; records store string, number, boolean or a
 * list of strings; `metadata === undefined` is a record with no fields)
 * - Types are strict: `"1"` never equals `1`; booleans only equal booleans.
 * - `$eq v`: scalar field `=== v`; list field: ANY element `=== v` (so a number or boolean
 *   never matches a list). `$in S`: scalar field in S; list field: ANY element in S.
 * - `$ne v` is exactly NOT `$eq v`, `$nin S` exactly NOT `$in S` (Mongo semantics):
 *   a list matches `$ne` when NO element equals v and `$nin` when NO element is in S;
 *   an empty list matches both; a record WITHOUT the field matches both.
 * - `$gt` `$gte` `$lt` `$lte` match only number fields (IEEE comparison); never strings,
 *   booleans, lists or a missing field.
 * - `$exists: true` matches when the record has the field (an empty list counts as
 *   present); `$exists: false` when it has not.
 * - Without the field only `$ne`, `$nin` and `$exists:false` match.
 * - Only a record's own properties count (DESIGN.md decision 8): a field named
 *   `constructor` or `__proto__` is never read from Object.prototype.
 *
 * Limits (exported below)
 * - FILTER_MAX_IN_VALUES (10,000, Pinecone's) values per `$in`/`$nin`.
 * - FILTER_MAX_DEPTH (16) levels of `$and`/`$or` nesting; the filter object itself is
 *   level 0, so `{"$and":[{"$or":[...]}]}` is two levels deep.
 * - FILTER_MAX_CONDITIONS (1024): every field operator (an implicit `$eq` included) counts
 *   one, and so does every element of an `$and`/`$or` array that holds none (`{}`), so an
 *   `$or` of 1,024 equalities is allowed and a huge array of `{}` is refused at its
 *   1,025th element. This bounds parse work and per-record evaluation cost independently
 *   of the body size. (Counting every element besides its operators refused an `$or` of
 *   513 equalities.)
 */

export const FILTER_MAX_IN_VALUES = 10_000;
export const FILTER_MAX_DEPTH = 16;
export const FILTER_MAX_CONDITIONS = 1024;

import type { Metadata, MetadataValue } from './model.js';

export type { Metadata, MetadataValue } from './model.js';

/** True when the record matches. Allocation-free per call. */
export type Predicate = (metadata: Metadata | undefined) => boolean;

export type FilterScalar = string | number | boolean;

/**
 * The parsed filter. Evaluating a node needs only the node and the record's fields.
 * Parsing normalises: an object with several keys, several operators on one field and
 * `$and` all become `and` (nested `and`s flattened, `all` children dropped); `or` is
 * flattened likewise and collapses to `all` when any branch is `all`; a one-child
 * `and`/`or` is replaced by its child. So `and`/`or` always have >= 2 children.
 */
export type FilterNode =
  /** Matches every record (`{}`, no filter). */
  | { readonly kind: 'all' }
  | { readonly kind: 'and'; readonly children: readonly FilterNode[] }
  | { readonly kind: 'or'; readonly children: readonly FilterNode[] }
  | FieldNode;

export type FieldNode =
  /** `eq`: the field, or any element of a list field, `===` value; `ne` is its negation. */
  | { readonly kind: 'eq' | 'ne'; readonly field: string; readonly value: FilterScalar }
  /** Numeric comparison `field <op> value`; only number fields can match. */
  | { readonly kind: 'gt' | 'gte' | 'lt' | 'lte'; readonly field: string; readonly value: number }
  /** `in`: the field, or any element of a list field, is in values; `nin` is its negation. Values are distinct. */
  | { readonly kind: 'in' | 'nin'; readonly field: string; readonly values: readonly (string | number)[] }
  /** Field present (`value: true`) or absent (`value: false`). */
  | { readonly kind: 'exists'; readonly field: string; readonly value: boolean };

export class FilterError extends Error {
  /** Where in the filter the problem is, e.g. `filter.$and[2].year.$gt`. */
  readonly path: string;
  constructor(path: string, detail: string) {
    super(`${path}: ${detail}`);
    this.name = 'FilterError';
    this.path = path;
  }
}

/** True for "no filter": `undefined`, `null` or `{}`. Anything else, valid or not, is false. */
export function isEmptyFilter(filter: unknown): boolean {
  if (filter === undefined || filter === null) return true;
  return isPlainObject(filter) && Object.keys(filter).length === 0;
}

/** Parses and compiles a filter. Throws FilterError naming the path (rooted at `field`). */
export function parseFilter(filter: unknown, field = 'filter'): Predicate {
  return compileFilter(parseFilterNode(filter, field));
}

/** Parses a filter into its AST. Throws FilterError naming the path (rooted at `field`). */
export function parseFilterNode(filter: unknown, field = 'filter'): FilterNode {
  if (filter === undefined || filter === null) return ALL;
  if (!isPlainObject(filter)) throw new FilterError(field, `must be an object, got ${typeName(filter)}`);
  return parseObject(filter, field, 0, { conditions: 0 });
}

// ---------------------------------------------------------------------------------------
// Parsing

const ALL: FilterNode = Object.freeze({ kind: 'all' });

type FieldOperator = '$eq' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte' | '$in' | '$nin' | '$exists';
const FIELD_OPERATORS: ReadonlySet<string> = new Set<FieldOperator>([
  '$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists',
]);
const SUPPORTED = '$eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists, $and, $or';

interface ParseState {
  conditions: number;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a non-finite number';
  return typeof value;
}

const PLAIN_SEGMENT = /^\$?[A-Za-z0-9_-]+$/;

/** `base.key`, or `base["odd key"]` when the key would be ambiguous in a dotted path. */
function join(base: string, key: string): string {
  if (PLAIN_SEGMENT.test(key) && key.length <= 64) return `${base}.${key}`;
  const quoted = JSON.stringify(key.length > 64 ? `${key.slice(0, 61)}...` : key);
  return `${base}[${quoted}]`;
}

function count(state: ParseState, n: number, path: string): void {
  state.conditions += n;
  if (state.conditions > FILTER_MAX_CONDITIONS) {
    throw new FilterError(path, `filter has more than ${FILTER_MAX_CONDITIONS} conditions`);
  }
}

function parseObject(obj: Record<string, unknown>, path: string, depth: number, state: ParseState): FilterNode {
  const children: FilterNode[] = [];
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    const at = join(path, key);
    if (key === '$and' || key === '$or') {
      children.push(parseLogical(key, value, at, depth + 1, state));
    } else if (key.startsWith('$')) {
      if (FIELD_OPERATORS.has(key)) {
        throw new FilterError(at, `${key} must be applied to a field, as in {"<field>": {"${key}": ...}}`);
      }
      throw new FilterError(at, `unknown operator ${JSON.stringify(key)}; supported operators: ${SUPPORTED}`);
    } else {
      parseField(key, value, at, state, children);
    }
  }
  return makeAnd(children);
}

function parseLogical(op: '$and' | '$or', value: unknown, path: string, depth: number, state: ParseState): FilterNode {
  if (depth > FILTER_MAX_DEPTH) {
    throw new FilterError(path, `$and/$or may be nested at most ${FILTER_MAX_DEPTH} levels deep`);
  }
  if (!Array.isArray(value)) {
    throw new FilterError(path, `must be a non-empty array of filter objects, got ${typeName(value)}`);
  }
  if (value.length === 0) {
    throw new FilterError(path, 'must be a non-empty array of filter objects, got an empty array');
  }
  const children: FilterNode[] = [];
  for (let i = 0; i < value.length; i++) {
    const element: unknown = value[i];
    const at = `${path}[${i}]`;
    if (!isPlainObject(element)) throw new FilterError(at, `must be a filter object, got ${typeName(element)}`);
    const before = state.conditions;
    children.push(parseObject(element, at, depth, state));
    if (state.conditions === before) count(state, 1, at);
  }
  return op === '$and' ? makeAnd(children) : makeOr(children);
}

function parseField(field: string, value: unknown, path: string, state: ParseState, out: FilterNode[]): void {
  if (!isPlainObject(value)) {
    count(state, 1, path);
    if (Array.isArray(value)) {
      throw new FilterError(path, 'a list is not a valid filter value; to match any of several values use {"$in": [...]}');
    }
    out.push({ kind: 'eq', field, value: scalarOperand(value, path) });
    return;
  }
  const ops = Object.keys(value);
  if (ops.length === 0) {
    throw new FilterError(path, 'must be a string, number, boolean or an object of operators, got an empty object');
  }
  for (const op of ops) {
    const operand = value[op];
    const at = join(path, op);
    count(state, 1, at);
    switch (op) {
      case '$eq':
      case '$ne':
        out.push({ kind: op === '$eq' ? 'eq' : 'ne', field, value: scalarOperand(operand, at) });
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (typeof operand !== 'number' || !Number.isFinite(operand)) {
          throw new FilterError(at, `must be a number, got ${typeName(operand)}`);
        }
        out.push({ kind: op.slice(1) as 'gt' | 'gte' | 'lt' | 'lte', field, value: operand });
        break;
      case '$in':
      case '$nin':
        out.push({ kind: op === '$in' ? 'in' : 'nin', field, values: listOperand(operand, at) });
        break;
      case '$exists':
        if (typeof operand !== 'boolean') throw new FilterError(at, `must be a boolean, got ${typeName(operand)}`);
        out.push({ kind: 'exists', field, value: operand });
        break;
      case '$and':
      case '$or':
        throw new FilterError(at, `${op} combines filters and cannot be applied to a field; field operators: $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $exists`);
      default:
        if (op.startsWith('$')) {
          throw new FilterError(at, `unknown operator ${JSON.stringify(op)}; supported operators: ${SUPPORTED}`);
        }
        throw new FilterError(at, `expected an operator, got the key ${JSON.stringify(op)}; metadata is flat, so a field takes a value or an object of operators (${SUPPORTED})`);
    }
  }
}

function scalarOperand(value: unknown, path: string): FilterScalar {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const hint = Array.isArray(value) ? ' (to match any of several values use $in)' : '';
  throw new FilterError(path, `must be a string, number or boolean, got ${typeName(value)}${hint}`);
}

function listOperand(value: unknown, path: string): (string | number)[] {
  if (!Array.isArray(value)) {
    throw new FilterError(path, `must be an array of strings or numbers, got ${typeName(value)}`);
  }
  if (value.length > FILTER_MAX_IN_VALUES) {
    throw new FilterError(path, `has ${value.length} values; at most ${FILTER_MAX_IN_VALUES} are allowed`);
  }
  const distinct = new Set<string | number>();
  for (let i = 0; i < value.length; i++) {
    const element: unknown = value[i];
    if (typeof element === 'string' || (typeof element === 'number' && Number.isFinite(element))) {
      distinct.add(element);
    } else {
      throw new FilterError(`${path}[${i}]`, `must be a string or number, got ${typeName(element)}`);
    }
  }
  return [...distinct];
}

function makeAnd(children: readonly FilterNode[]): FilterNode {
  const flat: FilterNode[] = [];
  for (const child of children) {
    if (child.kind === 'and') flat.push(...child.children);
    else if (child.kind !== 'all') flat.push(child);
  }
  if (flat.length === 0) return ALL;
  if (flat.length === 1) return flat[0];
  return { kind: 'and', children: flat };
}

function makeOr(children: readonly FilterNode[]): FilterNode {
  const flat: FilterNode[] = [];
  for (const child of children) {
    if (child.kind === 'all') return ALL;
    if (child.kind === 'or') flat.push(...child.children);
    else flat.push(child);
  }
  if (flat.length === 1) return flat[0];
  return { kind: 'or', children: flat };
}

// ---------------------------------------------------------------------------------------
// Compiling

const matchAll: Predicate = () => true;

/** The metadata field names a filter reads. */
export function filterFields(node: FilterNode, out: Set<string> = new Set()): Set<string> {
  if (node.kind === 'and' || node.kind === 'or') for (const child of node.children) filterFields(child, out);
  else if (node.kind !== 'all') out.add(node.field);
  return out;
}

/** Compiles an AST (from parseFilterNode, or built by hand to the same rules) to a predicate. */
export function compileFilter(node: FilterNode): Predicate {
  switch (node.kind) {
    case 'all':
      return matchAll;
    case 'and': {
      const parts = node.children.map(compileFilter);
      if (parts.length === 0) return matchAll;
      if (parts.length === 1) return parts[0];
      if (parts.length === 2) {
        const [a, b] = parts;
        return (m) => a(m) && b(m);
      }
      return (m) => {
        for (let i = 0; i < parts.length; i++) if (!parts[i](m)) return false;
        return true;
      };
    }
    case 'or': {
      const parts = node.children.map(compileFilter);
      if (parts.length === 0) return () => false;
      if (parts.length === 1) return parts[0];
      if (parts.length === 2) {
        const [a, b] = parts;
        return (m) => a(m) || b(m);
      }
      return (m) => {
        for (let i = 0; i < parts.length; i++) if (parts[i](m)) return true;
        return false;
      };
    }
    case 'eq':
      return onField(node.field, equals(node.value), false);
    case 'ne': {
      const eq = equals(node.value);
      return onField(node.field, (v) => !eq(v), true);
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return onField(node.field, inRange(node.kind, node.value), false);
    case 'in':
      return onField(node.field, member(node.values), false);
    case 'nin': {
      const inSet = member(node.values);
      return onField(node.field, (v) => !inSet(v), true);
    }
    case 'exists': {
      const present = node.value;
      return onField(node.field, () => present, !present);
    }
  }
}

/** Whether one field's value matches an operator (the reference's per-value tests, also used by metadata/sparse-field.ts). */
export type ValueTest = (value: MetadataValue) => boolean;

/** `x === value`, or some element of a list `=== value` (lists hold only strings). */
export function equals(value: FilterScalar): ValueTest {
  if (typeof value !== 'string') return (v) => v === value;
  return (v) => {
    if (v === value) return true;
    if (!Array.isArray(v)) return false;
    for (let i = 0; i < v.length; i++) if (v[i] === value) return true;
    return false;
  };
}

/** A number within the range (numbers only: a string or list never matches). */
export function inRange(op: 'gt' | 'gte' | 'lt' | 'lte', x: number): ValueTest {
  switch (op) {
    case 'gt':
      return (v) => typeof v === 'number' && v > x;
    case 'gte':
      return (v) => typeof v === 'number' && v >= x;
    case 'lt':
      return (v) => typeof v === 'number' && v < x;
    case 'lte':
      return (v) => typeof v === 'number' && v <= x;
  }
}

/** `$in`: the value, or (lists) some element, is one of `values`. */
export function member(values: readonly (string | number)[]): ValueTest {
  // Set.has uses SameValueZero: "1" and 1 stay distinct, booleans are never members.
  const set: ReadonlySet<unknown> = new Set<string | number>(values);
  const anyString = values.some((x) => typeof x === 'string');
  return (v) => {
    if (!Array.isArray(v)) return set.has(v);
    if (!anyString) return false;
    for (let i = 0; i < v.length; i++) if (set.has(v[i])) return true;
    return false;
  };
}

/**
 * Applies `test` to the record's own field, or answers `whenMissing` without it.
 * Fast path: metadata is a plain (or null-prototype) object of defined values, so an
 * absent key reads as undefined unless the name is inherited from Object.prototype
 * (`constructor`, `toString`, `__proto__`, ...); those names take the hasOwn path.
 */
function onField(field: string, test: ValueTest, whenMissing: boolean): Predicate {
  if (field in Object.prototype) {
    return (m) => (m !== undefined && Object.hasOwn(m, field) ? test(m[field]) : whenMissing);
  }
  return (m) => {
    if (m === undefined) return whenMissing;
    const v = m[field];
    return v === undefined ? whenMissing : test(v);
  };
}
