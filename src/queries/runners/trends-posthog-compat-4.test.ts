/**
 * TrendsQuery scenarios ported from PostHog's suites, fourth batch (after trends-posthog-compat{,-2,-3}.test.ts): the
 * less obvious cases of posthog/hogql_queries/insights/trends/test/test_trends.py — person-property filters that clash
 * with event properties, breakdowns under filters, active users with a breakdown and a person filter, single-day
 * ranges, weekly buckets in a timezone, breakdown values ranked by the series' math, and more. Each test names the
 * PostHog test it follows.
 */
import { actionStep, createInsightTestDb, ev, type InsightTestDb, useInsightsClock } from '../insights/testing';
import { BREAKDOWN_NULL as NULL_V, BREAKDOWN_OTHER as OTHER_V } from '../insights/breakdown';
import { trendsRunner, trendsActorsQuery } from './trends-runner';
import { insightActorsOptionsRunner } from './insight-actors-options-runner';
import { actorsRunner } from './actors-runner';
import { runInsightQuery } from '../insights/execute';
import { parseSelectSync } from '../../productql/parser';
import { runWithCohorts } from '../../cohorts/cohort-scope';
import type { ActionDef } from '../../actions/matching';
import { withCohortRunners } from '../../cohorts/cohort-runners';
import type { CohortLoader } from '../../cohorts/cohort-loader';
import type { ResolvedCohort } from '../../cohorts/cohort-scope';

let db: InsightTestDb;
const freeze = useInsightsClock();

const P_PEOPLE = 1; // _create_multiple_people()
const P_EVENTS = 2; // _create_events() + test_dau_with_breakdown_filtering_with_prop_filter's Windows sign up
const P_MAU = 3; // test_mau_with_breakdown_filtering_and_prop_filter
const P_SINGLE = 4; // test_same_day, test_trends_breakdown_single_aggregate
const P_MATH_FUNC = 5; // test_trends_breakdown_with_math_func
const P_WEEKLY_TZ = 6; // test_timezones_weekly
const P_CLASH = 7; // test_against_clashing_entity_and_property_filter_naming, test_ilike_regression_with_current_clickhouse_version
const P_TOKYO = 8; // test_timezones_daily_plus_utc
const P_PERSON_SESSIONS = 9; // test_trends_person_breakdown_with_session_property_single_aggregate_math_and_breakdown
const P_WAU_ACTION = 10; // test_breakdown_weekly_active_users_daily_based_on_action
const P_ACTION_PROP = 11; // test_action_with_prop
const P_HOURLY_TZ = 12; // test_timezones_hourly_absolute_from

