import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { In } from 'typeorm';
import type { Principal } from '../auth/principal';
import { activityView, userBasic } from '../insights/activity';
import type { ActivityPage } from '../insights/insight-service';
import { ActivityLog, type Project } from '../store/entities';
import type { ActivityChange } from '../store/entities/activity-log';
import type { Cohort } from '../store/entities/cohort';
import type { Store } from '../store/store';
import { parseInput } from '../validation';

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

const paging = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  page: z.coerce.number().int().min(1).default(1),
});

/**
 * Logs a cohort's creation or update as PostHog's CohortViewSet perform_create / perform_update do (`scope="Cohort"`,
 * `created` without changes, `updated` with the changes, a soft delete included); the user is the personal key's.
 */
export async function recordCohortActivity(store: Store, principal: Principal, cohort: Cohort, activity: 'created' | 'updated', changes: ActivityChange[] | null): Promise<void> {
  const repo = store.db.getRepository(ActivityLog);
  await repo.save(
    repo.create({
      project_id: cohort.project_id,
      scope: 'Cohort',
      item_id: String(cohort.id),
      activity,
      user_id: principal.kind === 'personal' ? principal.userId : null,
      detail: { name: cohort.name, short_id: null, type: null, changes, trigger: null },
      created_at: new Date(),
    }),
  );
}

/**
 * PostHog's `GET …/cohorts/activity/` (every cohort's) and `GET …/cohorts/<id>/activity/` (one cohort's, the caller
 * having checked it exists in the project), scope `activity_log:read`: newest first, `page` 1-based, `limit` 10.
 */
export async function cohortActivity(store: Store, project: Project, cohortId: number | null, query: { limit?: unknown; page?: unknown }): Promise<ActivityPage> {
  const { limit, page } = parseInput(paging, { limit: query.limit, page: query.page });
  const where: Record<string, unknown> = { project_id: project.id, scope: 'Cohort' };
  if (cohortId !== null) where.item_id = String(cohortId);
  const [rows, total] = await store.db.getRepository(ActivityLog).findAndCount({ where, order: { id: 'DESC' }, skip: (page - 1) * limit, take: limit });
  const ids = [...new Set(rows.map((r) => r.user_id).filter((x): x is number => x !== null))];
  const users = new Map((ids.length ? await store.users.findBy({ id: In(ids) }) : []).map((u) => [u.id, userBasic(u)]));
  return { results: rows.map((r) => activityView(r, users)), total_count: total, page, limit, has_next: page * limit < total };
}
