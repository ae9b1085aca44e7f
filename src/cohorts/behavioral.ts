/**
 * Behavioral cohort criteria: "persons who did X", computed at query time over the project's events, as PostHog's
 * cohort query (posthog/queries/foss_cohort_query.py, ee/clickhouse/queries/cohort_query.py) computes them. A
 * criterion `{type: 'behavioral', value, key, event_type, ...}` of a cohort definition (or a legacy group
 * `{action_id | event_id, days, count, count_operator}`) becomes a membership condition on the person:
 * `person_id IN (SELECT person_id FROM events WHERE ... GROUP BY person_id HAVING ...)` (`id IN (...)` on the persons
 * table). The subquery goes through the ProductQL printer like every other query, so its events carry the project
 * guard. "Now" is the query's `now()`.
 *
 * - `performed_event`: an event (or an action's match) in the window (`time_value` `time_interval` back from now, or
 *   since `explicit_datetime`);
 * - `performed_event_multiple`: its count in the window compared (`operator` gte/lte/gt/lt/eq/exact, default `=`)
 *   with `operator_value` (at least 1); persons who did not do it at all in the window are not counted (as PostHog's
 *   events-based query);
 * - `performed_event_first_time`: the first such event ever is in the window;
 * - `stopped_performing_event`: did it in the window but not in the last `seq_time_value` `seq_time_interval`;
 * - `restarted_performing_event`: did it before the window, not in the window up to the last `seq_time_*`, and
 *   again in the last `seq_time_*`;
 * - `performed_event_regularly`: in at least `min_periods` of the last `total_periods` periods of `time_value`
 *   `time_interval`, did it `operator` `operator_value` times;
 * - `performed_event_sequence`: did it and then `seq_event` within `seq_time_*`, both in the window.
 *
 * `event_filters` (property filters) narrow the matching events; `negation: true` inverts the criterion, and must be
 * paired with a positive criterion in an AND group (PostHog: "Negations must be paired with a positive filter.").
 */
import * as ast from '../productql/ast';
import type { Expr } from '../productql/ast';
import { validationError } from '../errors';
import { actionToExpr, type ActionDef } from '../actions/matching';
import { parseDateString } from '../queries/insights/date-range';
import { instantToLocal, sqlLocal } from '../queries/insights/local-time';
import { propertiesToExpr, type FilterContext } from '../queries/insights/property-filters';
import { anyPropertyFilterSchema, type AnyPropertyFilter, type PropertyGroupFilter } from '../queries/insights/schema';

export const BEHAVIORAL_VALUES = [
  'performed_event',
  'performed_event_multiple',
  'performed_event_first_time',
  'stopped_performing_event',
  'restarted_performing_event',
  'performed_event_regularly',
  'performed_event_sequence',
] as const;
export type BehavioralValue = (typeof BEHAVIORAL_VALUES)[number];

/** PostHog's validate_interval accepts the units of its INTERVAL_TO_SECONDS (foss_cohort_query.py), hour and minute included. */
const INTERVALS = {
  minute: 'toIntervalMinute',
  hour: 'toIntervalHour',
  day: 'toIntervalDay',
  week: 'toIntervalWeek',
  month: 'toIntervalMonth',
  year: 'toIntervalYear',
} as const;
type Unit = keyof typeof INTERVALS;
/** Length of a unit in days, to compare windows (PostHog's relative_date_is_greater over INTERVAL_TO_SECONDS: a month is 30 days). */
const UNIT_DAYS: Record<Unit, number> = { minute: 1 / 1440, hour: 1 / 24, day: 1, week: 7, month: 30, year: 365 };
const MAX_LOOKBACK_DAYS = 36_500;

/** `n` units back from now. */
interface Window {
  n: number;
  unit: Unit;
}

/** What a criterion counts: events of a name, or the events an action matches (`action` attached by the loader). */
export type Entity = { type: 'events'; name: string } | { type: 'actions'; id: number; action?: ActionDef };

const COUNT_OPS = { gte: '>=', lte: '<=', gt: '>', lt: '<', eq: '==', exact: '==' } as const;
type CountOp = (typeof COUNT_OPS)[keyof typeof COUNT_OPS];

