/**
 * Cohort support for every query runner, without the runners knowing about cohorts:
 *
 * - before a runner starts, every cohort the node names (`{type: 'cohort', key: 'id', value}` filters anywhere in
 *   it, in the steps of the actions it names, and cohort breakdown ids) is loaded from the query's project, with the
 *   cohorts those refer to; an id the project does not have is PostHog's 400; the loaded cohorts are visible to the
 *   property-filter builder for the run ({@link runWithCohorts});
 * - a trends query with `breakdown_type: 'cohort'` runs as PostHog's trends runner does it: once per cohort (in the
 *   order given) with the cohort as an extra filter (`all`: no filter), each series labelled `<label> - <cohort
 *   name>` (`- all users`; a formula item keeps `Formula (…)`) with `breakdown_value` the cohort id (`'all'`).
 */
import { validationError } from '../errors';
import { cohortBreakdownValues, type CohortBreakdownValue } from '../queries/insights/breakdown';
import type { QueryRunner, RunnerContext } from '../queries/runner';
import { cohortIdOf } from './cohort-definition';
import { actionCohortIds } from './action-cohorts';
import { productqlCohortIds } from './productql-cohorts';
import type { CohortLoader } from './cohort-loader';
import { cohortNotFoundMessage, runWithCohorts, type ResolvedCohort } from './cohort-scope';

/**
 * Cohort ids named by filters anywhere in a node; a `value` that is no id is a 400 naming it, or skipped when `lenient`
 * (stored filters, or callers that treat an unknown cohort as matching nothing).
 */
