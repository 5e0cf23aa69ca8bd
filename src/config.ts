// Configuration by environment, overridden by matching CLI flags (`--data-dir` for
// CONIFER_DATA_DIR and so on). Read once at start; everything downstream receives a Config.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DEFAULT_QUOTA_BACKUPS,
  DEFAULT_QUOTA_COLLECTIONS,
  DEFAULT_QUOTA_PODS,
  DEFAULT_QUOTA_SERVERLESS_INDEXES,
  DEFAULT_MAX_INFLIGHT_READS,
  DEFAULT_MAX_INFLIGHT_WRITES,
  DEFAULT_MAX_QUEUED_READS,
  DEFAULT_MAX_QUEUED_WRITES,
  DEFAULT_RESPONSE_CAP_BYTES,
  DEFAULT_MIN_FREE_BYTES,
  DEFAULT_DISK_RESERVE_BYTES,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
} from './limits.js';

/** Nice steps the writer thread and the engine worker run below the HTTP thread (thread-priority.ts). */
const DEFAULT_BACKGROUND_NICE = 10;


export interface CloudRegion {
  cloud: string;
  region: string;
}

export type LogFormat = 'json' | 'pretty';
export type MetricsAuth = 'none' | 'key';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Advertised base address of the data plane; when unset, taken from each request's Host. */
  publicUrl?: string;
  /** Key of the default project on first start; random when unset. */
  apiKey?: string;
  logLevel: string;
  /** `json` (one pino JSON object per line) or `pretty` (pino-pretty, for humans). */
  logFormat: LogFormat;
  /** Who may read GET /metrics: `none` (anyone) or `key` (any valid API key of any project). */
  metricsAuth: MetricsAuth;
  serverlessRegions: CloudRegion[];
  podEnvironments: string[];
  quotaServerlessIndexes: number;
  quotaPods: number;
  quotaCollections: number;
  quotaBackups: number;
  responseCapBytes: number;
  /** How long a configure change shows its transitional state (ScalingUp…) before Ready. */
  scalingDelayMs: number;
  /** Writes that grow storage are refused (507) while less than this is free on the data volume. */
  minFreeBytes: number;
  /** Size of the disk reserve file released when the volume fills up; 0 disables it. */
  diskReserveBytes: number;
  /** A client must send its request headers within this time (slowloris). */
  headersTimeoutMs: number;
  /** A client must send its whole request (headers and body) within this time. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** Connections beyond this many are closed at once. */
  maxConnections: number;
  /** Data-plane writes running at once / waiting beyond that before 429 (src/server/overload.ts). */
  maxInflightWrites: number;
  maxQueuedWrites: number;
  /** Data-plane reads (query, fetch, list, stats) running at once / waiting before 429. */
  maxInflightReads: number;
  maxQueuedReads: number;
  /** The most engine worker threads; every index is owned by one of them (src/engine/engine-client.ts). */
  engineWorkers: number;
  /** Native threads each graph insert batch is shared over (src/engine/graph/hnsw-graph.ts). */
  insertThreads: number;
  /** Threads the graph walks and sparse-only searches of a batch of queries are shared over (src/engine/worker/engine-worker.ts "Query batches"). */
  queryThreads: number;
  /**
   * How much lower (in nice steps, 0-19; 0 = the same) the writer thread and the engine
   * worker run than the HTTP thread (src/engine/thread-priority.ts; Linux only).
   */
  backgroundNice: number;
  /**
   * Local development mode (like Pinecone Local): any Api-Key value is accepted as the
   * default project's key. Only allowed on a loopback address.
   */
  dev: boolean;
  /** The data directory is a fresh temporary one, removed at exit (dev mode without a data dir). */
  ephemeralDataDir: boolean;
  /**
   * The only directory bulk imports may read (its real path, symlinks resolved). Unset:
   * imports are refused, so an API key can never make the server read its own files.
   */
  importRoot?: string;
}

const DEFAULT_REGIONS =
  'aws:us-east-1,aws:us-west-2,aws:eu-west-1,gcp:us-central1,gcp:europe-west4,azure:eastus2';
const DEFAULT_POD_ENVIRONMENTS = [
  'us-west1-gcp',
  'us-central1-gcp',
  'us-west4-gcp',
  'us-east4-gcp',
  'northamerica-northeast1-gcp',
  'asia-northeast1-gcp',
  'asia-southeast1-gcp',
  'us-east1-gcp',
  'eu-west1-gcp',
  'eu-west4-gcp',
  'us-east-1-aws',
  'eastus-azure',
].join(',');

