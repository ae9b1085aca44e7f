/**
 * TrendsQuery scenarios ported from PostHog's suites, fifth batch (after trends-posthog-compat{,-2,-3,-4}.test.ts):
 * the rest of posthog/queries/trends/test/test_formula.py (several series, a series without events on a total value,
 * escaped filter values, a cohort breakdown), quantile math and more person/action breakdowns of
 * posthog/hogql_queries/insights/trends/test/test_trends.py, its relative date ranges (`_test_events_with_dates`), the
 * time-series displays, and the actors of data points as test_trends_persons.py reads them (multiple breakdowns, hogql
 * breakdowns, property math, total values). Each test names the PostHog test it follows.
 */
import { actionStep, activeUsersFixture, createInsightTestDb, ev, type InsightTestDb, useInsightsClock } from '../insights/testing';
import { formulaSetUp, multiplePeople, RUNNER_PEOPLE, runnerEvents } from './testing';
import { BREAKDOWN_NULL as NULL_V, BREAKDOWN_OTHER as OTHER_V } from '../insights/breakdown';
import { trendsRunner } from './trends-runner';
import { zodToUserError } from '../../validation';
import { actorsRunner } from './actors-runner';
import type { ActionDef } from '../../actions/matching';
import { withCohortRunners } from '../../cohorts/cohort-runners';
import type { CohortLoader } from '../../cohorts/cohort-loader';
import type { ResolvedCohort } from '../../cohorts/cohort-scope';
import type { GroupTypeUpsert, GroupUpsert, InternalStatements } from '../../engines/engine';

let db: InsightTestDb;
const freeze = useInsightsClock();

const P_FORMULA = 1; // test_formula.py setUp
const P_PEOPLE = 2; // test_trends.py _create_multiple_people
const P_QUANTILES = 3; // test_median_filtering / test_p90_filtering / ...: some_number 0..100
const P_ACTION_PERSONS = 4; // test_breakdown_filtering_persons_with_action_props
const P_RUNNER = 5; // test_trends_query_runner._create_test_events
const P_DATES = 6; // test_trends.py _test_events_with_dates (one event name per test)
const P_SESSIONS = 7; // test_unique_session_with_session_breakdown: sessions of 5, 10, 0 and 15 seconds
const P_EVENTS = 8; // test_trends.py _create_events() + test_dau_with_breakdown_filtering's other_value sign up
const P_MATH_TYPES = 9; // math_property_type: group and session properties

