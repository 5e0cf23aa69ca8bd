// The free-space check of the HTTP layer: a route that grows storage declares it in its
// config (`config: { grows: 'an upsert' }`, naming the write for the 507 message) and is
// refused below the threshold before any work; every other mutating request keeps the
// free-space measurement fresh, so the disk reserve is released in time for deletes.
import type { FastifyInstance } from 'fastify';
import type { DiskSpace } from '../catalog/disk-space.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route writes new data; the value names it ("an upsert"). */
    grows?: string;
  }
}

export function registerDiskGuard(app: FastifyInstance, disk: DiskSpace): void {
  app.addHook('preHandler', async (request) => {
    const grows = request.routeOptions.config.grows;
    if (grows !== undefined) disk.requireSpace(grows, request.bodyBytes);
    else if (request.method !== 'GET' && request.method !== 'HEAD') disk.touch();
  });
}
