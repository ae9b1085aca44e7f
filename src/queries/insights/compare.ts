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
 * The previous period of `current`, as PostHog's `get_compare_period_dates` (posthog/utils.py, used by
 * QueryPreviousPeriodDateRange) computes it.
 * - No `compare_to`: `diff = date_to − date_from`; previous `date_from = date_from − diff`, aligned to 00:00 of its
 *   day (hour interval: to `date_from`'s hour of that day); previous `date_to = previous date_from + diff`, extended
 *   to 23:59:59.999999 (hour interval: to the end of its hour). Both periods have the same number of buckets. For a
 *   day interval with a relative `-Nd` `date_from` (N a positive multiple of 7; a missing `date_from` counts as
 *   `-7d`) and no relative `date_to`, the previous start moves +1 day so that week-over-week lines up (PostHog's
 *   kludge: `-7d` is 8 days long).
 * - Minute interval, and explicit dates (`explicitDate`, BoldNumber's exact range): the period just before, shifted by
 *   the range's length, unaligned.
 * - `compare_to` (e.g. `-1w`): previous `date_from` = compare_to relative to the current `date_from`, same length.
 *   Parsed with human-friendly comparison periods, as QueryCompareToDateRange does: `-1m` is 4 weeks and `-1y` 52
 *   weeks back, so the compared days fall on the same weekdays.
 */
export function previousPeriodRange(current: QueryDateRange, compare: CompareFilter, attr = 'compareFilter'): QueryDateRange {
  const subDay = isSubDay(current.interval);
  const length = current.dateTo - current.dateFrom;
  if (compare.compare_to) {
    const p = parseDateString(compare.compare_to, current.dateFrom, current.timezone, `${attr}__compare_to`, { humanFriendlyComparisonPeriods: true });
    let from = p.value;
    if (!subDay && !current.explicit) from = cal.startOfDay(from);
    return QueryDateRange.fromBounds(current, from, from + length, current.dateToEnd);
  }
  if (current.interval === 'minute' || current.explicit) return QueryDateRange.fromBounds(current, current.dateFrom - length, current.dateFrom, false);
  // Python works in microseconds: an end-of-period date_to is .999999, i.e. 0.999 ms after the millisecond we keep.
  const diff = length + (current.dateToEnd ? 0.999 : 0);
  const rawFrom = Math.floor(current.dateFrom - diff);
  if (current.interval === 'hour') {
    const from = cal.startOfDay(rawFrom) + (cal.startOfHour(current.dateFrom) - cal.startOfDay(current.dateFrom));
    return QueryDateRange.fromBounds(current, from, cal.startOfHour(Math.floor(from + diff)) + cal.MS_HOUR - 1, true);
  }
  let from = cal.startOfDay(rawFrom);
  const d = current.fromDelta;
  if (current.interval === 'day' && d && d.days !== undefined && d.days > 0 && d.days % 7 === 0 && current.toDelta === null) from = cal.addDays(from, 1);
  return QueryDateRange.fromBounds(current, from, cal.endOfDay(Math.floor(from + diff)), true);
}
