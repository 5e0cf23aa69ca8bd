// Authentication and versioning, run on every request before routing completes: the
// key first (401), then the version header (400). Keys are looked up per request by
// hash, so a key revoked or a project suspended with the CLI takes effect at once.
// Dev mode (like Pinecone Local) accepts any key value as the default project's; a real
// key still means its own project, so a dev server over a shared data directory keeps
// projects apart.
import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog/catalog.js';
import { DEFAULT_PROJECT } from '../catalog/projects.js';
import { unauthenticated } from '../errors.js';
import { resolveVersion } from './api-version.js';
import { planeOf } from './error-mapper.js';

export function registerAuth(app: FastifyInstance, catalog: Catalog, opts: { acceptAnyKey: boolean }): void {
  app.decorateRequest('project', null);
  app.decorateRequest('apiVersion', null);
  app.addHook('onRequest', async (request) => {
    const plane = planeOf(request.url);
    if (plane === 'system') return;
    const key = request.headers['api-key'];
    const secret = Array.isArray(key) ? key[0] : key;
    const project = secret
      ? (catalog.projects.authenticate(secret) ?? (opts.acceptAnyKey ? catalog.projects.get(DEFAULT_PROJECT) : undefined))
      : undefined;
    if (!project) {
      throw unauthenticated(secret ? 'Invalid API key.' : 'Missing Api-Key header: every request needs an API key.');
    }
    request.project = project;
    request.apiVersion = resolveVersion(request.headers, plane);
  });
}