/** Every setting: its environment variable and its CLI flag. */
export const SETTINGS = {
  host: ['CONIFER_HOST', 'host'],
  port: ['CONIFER_PORT', 'port'],
  dataDir: ['CONIFER_DATA_DIR', 'data-dir'],
  publicUrl: ['CONIFER_PUBLIC_URL', 'public-url'],
  apiKey: ['CONIFER_API_KEY', 'api-key'],
  logLevel: ['CONIFER_LOG_LEVEL', 'log-level'],
  logFormat: ['CONIFER_LOG_FORMAT', 'log-format'],
  metricsAuth: ['CONIFER_METRICS_AUTH', 'metrics-auth'],
  serverlessRegions: ['CONIFER_SERVERLESS_REGIONS', 'serverless-regions'],
  podEnvironments: ['CONIFER_POD_ENVIRONMENTS', 'pod-environments'],
  quotaServerlessIndexes: ['CONIFER_QUOTA_SERVERLESS_INDEXES', 'quota-serverless-indexes'],
  quotaPods: ['CONIFER_QUOTA_PODS', 'quota-pods'],
  quotaCollections: ['CONIFER_QUOTA_COLLECTIONS', 'quota-collections'],
  quotaBackups: ['CONIFER_QUOTA_BACKUPS', 'quota-backups'],
  responseCapBytes: ['CONIFER_MAX_RESPONSE_BYTES', 'max-response-bytes'],
  scalingDelayMs: ['CONIFER_SCALING_DELAY_MS', 'scaling-delay-ms'],
  minFreeBytes: ['CONIFER_MIN_FREE_BYTES', 'min-free-bytes'],
  diskReserveBytes: ['CONIFER_DISK_RESERVE_BYTES', 'disk-reserve-bytes'],
  headersTimeoutMs: ['CONIFER_HEADERS_TIMEOUT_MS', 'headers-timeout-ms'],
  requestTimeoutMs: ['CONIFER_REQUEST_TIMEOUT_MS', 'request-timeout-ms'],
  keepAliveTimeoutMs: ['CONIFER_KEEP_ALIVE_TIMEOUT_MS', 'keep-alive-timeout-ms'],
  maxConnections: ['CONIFER_MAX_CONNECTIONS', 'max-connections'],
  maxInflightWrites: ['CONIFER_MAX_INFLIGHT_WRITES', 'max-inflight-writes'],
  maxQueuedWrites: ['CONIFER_MAX_QUEUED_WRITES', 'max-queued-writes'],
  maxInflightReads: ['CONIFER_MAX_INFLIGHT_READS', 'max-inflight-reads'],
  maxQueuedReads: ['CONIFER_MAX_QUEUED_READS', 'max-queued-reads'],
  backgroundNice: ['CONIFER_BACKGROUND_NICE', 'background-nice'],
  engineWorkers: ['CONIFER_ENGINE_WORKERS', 'engine-workers'],
  insertThreads: ['CONIFER_INSERT_THREADS', 'insert-threads'],
  queryThreads: ['CONIFER_QUERY_THREADS', 'query-threads'],
  dev: ['CONIFER_DEV', 'dev'],
  importRoot: ['CONIFER_IMPORT_ROOT', 'import-root'],
} as const satisfies Record<Exclude<keyof Config, 'ephemeralDataDir'>, readonly [string, string]>;

/** Settings that are switches: `--dev` takes no value; the variable is 1/true or 0/false. */
export const BOOLEAN_SETTINGS: ReadonlySet<keyof typeof SETTINGS> = new Set(['dev']);

export class ConfigError extends Error {}

