/**
 * TrendsQuery scenarios ported from PostHog's suites, tenth batch (after trends-posthog-compat{,-2,...,-9}.test.ts):
 * `compareFilter.compare_to` in months and years (human-friendly comparison periods: 4 and 52 weeks), `unique_group`
 * math without a group type index, `date_from: "all"` in a project without events, and relative date parsing
 * (posthog/test/test_utils.py). Each test names the PostHog test it follows.
 */
import { createInsightTestDb, ev, type InsightTestDb, useInsightsClock } from '../insights/testing';
import { QueryDateRange, parseDateString } from '../insights/date-range';
import { previousPeriodRange } from '../insights/compare';
import { BREAKDOWN_NULL as NULL_V } from '../insights/breakdown';
import { trendsRunner } from './trends-runner';

let db: InsightTestDb;
const freeze = useInsightsClock();

const P_MAIN = 1; // sign ups around Aug 2021 and Aug 2020 (below)
const P_EMPTY = 2; // no events at all
const P_LA = 3; // pageviews around Aug 23–24 2021 read in America/Los_Angeles (below)
const P_FILTER_GROUPS = 4; // test_trends.py test_breakdown_with_filter_groups

/*
 * P_MAIN, UTC. "sign up" events (one person per distinct id):
 *   current period Mon Aug 23 2021: u1 ($group_0 org:a), u2 (org:a), u3 (no group); Tue Aug 24: u1 (org:b); Wed Aug 25: none
 *   4 weeks before:  Mon Jul 26: u1, u2; Tue Jul 27: u3                    (the -1m period of Aug 23–25)
 *   a calendar month before: Fri Jul 23: 5 × u4                          (not in it)
 *   52 weeks before: Mon Aug 24 2020: u1; Wed Aug 26 2020: u1, u2, u3    (the -1y period of Aug 23–25)
 *   a calendar year before: Sun Aug 23 2020: 4 × u4                      (not in it)
 *   Wed Sep 1 2021: u1 Chrome/Mac × 3, u2 Mac without $browser × 2, u3 without either × 1
 */
beforeAll(async () => {
  db = await createInsightTestDb();
  const su = (d: string, ts: string, p: Record<string, unknown> = {}) => ev('sign up', d, ts, p);
  await db.load(P_MAIN, {
    persons: ['u1', 'u2', 'u3', 'u4'].map((d) => ({ distinct_ids: [d] })),
    events: [
      su('u1', '2021-08-23T10:00:00Z', { $group_0: 'org:a' }),
      su('u2', '2021-08-23T11:00:00Z', { $group_0: 'org:a' }),
      su('u3', '2021-08-23T12:00:00Z'),
      su('u1', '2021-08-24T10:00:00Z', { $group_0: 'org:b' }),
      su('u1', '2021-07-26T10:00:00Z'),
      su('u2', '2021-07-26T11:00:00Z'),
      su('u3', '2021-07-27T10:00:00Z'),
      ...[10, 11, 12, 13, 14].map((h) => su('u4', `2021-07-23T${h}:00:00Z`)),
      su('u1', '2020-08-24T10:00:00Z'),
      ...['u1', 'u2', 'u3'].map((d) => su(d, '2020-08-26T10:00:00Z')),
      ...[10, 11, 12, 13].map((h) => su('u4', `2020-08-23T${h}:00:00Z`)),
      ...[10, 11, 12].map((h) => su('u1', `2021-09-01T${h}:00:00Z`, { $browser: 'Chrome', $os: 'Mac' })),
      ...[10, 11].map((h) => su('u2', `2021-09-01T${h}:30:00Z`, { $os: 'Mac' })),
      su('u3', '2021-09-01T13:00:00Z'),
    ],
  });
  // P_LA: one person's pageviews, UTC instants (local PDT = UTC − 7 h)
  await db.load(P_LA, {
    persons: [{ distinct_ids: ['la'] }],
    events: [
      '2021-08-23T06:59:00Z', // Sun Aug 22 23:59 local
      '2021-08-23T07:00:00Z', // Mon Aug 23 00:00 local
      '2021-08-24T06:30:00Z', // Aug 23 23:30 local
      '2021-08-24T07:30:00Z', // Tue Aug 24 00:30 local
      '2021-08-24T23:30:00Z', // Aug 24 16:30 local
      '2021-08-25T00:30:00Z', // Aug 24 17:30 local (after "now", in the current hour)
      '2021-08-25T07:30:00Z', // Wed Aug 25 00:30 local (tomorrow)
    ].map((ts) => ev('$pageview', 'la', ts)),
  });
  // test_breakdown_with_filter_groups: three sign ups of blabla on Jan 2 2020
  await db.load(P_FILTER_GROUPS, {
    events: [
      ev('sign up', 'blabla', '2020-01-02T12:00:00Z', { key: 'oh', $browser: 'Chrome' }),
      ev('sign up', 'blabla', '2020-01-02T13:00:00Z', { key: 'uh', $browser: 'Mac' }),
      ev('sign up', 'blabla', '2020-01-02T15:00:00Z', { key: 'uh', $browser: 'Chrome' }),
    ],
  });
});

