/**
 * More TrendsQuery scenarios ported from PostHog's suites (second batch; the first is trends-posthog-compat.test.ts):
 * posthog/queries/trends/test/test_formula.py (the legacy formula suite, kept by the query runner),
 * posthog/hogql_queries/insights/trends/test/test_trends_query_runner.py (its full `_create_test_events`, with
 * `bool_field`, `nullable_prop` and the person email the test-account filter looks at), test_trends.py (groups,
 * timezones) and the math types test_aggregation_operations.py lists. Each test names the PostHog test it follows.
 */
import { createInsightTestDb, ev, eventCountPerActorFixture, type InsightTestDb, useInsightsClock } from '../insights/testing';
import { formulaSetUp, multiplePeople, RUNNER_PEOPLE, runnerEvents } from './testing';
import { BREAKDOWN_NULL as NULL_V, BREAKDOWN_OTHER as OTHER } from '../insights/breakdown';
import { trendsRunner } from './trends-runner';

let db: InsightTestDb;
const freeze = useInsightsClock();

const P_FORMULA = 1; // test_formula.py setUp
const P_RUNNER = 2; // test_trends_query_runner._create_test_events (complete)
const P_LIMIT = 3; // test_breakdown_values_limit: 30 values
const P_WORLD = 4; // test_breakdown_values_world_map_limit: 250 values
const P_FIRST = 5; // first_time_for_user vs first_matching_event_for_user
const P_GROUPS = 6; // _create_event_count_per_actor_events (groups)
const P_DST = 7; // test_non_deterministic_timezones
const P_ROUNDING = 8; // test_trends_query_formula_rounding; timezone buckets
const P_PEOPLE = 9; // test_trends.py _create_multiple_people
const P_PIE = 10; // test_breakdown_by_property_pie
const P_URLS = 11; // test_breakdown_filtering_with_properties(_in_new_format)
const P_DATES = 12; // test_trends.py _test_events_with_dates: one event name per test
const P_WAU_BREAKDOWN = 13; // test_breakdown_weekly_active_users_*

beforeAll(async () => {
  db = await createInsightTestDb();
  await db.load(P_FORMULA, formulaSetUp());
  // test_trends_query_runner._create_test_events (RUNNER_PEOPLE: their properties are on their events too)
  await db.load(P_RUNNER, {
    // (`age` is not in PostHog's setup: a numeric person property for person-property math)
    persons: Object.keys(RUNNER_PEOPLE).map((d) => ({ distinct_ids: [d], properties: { name: d, age: RUNNER_PEOPLE[d].prop, ...(d === 'p1' ? { email: 'test@posthog.com' } : {}) } })),
    events: runnerEvents(RUNNER_PEOPLE),
  });
  await db.load(P_LIMIT, {
    events: Array.from({ length: 30 }, (_, v) => ev('$pageview', `person_${v}`, '2020-01-11T12:00:00Z', { breakdown_value: String(v) })),
  });
  await db.load(P_WORLD, {
    events: Array.from({ length: 250 }, (_, v) => ev('$pageview', `person_${v}`, '2020-01-11T12:00:00Z', { breakdown_value: String(v) })),
  });
  // u1 viewed first with Firefox (before the range), u2 first with Chrome in range, u3 first with Safari then Chrome.
  await db.load(P_FIRST, {
    persons: ['u1', 'u2', 'u3'].map((d) => ({ distinct_ids: [d], properties: { name: d } })),
    events: [
      ev('$pageview', 'u1', '2020-01-08T10:00:00Z', { $browser: 'Firefox' }),
      ev('$pageview', 'u1', '2020-01-10T10:00:00Z', { $browser: 'Chrome' }),
      ev('$pageview', 'u1', '2020-01-11T10:00:00Z', { $browser: 'Chrome' }),
      ev('$pageview', 'u2', '2020-01-10T11:00:00Z', { $browser: 'Chrome' }),
      ev('$pageview', 'u3', '2020-01-12T10:00:00Z', { $browser: 'Safari' }),
      ev('$pageview', 'u3', '2020-01-12T11:00:00Z', { $browser: 'Chrome' }),
    ],
  });
  // _create_event_count_per_actor_events (viewed video with $group_0)
  await db.load(P_GROUPS, eventCountPerActorFixture());
  // test_non_deterministic_timezones: weekly sign ups across the end of daylight saving time (US/Pacific, 2022-11-06).
  await db.load(P_DST, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: ['2022-11-03T01:01:01Z', '2022-11-10T01:01:01Z', '2022-11-17T08:30:01Z', '2022-11-24T08:30:01Z', '2022-11-30T08:30:01Z'].map((t) => ev('sign up', 'blabla', t)),
  });
  await db.load(P_PEOPLE, multiplePeople());
  await db.load(P_PIE, {
    persons: ['person1', 'person2', 'person3'].map((d) => ({ distinct_ids: [d], properties: { name: d } })),
    events: [
      ev('watched movie', 'person1', '2020-01-01T12:00:00Z', { fake_prop: 'value_1' }),
      ev('watched movie', 'person2', '2020-01-01T12:00:00Z', { fake_prop: 'value_1' }),
      ev('watched movie', 'person2', '2020-01-02T12:00:00Z', { fake_prop: 'value_2' }),
      ev('watched movie', 'person3', '2020-01-01T12:00:00Z', { fake_prop: 'value_1' }),
    ],
  });
  await db.load(P_URLS, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: [
      ev('sign up', 'blabla', '2020-01-03T13:01:01Z', { $current_url: 'first url', $browser: 'Firefox', $os: 'Mac' }),
      ev('sign up', 'blabla', '2020-01-03T13:01:01Z', { $current_url: 'first url', $browser: 'Chrome', $os: 'Mac' }),
      ev('sign up', 'blabla', '2020-01-04T13:01:01Z', { $current_url: 'second url', $browser: 'Firefox', $os: 'Mac' }),
      ev('sign up', 'blabla', '2020-01-04T13:01:01Z', { $current_url: 'second url', $browser: 'Chrome', $os: 'Windows' }),
    ],
  });
  const dated = (name: string, dates: string[]) => dates.map((d) => ev(name, 'someone', `${d.length === 10 ? `${d}T00:00:00` : d.replace(' ', 'T')}Z`));
  await db.load(P_DATES, {
    persons: [{ distinct_ids: ['someone'], properties: {} }],
    events: [
      ...dated('hour', ['2020-11-01 13:00:00', '2020-11-01 13:20:00', '2020-11-01 17:00:00']),
      ...dated('week', ['2020-11-01', '2020-11-10', '2020-11-11', '2020-11-18']),
      ...dated('month', ['2020-07-10', '2020-07-30', '2020-10-18']),
      ...dated('rounding_monthly', ['2020-06-02', '2020-07-30']),
      ...dated('today', ['2020-11-01 10:20:00', '2020-11-01 10:22:00', '2020-11-01 11:00:00']),
      ...dated('yesterday', ['2020-11-01 05:20:00', '2020-11-01 10:22:00', '2020-11-01 10:25:00']),
      ...dated('last7days', ['2020-11-01 05:20:00', '2020-11-02 10:22:00', '2020-11-04 10:25:00', '2020-11-05 08:25:00']),
      ...dated('ytd', ['2020-01-01 05:20:00', '2020-01-11 10:22:00', '2020-02-24 10:25:00', '2020-02-05 08:25:00', '2020-03-05 08:25:00', '2020-05-10 08:25:00']),
      ...dated('custom', ['2020-01-05 05:20:00', '2020-01-05 10:22:00', '2020-01-04 10:25:00', '2020-01-11 08:25:00', '2020-01-09 08:25:00']),
      // _create_events(use_time=True)'s sign ups
      ...dated('sign up', ['2019-12-24 03:45:34', '2020-01-01 00:06:34', '2020-01-01 00:06:34', '2020-01-01 00:06:34', '2020-01-02 16:34:34']),
    ],
  });
  await db.load(P_WAU_BREAKDOWN, {
    persons: ['p1', 'p2'].map((d) => ({ distinct_ids: [d], properties: { name: d } })),
    events: [
      ev('$pageview', 'p1', '2020-01-09T12:00:00Z', { key: 'val' }),
      ev('$pageview', 'p1', '2020-01-10T12:00:00Z', { key: 'val' }),
      ev('$pageview', 'p1', '2020-01-11T12:00:00Z', { key: 'val' }),
      ev('$pageview', 'p2', '2020-01-09T12:00:00Z', { key: 'val' }),
      ev('$pageview', 'p2', '2020-01-11T12:00:00Z', { key: 'val' }),
    ],
  });
  await db.load(P_ROUNDING, {
    persons: [{ distinct_ids: ['p1'], properties: {} }],
    events: [
      ev('$pageleave', 'p1', '2020-01-11T12:00:00Z'),
      ev('$pageview', 'p1', '2020-01-11T12:00:00Z'),
      ev('$pageview', 'p1', '2020-01-11T12:00:00Z'),
      ev('$pageview', 'p1', '2020-01-11T12:00:00Z'),
      ev('tz', 'p1', '2020-02-01T03:00:00Z'),
      ev('tz', 'p1', '2020-02-01T09:00:00Z'),
    ],
  });
});

