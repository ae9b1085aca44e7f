/**
 * The actors of a funnel data point (PostHog's FunnelsActorsQuery), from the funnel's own per-actor evaluation:
 *
 * - steps (and time-to-convert) funnels: `funnelStep` n > 0 → actors whose furthest step is ≥ n (1-based), n < 0 →
 *   actors whose furthest step is |n| − 1 (dropped off before step |n|); `funnelCustomSteps` → actors whose furthest
 *   step (1-based) is one of the list (PostHog's `_get_funnel_person_step_condition`: `steps IN [...]`, which wins
 *   over `funnelStep`). As there, steps are not range-checked (a step past the last one has no actors; −(n+1) reads
 *   as "completed all n steps"), and a `funnelStep` of 0 with no custom steps is "Missing both funnelStep and
 *   funnelCustomSteps" (0 and [] are falsy in PostHog's `elif funnelStep:`);
 * - trends funnels (PostHog's FunnelTrends actor query): actors with an entry in the period starting at
 *   `funnelTrendsEntrancePeriodStart` that reached `funnelFromStep`, and then `funnelToStep`
 *   (`funnelTrendsDropOff: false`) or not (`true`) — the entries the trends data point counts; both fields are
 *   required there (PostHog's ValidationErrors, drop-off checked first);
 * - `funnelStepBreakdown` keeps one breakdown value.
 *
 * The actor is the funnel's aggregation target: the person, the group key, or the `funnelAggregateByHogQL` value (the
 * actors query joins it to persons, as PostHog's INNER JOIN does, so values that are no person id are only counted
 * as missing).
 */
import { validationError } from '../../errors';
import { bucketKey, insightsNow, instantToLocal, parseDateString, startOfInterval, type IntervalType } from '../insights';
import { runFunnels } from '../runners/funnels-runner';
import type { RunnerContext } from '../runner';
import type { FunnelsQueryNode } from './schema';
import type { ActorResult } from './compute';

/** The FunnelsActorsQuery fields that pick the data point. */
export interface FunnelActorsPoint {
  source: FunnelsQueryNode;
  funnelStep?: number | null;
  funnelStepBreakdown?: string | number | (string | number)[] | null;
  funnelCustomSteps?: number[] | null;
  funnelTrendsDropOff?: boolean | null;
  funnelTrendsEntrancePeriodStart?: string | null;
}

/**
 * The breakdown value the funnel runner hands its actors: boxed values joined by \u0001; a cohort id as text, all
 * users `0` (also asked for as `all`).
 */
function wantedValue(v: FunnelActorsPoint['funnelStepBreakdown'], node: FunnelsQueryNode): string | null {
  if (v === undefined || v === null) return null;
  const text = (Array.isArray(v) ? v : [v]).map(String).join('\u0001');
  return node.breakdownFilter?.breakdown_type === 'cohort' && text === 'all' ? '0' : text;
}

/** Ids of the actors of the data point, sorted. */
export async function funnelActorIds(point: FunnelActorsPoint, ctx: RunnerContext): Promise<string[]> {
  const node = point.source;
  const n = node.series.length;
  const viz = node.funnelsFilter?.funnelVizType ?? 'steps';
  const wanted = wantedValue(point.funnelStepBreakdown, node);
  const ids = new Set<string>();
  const hasBreakdown = (node.breakdownFilter?.breakdown !== undefined && node.breakdownFilter?.breakdown !== null) || !!node.breakdownFilter?.breakdowns?.length;
  const valueOk = (value: string): boolean => !hasBreakdown || wanted === null || value === wanted;

  if (viz === 'trends') {
    const attr = 'source__funnelTrendsEntrancePeriodStart';
    // (PostHog's FunnelTrends.actor_query words)
    if (point.funnelTrendsDropOff === undefined || point.funnelTrendsDropOff === null)
      throw validationError('Actors parameter `funnelTrendsDropOff` must be provided for funnel trends persons!', 'source__funnelTrendsDropOff');
    if (!point.funnelTrendsEntrancePeriodStart) throw validationError('Actors parameter `funnelTrendsEntrancePeriodStart` must be provided funnel trends persons!', attr);
    const tz = ctx.project.timezone;
    const interval: IntervalType = node.interval ?? 'day';
    const weekStart = ctx.project.week_start_day ?? 0;
    const period = parseDateString(point.funnelTrendsEntrancePeriodStart, instantToLocal(insightsNow(), tz), tz, attr).value;
    // PostHog compares `entrance_period_start = <value>`: a value that is not a period start matches no entry.
    const key = startOfInterval(period, interval, weekStart) === period ? bucketKey(period, interval) : null;
    const from = node.funnelsFilter?.funnelFromStep ?? 0;
    const to = node.funnelsFilter?.funnelToStep ?? n - 1;
    const dropOff = point.funnelTrendsDropOff;
    await runFunnels(node, ctx, {
      onActor(actor, value, r) {
        if (key === null || !valueOk(value)) return;
        // The actor's furthest step over its entries of the period (the trends data point counts it once there).
        let reach = -1;
        for (const [entry, step] of r.reachByEntry)
          if (step > reach && bucketKey(startOfInterval(instantToLocal(entry, tz), interval, weekStart), interval) === key) reach = step;
        if (reach >= from && (dropOff ? reach < to : reach >= to)) ids.add(actor);
      },
    });
    return [...ids].sort();
  }

  let hit: (r: ActorResult) => boolean;
  if (point.funnelCustomSteps?.length) {
    const steps = new Set(point.funnelCustomSteps);
    hit = (r) => steps.has(r.maxStep + 1);
  } else if (point.funnelStep) {
    const step = point.funnelStep;
    hit = step > 0 ? (r) => !!r.reached[step - 1] : (r) => !!r.reached[-step - 2] && !r.reached[-step - 1];
  } else throw validationError('Missing both funnelStep and funnelCustomSteps', 'source__funnelStep');
  await runFunnels({ ...node, funnelsFilter: { ...node.funnelsFilter, funnelVizType: 'steps' } }, ctx, {
    onActor(actor, value, r) {
      if (valueOk(value) && hit(r)) ids.add(actor);
    },
  });
  return [...ids].sort();
}