afterAll(async () => {
  await db.close();
});

const trends = (project: number, q: Record<string, unknown>) => db.run(trendsRunner, { kind: 'TrendsQuery', ...q }, project);
const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };
const periods = (r: any) => r.results.map((x: any) => [x.compare_label, x.days, x.data]);

describe('test_query_compare_to_date_range.py (QueryCompareToDateRange, now 2021-08-25T00:00Z, date_from -48h, interval day)', () => {
  const NOW = new Date('2021-08-25T00:00:00Z');
  const current = () => new QueryDateRange({ dateRange: { date_from: '-48h' }, interval: 'day', timezone: 'UTC', now: NOW });
  it.each<[string, string, string, string]>([
    ['test_zero', '-0d', '2021-08-23T00:00:00Z', '2021-08-25T23:59:59.999999Z'],
    ['test_minus_one_day', '-1d', '2021-08-22T00:00:00Z', '2021-08-24T23:59:59.999999Z'],
    ['test_minus_one_week', '-1w', '2021-08-16T00:00:00Z', '2021-08-18T23:59:59.999999Z'],
    // human_friendly_comparison_periods: a month is 4 weeks and a year 52 weeks, so Monday compares with Monday
    ['test_minus_one_month', '-1m', '2021-07-26T00:00:00Z', '2021-07-28T23:59:59.999999Z'],
    ['test_minus_one_year', '-1y', '2020-08-24T00:00:00Z', '2020-08-26T23:59:59.999999Z'],
  ])('%s: compare_to %s', (_name, compare_to, from, to) => {
    const prev = previousPeriodRange(current(), { compare: true, compare_to });
    expect(prev.resolved()).toEqual({ date_from: from, date_to: to });
  });

  // more offsets of get_delta_mapping_for with human_friendly_comparison_periods: 2 months = 8 weeks, a quarter = 13
  // weeks, 2 years = 104 weeks (Monday Aug 26 2019, not Friday Aug 23)
  it.each<[string, string, string]>([
    ['-3d', '2021-08-20T00:00:00Z', '2021-08-22T23:59:59.999999Z'],
    ['-2w', '2021-08-09T00:00:00Z', '2021-08-11T23:59:59.999999Z'],
    ['-2m', '2021-06-28T00:00:00Z', '2021-06-30T23:59:59.999999Z'],
    ['-1q', '2021-05-24T00:00:00Z', '2021-05-26T23:59:59.999999Z'],
    ['-2y', '2019-08-26T00:00:00Z', '2019-08-28T23:59:59.999999Z'],
  ])('compare_to %s', (compare_to, from, to) => {
    expect(previousPeriodRange(current(), { compare: true, compare_to }).resolved()).toEqual({ date_from: from, date_to: to });
  });

  it.each<[string, string, string]>([
    ['-1h', '2021-08-23T23:00:00Z', '2021-08-24T23:59:59.999999Z'],
    ['-1d', '2021-08-23T00:00:00Z', '2021-08-24T00:59:59.999999Z'],
  ])('by hour (-24h: Aug 24 00:00 .. Aug 25 00:59:59.999999), compare_to %s moves both bounds by that much', (compare_to, from, to) => {
    const hourly = new QueryDateRange({ dateRange: { date_from: '-24h' }, interval: 'hour', timezone: 'UTC', now: NOW });
    expect(hourly.resolved()).toEqual({ date_from: '2021-08-24T00:00:00Z', date_to: '2021-08-25T00:59:59.999999Z' });
    const prev = previousPeriodRange(hourly, { compare: true, compare_to });
    expect(prev.resolved()).toEqual({ date_from: from, date_to: to });
    expect(prev.buckets()).toHaveLength(hourly.buckets().length);
  });
});

