/**
 * TrendsQuery (reference §2): one ProductQL query per series and period, bucketed in the project timezone,
 * zero-filled, then breakdown ranking (top N + Other), cumulative/smoothing, formulas and compare in JS.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { validationError } from '../../errors';
import type { QueryRunner, RunnerContext } from '../runner';
import {
  BREAKDOWN_NULL,
  BREAKDOWN_OTHER,
  BREAKDOWN_NULL_DISPLAY,
  BREAKDOWN_OTHER_DISPLAY,
  QueryDateRange,
  aggregationExpr,
  personOrDistinctActorExpr,
  personActorParts,
  breakdownLabel,
  breakdownSpecs,
  cohortBreakdownValues,
  breakdownValueExpr,
  bucketStartExpr,
  bucketKey,
  sqlLocal,
  bucketKeyFromValue,
  cal,
  compareBreakdownRanks,
  earliestTimestamp,
  effectiveMath,
  ensureFilterParser,
  globalFilterExpr,
  histogramBins,
  histogramValueExpr,
  breakdownRawExpr,
  isActorCountMath,
  isCompare,
  isSessionDurationMath,
  isoWithOffset,
  mathFilterExpr,
  mathPlan,
  numericAggregate,
  parseFormula,
  previousPeriodRange,
  propertiesToExpr,
  rankBreakdownValues,
  eventMatchExpr,
  resolveSeries,
  runInsightQuery,
  seriesAction,
  seriesFilterExpr,
  seriesLabel,
  toNumber,
  trendsDefaults,
  trendsQuerySchema,
  type AnyPropertyFilter,
  type BreakdownSpec,
  type Bucket,
  type CohortBreakdownValue,
  type EventsNode,
  type MathType,
  type PropertyGroupFilter,
  type TrendsDefaults,
  type TrendsQuery,
  type ResolvedSeries,
} from '../insights';
import { clickhouseBreakdownLimit, clickhouseRawBreakdownKeys } from '../insights/clickhouse-breakdown-limit';
import { cohortInScope } from '../../cohorts/cohort-scope';

type BreakdownValue = string | string[];

/** One computed line: a series (× breakdown value) over one period. */
interface Line {
  value: BreakdownValue | null;
  data: number[];
  /** Total-value displays. */
  aggregated: number;
}

interface Period {
  range: QueryDateRange;
  compareLabel: 'current' | 'previous' | null;
}

interface Env {
  node: TrendsQuery;
  ctx: RunnerContext;
  d: TrendsDefaults;
  specs: BreakdownSpec[];
  global: Expr | undefined;
  groupIndex: number | null;
  hogql: string[];
  /** `breakdowns` (multi-breakdown, even with one entry): values are arrays, as in PostHog. */
  multi: boolean;
}

/** True when the node breaks down by `breakdowns` (values are arrays then, whatever their count). */
const isMultiBreakdown = (node: TrendsQuery): boolean => !!node.breakdownFilter?.breakdowns?.length;

const keyOf = (v: BreakdownValue | null): string => (v === null ? '' : Array.isArray(v) ? JSON.stringify(v) : v);

/** WHERE for one series over [lower, upper] (defaults: the period's bounds). */
function seriesWhere(env: Env, s: EventsNode, math: MathType, range: QueryDateRange, bounds?: { lower?: number; upper?: number }, attr = 'series'): Expr {
  return ast.and(
    range.whereExpr(ast.field('timestamp'), bounds),
    seriesFilterExpr(s, { timezone: env.ctx.project.timezone, attr }),
    env.global,
    mathFilterExpr(s, math, env.groupIndex),
  );
}

/**
 * Breakdown select columns `b0..`, resolving histogram bins with a pre-query: PostHog's breakdown values query (one row
 * per value, `ORDER BY count DESC, value DESC LIMIT breakdown_limit + 1`) whose values the bins are the quantiles of
 * (histogramBins). (PostHog counts with the series' aggregation there; a count ranks the same values unless there
 * are more distinct numbers than the limit.)
 */
async function breakdownColumns(env: Env, s: EventsNode, math: MathType, range: QueryDateRange): Promise<Expr[]> {
  const cols: Expr[] = [];
  for (let i = 0; i < env.specs.length; i++) {
    const spec = env.specs[i];
    if (spec.histogramBinCount) {
      const q = ast.select({
        select: [ast.alias('value', ast.call('toFloat', [breakdownRawExpr(spec)])), ast.alias('c', ast.call('count', []))],
        from: 'events',
        where: seriesWhere(env, s, math, range),
        groupBy: [ast.constant(1)],
        orderBy: [ast.order(ast.field('c'), 'DESC'), ast.order(ast.field('value'), 'DESC')],
        limit: env.d.breakdownLimit + 1,
      });
      const { rows } = await runInsightQuery(env.ctx, q, 'histogram');
      const values = rows.filter((r) => r.value !== null && r.value !== undefined).map((r) => toNumber(r.value));
      const bins = histogramBins(values, spec.histogramBinCount);
      cols.push(ast.alias(`b${i}`, histogramValueExpr(spec, bins)));
    } else cols.push(ast.alias(`b${i}`, breakdownValueExpr(spec)));
  }
  return cols;
}

const positions = (n: number): Expr[] => Array.from({ length: n }, (_, i) => ast.constant(i + 1));

function rowValue(env: Env, row: Record<string, unknown>): BreakdownValue | null {
  if (!env.specs.length) return null;
  const vals = env.specs.map((_, i) => {
    const v = row[`b${i}`];
    return v === null || v === undefined || v === '' ? BREAKDOWN_NULL : String(v);
  });
  return env.multi ? vals : vals[0];
}

