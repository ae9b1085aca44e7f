import type { Principal } from '../auth/principal';
import { validationError } from '../errors';
import { chainToElements, type ElementView } from '../ingest/elements-chain';
import { DEFAULT_DATE_FROM, insightsNow, parseDateString } from '../queries/insights/date-range';
import { cal, instantToLocal, sqlLocal } from '../queries/insights/local-time';
import type { QueryService } from '../queries/query-service';
import { productqlRows } from './productql-rows';
import type { Project } from '../store/entities';
import type { ProjectService } from './project-service';
import { propertyList } from './rest-properties';
import { pythonInt } from '../pagination';

/** One chain of PostHog's `elements/stats/` (ElementViewSet.stats): how often it was clicked, by which event. */
export interface ElementStat {
  count: number;
  /** Always null: PostHog no longer hashes element groups. */
  hash: null;
  type: string;
  elements: ElementView[];
}

/** The events `include` may ask for (ElementViewSet._events_filter). */
const INCLUDABLE = ['$autocapture', '$rageclick', '$dead_click'] as const;

/** ElementViewSet._pagination_params' default limit. */
const DEFAULT_LIMIT = 100_000;

/** The element fields `values/?key=` may name (ElementSerializer's fields); any other key answers []. */
const VALUE_KEYS = new Set(['text', 'tag_name', 'attr_class', 'href', 'attr_id', 'nth_child', 'nth_of_type', 'attributes', 'order']);

/** How many values `values/` lists (PostHog's LIMIT 50). */
const VALUES_LIMIT = 50;

/** The last value of a repeated query parameter (Django's QueryDict.get). */
const last = (v: unknown): unknown => (Array.isArray(v) ? v[v.length - 1] : v);

/**
 * PostHog's elements API (`posthog/api/element.py`, scope `element:read`): the autocaptured element chains most
 * clicked, and the values of one element field. Read from the events' `elements_chain` through ProductQL.
 */
export class ElementStats {
  constructor(
    private readonly projects: ProjectService,
    private readonly queries: QueryService,
  ) {}

  /**
   * `GET elements/stats/`: the chains of the events asked for by `include` (repeatable; `$autocapture` without it),
   * most counted first, as `{count, hash, type, elements}`. `date_from` (default `-7d`) starts at the start of its day
   * and `date_to` (default today) ends at the end of its day, in the project timezone, except `-24h`/`-48h` which keep
   * their time (PostHog's format_ch_timestamp); `properties` are PostHog's property filters; `limit`/`offset` page.
   * `paginate_response=true` wraps the page as `{results, next, previous}`, the links being the request's URL with
   * `offset` and `limit` set (format_query_params_absolute_url).
   */
  async stats(
    principal: Principal,
    projectId: number,
    query: Record<string, unknown>,
  ): Promise<{ results: ElementStat[]; next: { offset: number; limit: number } | null; previous: { offset: number; limit: number } | null }> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'element:read' });
    const events = includedEvents(query.include);
    const { limit, offset } = pagination(query);
    const dates = dateRange(project, query);
    const where = ['event IN {variables.events}', "elements_chain != ''", ...dates.where];
    const vars: Record<string, unknown> = { events, ...dates.vars };
    const properties = typeof last(query.properties) === 'string' && last(query.properties) !== '' ? propertyList(String(last(query.properties))) : [];
    const rows = await this.run(
      principal,
      project,
      `SELECT elements_chain, count() AS count, event FROM events WHERE ${where.join(' AND ')} AND {filters} ` +
        `GROUP BY elements_chain, event ORDER BY count DESC, event ASC, elements_chain ASC LIMIT ${limit + 1} OFFSET ${offset}`,
      vars,
      properties,
    );
    const results = rows.slice(0, limit).map(([chain, count, event]) => ({
      count: Number(count),
      hash: null,
      type: String(event),
      elements: chainToElements(String(chain)),
    }));
    return {
      results,
      next: rows.length > limit ? { offset: offset + limit, limit } : null,
      previous: offset - limit >= 0 ? { offset: offset - limit, limit } : null,
    };
  }

  /**
   * `GET elements/values/?key=K&value=V`: `[{name}]`, the values of an element field read out of every event's chain
   * by PostHog's regular expressions (`tag_name`: the first element's tag; others: `K="…"`), those containing V
   * (V is part of the expression, as in PostHog), most frequent first, at most 50. A key that is no element field
   * answers [].
   */
  async values(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<{ name: string }[]> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'element:read' });
    const key = last(query.key);
    const value = last(query.value);
    if (typeof key !== 'string' || !VALUE_KEYS.has(key)) return [];
    const given = typeof value === 'string' && value !== '' ? value : undefined;
    let select: string;
    let filter: string;
    if (key === 'tag_name') {
      select = '^([-_a-zA-Z0-9]*?)[\\.|:]';
      filter = given === undefined ? select : `^([-_a-zA-Z0-9]*?${given}[-_a-zA-Z0-9]*?)[\\.|:]`;
    } else {
      select = `[:|"]${key}="(.*?)"`;
      filter = given === undefined ? select : `[:|"]${key}=".*?${given}.*?"`;
    }
    const rows = await this.run(
      principal,
      project,
      'SELECT extract(elements_chain, {variables.select}) AS value, count() AS count FROM events ' +
        `WHERE match(elements_chain, {variables.filter}) GROUP BY value ORDER BY count DESC, value ASC LIMIT ${VALUES_LIMIT}`,
      { select, filter },
    );
    return rows.map(([v]) => ({ name: String(v) }));
  }

  private run(principal: Principal, project: Project, sql: string, values: Record<string, unknown>, properties: unknown = []): Promise<unknown[][]> {
    return productqlRows(this.queries, principal, project, 'elements', sql, values, { properties });
  }
}