beforeAll(async () => {
  db = await createInsightTestDb();
  await db.load(P_FORMULA, formulaSetUp());
  await db.load(P_PEOPLE, multiplePeople());
  await db.load(P_QUANTILES, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: [
      ...Array.from({ length: 101 }, (_, i) => ev('sign up', 'blabla', '2020-01-04T10:00:00Z', { some_number: i })),
      // _test_math_property_aggregation over range(101, 201): levels between two values interpolate
      ...Array.from({ length: 100 }, (_, i) => ev('sign up 101..200', 'blabla', '2020-01-04T10:00:00Z', { some_number: 101 + i })),
    ],
  });
  await db.load(P_ACTION_PERSONS, {
    persons: [
      { distinct_ids: ['person1'], properties: { email: 'test@posthog.com' } },
      { distinct_ids: ['person2'], properties: { email: 'test@gmail.com' } },
      { distinct_ids: ['person3'], properties: {} },
    ],
    events: ['person1', 'person2', 'person3'].map((d) => ev('sign up', d, '2020-01-03T12:00:00Z', { key: 'val' })),
  });
  // test_trends_query_runner._create_test_events (RUNNER_PEOPLE: their properties are on their events too)
  await db.load(P_RUNNER, {
    persons: Object.keys(RUNNER_PEOPLE).map((d) => ({ distinct_ids: [d], properties: { name: d, ...(d === 'p1' ? { email: 'test@posthog.com' } : {}) } })),
    events: runnerEvents(RUNNER_PEOPLE),
  });
  const dated = (name: string, dates: string[]) => dates.map((d) => ev(name, 'person_1', `${d.replace(' ', 'T')}Z`, { $browser: 'Safari' }));
  await db.load(P_DATES, {
    persons: [{ distinct_ids: ['person_1'], properties: { name: 'John' } }],
    events: [
      ...dated('last24hours', ['2020-11-01 05:20:00', '2020-11-01 10:22:00', '2020-11-01 10:25:00', '2020-11-02 08:25:00']),
      ...dated('last14days', ['2020-11-01 05:20:00', '2020-11-02 10:22:00', '2020-11-04 10:25:00', '2020-11-05 08:25:00', '2020-11-05 08:25:00', '2020-11-10 08:25:00']),
      ...dated('last30days', ['2020-11-01 05:20:00', '2020-11-11 10:22:00', '2020-11-24 10:25:00', '2020-11-05 08:25:00', '2020-11-05 08:25:00', '2020-11-10 08:25:00']),
      ...dated('last90days', ['2020-09-01 05:20:00', '2020-10-05 05:20:00', '2020-10-20 05:20:00', '2020-11-01 05:20:00', '2020-11-11 10:22:00', '2020-11-24 10:25:00', '2020-11-05 08:25:00', '2020-11-05 08:25:00', '2020-11-10 08:25:00']),
    ],
  });
  await db.load(P_SESSIONS, {
    persons: [
      { distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val' } },
      { distinct_ids: ['blabla2'], properties: { $some_prop: 'some_val' } },
      { distinct_ids: ['blabla3'], properties: { $some_prop: 'other_val' } },
    ],
    events: [
      ev('sign up before', 'blabla', '2020-01-01T00:06:30Z', { $session_id: 's1' }),
      ev('sign up', 'blabla', '2020-01-01T00:06:34Z', { $session_id: 's1' }),
      ev('sign up later', 'blabla', '2020-01-01T00:06:35Z', { $session_id: 's1' }),
      ev('sign up', 'blabla2', '2020-01-01T00:06:35Z', { $session_id: 's2' }),
      ev('sign up', 'blabla2', '2020-01-01T00:06:45Z', { $session_id: 's2' }),
      ev('sign up', 'blabla', '2020-01-01T00:06:45Z', { $session_id: 's3' }),
      ev('sign up', 'blabla', '2020-01-02T00:06:30Z', { $session_id: 's4' }),
      ev('sign up', 'blabla', '2020-01-02T00:06:45Z', { $session_id: 's4' }),
      // another person's session of 100 s: left out by the person filter, so not a value the bins are made of
      ev('sign up', 'blabla3', '2020-01-01T00:00:00Z', { $session_id: 's5' }),
      ev('sign up', 'blabla3', '2020-01-01T00:01:40Z', { $session_id: 's5' }),
    ],
  });
  // _create_events(): one person with distinct ids blabla + anonymous_id.
  await db.load(P_EVENTS, {
    persons: [{ distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val' } }],
    events: [
      ev('sign up', 'blabla', '2019-12-24T00:00:00Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:00:00Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'anonymous_id', '2020-01-01T00:00:00Z', { $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:00:00Z'),
      ev('sign up', 'blabla', '2020-01-02T00:00:00Z', { $some_property: 'other_value', $some_numerical_prop: 80 }),
      ev('no events', 'blabla', '2020-01-02T00:00:00Z'),
      ev('sign up', 'blabla', '2020-01-02T13:01:01Z', { $some_property: 'other_value' }),
    ],
  });
  // organizations org:5 (revenue 100) and org:6 (revenue 50); sessions s1 (3 pageviews) and s2 (1)
  const groupTypes: GroupTypeUpsert[] = [{ project_id: P_MATH_TYPES, group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null }];
  const groups: GroupUpsert[] = [
    { project_id: P_MATH_TYPES, group_type_index: 0, group_key: 'org:5', created_at: Date.parse('2020-01-01T00:00:00Z'), properties: { revenue: 100 }, version: 1 },
    { project_id: P_MATH_TYPES, group_type_index: 0, group_key: 'org:6', created_at: Date.parse('2020-01-01T00:00:00Z'), properties: { revenue: 50 }, version: 1 },
  ];
  await (db.engine as unknown as InternalStatements).writeBatch({ events: [], groupTypes, groups });
  await db.load(P_MATH_TYPES, {
    persons: [{ distinct_ids: ['u1'], properties: { revenue: 7 } }],
    events: [
      ev('$pageview', 'u1', '2020-01-01T10:00:00Z', { $group_0: 'org:5', $session_id: 's1', revenue: 1 }),
      ev('$pageview', 'u1', '2020-01-01T10:01:00Z', { $group_0: 'org:5', $session_id: 's1', revenue: 1 }),
      ev('$pageview', 'u1', '2020-01-01T10:02:00Z', { $group_0: 'org:6', $session_id: 's1', revenue: 1 }),
      ev('$pageview', 'u1', '2020-01-02T10:00:00Z', { $group_0: 'org:6', $session_id: 's2', revenue: 1 }),
      ev('$pageview', 'u1', '2020-01-02T11:00:00Z', { revenue: 1 }),
    ],
  });
  const actions: Record<number, ActionDef> = {
    [P_ACTION_PERSONS]: { id: 9, name: 'sign up', steps: [actionStep('sign up', [{ key: 'key', type: 'event', value: ['val'], operator: 'exact' }])] },
    // _create_events' sign_up_action: the "sign up" event
    [P_EVENTS]: { id: 10, name: 'sign up', steps: [actionStep('sign up', [])] },
  };
  db.actions = {
    liveActions: async (projectId, ids) => new Map(actions[projectId] && ids.includes(actions[projectId].id) ? [[actions[projectId].id, actions[projectId]]] : []),
  };
});

afterAll(async () => {
  await db.close();
});

const trends = (project: number, q: Record<string, unknown>, settings: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', ...q }, project, settings);
const person = (key: string, value: unknown, operator = 'exact') => ({ type: 'person', key, value, operator });
const Z5 = [0, 0, 0, 0, 0];

describe('test_formula.py (sum and avg of "session duration", formula A + B)', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));
  const SUM = { kind: 'EventsNode', event: 'session start', math: 'sum', math_property: 'session duration' };
  const AVG = { kind: 'EventsNode', event: 'session start', math: 'avg', math_property: 'session duration' };
  const run = (extra: Record<string, unknown> = {}, trendsFilter: Record<string, unknown> = {}) =>
    trends(P_FORMULA, { series: [SUM, AVG], trendsFilter: { formula: 'A + B', ...trendsFilter }, ...extra });

  it('test_multiple_events: a third series the formula does not name changes nothing', async () => {
    const r = await trends(P_FORMULA, { series: [SUM, AVG, AVG], trendsFilter: { formula: 'A + B' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].data).toEqual([...Z5, 1200, 1350, 0]);
  });

  it('test_properties_with_escape_params: a URL full of %, & and quotes is a value like any other (no match, no error)', async () => {
    const url =
      'http://localhost:8000/insights?insight=TRENDS&interval=day&display=ActionsLineGraph&actions=%5B%5D&events=%5B%7B%22id%22%3A%22%24pageview%22%2C%22name%22%3A%22%24pageview%22%2C%22type%22%3A%22events%22%2C%22order%22%3A0%7D%2C%7B%22id%22%3A%22%24pageview%22%2C%22name%22%3A%22%24pageview%22%2C%22type%22%3A%22events%22%2C%22order%22%3A1%7D%5D&properties=%5B%5D&filter_test_accounts=false&new_entity=%5B%5D&formula=A%2BB%2BC%2BD';
    const r = await run({ properties: [{ key: '$current_url', value: url, type: 'event' }] });
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('test_aggregated_one_without_events: BoldNumber A + B where B has no events is A', async () => {
    const r = await trends(P_FORMULA, {
      series: [SUM, { kind: 'EventsNode', event: 'session error', math: 'sum', math_property: 'session duration' }],
      trendsFilter: { formula: 'A + B', display: 'BoldNumber' },
    });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ aggregated_value: 1800, label: 'Formula (A + B)' });
  });

  it('letters are case-insensitive: a + b is A + B', async () => {
    const r = await run({}, { formula: 'a + b' });
    expect(r.results[0].data).toEqual([...Z5, 1200, 1350, 0]);
    expect(r.results[0].label).toBe('Formula (a + b)');
  });

  it('test_breakdown_cohort: the formula per cohort, "all" and a cohort of everyone alike', async () => {
    const cohort: ResolvedCohort = {
      id: 51,
      name: 'cohort1',
      isStatic: false,
      group: { type: 'OR', values: [{ type: 'AND', values: [person('$some_prop', 'some_val')] }] } as ResolvedCohort['group'],
      personIds: [],
    };
    const loader = { load: async (_project: number, ids: Iterable<number>) => new Map([...ids].filter((id) => id === 51).map((id) => [id, cohort])) };
    const cohortTrends = withCohortRunners([trendsRunner], loader as unknown as CohortLoader)[0];
    const r = await db.run(cohortTrends, { kind: 'TrendsQuery', series: [SUM, AVG], trendsFilter: { formula: 'A + B' }, breakdownFilter: { breakdown: ['all', 51], breakdown_type: 'cohort' } }, P_FORMULA);
    expect(r.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['all', [...Z5, 1200, 1350, 0]],
      [51, [...Z5, 1200, 1350, 0]],
    ]);
  });
});

