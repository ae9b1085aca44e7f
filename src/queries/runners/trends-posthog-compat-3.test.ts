/**
 * TrendsQuery scenarios ported from PostHog's suites, third batch (the first two are trends-posthog-compat.test.ts and
 * trends-posthog-compat-2.test.ts): the less obvious cases of posthog/hogql_queries/insights/trends/test/test_trends.py
 * and test_trends_query_runner.py — active-user windows at an hour interval, session-level math with a breakdown,
 * all-events series, hourly compare, and more. Each test names the PostHog test it follows.
 */
import { createInsightTestDb, ev, type InsightTestDb, activeUsersFixture, useInsightsClock } from '../insights/testing';
import { runnerEvents } from './testing';
import { testEngine } from '../../engines/clickhouse/test-engine';
import { BREAKDOWN_NULL as NULL_V } from '../insights/breakdown';
import { trendsRunner, trendsActorsQuery } from './trends-runner';
import { insightActorsOptionsRunner } from './insight-actors-options-runner';
import { runInsightQuery } from '../insights/execute';
import { parseSelectSync } from '../../productql/parser';

let db: InsightTestDb;
const freeze = useInsightsClock();

const P_ACTIVE = 1; // _create_active_users_events()
const P_EVENTS = 2; // _create_events()
const P_SESSIONS = 3; // test_trends_breakdown_with_session_property_single_aggregate_math_and_breakdown
const P_PERSONS = 4; // test_breakdown_filtering_persons
const P_RUNNER = 5; // test_trends_query_runner._create_test_events (pageviews with prop 10/20/30/40)
const P_SPANNING = 6; // test_trends_with_session_property_total_volume_math_with_sessions_spanning_multiple_intervals
const P_PUSHDOWNS = 7; // test_trend_breakdown_user_props_with_filter_with_partial_property_pushdowns
const P_SUBSECOND = 8; // active users: events just after midnight