describe('compare_to in months and years on a trends query (test_trends.py compare, QueryCompareToDateRange)', () => {
  beforeEach(() => freeze('2021-08-25T00:00:00Z'));

  it('compare_to -1m: the days 4 weeks earlier (Mon Jul 26), not a calendar month earlier (Fri Jul 23)', async () => {
    const r = await trends(P_MAIN, { series: [SIGN_UP], dateRange: { date_from: '-48h' }, compareFilter: { compare: true, compare_to: '-1m' } });
    expect(periods(r)).toEqual([
      ['current', ['2021-08-23', '2021-08-24', '2021-08-25'], [3, 1, 0]],
      ['previous', ['2021-07-26', '2021-07-27', '2021-07-28'], [2, 1, 0]],
    ]);
    expect(r.results[1].count).toBe(3);
  });

  it('compare_to -1y: the days 52 weeks earlier (Mon Aug 24 2020), not a calendar year earlier (Sun Aug 23 2020)', async () => {
    const r = await trends(P_MAIN, { series: [SIGN_UP], dateRange: { date_from: '2021-08-23', date_to: '2021-08-25' }, compareFilter: { compare: true, compare_to: '-1y' } });
    expect(periods(r)).toEqual([
      ['current', ['2021-08-23', '2021-08-24', '2021-08-25'], [3, 1, 0]],
      ['previous', ['2020-08-24', '2020-08-25', '2020-08-26'], [1, 0, 3]],
    ]);
  });

  it('compare_to -1m by week: four weeks earlier, so the previous weeks start on Sundays too (Jul 4 .. Jul 25)', async () => {
    const r = await trends(P_MAIN, {
      series: [SIGN_UP],
      interval: 'week',
      dateRange: { date_from: '2021-08-01', date_to: '2021-08-28' },
      compareFilter: { compare: true, compare_to: '-1m' },
    });
    expect(periods(r)).toEqual([
      ['current', ['2021-08-01', '2021-08-08', '2021-08-15', '2021-08-22'], [0, 0, 0, 4]],
      ['previous', ['2021-07-04', '2021-07-11', '2021-07-18', '2021-07-25'], [0, 0, 5, 3]],
    ]);
  });

  it('compare_to -1m as a total value (ActionsTable): the 4-week-earlier period aggregated', async () => {
    const r = await trends(P_MAIN, {
      series: [SIGN_UP],
      dateRange: { date_from: '2021-08-23', date_to: '2021-08-25' },
      trendsFilter: { display: 'ActionsTable' },
      compareFilter: { compare: true, compare_to: '-1m' },
    });
    expect(r.results.map((x: any) => [x.compare_label, x.aggregated_value])).toEqual([
      ['current', 4],
      ['previous', 3],
    ]);
  });
});

describe('aggregation_operations.py select_aggregation: unique_group without math_group_type_index falls through to count()', () => {
  beforeEach(() => freeze('2021-08-26T00:00:00Z'));
  const RANGE = { dateRange: { date_from: '2021-08-23', date_to: '2021-08-25' } };

  it('counts every event (those without $group_0 too); with index 0 it is the distinct groups', async () => {
    const none = await trends(P_MAIN, { ...RANGE, series: [{ ...SIGN_UP, math: 'unique_group' }] });
    expect(none.results[0].data).toEqual([3, 1, 0]);
    expect(none.results[0].action.math).toBe('unique_group');
    const grouped = await trends(P_MAIN, { ...RANGE, series: [{ ...SIGN_UP, math: 'unique_group', math_group_type_index: 0 }] });
    expect(grouped.results[0].data).toEqual([1, 1, 0]);
  });

  it('as a total value: the count of the range', async () => {
    const r = await trends(P_MAIN, { ...RANGE, series: [{ ...SIGN_UP, math: 'unique_group' }], trendsFilter: { display: 'BoldNumber' } });
    expect(r.results[0].aggregated_value).toBe(4);
  });
});

