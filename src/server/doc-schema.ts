// Route options that put a schema in the OpenAPI document without Fastify validating
// requests against it, for routes whose input is checked elsewhere: the index bodies
// (checkBody, with these same schema objects, chosen by API version) and the data plane
// (hand-written checks; schemas/vector-schemas.ts says why). The schema rides in the
// route's config and @fastify/swagger merges it in through the route's swaggerTransform;
// Fastify itself never sees it, so validation and error messages are unchanged.
// `config` carries the route's other settings (the disk guard's `grows`/`frees`).
import type { FastifyContextConfig, FastifySchema } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';

export function documentedOnly(
  documentation: FastifySchema,
  config: FastifyContextConfig = {},
): { config: FastifyContextConfig & { swaggerTransform: SwaggerTransform } } {
  return {
    config: { ...config, swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, ...documentation }, url }) },
  };
}
