/**
 * TrendsQuery scenarios ported from PostHog's own suites (posthog/hogql_queries/insights/trends/test/test_trends.py and
 * test_trends_query_runner.py), through the runner the REST `/query/` endpoint uses. Each test names the PostHog test
 * it follows; datasets mirror their setups (`_create_events`, `_create_test_events`) with `freeze_time` as the clock.
 */
import { createInsightTestDb, ev, type InsightTestDb, eventCountPerActorFixture, activeUsersFixture, useInsightsClock } from '../insights/testing';
import { BREAKDOWN_NULL as NULL_V, BREAKDOWN_OTHER as OTHER } from '../insights/breakdown';
import { trendsRunner } from './trends-runner';

let db: InsightTestDb;
const freeze = useInsightsClock();

// Project ids (one dataset each).
const P_EVENTS = 1; // PostHog's _create_events()
const P_PACIFIC = 2; // test_timezones_daily (US/Pacific)
const P_WEEKLY_TZ = 3; // test_timezones_weekly
const P_RUNNER = 4; // test_trends_query_runner _create_test_events()
const P_BREAKDOWN = 5; // _create_breakdown_events() + value types
const P_MATH = 6; // property math with non-numeric values
const P_MERGE = 7; // persons merged by $identify
const P_HOURLY_TZ = 8; // test_timezones_hourly_relative_from
const P_PROPS = 9; // test_trend_breakdown_user_props_with_filter
const P_PER_ACTOR = 10; // _create_event_count_per_actor_events()
const P_HALF_HOUR_TZ = 11; // a +05:30 project: hours start at :30 UTC
const P_SESSIONS = 12; // test_trends_with_session_property_*
const P_ACTIVE = 13; // _create_active_users_events()
const P_EVENTS_TIME = 14; // _create_events(use_time=True)

