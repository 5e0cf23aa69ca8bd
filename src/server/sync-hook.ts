// Fastify hooks whose work is synchronous, in Fastify's callback style. A request passes
// about ten hooks; Fastify awaits what an async hook returns, which costs the request a
// promise and a trip through the microtask queue per hook, where a callback hook is a
// plain call. `run` throws the request's error, as an async hook would reject with it.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

export function syncHook<Req extends FastifyRequest = FastifyRequest>(
  run: (request: Req, reply: FastifyReply) => void,
): (request: Req, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  return (request, reply, done) => {
    try {
      run(request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    // Outside the try: done() runs the rest of the request, whose errors are not this hook's.
    done();
  };
}
