import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { notFound, UserError, validationError } from '../errors';
import { insightsNow, parseDateString } from '../queries/insights/date-range';
import { instantToLocal, sqlLocal } from '../queries/insights/local-time';
import type { QueryService } from '../queries/query-service';
import { productqlRows } from './productql-rows';
import type { Repository } from 'typeorm';
import type { Cohort, Project } from '../store/entities';
import { parseInput } from '../validation';
import { chainToElements, type ElementView } from '../ingest/elements-chain';
import { parseProperties, PERSON_DISTINCT_IDS_SQL } from './person-reader';
import { flattenValue, quotedKey } from './property-values';
import { propertyList } from './rest-properties';
import { withoutMissingCohorts } from '../cohorts/missing-cohorts';
import { MAX_LIMIT } from '../productql';
import { GROUP_TYPE_INDEXES } from '../productql/schema';
import type { ProjectService } from './project-service';

/** PostHog's event record of the events API (ClickhouseEventSerializer). */
export interface EventView {
  id: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  event: string;
  /** ISO 8601 in UTC whatever the project's timezone (`+00:00`, microseconds when there are any), as PostHog's. */
  timestamp: string;
  /**
   * The event's person, light: identified or not, its first distinct id (PostHog's `distinct_ids[:1]`), the display
   * properties; null without one (and on a retrieve without `include_person`).
   */
  person: { is_identified: boolean; distinct_ids: string[]; properties: Record<string, unknown> } | null;
  /** The elements_chain read back as PostHog's ElementSerializer shows it (innermost first). */
  elements: ElementView[];
  elements_chain: string;
}

/** The person properties the events API carries (PostHog's serializer keeps the display-name ones). */
const PERSON_PROPERTIES = ['email', 'name', 'username'] as const;

export const DEFAULT_EVENTS_LIMIT = 100;
/**
 * PostHog's EventViewSet.CSV_EXPORT_DEFAULT_LIMIT: a CSV export (`events.csv`, `?format=csv`) without a `limit` has up
 * to this many events, not a page of 100. A larger `limit`, of a CSV export or a JSON page alike, is taken up to the
 * engine's result clamp, never refused (PostHog's list: `limit = min(limit, self.CSV_EXPORT_MAXIMUM_LIMIT)`, 100,000;
 * Quarry's printer never answers more than MAX_LIMIT rows).
 */
export const CSV_EXPORT_DEFAULT_LIMIT = 10_000;
/** PostHog's property values query: distinct values of the last 7 days, at most 10 (posthog/queries/property_values.py). */
const VALUES_LIMIT = 10;
/** PostHog's GET_CUSTOM_EVENTS: every event name but these. */
const NON_CUSTOM_EVENTS = ['$autocapture', '$pageview', '$identify', '$pageleave', '$screen'];
/** The events columns `values/?is_column=true` reads (the ones whose values a filter picker offers). */
const VALUE_COLUMNS = new Set(['event', 'distinct_id', 'person_id', 'uuid', '$session_id', '$window_id', 'elements_chain', ...GROUP_TYPE_INDEXES.map((i) => `$group_${i}`)]);

const listParams = z
  .object({
    event: z.string().max(1000).optional(),
    distinct_id: z.string().max(400).optional(),
    person_id: z.string().max(100).optional(),
    // PostHog's query_events_list filters by an action only `if action_id:` (an empty `action_id=` is no filter)
    action_id: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).optional()),
    before: z.string().max(100).optional(),
    after: z.string().max(100).optional(),
    limit: z.coerce.number().int().min(1).optional(),
    orderBy: z.string().max(200).optional(),
    properties: z.string().max(100_000).optional(),
  })
  .strip();

const valuesParams = z
  .object({
    key: z.string().min(1).max(400),
    value: z.string().max(1000).optional(),
    event_name: z.union([z.string().max(1000), z.array(z.string().max(1000)).max(100)]).optional(),
    is_column: z.string().max(10).optional(),
  })
  .strip();

