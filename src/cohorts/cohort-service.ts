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
import { In } from 'typeorm';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { EventEngineBase } from '../engines/engine';
import { notFound, validationError } from '../errors';
import type { Page, Paged } from '../pagination';
import type { ProjectService } from '../projects/project-service';
import * as ast from '../productql/ast';
import { runInsightQuery, toNumber } from '../queries/insights/execute';
import { ensureFilterParser, propertyFilterToExpr } from '../queries/insights/property-filters';
import type { QueryService } from '../queries/query-service';
import { Timings } from '../queries/timings';
import type { Project } from '../store/entities';
import { Cohort } from '../store/entities/cohort';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import { behavioralActionIds, behavioralCriteria } from './behavioral';
import { cohortGroup, groupFromFilters, groupFromLegacyGroups, referencedCohorts } from './cohort-definition';
import { CohortLoader } from './cohort-loader';
import { cohortNotFoundMessage, runWithCohorts, type ResolvedCohort } from './cohort-scope';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const personIds = z
  .array(z.string().trim().regex(UUID, 'Must be a valid UUID.'))
  .max(100_000, 'At most 100000 persons at once.');

/** Writable fields. Unknown and read-only fields are ignored, as DRF does (clients echo a GET back). */
const cohortBody = z.object({
  name: z.string().max(400, 'Ensure this field has no more than 400 characters.').nullable().optional(),
  description: z.string().max(1000, 'Ensure this field has no more than 1000 characters.').nullable().optional(),
  groups: z.array(z.record(z.string(), z.unknown())).nullable().optional(),
  filters: z.record(z.string(), z.unknown()).nullable().optional(),
  is_static: z.boolean().optional(),
  deleted: z.boolean().optional(),
  query: z.null().optional(),
  _create_static_person_ids: personIds.optional(),
});
type CohortBody = z.output<typeof cohortBody>;

interface UserBasic {
  id: number;
  first_name: string;
  last_name: string;
  email: string;
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
  ) {
    this.loader = new CohortLoader(store);
  }

  private get cohorts() {
    return this.store.db.getRepository(Cohort);
  }

  /** `GET …/cohorts/`: live cohorts of the project, newest first, each with its count. */
  async list(principal: Principal, projectId: number, page: Page): Promise<Paged<CohortView>> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'cohort:read' });
    const [rows, count] = await this.cohorts.findAndCount({
      where: { project_id: project.id, deleted: false },
      order: { id: 'DESC' },
      skip: page.offset,
      take: page.limit,
    });
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

  /** `POST …/cohorts/` (201). */
  async create(principal: Principal, projectId: number, input: unknown): Promise<CohortView> {
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
    if (body._create_static_person_ids !== undefined) {
      if (!row.is_static) throw validationError('Person ids can only be given to a static cohort.', '_create_static_person_ids');
      row.static_person_ids = [...new Set(body._create_static_person_ids.map((p) => p.toLowerCase()))];
    }
    await this.validateDefinition(project.id, row, null);
    const saved = await this.cohorts.save(row);
    this.queries.cache.dropProject(project.id);
    return this.fullView(principal, project, saved);
  }

  /** `PATCH …/cohorts/<id>/`: partial update; `{"deleted": true}` soft-deletes (and `false` restores). */
  async update(principal: Principal, projectId: number, id: string | number, input: unknown): Promise<CohortView> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'cohort:write' });
    const body: CohortBody = parseInput(cohortBody, input ?? {});
    const row = await this.find(project.id, id);
    if (body.is_static !== undefined && body.is_static !== row.is_static)
      throw validationError('A cohort cannot change between static and dynamic.', 'is_static');
    if (body._create_static_person_ids !== undefined) throw validationError('Only allowed when creating a cohort.', '_create_static_person_ids');
    if (body.name !== undefined) row.name = body.name;
    if (body.description !== undefined) row.description = body.description ?? '';
    if (body.groups !== undefined) row.groups = body.groups ?? [];
    if (body.filters !== undefined) row.filters = body.filters;
    if (body.deleted !== undefined) row.deleted = body.deleted;
    if (body.groups !== undefined || body.filters !== undefined) await this.validateDefinition(project.id, row, row.id);
    row.updated_at = new Date();
    const saved = await this.cohorts.save(row);
    this.queries.cache.dropProject(project.id);
    return this.fullView(principal, project, saved);
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

  /** Checks that a dynamic cohort's definition can be evaluated and its references exist, without a cycle. */
  private async validateDefinition(projectId: number, row: Cohort, selfId: number | null): Promise<void> {
    if (row.is_static) {
      if ((row.groups?.length ?? 0) > 0 || row.filters?.properties)
        throw validationError('A static cohort is a list of persons: it takes no criteria.', row.filters ? 'filters' : 'groups');
      return;
    }
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
      throw validationError('A cohort cannot refer to itself, directly or through other cohorts.', attr);
  }

  /** Persons of the project in the cohort, counted in the event engine, and the cohort's type. */
  private async measure(principal: Principal, project: Project, row: Cohort): Promise<Measured> {
    await ensureFilterParser();
    const cohorts = await this.loader.load(project.id, [row.id]);
    const where = runWithCohorts(cohorts, () => propertyFilterToExpr({ type: 'cohort', key: 'id', value: row.id } as never, { personTable: true, timezone: project.timezone }));
    const query = ast.select({ select: [ast.alias('count', ast.call('count'))], from: 'persons', where });
    const ctx = { project, principal, engine: this.engine, timings: new Timings(), timeoutMs: this.timeoutMs };
    const out = await runInsightQuery(ctx, query, 'cohort_count');
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
      created_at: r.created_at.toISOString(),
      last_calculation: r.updated_at.toISOString(),
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

  private async users(ids: (number | null)[]): Promise<Map<number, UserBasic>> {
    const wanted = [...new Set(ids.filter((x): x is number => x !== null))];
    const rows = wanted.length ? await this.store.users.findBy({ id: In(wanted) }) : [];
    return new Map(rows.map((u) => [u.id, { id: u.id, first_name: u.name, last_name: '', email: u.email }]));
  }
}