beforeAll(async () => {
  db = await createInsightTestDb();
  // _create_multiple_people, plus the event of test_person_property_filtering_clashing_with_event_property
  // (person1's second movie carries an event property `name` of its own).
  const wm = (d: string, day: string, props: Record<string, unknown>) => ev('watched movie', d, `${day}T12:00:00Z`, props);
  await db.load(P_PEOPLE, {
    persons: ['person1', 'person2', 'person3', 'person4'].map((d) => ({ distinct_ids: [d], properties: { name: d } })),
    events: [
      wm('person1', '2020-01-01', { order: '1' }),
      wm('person1', '2020-01-01', { order: '1', name: '1' }),
      wm('person2', '2020-01-01', { order: '1' }),
      wm('person2', '2020-01-02', { order: '2' }),
      wm('person2', '2020-01-02', { order: '2' }),
      wm('person3', '2020-01-01', { order: '1' }),
      wm('person3', '2020-01-02', { order: '2' }),
      wm('person3', '2020-01-03', { order: '2' }),
      wm('person4', '2020-01-05', { order: '1' }),
    ],
  });
  await db.load(P_EVENTS, {
    persons: [
      { distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val' } },
      { distinct_ids: ['person1'], properties: { email: 'test@posthog.com' } },
      { distinct_ids: ['person2'], properties: { email: 'test@gmail.com' } },
    ],
    events: [
      ev('sign up', 'blabla', '2019-12-24T00:00:00Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:00:00Z', { $some_property: 'value', $bool_prop: false }),
      ev('sign up', 'anonymous_id', '2020-01-01T00:00:00Z', { $bool_prop: false }),
      ev('sign up', 'blabla', '2020-01-01T00:00:00Z'),
      ev('sign up', 'blabla', '2020-01-02T00:00:00Z', { $some_property: 'other_value', $some_numerical_prop: 80 }),
      ev('no events', 'blabla', '2020-01-02T00:00:00Z'),
      ev('sign up', 'blabla', '2020-01-02T13:01:01Z', { $some_property: 'other_value', $os: 'Windows' }),
      // test_breakdown_with_filter
      ev('sign up', 'person1', '2020-01-03T12:00:00Z', { key: 'val' }),
      ev('sign up', 'person2', '2020-01-03T12:00:00Z', { key: 'oh' }),
    ],
  });
  await db.load(P_MAU, {
    persons: [
      { distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val', filter_prop: 'filter_val' } },
      { distinct_ids: ['blabla2'], properties: { $some_prop: 'some_val3', filter_prop: 'filter_val2' } },
      { distinct_ids: ['blabla3'], properties: { $some_prop: 'some_val2', filter_prop: 'filter_val' } },
    ],
    events: ['2020-01-02T13:01:01Z', '2020-01-03T13:01:01Z'].flatMap((t) => ['blabla', 'blabla2', 'blabla3'].map((d) => ev('sign up', d, t))),
  });
  await db.load(P_SINGLE, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: [
      ev('sign up', 'blabla', '2020-01-03T12:00:00Z', { $some_property: 'value' }),
      // test_trends_breakdown_single_aggregate
      ev('viewed', 'blabla', '2020-01-01T00:06:34Z', { $browser: 'Chrome' }),
      ev('viewed', 'blabla', '2020-01-01T00:06:34Z', { $browser: 'Chrome' }),
      ev('viewed', 'blabla', '2020-01-01T00:06:34Z', { $browser: 'Safari' }),
      ev('viewed', 'blabla', '2020-01-02T00:06:34Z', { $browser: 'Safari' }),
      ev('viewed', 'blabla', '2020-01-02T00:06:34Z', { $browser: 'Safari' }),
    ],
  });
  // 20 one-event sessions (duration 0) on Chrome0..Chrome19, and Chrome21's session of 1 s.
  await db.load(P_MATH_FUNC, {
    persons: [...Array.from({ length: 20 }, (_, i) => ({ distinct_ids: [`person${i}`], properties: {} })), { distinct_ids: ['person21'], properties: {} }],
    events: [
      ...Array.from({ length: 20 }, (_, i) => ev('pageview', `person${i}`, '2020-01-01T00:06:34Z', { $session_id: `${i}`, $browser: `Chrome${i}` })),
      ev('pageview', 'person21', '2020-01-01T00:06:34Z', { $session_id: '21', $browser: 'Chrome21' }),
      ev('pageview', 'person21', '2020-01-01T00:06:35Z', { $session_id: '21', $browser: 'Chrome21' }),
    ],
  });
  // US/Pacific (UTC−8): Sat Jan 11 11:01, Sat Jan 11 18:01, Sun Jan 12 01:01, Sun Jan 12 11:01 local.
  await db.load(P_WEEKLY_TZ, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: ['2020-01-11T19:01:01Z', '2020-01-12T02:01:01Z', '2020-01-12T09:01:01Z', '2020-01-12T19:01:01Z'].map((t) => ev('sign up', 'blabla', t)),
  });
  await db.load(P_CLASH, {
    persons: [
      { distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val', email: 'someone@example.com' } },
      { distinct_ids: ['staff'], properties: { $some_prop: 'staff_val', email: 'staff@posthog.com' } },
    ],
    events: [
      ev('$pageview', 'blabla', '2020-01-03T12:00:00Z', { $host: 'app.example.com' }),
      ev('$pageview', 'blabla', '2020-01-03T12:00:00Z', { $host: 'app.example.org' }),
      ev('watched movie', 'blabla', '2020-01-03T12:00:00Z', { email: 'someone@example.com' }),
      ev('watched movie', 'blabla', '2020-01-03T12:00:00Z', { email: 'someone@posthog.com' }),
      ev('watched movie', 'staff', '2020-01-03T12:00:00Z', { email: 'someone@example.com' }),
      ev('watched movie', 'staff', '2020-01-03T12:00:00Z'),
    ],
  });
  // Asia/Tokyo (UTC+9): Jan 3 23:00, Jan 4 01:00 and Jan 4 08:59 local.
  await db.load(P_TOKYO, {
    persons: [
      { distinct_ids: ['blabla'], properties: {} },
      { distinct_ids: ['other'], properties: {} },
    ],
    events: [
      ev('sign up', 'blabla', '2020-01-03T14:00:00Z', { $browser: 'Firefox' }),
      ev('sign up', 'blabla', '2020-01-03T16:00:00Z', { $browser: 'Chrome' }),
      ev('sign up', 'other', '2020-01-03T23:59:59Z', { $browser: 'Chrome' }),
    ],
  });
  // Sessions of 5 s and 10 s for some_val's person, 15 s for another_val's, and one of 1 s without a person property.
  await db.load(P_PERSON_SESSIONS, {
    persons: [
      { distinct_ids: ['blabla'], properties: { $some_prop: 'some_val' } },
      { distinct_ids: ['blabla2'], properties: { $some_prop: 'another_val' } },
      { distinct_ids: ['blabla3'], properties: {} },
    ],
    events: [
      ev('sign up', 'blabla', '2020-01-01T00:06:30Z', { $session_id: 's5' }),
      ev('sign up', 'blabla', '2020-01-01T00:06:35Z', { $session_id: 's5' }),
      ev('sign up', 'blabla', '2020-01-02T00:07:00Z', { $session_id: 's10' }),
      ev('sign up', 'blabla', '2020-01-02T00:07:10Z', { $session_id: 's10' }),
      ev('sign up', 'blabla2', '2020-01-02T00:07:00Z', { $session_id: 's15' }),
      ev('sign up', 'blabla2', '2020-01-02T00:07:15Z', { $session_id: 's15' }),
      ev('sign up', 'blabla3', '2020-01-03T00:07:00Z', { $session_id: 's1' }),
      ev('sign up', 'blabla3', '2020-01-03T00:07:01Z', { $session_id: 's1' }),
    ],
  });

  await db.load(P_WAU_ACTION, {
    persons: ['p1', 'p2', 'p3'].map((d) => ({ distinct_ids: [d], properties: { name: d } })),
    events: [
      ev('$pageview', 'p1', '2020-01-09T12:00:00Z', { key: 'val' }),
      ev('$pageview', 'p1', '2020-01-10T12:00:00Z', { key: 'val' }),
      ev('$pageview', 'p2', '2020-01-09T12:00:00Z', { key: 'val' }),
      ev('$pageview', 'p2', '2020-01-11T12:00:00Z', { key: 'val' }),
      ev('$pageview', 'p3', '2020-01-09T12:00:00Z', { key: 'val' }),
    ],
  });
  // US/Pacific (UTC−8): Jan 2 09:01, Jan 3 00:00:00 sharp, Jan 3 00:01 and Jan 3 01:01 local
  await db.load(P_HOURLY_TZ, {
    persons: [{ distinct_ids: ['blabla'], properties: {} }],
    events: ['2020-01-02T17:01:01Z', '2020-01-03T08:00:00Z', '2020-01-03T08:01:01Z', '2020-01-03T09:01:01Z'].map((t) => ev('sign up', 'blabla', t)),
  });
  await db.load(P_ACTION_PROP, {
    persons: [{ distinct_ids: ['blabla', 'anonymous_id'], properties: { $some_prop: 'some_val' } }],
    events: [ev('sign up', 'blabla', '2020-01-02T13:01:01Z', { $current_url: 'https://posthog.com/feedback/1234' })],
  });
  const actions: Record<number, ActionDef> = {
    // PostHog's pageview_action: $pageview by p1, p2 or p3, and in cohort1 (p1 or p2)
    [P_WAU_ACTION]: { id: 7, name: '$pageview', steps: [actionStep('$pageview', [{ key: 'name', operator: 'exact', value: ['p1', 'p2', 'p3'], type: 'person' }, { type: 'cohort', key: 'id', value: 45 }])] },
    [P_ACTION_PROP]: { id: 8, name: 'sign up', steps: [actionStep('sign up', [{ key: '$current_url', type: 'event', value: ['https://posthog.com/feedback/1234'], operator: 'exact' }])] },
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
const SIGN_UP = { kind: 'EventsNode', event: 'sign up' };
const WATCHED = { kind: 'EventsNode', event: 'watched movie', name: 'watched movie' };
const person = (key: string, value: unknown, operator = 'exact') => ({ type: 'person', key, value, operator });
const event = (key: string, value: unknown, operator = 'exact') => ({ type: 'event', key, value, operator });

describe('test_trends.py: person property filters (_create_multiple_people, now 2020-01-04T13:01:01Z)', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('test_person_property_filtering: a global person filter keeps that person’s events, per day', async () => {
    const r = await trends(P_PEOPLE, { series: [WATCHED], properties: [person('name', 'person1')] });
    expect(r.results[0].labels[4]).toBe('1-Jan-2020');
    expect(r.results[0].data[4]).toBe(2);
    expect(r.results[0].labels[5]).toBe('2-Jan-2020');
    expect(r.results[0].data[5]).toBe(0);
  });

  it('test_person_property_filtering_clashing_with_event_property: a person `name` and an event `name` are different properties', async () => {
    const byPerson = await trends(P_PEOPLE, { series: [WATCHED], properties: [person('name', 'person1')] });
    expect(byPerson.results[0].count).toBe(2);
    const byEvent = await trends(P_PEOPLE, { series: [WATCHED], properties: [event('name', '1')] });
    expect(byEvent.results[0].data[4]).toBe(1);
    expect(byEvent.results[0].count).toBe(1);
    // no event carries name = "person1" and no person is named "1"
    expect((await trends(P_PEOPLE, { series: [WATCHED], properties: [event('name', 'person1')] })).results[0].count).toBe(0);
    expect((await trends(P_PEOPLE, { series: [WATCHED], properties: [person('name', '1')] })).results[0].count).toBe(0);
  });

  it('test_entity_person_property_filtering: a person filter on the series', async () => {
    const r = await trends(P_PEOPLE, { series: [{ ...WATCHED, properties: [person('name', 'person1')] }] });
    expect(r.results[0].count).toBe(2);
    const r3 = await trends(P_PEOPLE, { series: [{ ...WATCHED, properties: [person('name', 'person3')] }] });
    expect(r3.results[0].count).toBe(3);
  });

  it('test_breakdown_with_person_property_filter: an event breakdown of one person’s events, ranked by count', async () => {
    const r = await trends(P_PEOPLE, {
      series: [{ ...WATCHED, properties: [person('name', 'person2')] }],
      dateRange: { date_from: '-14d' },
      breakdownFilter: { breakdown: 'order' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['2', 2],
      ['1', 1],
    ]);
  });

  it('test_breakdown_by_person_property with a person filter on the breakdown property itself: one value', async () => {
    const r = await trends(P_PEOPLE, {
      series: [WATCHED],
      dateRange: { date_from: '-14d' },
      properties: [person('name', ['person1', 'person3'])],
      breakdownFilter: { breakdown: 'name', breakdown_type: 'person' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['person3', 3],
      ['person1', 2],
    ]);
  });
});

describe('test_trends.py: breakdowns under filters (_create_events, now 2020-01-04T13:01:01Z)', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('test_breakdown_with_filter: a person breakdown under an event not_icontains filter', async () => {
    const r = await trends(P_EVENTS, {
      series: [SIGN_UP],
      dateRange: { date_from: '-14d' },
      properties: [event('key', 'oh', 'not_icontains')],
      breakdownFilter: { breakdown: 'email', breakdown_type: 'person' },
    });
    // person2's "oh" is filtered out; blabla's sign ups (no email) stay, as the null value ranked last:
    // not_icontains keeps events without `key`
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([
      ['test@posthog.com', 1],
      [NULL_V, 6],
    ]);
  });

  it('test_dau_with_breakdown_filtering_with_prop_filter: dau per value of the events that match $os', async () => {
    const r = await trends(P_EVENTS, { series: [{ ...SIGN_UP, math: 'dau' }], properties: [event('$os', 'Windows')], breakdownFilter: { breakdown: '$some_property' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].label).toBe('other_value');
    expect(r.results[0].data.reduce((a: number, b: number) => a + b, 0)).toBe(1);
    expect(r.results[0].data[5]).toBe(1);
  });
});

describe('test_trends.py: test_mau_with_breakdown_filtering_and_prop_filter', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('monthly_active per person property value, filtered by another person property', async () => {
    const r = await trends(P_MAU, {
      series: [{ ...SIGN_UP, math: 'monthly_active' }],
      properties: [person('filter_prop', 'filter_val')],
      breakdownFilter: { breakdown: '$some_prop', breakdown_type: 'person' },
      trendsFilter: { display: 'ActionsLineGraph' },
    });
    expect(r.results.map((x: any) => x.label)).toEqual(['some_val', 'some_val2']);
    for (const item of r.results) {
      expect(item.data).toEqual([0, 0, 0, 0, 0, 1, 1, 1]);
    }
  });
});

describe('test_trends.py: single days and single aggregates', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it.each([['test_same_day'], ['test_same_day_with_person_on_events']])('%s: date_from = date_to is one bucket', async () => {
    const r = await trends(P_SINGLE, { series: [SIGN_UP], dateRange: { date_from: '2020-01-03', date_to: '2020-01-03' } });
    expect(r.results[0].labels).toEqual(['3-Jan-2020']);
    expect(r.results[0].days).toEqual(['2020-01-03']);
    expect(r.results[0].data).toEqual([1]);
  });

  it('test_trends_breakdown_single_aggregate: ActionsTable totals per value', async () => {
    const r = await trends(P_SINGLE, { series: [{ kind: 'EventsNode', event: 'viewed' }], breakdownFilter: { breakdown: '$browser' }, trendsFilter: { display: 'ActionsTable' } });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['Safari', 3],
      ['Chrome', 2],
    ]);
  });

  it('test_trends_breakdown_with_math_func: values are ranked by the series math (p90 of $session_duration), not by count', async () => {
    const r = await trends(P_MATH_FUNC, {
      series: [{ kind: 'EventsNode', event: 'pageview', math: 'p90', math_property: '$session_duration' }],
      interval: 'week',
      breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 },
      trendsFilter: { display: 'ActionsTable' },
    });
    const values = r.results.map((x: any) => x.breakdown_value);
    expect(values[0]).toBe('Chrome21');
    expect(r.results[0].aggregated_value).toBe(1);
    expect(values).toContain(OTHER_V);
    expect(values).toHaveLength(3);
  });

  it('sum of a property that holds no numbers is 0 (toFloat of text is null, and sum ignores nulls)', async () => {
    const r = await trends(P_SINGLE, { series: [{ kind: 'EventsNode', event: 'viewed', math: 'sum', math_property: '$browser' }], trendsFilter: { display: 'BoldNumber' } });
    expect(r.results[0].aggregated_value).toBe(0);
  });
});

