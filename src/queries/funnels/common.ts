/**
 * Helpers shared by the funnels, retention and paths runners on top of the shared insight machinery
 * (src/queries/insights: property filters, breakdown specs, QueryDateRange): series-node conditions, the
 * funnel/retention breakdown value (`ifNull(toString(prop), '')`, not the trends null sentinel), the actor, and the
 * epoch-ms calendar helpers retention uses for its period-aligned range (PostHog's QueryDateRangeWithIntervals,
 * whose rules differ from QueryDateRange's).
 */
import { validationError } from '../../errors';
import { ast, type Expr } from '../../productql';
import { parseExprSync } from '../../productql/parser';
import { breakdownSpecs, breakdownStringExpr, containsAggregate, propertiesToExpr, type BreakdownFilter, type PropertiesInput } from '../insights';
import { isoOffset, zonedFormatter } from '../../projects/timezone';

// ------------------------------------------------------------------------------------------------ timezone

export interface LocalParts {
  year: number;
  month: number; // 1..12
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

const formatter = zonedFormatter;

/** Wall-clock parts of an instant in `tz`. */
export function localParts(ms: number, tz: string): LocalParts {
  const out: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(ms))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return {
    year: out.year,
    month: out.month,
    day: out.day,
    hour: out.hour === 24 ? 0 : out.hour,
    minute: out.minute,
    second: out.second,
    ms: ((ms % 1000) + 1000) % 1000,
  };
}

const wallAsUtc = (p: LocalParts): number => Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, p.ms);