afterAll(async () => {
  await db.close();
});

const trends = (project: number, q: Record<string, unknown>, settings: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', ...q }, project, settings);
const values = (r: any) => r.results.map((x: any) => x.breakdown_value);

describe('test_formula.py (sum and avg of "session duration", formula A + B)', () => {
  const SUM = { kind: 'EventsNode', event: 'session start', math: 'sum', math_property: 'session duration' };
  const AVG = { kind: 'EventsNode', event: 'session start', math: 'avg', math_property: 'session duration' };
  const run = (extra: Record<string, unknown> = {}, trendsFilter: Record<string, unknown> = {}, runAt = '2020-01-04T13:01:01Z') => {
    freeze(runAt);
    return trends(P_FORMULA, { series: [SUM, AVG], trendsFilter: { formula: 'A + B', ...trendsFilter }, ...extra });
  };
  const Z5 = [0, 0, 0, 0, 0];

  it('test_hour_interval', async () => {
    const r = await run({ dateRange: { date_from: '-1d' }, interval: 'hour' }, {}, '2020-01-03T13:05:01Z');
    const data = r.results[0].data;
    expect(data).toHaveLength(38); // Jan 2 00:00 .. Jan 3 13:00
    expect(data[13]).toBe(1200);
    expect(data[37]).toBe(1350);
    expect(r.results[0].count).toBe(2550);
  });

  it('test_day_interval', async () => {
    const r = await run({ dateRange: { date_from: '-3d' } }, {}, '2020-01-03T13:05:01Z');
    expect(r.results[0].data).toEqual([0, 0, 1200, 1350]);
  });

  it('test_week_interval', async () => {
    const r = await run({ dateRange: { date_from: '-2w' }, interval: 'week' }, {}, '2020-01-03T13:05:01Z');
    expect(r.results[0].data).toEqual([0, 0, 2160]);
  });

  it('test_month_interval', async () => {
    const r = await run({ dateRange: { date_from: '-2m' }, interval: 'month' }, {}, '2020-01-03T13:05:01Z');
    expect(r.results[0].data).toEqual([0, 0, 2160]);
  });

  it.each<[string, number[]]>([
    ['A + B', [...Z5, 1200, 1350, 0]],
    ['A - B', [...Z5, 600, 450, 0]],
    ['A * B', [...Z5, 270000, 405000, 0]],
    ['A / B', [...Z5, 3, 2, 0]],
    ['A / 0', [...Z5, 0, 0, 0]],
    ['A - B - 100', [-100, -100, -100, -100, -100, 500, 350, -100]],
    ['-A', [...Z5, -900, -900, 0]],
  ])('test_formula: %s', async (formula, data) => {
    const r = await run({}, { formula });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].data).toEqual(data);
    expect(r.results[0].count).toBe(data.reduce((a, b) => a + b, 0));
  });

  it('test_formula: (A/3600)/B keeps fractions; count is their sum', async () => {
    const r = await run({}, { formula: '(A/3600)/B' });
    expect(r.results[0].data[5]).toBeCloseTo(1 / 1200, 12);
    expect(r.results[0].data[6]).toBeCloseTo(1 / 1800, 12);
    expect(r.results[0].count).toBeCloseTo(1 / 720, 12);
  });

  it('test_aggregated (ActionsTable) and test_pie (ActionsPie): the formula over the aggregated values', async () => {
    for (const display of ['ActionsTable', 'ActionsPie']) {
      const r = await run({}, { display });
      expect(r.results).toHaveLength(1);
      expect(r.results[0]).toMatchObject({ aggregated_value: 2160, data: [], count: 0 });
    }
  });

  it('test_cumulative', async () => {
    const r = await run({}, { display: 'ActionsLineGraphCumulative' });
    expect(r.results[0].data).toEqual([...Z5, 1200, 2550, 2550]);
  });

  it('test_compare: -1dStart, current and previous periods', async () => {
    const r = await run({ dateRange: { date_from: '-1dStart' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-01-03', '2020-01-04'], [1350, 0]],
      ['previous', ['2020-01-01', '2020-01-02'], [0, 1200]],
    ]);
  });

  it('test_global_properties', async () => {
    const r = await run({ properties: [{ key: '$os', value: 'Windows', type: 'event' }] });
    expect(r.results[0].data).toEqual([...Z5, 800, 1350, 0]);
  });

  it('test_event_properties: a series filter applies to its series only', async () => {
    freeze('2020-01-04T13:01:01Z');
    const r = await trends(P_FORMULA, {
      series: [{ ...SUM, properties: [{ key: '$current_url', value: 'http://example.org', type: 'event' }] }, AVG],
      trendsFilter: { formula: 'A + B' },
    });
    expect(r.results[0].data).toEqual([...Z5, 500, 450, 0]);
  });

  it('test_breakdown: A - B per location', async () => {
    const r = await run({ breakdownFilter: { breakdown: 'location' } }, { formula: 'A - B' });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['London', [...Z5, 0, 450, 0]],
      ['Paris', [...Z5, 250, 0, 0]],
    ]);
  });

  it('test_breakdown_mismatching_sizes: values of either series; ties keep the order the values first appear in', async () => {
    freeze('2020-01-04T13:01:01Z');
    const r = await trends(P_FORMULA, {
      series: [
        { kind: 'EventsNode', event: 'session start' },
        { kind: 'EventsNode', event: 'session end' },
      ],
      breakdownFilter: { breakdown: 'location' },
      trendsFilter: { formula: 'A + B' },
    });
    // London 1 + 3, Paris 2 (session start only), Berlin 2 (session end only): Paris was seen first (series A).
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['London', [...Z5, 1, 3, 0]],
      ['Paris', [...Z5, 2, 0, 0]],
      ['Berlin', [...Z5, 0, 2, 0]],
    ]);
    expect(r.results.every((x: any) => x.action === null)).toBe(true);
  });

  it('test_breakdown_counts_of_different_events_one_without_events: B / A with B empty is zero per value', async () => {
    freeze('2020-01-04T13:01:01Z');
    const r = await trends(P_FORMULA, {
      series: [
        { kind: 'EventsNode', event: 'session start', name: 'session start' },
        { kind: 'EventsNode', event: 'session error', name: 'session error' },
      ],
      breakdownFilter: { breakdown: 'location', breakdown_type: 'event' },
      trendsFilter: { formula: 'B / A', display: 'ActionsLineGraph' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data, x.count])).toEqual([
      ['London', [0, 0, 0, 0, 0, 0, 0, 0], 0],
      ['Paris', [0, 0, 0, 0, 0, 0, 0, 0], 0],
    ]);
  });

  it('formula with breakdown and compare: per period, per value', async () => {
    const r = await run({ dateRange: { date_from: '-1dStart' }, compareFilter: { compare: true }, breakdownFilter: { breakdown: 'location' } });
    expect(r.results.map((x: any) => [x.compare_label, x.breakdown_value, x.data])).toEqual([
      ['current', 'London', [1350, 0]],
      ['previous', 'London', [0, 800]],
      ['previous', 'Paris', [0, 750]],
    ]);
  });

  it('formula with breakdown on a total-value display: aggregated per value, ordered by it', async () => {
    const r = await run({ breakdownFilter: { breakdown: 'location' } }, { display: 'ActionsPie' });
    expect(r.results.map((x: any) => x.breakdown_value)).toEqual(['London', 'Paris']);
    expect(r.results[0].aggregated_value).toBeCloseTo(1300 + 1300 / 3, 9);
    expect(r.results[1].aggregated_value).toBe(750);
  });
});

