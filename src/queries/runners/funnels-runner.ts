import { validationError } from '../../errors';
import { ast, initParser, type Expr } from '../../productql';
import { breakdownExprs, funnelActorHogQLExpr, funnelAggregationHogQL, clickhouseActorKey, entityExpr, eventNameExpr, median, medianOfSorted, propertiesExpr, round2, toStr } from '../funnels/common';
import { actorExpr, bucketKey, bucketKeyFromValue, bucketLabel, bucketStartExpr, earliestTimestamp, globalFilterExpr, instantToLocal, personOrDistinctActorExpr, QueryDateRange, startOfInterval, type Bucket, type IntervalType } from '../insights';
import { evaluateActor, type ActorResult, type FunnelConfig, type FunnelEvent } from '../funnels/compute';
import { fastOrderedFunnelQuery } from '../funnels/fast-ordered';
import { epochMsExpr, runAllRows, runPerActorItems } from '../funnels/run-paged';
import { clickhouseOrderedFunnelQuery } from '../funnels/clickhouse-ordered';
import { mayHavePersonless, runInsightQuery } from '../insights';
import { funnelsQuerySchema, type FunnelsQueryNode } from '../funnels/schema';
import { funnelCohortValues, runFunnelCohortBreakdown } from '../funnels/cohort-breakdown';
import type { QueryRunner, RunnerContext } from '../runner';
import { actionToExpr, type ActionDef } from '../../actions/matching';
import { actionsOf } from '../insights/series';
import { exclusionCoversStep } from '../funnels/entities';

const UNIT_SECONDS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 7 * 86400,
  month: 31 * 86400,
};

/**
 * The funnel's conversion window in ms (default 14 days); funnel paths split sessions at it too. An interval of 0 is the
 * default, as PostHog's FunnelQueryContext reads it (`funnelWindowInterval or 14`, `funnelWindowIntervalUnit or DAY`).
 */
export const funnelWindowMs = (ff: { funnelWindowInterval?: number | null; funnelWindowIntervalUnit?: string | null } | null | undefined): number =>
  (ff?.funnelWindowInterval || 14) * UNIT_SECONDS[ff?.funnelWindowIntervalUnit || 'day'] * 1000;

const SEP = '\u0001';

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Step math: only FunnelMathType's two first-time variants change a step (see {@link firstTimeSteps}); any other math
 * a series node may carry (`total`, `dau`, `weekly_active`, ... — what legacy filters and shared series editors send)
 * is ignored, as PostHog's funnel runner ignores it (test_funnel.py test_funnel_with_actions: steps with `dau` and
 * `weekly_active` math count actors as any step).
 */
const isFirstTime = (s: { math?: string | null }): boolean => s.math === 'first_time_for_user' || s.math === 'first_time_for_user_with_filters';
const OTHER = 'Other';

type Step = FunnelsQueryNode['series'][number];
type GroupStep = Extract<Step, { kind: 'GroupNode' }>;
/** A step's event/action nodes: a GroupNode's own nodes, else the step itself. */
const nodesOf = (s: Step) => (s.kind === 'GroupNode' ? s.nodes : [s]);

/** The action an ActionsNode step or exclusion was resolved to ({@link withActions}); undefined for events. */
const actionOf = (s: object): ActionDef | undefined => (s as { action?: ActionDef }).action;

/**
 * The node with every ActionsNode step and exclusion carrying its live action (`action`), so the step conditions and
 * the step objects read it. An action that does not exist in the project (or is deleted) is a 400, as in PostHog.
 */
async function withActions(node: FunnelsQueryNode, ctx: RunnerContext): Promise<FunnelsQueryNode> {
  const exclusions = node.funnelsFilter?.exclusions ?? [];
  const stepNodes = node.series.flatMap(nodesOf);
  const actions = await actionsOf(ctx, [...stepNodes, ...exclusions.map((e) => ({ kind: e.kind, id: Number(e.id) }))]);
  if (!actions.size && !stepNodes.some((s) => s.kind === 'ActionsNode') && !exclusions.some((e) => e.kind === 'ActionsNode')) return node;
  const resolve = <T extends { kind: string; id?: unknown }>(s: T, attr: string): T => {
    if (s.kind !== 'ActionsNode') return s;
    const action = actions.get(Number(s.id));
    if (!action) throw validationError(`Action ${String(s.id)} does not exist.`, attr, 'action_not_found');
    return { ...s, action };
  };
  return {
    ...node,
    series: node.series.map((s, i) =>
      s.kind === 'GroupNode' ? { ...s, nodes: s.nodes.map((x, j) => resolve(x, `series__${i}__nodes__${j}`)) } : resolve(s, `series__${i}`),
    ),
    ...(node.funnelsFilter
      ? { funnelsFilter: { ...node.funnelsFilter, exclusions: node.funnelsFilter.exclusions?.map((e, i) => resolve(e, `funnelsFilter__exclusions__${i}`)) } }
      : {}),
  };
}

/**
 * A step's (or exclusion's) condition: the event or the action, AND its properties and fixed properties. A GroupNode
 * step: an event of any of its nodes (each with its own filters), AND the group's properties and fixed properties.
 */
function stepExpr(s: { kind?: string; event?: string | null; properties?: unknown; fixedProperties?: unknown; nodes?: unknown[] }, tz: string): Expr {
  if (s.kind === 'GroupNode')
    return ast.and(ast.or(...(s as GroupStep).nodes.map((x) => stepExpr(x, tz))), propertiesExpr(s.properties, tz), propertiesExpr(s.fixedProperties, tz));
  const action = actionOf(s);
  if (!action) return entityExpr(s, tz);
  return ast.and(actionToExpr(action, { timezone: tz }), propertiesExpr(s.properties, tz), propertiesExpr(s.fixedProperties, tz));
}

/**
 * The funnelToStep a visualisation reads. Time to convert takes PostHog's `funnelToStep or len(series) - 1`
 * (FunnelTimeToConvert.get_query): a to-step of 0 is the last step, as when it is missing; its range check then only
 * refuses negative and too large steps.
 */