describe('test_trends.py: test_timezones_weekly (US/Pacific, now Sat 2020-01-25 23:00 local)', () => {
  beforeEach(() => freeze('2020-01-26T07:00:00Z'));

  it('weeks start on Sunday: Saturday-evening UTC events are the week before', async () => {
    const r = await trends(P_WEEKLY_TZ, { series: [SIGN_UP], interval: 'week', dateRange: { date_from: '-14d' } }, { timezone: 'US/Pacific' });
    expect(r.results[0].data).toEqual([2, 2, 0]);
    expect(r.results[0].days.slice(1)).toEqual(['2020-01-12', '2020-01-19']);
  });

  it('weeks start on Monday (week_start_day 1): all four are the week of Jan 6', async () => {
    const r = await trends(P_WEEKLY_TZ, { series: [SIGN_UP], interval: 'week', dateRange: { date_from: '-14d' } }, { timezone: 'US/Pacific', week_start_day: 1 });
    expect(r.results[0].data).toEqual([4, 0, 0]);
    expect(r.results[0].days.slice(1)).toEqual(['2020-01-13', '2020-01-20']);
  });
});

describe('test_trends.py: test_timezones_hourly_absolute_from (US/Pacific)', () => {
  beforeEach(() => freeze('2020-01-05T08:01:01Z'));

  it('an absolute day-to-day range by hour runs from local midnight to date_to itself (00:00 of its day: timestamp <= date_to)', async () => {
    const r = await trends(P_HOURLY_TZ, { series: [SIGN_UP], interval: 'hour', dateRange: { date_from: '2020-01-02', date_to: '2020-01-03' } }, { timezone: 'US/Pacific' });
    const days = r.results[0].days;
    expect(days).toHaveLength(25);
    expect([days[0], days[24]]).toEqual(['2020-01-02 00:00:00', '2020-01-03 00:00:00']);
    const data = new Array(25).fill(0);
    data[9] = 1;
    data[24] = 1; // the event at 00:00:00 sharp; 00:01 is after date_to
    expect(r.results[0].data).toEqual(data);
    expect(r.results[0].labels[9]).toBe('2-Jan 09:00');
  });
});

