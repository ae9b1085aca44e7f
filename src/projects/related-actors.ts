import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { EventEngine, GroupRow } from '../engines/engine';
import { validationError } from '../errors';
import { MAX_GROUP_TYPES } from '../ingest/groups';
import type { QueryService } from '../queries/query-service';
import { productqlRows } from './productql-rows';
import type { Project } from '../store/entities';
import { drfTime, type PersonReader, type PersonView } from './person-reader';
import type { ProjectService } from './project-service';

/** PostHog's SerializedPerson (posthog/queries/actor_base_query.py). */
export interface RelatedPerson extends PersonView {
  type: 'person';
  matched_recordings: [];
  value_at_data_point: null;
}

/** PostHog's SerializedGroup: `id` is the group key. */
export interface RelatedGroup {
  type: 'group';
  id: string;
  group_type_index: number;
  group_key: string;
  created_at: string;
  properties: Record<string, unknown>;
  matched_recordings: [];
  value_at_data_point: null;
}

/** RelatedActorsQuery.DAYS: actors are related when they shared an event in the last 90 days. */
const RELATED_DAYS = 90;
const WINDOW = `timestamp > now() - INTERVAL ${RELATED_DAYS} DAY AND timestamp < now()`;

/**
 * PostHog's `GET …/groups/related?group_type_index=N&id=K` (RelatedActorsQuery, scope `group:read`): the persons and
 * the groups of the other types that shared an event with group K of type N in the last 90 days; without
 * `group_type_index`, `id` is a person's UUID and the answer is the groups of every type that person's events carry.
 * Persons first, then groups by type index and key; only groups that exist (have a groups row) are listed.
 */
export class RelatedActors {
  constructor(
    private readonly projects: ProjectService,
    private readonly queries: QueryService,
    private readonly engine: EventEngine,
    private readonly persons: PersonReader,
  ) {}

  async related(principal: Principal, projectId: number, query: Record<string, unknown>): Promise<(RelatedPerson | RelatedGroup)[]> {
    const project = await this.projects.projectFor(principal, projectId, { scope: 'group:read' });
    const index = optionalGroupTypeIndex(query.group_type_index);
    const id = query.id;
    if (typeof id !== 'string' || id === '') throw validationError('You must pass ?id= in this URL.', 'id', 'required');
    // a person's id that is no UUID matches no event (any 8-4-4-4-12 hex: PostHog's UUIDTs have no RFC version)
    if (index === null && !z.guid().safeParse(id).success) return [];
    const filter = index === null ? 'toString(person_id) = {variables.id}' : `$group_${index} = {variables.id}`;
    const vars = { id: index === null ? id.toLowerCase() : id };

    const out: (RelatedPerson | RelatedGroup)[] = [];
    if (index !== null) {
      const ids = (await this.run(principal, project, `SELECT DISTINCT toString(person_id) FROM events WHERE ${WINDOW} AND ${filter} LIMIT 50000`, vars)).map(([p]) => String(p));
      for (const p of await this.persons.byIds(principal, project, ids)) out.push({ type: 'person', ...p, matched_recordings: [], value_at_data_point: null });
    }
    for (const t of await this.engine.listGroupTypes(projectId)) {
      const other = t.group_type_index;
      if (other === index) continue;
      const keys = await this.run(
        principal,
        project,
        `SELECT DISTINCT $group_${other} FROM events WHERE ${WINDOW} AND $group_${other} != '' AND ${filter} ` +
          `AND $group_${other} IN (SELECT key FROM groups WHERE index = ${other}) ORDER BY 1 LIMIT 50000`,
        vars,
      );
      for (const [key] of keys) {
        const g = await this.engine.getGroup(projectId, other, String(key));
        if (g) out.push(groupActor(g));
      }
    }
    return out;
  }

  private run(principal: Principal, project: Project, sql: string, values: Record<string, unknown>): Promise<unknown[][]> {
    return productqlRows(this.queries, principal, project, 'related actors', sql, values);
  }
}

const groupActor = (g: GroupRow): RelatedGroup => ({
  type: 'group',
  id: g.group_key,
  group_type_index: g.group_type_index,
  group_key: g.group_key,
  created_at: drfTime(new Date(g.created_at)),
  properties: g.properties,
  matched_recordings: [],
  value_at_data_point: null,
});

/** PostHog's validate_group_type_index(…, required=False): absent is null, else an integer 0–4. */
function optionalGroupTypeIndex(v: unknown): number | null {
  if (v === undefined || v === null || v === '') return null;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n >= MAX_GROUP_TYPES) throw validationError(`group_type_index is required to be at most ${MAX_GROUP_TYPES - 1}`, 'group_type_index');
  return n;
}