describe('test_trends.py: quantile math over 0..100 (test_median_filtering, test_p90_filtering, test_p95_filtering, test_p99_filtering)', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it.each<[string, number]>([
    ['median', 50],
    ['p75', 75],
    ['p90', 90],
    ['p95', 95],
    ['p99', 99],
  ])('%s', async (math, expected) => {
    const r = await trends(P_QUANTILES, { series: [{ kind: 'EventsNode', event: 'sign up', math, math_property: 'some_number' }] });
    expect(r.results[0].days[7]).toBe('2020-01-04');
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, expected]);
  });
  it.each<[string, number]>([
    ['median', 150.5],
    ['p75', 175.25],
    ['p90', 190.1],
    ['p95', 195.05],
    ['p99', 199.01],
  ])('%s over 101..200: linear interpolation between the two nearest values (101 + level × 99)', async (math, expected) => {
    const r = await trends(P_QUANTILES, { series: [{ kind: 'EventsNode', event: 'sign up 101..200', math, math_property: 'some_number' }] });
    expect(r.results[0].data.slice(0, 7)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    expect(r.results[0].data[7]).toBeCloseTo(expected, 9);
  });
});

describe('histogram breakdowns: bins are quantiles of the values (breakdown_values.py _to_bucketing_expression)', () => {
  beforeEach(() => freeze('2020-01-04T13:00:01Z'));

  it('test_unique_session_with_session_breakdown: unique sessions per $session_duration bin, levels 0.33 and 0.67', async () => {
    const r = await trends(P_SESSIONS, {
      series: [{ kind: 'EventsNode', event: 'sign up', math: 'unique_session' }],
      dateRange: { date_from: '-3d' },
      interval: 'day',
      properties: [person('$some_prop', 'some_val')],
      breakdownFilter: { breakdown: '$session_duration', breakdown_type: 'session', breakdown_histogram_bin_count: 3 },
      trendsFilter: { display: 'ActionsLineGraph' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count, x.data])).toEqual([
      ['[4.95,10.05]', 2, [2, 0, 0, 0]],
      ['[0.0,4.95]', 1, [1, 0, 0, 0]],
      ['[10.05,15.01]', 1, [0, 1, 0, 0]],
    ]);
  });

  it('not equal-width: two bins split at the median of the distinct values (0, 5, 10, 15, 100 → 10), not at 50', async () => {
    const r = await trends(P_SESSIONS, {
      series: [{ kind: 'EventsNode', event: 'sign up', math: 'unique_session' }],
      dateRange: { date_from: '-3d' },
      breakdownFilter: { breakdown: '$session_duration', breakdown_type: 'session', breakdown_histogram_bin_count: 2 },
      trendsFilter: { display: 'ActionsTable' },
    });
    // (without the person filter s5's 100 s is a value too)
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['[10.0,100.01]', 3],
      ['[0.0,10.0]', 2],
    ]);
  });
});

describe('test_trends.py: _create_events, now 2020-01-04T13:01:01Z', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));
  const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };
  const ACTION = { kind: 'ActionsNode', id: 10 };
  /** What assertEntityResponseEqual compares: data, labels, days, count and breakdown value of each item. */
  const entity = (r: any) => r.results.map((x: any) => [x.breakdown_value, x.data, x.labels, x.days, x.count]);

  it('test_action_filtering: an action on "sign up" answers as the event does', async () => {
    const action = await trends(P_EVENTS, { series: [ACTION] });
    const event = await trends(P_EVENTS, { series: [SIGN_UP] });
    expect(action.results).toHaveLength(1);
    expect(entity(action)).toEqual(entity(event));
    expect(action.results[0].data).toEqual([0, 0, 0, 0, 3, 2, 0, 0]);
    expect(action.results[0].action).toMatchObject({ id: 10, type: 'actions', name: 'sign up', order: 0 });
  });

  it('test_dau_with_breakdown_filtering_with_sampling: samplingFactor 1 changes nothing; the action answers as the event', async () => {
    const q = { samplingFactor: 1, breakdownFilter: { breakdown: '$some_property' } };
    const event = await trends(P_EVENTS, { ...q, series: [{ ...SIGN_UP, math: 'dau' }] });
    const action = await trends(P_EVENTS, { ...q, series: [{ ...ACTION, math: 'dau' }] });
    const byLabel = Object.fromEntries(event.results.map((x: any) => [x.label, x.data]));
    expect(byLabel.other_value).toEqual([0, 0, 0, 0, 0, 1, 0, 0]);
    expect(byLabel.value).toEqual([0, 0, 0, 0, 1, 0, 0, 0]);
    expect(byLabel[NULL_V]).toEqual([0, 0, 0, 0, 1, 0, 0, 0]);
    expect(entity(action)).toEqual(entity(event));
  });
});

