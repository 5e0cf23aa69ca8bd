// Value rules of index create and configure (DESIGN.md decision 4: a body that
// deserializes but breaks one of these is 400, naming the field and what is allowed).
// The HTTP schemas have already checked JSON types and required fields (422).
import type { Config } from '../config.js';
import type {
  DeletionProtection,
  Metric,
  MetadataSchema,
  ReadCapacity,
  VectorType,
} from '../catalog/indexes.js';
import { clip, invalid, notFound, show } from '../errors.js';
import {
  DIMENSION_MAX,
  DIMENSION_MIN,
  NAME_MAX_LENGTH,
  NAME_PATTERN,
  POD_FAMILIES,
  POD_SIZES,
  TAG_KEY_MAX_LENGTH,
  TAG_KEY_PATTERN,
  TAG_VALUE_MAX_LENGTH,
  TAG_VALUE_PATTERN,
  TAG_VALUE_PATTERN_2607,
  TAGS_MAX_2607,
} from '../limits.js';

export const METRICS: readonly Metric[] = ['cosine', 'euclidean', 'dotproduct'];
export const VECTOR_TYPES: readonly VectorType[] = ['dense', 'sparse'];
export const DELETION_PROTECTION: readonly DeletionProtection[] = ['enabled', 'disabled'];
export const POD_TYPES: readonly string[] = POD_FAMILIES.flatMap((f) => POD_SIZES.map((s) => `${f}.${s}`));
const NODE_TYPES = ['b1', 't1'];
const SCALING_MODES = ['Manual'];

function oneOf<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalid(`${field} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${show(value)}`);
  }
  return value as T;
}

export const checkMetric = (value: string): Metric => oneOf('metric', value, METRICS);
export const checkVectorType = (value: string): VectorType => oneOf('vector_type', value, VECTOR_TYPES);
export const checkDeletionProtection = (field: string, value: string): DeletionProtection =>
  oneOf(field, value, DELETION_PROTECTION);
export const checkPodType = (field: string, value: string): string => oneOf(field, value, POD_TYPES);

export function checkName(field: string, name: string): string {
  if (name.length < 1 || name.length > NAME_MAX_LENGTH || !NAME_PATTERN.test(name)) {
    throw invalid(
      `${field} must be 1-${NAME_MAX_LENGTH} characters of lower-case letters, digits and '-', ` +
        `starting and ending with a letter or digit, got ${show(name)}`,
    );
  }
  return name;
}

export function checkDimension(vectorType: VectorType, metric: Metric, dimension: number | undefined): number | null {
  if (vectorType === 'sparse') {
    if (dimension !== undefined) throw invalid('dimension must be omitted for sparse indexes (vector_type "sparse")');
    if (metric !== 'dotproduct') {
      throw invalid(`metric must be "dotproduct" for sparse indexes (vector_type "sparse"), got ${show(metric)}`);
    }
    return null;
  }
  if (dimension === undefined) throw invalid('dimension is required for dense indexes (an integer 1-20000)');
  if (dimension < DIMENSION_MIN || dimension > DIMENSION_MAX) {
    throw invalid(`dimension must be between ${DIMENSION_MIN} and ${DIMENSION_MAX}, got ${dimension}`);
  }
  return dimension;
}

export function checkPositive(field: string, value: number, min = 1): number {
  if (value < min) throw invalid(`${field} must be an integer >= ${min}, got ${value}`);
  return value;
}

/**
 * What a tag value may hold and how many tags an index may have: API 2026-07 widened the
 * values to any printable ASCII and capped the count (pinecone-wire.md §2.5); earlier
 * versions keep their narrower values and no cap. The route picks the rules of the
 * request's version.
 */
export interface TagRules {
  valuePattern: RegExp;
  /** The allowed characters, as the error message states them. */
  valueChars: string;
  maxTags: number;
}
export const TAG_RULES: TagRules = {
  valuePattern: TAG_VALUE_PATTERN,
  valueChars: 'letters, digits, spaces and ";@_-.+"',
  maxTags: Infinity,
};
export const TAG_RULES_2607: TagRules = { valuePattern: TAG_VALUE_PATTERN_2607, valueChars: 'printable ASCII', maxTags: TAGS_MAX_2607 };

