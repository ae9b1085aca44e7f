/**
 * A cohort filter naming a cohort the project does not have, where PostHog matches nothing instead of failing: its
 * legacy insight routes (the legacy query builder's `0 = 191` on `Cohort.DoesNotExist`; test_insight.py
 * test_nonexistent_cohort_is_handled: "This should not throw an error, just act like there's no event matches") and
 * its events list (test_event.py test_events_nonexistent_cohort_handling: "Both cases just empty"). The query API
 * keeps its 400 for the same filter.
 */
import { In, type Repository } from 'typeorm';
import { cohortIdOf } from './cohort-definition';
import { cohortFilterIds } from './cohort-runners';
import type { Cohort } from '../store/entities';

/** The filter that replaces a missing cohort's: a ProductQL condition that is never true, PostHog's own. */
export const NEVER_MATCHES = { type: 'hogql', key: '0 = 191' } as const;

/**
 * The node with every cohort property filter whose cohort the project lacks (as the cohort loader sees it: a
 * soft-deleted cohort is still there; a value that is no id names none) replaced by {@link NEVER_MATCHES}; the node
 * itself when there is none. Breakdowns by cohort are left alone (still a 400).
 */
export async function withoutMissingCohorts<T extends Record<string, unknown>>(node: T, projectId: number, cohorts: Repository<Cohort>): Promise<T> {
  const ids = cohortFilterIds(node, true);
  const live = ids.length ? await cohorts.find({ select: { id: true }, where: { project_id: projectId, id: In(ids) } }) : [];
  const known = new Set(live.map((c) => c.id));
  let missing = false;
  const replace = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(replace);
    if (x === null || typeof x !== 'object') return x;
    const o = x as Record<string, unknown>;
    if (o.type === 'cohort' && 'value' in o && !known.has(cohortIdOf(o.value) ?? NaN)) {
      missing = true;
      return { ...NEVER_MATCHES };
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, replace(v)]));
  };
  const out = replace(node) as T;
  return missing ? out : node;
}
