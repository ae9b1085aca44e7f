/**
 * The event engine: where events, persons and distinct ids live, and where printed SQL runs.
 * DuckDB (embedded, default) and ClickHouse (scale-out) implement it. Everything above this interface and
 * the ProductQL printer is engine-agnostic.
 */

export type Dialect = 'duckdb' | 'clickhouse';

/** Column types as reported to callers, named as PostHog/ClickHouse name them (`String`, `Int64`, `DateTime64(6, 'UTC')`, ...). */
export type ColumnType = string;

export interface QueryResult {
  columns: string[];
  types: ColumnType[];
  /** Rows as arrays of JSON-friendly values: numbers, strings (timestamps ISO), booleans, null, arrays, objects. */
  rows: unknown[][];
}

export interface QueryOptions {
  /** Aborting cancels the engine work, not only the wait for it. */
  signal?: AbortSignal;
  /** Milliseconds before the query is cancelled with a `query_timeout` user error. */
  timeoutMs?: number;
  /**
   * Results the query reads as tables (the printer's materialized CTEs, CompiledProductQL.stages), computed first
   * in order, visible to this query only. Only the ClickHouse printer produces them.
   */
  stages?: readonly { table: string; sql: string }[];
}

/** One event as stored. `person_id` is written at ingestion ("persons on events"); null for personless events. */
export interface EventRow {
  project_id: number;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string | null;
  /** UTC, millisecond precision or better. */
  timestamp: Date;
  properties: Record<string, unknown>;
  session_id: string | null;
  elements_chain: string | null;
  created_at: Date;
}

export interface PersonRow {
  project_id: number;
  id: string;
  created_at: Date;
  properties: Record<string, unknown>;
  is_identified: boolean;
  version: number;
}

export interface EventEngineBase {
  readonly dialect: Dialect;
  /**
   * A number that changes whenever a project's events or persons change (in this process). Cached query
   * results remember it, so new data makes them visibly stale.
   */
  dataVersion(projectId: number): number;
  /** Runs printed SQL with bound values. `params` are positional, matching the printer's placeholders. */
  query(sql: string, params: readonly unknown[], options?: QueryOptions): Promise<QueryResult>;
  close(): Promise<void>;
  /** Memory the engine holds in this process (bytes), for /metrics; absent for engines running elsewhere. */
  memoryBytes?(): Promise<number>;
  /**
   * False when the project has no person overrides (no merge ever happened): the printer then reads the stored
   * person_id without the overrides join. Engines that do not track it leave it out (the join is always printed).
   */
  hasPersonOverrides?(projectId: number): boolean;
  /**
   * False when the project has never stored an event without a person (personless events of distinct ids without
   * one): runners then skip their distinct-id actors' pass without asking the engine, and the printer reads the
   * events' person id without the person_distinct_ids fallback that credits such events to the person their distinct
   * id gets later (TableNeeds.personless). Engines that do not track it leave it out (runners then check the range).
   */
  hasPersonlessEvents?(projectId: number): boolean;
}

// ------------------------------------------------------------------------------------------------------------
// Internal statements. The services (ingest, query log, event service, migration) need a handful of fixed
// statements besides printed ProductQL. Each engine implements them in its own SQL, so nothing above this
// interface is spelled for one engine.

/** A project's identity rows, as the Ingestor's identity store loads them. Datetimes are epoch ms. */
export interface ProjectIdentity {
  persons: { id: string; created_at: number; properties: Record<string, unknown>; is_identified: boolean; version: number }[];
  distinctIds: { distinct_id: string; person_id: string; version: number; seq?: number }[];
  overrides: { old_person_id: string; override_person_id: string; version: number }[];
}

/** A project's group type (group_type_mapping row). */
export interface GroupTypeRow {
  group_type: string;
  group_type_index: number;
  name_singular: string | null;
  name_plural: string | null;
}

/** A stored group. `created_at` is epoch ms. */
export interface GroupRow {
  group_type_index: number;
  group_key: string;
  created_at: number;
  properties: Record<string, unknown>;
  version: number;
}

/** A project's group types and groups, as the Ingestor's group store loads them. */
export interface ProjectGroups {
  types: GroupTypeRow[];
  groups: GroupRow[];
}