beforeAll(async () => {
  db = await createInsightTestDb();
  await db.load(P_ACTIVE, activeUsersFixture());
  await db.load(P_EVENTS, {
    persons: [{ distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val' } }],
    events: [
      ev('sign up', 'blabla', '2019-12-24T00:00:00Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:00:00Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'anonymous_id', '2020-01-01T00:00:00Z', { $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:00:00Z'),
      ev('sign up', 'blabla', '2020-01-02T00:00:00Z', { $some_property: 'other_value', $some_numerical_prop: 80 }),
      ev('no events', 'blabla', '2020-01-02T00:00:00Z'),
    ],
  });
  // Sessions by $some_property: value1 in sessions of 5, 10 and 15 s; value2 in the 10 s one and (twice) the 15 s one;
  // no value in a 1 s session.
  const s = (ts: string, sid: string, v?: string) => ev('sign up', 'blabla', ts, { $session_id: sid, ...(v ? { $some_property: v } : {}) });
  await db.load(P_SESSIONS, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: [
      s('2020-01-01T00:06:30Z', 's5', 'value1'),
      s('2020-01-01T00:06:35Z', 's5', 'value1'),
      s('2020-01-01T00:07:00Z', 's10', 'value1'),
      s('2020-01-01T00:07:10Z', 's10', 'value2'),
      s('2020-01-02T00:07:00Z', 's15', 'value1'),
      s('2020-01-02T00:07:05Z', 's15', 'value2'),
      s('2020-01-02T00:07:15Z', 's15', 'value2'),
      s('2020-01-03T00:07:00Z', 's1'),
      s('2020-01-03T00:07:01Z', 's1'),
    ],
  });
  await db.load(P_PERSONS, {
    persons: [
      { distinct_ids: ['person1'], properties: { email: 'test@posthog.com' } },
      { distinct_ids: ['person2'], properties: { email: 'test@gmail.com' } },
      { distinct_ids: ['person3'], properties: {} },
    ],
    events: [
      ev('sign up', 'person1', '2020-01-01T12:00:00Z', { key: 'val' }),
      ev('sign up', 'person2', '2020-01-01T12:00:00Z', { key: 'val' }),
      ev('sign up', 'person3', '2020-01-01T12:00:00Z', { key: 'val' }),
    ],
  });
  const props: Record<string, Record<string, unknown>> = { p1: { $browser: 'Chrome', prop: 10, bool_field: true }, p2: { $browser: 'Firefox', prop: 20, bool_field: false }, p3: { $browser: 'Edge', prop: 30, bool_field: true }, p4: { $browser: 'Safari', prop: 40, bool_field: false } };
  await db.load(P_RUNNER, {
    persons: Object.keys(props).map((d) => ({ distinct_ids: [d], properties: { name: d } })),
    events: runnerEvents(props),
  });
  await db.load(P_SPANNING, {
    persons: [
      { distinct_ids: ['blabla'], properties: { $some_prop: 'some_val' } },
      { distinct_ids: ['blabla2'], properties: { $some_prop: 'some_val' } },
    ],
    events: [
      ev('sign up', 'blabla', '2020-01-01T00:06:30Z', { $session_id: '1' }),
      ev('sign up', 'blabla', '2020-01-02T00:06:34Z', { $session_id: '1' }),
      ev('sign up', 'blabla', '2020-01-03T00:06:30Z', { $session_id: '1' }),
      ev('sign up', 'blabla', '2020-01-04T00:06:34Z', { $session_id: '1' }),
      ev('sign up', 'blabla2', '2020-01-02T00:06:30Z', { $session_id: '2' }),
      ev('sign up', 'blabla2', '2020-01-04T00:06:34Z', { $session_id: '2' }),
    ],
  });
  const pushdownPeople: [string, string, string, string][] = [
    ['person1', 'test@posthog.com', 'ios', 'chrome'],
    ['person2', 'test@gmail.com', 'ios', 'safari'],
    ['person3', 'test2@posthog.com', 'android', 'chrome'],
    ['person32', 'test2@posthog.com', 'android', 'chrome'],
    ['person4', 'test3@posthog.com', 'android', 'safari'],
    ['person5', 'test4@posthog.com', 'android', 'safari'],
    ['person6', 'test5@posthog.com', 'android', 'safari'],
  ];
  await db.load(P_PUSHDOWNS, {
    persons: pushdownPeople.map(([d, email, $os, $browser]) => ({ distinct_ids: [d], properties: { email, $os, $browser } })),
    events: pushdownPeople.map(([d]) => ev('sign up', d, '2020-05-01T00:00:00Z', { key: 'val' })),
  });
  await db.load(P_SUBSECOND, {
    events: [ev('$pageview', 'a', '2020-01-03T00:00:00.500Z'), ev('$pageview', 'b', '2020-01-03T00:00:00Z')],
  });
});

afterAll(async () => {
  await db.close();
});

const trends = (project: number, q: Record<string, unknown>, settings: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', ...q }, project, settings);
const PV = { kind: 'EventsNode', event: '$pageview' };
const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };

describe('test_trends.py: active users at an hour interval (_create_active_users_events)', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const HOURS = Array.from({ length: 12 }, (_, i) => `2020-01-09 ${String(6 + i).padStart(2, '0')}:00:00`);

  it('test_weekly_active_users_hourly: the window of hour d is (d − 6 days, d + 1 day]: p0 leaves at noon, p1 and p2 count before their events', async () => {
    const r = await trends(P_ACTIVE, {
      series: [{ ...PV, math: 'weekly_active' }],
      interval: 'hour',
      dateRange: { date_from: '2020-01-09T06:00:00Z', date_to: '2020-01-09T17:00:00Z' },
    });
    expect(r.results[0].days).toEqual(HOURS);
    expect(r.results[0].data).toEqual([3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2]);
  });

  it('monthly_active hourly: the window of hour d is (d − 29 days, d + 1 day]', async () => {
    const r = await trends(P_ACTIVE, {
      series: [{ ...PV, math: 'monthly_active' }],
      interval: 'hour',
      dateRange: { date_from: '2020-02-01T10:00:00Z', date_to: '2020-02-01T13:00:00Z' },
    });
    // p0's last event (Jan 3 12:00) leaves the window at Feb 1 12:00; p1 (Jan 12) and p2 (Jan 11) stay.
    expect(r.results[0].data).toEqual([3, 3, 2, 2]);
  });

  it('weekly_active hourly with a breakdown: the same window per value of each event', async () => {
    const r = await trends(P_ACTIVE, {
      series: [{ ...PV, math: 'weekly_active' }],
      interval: 'hour',
      dateRange: { date_from: '2020-01-09T06:00:00Z', date_to: '2020-01-09T17:00:00Z' },
      breakdownFilter: { breakdown: 'key' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['val', [2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1]],
      ['bor', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]],
    ]);
  });

  // (ClickHouse 18.16 compares whole seconds: there, 00:00:00.500 is midnight)
  (testEngine() === 'duckdb' ? it : it.skip)('weekly_active: 00:00:00.500 is after the start of its day, 00:00:00 the end of the day before', async () => {
    const r = await trends(P_SUBSECOND, { series: [{ ...PV, math: 'weekly_active' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-10' } });
    // a counts for Jan 3..9; b (exactly midnight) for Jan 2..8
    expect(r.results[0].data).toEqual([0, 1, 2, 2, 2, 2, 2, 2, 1, 0]);
  });

  it('the actors of an hourly weekly_active point are the actors of its window', async () => {
    const node = { kind: 'TrendsQuery', series: [{ ...PV, math: 'weekly_active' }], interval: 'hour', dateRange: { date_from: '2020-01-09T06:00:00Z', date_to: '2020-01-09T17:00:00Z' } };
    const parsed = trendsRunner.schema.parse(node);
    const actors = async (day: string) => {
      const { query } = await trendsActorsQuery(parsed, db.ctx(P_ACTIVE), { day });
      return (await runInsightQuery(db.ctx(P_ACTIVE), query)).rows.length;
    };
    expect(await actors('2020-01-09 06:00:00')).toBe(3);
    expect(await actors('2020-01-09 12:00:00')).toBe(2);
  });
});

describe('test_trends.py: _create_events, now 2020-01-04T13:00:01Z', () => {
  beforeEach(() => freeze('2020-01-04T13:00:01Z'));

  it('test_trends_any_event_total_count: event null counts every event', async () => {
    const all = await trends(P_EVENTS, { series: [{ kind: 'EventsNode', event: null, math: 'total' }] });
    const signUps = await trends(P_EVENTS, { series: [{ ...SIGN_UP, math: 'total' }] });
    expect(all.results[0].count).toBe(5);
    expect(all.results[0].label).toBe('All events');
    expect(signUps.results[0].count).toBe(4);
  });

  it('test_trends_compare_hour_interval_relative_range: dStart by hour against the same hours of the day before', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], interval: 'hour', dateRange: { date_from: 'dStart' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => x.compare_label)).toEqual(['current', 'previous']);
    expect(r.results[0].label).toBe('sign up');
    expect(r.results[0].labels[3]).toBe('hour 3');
    expect(r.results[0].days[3]).toBe('2020-01-04 03:00:00');
    expect(r.results[1].days[3]).toBe('2020-01-03 03:00:00');
    expect(r.results[0].days).toHaveLength(r.results[1].days.length);
  });

  it('weekly_active daily over midnight events: the window (d − 6 days, d + 1 day] takes an event at 00:00 as the day before', async () => {
    // Dec 24 00:00 counts for Dec 23..29, Jan 1 00:00 for Dec 31..Jan 6, Jan 2 00:00 for Jan 1..7 (one person).
    const r = await trends(P_EVENTS, { series: [{ ...SIGN_UP, math: 'weekly_active' }] });
    expect(r.results[0].data).toEqual([1, 1, 0, 1, 1, 1, 1, 1]);
    // the actors of a point are the ones it counts
    const parsed = trendsRunner.schema.parse({ kind: 'TrendsQuery', series: [{ ...SIGN_UP, math: 'weekly_active' }] });
    const ctx = db.ctx(P_EVENTS);
    const actors = async (day: string) => (await runInsightQuery(ctx, (await trendsActorsQuery(parsed, ctx, { day })).query)).rows.length;
    expect([await actors('2019-12-29'), await actors('2019-12-30'), await actors('2019-12-31')]).toEqual([1, 0, 1]);
  });

  it('test_breakdown_filtering: two series broken down, each ranked on its own; labels "<series> - <value>"', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP, { kind: 'EventsNode', event: 'no events' }], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown: '$some_property' } });
    expect(r.results.map((x: any) => [x.label, x.count])).toEqual([
      ['sign up - value', 2],
      ['sign up - other_value', 1],
      [`sign up - ${NULL_V}`, 2],
      [`no events - ${NULL_V}`, 1],
    ]);
  });

  it('histogram breakdown: events without the numeric value are the \'["",""]\' value (the bins\' multiIf else), ranked like any value', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], breakdownFilter: { breakdown: '$some_numerical_prop', breakdown_histogram_bin_count: 2 } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['["",""]', [0, 0, 0, 0, 3, 0, 0, 0]],
      ['[80.0,80.01]', [0, 0, 0, 0, 0, 1, 0, 0]],
    ]);
  });

  it('test_breakdown_filtering_bar_chart_by_value: ActionsBarValue aggregated per value, the null value last', async () => {
    const r = await trends(P_EVENTS, { series: [SIGN_UP], dateRange: { date_from: '-7d' }, breakdownFilter: { breakdown: '$some_property' }, trendsFilter: { display: 'ActionsBarValue' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['other_value', 1],
      ['value', 1],
      [NULL_V, 2],
    ]);
  });
});

