// Options of @fastify/swagger (dynamic mode): the OpenAPI document is built from the
// routes' own schemas when GET /openapi.json is first asked, so it cannot drift from what
// is served. Added here: the API key scheme, and the version header on every operation
// of the two planes (required on the control plane, optional on the data plane;
// decision 1), which no route schema states because auth.ts reads it for all routes.
import type { SwaggerOptions } from '@fastify/swagger';
import { buildInfo } from '../build-info.js';
import { CURRENT_VERSION, SUPPORTED_VERSIONS } from './api-version.js';
import { SYSTEM_PATHS } from './error-mapper.js';

type Operation = { parameters?: unknown[] };

function versionHeader(required: boolean): Record<string, unknown> {
  return {
    in: 'header',
    name: 'X-Pinecone-Api-Version',
    required,
    description: `API version (alias X-Service-Api-Version)${required ? '' : `; ${CURRENT_VERSION} when absent`}`,
    schema: { type: 'string', enum: [...SUPPORTED_VERSIONS] },
  };
}

function addVersionHeaders(doc: { paths?: Record<string, Record<string, Operation>> }): void {
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (SYSTEM_PATHS.includes(path)) continue;
    const header = versionHeader(!path.startsWith('/svc/'));
    for (const op of Object.values(item)) op.parameters = [...(op.parameters ?? []), header];
  }
}

export function openApiOptions(): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Conifer',
        version: buildInfo().version,
        description:
          'Control plane (indexes, collections, backups) and data plane (/svc/{indexHost}/...) of Conifer, ' +
          'a self-hosted vector database with a Pinecone-shaped API.',
      },
      components: { securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'Api-Key' } } },
      security: [{ ApiKeyAuth: [] }],
    },
    transformObject: (document) => {
      // Configured with `openapi` above, so the document is always the OpenAPI one.
      if (!('openapiObject' in document)) return document.swaggerObject;
      addVersionHeaders(document.openapiObject as { paths?: Record<string, Record<string, Operation>> });
      return document.openapiObject;
    },
  };
}
