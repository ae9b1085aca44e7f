/**
 * Cohorts (PostHog's saved person groups): CRUD per project, soft delete, and each cohort's person count computed
 * on read from the event engine's persons. Scopes: `cohort:read` to read, `cohort:write` for changes.
 *
 * A dynamic cohort is evaluated at query time against the current persons and events (PostHog recalculates its
 * membership table in the background; Quarry has no such table to go stale), so `is_calculating` is always false;
 * `cohort_type` follows PostHog's: `analytical` with a behavioral criterion other than performed_event(_multiple),
 * `behavioral` with those only, else `person_property` — the cohort's own criteria and those of the cohorts it refers
 * to (src/cohorts/behavioral.ts).
 */
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { EventEngineBase } from '../engines/engine';
import { notFound, validationError } from '../errors';
import type { Page, Paged } from '../pagination';
import type { ProjectService } from '../projects/project-service';
import { drfTime } from '../projects/person-reader';
import * as ast from '../productql/ast';
import { PRODUCTQL_MAX_LIMIT } from '../productql';
import { parseSelect } from '../productql/parser';
import { runInsightQuery, toNumber } from '../queries/insights/execute';
import { ensureFilterParser, propertyFilterToExpr } from '../queries/insights/property-filters';
import type { PropertyGroupFilter } from '../queries/insights/schema';
import type { QueryService } from '../queries/query-service';
import { Timings } from '../queries/timings';
import type { Project } from '../store/entities';
import { Cohort } from '../store/entities/cohort';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { drfBoolean } from '../insights/drf-fields';
import { usersById, type UserBasic } from '../insights/activity';
import { behavioralActionIds, behavioralCriteria } from './behavioral';
import type { ActivityPage } from '../insights/insight-service';
import { cohortActivity, cohortChanges, cohortSnapshot, recordCohortActivity } from './cohort-activity';
import { csvFirstColumn } from './cohort-csv';
import { cohortGroup, groupFromFilters, groupFromLegacyGroups, referencedCohorts } from './cohort-definition';
import { CohortLoader, type PersonIdResolver } from './cohort-loader';
import { cohortNotFoundMessage, runWithCohorts, type ResolvedCohort } from './cohort-scope';
import { productqlCohortIds } from './productql-cohorts';

/** Longest `search` of the cohorts list. */
const MAX_SEARCH_LENGTH = 400;

/** Most persons {@link CohortService.duplicateAsStatic} copies: the printer's largest LIMIT. */
const MAX_STATIC_COPY = PRODUCTQL_MAX_LIMIT;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const personIds = z
  .array(z.string().trim().regex(UUID, 'Must be a valid UUID.'))
  .max(100_000, 'At most 100000 persons at once.');

/** Writable fields. Unknown and read-only fields are ignored, as DRF does (clients echo a GET back). */
const cohortBody = z.object({
  name: z.string().max(400, 'Ensure this field has no more than 400 characters.').nullable().optional(),
  description: z.string().max(1000, 'Ensure this field has no more than 1000 characters.').nullable().optional(),
  groups: z.array(z.record(z.string(), z.unknown())).nullable().optional(),
  // CohortSerializer.validate_filters: anything but a dict (text, a list) gets the same answer as a dict without properties
  filters: z.record(z.string(), z.unknown(), { message: "Filters must be a dictionary with a 'properties' key." }).nullable().optional(),
  // DRF BooleanFields: a multipart form sends them as text ("True", "false", …)
  is_static: drfBoolean().optional(),
  deleted: drfBoolean().optional(),
  // a static cohort created with a query holds the persons of its rows ({@link CohortService.queryPersons})
  query: z.record(z.string(), z.unknown()).nullable().optional(),
  _create_static_person_ids: personIds.optional(),
});
type CohortBody = z.output<typeof cohortBody>;

/** Most distinct ids one CSV upload may name (as many as `_create_static_person_ids` takes). */
const MAX_CSV_IDS = 100_000;
/** Distinct ids looked up per query (bound values are spliced into the SQL text for ClickHouse 18.16, whose max_query_size is 256 KiB). */
const CSV_LOOKUP_BATCH = 1000;

/** What a multipart create or update carries besides its fields: PostHog's `csv` file of a static cohort. */
export interface CohortUpload {
  csv?: Buffer;
}

/** The JSONFields of the cohort serializer: a multipart form sends them as JSON text (DRF parses it). */
const FORM_JSON_FIELDS = new Set(['groups', 'filters', 'query']);

