/**
 * LifecycleQuery (reference §7). Per actor and active interval, looking at the actor's activity in the
 * previous and next interval (lag/lead over the actor's active intervals on DuckDB; a self-join elsewhere):
 * - the actor's first active interval (of the fetched window) when it is the interval of the person's `created_at` → new
 *   (PostHog compares each active interval with the previous one, the first with the creation interval: a later
 *   active interval that happens to be the creation interval, after activity before the creation, is not new);
 * - else directly after the previous active interval (and not the first one) → returning;
 * - else → resurrecting;
 * and the interval after an active interval without activity gets a (negative) dormant mark.
 * Personless events ($process_person_profile false) are excluded. Everything aggregates in the engine; JS zero-fills and shapes four series.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { validationError } from '../../errors';
import type { QueryRunner, RunnerContext } from '../runner';
import {
  LIFECYCLE_STATUSES,
  QueryDateRange,
  actorExpr,
  addInterval,
  bucketKeyFromValue,
  bucketLabel,
  bucketStartExpr,
  earliestTimestamp,
  ensureFilterParser,
  globalFilterExpr,
  isSubDay,
  isoWithOffset,
  lifecycleQuerySchema,
  mayHavePersonless,
  resolveSeries,
  runInsightQuery,
  seriesFilterExpr,
  seriesLabel,
  sqlLocal,
  toNumber,
  type Bucket,
  type IntervalType,
  type LifecycleQuery,
} from '../insights';

const intervalCall = (interval: IntervalType): string =>
  ({ minute: 'toIntervalMinute', hour: 'toIntervalHour', day: 'toIntervalDay', week: 'toIntervalWeek', month: 'toIntervalMonth' })[interval];

/**
 * PostHog's lifecycle labels (`%-d-%b-%Y`, with ` %H:%M` by hour): the interval's start day, not the trends labels
 * (week spans like `2–8 Feb`, `Feb 2020` for months); the lifecycle runner formats its own. Only `hour` adds the time
 * (LifecycleQueryRunner tests `interval_name == "hour"`): minutes are labelled, and dated, by their day.
 */
const lifecycleLabel = (bk: Bucket, interval: IntervalType): string =>
  bucketLabel(bk.start, 'day') + (interval === 'hour' ? ` ${bk.key.slice(11, 16)}` : '');

/** The `days` entry: `%Y-%m-%d`, with ` %H:%M:%S` by hour only (as the labels). */
const lifecycleDay = (bk: Bucket, interval: IntervalType): string => (interval === 'minute' ? bk.key.slice(0, 10) : bk.key);

const shift = (e: Expr, interval: IntervalType, op: '+' | '-'): Expr => ast.arithmetic(op, e, ast.call(intervalCall(interval), [ast.constant(1)]));

/**
 * PostHog leaves out personless events (`$process_person_profile` false, stored as 'false'), also those of a distinct id
 * that has a person (ingestion gives them its id). Reading the property costs ~1 µs per event (the JSON column is read
 * at all only for it: 1.1 s → 4.2 s over 3M events, DuckDB, one thread), so the check runs only for projects that
 * ever stored a personless event (EventEngine.hasPersonlessEvents): personless events of persons come with those of
 * anonymous visitors (posthog-js `person_profiles: 'identified_only'`).
 */
function personlessExcluded(ctx: RunnerContext): Expr | undefined {
  if (!mayHavePersonless(ctx)) return undefined;
  return ast.not(ast.call('ifNull', [ast.compare('==', ast.field('properties', '$process_person_profile'), ast.constant('false')), ast.constant(false)]));
}

/**
 * The lifecycle's statuses per actor: CTEs and a union of `(bucket, status, actor)` rows, one per actor and bucket (an
 * active interval's status, or the dormant mark after one). Buckets outside the range are not yet removed.
 */
