import path from 'node:path';
import { z } from 'zod';
import { rateRules, type RateFamily, type RateRule } from './auth/rate-limiter';
import { sizeBytes } from './engines/duckdb/size';

/** Typed, validated configuration. Every field is read from the environment (QUARRY_*) with a default. */
export interface Config {
  /** Interface to listen on. Default 127.0.0.1: nothing is reachable from other machines unless asked. */
  host: string;
  /** TCP port. Default 8010; 0 picks a free port (tests). */
  port: number;
  /** Directory holding the metadata store (quarry.sqlite), the event store and the ingest log. Default ./data. */
  dataDir: string;
  /** pino level: fatal, error, warn, info, debug, trace or silent. Default info. */
  logLevel: string;
  /**
   * When set (at least 32 characters), the first start on an empty store uses this value as the bootstrap
   * personal API key instead of a random one, so scripts can start a fresh server with a known key.
   */
  bootstrapKey?: string;
  /** Largest accepted request body on /api and /graphql, in bytes. Default 20 MB (PostHog's limit). */
  bodyLimitBytes: number;
  /** Query timeout in milliseconds; the engine work is cancelled when it passes. Default 60,000. */
  queryTimeoutMs: number;
  /** Queries of one project running at once; more wait in a queue (PostHog: 3). Default 3. */
  queryConcurrency: number;
  /** How long an async query's status and results stay available after it ends, in ms. Default 600,000. */
  asyncResultTtlMs: number;
  /**
   * Days the query log keeps its rows (every answer, cache hits included, is one row); older rows are deleted
   * hourly. 0 keeps them forever. Default 30.
   */
  queryLogRetentionDays: number;
  /**
   * Rate limits per route family, per key and per project (burst per minute, sustained per hour). Default
   * PostHog's figures; QUARRY_RATE_LIMITS (JSON) overrides families; QUARRY_RATE_LIMIT_ENABLED=false turns
   * them off (load tests).
   */
  rateLimits: Record<RateFamily, RateRule> | null;
  /**
   * How far V8 lets the JavaScript heap grow past the memory still in use after a full garbage collection before it
   * collects again, in percent (QUARRY_HEAP_GROWTH_PERCENT; V8's `--heap-growing-percent`, applied by `serve` at
   * start). Default 100: the heap is at most about twice its live data. 0 leaves it to V8, which under a sustained
   * request load lets the heap reach several times its live data and keeps those pages (measured at 3,600 cached
   * answers/s: 228 MB committed at 0, 135 MB at 100, the same CPU per request). Consequence of a lower value: more
   * frequent full collections (more CPU per request).
   */
  heapGrowthPercent: number;
  /**
   * Whether V8 collects the young generation with helper threads (QUARRY_PARALLEL_SCAVENGE: `auto`, `on`, `off`;
   * applied by `serve` at start). `auto` (default) turns it off below 4 CPUs: there the helper threads compete with
   * the event loop and DuckDB for the cores, and the main thread waits for them (measured with 50 clients on cached
   * answers on 2 cores: scavenge time −20–40%, scavenges over 2 ms halved, endpoint runs 20.2k → 21.7k/s, p99
   * 7 → 6 ms).
   */
  parallelScavenge: 'auto' | 'on' | 'off';
  /**
   * DuckDB's memory limit (QUARRY_DUCKDB_MEMORY_LIMIT, a size such as `1GB`, at least 64 MB). Default 1GB. It bounds
   * everything DuckDB holds: query working memory (more spills to `events.duckdb.tmp`), the rows written since the
   * last checkpoint, and its cache of the file's blocks — every block it reads, and every block a checkpoint writes,
   * stays cached until this limit is reached (DuckDB's own default is 80% of RAM). So under steady capture the
   * server's RSS grows with the event data until DuckDB reaches this limit, then stays there. Consequence of a lower
   * value: less RSS, but queries whose data no longer fits re-read it from the file, and large aggregations spill.
   */
  duckdbMemoryLimit: string;
  /**
   * WAL size that makes DuckDB checkpoint (QUARRY_DUCKDB_CHECKPOINT_THRESHOLD, a size, at least 1 MB). Default 64MB.
   * Rows written since the last checkpoint (events, and the query log's one row per answer) are held in DuckDB's
   * memory uncompressed until a checkpoint writes them compressed (measured: 148 MB held, 46 MB written);
   * so the threshold bounds that part of the RSS, and the WAL replayed at the next open after a crash. Measured
   * (600,000 to 1,200,000 events appended in batches of 5,000, CPU of append + checkpoints per event): 16MB costs
   * ~50% more than 256MB (each checkpoint rewrites the table's partly filled last row group), 64MB and 128MB the same
   * as 256MB within the noise appending to the engine (an in-process capture harness measured 64MB ~20% more CPU per
   * event: the checkpoint's compression); at 256MB a 10-minute capture soak never checkpointed and held ~270 MB of rows.
   */
  duckdbCheckpointThreshold: string;
  /**
   * Bound on DuckDB's cache of table blocks (QUARRY_DUCKDB_CACHE_LIMIT, a size, at least 0). Default 32MB. The memory
   * limit bounds the cache and query working memory together, and DuckDB keeps every block it reads or a checkpoint
   * writes until that limit is reached, so without this the RSS of a server whose data grows climbs to the memory
   * limit. Every 10 s cached blocks above this size are evicted (least recently used first) while no query runs;
   * queries may still use up to the memory limit while they run. Consequence of a lower value: a query whose data no
   * longer stays cached reads it back from the file (from the OS page cache when there; measured on 10M events, a
   * fully evicted cache costs a scan 5–20% more CPU). At or above the memory limit nothing is trimmed.
   */
  duckdbCacheLimit: string;
  /**
   * Longest time rows may wait for a checkpoint, in ms (QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS, 0 to 3,600,000; 0:
   * only the WAL size triggers one). Default 60,000. Rows not yet checkpointed are held uncompressed in memory and
   * replayed from the WAL after a crash; at a low write rate the 64MB WAL threshold alone holds them for many minutes.
   * Each checkpoint costs ~0.1–0.5 s of CPU (it rewrites the tables' partly filled last row groups).
   */
  duckdbCheckpointIntervalMs: number;
  /**
   * Live personal API keys one user may hold (QUARRY_PERSONAL_API_KEYS_PER_USER, 1 to 10,000). Default 10, PostHog's
   * MAX_API_KEYS_PER_USER: creating one more is refused until a key is revoked.
   */
  personalApiKeysPerUser: number;
  /** Maximum GraphQL operation depth. Default 12. */
  graphqlMaxDepth: number;
  /** Maximum GraphQL operation cost (fields counted, lists weighted). Default 5,000. */
  graphqlMaxCost: number;
  /**
   * The ClickHouse event engine, set only when QUARRY_EVENTS_ENGINE=clickhouse. Default unset: events live in the
   * embedded DuckDB file under the data directory (QUARRY_EVENTS_ENGINE=duckdb).
   */
  clickhouse?: ClickHouseConfig;
}

