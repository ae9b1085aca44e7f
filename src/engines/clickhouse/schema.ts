/**
 * ClickHouse event-store schema. Same tables and column names as the DuckDB schema (src/engines/duckdb/schema.ts),
 * with these differences, all decided for ClickHouse 18.16 (Debian's package) and valid on current releases:
 *
 * - Datetimes: `DateTime('UTC')` has whole seconds only, so every datetime column `x` has a companion
 *   `x_ms UInt16` (0–999). The printer exposes `x` as epoch milliseconds (Int64), so ordering and display keep
 *   sub-second precision.
 * - Booleans are UInt8 (18.16 has no Bool).
 * - events: ReplacingMergeTree (no version column) partitioned by month, ordered by
 *   (project_id, toDate(timestamp), event, cityHash64(distinct_id), uuid): a project's time range is one
 *   contiguous key range, and an event written twice (an ingest batch retried after a partial failure: ClickHouse
 *   has no transactions) collapses to one row when parts merge. Until then a retried batch can be counted twice;
 *   the Ingestor only retries on failure, so this is rare. PostHog's events table makes the same trade.
 * - persons, person_distinct_ids, person_overrides: "upserts" and deletes are appends. Each row carries
 *   `_row_version` (a per-process monotonic microsecond clock) and `is_deleted`; the tables are
 *   ReplacingMergeTree(_row_version) keyed like the DuckDB replace keys, and every read uses `FINAL` and
 *   `is_deleted = 0`, so the newest write of a key wins immediately, exactly like DuckDB's delete + insert.
 *   (`version` keeps its meaning from the identity layer and is data, not the merge version.)
 * - Sharding (when a cluster is configured): each table `<t>` is a Distributed table over `<t>_local` on every
 *   shard. Events and distinct ids are sharded by cityHash64(distinct_id), persons by id, overrides by
 *   old_person_id: every version of one key lands on one shard, so FINAL stays correct per shard.
 *   ingest_checkpoint and the schema record are never sharded: they live on the first node.
 */
export const CLICKHOUSE_SCHEMA_VERSION = 2;

interface TableDef {
  name: string;
  columns: string;
  engine: string;
  partition?: string;
  order: string;
  shardKey: string;
}

const TABLES: TableDef[] = [
  {
    name: 'events',
    columns: `project_id Int32, uuid UUID, event String, distinct_id String, person_id Nullable(UUID),
      timestamp DateTime('UTC'), timestamp_ms UInt16, properties String, \`$session_id\` Nullable(String),
      elements_chain Nullable(String), created_at DateTime('UTC'), created_at_ms UInt16`,
    engine: 'ReplacingMergeTree',
    partition: 'toYYYYMM(timestamp)',
    order: '(project_id, toDate(timestamp), event, cityHash64(distinct_id), uuid)',
    shardKey: 'cityHash64(distinct_id)',
  },
  {
    name: 'persons',
    columns: `project_id Int32, id UUID, created_at DateTime('UTC'), created_at_ms UInt16, properties String,
      is_identified UInt8, version Int64, is_deleted UInt8, _row_version UInt64`,
    engine: 'ReplacingMergeTree(_row_version)',
    order: '(project_id, id)',
    shardKey: 'cityHash64(toString(id))',
  },
  {
    name: 'person_distinct_ids',
    columns: `project_id Int32, distinct_id String, person_id UUID, version Int64, is_deleted UInt8, _row_version UInt64, seq Int64`,
    engine: 'ReplacingMergeTree(_row_version)',
    order: '(project_id, distinct_id)',
    shardKey: 'cityHash64(distinct_id)',
  },
  {
    name: 'person_overrides',
    columns: `project_id Int32, old_person_id UUID, override_person_id UUID, version Int64, is_deleted UInt8, _row_version UInt64`,
    engine: 'ReplacingMergeTree(_row_version)',
    order: '(project_id, old_person_id)',
    shardKey: 'cityHash64(toString(old_person_id))',
  },
  {
    name: 'group_type_mapping',
    columns: `project_id Int32, group_type String, group_type_index Int32, name_singular Nullable(String),
      name_plural Nullable(String), is_deleted UInt8, _row_version UInt64`,
    engine: 'ReplacingMergeTree(_row_version)',
    order: '(project_id, group_type_index)',
    shardKey: 'project_id',
  },
  {
    name: 'groups',
    columns: `project_id Int32, group_type_index Int32, group_key String, created_at DateTime('UTC'), created_at_ms UInt16,
      properties String, version Int64, is_deleted UInt8, _row_version UInt64`,
    engine: 'ReplacingMergeTree(_row_version)',
    order: '(project_id, group_type_index, group_key)',
    shardKey: 'cityHash64(group_key)',
  },
  {
    name: 'query_log',
    columns: `project_id Int32, id String, query_id Nullable(String), event_time DateTime('UTC'), event_time_ms UInt16,
      principal Nullable(String), kind String, name Nullable(String), query_hash String, query Nullable(String),
      duration_ms Float64, result_rows Nullable(Int64), result_bytes Nullable(Int64), is_cached UInt8, status String,
      error_code Nullable(String)`,
    engine: 'MergeTree',
    partition: 'toYYYYMM(event_time)',
    order: '(project_id, event_time, id)',
    shardKey: 'cityHash64(id)',
  },
];