describe('test_trends_query_runner.py: _create_test_events', () => {
  beforeEach(() => freeze('2020-01-21T00:00:00Z'));
  const range = { date_from: '2020-01-09', date_to: '2020-01-20' };
  const PAGEVIEW = { kind: 'EventsNode', event: '$pageview' };
  const PAGELEAVE = { kind: 'EventsNode', event: '$pageleave' };
  const pv = (extra: Record<string, unknown> = {}, q: Record<string, unknown> = {}) => trends(P_RUNNER, { series: [{ ...PAGEVIEW, ...extra }], dateRange: range, ...q });

  it.each<[string, Record<string, unknown>, number[]]>([
    ['test_trends_aggregation_total', {}, [1, 0, 1, 3, 2, 1, 3, 1, 1, 1, 1, 0]],
    ['test_trends_aggregation_dau', { math: 'dau' }, [1, 0, 1, 3, 2, 1, 3, 1, 1, 1, 1, 0]],
    ['test_trends_aggregation_wau', { math: 'weekly_active' }, [1, 1, 2, 3, 3, 3, 4, 4, 4, 4, 3, 3]],
    ['test_trends_aggregation_mau', { math: 'monthly_active' }, [1, 1, 2, 3, 3, 3, 4, 4, 4, 4, 4, 4]],
    ['test_trends_aggregation_property_sum', { math: 'sum', math_property: 'prop' }, [20, 0, 10, 60, 30, 10, 70, 10, 10, 10, 10, 0]],
    ['test_trends_aggregation_property_min', { math: 'min', math_property: 'prop' }, [20, 0, 10, 10, 10, 10, 10, 10, 10, 10, 10, 0]],
    ['test_trends_aggregation_property_max', { math: 'max', math_property: 'prop' }, [20, 0, 10, 30, 20, 10, 40, 10, 10, 10, 10, 0]],
    ['test_trends_aggregation_property_median', { math: 'median', math_property: 'prop' }, [20, 0, 10, 20, 15, 10, 20, 10, 10, 10, 10, 0]],
    ['test_trends_aggregation_property_p90', { math: 'p90', math_property: 'prop' }, [20, 0, 10, 28, 19, 10, 36, 10, 10, 10, 10, 0]],
    ['person property math (math_property_type person_properties)', { math: 'sum', math_property: 'age', math_property_type: 'person_properties' }, [20, 0, 10, 60, 30, 10, 70, 10, 10, 10, 10, 0]],
    ['person property math over a text property: no numbers, zeros', { math: 'max', math_property: 'name', math_property_type: 'person_properties' }, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
    ['test_trends_aggregation_per_actor_min', { math: 'min_count_per_actor' }, [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]],
    ['test_trends_aggregation_per_actor_p99', { math: 'p99_count_per_actor' }, [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]],
  ])('%s', async (_, math, data) => {
    const r = await pv(math);
    expect(r.results[0].data.map((x: number) => Math.round(x * 1e9) / 1e9)).toEqual(data);
  });

  it('test_trends_aggregation_property_avg: fractional values are kept', async () => {
    const r = await pv({ math: 'avg', math_property: 'prop' });
    expect(r.results[0].data[6]).toBeCloseTo(70 / 3, 9);
    expect(r.results[0].data.slice(0, 6)).toEqual([20, 0, 10, 20, 15, 10]);
  });

  it('property math over a string property holding numbers ("1.1", "2.0")', async () => {
    const r = await pv({ math: 'sum', math_property: 'nullable_prop' });
    expect(r.results[0].data.map((x: number) => Math.round(x * 100) / 100)).toEqual([2, 0, 1.1, 3.1, 3.1, 1.1, 3.1, 1.1, 1.1, 1.1, 1.1, 0]);
  });

  it('count per actor quantiles interpolate between actors (p75/p90/median_count_per_actor)', async () => {
    // whole range: p1 9 events, p2 4, p3 1, p4 1 → [1, 1, 4, 9]
    const q = (math: string) => pv({ math }, { trendsFilter: { display: 'BoldNumber' } }).then((r) => r.results[0].aggregated_value);
    expect(await q('median_count_per_actor')).toBeCloseTo(2.5, 9);
    expect(await q('p75_count_per_actor')).toBeCloseTo(5.25, 9);
    expect(await q('p90_count_per_actor')).toBeCloseTo(7.5, 9);
    expect(await q('min_count_per_actor')).toBe(1);
    expect(await q('max_count_per_actor')).toBe(9);
  });

  it('test_properties_filtering: an exact $browser filter under a $browser breakdown leaves Firefox alone', async () => {
    const r = await pv({}, { breakdownFilter: { breakdown: '$browser' }, properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Firefox' }] });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([['Firefox', [1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0]]]);
  });

  it('test_properties_filtering_with_property_group: an AND group holding an OR group of two browsers', async () => {
    const r = await pv(
      {},
      {
        breakdownFilter: { breakdown: '$browser' },
        properties: {
          type: 'AND',
          values: [
            {
              type: 'OR',
              values: [
                { type: 'event', key: '$browser', operator: 'exact', value: 'Firefox' },
                { type: 'event', key: '$browser', operator: 'exact', value: 'Edge' },
              ],
            },
          ],
        },
      },
    );
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['Firefox', [1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0]],
      ['Edge', [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]],
    ]);
  });

  it('test_previous_period_with_number_display: BoldNumber with compare answers one item per period', async () => {
    const r = await pv({}, { trendsFilter: { display: 'BoldNumber' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.aggregated_value])).toEqual([
      ['current', 15],
      ['previous', 0],
    ]);
  });

  it('test_trends_display_cumulative', async () => {
    const r = await pv({}, { trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    expect(r.results[0]).toMatchObject({ data: [1, 1, 2, 5, 7, 8, 11, 12, 13, 14, 15, 15], count: 15 });
  });

  it('test_trends_breakdowns_boolean: "true" and "false"', async () => {
    const r = await pv({}, { breakdownFilter: { breakdown_type: 'event', breakdown: 'bool_field' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.label, x.count, x.data])).toEqual([
      ['true', 'true', 10, [0, 0, 1, 2, 1, 1, 1, 1, 1, 1, 1, 0]],
      ['false', 'false', 5, [1, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0]],
    ]);
  });

  it('breakdown by a nullable string property: values verbatim ("2.0" stays), missing → null sentinel', async () => {
    const r = await pv({}, { breakdownFilter: { breakdown: 'nullable_prop' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['1.1', 9],
      ['2.0', 4],
      [NULL_V, 2],
    ]);
  });

  it('test_trends_breakdowns_hogql and by person property: the same values', async () => {
    const hogql = await pv({}, { breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.$browser' } });
    expect(hogql.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['Chrome', 9],
      ['Firefox', 4],
      ['Edge', 1],
      ['Safari', 1],
    ]);
    const person = await pv({}, { breakdownFilter: { breakdown_type: 'person', breakdown: 'name' } });
    expect(person.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['p1', 9],
      ['p2', 4],
      ['p3', 1],
      ['p4', 1],
    ]);
  });

  it('test_trends_breakdown_and_aggregation_query_orchestration: sum of prop per $browser, ranked by the sum', async () => {
    const r = await pv({ math: 'sum', math_property: 'prop' }, { breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['Chrome', [0, 0, 10, 10, 10, 10, 10, 10, 10, 10, 10, 0]],
      ['Firefox', [20, 0, 0, 20, 20, 0, 20, 0, 0, 0, 0, 0]],
      ['Safari', [0, 0, 0, 0, 0, 0, 40, 0, 0, 0, 0, 0]],
      ['Edge', [0, 0, 0, 30, 0, 0, 0, 0, 0, 0, 0, 0]],
    ]);
  });

  it('test_trends_breakdowns_and_compare: each period ranks its own values', async () => {
    const r = await trends(P_RUNNER, {
      series: [PAGEVIEW],
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' },
      breakdownFilter: { breakdown: '$browser' },
      compareFilter: { compare: true },
    });
    expect(r.results.map((x: any) => [x.compare_label, x.breakdown_value, x.label, x.count])).toEqual([
      ['current', 'Chrome', 'Chrome', 5],
      ['current', 'Firefox', 'Firefox', 1],
      ['current', 'Safari', 'Safari', 1],
      ['previous', 'Chrome', 'Chrome', 4],
      ['previous', 'Firefox', 'Firefox', 2],
      ['previous', 'Edge', 'Edge', 1],
    ]);
    expect(r.results[0].data).toEqual([1, 1, 1, 1, 1]);
    expect(r.results[3].days).toEqual(['2020-01-10', '2020-01-11', '2020-01-12', '2020-01-13', '2020-01-14']);
    expect(r.results.every((x: any) => x.compare === true && x.labels[0] === 'day 0')).toBe(true);
  });

  it('test_trends_query_labels_hour: an absolute one-day range by hour is its first hour (date_to is not extended)', async () => {
    const r = await pv({}, { dateRange: { date_from: '2020-01-09', date_to: '2020-01-09' }, interval: 'hour' });
    expect(r.results[0]).toMatchObject({ days: ['2020-01-09 00:00:00'], labels: ['9-Jan 00:00'], data: [0] });
    const whole = await pv({}, { dateRange: { date_from: '2020-01-09', date_to: '2020-01-09T23:59:59' }, interval: 'hour' });
    expect(whole.results[0].days).toHaveLength(24);
    expect(whole.results[0].data[12]).toBe(1);
  });

  it('filterTestAccounts: the default PostHog test-account filter (email not containing @posthog.com) leaves p1 out', async () => {
    const settings = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
    const r = await trends(P_RUNNER, { series: [PAGEVIEW], dateRange: range, filterTestAccounts: true }, settings);
    expect(r.results[0]).toMatchObject({ data: [1, 0, 0, 2, 1, 0, 2, 0, 0, 0, 0, 0], count: 6 });
    expect(r.results[0].filter.filter_test_accounts).toBe(true);
    const off = await trends(P_RUNNER, { series: [PAGEVIEW], dateRange: range, filterTestAccounts: false }, settings);
    expect(off.results[0].count).toBe(15);
  });

  it("each item's filter echoes the query as TrendsQueryRunner._query_to_filter does (set fields only)", async () => {
    const r = await pv({}, { trendsFilter: { display: 'ActionsBar', smoothingIntervals: 2, showLegend: null }, breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } });
    expect(r.results[0].filter).toEqual({
      insight: 'TRENDS',
      properties: [],
      filter_test_accounts: false,
      date_from: '2020-01-09T00:00:00Z',
      date_to: '2020-01-20T23:59:59.999999Z',
      entity_type: 'events',
      interval: 'day',
      display: 'ActionsBar',
      smoothingIntervals: 2,
      breakdown: '$browser',
      breakdown_limit: 2,
    });
    const grouped = await pv({}, { interval: 'week', aggregation_group_type_index: 0, samplingFactor: 1, properties: [{ type: 'event', key: 'prop', value: 10 }] });
    expect(grouped.results[0].filter).toMatchObject({ interval: 'week', aggregation_group_type_index: 0, sampling_factor: 1, properties: [{ type: 'event', key: 'prop', value: 10 }] });
  });

  it('formula over multiple breakdowns: array values, ranked by the formula total', async () => {
    const r = await trends(P_RUNNER, {
      series: [PAGEVIEW, PAGELEAVE],
      dateRange: range,
      trendsFilter: { formula: 'A+B' },
      breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: 'bool_field' }] },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count, x.label])).toEqual([
      [['Chrome', 'true'], 12, 'Formula (A+B)'],
      [['Firefox', 'false'], 5, 'Formula (A+B)'],
      [['Edge', 'true'], 2, 'Formula (A+B)'],
      [['Safari', 'false'], 2, 'Formula (A+B)'],
    ]);
  });

  it('multiple breakdowns with a limit: Other is one array of sentinels per series', async () => {
    const r = await pv({}, { breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: 'bool_field' }], breakdown_limit: 2 } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.label, x.count])).toEqual([
      [['Chrome', 'true'], 'Chrome::true', 9],
      [['Firefox', 'false'], 'Firefox::false', 4],
      [[OTHER, OTHER], `${OTHER}::${OTHER}`, 2],
    ]);
    expect(r.hasMore).toBe(true);
  });

  it('smoothingIntervals 7: the first buckets average what the range has so far', async () => {
    const r = await pv({}, { trendsFilter: { smoothingIntervals: 7 } });
    // data [1, 0, 1, 3, 2, 1, 3, 1, 1, 1, 1, 0]
    expect(r.results[0].data).toEqual([1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('smoothingIntervals: floored average of the last n buckets, per breakdown value', async () => {
    const r = await pv({}, { trendsFilter: { smoothingIntervals: 3 }, breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } });
    // Chrome [0,0,1,1,1,1,1,1,1,1,1,0]; Other = Firefox + Edge + Safari [1,0,0,2,1,0,2,0,0,0,0,0]
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['Chrome', [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0]],
      [OTHER, [1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0]],
    ]);
  });
});