describe('math_property_type (aggregation_operations.py _get_math_chain): which property a property math reads', () => {
  beforeEach(() => freeze('2020-01-03T00:00:00Z'));
  const run = async (series: Record<string, unknown>, display?: string) =>
    (await trends(P_MATH_TYPES, { series: [{ kind: 'EventsNode', event: '$pageview', ...series }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' }, ...(display ? { trendsFilter: { display } } : {}) })).results[0];

  it.each<[string, Record<string, unknown>, number[]]>([
    ['event_properties (the default): properties.revenue', { math: 'sum', math_property: 'revenue' }, [3, 2]],
    ['person_properties: person.properties.revenue', { math: 'sum', math_property: 'revenue', math_property_type: 'person_properties' }, [21, 14]],
    ['group_properties: group_0.properties.revenue, per event (no group: no value)', { math: 'sum', math_property: 'revenue', math_property_type: 'group_properties', math_group_type_index: 0 }, [250, 50]],
    ['group_properties with avg', { math: 'avg', math_property: 'revenue', math_property_type: 'group_properties', math_group_type_index: 0 }, [250 / 3, 50]],
    ['session_properties: session.$pageview_count, per event (no session: no value)', { math: 'sum', math_property: '$pageview_count', math_property_type: 'session_properties' }, [9, 1]],
    ['session_properties with max', { math: 'max', math_property: '$pageview_count', math_property_type: 'session_properties' }, [3, 1]],
  ])('%s', async (_name, series, data) => {
    expect((await run(series)).data).toEqual(data);
  });

  it('group_properties as a total value', async () => {
    expect((await run({ math: 'sum', math_property: 'revenue', math_property_type: 'group_properties', math_group_type_index: 0 }, 'BoldNumber')).aggregated_value).toBe(300);
  });

  it('group_properties without math_group_type_index, and an unknown session property, are 400s', async () => {
    await expect(run({ math: 'sum', math_property: 'revenue', math_property_type: 'group_properties' })).rejects.toMatchObject({ status: 400 });
    await expect(run({ math: 'sum', math_property: 'nope', math_property_type: 'session_properties' })).rejects.toMatchObject({ status: 400 });
  });
});

describe('test_trends.py: person breakdowns', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('test_breakdown_filtering_persons_with_action_props: an action with an event property, broken down by person email', async () => {
    const r = await trends(P_ACTION_PERSONS, { series: [{ kind: 'ActionsNode', id: 9 }], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown: 'email', breakdown_type: 'person' } });
    expect(r.results.map((x: any) => [x.label, x.count])).toEqual([
      ['test@gmail.com', 1],
      ['test@posthog.com', 1],
      [NULL_V, 1],
    ]);
  });

  it.each([
    ['test_breakdown_by_person_property_pie_with_event_dau_filter: dau per name on a pie, person3 filtered out by the series', 'not_icontains'],
    ['test_breakdown_by_person_property_pie_with_person_dau_filter: the same with is_not on the person name; person4’s event is after now', 'is_not'],
  ])('%s', async (_name, operator) => {
    const r = await trends(P_PEOPLE, {
      series: [{ kind: 'EventsNode', event: 'watched movie', name: 'watched movie', math: 'dau', properties: [person('name', 'person3', operator)] }],
      dateRange: { date_from: '-14d' },
      breakdownFilter: { breakdown: 'name', breakdown_type: 'person' },
      trendsFilter: { display: 'ActionsPie' },
    });
    const byValue = [...r.results].sort((a: any, b: any) => String(a.breakdown_value).localeCompare(String(b.breakdown_value)));
    expect(byValue.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['person1', 1],
      ['person2', 1],
    ]);
  });
});

describe('test_trends.py: _test_events_with_dates, relative ranges (query time = the last event)', () => {
  const run = async (event: string, now: string, q: Record<string, unknown>) => {
    freeze(now);
    return (await trends(P_DATES, { series: [{ kind: 'EventsNode', event }], ...q })).results[0];
  };

  it('test_last24hours_timerange: -24h by day starts at the start of the day 24 hours ago', async () => {
    const r = await run('last24hours', '2020-11-02T08:25:00Z', { dateRange: { date_from: '-24h' } });
    expect(r).toMatchObject({ days: ['2020-11-01', '2020-11-02'], labels: ['1-Nov-2020', '2-Nov-2020'], data: [3, 1], count: 4 });
  });

  it('test_last14days_timerange', async () => {
    const r = await run('last14days', '2020-11-10T08:25:00Z', { dateRange: { date_from: '-14d' } });
    expect(r.days).toHaveLength(15);
    expect(r.days[0]).toBe('2020-10-27');
    expect(r.labels[0]).toBe('27-Oct-2020');
    expect(r.data).toEqual([0, 0, 0, 0, 0, 1, 1, 0, 1, 2, 0, 0, 0, 0, 1]);
    expect(r.count).toBe(6);
  });

  it('test_last30days_timerange', async () => {
    const r = await run('last30days', '2020-11-24T10:25:00Z', { dateRange: { date_from: '-30d' } });
    expect(r.days).toHaveLength(31);
    expect([r.days[0], r.days[30]]).toEqual(['2020-10-25', '2020-11-24']);
    const expected = new Array(31).fill(0);
    for (const [i, n] of [[7, 1], [11, 2], [16, 1], [17, 1], [30, 1]]) expected[i] = n;
    expect(r.data).toEqual(expected);
    expect(r.count).toBe(6);
  });

  it('test_last90days_timerange', async () => {
    const r = await run('last90days', '2020-11-24T10:25:00Z', { dateRange: { date_from: '-90d' } });
    expect(r.days).toHaveLength(91);
    expect(r.days[0]).toBe('2020-08-26');
    expect(r.count).toBe(9);
    // 2020-09-01 is the 7th day of the range
    expect(r.data[6]).toBe(1);
  });

  it('-90d by month: buckets from the start of the first month', async () => {
    const r = await run('last90days', '2020-11-24T10:25:00Z', { dateRange: { date_from: '-90d' }, interval: 'month' });
    expect(r).toMatchObject({ days: ['2020-08-01', '2020-09-01', '2020-10-01', '2020-11-01'], labels: ['Aug 2020', 'Sep 2020', 'Oct 2020', 'Nov 2020'], data: [0, 1, 2, 6] });
  });
});

describe('ChartDisplayType: the time-series displays (reference §2.1; display.py is_total_value)', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const PV = { kind: 'EventsNode', event: '$pageview' };

  it.each(['ActionsBar', 'ActionsUnstackedBar', 'ActionsStackedBar', 'ActionsAreaGraph'])('%s answers the line graph’s series', async (display) => {
    const q = { series: [PV], dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' }, interval: 'day', breakdownFilter: { breakdown: '$browser' } };
    const line = await trends(P_RUNNER, q);
    const r = await trends(P_RUNNER, { ...q, trendsFilter: { display } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data, x.days, x.count])).toEqual(line.results.map((x: any) => [x.breakdown_value, x.data, x.days, x.count]));
    expect(r.results[0].aggregated_value).toBeUndefined();
  });
});

