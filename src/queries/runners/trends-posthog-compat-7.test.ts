/**
 * TrendsQuery scenarios ported from PostHog's suites, seventh batch (after trends-posthog-compat{,-2,...,-6}.test.ts):
 * property math over values of every JSON type (aggregation_operations.py reads `toFloat(<raw value>)`), session math
 * (test_trends_with_session_property_single_aggregate_math, unique_session), active users under compare, hours in a
 * timezone and breakdowns, first_time_for_user on total values, compare and formulas, compare at every interval,
 * total-value displays, and breakdown limits over person, session, hogql and normalized URL breakdowns (the null
 * sentinel ranks after every value, so past the limit it folds into Other), group breakdowns and group math, property
 * keys with dots, quotes and slashes, ties between non-ASCII values, and days around a daylight-saving change. Each
 * test names the PostHog test it follows, or the reference section (posthog-queries.md) where the scenario is not one
 * of PostHog's own.
 */
import { createInsightTestDb, ev, type InsightTestDb, eventCountPerActorFixture, useInsightsClock } from '../insights/testing';
import { BREAKDOWN_NULL as NULL_V, BREAKDOWN_OTHER as OTHER_V } from '../insights/breakdown';
import { trendsRunner } from './trends-runner';
import type { GroupTypeUpsert, GroupUpsert, InternalStatements } from '../../engines/engine';

let db: InsightTestDb;
const freeze = useInsightsClock();

const P_MIXED = 1; // purchases of four persons: amounts of every JSON type, sessions, URLs, countries
const P_SESSIONS = 2; // test_trends_with_session_property_single_aggregate_math: sessions of 5, 10, 0 and 15 seconds
const P_PER_ACTOR = 3; // test_trends.py _create_event_count_per_actor_events() (test_trends_breakdown_timezone)
const P_DST = 4; // around the start of daylight saving time in US/Pacific (Sunday 2020-03-08)
const P_GROUPS = 5; // organizations org:1 (finance), org:2 (tech), org:3 (no industry); org:9 has no group row
const P_KEYS = 6; // property keys and values beyond ASCII identifiers
const P_URLS = 7; // URLs ending in several of "/", "?" and "#"