describe('test_trends_query_runner.py: formulas keep full precision', () => {
  it('test_trends_query_formula_rounding: A / B over one day is 1/3, not rounded', async () => {
    freeze('2020-01-21T00:00:00Z');
    const r = await trends(P_ROUNDING, {
      series: [
        { kind: 'EventsNode', event: '$pageleave' },
        { kind: 'EventsNode', event: '$pageview' },
      ],
      dateRange: { date_from: '2020-01-11T00:00:00Z', date_to: '2020-01-11T23:59:59Z' },
      interval: 'day',
      trendsFilter: { formula: 'A / B' },
    });
    expect(r.results[0].data).toEqual([1 / 3]);
  });

  it('formula on BoldNumber with compare: one aggregated value per period', async () => {
    freeze('2020-01-21T00:00:00Z');
    const r = await trends(P_RUNNER, {
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'EventsNode', event: '$pageleave' },
      ],
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-19' },
      compareFilter: { compare: true },
      trendsFilter: { formula: 'A - B', display: 'BoldNumber' },
    });
    // current (Jan 15–19): 7 views − 2 leaves; previous (Jan 10–14): 7 views − 4 leaves
    expect(r.results.map((x: any) => [x.compare_label, x.label, x.aggregated_value])).toEqual([
      ['current', 'Formula (A - B)', 5],
      ['previous', 'Formula (A - B)', 3],
    ]);
  });
});

