import { validationError } from '../../errors';
import { ast, initParser, type Expr } from '../../productql';
import {
  addInterval,
  breakdownExprs,
  clickhouseActorKey,
  dateConst,
  fmtLocal,
  isoInTz,
  localParts,
  parseDate,
  propertiesExpr,
  startOf,
  toStr,
  type Interval,
} from '../funnels/common';
import { runAllRows } from '../funnels/run-paged';
import { clickhouseRetentionGridQuery } from '../retention/clickhouse-grid';
import { retentionGridQuery, type RetentionSqlInput } from '../retention/sql';
import { actionToExpr, type ActionDef } from '../../actions/matching';
import { actionsOf, actorExpr, earliestTimestamp, globalFilterExpr, insightsNow, mayHavePersonless, personOrDistinctActorExpr } from '../insights';
import { retentionQuerySchema, type RetentionEntity, type RetentionQueryNode } from '../retention/schema';
import { retentionCohortIds, runRetentionCohortBreakdown } from '../retention/cohort-breakdown';
import type { QueryRunner, RunnerContext } from '../runner';

const OTHER = '$$_posthog_breakdown_other_$$';
const SEP = '\u0001';
const PERIOD_INTERVAL: Record<string, Interval> = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' };
/** 24-hour-window mode: fixed-size units from the anchor. */
const WINDOW_MS: Record<string, number> = { Hour: 3600_000, Day: 86400_000, Week: 7 * 86400_000, Month: 30 * 86400_000 };

const isAction = (e: RetentionEntity | null | undefined): boolean => !!e && (e.type === 'actions' || e.kind === 'ActionsNode');

/**
 * An entity's condition: its event (or, for `{type: 'actions', id}`, its action: the OR of the action's steps) AND,
 * `withProps`, its properties. `actions` holds the live actions the query names; a missing one is a 400 on `attr`.
 */
function entityCondition(
  e: RetentionEntity | null | undefined,
  withProps: boolean,
  tz: string,
  actions: Map<number, ActionDef>,
  attr: string,
): Expr | undefined {
  const entity: RetentionEntity = e ?? { id: '$pageview', type: 'events' };
  let name: Expr | undefined;
  if (isAction(entity)) {
    const action = actions.get(Number(entity.id));
    if (!action) throw validationError(`Action ${String(entity.id)} does not exist.`, attr, 'action_not_found');
    name = actionToExpr(action, { timezone: tz, attr });
  } else name = entity.id === null || entity.id === undefined ? undefined : ast.eq(ast.field('event'), ast.constant(String(entity.id)));
  return withProps ? ast.and(name, propertiesExpr(entity.properties, tz)) : name ?? ast.constant(true);
}

/**
 * The intervals of a cohort row: PostHog's RetentionFilter model defaults an absent `totalIntervals` to 8 (the schema's
 * `@default 8`, which pydantic fills in); the runner's `totalIntervals or DEFAULT_TOTAL_INTERVALS` makes an explicit
 * null (or 0) 7.
 */
export const retentionTotalIntervals = (rf: RetentionQueryNode['retentionFilter']): number => (rf.totalIntervals === undefined ? 8 : rf.totalIntervals || 7);

/** The most cohort rows (periods in the date range) a retention query answers. */
const MAX_COHORTS = 10_000;