beforeAll(async () => {
  db = await createInsightTestDb();
  await db.load(P_MIXED, {
    persons: [
      { distinct_ids: ['u1'], properties: { plan: 'pro', age: 30, vip: true } },
      { distinct_ids: ['u2'], properties: { plan: 'free', age: '40', vip: false } },
      { distinct_ids: ['u3'], properties: { age: 'old' } },
      { distinct_ids: ['u4'], properties: { plan: 'pro' } },
    ],
    events: [
      ev('purchase', 'u1', '2020-01-01T10:00:00Z', { amount: 10, $session_id: 's1', $current_url: 'https://a.com/x/', $geoip_country_code: 'US' }),
      ev('purchase', 'u1', '2020-01-01T10:05:00Z', { amount: '20', $session_id: 's1', $current_url: 'https://a.com/x', $geoip_country_code: 'US' }),
      ev('purchase', 'u2', '2020-01-01T11:00:00Z', { amount: 'abc', $session_id: 's2', $current_url: 'https://a.com/y?', $geoip_country_code: 'DE' }),
      ev('purchase', 'u2', '2020-01-02T09:00:00Z', { amount: true, $session_id: 's3', $current_url: 'https://a.com/y#' }),
      ev('purchase', 'u3', '2020-01-02T09:30:00Z', { amount: 5.5, $session_id: '', $current_url: 'https://a.com/z' }),
      ev('purchase', 'u3', '2020-01-03T09:30:00Z', { $session_id: 's4' }),
      ev('purchase', 'u4', '2020-01-03T23:59:00Z', { amount: -4, $session_id: 's5', $current_url: '', $geoip_country_code: 'US' }),
      ev('purchase', 'u4', '2020-01-05T12:00:00Z', { amount: '100', $session_id: 's6' }),
    ],
  });
  await db.load(P_SESSIONS, {
    persons: [
      { distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val' } },
      { distinct_ids: ['blabla2'], properties: { $some_prop: 'some_val' } },
    ],
    events: [
      ev('sign up before', 'blabla', '2020-01-01T00:06:30Z', { $session_id: '1' }),
      ev('sign up', 'blabla', '2020-01-01T00:06:34Z', { $session_id: '1' }),
      ev('sign up later', 'blabla', '2020-01-01T00:06:35Z', { $session_id: '1' }), // first session lasted 5 seconds
      ev('sign up', 'blabla2', '2020-01-01T00:06:35Z', { $session_id: '2' }),
      ev('sign up', 'blabla2', '2020-01-01T00:06:45Z', { $session_id: '2' }), // second session lasted 10 seconds
      ev('sign up', 'blabla', '2020-01-01T00:06:45Z', { $session_id: '3' }), // third session lasted 0 seconds
      ev('sign up', 'blabla', '2020-01-02T00:06:30Z', { $session_id: '4' }),
      ev('sign up', 'blabla', '2020-01-02T00:06:45Z', { $session_id: '4' }), // fourth session lasted 15 seconds
    ],
  });
  await db.load(P_PER_ACTOR, eventCountPerActorFixture());
  const groupTypes: GroupTypeUpsert[] = [{ project_id: P_GROUPS, group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null }];
  const org = (group_key: string, properties: Record<string, unknown>): GroupUpsert => ({
    project_id: P_GROUPS,
    group_type_index: 0,
    group_key,
    created_at: Date.parse('2020-01-01T00:00:00Z'),
    properties,
    version: 1,
  });
  const groups = [org('org:1', { industry: 'finance' }), org('org:2', { industry: 'tech' }), org('org:3', {})];
  await (db.engine as unknown as InternalStatements).writeBatch({ events: [], groupTypes, groups });
  await db.load(P_GROUPS, {
    persons: [
      { distinct_ids: ['u1'], properties: { plan: 'pro' } },
      { distinct_ids: ['u2'], properties: { plan: 'free' } },
      { distinct_ids: ['u3'], properties: {} },
      { distinct_ids: ['u4'], properties: { plan: 'pro' } },
    ],
    events: [
      ev('sign up', 'u1', '2020-01-01T12:00:00Z', { $group_0: 'org:1' }),
      ev('sign up', 'u2', '2020-01-01T12:00:00Z', { $group_0: 'org:1' }),
      ev('sign up', 'u2', '2020-01-02T12:00:00Z', { $group_0: 'org:2' }),
      ev('sign up', 'u3', '2020-01-02T12:00:00Z', { $group_0: 'org:3' }),
      ev('sign up', 'u3', '2020-01-03T12:00:00Z', { $group_0: 'org:9' }),
      ev('sign up', 'u4', '2020-01-03T12:00:00Z'),
      ev('sign up', 'u4', '2020-01-04T12:00:00Z', { $group_0: '' }),
    ],
  });
  await db.load(P_KEYS, {
    persons: [{ distinct_ids: ['k1'], properties: { 'a.b': 'dot', "it's": 'quoted' } }],
    events: [
      ev('e', 'k1', '2020-01-01T10:00:00Z', { 'a.b': 1, "it's": 'x', '$feature/flag-x': 'test', ключ: 'знач' }),
      ev('e', 'k1', '2020-01-01T11:00:00Z', { 'a.b': 2, "it's": 'y', '$feature/flag-x': 'control', ключ: '😀' }),
      ev('e', 'k1', '2020-01-01T12:00:00Z', { 'a.b': 2, "it's": 'y', '$feature/flag-x': 'control', ключ: 'Ａ' }),
    ],
  });
  await db.load(P_URLS, {
    persons: [{ distinct_ids: ['w1'], properties: {} }],
    events: ['https://a.com/x//', 'https://a.com/x/?#', 'https://a.com/x#/', 'https://a.com/x', '?', '//', ' /x/ '].map((url) =>
      ev('$pageview', 'w1', '2020-01-01T10:00:00Z', { $current_url: url }),
    ),
  });
  await db.load(P_DST, {
    persons: ['a', 'b', 'c'].map((d) => ({ distinct_ids: [d], properties: {} })),
    events: [
      ev('$pageview', 'a', '2020-03-01T20:00:00Z'), // Sun Mar 1, 12:00 PST
      ev('$pageview', 'b', '2020-03-08T07:30:00Z'), // Sat Mar 7, 23:30 PST
      ev('$pageview', 'c', '2020-03-09T06:30:00Z'), // Sun Mar 8, 23:30 PDT
    ],
  });
});

afterAll(async () => {
  await db.close();
});

const trends = (project: number, q: Record<string, unknown>, settings: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', ...q }, project, settings);
const PURCHASE = { kind: 'EventsNode', event: 'purchase' };
const WEEK1 = { dateRange: { date_from: '2020-01-01', date_to: '2020-01-07' } };
const mixed = (q: Record<string, unknown>, settings: Record<string, unknown> = {}) => trends(P_MIXED, { ...WEEK1, ...q }, settings);
/** [breakdown_value, data] of each item. */
const byValue = (r: any) => r.results.map((x: any) => [x.breakdown_value, x.data]);

describe('property math over values of every JSON type (reference §1.3: ifNull(agg(toFloat(value)), 0))', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  // Jan 1: 10 and "20" (a numeric string counts), "abc" ignored; Jan 2: true ignored, 5.5; Jan 3: no amount, -4; Jan 5: "100"
  it.each<[string, number[]]>([
    ['sum', [30, 5.5, -4, 0, 100, 0, 0]],
    ['avg', [15, 5.5, -4, 0, 100, 0, 0]],
    ['min', [10, 5.5, -4, 0, 100, 0, 0]],
    ['max', [20, 5.5, -4, 0, 100, 0, 0]],
    ['median', [15, 5.5, -4, 0, 100, 0, 0]],
    ['p75', [17.5, 5.5, -4, 0, 100, 0, 0]],
    ['p90', [19, 5.5, -4, 0, 100, 0, 0]],
    ['p95', [19.5, 5.5, -4, 0, 100, 0, 0]],
    ['p99', [19.9, 5.5, -4, 0, 100, 0, 0]],
  ])('%s: numbers and numeric strings are values; text, booleans and missing values are ignored; a bucket without values is 0', async (math, expected) => {
    const r = await mixed({ series: [{ ...PURCHASE, math, math_property: 'amount' }] });
    const data: number[] = r.results[0].data;
    expect(data).toHaveLength(7);
    data.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 9));
  });

  it('sum as a total value (ActionsTable), per person property value; ranked by the sum, the null sentinel (the person without a plan) last', async () => {
    const r = await mixed({ series: [{ ...PURCHASE, math: 'sum', math_property: 'amount' }], trendsFilter: { display: 'ActionsTable' }, breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } });
    // pro: 10 + 20 - 4 + 100; free: nothing numeric; none: 5.5
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['pro', 126],
      ['free', 0],
      [NULL_V, 5.5],
    ]);
  });

  it('math_property_type person_properties: the person property of each event (30, "40"; "old" ignored)', async () => {
    const r = await mixed({ series: [{ ...PURCHASE, math: 'sum', math_property: 'age', math_property_type: 'person_properties' }] });
    expect(r.results[0].data).toEqual([100, 40, 0, 0, 0, 0, 0]);
  });

  it('math_property $time: the Unix timestamp of the event', async () => {
    const r = await mixed({ series: [{ ...PURCHASE, math: 'min', math_property: '$time' }], trendsFilter: { display: 'BoldNumber' } });
    expect(r.results[0].aggregated_value).toBe(Date.parse('2020-01-01T10:00:00Z') / 1000);
  });
});

