/**
 * DuckDB event-store schema. Every table carries project_id; the ProductQL printer adds a project guard to
 * every reference, so this column is the tenant boundary.
 *
 * - events.person_id is written at ingestion ("persons on events"). A later merge does not rewrite events:
 *   it records old → new in person_overrides, and queries resolve
 *   `coalesce(person_overrides.override_person_id, events.person_id)`.
 * - Timestamps are TIMESTAMP (microseconds) holding UTC; the printer converts to the project's timezone.
 * - properties are JSON text. Hot properties may later be extracted into their own columns (measured 5–7×
 *   faster breakdowns/filters); the printer is the only place that would need to know.
 */
export const DUCKDB_SCHEMA_VERSION = 1;

export const DUCKDB_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS events (
    project_id INTEGER NOT NULL,
    uuid UUID NOT NULL,
    event VARCHAR NOT NULL,
    distinct_id VARCHAR NOT NULL,
    person_id UUID,
    timestamp TIMESTAMP NOT NULL,
    properties JSON NOT NULL,
    "$session_id" VARCHAR,
    elements_chain VARCHAR,
    created_at TIMESTAMP NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS persons (
    project_id INTEGER NOT NULL,
    id UUID NOT NULL,
    created_at TIMESTAMP NOT NULL,
    properties JSON NOT NULL,
    is_identified BOOLEAN NOT NULL DEFAULT false,
    version BIGINT NOT NULL DEFAULT 0
  )`,
  `CREATE TABLE IF NOT EXISTS person_distinct_ids (
    project_id INTEGER NOT NULL,
    distinct_id VARCHAR NOT NULL,
    person_id UUID NOT NULL,
    version BIGINT NOT NULL DEFAULT 0,
    seq BIGINT NOT NULL DEFAULT 0
  )`,
  // person_distinct_ids.seq (engine.ts DistinctIdUpsert.seq) came after the first release: a database made before it
  // gets the column with 0 on every row, and readers order by (seq, distinct_id), so those rows keep their
  // alphabetical order and come before every id seen later.
  `ALTER TABLE person_distinct_ids ADD COLUMN IF NOT EXISTS seq BIGINT DEFAULT 0`,
  `CREATE TABLE IF NOT EXISTS person_overrides (
    project_id INTEGER NOT NULL,
    old_person_id UUID NOT NULL,
    override_person_id UUID NOT NULL,
    version BIGINT NOT NULL DEFAULT 0
  )`,
  // Groups (PostHog's "group analytics"): a project names up to five group types (group_type_mapping, index 0–4,
  // assigned in order of first sight at ingestion); events carry their groups' keys as properties.$group_<index>
  // (set at ingestion from properties.$groups); `$groupidentify` upserts the group row with its properties.
  `CREATE TABLE IF NOT EXISTS group_type_mapping (
    project_id INTEGER NOT NULL,
    group_type VARCHAR NOT NULL,
    group_type_index INTEGER NOT NULL,
    name_singular VARCHAR,
    name_plural VARCHAR
  )`,
  `CREATE TABLE IF NOT EXISTS groups (
    project_id INTEGER NOT NULL,
    group_type_index INTEGER NOT NULL,
    group_key VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    properties JSON NOT NULL,
    version BIGINT NOT NULL DEFAULT 0
  )`,
  // Ingest bookkeeping: the highest write-ahead-log sequence number whose events are in this database. Written
  // in the same transaction as the events, so replay after a crash applies exactly the unapplied records.
  `CREATE TABLE IF NOT EXISTS ingest_checkpoint (
    id INTEGER NOT NULL,
    applied_seq BIGINT NOT NULL
  )`,
  // What ran: one row per query execution or cache answer. Readable in ProductQL as `query_log`, guarded by
  // project like every other table.
  `CREATE TABLE IF NOT EXISTS query_log (
    project_id INTEGER NOT NULL,
    id VARCHAR NOT NULL,
    query_id VARCHAR,
    event_time TIMESTAMP NOT NULL,
    principal VARCHAR,
    kind VARCHAR NOT NULL,
    name VARCHAR,
    query_hash VARCHAR NOT NULL,
    query JSON,
    duration_ms DOUBLE NOT NULL,
    result_rows BIGINT,
    result_bytes BIGINT,
    is_cached BOOLEAN NOT NULL,
    status VARCHAR NOT NULL,
    error_code VARCHAR
  )`,
];