/** Runs one series over one period; returns one line per breakdown value (unranked). */
async function computeSeries(env: Env, s: EventsNode, seriesIndex: number, period: Period): Promise<Line[]> {
  const { d } = env;
  const range = period.range;
  const attr = `series__${seriesIndex}`;
  // ClickHouse (no materialized CTEs) folds the breakdown limit in one scan of the events.
  const foldLimit = env.ctx.engine.dialect === 'clickhouse' ? clickhouseBreakdownLimit : sqlBreakdownLimit;
  const math = effectiveMath(s.math, d.interval, { index: s.math_group_type_index });
  const plan = mathPlan(math);
  const buckets = range.buckets();
  const index = new Map(buckets.map((b, i) => [b.key, i]));
  const bcols = await breakdownColumns(env, s, math, range);
  const nb = bcols.length;
  const lines = new Map<string, Line>();
  const lineFor = (v: BreakdownValue | null): Line => {
    const k = keyOf(v);
    let l = lines.get(k);
    if (!l) lines.set(k, (l = { value: v, data: new Array(buckets.length).fill(0), aggregated: 0 }));
    return l;
  };
  const bRefs = (alias: string): Expr[] => env.specs.map((_, i) => ast.alias(`b${i}`, ast.field(alias, `b${i}`)));
  const actor = personOrDistinctActorExpr(s.math_group_type_index ?? env.groupIndex);
  const cumulativeActors = d.display === 'ActionsLineGraphCumulative' && isActorCountMath(math) && !d.totalValue;

  const run = async (q: ast.SelectQuery): Promise<Record<string, unknown>[]> => {
    const r = await runInsightQuery(env.ctx, q);
    env.hogql.push(r.hogql);
    if (r.truncated)
      throw validationError(
        'Too many rows for this insight (breakdown values × intervals, or actors for weekly/monthly active users). Narrow the date range, use a coarser interval or a breakdown with fewer values.',
        'breakdownFilter',
        'insight_too_large',
      );
    return r.rows;
  };

  if (plan.kind === 'active_window' && !d.totalValue) {
    // Distinct actors in PostHog's window of each bucket start d, `(d − (days − 1) days, d + 1 day]` (aggregation_operations.py:
    // `e.timestamp <= d.timestamp + INTERVAL 1 DAY AND e.timestamp > d.timestamp - INTERVAL 6 DAY` for WAU, 29 for MAU):
    // activity per (bucket, actor) joined to the bucket list, so the engine returns one row per bucket and value.
    const lower = cal.addDays(range.whereFrom, -plan.days);
    // For day and week buckets the window is the days `d − (days − 1) … d`, so activity is per day for week buckets (MAU at
    // a week interval): events later in the week belong to the next bucket's window. Hour and minute buckets reach a day
    // past their start (test_weekly_active_users_hourly: users active later that day already count at 06:00).
    const activityInterval = d.interval === 'week' ? 'day' : d.interval;
    // The window's start is exclusive and its end inclusive: an event exactly at the start of an activity bucket counts as
    // the end of the bucket before, as PostHog compares the timestamps themselves. Whole-second timestamps are moved one
    // second back before bucketing (those with a fraction cannot fall on a bucket start): exact, and no timezone work per
    // event beyond the bucket's own. ClickHouse 18.16 keeps whole seconds only.
    const ts = ast.field('timestamp');
    const secondBack = ast.arithmetic('-', ts, ast.call('toIntervalSecond', [ast.constant(1)]));
    const activityTs =
      env.ctx.engine.dialect === 'clickhouse' ? secondBack : ast.call('if', [ast.compare('==', ts, ast.call('toStartOfSecond', [ts])), secondBack, ts]);
    const activity = ast.select({
      select: [ast.alias('b', bucketStartExpr(activityInterval, range.weekStartDay, activityTs)), ...bcols, ast.alias('actor', actor)],
      from: 'events',
      where: ast.and(seriesWhere(env, s, math, range, { lower }, attr), ast.call('isNotNull', [actor])),
      groupBy: positions(nb + 2),
    });
    const sub = d.interval === 'hour' || d.interval === 'minute';
    const bucketConst = (t: number): Expr =>
      sub ? ast.call('toDateTime', [ast.constant(sqlLocal(t))]) : ast.call('toDate', [ast.constant(bucketKey(t, d.interval))]);
    const list = buckets.map((bk) => ast.select({ select: [ast.alias('d', bucketConst(bk.start))] }));
    const bucketTable = list.length === 1 ? list[0] : ast.unionAll(...list);
    const kd = ast.field('k', 'd');
    const ab = ast.field('a', 'b');
    const days = (n: number): Expr => ast.call('toIntervalDay', [ast.constant(n)]);
    // d − (days − 1) days <= b, and b <= d (day activity) or b < d + 1 day (hour/minute activity)
    const inWindow = ast.and(
      ast.compare('>=', ab, ast.arithmetic('-', kd, days(plan.days - 1))),
      sub ? ast.compare('<', ab, ast.arithmetic('+', kd, days(1))) : ast.compare('<=', ab, kd),
    );
    const q = ast.select({
      select: [ast.alias('bucket', kd), ...env.specs.map((_, i) => ast.alias(`b${i}`, ast.field('a', `b${i}`))), ast.alias('value', ast.call('uniq', [ast.field('a', 'actor')]))],
      from: ast.joins(
        ast.joinExpr(bucketTable, { alias: 'k' }),
        ast.joinExpr(activity, { alias: 'a', type: 'INNER JOIN', on: inWindow }),
      ),
      groupBy: positions(1 + nb),
    });
    fill(await run(nb ? foldLimit(q, nb, true, d.breakdownLimit) : q));
  } else if (plan.kind === 'active_window' && d.totalValue) {
    // Total value: distinct actors in the last 7/30 days up to date_to.
    const lower = cal.addDays(cal.startOfDay(range.dateTo), -(plan.days - 1));
    const q = ast.select({
      select: [...bcols, ast.alias('value', ast.call('uniq', [actor]))],
      from: 'events',
      where: seriesWhere(env, s, math, range, { lower }, attr),
      ...(nb ? { groupBy: positions(nb) } : {}),
    });
    for (const r of await run(q)) lineFor(rowValue(env, r)).aggregated = toNumber(r.value);
  } else if (plan.kind === 'count_per_actor') {
    const inner = ast.select({
      select: [
        ...(d.totalValue ? [] : [ast.alias('bucket', bucketStartExpr(d.interval, range.weekStartDay))]),
        ...bcols,
        ast.alias('actor', actor),
        ast.alias('c', ast.call('count', [])),
      ],
      from: 'events',
      where: ast.and(seriesWhere(env, s, math, range, undefined, attr), ast.call('isNotNull', [actor])),
      groupBy: positions((d.totalValue ? 0 : 1) + nb + 1),
    });
    const q = ast.select({
      select: [
        ...(d.totalValue ? [] : [ast.alias('bucket', ast.field('x', 'bucket'))]),
        ...bRefs('x'),
        ast.alias('value', numericAggregate(plan.aggregate, ast.field('x', 'c'))),
      ],
      from: inner,
      fromAlias: 'x',
      ...((d.totalValue ? 0 : 1) + nb ? { groupBy: positions((d.totalValue ? 0 : 1) + nb) } : {}),
    });
    fill(await run(nb ? foldLimit(q, nb, !d.totalValue, d.breakdownLimit) : q));
  } else if (plan.kind === 'first_time' || cumulativeActors) {
    // Each actor once, at their first matching event (first ever for first_time math; first in range for cumulative DAU).
    const firstEver = plan.kind === 'first_time';
    // first_time_for_user: the person's first event of this kind, counted when it matches the filters (the series' and
    // the global ones, test accounts included: PostHog's FirstTimeForUserEventsQueryAlternator checks them with a minIf
    // on the first event); first_matching_event_for_user: the first event that matches them.
    const seriesProps = ast.and(
      propertiesToExpr(s.properties, { timezone: env.ctx.project.timezone, attr }),
      propertiesToExpr(s.fixedProperties, { timezone: env.ctx.project.timezone, attr }),
      env.global,
    );
    const checkFirst = firstEver && math === 'first_time_for_user';
    const inner = ast.select({
      select: [
        ast.alias('actor', actor),
        ast.alias('first_ts', ast.call('min', [ast.field('timestamp')])),
        ...(checkFirst ? [ast.alias('matched', ast.call('argMin', [ast.call('if', [seriesProps, ast.constant(1), ast.constant(0)]), ast.field('timestamp')]))] : []),
        ...env.specs.map((spec, i) =>
          ast.alias(`b${i}`, firstEver ? ast.call('argMin', [(bcols[i] as ast.Alias).expr, ast.field('timestamp')]) : (bcols[i] as ast.Alias).expr),
        ),
      ],
      from: 'events',
      where: firstEver
        ? ast.and(
            checkFirst ? undefined : seriesProps,
            eventMatchExpr(s, { timezone: env.ctx.project.timezone, attr }),
            ast.call('isNotNull', [actor]),
            ast.compare('<=', ast.field('timestamp'), ast.constant(range.toSql())),
          )
        : ast.and(seriesWhere(env, s, math, range, undefined, attr), ast.call('isNotNull', [actor])),
      groupBy: firstEver ? [ast.constant(1)] : [ast.constant(1), ...env.specs.map((_, i) => ast.constant(i + 3))],
      // (b columns follow actor, first_ts and — for first_time_for_user — matched; only cumulative DAU groups by them)
    });
    const tsField = ast.field('x', 'first_ts');
    const outerWhere = firstEver
      ? ast.and(range.whereExpr(tsField), checkFirst ? ast.compare('==', ast.field('x', 'matched'), ast.constant(1)) : undefined)
      : undefined;
    const q = ast.select({
      select: [
        ...(d.totalValue ? [] : [ast.alias('bucket', bucketStartExpr(d.interval, range.weekStartDay, tsField))]),
        ...bRefs('x'),
        ast.alias('value', ast.call('count', [])),
      ],
      from: inner,
      fromAlias: 'x',
      where: outerWhere,
      ...((d.totalValue ? 0 : 1) + nb ? { groupBy: positions((d.totalValue ? 0 : 1) + nb) } : {}),
    });
    fill(await run(nb ? foldLimit(q, nb, !d.totalValue, d.breakdownLimit) : q));
  } else if (math === 'dau' && (s.math_group_type_index ?? env.groupIndex) === null) {
    // Distinct persons + distinct ids of personless events, summed per group: the two actor sets are disjoint
    // (personActorParts), so this equals uniq(personOrDistinctActorExpr) without building a text key per row.
    const nk = (d.totalValue ? 0 : 1) + nb;
    if (nb === 0 && env.ctx.engine.dialect === 'clickhouse') {
      // ClickHouse has no materialized CTEs: the two parts below would be two scans of the events, and the second one
      // (personless events) reads the whole person id column to find its few rows (often none). One scan counts the
      // distinct persons and the personless events per bucket; only when there are some does a second query count
      // their distinct ids, added per bucket (the parts are disjoint; with ingestion running in between, the second
      // statement may see events the first did not, as any two queries asked one after the other would).
      const bucket = d.totalValue ? [] : [ast.alias('bucket', bucketStartExpr(d.interval, range.weekStartDay))];
      const [persons, personless] = personActorParts();
      const rows = await run(
        ast.select({
          select: [...bucket, ast.alias('value', ast.call('uniq', [persons.actor])), ast.alias('personless', ast.call('countIf', [personless.where]))],
          from: 'events',
          where: seriesWhere(env, s, math, range, undefined, attr),
          ...(nk ? { groupBy: positions(nk) } : {}),
        }),
      );
      if (d.totalValue && rows.length === 0) lineFor(null);
      fill(rows);
      if (rows.some((r) => toNumber(r.personless) > 0))
        fill(
          await run(
            ast.select({
              select: [...bucket, ast.alias('value', ast.call('uniq', [personless.actor]))],
              from: 'events',
              where: ast.and(seriesWhere(env, s, math, range, undefined, attr), personless.where),
              ...(nk ? { groupBy: positions(nk) } : {}),
            }),
          ),
        );
    } else {
      const parts = personActorParts().map((p) =>
        ast.select({
          select: [...(d.totalValue ? [] : [ast.alias('bucket', bucketStartExpr(d.interval, range.weekStartDay))]), ...bcols, ast.alias('value', ast.call('uniq', [p.actor]))],
          from: 'events',
          where: ast.and(seriesWhere(env, s, math, range, undefined, attr), p.where),
          ...(nk ? { groupBy: positions(nk) } : {}),
        }),
      );
      const q = ast.select({
        select: [...(d.totalValue ? [] : [ast.alias('bucket', ast.field('u', 'bucket'))]), ...bRefs('u'), ast.alias('value', ast.call('sum', [ast.field('u', 'value')]))],
        from: ast.unionAll(...parts),
        fromAlias: 'u',
        ...(nk ? { groupBy: positions(nk) } : {}),
      });
      const rows = await run(nb ? foldLimit(q, nb, !d.totalValue, d.breakdownLimit) : q);
      if (d.totalValue && nb === 0 && rows.length === 0) lineFor(null);
      fill(rows);
    }
  } else if (isSessionDurationMath(s, math)) {
    // `$session_duration` (reference §1.3): one value per session — the session's length, from its first to its last
    // event of any kind — per bucket and breakdown value, then aggregated over those sessions. Events without a
    // session are left out.
    const sid = ast.call('nullIf', [ast.field('$session_id'), ast.constant('')]);
    const nk = (d.totalValue ? 0 : 1) + nb;
    const where = ast.and(seriesWhere(env, s, math, range, undefined, attr), ast.call('isNotNull', [sid]));
    const perSession = ast.select({
      select: [...(d.totalValue ? [] : [ast.alias('bucket', bucketStartExpr(d.interval, range.weekStartDay))]), ...bcols, ast.alias('sid', sid)],
      from: 'events',
      where,
      groupBy: positions(nk + 1),
    });
    const sessions = ast.select({
      select: [ast.alias('sid', sid), ast.alias('duration', ast.call('dateDiff', [ast.constant('second'), ast.call('min', [ast.field('timestamp')]), ast.call('max', [ast.field('timestamp')])]))],
      from: 'events',
      where: ast.compare('in', sid, ast.select({ select: [sid], from: 'events', where })),
      groupBy: [ast.constant(1)],
    });
    const q = ast.select({
      select: [
        ...(d.totalValue ? [] : [ast.alias('bucket', ast.field('x', 'bucket'))]),
        ...bRefs('x'),
        ast.alias('value', numericAggregate(math, ast.call('toFloat', [ast.field('s', 'duration')]))),
      ],
      from: ast.joins(ast.joinExpr(perSession, { alias: 'x' }), ast.joinExpr(sessions, { alias: 's', type: 'INNER JOIN', on: ast.compare('==', ast.field('x', 'sid'), ast.field('s', 'sid')) })),
      ...(nk ? { groupBy: positions(nk) } : {}),
    });
    const rows = await run(nb ? foldLimit(q, nb, !d.totalValue, d.breakdownLimit) : q);
    if (d.totalValue && nb === 0 && rows.length === 0) lineFor(null);
    fill(rows);
  } else {
    const agg = aggregationExpr(s, math, { groupTypeIndex: env.groupIndex, attr });
    // ClickHouse, a count by event properties: grouped by the properties' raw JSON text, values made afterwards.
    const raw = nb && math === 'total' && env.ctx.engine.dialect === 'clickhouse' ? clickhouseRawBreakdownKeys(env.specs) : null;
    const q = ast.select({
      select: [...(d.totalValue ? [] : [ast.alias('bucket', bucketStartExpr(d.interval, range.weekStartDay))]), ...(raw ? raw.keys : bcols), ast.alias('value', agg)],
      from: 'events',
      where: seriesWhere(env, s, math, range, undefined, attr),
      ...((d.totalValue ? 0 : 1) + nb ? { groupBy: positions((d.totalValue ? 0 : 1) + nb) } : {}),
    });
    const rows = await run(raw ? clickhouseBreakdownLimit(q, nb, !d.totalValue, d.breakdownLimit, raw.values) : nb ? foldLimit(q, nb, !d.totalValue, d.breakdownLimit) : q);
    if (d.totalValue && nb === 0 && rows.length === 0) lineFor(null);
    fill(rows);
  }

  function fill(rows: Record<string, unknown>[]): void {
    // (rows may contain the engine-folded Other value)
    for (const r of rows) {
      const line = lineFor(rowValue(env, r));
      if (d.totalValue) line.aggregated += toNumber(r.value);
      else {
        const i = index.get(bucketKeyFromValue(r.bucket, d.interval, env.ctx.project.timezone));
        if (i !== undefined) line.data[i] += toNumber(r.value);
      }
    }
  }

  if (!nb && lines.size === 0) lineFor(null);
  return [...lines.values()];
}

