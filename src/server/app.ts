// Builds the HTTP shell: transport limits, JSON parsing, request ids, authentication,
// routes and the one error mapper. Handlers parse, call one service method, serialize.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ApiError, clip, invalid, isStorageFull, notFound } from '../errors.js';
import { BODY_LIMIT_BYTES, MAX_HEADER_BYTES, MAX_PARAM_LENGTH } from '../limits.js';
import { registerAuth } from './auth.js';
import type { Config } from '../config.js';
import { registerBodyDrain } from './body-drain.js';
import type { ServerContext } from './context.js';
import { registerDiskGuard } from './disk-guard.js';
import { errorBody, planeOf, sendError } from './error-mapper.js';
import { consoleRoutes } from './routes/console.js';
import { copyRoutes } from './routes/copies.js';
import { dataPlaneRoutes } from './routes/data-plane.js';
import { indexRoutes } from './routes/indexes.js';
import { systemRoutes } from './routes/system.js';
import { unimplementedRoutes } from './routes/unimplemented.js';
import { projectOf } from './request-context.js';

export const REQUEST_ID_HEADER = 'x-pinecone-request-id';

export function buildApp(ctx: ServerContext, logger: FastifyBaseLogger): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    // Fastify's per-request lines are info level; ours (onResponse below) are debug.
    logController: new QuietRequestLog(),
    genReqId: () => randomUUID(),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Slow and idle clients (issue 11): a connection must deliver its headers within
    // headersTimeout and its whole request within requestTimeout (else 408 and closed),
    // and may idle between requests for keepAliveTimeout. Node checks these every
    // connectionsCheckingInterval, so that is kept well below the header timeout.
    requestTimeout: ctx.config.requestTimeoutMs,
    keepAliveTimeout: ctx.config.keepAliveTimeoutMs,
    http: {
      // A fetch of 1000 ids is a long query string (decision 13).
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: ctx.config.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(ctx.config.headersTimeoutMs / 4))),
    },
    // Never coerce ("8" is not 8), never fill defaults, never strip unknown fields.
    ajv: { customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false } },
    clientErrorHandler: (err, socket) => answerClientError(err, socket, ctx.config),
    // Router errors (undecodable URL, over-long path parameter) happen before any hook.
    frameworkErrors: (err, request, reply) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      const message =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `a path parameter exceeds ${MAX_PARAM_LENGTH} characters`
          : `the URL is not valid: ${err.message}`;
      return sendError(request, reply, invalid(message));
    },
  });

  // An empty body with a JSON content type means {} (decision 13).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.decorateRequest('bodyBytes', 0);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Kept for the 2 MB upsert rule, which counts the bytes the client sent.
    request.bodyBytes = Buffer.byteLength(body as string);
    if (body === '') done(null, {});
    else parseJson(request, body as string, done);
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  registerAuth(app, ctx.catalog, { acceptAnyKey: ctx.config.dev });
  registerDiskGuard(app, ctx.disk);
  registerBodyDrain(app);
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug(
      { method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime },
      'request',
    );
  });

  app.setErrorHandler((err, request, reply) => {
    if (isStorageFull(err)) ctx.disk.noteFull(); // releases the disk reserve at once if space is gone
    return sendError(request, reply, err);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0];
    if (planeOf(path) === 'data') {
      // Say whether the index or the operation is unknown; never another project's index.
      const hostId = path.split('/')[2] ?? '';
      if (!ctx.catalog.indexes.getByHost(projectOf(request).id, decodeURIComponent(hostId))) {
        return sendError(request, reply, notFound(`Index host ${clip(hostId, 200)} not found for this API key's project.`));
      }
    }
    return sendError(request, reply, notFound(`Unknown route: ${request.method} ${clip(path, 200)}`));
  });

  // Connections beyond the cap are closed as soon as they are accepted; those already
  // open (keep-alive clients) are unaffected.
  app.server.maxConnections = ctx.config.maxConnections;

  systemRoutes(app, ctx);
  indexRoutes(app, ctx);
  copyRoutes(app, ctx);
  dataPlaneRoutes(app, ctx, ctx.vectors);
  unimplementedRoutes(app, ctx);
  void app.register(consoleRoutes);
  return app;
}

class QuietRequestLog extends LogController {
  override isLogDisabled(): boolean {
    return true;
  }
}

/** Errors before a request exists (header overflow, malformed HTTP, too slow): same JSON shape. */
function answerClientError(err: Error & { code?: string }, socket: Socket, config: Config): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const [status, reason, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', `request URL and headers exceed ${MAX_HEADER_BYTES} bytes`]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            408,
            'Request Timeout',
            `the request was not received in time: headers are allowed ${config.headersTimeoutMs} ms ` +
              `and the whole request ${config.requestTimeoutMs} ms (CONIFER_HEADERS_TIMEOUT_MS, CONIFER_REQUEST_TIMEOUT_MS)`,
          ]
        : [400, 'Bad Request', 'malformed HTTP request'];
  const body = JSON.stringify({ ...errorBody(new ApiError('INVALID_ARGUMENT', message), 'control'), status });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