beforeAll(async () => {
  db = await createInsightTestDb();
  // _create_events(): one person with distinct ids blabla + anonymous_id.
  await db.load(P_EVENTS, {
    persons: [{ distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val' }, created_at: '2019-12-01T00:00:00Z' }],
    events: [
      ev('sign up', 'blabla', '2019-12-24T00:00:00Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:00:00Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'anonymous_id', '2020-01-01T00:00:00Z', { $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:00:00Z'),
      ev('sign up', 'blabla', '2020-01-02T00:00:00Z', { $some_property: 'other_value', $some_numerical_prop: 80 }),
      ev('no events', 'blabla', '2020-01-02T00:00:00Z'),
      // test_dau_filtering: another person on Jan 2
      ev('sign up', 'someone_else', '2020-01-02T00:00:00Z'),
    ],
  });
  // test_timezones_daily: events at 01:01 UTC = 17:01 the previous day in US/Pacific.
  await db.load(P_PACIFIC, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: [
      ev('sign up', 'blabla', '2020-01-03T01:01:01Z', { $current_url: 'first url', $browser: 'Firefox', $os: 'Mac' }),
      ev('sign up', 'blabla', '2020-01-04T01:01:01Z', { $current_url: 'second url', $browser: 'Firefox', $os: 'Mac' }),
    ],
  });
  // test_timezones_weekly: Saturday 11:01 and Saturday 18:01 in US/Pacific (the second is Sunday in UTC).
  await db.load(P_WEEKLY_TZ, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: [ev('sign up', 'blabla', '2020-01-11T19:01:01Z'), ev('sign up', 'blabla', '2020-01-12T02:01:01Z')],
  });
  // test_trends_query_runner._create_test_events (abridged): p1..p4 with $browser and prop.
  const series = (d: string, event: string, days: number[]) => days.map((day) => ev(event, d, `2020-01-${String(day).padStart(2, '0')}T12:00:00Z`));
  await db.load(P_RUNNER, {
    persons: [
      { distinct_ids: ['p1'], properties: { name: 'p1' } },
      { distinct_ids: ['p2'], properties: { name: 'p2' } },
      { distinct_ids: ['p3'], properties: { name: 'p3' } },
      { distinct_ids: ['p4'], properties: { name: 'p4' } },
    ],
    events: [
      ...series('p1', '$pageview', [11, 12, 13, 14, 15, 16, 17, 18, 19]),
      ...series('p1', '$pageleave', [11, 12, 13]),
      ...series('p2', '$pageview', [9, 12, 13, 15]),
      ...series('p2', '$pageleave', [16]),
      ...series('p3', '$pageview', [12]),
      ...series('p3', '$pageleave', [13]),
      ...series('p4', '$pageview', [15]),
      ...series('p4', '$pageleave', [16]),
    ].map((e) => ({
      ...e,
      properties: { $browser: { p1: 'Chrome', p2: 'Firefox', p3: 'Edge', p4: 'Safari' }[e.distinct_id], prop: { p1: 10, p2: 20, p3: 30, p4: 40 }[e.distinct_id] },
    })),
  });
  // _create_breakdown_events(): 25 numeric values; plus booleans and floats on another event.
  await db.load(P_BREAKDOWN, {
    events: [
      ...Array.from({ length: 25 }, (_, i) => ev('sign up', 'blabla', '2020-01-02T00:00:00Z', { $some_property: i })),
      ev('typed', 'x', '2020-01-02T00:00:00Z', { v: true }),
      ev('typed', 'x', '2020-01-02T00:00:00Z', { v: true }),
      ev('typed', 'x', '2020-01-02T00:00:00Z', { v: false }),
      ev('typed', 'x', '2020-01-02T00:00:00Z', { v: 1.5 }),
      ev('typed', 'x', '2020-01-02T00:00:00Z', { v: null }),
    ],
  });
  // test_sum_filtering / test_avg_filtering_non_number_resiliency
  await db.load(P_MATH, {
    persons: [{ distinct_ids: ['someone_else'], properties: {} }],
    events: [
      ev('sign up', 'someone_else', '2020-01-02T23:59:59Z', { some_number: 2 }),
      ev('sign up', 'someone_else', '2020-01-02T23:59:59Z', { some_number: 'x' }),
      ev('sign up', 'someone_else', '2020-01-02T23:59:59Z', { some_number: null }),
      ev('sign up', 'someone_else', '2020-01-02T23:59:59Z', { some_number: 8 }),
      ev('sign up', 'someone_else', '2020-01-03T10:00:00Z', { some_number: 'x' }),
    ],
  });
  // Two anonymous ids merged into one person by $identify: history counts as one actor afterwards.
  await db.load(P_MERGE, {
    events: [
      ev('$pageview', 'anon-1', '2020-01-01T10:00:00Z', { $browser: 'Chrome' }),
      ev('$pageview', 'anon-2', '2020-01-01T11:00:00Z', { $browser: 'Chrome' }),
      ev('$identify', 'user', '2020-01-02T10:00:00Z', { $anon_distinct_id: 'anon-1', $set: { plan: 'pro' } }),
      ev('$identify', 'user', '2020-01-02T10:00:01Z', { $anon_distinct_id: 'anon-2' }),
      ev('$pageview', 'user', '2020-01-02T12:00:00Z', { $browser: 'Safari' }),
    ],
  });
  // test_timezones_hourly_relative_from: 23:01 Jan 4, 00:01 and 02:01 Jan 5 in US/Pacific.
  await db.load(P_HOURLY_TZ, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: [ev('sign up', 'blabla', '2020-01-05T07:01:01Z'), ev('sign up', 'blabla', '2020-01-05T08:01:01Z'), ev('sign up', 'blabla', '2020-01-05T10:01:01Z')],
  });
  // _create_event_count_per_actor_events()
  await db.load(P_PER_ACTOR, eventCountPerActorFixture());
  await db.load(P_HALF_HOUR_TZ, {
    events: [
      ev('e', 'k', '2020-01-01T09:15:00Z'), // 14:45 IST
      ev('e', 'k', '2020-01-01T09:45:00Z'), // 15:15 IST
      ev('e', 'k', '2020-01-01T10:20:00Z'), // 15:50 IST
      ev('e', 'k', '2020-01-01T18:40:00Z'), // 00:10 IST on Jan 2
    ],
  });
  // test_trends_with_session_property_single_aggregate_math: sessions of 5, 10, 0 and 15 seconds.
  await db.load(P_SESSIONS, {
    persons: [
      { distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val' } },
      { distinct_ids: ['blabla2'], properties: { $some_prop: 'some_val' } },
    ],
    events: [
      ev('sign up before', 'blabla', '2020-01-01T00:06:30Z', { $session_id: 's1' }),
      ev('sign up', 'blabla', '2020-01-01T00:06:34Z', { $session_id: 's1', $browser: 'Chrome' }),
      ev('sign up later', 'blabla', '2020-01-01T00:06:35Z', { $session_id: 's1' }),
      ev('sign up', 'blabla2', '2020-01-01T00:06:35Z', { $session_id: 's2', $browser: 'Firefox' }),
      ev('sign up', 'blabla2', '2020-01-01T00:06:45Z', { $session_id: 's2', $browser: 'Firefox' }),
      ev('sign up', 'blabla', '2020-01-01T00:06:45Z', { $session_id: 's3', $browser: 'Chrome' }),
      ev('sign up', 'blabla', '2020-01-02T00:06:30Z', { $session_id: 's4', $browser: 'Chrome' }),
      ev('sign up', 'blabla', '2020-01-02T00:06:45Z', { $session_id: 's4', $browser: 'Chrome' }),
      ev('sign up', 'blabla', '2020-01-02T00:09:00Z', { $browser: 'Chrome' }), // no session: left out
    ],
  });
  // _create_active_users_events()
  await db.load(P_ACTIVE, activeUsersFixture());
  // _create_events(use_time=True)
  await db.load(P_EVENTS_TIME, {
    persons: [{ distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val' } }],
    events: [
      ev('sign up', 'blabla', '2019-12-24T03:45:34Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:06:34Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'anonymous_id', '2020-01-01T00:06:34Z', { $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:06:34Z'),
      ev('sign up', 'blabla', '2020-01-02T16:34:34Z', { $some_property: 'other_value', $some_numerical_prop: 80 }),
      ev('no events', 'blabla', '2020-01-02T16:34:34Z'),
    ],
  });
  // test_trend_breakdown_user_props_with_filter
  await db.load(P_PROPS, {
    persons: [
      { distinct_ids: ['person1'], properties: { email: 'test@posthog.com' } },
      { distinct_ids: ['person2'], properties: { email: 'test@gmail.com' } },
    ],
    events: [ev('sign up', 'person1', '2020-01-03T10:00:00Z', { key: 'val' }), ev('sign up', 'person2', '2020-01-03T10:00:00Z', { key: 'val' })],
  });
});

afterAll(async () => {
  await db.close();
});

const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };
const NO_EVENTS = { kind: 'EventsNode', event: 'no events' };
const trends = (project: number, q: Record<string, unknown>, settings: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', ...q }, project, settings);

const DAYS_DEC28_JAN4 = ['2019-12-28', '2019-12-29', '2019-12-30', '2019-12-31', '2020-01-01', '2020-01-02', '2020-01-03', '2020-01-04'];

describe('test_trends.py: _create_events, now 2020-01-04T13:00:01Z', () => {
  beforeEach(() => freeze('2020-01-04T13:00:01Z'));

  it('test_trends_per_day: -7d, labels and data per day, one item per series', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP, NO_EVENTS], dateRange: { date_from: '-7d' } });
    expect(r.results).toHaveLength(2);
    const [s, n] = r.results;
    expect(s.label).toBe('sign up');
    expect(s.days).toEqual(DAYS_DEC28_JAN4);
    expect(s.labels).toEqual(['28-Dec-2019', '29-Dec-2019', '30-Dec-2019', '31-Dec-2019', '1-Jan-2020', '2-Jan-2020', '3-Jan-2020', '4-Jan-2020']);
    expect(s.data).toEqual([0, 0, 0, 0, 3, 2, 0, 0]);
    expect(s.count).toBe(5);
    expect(n).toMatchObject({ label: 'no events', data: [0, 0, 0, 0, 0, 1, 0, 0], count: 1 });
    expect(n.action).toMatchObject({ id: 'no events', type: 'events', order: 1, name: 'no events' });
  });

  it('test_trends_per_day_48hours: -48h with a day interval starts at the start of that day', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-48h' }, interval: 'day' });
    expect(r.results[0].days).toEqual(['2020-01-02', '2020-01-03', '2020-01-04']);
    expect(r.results[0].labels[0]).toBe('2-Jan-2020');
    expect(r.results[0].data).toEqual([2, 0, 0]);
  });

  it('test_trends_per_day_cumulative', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-7d' }, trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    expect(r.results[0]).toMatchObject({ label: 'sign up', data: [0, 0, 0, 0, 3, 5, 5, 5], count: 5 });
    expect(r.results[0].labels[4]).toBe('1-Jan-2020');
  });

  it('test_trends_per_day_dau_cumulative: each person once, at their first day (someone_else, a person of its own here, joins on Jan 2)', async () => {
    const r = await trends(P_EVENTS, { series: [{ ...SIGN_UP, math: 'dau' }], dateRange: { date_from: '-7d' }, trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    expect(r.results[0]).toMatchObject({ label: 'sign up', data: [0, 0, 0, 0, 1, 2, 2, 2], count: 2 });
    expect(r.results[0].labels.slice(4, 6)).toEqual(['1-Jan-2020', '2-Jan-2020']);
  });

  it('test_trends_single_aggregate_dau: both distinct ids are one person, whatever the interval', async () => {
    const weekly = await trends(P_EVENTS, { series: [{ ...SIGN_UP, math: 'dau' }], interval: 'week', trendsFilter: { display: 'ActionsTable' } });
    const daily = await trends(P_EVENTS, { series: [{ ...SIGN_UP, math: 'dau' }], interval: 'day', trendsFilter: { display: 'ActionsTable' } });
    expect(weekly.results[0].aggregated_value).toBe(2);
    expect(daily.results[0].aggregated_value).toBe(2);
    expect(daily.results[0]).toMatchObject({ data: [], days: [], count: 0, label: 'sign up' });
  });

  it('test_dau_filtering: distinct persons per day (blabla and anonymous_id are one)', async () => {
    const r = await trends(P_EVENTS, { series: [{ ...SIGN_UP, math: 'dau' }] });
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 1, 2, 0, 0]);
    expect(r.results[0].count).toBe(3);
  });

  it('test_per_entity_filtering: each series has its own properties', async () => {
    const r = await trends(P_EVENTS, {
      dateRange: { date_from: '-7d' },
      series: [
        { ...SIGN_UP, properties: [{ type: 'event', key: '$some_property', value: 'value' }] },
        { ...SIGN_UP, properties: [{ type: 'event', key: '$some_property', value: 'other_value' }] },
      ],
    });
    expect(r.results[0]).toMatchObject({ data: [0, 0, 0, 0, 1, 0, 0, 0], count: 1 });
    expect(r.results[1]).toMatchObject({ data: [0, 0, 0, 0, 0, 1, 0, 0], count: 1 });
  });

  it('test_property_filtering: global property filter', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], properties: [{ type: 'event', key: '$some_property', value: 'value' }] });
    expect(r.results[0].data[4]).toBe(1);
    expect(r.results[0].data[5]).toBe(0);
  });

  it('test_property_filtering: is_not includes events without the property (nullable !=)', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], properties: [{ type: 'event', key: '$some_property', operator: 'is_not', value: 'value' }] });
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 2, 2, 0, 0]);
  });

  it('test_trends_breakdown_cumulative (dau): each person once, from their first bucket, per breakdown value', async () => {
    const r = await trends(P_EVENTS, {
      series: [{ ...SIGN_UP, math: 'dau' }],
      breakdownFilter: { breakdown: '$some_property' },
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
    });
    const byValue = Object.fromEntries(r.results.map((x: any) => [x.breakdown_value, x.data]));
    expect(byValue).toEqual({
      [NULL_V]: [0, 0, 0, 0, 1, 2, 2, 2],
      value: [0, 0, 0, 0, 1, 1, 1, 1],
      other_value: [0, 0, 0, 0, 0, 1, 1, 1],
    });
    for (const x of r.results) expect(x.count).toBe(x.data[x.data.length - 1]);
    expect(r.results.map((x: any) => x.label)).toEqual(r.results.map((x: any) => x.breakdown_value));
  });

  it('test_dau_with_breakdown_filtering: dau per breakdown value; label is the value alone for one series', async () => {
    const r = await trends(P_EVENTS, { series: [{ ...SIGN_UP, math: 'dau' }], breakdownFilter: { breakdown: '$some_property' } });
    const byValue = Object.fromEntries(r.results.map((x: any) => [x.label, x.data]));
    expect(byValue.other_value).toEqual([0, 0, 0, 0, 0, 1, 0, 0]);
    expect(byValue.value).toEqual([0, 0, 0, 0, 1, 0, 0, 0]);
    expect(byValue[NULL_V]).toEqual([0, 0, 0, 0, 1, 1, 0, 0]);
  });

  it('test_trends_compare_day_interval_relative_range: previous period of -7d is the 8 days before, shifted +1 day', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], compareFilter: { compare: true } });
    expect(r.results).toHaveLength(2);
    const [cur, prev] = r.results;
    expect(cur).toMatchObject({ label: 'sign up', compare: true, compare_label: 'current', days: DAYS_DEC28_JAN4 });
    expect(cur.data[4]).toBe(3);
    expect(cur.data[5]).toBe(2);
    expect(prev).toMatchObject({ label: 'sign up', compare: true, compare_label: 'previous' });
    expect(prev.days).toEqual(['2019-12-21', '2019-12-22', '2019-12-23', '2019-12-24', '2019-12-25', '2019-12-26', '2019-12-27', '2019-12-28']);
    expect(prev.data).toEqual([0, 0, 0, 1, 0, 0, 0, 0]);
    // compared items are labelled by position (PostHog: labels[4] == "day 4", labels[5] == "day 5")
    expect([cur.labels[4], cur.labels[5], prev.labels[4]]).toEqual(['day 4', 'day 5', 'day 4']);
    expect(cur.labels).toHaveLength(8);
    // compare: false is the same as no compare
    const off = await trends(P_EVENTS, { series: [SIGN_UP], compareFilter: { compare: false } });
    expect(off.results).toHaveLength(1);
    expect(off.results[0].compare).toBeUndefined();
    expect(off.results[0].labels[4]).toBe('1-Jan-2020');
  });

  it('test_trends_for_non_existing_event: all-zero series, not an empty list', async () => {
    const r = await trends(P_EVENTS, { series: [{ kind: 'EventsNode', event: 'does not exist' }] });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ data: [0, 0, 0, 0, 0, 0, 0, 0], count: 0, label: 'does not exist' });
  });

  it('test_response_empty_if_no_events (breakdown): no values → results []', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '2012-12-12', date_to: '2012-12-13' }, breakdownFilter: { breakdown: '$some_property' } });
    expect(r.results).toEqual([]);
  });

  it('date ranges: -1mStart/-1mEnd is last calendar month; mStart is this month so far; yStart', async () => {
    const last = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-1mStart', date_to: '-1mEnd' } });
    expect(last.results[0].days).toHaveLength(31);
    expect(last.results[0].days[0]).toBe('2019-12-01');
    expect(last.results[0].days[30]).toBe('2019-12-31');
    expect(last.results[0].count).toBe(1);
    const month = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: 'mStart' } });
    expect(month.results[0].days).toEqual(['2020-01-01', '2020-01-02', '2020-01-03', '2020-01-04']);
    expect(month.results[0].data).toEqual([3, 2, 0, 0]);
    const year = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: 'yStart' }, interval: 'month' });
    expect(year.results[0]).toMatchObject({ days: ['2020-01-01'], labels: ['Jan 2020'], data: [5] });
  });

  it('date ranges: dStart with an hour interval lists today up to the current hour', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: 'dStart' }, interval: 'hour' });
    expect(r.results[0].days).toHaveLength(14);
    expect(r.results[0].days[0]).toBe('2020-01-04 00:00:00');
    expect(r.results[0].days[13]).toBe('2020-01-04 13:00:00');
  });

  it('date ranges: an absolute datetime date_from snaps to its day; explicitDate keeps the time', async () => {
    const snapped = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '2020-01-01T12:00:00', date_to: '2020-01-02' } });
    expect(snapped.results[0]).toMatchObject({ days: ['2020-01-01', '2020-01-02'], data: [3, 2] });
    const explicit = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '2020-01-01T12:00:00', date_to: '2020-01-02T12:00:00', explicitDate: true } });
    expect(explicit.results[0]).toMatchObject({ days: ['2020-01-01', '2020-01-02'], data: [0, 2] });
  });

  it('month interval with -30d: buckets from the start of the first month', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-30d' }, interval: 'month' });
    expect(r.results[0]).toMatchObject({ days: ['2019-12-01', '2020-01-01'], labels: ['Dec 2019', 'Jan 2020'], data: [1, 5] });
  });
});

