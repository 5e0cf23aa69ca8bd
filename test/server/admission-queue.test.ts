// The bounded admission queue behind the overload guard: FIFO admission, an exact bound on
// running and waiting holders, idempotent release, leaving the queue, and the wait limit.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionQueue, QueueFull, QueueTimeout, type Ticket } from '../../src/server/admission-queue.js';

/** The ticket's wait; fails when it was admitted at once. */
function waiting(t: Ticket): Promise<void> {
  assert.ok(t.admitted, 'expected a ticket that waits');
  return t.admitted;
}

describe('AdmissionQueue', () => {
  it('admits up to maxActive, queues up to maxWaiting, refuses beyond, and admits in order', async () => {
    const q = new AdmissionQueue(2, 2, 60_000);
    const a = q.enter();
    const b = q.enter();
    const c = q.enter();
    const d = q.enter();
    assert.throws(() => q.enter(), QueueFull);
    assert.equal(q.activeCount, 2);
    assert.equal(q.waitingCount, 2);
    const order: string[] = [];
    assert.equal(a.admitted, null); // admitted at once
    assert.equal(b.admitted, null);
    const cAdmitted = waiting(c);
    const dAdmitted = waiting(d);
    void cAdmitted.then(() => order.push('c'));
    void dAdmitted.then(() => order.push('d'));
    await Promise.resolve();
    assert.deepEqual(order, []); // both still wait
    a.release();
    a.release(); // a second release frees nothing more
    await cAdmitted;
    assert.deepEqual(order, ['c']);
    assert.equal(q.activeCount, 2);
    assert.equal(q.waitingCount, 1);
    b.release();
    await dAdmitted;
    assert.deepEqual(order, ['c', 'd']);
    c.release();
    d.release();
    assert.equal(q.activeCount, 0);
    const e = q.enter();
    assert.equal(e.admitted, null);
    assert.equal(q.activeCount, 1);
    e.release();
  });

  it('a waiter that leaves frees its place in the queue without taking a slot', async () => {
    const q = new AdmissionQueue(1, 1, 60_000);
    const a = q.enter();
    const b = q.enter();
    assert.throws(() => q.enter(), QueueFull);
    b.release();
    assert.equal(q.waitingCount, 0);
    const c = q.enter();
    a.release();
    await waiting(c);
    assert.equal(q.activeCount, 1);
    c.release();
    assert.equal(q.activeCount, 0);
  });

  it('a waiter not admitted within the wait limit is refused and leaves the queue', async () => {
    const q = new AdmissionQueue(1, 1, 20);
    const a = q.enter();
    const b = q.enter();
    await assert.rejects(waiting(b), QueueTimeout);
    assert.equal(q.waitingCount, 0);
    a.release();
    assert.equal(q.activeCount, 0);
    b.release(); // after the timeout: nothing to free
    assert.equal(q.activeCount, 0);
  });
});
