// Control plane: /indexes.
import type { FastifyInstance } from 'fastify';
import type { ConfigureIndexBody, CreateIndexBody } from '../../control/index-bodies.js';
import { invalid } from '../../errors.js';
import type { ServerContext } from '../context.js';
import { dataPlaneBase, projectOf, versionOf } from '../request-context.js';
import { configureIndexBody, createIndexBody } from '../schemas/index-schemas.js';
import { indexRecord } from '../serializers/index-record.js';

/** 2026-07 create/configure bodies (deployment + schema) are a separate piece of work. */
function refuse202607(version: string, what: string): void {
  if (version === '2026-07') {
    throw invalid(
      `${what} with API version 2026-07 (deployment/schema bodies) is not supported yet; ` +
        'send X-Pinecone-Api-Version 2026-04 with a spec body',
    );
  }
}

export function indexRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/indexes', async (request) => {
    const base = dataPlaneBase(request, ctx.config);
    return { indexes: ctx.indexes.list(projectOf(request)).map((i) => indexRecord(i, base)) };
  });

  app.post<{ Body: CreateIndexBody }>(
    '/indexes',
    {
      schema: { body: createIndexBody },
      preValidation: async (request) => refuse202607(versionOf(request), 'Creating an index'),
    },
    async (request, reply) => {
      const index = ctx.indexes.create(projectOf(request), request.body);
      return reply.code(201).send(indexRecord(index, dataPlaneBase(request, ctx.config)));
    },
  );

  app.get<{ Params: { name: string } }>('/indexes/:name', async (request) => {
    const index = ctx.indexes.describe(projectOf(request), request.params.name);
    return indexRecord(index, dataPlaneBase(request, ctx.config));
  });

  app.patch<{ Params: { name: string }; Body: ConfigureIndexBody }>(
    '/indexes/:name',
    {
      schema: { body: configureIndexBody },
      preValidation: async (request) => refuse202607(versionOf(request), 'Configuring an index'),
    },
    async (request, reply) => {
      const index = ctx.indexes.configure(projectOf(request), request.params.name, request.body);
      return reply.code(202).send(indexRecord(index, dataPlaneBase(request, ctx.config)));
    },
  );

  app.delete<{ Params: { name: string } }>('/indexes/:name', async (request, reply) => {
    ctx.indexes.delete(projectOf(request), request.params.name);
    return reply.code(202).send();
  });
}