/**
 * A multipart form's text fields as the cohort body DRF's serializer reads from it: JSON fields parsed, the rest text
 * (the boolean fields take DRF's spellings).
 */
export function cohortFormInput(fields: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(fields)) {
    if (!FORM_JSON_FIELDS.has(name)) out[name] = text;
    else {
      try {
        out[name] = JSON.parse(text);
      } catch {
        throw validationError('Value must be valid JSON.', name);
      }
    }
  }
  return out;
}

/** PostHog's CohortSerializer record. */
export interface CohortView {
  id: number;
  name: string | null;
  description: string;
  groups: Record<string, unknown>[];
  deleted: boolean;
  filters: Record<string, unknown> | null;
  query: null;
  is_calculating: false;
  created_by: UserBasic | null;
  created_at: string;
  last_calculation: string;
  errors_calculating: number;
  last_error_at: null;
  count: number | null;
  is_static: boolean;
  cohort_type: 'static' | 'person_property' | 'behavioral' | 'analytical';
  experiment_set: number[];
}

/**
 * PostHog's cohort type of a dynamic cohort, from its criteria and those of the cohorts it refers to (all of `loaded`).
 */
function cohortType(loaded: ReadonlyMap<number, ResolvedCohort>): CohortView['cohort_type'] {
  const criteria = [...loaded.values()].flatMap((c) => (c.group ? behavioralCriteria(c.group) : []));
  if (criteria.some((c) => c.value !== 'performed_event' && c.value !== 'performed_event_multiple')) return 'analytical';
  return criteria.length ? 'behavioral' : 'person_property';
}

/**
 * The cohorts among `cohorts` with a behavioral criterion, their own or one of a cohort they refer to that is among
 * `cohorts` too (PostHog's CohortViewSet list `hide_behavioral_cohorts`: `has_behavioral_filter` over the listed
 * queryset, a loop ending the walk). A definition that no longer parses counts as not behavioral.
 */
function behavioralCohortIds(cohorts: readonly Cohort[]): Set<number> {
  const groups = new Map<number, PropertyGroupFilter | null>();
  for (const c of cohorts) {
    try {
      groups.set(c.id, cohortGroup(c));
    } catch {
      groups.set(c.id, null);
    }
  }
  const behavioral = (id: number, seen: Set<number>): boolean => {
    const g = groups.get(id);
    if (!g || seen.has(id)) return false;
    seen.add(id);
    return behavioralCriteria(g).length > 0 || referencedCohorts(g).some((ref) => behavioral(ref, seen));
  };
  return new Set([...groups.keys()].filter((id) => behavioral(id, new Set())));
}

interface Measured {
  count: number;
  type: CohortView['cohort_type'];
}

const userOf = (p: Principal): number | null => (p.kind === 'personal' ? p.userId : null);

export class CohortService {
  readonly loader: CohortLoader;

  constructor(
    private readonly store: Store,
    private readonly projects: ProjectService,
    private readonly queries: QueryService,
    private readonly engine: EventEngineBase,
    private readonly timeoutMs: number,
    /** See {@link CohortLoader}: static cohorts follow their persons through merges when given. */
    resolvePersons?: PersonIdResolver,
  ) {
    this.loader = new CohortLoader(store, resolvePersons);
  }

  private get cohorts() {
    return this.store.db.getRepository(Cohort);
  }

