/**
 * ProductQL's virtual tables: what a query may name. Anything not listed here (project_id, the person_overrides
 * table, engine catalogs) is unreachable, because the resolver only prints what it finds here.
 *
 * Lazily joined tables on events (each printed inside the guarded events reference, itself guarded by project):
 * - `person`: the persons row of the event's person id after merges (person_overrides applied);
 * - `poe` ("persons on events"): PostHog stores the person's id, properties and created_at on each event at ingestion
 *   and `poe.*` reads those copies. Quarry stores only the person id on events and keeps current person properties,
 *   so `poe.*` reads the same as `person.*`, except `poe.id`, which is the event's person id itself (`person_id`,
 *   after merges) even when no persons row exists, as PostHog's `poe.id` is the stored column;
 * - `pdi`: the person_distinct_ids row of the event's distinct id (`pdi.distinct_id`, `pdi.person_id`), and through
 *   it that person (`pdi.person.*`: joined on the mapping's person id);
 * - `session`: the sessions row of the event's `$session_id` (events without a session id have none);
 * - `group_0` … `group_4`: the groups row of type N whose key is the event's `$group_N` (PostHog's
 *   posthog/hogql/database/schema/groups.py join: `groups.index = N AND groups.key = events.$group_N`).
 *
 * `events.$group_0` … `$group_4` are the event's group keys, read from `properties.$group_N` (where ingestion puts
 * them); `''` when the event has none, as PostHog's materialized `$group_N` columns default to.
 *
 * `groups`: one row per (type index, key) of the project (a newer `$groupidentify` replaces the row). PostHog keeps
 * the time of the last write as `updated_at`; Quarry keeps only `created_at`, so `updated_at` reads it too. PostHog
 * also exposes `team_id` there; Quarry exposes the project id on no table (see the hostile corpus).
 *
 * `sessions` is computed from events ({@link SESSIONS_QUERY}: the project's events grouped by `$session_id`, events
 * without one left out): PostHog keeps a pre-aggregated sessions table keyed by session id; Quarry aggregates the
 * project's events when a query reads it, through the same compiler, so its events reference is guarded like any.
 *
 * `raw_persons` / `raw_person_distinct_ids`: PostHog exposes every version of a row there. Quarry stores one row per
 * person / distinct id (a newer write replaces the row, a deleted person is removed), so they read the same rows as
 * `persons` / `person_distinct_ids`, plus `version` and `is_deleted` (always false).
 */

/** Value kinds the resolver tracks to pick casts and comparisons; reported as ClickHouse type names. */
import { call, constant, field, type Expr } from './ast';
import { PERSON_VIRTUAL_FIELDS, personVirtualFieldExpr } from './person-virtual-fields';

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
  /** A stored column; `orEmpty`: a NULL stored value reads as `''` (the field is never NULL). */
  | { kind: 'column'; column: string; type: PType; nullable: boolean; orEmpty?: true }
  /** A value computed from the table's other fields, like PostHog's materialized columns (`expr` names them bare). */
  | { kind: 'expr'; expr: Expr }
  /** A JSON-text column; `col.key.key2` extracts a string. */
  | { kind: 'json'; column: string }
  /**
   * events.person_id: the ingestion-time person, redirected through person_overrides; for an event stored without a
   * person, the person its distinct id maps to now, if any (TableNeeds.personless).
   */
  | { kind: 'person_id' }
  /** A lazily joined persons row (events.person, person_distinct_ids.person); `poe`: events.poe (see above). */
  | { kind: 'person'; poe?: boolean }
  /** events.pdi: the lazily joined person_distinct_ids row of the event's distinct id. */
  | { kind: 'pdi' }
  /** events.session: the lazily joined sessions row of the event's `$session_id`. */
  | { kind: 'session' }
  /** events.$group_N: the event's group key of type `index` (`properties.$group_N`, `''` when none). */
  | { kind: 'group_key'; index: number }
  /** events.group_N: the lazily joined groups row of type `index` whose key is the event's `$group_N`. */
  | { kind: 'group'; index: number }
  /** A constant (raw_persons.is_deleted). */
  | { kind: 'const'; value: boolean; type: PType };

export interface VirtualTable {
  name: string;
  /** Engine table name. */
  table: string;
  fields: Record<string, FieldDef>;
  /** Fields `*` expands to, in order. */
  star: string[];
}

const col = (column: string, type: PType, nullable = false): FieldDef => ({ kind: 'column', column, type, nullable });

/** Group type indexes a project may use (PostHog: 0–4). */
export const GROUP_TYPE_INDEXES = [0, 1, 2, 3, 4] as const;

/** events' `$group_N` keys and `group_N` lazy joins (not in `*`, as in PostHog, where `*` lists no lazy join). */
function groupFields(): Record<string, FieldDef> {
  const out: Record<string, FieldDef> = {};
  for (const i of GROUP_TYPE_INDEXES) {
    out[`$group_${i}`] = { kind: 'group_key', index: i };
    out[`group_${i}`] = { kind: 'group', index: i };
  }
  return out;
}

