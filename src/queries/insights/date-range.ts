/**
 * PostHog's QueryDateRange: parses `dateRange` (absolute, relative, `all`), applies the rounding rules, lists the
 * buckets and builds the WHERE bounds — all in the project timezone.
 *
 * Rules (reference §1.5):
 * - `date_from` missing → start of the day 7 days ago (`-7d`); `date_to` missing → now.
 * - Day/week/month intervals: `date_from` truncated to 00:00, `date_to` extended to 23:59:59.999999.
 *   Hour: a relative `date_from` truncated to 00:00 of its day (`-7d` hourly starts at midnight), or to its hour for
 *   `h` offsets (`-24h`); minute: not truncated.
 *   Hour/minute: relative (or missing) `date_to` extended to the end of the hour/minute; absolute left as is.
 * - WHERE lower bound: start of `date_from`'s interval (start of its day for week intervals).
 * - Buckets: every interval start from startOf(date_from) to startOf(date_to), inclusive (`-7d` daily = 8).
 * - `explicitDate: true`: both bounds used verbatim.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { validationError } from '../../errors';
import { addInterval, bucketKey, bucketLabel, isSubDay, startOfInterval, type IntervalType } from './interval';
import { cal, instantToLocal, isoWithOffset, localToInstant, sqlLocal, type LocalTime } from './local-time';

/** `dateRange` of an insight node. */
export interface DateRangeInput {
  date_from?: string | null;
  date_to?: string | null;
  explicitDate?: boolean | null;
}

/** PostHog's DEFAULT_DATE_FROM_DAYS. */
export const DEFAULT_DATE_FROM = '-7d';

/** Where "now" comes from. Tests replace it with {@link setInsightsClock}; production uses the system clock. */
let clock: () => Date = () => new Date();

/** Injects the clock used when a query does not pass `now` (tests only). Returns a function restoring the previous one. */
export function setInsightsClock(now: (() => Date) | Date): () => void {
  const prev = clock;
  clock = typeof now === 'function' ? now : () => new Date(now.getTime());
  return () => {
    clock = prev;
  };
}

/** The current instant according to the injected clock. */
export const insightsNow = (): Date => clock();

/** Units of a relative date, as dateutil's relativedelta keys. */
export type DeltaMapping = Partial<Record<'years' | 'months' | 'weeks' | 'days' | 'hours' | 'minutes' | 'seconds', number>>;

/** A parsed `date_from`/`date_to`. */
export interface ParsedDate {
  /** Local wall-clock value. */
  value: LocalTime;
  /** Non-null for relative strings (`-7d`): the subtracted amounts. */
  delta: DeltaMapping | null;
  /** `Start`/`End` suffix of a relative string. */
  position: 'Start' | 'End' | null;
  /** True when the value is end-of-period (…59.999999). */
  end: boolean;
}

/** Wall-clock range a date may take (years 1 to 9999, as Python's datetime). */
const MIN_LOCAL = new Date(0).setUTCFullYear(1, 0, 1);
const MAX_LOCAL = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Most intervals an insight may return one value for ({@link QueryDateRange.checkIntervalCount}). */
export const MAX_INTERVALS = 10_000;

const RELATIVE = /^-?(\d+)?([hdwmqyMs])(Start|End)?$/;
// (month and day may lack their zero: PostHog falls back to dateutil's parser for `2021-1-1`)
const ABSOLUTE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Parses a PostHog date string relative to `now` (local): ISO date/datetime (naive = project timezone; with an offset
 * converted), or relative `-Nh|d|w|m|q|y|M|s` with optional `Start`/`End` (`dStart`, `-1mStart`, `yEnd`, ...).
 * Throws a 400 (attr `attr`) for anything else.
 * `humanFriendlyComparisonPeriods` (default false) is PostHog's flag of the same name (get_delta_mapping_for in
 * posthog/utils.py, set by QueryCompareToDateRange): `m` is 4 weeks and `y` 52 weeks per unit instead of calendar
 * months/years, so that a compared period starts on the same weekday.
 */
