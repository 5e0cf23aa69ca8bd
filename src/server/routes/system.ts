// The process's own routes: liveness, readiness, version, metrics and the OpenAPI
// document. No key needed (auth.ts), except /metrics under CONIFER_METRICS_AUTH=key.
import type { FastifyInstance } from 'fastify';
import { buildInfo } from '../../build-info.js';
import { registry } from '../../metrics.js';
import { SUPPORTED_VERSIONS } from '../api-version.js';
import type { ServerContext } from '../context.js';

export function systemRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/health', { schema: { summary: 'Liveness: the process is up', security: [] } }, async () => ({ status: 'ok' }));

  app.get('/ready', { schema: { summary: 'Readiness: every index recovered (503 until then)', security: [] } }, async (_request, reply) => {
    if (ctx.isReady()) return { ready: true };
    reply.header('retry-after', '1');
    return reply.code(503).send({ ready: false });
  });

  app.get('/version', { schema: { summary: 'Version, build commit and API versions served', security: [] } }, async () => {
    const { version, commit } = buildInfo();
    return { version, commit, apiVersions: [...SUPPORTED_VERSIONS] };
  });

  const metricsSchema = {
    summary: 'Prometheus metrics (text exposition format)',
    // CONIFER_METRICS_AUTH=key: any valid key of any project; otherwise open.
    ...(ctx.config.metricsAuth === 'key' ? {} : { security: [] }),
  };
  app.get('/metrics', { schema: metricsSchema }, async (_request, reply) => {
    await ctx.indexGauges.refresh();
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });

  app.get('/openapi.json', { schema: { summary: 'This OpenAPI document', security: [] } }, async () => app.swagger());
}