describe('test_trends.py: test_trends_with_session_property_single_aggregate_math', () => {
  beforeEach(() => freeze('2020-01-04T13:00:01Z'));

  it.each(['week', 'day'])('median of $session_duration on a table (interval %s): one duration per session, 0, 5, 10 and 15 → 7.5', async (interval) => {
    const r = await trends(P_SESSIONS, {
      series: [{ kind: 'EventsNode', event: 'sign up', math: 'median', math_property: '$session_duration' }],
      interval,
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(r.results[0].aggregated_value).toBe(7.5);
  });
});

describe('unique_session (reference §1.3: count(DISTINCT $session_id))', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const UNIQUE = { ...PURCHASE, math: 'unique_session' };

  it('per day: an empty $session_id is no session', async () => {
    const r = await mixed({ series: [UNIQUE] });
    expect(r.results[0].data).toEqual([2, 1, 2, 0, 1, 0, 0]);
    expect(r.results[0].count).toBe(6);
  });

  it('as a total value: the distinct sessions of the range', async () => {
    const r = await mixed({ series: [UNIQUE], trendsFilter: { display: 'BoldNumber' } });
    expect(r.results[0].aggregated_value).toBe(6);
  });

  it('with a person breakdown: per value, the null sentinel last', async () => {
    const r = await mixed({ series: [UNIQUE], breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } });
    expect(byValue(r)).toEqual([
      ['pro', [1, 0, 1, 0, 1, 0, 0]],
      ['free', [1, 1, 0, 0, 0, 0, 0]],
      [NULL_V, [0, 0, 1, 0, 0, 0, 0]],
    ]);
  });
});

