// API version 2026-07 describes an index by `deployment` and `schema.fields` instead of
// `spec`, `dimension`, `metric` and `vector_type` (pinecone-wire.md §2.11). Its bodies
// are translated here into the 2026-04 form the index service enforces, so one set of
// rules serves both versions. Vectors live under the reserved fields `_values` (dense)
// and `_sparse_values` (sparse); other fields describe metadata.
import type { IndexRow, MetadataSchema, ReadCapacity } from '../catalog/indexes.js';
import { isPodSpec } from '../catalog/indexes.js';
import { checkPodResize, checkPodType, checkPositive, checkReadCapacity, DENSE_FIELD, SPARSE_FIELD } from './index-rules.js';
import { invalid, show } from '../errors.js';
import { DIMENSION_MAX } from '../limits.js';
import { randomAlnum } from '../catalog/ids.js';
import type { ConfigureIndexBody, CreateIndexBody } from './index-bodies.js';

const METADATA_TYPES = ['string', 'string_list', 'float', 'integer', 'boolean'];
const FIELD_NAME_MAX_BYTES = 64;
/** Metadata fields a 2026-07 schema may declare (pinecone-wire.md: ≤ 50). */
const METADATA_FIELDS_MAX = 50;
const METRICS = ['cosine', 'euclidean', 'dotproduct'];

type Json = Record<string, unknown>;

export interface CreateIndexBody2607 {
  name?: string;
  deployment?: Json & { deployment_type: string };
  schema: { fields: Record<string, Json> };
  cmek_id?: string;
  read_capacity?: ReadCapacity;
  tags?: Record<string, string>;
  deletion_protection?: string;
}

export interface ConfigureIndexBody2607 {
  deployment?: { replicas?: number; pod_type?: string };
  schema?: Json;
  read_capacity?: { mode: string; dedicated?: Partial<NonNullable<ReadCapacity['dedicated']>> & { manual?: Partial<{ replicas: number; shards: number }> } };
  tags?: Record<string, string>;
  deletion_protection?: string;
}

export function translateCreate2607(body: CreateIndexBody2607): CreateIndexBody {
  if (body.cmek_id !== undefined) {
    throw invalid('cmek_id is not supported: Conifer does not manage customer encryption keys');
  }
  const deployment = body.deployment ?? { deployment_type: 'managed', cloud: 'aws', region: 'us-east-1' };
  const kind = deployment.deployment_type;
  if (kind === 'pod') {
    throw invalid('deployment.deployment_type "pod": pod indexes cannot be created with API version 2026-07 (use 2026-04 with spec.pod)');
  }
  if (kind === 'byoc') throw invalid('deployment.deployment_type "byoc" is not supported by Conifer; use "managed"');
  if (kind !== 'managed') {
    throw invalid(`deployment.deployment_type must be "managed" (or "pod"/"byoc", which Conifer does not create), got ${show(kind)}`);
  }
  const cloud = deployment.cloud ?? 'aws';
  const region = deployment.region ?? 'us-east-1';
  if (typeof cloud !== 'string' || typeof region !== 'string') {
    throw invalid('deployment.cloud and deployment.region must be strings');
  }

  let dense: Json | undefined;
  let sparse = false;
  const metadata: MetadataSchema = { fields: {} };
  for (const [name, field] of Object.entries(body.schema.fields)) {
    const path = `schema.fields.${name}`;
    const type = field.type;
    if (type === 'semantic_text') {
      throw invalid(`${path}: semantic_text (integrated embedding) is not supported: Conifer stores vectors, it does not embed text`);
    }
    if (name === DENSE_FIELD) {
      if (type !== 'dense_vector') throw invalid(`${path}.type must be "dense_vector", got ${show(type)}`);
      dense = field;
      continue;
    }
    if (name === SPARSE_FIELD) {
      if (type !== 'sparse_vector') throw invalid(`${path}.type must be "sparse_vector", got ${show(type)}`);
      sparse = true;
      continue;
    }
    if (type === 'dense_vector' || type === 'sparse_vector') {
      throw invalid(`${path}: a ${type} field must be named "${type === 'dense_vector' ? DENSE_FIELD : SPARSE_FIELD}" (the vectors API's reserved name)`);
    }
    if (name.startsWith('$') || name.startsWith('_') || name.length === 0 || Buffer.byteLength(name) > FIELD_NAME_MAX_BYTES) {
      throw invalid(`${path}: field names are 1-${FIELD_NAME_MAX_BYTES} bytes and do not start with '$' or '_' (reserved)`);
    }
    if (type !== undefined && !METADATA_TYPES.includes(String(type))) {
      throw invalid(`${path}.type must be one of dense_vector, sparse_vector, ${METADATA_TYPES.join(', ')}, got ${show(type)}`);
    }
    if (field.full_text_search !== undefined) {
      throw invalid(`${path}.full_text_search is not supported: Conifer has no full-text search`);
    }
    const filterable = field.filterable ?? true;
    if (typeof filterable !== 'boolean') throw invalid(`${path}.filterable must be a boolean, got ${show(filterable)}`);
    metadata.fields[name] = type === undefined ? { filterable } : { filterable, type: String(type) };
  }
  if (!dense && !sparse) {
    throw invalid(`schema.fields needs a vector field: "${DENSE_FIELD}" (dense_vector) and/or "${SPARSE_FIELD}" (sparse_vector)`);
  }
  const metadataCount = Object.keys(metadata.fields).length;
  if (metadataCount > METADATA_FIELDS_MAX) {
    throw invalid(`schema.fields holds ${metadataCount} metadata fields; at most ${METADATA_FIELDS_MAX} are allowed (besides the vector fields)`);
  }

  // Checked here too so that errors name the 2026-07 field, not spec.serverless.read_capacity.
  if (body.read_capacity !== undefined) checkReadCapacity('read_capacity', body.read_capacity);

  const out: CreateIndexBody = {
    name: body.name ?? `index-${randomAlnum(7)}`,
    metric: 'dotproduct',
    vector_type: dense ? 'dense' : 'sparse',
    spec: {
      serverless: {
        cloud,
        region,
        ...(body.read_capacity ? { read_capacity: body.read_capacity } : {}),
        ...(Object.keys(metadata.fields).length > 0 ? { schema: metadata } : {}),
      },
    },
  };
  if (dense) {
    const { dimension, metric } = dense;
    // Checked here too so that errors name the 2026-07 fields, not dimension and metric.
    if (typeof dimension !== 'number' || !Number.isInteger(dimension) || dimension < 1 || dimension > DIMENSION_MAX) {
      throw invalid(`schema.fields.${DENSE_FIELD}.dimension must be an integer 1-${DIMENSION_MAX}, got ${show(dimension)}`);
    }
    if (metric !== undefined && (typeof metric !== 'string' || !METRICS.includes(metric))) {
      throw invalid(`schema.fields.${DENSE_FIELD}.metric must be one of ${METRICS.join(', ')}, got ${show(metric)}`);
    }
    out.dimension = dimension;
    out.metric = metric ?? 'cosine';
  }
  if (body.tags !== undefined) out.tags = body.tags;
  if (body.deletion_protection !== undefined) out.deletion_protection = body.deletion_protection;
  return out;
}