/**
 * ElementViewSet._events_filter: the `include` events, `$autocapture` when none is given. Each of the three is taken
 * out of the list once; anything left (another event, or one given twice) is a 400.
 */
function includedEvents(raw: unknown): string[] {
  const left = (raw === undefined ? [] : [raw].flat()).map(String);
  if (left.length === 0) return ['$autocapture'];
  const events = INCLUDABLE.filter((e) => {
    const i = left.indexOf(e);
    if (i >= 0) left.splice(i, 1);
    return i >= 0;
  });
  if (left.length > 0) throw validationError('Only $autocapture, $rageclick, and $dead_click are supported.');
  return events;
}

/** ElementViewSet._pagination_params: `int()` of each (the last value given), or a 400. */
function pagination(query: Record<string, unknown>): { limit: number; offset: number } {
  const int = (v: unknown, fallback: number): number => {
    if (v === undefined) return fallback;
    const n = pythonInt(v);
    if (n === null || n < 0) throw validationError('offset and limit must be numbers');
    return n;
  };
  return { limit: int(query.limit, DEFAULT_LIMIT), offset: int(query.offset, 0) };
}

/** PostHog's format_ch_timestamp keeps the time of these (and of an hourly interval); any other date is its day. */
const KEEPS_TIME = new Set(['-24h', '-48h']);

/**
 * The `timestamp` conditions of `date_from`/`date_to` (PostHog's parse_timestamps) with their bound values, as local
 * times of the project timezone. `date_from=all` has no lower bound.
 */
function dateRange(project: Project, query: Record<string, unknown>): { where: string[]; vars: Record<string, string> } {
  const tz = project.timezone;
  const nowLocal = instantToLocal(insightsNow(), tz);
  const text = (v: unknown) => (typeof last(v) === 'string' && last(v) !== '' ? String(last(v)) : undefined);
  const fromText = text(query.date_from) ?? DEFAULT_DATE_FROM;
  const toText = text(query.date_to);
  const keepTime = last(query.interval) === 'hour' || KEEPS_TIME.has(fromText);
  const second = (t: number) => Math.floor(t / 1000) * 1000;
  const to = toText === undefined ? nowLocal : parseDateString(toText, nowLocal, tz, 'date_to').value;
  const where = ['timestamp <= {variables.date_to}'];
  const vars: Record<string, string> = { date_to: sqlLocal(keepTime ? second(to) : cal.addDays(cal.startOfDay(to), 1) - 1000) };
  if (fromText !== 'all') {
    const from = parseDateString(fromText, nowLocal, tz, 'date_from').value;
    where.unshift('timestamp >= {variables.date_from}');
    vars.date_from = sqlLocal(keepTime ? second(from) : cal.startOfDay(from));
  }
  return { where, vars };
}
