// Validates a body against a JSON schema chosen at request time (the index bodies
// differ by API version), with Fastify's own compiler and options (no coercion), and
// the same messages and statuses as route schemas (decision 4).
import type { FastifyRequest } from 'fastify';
import { unprocessable } from '../errors.js';
import { toApiError, planeOf } from './error-mapper.js';

/**
 * Where the interface marks the body required (configure index), no body — or an empty one,
 * which elsewhere means {} (decision 13) — cannot be deserialized: 422, as a missing field.
 */
export function requireBody(request: FastifyRequest, allowed: string): void {
  if (request.body === undefined || request.bodyBytes === 0) {
    throw unprocessable(`a request body is required: send a JSON object with at least one of ${allowed}`);
  }
}

export function checkBody<T>(request: FastifyRequest, schema: Record<string, unknown>): T {
  const validate = request.compileValidationSchema(schema, 'body');
  const body: unknown = request.body === undefined ? {} : request.body;
  if (!validate(body)) {
    const err = Object.assign(new Error('body failed validation'), { validation: validate.errors ?? [] });
    throw toApiError(err, planeOf(request.url)) ?? err;
  }
  return body as T;
}
