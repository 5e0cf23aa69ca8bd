// The process's one logger: everything `conifer start` prints goes through it, as one
// pino JSON object per line (`CONIFER_LOG_FORMAT=json`, the default, for log shippers)
// or through pino-pretty (`pretty`, for a human at a terminal). Both write synchronously
// to stdout, so the lines written just before process.exit are not lost.
import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type PinoPrettyModule from 'pino-pretty';
import type { LogFormat } from './config.js';

// pino-pretty (~45 ms to load) is loaded only when `pretty` is asked for: the default,
// JSON, never needs it, and every start waits for what it loads. A require, not an
// import(), so createLogger stays synchronous.
const require = createRequire(import.meta.url);

/**
 * Fields that hold an API key wherever they appear (one level deep, and request headers).
 * Nothing logs a key on purpose; this is the net under any object someone logs later.
 */
export const REDACTED_PATHS = [
  'apiKey',
  'key',
  'secret',
  '*.apiKey',
  '*.key',
  '*.secret',
  'headers["api-key"]',
  '*.headers["api-key"]',
  'req.headers["api-key"]',
  'headers.authorization',
  '*.headers.authorization',
];

export function createLogger(level: string, format: LogFormat): Logger {
  const options = {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  if (format === 'pretty') {
    const PinoPretty = require('pino-pretty') as typeof PinoPrettyModule;
    return pino(options, PinoPretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  }
  return pino(options);
}
