/**
 * compareFilter (reference §1.7): the previous period of a date range.
 */
import { cal } from './local-time';
import { QueryDateRange, parseDateString } from './date-range';
import { isSubDay } from './interval';
import type { CompareFilter } from './schema';

/** True when the filter asks for a comparison. */
export const isCompare = (c: CompareFilter | null | undefined): boolean => !!c?.compare;

/**
 * The previous period of `current`.
 * - No `compare_to`: `[date_from − (date_to − date_from), date_from]`, day-aligned for day+ intervals; for a day
 *   interval with a relative `-Nd` (N multiple of 7) `date_from` and no `date_to`, the start moves +1 day so that
 *   week-over-week lines up (PostHog's kludge).
 * - `compare_to` (e.g. `-1w`): previous `date_from` = compare_to relative to the current `date_from`, same length.
 */
export function previousPeriodRange(current: QueryDateRange, compare: CompareFilter, attr = 'compareFilter'): QueryDateRange {
  const subDay = isSubDay(current.interval);
  const length = current.dateTo - current.dateFrom;
  if (compare.compare_to) {
    const p = parseDateString(compare.compare_to, current.dateFrom, current.timezone, `${attr}__compare_to`);
    let from = p.value;
    if (!subDay && !current.explicit) from = cal.startOfDay(from);
    return QueryDateRange.fromBounds(current, from, from + length, current.dateToEnd);
  }
  let from = current.dateFrom - length;
  let to = current.dateFrom;
  let toEnd = false;
  if (!subDay && !current.explicit) {
    // Python's microsecond arithmetic lands 1µs after midnight; truncation gives the day itself.
    from = cal.startOfDay(from + (current.dateToEnd ? 1 : 0));
    to = cal.endOfDay(to);
    toEnd = true;
    const d = current.fromDelta;
    if (
      current.interval === 'day' &&
      d &&
      !d.months &&
      !d.years &&
      d.days !== undefined &&
      d.days % 7 === 0 &&
      current.toDelta === null
    )
      from = cal.addDays(from, 1);
  }
  return QueryDateRange.fromBounds(current, from, to, toEnd);
}
