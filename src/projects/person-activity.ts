import { z } from 'zod';
import { In } from 'typeorm';
import type { Principal } from '../auth/principal';
import { activityView, userBasic } from '../insights/activity';
import type { ActivityPage } from '../insights/insight-service';
import { ActivityLog, type Project } from '../store/entities';
import type { ActivityChange } from '../store/entities/activity-log';
import type { Store } from '../store/store';
import { parseInput } from '../validation';
import type { PersonReader } from './person-reader';
import type { ProjectService } from './project-service';

/** What a person's activity entry says (PostHog's Detail: the name is the person's UUID for deletes and splits). */
export interface PersonActivityDetail {
  name?: string;
  changes?: ActivityChange[];
}

/** PostHog's `Change(type="Person", action="changed", field="properties")` of an update or a delete_property. */
export const PROPERTIES_CHANGED: ActivityChange = { type: 'Person', action: 'changed', field: 'properties', before: null, after: null };

const paging = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  page: z.coerce.number().int().min(1).default(1),
});

/**
 * Logs a change to a person as PostHog's PersonViewSet does (`log_activity(scope="Person", item_id=person.pk, ...)`):
 * `updated` (PATCH, update_property), `delete_property`, `deleted`, `split_person`. Quarry's persons have no integer
 * key: the item id is the person's UUID. The user is the personal key's (none for a project key).
 */
export async function recordPersonActivity(
  store: Store,
  principal: Principal,
  project: Project,
  personId: string,
  activity: string,
  detail: PersonActivityDetail,
): Promise<void> {
  const repo = store.db.getRepository(ActivityLog);
  await repo.save(
    repo.create({
      project_id: project.id,
      scope: 'Person',
      item_id: personId.toLowerCase(),
      activity,
      user_id: principal.kind === 'personal' ? principal.userId : null,
      detail: { name: detail.name ?? null, short_id: null, type: null, changes: detail.changes ?? null, trigger: null },
      created_at: new Date(),
    }),
  );
}

/**
 * PostHog's `GET …/persons/activity/` (every person's, deleted ones included) and `GET …/persons/<uuid>/activity/`
 * (a live person's: another's is a 404), scope `activity_log:read`: newest first, `page` 1-based, `limit` 10.
 */
export async function personActivity(
  deps: { projects: ProjectService; persons: PersonReader; store: Store },
  principal: Principal,
  projectId: number,
  personId: string | null,
  query: { limit?: unknown; page?: unknown },
): Promise<ActivityPage> {
  const project = await deps.projects.projectFor(principal, projectId, { scope: 'activity_log:read' });
  const { limit, page } = parseInput(paging, { limit: query.limit, page: query.page });
  const where: Record<string, unknown> = { project_id: project.id, scope: 'Person' };
  if (personId !== null) where.item_id = (await deps.persons.get(principal, project.id, personId, 'activity_log:read')).uuid;
  const [rows, total] = await deps.store.db.getRepository(ActivityLog).findAndCount({ where, order: { id: 'DESC' }, skip: (page - 1) * limit, take: limit });
  const ids = [...new Set(rows.map((r) => r.user_id).filter((x): x is number => x !== null))];
  const users = new Map((ids.length ? await deps.store.users.findBy({ id: In(ids) }) : []).map((u) => [u.id, userBasic(u)]));
  return { results: rows.map((r) => activityView(r, users)), total_count: total, page, limit, has_next: page * limit < total };
}
