import { isDeepStrictEqual } from 'node:util';
import type { ActivityChange, ActivityLog } from '../store/entities/activity-log';
import { drfTime } from '../projects/person-reader';

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