const total = (l: Line, totalValue: boolean): number => (totalValue ? l.aggregated : l.data.reduce((a, b) => a + b, 0));

const isOtherValue = (v: BreakdownValue | null): boolean => v !== null && (Array.isArray(v) ? v.every((x) => x === BREAKDOWN_OTHER) : v === BREAKDOWN_OTHER);

/**
 * Top `limit` values + one Other line (summed). Lines may already contain an Other line (the engine folds values
 * past the limit, see {@link sqlBreakdownLimit}); more values past the limit are added to it.
 */
function applyBreakdownLimit(lines: Line[], env: Env): { lines: Line[]; hasMore: boolean } {
  if (!env.specs.length) return { lines, hasMore: false };
  const existingOther = lines.find((l) => isOtherValue(l.value));
  const normal = lines.filter((l) => !isOtherValue(l.value));
  const totals = new Map(normal.map((l) => [keyOf(l.value), { value: l.value as BreakdownValue, total: total(l, env.d.totalValue) }]));
  const { kept, rest } = rankBreakdownValues(totals, env.d.breakdownLimit);
  const byKey = new Map(normal.map((l) => [keyOf(l.value), l]));
  const out = kept.map((k) => byKey.get(k)!);
  if (!rest.length && !existingOther) return { lines: out, hasMore: false };
  const other: Line = existingOther ?? {
    value: env.multi ? env.specs.map(() => BREAKDOWN_OTHER) : BREAKDOWN_OTHER,
    data: new Array(lines[0].data.length).fill(0),
    aggregated: 0,
  };
  for (const k of rest) {
    const l = byKey.get(k)!;
    l.data.forEach((v, i) => (other.data[i] += v));
    other.aggregated += l.aggregated;
  }
  if (!env.node.breakdownFilter?.breakdown_hide_other_aggregation) out.push(other);
  return { lines: out, hasMore: true };
}

