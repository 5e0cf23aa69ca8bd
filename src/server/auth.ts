// Authentication and versioning, run on every request before routing completes: the
// key first (401), then the version header (400). Keys are looked up by hash in a cache
// that is revalidated at the start of every request (src/catalog/lookup-cache.ts), so a
// key revoked or a project suspended — by this server or with the CLI — takes effect at once.
// The process's own routes (/health, /ready, /version, /openapi.json, /metrics) need no
// key, except /metrics under CONIFER_METRICS_AUTH=key: then any valid key of any project.
// Dev mode (like Pinecone Local) accepts any key value as the default project's; a real
// key still means its own project, so a dev server over a shared data directory keeps
// projects apart.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Catalog } from '../catalog/catalog.js';
import { DEFAULT_PROJECT, type Project } from '../catalog/projects.js';
import type { MetricsAuth } from '../config.js';
import { unauthenticated } from '../errors.js';
import { resolveVersion } from './api-version.js';
import { planeOf } from './error-mapper.js';
import { syncHook } from './sync-hook.js';

export function registerAuth(
  app: FastifyInstance,
  catalog: Catalog,
  opts: { acceptAnyKey: boolean; metricsAuth: MetricsAuth },
): void {
  app.decorateRequest('project', null);
  app.decorateRequest('apiVersion', null);
  const authenticate = (request: FastifyRequest): Project => {
    // Once per request: later lookups of this request (the index host) use the caches too.
    catalog.freshness.revalidate();
    const key = request.headers['api-key'];
    const secret = Array.isArray(key) ? key[0] : key;
    const project = secret
      ? (catalog.projects.authenticate(secret) ?? (opts.acceptAnyKey ? catalog.projects.get(DEFAULT_PROJECT) : undefined))
      : undefined;
    if (!project) {
      throw unauthenticated(secret ? 'Invalid API key.' : 'Missing Api-Key header: every request needs an API key.');
    }
    return project;
  };
  app.addHook('onRequest', syncHook((request) => {
    const plane = planeOf(request.url);
    if (plane === 'system') {
      if (opts.metricsAuth === 'key' && request.url.split('?', 1)[0] === '/metrics') request.project = authenticate(request);
      return;
    }
    request.project = authenticate(request);
    request.apiVersion = resolveVersion(request.headers, plane);
  }));
}
