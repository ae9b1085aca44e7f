/**
 * StickinessQuery (reference §6): for each actor, the number of intervals (of `intervalCount` buckets, counted
 * backwards from date_to) in which they were active — or in which their event count met `stickinessCriteria` —
 * then how many actors were active in exactly k intervals (k = 1..N), or in ≥ k for `computedAs: cumulative`.
 * All three levels aggregate in the engine; JS only zero-fills and shapes.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { parseExprSync } from '../../productql/parser';
import { validationError } from '../../errors';
import type { QueryRunner, RunnerContext } from '../runner';
import {
  QueryDateRange,
  actorExpr,
  containsAggregate,
  personActorParts,
  bucketStartExpr,
  cal,
  earliestTimestamp,
  ensureFilterParser,
  globalFilterExpr,
  isCompare,
  isSubDay,
  localToInstant,
  previousPeriodRange,
  resolveSeries,
  runInsightQuery,
  seriesFilterExpr,
  seriesIdentity,
  seriesLabel,
  sqlLocal,
  stickinessQuerySchema,
  toNumber,
  type EventsNode,
  type IntervalType,
  type StickinessQuery,
} from '../insights';

/** The actor of a stickiness series other than persons: `$group_N` for unique_group, or the math_hogql expression. */
function stickinessActor(s: EventsNode, attr: string): Expr {
  if (s.math === 'unique_group') {
    if (s.math_group_type_index === null || s.math_group_type_index === undefined)
      throw validationError('math "unique_group" needs math_group_type_index.', `${attr}__math_group_type_index`);
    return actorExpr(s.math_group_type_index);
  }
  if (s.math === 'hogql') {
    if (!s.math_hogql) throw validationError('math "hogql" needs math_hogql.', `${attr}__math_hogql`);
    // the actor of each event (stickiness counts its active intervals): an aggregate has no value per event
    const expr = parseExprSync(s.math_hogql);
    if (containsAggregate(expr))
      throw validationError(`math_hogql "${s.math_hogql}" contains an aggregation; a stickiness actor is a value of each event (e.g. properties.$session_id).`, `${attr}__math_hogql`);
    return expr;
  }
  throw new Error('person actors are split by personActorParts');
}

/** `1 day`, `2 days`, `3 weeks or more`. */
export function stickinessLabel(k: number, interval: IntervalType, cumulative: boolean): string {
  return `${k} ${interval}${k === 1 ? '' : 's'}${cumulative ? ' or more' : ''}`;
}

/**
 * PostHog's number of intervals of a range, `dateDiff(interval, startOf(date_from), startOf(date_to) + 1 interval)`
 * (reference §6.3). ClickHouse counts hours and minutes in real time, so the autumn DST day has 25 hours; the local
 * bucket list names the repeated hour once, so sub-day intervals are counted between the two instants instead.
 */
function intervalsIn(range: QueryDateRange): number {
  if (!isSubDay(range.interval)) return range.buckets().length;
  const step = range.interval === 'hour' ? cal.MS_HOUR : 60_000;
  const span = localToInstant(range.bucketTo, range.timezone).getTime() - localToInstant(range.bucketFrom, range.timezone).getTime();
  return Math.round(span / step) + 1;
}

