/**
 * LifecycleQuery (reference §7). Per actor and active interval, with the previous/next active interval from a
 * window over the actor's activity:
 * - the interval of the person's `created_at` → new;
 * - else directly after the previous active interval (and not the first one) → returning;
 * - else → resurrecting;
 * and the interval after an active interval without activity gets a (negative) dormant mark.
 * Personless events are excluded. Everything aggregates in the engine; JS zero-fills and shapes four series.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import type { QueryRunner } from '../runner';
import {
  LIFECYCLE_STATUSES,
  QueryDateRange,
  actorExpr,
  addInterval,
  bucketKeyFromValue,
  bucketStartExpr,
  earliestTimestamp,
  ensureFilterParser,
  globalFilterExpr,
  lifecycleQuerySchema,
  requireEventsNode,
  runInsightQuery,
  seriesFilterExpr,
  seriesLabel,
  sqlLocal,
  toNumber,
  type IntervalType,
  type LifecycleQuery,
} from '../insights';

const intervalCall = (interval: IntervalType): string =>
  ({ minute: 'toIntervalMinute', hour: 'toIntervalHour', day: 'toIntervalDay', week: 'toIntervalWeek', month: 'toIntervalMonth' })[interval];

const shift = (e: Expr, interval: IntervalType, op: '+' | '-'): Expr => ast.arithmetic(op, e, ast.call(intervalCall(interval), [ast.constant(1)]));

export const lifecycleRunner: QueryRunner<LifecycleQuery> = {
  kinds: ['LifecycleQuery'],
  schema: lifecycleQuerySchema,
  async run(node, ctx) {
    await ensureFilterParser();
    const interval = node.interval ?? 'day';
    const series = node.series.map((s, i) => requireEventsNode(s, `series__${i}`));
    const tz = ctx.project.timezone;
    const groupIndex = node.aggregation_group_type_index ?? null;
    const eventFilter = ast.and(
      ...series.map((s, i) => seriesFilterExpr(s, { timezone: tz, attr: `series__${i}` })),
      globalFilterExpr(node, ctx),
    );
    let earliest: Date | null = null;
    if (node.dateRange?.date_from === 'all') earliest = await earliestTimestamp(ctx, eventFilter);
    const range = new QueryDateRange({
      dateRange: node.dateRange,
      interval,
      timezone: tz,
      weekStartDay: ctx.project.week_start_day ?? 0,
      earliest,
    });
    const buckets = range.buckets();
    const actor = actorExpr(groupIndex);
    const b = bucketStartExpr(interval, range.weekStartDay);
    // Group actors have no creation time here: their first activity counts as creation.
    const created =
      groupIndex === null
        ? ast.call('min', [bucketStartExpr(interval, range.weekStartDay, ast.field('person', 'created_at'))])
        : ast.constant(null);

    const activity = ast.select({
      select: [ast.alias('actor', actor), ast.alias('b', b), ast.alias('created_b', created)],
      from: 'events',
      where: ast.and(
        range.whereExpr(ast.field('timestamp'), {
          lower: addInterval(range.bucketFrom, interval, -1),
          upper: addInterval(range.bucketTo, interval, 1),
          upperExclusive: true,
        }),
        eventFilter,
        ast.call('isNotNull', [actor]),
        groupIndex === null ? undefined : ast.compare('!=', actor, ast.constant('')),
      ),
      groupBy: [ast.constant(1), ast.constant(2)],
    });
    const over = { partition_by: [ast.field('a', 'actor')], order_by: [ast.order(ast.field('a', 'b'))] };
    const withNeighbours = ast.select({
      select: [
        ast.alias('actor', ast.field('a', 'actor')),
        ast.alias('b', ast.field('a', 'b')),
        ast.alias('created_b', ast.field('a', 'created_b')),
        ast.alias('prev', ast.windowFunction('lag', [ast.field('a', 'b')], over)),
        ast.alias('next', ast.windowFunction('lead', [ast.field('a', 'b')], over)),
      ],
      from: activity,
      fromAlias: 'a',
    });
    const y = (f: string): Expr => ast.field('y', f);
    const statusOf = ast.call('multiIf', [
      ast.call('ifNull', [ast.compare('==', y('b'), y('created_b')), ast.constant(false)]),
      ast.constant('new'),
      ast.and(ast.call('isNotNull', [y('prev')]), ast.compare('==', y('prev'), shift(y('b'), interval, '-'))),
      ast.constant('returning'),
      ast.constant('resurrecting'),
    ]);
    const active = ast.select({
      select: [ast.alias('bucket', y('b')), ast.alias('status', statusOf), ast.alias('actor', y('actor'))],
      from: withNeighbours,
      fromAlias: 'y',
    });
    const dormant = ast.select({
      select: [ast.alias('bucket', shift(y('b'), interval, '+')), ast.alias('status', ast.constant('dormant')), ast.alias('actor', y('actor'))],
      from: withNeighbours,
      fromAlias: 'y',
      where: ast.or(ast.call('isNull', [y('next')]), ast.compare('!=', y('next'), shift(y('b'), interval, '+'))),
    });
    const z = (f: string): Expr => ast.field('z', f);
    const q = ast.select({
      select: [ast.alias('bucket', z('bucket')), ast.alias('status', z('status')), ast.alias('actors', ast.call('uniq', [z('actor')]))],
      from: ast.unionAll(active, dormant),
      fromAlias: 'z',
      where: ast.and(
        ast.compare('>=', z('bucket'), ast.constant(sqlLocal(range.bucketFrom))),
        ast.compare('<=', z('bucket'), ast.constant(sqlLocal(range.bucketTo))),
      ),
      groupBy: [ast.constant(1), ast.constant(2)],
    });
    const r = await runInsightQuery(ctx, q);
    const index = new Map(buckets.map((bk, i) => [bk.key, i]));
    const data: Record<string, number[]> = Object.fromEntries(LIFECYCLE_STATUSES.map((s) => [s, new Array(buckets.length).fill(0)]));
    for (const row of r.rows) {
      const i = index.get(bucketKeyFromValue(row.bucket, interval, tz));
      const st = String(row.status);
      if (i === undefined || !data[st]) continue;
      data[st][i] += (st === 'dormant' ? -1 : 1) * toNumber(row.actors);
    }
    const s0 = series[0];
    const label = seriesLabel(s0);
    const results = LIFECYCLE_STATUSES.map((status) => ({
      action: { id: s0.event ?? null, name: s0.name ?? label, type: 'events', order: 0, math: 'total', custom_name: s0.custom_name ?? null },
      data: data[status],
      count: data[status].reduce((a, v) => a + v, 0),
      labels: buckets.map((bk) => bk.label),
      days: buckets.map((bk) => bk.key),
      label: `${label} - ${status}`,
      status,
    }));
    return { results, hogql: r.hogql, modifiers: node.modifiers ?? {}, resolved_date_range: range.resolved() };
  },
};