/** A validated behavioral criterion, as it sits among the property filters of a cohort's group. */
export interface BehavioralCriterion {
  type: 'behavioral';
  value: BehavioralValue;
  entity: Entity;
  negation: boolean;
  /** The window: `time_value` `time_interval` back, or (explicit_datetime) a fixed or relative start. */
  window: Window | null;
  explicitFrom: string | null;
  seqWindow: Window | null;
  seqEntity: Entity | null;
  op: CountOp;
  opValue: number;
  minPeriods: number;
  totalPeriods: number;
  eventFilters: AnyPropertyFilter[];
}

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

/** PostHog's parse_and_validate_positive_integer: an integer ≥ 0 (numeric text accepted; a number is truncated, as Python's int()). */
function nonNegativeInt(v: unknown, name: string, attr: string): number {
  const n = typeof v === 'number' ? Math.trunc(v) : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (v === undefined || v === null) throw validationError(`${name} cannot be None`, attr);
  if (!Number.isSafeInteger(n) || n < 0) throw validationError(`${name} must be an integer greater than or equal to 0, got ${JSON.stringify(v)}`, attr);
  return n;
}

function windowOf(value: unknown, interval: unknown, name: string, attr: string): Window {
  const n = nonNegativeInt(value, name, attr);
  if (typeof interval !== 'string' || !(interval in INTERVALS))
    throw validationError(`Invalid interval: ${JSON.stringify(interval ?? null)} (${Object.keys(INTERVALS).join(', ')}).`, attr);
  return { n, unit: interval as Unit };
}

function entityOf(key: unknown, type: unknown, what: string, attr: string): Entity {
  if (type === 'actions') {
    const id = typeof key === 'number' ? key : typeof key === 'string' && /^\d+$/.test(key.trim()) ? Number(key) : NaN;
    if (!Number.isSafeInteger(id) || id <= 0) throw validationError(`The ${what} of an actions criterion must be an action id.`, attr);
    return { type: 'actions', id };
  }
  if (type !== 'events' && type !== undefined && type !== null)
    throw validationError(`event_type must be "events" or "actions", got ${JSON.stringify(type)}.`, attr);
  if (typeof key !== 'string' || key === '') throw validationError(`The ${what} of a behavioral criterion must be an event name.`, attr);
  return { type: 'events', name: key };
}

function countOp(op: unknown, attr: string): CountOp {
  if (op === undefined || op === null) return '==';
  if (typeof op === 'string' && op in COUNT_OPS) return COUNT_OPS[op as keyof typeof COUNT_OPS];
  // PostHog's get_count_operator words it so (gt, lt and exact are taken too)
  throw validationError('count_operator must be gte, lte, eq, or None', attr);
}

function eventFilters(raw: unknown, attr: string): AnyPropertyFilter[] {
  if (raw === undefined || raw === null) return [];
  // built on use: this module and the filter builder import each other
  const parsed = anyPropertyFilterSchema.array().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw validationError(`Invalid event_filters: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}.`, attr);
  }
  if (parsed.data.some((f) => f.type === 'cohort')) throw validationError('event_filters cannot refer to cohorts.', attr);
  return parsed.data;
}

const longer = (a: Window, b: Window): boolean => a.n * UNIT_DAYS[a.unit] > b.n * UNIT_DAYS[b.unit];