describe('test_trends.py: session duration math with a breakdown', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('test_trends_breakdown_with_session_property_single_aggregate_math_and_breakdown: one duration per session per value', async () => {
    const r = await trends(P_SESSIONS, {
      series: [{ ...SIGN_UP, math: 'median', math_property: '$session_duration' }],
      interval: 'week',
      breakdownFilter: { breakdown: '$some_property' },
      trendsFilter: { display: 'ActionsTable' },
    });
    // value1: sessions of 5, 10 and 15 s; value2: 10 and 15 s (the 15 s session once); no value: 1 s.
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['value2', 12.5],
      ['value1', 10],
      [NULL_V, 1],
    ]);
  });
});

describe('test_trends.py: test_breakdown_filtering_persons', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('person breakdown: values ascending on a tie, a person without the property under the null value, last', async () => {
    const r = await trends(P_PERSONS, { series: [SIGN_UP], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown: 'email', breakdown_type: 'person' } });
    expect(r.results.map((x: any) => [x.label, x.count])).toEqual([
      ['test@gmail.com', 1],
      ['test@posthog.com', 1],
      [NULL_V, 1],
    ]);
  });
});

describe('test_trends.py: session durations across intervals', () => {
  beforeEach(() => freeze('2020-01-04T13:00:01Z'));

  it('test_trends_with_session_property_total_volume_math_with_sessions_spanning_multiple_intervals: a session counts whole in each day it has events', async () => {
    const r = await trends(P_SPANNING, { series: [{ ...SIGN_UP, math: 'median', math_property: '$session_duration' }] });
    // session 1: Jan 1 00:06:30 → Jan 4 00:06:34 (259204 s); session 2: Jan 2 00:06:30 → Jan 4 00:06:34 (172804 s)
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 259204, 216004, 259204, 216004]);
  });
});