/** The instant whose wall clock in `tz` reads `p` (the earlier one when ambiguous, shifted forward in a gap). */
export function fromLocal(p: LocalParts, tz: string): number {
  const guess = wallAsUtc(p);
  let t = guess;
  for (let i = 0; i < 3; i++) {
    const off = wallAsUtc(localParts(t, tz)) - t;
    const next = guess - off;
    if (next === t) break;
    t = next;
  }
  // Prefer the earlier instant when the wall time happens twice.
  const earlier = t - 3600_000;
  if (wallAsUtc(localParts(earlier, tz)) === guess) return earlier;
  return t;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `YYYY-MM-DD HH:MM:SS` (plus `.ffffff` when asked) of the wall clock. */
export function fmtLocal(p: LocalParts, micros = false): string {
  const base = `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
  return micros ? `${base}.${pad(p.ms, 3)}${p.ms === 999 ? '999' : '000'}` : base;
}

/** ISO datetime with offset in `tz` as a JSON response writes it, e.g. `2024-01-01T00:00:00+01:00`, `Z` for UTC. */
export function isoInTz(ms: number, tz: string, midnight = false): string {
  // `midnight`: `ms` starts a local day (a day, week or month period); a day whose 00:00 falls in a DST gap
  // (America/Santiago on 2022-09-11) starts at 01:00, which Python's wall-clock arithmetic writes as 00:00 with the
  // offset from before the gap (fold=0): 2022-09-11T00:00:00-04:00, the same instant
  const p = midnight ? { ...localParts(ms, tz), hour: 0, minute: 0, second: 0 } : localParts(ms, tz);
  const off = Math.round((wallAsUtc({ ...p, ms: 0 }) - (ms - p.ms)) / 60000);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${isoOffset(off)}`;
}

export type Interval = 'minute' | 'hour' | 'day' | 'week' | 'month';

function addDays(p: LocalParts, n: number): LocalParts {
  const d = new Date(Date.UTC(p.year, p.month - 1, p.day + n));
  return { ...p, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}
function addMonths(p: LocalParts, n: number): LocalParts {
  const d = new Date(Date.UTC(p.year, p.month - 1 + n, 1));
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  return { ...p, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: Math.min(p.day, last) };
}

/** Start of the interval containing `ms`, as an instant (calendar in `tz`; week starts Sunday unless weekStart=1). */
export function startOf(ms: number, interval: Interval, tz: string, weekStart = 0): number {
  const p = localParts(ms, tz);
  switch (interval) {
    case 'minute':
      return ms - (p.second * 1000 + p.ms);
    case 'hour':
      return ms - (p.minute * 60_000 + p.second * 1000 + p.ms);
    case 'day':
      return fromLocal({ ...p, hour: 0, minute: 0, second: 0, ms: 0 }, tz);
    case 'week': {
      const dow = new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay(); // 0 = Sunday
      const back = (dow - weekStart + 7) % 7;
      return fromLocal({ ...addDays(p, -back), hour: 0, minute: 0, second: 0, ms: 0 }, tz);
    }
    case 'month':
      return fromLocal({ ...p, day: 1, hour: 0, minute: 0, second: 0, ms: 0 }, tz);
  }
}

/** `ms` moved by `n` intervals on the calendar of `tz`. */
export function addInterval(ms: number, interval: Interval, n: number, tz: string): number {
  switch (interval) {
    case 'minute':
      return ms + n * 60_000;
    case 'hour':
      return ms + n * 3600_000;
    case 'day':
      return fromLocal(addDays(localParts(ms, tz), n), tz);
    case 'week':
      return fromLocal(addDays(localParts(ms, tz), 7 * n), tz);
    case 'month':
      return fromLocal(addMonths(localParts(ms, tz), n), tz);
  }
}

// ------------------------------------------------------------------------------------------------ dates

const RELATIVE = /^-?(\d+)?([hdwmMsqy])(Start|End)?$/;
/** About how long one unit of a relative date is (months and years at their longest), to bound the offset. */
const RELATIVE_UNIT_MS: Record<string, number> = { s: 1e3, M: 6e4, h: 3.6e6, d: 8.64e7, w: 6.048e8, q: 7.9e9, m: 2.7e9, y: 3.17e10 };
/** Two days after 0001-01-01 (the first year a date may take, as Python's datetime), whatever the timezone. */
const MIN_INSTANT = new Date(0).setUTCFullYear(1, 0, 3);

/** Parses one PostHog date string to an instant. `isTo` picks End-snapping for relative ends. */
export function parseDate(text: string, tz: string, now: number): { ms: number; relative: boolean; unit?: string; hasTime: boolean } {
  const s = text.trim();
  const rel = RELATIVE.exec(s);
  if (rel) {
    const n = rel[1] ? Number(rel[1]) : 0;
    const kind = rel[2];
    const snap = rel[3];
    // a huge offset (`-99999999d`) leaves the calendar: refused here, not by the engine or the date arithmetic
    if (!(now - n * RELATIVE_UNIT_MS[kind] > MIN_INSTANT)) throw validationError(`Invalid date "${text}": it is out of range.`, 'dateRange');
    let p = localParts(now, tz);
    switch (kind) {
      case 'h':
        p = localParts(now - n * 3600_000, tz);
        break;
      case 'M':
        p = localParts(now - n * 60_000, tz);
        break;
      case 's':
        p = localParts(now - n * 1000, tz);
        break;
      case 'd':
        p = addDays(p, -n);
        break;
      case 'w':
        p = addDays(p, -7 * n);
        break;
      case 'q':
        p = addDays(p, -91 * n);
        break;
      case 'm':
        p = addMonths(p, -n);
        break;
      case 'y':
        p = addMonths(p, -12 * n);
        break;
    }
    if (snap === 'Start') {
      if (kind === 'h') p = { ...p, minute: 0, second: 0, ms: 0 };
      else if (kind === 'm') p = { ...p, day: 1, hour: 0, minute: 0, second: 0, ms: 0 };
      else if (kind === 'y') p = { ...p, month: 1, day: 1, hour: 0, minute: 0, second: 0, ms: 0 };
      else p = { ...p, hour: 0, minute: 0, second: 0, ms: 0 };
    } else if (snap === 'End') {
      if (kind === 'h') p = { ...p, minute: 59, second: 59, ms: 999 };
      else if (kind === 'm') p = { ...addDays(addMonths({ ...p, day: 1 }, 1), -1), hour: 23, minute: 59, second: 59, ms: 999 };
      else if (kind === 'y') p = { ...p, month: 12, day: 31, hour: 23, minute: 59, second: 59, ms: 999 };
      else p = { ...p, hour: 23, minute: 59, second: 59, ms: 999 };
    }
    return { ms: fromLocal(p, tz), relative: true, unit: kind, hasTime: true };
  }
  // (month and day may lack their zero, `2021-1-1`: PostHog falls back to strptime("%Y-%m-%d"), as parseDateString does)
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m) throw validationError(`Invalid date "${text}"`, 'dateRange');
  // a day the month does not have (`2020-02-30`) or a time past 23:59 is not a date (Python's fromisoformat refuses it), not the next one
  const check = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (check.getUTCMonth() !== Number(m[2]) - 1 || check.getUTCDate() !== Number(m[3]) || Number(m[4] ?? 0) > 23 || Number(m[5] ?? 0) > 59 || Number(m[6] ?? 0) > 59)
    throw validationError(`Invalid date "${text}"`, 'dateRange');
  const hasTime = m[4] !== undefined;
  if (m[8]) {
    const d = Date.parse(`${m[1]}-${m[2].padStart(2, '0')}-${m[3].padStart(2, '0')}${s.slice(m[1].length + m[2].length + m[3].length + 2)}`.replace(' ', 'T'));
    if (Number.isNaN(d)) throw validationError(`Invalid date "${text}"`, 'dateRange');
    return { ms: d, relative: false, hasTime };
  }
  const p: LocalParts = {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
    ms: m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0,
  };
  return { ms: fromLocal(p, tz), relative: false, hasTime };
}

/** A bound datetime constant for ProductQL: naive wall clock in the project timezone (as PostHog sends it). */
export function dateConst(ms: number, tz: string): Expr {
  const p = localParts(ms, tz);
  const base = fmtLocal(p);
  // Inclusive ends finish at .999999 like PostHog's 23:59:59.999999.
  return ast.call('toDateTime', [ast.constant(p.ms === 999 ? `${base}.999999` : p.ms ? `${base}.${pad(p.ms, 3)}` : base)]);
}

/** A value as text, as `concat(x)` writes it (ClickHouse's toString text; NULL becomes ''). */
export const toStr = (e: Expr): Expr => ast.call('concat', [e]);

// ------------------------------------------------------------------------------------------------ filters (shared)

type Filterable = { properties?: unknown; fixedProperties?: unknown };

/** Series/entity `properties` (plain list = AND, or a group) through the shared property-filter translation. */
export function propertiesExpr(props: unknown, tz = 'UTC', attr = 'properties'): Expr | undefined {
  return propertiesToExpr(props as PropertiesInput, { timezone: tz, attr });
}

/** Event-name condition of a series node (null = all events); actions/data warehouse nodes → 400. */
export function eventNameExpr(node: { kind?: string; event?: string | null }): Expr | undefined {
  if (node.kind && node.kind !== 'EventsNode') throw validationError(`${node.kind} series are not supported by this server yet`, 'series');
  if (node.event === null || node.event === undefined) return undefined;
  return ast.eq(ast.field('event'), ast.constant(node.event));
}

/** Event name + per-series properties + fixed properties. */
export function entityExpr(node: { kind?: string; event?: string | null } & Filterable, tz = 'UTC'): Expr {
  return ast.and(eventNameExpr(node), propertiesExpr(node.properties, tz), propertiesExpr(node.fixedProperties, tz));
}

/**
 * Breakdown values as funnels and retention want them: `ifNull(toString(prop), '')` per breakdown dimension
 * (multi-breakdowns give several), using the shared breakdown specs.
 */
export function breakdownExprs(bf: BreakdownFilter | null | undefined): Expr[] {
  // Funnels accept a list `breakdown` as several properties (PostHog's multi-property funnel breakdown); the shared
  // specs only take that shape through `breakdowns`.
  if (bf && Array.isArray(bf.breakdown) && bf.breakdown.length > 1 && !bf.breakdowns?.length && bf.breakdown_type !== 'cohort')
    bf = {
      ...bf,
      breakdown: null,
      breakdowns: bf.breakdown.map((p) => ({
        type: bf!.breakdown_type ?? 'event',
        property: p,
        normalize_url: bf!.breakdown_normalize_url,
        // a group list: each property of the one group type (PostHog's get_breakdown_expr over group_N.properties)
        ...(bf!.breakdown_type === 'group' ? { group_type_index: bf!.breakdown_group_type_index } : {}),
      })),
    };
  return breakdownSpecs(bf).map((spec) => ast.call('ifNull', [breakdownStringExpr(spec), ast.constant('')]));
}

/**
 * The `funnelAggregateByHogQL` expression the funnel aggregates by, or null for the person or group: PostHog's
 * FunnelEventQuery._aggregation_target_expr takes the group first (`aggregation_group_type_index`), then the
 * expression unless it is `person_id` (the person, as without one).
 */
export function funnelAggregationHogQL(node: { aggregation_group_type_index?: number | null; funnelsFilter?: { funnelAggregateByHogQL?: string | null } | null }): string | null {
  if (node.aggregation_group_type_index !== null && node.aggregation_group_type_index !== undefined) return null;
  const text = node.funnelsFilter?.funnelAggregateByHogQL;
  return text && text.trim() !== 'person_id' ? text : null;
}

/**
 * The actor of a funnel aggregated by `funnelAggregateByHogQL` (e.g. `properties.$session_id`): a value of each event.
 * An aggregate (`count()`) has no value per event — the engine would fail on it in its own words, differently per
 * engine — so it is a 400 naming the field. The parser must be initialised (initParser).
 */
export function funnelActorHogQLExpr(text: string): Expr {
  const expr = parseExprSync(text);
  if (containsAggregate(expr))
    throw validationError(
      `funnelAggregateByHogQL "${text}" contains an aggregation; the funnel actor is a value of each event (e.g. properties.$session_id).`,
      'funnelsFilter__funnelAggregateByHogQL',
    );
  return expr;
}

/**
 * The actor as a GROUP BY key on ClickHouse, for queries that already leave out events without an actor. The person
 * id is a Nullable(UUID): 18.16 groups nullable keys by a slower method (nullable_keys256, measured ~18% more CPU for
 * the 10M-event funnel than a plain UUID key), so the key is `assumeNotNull(person_id)`, which ClickHouse types as a
 * plain UUID at no cost per row (null ids are filtered out). Other actors (group keys, custom aggregation) are
 * returned as they are.
 */
export function clickhouseActorKey(actor: Expr, isPerson: boolean): Expr {
  return isPerson ? ast.call('assumeNotNull', [actor]) : actor;
}

/**
 * ClickHouse `round(x, 2)` on a Float64, which PostHog's funnel SQL uses for the trends conversion rate and the
 * time-to-convert average: x × 100 to the nearest integer with ties to even (ClickHouse rounds floats as
 * roundBankers does: round(0.5) = 0), then ÷ 100. So 1 of 32 is 3.12 %, not 3.13 %.
 */
export function round2(x: number): number {
  const y = x * 100;
  let r = Math.round(y);
  // (Math.round takes an exact half upwards)
  if (r - y === 0.5 && r % 2 !== 0) r -= 1;
  return r / 100;
}

/** Median with linear interpolation (ClickHouse `median` on small samples). */
export function median(xs: number[]): number | null {
  // (a typed array sorts numerically without a comparator: ~5x faster on the tens of thousands of times a large
  // funnel has)
  return medianOfSorted(Float64Array.from(xs).sort());
}

/** {@link median} of values already in ascending order. */
export function medianOfSorted(s: ArrayLike<number>): number | null {
  if (!s.length) return null;
  const pos = (s.length - 1) / 2;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