describe('test_trends.py: timezones', () => {
  it('test_timezones_daily (US/Pacific): volume, dau, weekly_active and breakdown bucket by local day', async () => {
    freeze('2020-01-05T13:01:01Z');
    const tz = { timezone: 'US/Pacific' };
    const labels = ['29-Dec-2019', '30-Dec-2019', '31-Dec-2019', '1-Jan-2020', '2-Jan-2020', '3-Jan-2020', '4-Jan-2020', '5-Jan-2020'];
    const volume = await trends(P_PACIFIC, { series: [SIGN_UP], dateRange: { date_from: '-7d' } }, tz);
    expect(volume.results[0].data).toEqual([0, 0, 0, 0, 1, 1, 0, 0]);
    expect(volume.results[0].labels).toEqual(labels);
    const dau = await trends(P_PACIFIC, { series: [{ ...SIGN_UP, math: 'dau' }], dateRange: { date_from: '-14d' } }, tz);
    expect(dau.results[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0]);
    expect(dau.results[0].labels[0]).toBe('22-Dec-2019');
    const wau = await trends(P_PACIFIC, { series: [{ ...SIGN_UP, math: 'weekly_active' }], dateRange: { date_from: '-7d' } }, tz);
    expect(wau.results[0].data).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    const bd = await trends(P_PACIFIC, { series: [SIGN_UP], dateRange: { date_from: '-7d' }, breakdownFilter: { breakdown: '$os' } }, tz);
    expect(bd.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([['Mac', [0, 0, 0, 0, 1, 1, 0, 0]]]);
    const bdDau = await trends(P_PACIFIC, { series: [{ ...SIGN_UP, math: 'dau' }], dateRange: { date_from: '-7d' }, breakdownFilter: { breakdown: '$os' } }, tz);
    expect(bdDau.results[0].data).toEqual([0, 0, 0, 0, 1, 1, 0, 0]);
    expect(volume.resolved_date_range).toEqual({ date_from: '2019-12-29T00:00:00-08:00', date_to: '2020-01-05T23:59:59.999999-08:00' });
  });

  it('test_timezones_hourly_relative_from (US/Pacific): dStart hourly is the local day so far', async () => {
    freeze('2020-01-05T13:01:01Z'); // 05:01 local
    const r = await trends(P_HOURLY_TZ, { series: [SIGN_UP], dateRange: { date_from: 'dStart' }, interval: 'hour' }, { timezone: 'US/Pacific' });
    expect(r.results[0].days).toEqual(['2020-01-05 00:00:00', '2020-01-05 01:00:00', '2020-01-05 02:00:00', '2020-01-05 03:00:00', '2020-01-05 04:00:00', '2020-01-05 05:00:00']);
    expect(r.results[0].data).toEqual([1, 0, 1, 0, 0, 0]);
    expect(r.results[0].labels[0]).toBe('5-Jan 00:00');
  });

  it.each<[number, string[], number[]]>([
    [0, ['2020-01-05', '2020-01-12', '2020-01-19'], [2, 0, 0]],
    [1, ['2020-01-06', '2020-01-13', '2020-01-20'], [2, 0, 0]],
  ])('test_timezones_weekly (US/Pacific, week_start_day %d): both Saturday events fall in one week', async (week_start_day, days, data) => {
    freeze('2020-01-22T01:01:01Z');
    const r = await trends(P_WEEKLY_TZ, { series: [SIGN_UP], dateRange: { date_from: '-14d' }, interval: 'week' }, { timezone: 'US/Pacific', week_start_day });
    expect(r.results[0].days).toEqual(days);
    expect(r.results[0].data).toEqual(data);
    const utc = await trends(P_WEEKLY_TZ, { series: [SIGN_UP], dateRange: { date_from: '-14d' }, interval: 'week' }, { timezone: 'UTC', week_start_day });
    expect(utc.results[0].data).toEqual(week_start_day === 0 ? [1, 1, 0] : [2, 0, 0]);
  });
});

describe('test_trends_query_runner.py: _create_test_events', () => {
  beforeEach(() => freeze('2020-01-21T00:00:00Z'));
  const range = { date_from: '2020-01-09', date_to: '2020-01-20' };
  const PAGEVIEW = { kind: 'EventsNode', event: '$pageview' };
  const PAGELEAVE = { kind: 'EventsNode', event: '$pageleave' };
  const DAYS = ['2020-01-09', '2020-01-10', '2020-01-11', '2020-01-12', '2020-01-13', '2020-01-14', '2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19', '2020-01-20'];

  it('test_trends_query_label / days / labels for an absolute range', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW], dateRange: range });
    expect(r.results[0].days).toEqual(DAYS);
    expect(r.results[0].labels).toEqual(DAYS.map((d) => `${Number(d.slice(8))}-Jan-2020`));
    expect(r.results[0].data).toEqual([1, 0, 1, 3, 2, 1, 3, 1, 1, 1, 1, 0]);
    expect(r.results[0].count).toBe(15);
    expect(r.results[0].label).toBe('$pageview');
  });

  it('test_trends_query_formula', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW, PAGELEAVE], dateRange: range, trendsFilter: { formula: 'A+B' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ label: 'Formula (A+B)', count: 21, days: DAYS, action: null });
    expect(r.results[0].data).toEqual([1, 0, 2, 4, 4, 1, 3, 3, 1, 1, 1, 0]);
  });

  it('test_trends_query_formula_breakdown_no_data → []', async () => {
    const r = await trends(P_RUNNER, {
      series: [{ kind: 'EventsNode', event: '$pageviewxxx' }, { kind: 'EventsNode', event: '$pageleavexxx' }],
      dateRange: range,
      trendsFilter: { formula: 'A+B' },
      breakdownFilter: { breakdown_type: 'person', breakdown: '$browserxxx' },
    });
    expect(r.results).toEqual([]);
  });

  it('test_trends_query_formula_aggregate (pie): aggregated_value', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW, PAGELEAVE], dateRange: range, trendsFilter: { formula: 'A+B', display: 'ActionsPie' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ aggregated_value: 21, data: [], count: 0, label: 'Formula (A+B)', action: null });
  });

  it('test_trends_query_formula_with_breakdown: label "Formula (…)", per value, ordered by total', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW, PAGELEAVE], dateRange: range, trendsFilter: { formula: 'A+B' }, breakdownFilter: { breakdown: '$browser' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count, x.label])).toEqual([
      ['Chrome', 12, 'Formula (A+B)'],
      ['Firefox', 5, 'Formula (A+B)'],
      ['Edge', 2, 'Formula (A+B)'],
      ['Safari', 2, 'Formula (A+B)'],
    ]);
  });

  it('test_trends_query_compare: an absolute 5-day range compares with the 5 days before', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW], dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' }, compareFilter: { compare: true } });
    expect(r.results).toHaveLength(2);
    expect(r.results.map((x: any) => [x.compare, x.compare_label])).toEqual([
      [true, 'current'],
      [true, 'previous'],
    ]);
    expect(r.results[0].days).toEqual(['2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19']);
    expect(r.results[1].days).toEqual(['2020-01-10', '2020-01-11', '2020-01-12', '2020-01-13', '2020-01-14']);
    expect(r.results[0].data).toEqual([3, 1, 1, 1, 1]);
    expect(r.results[1].data).toEqual([0, 1, 3, 2, 1]);
  });

  it('test_trends_query_formula_with_compare: formula per period, both periods the same length', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW, PAGELEAVE], dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' }, trendsFilter: { formula: 'A+B' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.count, x.days.length])).toEqual([
      ['current', 9, 5],
      ['previous', 11, 5],
    ]);
    expect(r.results.every((x: any) => x.label === 'Formula (A+B)' && x.compare === true)).toBe(true);
  });

  it('test_trends_breakdowns with limit: Other item, hasMore; several series labels', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW], dateRange: range, breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['Chrome', 9],
      ['Firefox', 4],
      [OTHER, 2],
    ]);
    expect(r.hasMore).toBe(true);
    const two = await trends(P_RUNNER, { series: [PAGEVIEW, PAGELEAVE], dateRange: range, breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } });
    expect(two.results.map((x: any) => x.label)).toEqual(['$pageview - Chrome', `$pageview - ${OTHER}`, '$pageleave - Chrome', `$pageleave - ${OTHER}`]);
  });

  it('test_trends_with_hogql_math: an aggregate of a raw property', async () => {
    const r = await trends(P_RUNNER, { series: [{ ...PAGEVIEW, math: 'hogql', math_hogql: 'avg(properties.prop)' }], dateRange: { date_from: '2020-01-12', date_to: '2020-01-13' } });
    // Jan 12: p1 10, p2 20, p3 30; Jan 13: p1 10, p2 20
    expect(r.results[0].data).toEqual([20, 15]);
    const total = await trends(P_RUNNER, { series: [{ ...PAGEVIEW, math: 'hogql', math_hogql: 'sum(properties.prop) / 10' }], dateRange: range, trendsFilter: { display: 'BoldNumber' } });
    expect(total.results[0].aggregated_value).toBe(24);
  });

  it('test_trends_display_aggregate: BoldNumber over an absolute range', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW], dateRange: range, trendsFilter: { display: 'BoldNumber' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ data: [], days: [], count: 0, aggregated_value: 15 });
  });

  it('total value with a breakdown limit: Other aggregated, hasMore', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW], dateRange: range, breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 }, trendsFilter: { display: 'ActionsPie' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['Chrome', 9],
      [OTHER, 6],
    ]);
    expect(r.hasMore).toBe(true);
  });

  it('total value with compare: previous aggregated_value', async () => {
    const r = await trends(P_RUNNER, { series: [PAGEVIEW], dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' }, trendsFilter: { display: 'BoldNumber' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.aggregated_value])).toEqual([
      ['current', 7],
      ['previous', 7],
    ]);
  });

  it('test_breakdown_values_limit per series / multiple breakdowns', async () => {
    const r = await trends(P_RUNNER, {
      series: [PAGEVIEW],
      dateRange: range,
      breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: 'prop' }] },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.label])).toEqual([
      [['Chrome', '10'], 'Chrome::10'],
      [['Firefox', '20'], 'Firefox::20'],
      [['Edge', '30'], 'Edge::30'],
      [['Safari', '40'], 'Safari::40'],
    ]);
  });

  it('weekly_active: window of 7 days ending with each day', async () => {
    const r = await trends(P_RUNNER, { series: [{ ...PAGEVIEW, math: 'weekly_active' }], dateRange: { date_from: '2020-01-12', date_to: '2020-01-20' } });
    // p1 every day 11..19; p2 on 9, 12, 13, 15; p3 on 12; p4 on 15
    expect(r.results[0].data).toEqual([3, 3, 3, 4, 4, 4, 4, 3, 3]);
  });

  it('monthly_active at week interval stays MAU (converted only at month intervals)', async () => {
    const r = await trends(P_RUNNER, { series: [{ ...PAGEVIEW, math: 'monthly_active' }], dateRange: { date_from: '2020-01-12', date_to: '2020-01-20' }, interval: 'week' });
    expect(r.results[0].days).toEqual(['2020-01-12', '2020-01-19']);
    expect(r.results[0].data).toEqual([3, 4]);
  });
});