describe('test_trends_query_runner.py: histogram breakdowns', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const HISTOGRAM = { breakdown_type: 'event', breakdown: 'prop', breakdown_histogram_bin_count: 4 };
  const source = { kind: 'TrendsQuery', series: [PV], dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' }, breakdownFilter: HISTOGRAM };

  it('test_trends_breakdowns_histogram: 4 bins at the quantiles of the values 10, 20, 30, 40 (equal here), the last one up to max + 0.01', async () => {
    const r = await trends(P_RUNNER, source);
    expect(r.results.map((x: any) => [x.breakdown_value, x.label, x.data])).toEqual([
      ['[10.0,17.5]', '[10.0,17.5]', [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]],
      ['[17.5,25.0]', '[17.5,25.0]', [1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0]],
      ['[25.0,32.5]', '[25.0,32.5]', [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]],
      ['[32.5,40.01]', '[32.5,40.01]', [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]],
    ]);
  });

  it('insight actors of a histogram bin (InsightActorsQuery breakdown "[lo,hi]"): the actors whose value falls in the bin', async () => {
    const parsed = trendsRunner.schema.parse(source);
    const ctx = db.ctx(P_RUNNER);
    const actors = async (point: Record<string, unknown>) => {
      const { query } = await trendsActorsQuery(parsed, ctx, point);
      return (await runInsightQuery(ctx, query)).rows.map((r) => String(r.actor_id)).sort();
    };
    const personOf = async (distinctId: string) =>
      String((await runInsightQuery(ctx, parseSelectSync(`select person_id from events where distinct_id = '${distinctId}' limit 1`))).rows[0].person_id);
    expect(await actors({ day: '2020-01-12', breakdown: '[17.5,25.0]' })).toEqual([await personOf('p2')]);
    expect(await actors({ day: '2020-01-12', breakdown: '[10.0,17.5]' })).toEqual([await personOf('p1')]);
    expect(await actors({ day: '2020-01-11', breakdown: '[32.5,40.01]' })).toEqual([]);
    expect(await actors({ day: '2020-01-15', breakdown: '[32.5,40.01]' })).toEqual([await personOf('p4')]);
  });
});

