// Limits from the service interface and from Pinecone, in one place. The transport and
// response limits are defaults that configuration can raise (src/config.ts).

export const NAME_MAX_LENGTH = 45;
/** Index, collection and backup names: lower-case alphanumerics and '-', alphanumeric at both ends. */
export const NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

export const DIMENSION_MIN = 1;
export const DIMENSION_MAX = 20_000;

export const TAG_KEY_MAX_LENGTH = 80;
export const TAG_VALUE_MAX_LENGTH = 120;
/** Pinecone: tag keys are alphanumerics, '_' and '-'; values also allow `; @ . +` and space. */
export const TAG_KEY_PATTERN = /^[A-Za-z0-9_-]+$/;
export const TAG_VALUE_PATTERN = /^[A-Za-z0-9;@_\-.+ ]*$/;
/** API 2026-07: tag values may be any printable ASCII, and an index has at most 20 tags. */
export const TAG_VALUE_PATTERN_2607 = /^[\x20-\x7e]*$/;
export const TAGS_MAX_2607 = 20;

export const POD_FAMILIES = ['s1', 'p1', 'p2'] as const;
export const POD_SIZES = ['x1', 'x2', 'x4', 'x8'] as const;

/** Transport (DESIGN.md decision 13). */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;
export const MAX_PARAM_LENGTH = 1600;
export const MAX_HEADER_BYTES = 1024 * 1024;
export const DEFAULT_RESPONSE_CAP_BYTES = 4 * 1024 * 1024;
/**
 * An answer given before the body was read (413, 401, 404) waits until the rest of the body
 * has been read and discarded, so the client sees the answer instead of a closed socket: up
 * to DRAIN_MAX_BYTES more, while bytes keep coming (at most DRAIN_IDLE_MS between two
 * chunks) and for at most DRAIN_MAX_MS in all. Past any bound the answer goes out and the
 * connection is closed (src/server/body-drain.ts).
 */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_IDLE_MS = 10_000;
export const DRAIN_MAX_MS = 120_000;

/**
 * Slow and idle clients (issue 11). Headers arrive in one packet from any real client, so
 * 10 s is generous; a whole request may take 2 minutes, enough for a 2 MiB body at about
 * 140 kbit/s; an idle keep-alive connection stays 30 s (clients' pools reuse within
 * seconds). 512 connections is far beyond what one process serves usefully at once, and
 * far below a typical file-descriptor limit.
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_CONNECTIONS = 512;

/**
 * Full volume (issue 11, catalog/disk-space.ts): new data is refused below 64 MiB free,
 * which leaves room for deletes, WAL checkpoints and the catalog; the 16 MiB reserve file
 * is what a restart and deletes fall back on when something else fills the headroom.
 */
export const DEFAULT_MIN_FREE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_DISK_RESERVE_BYTES = 16 * 1024 * 1024;

/**
 * Overload (issue 11). Data-plane requests are admitted per kind: a bounded number run at
 * once and a bounded number wait (in onRequest, before their body is read); beyond that
 * the answer is 429 at once. A 2 MB upsert in flight holds ~2.7 MiB of heap once parsed
 * (body string + parsed JSON, measured for 100- and 1536-dimension batches), plus the
 * float32 records built from it, so 16 writes in flight hold some 50-100 MiB at most; a
 * waiting request has not been read, so it holds only its socket's read buffer (<= 64 KiB)
 * and 256 waiting cost <= 16 MiB. Reads carry small bodies and wait on the engine worker.
 */
export const DEFAULT_MAX_INFLIGHT_WRITES = 16;
export const DEFAULT_MAX_QUEUED_WRITES = 256;
export const DEFAULT_MAX_INFLIGHT_READS = 64;
export const DEFAULT_MAX_QUEUED_READS = 1024;
/** A queued request not admitted within this time gets 429 rather than waiting on. */
export const ADMISSION_WAIT_MAX_MS = 10_000;
/** Seconds a refused client is told to wait (Retry-After). */
export const OVERLOAD_RETRY_AFTER_S = 1;

/** Project quotas: finite by default, raised by configuration. */
export const DEFAULT_QUOTA_SERVERLESS_INDEXES = 100;
export const DEFAULT_QUOTA_PODS = 100;
export const DEFAULT_QUOTA_COLLECTIONS = 100;
export const DEFAULT_QUOTA_BACKUPS = 500;

/** Backup and restore-job list pages (the interface: 1-100, default 10). */
export const BACKUP_PAGE_DEFAULT = 10;
export const BACKUP_PAGE_MAX = 100;

/** Data plane (Pinecone's limits, pinecone-wire.md §5). */
export const VECTOR_ID_MAX_LENGTH = 512;
export const NAMESPACE_MAX_LENGTH = 512;
export const METADATA_MAX_BYTES = 40_960;
export const SPARSE_MAX_ENTRIES = 2048;
export const UPSERT_MAX_VECTORS = 1000;
/** The 2 MB upsert rule (decimal, as Pinecone states it); the transport allows 2 MiB. */
export const UPSERT_MAX_BYTES = 2_000_000;
export const FETCH_MAX_IDS = 1000;
export const DELETE_MAX_IDS = 1000;
export const TOP_K_MAX = 10_000;
/** Pinecone's maxCandidates: topK..100,000 candidates for the graph walk (its ef). */
export const MAX_CANDIDATES_MAX = 100_000;
export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 100;
export const FETCH_BY_METADATA_LIMIT_MAX = 10_000;
export const FETCH_BY_METADATA_LIMIT_DEFAULT = 100;
/** GET /bulk/imports `limit` (Pinecone: 1-100, default 100). */
export const IMPORT_LIST_LIMIT_MAX = 100;
export const IMPORT_LIST_LIMIT_DEFAULT = 100;

/**
 * Records one pod holds, per base pod type at size x1 (Pinecone's published guidance for
 * 768-dimension vectors); x2/x4/x8 double each step. Used for indexFullness and to refuse
 * writes to a full pod index.
 */
export const POD_CAPACITY_X1: Record<string, number> = { s1: 5_000_000, p1: 1_000_000, p2: 1_100_000 };