/**
 * Folds breakdown values past the limit into Other inside the engine, so a high-cardinality breakdown returns at
 * most buckets × (limit + 1) rows. `q` selects `[bucket,] b0.., value`; values are ranked by their total
 * (normal values, then the null value; total desc; value asc) and the rest summed, as PostHog does. Uses an
 * `IN (SELECT … ORDER BY … LIMIT n)` rather than window functions, so it also runs on engines without them.
 */
function sqlBreakdownLimit(q: ast.SelectQuery, nb: number, hasBucket: boolean, limit: number): ast.SelectQuery {
  const idx = Array.from({ length: nb }, (_, i) => i);
  // One comparable key per value (multi-breakdowns joined with a separator that property values do not contain).
  const key = (t: string): Expr =>
    nb === 1 ? ast.field(t, 'b0') : ast.call('concat', idx.flatMap((i) => (i ? [ast.constant('\u0001'), ast.field(t, `b${i}`)] : [ast.field(t, `b${i}`)])));
  const allNull = (t: string): Expr => ast.and(...idx.map((i) => ast.compare('==', ast.field(t, `b${i}`), ast.constant(BREAKDOWN_NULL))));
  const top = ast.select({
    select: [ast.alias('k', key('t'))],
    from: 'x',
    fromAlias: 't',
    groupBy: idx.map((i) => ast.field('t', `b${i}`)),
    orderBy: [
      ast.order(ast.call('if', [allNull('t'), ast.constant(1), ast.constant(0)])),
      ast.order(ast.call('sum', [ast.field('t', 'value')]), 'DESC'),
      ...idx.map((i) => ast.order(ast.field('t', `b${i}`))),
    ],
    limit,
  });
  const keep = ast.compare('in', key('x'), top);
  return ast.select({
    ctes: [ast.cte('x', q)],
    select: [
      ...(hasBucket ? [ast.alias('bucket', ast.field('x', 'bucket'))] : []),
      ...idx.map((i) => ast.alias(`b${i}`, ast.call('if', [keep, ast.field('x', `b${i}`), ast.constant(BREAKDOWN_OTHER)]))),
      ast.alias('value', ast.call('sum', [ast.field('x', 'value')])),
    ],
    from: 'x',
    fromAlias: 'x',
    groupBy: Array.from({ length: (hasBucket ? 1 : 0) + nb }, (_, i) => ast.constant(i + 1)),
  });
}