describe('date_from "all" without any event (posthog/queries/util.py get_earliest_timestamp: now − DEFAULT_DATE_FROM_DAYS)', () => {
  beforeEach(() => freeze('2021-08-25T10:00:00Z'));

  it('starts 7 days back: 8 zero days, as the default -7d', async () => {
    const r = await trends(P_EMPTY, { series: [SIGN_UP], dateRange: { date_from: 'all' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].days).toEqual(['2021-08-18', '2021-08-19', '2021-08-20', '2021-08-21', '2021-08-22', '2021-08-23', '2021-08-24', '2021-08-25']);
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(r.resolved_date_range.date_from).toBe('2021-08-18T00:00:00Z');
  });

  // posthog/queries/util.py: get_earliest_timestamp only looks at events after EARLIEST_TIMESTAMP ("2015-01-01"), so an
  // event with a bogus old timestamp (a device clock in 2014) does not stretch "all" back to it
  it('events before 2015 do not move the start: it is the first event after 2015-01-01', async () => {
    const p = await db.project(
      [{ distinct_ids: ['old'] }],
      [ev('sign up', 'old', '2014-06-01T10:00:00Z'), ev('sign up', 'old', '2021-07-10T10:00:00Z'), ev('sign up', 'old', '2021-08-20T10:00:00Z')],
    );
    const r = await trends(p, { series: [SIGN_UP], interval: 'month', dateRange: { date_from: 'all' } });
    expect([r.results[0].days, r.results[0].data]).toEqual([['2021-07-01', '2021-08-01'], [1, 1]]);
    expect(r.resolved_date_range.date_from).toBe('2021-07-10T00:00:00Z');
  });
});

describe('multiple breakdowns with a missing value (reference §1.6 sentinels, §2.3 labels)', () => {
  beforeEach(() => freeze('2021-09-02T00:00:00Z'));

  it('the missing one is the null sentinel inside the array, raw in the label joined with "::"; ranked by total', async () => {
    const r = await trends(P_MAIN, {
      series: [SIGN_UP],
      dateRange: { date_from: '2021-09-01', date_to: '2021-09-01' },
      breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: '$os' }] },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.label, x.data])).toEqual([
      [['Chrome', 'Mac'], 'Chrome::Mac', [3]],
      [[NULL_V, 'Mac'], `${NULL_V}::Mac`, [2]],
      [[NULL_V, NULL_V], `${NULL_V}::${NULL_V}`, [1]],
    ]);
  });
});

describe('test_utils.py TestRelativeDateParse (frozen at 2020-01-31, UTC)', () => {
  const NOW = Date.UTC(2020, 0, 31);
  const day = (s: string) => new Date(parseDateString(s, NOW, 'UTC').value).toISOString().slice(0, 10);
  it.each<[string, string[], string[]]>([
    ['test_day', ['dStart', '-1d', '-2d'], ['2020-01-31', '2020-01-30', '2020-01-29']],
    ['test_month', ['-1m', '-2m', 'mStart', '-1mStart', '-2mStart', '-1mEnd', '-2mEnd'], ['2019-12-31', '2019-11-30', '2020-01-01', '2019-12-01', '2019-11-01', '2019-12-31', '2019-11-30']],
    ['test_year', ['-1y', '-2y', 'yStart', '-1yStart'], ['2019-01-31', '2018-01-31', '2020-01-01', '2019-01-01']],
    ['test_normal_date', ['2019-12-31'], ['2019-12-31']],
  ])('%s', (_name, inputs, expected) => {
    expect(inputs.map(day)).toEqual(expected);
  });

  it('human_friendly_comparison_periods: -1m is 4 weeks back, -1y 52 weeks (insight date ranges keep calendar months)', () => {
    const friendly = (s: string) => new Date(parseDateString(s, NOW, 'UTC', 'compare_to', { humanFriendlyComparisonPeriods: true }).value).toISOString().slice(0, 10);
    expect([friendly('-1m'), friendly('-1y'), friendly('-1w'), friendly('-1d')]).toEqual(['2020-01-03', '2019-02-01', '2020-01-24', '2020-01-30']);
  });
});

