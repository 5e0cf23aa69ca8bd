// JSON schemas of the data-plane requests, for the OpenAPI document ONLY: the data plane
// validates with its hand-written checks (src/data/vector-input.ts, vector-service.ts),
// which also convert values to their stored form and apply the rules that need the index
// (dimension, dense or sparse, the cosine zero vector, the 40 KB metadata size). Those
// checks are needed whatever else runs, so a schema pass would only add to the upsert
// path's cost (measured in bench/validate-upsert.ts; see upsertInput).
// upsertBody states every index-independent rule of those checks, and
// test/data/upsert-schema-agreement.test.ts holds it to them on a corpus of bodies; the
// other schemas describe the fields and their types.
import {
  DELETE_MAX_IDS,
  FETCH_BY_METADATA_LIMIT_MAX,
  FETCH_MAX_IDS,
  LIST_LIMIT_MAX,
  NAMESPACE_MAX_LENGTH,
  SPARSE_MAX_ENTRIES,
  TOP_K_MAX,
  UPSERT_MAX_VECTORS,
  VECTOR_ID_MAX_LENGTH,
} from '../../limits.js';

/** The smallest magnitude that rounds to ±Infinity as float32 (2^128 - 2^103). */
const FLOAT32_OVERFLOW = 2 ** 128 - 2 ** 103;

/** ASCII without NUL (decision 8); JSON Schema patterns are unicode regexes. */
const ASCII_NO_NUL = '^[\\u0001-\\u007f]*$';

const float32 = { type: 'number', exclusiveMinimum: -FLOAT32_OVERFLOW, exclusiveMaximum: FLOAT32_OVERFLOW } as const;

const vectorId = {
  type: 'string',
  minLength: 1,
  maxLength: VECTOR_ID_MAX_LENGTH,
  pattern: ASCII_NO_NUL,
  description: `1-${VECTOR_ID_MAX_LENGTH} ASCII characters without NUL`,
} as const;

const namespace = {
  type: ['string', 'null'],
  maxLength: NAMESPACE_MAX_LENGTH,
  pattern: ASCII_NO_NUL,
  description: 'Absent, "" and "__default__" name the default namespace',
} as const;

const denseValues = {
  type: ['array', 'null'],
  items: float32,
  description: "Exactly the index's dimension, finite as float32; [] means no dense values",
} as const;

const sparseValues = {
  type: ['object', 'null'],
  required: ['indices', 'values'],
  properties: {
    indices: {
      type: 'array',
      minItems: 1,
      maxItems: SPARSE_MAX_ENTRIES,
      uniqueItems: true,
      items: { type: 'integer', minimum: 0, maximum: 4294967295 },
    },
    values: { type: 'array', minItems: 1, maxItems: SPARSE_MAX_ENTRIES, items: float32 },
  },
  description: 'indices and values of equal length',
} as const;

const metadata = {
  type: ['object', 'null'],
  propertyNames: { not: { pattern: '^\\$' } },
  additionalProperties: {
    anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: { type: 'string' } }],
  },
  description: 'Flat: string, number, boolean or list of strings; at most 40 KB as JSON',
} as const;

const filter = { type: ['object', 'null'], description: 'A metadata filter ($eq, $in, $and, ...)' } as const;

export const upsertBody = {
  type: 'object',
  required: ['vectors'],
  properties: {
    namespace,
    vectors: {
      type: 'array',
      minItems: 1,
      maxItems: UPSERT_MAX_VECTORS,
      items: {
        type: 'object',
        required: ['id'],
        properties: {
          id: vectorId,
          values: denseValues,
          sparseValues,
          sparse_values: sparseValues,
          metadata,
        },
      },
    },
  },
} as const;

export const updateBody = {
  type: 'object',
  properties: {
    id: vectorId,
    values: denseValues,
    sparseValues,
    setMetadata: metadata,
    namespace,
    filter,
    dryRun: { type: 'boolean' },
  },
  description: 'By id (values, sparseValues and/or setMetadata) or by filter (setMetadata only)',
} as const;

export const deleteBody = {
  type: 'object',
  properties: {
    ids: { type: 'array', maxItems: DELETE_MAX_IDS, items: vectorId },
    deleteAll: { type: 'boolean' },
    filter,
    namespace,
  },
  description: 'Exactly one of ids, deleteAll or filter',
} as const;

export const queryBody = {
  type: 'object',
  required: ['topK'],
  properties: {
    topK: { type: 'integer', minimum: 1, maximum: TOP_K_MAX },
    namespace,
    vector: denseValues,
    sparseVector: sparseValues,
    id: vectorId,
    filter,
    includeValues: { type: 'boolean' },
    includeMetadata: { type: 'boolean' },
  },
  description: 'A query vector, a sparse vector (or both), or the id of a stored record',
} as const;

export const fetchByMetadataBody = {
  type: 'object',
  properties: {
    namespace,
    filter,
    limit: { type: 'integer', minimum: 1, maximum: FETCH_BY_METADATA_LIMIT_MAX },
    paginationToken: { type: 'string' },
  },
} as const;

export const statsBody = { type: ['object', 'null'], properties: { filter } } as const;

export const createNamespaceBody = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', maxLength: NAMESPACE_MAX_LENGTH }, schema: { type: 'object' } },
} as const;

export const fetchQuery = {
  type: 'object',
  required: ['ids'],
  properties: {
    ids: { type: 'array', minItems: 1, maxItems: FETCH_MAX_IDS, items: vectorId },
    namespace: { type: 'string' },
  },
} as const;

export const listQuery = {
  type: 'object',
  properties: {
    namespace: { type: 'string' },
    prefix: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX },
    paginationToken: { type: 'string' },
  },
} as const;

export const namespacesQuery = {
  type: 'object',
  properties: {
    prefix: { type: 'string' },
    limit: { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX },
    paginationToken: { type: 'string' },
  },
} as const;