/**
 * Display transforms on a time series: smoothing (floored moving average), then the cumulative running sum — PostHog's
 * query_builder.py computes the rolling average in the inner select, which trends_display.py's cumulative query
 * (a running `sum(count)` window) then wraps.
 */
function transformData(data: number[], d: TrendsDefaults): number[] {
  let out = data;
  if (d.smoothingIntervals > 1) {
    const n = d.smoothingIntervals;
    const raw = out;
    out = raw.map((_, i) => {
      const win = raw.slice(Math.max(0, i - n + 1), i + 1);
      return Math.floor(win.reduce((a, b) => a + b, 0) / win.length);
    });
  }
  if (d.display === 'ActionsLineGraphCumulative') {
    let acc = 0;
    out = out.map((v) => (acc += v));
  }
  return out;
}

/** The fields of a filter object that are set (PostHog drops the None ones). */
const setFields = (o: Record<string, unknown> | null | undefined): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== null && v !== undefined));

/**
 * Each item's `filter`: PostHog's TrendsQueryRunner._query_to_filter — the query's base fields (`insight`, `properties`,
 * `filter_test_accounts`, the resolved `date_from`/`date_to`, `entity_type`, `sampling_factor`,
 * `aggregation_group_type_index`, `interval`), then the trendsFilter's and the breakdownFilter's fields as given,
 * without the unset ones.
 */
function filterEcho(node: TrendsQuery, range: QueryDateRange): Record<string, unknown> {
  const r = range.resolved();
  return {
    ...setFields({
      insight: 'TRENDS',
      properties: node.properties ?? [],
      filter_test_accounts: node.filterTestAccounts ?? false,
      date_to: r.date_to,
      date_from: r.date_from,
      entity_type: 'events',
      sampling_factor: node.samplingFactor,
      aggregation_group_type_index: node.aggregation_group_type_index,
      interval: node.interval ?? 'day',
    }),
    ...setFields(node.trendsFilter),
    ...setFields(node.breakdownFilter),
  };
}

interface Item {
  seriesIndex: number;
  line: Line;
  period: Period;
}

/**
 * One result item. `range` is the query's own (current) range: PostHog's build_series_response echoes
 * `_query_to_filter()`, which reads the runner's query_date_range, on every item, previous-period ones included (as
 * their `action.days`).
 */
function shapeItem(env: Env, it: Item, buckets: Bucket[], label: string, action: Record<string, unknown> | null, range: QueryDateRange): Record<string, unknown> {
  const { d } = env;
  const base: Record<string, unknown> = {
    label,
    filter: filterEcho(env.node, range),
    action,
  };
  if (it.line.value !== null) base.breakdown_value = it.line.value;
  if (it.period.compareLabel) {
    base.compare = true;
    base.compare_label = it.period.compareLabel;
  }
  if (d.totalValue) {
    return { data: [], days: [], count: 0, aggregated_value: it.line.aggregated, ...base };
  }
  // Series data is already transformed (cumulative/smoothed, as PostHog does per series before formulas).
  const data = it.line.data;
  const count =
    d.display === 'ActionsLineGraphCumulative' && it.seriesIndex >= 0 ? (data.length ? data[data.length - 1] : 0) : data.reduce((a, b) => a + b, 0);
  return {
    data,
    // Compared periods are labelled by position, "<interval> <i>", on both items (PostHog's trends runner:
    // "Modifications for when comparing to previous period"; test_trends.py asserts labels[4] == "day 4"); `days`
    // keep each period's own dates.
    labels: it.period.compareLabel ? buckets.map((_, i) => `${d.interval} ${i}`) : buckets.map((b) => b.label),
    days: buckets.map((b) => b.key),
    count,
    ...base,
  };
}

/**
 * The query's date range as trends reads it: `all` starts at the earliest event of the series' events (or actions),
 * whatever their property filters and the global ones (PostHog's get_earliest_timestamp_from_series looks at the event
 * names only); a BoldNumber without `date_to` is the exact range. The runner and its actors query read the same range.
 */
async function trendsRange(env: Env, series: readonly ResolvedSeries[]): Promise<QueryDateRange> {
  const { node, ctx, d } = env;
  const earliest =
    node.dateRange?.date_from === 'all'
      ? await earliestTimestamp(ctx, ast.or(...series.map((s) => eventMatchExpr(s, { timezone: ctx.project.timezone }) ?? ast.constant(true))))
      : null;
  return new QueryDateRange({
    dateRange: node.dateRange,
    interval: d.interval,
    timezone: ctx.project.timezone,
    weekStartDay: ctx.project.week_start_day ?? 0,
    earliest,
    exactTimeRange: d.display === 'BoldNumber' && !node.dateRange?.date_to,
  });
}