export function parseDateString(
  text: string,
  nowLocal: LocalTime,
  tz: string,
  attr = 'dateRange',
  opts: { humanFriendlyComparisonPeriods?: boolean } = {},
): ParsedDate {
  const weeksPer = (unit: 'm' | 'y'): number | null => (opts.humanFriendlyComparisonPeriods ? (unit === 'm' ? 4 : 52) : null);
  const s = text.trim();
  const rel = RELATIVE.exec(s);
  if (rel) {
    const n = rel[1] ? Number(rel[1]) : 0;
    const kind = rel[2];
    const position = (rel[3] as 'Start' | 'End' | undefined) ?? null;
    let v = nowLocal;
    const delta: DeltaMapping = {};
    switch (kind) {
      case 'h':
        delta.hours = n;
        v = cal.addHours(v, -n);
        if (position === 'Start') v = cal.startOfHour(v);
        if (position === 'End') v = cal.startOfHour(v) + cal.MS_HOUR - 1;
        break;
      case 'M':
        delta.minutes = n;
        v = cal.addMinutes(v, -n);
        break;
      case 's':
        delta.seconds = n;
        v -= n * 1000;
        break;
      case 'd':
        delta.days = n;
        v = cal.addDays(v, -n);
        if (position === 'Start') v = cal.startOfDay(v);
        if (position === 'End') v = cal.endOfDay(v);
        break;
      case 'w':
        delta.weeks = n;
        v = cal.addDays(v, -7 * n);
        break;
      case 'q':
        delta.weeks = 13 * n;
        v = cal.addDays(v, -7 * 13 * n);
        break;
      case 'm':
        if (weeksPer('m') !== null) {
          delta.weeks = weeksPer('m')! * n;
          v = cal.addDays(v, -7 * delta.weeks);
        } else {
          delta.months = n;
          v = cal.addMonths(v, -n);
        }
        if (position === 'Start') v = cal.startOfMonth(v);
        if (position === 'End') v = cal.startOfMonth(cal.addMonths(cal.startOfMonth(v), 1)) - 1;
        break;
      case 'y':
        if (weeksPer('y') !== null) {
          delta.weeks = weeksPer('y')! * n;
          v = cal.addDays(v, -7 * delta.weeks);
        } else {
          delta.years = n;
          v = cal.addMonths(v, -12 * n);
        }
        if (position === 'Start') v = cal.startOfYear(v);
        if (position === 'End') v = cal.startOfYear(cal.addMonths(cal.startOfYear(v), 12)) - 1;
        break;
    }
    // a huge offset (`-1000000000y`) leaves the calendar: refused here, not by the engine's timestamp parser
    if (!Number.isFinite(v) || v < MIN_LOCAL || v > MAX_LOCAL) throw validationError(`Invalid date "${text}": it is out of range.`, attr);
    return { value: v, delta, position, end: position === 'End' };
  }
  const abs = ABSOLUTE.exec(s);
  if (abs) {
    const [, y, mo, d, hh, mi, ss, frac, zone] = abs;
    const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
    const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(hh ?? 0), Number(mi ?? 0), Number(ss ?? 0), ms);
    const check = new Date(wall);
    if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(hh ?? 0) > 23 || Number(mi ?? 0) > 59)
      throw validationError(`Invalid date "${text}".`, attr);
    if (zone) {
      let offsetMin = 0;
      if (zone.toUpperCase() !== 'Z') {
        const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
        offsetMin = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
      }
      return { value: instantToLocal(wall - offsetMin * 60000, tz), delta: null, position: null, end: false };
    }
    return { value: wall, delta: null, position: null, end: false };
  }
  throw validationError(`Invalid date "${text}": use YYYY-MM-DD, an ISO 8601 datetime, or a relative date like -7d, -1mStart or all.`, attr);
}

/** One bucket of a time series. */
export interface Bucket {
  /** Local start of the bucket. */
  start: LocalTime;
  /** Key matching {@link bucketKeyExpr}; also the PostHog `days` entry. */
  key: string;
  /** PostHog label (`1-Jan-2024`, `1–7 Jan`, ...). */
  label: string;
}

/** Inputs of a {@link QueryDateRange}. */
export interface QueryDateRangeOptions {
  dateRange?: DateRangeInput | null;
  interval: IntervalType;
  /** IANA timezone of the project. */
  timezone: string;
  /** 0 = Sunday (default), 1 = Monday. */
  weekStartDay?: number;
  /** Defaults to the injected clock ({@link setInsightsClock}). */
  now?: Date;
  /** Earliest event instant of the project/series, needed when `date_from` is `all` (null: none → 7 days before now). */
  earliest?: Date | null;
  /** Use the dates verbatim, like `explicitDate` (PostHog's exact time range, e.g. BoldNumber). Default false. */
  exactTimeRange?: boolean;
  /** Attribute prefix for validation errors. Default `dateRange`. */
  attr?: string;
}