function stepRangeTo(ff: NonNullable<FunnelsQueryNode['funnelsFilter']>, viz: string): number | null | undefined {
  return viz === 'time_to_convert' && ff.funnelToStep === 0 ? null : ff.funnelToStep;
}

/** Validation PostHog does before running (400s). */
function validate(node: FunnelsQueryNode): void {
  const n = node.series.length;
  const ff = node.funnelsFilter ?? {};
  const order = ff.funnelOrderType ?? 'ordered';
  // PostHog implements a GroupNode's OR only (its AND adds no condition): a 400, as in trends (insights/series.ts).
  for (const [i, s] of node.series.entries())
    if (s.kind === 'GroupNode' && s.operator !== 'OR')
      throw validationError('A GroupNode combines its nodes with OR; operator AND is not supported.', `series__${i}__operator`, 'unsupported_series');
  // PostHog's FunnelBase checks every exclusion's range and steps first; the unordered funnel refuses partial ranges
  // afterwards, when it builds its query.
  const exclusions = ff.exclusions ?? [];
  for (const [i, ex] of exclusions.entries()) {
    const attr = `funnelsFilter__exclusions__${i}`;
    if (ex.funnelFromStep < 0 || ex.funnelFromStep >= ex.funnelToStep)
      throw validationError('Exclusion event range is invalid. End of range should be greater than start.', attr);
    if (ex.funnelFromStep >= n - 1) throw validationError('Exclusion event range is invalid. Start of range is greater than number of steps.', attr);
    if (ex.funnelToStep > n - 1) throw validationError('Exclusion event range is invalid. End of range is greater than number of steps.', attr);
    for (let s = ex.funnelFromStep; s <= ex.funnelToStep; s++) {
      if (exclusionCoversStep(node.series[s], ex))
        throw validationError("Exclusion steps cannot contain an event that's part of funnel steps.", attr);
    }
  }
  for (const [i, ex] of exclusions.entries())
    if (order === 'unordered' && (ex.funnelFromStep !== 0 || ex.funnelToStep !== n - 1))
      throw validationError('Partial Exclusion not allowed in unordered funnels', `funnelsFilter__exclusions__${i}`);
  const viz = ff.funnelVizType ?? 'steps';
  if (viz !== 'steps' || order === 'unordered') {
    if (node.series.some((s) => s.optionalInFunnel))
      throw validationError('Optional steps are only supported in ordered and strict funnels with the steps visualization', 'series');
  }
  if (node.series[0]?.optionalInFunnel) throw validationError('The first step of a funnel cannot be optional', 'series');
  for (let i = 1; i < n - 1; i++) {
    if (node.series[i].optionalInFunnel && JSON.stringify(node.series[i]) === JSON.stringify({ ...node.series[i + 1], optionalInFunnel: true }))
      throw validationError('An optional step cannot be identical to the following required step', 'series');
  }
  // The step range is read by the trends and time-to-convert visualisations only (PostHog ignores it for steps, so a
  // one-step funnel, test_funnel_with_single_step, is valid there).
  if (viz !== 'steps') {
    const toStep = stepRangeTo(ff, viz);
    if (ff.funnelFromStep !== undefined && ff.funnelFromStep !== null && (ff.funnelFromStep < 0 || ff.funnelFromStep > n - 2))
      throw validationError('funnelFromStep is out of range', 'funnelsFilter__funnelFromStep');
    if (toStep !== undefined && toStep !== null && (toStep < 1 || toStep > n - 1))
      throw validationError(
        // PostHog's FunnelTimeToConvert words it so; its trends have no check of their own.
        viz === 'time_to_convert'
          ? `Filter parameter funnel_to_step can only be one of ${Array.from({ length: n - 1 }, (_, i) => i + 1).join(', ')} for time to convert!`
          : 'funnelToStep is out of range',
        'funnelsFilter__funnelToStep',
      );
    if ((ff.funnelFromStep ?? 0) >= (toStep ?? n - 1)) throw validationError('funnelFromStep must be before funnelToStep', 'funnelsFilter');
  }
  if (ff.breakdownAttributionType === 'step') {
    const v = ff.breakdownAttributionValue ?? 0;
    if (v < 0 || v > n - 1) throw validationError('breakdownAttributionValue is out of range', 'funnelsFilter__breakdownAttributionValue');
    // (an unordered funnel takes any step too: PostHog's editor offers only step 0 there, as "Any step", but its SQL
    // reads any value over the rotated steps; see attributeUnorderedStep)
  }
}

/**
 * First-time steps (PostHog's funnel `_build_step_query` with FirstTimeForUserEventsQueryAlternator): a step with
 * `first_time_for_user` matches only the actor's first-ever event of the step's event (before `date_from` too; the
 * step's property filters must then hold on that event); `first_time_for_user_with_filters` the first-ever event
 * matching the event and its filters. Per first-time step: actor → epoch ms of that first event (same actor key and
 * time expression as the per-actor items).
 */
async function firstTimeSteps(node: FunnelsQueryNode, ctx: RunnerContext, range: QueryDateRange, actor: Expr): Promise<Map<number, Map<string, number>>> {
  const tz = ctx.project.timezone;
  const out = new Map<number, Map<string, number>>();
  for (const [k, s] of node.series.entries()) {
    if (!isFirstTime(s)) continue;
    // (the event or action of each node of a GroupNode step; an all-events node: any event)
    const events = nodesOf(s).map((x) => {
      const action = actionOf(x);
      return action ? actionToExpr(action, { timezone: tz }) : eventNameExpr(x);
    });
    const cond = s.math === 'first_time_for_user_with_filters' ? stepExpr(s, tz) : events.some((e) => !e) ? undefined : ast.or(...events);
    const q = ast.select({
      select: [ast.alias('actor', actor), ast.alias('first_ms', epochMsExpr(ast.call('min', [ast.field('timestamp')])))],
      from: 'events',
      where: ast.and(cond, ast.compare('<=', ast.field('timestamp'), ast.constant(range.toSql())), ast.compare('!=', actor, ast.constant(''))),
      groupBy: [ast.field('actor')],
      orderBy: [ast.order(ast.field('actor'))],
    });
    const { rows } = await runAllRows(ctx, q, 'first_time');
    out.set(k, new Map(rows.map((r) => [String(r[0]), Number(r[1])])));
  }
  return out;
}