/**
 * PostHog's materialized columns of autocapture elements (posthog/models/event/sql.py), computed from
 * `elements_chain` when read: the first link's `href`, and the distinct texts, `attr_id`s and form-ish tag names of
 * the chain (`''` / `[]` when none). Not in `*` (PostHog's EventsTable.avoid_asterisk_fields lists them).
 */
const chainMatches = (pattern: string): Expr => call('arrayDistinct', [call('extractAll', [field('elements_chain'), constant(pattern)])]);
const ELEMENTS_CHAIN_FIELDS: Record<string, FieldDef> = {
  elements_chain_href: { kind: 'expr', expr: call('extract', [field('elements_chain'), constant('(?::|")href="(.*?)"')]) },
  elements_chain_texts: { kind: 'expr', expr: chainMatches('(?::|")text="(.*?)"') },
  elements_chain_ids: { kind: 'expr', expr: chainMatches('(?::|")attr_id="(.*?)"') },
  elements_chain_elements: { kind: 'expr', expr: chainMatches('(?:^|;)(a|button|form|input|select|textarea|label)(?:\\.|;|:)') },
};

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
    poe: { kind: 'person', poe: true },
    pdi: { kind: 'pdi' },
    session: { kind: 'session' },
    // PostHog's `$session_id` column is a String materialized from the property (posthog/models/event/sql.py:
    // `$session_id VARCHAR MATERIALIZED ...JSONExtractRaw(properties, '$session_id')...`): '' when the event has none.
    // Quarry stores NULL there (the sessions table and the `session` join read the stored column and skip it).
    $session_id: { kind: 'column', column: '$session_id', type: 'string', nullable: false, orEmpty: true },
    created_at: col('created_at', 'datetime'),
    // PostHog's column is never NULL: an event without elements has ''.
    elements_chain: { kind: 'column', column: 'elements_chain', type: 'string', nullable: false, orEmpty: true },
    // PostHog's `$window_id` column (materialized from the property): '' when the event has none.
    $window_id: { kind: 'expr', expr: call('ifNull', [field('properties', '$window_id'), constant('')]) },
    ...ELEMENTS_CHAIN_FIELDS,
    ...groupFields(),
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
    // PostHog's persons.pdi (persons_pdi): an INNER join to person_distinct_ids on person_id = id, so a person reads
    // once per distinct id of theirs (pdi.distinct_id, pdi.person_id).
    pdi: { kind: 'pdi' },
    // PostHog's virtual fields (`$virt_initial_channel_type`, person-virtual-fields.ts): computed from the person's
    // properties, also through events.person / poe / pdi.person; not in `*`.
    ...Object.fromEntries(PERSON_VIRTUAL_FIELDS.map((k): [string, FieldDef] => [k, { kind: 'expr', expr: personVirtualFieldExpr(k, (name) => field('properties', name)) }])),
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
    // When the distinct id was first seen in the project (engine.ts DistinctIdUpsert.seq; 0 for ids stored before it
    // was kept): a person's ids ordered by (seq, distinct_id) are in PostHog's order (PersonDistinctId by id). Not in
    // `*`, as PostHog's table has no such column.
    seq: col('seq', 'int'),
  },
  star: ['distinct_id', 'person_id'],
};

/** The persons fields other than the pdi join (raw_persons has none, as in PostHog). */
function personsColumns(): Record<string, FieldDef> {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { pdi, ...rest } = PERSONS.fields;
  return rest;
}

export const RAW_PERSONS: VirtualTable = {
  name: 'raw_persons',
  table: 'persons',
  fields: { ...personsColumns(), version: col('version', 'int'), is_deleted: { kind: 'const', value: false, type: 'bool' } },
  star: [...PERSONS.star, 'version', 'is_deleted'],
};

export const RAW_PERSON_DISTINCT_IDS: VirtualTable = {
  name: 'raw_person_distinct_ids',
  table: 'person_distinct_ids',
  fields: { ...PERSON_DISTINCT_IDS.fields, version: col('version', 'int'), is_deleted: { kind: 'const', value: false, type: 'bool' } },
  star: [...PERSON_DISTINCT_IDS.star, 'version', 'is_deleted'],
};

/** Groups (`$groupidentify`): one row per (type index, key) of the project. */
export const GROUPS: VirtualTable = {
  name: 'groups',
  table: 'groups',
  fields: {
    index: col('group_type_index', 'int'),
    key: col('group_key', 'string'),
    created_at: col('created_at', 'datetime'),
    updated_at: col('created_at', 'datetime'),
    properties: { kind: 'json', column: 'properties' },
  },
  star: ['index', 'key', 'created_at', 'updated_at', 'properties'],
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
  raw_persons: RAW_PERSONS,
  raw_person_distinct_ids: RAW_PERSON_DISTINCT_IDS,
  groups: GROUPS,
  query_log: QUERY_LOG,
};

// The sessions table (PostHog's sessions v2) lives in sessions.ts.
export { SESSION_FIELDS, SESSIONS_QUERY } from './sessions';