describe('test_trends_persons.py: the actors of a data point (InsightActorsQuery over _create_test_events)', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const PV = { kind: 'EventsNode', event: '$pageview' };
  const source = (q: Record<string, unknown>) => ({ kind: 'TrendsQuery', series: [PV], dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' }, ...q });
  /** [first distinct id, event_count] per actor, most events first (get_actors' `orderBy: ["event_count DESC"]`). */
  const actors = async (q: Record<string, unknown>, point: Record<string, unknown>) => {
    const r = await db.run(actorsRunner, { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: source(q), ...point }, select: ['actor', 'event_count'], orderBy: ['event_count DESC'] }, P_RUNNER);
    return r.results.map((row: any[]) => [row[0].distinct_ids[0], row[1]]).sort((a: any[], b: any[]) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));
  };
  const MULTI = { breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: 'bool_field' }] } };

  it('multiple breakdowns: the point of one value per breakdown', async () => {
    expect(await actors(MULTI, { day: '2020-01-12', breakdown: ['Chrome', 'true'] })).toEqual([['p1', 1]]);
    expect(await actors(MULTI, { day: '2020-01-12', breakdown: ['Firefox', 'false'] })).toEqual([['p2', 1]]);
    expect(await actors(MULTI, { day: '2020-01-12', breakdown: ['Firefox', 'true'] })).toEqual([]);
  });

  it('multiple breakdowns past the limit: Other (one sentinel per breakdown) is every value the insight does not list', async () => {
    const q = { breakdownFilter: { ...MULTI.breakdownFilter, breakdown_limit: 1 } };
    const insight = await trends(P_RUNNER, source(q));
    expect(insight.results.map((x: any) => x.breakdown_value)).toEqual([['Chrome', 'true'], [OTHER_V, OTHER_V]]);
    // Jan 15: p1 (Chrome, listed), p2 (Firefox) and p4 (Safari)
    expect(await actors(q, { day: '2020-01-15', breakdown: [OTHER_V, OTHER_V] })).toEqual([['p2', 1], ['p4', 1]]);
    expect(insight.results[1].data[6]).toBe(2);
  });

  it('a hogql breakdown: the actors whose expression has that value', async () => {
    const q = { breakdownFilter: { breakdown: "concat(properties.$browser, '!')", breakdown_type: 'hogql' } };
    expect(await actors(q, { day: '2020-01-12', breakdown: 'Edge!' })).toEqual([['p3', 1]]);
  });

  it('property math (sum): the actors with events that day, event_count their events', async () => {
    expect(await actors({ series: [{ ...PV, math: 'sum', math_property: 'prop' }] }, { day: '2020-01-12' })).toEqual([['p1', 1], ['p2', 1], ['p3', 1]]);
  });

  it('a total value (BoldNumber) has no day: everyone in the range; with a breakdown, that value', async () => {
    const bold = { trendsFilter: { display: 'BoldNumber' } };
    expect(await actors(bold, {})).toEqual([['p1', 9], ['p2', 4], ['p3', 1], ['p4', 1]]);
    expect(await actors({ trendsFilter: { display: 'ActionsPie' }, breakdownFilter: { breakdown: '$browser' } }, { breakdown: 'Firefox' })).toEqual([['p2', 4]]);
  });

  it('a histogram bin: the actors whose value falls in the quantile bin', async () => {
    const q = { breakdownFilter: { breakdown: 'prop', breakdown_histogram_bin_count: 2 } };
    const insight = await trends(P_RUNNER, source(q));
    // values 10, 20, 30, 40: median 25
    expect(insight.results.map((x: any) => x.breakdown_value)).toEqual(['[10.0,25.0]', '[25.0,40.01]']);
    expect(await actors(q, { day: '2020-01-15', breakdown: '[25.0,40.01]' })).toEqual([['p4', 1]]);
  });
});