  /**
   * `GET …/cohorts/`: live cohorts of the project, newest first, each with its count. As PostHog's CohortViewSet list:
   * `search` keeps those whose name contains it (any case), `type` `static` or `dynamic` keeps that kind (another
   * value filters nothing), `created_by_id` keeps those the user made, `hide_behavioral_cohorts=true` (any case) drops
   * those with a behavioral criterion of their own or in a cohort they refer to ({@link behavioralCohortIds}).
   */
  async list(
    principal: Principal,
    projectId: number,
    page: Page,
    filters: { search?: unknown; type?: unknown; created_by_id?: unknown; hide_behavioral_cohorts?: unknown } = {},
  ): Promise<Paged<CohortView>> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'cohort:read' });
    const search = typeof filters.search === 'string' ? filters.search.trim().toLowerCase() : '';
    if (search.length > MAX_SEARCH_LENGTH) throw validationError(`Ensure this field has no more than ${MAX_SEARCH_LENGTH} characters.`, 'search');
    let rows: Cohort[];
    let count: number;
    const kind = filters.type === 'static' ? true : filters.type === 'dynamic' ? false : null;
    const createdBy = typeof filters.created_by_id === 'string' && /^\d+$/.test(filters.created_by_id) ? Number(filters.created_by_id) : null;
    const hideBehavioral = typeof filters.hide_behavioral_cohorts === 'string' && filters.hide_behavioral_cohorts.toLowerCase() === 'true';
    if (search || kind !== null || createdBy !== null || hideBehavioral) {
      // PostHog's CohortViewSet list `?search=`: name icontains (metadata rows: filtered here, not in SQL LIKE's escapes)
      const live = await this.cohorts.find({ where: { project_id: project.id, deleted: false }, order: { id: 'DESC' } });
      const hidden = hideBehavioral ? behavioralCohortIds(live.filter((c) => (c.name ?? '').toLowerCase().includes(search))) : new Set<number>();
      const all = live.filter(
        (c) =>
          !hidden.has(c.id) &&
          (c.name ?? '').toLowerCase().includes(search) &&
          (kind === null || Boolean(c.is_static) === kind) &&
          (createdBy === null || c.created_by_id === createdBy),
      );
      [rows, count] = [all.slice(page.offset, page.offset + page.limit), all.length];
    } else {
      [rows, count] = await this.cohorts.findAndCount({ where: { project_id: project.id, deleted: false }, order: { id: 'DESC' }, skip: page.offset, take: page.limit });
    }
    const users = await this.users(rows.map((r) => r.created_by_id));
    const results: CohortView[] = [];
    for (const r of rows) results.push(this.view(r, users, await this.measure(principal, project, r)));
    return { count, results };
  }

  /** `GET …/cohorts/<id>/` (a soft-deleted cohort is still readable, as PostHog's retrieve). */
  async get(principal: Principal, projectId: number, id: string | number): Promise<CohortView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'cohort:read' });
    const row = await this.find(project.id, id);
    return this.fullView(principal, project, row);
  }

  /**
   * `POST …/cohorts/` (201). A static cohort created with a `csv` upload holds the persons of the distinct ids in its
   * first column (PostHog's test_static_cohort_csv_upload); the file is ignored for a dynamic cohort, as PostHog's.
   */
  async create(principal: Principal, projectId: number, input: unknown, upload: CohortUpload = {}): Promise<CohortView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'cohort:write' });
    const body = parseInput(cohortBody, input ?? {});
    const now = new Date();
    const row = this.cohorts.create({
      project_id: project.id,
      name: body.name ?? null,
      description: body.description ?? '',
      groups: body.groups ?? [],
      filters: body.filters ?? null,
      is_static: body.is_static ?? false,
      static_person_ids: [],
      deleted: body.deleted ?? false,
      created_at: now,
      created_by_id: userOf(principal),
      updated_at: now,
    });
    if (body.query) {
      // PostHog's CohortSerializer.create: a query fills a static cohort (insert_cohort_from_query); a dynamic one is refused
      if (!row.is_static) throw validationError('Cannot create a dynamic cohort with a query. Set is_static to true.', 'query');
      row.static_person_ids = await this.queryPersons(principal, project, body.query);
    }
    if (body._create_static_person_ids !== undefined) {
      if (!row.is_static) throw validationError('Person ids can only be given to a static cohort.', '_create_static_person_ids');
      row.static_person_ids = [...new Set(body._create_static_person_ids.map((p) => p.toLowerCase()))];
    }
    await this.validateDefinition(project.id, row, null);
    if (upload.csv !== undefined && row.is_static) await this.addCsvPersons(principal, project, row, upload.csv);
    const saved = await this.cohorts.save(row);
    await recordCohortActivity(this.store, principal, saved, 'created', null);
    this.queries.cache.dropProject(project.id);
    return this.fullView(principal, project, saved);
  }

  /**
   * `PATCH …/cohorts/<id>/`: partial update; `{"deleted": true}` soft-deletes (and `false` restores); `{"is_static":
   * false}` makes a static cohort dynamic. A `csv` upload adds its persons to a static cohort (PostHog's
   * insert_users_by_list adds, it never removes).
   */
  async update(principal: Principal, projectId: number, id: string | number, input: unknown, upload: CohortUpload = {}): Promise<CohortView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'cohort:write' });
    const body: CohortBody = parseInput(cohortBody, input ?? {});
    const row = await this.find(project.id, id);
    const before = cohortSnapshot(row);
    // PostHog's test_static_cohort_to_dynamic_cohort: a static cohort becomes dynamic, its persons then being those its
    // criteria select (its list is dropped). The other way is refused: the copy action makes a static cohort of one.
    const toDynamic = body.is_static === false && row.is_static;
    if (body.is_static === true && !row.is_static)
      throw validationError('A dynamic cohort cannot be made static: duplicate it as a static cohort instead.', 'is_static');
    if (body._create_static_person_ids !== undefined) throw validationError('Only allowed when creating a cohort.', '_create_static_person_ids');
    // PostHog runs a cohort's query when the cohort is created only
    if (body.query) throw validationError('A cohort’s query is run when the cohort is created: create a new static cohort with it.', 'query');
    if (toDynamic) {
      row.is_static = false;
      row.static_person_ids = [];
    }
    if (body.name !== undefined) row.name = body.name;
    if (body.description !== undefined) row.description = body.description ?? '';
    if (body.groups !== undefined) row.groups = body.groups ?? [];
    if (body.filters !== undefined) row.filters = body.filters;
    if (body.deleted !== undefined) row.deleted = body.deleted;
    if (toDynamic || body.groups !== undefined || body.filters !== undefined) await this.validateDefinition(project.id, row, row.id);
    if (upload.csv !== undefined && row.is_static) await this.addCsvPersons(principal, project, row, upload.csv);
    row.updated_at = new Date();
    const saved = await this.cohorts.save(row);
    await recordCohortActivity(this.store, principal, saved, 'updated', cohortChanges(before, cohortSnapshot(saved)));
    this.queries.cache.dropProject(project.id);
    return this.fullView(principal, project, saved);
  }

  /**
   * `GET …/cohorts/activity/` (`id` null: every cohort's) or `GET …/cohorts/<id>/activity/` (a cohort of the project,
   * deleted or not; another id is a 404), scope `activity_log:read` (PostHog's all_activity / activity actions).
   */
  async activity(principal: Principal, projectId: number, id: string | number | null, query: { limit?: unknown; page?: unknown }): Promise<ActivityPage> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'activity_log:read' });
    const row = id === null ? null : await this.find(project.id, id);
    return cohortActivity(this.store, project, row?.id ?? null, query);
  }

  /** `PATCH …/cohorts/<id>/add_persons_to_static_cohort/` `{person_ids: [uuid, …]}`. */
  async addPersons(principal: Principal, projectId: number, id: string | number, input: unknown): Promise<{ success: true }> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'cohort:write' });
    const body = parseInput(z.object({ person_ids: personIds.min(1, 'This list may not be empty.') }), input ?? {});
    const row = await this.find(project.id, id);
    if (!row.is_static) throw validationError('Can only add users to static cohorts', 'person_ids');
    row.static_person_ids = [...new Set([...row.static_person_ids, ...body.person_ids.map((p) => p.toLowerCase())])];
    row.updated_at = new Date();
    await this.cohorts.save(row);
    this.queries.cache.dropProject(project.id);
    return { success: true };
  }

  /** `PATCH …/cohorts/<id>/remove_person_from_static_cohort/` `{person_id: uuid}`. */
  async removePerson(principal: Principal, projectId: number, id: string | number, input: unknown): Promise<{ success: true }> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'cohort:write' });
    const body = parseInput(z.object({ person_id: z.string().trim().regex(UUID, 'Must be a valid UUID.') }), input ?? {});
    const row = await this.find(project.id, id);
    if (!row.is_static) throw validationError('Can only remove users from static cohorts', 'person_id');
    row.static_person_ids = row.static_person_ids.filter((p) => p !== body.person_id.toLowerCase());
    row.updated_at = new Date();
    await this.cohorts.save(row);
    this.queries.cache.dropProject(project.id);
    return { success: true };
  }

  /**
   * Adds to a static cohort the persons owning the distinct ids of a CSV upload's first column; ids no person of the
   * project has (a header, an email) are skipped, and persons already in the cohort are not added twice.
   */
  private async addCsvPersons(principal: Principal, project: Project, row: Cohort, csv: Buffer): Promise<void> {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(csv);
    } catch {
      throw validationError('The CSV file is not UTF-8 text.', 'csv');
    }
    const ids = [...new Set(csvFirstColumn(text))];
    if (ids.length > MAX_CSV_IDS) throw validationError(`At most ${MAX_CSV_IDS} distinct ids at once.`, 'csv');
    const persons = new Set(row.static_person_ids);
    for (let i = 0; i < ids.length; i += CSV_LOOKUP_BATCH) {
      const dids = ids.slice(i, i + CSV_LOOKUP_BATCH);
      // each id's person through the distinct-id table's person join (merges applied), read through a tree: no text
      // to parse per upload
      const query = ast.select({
        select: [ast.alias('id', ast.call('toString', [ast.field('person', 'id')]))],
        from: 'person_distinct_ids',
        where: ast.compare('in', ast.field('distinct_id'), ast.tuple(dids.map((d) => ast.constant(d)))),
        limit: CSV_LOOKUP_BATCH,
      });
      const out = await runInsightQuery(this.queryContext(principal, project), query, 'cohort_csv');
      for (const r of out.rows) if (typeof r.id === 'string' && UUID.test(r.id)) persons.add(r.id.toLowerCase());
    }
    row.static_person_ids = [...persons];
  }

  /**
   * The persons of a HogQL query's rows, as PostHog's insert_cohort_from_query reads them: its `person_id`, `actor_id`
   * or `id` column (in that order of preference); a query over `events` or `persons` without one of them reads the
   * rows' person (`person.id`, `id`). At most {@link MAX_STATIC_COPY} persons, else a 400 rather than a cut list.
   */
  private async queryPersons(principal: Principal, project: Project, node: Record<string, unknown>): Promise<string[]> {
    if (node.kind !== 'HogQLQuery' || typeof node.query !== 'string')
      throw validationError('A cohort can be made from a HogQLQuery ({"kind": "HogQLQuery", "query": "select id from persons …"}) only.', 'query');
    const parsed = await parseSelect(node.query);
    const first = parsed.node === 'SelectQuery' ? parsed : null;
    const names = (first?.select ?? []).map((e) => (e.node === 'Alias' ? e.alias : e.node === 'Field' ? String(e.chain[e.chain.length - 1]) : null));
    let column = ['person_id', 'actor_id', 'id'].find((c) => names.includes(c));
    if (column === undefined && first) {
      const table = first.select_from?.table;
      const tableName = table && table.node === 'Field' ? String(table.chain[table.chain.length - 1]) : null;
      if (tableName === 'events') first.select = [ast.alias('actor_id', ast.field('person', 'id'))];
      else if (tableName === 'persons') first.select = [ast.alias('actor_id', ast.field('id'))];
      if (tableName === 'events' || tableName === 'persons') column = 'actor_id';
    }
    if (column === undefined) throw validationError('Could not find a person_id, actor_id, or id column in the query', 'query');
    const cohorts = await this.loader.load(project.id, await productqlCohortIds(node, project.id, this.loader));
    const query = ast.select({ select: [ast.alias('id', ast.call('toString', [ast.field(column)]))], from: parsed, limit: MAX_STATIC_COPY + 1 });
    const out = await runWithCohorts(cohorts, () => runInsightQuery(this.queryContext(principal, project), query, 'cohort_query'));
    if (out.truncated) throw validationError(`A query of more than ${MAX_STATIC_COPY} persons cannot fill a static cohort.`, 'query');
    return [...new Set(out.rows.map((r) => String(r.id).toLowerCase()).filter((id) => UUID.test(id)))];
  }

  /** Checks that a dynamic cohort's definition can be evaluated and its references exist, without a cycle. */
  private async validateDefinition(projectId: number, row: Cohort, selfId: number | null): Promise<void> {
    // A static cohort's criteria are kept and never evaluated (its persons are its list): PostHog's CohortSerializer
    // takes them, and its frontend creates every static cohort with `filters: {"properties": {}}`.
    if (row.is_static) return;
    if (row.filters !== null) groupFromFilters(row.filters);
    groupFromLegacyGroups(row.groups ?? []);
    const group = cohortGroup(row);
    const attr = row.filters?.properties ? 'filters' : 'groups';
    const actionIds = behavioralActionIds(group);
    const actions = await this.loader.actions(projectId, actionIds, { live: true });
    for (const id of actionIds) if (!actions.has(id)) throw validationError(`Action ${id} does not exist.`, attr, 'action_not_found');
    const refs = referencedCohorts(group);
    if (refs.length === 0) return;
    const loaded = await this.loader.load(projectId, refs);
    for (const ref of refs) if (!loaded.has(ref)) throw validationError(cohortNotFoundMessage(ref), attr);
    if (selfId !== null && (refs.includes(selfId) || loaded.has(selfId)))
      throw validationError('Cohorts cannot reference other cohorts in a loop.', attr);
  }

  /**
   * `GET …/cohorts/<id>/duplicate_as_static_cohort/` (PostHog's CohortViewSet action, test_cohort.py
   * `test_duplicating_dynamic_cohort_as_static`): a new static cohort named `<name> (static copy)` holding the persons
   * in the cohort now; answers the new cohort (200). A cohort of more than {@link MAX_STATIC_COPY} persons is a 400
   * rather than a silently cut copy.
   */
  async duplicateAsStatic(principal: Principal, projectId: number, id: string | number): Promise<CohortView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'cohort:write' });
    const source = await this.find(project.id, id);
    const { where } = await this.membership(project, source);
    // one row more than may be copied: the printer pages a query's own LIMIT within it, so only a LIMIT past the
    // largest page shows (as `truncated`) that there were more
    const query = ast.select({ select: [ast.alias('id', ast.field('id'))], from: 'persons', where, limit: MAX_STATIC_COPY + 1 });
    const out = await runInsightQuery(this.queryContext(principal, project), query, 'cohort_copy');
    if (out.truncated)
      throw validationError(`A cohort of more than ${MAX_STATIC_COPY} persons cannot be copied as a static cohort.`, 'id');
    const now = new Date();
    const row = this.cohorts.create({
      project_id: project.id,
      // Python's f"{cohort.name} (static copy)": a cohort without a name gives "None (static copy)"
      name: `${source.name ?? 'None'} (static copy)`,
      description: '',
      groups: [],
      filters: null,
      is_static: true,
      static_person_ids: [...new Set(out.rows.map((r) => String(r.id).toLowerCase()))],
      deleted: false,
      created_at: now,
      created_by_id: userOf(principal),
      updated_at: now,
    });
    const saved = await this.cohorts.save(row);
    this.queries.cache.dropProject(project.id);
    return this.fullView(principal, project, saved);
  }

  /** The condition "the person is in the cohort" on the persons table, and the cohorts it reads (nested ones included). */
  private async membership(project: Project, row: Cohort): Promise<{ where: ast.Expr; cohorts: ReadonlyMap<number, ResolvedCohort> }> {
    await ensureFilterParser();
    const cohorts = await this.loader.load(project.id, [row.id]);
    const where = runWithCohorts(cohorts, () => propertyFilterToExpr({ type: 'cohort', key: 'id', value: row.id } as never, { personTable: true, timezone: project.timezone }));
    return { where, cohorts };
  }

  private queryContext(principal: Principal, project: Project) {
    return { project, principal, engine: this.engine, timings: new Timings(), timeoutMs: this.timeoutMs };
  }

  /** Persons of the project in the cohort, counted in the event engine, and the cohort's type. */
  private async measure(principal: Principal, project: Project, row: Cohort): Promise<Measured> {
    const { where, cohorts } = await this.membership(project, row);
    const query = ast.select({ select: [ast.alias('count', ast.call('count'))], from: 'persons', where });
    const out = await runInsightQuery(this.queryContext(principal, project), query, 'cohort_count');
    return { count: toNumber(out.rows[0]?.count), type: row.is_static ? 'static' : cohortType(cohorts) };
  }

  private async fullView(principal: Principal, project: Project, row: Cohort): Promise<CohortView> {
    const users = await this.users([row.created_by_id]);
    return this.view(row, users, await this.measure(principal, project, row));
  }

  private view(r: Cohort, users: Map<number, UserBasic>, { count, type }: Measured): CohortView {
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      groups: r.groups ?? [],
      deleted: r.deleted,
      filters: r.filters,
      query: null,
      is_calculating: false,
      created_by: r.created_by_id !== null ? (users.get(r.created_by_id) ?? null) : null,
      // DRF's DateTimeField: microseconds (`.106000Z`)
      created_at: drfTime(r.created_at),
      last_calculation: drfTime(r.updated_at),
      errors_calculating: 0,
      last_error_at: null,
      count,
      is_static: r.is_static,
      cohort_type: type,
      experiment_set: [],
    };
  }

  /** The project's cohort by id; 404 for anything else (other projects' cohorts included). */
  private async find(projectId: number, ref: string | number): Promise<Cohort> {
    const id = typeof ref === 'number' ? ref : /^\d+$/.test(ref) ? Number(ref) : NaN;
    if (!Number.isSafeInteger(id)) throw notFound();
    const row = await this.cohorts.findOneBy({ project_id: projectId, id });
    if (!row) throw notFound();
    return row;
  }

  private users(ids: (number | null)[]): Promise<Map<number, UserBasic>> {
    return usersById(this.store, ids);
  }
}