/** A `{type: 'behavioral', ...}` criterion of a cohort definition, validated (a 400 naming `attr` otherwise). */
export function parseBehavioral(raw: Record<string, unknown>, attr: string): BehavioralCriterion {
  const value = raw.value;
  if (typeof value !== 'string' || !(BEHAVIORAL_VALUES as readonly string[]).includes(value))
    throw validationError(`Unknown behavioral criterion ${JSON.stringify(value ?? null)} (${BEHAVIORAL_VALUES.join(', ')}).`, attr);
  const v = value as BehavioralValue;
  const c: BehavioralCriterion = {
    type: 'behavioral',
    value: v,
    entity: entityOf(raw.key, raw.event_type, 'key', attr),
    negation: raw.negation === true,
    window: null,
    explicitFrom: null,
    seqWindow: null,
    seqEntity: null,
    op: '==',
    opValue: 0,
    minPeriods: 0,
    totalPeriods: 0,
    eventFilters: eventFilters(raw.event_filters, attr),
  };
  const explicit = typeof raw.explicit_datetime === 'string' && raw.explicit_datetime.trim() !== '' ? raw.explicit_datetime.trim() : null;
  if (explicit && (v === 'performed_event' || v === 'performed_event_multiple')) {
    parseDateString(explicit, instantToLocal(new Date(), 'UTC'), 'UTC', attr); // a 400 now rather than at query time
    c.explicitFrom = explicit;
  } else c.window = windowOf(raw.time_value, raw.time_interval, 'time_value', attr);
  if (v === 'performed_event_multiple') {
    c.op = countOp(raw.operator, attr);
    c.opValue = nonNegativeInt(raw.operator_value, 'operator_value', attr);
    // PostHog's test_performed_event_zero_times_: the count is over persons who did it, so 0 could never match
    if (c.opValue === 0) throw validationError('operator_value must be greater than 0: to find persons who did not perform an event, negate a performed_event criterion.', attr);
  }
  if (v === 'stopped_performing_event' || v === 'restarted_performing_event' || v === 'performed_event_sequence') {
    c.seqWindow = windowOf(raw.seq_time_value, raw.seq_time_interval, 'seq_time_value', attr);
    if (v !== 'performed_event_sequence' && longer(c.seqWindow, c.window!)) throw validationError('seq_date must be more recent than date', attr);
  }
  if (v === 'performed_event_sequence') c.seqEntity = entityOf(raw.seq_event, raw.seq_event_type ?? raw.event_type, 'seq_event', attr);
  if (v === 'performed_event_regularly') {
    c.op = countOp(raw.operator, attr);
    c.opValue = nonNegativeInt(raw.operator_value, 'operator_value', attr);
    c.minPeriods = nonNegativeInt(raw.min_periods, 'min_periods', attr);
    c.totalPeriods = nonNegativeInt(raw.total_periods, 'total_periods', attr);
    if (c.minPeriods > c.totalPeriods) throw validationError(`min_periods (${c.minPeriods}) cannot be greater than total_periods (${c.totalPeriods})`, attr);
    if (c.totalPeriods > 100) throw validationError('total_periods may be at most 100.', attr);
  }
  // the engines' datetimes end in 1900 (ClickHouse DateTime64): no window reaches back further than a century
  for (const [w, times] of [[c.window, Math.max(1, c.totalPeriods)], [c.seqWindow, 1]] as const)
    if (w && w.n * UNIT_DAYS[w.unit] * times > MAX_LOOKBACK_DAYS) throw validationError('A behavioral criterion may look back at most 100 years.', attr);
  return c;
}

/**
 * A legacy group `{action_id | event_id, days, count, count_operator}` as PostHog's Cohort.properties reads it:
 * `performed_event_multiple` when `count` is set (else `performed_event`), over the last `days` days (default 365).
 */
export function legacyBehavioral(g: Record<string, unknown>, attr: string): BehavioralCriterion {
  const isAction = g.action_id !== undefined && g.action_id !== null;
  const rawCount = g.count === undefined || g.count === null || g.count === '' ? 0 : Number(g.count);
  const count = Number.isFinite(rawCount) ? Math.max(0, Math.trunc(rawCount)) : 0;
  const days = g.days === undefined || g.days === null || g.days === '' || g.days === 0 ? 365 : g.days;
  return parseBehavioral(
    {
      type: 'behavioral',
      key: isAction ? g.action_id : g.event_id,
      event_type: isAction ? 'actions' : 'events',
      value: count ? 'performed_event_multiple' : 'performed_event',
      time_value: days,
      time_interval: 'day',
      operator: g.count_operator ?? null,
      operator_value: count,
    },
    attr,
  );
}

export const isBehavioral = (x: unknown): x is BehavioralCriterion => isObject(x) && x.type === 'behavioral' && 'entity' in x;

/** Every behavioral criterion of a group (nested groups included). */
export function behavioralCriteria(g: PropertyGroupFilter): BehavioralCriterion[] {
  const out: BehavioralCriterion[] = [];
  const walk = (x: unknown): void => {
    if (isBehavioral(x)) out.push(x);
    else if (isObject(x) && (x.type === 'AND' || x.type === 'OR') && Array.isArray(x.values)) x.values.forEach(walk);
  };
  walk(g);
  return out;
}

