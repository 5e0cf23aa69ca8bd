// The one place errors become responses (DESIGN.md decision 3). ApiError carries its own
// status; Fastify's errors (bad JSON, body too large, media type, schema failures) are
// translated by decision 4: on the control plane a body that cannot be deserialized is
// 422, on the data plane every bad request is 400 (gRPC code 3). Anything unexpected is
// a 500 UNKNOWN with the request id, logged, and never a stack trace on the wire.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, clip, insufficientStorage, isStorageFull, show, type ErrorCode } from '../errors.js';
import { rejectedRequests } from '../metrics.js';
import { BODY_LIMIT_BYTES } from '../limits.js';

export type Plane = 'control' | 'data' | 'system';

declare module 'fastify' {
  interface FastifyReply {
    /** The error this reply answers with, once sendError has chosen it. */
    apiError: ApiError | null;
  }
}

/** Routes of the process itself (no key, no version header; /metrics may need a key). */
export const SYSTEM_PATHS: readonly string[] = ['/health', '/ready', '/metrics', '/version', '/openapi.json'];

export function planeOf(url: string): Plane {
  const path = url.split('?', 1)[0];
  if (path.startsWith('/svc/')) return 'data';
  if (path === '/console' || path.startsWith('/console/')) return 'system'; // static files, no key
  return SYSTEM_PATHS.includes(path) ? 'system' : 'control';
}

/** gRPC status numbers for the data plane's error body. */
const GRPC_CODE: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 3,
  UNPROCESSABLE_ENTITY: 3,
  PAYLOAD_TOO_LARGE: 3,
  NOT_FOUND: 5,
  METHOD_NOT_ALLOWED: 12, // UNIMPLEMENTED, as gRPC-gateway maps 405
  ALREADY_EXISTS: 6,
  FORBIDDEN: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  PAYMENT_REQUIRED: 9,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
  INSUFFICIENT_STORAGE: 8, // RESOURCE_EXHAUSTED
  UNAUTHENTICATED: 16,
  UNKNOWN: 2,
};

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** "/spec/pod/replicas" → "spec.pod.replicas"; "/vectors/0/id" → "vectors[0].id". */
function fieldName(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function describeSchemaError(e: AjvError): string {
  // Keys come from the client: a path is quoted only up to a bounded length.
  const field = clip(fieldName(e.instancePath), 200);
  if (e.keyword === 'required') {
    const missing = clip(String(e.params.missingProperty), 200);
    return `missing required field ${field ? `${field}.${missing}` : missing}`;
  }
  const where = field || 'request body';
  if (e.keyword === 'type') return `${where} must be of type ${String(e.params.type)}`;
  if (e.keyword === 'additionalProperties') {
    return `${where} has an unknown field ${show(e.params.additionalProperty)}`;
  }
  return `${where} ${e.message ?? 'is invalid'}`;
}

/** Translates anything thrown while serving a request into an ApiError for `plane`. */
export function toApiError(err: unknown, plane: Plane): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (isStorageFull(err)) {
    // A storage write failed for lack of space: its transaction rolled back, nothing changed.
    return insufficientStorage(
      'the disk is full: the data directory\'s volume has no space left, so this write was not stored ' +
        '(nothing changed). Reads still work; free space on the volume (deleting an index frees its files at once), then retry.',
    );
  }
  const fe = err as FastifyError & { validation?: AjvError[] };
  const undeserializable = plane === 'data' ? 'INVALID_ARGUMENT' : 'UNPROCESSABLE_ENTITY';
  if (Array.isArray(fe.validation) && fe.validation.length > 0) {
    return new ApiError(undeserializable, describeSchemaError(fe.validation[0]));
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(undeserializable, `request body is not valid JSON: ${fe.message}`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(undeserializable, 'Content-Type must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${BODY_LIMIT_BYTES} bytes (2 MiB)`);
  }
  if (err instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return new ApiError(undeserializable, `request body could not be read: ${fe.message}`);
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError('INVALID_ARGUMENT', fe.message);
  }
  return undefined;
}

export function errorBody(err: ApiError, plane: Plane): Record<string, unknown> {
  const body: Record<string, unknown> = {
    error: { code: err.code, message: err.message },
    status: err.status,
  };
  if (plane === 'data') {
    // Pinecone's data plane answers in the gRPC-gateway shape; send both (decision 3).
    body.code = GRPC_CODE[err.code];
    body.message = err.message;
    body.details = [];
  }
  return body;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const plane = planeOf(request.url);
  let apiError = toApiError(err, plane);
  if (!apiError) {
    request.log.error({ err }, 'unexpected error');
    apiError = new ApiError('UNKNOWN', `Internal server error (request id ${request.id})`);
  }
  if (apiError.code === 'INSUFFICIENT_STORAGE') rejectedRequests.inc({ reason: 'disk_full' });
  // Kept for the request log line (request-log.ts), which names the code and message.
  reply.apiError = apiError;
  if (apiError.retryAfter !== undefined) reply.header('retry-after', String(apiError.retryAfter));
  return reply.code(apiError.status).type('application/json').send(errorBody(apiError, plane));
}