describe('test_trends_query_runner.py _create_test_events: displays, dates and maths in combination (reference §1.3, §1.5, §2.3)', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));
  const PV = { kind: 'EventsNode', event: '$pageview' };
  const RANGE = { date_from: '2020-01-09', date_to: '2020-01-20' };
  /** [breakdown value or compare label, data or aggregated value] per item. */
  const items = (r: any) => r.results.map((x: any) => [x.breakdown_value ?? x.compare_label ?? x.label, x.aggregated_value ?? x.data]);

  it.each<[string, Record<string, unknown>, number[]]>([
    // prop per day: Jan 12 [10, 20, 30], Jan 13 [10, 20], Jan 15 [10, 20, 40]; quantiles interpolate linearly
    ['test_trends_aggregation_property_p95', { math: 'p95', math_property: 'prop' }, [20, 0, 10, 29, 19.5, 10, 38, 10, 10, 10, 10, 0]],
    ['test_trends_aggregation_property_p99', { math: 'p99', math_property: 'prop' }, [20, 0, 10, 29.8, 19.9, 10, 39.6, 10, 10, 10, 10, 0]],
    // nobody has two pageviews on one day
    ['test_trends_aggregation_per_actor_avg', { math: 'avg_count_per_actor' }, [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]],
    ['test_trends_aggregation_per_actor_max', { math: 'max_count_per_actor' }, [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]],
    ['test_trends_aggregation_per_actor_median', { math: 'median_count_per_actor' }, [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]],
    ['test_trends_aggregation_per_actor_p90', { math: 'p90_count_per_actor' }, [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]],
    ['test_trends_aggregation_per_actor_p95', { math: 'p95_count_per_actor' }, [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]],
  ])('%s', async (_name, math, data) => {
    const r = await trends(P_RUNNER, { series: [{ ...PV, ...math }], dateRange: RANGE });
    expect(r.results[0].data.map((x: number) => Math.round(x * 1e9) / 1e9)).toEqual(data);
  });

  it('cumulative weekly_active is the running sum of the 7-day windows (only dau and unique_group count an actor once)', async () => {
    const wau = await trends(P_RUNNER, { series: [{ ...PV, math: 'weekly_active' }], dateRange: RANGE });
    expect(wau.results[0].data).toEqual([1, 1, 2, 3, 3, 3, 4, 4, 4, 4, 3, 3]);
    const r = await trends(P_RUNNER, { series: [{ ...PV, math: 'weekly_active' }], dateRange: RANGE, trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    expect(r.results[0].data).toEqual([1, 2, 4, 7, 10, 13, 17, 21, 25, 29, 32, 35]);
    expect(r.results[0].count).toBe(35);
  });

  it('cumulative avg of a property: the running sum of the daily averages', async () => {
    const r = await trends(P_RUNNER, { series: [{ ...PV, math: 'avg', math_property: 'prop' }], dateRange: RANGE, trendsFilter: { display: 'ActionsLineGraphCumulative' } });
    const expected = [20, 20, 30, 50, 65, 75, 75 + 70 / 3, 85 + 70 / 3, 95 + 70 / 3, 105 + 70 / 3, 115 + 70 / 3, 115 + 70 / 3];
    r.results[0].data.forEach((v: number, i: number) => expect(v).toBeCloseTo(expected[i], 9));
    expect(r.results[0].count).toBeCloseTo(115 + 70 / 3, 9);
  });

  it('cumulative dau with compare: each period counts a person once, from its own start', async () => {
    const r = await trends(P_RUNNER, {
      series: [{ ...PV, math: 'dau' }],
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' },
      compareFilter: { compare: true },
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
    });
    expect(r.results.map((x: any) => [x.compare_label, x.days[0], x.data, x.count])).toEqual([
      ['current', '2020-01-15', [3, 3, 3, 3, 3, 3], 3],
      // Jan 9 .. 14: p2 on the 9th, p1 on the 11th, p3 on the 12th
      ['previous', '2020-01-09', [1, 1, 2, 3, 3, 3], 3],
    ]);
  });

  it('smoothingIntervals 2 over dau: floor of the mean of each day and the day before', async () => {
    const r = await trends(P_RUNNER, { series: [{ ...PV, math: 'dau' }], dateRange: RANGE, trendsFilter: { smoothingIntervals: 2 } });
    // dau: [1, 0, 1, 3, 2, 1, 3, 1, 1, 1, 1, 0]
    expect(r.results[0].data).toEqual([1, 0, 0, 2, 2, 1, 2, 2, 1, 1, 1, 0]);
    expect(r.results[0].count).toBe(13);
  });

  it('a formula with constants keeps Python float arithmetic: 1 * 100 / 3 is 33.333333333333336', async () => {
    const r = await trends(P_RUNNER, { series: [PV], dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' }, trendsFilter: { formula: 'A * 100 / 3' } });
    expect(r.results[0].data).toEqual([100, 33.333333333333336, 33.333333333333336, 33.333333333333336, 33.333333333333336, 0]);
    expect(r.results[0].label).toBe('Formula (A * 100 / 3)');
  });

  it('formulaNodes take precedence over formula', async () => {
    const r = await trends(P_RUNNER, {
      series: [PV, { kind: 'EventsNode', event: '$pageleave' }],
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' },
      trendsFilter: { formula: 'A + B', formulaNodes: [{ formula: 'A - B' }] },
    });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ label: 'Formula (A - B)', data: [3, -1, 1, 1, 1, 0], count: 5 });
  });

  it('formulaNodes with a custom_name and a breakdown: the custom name labels every value', async () => {
    const r = await trends(P_RUNNER, {
      series: [PV, { kind: 'EventsNode', event: '$pageleave' }],
      dateRange: RANGE,
      breakdownFilter: { breakdown: '$browser' },
      trendsFilter: { formulaNodes: [{ formula: 'A - B', custom_name: 'diff' }] },
    });
    expect(r.results.map((x: any) => [x.label, x.breakdown_value, x.count])).toEqual([
      ['diff', 'Chrome', 6],
      ['diff', 'Firefox', 3],
      ['diff', 'Edge', 0],
      ['diff', 'Safari', 0],
    ]);
  });

  it('a total-value display counts whole days even with interval hour (the interval is day there)', async () => {
    const r = await trends(P_RUNNER, { series: [PV], interval: 'hour', dateRange: { date_from: '2020-01-12', date_to: '2020-01-15' }, trendsFilter: { display: 'ActionsTable' } });
    // Jan 12: 3, Jan 13: 2, Jan 14: 1, Jan 15: 3 (at 12:00, after 2020-01-15 00:00)
    expect(r.results[0].aggregated_value).toBe(9);
  });

  it('ActionsPie with compare: an aggregated value per period', async () => {
    const r = await trends(P_RUNNER, { series: [PV], dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' }, compareFilter: { compare: true }, trendsFilter: { display: 'ActionsPie' } });
    expect(items(r)).toEqual([
      ['current', 7],
      ['previous', 8],
    ]);
  });

  it('ActionsTable with compare and a breakdown: each period ranks its own values, ties by value', async () => {
    const r = await trends(P_RUNNER, {
      series: [PV],
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' },
      breakdownFilter: { breakdown: '$browser' },
      compareFilter: { compare: true },
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(r.results.map((x: any) => [x.compare_label, x.breakdown_value, x.aggregated_value])).toEqual([
      ['current', 'Chrome', 5],
      ['current', 'Firefox', 1],
      ['current', 'Safari', 1],
      ['previous', 'Chrome', 4],
      ['previous', 'Firefox', 3],
      ['previous', 'Edge', 1],
    ]);
  });

  it('hogql math with compare: the expression over each period', async () => {
    const r = await trends(P_RUNNER, {
      series: [{ ...PV, math: 'hogql', math_hogql: 'count(distinct person_id)' }],
      dateRange: { date_from: '2020-01-15', date_to: '2020-01-17' },
      compareFilter: { compare: true },
    });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-01-15', '2020-01-16', '2020-01-17'], [3, 1, 1]],
      ['previous', ['2020-01-12', '2020-01-13', '2020-01-14'], [3, 2, 1]],
    ]);
    expect(r.results[0].action.math).toBe('hogql');
  });

  it('hogql math that aggregates to null (avg of a missing property) is 0 per day', async () => {
    const r = await trends(P_RUNNER, { series: [{ ...PV, math: 'hogql', math_hogql: 'avg(toFloat(properties.missing))' }], dateRange: { date_from: '2020-01-15', date_to: '2020-01-17' } });
    expect(r.results[0].data).toEqual([0, 0, 0]);
  });

  it('hogql math on BoldNumber with a breakdown: aggregated per value, ranked by it', async () => {
    const r = await trends(P_RUNNER, {
      series: [{ ...PV, math: 'hogql', math_hogql: 'count() * 2' }],
      dateRange: RANGE,
      breakdownFilter: { breakdown: '$browser' },
      trendsFilter: { display: 'BoldNumber' },
    });
    expect(items(r)).toEqual([
      ['Chrome', 18],
      ['Firefox', 8],
      ['Edge', 2],
      ['Safari', 2],
    ]);
  });

  it('first_time_for_user by person property on a table: only persons whose first-ever event is in the range', async () => {
    const r = await trends(P_RUNNER, {
      series: [{ ...PV, math: 'first_time_for_user' }],
      dateRange: { date_from: '2020-01-12', date_to: '2020-01-20' },
      breakdownFilter: { breakdown: 'name', breakdown_type: 'person' },
      trendsFilter: { display: 'ActionsTable' },
    });
    // p2 started on the 9th and p1 on the 11th
    expect(items(r)).toEqual([
      ['p3', 1],
      ['p4', 1],
    ]);
  });

  it('a series filter of type hogql on a person property', async () => {
    const r = await trends(P_RUNNER, { series: [{ ...PV, properties: [{ type: 'hogql', key: "person.properties.name = 'p2'" }] }], dateRange: { date_from: '2020-01-12', date_to: '2020-01-15' } });
    expect(r.results[0].data).toEqual([1, 1, 0, 1]);
  });

  it('a date_to in the future lists its days (zeros after now)', async () => {
    freeze('2020-01-16T00:00:00Z');
    const r = await trends(P_RUNNER, { series: [PV], dateRange: { date_from: '2020-01-14', date_to: '2020-01-18' } });
    expect(r.results[0].days).toEqual(['2020-01-14', '2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18']);
    expect(r.results[0].data).toEqual([1, 3, 1, 1, 1]);
  });
});

describe('test_trends.py relative date ranges (relative_date_parse: w weeks, y years, mStart, -Nd date_to, -Nh)', () => {
  const PV = { kind: 'EventsNode', event: '$pageview' };
  const first = async (now: string, q: Record<string, unknown>) => {
    freeze(now);
    return (await trends(P_RUNNER, { series: [PV], ...q })).results[0];
  };

  it('-1w by day is 8 days, like -7d', async () => {
    const r = await first('2020-01-16T10:00:00Z', { dateRange: { date_from: '-1w' } });
    expect(r.days).toEqual(['2020-01-09', '2020-01-10', '2020-01-11', '2020-01-12', '2020-01-13', '2020-01-14', '2020-01-15', '2020-01-16']);
    expect(r.data).toEqual([1, 0, 1, 3, 2, 1, 3, 1]);
  });

  it('-1y by month: 13 months from the month of the day a year ago', async () => {
    const r = await first('2020-01-16T10:00:00Z', { interval: 'month', dateRange: { date_from: '-1y' } });
    expect(r.days).toHaveLength(13);
    expect([r.days[0], r.labels[0], r.days[12], r.labels[12]]).toEqual(['2019-01-01', 'Jan 2019', '2020-01-01', 'Jan 2020']);
    expect(r.data[12]).toBe(12);
  });

  it('mStart by week: the first week starts before the month, its label clamped to the 1st', async () => {
    const r = await first('2020-01-16T10:00:00Z', { interval: 'week', dateRange: { date_from: 'mStart' } });
    expect(r).toMatchObject({ days: ['2019-12-29', '2020-01-05', '2020-01-12'], labels: ['1–4 Jan', '5–11 Jan', '12–16 Jan'], data: [0, 2, 10] });
  });

  it('a relative date_to (-2d) runs to the end of that day', async () => {
    const r = await first('2020-01-16T10:00:00Z', { dateRange: { date_from: '-5d', date_to: '-2d' } });
    expect(r).toMatchObject({ days: ['2020-01-11', '2020-01-12', '2020-01-13', '2020-01-14'], data: [1, 3, 2, 1] });
  });

  it('-2h by hour: from the top of the hour two hours ago to the current hour', async () => {
    const r = await first('2020-01-15T13:30:00Z', { interval: 'hour', dateRange: { date_from: '-2h' } });
    expect(r).toMatchObject({ days: ['2020-01-15 11:00:00', '2020-01-15 12:00:00', '2020-01-15 13:00:00'], labels: ['15-Jan 11:00', '15-Jan 12:00', '15-Jan 13:00'], data: [0, 3, 0] });
  });

  it('test_previous_month_timerange (-1mStart to -1mEnd): the whole of last month', async () => {
    const r = await first('2020-02-10T08:25:00Z', { dateRange: { date_from: '-1mStart', date_to: '-1mEnd' } });
    expect(r.days).toHaveLength(31);
    expect([r.days[0], r.labels[0], r.days[30], r.labels[30]]).toEqual(['2020-01-01', '1-Jan-2020', '2020-01-31', '31-Jan-2020']);
    expect(r.count).toBe(15);
  });
});

describe('test_trends.py _create_events: breakdowns at hour and week intervals', () => {
  const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };

  it('by hour: "1-Jan 00:00" labels, each value in its hour, the null sentinel last', async () => {
    freeze('2020-01-02T00:00:00Z');
    const r = await trends(P_EVENTS, { series: [SIGN_UP], interval: 'hour', dateRange: { date_from: '2019-12-31' }, breakdownFilter: { breakdown: '$some_property' } });
    expect(r.results.map((x: any) => x.breakdown_value)).toEqual(['other_value', 'value', NULL_V]);
    for (const x of r.results) {
      expect(x.days).toHaveLength(49);
      expect([x.labels[0], x.labels[24], x.labels[48]]).toEqual(['31-Dec 00:00', '1-Jan 00:00', '2-Jan 00:00']);
    }
    const at = (v: string) => r.results.find((x: any) => x.breakdown_value === v).data;
    expect([at('other_value')[48], at('value')[24], at(NULL_V)[24]]).toEqual([1, 1, 2]);
    expect(r.results.map((x: any) => x.count)).toEqual([1, 1, 2]);
  });

  it('by week with compare: weeks from the Sunday before date_from; the empty previous period adds no items', async () => {
    freeze('2020-01-04T13:01:01Z');
    const r = await trends(P_EVENTS, { series: [SIGN_UP], interval: 'week', dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown: '$some_property' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.breakdown_value, x.days, x.data])).toEqual([
      ['current', 'other_value', ['2019-12-15', '2019-12-22', '2019-12-29'], [0, 0, 2]],
      ['current', 'value', ['2019-12-15', '2019-12-22', '2019-12-29'], [0, 1, 1]],
      ['current', NULL_V, ['2019-12-15', '2019-12-22', '2019-12-29'], [0, 0, 2]],
    ]);
  });
});

