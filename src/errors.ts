// The one internal error type. Every layer throws ApiError for a request it refuses;
// src/server/error-mapper.ts turns it (and Fastify's own errors) into the wire shape of
// the plane that was called. Nothing else decides status codes.

export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PAYMENT_REQUIRED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'UNPROCESSABLE_ENTITY'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNIMPLEMENTED'
  | 'RESOURCE_EXHAUSTED'
  | 'UNAVAILABLE'
  | 'INSUFFICIENT_STORAGE'
  | 'UNKNOWN';

const STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  /** A known path asked by a method it is not served for (the reply's Allow header lists those). */
  METHOD_NOT_ALLOWED: 405,
  ALREADY_EXISTS: 409,
  FAILED_PRECONDITION: 412,
  UNPROCESSABLE_ENTITY: 422,
  PAYLOAD_TOO_LARGE: 413,
  /** A Pinecone feature Conifer does not offer (src/server/routes/unimplemented.ts). */
  UNIMPLEMENTED: 501,
  RESOURCE_EXHAUSTED: 429,
  UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
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

/** 507: the write cannot be stored because the data directory's volume is (nearly) full. */
export const insufficientStorage = (message: string): ApiError => new ApiError('INSUFFICIENT_STORAGE', message);

/**
 * True for the errors a full volume produces: SQLite's SQLITE_FULL (better-sqlite3 puts
 * the extended code in `code`), and the file system's ENOSPC (no space) and EDQUOT
 * (quota exceeded). Errors that crossed a worker boundary keep their `code` (see
 * snapshot-copy.ts), so one test covers every path.
 */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT';
}

/** Longest quote of client input in an error message; the message stays small whatever was sent. */
const SHOW_MAX_CHARS = 80;
/** Containers deeper than this are elided ("[...]"), so a 10,000-deep value costs nothing to describe. */
const SHOW_MAX_DEPTH = 3;

/**
 * Describes a client value for an error message, briefly and safely: scalars as JSON
 * ("abc" quoted, 1.5), containers as their type and a truncated JSON prefix
 * (`array [[[...]]]`). It never walks more than SHOW_MAX_DEPTH levels nor builds more
 * than SHOW_MAX_CHARS characters, so hostile input (huge strings, arrays nested
 * 10,000 deep) cannot overflow the stack or bloat the response while an error is built.
 */
export function show(value: unknown): string {
  const kind = Array.isArray(value) ? 'array ' : value !== null && typeof value === 'object' ? 'object ' : '';
  return kind + clip(brief(value, SHOW_MAX_DEPTH, SHOW_MAX_CHARS + 1), SHOW_MAX_CHARS);
}

/** Cuts text (a path, a key, a URL) to at most `max` characters for an error message. */
export function clip(text: string, max = SHOW_MAX_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** JSON-like rendering of `v` that stops after about `budget` characters and `depth` levels. */
function brief(v: unknown, depth: number, budget: number): string {
  if (typeof v === 'string') return JSON.stringify(v.length > budget ? v.slice(0, budget) : v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null) return 'null';
  if (typeof v !== 'object') return typeof v;
  if (Array.isArray(v)) {
    if (depth === 0) return '[...]';
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      if (out.length >= budget) return `${out}...`;
      out += (i > 0 ? ',' : '') + brief(v[i], depth - 1, budget - out.length);
    }
    return `${out}]`;
  }
  if (depth === 0) return '{...}';
  let out = '{';
  for (const key of Object.keys(v)) {
    if (out.length >= budget) return `${out}...`;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(clip(key, budget))}:`;
    out += brief((v as Record<string, unknown>)[key], depth - 1, budget - out.length);
  }
  return `${out}}`;
}
