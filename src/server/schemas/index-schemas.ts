// JSON schemas of the index request bodies. They check only JSON types and required
// fields — a failure here is "cannot be deserialized" (422); value rules live in
// src/control/index-rules.ts (400). Unknown fields are ignored (decision 4).
import { str, int, stringMap } from './json-types.js';

export const readCapacity = {
  type: 'object',
  required: ['mode'],
  properties: {
    mode: str,
    dedicated: {
      type: 'object',
      required: ['node_type', 'scaling', 'manual'],
      properties: {
        node_type: str,
        scaling: str,
        manual: { type: 'object', required: ['replicas', 'shards'], properties: { replicas: int, shards: int } },
      },
    },
  },
} as const;

const metadataSchema = {
  type: 'object',
  required: ['fields'],
  properties: {
    fields: {
      type: 'object',
      additionalProperties: { type: 'object', required: ['filterable'], properties: { filterable: { type: 'boolean' } } },
    },
  },
} as const;

export const createIndexBody = {
  type: 'object',
  required: ['name', 'metric', 'spec'],
  properties: {
    name: str,
    dimension: int,
    metric: str,
    vector_type: str,
    deletion_protection: str,
    tags: stringMap,
    spec: {
      type: 'object',
      properties: {
        serverless: {
          type: 'object',
          required: ['cloud', 'region'],
          properties: {
            cloud: str,
            region: str,
            read_capacity: readCapacity,
            source_collection: str,
            schema: metadataSchema,
          },
        },
        pod: {
          type: 'object',
          required: ['environment'],
          properties: {
            environment: str,
            pod_type: str,
            pods: int,
            replicas: int,
            shards: int,
            metadata_config: {
              type: 'object',
              required: ['indexed'],
              properties: { indexed: { type: 'array', items: str } },
            },
            source_collection: str,
          },
        },
        byoc: { type: 'object' },
      },
    },
  },
} as const;

export const configureIndexBody = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        serverless: { type: 'object', properties: { read_capacity: readCapacity } },
        pod: { type: 'object', properties: { pod_type: str, replicas: int } },
        byoc: { type: 'object' },
      },
    },
    deletion_protection: str,
    delete_protection: str,
    tags: stringMap,
    embed: { type: 'object' },
  },
} as const;