/** PostHog's QueryDateRangeWithIntervals for retention: [from, to) in whole periods; more than MAX_COHORTS periods is a 400. */
export function retentionRange(node: RetentionQueryNode, tz: string, weekStart: number, now = insightsNow().getTime()): { from: number; to: number; buckets: number[] } {
  const period = node.retentionFilter.period ?? 'Day';
  const interval = PERIOD_INTERVAL[period];
  const total = retentionTotalIntervals(node.retentionFilter);
  const rawTo = node.dateRange?.date_to ? parseDate(node.dateRange.date_to, tz, now).ms : now;
  const to = startOf(addInterval(startOf(rawTo, interval, tz, weekStart), interval, 1, tz), interval, tz, weekStart);
  const from = node.dateRange?.date_from
    ? startOf(parseDate(node.dateRange.date_from, tz, now).ms, interval, tz, weekStart)
    : startOf(addInterval(to, interval, -total, tz), interval, tz, weekStart);
  const buckets: number[] = [];
  let t = from;
  // (each start snapped to its period: after a day whose midnight is in a DST gap, starting at 01:00, the next day
  // starts at its own 00:00, not at 01:00 again)
  for (; t < to && buckets.length < MAX_COHORTS; t = startOf(addInterval(t, interval, 1, tz), interval, tz, weekStart)) buckets.push(t);
  // (more cohort rows than this were cut silently before, dropping the most recent ones)
  if (t < to)
    throw validationError(
      `The date range holds more than ${MAX_COHORTS.toLocaleString('en-US')} ${interval} periods (one cohort row each); narrow dateRange or use a longer period.`,
      'dateRange',
    );
  return { from, to, buckets };
}

/** The common length of every period in seconds, or null (months, or a DST change inside the range). */
function uniformPeriodSeconds(buckets: number[], to: number, interval: Interval): number | null {
  const nominal = { hour: 3600, day: 86400, week: 7 * 86400 }[interval as 'hour' | 'day' | 'week'];
  if (!nominal) return null;
  const bounds = [...buckets, to];
  for (let i = 1; i < bounds.length; i++) if (bounds[i] - bounds[i - 1] !== nominal * 1000) return null;
  return nominal;
}

interface ActorEvent {
  period: number;
  ts: number;
  target: boolean;
  ret: boolean;
  bd: string;
  /** The aggregated property (sum/avg aggregation), 0 when missing or not a number. */
  value: number;
}

/** Options for tests and benchmarks. */
export interface RetentionRunOptions {
  /** Use the per-actor evaluation instead of the SQL grid (calendar mode). */
  forceGeneral?: boolean;
  /** ClickHouse: the generic grid (starts joined to returns, sql.ts) even where the one-read form applies. */
  forceJoinGrid?: boolean;
  /**
   * Called for each actor's membership of a cohort row, with the intervals it appears in (0: the cohort interval, then
   * each counted return interval), for the actors of a cohort (ActorsQuery); implies the per-actor evaluation. Default none.
   */
  onActor?: (actor: string, cohort: number, appearances: number[], breakdownValue: string) => void;
}

/**
 * `date_from: "all"`: the local start of the earliest target or returning event (with the query's filters), as the other
 * insights start "all time" at the earliest event; none → no date_from (the `totalIntervals` periods up to date_to).
 * Resolved once, before a cohort breakdown splits the query, so that every cohort block has the same rows.
 */
async function resolveAllTime(node: RetentionQueryNode, ctx: RunnerContext): Promise<RetentionQueryNode> {
  if (node.dateRange?.date_from !== 'all') return node;
  await initParser();
  const rf = node.retentionFilter;
  const tz = ctx.project.timezone;
  const actions = await actionsOf(
    ctx,
    [rf.targetEntity, rf.returningEntity].filter(isAction).map((e) => ({ kind: 'ActionsNode', id: Number(e!.id) })),
  );
  const target = entityCondition(rf.targetEntity, true, tz, actions, 'retentionFilter__targetEntity') ?? ast.constant(true);
  const returning = entityCondition(rf.returningEntity, true, tz, actions, 'retentionFilter__returningEntity') ?? ast.constant(true);
  const earliest = await earliestTimestamp(ctx, ast.and(globalFilterExpr(node, ctx), ast.or(target, returning)));
  return { ...node, dateRange: { ...node.dateRange, date_from: earliest ? fmtLocal(localParts(earliest.getTime(), tz)) : null } };
}