describe('test_trends.py: breakdown values', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('test_breakdown_filtering_limit: numeric values become strings; 25 values fit the default limit', async () => {
    const r = await trends(P_BREAKDOWN, { series: [SIGN_UP], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown: '$some_property' } });
    expect(r.results).toHaveLength(25);
    expect(r.hasMore).toBeUndefined();
    // ties (one event each) ordered by value as text
    expect(r.results.slice(0, 3).map((x: any) => x.breakdown_value)).toEqual(['0', '1', '10']);
    expect(r.results.every((x: any) => typeof x.breakdown_value === 'string' && x.count === 1)).toBe(true);
    const limited = await trends(P_BREAKDOWN, { series: [SIGN_UP], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown: '$some_property', breakdown_limit: 24 } });
    expect(limited.results).toHaveLength(25);
    expect(limited.results[24]).toMatchObject({ breakdown_value: OTHER, count: 1 });
    expect(limited.hasMore).toBe(true);
  });

  it('booleans and floats as breakdown values: "true", "false", "1.5"; null → null sentinel', async () => {
    const r = await trends(P_BREAKDOWN, { series: [{ kind: 'EventsNode', event: 'typed' }], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown: 'v' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['true', 2],
      ['1.5', 1],
      ['false', 1],
      [NULL_V, 1],
    ]);
  });

  it('hogql breakdown of a number: the value as text', async () => {
    const r = await trends(P_BREAKDOWN, {
      series: [{ kind: 'EventsNode', event: 'sign up' }],
      dateRange: { date_from: '-14d' },
      breakdownFilter: { breakdown: 'toInt(properties.$some_property) % 2', breakdown_type: 'hogql' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['0', 13],
      ['1', 12],
    ]);
  });
});

