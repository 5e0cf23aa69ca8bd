// The web console: static files built by `npm run build:console` (Vite, into
// dist/console), served under /console/. The files hold no secret and need no key; the
// console itself is a client of the public API and sends the user's key with each call
// (see console/src/api.ts), so it has no privileges of its own.
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { notFound } from '../../errors.js';
import { sendError } from '../error-mapper.js';

export const CONSOLE_PREFIX = '/console';

// dist/src/server/routes/console.js → dist/console
const BUILT_CONSOLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'console');

/** A Fastify plugin: register with `app.register(consoleRoutes)`. */
export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  const root = BUILT_CONSOLE;
  if (!existsSync(join(root, 'index.html'))) {
    // A checkout built with `tsc` alone: say how to get the console instead of a bare 404.
    app.get(`${CONSOLE_PREFIX}/*`, async () => {
      throw notFound('The web console is not built: run `npm run build:console` (part of `npm run build`).');
    });
    app.get(CONSOLE_PREFIX, async () => {
      throw notFound('The web console is not built: run `npm run build:console` (part of `npm run build`).');
    });
    return;
  }
  // Scoped to this plugin: whatever @fastify/static refuses (dot segments leaving the
  // directory: its 403) is simply not a console file.
  app.setErrorHandler((_err, request, reply) =>
    sendError(request, reply, notFound(`Not a console file: ${request.url.split('?', 1)[0]}`)),
  );
  await app.register(fastifyStatic, {
    root,
    prefix: `${CONSOLE_PREFIX}/`,
    index: 'index.html',
    decorateReply: false,
    setHeaders: (reply) => {
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Referrer-Policy', 'no-referrer');
      reply.header('X-Frame-Options', 'DENY');
    },
  });
  // /console → /console/, where the page's asset URLs resolve under the prefix.
  app.get(CONSOLE_PREFIX, async (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/`, 301));
}
