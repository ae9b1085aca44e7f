import { createHash } from 'node:crypto';
import type { Project } from '../store/entities';

/** Keys that change how a result is shown or labelled, never what it is: left out of the cache key. */
const DISPLAY_ONLY_KEYS = new Set(['name', 'custom_name', 'tags', 'response', 'explain', 'modifiers', 'displayName']);

/** Modifiers that change a result (`$is_bounce`, `$channel_type` of sessions): kept in the cache key, the others left out. */
const RESULT_MODIFIERS = ['bounceRateDurationSeconds', 'customChannelTypeRules'] as const;

/** The node with display-only keys removed at every depth, object keys sorted (a stable JSON text). */
export function normalizeNode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeNode);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (k === 'modifiers' && v && typeof v === 'object') {
        const kept = RESULT_MODIFIERS.filter((m) => (v as Record<string, unknown>)[m] != null).map((m) => [m, normalizeNode((v as Record<string, unknown>)[m])]);
        if (kept.length) out[k] = Object.fromEntries(kept);
        continue;
      }
      if (DISPLAY_ONLY_KEYS.has(k) || v === undefined) continue;
      out[k] = normalizeNode(v);
    }
    return out;
  }
  return value;
}

/**
 * `cache_<md5>` of the normalized node and what else changes its answer: the project and its settings the queries
 * read (timezone, week start, test-account filters, path-cleaning rules), so a settings change is a miss at once.
 * The project's data version is not in the key: it is stored with the entry, so a result computed before
 * new events arrived is found, and reported, as stale.
 */
export function cacheKey(
  project: Pick<Project, 'id' | 'timezone' | 'week_start_day' | 'test_account_filters' | 'path_cleaning_filters'>,
  node: unknown,
): string {
  const text = JSON.stringify({
    node: normalizeNode(node),
    project: project.id,
    timezone: project.timezone,
    week_start_day: project.week_start_day,
    test_account_filters: project.test_account_filters,
    path_cleaning_filters: project.path_cleaning_filters,
    version: 1,
  });
  return 'cache_' + createHash('md5').update(text).digest('hex');
}