/** PostHog's funnel result row limit without a breakdown limit (DEFAULT_RETURNED_ROWS). */
const DEFAULT_RETURNED_ROWS = 100;

/**
 * Values past the breakdown limit are grouped as "Other" only for event, person and group breakdowns (funnel UDF
 * `use_breakdown_limit`); other types (hogql) return the top 100 rows and drop the rest.
 */
const groupsRemainingValues = (node: FunnelsQueryNode): boolean => ['event', 'person', 'group'].includes(node.breakdownFilter?.breakdown_type ?? 'event');

const stepEvent = (s: Step): string | null => (s.kind === 'EventsNode' ? (s.event ?? null) : null);

function buildQueryParts(node: FunnelsQueryNode, ctx: RunnerContext, range: QueryDateRange): { actor: Expr; item: Expr; where: Expr } {
  const ff = node.funnelsFilter ?? {};
  const tz = ctx.project.timezone;
  const order = ff.funnelOrderType ?? 'ordered';
  const stepConds = node.series.map((s) => stepExpr(s, tz));
  const exclConds = (ff.exclusions ?? []).map((e) =>
    stepExpr(e, tz),
  );
  const mask = (conds: Expr[]): Expr =>
    conds.length === 0
      ? ast.constant(0)
      : conds
          .map((c, i) => ast.call('if', [c, ast.constant(2 ** i), ast.constant(0)]) as Expr)
          .reduce((a, b) => ast.arithmetic('+', a, b));
  // Personless events (`$process_person_profile: false`, stored without a person) are one actor per distinct id, as
  // PostHog gives them a person id derived from the distinct id (test_funnel_personless_events_are_supported).
  let actor: Expr = personOrDistinctActorExpr(node.aggregation_group_type_index);
  const byHogQL = funnelAggregationHogQL(node);
  if (byHogQL) actor = funnelActorHogQLExpr(byHogQL);
  const bds = breakdownExprs(node.breakdownFilter);
  const bdExpr: Expr =
    bds.length === 0
      ? ast.constant('')
      : ast.call(
          'concat',
          bds.flatMap((b, i) => {
            const v = ast.call('ifNull', [b, ast.constant('')]);
            return i === 0 ? [v] : [ast.constant(SEP), v];
          }),
        );
  const item = ast.call('concat', [
    toStr(epochMsExpr()),
    ast.constant('|'),
    toStr(mask(stepConds)),
    ast.constant('|'),
    toStr(mask(exclConds)),
    ast.constant('|'),
    bdExpr,
  ]);
  const actorStr = toStr(actor);
  const where = ast.and(
    funnelRangeExpr(range),
    globalFilterExpr(node, ctx),
    // Strict funnels look at every event (any other event breaks the sequence).
    order === 'strict' ? undefined : ast.or(...stepConds, ...exclConds),
    // Personless events (and empty funnelAggregateByHogQL targets) have no actor.
    ast.compare('!=', actorStr, ast.constant('')),
  );
  return { actor: actorStr, item, where };
}

function parseEvents(list: unknown): FunnelEvent[] {
  const out: FunnelEvent[] = [];
  for (const raw of (list as string[]) ?? []) {
    const s = String(raw);
    const a = s.indexOf('|');
    const b = s.indexOf('|', a + 1);
    const c = s.indexOf('|', b + 1);
    out.push({ ts: Number(s.slice(0, a)), steps: Number(s.slice(a + 1, b)), excl: Number(s.slice(b + 1, c)), bd: s.slice(c + 1) });
  }
  // Time order; on equal times the event matching the earlier step first.
  out.sort((x, y) => x.ts - y.ts || lowest(x.steps) - lowest(y.steps));
  return out;
}
const lowest = (m: number): number => (m === 0 ? 99 : Math.log2(m & -m));

interface Attributed {
  value: string;
  result: ActorResult;
}

/**
 * Breakdown attribution: which value(s) an actor's funnel is counted under. `scalar`: a single group breakdown, which
 * PostHog leaves unboxed (FunnelQueryContext boxes person/event/hogql breakdowns only): its value is
 * `ifNull(group_N.properties.x, '')` and first/last touch `argMinIf(prop, timestamp, isNotNull(prop))`, so '' is not
 * skipped as it is for the boxed ones (`notEmpty(arrayFilter(x -> notEmpty(x), prop))`).
 */