export function cohortFilterIds(node: unknown, lenient = false): number[] {
  const out = new Set<number>();
  const walk = (x: unknown, depth: number) => {
    if (depth > 64 || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach((v) => walk(v, depth + 1));
    const o = x as Record<string, unknown>;
    if (o.type === 'cohort' && 'value' in o) {
      const id = cohortIdOf(o.value);
      if (id !== null) out.add(id);
      else if (!lenient) throw validationError(cohortNotFoundMessage(o.value), 'properties');
    }
    for (const v of Object.values(o)) walk(v, depth + 1);
  };
  walk(node, 0);
  return [...out];
}

/** Whether `filterTestAccounts: true` is set anywhere in a node (the query itself, or an actors query's source). */
function usesTestAccountFilters(x: unknown, depth = 0): boolean {
  if (depth > 64 || x === null || typeof x !== 'object') return false;
  if (Array.isArray(x)) return x.some((v) => usesTestAccountFilters(v, depth + 1));
  const o = x as Record<string, unknown>;
  return o.filterTestAccounts === true || Object.values(o).some((v) => usesTestAccountFilters(v, depth + 1));
}

type Props = unknown[] | { type: 'AND' | 'OR'; values: unknown[] } | null | undefined;

/** `properties` ANDed with one more filter, in the form it came in. */
function withFilter(props: Props, filter: Record<string, unknown>): Props {
  if (!props) return [filter];
  if (Array.isArray(props)) return [...props, filter];
  return { type: 'AND', values: [props, filter] };
}

async function runCohortBreakdown(
  runner: QueryRunner,
  node: Record<string, unknown> & { breakdownFilter?: Record<string, unknown> | null; properties?: Props },
  ctx: RunnerContext,
  values: CohortBreakdownValue[],
  cohorts: ReadonlyMap<number, ResolvedCohort>,
): Promise<Record<string, unknown>> {
  const merged: Record<string, unknown>[] = [];
  // an item's `filter` echoes the query itself, as PostHog's _query_to_filter reads the runner's query: its own
  // properties (not the run's cohort filter), and the cohort breakdownFilter's set fields last
  const breakdownFields = Object.entries(node.breakdownFilter ?? {}).filter(([, x]) => x !== null && x !== undefined);
  const filterEcho = (f: object): Record<string, unknown> => ({ ...f, properties: node.properties ?? [], ...Object.fromEntries(breakdownFields) });
  let first: Record<string, unknown> | null = null;
  let hasMore = false;
  for (const v of values) {
    const { breakdownFilter: _drop, ...rest } = node;
    const sub = v === 'all' ? rest : { ...rest, properties: withFilter(node.properties, { type: 'cohort', key: 'id', value: v, operator: 'in' }) };
    const response = await runner.run(sub, ctx);
    first ??= response;
    if (response.hasMore === true) hasMore = true;
    const name = v === 'all' ? 'all users' : (cohorts.get(v)?.name ?? String(v));
    for (const item of (response.results as Record<string, unknown>[] | undefined) ?? []) {
      // a formula item (no action) keeps its label: PostHog's apply_formula_to_results_group relabels the group
      // `Formula (…)` (or its custom name) after the cohort names are on
      const label = item.action === null ? item.label : `${String(item.label)} - ${name}`;
      merged.push({ ...item, label, breakdown_value: v, ...(item.filter && typeof item.filter === 'object' ? { filter: filterEcho(item.filter) } : {}) });
    }
  }
  return { ...(first ?? {}), results: merged, ...(first && 'hasMore' in first ? { hasMore } : {}) };
}

/** The runners, each loading the cohorts its node names first; trends also answer cohort breakdowns. */
export function withCohortRunners(runners: QueryRunner[], loader: CohortLoader): QueryRunner[] {
  return runners.map((runner) => ({
    ...runner,
    async run(node: any, ctx: RunnerContext): Promise<Record<string, unknown>> {
      const isTrends = node?.kind === 'TrendsQuery';
      const bf = node?.breakdownFilter as Parameters<typeof cohortBreakdownValues>[0];
      // trends answer cohort breakdowns here; elsewhere the breakdown code answers its 400
      const breakdown = isTrends ? cohortBreakdownValues(bf) : null;
      const ids = cohortFilterIds(node);
      // the project's test-account filters apply wherever the node sets filterTestAccounts: load their cohorts too
      // (no 400 for a missing one: testAccountFiltersExpr skips an unusable stored filter, as PostHog's non-strict mode)
      const testAccountIds = usesTestAccountFilters(node) ? cohortFilterIds(ctx.project.test_account_filters ?? [], true) : [];
      // funnels and retention (and their actors) run once per cohort themselves (funnels/cohort-breakdown.ts,
      // retention/cohort-breakdown.ts): their cohorts are only loaded here
      const source = node?.kind === 'ActorsQuery' ? node?.source : undefined;
      const ownBf =
        node?.kind === 'FunnelsQuery' || node?.kind === 'RetentionQuery'
          ? bf
          : source?.kind === 'FunnelsActorsQuery' || (source?.kind === 'InsightActorsQuery' && source?.source?.kind === 'RetentionQuery')
            ? source.source?.breakdownFilter
            : undefined;
      const ownBreakdown = ownBf ? cohortBreakdownValues(ownBf) : null;
      // the actors (and actors options) of a trends cohort breakdown: the point's cohort filter and the cohorts' names
      const insightActors = node?.kind === 'ActorsQuery' || node?.kind === 'InsightActorsQueryOptions' ? node?.source : node?.kind === 'InsightActorsQuery' ? node : undefined;
      const trendsActorsBreakdown =
        insightActors?.kind === 'InsightActorsQuery' && insightActors?.source?.kind === 'TrendsQuery' ? cohortBreakdownValues(insightActors.source.breakdownFilter) : null;
      const breakdownIds = [...(breakdown ?? []), ...(ownBreakdown ?? []), ...(trendsActorsBreakdown ?? [])].filter((v): v is number => v !== 'all');
      // cohorts of the node's actions' steps: not checked here, the filter builder answers a missing one's 400
      // … and of its ProductQL's IN COHORT (by id or name): a missing one is the compiler's 400
      const wanted = [...ids, ...testAccountIds, ...breakdownIds, ...(await actionCohortIds(node, ctx)), ...(await productqlCohortIds(node, ctx.project.id, loader))];
      // a cohort breakdown of only "all" names no cohort, and still runs as a cohort breakdown
      if (wanted.length === 0 && !breakdown) return runner.run(node, ctx);
      const cohorts = await loader.load(ctx.project.id, wanted);
      for (const id of ids) if (!cohorts.has(id)) throw validationError(cohortNotFoundMessage(id), 'properties');
      for (const id of breakdownIds) if (!cohorts.has(id)) throw validationError(cohortNotFoundMessage(id), 'breakdownFilter__breakdown');
      return runWithCohorts(cohorts, () => (breakdown ? runCohortBreakdown(runner, node, ctx, breakdown, cohorts) : runner.run(node, ctx)));
    },
  }));
}
