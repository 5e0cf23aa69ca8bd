// Routes Pinecone serves and Conifer does not: an honest 501 UNIMPLEMENTED naming the
// feature (data plane: gRPC code 12), never a generic 404 that the clients turn into
// "index not found". README "What Conifer does not do" lists the same table; keep both
// in step. The answer is given in a route-level onRequest hook, after authentication
// (the global onRequest hook: 401 first) and before any body is parsed, so an NDJSON or
// malformed body cannot turn it into a 400.
import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { ApiError, notFound } from '../../errors.js';
import type { ServerContext } from '../context.js';
import { projectOf } from '../request-context.js';

interface Unimplemented {
  methods: HTTPMethods[];
  url: string;
  /** What the feature is and what to use instead; becomes the 501 message. */
  message: string;
}

const EMBEDDING = 'Conifer stores and searches vectors you send; it hosts no models and does not embed text';

/** Control plane (the address clients are given as controllerHostUrl). */
const CONTROL_PLANE_UNIMPLEMENTED: Unimplemented[] = [
  {
    methods: ['POST'],
    url: '/embed',
    message: `Inference embed (POST /embed) is not implemented: ${EMBEDDING}. Compute embeddings elsewhere and upsert the vectors.`,
  },
  {
    methods: ['POST'],
    url: '/rerank',
    message: `Inference rerank (POST /rerank) is not implemented: ${EMBEDDING}. Rerank query results in your application.`,
  },
  {
    methods: ['GET'],
    url: '/models',
    message: `Inference models (GET /models) are not implemented: ${EMBEDDING}.`,
  },
  {
    methods: ['GET'],
    url: '/models/:model',
    message: `Inference models (GET /models/{model_name}) are not implemented: ${EMBEDDING}.`,
  },
  {
    methods: ['POST'],
    url: '/indexes/create-for-model',
    message:
      `Integrated embedding (POST /indexes/create-for-model) is not implemented: ${EMBEDDING}. ` +
      'Create the index with POST /indexes and a dimension.',
  },
  ...[
    { methods: ['GET', 'POST'] as HTTPMethods[], url: '/indexes/:name/backup-schedules' },
    { methods: ['GET', 'PATCH', 'DELETE'] as HTTPMethods[], url: '/backup-schedules/:id' },
    { methods: ['GET'] as HTTPMethods[], url: '/backup-schedules/:id/history' },
  ].map(
    ({ methods, url }): Unimplemented => ({
      methods,
      url,
      message:
        'Backup schedules (API 2026-07: /indexes/{index_name}/backup-schedules, /backup-schedules/{schedule_id}) are not implemented by Conifer. ' +
        'Create backups with POST /indexes/{index_name}/backups, on a schedule of your own.',
    }),
  ),
  ...['/assistants', '/assistants/*', '/assistant/*'].map(
    (url): Unimplemented => ({
      methods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
      url,
      message: 'Pinecone Assistant (assistants, their files, chat and evaluation) is not implemented by Conifer.',
    }),
  ),
];

/** Data plane, under an index host. Bulk import is not listed: it is served. */
const DATA_PLANE_UNIMPLEMENTED: Unimplemented[] = [
  {
    methods: ['POST'],
    url: '/records/namespaces/:namespace/upsert',
    message:
      `Records upsert (POST /records/namespaces/{namespace}/upsert, integrated embedding) is not implemented: ${EMBEDDING}. ` +
      'Upsert vectors with POST /vectors/upsert.',
  },
  {
    methods: ['POST'],
    url: '/records/namespaces/:namespace/search',
    message:
      `Records search (POST /records/namespaces/{namespace}/search, integrated embedding) is not implemented: ${EMBEDDING}. ` +
      'Search with POST /query.',
  },
  {
    methods: ['POST'],
    url: '/namespaces/:namespace/documents/:operation',
    message:
      'The documents API of API 2026-07 (POST /namespaces/{namespace}/documents/upsert|search|fetch|list|update|delete) ' +
      'is not implemented by Conifer. Use the vectors API (/vectors/upsert, /query, /vectors/fetch, /vectors/list, ' +
      '/vectors/update, /vectors/delete).',
  },
];

const refusal = (message: string) => async (): Promise<never> => {
  throw new ApiError('UNIMPLEMENTED', message);
};

export function unimplementedRoutes(app: FastifyInstance, ctx: ServerContext): void {
  for (const route of CONTROL_PLANE_UNIMPLEMENTED) {
    app.route({ method: route.methods, url: route.url, onRequest: refusal(route.message), handler: refusal(route.message) });
  }

  app.register(
    async (plane) => {
      // An unknown index host is still a 404 (decision 2); only a real index hears "not implemented".
      const knownIndex = async (request: FastifyRequest<{ Params: { indexHost: string } }>): Promise<void> => {
        const hostId = request.params.indexHost;
        if (!ctx.catalog.indexes.getByHost(projectOf(request).id, hostId)) {
          throw notFound(`Index host ${hostId} not found for this API key's project.`);
        }
      };
      for (const route of DATA_PLANE_UNIMPLEMENTED) {
        plane.route({
          method: route.methods,
          url: route.url,
          onRequest: [knownIndex, refusal(route.message)],
          handler: refusal(route.message),
        });
      }
    },
    { prefix: '/svc/:indexHost' },
  );
}