function attribute(events: FunnelEvent[], cfg: FunnelConfig, type: string, stepIndex: number, withBreakdown: boolean, scalar = false): Attributed[] {
  if (!withBreakdown) {
    const r = evaluateActor(events, cfg);
    return r ? [{ value: '', result: r }] : [];
  }
  const stepEvents = events.filter((e) => e.steps !== 0);
  if (type === 'first_touch' || type === 'last_touch') {
    // PostHog picks the value with argMinIf/argMaxIf over the actor's rows of the funnel events query
    // (base.py _get_breakdown_select_prop): its exclusion events too, and for a strict funnel every event of the actor.
    // Those are the events fetched here.
    const ordered = type === 'first_touch' ? events : [...events].reverse();
    const hit = scalar ? ordered[0] : ordered.find((e) => e.bd.split(SEP).some((p) => p !== ''));
    const r = evaluateActor(events, cfg);
    return r ? [{ value: hit ? hit.bd : (stepEvents[0]?.bd ?? ''), result: r }] : [];
  }
  if (type === 'all_events') {
    const values = [...new Set(stepEvents.map((e) => e.bd))];
    const out: Attributed[] = [];
    for (const v of values) {
      // The funnel UDF keeps only the events of the value (`breakdown == prop_val`), exclusions and a strict funnel's
      // other events too: an event of another value neither excludes nor interrupts this value's sequence.
      const r = evaluateActor(
        events.filter((e) => e.bd === v),
        cfg,
      );
      if (r) out.push({ value: v, result: r });
    }
    return out;
  }
  if (cfg.order === 'unordered') return attributeUnorderedStep(events, cfg, stepIndex);
  // step: the value on the event that matched step `stepIndex`.
  const values = [...new Set(stepEvents.filter((e) => e.steps & (1 << stepIndex)).map((e) => e.bd))];
  let best: Attributed | null = null;
  for (const v of values) {
    const r = evaluateActor(events, cfg, (k, ev) => k !== stepIndex || ev.bd === v);
    if (!r) continue;
    const reachedStep = stepIndex <= r.maxStep;
    if (!reachedStep) continue;
    if (!best || r.maxStep > best.result.maxStep) best = { value: v, result: r };
  }
  if (best) return [best];
  // Never reached the attribution step (even if it has events of that step outside its sequence): no value, one empty
  // part per breakdown (breakdown_cases.py: "funnel items that never reach step_1 are NULLed out").
  const r = evaluateActor(events, cfg, (k) => k !== stepIndex);
  const empty = (events[0]?.bd ?? '').split(SEP).map(() => '').join(SEP);
  return r && r.maxStep < stepIndex ? [{ value: empty, result: r }] : [];
}

/**
 * Step attribution in an unordered funnel ("Any step" in PostHog's editor). FunnelUnordered runs one query per rotation
 * of the steps, rotation r starting its runs at step r, and reads the attribution step there among the rotated step
 * columns (base.py `prop_{breakdownAttributionValue}`, then ARRAY JOIN prop_vals): rotation r takes the values of the
 * actor's events of step (r + stepIndex) mod n, and each of them gets that rotation's runs. So with step 0 the actor
 * counts under the value of any step's events (test_funnel_unordered.py test_funnel_step_breakdown_with_step_attribution:
 * six values out of four persons); a value several rotations give keeps the furthest, runs of equal reach averaged.
 */
function attributeUnorderedStep(events: FunnelEvent[], cfg: FunnelConfig, stepIndex: number): Attributed[] {
  const n = cfg.numSteps;
  const byValue = new Map<string, ActorResult>();
  for (let r = 0; r < n; r++) {
    const k = (r + stepIndex) % n;
    const values = new Set(events.filter((e) => e.steps & (1 << k)).map((e) => e.bd));
    if (!values.size) continue;
    const res = evaluateActor(events, cfg, (step, ev) => step !== 0 || (ev.steps & (1 << r)) !== 0);
    if (!res) continue;
    for (const v of values) {
      const prev = byValue.get(v);
      if (!prev) {
        byValue.set(v, res);
        continue;
      }
      // (trends: the entries of every rotation giving the value)
      const reachByEntry = new Map(prev.reachByEntry);
      for (const [entry, step] of res.reachByEntry) reachByEntry.set(entry, Math.max(step, reachByEntry.get(entry) ?? -1));
      if (res.maxStep > prev.maxStep) byValue.set(v, { ...res, reachByEntry });
      else if (res.maxStep === prev.maxStep) byValue.set(v, { ...prev, reachByEntry, maxStepTimings: [...(prev.maxStepTimings ?? []), ...(res.maxStepTimings ?? [])] });
      else byValue.set(v, { ...prev, reachByEntry });
    }
  }
  return [...byValue].map(([value, result]) => ({ value, result }));
}

const boxed = (v: string, n: number): string[] => (v === OTHER ? [OTHER] : n === 0 ? [] : v.split(SEP));

/**
 * `days`/`labels` of funnel trends (PostHog FunnelTrends._format_single_summary): days are `%Y-%m-%d` of the period
 * start (with ` %H:%M:%S` for hours), labels always HUMAN_READABLE_TIMESTAMP_FORMAT `%-d-%b-%Y` of the period start —
 * not the trends labels (no week spans, no `Jan 2024` months, no hour in the label).
 */
function trendsAxes(buckets: Bucket[], interval: IntervalType): { days: string[]; labels: string[] } {
  // (only the hour interval adds the time: minute periods read as their date, as PostHog formats them)
  return { days: buckets.map((b) => (interval === 'hour' ? b.key : b.key.slice(0, 10))), labels: buckets.map((b) => bucketLabel(b.start, 'day')) };
}

