import { isDeepStrictEqual } from 'node:util';
import { In } from 'typeorm';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { ActivityLog } from '../store/entities';
import type { ActivityChange } from '../store/entities/activity-log';
import type { Store } from '../store/store';
import { drfTime } from '../projects/person-reader';
import { parseInput } from '../validation';

/**
 * The user fields PostHog shows for a creator, a modifier or the author of an activity (UserBasicSerializer:
 * reference §1.2's `created_by`). Quarry's users have no uuid, distinct id, verification, hedgehog or role: those keys
 * are there, null (as the endpoint service's), so a PostHog client finds every key it reads.
 */
export interface UserBasic {
  id: number;
  uuid: string | null;
  distinct_id: string | null;
  first_name: string;
  last_name: string;
  email: string;
  is_email_verified: boolean | null;
  hedgehog_config: null;
  role_at_organization: string | null;
}

/** A user as UserBasic: Quarry's one `name` is the first name. */
export const userBasic = (u: { id: number; name: string; email: string }): UserBasic => ({
  id: u.id,
  uuid: null,
  distinct_id: null,
  first_name: u.name,
  last_name: '',
  email: u.email,
  is_email_verified: null,
  hedgehog_config: null,
  role_at_organization: null,
});

/** An activity entry as `GET …/insights/<id>/activity/` returns it (PostHog's ActivityLog serializer). */
export interface ActivityView {
  id: number;
  user: UserBasic | null;
  activity: string;
  scope: string;
  item_id: string;
  detail: ActivityLog['detail'];
  created_at: string;
  is_system: boolean;
  unread: boolean;
}

/** The insight fields whose changes are logged (before/after), in display order. */
export const TRACKED_FIELDS = ['name', 'derived_name', 'description', 'query', 'tags', 'favorited', 'saved', 'deleted', 'order'] as const;
export type TrackedField = (typeof TRACKED_FIELDS)[number];

/** The changes between two states of an item: one entry per tracked field whose value differs. */
export function diffFields(
  type: string,
  before: Partial<Record<TrackedField, unknown>> | null,
  after: Partial<Record<TrackedField, unknown>>,
): ActivityChange[] {
  const changes: ActivityChange[] = [];
  for (const field of TRACKED_FIELDS) {
    if (!(field in after)) continue;
    const b = before ? (before[field] ?? null) : null;
    const a = after[field] ?? null;
    if (before && isDeepStrictEqual(b, a)) continue;
    if (!before && (a === null || (Array.isArray(a) && a.length === 0))) continue;
    changes.push({ type, action: before ? 'changed' : 'created', field, before: b, after: a });
  }
  return changes;
}

export const activityView = (a: ActivityLog, users: Map<number, UserBasic>): ActivityView => ({
  id: a.id,
  user: a.user_id !== null ? (users.get(a.user_id) ?? null) : null,
  activity: a.activity,
  scope: a.scope,
  item_id: a.item_id,
  detail: a.detail,
  // ActivityLogSerializer's DateTimeField: `Z`, microseconds only when there are any
  created_at: drfTime(a.created_at),
  is_system: a.user_id === null,
  unread: false,
});

/**
 * An activity entry as PostHog's activity routes answer it (`activity_page_response`, which serializes with
 * posthog/models/activity_logging/serializers.py's ActivityLogSerializer): six keys, the author as its first name and
 * email only, an entry without one as PostHog's system author. Its tests compare whole entries
 * (`assert_insight_activity`, `assert_cohort_activity`, `_assert_person_activity`). GraphQL keeps the full author.
 */
export const activityEntryRest = (a: ActivityView) => ({
  user: a.user ? { first_name: a.user.first_name, email: a.user.email } : { first_name: 'System', email: null, is_system: true },
  activity: a.activity,
  scope: a.scope,
  item_id: a.item_id,
  detail: a.detail,
  created_at: a.created_at,
});

/** A page of activity entries (PostHog's ActivityLogViewSet pagination: `page` 1-based). */
export interface ActivityPage {
  results: ActivityView[];
  total_count: number;
  page: number;
  limit: number;
  has_next: boolean;
}

/** The users of these ids as UserBasic (ids of no user are left out). */
export async function usersById(store: Store, ids: (number | null)[]): Promise<Map<number, UserBasic>> {
  const wanted = [...new Set(ids.filter((x): x is number => x !== null))];
  const rows = wanted.length ? await store.users.findBy({ id: In(wanted) }) : [];
  return new Map(rows.map((u) => [u.id, userBasic(u)]));
}

const activityPaging = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  page: z.coerce.number().int().min(1).default(1),
});

/**
 * A page of a project's activity in one scope (`Insight`, `Cohort`, `Person`), of one item when `item_id` is given:
 * newest first, `page` 1-based, `limit` 10 by default, as PostHog's activity routes.
 */
export async function activityPage(
  store: Store,
  where: { project_id: number; scope: string; item_id?: string },
  query: { limit?: unknown; page?: unknown },
): Promise<ActivityPage> {
  const { limit, page } = parseInput(activityPaging, { limit: query.limit, page: query.page });
  const [rows, total] = await store.db.getRepository(ActivityLog).findAndCount({ where, order: { id: 'DESC' }, skip: (page - 1) * limit, take: limit });
  const users = await usersById(store, rows.map((r) => r.user_id));
  return { results: rows.map((r) => activityView(r, users)), total_count: total, page, limit, has_next: page * limit < total };
}

/**
 * Logs an activity as PostHog's `log_activity` (`detail` with the item's name and the changes; no short id, type or
 * trigger); the user is the personal key's (none for a project key).
 */
export async function recordActivity(
  store: Store,
  principal: Principal,
  entry: { project_id: number; scope: string; item_id: string; activity: string; name: string | null; changes: ActivityChange[] | null },
): Promise<void> {
  const repo = store.db.getRepository(ActivityLog);
  await repo.save(
    repo.create({
      project_id: entry.project_id,
      scope: entry.scope,
      item_id: entry.item_id,
      activity: entry.activity,
      user_id: principal.kind === 'personal' ? principal.userId : null,
      detail: { name: entry.name, short_id: null, type: null, changes: entry.changes, trigger: null },
      created_at: new Date(),
    }),
  );
}
