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
}
