import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { RestartBackoff } from '../../src/engine/restart-backoff.js';

const realNow = Date.now;
let now = 1_000_000;
afterEach(() => {
  Date.now = realNow;
});

test('restart delays double from 100 ms up to 30 s, and reset after a thread stayed up a minute', () => {
  Date.now = () => now;
  const backoff = new RestartBackoff();
  const delays = Array.from({ length: 12 }, () => backoff.next());
  assert.deepEqual(delays, [100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  backoff.started();
  now += 59_000;
  assert.equal(backoff.next(), 30_000, 'a thread that died within a minute keeps the long delay');
  backoff.started();
  now += 61_000;
  assert.equal(backoff.next(), 100, 'a thread that stayed up over a minute resets the back-off');
  backoff.started(); // its replacement dies at once
  assert.equal(backoff.next(), 200);
});
