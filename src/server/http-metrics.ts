// Request count and latency by method, route pattern and status (src/metrics.ts). The
// route is the pattern, never the URL, so the number of series stays bounded.
import type { FastifyInstance } from 'fastify';
import { httpDuration, httpRequests } from '../metrics.js';
import { routeOf } from './request-context.js';
import { syncHook } from './sync-hook.js';

export function registerHttpMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', syncHook((request, reply) => {
    const labels = { method: request.method, route: routeOf(request), status: String(reply.statusCode) };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
  }));
}