describe('test_trends.py: property math', () => {
  beforeEach(() => freeze('2020-01-04T13:00:01Z'));

  it.each<[string, number]>([
    ['sum', 10],
    ['avg', 5],
    ['min', 2],
    ['max', 8],
    ['median', 5],
  ])('test_%s_filtering (non-numeric and null values are ignored)', async (math, expected) => {
    const r = await trends(P_MATH, { series: [{ ...SIGN_UP, math, math_property: 'some_number' }] });
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 0, expected, 0, 0]);
    // a bucket where every value is non-numeric gives 0, not null
    expect(r.results[0].data[6]).toBe(0);
  });

  it('test_trends_single_aggregate_math: property math as a total value', async () => {
    const r = await trends(P_MATH, { series: [{ ...SIGN_UP, math: 'avg', math_property: 'some_number' }], trendsFilter: { display: 'ActionsTable' }, interval: 'week' });
    expect(r.results[0].aggregated_value).toBe(5);
  });
});

describe('persons: merges', () => {
  beforeEach(() => freeze('2020-01-03T12:00:00Z'));

  it('dau counts the merged person once for events sent before the merge', async () => {
    const r = await trends(P_MERGE, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' } });
    expect(r.results[0].data).toEqual([1, 1]);
    const total = await trends(P_MERGE, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' }, trendsFilter: { display: 'BoldNumber' } });
    expect(total.results[0].aggregated_value).toBe(1);
  });

  it('weekly_active and cumulative dau count the merged person once', async () => {
    const wau = await trends(P_MERGE, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'weekly_active' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' } });
    expect(wau.results[0].data).toEqual([1, 1]);
    const cum = await trends(P_MERGE, {
      series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' },
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
    });
    expect(cum.results[0].data).toEqual([1, 1]);
  });

  it('first_time_for_user: the merged person is counted once, at their first event', async () => {
    const r = await trends(P_MERGE, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'first_time_for_user' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' } });
    expect(r.results[0].data).toEqual([1, 0]);
  });
});

describe('test_trend_breakdown_user_props_with_filter', () => {
  it('person breakdown with a not_icontains person filter and an event filter', async () => {
    freeze('2020-01-04T13:00:01Z');
    const r = await trends(P_PROPS, {
      series: [SIGN_UP],
      dateRange: { date_from: '-14d' },
      breakdownFilter: { breakdown: 'email', breakdown_type: 'person' },
      properties: [
        { key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' },
        { key: 'key', value: 'val', type: 'event' },
      ],
    });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].breakdown_value).toBe('test@gmail.com');
  });
});

describe('compare: previous period bounds (get_compare_period_dates)', () => {
  beforeEach(() => freeze('2020-01-04T13:00:01Z'));

  it('-10d (not a multiple of 7): previous period has as many days as the current one', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-10d' }, compareFilter: { compare: true } });
    expect(r.results[0].days).toHaveLength(11);
    expect(r.results[1].days).toHaveLength(11);
    expect(r.results[1].days[0]).toBe('2019-12-14');
    expect(r.results[1].days[10]).toBe('2019-12-24');
  });

  it('-24h hourly: previous period starts at the same hour one day earlier, 25 hours', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-24h' }, interval: 'hour', compareFilter: { compare: true } });
    expect(r.results[0].days).toHaveLength(25);
    expect(r.results[1].days).toHaveLength(25);
    expect(r.results[1].days[0]).toBe('2020-01-02 13:00:00');
    expect(r.results[1].days[24]).toBe('2020-01-03 13:00:00');
  });

  it('compare_to -1w: previous days shift by one week', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '2020-01-01', date_to: '2020-01-03' }, compareFilter: { compare: true, compare_to: '-1w' } });
    expect(r.results[1].days).toEqual(['2019-12-25', '2019-12-26', '2019-12-27']);
  });
});

