// Configuration: the reliability settings' defaults, overrides and refusals.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

describe('reliability settings', () => {
  it('default to the documented values', () => {
    const c = loadConfig({});
    assert.equal(c.minFreeBytes, 64 * 1024 * 1024);
    assert.equal(c.diskReserveBytes, 16 * 1024 * 1024);
    assert.equal(c.headersTimeoutMs, 10_000);
    assert.equal(c.requestTimeoutMs, 120_000);
    assert.equal(c.keepAliveTimeoutMs, 30_000);
    assert.equal(c.maxConnections, 512);
  });

  it('are read from the environment and overridden by flags', () => {
    const c = loadConfig(
      { CONIFER_MIN_FREE_BYTES: '0', CONIFER_MAX_CONNECTIONS: '10', CONIFER_HEADERS_TIMEOUT_MS: '2000' },
      { 'max-connections': '20', 'request-timeout-ms': '3000' },
    );
    assert.equal(c.minFreeBytes, 0);
    assert.equal(c.maxConnections, 20);
    assert.equal(c.headersTimeoutMs, 2000);
    assert.equal(c.requestTimeoutMs, 3000);
  });

  it('refuse a header timeout longer than the request timeout, and nonsense values', () => {
    assert.throws(
      () => loadConfig({ CONIFER_HEADERS_TIMEOUT_MS: '5000', CONIFER_REQUEST_TIMEOUT_MS: '1000' }),
      (err: unknown) => err instanceof ConfigError && /must not exceed CONIFER_REQUEST_TIMEOUT_MS/.test(err.message),
    );
    assert.throws(() => loadConfig({ CONIFER_MAX_CONNECTIONS: '0' }), /CONIFER_MAX_CONNECTIONS/);
    assert.throws(() => loadConfig({ CONIFER_MIN_FREE_BYTES: '-1' }), /CONIFER_MIN_FREE_BYTES/);
  });
});

describe('background nice', () => {
  it('defaults to 10, is read from the environment or flag, and accepts only 0-19', () => {
    assert.equal(loadConfig({}).backgroundNice, 10);
    assert.equal(loadConfig({ CONIFER_BACKGROUND_NICE: '0' }).backgroundNice, 0);
    assert.equal(loadConfig({ CONIFER_BACKGROUND_NICE: '3' }, { 'background-nice': '19' }).backgroundNice, 19);
    assert.throws(
      () => loadConfig({ CONIFER_BACKGROUND_NICE: '20' }),
      (err: unknown) => err instanceof ConfigError && err.message === 'CONIFER_BACKGROUND_NICE (--background-nice) must be an integer between 0 and 19, got 20',
    );
    assert.throws(() => loadConfig({ CONIFER_BACKGROUND_NICE: '-1' }), /CONIFER_BACKGROUND_NICE \(--background-nice\) must be an integer >= 0/);
  });
});