/** Which groups of one type {@link InternalStatements.listGroups} returns. */
export interface GroupFilter {
  group_type_index: number;
  /**
   * Case-insensitive: the key equals it, or the properties' JSON text contains it (PostHog's
   * `group_properties__icontains | group_key__iexact`).
   */
  search?: string;
}

/** The query_log table's columns, in insert order (every engine writes and reads this list). */
export const QUERY_LOG_COLUMNS = [
  'project_id', 'id', 'query_id', 'event_time', 'principal', 'kind', 'name', 'query_hash', 'query', 'duration_ms',
  'result_rows', 'result_bytes', 'is_cached', 'status', 'error_code',
] as const;

/** One query-log row (the `query_log` table; same fields as the query log's entries). `event_time` is ISO 8601. */
export interface QueryLogRecord {
  project_id: number;
  id: string;
  query_id: string | null;
  event_time: string;
  principal: string | null;
  kind: string;
  name: string | null;
  query_hash: string;
  query: unknown;
  duration_ms: number;
  result_rows: number | null;
  result_bytes: number | null;
  is_cached: boolean;
  status: string;
  error_code: string | null;
}

/**
 * What a query-log row shares with the other answers to the same request: every field but its id, time and
 * duration. The cache hits of one request share one shape object, so a hit buffers three numbers, not a row.
 */
export type QueryLogShape = Omit<QueryLogRecord, 'id' | 'event_time' | 'duration_ms'>;

/**
 * Buffered query-log rows, by column: row `i` is `shapes[shape[i]]` answered at `time[i]` (epoch ms) in
 * `duration[i]` ms. Rows have no id yet: the writer gives each a new random UUID.
 */
export interface QueryLogBatch {
  readonly length: number;
  readonly shapes: readonly QueryLogShape[];
  readonly shape: Int32Array;
  readonly time: Float64Array;
  readonly duration: Float64Array;
}

/** Query-log filters; every one set must match. `since` is inclusive, `until` exclusive. */
export interface QueryLogFilter {
  kind?: string;
  status?: string;
  is_cached?: boolean;
  query_hash?: string;
  error_code?: string;
  since?: Date;
  until?: Date;
}

/** Live row counts of one project (distinct event uuids: ClickHouse may hold a retried batch twice until merges). */
export interface ProjectCounts {
  events: number;
  persons: number;
  person_distinct_ids: number;
  person_overrides: number;
}

// Writes from the durable ingest log, the same shape for every engine.

/** An event ready to be appended: person id resolved, properties already serialized. */
export interface EventInsert {
  project_id: number;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string | null;
  /** Epoch milliseconds (UTC). */
  timestamp: number;
  /** JSON text of the properties object. */
  properties: string;
  session_id: string | null;
  elements_chain: string | null;
  /** Epoch milliseconds (UTC). */
  created_at: number;
}

export interface PersonUpsert {
  project_id: number;
  id: string;
  /** Epoch milliseconds. */
  created_at: number;
  properties: Record<string, unknown>;
  is_identified: boolean;
  version: number;
}

/** A group (`$groupidentify`): keyed by (project_id, group_type_index, group_key); a newer write replaces the row. */
export interface GroupUpsert {
  project_id: number;
  group_type_index: number;
  group_key: string;
  /** Epoch milliseconds (the timestamp of the event that first created the group). */
  created_at: number;
  properties: Record<string, unknown>;
  version: number;
}

/** A project's group type name → index (0–4), keyed by (project_id, group_type_index). */
export interface GroupTypeUpsert {
  project_id: number;
  group_type: string;
  group_type_index: number;
  name_singular: string | null;
  name_plural: string | null;
}

export interface DistinctIdUpsert {
  project_id: number;
  distinct_id: string;
  person_id: string;
  version: number;
  /**
   * When the distinct id was first seen in its project (1, 2, ... per project; 0, the default, for rows written before
   * the column existed). It stays when a merge moves the id to another person, so a person's distinct ids listed by
   * (seq, distinct_id) are in PostHog's order: its PersonDistinctId rows by `id`, "first seen in the project".
   */
  seq?: number;
}

export interface OverrideUpsert {
  project_id: number;
  old_person_id: string;
  override_person_id: string;
  version: number;
}