async function lifecycleStatuses(node: LifecycleQuery, ctx: RunnerContext) {
  await ensureFilterParser();
  const interval = node.interval ?? 'day';
  const series = await resolveSeries(node.series, ctx, 'error');
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
  range.checkIntervalCount();
  const buckets = range.buckets();
  const actor = actorExpr(groupIndex);
  const b = bucketStartExpr(interval, range.weekStartDay);

  // Distinct (actor, interval) pairs first. On the window path the person's creation interval is looked up
  // afterwards, once per pair rather than once per event (persons joined to every event cost as much as the rest
  // of the query).
  const activity = ast.select({
    select: [ast.alias('actor', actor), ast.alias('b', b)],
    from: 'events',
    where: ast.and(
      range.whereExpr(ast.field('timestamp'), {
        lower: addInterval(range.bucketFrom, interval, -1),
        upper: addInterval(range.bucketTo, interval, 1),
        upperExclusive: true,
      }),
      eventFilter,
      personlessExcluded(ctx),
      ast.call('isNotNull', [actor]),
      groupIndex === null ? undefined : ast.compare('!=', actor, ast.constant('')),
    ),
    groupBy: [ast.constant(1), ast.constant(2)],
  });
  const a = (f: string): Expr => ast.field('a', f);
  // The actor's creation interval: of every `persons` row with the actor's id (as the lazy person join of events
  // reads it), or of the actor's group row (PostHog: the group's created_at); an actor without one is never "new".
  const createdJoin = ast.joinExpr(
    ast.select({
      select: [
        ast.alias('id', ast.field('pp', groupIndex === null ? 'id' : 'key')),
        ast.alias('created_b', ast.call('min', [bucketStartExpr(interval, range.weekStartDay, ast.field('pp', 'created_at'))])),
      ],
      from: groupIndex === null ? 'persons' : 'groups',
      fromAlias: 'pp',
      where: groupIndex === null ? undefined : ast.compare('==', ast.field('pp', 'index'), ast.constant(groupIndex)),
      groupBy: [ast.constant(1)],
    }),
    { alias: 'pc', type: 'LEFT JOIN', on: ast.compare('==', ast.field('pc', 'id'), a('actor')) },
  );
  const createdB: Expr = ast.field('pc', 'created_b');
  const statusOf = (isFirst: Expr, previousActive: Expr): Expr =>
    ast.call('multiIf', [
      ast.and(isFirst, ast.compare('==', a('b'), createdB)),
      ast.constant('new'),
      previousActive,
      ast.constant('returning'),
      ast.constant('resurrecting'),
    ]);

  let ctes: ast.CTE[];
  let active: ast.SelectQuery;
  let dormant: ast.SelectQuery;
  if (!isSubDay(interval) && ctx.engine.dialect === 'duckdb') {
    // Day/week/month buckets are calendar dates one interval apart, so the actor's previous/next active interval
    // (lag/lead over its sorted distinct intervals) is `b − 1`/`b + 1` exactly when there was activity there.
    const over = { node: 'WindowExpr' as const, partition_by: [ast.field('actor')], order_by: [ast.order(ast.field('b'))] };
    const win = (name: 'lag' | 'lead'): Expr => ({ node: 'WindowFunction', name, exprs: [ast.field('b')], over_expr: over });
    ctes = [
      ast.cte('activity', activity),
      ast.cte('nb', ast.select({ select: [ast.field('actor'), ast.field('b'), ast.alias('prev_b', win('lag')), ast.alias('next_b', win('lead'))], from: 'activity' })),
    ];
    const prevActive = ast.compare('==', a('prev_b'), shift(a('b'), interval, '-'));
    active = ast.select({
      select: [ast.alias('bucket', a('b')), ast.alias('status', statusOf(ast.call('isNull', [a('prev_b')]), prevActive)), ast.alias('actor', a('actor'))],
      from: ast.joins(ast.joinExpr('nb', { alias: 'a' }), createdJoin),
    });
    dormant = ast.select({
      select: [ast.alias('bucket', shift(a('b'), interval, '+')), ast.alias('status', ast.constant('dormant')), ast.alias('actor', a('actor'))],
      from: 'nb',
      fromAlias: 'a',
      where: ast.not(ast.call('ifNull', [ast.compare('==', a('next_b'), shift(a('b'), interval, '+')), ast.constant(false)])),
    });
  } else {
    // Neighbours by self-join (engines without window functions; sub-day buckets, which DST can space unevenly).
    // `one` marks a matched row: an unmatched LEFT JOIN gives NULL (DuckDB) or the default 0 (ClickHouse), never 1.
    const p = (f: string): Expr => ast.field('p', f);
    const n = (f: string): Expr => ast.field('n', f);
    const matched = (t: (f: string) => Expr): Expr => ast.compare('==', ast.call('ifNull', [t('one'), ast.constant(0)]), ast.constant(1));
    // The creation interval comes from the lazy person (or group) join of events here (one JOIN per SELECT on ClickHouse).
    const created = ast.call('min', [bucketStartExpr(interval, range.weekStartDay, ast.field(groupIndex === null ? 'person' : `group_${groupIndex}`, 'created_at'))]);
    ctes = [
      ast.cte(
        'activity',
        { ...activity, select: [...activity.select, ast.alias('created_b', created), ast.alias('one', ast.constant(1))] },
        // read five times below: on ClickHouse a stage (computed once into a session table) instead of five scans
        { materialized: true },
      ),
    ];
    // Whether the previous interval was active (self-join), then whether this is the actor's first active interval
    // (join with the per-actor minimum): one JOIN per SELECT.
    const withPrev = ast.select({
      select: [ast.alias('actor', a('actor')), ast.alias('b', a('b')), ast.alias('created_b', a('created_b')), ast.alias('prev_active', matched(p))],
      from: ast.joins(
        ast.joinExpr('activity', { alias: 'a' }),
        ast.joinExpr('activity', {
          alias: 'p',
          type: 'LEFT JOIN',
          on: ast.and(ast.compare('==', p('actor'), a('actor')), ast.compare('==', p('b'), shift(a('b'), interval, '-'))),
        }),
      ),
    });
    const x = (f: string): Expr => ast.field('x', f);
    const firsts = ast.select({
      select: [ast.alias('actor', ast.field('actor')), ast.alias('first_b', ast.call('min', [ast.field('b')]))],
      from: 'activity',
      groupBy: [ast.field('actor')],
    });
    active = ast.select({
      select: [
        ast.alias('bucket', x('b')),
        ast.alias(
          'status',
          ast.call('multiIf', [
            ast.and(ast.compare('==', x('b'), x('created_b')), ast.compare('==', x('b'), ast.field('f', 'first_b'))),
            ast.constant('new'),
            x('prev_active'),
            ast.constant('returning'),
            ast.constant('resurrecting'),
          ]),
        ),
        ast.alias('actor', x('actor')),
      ],
      from: ast.joins(
        ast.joinExpr(withPrev, { alias: 'x' }),
        ast.joinExpr(firsts, { alias: 'f', type: 'INNER JOIN', on: ast.compare('==', ast.field('f', 'actor'), x('actor')) }),
      ),
    });
    dormant = ast.select({
      select: [ast.alias('bucket', shift(a('b'), interval, '+')), ast.alias('status', ast.constant('dormant')), ast.alias('actor', a('actor'))],
      from: ast.joins(
        ast.joinExpr('activity', { alias: 'a' }),
        ast.joinExpr('activity', {
          alias: 'n',
          type: 'LEFT JOIN',
          on: ast.and(ast.compare('==', n('actor'), a('actor')), ast.compare('==', n('b'), shift(a('b'), interval, '+'))),
        }),
      ),
      where: ast.not(matched(n)),
    });
  }
  return { ctes, statuses: ast.unionAll(active, dormant), range, buckets, series, interval, tz, groupIndex };
}