/** Buckets per range, kept outside the instance so {@link QueryDateRange.fromBounds}' copy does not inherit them. */
const bucketsOf = new WeakMap<QueryDateRange, Bucket[]>();

/** A resolved date range: bounds (local), WHERE expression and buckets. Immutable. */
export class QueryDateRange {
  readonly interval: IntervalType;
  readonly timezone: string;
  readonly weekStartDay: number;
  /** Local "now" used for relative dates. */
  readonly nowLocal: LocalTime;
  /** `date_from` after rounding (before the start-of-interval snap of the WHERE clause). */
  readonly dateFrom: LocalTime;
  /** Inclusive upper bound. */
  readonly dateTo: LocalTime;
  /** `dateTo` is an end-of-period value printed with `.999999`. */
  readonly dateToEnd: boolean;
  /** Relative-date deltas of the inputs (null for absolute; `-7d`'s for a missing or `all` date_from), used by compare's week kludge. */
  readonly fromDelta: DeltaMapping | null;
  readonly toDelta: DeltaMapping | null;
  readonly explicit: boolean;
  readonly input: DateRangeInput;

  constructor(o: QueryDateRangeOptions) {
    this.interval = o.interval;
    this.timezone = o.timezone;
    this.weekStartDay = o.weekStartDay === 1 ? 1 : 0;
    this.input = o.dateRange ?? {};
    this.nowLocal = instantToLocal(o.now ?? insightsNow(), o.timezone);
    this.explicit = !!(o.dateRange?.explicitDate || o.exactTimeRange);
    const attr = o.attr ?? 'dateRange';
    const subDay = isSubDay(o.interval);

    const fromText = o.dateRange?.date_from ?? null;
    let from: ParsedDate;
    if (fromText === 'all') {
      // no event to start from: PostHog's get_earliest_timestamp falls back to now − DEFAULT_DATE_FROM_DAYS (7 days)
      const e = instantToLocal(o.earliest ?? new Date((o.now ?? insightsNow()).getTime() - 7 * 86_400_000), o.timezone);
      from = { value: e, delta: null, position: null, end: false };
    } else if (fromText) from = parseDateString(fromText, this.nowLocal, o.timezone, `${attr}__date_from`);
    // (a missing date_from is PostHog's default `-7d`, delta included: compare's week kludge applies to it)
    else from = { value: cal.addDays(cal.startOfDay(this.nowLocal), -7), delta: { days: 7 }, position: null, end: false };
    // (QueryPreviousPeriodDateRange.date_from_delta_mappings reads `all`, like a missing date_from, as `-7d`: the week
    // kludge of compare applies to it)
    this.fromDelta = fromText === 'all' ? { days: 7 } : from.delta;

    const toText = o.dateRange?.date_to ?? null;
    const to: ParsedDate = toText
      ? parseDateString(toText, this.nowLocal, o.timezone, `${attr}__date_to`)
      : { value: this.nowLocal, delta: {}, position: null, end: false };
    this.toDelta = toText ? to.delta : null;
    const toRelative = to.delta !== null;

    if (this.explicit) {
      this.dateFrom = from.value;
      this.dateTo = to.value;
      this.dateToEnd = to.end;
    } else {
      // PostHog's always_truncate (QueryDateRange.date_from): a relative date_from with an hour interval starts at the
      // start of its day ("last N days by hour"), or of its hour for an `h` offset; minute intervals are not truncated.
      this.dateFrom = !subDay
        ? cal.startOfDay(from.value)
        : o.interval === 'hour' && from.delta !== null
          ? from.delta.hours !== undefined
            ? cal.startOfHour(from.value)
            : cal.startOfDay(from.value)
          : from.value;
      if (!subDay) {
        this.dateTo = cal.endOfDay(to.value);
        this.dateToEnd = true;
      } else if (toRelative) {
        this.dateTo = o.interval === 'hour' ? cal.startOfHour(to.value) + cal.MS_HOUR - 1 : cal.startOfMinute(to.value) + 59_999;
        this.dateToEnd = true;
      } else {
        this.dateTo = to.value;
        this.dateToEnd = false;
      }
    }
  }