describe('test_trends.py: test_timezones_daily_plus_utc (Asia/Tokyo, now 2020-01-05 10:00 local)', () => {
  beforeEach(() => freeze('2020-01-05T01:00:00Z'));
  const settings = { timezone: 'Asia/Tokyo' };

  it('volume, dau and a breakdown by local day', async () => {
    const r = await trends(P_TOKYO, { series: [SIGN_UP, { ...SIGN_UP, math: 'dau' }] }, settings);
    expect(r.results[0].days).toEqual(['2019-12-29', '2019-12-30', '2019-12-31', '2020-01-01', '2020-01-02', '2020-01-03', '2020-01-04', '2020-01-05']);
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 0, 1, 2, 0]);
    expect(r.results[1].data).toEqual([0, 0, 0, 0, 0, 1, 2, 0]);
    const b = await trends(P_TOKYO, { series: [SIGN_UP], breakdownFilter: { breakdown: '$browser' } }, settings);
    expect(b.results.map((x: any) => [x.breakdown_value, x.data])).toEqual([
      ['Chrome', [0, 0, 0, 0, 0, 0, 2, 0]],
      ['Firefox', [0, 0, 0, 0, 0, 1, 0, 0]],
    ]);
  });

  it('an absolute range is a range of local days', async () => {
    const r = await trends(P_TOKYO, { series: [SIGN_UP], dateRange: { date_from: '2020-01-04', date_to: '2020-01-04' } }, settings);
    expect(r.results[0].data).toEqual([2]);
  });
});