describe('test_trends.py: month and hour buckets in the project timezone', () => {
  it('month buckets are local months (US/Pacific): Feb 1 03:00 UTC is still January', async () => {
    freeze('2020-02-20T00:00:00Z');
    const r = await trends(P_ROUNDING, { series: [{ kind: 'EventsNode', event: 'tz' }], dateRange: { date_from: '2020-01-01', date_to: '2020-02-15' }, interval: 'month' }, { timezone: 'US/Pacific' });
    expect(r.results[0]).toMatchObject({ days: ['2020-01-01', '2020-02-01'], labels: ['Jan 2020', 'Feb 2020'], data: [1, 1] });
    const utc = await trends(P_ROUNDING, { series: [{ kind: 'EventsNode', event: 'tz' }], dateRange: { date_from: '2020-01-01', date_to: '2020-02-15' }, interval: 'month' });
    expect(utc.results[0].data).toEqual([0, 2]);
  });

  it('hour buckets are local hours (Asia/Tokyo, +09:00)', async () => {
    freeze('2020-02-20T00:00:00Z');
    const r = await trends(
      P_ROUNDING,
      { series: [{ kind: 'EventsNode', event: 'tz' }], dateRange: { date_from: '2020-02-01T11:00:00', date_to: '2020-02-01T18:30:00' }, interval: 'hour' },
      { timezone: 'Asia/Tokyo' },
    );
    expect(r.results[0].days[0]).toBe('2020-02-01 11:00:00');
    expect(r.results[0].days).toHaveLength(8);
    // 03:00 UTC = 12:00 JST, 09:00 UTC = 18:00 JST
    expect(r.results[0].data).toEqual([0, 1, 0, 0, 0, 0, 0, 1]);
  });
});

describe('test_trends.py: breakdowns by person and event properties', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));
  const WATCHED = { kind: 'EventsNode', event: 'watched movie', name: 'watched movie' };

  it('test_breakdown_by_person_property: counts per person name', async () => {
    const r = await trends(P_PEOPLE, { series: [WATCHED], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown: 'name', breakdown_type: 'person' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.label, x.count])).toEqual([
      ['person2', 'person2', 3],
      ['person3', 'person3', 3],
      ['person1', 'person1', 1],
    ]);
  });

  it('test_breakdown_by_person_property_pie: dau per person is 1 each', async () => {
    const r = await trends(P_PEOPLE, {
      series: [{ ...WATCHED, math: 'dau' }],
      dateRange: { date_from: '-14d' },
      breakdownFilter: { breakdown: 'name', breakdown_type: 'person' },
      trendsFilter: { display: 'ActionsPie' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value]).sort()).toEqual([
      ['person1', 1],
      ['person2', 1],
      ['person3', 1],
    ]);
  });

  it('test_breakdown_by_property_pie: distinct persons per event property value', async () => {
    const r = await trends(P_PIE, {
      series: [{ ...WATCHED, math: 'dau' }],
      dateRange: { date_from: '-14d' },
      breakdownFilter: { breakdown: 'fake_prop', breakdown_type: 'event' },
      trendsFilter: { display: 'ActionsPie' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['value_1', 3],
      ['value_2', 1],
    ]);
  });

  it('test_breakdown_filtering_with_properties: series and global filters both apply to each value', async () => {
    freeze('2020-01-05T13:01:01Z');
    const r = await trends(P_URLS, {
      dateRange: { date_from: '-14d' },
      breakdownFilter: { breakdown: '$current_url' },
      series: [{ kind: 'EventsNode', event: 'sign up', name: 'sign up', properties: [{ key: '$os', value: 'Mac' }] }],
      properties: [{ key: '$browser', value: 'Firefox' }],
    });
    const rows = r.results.map((x: any) => [x.label, x.breakdown_value, x.count]).sort();
    expect(rows).toEqual([
      ['first url', 'first url', 1],
      ['second url', 'second url', 1],
    ]);
  });

  it('test_breakdown_filtering_with_properties_in_new_format: an OR group of global filters; a disjoint AND group gives []', async () => {
    freeze('2020-01-05T13:01:01Z');
    const q = (type: 'AND' | 'OR') =>
      trends(P_URLS, {
        dateRange: { date_from: '-14d' },
        breakdownFilter: { breakdown: '$current_url' },
        series: [{ kind: 'EventsNode', event: 'sign up', properties: [{ key: '$os', value: 'Windows' }] }],
        properties: { type, values: [{ key: '$browser', value: 'Firefox' }, { key: '$os', value: 'Windows' }] },
      });
    const or = await q('OR');
    expect(or.results.map((x: any) => [x.label, x.breakdown_value, x.count])).toEqual([['second url', 'second url', 1]]);
    const and = await q('AND');
    expect(and.results).toEqual([]);
  });
});