/** Tags on create, or a tags patch on configure (where "" means "remove this key"). */
export function checkTags(tags: Record<string, string>, patch: boolean, rules: TagRules = TAG_RULES): void {
  for (const [key, value] of Object.entries(tags)) {
    if (key.length < 1 || key.length > TAG_KEY_MAX_LENGTH || !TAG_KEY_PATTERN.test(key)) {
      throw invalid(
        `tags key ${show(key)} must be 1-${TAG_KEY_MAX_LENGTH} characters of letters, digits, '_' and '-'`,
      );
    }
    if (value.length > TAG_VALUE_MAX_LENGTH || !rules.valuePattern.test(value) || (!patch && value === '')) {
      throw invalid(
        `tags.${key} must be ${patch ? '0' : '1'}-${TAG_VALUE_MAX_LENGTH} characters of ${rules.valueChars}` +
          `${patch ? ' ("" removes the tag)' : ''}, got ${show(value)}`,
      );
    }
  }
  if (!patch) checkTagCount(Object.keys(tags).length, 0, rules);
}

/**
 * An index may hold at most rules.maxTags tags. `before`: how many it held before a
 * configure; a patch that leaves more than the cap is refused only when it adds to them,
 * so an index given more tags under an earlier API version can still be configured.
 */
export function checkTagCount(after: number, before: number, rules: TagRules): void {
  if (after > rules.maxTags && after > before) {
    throw invalid(`tags: an index may have at most ${rules.maxTags} tags, and this would give it ${after}`);
  }
}

export function checkReadCapacity(field: string, rc: ReadCapacity): ReadCapacity {
  const mode = oneOf(`${field}.mode`, rc.mode, ['OnDemand', 'Dedicated'] as const);
  if (mode === 'OnDemand') {
    if (rc.dedicated !== undefined) throw invalid(`${field}.dedicated is only allowed with mode "Dedicated"`);
    return { mode };
  }
  const d = rc.dedicated;
  if (d === undefined) throw invalid(`${field}.dedicated is required with mode "Dedicated"`);
  oneOf(`${field}.dedicated.node_type`, d.node_type, NODE_TYPES);
  oneOf(`${field}.dedicated.scaling`, d.scaling, SCALING_MODES);
  checkPositive(`${field}.dedicated.manual.replicas`, d.manual.replicas, 0);
  checkPositive(`${field}.dedicated.manual.shards`, d.manual.shards, 1);
  return {
    mode,
    dedicated: {
      node_type: d.node_type,
      scaling: d.scaling,
      manual: { replicas: d.manual.replicas, shards: d.manual.shards },
    },
  };
}

/** The reserved schema fields API 2026-07 describes an index's vectors by (index-model-2607.ts). */
export const DENSE_FIELD = '_values';
export const SPARSE_FIELD = '_sparse_values';

export function checkMetadataSchema(field: string, schema: MetadataSchema): MetadataSchema {
  for (const name of Object.keys(schema.fields)) checkMetadataFieldName(`${field}.fields`, name);
  return schema;
}

/**
 * A declared metadata field's name (a serverless schema's, a pod's metadata_config.indexed):
 * non-empty, not starting with '$', and not one of the names API 2026-07 reports an
 * index's vectors under (index-model-2607.ts): such a field would take the vectors' place
 * in the index record, and a 2026-07 client would read the index's dimension, metric and
 * vector type wrong.
 */
export function checkMetadataFieldName(field: string, name: string): void {
  if (name.length === 0 || name.startsWith('$')) {
    throw invalid(`${field} has an invalid field name ${show(name)}: names are non-empty and do not start with '$'`);
  }
  if (name === DENSE_FIELD || name === SPARSE_FIELD) {
    throw invalid(`${field} has the field name ${show(name)}, which is reserved for the index's vectors (API 2026-07 reports them under "${DENSE_FIELD}" and "${SPARSE_FIELD}")`);
  }
}

export function checkCloudRegion(config: Config, cloud: string, region: string): void {
  if (!config.serverlessRegions.some((r) => r.cloud === cloud && r.region === region)) {
    const known = config.serverlessRegions.map((r) => `${r.cloud} ${r.region}`).join(', ');
    throw notFound(`Resource cloud: ${clip(cloud)} region: ${clip(region)} not found. Available: ${known}`);
  }
}

export function checkEnvironment(config: Config, environment: string): void {
  if (!config.podEnvironments.includes(environment)) {
    throw invalid(
      `spec.pod.environment must be one of ${config.podEnvironments.join(', ')}, got ${show(environment)}`,
    );
  }
}

/** Pod sizes only grow, within the same family (p1.x1 → p1.x2, never p1.x2 → p1.x1 or s1). */
export function checkPodResize(current: string, next: string, field = 'spec.pod.pod_type'): void {
  const [curFamily, curSize] = current.split('.');
  const [nextFamily, nextSize] = next.split('.');
  if (curFamily !== nextFamily) {
    throw invalid(`${field} cannot change the pod family: the index is ${current}, got ${next}`);
  }
  const order = POD_SIZES as readonly string[];
  if (order.indexOf(nextSize) < order.indexOf(curSize)) {
    throw invalid(`${field} cannot reduce the pod size: the index is ${current}, got ${next}`);
  }
}