describe('test_trends.py: count per actor (_create_event_count_per_actor_events)', () => {
  beforeEach(() => freeze('2020-01-08T00:00:00Z'));
  const VV = { kind: 'EventsNode', event: 'viewed video' };
  const range = { date_from: '2020-01-01', date_to: '2020-01-07' };

  it('test_trends_count_per_user_average_daily', async () => {
    const r = await trends(P_PER_ACTOR, { series: [{ ...VV, math: 'avg_count_per_actor' }], dateRange: range });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].days).toEqual(['2020-01-01', '2020-01-02', '2020-01-03', '2020-01-04', '2020-01-05', '2020-01-06', '2020-01-07']);
    expect(r.results[0].data).toEqual([1.5, 0, 0, 1, 2, 0, 0]);
  });

  it('test_trends_count_per_user_average_aggregated', async () => {
    const r = await trends(P_PER_ACTOR, { series: [{ ...VV, math: 'avg_count_per_actor' }], dateRange: range, trendsFilter: { display: 'ActionsTable' } });
    expect(r.results[0].aggregated_value).toBeCloseTo(8 / 3, 10);
  });

  it('test_trends_count_per_user_maximum', async () => {
    const r = await trends(P_PER_ACTOR, { series: [{ ...VV, math: 'max_count_per_actor' }], dateRange: range });
    expect(r.results[0].data).toEqual([2, 0, 0, 1, 3, 0, 0]);
  });

  it('test_trends_count_per_user_average_with_event_property_breakdown', async () => {
    const r = await trends(P_PER_ACTOR, { series: [{ ...VV, math: 'avg_count_per_actor' }], dateRange: range, breakdownFilter: { breakdown: 'color' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['red', [1, 0, 0, 1, 3, 0, 0]],
      ['blue', [1, 0, 0, 0, 1, 0, 0]],
      [NULL_V, [1, 0, 0, 0, 0, 0, 0]],
    ]);
  });

  it('test_trends_count_per_user_average_with_person_property_breakdown', async () => {
    const r = await trends(P_PER_ACTOR, { series: [{ ...VV, math: 'avg_count_per_actor' }], dateRange: range, breakdownFilter: { breakdown: 'fruit', breakdown_type: 'person' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['mango', [2, 0, 0, 1, 2, 0, 0]],
      ['tomato', [1, 0, 0, 0, 0, 0, 0]],
    ]);
  });

  it('count per group (math_group_type_index 0): events without $group_0 are left out', async () => {
    const r = await trends(P_PER_ACTOR, { series: [{ ...VV, math: 'avg_count_per_actor', math_group_type_index: 0 }], dateRange: range });
    // Jan 5: bouba 2, kiki 1 (the event without a group does not count)
    expect(r.results[0].data).toEqual([3, 0, 0, 1, 1.5, 0, 0]);
  });
});

