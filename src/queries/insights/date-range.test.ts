import { QueryDateRange, parseDateString, type DateRangeInput } from './date-range';
import { previousPeriodRange } from './compare';
import type { IntervalType } from './interval';
import { bucketLabel } from './interval';
import { localToInstant, instantToLocal } from './local-time';

const NOW = new Date('2024-01-08T12:00:00Z'); // a Monday
const range = (dateRange: DateRangeInput, interval: IntervalType = 'day', o: { tz?: string; week?: number; now?: Date; earliest?: Date } = {}) =>
  new QueryDateRange({ dateRange, interval, timezone: o.tz ?? 'UTC', weekStartDay: o.week ?? 0, now: o.now ?? NOW, earliest: o.earliest });

describe('bucket counts and bounds (UTC, now = 2024-01-08 12:00)', () => {
  it.each<[string, DateRangeInput, IntervalType, number, string, string]>([
    ['-7d daily = 8 buckets', { date_from: '-7d' }, 'day', 8, '2024-01-01', '2024-01-08'],
    ['missing date_from = -7d', {}, 'day', 8, '2024-01-01', '2024-01-08'],
    ['-30d = 31 buckets', { date_from: '-30d' }, 'day', 31, '2023-12-09', '2024-01-08'],
    ['-1w = -7d', { date_from: '-1w' }, 'day', 8, '2024-01-01', '2024-01-08'],
    ['mStart = day of month', { date_from: 'mStart' }, 'day', 8, '2024-01-01', '2024-01-08'],
    ['yStart', { date_from: 'yStart' }, 'day', 8, '2024-01-01', '2024-01-08'],
    ['dStart = today only', { date_from: 'dStart' }, 'day', 1, '2024-01-08', '2024-01-08'],
    ['-1dStart = yesterday + today', { date_from: '-1dStart' }, 'day', 2, '2024-01-07', '2024-01-08'],
    ['-3m daily', { date_from: '-3m' }, 'day', 93, '2023-10-08', '2024-01-08'],
    ['-1y monthly = 13 months', { date_from: '-1y' }, 'month', 13, '2023-01-01', '2024-01-01'],
    ['-24h hourly = 25 hours', { date_from: '-24h' }, 'hour', 25, '2024-01-07 12:00:00', '2024-01-08 12:00:00'],
    // PostHog QueryDateRange.date_from always_truncate: "truncate date_from to the start of the day, when looking at last N days by hour"
    ['-7d hourly starts at midnight', { date_from: '-7d' }, 'hour', 7 * 24 + 13, '2024-01-01 00:00:00', '2024-01-08 12:00:00'],
    ['-1d hourly starts at midnight', { date_from: '-1d' }, 'hour', 24 + 13, '2024-01-07 00:00:00', '2024-01-08 12:00:00'],
    ['-90M by minute is not truncated', { date_from: '-90M' }, 'minute', 91, '2024-01-08 10:30:00', '2024-01-08 12:00:00'],
    ['absolute dates', { date_from: '2024-01-02', date_to: '2024-01-04' }, 'day', 3, '2024-01-02', '2024-01-04'],
    ['absolute datetime snaps to the day', { date_from: '2024-01-02T10:00:00', date_to: '2024-01-04T01:00:00' }, 'day', 3, '2024-01-02', '2024-01-04'],
    ['relative date_to', { date_from: '-14d', date_to: '-7d' }, 'day', 8, '2023-12-25', '2024-01-01'],
  ])('%s', (_n, dr, interval, count, first, last) => {
    const b = range(dr, interval).buckets();
    expect(b).toHaveLength(count);
    expect(b[0].key).toBe(first);
    expect(b[b.length - 1].key).toBe(last);
  });

  it('date_to is extended to 23:59:59.999999 and date_from truncated to 00:00', () => {
    const r = range({ date_from: '-7d' });
    expect(r.fromSql()).toBe('2024-01-01 00:00:00');
    expect(r.toSql()).toBe('2024-01-08 23:59:59.999999');
    expect(r.resolved()).toEqual({ date_from: '2024-01-01T00:00:00Z', date_to: '2024-01-08T23:59:59.999999Z' });
  });

  it('hour interval: relative date_to extends to the end of the hour; absolute stays', () => {
    expect(range({ date_from: '-24h' }, 'hour').toSql()).toBe('2024-01-08 12:59:59.999999');
    expect(range({ date_from: '2024-01-08T01:00:00', date_to: '2024-01-08T05:30:00' }, 'hour').toSql()).toBe('2024-01-08 05:30:00');
  });

  it('explicitDate keeps both dates verbatim', () => {
    const r = range({ date_from: '2024-01-02T10:15:00', date_to: '2024-01-04T01:00:00', explicitDate: true });
    expect(r.fromSql()).toBe('2024-01-02 10:15:00');
    expect(r.toSql()).toBe('2024-01-04 01:00:00');
  });

  it('all starts at the earliest event (day-truncated)', () => {
    const b = range({ date_from: 'all' }, 'day', { earliest: new Date('2023-12-30T05:00:00Z') }).buckets();
    expect(b[0].key).toBe('2023-12-30');
    expect(b).toHaveLength(10);
  });

  it.each(['yesterday', '-7x', '2024-13-01', '2024-02-30'])('rejects %s with a 400 naming the field', (s) => {
    expect(() => range({ date_from: s })).toThrow(expect.objectContaining({ status: 400, attr: 'dateRange__date_from' }));
  });

  // relative_date_parse_with_delta_mapping: "Fallback to also parse dates without zero-padding, e.g. 2021-1-1"
  it('a date without zero padding (2024-1-2) is read as 2024-01-02', () => {
    const r = range({ date_from: '2024-1-2', date_to: '2024-1-4T10:00:00' });
    expect(r.buckets().map((b) => b.key)).toEqual(['2024-01-02', '2024-01-03', '2024-01-04']);
    expect(() => range({ date_from: '2024-1-32' })).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('an ISO datetime with an offset is converted to the project timezone', () => {
    const p = parseDateString('2024-01-01T23:30:00Z', 0, 'Europe/Berlin');
    expect(new Date(p.value).toISOString()).toBe('2024-01-02T00:30:00.000Z'); // local wall clock 00:30 on Jan 2
  });
});

describe('weeks', () => {
  it('Sunday start: -7d from Monday Jan 1 buckets from Sunday Dec 31; WHERE starts Jan 1; labels clamp to the range', () => {
    const r = range({ date_from: '-7d' }, 'week');
    const b = r.buckets();
    expect(b.map((x) => x.key)).toEqual(['2023-12-31', '2024-01-07']);
    expect(r.fromSql()).toBe('2024-01-01 00:00:00');
    expect(b.map((x) => x.label)).toEqual(['1–6 Jan', '7–8 Jan']);
  });
  it('Monday start (project week_start_day = 1)', () => {
    const b = range({ date_from: '-7d' }, 'week', { week: 1 }).buckets();
    expect(b.map((x) => x.key)).toEqual(['2024-01-01', '2024-01-08']);
    expect(b.map((x) => x.label)).toEqual(['1–7 Jan', '8-Jan-2024']);
  });
  it.each([
    ['2024-01-28', '28-Jan – 3-Feb'],
    ['2023-12-31', '31-Dec-2023 – 6-Jan-2024'],
    ['2024-01-07', '7–13 Jan'],
  ])('label of week %s', (start, label) => {
    expect(bucketLabel(Date.parse(`${start}T00:00:00Z`), 'week')).toBe(label);
  });
});

describe('labels', () => {
  it.each<[IntervalType, string, string]>([
    ['day', '2024-01-01T00:00:00Z', '1-Jan-2024'],
    ['hour', '2024-01-01T13:00:00Z', '1-Jan 13:00'],
    ['minute', '2024-01-01T13:05:00Z', '1-Jan 13:05'],
    ['month', '2024-01-01T00:00:00Z', 'Jan 2024'],
  ])('%s', (interval, t, label) => {
    expect(bucketLabel(Date.parse(t), interval)).toBe(label);
  });
});

describe('timezones and DST (Europe/Berlin: clocks go forward 2024-03-31 02:00)', () => {
  const tz = 'Europe/Berlin';
  it('-7d daily across DST: 8 local days; offsets change in resolved_date_range', () => {
    const r = range({ date_from: '-7d' }, 'day', { tz, now: new Date('2024-04-01T10:00:00Z') });
    expect(r.buckets().map((b) => b.key)).toEqual(['2024-03-25', '2024-03-26', '2024-03-27', '2024-03-28', '2024-03-29', '2024-03-30', '2024-03-31', '2024-04-01']);
    expect(r.resolved()).toEqual({ date_from: '2024-03-25T00:00:00+01:00', date_to: '2024-04-01T23:59:59.999999+02:00' });
  });
  it('hourly buckets skip the non-existent 02:00', () => {
    const r = range({ date_from: '2024-03-31T00:00:00', date_to: '2024-03-31T04:00:00' }, 'hour', { tz });
    expect(r.buckets().map((b) => b.key)).toEqual(['2024-03-31 00:00:00', '2024-03-31 01:00:00', '2024-03-31 03:00:00', '2024-03-31 04:00:00']);
  });
  it('"now" is taken in the project timezone (23:30 UTC is already tomorrow in Berlin)', () => {
    const r = range({ date_from: 'dStart' }, 'day', { tz, now: new Date('2024-01-08T23:30:00Z') });
    expect(r.buckets().map((b) => b.key)).toEqual(['2024-01-09']);
  });
  // resolved_date_range is pydantic's isoformat() of aware datetimes; a wall-clock time in a DST gap has fold=0, whose
  // utcoffset() is the offset from before the gap (Python: datetime(2022, 9, 11, tzinfo=ZoneInfo('America/Santiago'))
  // .isoformat() == '2022-09-11T00:00:00-04:00', and 02:00 on Berlin's spring-forward day is '+01:00')
  it('a bound in a DST gap is printed with the offset from before the gap, as Python does (Santiago skips 00:00–01:00 on 2022-09-11)', () => {
    const santiago = range({ date_from: '2022-09-11', date_to: '2022-09-12' }, 'day', { tz: 'America/Santiago' });
    expect(santiago.resolved()).toEqual({ date_from: '2022-09-11T00:00:00-04:00', date_to: '2022-09-12T23:59:59.999999-03:00' });
    // (the day before and after the change keep their own offsets)
    expect(range({ date_from: '2022-09-10', date_to: '2022-09-10' }, 'day', { tz: 'America/Santiago' }).resolved().date_from).toBe('2022-09-10T00:00:00-04:00');
    expect(range({ date_from: '2022-09-12', date_to: '2022-09-12' }, 'day', { tz: 'America/Santiago' }).resolved().date_from).toBe('2022-09-12T00:00:00-03:00');
    // -24h by hour at 02:30 CEST on Apr 1 is 02:30 on Mar 31 (wall-clock arithmetic), truncated to 02:00: in the gap
    const berlin = range({ date_from: '-24h' }, 'hour', { tz, now: new Date('2024-04-01T00:30:00Z') });
    expect(berlin.resolved()).toEqual({ date_from: '2024-03-31T02:00:00+01:00', date_to: '2024-04-01T02:59:59.999999+02:00' });
    // an ambiguous time (clocks going back) is the earlier instant, fold=0: 02:30 on Oct 27 is +02:00
    expect(range({ date_from: '2024-10-27T02:30:00', date_to: '2024-10-27T03:00:00' }, 'hour', { tz }).resolved().date_from).toBe('2024-10-27T02:30:00+02:00');
  });

  it('local ↔ instant round trip, including the gap', () => {
    const local = Date.parse('2024-03-31T03:30:00Z');
    expect(instantToLocal(localToInstant(local, tz), tz)).toBe(local);
    expect(localToInstant(Date.parse('2024-10-27T02:30:00Z'), tz).toISOString()).toBe('2024-10-27T00:30:00.000Z'); // ambiguous → earlier
  });
});

describe('compare: previous period', () => {
  it.each<[string, DateRangeInput, IntervalType, string | undefined, string, string]>([
    ['-7d day: week-over-week kludge (+1 day)', { date_from: '-7d' }, 'day', undefined, '2023-12-25', '2024-01-01'],
    ['-14d day: kludge too', { date_from: '-14d' }, 'day', undefined, '2023-12-11', '2023-12-25'],
    // PostHog's get_compare_period_dates: previous date_to = previous date_from + (date_to − date_from), so both periods
    // have as many buckets (test_trends_query_runner.py test_trends_query_compare: 15–19 Jan compares with 10–14 Jan).
    ['-10d day: no kludge, 11 days like the current period', { date_from: '-10d' }, 'day', undefined, '2023-12-18', '2023-12-28'],
    ['absolute range: same number of days', { date_from: '2024-01-05', date_to: '2024-01-06' }, 'day', undefined, '2024-01-03', '2024-01-04'],
    ['missing date_from is -7d: kludge too', {}, 'day', undefined, '2023-12-25', '2024-01-01'],
    ['dStart: no kludge (no days offset)', { date_from: 'dStart' }, 'day', undefined, '2024-01-07', '2024-01-07'],
    ['-24h hourly: same hour, one day earlier, 25 hours', { date_from: '-24h' }, 'hour', undefined, '2024-01-06 12:00:00', '2024-01-07 12:00:00'],
    ['compare_to -1w', { date_from: '-7d' }, 'day', '-1w', '2023-12-25', '2024-01-01'],
    // (QueryCompareToDateRange parses compare_to with human_friendly_comparison_periods: -1y is 52 weeks, Monday to Monday)
    ['compare_to -1y', { date_from: '2024-01-01', date_to: '2024-01-03' }, 'day', '-1y', '2023-01-02', '2023-01-04'],
  ])('%s', (_n, dr, interval, compare_to, first, last) => {
    const prev = previousPeriodRange(range(dr, interval), { compare: true, compare_to });
    const b = prev.buckets();
    expect(b[0].key).toBe(first);
    expect(b[b.length - 1].key).toBe(last);
  });
});

describe('buckets are computed once per range', () => {
  it('repeated calls return equal lists; mutating one does not change the next', () => {
    const r = range({ date_from: '-7d' });
    const a = r.buckets();
    a.pop();
    const b = r.buckets();
    expect(b).toHaveLength(8);
    expect(b).toEqual(range({ date_from: '-7d' }).buckets());
    expect(Object.isFrozen(b[0])).toBe(true);
  });

  it('regression: a compare period built from a range whose buckets were already listed has its own buckets', () => {
    const current = range({ date_from: '-7d' });
    expect(current.buckets()[0].key).toBe('2024-01-01');
    const prev = previousPeriodRange(current, { compare: true });
    expect(prev.buckets()[0].key).toBe('2023-12-25');
    expect(prev.buckets()).toHaveLength(8);
    expect(current.buckets()[0].key).toBe('2024-01-01');
  });
});

/*
 * posthog/hogql_queries/utils/test/test_query_date_range.py (TestQueryDateRange): now = 2021-08-25T00:00:00Z, team in
 * UTC. `date_from()`/`date_to()` are PostHog's bounds before the start-of-interval snap (Quarry's dateFrom/dateTo,
 * printed by resolved()); `all_values()` lists the interval starts (Quarry's bucket keys).
 */
describe('test_query_date_range.py (now 2021-08-25T00:00Z, UTC)', () => {
  const NOW_2021 = new Date('2021-08-25T00:00:00Z');
  const q = (dr: DateRangeInput, interval: IntervalType, week = 0) => range(dr, interval, { now: NOW_2021, week });
  const bounds = (r: QueryDateRange) => [r.resolved().date_from, r.resolved().date_to];

  it('test_parsed_date: -48h by day runs from the start of the day 48 hours ago to the end of today', () => {
    expect(bounds(q({ date_from: '-48h' }, 'day'))).toEqual(['2021-08-23T00:00:00Z', '2021-08-25T23:59:59.999999Z']);
  });

  it('test_parsed_date_hour: -48h by hour runs to the end of the current hour (the last hour is included)', () => {
    expect(bounds(q({ date_from: '-48h' }, 'hour'))).toEqual(['2021-08-23T00:00:00Z', '2021-08-25T00:59:59.999999Z']);
  });

  it('test_parsed_date_middle_of_hour: absolute datetimes by hour are kept as given', () => {
    const r = q({ date_from: '2021-08-23 05:00:00', date_to: '2021-08-23 05:00:00' }, 'hour');
    expect(bounds(r)).toEqual(['2021-08-23T05:00:00Z', '2021-08-23T05:00:00Z']);
    expect(r.buckets().map((b) => b.key)).toEqual(['2021-08-23 05:00:00']);
  });

  it('test_parsed_date_week: -7d by week starts on the day itself (not the start of its week)', () => {
    const r = q({ date_from: '-7d' }, 'week');
    expect(bounds(r)).toEqual(['2021-08-18T00:00:00Z', '2021-08-25T23:59:59.999999Z']);
    expect(r.fromSql()).toBe('2021-08-18 00:00:00');
  });

  it.each<[string, DateRangeInput, IntervalType, number, string[]]>([
    ['-20h by day', { date_from: '-20h' }, 'day', 0, ['2021-08-24', '2021-08-25']],
    ['-20d by week (Sunday weeks)', { date_from: '-20d' }, 'week', 0, ['2021-08-01', '2021-08-08', '2021-08-15', '2021-08-22']],
    ['-20d by week (Monday weeks)', { date_from: '-20d' }, 'week', 1, ['2021-08-02', '2021-08-09', '2021-08-16', '2021-08-23']],
    ['-50d by month', { date_from: '-50d' }, 'month', 0, ['2021-07-01', '2021-08-01']],
    ['-3h by hour', { date_from: '-3h' }, 'hour', 0, ['2021-08-24 21:00:00', '2021-08-24 22:00:00', '2021-08-24 23:00:00', '2021-08-25 00:00:00']],
    ['-3M by minute', { date_from: '-3M' }, 'minute', 0, ['2021-08-24 23:57:00', '2021-08-24 23:58:00', '2021-08-24 23:59:00', '2021-08-25 00:00:00']],
  ])('test_all_values: %s', (_n, dr, interval, week, keys) => {
    expect(q(dr, interval, week).buckets().map((b) => b.key)).toEqual(keys);
  });

  it.each<[string, string]>([
    ['-20d', '2021-08-05T00:00:00Z'],
    ['-20w', '2021-04-07T00:00:00Z'],
    ['-20m', '2019-12-25T00:00:00Z'],
    ['-2q', '2021-02-24T00:00:00Z'], // q = 13 weeks (get_delta_mapping_for): 26 weeks back
    ['-20y', '2001-08-25T00:00:00Z'],
    ['-1mStart', '2021-07-01T00:00:00Z'],
    ['-1yStart', '2020-01-01T00:00:00Z'],
  ])('relative date_from %s by day', (date_from, from) => {
    expect(q({ date_from }, 'day').resolved().date_from).toBe(from);
  });

  // date_to is parsed with always_truncate (an `h` offset to the top of its hour), then extended to the end of its hour
  it('-3h .. -1h by hour: from 21:00 to the end of the 23:00 hour, 3 buckets', () => {
    const r = q({ date_from: '-3h', date_to: '-1h' }, 'hour');
    expect(bounds(r)).toEqual(['2021-08-24T21:00:00Z', '2021-08-24T23:59:59.999999Z']);
    expect(r.buckets().map((b) => b.key)).toEqual(['2021-08-24 21:00:00', '2021-08-24 22:00:00', '2021-08-24 23:00:00']);
  });

  it('no dateRange by hour: 00:00 seven days ago (DEFAULT_DATE_FROM_DAYS) to the end of the current hour', () => {
    const r = q({}, 'hour');
    expect(bounds(r)).toEqual(['2021-08-18T00:00:00Z', '2021-08-25T00:59:59.999999Z']);
    expect(r.buckets()).toHaveLength(7 * 24 + 1);
  });

  it('yStart by month: January to the current month; -1m by month: the WHERE starts at the first month’s start', () => {
    expect(q({ date_from: 'yStart' }, 'month').buckets().map((b) => b.key)).toEqual(
      ['01', '02', '03', '04', '05', '06', '07', '08'].map((m) => `2021-${m}-01`),
    );
    const r = q({ date_from: '-1m' }, 'month');
    expect(r.resolved().date_from).toBe('2021-07-25T00:00:00Z');
    expect(r.fromSql()).toBe('2021-07-01 00:00:00');
    expect(r.buckets().map((b) => b.key)).toEqual(['2021-07-01', '2021-08-01']);
  });

  it('-1h by minute: not truncated; date_to is the end of the current minute', () => {
    expect(bounds(q({ date_from: '-1h' }, 'minute'))).toEqual(['2021-08-24T23:00:00Z', '2021-08-25T00:00:59.999999Z']);
    expect(q({ date_from: '-1h' }, 'minute').buckets()).toHaveLength(61);
  });

  it('explicitDate by hour: both datetimes verbatim (date_to not extended to its hour)', () => {
    const r = q({ date_from: '2021-08-23T05:23:11', date_to: '2021-08-23T10:45:00', explicitDate: true }, 'hour');
    expect(bounds(r)).toEqual(['2021-08-23T05:23:11Z', '2021-08-23T10:45:00Z']);
    expect(r.buckets().map((b) => b.key)).toEqual(['05', '06', '07', '08', '09', '10'].map((h) => `2021-08-23 ${h}:00:00`));
  });

  it('-24h across the end of daylight saving time is wall-clock (Python aware-datetime arithmetic): 12:00 PDT the day before', () => {
    const r = range({ date_from: '-24h' }, 'hour', { now: new Date('2020-11-01T20:00:00Z'), tz: 'US/Pacific' });
    expect(r.resolved().date_from).toBe('2020-10-31T12:00:00-07:00');
  });

  it('date_to of a relative end of month (-1mEnd) by day is the end of that day', () => {
    expect(bounds(q({ date_from: '-1mStart', date_to: '-1mEnd' }, 'day'))).toEqual(['2021-07-01T00:00:00Z', '2021-07-31T23:59:59.999999Z']);
  });

  it('explicitDate: absolute datetimes verbatim, by day too', () => {
    const r = q({ date_from: '2021-08-23T05:23:11', date_to: '2021-08-24T18:11:00', explicitDate: true }, 'day');
    expect(bounds(r)).toEqual(['2021-08-23T05:23:11Z', '2021-08-24T18:11:00Z']);
    expect(r.buckets().map((b) => b.key)).toEqual(['2021-08-23', '2021-08-24']);
  });

  it('a project timezone: relative dates are local days, offsets printed (America/Los_Angeles, -07:00 in August)', () => {
    const r = range({ date_from: '-1dStart', date_to: '-1dEnd' }, 'day', { now: NOW_2021, tz: 'America/Los_Angeles' });
    // 2021-08-25T00:00Z is Aug 24 17:00 local: yesterday is Aug 23
    expect(bounds(r)).toEqual(['2021-08-23T00:00:00-07:00', '2021-08-23T23:59:59.999999-07:00']);
  });

  it('an absolute date with an offset is moved to the project timezone before the day is taken (Asia/Tokyo)', () => {
    const r = range({ date_from: '2021-08-23T20:00:00Z', date_to: '2021-08-24T20:00:00Z' }, 'day', { now: NOW_2021, tz: 'Asia/Tokyo' });
    expect(bounds(r)).toEqual(['2021-08-24T00:00:00+09:00', '2021-08-25T23:59:59.999999+09:00']);
  });
});

describe('test_utils.py TestRelativeDateParse: hours, minutes, weeks and a timezone (frozen at 2020-01-31T12:22:23Z)', () => {
  const NOW_UTC = Date.UTC(2020, 0, 31, 12, 22, 23);
  const iso = (s: string, tz = 'UTC', now = NOW_UTC) => new Date(parseDateString(s, now, tz).value).toISOString().slice(0, 19);
  it('hours are not truncated (always_truncate is off)', () => {
    expect([iso('-24h'), iso('-48h'), iso('-1h')]).toEqual(['2020-01-30T12:22:23', '2020-01-29T12:22:23', '2020-01-31T11:22:23']);
  });
  it('hStart / hEnd', () => {
    expect([iso('-1hStart'), iso('-1hEnd')]).toEqual(['2020-01-31T11:00:00', '2020-01-31T11:59:59']);
  });
  it('days, weeks and minutes keep the time of day', () => {
    expect([iso('-1d'), iso('-1w'), iso('-2w'), iso('-30M')]).toEqual(['2020-01-30T12:22:23', '2020-01-24T12:22:23', '2020-01-17T12:22:23', '2020-01-31T11:52:23']);
  });
  it('dEnd / -1dStart / -1dEnd', () => {
    expect([iso('dEnd'), iso('-1dStart'), iso('-1dEnd')]).toEqual(['2020-01-31T23:59:59', '2020-01-30T00:00:00', '2020-01-30T23:59:59']);
  });
  it('month arithmetic clamps to the end of a shorter month (relativedelta): Mar 31 − 1m = Feb 29 2020', () => {
    expect(iso('-1m', 'UTC', Date.UTC(2020, 2, 31, 10))).toBe('2020-02-29T10:00:00');
    expect(iso('-1y', 'UTC', Date.UTC(2020, 1, 29, 10))).toBe('2019-02-28T10:00:00');
  });
  it('with a timezone (minute interval: no truncation): relative dates from the local now, ISO dates read or converted there', () => {
    // now 2020-01-31T00:00Z = Jan 30 16:00 PST
    const at = (date_from: string) =>
      new QueryDateRange({ dateRange: { date_from }, interval: 'minute', timezone: 'America/Los_Angeles', now: new Date('2020-01-31T00:00:00Z') }).resolved().date_from;
    expect(at('-1d')).toBe('2020-01-29T16:00:00-08:00');
    expect(at('-1h')).toBe('2020-01-30T15:00:00-08:00');
    expect(at('-1w')).toBe('2020-01-23T16:00:00-08:00');
    expect(at('-1m')).toBe('2019-12-30T16:00:00-08:00');
    expect(at('2020-01-15')).toBe('2020-01-15T00:00:00-08:00');
    expect(at('2020-01-15T12:00:00Z')).toBe('2020-01-15T04:00:00-08:00');
    expect(at('2020-01-15T12:00:00+01:00')).toBe('2020-01-15T03:00:00-08:00');
  });

  it('in a timezone "now" is local: dStart in America/Los_Angeles at 2020-01-31T05:00Z is Jan 30', () => {
    // parseDateString takes the local "now"; QueryDateRange converts it (see the timezone test above)
    const r = new QueryDateRange({ dateRange: { date_from: 'dStart' }, interval: 'day', timezone: 'America/Los_Angeles', now: new Date('2020-01-31T05:00:00Z') });
    expect(r.resolved().date_from).toBe('2020-01-30T00:00:00-08:00');
  });
});

/*
 * QueryPreviousPeriodDateRange (posthog/hogql_queries/utils/query_previous_period_date_range.py, get_compare_period_dates
 * in posthog/utils.py) on the test_query_date_range.py inputs: now = 2021-08-25T00:00:00Z, UTC.
 * diff = date_to − date_from; previous from = from − diff aligned (day: 00:00; hour: date_from's hour), previous
 * to = previous from + diff extended to the end of its day/hour.
 */
describe('previous period of the test_query_date_range.py inputs (get_compare_period_dates)', () => {
  const NOW_2021 = new Date('2021-08-25T00:00:00Z');
  const prev = (dr: DateRangeInput, interval: IntervalType) => previousPeriodRange(range(dr, interval, { now: NOW_2021 }), { compare: true }).resolved();
  it.each<[string, DateRangeInput, IntervalType, string, string]>([
    ['-48h by day', { date_from: '-48h' }, 'day', '2021-08-20T00:00:00Z', '2021-08-22T23:59:59.999999Z'],
    ['-48h by hour: date_from’s hour (00:00) of the day before − diff', { date_from: '-48h' }, 'hour', '2021-08-20T00:00:00Z', '2021-08-22T00:59:59.999999Z'],
    // diff 0: the same hour, extended to its end
    ['a one-instant range by hour (05:00 .. 05:00)', { date_from: '2021-08-23 05:00:00', date_to: '2021-08-23 05:00:00' }, 'hour', '2021-08-23T05:00:00Z', '2021-08-23T05:59:59.999999Z'],
    // the week kludge is for day intervals only
    ['-7d by week', { date_from: '-7d' }, 'week', '2021-08-10T00:00:00Z', '2021-08-17T23:59:59.999999Z'],
    // (new_date_to is computed after the kludge: 8 days again, the last one the current period's first, as
    // test_trends.py test_trends_compare_day_interval_relative_range's previous days 2019-12-21 .. 2019-12-28)
    ['-7d by day: the kludge moves the start a day later', { date_from: '-7d' }, 'day', '2021-08-11T00:00:00Z', '2021-08-18T23:59:59.999999Z'],
    ['-7d to -1d by day: a relative date_to, no kludge', { date_from: '-7d', date_to: '-1d' }, 'day', '2021-08-11T00:00:00Z', '2021-08-17T23:59:59.999999Z'],
    ['mStart by day (Aug 1 .. Aug 25): 25 days before', { date_from: 'mStart' }, 'day', '2021-07-07T00:00:00Z', '2021-07-31T23:59:59.999999Z'],
    ['-1mStart .. -1mEnd by month', { date_from: '-1mStart', date_to: '-1mEnd' }, 'month', '2021-05-31T00:00:00Z', '2021-06-30T23:59:59.999999Z'],
  ])('%s', (_n, dr, interval, from, to) => {
    expect(prev(dr, interval)).toEqual({ date_from: from, date_to: to });
  });

  // the test_all_values inputs: the previous period's interval starts (its date_from snapped to its interval)
  it.each<[string, DateRangeInput, IntervalType, string[]]>([
    ['-20h by day (no days offset: no kludge)', { date_from: '-20h' }, 'day', ['2021-08-22', '2021-08-23']],
    ['-20d by week: Thu Jul 15 .. Wed Aug 4, Sunday weeks', { date_from: '-20d' }, 'week', ['2021-07-11', '2021-07-18', '2021-07-25', '2021-08-01']],
    ['-50d by month: May 16 .. Jul 5', { date_from: '-50d' }, 'month', ['2021-05-01', '2021-06-01', '2021-07-01']],
  ])('buckets of %s', (_n, dr, interval, keys) => {
    expect(previousPeriodRange(range(dr, interval, { now: NOW_2021 }), { compare: true }).buckets().map((b) => b.key)).toEqual(keys);
  });
});
