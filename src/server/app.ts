// Builds the HTTP shell: transport limits, JSON parsing, request ids, authentication,
// routes and the one error mapper. Handlers parse, call one service method, serialize.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ApiError, clip, invalid, isStorageFull, notFound, show } from '../errors.js';
import { BODY_LIMIT_BYTES, MAX_HEADER_BYTES, MAX_PARAM_LENGTH } from '../limits.js';
import { AllowedMethods } from './allowed-methods.js';
import { registerAuth } from './auth.js';
import type { Config } from '../config.js';
import { readRestOfBody, registerBodyDrain } from './body-drain.js';
import { FORBIDDEN_KEY_BODY } from '../data/json-body.js';
import { registerHttpMetrics } from './http-metrics.js';
import { openApiOptions } from './openapi.js';
import { registerRequestLog } from './request-log.js';
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
import { syncHook } from './sync-hook.js';

export const REQUEST_ID_HEADER = 'x-pinecone-request-id';

/** Fastify's Ajv options; the body-schema agreement test validates with the same ones. */
export const AJV_OPTIONS = { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false } as const;

export interface BuildOptions {
  /** Sees every route as it is registered (the OpenAPI test compares them with the document). */
  onRoute?: (route: RouteOptions) => void;
}

export async function buildApp(
  ctx: ServerContext,
  logger: FastifyBaseLogger,
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger,
    // Fastify's own per-request lines are off; ours (request-log.ts) carry route and error.
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
    ajv: { customOptions: AJV_OPTIONS },
    clientErrorHandler: (err, socket) => answerClientError(err, socket, ctx.config),
    // Router errors (undecodable URL, over-long path parameter) happen before any hook,
    // so the body drain (body-drain.ts) is called here: without it a client still sending
    // a body gets EPIPE instead of this answer.
    frameworkErrors: (err, request, reply) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      const message =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `a path parameter exceeds ${MAX_PARAM_LENGTH} characters`
          : `the URL is not valid: ${show(err.message)}`; // quotes the URL: capped
      void readRestOfBody(request.raw, reply).then(() => sendError(request, reply, invalid(message)));
    },
  });

  // An empty body with a JSON content type means {} (decision 13).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Every body is JSON: a text/plain one is refused as any other media type ("Content-Type
  // must be application/json"), not parsed as a string and refused as not an object.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('bodyBytes', 0);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Kept for the 2 MB upsert rule, which counts the bytes the client sent.
    request.bodyBytes = Buffer.byteLength(body as string);
    if (body === '') done(null, {});
    else {
      parseJson(request, body as string, (err, value) => {
        // Valid JSON refused all the same holds a key secure-json-parse forbids: say so
        // (Fastify's error calls it invalid JSON), in the plane's code for a body it cannot take.
        if (err && isJson(body as string)) done(new ApiError(planeOf(request.url) === 'data' ? 'INVALID_ARGUMENT' : 'UNPROCESSABLE_ENTITY', FORBIDDEN_KEY_BODY));
        else done(err, value);
      });
    }
  });

  app.addHook('onRequest', syncHook((request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  }));
  registerAuth(app, ctx.catalog, { acceptAnyKey: ctx.config.dev, metricsAuth: ctx.config.metricsAuth });
  registerDiskGuard(app, ctx.disk);
  registerBodyDrain(app);
  registerRequestLog(app);
  registerHttpMetrics(app);

  app.setErrorHandler((err, request, reply) => {
    if (isStorageFull(err)) ctx.disk.noteFull(); // releases the disk reserve at once if space is gone
    return sendError(request, reply, err);
  });
  const allowed = new AllowedMethods();
  app.addHook('onRoute', (route) => allowed.add(route));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0];
    if (planeOf(path) === 'data') {
      // Say whether the index or the operation is unknown; never another project's index.
      const hostId = path.split('/')[2] ?? '';
      if (!ctx.catalog.indexes.getByHost(projectOf(request).id, decodeURIComponent(hostId))) {
        return sendError(request, reply, notFound(`Index host ${clip(hostId, 200)} not found for this API key's project.`));
      }
    }
    // A route of this method that answered "not found" itself (a static file that is not
    // there) stays a 404.
    const methods = allowed.of(path);
    if (methods.length > 0 && !methods.includes(request.method)) {
      reply.header('allow', methods.join(', '));
      const message = `${request.method} is not allowed on ${clip(path, 200)}; it is served for ${methods.join(', ')}`;
      return sendError(request, reply, new ApiError('METHOD_NOT_ALLOWED', message));
    }
    return sendError(request, reply, notFound(`Unknown route: ${request.method} ${clip(path, 200)}`));
  });

  // Connections beyond the cap are closed as soon as they are accepted; those already
  // open (keep-alive clients) are unaffected.
  app.server.maxConnections = ctx.config.maxConnections;
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  // Dynamic mode: the document is built from the routes' own schemas, so it cannot drift.
  // Registered (awaited) before any route so its onRoute hook sees every one.
  await app.register(swagger, openApiOptions());

  systemRoutes(app, ctx);
  indexRoutes(app, ctx);
  copyRoutes(app, ctx);
  dataPlaneRoutes(app, ctx, ctx.vectors);
  unimplementedRoutes(app, ctx);
  void app.register(consoleRoutes);
  return app;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
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