describe('active users under compare, by hour in a timezone, by person property (reference §1.3)', () => {
  beforeEach(() => freeze('2020-02-10T12:00:00Z'));
  const WAU = { ...PURCHASE, math: 'weekly_active' };

  it('weekly_active with compare: the previous period has 7-day windows of its own', async () => {
    const r = await trends(P_MIXED, { series: [WAU], dateRange: { date_from: '2020-01-08', date_to: '2020-01-10' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-01-08', '2020-01-09', '2020-01-10'], [3, 2, 1]],
      ['previous', ['2020-01-05', '2020-01-06', '2020-01-07'], [4, 4, 4]],
    ]);
  });

  it('weekly_active as a total value with compare: the 7 days up to each period’s date_to', async () => {
    const r = await mixed({ series: [WAU], trendsFilter: { display: 'BoldNumber' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.aggregated_value])).toEqual([
      ['current', 4],
      ['previous', 0],
    ]);
  });

  it('weekly_active by hour in Asia/Tokyo: the window of each local hour', async () => {
    const r = await trends(P_MIXED, { series: [WAU], dateRange: { date_from: '2020-01-08T00:00:00', date_to: '2020-01-08T03:00:00' }, interval: 'hour' }, { timezone: 'Asia/Tokyo' });
    expect(r.results[0].days).toEqual(['2020-01-08 00:00:00', '2020-01-08 01:00:00', '2020-01-08 02:00:00', '2020-01-08 03:00:00']);
    // u1's only day (Jan 1, 19:00 local) is out of every window; u2, u3 and u4 are in
    expect(r.results[0].data).toEqual([3, 3, 3, 3]);
  });

  it('monthly_active by person property: each value its own 30-day windows', async () => {
    const r = await trends(P_MIXED, {
      series: [{ ...PURCHASE, math: 'monthly_active' }],
      dateRange: { date_from: '2020-01-30', date_to: '2020-02-04' },
      breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
    });
    expect(byValue(r)).toEqual([
      ['pro', [2, 1, 1, 1, 1, 0]],
      ['free', [1, 1, 0, 0, 0, 0]],
      [NULL_V, [1, 1, 1, 0, 0, 0]],
    ]);
  });
});

describe('first_time_for_user (aggregation_operations.py) on total values, weeks, compare and formulas', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const FIRST = { ...PURCHASE, math: 'first_time_for_user' };

  it('as a total value: the persons whose first-ever event is in the range (u1 and u2 started before it)', async () => {
    const r = await trends(P_MIXED, { series: [FIRST], dateRange: { date_from: '2020-01-02', date_to: '2020-01-07' }, trendsFilter: { display: 'BoldNumber' } });
    expect(r.results[0].aggregated_value).toBe(2);
  });

  it('by week: every person in the week of their first event', async () => {
    const r = await mixed({ series: [FIRST], interval: 'week' });
    expect(r.results[0].days).toEqual(['2019-12-29', '2020-01-05']);
    expect(r.results[0].data).toEqual([4, 0]);
  });

  it('with compare: the previous period counts the first events that fall in it', async () => {
    const r = await trends(P_MIXED, { series: [FIRST], dateRange: { date_from: '2020-01-04', date_to: '2020-01-06' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.data])).toEqual([
      ['current', [0, 0, 0]],
      ['previous', [2, 1, 1]],
    ]);
  });

  it('in a formula: new users over all events', async () => {
    const r = await mixed({ series: [FIRST, PURCHASE], trendsFilter: { formula: 'A / B' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].label).toBe('Formula (A / B)');
    const expected = [2 / 3, 1 / 2, 1 / 2, 0, 0, 0, 0];
    r.results[0].data.forEach((v: number, i: number) => expect(v).toBeCloseTo(expected[i], 12));
  });
});

describe('compare at every interval (reference §1.7: the previous period is as long as the current one)', () => {
  beforeEach(() => freeze('2020-03-10T12:00:00Z'));

  it('week: one week against the week before', async () => {
    const r = await trends(P_MIXED, { series: [PURCHASE], dateRange: { date_from: '2020-01-05', date_to: '2020-01-11' }, interval: 'week', compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-01-05'], [1]],
      ['previous', ['2019-12-29'], [7]],
    ]);
  });

  it('month: February against the month before it', async () => {
    const r = await trends(P_MIXED, { series: [PURCHASE], dateRange: { date_from: '2020-02-01', date_to: '2020-02-29' }, interval: 'month', compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-02-01'], [0]],
      ['previous', ['2020-01-01'], [8]],
    ]);
  });

  it('date_from "all" turns compare off: the current period alone, from the first event', async () => {
    freeze('2020-01-10T12:00:00Z');
    const r = await trends(P_MIXED, { series: [PURCHASE], dateRange: { date_from: 'all' }, compareFilter: { compare: true } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].days[0]).toBe('2020-01-01');
    expect(r.results[0].data).toEqual([3, 2, 2, 0, 1, 0, 0, 0, 0, 0]);
  });

  it('compare_to -1w by day: the same days a week earlier', async () => {
    const r = await trends(P_MIXED, { series: [PURCHASE], dateRange: { date_from: '2020-01-08', date_to: '2020-01-09' }, compareFilter: { compare: true, compare_to: '-1w' } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-01-08', '2020-01-09'], [0, 0]],
      ['previous', ['2020-01-01', '2020-01-02'], [3, 2]],
    ]);
  });

  it('compare_to -2w by week: the week two weeks earlier', async () => {
    const r = await trends(P_MIXED, { series: [PURCHASE], dateRange: { date_from: '2020-01-12', date_to: '2020-01-18' }, interval: 'week', compareFilter: { compare: true, compare_to: '-2w' } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-01-12'], [0]],
      ['previous', ['2019-12-29'], [7]],
    ]);
  });

  it('minute: the same number of minutes just before (date_from − (date_to − date_from))', async () => {
    const r = await trends(P_MIXED, { series: [PURCHASE], interval: 'minute', dateRange: { date_from: '2020-01-01T10:03:00', date_to: '2020-01-01T10:06:00' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-01-01 10:03:00', '2020-01-01 10:04:00', '2020-01-01 10:05:00', '2020-01-01 10:06:00'], [0, 0, 1, 0]],
      ['previous', ['2020-01-01 10:00:00', '2020-01-01 10:01:00', '2020-01-01 10:02:00', '2020-01-01 10:03:00'], [1, 0, 0, 0]],
    ]);
  });

  it('week starting on Monday (week_start_day 1): Monday weeks in both periods, labelled by position', async () => {
    const r = await trends(P_MIXED, { series: [PURCHASE], interval: 'week', dateRange: { date_from: '2020-01-06', date_to: '2020-01-12' }, compareFilter: { compare: true } }, { week_start_day: 1 });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.labels, x.data])).toEqual([
      ['current', ['2020-01-06'], ['week 0'], [0]],
      ['previous', ['2019-12-30'], ['week 0'], [8]],
    ]);
  });

  it('avg_count_per_actor as a total value with compare', async () => {
    const r = await mixed({ series: [{ ...PURCHASE, math: 'avg_count_per_actor' }], trendsFilter: { display: 'BoldNumber' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.aggregated_value])).toEqual([
      ['current', 2],
      ['previous', 0],
    ]);
  });
});

