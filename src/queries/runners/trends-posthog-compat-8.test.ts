/**
 * TrendsQuery and StickinessQuery scenarios ported from PostHog's suites, eighth batch (after
 * trends-posthog-compat{,-2,...,-7}.test.ts): count per actor on total values and by week, count per group, group
 * breakdowns under a person filter, active users at a month interval, samplingFactor 1, a timezone behind UTC, today by
 * hour, event_metadata breakdowns, and weeks and months across daylight-saving changes with either week start. Each test
 * names the PostHog test it follows, or the reference section (posthog-queries.md) where the scenario is not one of
 * PostHog's own.
 */
import { actionRegistry, createInsightTestDb, ev, modelActionStep, type InsightTestDb, eventCountPerActorFixture, activeUsersFixture, useInsightsClock } from '../insights/testing';
import { BREAKDOWN_NULL as NULL_V } from '../insights/breakdown';
import { trendsRunner } from './trends-runner';
import { stickinessRunner } from './stickiness-runner';
import type { GroupTypeUpsert, GroupUpsert, InternalStatements } from '../../engines/engine';

let db: InsightTestDb;
const freeze = useInsightsClock();

const P_PER_ACTOR = 1; // test_trends.py _create_event_count_per_actor_events(), with its $group_0 values
const P_GROUPS = 2; // test_trends.py _create_groups() and test_breakdown_by_group_props_with_person_filter's events
const P_ACTIVE = 3; // test_trends.py _create_active_users_events()
const P_PHOENIX = 4; // test_trends.py test_timezones_daily_minus_utc
const P_TODAY = 5; // test_trends.py test_interval_filtering_today_hourly
const P_BERLIN = 6; // around the end (Oct 25) and the start (Mar 29) of summer time in Europe/Berlin
const P_ACTION_PROPS = 7; // test_trends.py test_filtering_with_action_props
const P_HISTOGRAM = 8; // a numeric property whose values differ between two periods

const { source: actionSource, action } = actionRegistry(8800);

beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
  await db.load(P_PER_ACTOR, eventCountPerActorFixture());
  const groupTypes: GroupTypeUpsert[] = [
    { project_id: P_GROUPS, group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null },
    { project_id: P_GROUPS, group_type: 'company', group_type_index: 1, name_singular: null, name_plural: null },
  ];
  const group = (group_type_index: number, group_key: string, properties: Record<string, unknown>): GroupUpsert => ({
    project_id: P_GROUPS,
    group_type_index,
    group_key,
    created_at: Date.parse('2020-01-01T00:00:00Z'),
    properties,
    version: 1,
  });
  const groups = [
    group(0, 'org:5', { industry: 'finance' }),
    group(0, 'org:6', { industry: 'technology' }),
    group(0, 'org:7', { industry: 'finance' }),
    group(1, 'company:10', { industry: 'finance' }),
  ];
  await (db.engine as unknown as InternalStatements).writeBatch({ events: [], groupTypes, groups });
  await db.load(P_GROUPS, {
    persons: [{ distinct_ids: ['person1'], properties: { key: 'value' } }],
    events: [
      ev('sign up', 'person1', '2020-01-02T12:00:00Z', { $group_0: 'org:5' }),
      ev('sign up', 'person2', '2020-01-02T12:00:00Z', { $group_0: 'org:6' }),
    ],
  });
  await db.load(P_ACTIVE, activeUsersFixture());
  await db.load(P_PHOENIX, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: [
      ev('sign up', 'blabla', '2020-01-03T01:01:01Z', { $current_url: 'first url', $browser: 'Firefox', $os: 'Mac' }),
      ev('sign up', 'blabla', '2020-01-04T01:01:01Z', { $current_url: 'second url', $browser: 'Firefox', $os: 'Mac' }),
      ev('sign up', 'blabla', '2020-01-06T09:01:01Z', { $current_url: 'second url', $browser: 'Firefox', $os: 'Mac' }), // after now
    ],
  });
  await db.load(P_TODAY, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: [
      ev('sign up', 'blabla', '2020-01-01T00:06:34Z'),
      ev('sign up', 'blabla', '2020-01-02T16:34:34Z'),
      ev('sign up', 'blabla', '2020-01-02T23:30:00Z'),
    ],
  });
  await db.load(P_BERLIN, {
    persons: ['a', 'b', 'c', 'd'].map((d) => ({ distinct_ids: [d], properties: {} })),
    events: [
      ev('$pageview', 'a', '2020-10-25T22:30:00Z'), // Sun Oct 25, 23:30 CET (+01:00): the Monday week of Oct 19
      ev('$pageview', 'b', '2020-10-25T23:30:00Z'), // Mon Oct 26, 00:30 CET: the Monday week of Oct 26
      ev('$pageview', 'a', '2020-10-24T21:30:00Z'), // Sat Oct 24, 23:30 CEST (+02:00)
      ev('$pageview', 'c', '2020-03-31T22:30:00Z'), // Wed Apr 1, 00:30 CEST: April
      ev('$pageview', 'd', '2020-03-28T23:30:00Z'), // Sun Mar 29, 00:30 CET: March, before the change
    ],
  });
  await db.load(P_ACTION_PROPS, {
    persons: ['person1', 'person2', 'person3'].map((d) => ({ distinct_ids: [d], properties: {} })),
    events: [
      ev('sign up', 'person1', '2020-01-05T12:00:00Z', { key: 'val', $current_url: '/some/page' }),
      ev('sign up', 'person2', '2020-01-05T12:00:00Z', { key: 'val', $current_url: '/some/page' }),
      ev('sign up', 'person3', '2020-01-05T12:00:00Z', { key: 'val', $current_url: '/another/page' }),
    ],
  });
  await db.load(P_HISTOGRAM, {
    persons: [{ distinct_ids: ['h1'], properties: {} }],
    events: [
      ...[1, 5, 10, 20].map((v, i) => ev('$pageview', 'h1', `2020-01-0${i + 1}T10:00:00Z`, { v })),
      ev('$pageview', 'h1', '2019-12-28T10:00:00Z', { v: 100 }),
      ev('$pageview', 'h1', '2019-12-29T10:00:00Z', { v: 200 }),
    ],
  });
});