/*
 * QueryDateRange in a project timezone through the trends runner (test_query_date_range.py's rules, test_trends.py's
 * relative ranges): relative dates are taken from the local "now" and truncated to local days/hours.
 * now = 2021-08-25T00:00Z = Tue Aug 24 17:00 in America/Los_Angeles.
 */
describe('relative and absolute ranges in America/Los_Angeles (now Aug 24 17:00 local)', () => {
  beforeEach(() => freeze('2021-08-25T00:00:00Z'));
  const LA = { timezone: 'America/Los_Angeles' };
  const PV = { kind: 'EventsNode', event: '$pageview' };
  const la = (q: Record<string, unknown>) => db.run(trendsRunner, { kind: 'TrendsQuery', series: [PV], ...q }, P_LA, LA as any);
  const at = (n: number, hits: Record<number, number>) => Array.from({ length: n }, (_, i) => hits[i] ?? 0);

  it('yesterday (-1dStart .. -1dEnd) by day: local Aug 23, its 00:00 and 23:30', async () => {
    const r = await la({ dateRange: { date_from: '-1dStart', date_to: '-1dEnd' } });
    expect([r.results[0].days, r.results[0].data]).toEqual([['2021-08-23'], [2]]);
    expect(r.resolved_date_range).toEqual({ date_from: '2021-08-23T00:00:00-07:00', date_to: '2021-08-23T23:59:59.999999-07:00' });
  });

  it('today (dStart) by hour: local 00:00 to the end of the current hour (18 hours), the 17:30 event in the last', async () => {
    const r = await la({ interval: 'hour', dateRange: { date_from: 'dStart' } });
    expect(r.results[0].days[0]).toBe('2021-08-24 00:00:00');
    expect(r.results[0].data).toEqual(at(18, { 0: 1, 16: 1, 17: 1 }));
  });

  it('-24h by hour: from the local hour a day ago (Aug 23 17:00), 25 hours', async () => {
    const r = await la({ interval: 'hour', dateRange: { date_from: '-24h' } });
    expect(r.results[0].days[0]).toBe('2021-08-23 17:00:00');
    expect(r.results[0].data).toEqual(at(25, { 6: 1, 7: 1, 23: 1, 24: 1 }));
  });

  it('-1dStart by hour without date_to: from local midnight yesterday to the end of the current hour (42 hours)', async () => {
    const r = await la({ interval: 'hour', dateRange: { date_from: '-1dStart' } });
    expect(r.results[0].days[0]).toBe('2021-08-23 00:00:00');
    expect(r.results[0].data).toEqual(at(42, { 0: 1, 23: 1, 24: 1, 40: 1, 41: 1 }));
  });

  // test_query_date_range.py: date_to is parsed with always_truncate (an `h` offset to the top of its hour), then a
  // relative date_to by hour is extended to the end of that hour — the 16:30 event is in, the 17:30 one out
  it('-8h .. -1h by hour: local 09:00 to the end of the 16:00 hour, 8 buckets', async () => {
    const r = await la({ interval: 'hour', dateRange: { date_from: '-8h', date_to: '-1h' } });
    expect([r.results[0].days[0], r.results[0].days[7]]).toEqual(['2021-08-24 09:00:00', '2021-08-24 16:00:00']);
    expect(r.results[0].data).toEqual(at(8, { 7: 1 }));
    expect(r.resolved_date_range).toEqual({ date_from: '2021-08-24T09:00:00-07:00', date_to: '2021-08-24T16:59:59.999999-07:00' });
  });

  it('-1hStart .. -1hEnd by hour: the previous hour alone (16:00 local), its 16:30 event', async () => {
    const r = await la({ interval: 'hour', dateRange: { date_from: '-1hStart', date_to: '-1hEnd' } });
    expect([r.results[0].days, r.results[0].data]).toEqual([['2021-08-24 16:00:00'], [1]]);
    expect(r.resolved_date_range).toEqual({ date_from: '2021-08-24T16:00:00-07:00', date_to: '2021-08-24T16:59:59.999999-07:00' });
  });

  // the date filter's "Yesterday" (-1dStart .. -1dEnd), whose default interval is hour: dEnd is 23:59:59.999999 already
  it('yesterday by hour: the 24 local hours of Aug 23, with and without compare (the 24 hours of Aug 22 before)', async () => {
    const r = await la({ interval: 'hour', dateRange: { date_from: '-1dStart', date_to: '-1dEnd' } });
    expect([r.results[0].days[0], r.results[0].days[23]]).toEqual(['2021-08-23 00:00:00', '2021-08-23 23:00:00']);
    expect(r.results[0].data).toEqual(at(24, { 0: 1, 23: 1 }));
    expect(r.resolved_date_range).toEqual({ date_from: '2021-08-23T00:00:00-07:00', date_to: '2021-08-23T23:59:59.999999-07:00' });
    const c = await la({ interval: 'hour', dateRange: { date_from: '-1dStart', date_to: '-1dEnd' }, compareFilter: { compare: true } });
    expect(c.results.map((x: any) => [x.compare_label, x.days[0], x.days.length, x.data])).toEqual([
      ['current', '2021-08-23 00:00:00', 24, at(24, { 0: 1, 23: 1 })],
      ['previous', '2021-08-22 00:00:00', 24, at(24, { 23: 1 })],
    ]);
  });

  it('no dateRange by hour: QueryDateRange’s default, local 00:00 seven days ago (Aug 17), to the end of the current hour', async () => {
    const r = await la({ interval: 'hour' });
    expect(r.results[0].days[0]).toBe('2021-08-17 00:00:00');
    expect(r.results[0].data).toEqual(at(7 * 24 + 18, { 143: 1, 144: 1, 167: 1, 168: 1, 184: 1, 185: 1 }));
    expect(r.resolved_date_range).toEqual({ date_from: '2021-08-17T00:00:00-07:00', date_to: '2021-08-24T17:59:59.999999-07:00' });
  });

  it('all by day: from the local day of the earliest event (Aug 22) to today', async () => {
    const r = await la({ dateRange: { date_from: 'all' } });
    expect([r.results[0].days, r.results[0].data]).toEqual([['2021-08-22', '2021-08-23', '2021-08-24'], [1, 2, 3]]);
  });

  it('all by hour: date_from is the earliest event itself (hourly: not truncated to its day), buckets from its hour', async () => {
    const r = await la({ interval: 'hour', dateRange: { date_from: 'all' } });
    expect(r.results[0].days[0]).toBe('2021-08-22 23:00:00');
    expect(r.results[0].data).toEqual(at(43, { 0: 1, 1: 1, 24: 1, 25: 1, 41: 1, 42: 1 }));
    expect(r.resolved_date_range.date_from).toBe('2021-08-22T23:59:00-07:00');
  });

  it('mStart by week: Sunday weeks from Aug 1; the Sunday 23:59 local event is in the week of Aug 22', async () => {
    const r = await la({ interval: 'week', dateRange: { date_from: 'mStart' } });
    expect([r.results[0].days, r.results[0].data]).toEqual([['2021-08-01', '2021-08-08', '2021-08-15', '2021-08-22'], [0, 0, 0, 6]]);
  });

  it('explicitDate: local datetimes verbatim, the upper one inclusive', async () => {
    const q = (date_to: string) => la({ dateRange: { date_from: '2021-08-23T00:00:00', date_to, explicitDate: true } });
    expect((await q('2021-08-23T23:30:00')).results[0].data).toEqual([2]);
    expect((await q('2021-08-23T23:29:59')).results[0].data).toEqual([1]);
  });

  it('an absolute date_from with an offset is read in the project timezone (07:00Z = local midnight Aug 23)', async () => {
    const r = await la({ dateRange: { date_from: '2021-08-23T07:00:00Z', date_to: '2021-08-23T07:00:00Z' } });
    expect([r.results[0].days, r.results[0].data]).toEqual([['2021-08-23'], [2]]);
  });
});