describe('test_trends.py: test_trend_breakdown_user_props_with_filter_with_partial_property_pushdowns', () => {
  beforeEach(() => freeze('2020-07-01T12:00:00Z'));

  it('a person breakdown under AND of two OR groups mixing person and event filters', async () => {
    const r = await trends(P_PUSHDOWNS, {
      series: [SIGN_UP],
      dateRange: { date_from: '2020-01-01 00:00:00', date_to: '2020-07-01 00:00:00' },
      breakdownFilter: { breakdown: 'email', breakdown_type: 'person' },
      properties: {
        type: 'AND',
        values: [
          { type: 'OR', values: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }, { key: 'key', value: 'val' }] },
          { type: 'OR', values: [{ key: '$os', value: 'android', operator: 'exact', type: 'person' }, { key: '$browser', value: 'safari', operator: 'exact', type: 'person' }] },
        ],
      },
    });
    // person1 (ios, chrome) matches neither of the second group's filters
    const sorted = [...r.results].sort((a: any, b: any) => (a.breakdown_value < b.breakdown_value ? -1 : 1));
    expect(sorted.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['test2@posthog.com', 2],
      ['test3@posthog.com', 1],
      ['test4@posthog.com', 1],
      ['test5@posthog.com', 1],
      ['test@gmail.com', 1],
    ]);
    expect(r.results[0].days).toHaveLength(183);
  });
});

