// The index record on the wire. Every version gets both models (DESIGN.md decision 1):
// the 2026-04 keys (dimension, metric, vector_type, spec) and the 2026-07 keys
// (deployment, top-level schema.fields with _values/_sparse_values, read_capacity).
// Clients ignore the keys they do not know.
import type { IndexRow, Metric, ReadCapacity, VectorType } from '../../catalog/indexes.js';
import { isPodSpec } from '../../catalog/indexes.js';

const readCapacityResponse = (rc: ReadCapacity): Record<string, unknown> => ({
  ...rc,
  status: { state: 'Ready' },
});

/** The 2026-07 schema fields of an index's vectors: `_values` (dense only) and `_sparse_values`. */
export function vectorSchemaFields(
  vectorType: VectorType,
  dimension: number | null,
  metric: Metric,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (vectorType === 'dense') fields._values = { type: 'dense_vector', dimension, metric };
  fields._sparse_values = { type: 'sparse_vector' };
  return fields;
}

export function indexRecord(index: IndexRow, dataPlaneBase: string): Record<string, unknown> {
  // The vectors' fields first; a metadata field of the same name (which create refuses
  // now, index-rules.ts checkMetadataFieldName) never takes their place.
  const fields = vectorSchemaFields(index.vectorType, index.dimension, index.metric);

  let spec: Record<string, unknown>;
  let deployment: Record<string, unknown>;
  let readCapacity: Record<string, unknown> | undefined;
  if (isPodSpec(index.spec)) {
    const pod = index.spec.pod;
    spec = { pod: { ...pod } };
    deployment = {
      deployment_type: 'pod',
      environment: pod.environment,
      pod_type: pod.pod_type,
      replicas: pod.replicas,
      shards: pod.shards,
    };
    for (const name of pod.metadata_config?.indexed ?? []) if (!Object.hasOwn(fields, name)) fields[name] = { filterable: true };
  } else {
    const s = index.spec.serverless;
    readCapacity = readCapacityResponse(s.read_capacity);
    spec = { serverless: { ...s, read_capacity: readCapacity } };
    deployment = { deployment_type: 'managed', cloud: s.cloud, region: s.region };
    for (const [name, f] of Object.entries(s.schema?.fields ?? {})) if (!Object.hasOwn(fields, name)) fields[name] = { ...f };
  }

  const record: Record<string, unknown> = { name: index.name };
  if (index.dimension !== null) record.dimension = index.dimension;
  Object.assign(record, {
    metric: index.metric,
    host: `${dataPlaneBase}/svc/${index.hostId}`,
    deletion_protection: index.deletionProtection,
    tags: { ...index.tags },
    spec,
    status: { ready: index.state !== 'Initializing' && index.state !== 'InitializationFailed', state: index.state },
    vector_type: index.vectorType,
    deployment,
    schema: { fields },
  });
  if (readCapacity !== undefined) record.read_capacity = readCapacity;
  // 2026-07 names the origin of an index at the top level (2026-04 only in spec).
  const sourceCollection = isPodSpec(index.spec) ? index.spec.pod.source_collection : index.spec.serverless.source_collection;
  if (sourceCollection !== undefined) record.source_collection = sourceCollection;
  if (index.sourceBackupId !== undefined) record.source_backup_id = index.sourceBackupId;
  return record;
}