/**
 * Everything one ingest flush writes, applied in one transaction: either all of it (including the checkpoint)
 * is in the database after a crash, or none of it is.
 */
export interface WriteBatch {
  events: EventInsert[];
  /** Persons to insert or replace (keyed by project_id, id). */
  persons?: PersonUpsert[];
  /** Persons known not to exist yet: appended without the replace step (cheaper). */
  newPersons?: PersonUpsert[];
  /** distinct ids known not to be mapped yet: appended without the replace step. */
  newDistinctIds?: DistinctIdUpsert[];
  /** Persons to delete (merged away). */
  deletedPersons?: { project_id: number; id: string }[];
  /** distinct id mappings to insert or replace (keyed by project_id, distinct_id). */
  distinctIds?: DistinctIdUpsert[];
  /** Overrides to insert or replace (keyed by project_id, old_person_id). */
  overrides?: OverrideUpsert[];
  /** Groups to insert or replace (keyed by project_id, group_type_index, group_key). */
  groups?: GroupUpsert[];
  /** Group types to insert or replace (keyed by project_id, group_type_index). */
  groupTypes?: GroupTypeUpsert[];
  /** When set, the durable log checkpoint is advanced to this sequence number in the same transaction. */
  checkpoint?: number;
}

export interface InternalStatements {
  /**
   * Writes one batch from the durable ingest log (events, persons, distinct ids, overrides) and advances the
   * checkpoint to `batch.checkpoint` in the same step, so a replay after a crash applies it exactly once.
   */
  writeBatch(batch: WriteBatch): Promise<void>;
  /** The durable-log sequence number whose events are all stored (0 when none). */
  getCheckpoint(): Promise<number>;
  /** Every live person, distinct id and override of a project. */
  loadIdentity(projectId: number): Promise<ProjectIdentity>;
  /** Every group type and group of a project (the Ingestor's group store; groups are few next to persons). */
  loadGroups(projectId: number): Promise<ProjectGroups>;
  /** A project's group types, by index. */
  listGroupTypes(projectId: number): Promise<GroupTypeRow[]>;
  /** Groups of one type, newest `created_at` first (ties by key). */
  listGroups(projectId: number, filter: GroupFilter, page: { limit: number; offset: number }): Promise<GroupRow[]>;
  /** One group, or null. */
  getGroup(projectId: number, groupTypeIndex: number, groupKey: string): Promise<GroupRow | null>;
  /** Deletes a group type and every group of its index (the index becomes free for the next new type). */
  deleteGroupType(projectId: number, groupTypeIndex: number): Promise<void>;
  /** `[project_id, uuid]` of events created at or after `since` (ingest de-duplication after a restart), at most `limit`. */
  recentEventUuids(since: Date, limit: number): Promise<[number, string][]>;
  /** True when the project has a live person with this id (any letter case). */
  personExists(projectId: number, personId: string): Promise<boolean>;
  /** Appends query-log rows (one statement per call; callers batch). */
  appendQueryLog(rows: readonly QueryLogRecord[]): Promise<void>;
  /** Appends a buffered batch as it is, without a record object per row (engines that can; else appendQueryLog). */
  appendQueryLogBatch?(batch: QueryLogBatch): Promise<void>;
  /** Deletes the query-log rows (every project's) from before `before`. */
  pruneQueryLog(before: Date): Promise<void>;
  /** A project's query log, newest first (ties by id), with the total matching count. */
  listQueryLog(projectId: number, filter: QueryLogFilter, page: { limit: number; offset: number }): Promise<{ count: number; rows: QueryLogRecord[] }>;
  /** Row counts of one project (migration checks, diagnostics). */
  projectCounts(projectId: number): Promise<ProjectCounts>;
  /** Deletes every event, person, distinct id, override, group and group type of a project. */
  deleteProject(projectId: number): Promise<void>;
  /** Deletes a person, their distinct ids and overrides pointing at them; with `deleteEvents`, their events. */
  deletePerson(projectId: number, personId: string, deleteEvents: boolean): Promise<void>;
}

/** An event engine with its internal statements: what DuckDbEngine and ClickHouseEngine both are. */
export type EventEngine = EventEngineBase & InternalStatements;