/** The row of the events API: the event, its elements chain and its person's display fields (as `SELECT` below). */
const EVENT_COLUMNS = [
  'toString(uuid)',
  'event',
  'distinct_id',
  'properties',
  // PostHog's ClickhouseEventSerializer.get_timestamp: `timestamp.replace(tzinfo=UTC).astimezone().isoformat()` on a
  // UTC server, so `+00:00` whatever the project's timezone (ProductQL would answer it in the project's; eventView
  // turns its `Z` into isoformat's `+00:00`)
  "toTimeZone(timestamp, 'UTC')",
  'elements_chain',
  'toString(person_id)',
  'person.properties',
  'person.is_identified',
];
const SELECT = `SELECT ${EVENT_COLUMNS.join(', ')} FROM events`;


/**
 * A project's events for PostHog's events API, `GET …/events/` and `GET …/events/<uuid>/` (scope `query:read`, as
 * PostHog's): newest first, read through ProductQL (persons as queries see them, merges applied), values bound.
 * The list runs as an EventsQuery, so its filters are the query API's: `properties` as PostHog's property filters
 * (event, person, cohort, hogql, ...), `action_id`, `person_id`, and `before`/`after` as ISO or relative dates.
 */
export class EventReader {
  constructor(
    private readonly projects: ProjectService,
    private readonly queries: QueryService,
    private readonly cohorts: Repository<Cohort>,
  ) {}