/**
 * The actors of lifecycle status rows: of one interval (`day`: its `days` entry; absent: every interval of the range)
 * and one status (absent: any). `SELECT actor_id`, one row per actor.
 */
export async function lifecycleActorsQuery(
  node: LifecycleQuery,
  ctx: RunnerContext,
  point: { day?: string | null; status?: string | null },
): Promise<{ query: ast.SelectQuery; groupTypeIndex: number | null }> {
  const { ctes, statuses, range, buckets, interval, tz, groupIndex } = await lifecycleStatuses(node, ctx);
  const z = (f: string): Expr => ast.field('z', f);
  let when: Expr;
  if (point.day !== undefined && point.day !== null) {
    const day = point.day;
    const bucket = buckets.find((bk) => bk.key === day || bk.key === bucketKeyFromValue(day, interval, tz));
    if (!bucket) throw validationError(`day "${day}" is not an interval of the source query's date range.`, 'source__day');
    when = ast.compare('==', z('bucket'), ast.constant(sqlLocal(bucket.start)));
  } else
    when = ast.and(ast.compare('>=', z('bucket'), ast.constant(sqlLocal(range.bucketFrom))), ast.compare('<=', z('bucket'), ast.constant(sqlLocal(range.bucketTo))));
  const query = ast.select({
    ctes,
    select: [ast.alias('actor_id', ast.call('toString', [z('actor')]))],
    from: statuses,
    fromAlias: 'z',
    where: ast.and(when, point.status ? ast.compare('==', z('status'), ast.constant(point.status)) : undefined),
    groupBy: [ast.constant(1)],
  });
  return { query, groupTypeIndex: groupIndex };
}

