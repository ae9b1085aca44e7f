/**
 * Funnel cohort breakdowns (`breakdownFilter: {breakdown_type: 'cohort', breakdown: [id, …, 'all']}`), as PostHog's
 * funnel UDF runs them (`aggregate_funnel_cohort`, grouped by actor *and* cohort): every cohort is a funnel of its
 * own over the actors in it, so an actor in two cohorts counts in both. Here: the funnel once per cohort with the
 * cohort as an extra filter (`all`: none). Step objects carry `breakdown` = the cohort name (`all users`) and
 * `breakdown_value` = the cohort id (`0` for all users), as PostHog's `_format_single_funnel`
 * (`get_breakdown_cohort_name`); trends series carry the cohort name as `breakdown_value` (`["None"]` for all users), as
 * PostHog's FunnelTrends._format_results renders them.
 *
 * The cohorts must be in the run's scope (src/cohorts/cohort-scope.ts, loaded by the cohort-aware runner wrapper).
 */
import { validationError } from '../../errors';
import { cohortInScope, cohortNotFoundMessage } from '../../cohorts/cohort-scope';
import { cohortBreakdownValues, type CohortBreakdownValue } from '../insights';
import type { RunnerContext } from '../runner';
import type { FunnelsQueryNode } from './schema';
import type { ActorResult } from './compute';

type Run = (
  node: FunnelsQueryNode,
  ctx: RunnerContext,
  opts: { onActor?: (actor: string, breakdownValue: string, result: ActorResult) => void },
) => Promise<Record<string, unknown>>;

const cohortFilter = (id: number) => ({ type: 'cohort' as const, key: 'id', value: id, operator: 'in' as const });

/** `properties` ANDed with a filter — or with the OR of several — as a property group (or a list when it was one). */
function withFilters(props: FunnelsQueryNode['properties'], filters: Record<string, unknown>[]): FunnelsQueryNode['properties'] {
  if (!filters.length) return props;
  if (filters.length === 1 && (!props || Array.isArray(props))) return [...(props ?? []), filters[0]] as FunnelsQueryNode['properties'];
  const extra = { type: 'OR', values: filters };
  const base = !props ? [] : Array.isArray(props) ? (props.length ? [{ type: 'AND', values: props }] : []) : [props];
  return { type: 'AND', values: [...base, extra] } as unknown as FunnelsQueryNode['properties'];
}

/** The cohort values of a cohort breakdown, each checked to be a cohort of the project; null for other breakdowns. */
export function funnelCohortValues(node: FunnelsQueryNode): CohortBreakdownValue[] | null {
  const values = cohortBreakdownValues(node.breakdownFilter);
  if (!values) return null;
  for (const v of values) if (v !== 'all' && !cohortInScope(v)) throw validationError(cohortNotFoundMessage(v), 'breakdownFilter__breakdown');
  return values;
}

const idOf = (v: CohortBreakdownValue): number => (v === 'all' ? 0 : v);

export async function runFunnelCohortBreakdown(
  node: FunnelsQueryNode,
  ctx: RunnerContext,
  values: CohortBreakdownValue[],
  run: Run,
  onActor?: (actor: string, breakdownValue: string, result: ActorResult) => void,
): Promise<Record<string, unknown>> {
  const viz = node.funnelsFilter?.funnelVizType ?? 'steps';
  const plain = { ...node, breakdownFilter: null };
  if (viz === 'time_to_convert') {
    // One histogram: the actors of any of the cohorts (each counted once).
    const filters = values.includes('all') ? [] : values.map((v) => cohortFilter(idOf(v)));
    return run({ ...plain, properties: withFilters(node.properties, filters) }, ctx, { onActor });
  }
  let first: Record<string, unknown> | null = null;
  const parts: { id: number; result: unknown }[] = [];
  for (const v of values) {
    const id = idOf(v);
    const sub = v === 'all' ? plain : { ...plain, properties: withFilters(node.properties, [cohortFilter(id)]) };
    const response = await run(sub, ctx, { onActor: onActor ? (actor, _value, r) => onActor(actor, String(id), r) : undefined });
    first ??= response;
    parts.push({ id, result: response.results });
  }
  const name = (id: number): string => (id === 0 ? 'all users' : (cohortInScope(id)?.name ?? String(id)));
  if (viz === 'trends') {
    // FunnelTrends._format_results: a cohort id is rendered as the cohort's name, and 0 (all users) as ["None"] (the
    // values None/[None]/0); the series are then sorted by that value (all users first here: Python cannot compare
    // the list with the names).
    const series = parts
      .map((p) => ({ ...((p.result as Record<string, unknown>[])[0] ?? {}), breakdown_value: p.id === 0 ? ['None'] : name(p.id) }))
      .sort((a, b) => (Array.isArray(a.breakdown_value) ? -1 : Array.isArray(b.breakdown_value) ? 1 : a.breakdown_value < b.breakdown_value ? -1 : a.breakdown_value > b.breakdown_value ? 1 : 0));
    return { ...first, results: series };
  }
  const lists = parts
    .filter((p) => (p.result as unknown[]).length)
    .map((p) => (p.result as { count: number }[]).map((step) => ({ ...step, breakdown: name(p.id), breakdown_value: p.id })));
  // Ranked as every funnel breakdown: last-step count, then earlier steps (descending), then the value.
  lists.sort((x, y) => {
    for (let i = x.length - 1; i >= 0; i--) if (x[i].count !== y[i].count) return y[i].count - x[i].count;
    return x[0].breakdown_value - y[0].breakdown_value;
  });
  return { ...first, results: lists };
}
