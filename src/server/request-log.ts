// One `info` line per answered request, for operators: method, route pattern, status,
// duration, project and index, and for an error the code and message it answered with.
// Never the URL (a fetch's query string can be 1 MiB), a header, or a body — so never a
// key; the logger's redaction (src/log.ts) is the net under that rule.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { routeOf } from './request-context.js';
import { syncHook } from './sync-hook.js';

/** The index a request concerns: the one the data plane resolved, or the route's `:name`. */
function indexOf(request: FastifyRequest, route: string): string | undefined {
  if (request.index) return request.index.name;
  const params = request.params as Record<string, string | undefined> | undefined;
  if (route.startsWith('/svc/:indexHost')) return params?.indexHost;
  if (route.startsWith('/indexes/:name')) return params?.name;
  return undefined;
}

/** The levels at which an `info` line is written (FastifyBaseLogger's type has no isLevelEnabled). */
const LOGS_INFO = new Set(['trace', 'debug', 'info']);

export function registerRequestLog(app: FastifyInstance): void {
  app.decorateReply('apiError', null);
  app.addHook('onResponse', syncHook((request, reply) => {
    // Above info (CONIFER_LOG_LEVEL=warn) the line would be built for nothing, per request.
    if (!LOGS_INFO.has(request.log.level)) return;
    const route = routeOf(request);
    const line: Record<string, unknown> = {
      method: request.method,
      route,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
    };
    if (request.project) line.project = request.project.name;
    const index = indexOf(request, route);
    if (index !== undefined) line.index = index;
    if (reply.apiError) line.error = { code: reply.apiError.code, message: reply.apiError.message };
    request.log.info(line, `${request.method} ${route} ${reply.statusCode}`);
  }));
}
