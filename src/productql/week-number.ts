/**
 * ClickHouse's `toWeek(x[, mode[, tz]])` and `toYearWeek(x[, mode[, tz]])` (MySQL's WEEK/YEARWEEK modes, in
 * posthog/hogql/functions/mapping.py with 1 to 3 arguments), as a ProductQL expression over calendar functions every
 * engine has: DuckDB has no week modes, and older ClickHouse releases (as the tested 18.16) no toWeek.
 *
 * The mode's bits (ClickHouse DateLUTImpl::toYearWeek, after MySQL's calc_week): 1 weeks start on Monday (else
 * Sunday); 2 the week number is counted in the week's own year, 1 to 53 (else in the date's year, 0 to 53, 0 for the
 * days before week 1); 4, flipped when weeks start on Sunday, week 1 is the first week with a first day of the week
 * in the year (else the first week with 4 or more days in it); 8 week 1 is the week of January 1 (modes 8 and 9).
 * toYearWeek always counts in the week's own year and answers year * 100 + week. Mode 0 when not given.
 */
import { arithmetic, call, compare, constant, type Expr } from './ast';

/** The modes ClickHouse documents (0 to 9). */
export const WEEK_MODES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/** `toWeek` / `toYearWeek` of `value` (an expression), in `mode`, reading the value in `zone` when given. */
export function weekNumberExpr(name: 'toWeek' | 'toYearWeek', value: Expr, mode: number, zone?: Expr): Expr {
  const mondayFirst = (mode & 1) === 1;
  const ownYear = (mode & 2) === 2 || name === 'toYearWeek';
  const format = mondayFirst ? mode & 7 : (mode & 7) ^ 4;
  const firstWeekday = (format & 4) === 4;
  const newYearDay = (mode & 8) === 8;

  const n = (v: number) => constant(v);
  const plus = (a: Expr, b: Expr) => arithmetic('+', a, b);
  const minus = (a: Expr, b: Expr) => arithmetic('-', a, b);
  // day numbers (days since 1970-01-01, a Thursday): plain integers, cheap on every engine
  const dayNum = (d: Expr) => call('toRelativeDayNum', [d]);
  const date = call('toDate', zone ? [value, zone] : [value]);
  const jan1 = call('toStartOfYear', [date]);
  const thisJan1 = dayNum(jan1);
  const nextJan1 = dayNum(call('addYears', [jan1, n(1)]));
  // the first day of the week of day number x: x minus the days since Monday (Sunday), kept positive before 1970
  const weekStart = (x: Expr) => minus(x, arithmetic('%', plus(arithmetic('%', plus(x, n(mondayFirst ? 3 : 4)), n(7)), n(7)), n(7)));
  const start = weekStart(dayNum(date));
  const weeksSince = (from: Expr) => plus(call('intDiv', [minus(start, from), n(7)]), n(1));
  const yearWeek = (y: Expr, w: Expr) => plus(arithmetic('*', y, n(100)), w);
  const year = call('toYear', [date]);
  // a condition as 0 or 1, never NULL (a NULL date makes the result NULL anyway): the branches are picked by
  // arithmetic, as ClickHouse 18.16's if() refuses constant branches of a Nullable and a plain type
  const when = (op: '<' | '>=', a: Expr, b: Expr) => call('ifNull', [call('toInt', [compare(op, a, b)]), n(0)]);
  const times = (a: Expr, b: Expr) => arithmetic('*', a, b);

  if (newYearDay) {
    // the year of the week's last day; week 1 is the week of its January 1
    const inNext = when('>=', plus(start, n(6)), nextJan1);
    const week = weeksSince(weekStart(plus(thisJan1, times(inNext, minus(nextJan1, thisJan1)))));
    return name === 'toWeek' ? week : yearWeek(plus(year, inNext), week);
  }

  // the first day of week 1 of the year starting on day number `j`; a day before it is in week 0 of its year
  const week1 = (j: Expr) => weekStart(plus(j, n(firstWeekday ? 6 : 3)));
  const inYear = weeksSince(week1(thisJan1));
  if (!ownYear) return inYear;

  // counted in the week's own year: week 0 is the last week of the year before; a week from the next year's week 1 is 1
  const after = when('>=', start, week1(nextJan1));
  const before = when('<', start, week1(thisJan1));
  const lastYear = weeksSince(week1(dayNum(call('subtractYears', [jan1, n(1)]))));
  const week = plus(plus(after, times(before, lastYear)), times(minus(minus(n(1), after), before), inYear));
  if (name === 'toWeek') return week;
  return yearWeek(minus(plus(year, after), before), week);
}