export function loadConfig(
  env: NodeJS.ProcessEnv,
  flags: Record<string, string | undefined> = {},
): Config {
  const get = (key: keyof typeof SETTINGS): string | undefined => {
    const [envName, flag] = SETTINGS[key];
    const value = flags[flag] ?? env[envName];
    return value === undefined || value === '' ? undefined : value;
  };
  const int = (key: keyof typeof SETTINGS, fallback: number, min: number, max?: number): number => {
    const raw = get(key);
    if (raw === undefined) return fallback;
    // Decimal digits only: Number() would also read "0x1BA9", "1e3" and " 7 ".
    const n = /^-?[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(n) || n < min || (max !== undefined && n > max)) {
      const [envName, flag] = SETTINGS[key];
      const allowed = max === undefined ? `>= ${min}` : `from ${min} to ${max}`;
      throw new ConfigError(`${envName} (--${flag}) must be an integer ${allowed}, got ${JSON.stringify(raw)}`);
    }
    return n;
  };
  const oneOf = <T extends string>(key: keyof typeof SETTINGS, allowed: readonly T[], fallback: T): T => {
    const raw = get(key);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      const [envName, flag] = SETTINGS[key];
      throw new ConfigError(`${envName} (--${flag}) must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
    }
    return raw as T;
  };
  const publicUrl = get('publicUrl');
  if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) {
    throw new ConfigError(
      `CONIFER_PUBLIC_URL (--public-url) must start with http:// or https:// and name a host, got ${JSON.stringify(publicUrl)}`,
    );
  }
  const headersTimeoutMs = int('headersTimeoutMs', DEFAULT_HEADERS_TIMEOUT_MS, 100, MAX_TIMER_MS);
  const requestTimeoutMs = int('requestTimeoutMs', DEFAULT_REQUEST_TIMEOUT_MS, 100, MAX_TIMER_MS);
  if (headersTimeoutMs > requestTimeoutMs) {
    // The headers are part of the request: Node refuses a header timeout beyond the request's.
    throw new ConfigError(
      `CONIFER_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed CONIFER_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  const host = get('host') ?? '127.0.0.1';
  const dev = bool(get('dev'), 'dev');
  if (dev && !isLoopback(host)) {
    throw new ConfigError(
      `development mode (CONIFER_DEV, --dev) accepts any API key, so it only binds to a loopback address ` +
        `(127.0.0.1, ::1 or localhost); CONIFER_HOST (--host) is ${JSON.stringify(host)}`,
    );
  }
  const dataDir = get('dataDir');
  // Dev mode without a data directory runs on a throw-away one, like Pinecone Local.
  const ephemeralDataDir = dev && dataDir === undefined;
  return {
    host,
    port: int('port', 5080, 0, 65535),
    dataDir: ephemeralDataDir
      ? join(tmpdir(), `conifer-dev-${randomBytes(6).toString('hex')}`)
      : resolve(dataDir ?? './conifer-data'),
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    apiKey: get('apiKey'),
    logLevel: oneOf('logLevel', LOG_LEVELS, 'info'),
    logFormat: oneOf<LogFormat>('logFormat', ['json', 'pretty'], 'json'),
    metricsAuth: oneOf<MetricsAuth>('metricsAuth', ['none', 'key'], 'none'),
    serverlessRegions: parseRegions(get('serverlessRegions') ?? DEFAULT_REGIONS),
    podEnvironments: splitList(get('podEnvironments') ?? DEFAULT_POD_ENVIRONMENTS),
    quotaServerlessIndexes: int('quotaServerlessIndexes', DEFAULT_QUOTA_SERVERLESS_INDEXES, 0),
    quotaPods: int('quotaPods', DEFAULT_QUOTA_PODS, 0),
    quotaCollections: int('quotaCollections', DEFAULT_QUOTA_COLLECTIONS, 0),
    quotaBackups: int('quotaBackups', DEFAULT_QUOTA_BACKUPS, 0),
    responseCapBytes: int('responseCapBytes', DEFAULT_RESPONSE_CAP_BYTES, 1024),
    scalingDelayMs: int('scalingDelayMs', 0, 0),
    minFreeBytes: int('minFreeBytes', DEFAULT_MIN_FREE_BYTES, 0),
    diskReserveBytes: diskReserve(int('diskReserveBytes', DEFAULT_DISK_RESERVE_BYTES, 0)),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: int('keepAliveTimeoutMs', DEFAULT_KEEP_ALIVE_TIMEOUT_MS, 100, MAX_TIMER_MS),
    maxConnections: int('maxConnections', DEFAULT_MAX_CONNECTIONS, 1),
    maxInflightWrites: int('maxInflightWrites', DEFAULT_MAX_INFLIGHT_WRITES, 1),
    maxQueuedWrites: int('maxQueuedWrites', DEFAULT_MAX_QUEUED_WRITES, 0),
    maxInflightReads: int('maxInflightReads', DEFAULT_MAX_INFLIGHT_READS, 1),
    maxQueuedReads: int('maxQueuedReads', DEFAULT_MAX_QUEUED_READS, 0),
    backgroundNice: int('backgroundNice', DEFAULT_BACKGROUND_NICE, 0, 19),
    engineWorkers: int('engineWorkers', defaultEngineWorkers(), 1, MAX_ENGINE_WORKERS),
    insertThreads: int('insertThreads', defaultInsertThreads(), 1, MAX_INSERT_THREADS),
    queryThreads: int('queryThreads', defaultQueryThreads(), 1, MAX_QUERY_THREADS),
    dev,
    ephemeralDataDir,
    importRoot: importRootOf(get('importRoot')),
  };
}

/** The longest delay a Node timer takes (2^31 - 1 ms, ~24.8 days); Node cuts longer ones short. */
const MAX_TIMER_MS = 2_147_483_647;
/** pino's levels (a name outside them made pino throw at start). */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/**
 * The smallest reserve that does its job (catalog/disk-space.ts): more than a record
 * store's checkpoint can add to its file (8 MiB with 8 KiB pages), or deletes on a full
 * volume can fail after all. 0 turns the reserve off.
 */
export const MIN_DISK_RESERVE_BYTES = 8 * 1024 * 1024 + 1024 * 1024;

function diskReserve(bytes: number): number {
  if (bytes !== 0 && bytes < MIN_DISK_RESERVE_BYTES) {
    throw new ConfigError(
      `CONIFER_DISK_RESERVE_BYTES (--disk-reserve-bytes) must be 0 (no reserve) or at least ${MIN_DISK_RESERVE_BYTES} ` +
        `(9 MiB: more than a store's checkpoint can add, or deletes on a full volume may fail), got ${bytes}`,
    );
  }
  return bytes;
}

const MAX_ENGINE_WORKERS = 64;
/** The binding's limit (native/hnsw-index.cc addPoints). */
const MAX_INSERT_THREADS = 64;
const MAX_QUERY_THREADS = 64;

/**
 * One per core beyond the first, at most 8. The HTTP thread needs a core of its own, and
 * the engine worker's thread is one of the query threads; on 2 cores both are already
 * busy at concurrency 8 (the medium benchmark's server threads used ~1.5 cores at ~2,100
 * queries/s), so a second query thread there would only take turns with them. 1 answers
 * each query on the worker's own thread, as before query batches existed.
 */
function defaultQueryThreads(): number {
  return Math.max(1, Math.min(8, availableParallelism() - 1));
}

/**
 * One per core, at most 4. Measured (`node dist/bench/ingest-health.js --dim 384 --digits
 * full --vectors 40000`, 2 cores): 2 threads put every record in a graph in 20.5 s from the
 * ingest's start against 34.1 s with 1, at the same ingest rate; in process, 20k × 384
 * built 1.9× faster on 2. The cap keeps several busy workers on a large machine from
 * each taking every core; the threads run at the worker's (lower) priority.
 */
function defaultInsertThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/**
 * One per core: workers start only when there are more indexes than running workers
 * (src/engine/engine-client.ts), so a server with few indexes runs few, and indexes that
 * are busy at once (queries, graph inserts, loads at start) each get a core.
 */
function defaultEngineWorkers(): number {
  return Math.max(1, Math.min(MAX_ENGINE_WORKERS, availableParallelism()));
}

function bool(raw: string | undefined, key: keyof typeof SETTINGS): boolean {
  if (raw === undefined) return false;
  if (raw === '1' || raw === 'true') return true;
  if (raw === '0' || raw === 'false') return false;
  const [envName, flag] = SETTINGS[key];
  throw new ConfigError(`${envName} (--${flag}) must be 1, true, 0 or false, got ${JSON.stringify(raw)}`);
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '[::1]';
}

/** The import root as a real path; it must be an existing directory. */
function importRootOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let real: string;
  try {
    real = realpathSync(resolve(raw));
  } catch {
    throw new ConfigError(`CONIFER_IMPORT_ROOT (--import-root) must be an existing directory, got ${JSON.stringify(raw)}`);
  }
  if (!statSync(real).isDirectory()) {
    throw new ConfigError(`CONIFER_IMPORT_ROOT (--import-root) must be a directory, got ${JSON.stringify(raw)}`);
  }
  return real;
}

function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function parseRegions(raw: string): CloudRegion[] {
  const pairs = splitList(raw);
  // None would make every serverless create a 404.
  if (pairs.length === 0) throw new ConfigError(`CONIFER_SERVERLESS_REGIONS needs at least one cloud:region, got ${JSON.stringify(raw)}`);
  return pairs.map((pair) => {
    const [cloud, region, extra] = pair.split(':');
    if (!cloud || !region || extra !== undefined) {
      throw new ConfigError(`CONIFER_SERVERLESS_REGIONS entries are cloud:region, got ${JSON.stringify(pair)}`);
    }
    return { cloud, region };
  });
}