export const trendsRunner: QueryRunner<TrendsQuery> = {
  kinds: ['TrendsQuery'],
  schema: trendsQuerySchema,
  async run(node, ctx) {
    await ensureFilterParser();
    const d = trendsDefaults(node);
    const dropped = new Set<number>();
    const series = await resolveSeries(node.series, ctx, 'drop', dropped);
    const specs = breakdownSpecs(node.breakdownFilter, node.trendsFilter?.breakdown_histogram_bin_count);
    const env: Env = {
      node,
      ctx,
      d,
      specs,
      global: globalFilterExpr(node, ctx),
      groupIndex: node.aggregation_group_type_index ?? null,
      hogql: [],
      multi: isMultiBreakdown(node),
    };
    // Validate formulas before running anything. No series at all: no results, formulas or not (PostHog returns
    // before them when there are no queries).
    const formulas = (node.series.length === 0 ? [] : d.formulas).map((f, i) => ({ ...f, parsed: parseFormula(f.formula, series.length, d.formulas.length > 1 ? `trendsFilter__formulas__${i}` : 'trendsFilter__formula') }));

    const range = await trendsRange(env, series.filter((_, i) => !dropped.has(i)));
    if (!d.totalValue) range.checkIntervalCount();

    const compare = isCompare(node.compareFilter) && node.dateRange?.date_from !== 'all';
    const periods: Period[] = [{ range, compareLabel: compare ? 'current' : null }];
    if (compare) periods.push({ range: previousPeriodRange(range, node.compareFilter!), compareLabel: 'previous' });

    // Lines per (period, series), in parallel.
    const jobs = periods.flatMap((p) => series.map((s, i) => ({ p, s, i })));
    const computed = await Promise.all(jobs.map((j) => computeSeries(env, j.s, j.i, j.p)));

    let hasMore = false;
    const results: Record<string, unknown>[] = [];
    const currentBuckets = range.buckets();
    /** The series lines of each period, limited and transformed. */
    const perPeriod = new Map<Period, Line[][]>();
    for (const p of periods) {
      const buckets = p.range.buckets();
      const perSeries: Line[][] = series.map((_, i) => {
        const lines = computed[jobs.findIndex((j) => j.p === p && j.i === i)];
        const limited = applyBreakdownLimit(lines, env);
        if (!d.totalValue) for (const l of limited.lines) l.data = transformData(l.data, d);
        hasMore ||= limited.hasMore;
        return limited.lines;
      });
      perPeriod.set(p, perSeries);
      const actionExtra = { days: currentBuckets.map((b) => isoWithOffset(b.start, ctx.project.timezone)) };
      if (formulas.length) continue;
      series.forEach((s, i) => {
        if (dropped.has(i)) return;
        for (const line of perSeries[i]) {
          const label =
            line.value === null ? seriesLabel(s) : series.length === 1 ? breakdownLabel(line.value) : `${seriesLabel(s)} - ${breakdownLabel(line.value)}`;
          results.push(shapeItem(env, { seriesIndex: i, line, period: p }, buckets, label, seriesAction(s, i, actionExtra), range));
        }
      });
    }
    // Formulas: evaluated point-wise per breakdown value (missing values are zeros); each formula answers its items for
    // every period (PostHog's apply_formula splits current and previous itself, once per formula node).
    for (const f of formulas) {
      for (const p of periods) {
        const buckets = p.range.buckets();
        const perSeries = perPeriod.get(p)!;
        const values = new Map<string, BreakdownValue | null>();
        for (const lines of perSeries) for (const l of lines) if (!values.has(keyOf(l.value))) values.set(keyOf(l.value), l.value);
        const items: Line[] = [];
        for (const [k, v] of values) {
          const inputs = perSeries.map((lines) => lines.find((l) => keyOf(l.value) === k));
          const n = buckets.length;
          const data = d.totalValue ? [] : Array.from({ length: n }, (_, t) => f.parsed.evaluate(inputs.map((l) => (l ? l.data[t] : 0))));
          const aggregated = d.totalValue ? f.parsed.evaluate(inputs.map((l) => (l ? l.aggregated : 0))) : 0;
          items.push({ value: v, data, aggregated });
        }
        // (Array.prototype.sort is stable: ties keep the order the values were first seen in)
        if (specs.length)
          items.sort((a, b) => compareBreakdownRanks({ value: a.value!, total: total(a, d.totalValue) }, { value: b.value!, total: total(b, d.totalValue) }));
        for (const line of items) {
          const label = f.custom_name || `Formula (${f.formula})`;
          results.push(shapeItem(env, { seriesIndex: -1, line, period: p }, buckets, label, null, range));
        }
      }
    }

    // No data with a breakdown → no items.
    const finalResults = specs.length ? results.filter((r) => r.breakdown_value !== undefined) : results;
    return {
      results: finalResults,
      ...(hasMore ? { hasMore: true } : {}),
      hogql: env.hogql[0] ?? '',
      modifiers: node.modifiers ?? {},
      resolved_date_range: range.resolved(),
    };
  },
};


/** Which data point of a trends insight {@link trendsActorsQuery} lists the actors of (PostHog's InsightActorsQuery). */
export interface TrendsDataPoint {
  /** The bucket (`days` entry, or a date/datetime inside it); absent: the whole range (total-value displays). */
  day?: string | number | null;
  /** Index of the series (default 0). */
  series?: number | null;
  /** The breakdown value of the line (a list for multiple breakdowns). */
  breakdown?: string | number | (string | number)[] | null;
  /** `previous`: the compared period. */
  compare?: 'current' | 'previous' | null;
}

/**
 * The actors of a point of a cohort breakdown, as PostHog's TrendsActorsQueryBuilder does it: the point's value is a
 * cohort id of the breakdown (or `all`), and its actors are those of the same point of the query without the breakdown,
 * kept to that cohort (all users for `all`) — the query the cohort-aware runner answers that line with.
 */
function cohortPointActorsQuery(
  node: TrendsQuery,
  ctx: RunnerContext,
  point: TrendsDataPoint,
  cohorts: CohortBreakdownValue[],
): Promise<{ query: ast.SelectQuery; groupTypeIndex: number | null }> {
  const b = point.breakdown;
  if (b === undefined || b === null) throw validationError('breakdown is required: the source query has a breakdown.', 'source__breakdown');
  // (`0` is "all" too, as PostHog's cohort breakdowns number all users)
  const wanted = String(b) === '0' ? 'all' : String(b);
  const picked = Array.isArray(b) ? undefined : cohorts.find((c) => String(c) === wanted);
  if (picked === undefined) throw validationError(`breakdown "${String(b)}" is not one of the source query's cohorts (${cohorts.join(', ')}).`, 'source__breakdown');
  const { breakdownFilter: _breakdown, ...rest } = node;
  if (picked === 'all') return trendsActorsQuery(rest, ctx, { ...point, breakdown: null });
  const inCohort = { type: 'cohort', key: 'id', value: picked, operator: 'in' } as AnyPropertyFilter;
  const p = node.properties;
  const properties = !p ? [inCohort] : Array.isArray(p) ? [...p, inCohort] : ({ type: 'AND', values: [p, { type: 'AND', values: [inCohort] }] } as PropertyGroupFilter);
  return trendsActorsQuery({ ...rest, properties }, ctx, { ...point, breakdown: null });
}

/**
 * The actors of one data point, computed by the insight's own filters (series, global filters, test accounts, math
 * filters, the point's bucket and breakdown value): `SELECT actor_id, event_count` with one row per actor (persons, or
 * groups with `aggregation_group_type_index` / `unique_group` math). Weekly/monthly active points span their window,
 * cumulative actor-count points everything from the range's start, as the insight counts them.
 */