/** Python's ordering of breakdown values (lists of strings compared element-wise by code point), as `sorted()` gives. */
function compareBreakdownValues(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/**
 * instantToLocal with the UTC offset cached per 15-minute slot (offset changes happen on quarter-hour boundaries),
 * because Intl formatting per event dominated funnel trends.
 */
function localTimeCache(tz: string): (ms: number) => number {
  const offsets = new Map<number, number>();
  return (ms) => {
    const slot = Math.floor(ms / 900_000);
    let off = offsets.get(slot);
    if (off === undefined) {
      const start = slot * 900_000;
      off = instantToLocal(start, tz) - start;
      offsets.set(slot, off);
    }
    return ms + off;
  };
}

/** A step's `name`: the event (null for all events), the action's name, or a GroupNode's name or its nodes' names. */
function stepName(s: Step): string | null {
  if (s.kind === 'GroupNode') return s.name ?? s.nodes.map((x) => stepName(x) ?? 'All events').join(', ');
  return s.kind === 'ActionsNode' ? (actionOf(s)?.name ?? s.name ?? String(s.id)) : stepEvent(s);
}

/**
 * A single group breakdown (`breakdown_type: 'group'`, `breakdown` one property name), whose step values PostHog
 * returns as strings, not arrays: FunnelQueryContext boxes a string breakdown into a list for person/event/hogql
 * types only, and a list `breakdown` (`['industry']`) stays a list, so its values are arrays (`_query_has_array_breakdown`).
 */
const isGroupBreakdown = (node: FunnelsQueryNode): boolean =>
  node.breakdownFilter?.breakdown_type === 'group' && !node.breakdownFilter.breakdowns?.length && !Array.isArray(node.breakdownFilter.breakdown);

function stepObject(
  s: Step,
  i: number,
  order: string,
  count: number,
  avg: number | null,
  med: number | null,
  value: string | null,
  bdCount: number,
  scalarBreakdown = false,
): Record<string, unknown> {
  const unordered = order === 'unordered';
  const step: Record<string, unknown> = {
    action_id: unordered ? null : s.kind === 'ActionsNode' ? s.id : stepEvent(s),
    // PostHog's _serialize_step: name = step.event for events, so null for an all-events step. A GroupNode step is named
    // as a GroupNode trends series is (insights/series.ts seriesLabel): its name, else its nodes' names.
    name: unordered ? `Completed ${i + 1} step${i === 0 ? '' : 's'}` : stepName(s),
    custom_name: unordered ? null : (s.custom_name ?? null),
    order: i,
    people: [],
    count,
    type: s.kind === 'ActionsNode' ? 'actions' : 'events',
    average_conversion_time: avg,
    median_conversion_time: med,
  };
  if (value !== null) {
    // PostHog boxes event/person/hogql values into arrays; a group breakdown's value stays a string.
    step.breakdown = scalarBreakdown ? value : boxed(value, bdCount);
    step.breakdown_value = scalarBreakdown ? value : boxed(value, bdCount);
  }
  return step;
}

/** Options for tests and benchmarks. */
export interface FunnelRunOptions {
  /** Skip the SQL-only ordered-funnel path and use the general per-actor evaluation. */
  forceGeneral?: boolean;
  /** SQL-only ordered funnel: use the window-pass form even where ASOF joins are available (tests compare both). */
  forceWindowPasses?: boolean;
  /**
   * Called once per (actor, breakdown value) with the actor's result, for the funnel's actors (FunnelsActorsQuery);
   * implies the per-actor evaluation. Default none.
   */
  onActor?: (actor: string, breakdownValue: string, result: ActorResult) => void;
}

/**
 * The funnel's time range: from date_from itself (PostHog's funnel event query reads from `date_range.date_from()`, the
 * start of its day or hour), not from the start of its interval as trends do — a month interval does not widen the
 * range to the 1st.
 */
function funnelRangeExpr(range: QueryDateRange): Expr {
  return range.whereExpr(undefined, { lower: range.dateFrom });
}

export async function runFunnels(node: FunnelsQueryNode, ctx: RunnerContext, opts: FunnelRunOptions = {}): Promise<Record<string, unknown>> {
  validate(node);
  const cohorts = funnelCohortValues(node);
  if (cohorts) return runFunnelCohortBreakdown(node, ctx, cohorts, (sub, c, o) => runFunnels(sub, c, { ...opts, onActor: o.onActor }), opts.onActor);
  node = await withActions(node, ctx);
  await initParser();
  const ff = node.funnelsFilter ?? {};
  const tz = ctx.project.timezone;
  const interval: IntervalType = node.interval ?? 'day';
  const weekStart = ctx.project.week_start_day ?? 0;
  // `date_from: "all"` starts at the project's earliest event (reference §1.5: the team's earliest event timestamp),
  // not today.
  let earliest: Date | null = null;
  if (node.dateRange?.date_from === 'all') earliest = await earliestTimestamp(ctx, undefined);
  const range = new QueryDateRange({ dateRange: node.dateRange, interval, timezone: tz, weekStartDay: weekStart, earliest });
  const n = node.series.length;
  const order = ff.funnelOrderType ?? 'ordered';
  const viz = ff.funnelVizType ?? 'steps';
  if (viz === 'trends') range.checkIntervalCount();
  const cfg: FunnelConfig = {
    numSteps: n,
    order,
    windowMs: funnelWindowMs(ff),
    optional: node.series.map((s) => !!s.optionalInFunnel),
    exclusions: (ff.exclusions ?? []).map((e) => ({ from: e.funnelFromStep, to: e.funnelToStep })),
    perEntry: viz === 'trends',
  };
  const bdCount = breakdownExprs(node.breakdownFilter).length;
  const withBreakdown = bdCount > 0;
  const scalarBreakdown = isGroupBreakdown(node);
  const base = {
    // PostHog's response says whether its funnel UDF ran: `funnelsFilter.useUdf` forces it (use_udf: `if
    // funnelsFilter.useUdf: return True`), otherwise a feature flag decides, which a self-hosted instance has off.
    isUdf: ff.useUdf === true,
    resolved_date_range: range.resolved(),
  };

  // The common case runs entirely in SQL (see fast-ordered.ts); everything else is evaluated per actor.
  const attributionType = ff.breakdownAttributionType ?? 'first_touch';
  // The ordered cases answered in SQL alone (DuckDB: window functions / ASOF joins; ClickHouse: arrays per actor).
  let sqlOnly =
    !opts.forceGeneral &&
    !opts.onActor &&
    order === 'ordered' &&
    n >= 2 &&
    (!withBreakdown || (bdCount === 1 && groupsRemainingValues(node) && (attributionType === 'first_touch' || attributionType === 'last_touch'))) &&
    !(ff.exclusions ?? []).length &&
    !cfg.optional.some(Boolean) &&
    // No event may match two steps (see fast-ordered.ts on ties): distinct, named events.
    node.series.every((s) => s.kind === 'EventsNode' && !!s.event && !isFirstTime(s)) &&
    new Set(node.series.map(stepEvent)).size === n;
  // The SQL-only paths key actors on the stored person id (a plain UUID key: see fast-ordered.ts/clickhouse-ordered.ts);
  // personless step events (no person id) need the per-actor path's distinct-id actors. They are rare, and
  // `isNull(person_id)` is a test on the stored column, so the check reads little.
  if (sqlOnly && !funnelAggregationHogQL(node) && (node.aggregation_group_type_index === null || node.aggregation_group_type_index === undefined) && mayHavePersonless(ctx)) {
    const probe = ast.select({
      select: [ast.alias('x', ast.constant(1))],
      from: 'events',
      where: ast.and(funnelRangeExpr(range), globalFilterExpr(node, ctx), ast.or(...node.series.map((s) => stepExpr(s, tz))), ast.call('isNull', [ast.field('person_id')])),
      limit: 1,
    });
    if ((await runInsightQuery(ctx, probe, 'personless')).rows.length) sqlOnly = false;
  }
  // ClickHouse 18.16 has neither window functions nor ASOF joins; its form covers the steps viz only.
  const fast = sqlOnly && ctx.engine.dialect === 'duckdb' && (viz === 'steps' || (viz === 'trends' && !withBreakdown));
  if (fast) {
    const byHogQL = funnelAggregationHogQL(node);
    const custom = byHogQL ? toStr(funnelActorHogQLExpr(byHogQL)) : null;
    const actor = custom ?? actorExpr(node.aggregation_group_type_index);
    const q = fastOrderedFunnelQuery({
      stepConds: node.series.map((s) => stepExpr(s, tz)),
      where: ast.and(funnelRangeExpr(range), globalFilterExpr(node, ctx)),
      actor,
      actorPresent: custom ? ast.compare('!=', custom, ast.constant('')) : ast.call('isNotNull', [actor]),
      windowSeconds: cfg.windowMs / 1000,
      breakdown: withBreakdown
        ? {
            expr: breakdownExprs(node.breakdownFilter)[0],
            attribution: attributionType as 'first_touch' | 'last_touch',
            keepEmpty: scalarBreakdown,
            limit: node.breakdownFilter?.breakdown_limit ?? 25,
            other: OTHER,
          }
        : undefined,
      trends:
        viz === 'trends' ? { bucket: bucketStartExpr(interval, weekStart), from: ff.funnelFromStep ?? 0, to: ff.funnelToStep ?? n - 1 } : undefined,
      asof: !opts.forceWindowPasses,
    });
    const { rows, hogql } = await runInsightQuery(ctx, q);
    if (viz === 'trends') {
      const buckets = range.buckets();
      const byKey = new Map(rows.map((r) => [bucketKeyFromValue(r.bucket, interval, tz), r]));
      // Every period is returned, zero-filled, even when nobody entered (test_no_event_in_period).
      return {
        ...base,
        hogql,
        results: [
          {
            count: buckets.length,
            data: buckets.map((b) => {
              const r = byKey.get(b.key);
              const from = r ? Number(r.from_count) : 0;
              return from ? round2((Number(r!.to_count) / from) * 100) : 0;
            }),
            ...trendsAxes(buckets, interval),
          },
        ],
      };
    }
    const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
    const stepsOf = (row: Record<string, unknown>, value: string | null) =>
      node.series.map((s, i) =>
        stepObject(s, i, order, Number(row[`count_${i}`]), i > 0 ? num(row[`avg_${i}`]) : null, i > 0 ? num(row[`median_${i}`]) : null, value, bdCount, scalarBreakdown),
      );
    if (withBreakdown) return { ...base, hogql, results: rows.map((row) => stepsOf(row, String(row.breakdown_value))) };
    const row = rows[0] ?? {};
    if (!num(row.count_0)) return { ...base, hogql, results: [] };
    return { ...base, hogql, results: stepsOf(row, null) };
  }

  const clickhouseFast = sqlOnly && ctx.engine.dialect === 'clickhouse' && viz === 'steps';
  if (clickhouseFast) return runClickHouseFunnel(node, ctx, range, cfg, { base, bdCount, attribution: attributionType as 'first_touch' | 'last_touch' });

  const parts = buildQueryParts(node, ctx, range);
  const firstTime = await firstTimeSteps(node, ctx, range, parts.actor);
  const { actors, hogql } = await runPerActorItems(ctx, parts);

  const attribution = ff.breakdownAttributionType ?? 'first_touch';
  const attrStep = ff.breakdownAttributionValue ?? 0;
  /** A first-time step keeps only the actor's first event of it. */
  const keepFirstTimes = (key: string, events: FunnelEvent[]): FunnelEvent[] => {
    for (const [k, firsts] of firstTime) {
      const first = firsts.get(key);
      for (const e of events) if (e.steps & (1 << k) && e.ts !== first) e.steps &= ~(1 << k);
    }
    return firstTime.size ? events.filter((e) => e.steps || e.excl || order === 'strict') : events;
  };
  const perActor: Attributed[][] = ctx.timings.measureSync('funnel', () =>
    [...actors.entries()].map(([key, list]) => attribute(keepFirstTimes(key, parseEvents(list)), cfg, attribution, attrStep, withBreakdown, scalarBreakdown)),
  );

  // Rank breakdown values by last-step count, then earlier steps; the rest become "Other".
  const countsBy = new Map<string, number[]>();
  for (const list of perActor)
    for (const a of list) {
      let c = countsBy.get(a.value);
      if (!c) countsBy.set(a.value, (c = new Array(n).fill(0)));
      for (let i = 0; i < n; i++) if (a.result.reached[i]) c[i]++;
    }
  const ranked = [...countsBy.entries()].sort((x, y) => {
    for (let i = n - 1; i >= 0; i--) if (x[1][i] !== y[1][i]) return y[1][i] - x[1][i];
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0;
  });
  const groupsRest = groupsRemainingValues(node);
  const limit = groupsRest ? (node.breakdownFilter?.breakdown_limit ?? 25) : DEFAULT_RETURNED_ROWS;
  const kept = new Set(ranked.slice(0, limit).map((r) => r[0]));
  const valueOf = (v: string): string | null => (withBreakdown && !kept.has(v) ? (groupsRest ? OTHER : null) : v);
  const groups = new Map<string, ActorResult[]>();
  const actorKeys = opts.onActor ? [...actors.keys()] : [];
  for (const [ai, list] of perActor.entries()) {
    const seen = new Map<string, ActorResult>();
    for (const a of list) {
      const v = valueOf(a.value);
      if (v === null) continue;
      const prev = seen.get(v);
      if (!prev || a.result.maxStep > prev.maxStep) seen.set(v, a.result);
    }
    for (const [v, r] of seen) {
      let g = groups.get(v);
      if (!g) groups.set(v, (g = []));
      g.push(r);
      opts.onActor?.(actorKeys[ai], v, r);
    }
  }
  const orderValues = [...ranked.map((r) => r[0]).filter((v) => kept.has(v)), ...(groups.has(OTHER) && !kept.has(OTHER) ? [OTHER] : [])].filter((v) =>
    groups.has(v),
  );

  Object.assign(base, { hogql });

  if (viz === 'time_to_convert') {
    const from = ff.funnelFromStep ?? 0;
    const to = stepRangeTo(ff, viz) ?? n - 1;
    const times: number[] = [];
    for (const g of groups.values())
      for (const r of g) {
        // Unordered: PostHog sums the actor's per-step average times (FunnelTimeToConvert over FunnelUnordered's
        // step_i_average_conversion_time_inner), i.e. the mean over its sequences reaching the most steps.
        if (r.maxStepTimings && r.maxStep >= to) {
          times.push(mean(r.maxStepTimings.map((x) => (x[to] - x[from]) / 1000)));
          continue;
        }
        const a = r.timings[from];
        const b = r.timings[to];
        if (r.maxStep >= to && a !== null && a !== undefined && b !== null && b !== undefined) times.push((b - a) / 1000);
      }
    if (times.length === 0) return { ...base, results: { bins: [], average_conversion_time: null, median_conversion_time: null } };
    // PostHog's histogram_params: from = floor(min), to = ceil(max), width = ceil((to - from) / bins) (60 s when 0),
    // average rounded to 2 dp; bin_count + 1 bins starting at from.
    // A given binCount (0 and negatives too) is clamped to 1..90; only a missing one picks the automatic count.
    const binCount =
      ff.binCount !== null && ff.binCount !== undefined ? Math.min(90, Math.max(1, ff.binCount)) : Math.min(60, Math.max(1, Math.ceil(Math.cbrt(times.length))));
    let min = Infinity;
    let max = -Infinity;
    for (const t of times) {
      if (t < min) min = t;
      if (t > max) max = t;
    }
    const lo = Math.floor(min);
    const width = Math.ceil((Math.ceil(max) - lo) / binCount) || 60;
    const bins: [number, number][] = [];
    for (let i = 0; i <= binCount; i++) bins.push([lo + i * width, 0]);
    for (const t of times) bins[Math.min(binCount, Math.floor((t - lo) / width))][1]++;
    const avg = times.reduce((a, b) => a + b, 0) / times.length;
    return { ...base, results: { bins, average_conversion_time: round2(avg), median_conversion_time: median(times) } };
  }

  if (viz === 'trends') {
    const from = ff.funnelFromStep ?? 0;
    const to = ff.funnelToStep ?? n - 1;
    const buckets = range.buckets();
    const index = new Map(buckets.map((b, i) => [b.key, i]));
    const toLocal = localTimeCache(tz);
    const series: Record<string, unknown>[] = [];
    // PostHog groups the period rows by breakdown value after `sorted(summary, key=breakdown_value)`: series come in
    // breakdown-value order. Without a breakdown one zero-filled series is returned even when nobody entered.
    const values = withBreakdown ? [...orderValues].sort((a, b) => compareBreakdownValues(boxed(a, bdCount), boxed(b, bdCount))) : [''];
    const axes = trendsAxes(buckets, interval);
    for (const v of values) {
      const fromCounts = new Array(buckets.length).fill(0);
      const toCounts = new Array(buckets.length).fill(0);
      for (const r of groups.get(v) ?? []) {
        const perBucket = new Map<number, number>();
        for (const [entry, step] of r.reachByEntry) {
          const b = index.get(bucketKey(startOfInterval(toLocal(entry), interval, weekStart), interval));
          if (b === undefined) continue;
          perBucket.set(b, Math.max(perBucket.get(b) ?? -1, step));
        }
        for (const [b, step] of perBucket) {
          if (step >= from) fromCounts[b]++;
          if (step >= to) toCounts[b]++;
        }
      }
      series.push({
        count: buckets.length,
        data: buckets.map((_, i) => (fromCounts[i] ? round2((toCounts[i] / fromCounts[i]) * 100) : 0)),
        ...axes,
        // (a group breakdown's value stays a string here too: PostHog's funnel context boxes only event/person/hogql
        // breakdowns, and the trends rows carry the value as the steps do)
        ...(withBreakdown ? { breakdown_value: scalarBreakdown ? v : boxed(v, bdCount) } : {}),
      });
    }
    return { ...base, results: series };
  }

  // steps
  const stepsFor = (results: ActorResult[], value: string | null): Record<string, unknown>[] => {
    return node.series.map((s, i) => {
      const reachedBy = results.filter((r) => r.reached[i]);
      // Zero-second conversions (a step at the instant of the previous one) count in `count` but not in the average or
      // median of an ordered or strict funnel: the funnel UDF collects `groupArrayIf(timings[i], timings[i] > 0)`.
      // Unordered funnels keep every time, 0 s too, as FunnelUnordered's SQL averages them (get_funnel_order_class
      // picked it whatever use_udf; whether a newer PostHog runs unordered funnels on a UDF is not settled). Its SQL
      // first takes each actor's average and median over the actor's sequences reaching the most steps, then the
      // average of those averages and the median of those medians.
      if (i > 0 && order === 'unordered') {
        const avgs: number[] = [];
        const meds: number[] = [];
        for (const r of reachedBy) {
          const own = (r.maxStepTimings ?? [r.timings as number[]]).map((x) => (x[i] - x[i - 1]) / 1000);
          avgs.push(mean(own));
          meds.push(median(own) as number);
        }
        return stepObject(s, i, order, reachedBy.length, avgs.length ? mean(avgs) : null, median(meds), value, bdCount, scalarBreakdown);
      }
      const times: number[] = [];
      if (i > 0)
        for (const r of reachedBy) {
          let j = i - 1;
          while (j >= 0 && (r.timings[j] === null || r.timings[j] === undefined)) j--;
          if (j < 0) continue;
          const t = ((r.timings[i] as number) - (r.timings[j] as number)) / 1000;
          if (t > 0) times.push(t);
        }
      return stepObject(
        s,
        i,
        order,
        reachedBy.length,
        times.length ? times.reduce((a, b) => a + b, 0) / times.length : null,
        times.length ? median(times) : null,
        value,
        bdCount,
        scalarBreakdown,
      );
    });
  };
  if (!withBreakdown) {
    const results = groups.get('') ?? [];
    if (results.length === 0) return { ...base, results: [] };
    return { ...base, results: stepsFor(results, null) };
  }
  return { ...base, results: orderValues.map((v) => stepsFor(groups.get(v)!, v)) };
}

/**
 * The ClickHouse SQL path (clickhouse-ordered.ts): one row per breakdown value with per-step counts and conversion
 * times in milliseconds; ranking, "Other" and averages/medians here, as the per-actor path computes them.
 */
async function runClickHouseFunnel(
  node: FunnelsQueryNode,
  ctx: RunnerContext,
  range: QueryDateRange,
  cfg: FunnelConfig,
  o: { base: Record<string, unknown>; bdCount: number; attribution: 'first_touch' | 'last_touch' },
): Promise<Record<string, unknown>> {
  const ff = node.funnelsFilter ?? {};
  const tz = ctx.project.timezone;
  const n = node.series.length;
  const byHogQL = funnelAggregationHogQL(node);
  const custom = byHogQL ? toStr(funnelActorHogQLExpr(byHogQL)) : null;
  const actor = custom ?? actorExpr(node.aggregation_group_type_index);
  const withBreakdown = o.bdCount > 0;
  const q = clickhouseOrderedFunnelQuery({
    stepConds: node.series.map((s) => stepExpr(s, tz)),
    // `event IN (steps)` (implied by the step conditions; every step is a named event): the printer repeats it inside
    // the guarded events reference, where `event` is in the primary key.
    where: ast.and(
      funnelRangeExpr(range),
      globalFilterExpr(node, ctx),
      ast.compare('in', ast.field('event'), ast.tuple(node.series.map((s) => ast.constant(stepEvent(s)!)))),
    ),
    actor: clickhouseActorKey(actor, !custom && (node.aggregation_group_type_index === null || node.aggregation_group_type_index === undefined)),
    actorPresent: custom ? ast.compare('!=', custom, ast.constant('')) : ast.call('isNotNull', [actor]),
    windowMs: cfg.windowMs,
    // Steps without property filters are exactly `event IN (steps)`, which `where` holds.
    whereSelectsSteps: node.series.every((s) => !s.properties?.length && !s.fixedProperties?.length),
    breakdown: withBreakdown ? { expr: breakdownExprs(node.breakdownFilter)[0], attribution: o.attribution, keepEmpty: isGroupBreakdown(node) } : undefined,
  });
  const { rows, hogql } = await runAllRows(ctx, q);
  const groups = rows.map((r) => ({
    value: withBreakdown ? String(r[0]) : '',
    counts: Array.from({ length: n }, (_, k) => Number(r[(withBreakdown ? 1 : 0) + k])),
    ms: Array.from({ length: n - 1 }, (_, k) => ((r[(withBreakdown ? 1 : 0) + n + k] as unknown[]) ?? []).map(Number)),
  }));
  const stepsOf = (g: (typeof groups)[number], value: string | null) =>
    node.series.map((s, i) => {
      // Summed in ascending order: the engine returns the times in no fixed order (its threads' order), and a float
      // sum depends on it.
      // (zero-second conversions left out, as in the per-actor path: the UDF's `timings[i] > 0`)
      const times = i > 0 ? Float64Array.from(g.ms[i - 1].filter((x) => x > 0), (x) => x / 1000).sort() : new Float64Array(0);
      return stepObject(s, i, 'ordered', g.counts[i], times.length ? times.reduce((a, b) => a + b, 0) / times.length : null, medianOfSorted(times), value, o.bdCount, isGroupBreakdown(node));
    });
  if (!withBreakdown) {
    const g = groups[0];
    if (!g || !g.counts[0]) return { ...o.base, hogql, results: [] };
    return { ...o.base, hogql, results: stepsOf(g, null) };
  }
  // Rank by last-step count, then earlier steps, then value; past the limit merge into "Other".
  const ranked = groups.filter((g) => g.counts[0] > 0).sort((x, y) => {
    for (let i = n - 1; i >= 0; i--) if (x.counts[i] !== y.counts[i]) return y.counts[i] - x.counts[i];
    return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
  });
  const limit = node.breakdownFilter?.breakdown_limit ?? 25;
  const out = ranked.slice(0, limit);
  const rest = ranked.slice(limit);
  if (rest.length) {
    // (a kept value spelled "Other" takes the rest, as in the per-actor path)
    const into = out.find((g) => g.value === OTHER);
    const merged = [...(into ? [into] : []), ...rest];
    const other = {
      value: OTHER,
      counts: Array.from({ length: n }, (_, k) => merged.reduce((a, g) => a + g.counts[k], 0)),
      ms: Array.from({ length: n - 1 }, (_, k) => merged.flatMap((g) => g.ms[k])),
    };
    if (into) out[out.indexOf(into)] = other;
    else out.push(other);
  }
  return { ...o.base, hogql, results: out.map((g) => stepsOf(g, g.value)) };
}

/** FunnelsQuery: steps, trends and time-to-convert over ordered, strict and unordered funnels. */
export const funnelsRunner: QueryRunner<FunnelsQueryNode> = {
  kinds: ['FunnelsQuery'],
  schema: funnelsQuerySchema,
  run: (node, ctx) => runFunnels(node, ctx),
};
