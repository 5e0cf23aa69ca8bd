// The process's Prometheus metrics, in one registry (one server per process). Every
// layer records into the metric objects below; `GET /metrics` serializes the registry.
// Names are fixed here so the HTTP layer, the engine client, the services and the
// console agree on them. Gauges that mirror state elsewhere (records per index, disk
// bytes) are filled by `collect` callbacks registered by their owner, never kept twice.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
// Process figures under their standard names: process_resident_memory_bytes,
// nodejs_eventloop_lag_seconds, nodejs_heap_size_used_bytes, …
collectDefaultMetrics({ register: registry });

/** Seconds; spans a sub-millisecond query to a multi-second bulk write. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new Counter({
  name: 'conifer_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'conifer_http_request_duration_seconds',
  help: 'Time from request received to response sent, by method, route pattern and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const engineQueryDuration = new Histogram({
  name: 'conifer_engine_query_duration_seconds',
  help: 'Time the engine took to answer a query, measured around the worker round trip.',
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const engineQueueDepth = new Gauge({
  name: 'conifer_engine_queue_depth',
  help: 'Engine requests posted to a worker and not yet answered.',
  registers: [registry],
});

export const engineUnindexedRecords = new Gauge({
  name: 'conifer_engine_unindexed_records',
  help: 'Acknowledged records not yet in a graph (not yet applied, or searched exactly meanwhile), by index.',
  labelNames: ['index'] as const,
  registers: [registry],
});

export const engineWorkerRestarts = new Counter({
  name: 'conifer_engine_worker_restarts_total',
  help: 'Times an engine worker died and was restarted.',
  registers: [registry],
});

export const openIndexes = new Gauge({
  name: 'conifer_open_indexes',
  help: 'Indexes whose record store and search structures are open.',
  registers: [registry],
});

export const indexRecords = new Gauge({
  name: 'conifer_index_records',
  help: 'Records stored, by index.',
  labelNames: ['index'] as const,
  registers: [registry],
});

export const indexNamespaces = new Gauge({
  name: 'conifer_index_namespaces',
  help: 'Namespaces holding records, by index.',
  labelNames: ['index'] as const,
  registers: [registry],
});

export const indexDiskBytes = new Gauge({
  name: 'conifer_index_disk_bytes',
  help: 'Bytes on disk of the index directory (record store and snapshots), by index.',
  labelNames: ['index'] as const,
  registers: [registry],
});

export const rejectedRequests = new Counter({
  name: 'conifer_rejected_requests_total',
  help: 'Requests refused before any work: overload (429), disk full (507), by reason.',
  labelNames: ['reason'] as const,
  registers: [registry],
});
