import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { Scope } from '../auth/scopes';
import { notFound, validationError } from '../errors';
import type { Page } from '../pagination';
import { printHogQLExpr } from '../productql';
import { ensureFilterParser, propertiesToExpr } from '../queries/insights/property-filters';
import type { PropertiesInput } from '../queries/insights/schema';
import type { QueryService } from '../queries/query-service';
import { productqlRows } from './productql-rows';
import type { Repository } from 'typeorm';
import type { Cohort, Project } from '../store/entities';
import { withoutMissingCohorts } from '../cohorts/missing-cohorts';
import { parseInput } from '../validation';
import { displayNameProperties } from './person-display-name';
import { jsonValue, propertyValueName, quotedKey } from './property-values';
import { propertyList } from './rest-properties';
import type { ProjectService } from './project-service';

/** PostHog's person record (PersonSerializer), with the merges of identity already applied. */
export interface PersonView {
  /** The person's UUID (PostHog's current person API answers the UUID as `id` too). */
  id: string;
  uuid: string;
  /** The first of the project's display properties the person has (email, name, username), else a distinct id. */
  name: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: string;
}

const listFilters = z.object({
  distinct_id: z.string().max(400).optional(),
  search: z.string().max(1000).optional(),
  email: z.string().max(1000).optional(),
  properties: z.string().max(100_000).optional(),
});

const valuesParams = z.object({ key: z.string().min(1).max(400), value: z.string().max(1000).optional() });

/** The distinct ids of the persons `{variables.ids}` (person id text), in the order PostHog lists them (first attached first). */
export const PERSON_DISTINCT_IDS_SQL =
  'SELECT toString(person_id), distinct_id FROM person_distinct_ids WHERE toString(person_id) IN {variables.ids} ORDER BY seq, distinct_id LIMIT 50000';

/** PostHog's SELECT_PERSON_PROP_VALUES_SQL: the 20 most frequent values. */
const PERSON_VALUES_LIMIT = 20;
/** Persons read per query when counting property names. */
const PROPERTY_NAMES_BATCH = 5000;

/**
 * A project's persons for `GET …/persons/` and `GET …/persons/<uuid>/` (scope `person:read`), read through
 * ProductQL's `persons` and `person_distinct_ids` tables, so they show identity merges exactly as queries see them
 * (the merged-away person is gone, its distinct ids belong to the surviving one). Values are bound, never spliced.
 */
export class PersonReader {
  constructor(
    private readonly projects: ProjectService,
    private readonly queries: QueryService,
    /** The cohorts, to know which a filter names that the project lacks (they match no person). */
    private readonly cohorts: Repository<Cohort>,
  ) {}

