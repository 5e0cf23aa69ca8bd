// Control plane: /indexes. API 2026-07 sends its own create/configure bodies (deployment
// + schema), translated to the 2026-04 form the index service enforces.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unprocessable } from '../../errors.js';
import type { ConfigureIndexBody, CreateIndexBody } from '../../control/index-bodies.js';
import {
  translateConfigure2607,
  translateCreate2607,
  type ConfigureIndexBody2607,
  type CreateIndexBody2607,
} from '../../control/index-model-2607.js';
import { checkBody, requireBody } from '../body-schema.js';
import { documentedOnly } from '../doc-schema.js';
import type { ServerContext } from '../context.js';
import { dataPlaneBase, projectOf, tagRulesOf, versionOf } from '../request-context.js';
import { configureIndexBody, createIndexBody } from '../schemas/index-schemas.js';
import { configureIndexBody2607, createIndexBody2607 } from '../schemas/index-schemas-2607.js';
import { indexRecord } from '../serializers/index-record.js';

/** A 2026-04 body sent with 2026-07 is a common mistake: say which model to use. */
function refuseSpecBody(request: FastifyRequest): void {
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && 'spec' in body) {
    throw unprocessable(
      'spec is not part of API 2026-07 index bodies: send deployment and schema, ' +
        'or send X-Pinecone-Api-Version 2026-04 with a spec body',
    );
  }
}

// The body schema depends on the API version, so checkBody validates in the handler; the
// same schema objects document the routes.
const createDoc = documentedOnly({
  body: {
    anyOf: [
      { ...createIndexBody, description: 'API 2026-04 and earlier' },
      { ...createIndexBody2607, description: 'API 2026-07' },
    ],
  },
}, { grows: 'creating an index' });
const configureDoc = documentedOnly({
  body: {
    anyOf: [
      { ...configureIndexBody, description: 'API 2026-04 and earlier' },
      { ...configureIndexBody2607, description: 'API 2026-07' },
    ],
  },
});

export function indexRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/indexes', async (request) => {
    const base = dataPlaneBase(request, ctx.config);
    return { indexes: ctx.indexes.list(projectOf(request)).map((i) => indexRecord(i, base)) };
  });

  app.post('/indexes', createDoc, async (request, reply) => {
    const v2607 = versionOf(request) === '2026-07';
    if (v2607) refuseSpecBody(request);
    const body = v2607
        ? translateCreate2607(checkBody<CreateIndexBody2607>(request, createIndexBody2607))
        : checkBody<CreateIndexBody>(request, createIndexBody);
    const index = ctx.indexes.create(projectOf(request), body, tagRulesOf(request));
    return reply.code(201).send(indexRecord(index, dataPlaneBase(request, ctx.config)));
  });

  app.get<{ Params: { name: string } }>('/indexes/:name', async (request) => {
    const index = ctx.indexes.describe(projectOf(request), request.params.name);
    return indexRecord(index, dataPlaneBase(request, ctx.config));
  });

  app.patch<{ Params: { name: string } }>('/indexes/:name', configureDoc, async (request, reply) => {
    const project = projectOf(request);
    const v2607 = versionOf(request) === '2026-07';
    requireBody(
      request,
      v2607 ? 'deployment, schema, read_capacity, tags, deletion_protection' : 'spec, deletion_protection, tags',
    );
    if (v2607) refuseSpecBody(request);
    const body = v2607
      ? translateConfigure2607(
          checkBody<ConfigureIndexBody2607>(request, configureIndexBody2607),
          ctx.indexes.describe(project, request.params.name),
        )
      : checkBody<ConfigureIndexBody>(request, configureIndexBody);
    const index = ctx.indexes.configure(project, request.params.name, body, tagRulesOf(request));
    // 2026-07 answers configure with 200; earlier versions with 202.
    return reply.code(v2607 ? 200 : 202).send(indexRecord(index, dataPlaneBase(request, ctx.config)));
  });

  app.delete<{ Params: { name: string } }>('/indexes/:name', async (request, reply) => {
    ctx.indexes.delete(projectOf(request), request.params.name);
    return reply.code(202).send();
  });
}
