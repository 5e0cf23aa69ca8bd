// The one internal error type. Every layer throws ApiError for a request it refuses;
// src/server/error-mapper.ts turns it (and Fastify's own errors) into the wire shape of
// the plane that was called. Nothing else decides status codes.

export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PAYMENT_REQUIRED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'UNPROCESSABLE_ENTITY'
  | 'PAYLOAD_TOO_LARGE'
  | 'RESOURCE_EXHAUSTED'
  | 'UNAVAILABLE'
  | 'UNKNOWN';

const STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  FAILED_PRECONDITION: 412,
  UNPROCESSABLE_ENTITY: 422,
  PAYLOAD_TOO_LARGE: 413,
  RESOURCE_EXHAUSTED: 429,
  UNAVAILABLE: 503,
  UNKNOWN: 500,
};

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds, sent as Retry-After (503 while an index loads or recovers, 429 overload). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

export const invalid = (message: string): ApiError => new ApiError('INVALID_ARGUMENT', message);
export const unprocessable = (message: string): ApiError => new ApiError('UNPROCESSABLE_ENTITY', message);
export const notFound = (message: string): ApiError => new ApiError('NOT_FOUND', message);
export const forbidden = (message: string): ApiError => new ApiError('FORBIDDEN', message);
export const conflict = (message: string): ApiError => new ApiError('ALREADY_EXISTS', message);
export const failedPrecondition = (message: string): ApiError => new ApiError('FAILED_PRECONDITION', message);
export const paymentRequired = (message: string): ApiError => new ApiError('PAYMENT_REQUIRED', message);
export const unauthenticated = (message: string): ApiError => new ApiError('UNAUTHENTICATED', message);
export const unavailable = (message: string, retryAfter: number): ApiError =>
  new ApiError('UNAVAILABLE', message, retryAfter);
/** Overload: the server holds as much work as it may; the client should retry later. */
export const overloaded = (message: string, retryAfter: number): ApiError =>
  new ApiError('RESOURCE_EXHAUSTED', message, retryAfter);

/** Renders a value for an error message: short, JSON-ish, never huge. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
