// JSON schemas of the API 2026-07 index bodies (deployment + schema model). As in the
// reference, both forbid unknown top-level fields (additionalProperties: false).
// Types and required fields only (422); values are checked in control/index-model-2607.ts.
import { str, int, stringMap } from './json-types.js';

// Unlike 2026-04's, the 2026-07 read_capacity is also a patch form on configure: omitted
// dedicated fields keep their values, so none of them is required here.
const readCapacity = {
  type: 'object',
  required: ['mode'],
  properties: {
    mode: str,
    dedicated: {
      type: 'object',
      properties: {
        node_type: str,
        scaling: str,
        manual: { type: 'object', properties: { replicas: int, shards: int } },
      },
    },
  },
} as const;

/**
 * One entry of schema.fields: JSON types only (values are checked in index-model-2607.ts).
 * A dense_vector needs an integer dimension; other types keep their own attributes.
 */
const schemaField = {
  type: 'object',
  properties: { type: str, filterable: { type: 'boolean' } },
  if: { required: ['type'], properties: { type: { const: 'dense_vector' } } },
  then: { required: ['dimension'], properties: { dimension: int, metric: str } },
} as const;

export const createIndexBody2607 = {
  type: 'object',
  additionalProperties: false,
  required: ['schema'],
  properties: {
    name: str,
    deployment: {
      type: 'object',
      required: ['deployment_type'],
      properties: { deployment_type: str, cloud: str, region: str, environment: str },
    },
    schema: {
      type: 'object',
      required: ['fields'],
      properties: { fields: { type: 'object', additionalProperties: schemaField } },
    },
    cmek_id: str,
    read_capacity: readCapacity,
    tags: stringMap,
    deletion_protection: str,
  },
} as const;

export const configureIndexBody2607 = {
  type: 'object',
  additionalProperties: false,
  properties: {
    deployment: {
      type: 'object',
      additionalProperties: false,
      properties: { replicas: int, pod_type: str },
    },
    schema: { type: 'object' },
    read_capacity: readCapacity,
    tags: stringMap,
    deletion_protection: str,
  },
} as const;
