/**
 * Intervals (minute, hour, day, week, month): bucket starts, bucket keys in SQL and JS, `days` and `labels`.
 *
 * A bucket is identified by a *key* string that SQL and JS produce identically from the project-local wall clock:
 * `YYYY-MM-DD` for day/week/month, `YYYY-MM-DD HH:MM:SS` for hour/minute — the same text as PostHog's `days`.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { cal, formatLocalDate, formatLocalDateTime, instantToLocal, type LocalTime } from './local-time';

/** An insight interval. */
export type IntervalType = 'minute' | 'hour' | 'day' | 'week' | 'month';

/** Interval names accepted on insight nodes (PostHog's IntervalType minus `second`). */
export const INTERVALS: readonly IntervalType[] = ['minute', 'hour', 'day', 'week', 'month'];

/** Coarseness order, for rules like "WAU at week interval or coarser". */
export const INTERVAL_RANK: Record<IntervalType, number> = { minute: 0, hour: 1, day: 2, week: 3, month: 4 };

/** True for intervals whose buckets are shorter than a day (their `days` entries carry a time). */
export const isSubDay = (i: IntervalType): boolean => i === 'minute' || i === 'hour';

/** Start of the interval containing `t` (weeks start on `weekStartDay`: 0 Sunday, 1 Monday). */
export function startOfInterval(t: LocalTime, interval: IntervalType, weekStartDay = 0): LocalTime {
  switch (interval) {
    case 'minute':
      return cal.startOfMinute(t);
    case 'hour':
      return cal.startOfHour(t);
    case 'day':
      return cal.startOfDay(t);
    case 'week':
      return cal.startOfWeek(t, weekStartDay);
    case 'month':
      return cal.startOfMonth(t);
  }
}

/** `t` moved by `n` intervals (calendar months for month). */
export function addInterval(t: LocalTime, interval: IntervalType, n = 1): LocalTime {
  switch (interval) {
    case 'minute':
      return cal.addMinutes(t, n);
    case 'hour':
      return cal.addHours(t, n);
    case 'day':
      return cal.addDays(t, n);
    case 'week':
      return cal.addDays(t, 7 * n);
    case 'month':
      return cal.addMonths(t, n);
  }
}

/** The bucket key (= PostHog `days` entry) of a bucket start. */
export function bucketKey(start: LocalTime, interval: IntervalType): string {
  return isSubDay(interval) ? formatLocalDateTime(start) : formatLocalDate(start);
}

/**
 * ProductQL expression giving the bucket start of a datetime expression (default `timestamp`), computed in the
 * project timezone by the printer: a local DATE for day/week/month, an instant for hour/minute. Turn the value the
 * engine returns into a key with {@link bucketKeyFromValue}.
 */
export function bucketStartExpr(interval: IntervalType, weekStartDay = 0, ts: Expr = ast.field('timestamp')): Expr {
  switch (interval) {
    case 'minute':
      return ast.call('toStartOfMinute', [ts]);
    case 'hour':
      return ast.call('toStartOfHour', [ts]);
    case 'day':
      return ast.call('toDate', [ts]);
    case 'week':
      return ast.call('toStartOfWeek', [ts, ast.constant(weekStartDay === 1 ? 1 : 0)]);
    case 'month':
      return ast.call('toStartOfMonth', [ts]);
  }
}

/**
 * The bucket key of a value returned for {@link bucketStartExpr}: dates (`YYYY-MM-DD`) are already local; instants
 * (ISO strings, Dates, epoch milliseconds) are converted to the project timezone. Matches {@link bucketKey} of the bucket start.
 */
export function bucketKeyFromValue(v: unknown, interval: IntervalType, timezone: string): string {
  // (epoch milliseconds: a ClickHouse datetime the printer could not type, e.g. read back out of an array)
  if (typeof v === 'number') v = new Date(v);
  if (!isSubDay(interval)) {
    if (v instanceof Date) return v.toISOString().slice(0, 10);
    return String(v).slice(0, 10);
  }
  const d = v instanceof Date ? v : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(String(v)) ? String(v) : String(v).replace(' ', 'T') + 'Z');
  return bucketKey(startOfInterval(instantToLocal(d, timezone), interval), interval);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number): string => String(n).padStart(2, '0');

/** `1-Jan-2024` */
const dayLabel = (t: LocalTime): string => `${cal.day(t)}-${MONTHS[cal.month(t)]}-${cal.year(t)}`;

/**
 * PostHog's label of a bucket: day `1-Jan-2024`, hour/minute `1-Jan 13:00`, month `Jan 2024`, week the span
 * clamped to the query range: `1–7 Jan`, `29-Jan – 4-Feb`, `30-Dec-2023 – 5-Jan-2024`, or `1-Jan-2024` for one day.
 */
export function bucketLabel(start: LocalTime, interval: IntervalType, rangeFrom?: LocalTime, rangeTo?: LocalTime): string {
  const d = new Date(start);
  switch (interval) {
    case 'minute':
    case 'hour':
      return `${cal.day(start)}-${MONTHS[cal.month(start)]} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
    case 'day':
      return dayLabel(start);
    case 'month':
      return `${MONTHS[cal.month(start)]} ${cal.year(start)}`;
    case 'week': {
      let a = start;
      let b = cal.addDays(start, 6);
      if (rangeFrom !== undefined && cal.startOfDay(rangeFrom) > a) a = cal.startOfDay(rangeFrom);
      if (rangeTo !== undefined && cal.startOfDay(rangeTo) < b) b = cal.startOfDay(rangeTo);
      if (b < a) b = a;
      if (a === b) return dayLabel(a);
      if (cal.year(a) !== cal.year(b)) return `${dayLabel(a)} – ${dayLabel(b)}`;
      if (cal.month(a) !== cal.month(b)) return `${cal.day(a)}-${MONTHS[cal.month(a)]} – ${cal.day(b)}-${MONTHS[cal.month(b)]}`;
      return `${cal.day(a)}–${cal.day(b)} ${MONTHS[cal.month(a)]}`;
    }
  }
}