/**
 * PostHog's InsightActorsQueryOptionsResponse for a lifecycle source (LifecycleQueryRunner.to_actors_query_options):
 * every interval of the range (labelled as the lifecycle labels, valued as trends' options: the interval start with
 * the project's offset) and the four statuses, in PostHog's order (by label).
 */
export async function lifecycleActorsQueryOptions(node: LifecycleQuery, ctx: RunnerContext) {
  const { buckets, interval, tz } = await lifecycleStatuses(node, ctx);
  return {
    day: buckets.map((bk) => ({ label: lifecycleLabel(bk, interval), value: isoWithOffset(bk.start, tz) })),
    status: [
      { label: 'Dormant', value: 'dormant' },
      { label: 'New', value: 'new' },
      { label: 'Resurrecting', value: 'resurrecting' },
      { label: 'Returning', value: 'returning' },
    ],
  };
}

export const lifecycleRunner: QueryRunner<LifecycleQuery> = {
  kinds: ['LifecycleQuery'],
  schema: lifecycleQuerySchema,
  async run(node, ctx) {
    const { ctes, statuses, range, buckets, series, interval, tz } = await lifecycleStatuses(node, ctx);
    // One row per (actor, bucket): an actor has one status per active interval, and a dormant mark only where it
    // was not active; so counting rows counts distinct actors.
    const z = (f: string): Expr => ast.field('z', f);
    const q = ast.select({
      ctes,
      select: [ast.alias('bucket', z('bucket')), ast.alias('status', z('status')), ast.alias('actors', ast.call('count', []))],
      from: statuses,
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
      // PostHog's lifecycle action object: exactly these keys; the name is the event (or "All events"), never the node's
      // name; for an action, its name, the id stringified (reference §7.2).
      action: s0.action
        ? { id: String(s0.action.id), name: label, type: 'actions', order: 0, math: 'total' }
        : { id: s0.event ?? null, name: label, type: 'events', order: 0, math: 'total' },
      data: data[status],
      count: data[status].reduce((a, v) => a + v, 0),
      labels: buckets.map((bk) => lifecycleLabel(bk, interval)),
      days: buckets.map((bk) => lifecycleDay(bk, interval)),
      label: `${label} - ${status}`,
      status,
    }));
    return { results, hogql: r.hogql, modifiers: node.modifiers ?? {}, resolved_date_range: range.resolved() };
  },
};
