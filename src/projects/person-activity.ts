import type { Principal } from '../auth/principal';
import { activityPage, recordActivity, type ActivityPage } from '../insights/activity';
import type { Project } from '../store/entities';
import type { ActivityChange } from '../store/entities/activity-log';
import type { Store } from '../store/store';
import type { PersonReader } from './person-reader';
import type { ProjectService } from './project-service';

/** What a person's activity entry says (PostHog's Detail: the name is the person's UUID for deletes and splits). */
export interface PersonActivityDetail {
  name?: string;
  changes?: ActivityChange[];
}

/** PostHog's `Change(type="Person", action="changed", field="properties")` of an update or a delete_property. */
export const PROPERTIES_CHANGED: ActivityChange = { type: 'Person', action: 'changed', field: 'properties', before: null, after: null };

/**
 * Logs a change to a person as PostHog's PersonViewSet does (`log_activity(scope="Person", item_id=person.pk, ...)`):
 * `updated` (PATCH, update_property), `delete_property`, `deleted`, `split_person`. Quarry's persons have no integer
 * key: the item id is the person's UUID.
 */
export function recordPersonActivity(
  store: Store,
  principal: Principal,
  project: Project,
  personId: string,
  activity: string,
  detail: PersonActivityDetail,
): Promise<void> {
  return recordActivity(store, principal, {
    project_id: project.id,
    scope: 'Person',
    item_id: personId.toLowerCase(),
    activity,
    name: detail.name ?? null,
    changes: detail.changes ?? null,
  });
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
  const where: { project_id: number; scope: string; item_id?: string } = { project_id: project.id, scope: 'Person' };
  if (personId !== null) where.item_id = (await deps.persons.get(principal, project.id, personId, 'activity_log:read')).uuid;
  return activityPage(deps.store, where, query);
}