/** Engine tables that hold project data (sharded in a cluster). */
export const DATA_TABLES = TABLES.map((t) => t.name);

const ident = (s: string): string => '`' + s.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`';

/** DDL run on every node: the data tables (local ones when `cluster` is set) and, with a cluster, Distributed tables. */
export function nodeSchema(database: string, cluster?: string): string[] {
  const db = ident(database);
  const out = [`CREATE DATABASE IF NOT EXISTS ${db}`];
  for (const t of TABLES) {
    const local = cluster ? `${t.name}_local` : t.name;
    out.push(
      `CREATE TABLE IF NOT EXISTS ${db}.${ident(local)} (${t.columns.replace(/\s+/g, ' ')}) ENGINE = ${t.engine}` +
        (t.partition ? ` PARTITION BY ${t.partition}` : '') +
        ` ORDER BY ${t.order}`,
    );
    if (cluster)
      out.push(
        `CREATE TABLE IF NOT EXISTS ${db}.${ident(t.name)} AS ${db}.${ident(local)}` +
          ` ENGINE = Distributed(${ident(cluster)}, ${db}, ${ident(local)}, ${t.shardKey})`,
      );
  }
  return out;
}

/**
 * Columns added after a table was first released, as `[table, column, type]`: {@link missingColumnsDdl} adds each to a
 * database made before it. Version 2: person_distinct_ids.seq (engine.ts DistinctIdUpsert.seq), 0 on older rows
 * (readers order by (seq, distinct_id), so those keep their alphabetical order).
 */
export const ADDED_COLUMNS: readonly (readonly [string, string, string])[] = [['person_distinct_ids', 'seq', 'Int64']];

/**
 * `ALTER TABLE ... ADD COLUMN` for the {@link ADDED_COLUMNS} a node lacks, given the (table, column) pairs it has
 * (system.columns of the database). 18.16 has no `ADD COLUMN IF NOT EXISTS`, hence the check. With a cluster, the
 * local table and the Distributed table over it both get the column.
 */
export function missingColumnsDdl(database: string, existing: ReadonlySet<string>, cluster?: string): string[] {
  const db = ident(database);
  const out: string[] = [];
  for (const [table, column, type] of ADDED_COLUMNS)
    for (const t of cluster ? [`${table}_local`, table] : [table])
      if (!existing.has(`${t}.${column}`)) out.push(`ALTER TABLE ${db}.${ident(t)} ADD COLUMN ${ident(column)} ${type} DEFAULT 0`);
  return out;
}

/** DDL run on the first node only: ingest bookkeeping and the schema record. */
export function primarySchema(database: string): string[] {
  const db = ident(database);
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.ingest_checkpoint (id Int32, applied_seq Int64) ENGINE = MergeTree ORDER BY id`,
    `CREATE TABLE IF NOT EXISTS ${db}.quarry_schema (version Int32, applied_at DateTime('UTC')) ENGINE = MergeTree ORDER BY version`,
  ];
}

/** The physical table to mutate (ALTER ... DELETE) on each node. */
export const localTable = (name: string, cluster?: string): string => (cluster ? `${name}_local` : name);
