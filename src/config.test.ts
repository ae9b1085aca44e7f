import path from 'node:path';
import { DEFAULT_RATE_RULES } from './auth/rate-limiter';
import { ConfigError, loadConfig } from './config';

const KEY32 = 'phx_' + 'a'.repeat(28);

describe('loadConfig defaults', () => {
  it('has documented defaults for an empty environment', () => {
    expect(loadConfig({})).toEqual({
      host: '127.0.0.1',
      port: 8010,
      dataDir: path.resolve('./data'),
      logLevel: 'info',
      bootstrapKey: undefined,
      bodyLimitBytes: 20 * 1024 * 1024,
      queryTimeoutMs: 60_000,
      queryConcurrency: 3,
      asyncResultTtlMs: 600_000,
      queryLogRetentionDays: 30,
      rateLimits: DEFAULT_RATE_RULES,
      heapGrowthPercent: 100,
      parallelScavenge: 'auto',
      duckdbMemoryLimit: '1GB',
      duckdbCheckpointThreshold: '64MB',
      duckdbCacheLimit: '32MB',
      duckdbCheckpointIntervalMs: 60_000,
      personalApiKeysPerUser: 10,
      graphqlMaxDepth: 12,
      graphqlMaxCost: 5000,
    });
  });

  it('treats empty numeric variables as unset', () => {
    expect(loadConfig({ QUARRY_PORT: '', QUARRY_BODY_LIMIT_BYTES: '' })).toMatchObject({ port: 8010, bodyLimitBytes: 20 * 1024 * 1024 });
  });

  it('reads every variable', () => {
    expect(
      loadConfig({
        QUARRY_HOST: '0.0.0.0',
        QUARRY_PORT: '0',
        QUARRY_DATA_DIR: '/tmp/q',
        QUARRY_LOG_LEVEL: 'silent',
        QUARRY_BOOTSTRAP_KEY: KEY32,
        QUARRY_BODY_LIMIT_BYTES: '2048',
        QUARRY_QUERY_TIMEOUT_MS: '100',
        QUARRY_QUERY_CONCURRENCY: '5',
        QUARRY_ASYNC_RESULT_TTL_MS: '5000',
        QUARRY_QUERY_LOG_RETENTION_DAYS: '0',
        QUARRY_RATE_LIMIT_ENABLED: 'false',
        QUARRY_HEAP_GROWTH_PERCENT: '0',
        QUARRY_PARALLEL_SCAVENGE: 'off',
        QUARRY_DUCKDB_MEMORY_LIMIT: '512MiB',
        QUARRY_DUCKDB_CHECKPOINT_THRESHOLD: ' 16 MB ',
        QUARRY_DUCKDB_CACHE_LIMIT: '0MB',
        QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS: '0',
        QUARRY_PERSONAL_API_KEYS_PER_USER: '25',
        QUARRY_GRAPHQL_MAX_DEPTH: '2',
        QUARRY_GRAPHQL_MAX_COST: '10',
      }),
    ).toEqual({
      host: '0.0.0.0',
      port: 0,
      dataDir: '/tmp/q',
      logLevel: 'silent',
      bootstrapKey: KEY32,
      bodyLimitBytes: 2048,
      queryTimeoutMs: 100,
      queryConcurrency: 5,
      asyncResultTtlMs: 5000,
      queryLogRetentionDays: 0,
      rateLimits: null,
      heapGrowthPercent: 0,
      parallelScavenge: 'off',
      duckdbMemoryLimit: '512MiB',
      duckdbCheckpointThreshold: '16 MB',
      duckdbCacheLimit: '0MB',
      duckdbCheckpointIntervalMs: 0,
      personalApiKeysPerUser: 25,
      graphqlMaxDepth: 2,
      graphqlMaxCost: 10,
    });
  });

  it('resolves a relative data dir against the working directory', () => {
    expect(loadConfig({ QUARRY_DATA_DIR: 'rel/dir' }).dataDir).toBe(path.resolve('rel/dir'));
  });

  it('applies overrides last', () => {
    expect(loadConfig({ QUARRY_PORT: '1' }, { port: 2 }).port).toBe(2);
  });

  it('ignores unrelated variables', () => {
    expect(() => loadConfig({ PATH: '/bin', QUARRY_UNKNOWN: 'x' })).not.toThrow();
  });
});