  /**
   * PostHog's EventViewSet.list: `orderBy` `["-timestamp"]` (default) or `["timestamp"]`; events after now + 5 s stay
   * out, as PostHog's query_events_list; a page with more events behind it links the next one (`nextBound`): its last
   * timestamp as `before` (newest first) or `after` (oldest first), PostHog's `_build_next_url`.
   */
  async list(
    principal: Principal,
    projectId: number,
    query: Record<string, unknown>,
    opts: { csv?: boolean } = {},
  ): Promise<{ results: EventView[]; next: { param: 'before' | 'after'; value: string } | null }> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    const p = parseInput(listParams, query);
    // PostHog's determine_event_conditions adds `event = %(event)s` for any text, so `event=` (empty) matches no event
    // (an EventsQuery's empty `event` is no filter)
    if (p.event === '') return { results: [], next: null };
    // a JSON page defaults to 100 events, a CSV export to CSV_EXPORT_DEFAULT_LIMIT; a larger limit is clamped (PostHog's list)
    const limit = Math.min(p.limit ?? (opts.csv ? CSV_EXPORT_DEFAULT_LIMIT : DEFAULT_EVENTS_LIMIT), MAX_LIMIT);
    const ascending = parseOrderBy(p.orderBy);
    const filters = p.properties === undefined ? [] : propertyList(p.properties);
    const byDistinctId = p.distinct_id === undefined ? [] : [{ type: 'event_metadata', key: 'distinct_id', operator: 'exact', value: p.distinct_id }];
    const properties = Array.isArray(filters) || !filters ? [...(filters ?? []), ...byDistinctId] : { type: 'AND', values: [filters, ...byDistinctId] };
    const node = {
      kind: 'EventsQuery',
      select: EVENT_COLUMNS,
      // a cohort the project does not have matches no event (missing-cohorts.ts)
      properties: await withoutMissingCohorts({ properties }, project.id, this.cohorts).then((x) => x.properties),
      ...(p.event !== undefined ? { event: p.event } : {}),
      ...(p.action_id !== undefined ? { actionId: p.action_id } : {}),
      ...(p.person_id !== undefined ? { personId: p.person_id } : {}),
      ...(p.before !== undefined ? { before: p.before } : {}),
      after: p.after ?? 'all',
      orderBy: ascending ? ['timestamp ASC', 'toString(uuid) ASC'] : ['timestamp DESC', 'toString(uuid) ASC'],
      limit,
    };
    let out: Record<string, unknown>;
    try {
      out = (await this.queries.execute(principal, project, node, { refresh: 'force_blocking', name: 'events' })).body;
    } catch (e) {
      // PostHog's query_events_list answers no events for an action that does not exist or has no steps
      if (e instanceof UserError && e.attr === 'actionId') {
        return { results: [], next: null };
      }
      throw e;
    }
    const rows = (out.results ?? []) as unknown[][];
    const firstIds = await this.firstDistinctIds(principal, project, rows);
    const results = rows.map((row) => eventView(row, firstIds));
    const last = results[results.length - 1];
    // a CSV export has no next page (PostHog builds the next url for JSON only)
    return { results, next: out.hasMore === true && last && !opts.csv ? { param: ascending ? 'after' : 'before', value: last.timestamp } : null };
  }

  /**
   * One event by UUID (PostHog's EventViewSet.retrieve): `uuid` as {@link eventUuid} reads it, null when it is none (the
   * REST face answers PostHog's 400 then, after this same project and scope check). An unknown id, or another project's
   * event, is PostHog's 404 "No events exist for event UUID <id as given>".
   */
  async get(principal: Principal, projectId: number, eventId: string, opts: { includePerson?: boolean } = {}): Promise<EventView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    const uuid = eventUuid(eventId);
    if (uuid === null) throw notFound(`No events exist for event UUID ${eventId}`);
    const rows = await this.run(principal, project, `${SELECT} WHERE toString(uuid) = {variables.id} LIMIT 1`, { id: uuid });
    if (rows.length === 0) throw notFound(`No events exist for event UUID ${eventId}`);
    // PostHog's retrieve loads the person only when asked (`include_person`); the serializer shows none without it
    if (!opts.includePerson) return { ...eventView(rows[0], new Map()), person: null };
    return eventView(rows[0], await this.firstDistinctIds(principal, project, rows));
  }

  /**
   * The first distinct id of each person of `rows` (PostHog's serializer shows `person.distinct_ids[:1]`, "only send the
   * first one": the person's first id in PostHog's order, whichever of its ids the event has), merges applied.
   */
  private async firstDistinctIds(principal: Principal, project: Project, rows: unknown[][]): Promise<Map<string, string>> {
    const ids = [...new Set(rows.map((r) => r[6]).filter((x) => x !== null && x !== undefined && x !== '').map(String))];
    const first = new Map<string, string>();
    if (ids.length === 0) return first;
    const pairs = await this.run(principal, project, PERSON_DISTINCT_IDS_SQL, { ids });
    for (const [pid, did] of pairs) if (!first.has(String(pid))) first.set(String(pid), String(did));
    return first;
  }

  /** The project and scope check of {@link get} alone (for the REST face's answer to an id that is no UUID). */
  async checkAccess(principal: Principal, projectId: number): Promise<void> {
    await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
  }

  /**
   * PostHog's `GET …/events/values/?key=` (scope `query:read`): `[{name}]`, the distinct values of an event property
   * seen from the start of the day 7 days ago to the end of today (project timezone), at most 10; arrays give their
   * items, objects their JSON, booleans `true`/`false` (PostHog's flatten + convert_property_value). `value` keeps
   * values containing it (any case), shortest first; `event_name` (repeatable) keeps those events' values. `key`
   * `custom_event` lists the event names but PostHog's built-in ones; `is_column=true` reads an events column. No `key`
   * (or an empty one) is `[]`, as PostHog's.
   */
  async values(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<{ name: string }[]> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'query:read' });
    // EventViewSet.values looks values up only for a key (`elif key:`); without one it answers []
    if (query.key === undefined || query.key === '') return [];
    const p = parseInput(valuesParams, query);
    if (p.key === 'custom_event') {
      const rows = await this.run(
        principal,
        project,
        'SELECT DISTINCT event FROM events WHERE event NOT IN {variables.builtin} ORDER BY event LIMIT 10000',
        { builtin: NON_CUSTOM_EVENTS },
      );
      return rows.map(([name]) => ({ name: String(name) }));
    }
    const isColumn = (p.is_column ?? 'false').toLowerCase() === 'true';
    if (isColumn && !VALUE_COLUMNS.has(p.key)) throw validationError(`"${p.key}" is not an events column: use one of ${[...VALUE_COLUMNS].join(', ')}.`, 'key');
    const field = isColumn ? `toString(${quotedKey(p.key)})` : `toString(properties.${quotedKey(p.key)})`;
    const tz = project.timezone;
    const nowLocal = instantToLocal(insightsNow(), tz);
    const vars: Record<string, unknown> = {
      from: sqlLocal(parseDateString('-7dStart', nowLocal, tz).value),
      to: sqlLocal(parseDateString('dEnd', nowLocal, tz).value, true),
    };
    const where = ['v IS NOT NULL', "v != ''", 'timestamp >= {variables.from}', 'timestamp <= {variables.to}'];
    const events = p.event_name === undefined ? [] : Array.isArray(p.event_name) ? p.event_name : [p.event_name];
    if (events.length) {
      where.push('event IN {variables.events}');
      vars.events = events;
    }
    if (p.value !== undefined && p.value !== '') {
      where.push('v ILIKE {variables.pattern}');
      vars.pattern = `%${p.value}%`;
    }
    const order = p.value ? 'length(v), v' : 'count() DESC, v';
    const rows = await this.run(
      principal,
      project,
      `SELECT ${field} AS v FROM events WHERE ${where.join(' AND ')} GROUP BY v ORDER BY ${order} LIMIT ${VALUES_LIMIT}`,
      vars,
    );
    const names: string[] = [];
    for (const [v] of rows) for (const name of flattenValue(String(v))) if (!names.includes(name)) names.push(name);
    return names.map((name) => ({ name }));
  }

  private run(principal: Principal, project: Project, sql: string, values: Record<string, unknown>): Promise<unknown[][]> {
    return productqlRows(this.queries, principal, project, 'events', sql, values);
  }
}