describe('minute intervals (reference §1.5: days "YYYY-MM-DD HH:MM:SS", labels "1-Jan 13:00")', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  it.each<[string, string, string]>([
    ['UTC', '2020-01-01T10:00:00', '10'],
    ['Europe/Berlin', '2020-01-01T11:00:00', '11'],
  ])('an absolute range by minute in %s: the local minutes, date_to included', async (timezone, from, hour) => {
    const r = await trends(P_MIXED, { series: [PURCHASE], dateRange: { date_from: from, date_to: from.replace(':00:00', ':06:00') }, interval: 'minute' }, { timezone });
    const minutes = [0, 1, 2, 3, 4, 5, 6];
    expect(r.results[0].days).toEqual(minutes.map((m) => `2020-01-01 ${hour}:0${m}:00`));
    expect(r.results[0].labels).toEqual(minutes.map((m) => `1-Jan ${hour}:0${m}`));
    expect(r.results[0].data).toEqual([1, 0, 0, 0, 0, 1, 0]);
  });
});

describe('active users across the start of daylight saving time (US/Pacific; reference §1.3, §1.5)', () => {
  beforeEach(() => freeze('2020-03-20T00:00:00Z'));

  it('weekly_active by day: windows of 7 local days, the 23-hour Sunday one of them', async () => {
    const r = await trends(P_DST, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'weekly_active' }], dateRange: { date_from: '2020-03-06', date_to: '2020-03-16' } }, { timezone: 'US/Pacific' });
    expect(r.results[0].days[0]).toBe('2020-03-06');
    // a: Mar 1 (leaves after Mar 7); b: Mar 7 (until Mar 13); c: Mar 8 (until Mar 14)
    expect(r.results[0].data).toEqual([1, 2, 2, 2, 2, 2, 2, 2, 1, 0, 0]);
  });

  it('dau by day: an event at 23:30 local is on that local day on either side of the change', async () => {
    const r = await trends(P_DST, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '2020-03-07', date_to: '2020-03-10' } }, { timezone: 'US/Pacific' });
    expect(r.results[0].days).toEqual(['2020-03-07', '2020-03-08', '2020-03-09', '2020-03-10']);
    expect(r.results[0].data).toEqual([1, 1, 0, 0]);
  });
});