/** Ids of the actions a group's behavioral criteria count. */
export function behavioralActionIds(g: PropertyGroupFilter): number[] {
  const ids = new Set<number>();
  for (const c of behavioralCriteria(g)) for (const e of [c.entity, c.seqEntity]) if (e?.type === 'actions') ids.add(e.id);
  return [...ids];
}

/** Gives each actions criterion of the group its action (of the cohort's own project), for the expression builder. */
export function attachActions(g: PropertyGroupFilter, actions: ReadonlyMap<number, ActionDef>): void {
  for (const c of behavioralCriteria(g)) for (const e of [c.entity, c.seqEntity]) if (e?.type === 'actions') e.action = actions.get(e.id);
}

/**
 * PostHog's check_negation_clause over a definition as sent: a negated criterion (behavioral or person, `negation:
 * true`) needs a positive criterion beside it in an AND group (directly or below it). Negated cohort references are
 * neither (they stand alone, as Quarry always allowed).
 */
export function checkNegations(properties: unknown, attr: string): void {
  const walk = (x: Record<string, unknown>): [boolean, boolean] => {
    let neg = false;
    let pos = false;
    for (const v of Array.isArray(x.values) ? (x.values as unknown[]) : []) {
      if (!isObject(v)) continue;
      if (v.type === 'AND' || v.type === 'OR') {
        const [n, p] = walk(v);
        neg ||= n;
        pos ||= p;
      } else if (v.type === 'cohort' || v.type === 'precalculated-cohort' || v.type === 'static-cohort') {
        if (v.negation !== true && v.operator !== 'not_in') pos = true;
      } else if (v.negation === true) neg = true;
      else pos = true;
    }
    if (x.type === 'AND' && neg && pos) return [false, true];
    return [neg, pos];
  };
  if (isObject(properties) && walk(properties)[0]) throw validationError('Negations must be paired with a positive filter.', attr);
}

// --- expressions ------------------------------------------------------------------------------------------------

const now = (): Expr => ast.call('now');
/**
 * `n` units before now; a window reaching back before 1970 (the legacy form's default-free `days: 36500`) starts at the
 * epoch instead: ClickHouse's DateTime cannot hold an earlier instant (the subtraction wraps around to a later date).
 * Unit lengths are rough (UNIT_DAYS), hence the 2% margin.
 */
const ago = (w: Window, times = 1): Expr =>
  w.n * times * UNIT_DAYS[w.unit] * 1.02 >= Date.now() / 86_400_000
    ? ast.call('toDateTime', [ast.constant(0)])
    : ast.arithmetic('-', now(), ast.call(INTERVALS[w.unit], [ast.constant(w.n * times)]));
const ts = (table?: string): Expr => ast.field(...(table ? [table, 'timestamp'] : ['timestamp']));
const countIf = (cond: Expr): Expr => ast.call('countIf', [cond]);

function entityExpr(e: Entity, ctx: FilterContext): Expr {
  if (e.type === 'events') return ast.compare('==', ast.field(...(ctx.table ? [ctx.table, 'event'] : ['event'])), ast.constant(e.name));
  if (!e.action) throw validationError(`Action ${e.id} does not exist.`, ctx.attr ?? 'properties', 'action_not_found');
  return actionToExpr(e.action, ctx);
}

/** The window's start: `now() - n unit`, or the explicit datetime (relative ones read in the project timezone). */
function windowStart(c: BehavioralCriterion, tz: string, attr: string): Expr {
  if (c.explicitFrom !== null) {
    const parsed = parseDateString(c.explicitFrom, instantToLocal(new Date(), tz), tz, attr);
    return ast.call('toDateTime', [ast.constant(sqlLocal(parsed.value))]);
  }
  return ago(c.window!);
}

/** What an event of the subquery must be: the entity, matching `event_filters`, not in the future. */
function matching(c: BehavioralCriterion, e: Entity, ctx: FilterContext): Expr {
  return ast.and(entityExpr(e, ctx), propertiesToExpr(c.eventFilters, ctx), ast.compare('<=', ts(ctx.table), now()));
}

