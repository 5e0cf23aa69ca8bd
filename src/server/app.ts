// Builds the HTTP shell: transport limits, JSON parsing, request ids, authentication,
// routes and the one error mapper. Handlers parse, call one service method, serialize.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ApiError, invalid, notFound } from '../errors.js';
import { BODY_LIMIT_BYTES, MAX_HEADER_BYTES, MAX_PARAM_LENGTH } from '../limits.js';
import { registerAuth } from './auth.js';
import type { ServerContext } from './context.js';
import { errorBody, planeOf, sendError } from './error-mapper.js';
import { consoleRoutes } from './routes/console.js';
import { copyRoutes } from './routes/copies.js';
import { dataPlaneRoutes } from './routes/data-plane.js';
import { indexRoutes } from './routes/indexes.js';
import { systemRoutes } from './routes/system.js';
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
    // A fetch of 1000 ids is a long query string (decision 13).
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    // Never coerce ("8" is not 8), never fill defaults, never strip unknown fields.
    ajv: { customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false } },
    clientErrorHandler: answerClientError,
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
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug(
      { method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime },
      'request',
    );
  });

  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0];
    if (planeOf(path) === 'data') {
      // Say whether the index or the operation is unknown; never another project's index.
      const hostId = path.split('/')[2] ?? '';
      if (!ctx.catalog.indexes.getByHost(projectOf(request).id, decodeURIComponent(hostId))) {
        return sendError(request, reply, notFound(`Index host ${hostId} not found for this API key's project.`));
      }
    }
    return sendError(request, reply, notFound(`Unknown route: ${request.method} ${path}`));
  });

  systemRoutes(app, ctx);
  indexRoutes(app, ctx);
  copyRoutes(app, ctx);
  dataPlaneRoutes(app, ctx, ctx.vectors);
  void app.register(consoleRoutes);
  return app;
}

class QuietRequestLog extends LogController {
  override isLogDisabled(): boolean {
    return true;
  }
}

/** Errors before a request exists (header overflow, malformed HTTP): same JSON shape. */
function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const apiError = new ApiError(
    'INVALID_ARGUMENT',
    tooLarge ? `request URL and headers exceed ${MAX_HEADER_BYTES} bytes` : 'malformed HTTP request',
  );
  const body = JSON.stringify({ ...errorBody(apiError, 'control'), status });
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
