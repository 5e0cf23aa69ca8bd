// Control plane: /collections, /indexes/{name}/backups, /backups, /restore-jobs.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Paged, RestoreBody } from '../../control/backup-service.js';
import { decodePageToken, encodePageToken, scopeHash } from '../../data/page-token.js';
import { invalid, show } from '../../errors.js';
import { BACKUP_PAGE_DEFAULT, BACKUP_PAGE_MAX } from '../../limits.js';
import type { ServerContext } from '../context.js';
import type { ApiVersion } from '../api-version.js';
import { projectOf, tagRulesOf, versionOf } from '../request-context.js';
import { createBackupBody, createCollectionBody, restoreBackupBody } from '../schemas/copy-schemas.js';
import { backupRecord, collectionRecord, restoreJobRecord } from '../serializers/copy-records.js';

type Query = Record<string, string | string[] | undefined>;

/** limit and paginationToken of a newest-first listing, checked against its scope. */
function pageParams(query: Query, scope: string, version: ApiVersion): { before?: number; limit: number } {
  const rawLimit = query.limit;
  // 2026-07 lists 100 per page by default; earlier versions 10.
  let limit = version === '2026-07' ? BACKUP_PAGE_MAX : BACKUP_PAGE_DEFAULT;
  if (rawLimit !== undefined) {
    if (typeof rawLimit !== 'string' || !/^\d{1,4}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > BACKUP_PAGE_MAX) {
      throw invalid(`limit must be an integer between 1 and ${BACKUP_PAGE_MAX}, got ${show(rawLimit)}`);
    }
    limit = Number(rawLimit);
  }
  const token = query.paginationToken;
  if (token === undefined || token === '') return { limit };
  if (typeof token !== 'string') throw invalid('paginationToken must be given once');
  const key = decodePageToken(token, scope);
  if (!/^\d+$/.test(key)) throw invalid('paginationToken is not a valid pagination token');
  return { before: Number(key), limit };
}

function pageBody<T>(page: Paged<T>, scope: string, render: (item: T) => unknown): Record<string, unknown> {
  const body: Record<string, unknown> = { data: page.items.map(render) };
  if (page.nextBefore !== undefined) body.pagination = { next: encodePageToken(String(page.nextBefore), scope) };
  return body;
}

export function copyRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/collections', async (request) => ({
    collections: ctx.collections.list(projectOf(request)).map(collectionRecord),
  }));

  app.post<{ Body: { name: string; source: string } }>(
    '/collections',
    { schema: { body: createCollectionBody }, config: { grows: 'creating a collection' } },
    async (request, reply) => {
      const c = await ctx.collections.create(projectOf(request), request.body, versionOf(request) === '2026-07');
      return reply.code(201).send(collectionRecord(c));
    },
  );

  app.get<{ Params: { name: string } }>('/collections/:name', async (request) =>
    collectionRecord(ctx.collections.describe(projectOf(request), request.params.name)),
  );

  app.delete<{ Params: { name: string } }>('/collections/:name', async (request, reply) => {
    ctx.collections.delete(projectOf(request), request.params.name);
    return reply.code(202).send();
  });

  app.post<{ Params: { name: string }; Body: { name?: string; description?: string } }>(
    '/indexes/:name/backups',
    { schema: { body: createBackupBody }, config: { grows: 'creating a backup' } },
    async (request, reply) => {
      const version = versionOf(request);
      const b = await ctx.backups.create(projectOf(request), request.params.name, request.body ?? {}, version !== '2026-07');
      return reply.code(version === '2026-07' ? 200 : 201).send(backupRecord(b, version));
    },
  );

  app.get<{ Params: { name: string }; Querystring: Query }>('/indexes/:name/backups', async (request) => {
    const project = projectOf(request);
    const flag = request.query.include_deleted;
    // Strict, as limit is: "yes" or "1" read as false would hide what the caller asked for.
    if (flag !== undefined && flag !== 'true' && flag !== 'false') throw invalid(`include_deleted must be true or false, got ${show(flag)}`);
    const includeDeleted = flag === 'true';
    const scope = scopeHash('backups', project.id, request.params.name, includeDeleted);
    const { before, limit } = pageParams(request.query, scope, versionOf(request));
    const page = ctx.backups.list(project, request.params.name, includeDeleted, before, limit);
    return pageBody(page, scope, (b) => backupRecord(b, versionOf(request)));
  });

  app.get<{ Querystring: Query }>('/backups', async (request) => {
    const project = projectOf(request);
    const scope = scopeHash('backups', project.id);
    const { before, limit } = pageParams(request.query, scope, versionOf(request));
    return pageBody(ctx.backups.list(project, undefined, true, before, limit), scope, (b) =>
      backupRecord(b, versionOf(request)),
    );
  });

  app.get<{ Params: { id: string } }>('/backups/:id', async (request) =>
    backupRecord(ctx.backups.describe(projectOf(request), request.params.id), versionOf(request)),
  );

  app.delete<{ Params: { id: string } }>('/backups/:id', async (request, reply) => {
    ctx.backups.delete(projectOf(request), request.params.id);
    return reply.code(202).send();
  });

  app.post<{ Params: { id: string }; Body: RestoreBody }>(
    '/backups/:id/create-index',
    { schema: { body: restoreBackupBody }, config: { grows: 'a restore' } },
    async (request, reply) => {
      const job = ctx.backups.restore(projectOf(request), request.params.id, request.body, tagRulesOf(request));
      return reply.code(202).send({ restore_job_id: job.id, index_id: job.targetIndexId });
    },
  );

  app.get<{ Querystring: Query }>('/restore-jobs', async (request: FastifyRequest<{ Querystring: Query }>) => {
    const project = projectOf(request);
    const scope = scopeHash('restore-jobs', project.id);
    const { before, limit } = pageParams(request.query, scope, versionOf(request));
    return pageBody(ctx.backups.listRestores(project, before, limit), scope, restoreJobRecord);
  });

  app.get<{ Params: { id: string } }>('/restore-jobs/:id', async (request) =>
    restoreJobRecord(ctx.backups.describeRestore(projectOf(request), request.params.id)),
  );
}