export async function runRetention(node: RetentionQueryNode, ctx: RunnerContext, opts: RetentionRunOptions = {}): Promise<Record<string, unknown>> {
  node = await resolveAllTime(node, ctx);
  const cohortIds = retentionCohortIds(node);
  if (cohortIds) return runRetentionCohortBreakdown(node, ctx, cohortIds, (sub, c, o) => runRetention(sub, c, { ...opts, ...o }), opts.onActor);
  await initParser();
  const rf = node.retentionFilter;
  const tz = ctx.project.timezone;
  const weekStart = ctx.project.week_start_day ?? 0;
  const period = rf.period ?? 'Day';
  const interval = PERIOD_INTERVAL[period];
  const total = retentionTotalIntervals(rf);
  const type = rf.retentionType ?? 'retention_recurring';
  const windows = rf.timeWindowMode === '24_hour_windows';
  if (windows && rf.cumulative) throw validationError('Cumulative retention is not supported with 24 hour windows', 'retentionFilter__cumulative');
  // sum/avg of a property (reference §4.3): per cell, over the start events (interval 0) or the counted return events
  const agg = rf.aggregationType === 'sum' || rf.aggregationType === 'avg' ? rf.aggregationType : null;
  let aggValue: Expr | undefined;
  if (agg) {
    if (!rf.aggregationProperty) throw validationError(`aggregationType "${agg}" needs aggregationProperty.`, 'retentionFilter__aggregationProperty');
    if (rf.aggregationPropertyType === 'data_warehouse')
      throw validationError('Data warehouse properties are not available on this server.', 'retentionFilter__aggregationPropertyType');
    const prop = rf.aggregationPropertyType === 'person' ? ast.field('person', 'properties', rf.aggregationProperty) : ast.field('properties', rf.aggregationProperty);
    aggValue = ast.call('ifNull', [toStr(ast.call('toFloat', [prop])), ast.constant('')]);
  }
  // Custom brackets (reference §4.2): consecutive runs of return intervals of the given sizes, each one value after
  // interval 0 ([1, 6] → Day 0, Day 1, Day 2-7). slotOf[k]: the value a return k intervals after the cohort counts in.
  const brackets = rf.retentionCustomBrackets?.length ? rf.retentionCustomBrackets : null;
  const slotOf: number[] = [0];
  if (brackets) {
    if (brackets.some((b) => !Number.isInteger(b) || b < 1) || brackets.reduce((a, b) => a + b, 0) > 10_000)
      throw validationError('retentionCustomBrackets are sizes: whole numbers of intervals, 1 or more (10,000 in all at most).', 'retentionFilter__retentionCustomBrackets');
    brackets.forEach((size, b) => {
      for (let i = 0; i < size; i++) slotOf.push(b + 1);
    });
  } else for (let k = 1; k < total; k++) slotOf.push(k);
  const width = brackets ? brackets.length + 1 : total;
  const minOcc = rf.minimumOccurrences ?? 1;
  const { from, to, buckets } = retentionRange(node, tz, weekStart);

  const actions = await actionsOf(
    ctx,
    [rf.targetEntity, rf.returningEntity].filter(isAction).map((e) => ({ kind: 'ActionsNode', id: Number(e!.id) })),
  );
  const target = 'retentionFilter__targetEntity';
  const targetFull = entityCondition(rf.targetEntity, true, tz, actions, target) ?? ast.constant(true);
  const targetName = entityCondition(rf.targetEntity, false, tz, actions, target) ?? ast.constant(true);
  const returning = entityCondition(rf.returningEntity, true, tz, actions, 'retentionFilter__returningEntity') ?? ast.constant(true);
  const ts = ast.field('timestamp');
  const inRange = ast.and(ast.compare('>=', ts, dateConst(from, tz)), ast.compare('<', ts, dateConst(to, tz)));
  const beforeTo = ast.compare('<', ts, dateConst(to, tz));
  const bds = breakdownExprs(node.breakdownFilter).slice(0, 1);
  const bdExpr: Expr = bds.length ? ast.call('ifNull', [bds[0], ast.constant('')]) : ast.constant('');
  const bucketExpr: Expr =
    interval === 'hour'
      ? ast.call('toStartOfHour', [ts])
      : interval === 'day'
        ? ast.call('toStartOfDay', [ts])
        : interval === 'week'
          ? ast.call('toStartOfWeek', [ts, ast.constant(weekStart === 1 ? 1 : 0)])
          : ast.call('toStartOfMonth', [ts]);
  const flag = (c: Expr) => ast.call('if', [c, ast.constant('1'), ast.constant('0')]);
  // The period of an event: hour and day periods as the epoch seconds of their start (a number, whatever text a datetime
  // would read as: concat writes one in the project timezone, as toString does); week and month periods as their local date.
  const epochSeconds = (e: Expr) => ast.arithmetic('-', e, ast.call('toDateTime', [ast.constant(0)]));
  const keyedByEpoch = interval === 'hour' || interval === 'day';
  const periodKey = keyedByEpoch ? toStr(epochSeconds(bucketExpr)) : toStr(bucketExpr);
  const item = ast.call('concat', [
    periodKey,
    ast.constant('|'),
    toStr(epochSeconds(ts)),
    ast.constant('|'),
    flag(targetFull),
    ast.constant('|'),
    flag(returning),
    ast.constant('|'),
    aggValue ?? ast.constant(''),
    ast.constant('|'),
    bdExpr,
  ]);
  const epoch = (c: Expr) => ast.call('min', [ast.call('if', [c, epochSeconds(ts), ast.constant(null)])]);
  const firstTime = type !== 'retention_recurring';
  const byPerson = node.aggregation_group_type_index === null || node.aggregation_group_type_index === undefined;
  // Personless events (no person id: `$process_person_profile: false` of a distinct id without a person) are one
  // actor per distinct id, as PostHog gives them a person id derived from the distinct id.
  const actorStr = byPerson ? personOrDistinctActorExpr() : toStr(actorExpr(node.aggregation_group_type_index));
  const n = buckets.length;
  // cohort rows: breakdown value → cohort index → [counts per interval]
  const table = new Map<string, number[][]>();
  const rowFor = (bd: string) => {
    let t = table.get(bd);
    if (!t) table.set(bd, (t = Array.from({ length: n }, () => new Array(width).fill(0))));
    return t;
  };
  // sum/avg aggregation: the property's sum per cell, beside the actor counts
  const sums = new Map<string, number[][]>();
  const sumFor = (bd: string) => {
    let t = sums.get(bd);
    if (!t) sums.set(bd, (t = Array.from({ length: n }, () => new Array(width).fill(0))));
    return t;
  };
  let hogql: string;

  if (!windows && !opts.forceGeneral && !opts.onActor && !agg && !brackets) {
    const actor = actorExpr(node.aggregation_group_type_index);
    const global = globalFilterExpr(node, ctx);
    const gridInput: RetentionSqlInput = {
      type,
      period: interval as 'hour' | 'day' | 'week' | 'month',
      weekStart,
      fromLocal: fmtLocal(localParts(from, tz)),
      toLocal: fmtLocal(localParts(to, tz)),
      total,
      minOccurrences: minOcc,
      cumulative: !!rf.cumulative,
      actor,
      actorPresent: ast.call('isNotNull', [actor]),
      global,
      targetFull,
      targetName,
      returning,
      breakdown: bds.length ? bdExpr : undefined,
      periodStarts: buckets.map((b) => dateConst(b, tz)),
      uniformSeconds: uniformPeriodSeconds(buckets, to, interval),
      // (DuckDB: integer period indexes; `from` not before 1970, see RetentionSqlInput.integerSeconds)
      integerSeconds: ctx.engine.dialect === 'duckdb' && from >= 0,
    };
    // ClickHouse, first-time cohorts, one occurrence, non-cumulative, no breakdown: one read of the events (clickhouse-grid.ts).
    const grid =
      ctx.engine.dialect === 'clickhouse' && type !== 'retention_recurring' && minOcc === 1 && !rf.cumulative && !bds.length && !opts.forceJoinGrid
        ? clickhouseRetentionGridQuery({
            ...gridInput,
            actor: clickhouseActorKey(actor, node.aggregation_group_type_index === null || node.aggregation_group_type_index === undefined),
          })
        : retentionGridQuery(gridInput);
    const res = await runAllRows(ctx, grid);
    hogql = res.hogql;
    const rows = res.rows as [string, number, string, number, number][];
    // The grid keys actors on the stored person id. Personless actors (distinct ids) are disjoint from persons, so
    // their grid adds up; it runs only when the range has personless events (a probe on the stored column).
    if (byPerson && mayHavePersonless(ctx)) {
      const personless = ast.call('isNull', [ast.field('person_id')]);
      // (a personless actor is in the result only through an event in range: target or return)
      const probe = ast.select({
        select: [ast.alias('x', ast.constant(1))],
        from: 'events',
        where: ast.and(global, personless, inRange, ast.or(targetFull, returning)),
        limit: 1,
      });
      if ((await runAllRows(ctx, probe)).rows.length) {
        const distinct = ast.field('distinct_id');
        const more = await runAllRows(ctx, retentionGridQuery({ ...gridInput, actor: distinct, actorPresent: personless }));
        rows.push(...(more.rows as [string, number, string, number, number][]));
      }
    }
    for (const [kind, cohort, value, k, cnt] of rows) {
      const c = Number(cohort);
      if (c < 0 || c >= n) continue;
      const row = rowFor(String(value ?? ''))[c];
      const count = Number(cnt);
      if (kind === 'size') row[0] += count;
      else if (kind === 'return') row[Number(k)] += count;
      else for (let j = 1; j <= Number(k); j++) row[j] += count;
    }
  } else {
  const query = ast.select({
    select: [
      ast.alias('actor', actorStr),
      ast.alias('evs', ast.call('groupArray', [ast.call('if', [ast.and(inRange, ast.or(targetFull, returning)), item, ast.constant(null)])])),
      ast.alias('first_full', firstTime ? epoch(targetFull) : ast.constant(null)),
      ast.alias('first_any', type === 'retention_first_ever_occurrence' ? epoch(targetName) : ast.constant(null)),
    ],
    from: 'events',
    where: ast.and(
      globalFilterExpr(node, ctx),
      ast.compare('!=', actorStr, ast.constant('')),
      // First-time cohorts look up the first target event over all time; everything else stays in range.
      firstTime ? ast.or(ast.and(inRange, ast.or(targetFull, returning)), ast.and(beforeTo, type === 'retention_first_ever_occurrence' ? targetName : targetFull)) : ast.and(inRange, ast.or(targetFull, returning)),
    ),
    groupBy: [ast.field('actor')],
    orderBy: [ast.order(ast.field('actor'))],
  });
  const { rows, hogql: printed } = await runAllRows(ctx, query);
  hogql = printed;

  // Period keys (periodKey above): epoch seconds (hour/day) or a local DATE (week/month).
  const index = new Map<string, number>();
  buckets.forEach((b, i) => index.set(keyedByEpoch ? String(Math.round(b / 1000)) : fmtLocal(localParts(b, tz)).slice(0, 10), i));

  ctx.timings.measureSync('retention', () => {
    for (const r of rows) {
      const evs: ActorEvent[] = [];
      for (const raw of (r[1] as string[]) ?? []) {
        const parts = String(raw).split('|');
        const p = index.get(keyedByEpoch ? String(Math.round(Number(parts[0]))) : parts[0].slice(0, 10));
        if (p === undefined) continue;
        const value = Number(parts[4]);
        evs.push({
          period: p,
          ts: Math.round(Number(parts[1]) * 1000),
          target: parts[2] === '1',
          ret: parts[3] === '1',
          value: parts[4] !== '' && Number.isFinite(value) ? value : 0,
          bd: parts.slice(5).join('|'),
        });
      }
      evs.sort((a, b) => a.ts - b.ts);
      // Cohort membership: (cohort index, breakdown value, anchor time).
      const cohorts: { c: number; bd: string; anchor: number; start: number }[] = [];
      if (type === 'retention_recurring') {
        const seen = new Set<number>();
        for (const e of evs) {
          if (!e.target || seen.has(e.period)) continue;
          seen.add(e.period);
          // (start: the property summed over the actor's target events of the cohort interval)
          const start = agg ? evs.reduce((sum, x) => sum + (x.target && x.period === e.period ? x.value : 0), 0) : 0;
          cohorts.push({ c: e.period, bd: e.bd, anchor: e.ts, start });
          if (windows) break;
        }
      } else {
        const firstFull = r[2] === null || r[2] === undefined ? null : Math.round(Number(r[2]) * 1000);
        const firstAny = r[3] === null || r[3] === undefined ? null : Math.round(Number(r[3]) * 1000);
        const anchor = type === 'retention_first_ever_occurrence' ? (firstAny !== null && firstAny === firstFull ? firstAny : null) : firstFull;
        if (anchor !== null && anchor >= from && anchor < to) {
          const e = evs.find((x) => x.target && x.ts === anchor);
          if (e) cohorts.push({ c: e.period, bd: e.bd, anchor, start: e.value });
        }
      }
      for (const { c: cal, bd, anchor, start } of cohorts) {
        const c = windows ? Math.floor((anchor - from) / WINDOW_MS[period]) : cal;
        if (c < 0 || c >= n) continue;
        const row = rowFor(bd)[c];
        row[0]++;
        const returnsPer = new Map<number, number>();
        const valueAt = new Map<number, number>();
        for (const e of evs) {
          if (!e.ret) continue;
          const k = windows ? (e.ts > anchor ? Math.floor((e.ts - anchor) / WINDOW_MS[period]) : 0) : e.period - c;
          if (k < 1 || k >= slotOf.length) continue;
          returnsPer.set(k, (returnsPer.get(k) ?? 0) + 1);
          if (agg) valueAt.set(k, (valueAt.get(k) ?? 0) + e.value);
        }
        // the values (slots) the actor's qualifying return intervals fall in, and their property sums
        const valuePer = new Map<number, number>();
        for (const [k, cnt] of returnsPer) if (cnt >= minOcc) valuePer.set(slotOf[k], (valuePer.get(slotOf[k]) ?? 0) + (valueAt.get(k) ?? 0));
        const hits = [...valuePer.keys()];
        if (agg) {
          const sum = sumFor(bd)[c];
          sum[0] += start;
          // cumulative: the actor counts at every interval up to its last return, with its returns from there on
          for (const k of hits)
            if (rf.cumulative) for (let j = 1; j <= k; j++) sum[j] += valuePer.get(k)!;
            else sum[k] += valuePer.get(k)!;
        }
        if (rf.cumulative) {
          const max = hits.length ? Math.max(...hits) : 0;
          for (let k = 1; k <= max; k++) row[k]++;
          opts.onActor?.(String(r[0]), c, Array.from({ length: max + 1 }, (_, k) => k), bd);
        } else {
          for (const k of hits) row[k]++;
          opts.onActor?.(String(r[0]), c, [0, ...hits.sort((x, y) => x - y)], bd);
        }
      }
    }
  });

  }

  // Breakdown values ranked by total cohort size; the rest merged into the Other bucket, placed last.
  const withBreakdown = bds.length > 0;
  let values = [...table.keys()];
  if (withBreakdown) {
    const size = (v: string) => table.get(v)!.reduce((s, row) => s + row[0], 0);
    values.sort((a, b) => size(b) - size(a) || (a < b ? -1 : a > b ? 1 : 0));
    const limit = node.breakdownFilter?.breakdown_limit ?? 25;
    if (values.length > limit) {
      const merged = Array.from({ length: n }, () => new Array(width).fill(0));
      for (const v of values.slice(limit)) table.get(v)!.forEach((row, c) => row.forEach((x, k) => (merged[c][k] += x)));
      if (agg) {
        const mergedSums = Array.from({ length: n }, () => new Array(width).fill(0));
        for (const v of values.slice(limit)) sums.get(v)?.forEach((row, c) => row.forEach((x, k) => (mergedSums[c][k] += x)));
        sums.set(OTHER, mergedSums);
      }
      values = values.slice(0, limit);
      table.set(OTHER, merged);
      values.push(OTHER);
    }
  } else values = [''];

  const label = (i: number) => `${period} ${i}`;
  const valueLabel = (slot: number): string => {
    if (!brackets || slot === 0) return label(slot);
    const first = slotOf.indexOf(slot);
    const last = slotOf.lastIndexOf(slot);
    return first === last ? label(first) : `${period} ${first}-${last}`;
  };
  const results: Record<string, unknown>[] = [];
  for (const v of values) {
    const t = table.get(v) ?? Array.from({ length: n }, () => new Array(width).fill(0));
    const sv = sums.get(v);
    const aggregated = (c: number, k: number, count: number): number => {
      const sum = sv?.[c][k] ?? 0;
      return agg === 'avg' ? (count ? sum / count : 0) : sum;
    };
    for (let c = 0; c < n; c++) {
      results.push({
        values: t[c].map((count, k) => ({ count, label: valueLabel(k), ...(agg ? { aggregation_value: aggregated(c, k, count) } : {}) })),
        label: label(c),
        date: isoInTz(buckets[c], tz, interval !== 'hour'),
        breakdown_value: withBreakdown ? v : null,
      });
    }
  }
  return { results, hogql };
}

