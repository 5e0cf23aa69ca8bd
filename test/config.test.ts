// Configuration: the reliability settings' defaults, overrides and refusals.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, MIN_DISK_RESERVE_BYTES } from '../src/config.js';

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

  it('refuse a disk reserve too small to keep deletes working on a full volume; 0 turns it off', () => {
    // 2 MiB was accepted, and on a full volume a checkpoint took the freed space: deletes failed with 507.
    assert.throws(
      () => loadConfig({ CONIFER_DISK_RESERVE_BYTES: String(2 * 1024 * 1024) }),
      (err: unknown) => err instanceof ConfigError && /CONIFER_DISK_RESERVE_BYTES .* must be 0 \(no reserve\) or at least 9437184/.test(err.message),
    );
    assert.equal(loadConfig({ CONIFER_DISK_RESERVE_BYTES: '0' }).diskReserveBytes, 0);
    assert.equal(loadConfig({ CONIFER_DISK_RESERVE_BYTES: String(MIN_DISK_RESERVE_BYTES) }).diskReserveBytes, MIN_DISK_RESERVE_BYTES);
  });
});

describe('values Node itself would refuse or misread', () => {
  it('refuse a port over 65535, timers past 2^31 - 1 ms, an unknown log level and no serverless region, naming the setting', () => {
    assert.throws(() => loadConfig({ CONIFER_PORT: '70000' }), /CONIFER_PORT \(--port\) must be an integer from 0 to 65535, got "70000"/);
    assert.throws(() => loadConfig({ CONIFER_KEEP_ALIVE_TIMEOUT_MS: '9999999999999' }), /CONIFER_KEEP_ALIVE_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ CONIFER_HEADERS_TIMEOUT_MS: '9999999999', CONIFER_REQUEST_TIMEOUT_MS: '9999999999999' }), /CONIFER_HEADERS_TIMEOUT_MS/);
    assert.throws(() => loadConfig({ CONIFER_LOG_LEVEL: 'bogus' }), /CONIFER_LOG_LEVEL \(--log-level\) must be one of fatal, error, warn, info, debug, trace, silent, got "bogus"/);
    assert.throws(() => loadConfig({ CONIFER_SERVERLESS_REGIONS: ',' }), /CONIFER_SERVERLESS_REGIONS needs at least one cloud:region/);
    assert.equal(loadConfig({ CONIFER_LOG_LEVEL: 'debug' }).logLevel, 'debug');
    assert.equal(loadConfig({ CONIFER_PORT: '65535' }).port, 65535);
  });

  it('read integers as decimal digits only: hex, exponents and spaces are refused, not read by Number()', () => {
    for (const raw of ['0x1BA9', '1e3', ' 7', '7.0', '']) {
      if (raw === '') assert.equal(loadConfig({ CONIFER_PORT: raw }).port, 5080, 'empty means unset');
      else assert.throws(() => loadConfig({ CONIFER_PORT: raw }), /CONIFER_PORT/, raw);
    }
    assert.equal(loadConfig({ CONIFER_PORT: '7081' }).port, 7081);
  });
});

describe('background nice', () => {
  it('defaults to 10, is read from the environment or flag, and accepts only 0-19', () => {
    assert.equal(loadConfig({}).backgroundNice, 10);
    assert.equal(loadConfig({ CONIFER_BACKGROUND_NICE: '0' }).backgroundNice, 0);
    assert.equal(loadConfig({ CONIFER_BACKGROUND_NICE: '3' }, { 'background-nice': '19' }).backgroundNice, 19);
    for (const bad of ['20', '-1', '2.5']) {
      assert.throws(
        () => loadConfig({ CONIFER_BACKGROUND_NICE: bad }),
        (err: unknown) => err instanceof ConfigError && err.message === `CONIFER_BACKGROUND_NICE (--background-nice) must be an integer from 0 to 19, got "${bad}"`,
        bad,
      );
    }
  });
});

describe('engine workers setting', () => {
  it('defaults to the number of cores, and is read from the environment or --engine-workers', async () => {
    const { availableParallelism } = await import('node:os');
    assert.equal(loadConfig({}).engineWorkers, Math.min(64, availableParallelism()));
    assert.equal(loadConfig({ CONIFER_ENGINE_WORKERS: '3' }).engineWorkers, 3);
    assert.equal(loadConfig({ CONIFER_ENGINE_WORKERS: '3' }, { 'engine-workers': '5' }).engineWorkers, 5);
  });

  it('refuses 0, more than 64 and non-integers, naming the setting and the range', () => {
    for (const bad of ['0', '65', '1.5', 'two']) {
      assert.throws(
        () => loadConfig({ CONIFER_ENGINE_WORKERS: bad }),
        (err: unknown) => err instanceof ConfigError && /CONIFER_ENGINE_WORKERS \(--engine-workers\) must be an integer from 1 to 64/.test(err.message),
        bad,
      );
    }
  });
});

describe('insert threads setting', () => {
  it('defaults to the number of cores up to 4, and is read from the environment or --insert-threads', async () => {
    const { availableParallelism } = await import('node:os');
    assert.equal(loadConfig({}).insertThreads, Math.min(4, availableParallelism()));
    assert.equal(loadConfig({ CONIFER_INSERT_THREADS: '1' }).insertThreads, 1);
    assert.equal(loadConfig({ CONIFER_INSERT_THREADS: '1' }, { 'insert-threads': '8' }).insertThreads, 8);
  });

  it('refuses 0, more than 64 and non-integers, naming the setting and the range', () => {
    for (const bad of ['0', '65', '1.5', 'two']) {
      assert.throws(
        () => loadConfig({ CONIFER_INSERT_THREADS: bad }),
        (err: unknown) => err instanceof ConfigError && /CONIFER_INSERT_THREADS \(--insert-threads\) must be an integer from 1 to 64/.test(err.message),
        bad,
      );
    }
  });
});

describe('query threads setting', () => {
  it('defaults to one per core beyond the first, at least 1 and at most 8, and is read from the environment or --query-threads', async () => {
    const { availableParallelism } = await import('node:os');
    assert.equal(loadConfig({}).queryThreads, Math.max(1, Math.min(8, availableParallelism() - 1)));
    assert.equal(loadConfig({ CONIFER_QUERY_THREADS: '3' }).queryThreads, 3);
    assert.equal(loadConfig({ CONIFER_QUERY_THREADS: '3' }, { 'query-threads': '2' }).queryThreads, 2);
  });

  it('refuses 0, more than 64 and non-integers, naming the setting and the range', () => {
    for (const bad of ['0', '65', '2.5', 'many']) {
      assert.throws(
        () => loadConfig({ CONIFER_QUERY_THREADS: bad }),
        (err: unknown) => err instanceof ConfigError && /CONIFER_QUERY_THREADS \(--query-threads\) must be an integer from 1 to 64/.test(err.message),
        bad,
      );
    }
  });
});