/** The 2026-07 configure body as a 2026-04 one; read_capacity patches merge into `current`. */
export function translateConfigure2607(body: ConfigureIndexBody2607, current: IndexRow): ConfigureIndexBody {
  if (body.schema !== undefined) {
    throw invalid('schema can only change semantic_text parameters, and Conifer has no semantic_text fields');
  }
  const out: ConfigureIndexBody = {};
  if (body.deployment !== undefined) {
    if (!isPodSpec(current.spec)) {
      throw invalid('deployment.replicas and deployment.pod_type apply to pod indexes only; this index is serverless');
    }
    const { replicas, pod_type: podType } = body.deployment;
    if (replicas !== undefined) checkPositive('deployment.replicas', replicas);
    if (podType !== undefined) {
      checkPodType('deployment.pod_type', podType);
      checkPodResize(current.spec.pod.pod_type, podType, 'deployment.pod_type');
    }
    out.spec = { pod: { ...body.deployment } };
  }
  if (body.read_capacity !== undefined) {
    if (isPodSpec(current.spec)) throw invalid('read_capacity applies to serverless indexes only; this index is a pod index');
    const merged = mergeReadCapacity(body.read_capacity, current.spec.serverless.read_capacity);
    out.spec = { serverless: { read_capacity: checkReadCapacity('read_capacity', merged) } };
  }
  if (body.tags !== undefined) out.tags = body.tags;
  if (body.deletion_protection !== undefined) out.deletion_protection = body.deletion_protection;
  return out;
}

/** The reference's patch form: omitted dedicated fields keep their current values. */
function mergeReadCapacity(patch: NonNullable<ConfigureIndexBody2607['read_capacity']>, current: ReadCapacity): ReadCapacity {
  if (patch.mode !== 'Dedicated') {
    if (patch.dedicated !== undefined) throw invalid('read_capacity.dedicated is only allowed with mode "Dedicated"');
    return { mode: patch.mode as ReadCapacity['mode'] };
  }
  const base = current.dedicated;
  const d = patch.dedicated ?? {};
  if ((d.scaling === undefined) !== (d.manual === undefined)) {
    throw invalid('read_capacity.dedicated.scaling and read_capacity.dedicated.manual must be sent together');
  }
  const nodeType = d.node_type ?? base?.node_type;
  const scaling = d.scaling ?? base?.scaling;
  const replicas = d.manual?.replicas ?? base?.manual.replicas;
  const shards = d.manual?.shards ?? base?.manual.shards;
  if (nodeType === undefined || scaling === undefined || replicas === undefined || shards === undefined) {
    throw invalid(
      'read_capacity.dedicated needs node_type, scaling and manual {replicas, shards} when the index is not Dedicated yet',
    );
  }
  return { mode: 'Dedicated', dedicated: { node_type: nodeType, scaling, manual: { replicas, shards } } };
}