/** One row per actor (`actor`, `n`: its number of active intervals, or of those meeting the criteria), in parts. */
function perActorParts(node: StickinessQuery, ctx: RunnerContext, s: EventsNode, i: number, range: QueryDateRange, global: Expr | undefined): ast.SelectQuery[] {
  const attr = `series__${i}`;
  const interval = node.interval ?? 'day';
  const k = node.intervalCount ?? 1;
  const bucketExpr =
    k === 1
      ? bucketStartExpr(interval, range.weekStartDay)
      : // whole intervals elapsed until date_to (PostHog's `age`, reference §6.3), not boundaries crossed (`dateDiff`): they
        // differ when date_to is not at the end of an interval (a month date_to mid-month; an absolute hour date_to)
        ast.call('intDiv', [
          ast.call('age', [ast.constant(interval), ast.field('timestamp'), ast.call('toDateTime', [ast.constant(sqlLocal(range.dateTo))])]),
          ast.constant(k),
        ]);
  const where = ast.and(range.whereExpr(), seriesFilterExpr(s, { timezone: ctx.project.timezone, attr }), global);
  const crit = node.stickinessFilter?.stickinessCriteria;
  /**
   * One row (`n`) per actor: the number of its active intervals, or of those meeting the criteria. The events are
   * `events AS e`, as in PostHog's stickiness query, so a math_hogql or ProductQL filter may say `e.properties.x`.
   */
  const perActor = (actor: Expr, actorWhere: Expr | undefined): ast.SelectQuery => {
    if (!crit)
      return ast.select({
        select: [ast.alias('n', ast.call('uniq', [bucketExpr])), ast.alias('actor', ast.call('toString', [actor]))],
        from: 'events',
        fromAlias: 'e',
        where: ast.and(where, actorWhere),
        groupBy: [actor],
      });
    const inner = ast.select({
      select: [ast.alias('actor', actor), ast.alias('b', bucketExpr), ast.alias('c', ast.call('count', []))],
      from: 'events',
      fromAlias: 'e',
      where: ast.and(where, actorWhere),
      groupBy: [ast.constant(1), ast.constant(2)],
    });
    return ast.select({
      select: [ast.alias('n', ast.call('count', [])), ast.alias('actor', ast.call('toString', [ast.field('x', 'actor')]))],
      from: inner,
      fromAlias: 'x',
      where: ast.compare(crit.operator === 'gte' ? '>=' : crit.operator === 'lte' ? '<=' : '==', ast.field('x', 'c'), ast.constant(crit.value)),
      groupBy: [ast.field('x', 'actor')],
    });
  };
  // Persons: one part keyed on person_id and one on the distinct id of personless events (disjoint actor sets; see
  // personActorParts), instead of grouping on a text key built per row.
  let parts: ast.SelectQuery[];
  if (s.math === 'unique_group' || s.math === 'hogql') {
    const actor = stickinessActor(s, attr);
    const present = ast.and(ast.call('isNotNull', [actor]), s.math === 'unique_group' ? ast.compare('!=', actor, ast.constant('')) : undefined);
    parts = [perActor(actor, present)];
  } else parts = personActorParts().map((p) => perActor(p.actor, p.where));
  return parts;
}

async function computeSeries(
  node: StickinessQuery,
  ctx: RunnerContext,
  s: EventsNode,
  i: number,
  range: QueryDateRange,
  global: Expr | undefined,
  hogql: string[],
): Promise<number[]> {
  const n = Math.max(1, Math.ceil(intervalsIn(range) / (node.intervalCount ?? 1)));
  const parts = perActorParts(node, ctx, s, i, range, global);
  const q = ast.select({
    select: [ast.alias('n', ast.field('y', 'n')), ast.alias('actors', ast.call('count', []))],
    from: parts.length === 1 ? parts[0] : ast.unionAll(...parts),
    fromAlias: 'y',
    groupBy: [ast.constant(1)],
  });
  const r = await runInsightQuery(ctx, q);
  hogql.push(r.hogql);
  const data = new Array(n).fill(0);
  for (const row of r.rows) {
    const idx = toNumber(row.n) - 1;
    if (idx >= 0 && idx < n) data[idx] += toNumber(row.actors);
  }
  return data;
}

/** Validates the node and resolves its series, global filters and date range. */
async function prepare(node: StickinessQuery, ctx: RunnerContext, dropped: Set<number>) {
  await ensureFilterParser();
  const interval = node.interval ?? 'day';
  if (interval === 'week' && (node.intervalCount ?? 1) > 1) throw validationError('Week intervals cannot have intervalCount > 1.', 'intervalCount');
  const series = await resolveSeries(node.series, ctx, 'drop', dropped);
  const global = globalFilterExpr(node, ctx);
  let earliest: Date | null = null;
  if (node.dateRange?.date_from === 'all')
    earliest = await earliestTimestamp(ctx, ast.and(ast.or(...series.map((s) => seriesFilterExpr(s) ?? ast.constant(true))), global), 'e');
  const range = new QueryDateRange({
    dateRange: node.dateRange,
    interval,
    timezone: ctx.project.timezone,
    weekStartDay: ctx.project.week_start_day ?? 0,
    earliest,
  });
  range.checkIntervalCount();
  return { series, global, range };
}