/**
 * An event id as PostHog's retrieve reads it: UUIDT.is_valid_uuid (`urn:` and `uuid:` dropped, braces stripped, the
 * dashes removed, 32 hex digits left) and `pk.replace("-", "")` for the lookup, so `{…}`, capitals or no dashes name
 * the same event. The canonical lower-case dashed text; null for anything else.
 */
export function eventUuid(raw: string): string | null {
  const hex = raw.replace(/urn:/g, '').replace(/uuid:/g, '').replace(/^[{}]+|[{}]+$/g, '').replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return null;
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** PostHog's `_parse_order_by`: a JSON list, `["-timestamp"]` by default; descending only for exactly that. */
function parseOrderBy(raw: string | undefined): boolean {
  if (raw === undefined || raw === '') return false;
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    throw validationError('orderBy must be a JSON list: ["-timestamp"] or ["timestamp"].', 'orderBy');
  }
  if (!Array.isArray(list) || list.length === 0 || !list.every((x) => x === 'timestamp' || x === '-timestamp'))
    throw validationError('orderBy must be a JSON list: ["-timestamp"] or ["timestamp"].', 'orderBy');
  return !(list.length === 1 && list[0] === '-timestamp');
}

/** An events API record of a row of EVENT_COLUMNS; `firstIds`: each person's first distinct id (the event's when absent). */
function eventView(row: unknown[], firstIds: Map<string, string>): EventView {
  const [uuid, event, distinctId, properties, timestamp, elementsChain, personId, personProperties, identified] = row;
  let person: EventView['person'] = null;
  if (personId !== null && personId !== undefined && personId !== '') {
    const all = parseProperties(personProperties);
    const props: Record<string, unknown> = {};
    for (const k of PERSON_PROPERTIES) if (all[k] !== undefined) props[k] = all[k];
    person = {
      is_identified: identified === true || identified === 1 || identified === 'true',
      distinct_ids: [firstIds.get(String(personId)) ?? String(distinctId)],
      properties: props,
    };
  }
  return {
    id: String(uuid),
    distinct_id: String(distinctId),
    properties: parseProperties(properties),
    event: String(event),
    // a string the serializer made with isoformat(), so `+00:00` (a query's datetime is rendered with `Z`)
    timestamp: String(timestamp).replace(/Z$/, '+00:00'),
    person,
    elements: chainToElements(elementsChain === null || elementsChain === undefined ? '' : String(elementsChain)),
    elements_chain: elementsChain === null || elementsChain === undefined ? '' : String(elementsChain),
  };
}