/**
 * The actors of one cohort row (`interval`, 0-based) of a retention query, with the intervals each appears in. With a
 * breakdown, `breakdown` picks one block of rows: a value, or the Other bucket (every value past `breakdown_limit`).
 */
export async function retentionActorsQuery(
  node: RetentionQueryNode,
  ctx: RunnerContext,
  point: { interval: number; breakdown?: string | null },
): Promise<{ ids: string[]; appearances: Map<string, number[]>; groupTypeIndex: number | null }> {
  // (a cohort breakdown's all users: 0, or 'all' as the filter names it)
  const wanted = point.breakdown === 'all' && retentionCohortIds(node) ? '0' : (point.breakdown ?? null);
  // the cohort's actors by breakdown value; which values the Other bucket holds is known once the run has ranked them
  const byValue = new Map<string, Map<string, number[]>>();
  const { results } = await runRetention(node, ctx, {
    onActor(actor, cohort, intervals, bd) {
      if (cohort !== point.interval) return;
      if (wanted !== null && wanted !== OTHER && bd !== wanted) return;
      let m = byValue.get(bd);
      if (!m) byValue.set(bd, (m = new Map()));
      m.set(actor, intervals);
    },
  });
  const shown = new Set((results as { breakdown_value: unknown }[]).map((r) => r.breakdown_value));
  const appearances = new Map<string, number[]>();
  for (const [bd, m] of byValue) {
    // Other: the values not shown as their own rows (a value literally named like the sentinel is not merged into it)
    if (wanted === OTHER && shown.has(bd)) continue;
    for (const [actor, intervals] of m) appearances.set(actor, intervals);
  }
  return { ids: [...appearances.keys()].sort(), appearances, groupTypeIndex: node.aggregation_group_type_index ?? null };
}

/** RetentionQuery: first-time / recurring / first-ever-occurrence cohorts by Hour, Day, Week or Month. */
export const retentionRunner: QueryRunner<RetentionQueryNode> = {
  kinds: ['RetentionQuery'],
  schema: retentionQuerySchema,
  run: (node, ctx) => runRetention(node, ctx),
};