  /**
   * Newest first (created_at, then id). `distinct_id` selects the person owning that distinct id; `search` matches
   * the email or name property (PostHog's ILIKE '%term%', its % and _ wildcards too), a distinct id or the UUID exactly, as PostHog's search;
   * `email` the email property exactly; `properties` is PostHog's JSON list of property filters (person properties,
   * cohorts, hogql; a filter without a type is a person filter here).
   *
   * `count` is only computed when `includeTotal` is set: PostHog's PersonViewSet.list answers `{results, next,
   * previous}` and adds the total only for its undocumented `include_total` parameter (the count costs a second
   * query over every matching person).
   */
  async list(
    principal: Principal,
    projectId: number,
    query: Record<string, unknown>,
    page: Page,
    includeTotal = false,
    /** Only the persons of this cohort (PostHog's cohort persons action); the caller checks it is the project's. */
    cohortId?: number,
  ): Promise<{ count?: number; results: PersonView[] }> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'person:read' });
    const f = parseInput(listFilters, { distinct_id: query.distinct_id, search: query.search, email: query.email, properties: query.properties });
    const where: string[] = [];
    const vars: Record<string, unknown> = {};
    if (cohortId !== undefined) where.push(`id IN COHORT ${Math.trunc(cohortId)}`);
    // PersonQuery adds the distinct_id and email clauses only for a value (`if self._filter.distinct_id:`)
    if (f.distinct_id) {
      where.push('id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id = {variables.did})');
      vars.did = f.distinct_id;
    }
    if (f.search !== undefined && f.search.trim() !== '') {
      const term = f.search.trim();
      where.push(
        '(ilike(toString(properties.email), {variables.pattern}) OR ilike(toString(properties.name), {variables.pattern})' +
          ' OR toString(id) = {variables.term} OR id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id = {variables.term}))',
      );
      vars.pattern = `%${term}%`;
      vars.term = term;
    }
    if (f.email) {
      where.push('toString(properties.email) = {variables.email}');
      vars.email = f.email;
    }
    if (f.properties !== undefined) {
      // a cohort the project does not have matches no person, as in PostHog's PersonQuery (parse_prop_clauses: "If
      // cohort doesn't exist, nothing can match"), and as on the events list (missing-cohorts.ts)
      const given = propertyList(f.properties, 'person');
      const filters = cohortsAsProductQL(await withoutMissingCohorts({ properties: given }, project.id, this.cohorts).then((x) => x.properties));
      await ensureFilterParser();
      // the filters' condition as ProductQL text (its constants are bound again when the query is printed)
      const expr = propertiesToExpr(filters, { personTable: true, timezone: project.timezone, attr: 'properties' });
      if (expr) where.push(`(${printHogQLExpr(expr)})`);
    }
    const cond = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const rows = await this.run(
      principal,
      project,
      `SELECT toString(id), created_at, properties, is_identified FROM persons${cond} ORDER BY created_at DESC, toString(id) LIMIT ${page.limit} OFFSET ${page.offset}`,
      vars,
    );
    const results = await this.withDistinctIds(principal, project, rows);
    if (!includeTotal) return { results };
    const [count] = (await this.run(principal, project, `SELECT count() FROM persons${cond}`, vars))[0] as [number];
    return { count: Number(count), results };
  }

  /**
   * The UUIDs of the project's persons among `ids` (UUIDs, any letter case; malformed ones match nothing) or owning
   * any of `distinctIds`, for actions on many persons at once. The caller checks the scope it needs.
   */
  async uuidsOf(principal: Principal, project: Project, by: { ids: string[] } | { distinctIds: string[] }): Promise<string[]> {
    const rows =
      'ids' in by
        ? await this.run(principal, project, 'SELECT toString(id) FROM persons WHERE toString(id) IN {variables.ids} LIMIT 10000', {
            ids: by.ids.filter((id) => z.guid().safeParse(id).success).map((id) => id.toLowerCase()),
          })
        : await this.run(
            principal,
            project,
            'SELECT toString(id) FROM persons WHERE id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id IN {variables.dids}) LIMIT 10000',
            { dids: by.distinctIds },
          );
    return rows.map(([id]) => String(id));
  }

  /** The persons of these UUIDs (lowercase text) in creation order; unknown ids are left out. The caller checks the scope. */
  async byIds(principal: Principal, project: Project, ids: string[]): Promise<PersonView[]> {
    if (ids.length === 0) return [];
    const rows = await this.run(
      principal,
      project,
      'SELECT toString(id), created_at, properties, is_identified FROM persons WHERE toString(id) IN {variables.ids} ORDER BY created_at, toString(id) LIMIT 50000',
      { ids },
    );
    return this.withDistinctIds(principal, project, rows);
  }

  /**
   * One person by UUID (any letter case); a malformed or unknown id, or another project's person, is a 404. `scope`:
   * what the caller needs (an action on a person may declare its own, as PostHog's activity does).
   */
  async get(principal: Principal, projectId: number, personId: string, scope: Scope = 'person:read'): Promise<PersonView> {
    const project = await this.projects.projectFor(principal, projectId, { scope });
    if (!z.guid().safeParse(personId).success) throw notFound();
    const rows = await this.run(
      principal,
      project,
      'SELECT toString(id), created_at, properties, is_identified FROM persons WHERE toString(id) = {variables.pid} LIMIT 1',
      { pid: personId.toLowerCase() },
    );
    const [person] = await this.withDistinctIds(principal, project, rows);
    if (!person) throw notFound();
    return person;
  }

  /**
   * PostHog's `GET …/persons/properties/` (scope `person:read`; test_person.py test_person_property_names): the
   * property names of the project's persons, each with the number of persons having it, most common first, then by
   * name (PostHog's GET_PERSON_PROPERTIES_COUNT: `ORDER BY count DESC, key ASC`).
   */
  async propertyNames(principal: Principal, projectId: number): Promise<{ name: string; count: number }[]> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'person:read' });
    // The keys are counted here, not in SQL: ClickHouse's supported release has no JSONExtractKeys. The persons are
    // read in id order, a batch at a time (memory holds one batch and the distinct keys).
    const counts = new Map<string, number>();
    let after: string | null = null;
    for (;;) {
      const rows: unknown[][] = await this.run(
        principal,
        project,
        `SELECT toString(id) AS pid, properties FROM persons${after === null ? '' : ' WHERE toString(id) > {variables.after}'} ORDER BY pid LIMIT ${PROPERTY_NAMES_BATCH}`,
        after === null ? {} : { after },
      );
      for (const [, props] of rows) for (const k of Object.keys(parseProperties(props))) counts.set(k, (counts.get(k) ?? 0) + 1);
      if (rows.length < PROPERTY_NAMES_BATCH) break;
      after = String(rows[rows.length - 1][0]);
    }
    return [...counts]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * PostHog's `GET …/persons/values/?key=` (scope `person:read`): `[{name, count}]`, the 20 most frequent values of a
   * person property (empty values left out), most frequent first; `value` keeps values containing it (any case).
   */
  async values(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<{ name: string; count: number }[]> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'person:read' });
    // PostHog's PersonViewSet.values looks values up only for a key (not a virtual `$virt…` one); else it answers []
    if (query.key === undefined || query.key === '' || (typeof query.key === 'string' && query.key.startsWith('$virt'))) return [];
    const p = parseInput(valuesParams, { key: query.key, value: query.value });
    const where = ['v IS NOT NULL', "v != ''"];
    const vars: Record<string, unknown> = {};
    if (p.value !== undefined && p.value !== '') {
      where.push('v ILIKE {variables.pattern}');
      vars.pattern = `%${p.value}%`;
    }
    const rows = await this.run(
      principal,
      project,
      `SELECT toString(properties.${quotedKey(p.key)}) AS v, count() AS c FROM persons WHERE ${where.join(' AND ')} GROUP BY v ORDER BY c DESC, v LIMIT ${PERSON_VALUES_LIMIT}`,
      vars,
    );
    return rows.map(([v, c]) => ({ name: propertyValueName(jsonValue(String(v))), count: Number(c) }));
  }

  private async withDistinctIds(principal: Principal, project: Project, rows: unknown[][]): Promise<PersonView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => String(r[0]));
    const pairs = await this.run(principal, project, PERSON_DISTINCT_IDS_SQL, { ids });
    const byPerson = new Map<string, string[]>();
    for (const [pid, did] of pairs) {
      const list = byPerson.get(String(pid)) ?? [];
      list.push(String(did));
      byPerson.set(String(pid), list);
    }
    return rows.map(([id, createdAt, props, identified]) => {
      const properties = parseProperties(props);
      const distinctIds = byPerson.get(String(id)) ?? [];
      return {
        id: String(id),
        uuid: String(id),
        name: displayName(properties, distinctIds, String(id), displayNameProperties(project)),
        distinct_ids: distinctIds,
        properties,
        is_identified: identified === true || identified === 1 || identified === 'true',
        created_at: drfDateTime(createdAt),
      };
    });
  }

  private run(principal: Principal, project: Project, sql: string, values: Record<string, unknown>): Promise<unknown[][]> {
    return productqlRows(this.queries, principal, project, 'persons', sql, values);
  }
}

