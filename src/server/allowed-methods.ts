// Which methods a path is served for, so that a request by another method on a known path
// is answered 405 with an Allow header (as Pinecone answers it), not a 404 "unknown route",
// which sends the caller looking for a typo in the path. Fastify's router only says "this
// method on this path, or nothing", so every route is recorded again as it is registered
// (an onRoute hook) in a router of the same library, find-my-way, set up as Fastify sets up
// its own, which therefore matches paths the same way.
import FindMyWay from 'find-my-way';
import type { RouteOptions } from 'fastify';
import { MAX_PARAM_LENGTH } from '../limits.js';

export class AllowedMethods {
  private readonly router = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  private readonly methods = new Set<string>();

  /** For an onRoute hook: records the route's method(s) on its path. */
  add(route: Pick<RouteOptions, 'method' | 'url'>): void {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      this.methods.add(method);
      // Only whether a method matches is asked; the handler is never called.
      this.router.on(method as FindMyWay.HTTPMethod, route.url, () => undefined);
    }
  }

  /** The methods `path` (without its query) is served for, sorted; none for an unknown path. */
  of(path: string): string[] {
    return [...this.methods].filter((m) => this.router.find(m as FindMyWay.HTTPMethod, path) !== null).sort();
  }
}
