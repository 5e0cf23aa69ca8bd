// Configuration by environment, overridden by matching CLI flags (`--data-dir` for
// CONIFER_DATA_DIR and so on). Read once at start; everything downstream receives a Config.
import { resolve } from 'node:path';
import {
  DEFAULT_QUOTA_BACKUPS,
  DEFAULT_QUOTA_COLLECTIONS,
  DEFAULT_QUOTA_PODS,
  DEFAULT_QUOTA_SERVERLESS_INDEXES,
  DEFAULT_RESPONSE_CAP_BYTES,
} from './limits.js';

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
} as const satisfies Record<keyof Config, readonly [string, string]>;

export class ConfigError extends Error {}

export function loadConfig(
  env: NodeJS.ProcessEnv,
  flags: Record<string, string | undefined> = {},
): Config {
  const get = (key: keyof Config): string | undefined => {
    const [envName, flag] = SETTINGS[key];
    const value = flags[flag] ?? env[envName];
    return value === undefined || value === '' ? undefined : value;
  };
  const int = (key: keyof Config, fallback: number, min: number): number => {
    const raw = get(key);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) {
      const [envName, flag] = SETTINGS[key];
      throw new ConfigError(`${envName} (--${flag}) must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
    }
    return n;
  };
  const oneOf = <T extends string>(key: keyof Config, allowed: readonly T[], fallback: T): T => {
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
  return {
    host: get('host') ?? '127.0.0.1',
    port: int('port', 5080, 0),
    dataDir: resolve(get('dataDir') ?? './conifer-data'),
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    apiKey: get('apiKey'),
    logLevel: get('logLevel') ?? 'info',
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
  };
}

function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function parseRegions(raw: string): CloudRegion[] {
  return splitList(raw).map((pair) => {
    const [cloud, region, extra] = pair.split(':');
    if (!cloud || !region || extra !== undefined) {
      throw new ConfigError(`CONIFER_SERVERLESS_REGIONS entries are cloud:region, got ${JSON.stringify(pair)}`);
    }
    return { cloud, region };
  });
}