describe('loadConfig rejects bad values, naming the variable', () => {
  it.each([
    ['QUARRY_PORT', 'abc', 'QUARRY_PORT must be an integer between 0 and 65535'],
    ['QUARRY_PORT', '65536', 'QUARRY_PORT must be an integer between 0 and 65535'],
    ['QUARRY_PORT', '-1', 'QUARRY_PORT must be an integer between 0 and 65535'],
    ['QUARRY_PORT', '80.5', 'QUARRY_PORT must be an integer between 0 and 65535'],
    ['QUARRY_BODY_LIMIT_BYTES', '1023', 'QUARRY_BODY_LIMIT_BYTES must be an integer between 1024 and 1073741824'],
    ['QUARRY_QUERY_TIMEOUT_MS', '99', 'QUARRY_QUERY_TIMEOUT_MS must be an integer between 100 and 3600000'],
    ['QUARRY_GRAPHQL_MAX_DEPTH', '1', 'QUARRY_GRAPHQL_MAX_DEPTH must be an integer between 2 and 100'],
    ['QUARRY_GRAPHQL_MAX_COST', '9', 'QUARRY_GRAPHQL_MAX_COST must be an integer between 10 and 1000000'],
    ['QUARRY_HEAP_GROWTH_PERCENT', '-5', 'QUARRY_HEAP_GROWTH_PERCENT must be an integer between 0 and 1000'],
    ['QUARRY_HEAP_GROWTH_PERCENT', '1001', 'QUARRY_HEAP_GROWTH_PERCENT must be an integer between 0 and 1000'],
    ['QUARRY_HEAP_GROWTH_PERCENT', 'lots', 'QUARRY_HEAP_GROWTH_PERCENT must be an integer between 0 and 1000'],
    ['QUARRY_DUCKDB_MEMORY_LIMIT', 'lots', "QUARRY_DUCKDB_MEMORY_LIMIT must be a size of at least 64MB, such as '1GB'"],
    ['QUARRY_DUCKDB_MEMORY_LIMIT', '32MB', 'QUARRY_DUCKDB_MEMORY_LIMIT must be a size of at least 64MB'],
    ['QUARRY_DUCKDB_MEMORY_LIMIT', '1 GB; SET x', 'QUARRY_DUCKDB_MEMORY_LIMIT must be a size'],
    ['QUARRY_DUCKDB_CHECKPOINT_THRESHOLD', '100', "QUARRY_DUCKDB_CHECKPOINT_THRESHOLD must be a size of at least 1MB, such as '64MB'"],
    ['QUARRY_DUCKDB_CHECKPOINT_THRESHOLD', '512KB', 'QUARRY_DUCKDB_CHECKPOINT_THRESHOLD must be a size of at least 1MB'],
    ['QUARRY_DUCKDB_CACHE_LIMIT', 'half', "QUARRY_DUCKDB_CACHE_LIMIT must be a size of at least 0MB, such as '32MB'"],
    ['QUARRY_DUCKDB_CACHE_LIMIT', '-1MB', 'QUARRY_DUCKDB_CACHE_LIMIT must be a size'],
    ['QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS', '-1', 'QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS must be an integer between 0 and 3600000'],
    ['QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS', '3600001', 'QUARRY_DUCKDB_CHECKPOINT_INTERVAL_MS must be an integer between 0 and 3600000'],
    ['QUARRY_LOG_LEVEL', 'verbose', 'QUARRY_LOG_LEVEL'],
    ['QUARRY_HOST', '', 'QUARRY_HOST'],
    ['QUARRY_BOOTSTRAP_KEY', 'short', 'QUARRY_BOOTSTRAP_KEY must be at least 32 characters'],
    ['QUARRY_BOOTSTRAP_KEY', 'phx_' + 'a'.repeat(28) + ' x', 'QUARRY_BOOTSTRAP_KEY may hold only letters, digits, _ and -'],
    ['QUARRY_BOOTSTRAP_KEY', 'a'.repeat(201), 'QUARRY_BOOTSTRAP_KEY'],
  ])('%s=%j', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`${name}: `);
    expect((error as Error).message).toContain(message);
  });

  it.each([
    ['64MB', '64MB'],
    ['1.5GB', '1.5GB'],
    ['2GiB', '2GiB'],
  ])('QUARRY_DUCKDB_MEMORY_LIMIT=%j is accepted as %j (the minimum is inclusive)', (value, expected) => {
    expect(loadConfig({ QUARRY_DUCKDB_MEMORY_LIMIT: value }).duckdbMemoryLimit).toBe(expected);
  });

  it('reports every bad variable at once', () => {
    expect(() => loadConfig({ QUARRY_PORT: 'x', QUARRY_LOG_LEVEL: 'loud' })).toThrow(/QUARRY_PORT[\s\S]*QUARRY_LOG_LEVEL/);
  });
});

describe('QUARRY_BOOTSTRAP_KEY', () => {
  it('accepts a 32-character key of letters, digits, _ and -', () => {
    expect(loadConfig({ QUARRY_BOOTSTRAP_KEY: KEY32 }).bootstrapKey).toBe(KEY32);
    expect(loadConfig({ QUARRY_BOOTSTRAP_KEY: 'A-b_9'.repeat(7) }).bootstrapKey).toBe('A-b_9'.repeat(7));
  });

  // Regression: an exported-but-empty variable (QUARRY_BOOTSTRAP_KEY= in a .env file or compose file) means
  // "no bootstrap key", as the `|| undefined` in loadConfig intends; it must not refuse to start.
  it('empty string means unset (random bootstrap key)', () => {
    expect(loadConfig({ QUARRY_BOOTSTRAP_KEY: '' }).bootstrapKey).toBeUndefined();
  });
});
