/**
 * Legacy insight routes and a cohort filter naming a cohort the project does not have: PostHog's legacy query
 * builder answered such a filter with the condition `0 = 191` (its `format_filter_query` on `Cohort.DoesNotExist`),
 * so the request succeeds and matches nothing (test_insight.py test_nonexistent_cohort_is_handled: "This should not
 * throw an error, just act like there's no event matches"). The query API keeps its 400 for the same filter.
 */
import { In, type Repository } from 'typeorm';
import { cohortIdOf } from '../cohorts/cohort-definition';
import { cohortFilterIds } from '../cohorts/cohort-runners';
import type { Cohort } from '../store/entities';

/** The filter that replaces a missing cohort's: a ProductQL condition that is never true, PostHog's own. */
export const NEVER_MATCHES = { type: 'hogql', key: '0 = 191' } as const;

/**
 * The node with every cohort property filter whose cohort the project lacks (as the cohort loader sees it: a soft-deleted cohort is still there) replaced by
 * {@link NEVER_MATCHES}; the node itself when there is none. Breakdowns by cohort are left alone (still a 400).
 */
export async function withoutMissingCohorts<T extends Record<string, unknown>>(node: T, projectId: number, cohorts: Repository<Cohort>): Promise<T> {
  const ids = cohortFilterIds(node);
  if (ids.length === 0) return node;
  const live = await cohorts.find({ select: { id: true }, where: { project_id: projectId, id: In(ids) } });
  const known = new Set(live.map((c) => c.id));
  if (ids.every((id) => known.has(id))) return node;
  const replace = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(replace);
    if (x === null || typeof x !== 'object') return x;
    const o = x as Record<string, unknown>;
    if (o.type === 'cohort' && !known.has(cohortIdOf(o.value) ?? NaN)) return { ...NEVER_MATCHES };
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, replace(v)]));
  };
  return replace(node) as T;
}