describe('test_trends_query_runner.py: to_actors_query_options (InsightActorsQueryOptions)', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const dateRange = { date_from: '2020-01-09', date_to: '2020-01-20' };
  const options = (source: Record<string, unknown>, project = P_RUNNER) =>
    db.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', dateRange, series: [PV], ...source } } }, project);
  const labels = (xs: { label: string; value: unknown }[] | null) => xs && xs.map((x) => [x.label, x.value]);

  it('test_to_actors_query_options: a day per interval (label and start), the series, no breakdown or compare', async () => {
    const r = await options({});
    expect(r.day).toHaveLength(12);
    expect(r.day[0]).toEqual({ label: '9-Jan-2020', value: '2020-01-09T00:00:00Z' });
    expect(r.day[11]).toEqual({ label: '20-Jan-2020', value: '2020-01-20T00:00:00Z' });
    expect(r.series).toEqual([{ label: '$pageview', value: 0 }]);
    expect(r.breakdown).toBeNull();
    expect(r.compare).toBeNull();
    const pacific = await db.run(
      insightActorsOptionsRunner,
      { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', dateRange, series: [PV], interval: 'hour' } } },
      P_RUNNER,
      { timezone: 'US/Pacific' },
    );
    expect(pacific.day[1]).toEqual({ label: '9-Jan 01:00', value: '2020-01-09T01:00:00-08:00' });
  });

  it('test_to_actors_query_options_compare: Current and Previous', async () => {
    const r = await options({ compareFilter: { compare: true } });
    expect(r.compare).toEqual([
      { label: 'Current', value: 'current' },
      { label: 'Previous', value: 'previous' },
    ]);
    expect(r.series).toEqual([{ label: '$pageview', value: 0 }]);
  });

  it('test_to_actors_query_options_breakdowns: the values of the insight, in its order', async () => {
    const r = await options({ breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' } });
    expect(labels(r.breakdown)).toEqual([
      ['Chrome', 'Chrome'],
      ['Firefox', 'Firefox'],
      ['Edge', 'Edge'],
      ['Safari', 'Safari'],
    ]);
    const hogql = await options({ breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.$browser' } });
    expect(hogql.breakdown).toEqual(r.breakdown);
  });

  it('test_to_actors_query_options_breakdowns_boolean: "true" and "false"', async () => {
    const r = await options({ breakdownFilter: { breakdown_type: 'event', breakdown: 'bool_field' } });
    expect(labels(r.breakdown)).toEqual([
      ['true', 'true'],
      ['false', 'false'],
    ]);
  });

  it('test_to_actors_query_options_breakdowns_histogram: the bins', async () => {
    const r = await options({ breakdownFilter: { breakdown_type: 'event', breakdown: 'prop', breakdown_histogram_bin_count: 4 } });
    expect(r.breakdown.map((x: any) => x.value)).toEqual(['[10.0,17.5]', '[17.5,25.0]', '[25.0,32.5]', '[32.5,40.01]']);
  });

  it('test_to_actors_query_options_bar_value: no days on a total-value display', async () => {
    const r = await options({ trendsFilter: { display: 'ActionsBarValue' } });
    expect(r.day).toBeNull();
    expect(r.series).toEqual([{ label: '$pageview', value: 0 }]);
  });

  it('test_to_actors_query_options_multiple_breakdowns: the values per breakdown', async () => {
    const r = await options({ breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: 'bool_field' }] } });
    expect(r.breakdown).toBeNull();
    expect(r.breakdowns.map((b: any) => b.values.map((x: any) => x.value))).toEqual([
      ['Chrome', 'Firefox', 'Edge', 'Safari'],
      ['true', 'false'],
    ]);
  });

  it('several series (an all-events one)', async () => {
    const r = await options({ series: [PV, { kind: 'EventsNode', event: null }] });
    expect(r.series).toEqual([
      { label: '$pageview', value: 0 },
      { label: 'All events', value: 1 },
    ]);
  });
});

describe('GroupNode series (reference §1.2: trends combine the nodes with OR)', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const dateRange = { date_from: '2020-01-09', date_to: '2020-01-20' };
  const group = (extra: Record<string, unknown> = {}) => ({
    kind: 'GroupNode',
    operator: 'OR',
    nodes: [
      { kind: 'EventsNode', event: '$pageview', properties: [{ type: 'event', key: '$browser', value: 'Chrome' }] },
      { kind: 'EventsNode', event: '$pageleave' },
    ],
    ...extra,
  });

  it('one series over the events of every node, each node with its own properties', async () => {
    const r = await trends(P_RUNNER, { series: [group()], dateRange });
    // Chrome pageviews (p1: 9) + pageleaves (p1: 3, p2, p3, p4: 1 each)
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ label: '$pageview, $pageleave', count: 15 });
    expect(r.results[0].data).toEqual([0, 0, 2, 2, 3, 1, 1, 3, 1, 1, 1, 0]);
    expect(r.results[0].action).toMatchObject({ id: null, type: 'events', name: '$pageview, $pageleave', order: 0 });
  });

  it("the group's math, name, properties and breakdown apply to all of its events", async () => {
    const r = await trends(P_RUNNER, {
      series: [group({ math: 'dau', name: 'Engaged', properties: [{ type: 'person', key: 'name', operator: 'is_not', value: 'p4' }] })],
      dateRange,
      breakdownFilter: { breakdown: '$browser' },
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(r.results.map((x: any) => [x.label, x.breakdown_value, x.aggregated_value])).toEqual([
      ['Chrome', 'Chrome', 1],
      ['Edge', 'Edge', 1],
      ['Firefox', 'Firefox', 1],
    ]);
    expect(r.results[0].action.name).toBe('Engaged');
  });

  it('the actors of a GroupNode point: anyone with an event of any node that day', async () => {
    const parsed = trendsRunner.schema.parse({ kind: 'TrendsQuery', series: [group()], dateRange });
    const ctx = db.ctx(P_RUNNER);
    const { query } = await trendsActorsQuery(parsed, ctx, { day: '2020-01-13' });
    const rows = (await runInsightQuery(ctx, query)).rows;
    // p1 (a Chrome pageview and a pageleave) and p3 (a pageleave; its Edge pageview does not match)
    expect(rows.map((r) => Number(r.event_count)).sort()).toEqual([1, 2]);
  });

  it('operator AND, and an empty node list, are 400s', async () => {
    await expect(trends(P_RUNNER, { series: [group({ operator: 'AND' })], dateRange })).rejects.toMatchObject({ status: 400, attr: 'series__0__operator' });
    await expect(trends(P_RUNNER, { series: [group({ nodes: [] })], dateRange })).rejects.toThrow(/at least one node/);
  });
});
