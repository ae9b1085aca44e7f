/**
 * Cohort filters inside saved actions. An action step's `properties` may hold `{type: 'cohort', key: 'id', value}`
 * (PostHog's test_trends.py `test_action_filtering_with_cohort`: an action whose step keeps only the events of a
 * cohort's persons). The step's condition is built by the same property-filter builder as a series filter, which reads
 * cohorts from the running query's scope; the query node names only the action, so the cohort-aware runner wrapper
 * asks this module for the cohorts of the actions the node refers to and loads them with the node's own.
 */
import type { RunnerContext } from '../queries/runner';
import { cohortIdOf } from './cohort-definition';
import { matchesActionRefs } from '../actions/productql-actions';

/** Action ids a node refers to: ActionsNode series, steps and exclusions, and `{type: 'actions', id}` entities. */
export function actionIdsOf(node: unknown): number[] {
  const out = new Set<number>();
  const walk = (x: unknown, depth: number): void => {
    if (depth > 64 || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach((v) => walk(v, depth + 1));
    const o = x as Record<string, unknown>;
    if (o.kind === 'ActionsNode' || o.type === 'actions') {
      const id = cohortIdOf(o.id); // a positive integer, as a number or digits
      if (id !== null) out.add(id);
    }
    if (o.kind === 'EventsQuery' && o.actionId !== undefined && o.actionId !== null) {
      const id = cohortIdOf(o.actionId);
      if (id !== null) out.add(id);
    }
    for (const v of Object.values(o)) walk(v, depth + 1);
  };
  walk(node, 0);
  return [...out];
}

/** Cohort ids named by cohort filters in `properties` (a list or nested AND/OR groups); values that are not ids are skipped. */
function cohortIdsIn(properties: unknown, out: Set<number>, depth = 0): void {
  if (depth > 64 || properties === null || typeof properties !== 'object') return;
  if (Array.isArray(properties)) return properties.forEach((p) => cohortIdsIn(p, out, depth + 1));
  const o = properties as Record<string, unknown>;
  if (o.type === 'cohort') {
    const id = cohortIdOf(o.value);
    if (id !== null) out.add(id);
  } else if (Array.isArray(o.values)) cohortIdsIn(o.values, out, depth + 1);
}

/**
 * Cohort ids the step filters of the project's live actions named by `node` refer to ([] when it names none). Ids of
 * other projects' cohorts are returned too: the loader reads the query's project only, so they stay out of scope and
 * the filter builder answers its 400 for them.
 */
export async function actionCohortIds(node: unknown, ctx: RunnerContext): Promise<number[]> {
  // … and the actions ProductQL's matchesAction(id | 'name') names
  const named = matchesActionRefs(node);
  const ids = [...new Set([...actionIdsOf(node), ...named.ids])];
  if ((!ids.length && !named.names.length) || !ctx.actions) return [];
  const actions = [...(ids.length ? await ctx.actions.liveActions(ctx.project.id, ids) : new Map()).values()];
  if (named.names.length && ctx.actions.liveActionsByName) actions.push(...(await ctx.actions.liveActionsByName(ctx.project.id, named.names)));
  const out = new Set<number>();
  for (const action of actions) for (const step of action.steps) cohortIdsIn(step.properties, out);
  return [...out];
}
