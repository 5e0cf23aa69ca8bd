// The free-space check of the HTTP layer. A route that grows storage declares it in its
// config (`config: { grows: 'an upsert' }`, naming the write for the 507 message) and is
// refused below the threshold before any work. Deletes — DELETE and PATCH requests, and
// routes marked `config: { frees: true }` — are never refused and measure free space
// afresh, so the disk reserve is released in time for them. Reads (including the POST
// reads: query, fetch_by_metadata, stats) do neither: they must not spend the reserve.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DiskSpace } from '../catalog/disk-space.js';
import { syncHook } from './sync-hook.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route writes new data; the value names it ("an upsert"). */
    grows?: string;
    /** This POST route deletes data. */
    frees?: boolean;
  }
}

/**
 * What a request does to stored data, by the rule above: 'grows' (its route declares
 * `grows`), 'frees' (a DELETE or PATCH, or a route marked `frees`), or undefined (a read).
 * The data plane's memory release keys on it too (routes/data-plane.ts).
 */
export function storageEffect(request: FastifyRequest): 'grows' | 'frees' | undefined {
  const { grows, frees } = request.routeOptions.config;
  if (grows !== undefined) return 'grows';
  if (frees === true || request.method === 'DELETE' || request.method === 'PATCH') return 'frees';
  return undefined;
}

export function registerDiskGuard(app: FastifyInstance, disk: DiskSpace): void {
  app.addHook('preHandler', syncHook((request) => {
    const { grows } = request.routeOptions.config;
    if (grows !== undefined) disk.requireSpace(grows, request.bodyBytes);
    else if (storageEffect(request) === 'frees') disk.touch();
  }));
}