describe('test_trends.py _test_math_property_aggregation: the aggregated value of a property on ActionsTable by week', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));
  const aggregated = async (values: number[], math: string): Promise<number> => {
    const p = await db.project([{ distinct_ids: ['blabla'] }], values.map((v) => ev('sign up', 'blabla', '2020-01-01T00:00:00Z', { some_number: v })));
    const r = await db.run(trendsRunner, { kind: 'TrendsQuery', interval: 'week', trendsFilter: { display: 'ActionsTable' }, series: [{ ...SIGN_UP, math, math_property: 'some_number' }] }, p);
    expect(r.results).toHaveLength(1);
    return r.results[0].aggregated_value;
  };

  it('test_sum/avg/min/max_filtering over 2, 3, 5.5, 7.5: 18, 4.5, 2, 7.5', async () => {
    const values = [2, 3, 5.5, 7.5];
    expect(await aggregated(values, 'sum')).toBe(18);
    expect(await aggregated(values, 'avg')).toBe(4.5);
    expect(await aggregated(values, 'min')).toBe(2);
    expect(await aggregated(values, 'max')).toBe(7.5);
  });

  // quantiles interpolate between the 100 values 101..200 (PostHog: assertAlmostEqual, "clickhouse functions not 100%")
  it.each<[string, number]>([
    ['median', 150.5],
    ['p75', 175.25],
    ['p90', 190.1],
    ['p95', 195.05],
    ['p99', 199.01],
  ])('test_%s_filtering over 101..200: %s', async (math, expected) => {
    expect(await aggregated(Array.from({ length: 100 }, (_, i) => 101 + i), math)).toBeCloseTo(expected, 6);
  });
});