export async function trendsActorsQuery(
  node: TrendsQuery,
  ctx: RunnerContext,
  point: TrendsDataPoint,
): Promise<{ query: ast.SelectQuery; groupTypeIndex: number | null }> {
  const cohorts = cohortBreakdownValues(node.breakdownFilter, 'source__breakdownFilter');
  if (cohorts) return cohortPointActorsQuery(node, ctx, point, cohorts);
  await ensureFilterParser();
  const d = trendsDefaults(node);
  const dropped = new Set<number>();
  const series = await resolveSeries(node.series, ctx, 'drop', dropped);
  const si = point.series ?? 0;
  if (!Number.isInteger(si) || si < 0 || si >= series.length) throw validationError(`series ${si} does not exist in the source query.`, 'source__series');
  const s = series[si];
  const specs = breakdownSpecs(node.breakdownFilter, node.trendsFilter?.breakdown_histogram_bin_count);
  const env: Env = { node, ctx, d, specs, global: globalFilterExpr(node, ctx), groupIndex: node.aggregation_group_type_index ?? null, hogql: [], multi: isMultiBreakdown(node) };
  let range = await trendsRange(env, series.filter((_, i) => !dropped.has(i)));
  if (point.compare === 'previous') {
    if (!isCompare(node.compareFilter)) throw validationError('compare "previous" needs a source query that compares to a previous period.', 'source__compare');
    range = previousPeriodRange(range, node.compareFilter!);
  }
  const math = effectiveMath(s.math, d.interval, { index: s.math_group_type_index });
  const plan = mathPlan(math);
  // The breakdown values as the insight computes them over this range (histogram bins included).
  const bexprs = (await breakdownColumns(env, s, math, range)).map((c) => (c as ast.Alias).expr);
  let bounds: { lower?: number; upper?: number; upperExclusive?: boolean } = {};
  /** Timestamps must be after this (an active-users window's start). */
  let after: number | undefined;
  if (point.day !== undefined && point.day !== null && !d.totalValue) {
    const buckets = range.buckets();
    const text = String(point.day);
    let i = buckets.findIndex((b) => b.key === text);
    if (i < 0) {
      const at = new QueryDateRange({ dateRange: { date_from: text, date_to: text }, interval: d.interval, timezone: ctx.project.timezone, weekStartDay: range.weekStartDay, attr: 'source__day' });
      const key = at.buckets()[0]?.key;
      i = buckets.findIndex((b) => b.key === key);
    }
    if (i < 0) throw validationError(`day "${text}" is not an interval of the source query's date range.`, 'source__day');
    const start = buckets[i].start;
    const end = buckets[i + 1]?.start;
    const cumulative = d.display === 'ActionsLineGraphCumulative' && isActorCountMath(math);
    // (the first bucket of a week interval starts before date_from, where the insight's events start: the point's
    // actors are clamped to the range, as TrendsActorsQueryBuilder does — test_date_range_weekly)
    const lower = plan.kind === 'active_window' ? cal.addDays(start, -(plan.days - 1)) : cumulative ? range.whereFrom : Math.max(start, range.whereFrom);
    // (active users: PostHog's window `(d − (days − 1) days, d + 1 day]`, its start made exclusive below)
    if (plan.kind === 'active_window') after = lower;
    // (the window's end stops at the range's end, as the insight's events do: an event at the very start of the next
    // day is no actor of the last day)
    const windowEnd = cal.addDays(start, 1);
    bounds =
      plan.kind === 'active_window'
        ? { lower, upper: windowEnd > range.dateTo ? undefined : windowEnd }
        : end !== undefined
          ? { lower, upper: end, upperExclusive: true }
          : { lower };
  } else if (plan.kind === 'active_window' && d.totalValue) {
    bounds = { lower: cal.addDays(cal.startOfDay(range.dateTo), -(plan.days - 1)) };
  }
  /** The breakdown value tuples the point keeps (`in`) or, for "Other", leaves out (the listed ones). */
  let breakdownPick: { keep: boolean; tuples: string[][] } | null = null;
  if (!specs.length && point.breakdown !== undefined && point.breakdown !== null)
    throw validationError('breakdown does not apply: the source query has no breakdown.', 'source__breakdown');
  if (specs.length) {
    if (point.breakdown === undefined || point.breakdown === null) throw validationError('breakdown is required: the source query has a breakdown.', 'source__breakdown');
    const values = (Array.isArray(point.breakdown) ? point.breakdown : [point.breakdown]).map(String);
    if (values.length !== specs.length) throw validationError(`breakdown needs ${specs.length} value(s).`, 'source__breakdown');
    if (values.every((v) => v === BREAKDOWN_OTHER)) {
      // "Other": every value the insight does not list (its ranking, from the insight's own answer).
      const answer = await trendsRunner.run(node, ctx);
      const listed = (answer.results as Record<string, unknown>[])
        .filter((r) => (r.action as { order?: number } | null)?.order === si && (r.compare_label ?? null) === (isCompare(node.compareFilter) ? (point.compare ?? 'current') : null))
        .map((r) => r.breakdown_value as BreakdownValue)
        .filter((v) => !isOtherValue(v));
      breakdownPick = { keep: false, tuples: listed.map((v) => (Array.isArray(v) ? v : [v]).map(String)) };
    } else breakdownPick = { keep: true, tuples: [values] };
  }
  /** The breakdown condition over the per-spec value expressions. */
  const breakdownMatch = (valueOf: (spec: BreakdownSpec, i: number) => Expr): Expr | undefined => {
    if (!breakdownPick) return undefined;
    const conds = breakdownPick.tuples.map((t) => ast.and(...specs.map((spec, i) => ast.compare('==', valueOf(spec, i), ast.constant(t[i])))));
    return breakdownPick.keep ? ast.or(...conds) : ast.and(...conds.map((c) => ast.not(c)));
  };
  const groupTypeIndex = s.math_group_type_index ?? env.groupIndex;
  // Persons, and one actor per distinct id of personless events (never found among the persons: missing actors).
  const actor = personOrDistinctActorExpr(groupTypeIndex);
  if (plan.kind === 'first_time') {
    // The actors whose first event (as computeSeries finds it) falls in the point; their matching events there.
    const tz = ctx.project.timezone;
    const seriesProps = ast.and(propertiesToExpr(s.properties, { timezone: tz, attr: 'series' }), propertiesToExpr(s.fixedProperties, { timezone: tz, attr: 'series' }), env.global);
    const checkFirst = math === 'first_time_for_user';
    const firsts = ast.select({
      select: [
        ast.alias('actor_id', ast.call('concat', [actor, ast.constant('')])),
        ast.alias('first_ts', ast.call('min', [ast.field('timestamp')])),
        ...(checkFirst ? [ast.alias('matched', ast.call('argMin', [ast.call('if', [seriesProps, ast.constant(1), ast.constant(0)]), ast.field('timestamp')]))] : []),
        ...specs.map((_, i) => ast.alias(`b${i}`, ast.call('argMin', [bexprs[i], ast.field('timestamp')]))),
      ],
      from: 'events',
      where: ast.and(
        checkFirst ? undefined : seriesProps,
        eventMatchExpr(s, { timezone: tz, attr: 'series' }),
        ast.call('isNotNull', [actor]),
        ast.compare('<=', ast.field('timestamp'), ast.constant(range.toSql())),
      ),
      groupBy: [ast.constant(1)],
    });
    const x = (f: string): Expr => ast.field('x', f);
    return {
      query: ast.select({
        select: [ast.alias('actor_id', x('actor_id')), ast.alias('event_count', ast.constant(1))],
        from: firsts,
        fromAlias: 'x',
        where: ast.and(range.whereExpr(x('first_ts'), bounds), checkFirst ? ast.compare('==', x('matched'), ast.constant(1)) : undefined, breakdownMatch((_, i) => x(`b${i}`))),
      }),
      groupTypeIndex,
    };
  }
  const query = ast.select({
    select: [ast.alias('actor_id', ast.call('concat', [actor, ast.constant('')])), ast.alias('event_count', ast.call('count', []))],
    from: 'events',
    where: ast.and(
      range.whereExpr(ast.field('timestamp'), bounds),
      after === undefined ? undefined : ast.compare('>', ast.field('timestamp'), ast.constant(sqlLocal(after))),
      seriesFilterExpr(s, { timezone: ctx.project.timezone, attr: 'series' }),
      env.global,
      mathFilterExpr(s, math, env.groupIndex),
      ast.call('isNotNull', [actor]),
      groupTypeIndex === null ? undefined : ast.compare('!=', actor, ast.constant('')),
      breakdownMatch((_, i) => bexprs[i]),
    ),
    groupBy: [ast.constant(1)],
  });
  return { query, groupTypeIndex };
}