/**
 * The actors of one stickiness data point (`day`: active in exactly that many intervals, or in at least that many for
 * `computedAs: cumulative`): `SELECT actor_id`, one row per actor.
 */
export async function stickinessActorsQuery(
  node: StickinessQuery,
  ctx: RunnerContext,
  point: { day: number; series: number; compare: 'current' | 'previous' | null },
): Promise<{ query: ast.SelectQuery; groupTypeIndex: number | null }> {
  const { series, global, range: current } = await prepare(node, ctx, new Set());
  const s = series[point.series];
  if (!s) throw validationError(`series ${point.series} does not exist in the source query.`, 'source__series');
  if (s.math === 'hogql') throw validationError('Actors of a stickiness series aggregated by a ProductQL expression are not supported.', 'source__series');
  let range = current;
  if (point.compare === 'previous') {
    if (!isCompare(node.compareFilter)) throw validationError('compare "previous" needs a source query that compares to a previous period.', 'source__compare');
    range = previousPeriodRange(current, node.compareFilter!);
  }
  const parts = perActorParts(node, ctx, s, point.series, range, global);
  const y = (f: string): Expr => ast.field('y', f);
  const query = ast.select({
    select: [ast.alias('actor_id', y('actor'))],
    from: parts.length === 1 ? parts[0] : ast.unionAll(...parts),
    fromAlias: 'y',
    where: ast.compare(node.stickinessFilter?.computedAs === 'cumulative' ? '>=' : '==', y('n'), ast.constant(point.day)),
  });
  return { query, groupTypeIndex: s.math === 'unique_group' ? (s.math_group_type_index ?? null) : null };
}

export const stickinessRunner: QueryRunner<StickinessQuery> = {
  kinds: ['StickinessQuery'],
  schema: stickinessQuerySchema,
  async run(node, ctx) {
    const interval = node.interval ?? 'day';
    const dropped = new Set<number>();
    const { series, global, range } = await prepare(node, ctx, dropped);
    const compare = isCompare(node.compareFilter);
    const periods: { range: QueryDateRange; label: 'current' | 'previous' | null }[] = [{ range, label: compare ? 'current' : null }];
    if (compare) periods.push({ range: previousPeriodRange(range, node.compareFilter!), label: 'previous' });
    const cumulative = node.stickinessFilter?.computedAs === 'cumulative';
    const hogql: string[] = [];

    const jobs = series.flatMap((s, i) => periods.map((p) => ({ s, i, p })));
    const computed = await Promise.all(jobs.map((j) => computeSeries(node, ctx, j.s, j.i, j.p.range, global, hogql)));
    const results = jobs.map((j, idx) => {
      const raw = computed[idx];
      const count = raw.reduce((a, b) => a + b, 0);
      const data = cumulative ? raw.map((_, x) => raw.slice(x).reduce((a, b) => a + b, 0)) : raw;
      return {
        count,
        data,
        days: data.map((_, x) => x + 1),
        label: seriesLabel(j.s),
        labels: data.map((_, x) => stickinessLabel(x + 1, interval, cumulative)),
        // PostHog's stickiness action object (reference §6.2): order, type, name, id, custom_name.
        action: j.s.action
          ? { order: j.i, ...seriesIdentity(j.s), custom_name: j.s.custom_name ?? null }
          : { order: j.i, type: 'events', name: j.s.event ?? 'All events', id: j.s.event ?? null, custom_name: j.s.custom_name ?? null },
        filter: { insight: 'STICKINESS', interval, ...j.p.range.resolved() },
        ...(j.p.label ? { compare: true, compare_label: j.p.label } : {}),
      };
    });
    return {
      results: results.filter((_, idx) => !dropped.has(jobs[idx].i)),
      hogql: hogql[0] ?? '',
      modifiers: node.modifiers ?? {},
      resolved_date_range: range.resolved(),
    };
  },
};