describe('breakdown_normalize_url reads a URL holding "" as "" (non-materialized properties), then normalizes it', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('"" and "//" become "/", a missing or null URL is the null sentinel, last; the same per breakdown of a breakdowns list', async () => {
    const pv = (d: string, p: Record<string, unknown>) => ev('$pageview', d, '2020-01-02T10:00:00Z', p);
    const p = await db.project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }],
      [pv('a', { $current_url: '' }), pv('a', { $current_url: '/' }), pv('a', { $current_url: '//' }), pv('b', { $current_url: 'https://x.com/?' }), pv('b', {}), pv('b', { $current_url: null })],
    );
    const PV = { kind: 'EventsNode', event: '$pageview' };
    const one = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [PV], dateRange: { date_from: '-7d' }, breakdownFilter: { breakdown: '$current_url', breakdown_normalize_url: true } }, p);
    expect(one.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['/', 3],
      ['https://x.com', 1],
      [NULL_V, 2],
    ]);
    const list = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [PV], dateRange: { date_from: '-7d' }, breakdownFilter: { breakdowns: [{ property: '$current_url', normalize_url: true }] } }, p);
    expect(list.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      [['/'], 3],
      [['https://x.com'], 1],
      [[NULL_V], 2],
    ]);
    // without normalize_url, "" is the null sentinel (nullIf(toString(x), ''))
    const plain = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [PV], dateRange: { date_from: '-7d' }, breakdownFilter: { breakdown: '$current_url' } }, p);
    expect(plain.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['/', 1],
      ['//', 1],
      ['https://x.com/?', 1],
      [NULL_V, 3],
    ]);
  });
});

describe('breakdown_limit over active-user math (query_builder.py: Other folds the totals of the values past the limit)', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('dau and weekly_active: Other is the sum of each folded value’s actors (a person in two of them counts twice), by day and as a total value', async () => {
    const pv = (d: string, b: string, ts = '2020-01-02T10:00:00Z') => ev('$pageview', d, ts, { b });
    // a: X twice, Y and Z on Jan 2; c: X on Jan 2, Y on Jan 3
    const p = await db.project([{ distinct_ids: ['a'] }, { distinct_ids: ['c'] }], [pv('a', 'X'), pv('a', 'X'), pv('a', 'Y'), pv('a', 'Z'), pv('c', 'X'), pv('c', 'Y', '2020-01-03T10:00:00Z')]);
    const q = (math: string, display: string) =>
      db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '-3d' }, trendsFilter: { display }, breakdownFilter: { breakdown: 'b', breakdown_limit: 1 }, series: [{ kind: 'EventsNode', event: '$pageview', math }] }, p);
    const OTHER_V = '$$_posthog_breakdown_other_$$';
    // X ties with Y on their totals (2 each) and ranks first by value; Other = Y + Z
    expect((await q('dau', 'ActionsLineGraph')).results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['X', [0, 2, 0, 0]],
      [OTHER_V, [0, 2, 1, 0]],
    ]);
    expect((await q('weekly_active', 'ActionsLineGraph')).results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['X', [0, 2, 2, 2]],
      [OTHER_V, [0, 2, 3, 3]],
    ]);
    for (const math of ['dau', 'weekly_active'])
      expect((await q(math, 'ActionsTable')).results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
        ['X', 2],
        [OTHER_V, 3],
      ]);
  });
});