  /** Builds a range from already-resolved local bounds (used for compare periods). */
  static fromBounds(base: QueryDateRange, from: LocalTime, to: LocalTime, toEnd: boolean): QueryDateRange {
    const r = Object.create(QueryDateRange.prototype) as QueryDateRange;
    Object.assign(r, base, { dateFrom: from, dateTo: to, dateToEnd: toEnd, fromDelta: null, toDelta: null });
    return r;
  }

  /** Inclusive lower bound of the WHERE clause: start of `dateFrom`'s interval (its day for weeks); verbatim when explicit. */
  get whereFrom(): LocalTime {
    if (this.explicit) return this.dateFrom;
    return this.interval === 'week' ? cal.startOfDay(this.dateFrom) : startOfInterval(this.dateFrom, this.interval, this.weekStartDay);
  }

  /** Start of the first bucket. */
  get bucketFrom(): LocalTime {
    return startOfInterval(this.dateFrom, this.interval, this.weekStartDay);
  }

  /** Start of the last bucket. */
  get bucketTo(): LocalTime {
    return startOfInterval(this.dateTo, this.interval, this.weekStartDay);
  }

  /**
   * Every bucket from startOf(date_from) to startOf(date_to), inclusive. Computed once per range (runners ask several
   * times per query and labelling costs more than the rest of a small insight's JS); each call returns a new array of
   * the same frozen buckets.
   */
  buckets(): Bucket[] {
    let cached = bucketsOf.get(this);
    if (!cached) bucketsOf.set(this, (cached = this.computeBuckets().map((b) => Object.freeze(b))));
    return cached.slice();
  }

  /**
   * Refuses (400) a range of more than {@link MAX_INTERVALS} buckets, for insights that compute and return one value
   * per interval (trends, lifecycle, stickiness, funnel trends): minutes over years are a mistake, and on ClickHouse
   * a query that can take the server down.
   */
  checkIntervalCount(): void {
    if (this.buckets().length > MAX_INTERVALS) throw validationError('The date range has too many intervals; use a coarser interval.', 'interval');
  }

  private computeBuckets(): Bucket[] {
    const out: Bucket[] = [];
    const last = this.bucketTo;
    const push = (t: LocalTime): void => {
      out.push({ start: t, key: bucketKey(t, this.interval), label: bucketLabel(t, this.interval, this.dateFrom, this.dateTo) });
    };
    if (isSubDay(this.interval)) {
      // Hours and minutes step in real time, as ClickHouse does: a DST gap has no 02:00 bucket.
      const step = this.interval === 'hour' ? cal.MS_HOUR : 60_000;
      const end = localToInstant(last, this.timezone).getTime();
      const seen = new Set<string>();
      for (let i = localToInstant(this.bucketFrom, this.timezone).getTime(); i <= end && out.length < 100_000; i += step) {
        const t = startOfInterval(instantToLocal(i, this.timezone), this.interval);
        const key = bucketKey(t, this.interval);
        if (!seen.has(key)) {
          seen.add(key);
          push(t);
        }
      }
      return out;
    }
    for (let t = this.bucketFrom; t <= last && out.length < 100_000; t = addInterval(t, this.interval)) push(t);
    return out;
  }

  /** `date_from` bound as bound-able naive local text. */
  fromSql(lower: LocalTime = this.whereFrom): string {
    return sqlLocal(lower);
  }

  /** `date_to` as naive local text (`.999999` for end-of-period values). */
  toSql(): string {
    return sqlLocal(this.dateTo, this.dateToEnd);
  }

  /**
   * `timestamp >= from AND timestamp <= to` on a datetime expression (default `timestamp`). `lowerShift` moves the
   * lower bound back by whole intervals/days (e.g. lifecycle's previous interval, WAU's 7 days).
   */
  whereExpr(ts: Expr = ast.field('timestamp'), opts: { lower?: LocalTime; upper?: LocalTime; upperExclusive?: boolean } = {}): Expr {
    const lower = opts.lower ?? this.whereFrom;
    const upper = opts.upper !== undefined ? sqlLocal(opts.upper) : this.toSql();
    return ast.and(
      ast.compare('>=', ts, ast.constant(sqlLocal(lower))),
      ast.compare(opts.upperExclusive ? '<' : '<=', ts, ast.constant(upper)),
    );
  }

  /** PostHog's `resolved_date_range`: ISO datetimes with the project's offset. */
  resolved(): { date_from: string; date_to: string } {
    return { date_from: isoWithOffset(this.dateFrom, this.timezone), date_to: isoWithOffset(this.dateTo, this.timezone, this.dateToEnd) };
  }
}