describe('test_trends.py: test_interval_filtering_breakdown (_create_events(use_time=True), a cohort breakdown, now 2020-01-02)', () => {
  const P_EVENTS_TIME = 10;
  const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };
  // cohort1: $some_prop = some_val, the one person of the fixture
  const cohort: ResolvedCohort = {
    id: 61,
    name: 'cohort1',
    isStatic: false,
    group: { type: 'OR', values: [{ type: 'AND', values: [person('$some_prop', 'some_val')] }] } as ResolvedCohort['group'],
    personIds: [],
  };
  const loader = { load: async (_project: number, ids: Iterable<number>) => new Map([...ids].filter((id) => id === 61).map((id) => [id, cohort])) };
  const cohortTrends = withCohortRunners([trendsRunner], loader as unknown as CohortLoader)[0];
  const run = async (q: Record<string, unknown>) =>
    (await db.run(cohortTrends, { kind: 'TrendsQuery', series: [SIGN_UP], breakdownFilter: { breakdown: [61], breakdown_type: 'cohort' }, ...q }, P_EVENTS_TIME)).results;

  beforeAll(async () => {
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
  });
  beforeEach(() => freeze('2020-01-02T00:00:00Z'));

  it('hour: 217 hours from 2019-12-24 to the current hour, "24-Dec 03:00" the fourth', async () => {
    const r = await run({ dateRange: { date_from: '2019-12-24' }, interval: 'hour' });
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ breakdown_value: 61, label: 'sign up - cohort1', count: 4 });
    expect(r[0].days).toHaveLength(217);
    expect([r[0].labels[3], r[0].data[3], r[0].data[192]]).toEqual(['24-Dec 03:00', 1, 3]);
  });

  it('week: -30d, labels clamped to the range', async () => {
    const r = await run({ dateRange: { date_from: '-30d' }, interval: 'week' });
    expect(r[0]).toMatchObject({
      days: ['2019-12-01', '2019-12-08', '2019-12-15', '2019-12-22', '2019-12-29'],
      labels: ['3–7 Dec', '8–14 Dec', '15–21 Dec', '22–28 Dec', '29-Dec-2019 – 2-Jan-2020'],
      data: [0, 0, 0, 1, 4],
    });
  });

  it('month: -90d', async () => {
    const r = await run({ dateRange: { date_from: '-90d' }, interval: 'month' });
    expect(r[0]).toMatchObject({ labels: ['Oct 2019', 'Nov 2019', 'Dec 2019', 'Jan 2020'], data: [0, 0, 1, 4] });
  });

  it('day: -7d, the whole of today', async () => {
    const r = await run({ dateRange: { date_from: '-7d' } });
    expect(r[0].days[0]).toBe('2019-12-26');
    expect(r[0].data).toEqual([0, 0, 0, 0, 0, 0, 3, 1]);
  });
});