/** A properties value as read back (an object, or its JSON text): the object, `{}` when it is not one. */
export function parseProperties(v: unknown): Record<string, unknown> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v !== 'string' || v === '') return {};
  try {
    const parsed = JSON.parse(v) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Cohort filters of the persons list as ProductQL's `id IN COHORT <id>`: the query names its cohorts in its text, so
 * the cohort-aware runner loads them from the project (another project's or a missing cohort is its 400).
 */
function cohortsAsProductQL(props: PropertiesInput): PropertiesInput {
  const leaf = (f: Record<string, unknown>): Record<string, unknown> => {
    if (f.type !== 'cohort') return f;
    const id = Number(f.value);
    if (!Number.isSafeInteger(id) || String(f.value).trim() === '') throw validationError(`Cohort id must be an integer: ${JSON.stringify(f.value)}.`, 'properties');
    const op = f.operator ?? 'in';
    if (op !== 'in' && op !== 'not_in') throw validationError(`Operator "${String(op)}" is not valid for a cohort filter (in, not_in).`, 'properties');
    return { type: 'hogql', key: `id ${op === 'not_in' ? 'NOT IN' : 'IN'} COHORT ${id}` };
  };
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    const o = x as Record<string, unknown>;
    if ((o.type === 'AND' || o.type === 'OR') && Array.isArray(o.values)) return { ...o, values: o.values.map(walk) };
    return leaf(o);
  };
  return props ? (walk(props) as PropertiesInput) : props;
}

/**
 * PostHog's get_person_name_helper: the first display property set, else the first distinct id that does not look
 * anonymous (test_person.py test_return_non_anonymous_name), else the first distinct id, else the UUID. The display
 * properties are the project's `person_display_name_properties` when set (non-empty), which replace the defaults
 * (test_person.py test_person_display_name: a person with only `email` is then named by its distinct id).
 */
function displayName(properties: Record<string, unknown>, distinctIds: string[], id: string, keys: readonly string[]): string {
  for (const k of keys) {
    const v = properties[k];
    if (pythonTruthy(v)) return String(v);
  }
  return distinctIds.find((d) => !isAnonymousId(d)) ?? distinctIds[0] ?? id;
}

/** Python's truth value of a JSON value (get_person_name_helper's `if person_properties.get(property)`). */
function pythonTruthy(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** PostHog's is_anonymous_id: SDK-generated ids are five dash-separated runs of lowercase letters and digits. */
const isAnonymousId = (distinctId: string): boolean => /^([a-z0-9]+-){4}[a-z0-9]+$/.test(distinctId);

/** A model datetime as DRF's DateTimeField renders it ({@link drfDateTime} of the instant); null stays null. */
export function drfTime(d: Date): string;
export function drfTime(d: Date | null | undefined): string | null;
export function drfTime(d: Date | null | undefined): string | null {
  return d ? drfDateTime(d.toISOString()) : null;
}

/** DRF's rendering of an aware datetime: ISO 8601 in UTC with `Z`, microseconds only when there are any. */
export function drfDateTime(v: unknown): string {
  const text = String(v);
  const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]00:?00)?$/.exec(text);
  if (m) {
    const frac = m[3] && /[1-9]/.test(m[3]) ? `.${m[3].padEnd(6, '0')}` : '';
    return `${m[1]}T${m[2]}${frac}Z`;
  }
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) return text;
  const iso = d.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : `${iso.slice(0, -1)}000Z`;
}