/** One choice of an InsightActorsQueryOptions answer: what a user picks, and the value the InsightActorsQuery takes. */
export interface ActorsQueryOption<V> {
  label: string;
  value: V;
}

/** PostHog's InsightActorsQueryOptionsResponse for a trends source (TrendsQueryRunner.to_actors_query_options). */
export interface TrendsActorsQueryOptions {
  /** The intervals (`null` on total-value displays): bucket labels, and the bucket start with the project's offset. */
  day: ActorsQueryOption<string>[] | null;
  /** The series by index, labelled as their results are (event name, `All events`, action name). */
  series: ActorsQueryOption<number>[];
  /**
   * The breakdown values the insight answers, in its order (single breakdowns; `null` without one); Other and the
   * null value are labelled `Other (i.e. all remaining values)` and `None (i.e. no value)`. A cohort
   * breakdown lists its cohorts as given: the cohort's name and id, `all users` / `all`.
   */
  breakdown: ActorsQueryOption<string | number>[] | null;
  /** Multiple breakdowns: per breakdown, the values it takes in the insight's results. */
  breakdowns: { values: ActorsQueryOption<string>[] }[] | null;
  /** `Current`/`Previous` when the insight compares periods, else `null`. */
  compare: ActorsQueryOption<string>[] | null;
}

/**
 * What {@link trendsActorsQuery} can be asked for, as PostHog's `to_actors_query_options` lists it: days, series,
 * breakdown values and compare periods. The breakdown values come from the insight's own answer (its ranking,
 * Other and the null value included), so each one names a line of the chart.
 */
export async function trendsActorsQueryOptions(node: TrendsQuery, ctx: RunnerContext): Promise<TrendsActorsQueryOptions> {
  await ensureFilterParser();
  const d = trendsDefaults(node);
  const dropped = new Set<number>();
  const series = await resolveSeries(node.series, ctx, 'drop', dropped);
  const env: Env = { node, ctx, d, specs: [], global: undefined, groupIndex: null, hogql: [], multi: isMultiBreakdown(node) };
  const range = await trendsRange(env, series.filter((_, i) => !dropped.has(i)));
  // (datetimes written as everywhere else in Quarry's answers, `action.days` included: with the project's offset)
  const day = d.totalValue ? null : range.buckets().map((b) => ({ label: b.label, value: isoWithOffset(b.start, ctx.project.timezone) }));
  const seriesOptions = series.map((s, i) => ({ label: seriesLabel(s), value: i })).filter((_, i) => !dropped.has(i));
  const compare = isCompare(node.compareFilter) ? [{ label: 'Current', value: 'current' }, { label: 'Previous', value: 'previous' }] : null;
  const cohorts = cohortBreakdownValues(node.breakdownFilter, 'source__breakdownFilter');
  if (cohorts) {
    const breakdown = cohorts.map((c) => (c === 'all' ? { label: 'all users', value: 'all' } : { label: cohortInScope(c)?.name ?? String(c), value: c }));
    return { day, series: seriesOptions, breakdown, breakdowns: null, compare };
  }
  const specs = breakdownSpecs(node.breakdownFilter, node.trendsFilter?.breakdown_histogram_bin_count);
  let breakdown: ActorsQueryOption<string | number>[] | null = null;
  let breakdowns: { values: ActorsQueryOption<string>[] }[] | null = null;
  if (specs.length) {
    // (formulas replace the series lines: the options list the values of the series themselves)
    const answer = await trendsRunner.run({ ...node, trendsFilter: { ...node.trendsFilter, formula: null, formulas: null, formulaNodes: null } }, ctx);
    const values = (answer.results as Record<string, unknown>[]).filter((r) => (r.compare_label ?? 'current') === 'current').map((r) => r.breakdown_value as BreakdownValue);
    // (_get_breakdown_items: the Other and null sentinels are labelled as the persons modal shows them)
    const label = (v: string) => (v === BREAKDOWN_OTHER ? BREAKDOWN_OTHER_DISPLAY : v === BREAKDOWN_NULL ? BREAKDOWN_NULL_DISPLAY : v);
    const unique = (xs: string[]): ActorsQueryOption<string>[] => [...new Set(xs)].map((v) => ({ label: label(v), value: v }));
    if (env.multi) breakdowns = specs.map((_, i) => ({ values: unique(values.map((v) => (v as string[])[i])) }));
    else breakdown = unique(values as string[]);
  }
  return { day, series: seriesOptions, breakdown, breakdowns, compare };
}
