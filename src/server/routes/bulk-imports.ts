// Data plane: Pinecone's bulk import API under an index host (registered inside the
// data-plane plugin, so the index is already resolved and checked).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IndexRow } from '../../catalog/indexes.js';
import type { ImportService } from '../../data/import-service.js';
import { versionOf } from '../request-context.js';
import { importJson } from '../serializers/import-json.js';

type IdParams = { id: string };

export function bulkImportRoutes(
  plane: FastifyInstance,
  imports: ImportService,
  indexOf: (request: FastifyRequest) => IndexRow,
): void {
  // Refused below the free-space threshold like an upsert (disk-guard.ts); the runner checks again per batch.
  plane.post('/bulk/imports', { config: { grows: 'starting a bulk import' } }, async (request) =>
    imports.start(indexOf(request), request.body ?? {}),
  );

  plane.get('/bulk/imports', async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>) => {
    const { items, next } = imports.list(indexOf(request), request.query);
    const version = versionOf(request);
    const body: Record<string, unknown> = { data: items.map((row) => importJson(row, version)) };
    if (next) body.pagination = { next };
    return body;
  });

  plane.get('/bulk/imports/:id', async (request: FastifyRequest<{ Params: IdParams }>) =>
    importJson(imports.describe(indexOf(request), request.params.id), versionOf(request)),
  );

  plane.delete('/bulk/imports/:id', async (request: FastifyRequest<{ Params: IdParams }>) => {
    imports.cancel(indexOf(request), request.params.id);
    return {};
  });
}