afterAll(async () => {
  await db.close();
});

const trends = (project: number, q: Record<string, unknown>, settings: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', ...q }, project, settings);
const stickiness = (project: number, q: Record<string, unknown>, settings: Record<string, unknown> = {}) =>
  db.run(stickinessRunner, { kind: 'StickinessQuery', ...q }, project, settings);
/** [breakdown_value, aggregated_value] of each item. */
const aggregatedByValue = (r: any) => r.results.map((x: any) => [x.breakdown_value, x.aggregated_value]);

describe('test_trends.py: count per actor and per group (_create_event_count_per_actor_events)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const VV = { kind: 'EventsNode', event: 'viewed video' };
  const WEEK1 = { dateRange: { date_from: '2020-01-01', date_to: '2020-01-07' } };

  it('test_trends_count_per_user_average_aggregated_with_event_property_breakdown: red 2.5 (1 and 4), blue 1, the null value 1, last', async () => {
    const r = await trends(P_PER_ACTOR, {
      ...WEEK1,
      series: [{ ...VV, math: 'avg_count_per_actor' }],
      breakdownFilter: { breakdown: 'color' },
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(aggregatedByValue(r)).toEqual([
      ['red', 2.5],
      ['blue', 1],
      [NULL_V, 1],
    ]);
  });

  it('test_trends_count_per_user_average_aggregated_with_event_property_breakdown_with_sampling: samplingFactor 1 changes nothing', async () => {
    const r = await trends(P_PER_ACTOR, {
      ...WEEK1,
      series: [{ ...VV, math: 'avg_count_per_actor' }],
      breakdownFilter: { breakdown: 'color' },
      trendsFilter: { display: 'ActionsTable' },
      samplingFactor: 1,
    });
    expect(aggregatedByValue(r)).toEqual([
      ['red', 2.5],
      ['blue', 1],
      [NULL_V, 1],
    ]);
  });

  it('test_trends_count_per_user_average_weekly: 4 events of 3 persons, then 4 of 2; weeks clamped to the range in the labels', async () => {
    const r = await trends(P_PER_ACTOR, { ...WEEK1, interval: 'week', series: [{ ...VV, math: 'avg_count_per_actor' }] });
    expect(r.results[0].days).toEqual(['2019-12-29', '2020-01-05']);
    expect(r.results[0].labels).toEqual(['1–4 Jan', '5–7 Jan']);
    expect(r.results[0].data).toEqual([4 / 3, 2]);
  });

  it('test_trends_count_per_group_average_aggregated: 7 events with a group over 2 groups (the event without $group_0 left out)', async () => {
    const r = await trends(P_PER_ACTOR, {
      ...WEEK1,
      series: [{ ...VV, math: 'avg_count_per_actor', math_group_type_index: 0 }],
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(r.results[0].aggregated_value).toBe(3.5);
  });

  it.each<[string, number]>([
    ['min_count_per_actor', 1],
    ['max_count_per_actor', 4],
    ['median_count_per_actor', 3],
  ])('%s as a total value: over the persons of the whole range (1, 3 and 4 events)', async (math, expected) => {
    const r = await trends(P_PER_ACTOR, { ...WEEK1, series: [{ ...VV, math }], trendsFilter: { display: 'BoldNumber' } });
    expect(r.results[0].aggregated_value).toBe(expected);
  });

  it('event_metadata breakdown by distinct_id (reference §1.6: the events column): a value per distinct id, not per person', async () => {
    const r = await trends(P_PER_ACTOR, {
      ...WEEK1,
      series: [VV],
      breakdownFilter: { breakdown_type: 'event_metadata', breakdown: 'distinct_id' },
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(aggregatedByValue(r)).toEqual([
      ['tintin', 4],
      ['blabla', 2],
      ['anonymous_id', 1],
      ['reeree', 1],
    ]);
  });
});

describe('test_trends.py: test_breakdown_by_group_props_with_person_filter', () => {
  beforeEach(() => freeze('2020-01-12T12:00:00Z'));

  it('a group breakdown under a person filter: only person1’s event, of a finance organization', async () => {
    const r = await trends(P_GROUPS, {
      series: [{ kind: 'EventsNode', event: 'sign up' }],
      dateRange: { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-12T00:00:00Z' },
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
      properties: [{ key: 'key', value: 'value', type: 'person' }],
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([['finance', 1]]);
  });

  it('test_breakdown_by_group_props without the filter: both organizations', async () => {
    const r = await trends(P_GROUPS, {
      series: [{ kind: 'EventsNode', event: 'sign up' }],
      dateRange: { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-12T00:00:00Z' },
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['finance', 1],
      ['technology', 1],
    ]);
  });
});

describe('test_trends.py: active users at a month interval (_create_active_users_events)', () => {
  beforeEach(() => freeze('2020-03-01T00:00:00Z'));
  const WAU = { kind: 'EventsNode', event: '$pageview', math: 'weekly_active' };

  it('test_weekly_active_users_monthly: weekly_active by month is monthly uniques', async () => {
    const r = await trends(P_ACTIVE, { series: [WAU], dateRange: { date_from: '2019-12-01', date_to: '2020-02-29' }, interval: 'month' });
    expect(r.results[0].days).toEqual(['2019-12-01', '2020-01-01', '2020-02-01']);
    expect(r.results[0].labels).toEqual(['Dec 2019', 'Jan 2020', 'Feb 2020']);
    expect(r.results[0].data).toEqual([0, 3, 0]);
  });

  it('monthly_active by month is monthly uniques too (convert_active_user_math_based_on_interval)', async () => {
    const r = await trends(P_ACTIVE, { series: [{ ...WAU, math: 'monthly_active' }], dateRange: { date_from: '2019-12-01', date_to: '2020-02-29' }, interval: 'month' });
    expect(r.results[0].data).toEqual([0, 3, 0]);
  });

  it('test_weekly_active_users_aggregated_range_wider_than_week_with_sampling: samplingFactor 1, the 7 days up to date_to', async () => {
    const r = await trends(P_ACTIVE, {
      series: [WAU],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-18' },
      trendsFilter: { display: 'ActionsTable' },
      samplingFactor: 1,
    });
    expect(r.results[0].aggregated_value).toBe(1);
  });
});

describe('test_trends.py: test_timezones_daily_minus_utc (America/Phoenix, now 2020-01-05T13:01:01Z = Jan 5 06:01 local)', () => {
  beforeEach(() => freeze('2020-01-05T13:01:01Z'));
  const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };
  const phoenix = (q: Record<string, unknown>) => trends(P_PHOENIX, { dateRange: { date_from: '-7d' }, ...q }, { timezone: 'America/Phoenix' });

  it('volume: the events are on the local Jan 2 and Jan 3; the one of Jan 6 (local) is after now', async () => {
    const r = await phoenix({ series: [SIGN_UP] });
    expect(r.results[0].labels).toEqual(['29-Dec-2019', '30-Dec-2019', '31-Dec-2019', '1-Jan-2020', '2-Jan-2020', '3-Jan-2020', '4-Jan-2020', '5-Jan-2020']);
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 1, 1, 0, 0]);
  });

  it('dau, weekly_active and an $os breakdown by local day', async () => {
    const dau = await phoenix({ series: [{ ...SIGN_UP, math: 'dau' }] });
    expect(dau.results[0].data).toEqual([0, 0, 0, 0, 1, 1, 0, 0]);
    const wau = await phoenix({ series: [{ ...SIGN_UP, math: 'weekly_active' }] });
    expect(wau.results[0].data).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    const byOs = await phoenix({ series: [SIGN_UP], breakdownFilter: { breakdown: '$os' } });
    expect(byOs.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([['Mac', [0, 0, 0, 0, 1, 1, 0, 0]]]);
  });
});

describe('test_trends.py: test_interval_filtering_today_hourly (now 2020-01-02T23:31:00Z)', () => {
  beforeEach(() => freeze('2020-01-02T23:31:00Z'));

  it('dStart by hour: the 24 hours of today, the event at 23:30 in the last one', async () => {
    const r = await trends(P_TODAY, { series: [{ kind: 'EventsNode', event: 'sign up' }], dateRange: { date_from: 'dStart' }, interval: 'hour' });
    expect(r.results[0].data).toHaveLength(24);
    expect(r.results[0].labels[23]).toBe('2-Jan 23:00');
    expect(r.results[0].data[23]).toBe(1);
    expect(r.results[0].data[16]).toBe(1);
    expect(r.results[0].count).toBe(2);
  });

  it('dau by hour: distinct persons per hour', async () => {
    const r = await trends(P_TODAY, { series: [{ kind: 'EventsNode', event: 'sign up', math: 'dau' }], dateRange: { date_from: 'dStart' }, interval: 'hour' });
    expect(r.results[0].data.filter((v: number) => v !== 0)).toEqual([1, 1]);
    expect(r.results[0].days[16]).toBe('2020-01-02 16:00:00');
  });
});

describe('weeks and months across daylight-saving changes (Europe/Berlin; reference §1.5: buckets in the project timezone)', () => {
  beforeEach(() => freeze('2020-11-10T12:00:00Z'));
  const PV = { kind: 'EventsNode', event: '$pageview' };
  const BERLIN = { timezone: 'Europe/Berlin' };

  it('weeks starting on Monday (week_start_day 1) across the end of summer time: Sunday 23:30 and Monday 00:30 local are two weeks', async () => {
    const r = await trends(P_BERLIN, { series: [PV], interval: 'week', dateRange: { date_from: '2020-10-19', date_to: '2020-11-01' } }, { ...BERLIN, week_start_day: 1 });
    expect(r.results[0].days).toEqual(['2020-10-19', '2020-10-26']);
    expect(r.results[0].labels).toEqual(['19–25 Oct', '26-Oct – 1-Nov']);
    expect(r.results[0].data).toEqual([2, 1]);
  });

  it('weeks starting on Sunday: all three in the week of Sunday Oct 25, but Saturday Oct 24 in the week before', async () => {
    const r = await trends(P_BERLIN, { series: [PV], interval: 'week', dateRange: { date_from: '2020-10-18', date_to: '2020-10-31' } }, BERLIN);
    expect(r.results[0].days).toEqual(['2020-10-18', '2020-10-25']);
    expect(r.results[0].data).toEqual([1, 2]);
  });

  it('months across the start of summer time: 00:30 CEST on Apr 1 is April, 00:30 CET on Mar 29 is March', async () => {
    const r = await trends(P_BERLIN, { series: [PV], interval: 'month', dateRange: { date_from: '2020-03-01', date_to: '2020-04-30' } }, BERLIN);
    expect(r.results[0].days).toEqual(['2020-03-01', '2020-04-01']);
    expect(r.results[0].labels).toEqual(['Mar 2020', 'Apr 2020']);
    expect(r.results[0].data).toEqual([1, 1]);
  });

  it('stickiness by Monday week across the end of summer time: person a active in one week, b in the next', async () => {
    const r = await stickiness(P_BERLIN, { series: [PV], interval: 'week', dateRange: { date_from: '2020-10-19', date_to: '2020-11-01' } }, { ...BERLIN, week_start_day: 1 });
    expect(r.results[0].data).toEqual([2, 0]);
    expect(r.results[0].labels).toEqual(['1 week', '2 weeks']);
    // with Sunday weeks from Oct 18, a is active in the week of Oct 18 (Sat 24) and of Oct 25 (Sun 25, 23:30)
    const sunday = await stickiness(P_BERLIN, { series: [PV], interval: 'week', dateRange: { date_from: '2020-10-18', date_to: '2020-10-31' } }, BERLIN);
    expect(sunday.results[0].data).toEqual([1, 1]);
  });

  it('stickiness samplingFactor 1 answers as unsampled (test_stickiness_query_runner.py test_sampling)', async () => {
    const q = { series: [PV], interval: 'week', dateRange: { date_from: '2020-10-18', date_to: '2020-10-31' } };
    const sampled = await stickiness(P_BERLIN, { ...q, samplingFactor: 1 }, BERLIN);
    const plain = await stickiness(P_BERLIN, q, BERLIN);
    expect(sampled.results[0].data).toEqual(plain.results[0].data);
  });
});

describe('test_trends.py: count per actor quantiles as total values (_create_event_count_per_actor_events)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  // the persons' "viewed video" counts in Jan 1..7 are 1 (reeree), 3 (blabla with anonymous_id) and 4 (tintin);
  // ClickHouse's quantile interpolates between neighbours: level p of [1, 3, 4] is at position 2p
  it.each<[string, number]>([
    ['p75_count_per_actor', 3.5],
    ['p90_count_per_actor', 3.8],
    ['p95_count_per_actor', 3.9],
    ['p99_count_per_actor', 3.98],
  ])('%s on ActionsTable', async (math, expected) => {
    const r = await trends(P_PER_ACTOR, {
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-07' },
      series: [{ kind: 'EventsNode', event: 'viewed video', math }],
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(r.results[0].aggregated_value).toBeCloseTo(expected, 10);
  });
});

describe('test_trends.py: test_filtering_with_action_props', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  it('an action step with a URL (contains) and a property list: two of the three sign ups', async () => {
    const id = action('sign up', [
      modelActionStep({ event: 'sign up', url: '/some/page', properties: [{ key: 'key', type: 'event', value: ['val'], operator: 'exact' }] }),
    ]);
    const r = await trends(P_ACTION_PROPS, { series: [{ kind: 'ActionsNode', id }], dateRange: { date_from: '-14d' } });
    expect(r.results[0].count).toBe(2);
    expect(r.results[0].label).toBe('sign up');
    expect(r.results[0].action).toMatchObject({ id, type: 'actions', name: 'sign up' });
  });
});

describe('fixedProperties (reference §1.2: non-editable filters of a series, ANDed with its properties)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const FIXED = { kind: 'EventsNode', event: 'sign up', fixedProperties: [{ key: '$current_url', value: '/some/page', type: 'event' }] };

  it('trends and stickiness count only the events matching them', async () => {
    const t = await trends(P_ACTION_PROPS, { series: [FIXED], dateRange: { date_from: '2020-01-01', date_to: '2020-01-07' } });
    expect(t.results[0].count).toBe(2);
    const s = await stickiness(P_ACTION_PROPS, { series: [{ ...FIXED, properties: [{ key: 'key', value: 'val', type: 'event' }] }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-07' } });
    expect(s.results[0].data).toEqual([2, 0, 0, 0, 0, 0, 0]);
  });
});

describe('histogram breakdown with compare (reference §2.3: each period is a query of its own)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  it('each period bins its own values: 1..20 now, 100..200 in the four days before', async () => {
    const r = await trends(P_HISTOGRAM, {
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-04' },
      breakdownFilter: { breakdown: 'v', breakdown_histogram_bin_count: 2 },
      compareFilter: { compare: true },
    });
    expect(r.results.map((x: any) => [x.compare_label, x.breakdown_value, x.data])).toEqual([
      ['current', '[1.0,7.5]', [1, 1, 0, 0]],
      ['current', '[7.5,20.01]', [0, 0, 1, 1]],
      ['previous', '[100.0,150.0]', [1, 0, 0, 0]],
      ['previous', '[150.0,200.01]', [0, 1, 0, 0]],
    ]);
  });
});

describe('stickiness compare_to (reference §6.1 and §1.7: the previous period starts at compare_to from date_from)', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));

  it('-1w: the seven days a week earlier, interleaved after the current period', async () => {
    const r = await stickiness(P_ACTIVE, {
      series: [{ kind: 'EventsNode', event: '$pageview' }],
      dateRange: { date_from: '2020-01-08', date_to: '2020-01-14' },
      compareFilter: { compare: true, compare_to: '-1w' },
    });
    // current: p1 on 4 days (Jan 9..12), p2 on 2 (Jan 9, 11); previous (Jan 1..7): p0 on Jan 3
    expect(r.results.map((x: any) => [x.compare_label, x.data, x.count])).toEqual([
      ['current', [0, 1, 0, 1, 0, 0, 0], 2],
      ['previous', [1, 0, 0, 0, 0, 0, 0], 1],
    ]);
  });
});