describe('week interval labels and bounds', () => {
  it('-7d weekly on a Saturday: the first week is clamped to date_from, events before it excluded', async () => {
    freeze('2020-01-04T13:00:01Z');
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-7d' }, interval: 'week' });
    expect(r.results[0].days).toEqual(['2019-12-22', '2019-12-29']);
    expect(r.results[0].labels).toEqual(['28-Dec-2019', '29-Dec-2019 – 4-Jan-2020']);
    expect(r.results[0].data).toEqual([0, 5]);
  });
});

describe('half-hour timezone offsets (Asia/Kolkata, +05:30)', () => {
  it('hour buckets start at the local hour', async () => {
    freeze('2020-01-03T00:00:00Z');
    const r = await trends(P_HALF_HOUR_TZ, { series: [{ kind: 'EventsNode', event: 'e' }], interval: 'hour', dateRange: { date_from: '2020-01-01T14:00:00', date_to: '2020-01-01T16:00:00' } }, { timezone: 'Asia/Kolkata' });
    expect(r.results[0].days).toEqual(['2020-01-01 14:00:00', '2020-01-01 15:00:00', '2020-01-01 16:00:00']);
    expect(r.results[0].data).toEqual([1, 2, 0]);
    expect(r.results[0].labels).toEqual(['1-Jan 14:00', '1-Jan 15:00', '1-Jan 16:00']);
  });

  it('day buckets are local days', async () => {
    freeze('2020-01-03T00:00:00Z');
    const r = await trends(P_HALF_HOUR_TZ, { series: [{ kind: 'EventsNode', event: 'e' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' } }, { timezone: 'Asia/Kolkata' });
    expect(r.results[0].data).toEqual([3, 1]);
    expect(r.resolved_date_range).toEqual({ date_from: '2020-01-01T00:00:00+05:30', date_to: '2020-01-02T23:59:59.999999+05:30' });
  });
});

describe('test_trends.py: $session_duration math (one value per session)', () => {
  beforeEach(() => freeze('2020-01-04T13:00:00Z'));
  const sd = (math: string) => ({ ...SIGN_UP, math, math_property: '$session_duration' });

  it.each<[string, number]>([
    ['median', 7.5],
    ['avg', 7.5],
    ['max', 15],
    ['min', 0],
    ['sum', 30],
  ])('test_trends_with_session_property_single_aggregate_math (%s)', async (math, expected) => {
    const r = await trends(P_SESSIONS, { series: [sd(math)], interval: 'week', trendsFilter: { display: 'ActionsTable' } });
    expect(r.results[0].aggregated_value).toBe(expected);
  });

  it('test_trends_with_session_property_total_volume_math: per bucket, the sessions with an event in it', async () => {
    const daily = await trends(P_SESSIONS, { series: [sd('median')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-03' } });
    expect(daily.results[0].data).toEqual([5, 15, 0]);
    const weekly = await trends(P_SESSIONS, { series: [sd('avg')], interval: 'week', dateRange: { date_from: '-7d' } });
    expect(weekly.results[0].days).toEqual(['2019-12-22', '2019-12-29']);
    expect(weekly.results[0].data).toEqual([0, 7.5]);
  });

  it('test_trends_with_session_property_total_volume_math_with_breakdowns', async () => {
    const r = await trends(P_SESSIONS, { series: [sd('max')], dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' }, breakdownFilter: { breakdown: '$browser' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['Chrome', [5, 15]],
      ['Firefox', [10, 0]],
    ]);
  });
});

describe('empty results', () => {
  beforeEach(() => freeze('2020-01-04T13:00:01Z'));
  const NOPE = { kind: 'EventsNode', event: 'nope' };

  it('total value with a breakdown and no data → []', async () => {
    const r = await trends(P_EVENTS, { series: [NOPE], breakdownFilter: { breakdown: '$browser' }, trendsFilter: { display: 'ActionsPie' } });
    expect(r.results).toEqual([]);
  });

  it('compare with a breakdown and no data → []', async () => {
    const r = await trends(P_EVENTS, { series: [NOPE], breakdownFilter: { breakdown: '$browser' }, compareFilter: { compare: true } });
    expect(r.results).toEqual([]);
  });

  it('formula over series without data: one zero series labelled with the formula', async () => {
    const r = await trends(P_EVENTS, { series: [NOPE, NOPE], trendsFilter: { formula: 'A/B' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ label: 'Formula (A/B)', data: [0, 0, 0, 0, 0, 0, 0, 0], count: 0, action: null });
  });

  it('compare without data and no breakdown: a zero item per period', async () => {
    const r = await trends(P_EVENTS, { series: [NOPE], compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.count, x.data.length])).toEqual([
      ['current', 0, 8],
      ['previous', 0, 8],
    ]);
  });

  it('property math, dau and weekly_active without data are zeros, total values 0', async () => {
    for (const math of [{ math: 'avg', math_property: 'x' }, { math: 'dau' }, { math: 'weekly_active' }, { math: 'unique_session' }, { math: 'median_count_per_actor' }]) {
      const r = await trends(P_EVENTS, { series: [{ ...NOPE, ...math }] });
      expect(r.results[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
      const t = await trends(P_EVENTS, { series: [{ ...NOPE, ...math }], trendsFilter: { display: 'BoldNumber' } });
      expect(t.results[0].aggregated_value).toBe(0);
    }
  });
});

describe('cumulative with a breakdown limit', () => {
  it('Other is cumulative too; count is the last value', async () => {
    freeze('2020-01-21T00:00:00Z');
    const r = await trends(P_RUNNER, {
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: { date_from: '2020-01-12', date_to: '2020-01-16' },
      breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 },
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
    });
    // Chrome (p1) every day; Firefox 12, 13, 15; Edge 12; Safari 15
    expect(r.results.map((x: any) => [x.breakdown_value, x.data, x.count])).toEqual([
      ['Chrome', [1, 2, 3, 4, 5], 5],
      [OTHER, [2, 3, 3, 5, 5], 5],
    ]);
    expect(r.hasMore).toBe(true);
  });
});

describe('minute and hour intervals', () => {
  it('-1h by minute: not truncated, 61 minute buckets up to the current minute', async () => {
    freeze('2020-01-01T00:30:20Z');
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-1h' }, interval: 'minute' });
    expect(r.results[0].days).toHaveLength(61);
    expect(r.results[0].days[0]).toBe('2019-12-31 23:30:00');
    expect(r.results[0].days[60]).toBe('2020-01-01 00:30:00');
    expect(r.results[0].labels[30]).toBe('1-Jan 00:00');
    expect(r.results[0].data[30]).toBe(3);
    expect(r.results[0].count).toBe(3);
  });

  it('-7d by hour starts at midnight 7 days ago (PostHog: "last N days by hour")', async () => {
    freeze('2020-01-04T13:00:01Z');
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-7d' }, interval: 'hour' });
    expect(r.results[0].days).toHaveLength(7 * 24 + 14);
    expect(r.results[0].days[0]).toBe('2019-12-28 00:00:00');
    expect(r.results[0].count).toBe(5);
    expect(r.resolved_date_range).toEqual({ date_from: '2019-12-28T00:00:00Z', date_to: '2020-01-04T13:59:59.999999Z' });
  });
});

describe('test_trends.py: active users (_create_active_users_events)', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const WAU = { kind: 'EventsNode', event: '$pageview', math: 'weekly_active' };

  it.each(['UTC', 'America/Phoenix', 'Asia/Tokyo'])('test_weekly_active_users_daily (%s): p0 falls out of the window at the end of 2020-01-09', async (timezone) => {
    const r = await trends(P_ACTIVE, { series: [WAU], dateRange: { date_from: '2020-01-08', date_to: '2020-01-19' } }, { timezone });
    expect(r.results[0].days).toEqual(['2020-01-08', '2020-01-09', '2020-01-10', '2020-01-11', '2020-01-12', '2020-01-13', '2020-01-14', '2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19']);
    expect(r.results[0].data).toEqual([1, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 0]);
  });

  it('test_weekly_active_users_filtering: with a person property filter', async () => {
    const r = await trends(P_ACTIVE, {
      series: [WAU],
      dateRange: { date_from: '2020-01-08', date_to: '2020-01-19' },
      properties: [{ type: 'person', key: 'name', operator: 'exact', value: ['p1', 'p2'] }],
    });
    expect(r.results[0].data).toEqual([1, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 0]);
    const onlyP2 = await trends(P_ACTIVE, { series: [WAU], dateRange: { date_from: '2020-01-08', date_to: '2020-01-19' }, properties: [{ type: 'person', key: 'name', value: 'p2' }] });
    expect(onlyP2.results[0].data).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
  });

  it('test_weekly_active_users_aggregated_range_wider_than_week: the 7 days up to date_to', async () => {
    const r = await trends(P_ACTIVE, { series: [WAU], dateRange: { date_from: '2020-01-01', date_to: '2020-01-18' }, trendsFilter: { display: 'ActionsTable' } });
    expect(r.results[0].aggregated_value).toBe(1);
  });

  it('test_weekly_active_users_aggregated_range_narrower_than_week: still 7 days, before date_from too', async () => {
    const r = await trends(P_ACTIVE, { series: [WAU], dateRange: { date_from: '2020-01-11', date_to: '2020-01-12' }, trendsFilter: { display: 'ActionsTable' } });
    expect(r.results[0].aggregated_value).toBe(2);
  });

  it('test_weekly_active_users_weekly: at a week interval weekly_active is weekly uniques (dau)', async () => {
    const r = await trends(P_ACTIVE, { series: [WAU], dateRange: { date_from: '2019-12-29', date_to: '2020-01-18' }, interval: 'week' });
    expect(r.results[0].days).toEqual(['2019-12-29', '2020-01-05', '2020-01-12']);
    expect(r.results[0].data).toEqual([1, 2, 1]);
  });

  it('test_monthly_active_users_daily: 30-day window', async () => {
    const r = await trends(P_ACTIVE, { series: [{ ...WAU, math: 'monthly_active' }], dateRange: { date_from: '2020-01-30', date_to: '2020-02-12' } });
    // p0 (Jan 3) leaves after Feb 1; p1 (last Jan 12) after Feb 10; p2 (last Jan 11) after Feb 9
    expect(r.results[0].data).toEqual([3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 0, 0]);
  });
});

describe('test_trends.py: interval filtering (_create_events(use_time=True), now 2020-01-02)', () => {
  beforeEach(() => freeze('2020-01-02T00:00:00Z'));

  it('test_interval_filtering_hour: from 2019-12-24 to the current hour = 217 buckets', async () => {
    const r = await trends(P_EVENTS_TIME, { series: [SIGN_UP], dateRange: { date_from: '2019-12-24' }, interval: 'hour' });
    expect(r.results[0].days).toHaveLength(217);
    expect(r.results[0].labels[3]).toBe('24-Dec 03:00');
    expect(r.results[0].days[3]).toBe('2019-12-24 03:00:00');
    expect(r.results[0].data[3]).toBe(1);
    expect(r.results[0].data[192]).toBe(3); // 217 - 24 - 1
    expect(r.results[0].count).toBe(4);
  });

  it('test_interval_filtering_week: -30d weekly, labels clamped to the range', async () => {
    const r = await trends(P_EVENTS_TIME, { series: [SIGN_UP], dateRange: { date_from: '-30d' }, interval: 'week' });
    expect(r.results[0].days).toEqual(['2019-12-01', '2019-12-08', '2019-12-15', '2019-12-22', '2019-12-29']);
    expect(r.results[0].labels).toEqual(['3–7 Dec', '8–14 Dec', '15–21 Dec', '22–28 Dec', '29-Dec-2019 – 2-Jan-2020']);
    expect(r.results[0].data).toEqual([0, 0, 0, 1, 4]);
  });

  it('test_interval_filtering_month: -90d monthly', async () => {
    const r = await trends(P_EVENTS_TIME, { series: [SIGN_UP], dateRange: { date_from: '-90d' }, interval: 'month' });
    expect(r.results[0].labels).toEqual(['Oct 2019', 'Nov 2019', 'Dec 2019', 'Jan 2020']);
    expect(r.results[0].days).toEqual(['2019-10-01', '2019-11-01', '2019-12-01', '2020-01-01']);
    expect(r.results[0].data).toEqual([0, 0, 1, 4]);
  });

  it('test_interval_filtering_day with times: the whole of today is included', async () => {
    const r = await trends(P_EVENTS_TIME, { series: [SIGN_UP], dateRange: { date_from: '-7d' } });
    expect(r.results[0].days[0]).toBe('2019-12-26');
    expect(r.results[0].data.slice(-2)).toEqual([3, 1]);
  });
});

describe('active users with breakdowns', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const WAU = { kind: 'EventsNode', event: '$pageview', math: 'weekly_active' };

  it('weekly_active per breakdown value (value of each event)', async () => {
    const r = await trends(P_ACTIVE, { series: [WAU], dateRange: { date_from: '2020-01-08', date_to: '2020-01-13' }, breakdownFilter: { breakdown: 'key' } });
    // val: p0 (Jan 3), p1 (11, 12), p2 (9); bor: p1 (9, 10), p2 (11)
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['val', [1, 2, 1, 2, 2, 2]],
      ['bor', [0, 1, 1, 2, 2, 2]],
    ]);
  });

  it('weekly_active as a total value per breakdown value', async () => {
    const r = await trends(P_ACTIVE, { series: [WAU], dateRange: { date_from: '2020-01-08', date_to: '2020-01-13' }, breakdownFilter: { breakdown: 'key' }, trendsFilter: { display: 'ActionsPie' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['bor', 2],
      ['val', 2],
    ]);
  });
});