describe('test_trends.py: weekly active users with a breakdown', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const WAU = { kind: 'EventsNode', event: '$pageview', math: 'weekly_active' };

  it('test_breakdown_weekly_active_users_daily', async () => {
    const r = await trends(P_WAU_BREAKDOWN, { series: [WAU], dateRange: { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-12T00:00:00Z' }, breakdownFilter: { breakdown: 'key' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([['val', [0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2]]]);
  });

  it('test_breakdown_weekly_active_users_aggregated: the 7 days up to date_to', async () => {
    const r = await trends(P_WAU_BREAKDOWN, {
      series: [WAU],
      dateRange: { date_from: '2020-01-11T00:00:00Z', date_to: '2020-01-11T23:59:59Z' },
      breakdownFilter: { breakdown: 'key' },
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([['val', 2]]);
  });

  it('test_breakdown_weekly_active_users_weekly: weekly uniques at a week interval', async () => {
    const r = await trends(P_WAU_BREAKDOWN, { series: [WAU], dateRange: { date_from: '2020-01-01', date_to: '2020-01-12' }, interval: 'week', breakdownFilter: { breakdown: 'key' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.days, x.data])).toEqual([['val', ['2019-12-29', '2020-01-05', '2020-01-12'], [0, 2, 0]]]);
  });
});

describe('test_trends.py: _test_events_with_dates (intervals and date ranges)', () => {
  const run = (event: string, now: string, q: Record<string, unknown>) => {
    freeze(now);
    return trends(P_DATES, { series: [{ kind: 'EventsNode', event }], ...q }).then((r: any) => r.results[0]);
  };

  it('test_hour_interval: an absolute date_from keeps its hour; up to the current hour', async () => {
    const r = await run('hour', '2020-11-01T23:00:00Z', { interval: 'hour', dateRange: { date_from: '2020-11-01 12:00:00' } });
    expect(r.data).toEqual([0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect(r.labels).toEqual(Array.from({ length: 12 }, (_, i) => `1-Nov ${String(12 + i).padStart(2, '0')}:00`));
    expect(r.days[0]).toBe('2020-11-01 12:00:00');
    expect(r.days[11]).toBe('2020-11-01 23:00:00');
  });

  it('test_minute_interval: an absolute range by minute, both ends included ("1-Nov 10:20" labels)', async () => {
    freeze('2020-11-01T11:00:00Z');
    const p = await db.project(
      [{ distinct_ids: ['person_1'], properties: { name: 'John' } }],
      ['2020-11-01T10:20:00Z', '2020-11-01T10:22:00Z', '2020-11-01T10:25:00Z'].map((ts) => ev('event_name', 'person_1', ts, { $browser: 'Safari' })),
    );
    const r = (await trends(p, { series: [{ kind: 'EventsNode', event: 'event_name' }], interval: 'minute', dateRange: { date_from: '2020-11-01 10:20:00', date_to: '2020-11-01 10:30:00' } })).results[0];
    const minutes = Array.from({ length: 11 }, (_, i) => 20 + i);
    expect(r.count).toBe(3);
    expect(r.data).toEqual([1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(r.labels).toEqual(minutes.map((m) => `1-Nov 10:${m}`));
    expect(r.days).toEqual(minutes.map((m) => `2020-11-01 10:${m}:00`));
  });

  it('test_week_interval: date_from after a Sunday; weeks labelled within the range', async () => {
    const r = await run('week', '2020-11-30T00:00:00Z', { interval: 'week', dateRange: { date_from: '2020-10-29', date_to: '2020-11-24' } });
    expect(r.days).toEqual(['2020-10-25', '2020-11-01', '2020-11-08', '2020-11-15', '2020-11-22']);
    expect(r.labels).toEqual(['29–31 Oct', '1–7 Nov', '8–14 Nov', '15–21 Nov', '22–24 Nov']);
    expect(r.data).toEqual([0, 1, 2, 1, 0]);
  });

  it('test_interval_rounding: a week starting before date_from counts from date_from only', async () => {
    const r = await run('week', '2020-11-30T00:00:00Z', { interval: 'week', dateRange: { date_from: '2020-11-04', date_to: '2020-11-24' } });
    expect(r.days).toEqual(['2020-11-01', '2020-11-08', '2020-11-15', '2020-11-22']);
    expect(r.labels).toEqual(['4–7 Nov', '8–14 Nov', '15–21 Nov', '22–24 Nov']);
    expect(r.data).toEqual([0, 2, 1, 0]);
  });

  it('test_month_interval', async () => {
    const r = await run('month', '2020-11-30T00:00:00Z', { interval: 'month', dateRange: { date_from: '2020-06-01', date_to: '2020-11-24' } });
    expect(r.days).toEqual(['2020-06-01', '2020-07-01', '2020-08-01', '2020-09-01', '2020-10-01', '2020-11-01']);
    expect(r.labels).toEqual(['Jun 2020', 'Jul 2020', 'Aug 2020', 'Sep 2020', 'Oct 2020', 'Nov 2020']);
    expect(r.data).toEqual([0, 2, 0, 0, 1, 0]);
  });

  it('test_interval_rounding_monthly: date_from rounds down to the start of its month', async () => {
    const r = await run('rounding_monthly', '2020-08-01T00:00:00Z', { interval: 'month', dateRange: { date_from: '2020-06-07', date_to: '2020-07-30' } });
    expect(r.days).toEqual(['2020-06-01', '2020-07-01']);
    expect(r.data).toEqual([1, 1]);
  });

  it('test_today_timerange: dStart covers the whole day, later today too', async () => {
    const r = await run('today', '2020-11-01T10:20:00Z', { dateRange: { date_from: 'dStart' } });
    expect(r).toMatchObject({ days: ['2020-11-01'], labels: ['1-Nov-2020'], data: [3] });
  });

  it('test_yesterday_timerange: -1d to -1d', async () => {
    const r = await run('yesterday', '2020-11-02T10:20:00Z', { dateRange: { date_from: '-1d', date_to: '-1d' } });
    expect(r).toMatchObject({ days: ['2020-11-01'], data: [3] });
  });

  it('test_last7days_timerange', async () => {
    const r = await run('last7days', '2020-11-07T10:20:00Z', { dateRange: { date_from: '-7d' } });
    expect(r.days).toEqual(['2020-10-31', '2020-11-01', '2020-11-02', '2020-11-03', '2020-11-04', '2020-11-05', '2020-11-06', '2020-11-07']);
    expect(r.data).toEqual([0, 1, 1, 0, 1, 1, 0, 0]);
  });

  it('test_year_to_date_timerange: yStart monthly up to now', async () => {
    const r = await run('ytd', '2020-04-30T10:20:00Z', { dateRange: { date_from: 'yStart' }, interval: 'month' });
    expect(r).toMatchObject({ days: ['2020-01-01', '2020-02-01', '2020-03-01', '2020-04-01'], labels: ['Jan 2020', 'Feb 2020', 'Mar 2020', 'Apr 2020'], data: [2, 2, 1, 0] });
  });

  it('test_trends_compare_day_interval_fixed_range_single: one day against the day before', async () => {
    freeze('2020-01-02T20:17:00Z');
    const r = await trends(P_DATES, { series: [{ kind: 'EventsNode', event: 'sign up' }], dateRange: { date_from: '2020-01-02', date_to: '2020-01-02' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-01-02'], [1]],
      ['previous', ['2020-01-01'], [3]],
    ]);
  });

  it('test_trends_compare_hour_interval_fixed_range_single: the same hours of the day before', async () => {
    freeze('2020-01-02T20:17:00Z');
    const r = await trends(P_DATES, { series: [{ kind: 'EventsNode', event: 'sign up' }], dateRange: { date_from: '2020-01-02' }, interval: 'hour', compareFilter: { compare: true } });
    const [cur, prev] = r.results;
    expect(cur.days).toHaveLength(21);
    expect([cur.days[0], cur.days[20], cur.data[16], cur.count]).toEqual(['2020-01-02 00:00:00', '2020-01-02 20:00:00', 1, 1]);
    expect(prev.days).toHaveLength(21);
    expect([prev.days[0], prev.days[20], prev.data[0], prev.count]).toEqual(['2020-01-01 00:00:00', '2020-01-01 20:00:00', 3, 3]);
    expect(cur.labels[16]).toBe('hour 16');
  });

  it('compare with a cumulative display: each period runs from its own start', async () => {
    freeze('2020-01-02T20:17:00Z');
    const r = await trends(P_DATES, {
      series: [{ kind: 'EventsNode', event: 'sign up' }],
      dateRange: { date_from: '2019-12-31', date_to: '2020-01-02' },
      compareFilter: { compare: true },
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
    });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data, x.count])).toEqual([
      ['current', ['2019-12-31', '2020-01-01', '2020-01-02'], [0, 3, 4], 4],
      ['previous', ['2019-12-28', '2019-12-29', '2019-12-30'], [0, 0, 0], 0],
    ]);
  });

  it('test_all_time_timerange: from the earliest event of the series to today', async () => {
    const r = await run('sign up', '2020-01-04T13:00:01Z', { dateRange: { date_from: 'all' } });
    expect(r.days[0]).toBe('2019-12-24');
    expect(r.labels[0]).toBe('24-Dec-2019');
    expect(r.days[r.days.length - 1]).toBe('2020-01-04');
    expect([r.data[0], r.count]).toEqual([1, 5]);
  });

  it('date_from all: property filters (series or global) do not move the start; the series events do', async () => {
    freeze('2020-01-04T13:00:01Z');
    const late = [{ type: 'hogql', key: "timestamp > '2020-01-01'" }];
    const r = await trends(P_DATES, { series: [{ kind: 'EventsNode', event: 'sign up', properties: late }], dateRange: { date_from: 'all' } });
    expect(r.results[0].days[0]).toBe('2019-12-24');
    expect(r.results[0].count).toBe(4);
    const global = await trends(P_DATES, { series: [{ kind: 'EventsNode', event: 'sign up' }], dateRange: { date_from: 'all' }, properties: late });
    expect(global.results[0].days[0]).toBe('2019-12-24');
    const two = await trends(P_DATES, { series: [{ kind: 'EventsNode', event: 'custom' }, { kind: 'EventsNode', event: 'sign up' }], dateRange: { date_from: 'all' } });
    expect(two.results.map((x: any) => x.days[0])).toEqual(['2019-12-24', '2019-12-24']);
  });

  it('test_custom_range_timerange: from an absolute date to now', async () => {
    const r = await run('custom', '2020-01-10T00:00:00Z', { dateRange: { date_from: '2020-01-05' } });
    expect(r.days).toEqual(['2020-01-05', '2020-01-06', '2020-01-07', '2020-01-08', '2020-01-09', '2020-01-10']);
    expect(r.data).toEqual([2, 0, 0, 0, 1, 0]);
  });
});

describe('test_trends_query_runner.py: breakdown limits', () => {
  beforeEach(() => freeze('2020-01-21T00:00:00Z'));
  const q = (project: number, breakdownFilter: Record<string, unknown>, trendsFilter: Record<string, unknown> = {}) =>
    trends(project, { series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' }, breakdownFilter, trendsFilter });

  it('test_breakdown_values_limit: 25 values + Other by default, breakdown_limit 10 → 11, hidden Other → 10', async () => {
    const def = await q(P_LIMIT, { breakdown: 'breakdown_value', breakdown_type: 'event' }, { display: 'ActionsLineGraph' });
    expect(def.results).toHaveLength(26);
    expect(def.results[25].breakdown_value).toBe(OTHER);
    expect(def.results[25].count).toBe(5);
    const ten = await q(P_LIMIT, { breakdown: 'breakdown_value', breakdown_type: 'event', breakdown_limit: 10 });
    expect(ten.results).toHaveLength(11);
    const multi = await q(P_LIMIT, { breakdowns: [{ property: 'breakdown_value', type: 'event' }], breakdown_limit: 10 });
    expect(multi.results).toHaveLength(11);
    expect(multi.results[10].breakdown_value).toEqual([OTHER]);
    const hidden = await q(P_LIMIT, { breakdown: 'breakdown_value', breakdown_limit: 10, breakdown_hide_other_aggregation: true });
    expect(hidden.results).toHaveLength(10);
    expect(hidden.hasMore).toBe(true);
  });

  it('test_breakdown_values_world_map_limit: WorldMap keeps 250 values; other displays fold past 25', async () => {
    const world = await q(P_WORLD, { breakdown: 'breakdown_value', breakdown_type: 'event' }, { display: 'WorldMap' });
    expect(world.results).toHaveLength(250);
    expect(world.hasMore).toBeUndefined();
    expect(world.results.every((x: any) => x.aggregated_value === 1)).toBe(true);
    const pie = await q(P_WORLD, { breakdown: 'breakdown_value', breakdown_type: 'event' }, { display: 'ActionsPie' });
    expect(pie.results).toHaveLength(26);
    expect(pie.results[25]).toMatchObject({ breakdown_value: OTHER, aggregated_value: 225 });
  });
});

describe('first_time_for_user and first_matching_event_for_user (aggregation_operations.py)', () => {
  beforeEach(() => freeze('2020-01-13T00:00:00Z'));
  const range = { date_from: '2020-01-09', date_to: '2020-01-12' };
  const chrome = [{ type: 'event', key: '$browser', value: 'Chrome' }];
  const run = (math: string, extra: Record<string, unknown> = {}, q: Record<string, unknown> = {}) =>
    trends(P_FIRST, { series: [{ kind: 'EventsNode', event: '$pageview', math, ...extra }], dateRange: range, ...q });

  it('first_time_for_user: each person once, at their first-ever event, when it falls in the range', async () => {
    const r = await run('first_time_for_user');
    // u1 first viewed on Jan 8 (before the range): not counted
    expect(r.results[0].data).toEqual([0, 1, 0, 1]);
  });

  it('first_time_for_user with a series filter: the first-ever event must match it', async () => {
    const r = await run('first_time_for_user', { properties: chrome });
    // u1's first was Firefox, u3's first was Safari: only u2
    expect(r.results[0].data).toEqual([0, 1, 0, 0]);
  });

  it('first_matching_event_for_user: the first event matching the filters', async () => {
    const r = await run('first_matching_event_for_user', { properties: chrome });
    expect(r.results[0].data).toEqual([0, 2, 0, 1]);
    const total = await run('first_matching_event_for_user', { properties: chrome }, { trendsFilter: { display: 'BoldNumber' } });
    expect(total.results[0].aggregated_value).toBe(3);
  });

  it('first_time_for_user with a global filter: checked on the first event too (the filters are the condition, not the search)', async () => {
    const r = await run('first_time_for_user', {}, { properties: chrome });
    expect(r.results[0].data).toEqual([0, 1, 0, 0]);
    const matching = await run('first_matching_event_for_user', {}, { properties: chrome });
    expect(matching.results[0].data).toEqual([0, 2, 0, 1]);
  });

  it('first_time_for_user with filterTestAccounts (a person filter): test accounts are never new users', async () => {
    const settings = { test_account_filters: [{ type: 'person', key: 'name', operator: 'is_not', value: 'u2' }] };
    const r = await trends(P_FIRST, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'first_time_for_user' }], dateRange: range, filterTestAccounts: true }, settings);
    expect(r.results[0].data).toEqual([0, 0, 0, 1]);
  });

  it('first_time_for_user with a breakdown: the value of the first event', async () => {
    const r = await run('first_time_for_user', {}, { breakdownFilter: { breakdown: '$browser' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['Chrome', [0, 1, 0, 0]],
      ['Safari', [0, 0, 0, 1]],
    ]);
  });

  it('first_time_for_user cumulative: a running count of new users', async () => {
    const r = await run('first_time_for_user', {}, { trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    expect(r.results[0]).toMatchObject({ data: [0, 1, 1, 2], count: 2 });
  });
});

describe('test_trends.py: groups', () => {
  it('test_trends_groups_per_day_cumulative: each group counted once, at its first day', async () => {
    freeze('2020-01-06T13:00:01Z');
    const r = await trends(P_GROUPS, {
      series: [{ kind: 'EventsNode', event: 'viewed video', math: 'unique_group', math_group_type_index: 0 }],
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
    });
    expect(r.results[0].label).toBe('viewed video');
    expect(r.results[0].labels[7]).toBe('6-Jan-2020');
    expect(r.results[0].data).toEqual([0, 0, 1, 1, 1, 2, 2, 2]);
  });

  it('test_trends_groups_per_day: unique groups per day', async () => {
    freeze('2020-01-06T13:00:01Z');
    const r = await trends(P_GROUPS, { series: [{ kind: 'EventsNode', event: 'viewed video', math: 'unique_group', math_group_type_index: 0 }] });
    expect(r.results[0].data).toEqual([0, 0, 1, 0, 0, 1, 2, 0]);
  });
});

describe('test_trends.py: test_non_deterministic_timezones', () => {
  it('weekly buckets across the end of daylight saving time (US/Pacific)', async () => {
    freeze('2022-11-30T13:01:01Z');
    const r = await trends(P_DST, { series: [{ kind: 'EventsNode', event: 'sign up' }], dateRange: { date_from: '-30d' }, interval: 'week' }, { timezone: 'US/Pacific' });
    expect(r.results[0].days).toEqual(['2022-10-30', '2022-11-06', '2022-11-13', '2022-11-20', '2022-11-27']);
    expect(r.results[0].data).toEqual([1, 1, 1, 1, 1]);
  });
});

describe('bad input is a clear 400 before anything runs', () => {
  beforeEach(() => freeze('2020-01-21T00:00:00Z'));
  const PAGEVIEW = { kind: 'EventsNode', event: '$pageview' };

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['math_hogql without an aggregation', { series: [{ ...PAGEVIEW, math: 'hogql', math_hogql: 'properties.prop' }] }, 'series__0__math_hogql', /must be an aggregation/],
    ['a hogql breakdown with an aggregation', { series: [PAGEVIEW], breakdownFilter: { breakdown_type: 'hogql', breakdown: 'count()' } }, 'breakdownFilter__breakdown', /contains an aggregation/],
    ['an unknown formula letter', { series: [PAGEVIEW], trendsFilter: { formula: 'A + C' } }, 'trendsFilter__formula', /does not refer to a series/],
    ['compare_to that is not a date', { series: [PAGEVIEW], compareFilter: { compare: true, compare_to: 'yesterday' } }, 'compareFilter__compare_to', /Invalid date/],
  ])('%s', async (_, q, attr, message) => {
    await expect(trends(P_RUNNER, q)).rejects.toMatchObject({ status: 400, attr, message: expect.stringMatching(message) });
  });

  it('math_hogql may be a constant or any expression over aggregates', async () => {
    const r = await trends(P_RUNNER, { series: [{ ...PAGEVIEW, math: 'hogql', math_hogql: 'count() * 10 + 1' }], dateRange: { date_from: '2020-01-11', date_to: '2020-01-12' } });
    expect(r.results[0].data).toEqual([11, 31]);
  });
});