describe('test_trends.py: test_trends_breakdown_timezone (_create_event_count_per_actor_events, US/Pacific)', () => {
  beforeEach(() => freeze('2020-01-03T13:06:02Z'));

  it('months of a breakdown are local months; Jan 1 00:06 UTC is still December in US/Pacific', async () => {
    const r = await trends(
      P_PER_ACTOR,
      {
        series: [{ kind: 'EventsNode', event: 'viewed video', math: 'dau' }],
        dateRange: { date_from: '2020-01-01', date_to: '2020-03-01' },
        interval: 'month',
        breakdownFilter: { breakdown: 'color' },
      },
      { timezone: 'US/Pacific' },
    );
    expect(r.results.map((x: any) => x.days)).toEqual([
      ['2020-01-01', '2020-02-01', '2020-03-01'],
      ['2020-01-01', '2020-02-01', '2020-03-01'],
    ]);
    // tintin (red, Jan 4 and 5) and blabla (blue, Jan 5); the Dec 31 (local) events are out of range
    expect(byValue(r)).toEqual([
      ['blue', [1, 0, 0]],
      ['red', [1, 0, 0]],
    ]);
  });
});

describe('total-value displays (reference §2.2)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  it('BoldNumber counts over an exact time range (trends_query_runner exact_timerange): "-7d" is 7 days before now to the minute', async () => {
    freeze('2020-01-08T10:30:00Z');
    const bold = await trends(P_MIXED, { series: [PURCHASE], dateRange: { date_from: '-7d' }, trendsFilter: { display: 'BoldNumber' } });
    // from Jan 1 10:30: u1's purchases at 10:00 and 10:05 are out
    expect(bold.results[0].aggregated_value).toBe(6);
    const table = await trends(P_MIXED, { series: [PURCHASE], dateRange: { date_from: '-7d' }, trendsFilter: { display: 'ActionsTable' } });
    expect(table.results[0].aggregated_value).toBe(8);
    // no date_from at all: QueryDateRange's default is the start of the day 7 days ago, exact or not
    const byDefault = await trends(P_MIXED, { series: [PURCHASE], trendsFilter: { display: 'BoldNumber' } });
    expect(byDefault.results[0].aggregated_value).toBe(8);
    freeze('2020-01-02T10:30:00Z');
    const hours = await trends(P_MIXED, { series: [PURCHASE], dateRange: { date_from: '-24h' }, interval: 'hour', trendsFilter: { display: 'BoldNumber' } });
    expect(hours.results[0].aggregated_value).toBe(3);
  });

  it('WorldMap by country: events without a country are the null sentinel, last', async () => {
    const r = await mixed({ series: [PURCHASE], trendsFilter: { display: 'WorldMap' }, breakdownFilter: { breakdown: '$geoip_country_code' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value, x.data, x.count])).toEqual([
      ['US', 3, [], 0],
      ['DE', 1, [], 0],
      [NULL_V, 4, [], 0],
    ]);
  });

  it('ActionsTable with a formula and a person breakdown: A / B of the aggregated values per value', async () => {
    const r = await mixed({
      series: [PURCHASE, { ...PURCHASE, math: 'dau' }],
      trendsFilter: { display: 'ActionsTable', formula: 'A / B' },
      breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
    });
    expect(r.results.map((x: any) => [x.label, x.breakdown_value, x.aggregated_value])).toEqual([
      ['Formula (A / B)', 'pro', 2],
      ['Formula (A / B)', 'free', 2],
      ['Formula (A / B)', NULL_V, 2],
    ]);
  });
});