/** `SELECT person_id FROM events WHERE ... [GROUP BY person_id HAVING ...]`: the persons meeting the criterion. */
function personsQuery(c: BehavioralCriterion, tz: string, attr: string): ast.Query {
  const ctx: FilterContext = { timezone: tz, attr };
  const pid = ast.field('person_id');
  const grouped = (where: Expr, having: Expr) => ast.select({ select: [pid], from: 'events', where, groupBy: [pid], having });
  switch (c.value) {
    case 'performed_event':
      return ast.select({ select: [pid], from: 'events', where: ast.and(matching(c, c.entity, ctx), ast.compare('>', ts(), windowStart(c, tz, attr))), distinct: true });
    case 'performed_event_multiple':
      return grouped(ast.and(matching(c, c.entity, ctx), ast.compare('>', ts(), windowStart(c, tz, attr))), ast.compare(c.op, ast.call('count'), ast.constant(c.opValue)));
    case 'performed_event_first_time':
      return grouped(matching(c, c.entity, ctx), ast.compare('>=', ast.call('min', [ts()]), ago(c.window!)));
    case 'stopped_performing_event':
      return grouped(
        ast.and(matching(c, c.entity, ctx), ast.compare('>', ts(), ago(c.window!))),
        ast.and(ast.compare('>', countIf(ast.compare('<=', ts(), ago(c.seqWindow!))), ast.constant(0)), ast.compare('==', countIf(ast.compare('>', ts(), ago(c.seqWindow!))), ast.constant(0))),
      );
    case 'restarted_performing_event':
      return grouped(
        matching(c, c.entity, ctx),
        ast.and(
          ast.compare('>', countIf(ast.compare('<=', ts(), ago(c.window!))), ast.constant(0)),
          ast.compare('==', countIf(ast.and(ast.compare('>', ts(), ago(c.window!)), ast.compare('<=', ts(), ago(c.seqWindow!)))), ast.constant(0)),
          ast.compare('>', countIf(ast.compare('>', ts(), ago(c.seqWindow!))), ast.constant(0)),
        ),
      );
    case 'performed_event_regularly': {
      const w = c.window!;
      const periods = Array.from({ length: c.totalPeriods }, (_, i) => {
        const inPeriod = ast.and(ast.compare('<=', ts(), ago(w, i)), ast.compare('>', ts(), ago(w, i + 1)));
        return ast.call('if', [ast.compare(c.op, countIf(inPeriod), ast.constant(c.opValue)), ast.constant(1), ast.constant(0)]);
      });
      const total = periods.reduce<Expr>((sum, p) => ast.arithmetic('+', sum, p), ast.constant(0));
      return grouped(ast.and(matching(c, c.entity, ctx), ast.compare('>', ts(), ago(w, c.totalPeriods))), ast.compare('>=', total, ast.constant(c.minPeriods)));
    }
    case 'performed_event_sequence': {
      // an event, then the sequence event after it within seq_time_*, both in the window: each side filtered in
      // its own subquery, so the join pairs only the few matching events of a person
      const side = (e: Entity) =>
        ast.select({ select: [pid, ast.field('timestamp')], from: 'events', where: ast.and(matching(c, e, ctx), ast.compare('>', ts(), ago(c.window!))) });
      const from = ast.joins(
        ast.joinExpr(side(c.entity), { alias: 'a' }),
        ast.joinExpr(side(c.seqEntity!), { alias: 'b', type: 'INNER JOIN', on: ast.compare('==', ast.field('a', 'person_id'), ast.field('b', 'person_id')) }),
      );
      const seq = ast.call(INTERVALS[c.seqWindow!.unit], [ast.constant(c.seqWindow!.n)]);
      const where = ast.and(ast.compare('>', ts('b'), ts('a')), ast.compare('<=', ts('b'), ast.arithmetic('+', ts('a'), seq)));
      return ast.select({ select: [ast.field('a', 'person_id')], from, where, distinct: true });
    }
  }
}

/** The criterion as a condition on the filtered row's person (an event's `person_id`, or a person's `id`). */
export function behavioralExpr(c: BehavioralCriterion, ctx: FilterContext): Expr {
  const attr = ctx.attr ?? 'properties';
  const person = ast.field(...(ctx.table ? [ctx.table] : []), ctx.personTable ? 'id' : 'person_id');
  const member = ast.compare('in', person, personsQuery(c, ctx.timezone ?? 'UTC', attr));
  return c.negation ? ast.not(member) : member;
}