describe('test_trends.py: test_action_with_prop', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('the action step’s $current_url and a global $current_url filter both apply (neither replaces the other)', async () => {
    const withGlobal = await trends(P_ACTION_PROP, { series: [{ kind: 'ActionsNode', id: 8, math: 'dau' }], properties: [event('$current_url', 'fake')] });
    expect(withGlobal.results[0].count).toBe(0);
    const alone = await trends(P_ACTION_PROP, { series: [{ kind: 'ActionsNode', id: 8, math: 'dau' }] });
    expect(alone.results[0].count).toBe(1);
    expect(alone.results[0].label).toBe('sign up');
  });
});

describe('test_trends.py: filters with the same key on events and persons', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));

  it('test_against_clashing_entity_and_property_filter_naming: a series filter and a global filter on $host, a person breakdown', async () => {
    const r = await trends(P_CLASH, {
      series: [{ kind: 'EventsNode', event: '$pageview', properties: [event('$host', '.com', 'icontains')] }],
      properties: [event('$host', ['app.example.com', 'another.com'])],
      breakdownFilter: { breakdown: '$some_prop', breakdown_type: 'person' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.count])).toEqual([['some_val', 1]]);
  });

  it('test_ilike_regression_with_current_clickhouse_version: not_icontains on an event and a person property of the same name', async () => {
    const r = await trends(P_CLASH, {
      series: [WATCHED],
      dateRange: { date_from: '-14d' },
      properties: [event('email', 'posthog.com', 'not_icontains'), person('email', 'posthog.com', 'not_icontains')],
    });
    // blabla's movie with an example.com email; staff is left out by the person filter
    expect(r.results[0].count).toBe(1);
  });
});