describe('group breakdowns and group math (reference §1.3, §1.6, §1.8)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };
  const BY_INDUSTRY = { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 };
  const groupsTrends = (q: Record<string, unknown>) => trends(P_GROUPS, { ...WEEK1, ...q });

  it('events without the group, of a group without the property, of an unknown group key: all the null sentinel', async () => {
    const r = await groupsTrends({ series: [SIGN_UP], breakdownFilter: BY_INDUSTRY });
    expect(byValue(r)).toEqual([
      ['finance', [2, 0, 0, 0, 0, 0, 0]],
      ['tech', [0, 1, 0, 0, 0, 0, 0]],
      [NULL_V, [0, 1, 2, 1, 0, 0, 0]],
    ]);
  });

  it('with breakdown_limit 1: the null sentinel ranks last even with the largest count, and folds into Other', async () => {
    const r = await groupsTrends({ series: [SIGN_UP], breakdownFilter: { ...BY_INDUSTRY, breakdown_limit: 1 } });
    expect(byValue(r)).toEqual([
      ['finance', [2, 0, 0, 0, 0, 0, 0]],
      [OTHER_V, [0, 2, 2, 1, 0, 0, 0]],
    ]);
    expect(r.hasMore).toBe(true);
  });

  it('unique_group by group property: events with an empty $group_0 are left out, unknown keys count', async () => {
    const r = await groupsTrends({ series: [{ ...SIGN_UP, math: 'unique_group', math_group_type_index: 0 }], breakdownFilter: BY_INDUSTRY });
    expect(byValue(r)).toEqual([
      ['finance', [1, 0, 0, 0, 0, 0, 0]],
      ['tech', [0, 1, 0, 0, 0, 0, 0]],
      [NULL_V, [0, 1, 1, 0, 0, 0, 0]],
    ]);
  });

  it('unique_group cumulative: each group once, at its first day; weekly_active of groups: the 7-day window', async () => {
    const cumulative = await groupsTrends({ series: [{ ...SIGN_UP, math: 'unique_group', math_group_type_index: 0 }], trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    expect(cumulative.results[0].data).toEqual([1, 3, 4, 4, 4, 4, 4]);
    const wau = await groupsTrends({ series: [{ ...SIGN_UP, math: 'weekly_active', math_group_type_index: 0 }] });
    expect(wau.results[0].data).toEqual([1, 3, 4, 4, 4, 4, 4]);
  });

  it('aggregation_group_type_index with a person breakdown: distinct groups per person property value', async () => {
    const r = await groupsTrends({ series: [{ ...SIGN_UP, math: 'dau' }], aggregation_group_type_index: 0, breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } });
    // u4's events have no group (or an empty one): pro is u1's org:1 alone
    expect(byValue(r)).toEqual([
      ['free', [1, 1, 0, 0, 0, 0, 0]],
      ['pro', [1, 0, 0, 0, 0, 0, 0]],
      [NULL_V, [0, 1, 1, 0, 0, 0, 0]],
    ]);
    const total = await groupsTrends({ series: [{ ...SIGN_UP, math: 'dau' }], aggregation_group_type_index: 0, trendsFilter: { display: 'BoldNumber' } });
    expect(total.results[0].aggregated_value).toBe(4);
  });
});

