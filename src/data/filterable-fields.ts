// Which metadata fields an index can filter on. Pod indexes declare them in
// `metadata_config.indexed`, serverless ones as `schema.fields.<name>.filterable: true`;
// without either, every field. Only declared fields get filter columns in the engine
// (IndexShape.filterable), which is what declaring them is for (memory).
//
// A filter naming another field: Pinecone's documentation says only that undeclared
// fields are not indexed, not what a filter on one does. Conifer answers 400 naming
// the field and the filterable ones, rather than silently matching nothing.
import type { IndexRow } from '../catalog/indexes.js';
import { isPodSpec } from '../catalog/indexes.js';
import { filterFields, type FilterNode } from '../engine/filter.js';
import { invalid } from '../errors.js';

/** The index's filterable fields, sorted; undefined when every field is. */
export function filterableFields(index: IndexRow): string[] | undefined {
  if (isPodSpec(index.spec)) {
    const indexed = index.spec.pod.metadata_config?.indexed;
    return indexed && [...new Set(indexed)].sort();
  }
  const schema = index.spec.serverless.schema;
  if (!schema) return undefined;
  return Object.entries(schema.fields)
    .filter(([, f]) => f.filterable)
    .map(([name]) => name)
    .sort();
}

/** Throws a 400 when `node` reads a field the index does not filter on. */
export function checkFilterable(index: IndexRow, node: FilterNode | undefined, field = 'filter'): void {
  if (!node) return;
  const allowed = filterableFields(index);
  if (!allowed) return;
  const declared = new Set(allowed);
  const unknown = [...filterFields(node)].filter((f) => !declared.has(f)).sort();
  if (unknown.length === 0) return;
  const where = isPodSpec(index.spec) ? 'metadata_config.indexed' : 'schema.fields (filterable: true)';
  const list = allowed.length === 0 ? 'none' : allowed.map((f) => JSON.stringify(f)).join(', ');
  throw invalid(
    `${field} uses ${unknown.map((f) => JSON.stringify(f)).join(', ')}, not filterable in index ${index.name}: ` +
      `its ${where} lists ${list}`,
  );
}
