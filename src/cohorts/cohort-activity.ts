import { isDeepStrictEqual } from 'node:util';
import type { Principal } from '../auth/principal';
import { activityPage, recordActivity, type ActivityPage } from '../insights/activity';
import type { Project } from '../store/entities';
import type { ActivityChange } from '../store/entities/activity-log';
import type { Cohort } from '../store/entities/cohort';
import type { Store } from '../store/store';

/**
 * The cohort fields whose changes are logged, in the model's field order (PostHog's changes_between over Cohort's
 * fields, less its field_exclusions: counts, versions, calculation state, creator and dates).
 */
const TRACKED = ['name', 'description', 'deleted', 'filters', 'query', 'is_static', 'groups'] as const;
export type CohortSnapshot = Record<(typeof TRACKED)[number], unknown>;

/** The tracked fields of a cohort now (Quarry keeps no query on a cohort: it is null, as PostHog's after a run). */
export const cohortSnapshot = (c: Cohort): CohortSnapshot => ({
  name: c.name,
  description: c.description,
  deleted: Boolean(c.deleted),
  filters: c.filters ?? null,
  query: null,
  is_static: Boolean(c.is_static),
  groups: structuredClone(c.groups ?? []),
});

/** PostHog's changes_between("Cohort", previous, current): one `changed` entry per tracked field that differs. */
export function cohortChanges(before: CohortSnapshot, after: CohortSnapshot): ActivityChange[] {
  return TRACKED.filter((f) => !isDeepStrictEqual(before[f], after[f])).map((field) => ({ type: 'Cohort', action: 'changed', field, before: before[field], after: after[field] }));
}

/**
 * Logs a cohort's creation or update as PostHog's CohortViewSet perform_create / perform_update do (`scope="Cohort"`,
 * `created` without changes, `updated` with the changes, a soft delete included).
 */
export function recordCohortActivity(store: Store, principal: Principal, cohort: Cohort, activity: 'created' | 'updated', changes: ActivityChange[] | null): Promise<void> {
  return recordActivity(store, principal, { project_id: cohort.project_id, scope: 'Cohort', item_id: String(cohort.id), activity, name: cohort.name, changes });
}

/**
 * PostHog's `GET …/cohorts/activity/` (every cohort's) and `GET …/cohorts/<id>/activity/` (one cohort's, the caller
 * having checked it exists in the project), scope `activity_log:read`: newest first, `page` 1-based, `limit` 10.
 */
export function cohortActivity(store: Store, project: Project, cohortId: number | null, query: { limit?: unknown; page?: unknown }): Promise<ActivityPage> {
  return activityPage(store, { project_id: project.id, scope: 'Cohort', ...(cohortId !== null ? { item_id: String(cohortId) } : {}) }, query);
}
