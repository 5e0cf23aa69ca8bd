// Request bodies of the index operations, as the HTTP schemas guarantee them
// (types checked, required fields present); values are checked by index-rules.ts.
import type { MetadataSchema, ReadCapacity } from '../catalog/indexes.js';

export interface CreateIndexBody {
  name: string;
  dimension?: number;
  metric: string;
  vector_type?: string;
  deletion_protection?: string;
  tags?: Record<string, string>;
  spec: {
    serverless?: {
      cloud: string;
      region: string;
      read_capacity?: ReadCapacity;
      source_collection?: string;
      schema?: MetadataSchema;
    };
    pod?: {
      environment: string;
      pod_type?: string;
      pods?: number;
      replicas?: number;
      shards?: number;
      metadata_config?: { indexed: string[] };
      source_collection?: string;
    };
    byoc?: Record<string, unknown>;
  };
}

export interface ConfigureIndexBody {
  spec?: {
    serverless?: { read_capacity?: ReadCapacity };
    pod?: { pod_type?: string; replicas?: number };
    byoc?: Record<string, unknown>;
  };
  deletion_protection?: string;
  /** The interface's sample spelling of deletion_protection. */
  delete_protection?: string;
  tags?: Record<string, string>;
  embed?: Record<string, unknown>;
}
