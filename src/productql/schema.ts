/**
 * ProductQL's virtual tables: what a query may name. Anything not listed here (project_id, version, the
 * person_overrides table, engine catalogs) is unreachable, because the resolver only prints what it finds here.
 */

/** Value kinds the resolver tracks to pick casts and comparisons; reported as ClickHouse type names. */
export type PType =
  | 'string'
  | 'int'
  | 'float'
  | 'bool'
  | 'datetime'
  | 'date'
  | 'interval'
  | 'json'
  | 'uuid'
  | 'array'
  | 'null'
  | 'unknown';

export type FieldDef =
  /** A stored column. */
  | { kind: 'column'; column: string; type: PType; nullable: boolean }
  /** A JSON-text column; `col.key.key2` extracts a string. */
  | { kind: 'json'; column: string }
  /** events.person_id: the ingestion-time person, redirected through person_overrides. */
  | { kind: 'person_id' }
  /** A lazily joined persons row (events.person, person_distinct_ids.person). */
  | { kind: 'person' };

export interface VirtualTable {
  name: string;
  /** Engine table name. */
  table: string;
  fields: Record<string, FieldDef>;
  /** Fields `*` expands to, in order. */
  star: string[];
}

const col = (column: string, type: PType, nullable = false): FieldDef => ({ kind: 'column', column, type, nullable });

export const EVENTS: VirtualTable = {
  name: 'events',
  table: 'events',
  fields: {
    uuid: col('uuid', 'uuid'),
    event: col('event', 'string'),
    timestamp: col('timestamp', 'datetime'),
    distinct_id: col('distinct_id', 'string'),
    properties: { kind: 'json', column: 'properties' },
    person_id: { kind: 'person_id' },
    person: { kind: 'person' },
    $session_id: col('$session_id', 'string', true),
    created_at: col('created_at', 'datetime'),
    elements_chain: col('elements_chain', 'string', true),
  },
  star: ['uuid', 'event', 'properties', 'timestamp', 'distinct_id', 'elements_chain', 'created_at', '$session_id', 'person_id'],
};

export const PERSONS: VirtualTable = {
  name: 'persons',
  table: 'persons',
  fields: {
    id: col('id', 'uuid'),
    created_at: col('created_at', 'datetime'),
    properties: { kind: 'json', column: 'properties' },
    is_identified: col('is_identified', 'bool'),
  },
  star: ['id', 'created_at', 'properties', 'is_identified'],
};

export const PERSON_DISTINCT_IDS: VirtualTable = {
  name: 'person_distinct_ids',
  table: 'person_distinct_ids',
  fields: {
    distinct_id: col('distinct_id', 'string'),
    person_id: col('person_id', 'uuid'),
    person: { kind: 'person' },
  },
  star: ['distinct_id', 'person_id'],
};

/** What ran: one row per query execution or cache answer (written by the query executor). */
export const QUERY_LOG: VirtualTable = {
  name: 'query_log',
  table: 'query_log',
  fields: {
    id: col('id', 'string'),
    query_id: col('query_id', 'string', true),
    event_time: col('event_time', 'datetime'),
    principal: col('principal', 'string', true),
    kind: col('kind', 'string'),
    name: col('name', 'string', true),
    query_hash: col('query_hash', 'string'),
    query: { kind: 'json', column: 'query' },
    duration_ms: col('duration_ms', 'float'),
    result_rows: col('result_rows', 'int', true),
    result_bytes: col('result_bytes', 'int', true),
    is_cached: col('is_cached', 'bool'),
    status: col('status', 'string'),
    error_code: col('error_code', 'string', true),
  },
  star: ['id', 'query_id', 'event_time', 'principal', 'kind', 'name', 'query_hash', 'query', 'duration_ms', 'result_rows', 'result_bytes', 'is_cached', 'status', 'error_code'],
};

export const VIRTUAL_TABLES: Record<string, VirtualTable> = {
  events: EVENTS,
  persons: PERSONS,
  person_distinct_ids: PERSON_DISTINCT_IDS,
  query_log: QUERY_LOG,
};