/** Where the ClickHouse event engine is. Start fails with a clear error when a node does not answer. */
export interface ClickHouseConfig {
  /**
   * HTTP URL of the node queries go to (QUARRY_CLICKHOUSE_URL). Default http://127.0.0.1:8123. A comma-separated
   * list names every node of a cluster: the first gets the queries, all get the schema and deletes (ClickHouse
   * 18.16 runs ON CLUSTER DDL only through ZooKeeper, so Quarry visits each node itself).
   */
  url: string;
  /** Every node, first one first (from the same variable). */
  nodeUrls: string[];
  /** QUARRY_CLICKHOUSE_USER. Default `default`. */
  user: string;
  /** QUARRY_CLICKHOUSE_PASSWORD. Default empty. */
  password: string;
  /** QUARRY_CLICKHOUSE_DATABASE: created when missing. Default `quarry`. */
  database: string;
  /**
   * QUARRY_CLICKHOUSE_CLUSTER: a cluster from the servers' `remote_servers`. When set, tables are sharded
   * (`<table>_local` on each node behind a Distributed `<table>`). Default unset: one node, plain MergeTree tables.
   */
  cluster?: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const intFrom = (name: string, def: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return def;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be an integer between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

/** A DuckDB size setting of at least `minBytes`, passed on as written (trimmed). */
const sizeFrom = (name: string, def: string, minBytes: number, minText: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return def;
      const bytes = sizeBytes(v);
      if (bytes === null || bytes < minBytes) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a size of at least ${minText}, such as '${def}' (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)` });
        return z.NEVER;
      }
      return v.trim();
    });

const envSchema = z.object({
  QUARRY_HOST: z.string().min(1).default('127.0.0.1'),
  QUARRY_PORT: intFrom('QUARRY_PORT', 8010, 0, 65535),
  QUARRY_DATA_DIR: z.string().min(1).default('./data'),
  QUARRY_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  // empty means unset
  QUARRY_BOOTSTRAP_KEY: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .min(32, 'QUARRY_BOOTSTRAP_KEY must be at least 32 characters')
      .max(200)
      .regex(/^[A-Za-z0-9_\-]+$/, 'QUARRY_BOOTSTRAP_KEY may hold only letters, digits, _ and -')
      .optional(),
  ),
  QUARRY_BODY_LIMIT_BYTES: intFrom('QUARRY_BODY_LIMIT_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  QUARRY_QUERY_TIMEOUT_MS: intFrom('QUARRY_QUERY_TIMEOUT_MS', 60_000, 100, 3_600_000),
  QUARRY_QUERY_CONCURRENCY: intFrom('QUARRY_QUERY_CONCURRENCY', 3, 1, 64),
  QUARRY_ASYNC_RESULT_TTL_MS: intFrom('QUARRY_ASYNC_RESULT_TTL_MS', 600_000, 1000, 7 * 86_400_000),
  QUARRY_QUERY_LOG_RETENTION_DAYS: intFrom('QUARRY_QUERY_LOG_RETENTION_DAYS', 30, 0, 36_500),
  QUARRY_RATE_LIMIT_ENABLED: z.enum(['true', 'false', '1', '0']).default('true'),
  QUARRY_RATE_LIMITS: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      try {
        rateRules(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: `QUARRY_RATE_LIMITS must be JSON like {"query": {"burst": 60, "sustained": 600}}: ${(e as Error).message.split('\n')[0]}` });
      }
    }),
  QUARRY_HEAP_GROWTH_PERCENT: intFrom('QUARRY_HEAP_GROWTH_PERCENT', 100, 0, 1000),
  QUARRY_PARALLEL_SCAVENGE: z.enum(['auto', 'on', 'off']).default('auto'),
  QUARRY_DUCKDB_MEMORY_LIMIT: sizeFrom('QUARRY_DUCKDB_MEMORY_LIMIT', '1GB', 64e6, '64MB'),
  QUARRY_DUCKDB_CHECKPOINT_THRESHOLD: sizeFrom('QUARRY_DUCKDB_CHECKPOINT_THRESHOLD', '64MB', 1e6, '1MB'),
  QUARRY_DUCKDB_CACHE_LIMIT: sizeFrom('QUARRY_DUCKDB_CACHE_LIMIT', '32MB', 0, '0MB'),
  QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS: intFrom('QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS', 60_000, 0, 3_600_000),
  QUARRY_PERSONAL_API_KEYS_PER_USER: intFrom('QUARRY_PERSONAL_API_KEYS_PER_USER', 10, 1, 10_000),
  QUARRY_GRAPHQL_MAX_DEPTH: intFrom('QUARRY_GRAPHQL_MAX_DEPTH', 12, 2, 100),
  QUARRY_GRAPHQL_MAX_COST: intFrom('QUARRY_GRAPHQL_MAX_COST', 5000, 10, 1_000_000),
  QUARRY_EVENTS_ENGINE: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['duckdb', 'clickhouse']).default('duckdb')),
  QUARRY_CLICKHOUSE_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .default('http://127.0.0.1:8123')
      .refine((v) => v.split(',').every((u) => /^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(u.trim())), 'QUARRY_CLICKHOUSE_URL must be http(s) URLs, comma-separated'),
  ),
  QUARRY_CLICKHOUSE_USER: z.preprocess((v) => (v === '' ? undefined : v), z.string().default('default')),
  QUARRY_CLICKHOUSE_PASSWORD: z.string().default(''),
  QUARRY_CLICKHOUSE_DATABASE: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'QUARRY_CLICKHOUSE_DATABASE must be a plain identifier').default('quarry'),
  ),
  QUARRY_CLICKHOUSE_CLUSTER: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'QUARRY_CLICKHOUSE_CLUSTER must be a plain name').optional(),
  ),
});

export class ConfigError extends Error {}

/** Reads the configuration from an environment; throws {@link ConfigError} naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || 'env'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  return {
    host: e.QUARRY_HOST,
    port: e.QUARRY_PORT,
    dataDir: path.resolve(e.QUARRY_DATA_DIR),
    logLevel: e.QUARRY_LOG_LEVEL,
    bootstrapKey: e.QUARRY_BOOTSTRAP_KEY || undefined,
    bodyLimitBytes: e.QUARRY_BODY_LIMIT_BYTES,
    queryTimeoutMs: e.QUARRY_QUERY_TIMEOUT_MS,
    queryConcurrency: e.QUARRY_QUERY_CONCURRENCY,
    asyncResultTtlMs: e.QUARRY_ASYNC_RESULT_TTL_MS,
    queryLogRetentionDays: e.QUARRY_QUERY_LOG_RETENTION_DAYS,
    rateLimits: ['true', '1'].includes(e.QUARRY_RATE_LIMIT_ENABLED) ? rateRules(e.QUARRY_RATE_LIMITS) : null,
    heapGrowthPercent: e.QUARRY_HEAP_GROWTH_PERCENT,
    parallelScavenge: e.QUARRY_PARALLEL_SCAVENGE,
    duckdbMemoryLimit: e.QUARRY_DUCKDB_MEMORY_LIMIT,
    duckdbCheckpointThreshold: e.QUARRY_DUCKDB_CHECKPOINT_THRESHOLD,
    duckdbCacheLimit: e.QUARRY_DUCKDB_CACHE_LIMIT,
    duckdbCheckpointIntervalMs: e.QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS,
    personalApiKeysPerUser: e.QUARRY_PERSONAL_API_KEYS_PER_USER,
    graphqlMaxDepth: e.QUARRY_GRAPHQL_MAX_DEPTH,
    graphqlMaxCost: e.QUARRY_GRAPHQL_MAX_COST,
    ...(e.QUARRY_EVENTS_ENGINE === 'clickhouse'
      ? {
          clickhouse: {
            url: e.QUARRY_CLICKHOUSE_URL.split(',')[0].trim(),
            nodeUrls: e.QUARRY_CLICKHOUSE_URL.split(',').map((u) => u.trim()),
            user: e.QUARRY_CLICKHOUSE_USER,
            password: e.QUARRY_CLICKHOUSE_PASSWORD,
            database: e.QUARRY_CLICKHOUSE_DATABASE,
            ...(e.QUARRY_CLICKHOUSE_CLUSTER ? { cluster: e.QUARRY_CLICKHOUSE_CLUSTER } : {}),
          },
        }
      : {}),
    ...overrides,
  };
}