describe('test_trends.py: test_weekly_active_users_daily_based_on_action (_create_active_users_events)', () => {
  const P_ACTIVE = 11;
  beforeAll(async () => {
    await db.load(P_ACTIVE, activeUsersFixture());
  });
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));

  it('an action on $pageview answers as the event: the window of each day is (d − 6 days, d + 1 day]', async () => {
    const saved = db.actions;
    db.actions = { liveActions: async (projectId, ids) => (projectId === P_ACTIVE && ids.includes(21) ? new Map([[21, { id: 21, name: '$pageview', steps: [actionStep('$pageview', [])] }]]) : new Map()) };
    try {
      const r = await trends(P_ACTIVE, { series: [{ kind: 'ActionsNode', id: 21, math: 'weekly_active' }], dateRange: { date_from: '2020-01-08', date_to: '2020-01-19' } });
      expect(r.results[0].days[0]).toBe('2020-01-08');
      expect(r.results[0].days).toHaveLength(12);
      expect(r.results[0].data).toEqual([1, 3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 0]);
      expect(r.results[0].label).toBe('$pageview');
    } finally {
      db.actions = saved;
    }
  });
});

describe('test_trends.py: test_filter_test_accounts (a person filter among the test-account filters)', () => {
  const P_TEST_ACCOUNTS = 12;
  const SETTINGS = { test_account_filters: [{ key: 'name', value: 'Jane', operator: 'is_not', type: 'person' }] };
  const EVENT = { kind: 'EventsNode', event: 'event_name', name: 'event_name' };
  beforeAll(async () => {
    await db.load(P_TEST_ACCOUNTS, {
      persons: [
        { distinct_ids: ['person_1'], properties: { name: 'John' } },
        { distinct_ids: ['person_2'], properties: { name: 'Jane' } },
      ],
      events: [ev('event_name', 'person_1', '2020-01-11T12:00:00Z', { $browser: 'Safari' }), ev('event_name', 'person_2', '2020-01-11T12:00:00Z', { $browser: 'Safari' })],
    });
  });
  beforeEach(() => freeze('2020-01-13T00:00:00Z'));

  it('on: Jane’s event is left out; off: both count', async () => {
    const on = await trends(P_TEST_ACCOUNTS, { series: [EVENT], dateRange: { date_from: '-14d' }, filterTestAccounts: true }, SETTINGS);
    expect(on.results[0].count).toBe(1);
    const off = await trends(P_TEST_ACCOUNTS, { series: [EVENT], dateRange: { date_from: '-14d' } }, SETTINGS);
    expect(off.results[0].count).toBe(2);
  });

  it('with a breakdown: the Safari value counts John’s event only', async () => {
    const r = await trends(P_TEST_ACCOUNTS, { series: [EVENT], dateRange: { date_from: '-14d' }, filterTestAccounts: true, breakdownFilter: { breakdown: '$browser' } }, SETTINGS);
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([['Safari', 1]]);
  });

  it('with dau and a total value: one person', async () => {
    const r = await trends(P_TEST_ACCOUNTS, { series: [{ ...EVENT, math: 'dau' }], dateRange: { date_from: '-14d' }, filterTestAccounts: true, trendsFilter: { display: 'BoldNumber' } }, SETTINGS);
    expect(r.results[0].aggregated_value).toBe(1);
  });
});

describe('test_trends_query_runner.py: test_trends_multiple_breakdowns_have_max_limit (the error text)', () => {
  it('four breakdowns: pydantic’s max_length message, which the test matches with ".*at most 3.*"', () => {
    const PV = { kind: 'EventsNode', event: '$pageview' };
    const r = trendsRunner.schema.safeParse({ kind: 'TrendsQuery', series: [PV], breakdownFilter: { breakdowns: ['$browser', 'prop', 'bool_field', 'nullable_prop'].map((property) => ({ property })) } });
    expect(r.success).toBe(false);
    const err = zodToUserError(r.error!);
    expect(err).toMatchObject({ status: 400, code: 'too_many_breakdowns', attr: 'breakdownFilter__breakdowns' });
    expect(err.message).toMatch(/.*at most 3.*/);
    expect(err.message).toBe('List should have at most 3 items after validation, not 4');
  });
});
