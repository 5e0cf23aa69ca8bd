// Liveness and readiness; no key needed.
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../context.js';

export function systemRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    if (ctx.isReady()) return { ready: true };
    reply.header('retry-after', '1');
    return reply.code(503).send({ ready: false });
  });
}
