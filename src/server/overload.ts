// Overload protection for the data plane (issue 11): writes and reads each pass a bounded
// admission queue in onRequest — before the body is read, so a refused or waiting 2 MB
// upsert costs no memory — and are refused with 429 RESOURCE_EXHAUSTED and Retry-After
// once both the running and the waiting places of their kind are taken. The control
// plane, /health and /ready never pass a queue, so they stay responsive under any burst.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Config } from '../config.js';
import { overloaded } from '../errors.js';
import { ADMISSION_WAIT_MAX_MS, OVERLOAD_RETRY_AFTER_S } from '../limits.js';
import { rejectedRequests } from '../metrics.js';
import { AdmissionQueue, QueueFull, QueueTimeout } from './admission-queue.js';

type Kind = 'write' | 'read';

/** Data-plane POST routes that only read; every other POST, and DELETE, writes. */
const READ_POSTS = new Set(['/query', '/describe_index_stats', '/vectors/fetch_by_metadata']);

function kindOf(method: string, routeUrl: string, prefix: string): Kind {
  if (method === 'GET' || method === 'HEAD') return 'read';
  return READ_POSTS.has(routeUrl.slice(prefix.length)) ? 'read' : 'write';
}

export class OverloadGuard {
  private readonly queues: Record<Kind, AdmissionQueue>;
  private readonly settings: Record<Kind, string>;

  constructor(config: Config) {
    this.queues = {
      write: new AdmissionQueue(config.maxInflightWrites, config.maxQueuedWrites, ADMISSION_WAIT_MAX_MS),
      read: new AdmissionQueue(config.maxInflightReads, config.maxQueuedReads, ADMISSION_WAIT_MAX_MS),
    };
    this.settings = {
      write: 'CONIFER_MAX_INFLIGHT_WRITES / CONIFER_MAX_QUEUED_WRITES',
      read: 'CONIFER_MAX_INFLIGHT_READS / CONIFER_MAX_QUEUED_READS',
    };
  }

  /**
   * An onRequest hook for routes under `prefix`. The slot is freed when the response
   * closes — finished or abandoned by the client — never earlier, so a handler's work
   * (and its parsed body) is counted until it is done.
   */
  hook(prefix: string): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
    // Callback style (sync-hook.ts says why): a request admitted at once goes on without a promise.
    return (request, reply, done) => {
      const routeUrl = request.routeOptions.url;
      if (routeUrl === undefined) {
        done(); // unknown route: the not-found handler answers
        return;
      }
      const kind = kindOf(request.method, routeUrl, prefix);
      const queue = this.queues[kind];
      let ticket;
      try {
        ticket = queue.enter();
      } catch (err) {
        done(err instanceof QueueFull ? this.refuse(kind, `${queue.maxActive} running and ${queue.maxWaiting} waiting`) : (err as Error));
        return;
      }
      reply.raw.once('close', ticket.release);
      if (ticket.admitted === null) {
        done();
        return;
      }
      ticket.admitted.then(
        () => done(),
        (err: unknown) =>
          done(err instanceof QueueTimeout ? this.refuse(kind, `waited ${ADMISSION_WAIT_MAX_MS / 1000} s without a free place`) : (err as Error)),
      );
    };
  }

  private refuse(kind: Kind, why: string): Error {
    rejectedRequests.inc({ reason: 'overload' });
    return overloaded(
      `Too many concurrent data-plane ${kind}s (${why}; limits set by ${this.settings[kind]}); retry after ${OVERLOAD_RETRY_AFTER_S} s.`,
      OVERLOAD_RETRY_AFTER_S,
    );
  }
}