describe('smoothingIntervals on ActionsLineGraphCumulative (query_builder.py smooths in the inner select; trends_display.py wraps it in a running sum)', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('the running sum of the smoothed counts, not the smoothed running sum', async () => {
    // counts by day Jan 1..4: [1, 3, 0, 1]; smoothed over 2 intervals: [1, 2, 1, 0]
    const p = await db.project([{ distinct_ids: ['a'] }], ['2020-01-01T10:00:00Z', '2020-01-02T10:00:00Z', '2020-01-02T11:00:00Z', '2020-01-02T12:00:00Z', '2020-01-04T10:00:00Z'].map((ts) => ev('$pageview', 'a', ts)));
    const q = (display: string) =>
      db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '-3d' }, trendsFilter: { display, smoothingIntervals: 2 }, series: [{ kind: 'EventsNode', event: '$pageview' }] }, p);
    expect((await q('ActionsLineGraph')).results[0].data).toEqual([1, 2, 1, 0]);
    const cumulative = (await q('ActionsLineGraphCumulative')).results[0];
    expect([cumulative.data, cumulative.count]).toEqual([[1, 3, 4, 4], 4]);
  });
});

describe('test_trends.py: test_breakdown_with_filter_groups', () => {
  beforeEach(() => freeze('2020-01-13T00:00:00Z'));

  it('a global AND group (properties {type: AND, values: [...]}) applies before the breakdown: oh 1, uh 1 (the Mac event left out)', async () => {
    const r = await trends(P_FILTER_GROUPS, {
      series: [{ ...SIGN_UP, name: 'sign up' }],
      dateRange: { date_from: '2020-01-01 00:00:00', date_to: '2020-01-12 00:00:00' },
      breakdownFilter: { breakdown: 'key' },
      properties: { type: 'AND', values: [{ type: 'event', key: '$browser', value: 'Chrome' }] },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['oh', 1],
      ['uh', 1],
    ]);
    expect(r.results[0].days[0]).toBe('2020-01-01');
    expect(r.results[0].data[1]).toBe(1);
  });
});

describe('test_trends.py: test_aggregating_by_group', () => {
  beforeEach(() => freeze('2020-01-13T00:00:00Z'));

  it('unique_group of type 0 counts org:5 and org:6 (2), of type 1 company:10 (1); the events are on Jan 2', async () => {
    const p = await db.project(
      [{ distinct_ids: ['person1'], properties: { key: 'value' } }],
      [
        ev('$pageview', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:5' }),
        ev('$pageview', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:6' }),
        ev('$pageview', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:6', $group_1: 'company:10' }),
      ],
    );
    const run = (index: number) =>
      trends(p, {
        series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_group', math_group_type_index: index }],
        dateRange: { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-12T00:00:00Z' },
      });
    const orgs = await run(0);
    expect(orgs.results[0].count).toBe(2);
    expect(orgs.results[0].data.slice(0, 3)).toEqual([0, 2, 0]);
    expect((await run(1)).results[0].count).toBe(1);
  });
});

describe('test_trends.py: test_no_props and test_trends_math_without_math_property', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('test_no_props: a breakdown over two series in a project without events answers no items, and no error', async () => {
    const r = await trends(P_EMPTY, {
      series: [{ ...SIGN_UP, name: 'sign up' }, { kind: 'EventsNode', event: 'no events' }],
      dateRange: { date_from: '-14d' },
      breakdownFilter: { breakdown: '$some_property' },
    });
    expect(r.results).toEqual([]);
  });

  it.each(['sum', 'avg', 'median', 'p90'])('test_trends_math_without_math_property: math %s without math_property is a 400', async (math) => {
    await expect(trends(P_MAIN, { series: [{ ...SIGN_UP, math }] })).rejects.toMatchObject({ status: 400, attr: 'series__0__math_property' });
  });
});
