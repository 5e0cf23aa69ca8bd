// Per-request facts established by the hooks in auth.ts, typed for the handlers.
import type { FastifyRequest } from 'fastify';
import type { Project } from '../catalog/projects.js';
import type { Config } from '../config.js';
import type { ApiVersion } from './api-version.js';
import { TAG_RULES, TAG_RULES_2607, type TagRules } from '../control/index-rules.js';

declare module 'fastify' {
  interface FastifyRequest {
    project: Project | null;
    apiVersion: ApiVersion | null;
    /** Size of the request body as sent, in bytes (0 without a body). */
    bodyBytes: number;
  }
}

export function projectOf(request: FastifyRequest): Project {
  if (!request.project) throw new Error('route reached without authentication');
  return request.project;
}

export function versionOf(request: FastifyRequest): ApiVersion {
  if (!request.apiVersion) throw new Error('route reached without a resolved API version');
  return request.apiVersion;
}

/** The tag rules of the request's API version (index-rules.ts TagRules). */
export function tagRulesOf(request: FastifyRequest): TagRules {
  return versionOf(request) === '2026-07' ? TAG_RULES_2607 : TAG_RULES;
}

/**
 * Base address of index hosts (decision 2): CONIFER_PUBLIC_URL, or else the address the
 * caller used (its Host header), so Docker port maps and proxies work.
 */
export function dataPlaneBase(request: FastifyRequest, config: Config): string {
  if (config.publicUrl) return config.publicUrl;
  const host = request.headers.host ?? `${config.host}:${config.port}`;
  return `http://${host}`;
}

/** Label of requests no route matched (404s): one value, so unknown URLs add no series. */
export const UNMATCHED_ROUTE = '(unmatched)';

/** The route pattern (`/indexes/:name`), never the URL: bounded for metrics, free of ids. */
export function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? UNMATCHED_ROUTE;
}
