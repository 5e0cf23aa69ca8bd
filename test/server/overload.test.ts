// The overload guard's hook: which routes count as writes or reads, the 429 it throws
// when a kind's places are full, and the refusal counted as reason "overload".
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../src/config.js';
import { ApiError } from '../../src/errors.js';
import { rejectedRequests } from '../../src/metrics.js';
import { OverloadGuard } from '../../src/server/overload.js';

const PREFIX = '/svc/:indexHost';
const limits = { maxInflightWrites: 1, maxQueuedWrites: 0, maxInflightReads: 1, maxQueuedReads: 0 } as Config;

function call(hook: ReturnType<OverloadGuard['hook']>, method: string, route: string): { done: Promise<void>; close(): void } {
  const raw = new EventEmitter();
  const request = { method, routeOptions: { url: PREFIX + route } } as unknown as FastifyRequest;
  const reply = { raw } as unknown as FastifyReply;
  const done = new Promise<void>((resolve, reject) => hook(request, reply, (err) => (err ? reject(err) : resolve())));
  return { done, close: () => raw.emit('close') };
}

async function overloadCount(): Promise<number> {
  const metric = await rejectedRequests.get();
  return metric.values.find((v) => v.labels.reason === 'overload')?.value ?? 0;
}

describe('OverloadGuard', () => {
  it('writes and reads have separate places; a full kind answers 429 with Retry-After and is counted', async () => {
    const hook = new OverloadGuard(limits).hook(PREFIX);
    const before = await overloadCount();
    const write = call(hook, 'POST', '/vectors/upsert');
    await write.done;
    const read = call(hook, 'POST', '/query');
    await read.done; // a query is a read: the held write place does not stop it
    for (const [method, route, kind] of [
      ['POST', '/vectors/delete', 'write'],
      ['DELETE', '/namespaces/:namespace', 'write'],
      ['POST', '/namespaces', 'write'],
      ['GET', '/vectors/fetch', 'read'],
      ['POST', '/describe_index_stats', 'read'],
      ['POST', '/vectors/fetch_by_metadata', 'read'],
    ] as const) {
      await assert.rejects(call(hook, method, route).done, (err: ApiError) => {
        assert.equal(err.status, 429);
        assert.equal(err.code, 'RESOURCE_EXHAUSTED');
        assert.equal(err.retryAfter, 1);
        assert.match(err.message, new RegExp(`concurrent data-plane ${kind}s`));
        return true;
      });
    }
    assert.equal((await overloadCount()) - before, 6);
    write.close(); // the response closed: its place is free again
    await call(hook, 'POST', '/vectors/update').done;
    read.close();
    await call(hook, 'GET', '/vectors/list').done;
  });
});