describe('breakdown limits over person, session, hogql and URL breakdowns (reference §2.3: null ranks after every value)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  it('person property holding numbers, numeric text and text: the values as text, ties by value, the null sentinel last', async () => {
    const r = await mixed({ series: [PURCHASE], breakdownFilter: { breakdown: 'age', breakdown_type: 'person' } });
    expect(byValue(r)).toEqual([
      ['30', [2, 0, 0, 0, 0, 0, 0]],
      ['40', [1, 1, 0, 0, 0, 0, 0]],
      ['old', [0, 1, 1, 0, 0, 0, 0]],
      [NULL_V, [0, 0, 1, 0, 1, 0, 0]],
    ]);
  });

  it('person property holding booleans: "true" and "false", the persons without it the null sentinel', async () => {
    const r = await mixed({ series: [PURCHASE], breakdownFilter: { breakdown: 'vip', breakdown_type: 'person' } });
    expect(byValue(r)).toEqual([
      ['false', [1, 1, 0, 0, 0, 0, 0]],
      ['true', [2, 0, 0, 0, 0, 0, 0]],
      [NULL_V, [0, 1, 2, 0, 1, 0, 0]],
    ]);
  });

  it('session breakdown by $session_duration without bins: whole seconds as text; events without a session are null', async () => {
    const r = await mixed({ series: [PURCHASE], breakdownFilter: { breakdown: '$session_duration', breakdown_type: 'session' } });
    // s1 lasted 5 minutes; s2..s6 have one event each
    expect(byValue(r)).toEqual([
      ['0', [1, 1, 2, 0, 1, 0, 0]],
      ['300', [2, 0, 0, 0, 0, 0, 0]],
      [NULL_V, [0, 1, 0, 0, 0, 0, 0]],
    ]);
  });

  it.each<[string, string]>([
    ['a.b', 'a dot'],
    ["it's", 'a quote'],
    ['$feature/flag-x', 'a slash'],
  ])('a property key with %s (%s) is the literal key: breakdown, math and filter', async (key) => {
    const range = { dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' } };
    const bd = await trends(P_KEYS, { series: [{ kind: 'EventsNode', event: 'e' }], ...range, breakdownFilter: { breakdown: key } });
    expect(bd.results.map((x: any) => [x.breakdown_value, x.count])).toHaveLength(2);
    expect(bd.results[0].count).toBe(2);
    const filtered = await trends(P_KEYS, { series: [{ kind: 'EventsNode', event: 'e' }], ...range, properties: [{ type: 'event', key, operator: 'is_set' }], trendsFilter: { display: 'BoldNumber' } });
    expect(filtered.results[0].aggregated_value).toBe(3);
    const person = await trends(P_KEYS, { series: [{ kind: 'EventsNode', event: 'e' }], ...range, breakdownFilter: { breakdown: key, breakdown_type: 'person' } });
    expect(person.results.map((x: any) => x.breakdown_value)).toEqual([key === 'a.b' ? 'dot' : key === "it's" ? 'quoted' : NULL_V]);
  });

  it('ties rank by value as ClickHouse orders strings (UTF-8 bytes): "знач" < "Ａ" (U+FF21) < "😀" (U+1F600)', async () => {
    const range = { dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' } };
    const all = await trends(P_KEYS, { series: [{ kind: 'EventsNode', event: 'e' }], ...range, breakdownFilter: { breakdown: 'ключ' } });
    expect(all.results.map((x: any) => x.breakdown_value)).toEqual(['знач', 'Ａ', '😀']);
    const limited = await trends(P_KEYS, { series: [{ kind: 'EventsNode', event: 'e' }], ...range, breakdownFilter: { breakdown: 'ключ', breakdown_limit: 2 } });
    expect(limited.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['знач', 1],
      ['Ａ', 1],
      [OTHER_V, 1],
    ]);
  });

  it('person breakdown with breakdown_limit 1: the null sentinel folds into Other', async () => {
    const r = await mixed({ series: [PURCHASE], breakdownFilter: { breakdown: 'plan', breakdown_type: 'person', breakdown_limit: 1 } });
    expect(byValue(r)).toEqual([
      ['pro', [2, 0, 1, 0, 1, 0, 0]],
      [OTHER_V, [1, 2, 1, 0, 0, 0, 0]],
    ]);
    expect(r.hasMore).toBe(true);
  });

  it('session breakdown ($entry_current_url) with breakdown_limit 2: events without a session are null, inside Other', async () => {
    const r = await mixed({ series: [PURCHASE], breakdownFilter: { breakdown: '$entry_current_url', breakdown_type: 'session', breakdown_limit: 2 } });
    expect(byValue(r)).toEqual([
      ['https://a.com/x/', [2, 0, 0, 0, 0, 0, 0]],
      ['https://a.com/y#', [0, 1, 0, 0, 0, 0, 0]],
      [OTHER_V, [1, 1, 2, 0, 1, 0, 0]],
    ]);
  });

  it('hogql breakdown with breakdown_limit 1', async () => {
    const r = await mixed({ series: [PURCHASE], breakdownFilter: { breakdown: 'properties.$geoip_country_code', breakdown_type: 'hogql', breakdown_limit: 1 } });
    expect(byValue(r)).toEqual([
      ['US', [2, 0, 1, 0, 0, 0, 0]],
      [OTHER_V, [1, 2, 1, 0, 1, 0, 0]],
    ]);
  });

  it('breakdown_normalize_url: "/x/" and "/x" are one value, "/y?" and "/y#" another; an empty URL is "/", a missing one null, last', async () => {
    // breakdown.py normalizes before nullIf: empty(trimRight('', '/?#')) ? '/' : … makes '' the value '/'
    const r = await mixed({ series: [PURCHASE], breakdownFilter: { breakdown: '$current_url', breakdown_normalize_url: true } });
    expect(byValue(r)).toEqual([
      ['https://a.com/x', [2, 0, 0, 0, 0, 0, 0]],
      ['https://a.com/y', [1, 1, 0, 0, 0, 0, 0]],
      ['/', [0, 0, 1, 0, 0, 0, 0]],
      ['https://a.com/z', [0, 1, 0, 0, 0, 0, 0]],
      [NULL_V, [0, 0, 1, 0, 1, 0, 0]],
    ]);
  });

  it('breakdown_normalize_url strips every trailing "/", "?" and "#" (trimRight(url, \'/?#\')); nothing left is "/"', async () => {
    const r = await trends(P_URLS, { series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' }, breakdownFilter: { breakdown: '$current_url', breakdown_normalize_url: true } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['https://a.com/x', 4],
      ['/', 2],
      [' /x/ ', 1],
    ]);
  });

  it('breakdown_normalize_url with breakdown_limit 1: the limit counts normalized values', async () => {
    const r = await mixed({ series: [PURCHASE], breakdownFilter: { breakdown: '$current_url', breakdown_normalize_url: true, breakdown_limit: 1 } });
    expect(byValue(r)).toEqual([
      ['https://a.com/x', [2, 0, 0, 0, 0, 0, 0]],
      [OTHER_V, [1, 2, 2, 0, 1, 0, 0]],
    ]);
    expect(r.hasMore).toBe(true);
  });
});