describe('test_trends.py: test_trends_person_breakdown_with_session_property_single_aggregate_math_and_breakdown', () => {
  beforeEach(() => freeze('2020-01-04T13:00:01Z'));

  it('median session duration per person property value, one duration per session', async () => {
    const r = await trends(P_PERSON_SESSIONS, {
      series: [{ ...SIGN_UP, math: 'median', math_property: '$session_duration' }],
      interval: 'week',
      breakdownFilter: { breakdown: '$some_prop', breakdown_type: 'person' },
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.aggregated_value])).toEqual([
      ['another_val', 15],
      ['some_val', 7.5],
      [NULL_V, 1],
    ]);
  });
});

describe('test_trends.py: cohorts (the cohort-aware runner, withCohortRunners; cohorts in scope for actors)', () => {
  beforeEach(() => freeze('2020-01-04T13:01:01Z'));
  const cohort = (id: number, name: string, ...groups: Record<string, unknown>[][]): ResolvedCohort => ({
    id,
    name,
    isStatic: false,
    group: { type: 'OR', values: groups.map((values) => ({ type: 'AND', values })) } as ResolvedCohort['group'],
    personIds: [],
  });
  const COHORTS = new Map<number, ResolvedCohort>(
    [
      cohort(41, 'cohort1', [person('name', 'person1')]),
      cohort(42, 'cohort2', [person('name', 'person2')]),
      cohort(43, 'cohort3', [person('name', 'person1')], [person('name', 'person2')]),
      cohort(45, 'cohort1', [person('name', ['p1', 'p2'])]),
      cohort(46, 'cohort1', [person('name', 'Jane')]),
    ].map((c) => [c.id, c]),
  );
  const loader = { load: async (_project: number, ids: Iterable<number>) => new Map([...ids].filter((id) => COHORTS.has(id)).map((id) => [id, COHORTS.get(id)!])) };
  const cohortTrends = withCohortRunners([trendsRunner], loader as unknown as CohortLoader)[0];
  const run = (project: number, q: Record<string, unknown>, settings: Record<string, unknown> = {}) => db.run(cohortTrends, { kind: 'TrendsQuery', ...q }, project, settings);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

  it('test_breakdown_by_cohort: one series per cohort (label "<series> - <cohort name>", breakdown_value the id), "all" = all users', async () => {
    const r = await run(P_PEOPLE, { series: [WATCHED], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [41, 42, 43, 'all'] } });
    expect(r.results.map((x: any) => [x.label, x.breakdown_value, sum(x.data)])).toEqual([
      ['watched movie - cohort1', 41, 2],
      ['watched movie - cohort2', 42, 3],
      ['watched movie - cohort3', 43, 5],
      ['watched movie - all users', 'all', 8],
    ]);
  });

  it('test_trends_breakdown_single_aggregate_cohorts: aggregated_value per cohort on ActionsTable', async () => {
    const r = await run(P_PEOPLE, { series: [WATCHED], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [42, 'all'] }, trendsFilter: { display: 'ActionsTable' } });
    expect(r.results.map((x: any) => [x.label, x.aggregated_value])).toEqual([
      ['watched movie - cohort2', 3],
      ['watched movie - all users', 8],
    ]);
  });

  // (src/cohorts/cohort-runners.ts runs a cohort breakdown that names no cohort id, only "all", as a cohort breakdown)
  it('test_breakdown_by_empty_cohort: ["all"] alone is the series over all users', async () => {
    const r = await run(P_PEOPLE, { series: [{ kind: 'EventsNode', event: 'watched movie' }], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: ['all'] } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].label).toBe('watched movie - all users');
    expect(sum(r.results[0].data)).toBe(8);
  });

  it('test_filter_events_by_cohort: a global cohort filter keeps the events of its persons; not_in the others', async () => {
    const inCohort = await run(P_PEOPLE, { series: [WATCHED], dateRange: { date_from: '-14d' }, properties: [{ type: 'cohort', key: 'id', value: 42 }] });
    expect(inCohort.results[0].count).toBe(3);
    expect(inCohort.results[0].data.slice(-4)).toEqual([1, 2, 0, 0]);
    const notIn = await run(P_PEOPLE, { series: [{ ...WATCHED, math: 'dau' }], dateRange: { date_from: '-14d' }, properties: [{ type: 'cohort', key: 'id', value: 43, operator: 'not_in' }] });
    // person3 only (person4's movie is after now)
    expect(notIn.results[0].data.slice(-4)).toEqual([1, 1, 1, 0]);
  });

  it('the actors of a cohort breakdown point (TrendsActorsQueryBuilder): that day’s actors in the cohort; "all": everyone', async () => {
    const source = trendsRunner.schema.parse({ kind: 'TrendsQuery', series: [WATCHED], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [42, 43, 'all'] } });
    const ctx = db.ctx(P_PEOPLE);
    const names = (point: Record<string, unknown>) =>
      runWithCohorts(COHORTS, async () => {
        const { query } = await trendsActorsQuery(source, ctx, point);
        const ids = (await runInsightQuery(ctx, query)).rows.map((r) => String(r.actor_id));
        if (!ids.length) return [];
        const persons = await runInsightQuery(ctx, parseSelectSync(`select distinct distinct_id, person_id from events where event = 'watched movie'`));
        return persons.rows.filter((r) => ids.includes(String(r.person_id))).map((r) => String(r.distinct_id)).sort();
      });
    expect(await names({ day: '2020-01-01', breakdown: 42 })).toEqual(['person2']);
    expect(await names({ day: '2020-01-01', breakdown: '43' })).toEqual(['person1', 'person2']);
    expect(await names({ day: '2020-01-01', breakdown: 'all' })).toEqual(['person1', 'person2', 'person3']);
    expect(await names({ day: '2020-01-01', breakdown: 0 })).toEqual(['person1', 'person2', 'person3']);
    expect(await names({ day: '2020-01-03', breakdown: 42 })).toEqual([]);
    await expect(names({ day: '2020-01-01', breakdown: 41 })).rejects.toMatchObject({ status: 400 });
    await expect(names({ day: '2020-01-01' })).rejects.toMatchObject({ status: 400 });
  });

  it('to_actors_query_options of a cohort breakdown: the cohorts as given, by name and id; "all users" for all', async () => {
    const r = await runWithCohorts(COHORTS, () =>
      db.run(
        insightActorsOptionsRunner,
        { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', series: [WATCHED], breakdownFilter: { breakdown_type: 'cohort', breakdown: [42, 'all', 41] } } } },
        P_PEOPLE,
      ),
    );
    expect(r.breakdown).toEqual([
      { label: 'cohort2', value: 42 },
      { label: 'all users', value: 'all' },
      { label: 'cohort1', value: 41 },
    ]);
    expect(r.breakdowns).toBeNull();
    expect(r.series).toEqual([{ label: 'watched movie', value: 0 }]);
  });

  // (src/cohorts/cohort-runners.ts loads the cohorts of a trends source's cohort breakdown for ActorsQuery and
  // InsightActorsQueryOptions: the point's cohort is in scope and the options carry the cohorts' names)
  it('through the cohort-aware runner: an ActorsQuery of a cohort point, and the options with cohort names', async () => {
    const [actors, options] = withCohortRunners([actorsRunner, insightActorsOptionsRunner], loader as unknown as CohortLoader);
    const source = { kind: 'TrendsQuery', series: [WATCHED], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [42, 'all'] } };
    const r = await db.run(actors, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', source, day: '2020-01-02', breakdown: 42 } }, P_PEOPLE);
    expect(r.results).toHaveLength(1);
    const o = await db.run(options, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source } }, P_PEOPLE);
    expect(o.breakdown).toEqual([
      { label: 'cohort2', value: 42 },
      { label: 'all users', value: 'all' },
    ]);
  });

  it('a cohort breakdown naming a cohort the project does not have is a 400', async () => {
    await expect(run(P_PEOPLE, { series: [WATCHED], breakdownFilter: { breakdown_type: 'cohort', breakdown: [999] } })).rejects.toMatchObject({ status: 400 });
  });

  // PostHog runs it with USE_PRECALCULATED_CH_COHORT_PEOPLE (the cohort's people computed beforehand); the answer is
  // the cohort's live membership all the same
  it('test_filter_events_by_precalculated_cohort: a cohort of Jane keeps her two events (count 2, both today)', async () => {
    freeze('2020-01-02T00:00:00Z');
    const p = await db.project(
      [
        { distinct_ids: ['person_1'], properties: { name: 'John' } },
        { distinct_ids: ['person_2'], properties: { name: 'Jane' } },
      ],
      [
        ev('event_name', 'person_1', '2020-01-02T00:00:00Z', { $browser: 'Safari' }),
        ev('event_name', 'person_2', '2020-01-02T00:00:00Z', { $browser: 'Chrome' }),
        ev('event_name', 'person_2', '2020-01-02T00:00:00Z', { $browser: 'Safari' }),
      ],
    );
    const r = await run(p, { series: [{ kind: 'EventsNode', event: 'event_name' }], properties: [{ type: 'cohort', key: 'id', value: 46 }] });
    expect(r.results[0].count).toBe(2);
    expect(r.results[0].data[r.results[0].data.length - 1]).toBe(2);
    expect(r.results[0].days[r.results[0].days.length - 1]).toBe('2020-01-02');
  });

  // (src/cohorts/cohort-runners.ts loads the cohorts of the project's test-account filters when the node uses them)
  it('test_filter_test_accounts_cohorts: a cohort among the project’s test-account filters', async () => {
    // PostHog: test_account_filters = [{key: id, value: cohort.pk, type: cohort}] keeps the events of the cohort's persons
    const settings = { test_account_filters: [{ key: 'id', value: 42, type: 'cohort' }] };
    const r = await run(P_PEOPLE, { series: [WATCHED], dateRange: { date_from: '-14d' }, filterTestAccounts: true }, settings);
    expect(r.results[0].count).toBe(3);
    const all = await run(P_PEOPLE, { series: [WATCHED], dateRange: { date_from: '-14d' }, filterTestAccounts: false }, settings);
    expect(all.results[0].count).toBe(8);
  });

  it('test_breakdown_weekly_active_users_daily_based_on_action: an action with a person and a cohort filter, WAU per value', async () => {
    const r = await run(P_WAU_ACTION, {
      series: [{ kind: 'ActionsNode', id: 7, math: 'weekly_active' }],
      dateRange: { date_from: '2020-01-01T00:00:00Z', date_to: '2020-01-12T00:00:00Z' },
      breakdownFilter: { breakdown: 'key' },
    });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].breakdown_value).toBe('val');
    expect(r.results[0].days).toEqual(Array.from({ length: 12 }, (_, i) => `2020-01-${String(i + 1).padStart(2, '0')}`));
    // p3 matches the action's person filter but is not in the cohort
    expect(r.results[0].data).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2]);
  });

  it('test_breakdown_single_cohort: `breakdown` one cohort id, not a list: "<series> - cohort1", breakdown_value the id', async () => {
    const r = await run(P_PEOPLE, { series: [WATCHED], dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: 41 } });
    // (person1's two movies: _create_multiple_people's one, and the clashing-name test's)
    expect(r.results.map((x: any) => [x.label, x.breakdown_value, x.count])).toEqual([['watched movie - cohort1', 41, 2]]);
  });

  // trends_query_runner.py apply_formula_to_results_group: `res["label"] = f"Formula ({formula})"` (or the custom name)
  // on a copy of the group's first item, after build_series_response put the cohort name on the series labels
  it('a formula over a cohort breakdown [cohort, "all"]: "Formula (A+B)" per cohort (not "… - cohort1"), breakdown_value the id', async () => {
    const series = [WATCHED, { ...WATCHED, math: 'dau' }];
    const r = await run(P_PEOPLE, { series, dateRange: { date_from: '-14d' }, trendsFilter: { formula: 'A+B' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [41, 'all'] } });
    const rows = r.results.map((x: any) => [x.label, x.breakdown_value, x.count, x.action]).sort((a: any, b: any) => String(a[1]).localeCompare(String(b[1])));
    expect(rows).toEqual([
      ['Formula (A+B)', 41, 3, null],
      ['Formula (A+B)', 'all', 14, null],
    ]);
    const named = await run(P_PEOPLE, {
      series,
      dateRange: { date_from: '-14d' },
      trendsFilter: { formulaNodes: [{ formula: 'A+B', custom_name: 'views and viewers' }] },
      breakdownFilter: { breakdown_type: 'cohort', breakdown: [42] },
    });
    expect(named.results.map((x: any) => [x.label, x.breakdown_value])).toEqual([['views and viewers', 42]]);
    // the series themselves keep "<series> - <cohort name>"
    const plain = await run(P_PEOPLE, { series, dateRange: { date_from: '-14d' }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [41, 'all'] } });
    expect(plain.results.map((x: any) => [x.label, x.breakdown_value, x.count])).toEqual([
      ['watched movie - cohort1', 41, 2],
      ['watched movie - cohort1', 41, 1],
      ['watched movie - all users', 'all', 8],
      ['watched movie - all users', 'all', 6],
    ]);
    // (_query_to_filter echoes the query itself on every item: its properties, its breakdownFilter last)
    for (const x of [...plain.results, ...r.results]) {
      expect(x.filter).toEqual({
        insight: 'TRENDS',
        properties: [],
        filter_test_accounts: false,
        date_from: '2019-12-21T00:00:00Z',
        date_to: '2020-01-04T23:59:59.999999Z',
        entity_type: 'events',
        interval: 'day',
        ...(x === r.results[0] || x === r.results[1] ? { formula: 'A+B' } : {}),
        breakdown_type: 'cohort',
        breakdown: [41, 'all'],
      });
    }
    const filtered = await run(P_PEOPLE, { series: [WATCHED], dateRange: { date_from: '-14d' }, properties: [person('name', 'person1')], breakdownFilter: { breakdown_type: 'cohort', breakdown: [42] } });
    expect(filtered.results[0].filter.properties).toEqual([person('name', 'person1')]);
  });
});
