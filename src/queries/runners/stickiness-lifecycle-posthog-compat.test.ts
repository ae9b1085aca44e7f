/**
 * A fourth pass over PostHog's stickiness and lifecycle suites (posthog/hogql_queries/insights/test/
 * test_stickiness_query_runner.py, test_lifecycle_query_runner.py, posthog/queries/test/test_stickiness.py,
 * posthog/queries/test/test_lifecycle.py): the scenarios retention-lifecycle-stickiness-posthog-compat and
 * rsl-posthog-compat-{2,3} do not pin yet — relative ranges under a frozen clock (hours of the last days, a project
 * timezone ahead of/behind UTC), Monday weeks, local months, the actors of a second series, paging and entity
 * filters of stickiness actors, cohort and group-property filters, series-level and action-step filters in
 * lifecycle, and the whole-range lifecycle. Each title names the PostHog test it follows; where the fixture is a
 * smaller copy of PostHog's, the expectation is derived from the reference (§1.5, §6, §7) and the comment says so.
 */
import { actionRegistry, actionStep, createInsightTestDb, type InsightTestDb, type TestEvent, type TestPerson, useInsightsClock } from '../insights/testing';
import { byStatus, LIFECYCLE_DAYS, LIFECYCLE_TREND, LIFECYCLE_WEEKS, lifecycleData } from './testing';
import { runWithCohorts, type ResolvedCohort } from '../../cohorts/cohort-scope';
import { lifecycleRunner } from './lifecycle-runner';
import { stickinessRunner } from './stickiness-runner';
import { actorsRunner } from './actors-runner';

let db: InsightTestDb;
const { source: actionSource, action } = actionRegistry(900);
beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
});
afterAll(async () => {
  await db.close();
});

const freeze = useInsightsClock('each');

const project: InsightTestDb['project'] = (persons, events) => db.project(persons, events);

const cohort = (id: number, name: string, values: Record<string, unknown>[]): ResolvedCohort => ({
  id,
  name,
  isStatic: false,
  group: { type: 'AND', values } as unknown as ResolvedCohort['group'],
  personIds: [],
});

/** ActorsQuery over an InsightActorsQuery source: the actors' last distinct id in sort order (groups: their key), sorted. */
async function actorsOf(pid: number, source: Record<string, unknown>, proj: Record<string, unknown> = {}): Promise<string[]> {
  const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', ...source } }, pid, proj as any);
  return (r.results as any[]).map((row) => (row[0].distinct_ids ? [...row[0].distinct_ids].sort().pop() : row[0].id)).sort();
}

// ------------------------------------------------------------------------------------------------ stickiness

/**
 * test_stickiness_query_runner.py's `_create_test_events` (p1 Chrome org:1, p2 Firefox org:2), with the $pageleave
 * series of each person: p1 $pageview Jan 11, 12, 13, 15, 17, 19 and $pageleave Jan 11, 12; p2 $pageview Jan 9, 11,
 * 12 and $pageleave Jan 14. Default range 2020-01-11 .. 2020-01-20 (10 days).
 */
async function stickinessProject(): Promise<number> {
  const at = (id: string, event: string, days: number[], props: Record<string, unknown>): TestEvent[] =>
    days.map((d) => ({ event, distinct_id: id, timestamp: `2020-01-${String(d).padStart(2, '0')}T12:00:00Z`, properties: props }));
  const org = (key: string, industry: string): TestEvent => ({
    event: '$groupidentify',
    distinct_id: 'p1',
    timestamp: '2019-12-01T00:00:00Z',
    properties: { $group_type: 'organization', $group_key: key, $group_set: { industry } },
  });
  const p1 = { $browser: 'Chrome', prop: 10, $group_0: 'org:1' };
  const p2 = { $browser: 'Firefox', prop: 20, $group_0: 'org:2' };
  return project(
    [
      { distinct_ids: ['p1'], created_at: '2020-01-11T12:00:00Z', properties: { name: 'p1', email: 'test@posthog.com' } },
      { distinct_ids: ['p2'], created_at: '2020-01-09T12:00:00Z', properties: { name: 'p2' } },
    ],
    [
      org('org:1', 'technology'),
      org('org:2', 'agriculture'),
      ...at('p1', '$pageview', [11, 12, 13, 15, 17, 19], p1),
      ...at('p1', '$pageleave', [11, 12], p1),
      ...at('p2', '$pageview', [9, 11, 12], p2),
      ...at('p2', '$pageleave', [14], p2),
    ],
  );
}
const PV = { kind: 'EventsNode', event: '$pageview' };
const PL = { kind: 'EventsNode', event: '$pageleave' };
const RANGE = { date_from: '2020-01-11', date_to: '2020-01-20' };
const stickiness = (pid: number, q: Record<string, unknown> = {}, proj: Record<string, unknown> = {}) =>
  db.run(stickinessRunner, { kind: 'StickinessQuery', series: [PV], dateRange: RANGE, ...q }, pid, proj as any);
const zeros = (n: number, at: Record<number, number> = {}) => Array.from({ length: n }, (_, i) => at[i] ?? 0);

describe('StickinessQuery (test_stickiness_query_runner.py)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await stickinessProject();
  });

  it('test_interval_hour_last_days: -2d by hour starts at midnight two days ago and ends with the current hour (61 hours)', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await stickiness(pid, { interval: 'hour', dateRange: { date_from: '-2d', date_to: null } });
    // Jan 18 00:00 .. Jan 20 12:00: p1's Jan 19 12:00 pageview is its only activity
    expect(r.results[0].labels).toEqual(Array.from({ length: 61 }, (_, h) => `${h + 1} hour${h === 0 ? '' : 's'}`));
    expect(r.results[0].data).toEqual(zeros(61, { 0: 1 }));
    expect(r.results[0].count).toBe(1);
  });

  it('test_interval_day with a relative range: -7d under a frozen clock is 8 days', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await stickiness(pid, { dateRange: { date_from: '-7d' } });
    // Jan 13 .. Jan 20: p1 on Jan 13, 15, 17, 19
    expect(r.results[0]).toMatchObject({ days: [1, 2, 3, 4, 5, 6, 7, 8], data: zeros(8, { 3: 1 }), count: 1 });
  });

  it('test_actors_query_series: the actors of the second series ($pageleave)', async () => {
    const source = { kind: 'StickinessQuery', series: [PV, PL], dateRange: RANGE };
    const r = await stickiness(pid, { series: [PV, PL] });
    expect(r.results.map((x: any) => [x.label, x.data])).toEqual([
      ['$pageview', zeros(10, { 1: 1, 5: 1 })],
      ['$pageleave', zeros(10, { 0: 1, 1: 1 })],
    ]);
    expect(await actorsOf(pid, { source, day: 2, series: 1 })).toEqual(['p1']);
    expect(await actorsOf(pid, { source, day: 1, series: 1 })).toEqual(['p2']);
    expect(await actorsOf(pid, { source, day: 2, series: 0 })).toEqual(['p2']);
    expect(await actorsOf(pid, { source, day: 6 })).toEqual(['p1']);
    expect(await actorsOf(pid, { source, day: 1 })).toEqual([]);
  });

  it('test_interval_week with the team week starting on Monday (weeks of Jan 6, 13, 20)', async () => {
    const r = await stickiness(pid, { interval: 'week' }, { week_start_day: 1 });
    // p1: Jan 11, 12 (week of Jan 6), Jan 13–19 (week of Jan 13) → 2 weeks; p2: Jan 11, 12 → 1 week
    expect(r.results[0]).toMatchObject({ labels: ['1 week', '2 weeks', '3 weeks'], days: [1, 2, 3], data: [1, 1, 0], count: 2 });
    // Sunday weeks (Jan 5, 12, 19): p1 in all three, p2 in two
    expect((await stickiness(pid, { interval: 'week' })).results[0].data).toEqual([0, 1, 1]);
  });

  it('test_person_property_filtering: a person property filter on the series', async () => {
    const r = await stickiness(pid, { series: [{ ...PV, properties: [{ type: 'person', key: 'name', operator: 'exact', value: 'p2' }] }] });
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 1: 1 }), count: 1 });
  });

  it('test_filter_by_group_properties (test_stickiness.py): a group property filter keeps the events of technology organizations', async () => {
    const properties = [{ type: 'group', key: 'industry', value: 'technology', operator: 'exact', group_type_index: 0 }];
    const r = await stickiness(pid, { properties });
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 5: 1 }), count: 1 });
    // by organization: org:1 (technology) on the six days of p1
    const groups = await stickiness(pid, { properties, series: [{ ...PV, math: 'unique_group', math_group_type_index: 0 }] });
    expect(groups.results[0]).toMatchObject({ data: zeros(10, { 5: 1 }), count: 1 });
    const source = { kind: 'StickinessQuery', series: [{ ...PV, math: 'unique_group', math_group_type_index: 0 }], dateRange: RANGE, properties };
    expect(await actorsOf(pid, { source, day: 6 })).toEqual(['org:1']);
  });

  it('test_cohort_filtering: a cohort property filter keeps its persons, in the counts and in the actors', async () => {
    const cohorts = new Map([[301, cohort(301, 'p2 only', [{ type: 'person', key: 'name', value: 'p2' }])]]);
    const properties = [{ type: 'cohort', key: 'id', value: 301 }];
    const r = await runWithCohorts(cohorts, () => stickiness(pid, { properties }));
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 1: 1 }), count: 1 });
    const notIn = await runWithCohorts(cohorts, () => stickiness(pid, { properties: [{ ...properties[0], operator: 'not_in' }] }));
    expect(notIn.results[0]).toMatchObject({ data: zeros(10, { 5: 1 }), count: 1 });
    const source = { kind: 'StickinessQuery', series: [PV], dateRange: RANGE, properties };
    expect(await runWithCohorts(cohorts, () => actorsOf(pid, { source, day: 2 }))).toEqual(['p2']);
  });

  it('test_actions with an action step property filter: only the matching events of the action count', async () => {
    const chrome = action('chrome pageviews', [actionStep('$pageview', [{ key: '$browser', value: 'Chrome', type: 'event', operator: 'exact' }])]);
    const r = await stickiness(pid, { series: [{ kind: 'ActionsNode', id: chrome }] });
    expect(r.results[0]).toMatchObject({ label: 'chrome pageviews', data: zeros(10, { 5: 1 }), count: 1 });
    // an action of two steps (OR): the pageviews of Chrome or the pageleaves
    const either = action('chrome or leave', [actionStep('$pageview', [{ key: '$browser', value: 'Chrome', type: 'event', operator: 'exact' }]), actionStep('$pageleave')]);
    const r2 = await stickiness(pid, { series: [{ kind: 'ActionsNode', id: either }] });
    // p1: its six pageview days; p2: Jan 14
    expect(r2.results[0]).toMatchObject({ data: zeros(10, { 0: 1, 5: 1 }), count: 2 });
  });

  it('test_stickiness_people_with_entity_filter (test_stickiness.py): the actors of a day with a series property filter', async () => {
    const source = { kind: 'StickinessQuery', series: [{ ...PV, properties: [{ key: '$browser', value: 'Firefox', type: 'event' }] }], dateRange: RANGE };
    expect(await actorsOf(pid, { source, day: 2 })).toEqual(['p2']);
    expect(await actorsOf(pid, { source, day: 6 })).toEqual([]);
  });

  it('test_interval_month in a project timezone: months are local calendar months', async () => {
    const local = await project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }],
      [
        { event: '$pageview', distinct_id: 'a', timestamp: '2020-01-15T12:00:00Z' },
        { event: '$pageview', distinct_id: 'a', timestamp: '2020-02-01T05:00:00Z' }, // Jan 31 21:00 in Los Angeles
        { event: '$pageview', distinct_id: 'b', timestamp: '2020-03-01T07:30:00Z' }, // Feb 29 23:30 in Los Angeles
      ],
    );
    const q = { interval: 'month', dateRange: { date_from: '2020-01-01', date_to: '2020-03-31' } };
    expect((await stickiness(local, q)).results[0]).toMatchObject({ labels: ['1 month', '2 months', '3 months'], data: [1, 1, 0], count: 2 });
    expect((await stickiness(local, q, { timezone: 'America/Los_Angeles' })).results[0]).toMatchObject({ data: [2, 0, 0], count: 2 });
  });

  it('test_interval_hour in a half-hour timezone: hours start at :30 UTC (Asia/Kolkata)', async () => {
    const local = await project(
      [{ distinct_ids: ['a'] }],
      // 10:20 and 10:40 UTC are 15:50 and 16:10 in Kolkata: one UTC hour, two local hours
      ['2020-01-11T10:20:00Z', '2020-01-11T10:40:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'a', timestamp })),
    );
    const q = { interval: 'hour', dateRange: { date_from: '2020-01-11T00:00:00', date_to: '2020-01-11T23:00:00' } };
    expect((await stickiness(local, q)).results[0].data.slice(0, 3)).toEqual([1, 0, 0]);
    const kolkata = await stickiness(local, q, { timezone: 'Asia/Kolkata' });
    expect(kolkata.results[0].data.slice(0, 3)).toEqual([0, 1, 0]);
    expect(kolkata.results[0].data).toHaveLength(24);
  });

  it('cumulative by week (computedAs cumulative): "1 week or more" labels, actors active in at least k weeks; count unchanged', async () => {
    const r = await stickiness(pid, { interval: 'week', stickinessFilter: { computedAs: 'cumulative' } });
    // non-cumulative [0, 1, 1] (p2 two weeks, p1 three)
    expect(r.results[0]).toMatchObject({ labels: ['1 week or more', '2 weeks or more', '3 weeks or more'], data: [2, 2, 1], count: 2 });
    const source = { kind: 'StickinessQuery', series: [PV], dateRange: RANGE, interval: 'week', stickinessFilter: { computedAs: 'cumulative' } };
    expect(await actorsOf(pid, { source, day: 2 })).toEqual(['p1', 'p2']);
    expect(await actorsOf(pid, { source, day: 3 })).toEqual(['p1']);
  });

  it('test_property_filtering with a property group: OR of an event and a person property, ANDed with another', async () => {
    const properties = {
      type: 'AND',
      values: [
        {
          type: 'OR',
          values: [
            { type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' },
            { type: 'person', key: 'name', operator: 'exact', value: 'p2' },
          ],
        },
        { type: 'AND', values: [{ type: 'event', key: 'prop', operator: 'gt', value: 5 }] },
      ],
    };
    expect((await stickiness(pid, { properties })).results[0]).toMatchObject({ data: zeros(10, { 1: 1, 5: 1 }), count: 2 });
    const only = { ...properties, values: [properties.values[0], { type: 'AND', values: [{ type: 'event', key: 'prop', operator: 'gt', value: 15 }] }] };
    expect((await stickiness(pid, { properties: only })).results[0]).toMatchObject({ data: zeros(10, { 1: 1 }), count: 1 });
  });

  it('test_filter_test_accounts with an event property filter in the team filters', async () => {
    const proj = { test_account_filters: [{ key: '$browser', value: 'Firefox', operator: 'is_not', type: 'event' }] };
    expect((await stickiness(pid, { filterTestAccounts: true }, proj)).results[0]).toMatchObject({ data: zeros(10, { 5: 1 }), count: 1 });
  });

  it('test_stickiness_people_paginated (test_stickiness.py): 150 actors on one day, a page of 100 then the other 50', async () => {
    const persons: TestPerson[] = [];
    const events: TestEvent[] = [];
    for (let i = 0; i < 150; i++) {
      persons.push({ distinct_ids: [`person${i}`], properties: { name: `person${i}` } });
      events.push({ event: 'watched movie', distinct_id: `person${i}`, timestamp: '2020-01-01T12:00:00Z' });
    }
    const many = await project(persons, events);
    const source = { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: 'watched movie' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } };
    const counts = await db.run(stickinessRunner, source, many);
    expect(counts.results[0]).toMatchObject({ data: [150, 0, 0, 0, 0, 0, 0, 0], count: 150 });
    const page = (offset?: number) =>
      db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source, day: 1 }, ...(offset ? { offset } : {}) }, many);
    const first = await page();
    expect(first.results).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    const second = await page(100);
    expect(second.results).toHaveLength(50);
    expect(second.hasMore).toBe(false);
    expect(new Set([...first.results, ...second.results].map((row: any[]) => row[0].id)).size).toBe(150);
  });
});

// ------------------------------------------------------------------------------------------------ lifecycle

/** ... and with p1 alone (its filters): returning Jan 12, 13; resurrecting Jan 15, 17, 19. */
const P1_ONLY = {
  new: [0, 0, 0, 0, 0, 0, 0, 0],
  returning: [1, 1, 0, 0, 0, 0, 0, 0],
  resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
  dormant: [0, 0, -1, 0, -1, 0, -1, 0],
};
const LRANGE = { date_from: '2020-01-12', date_to: '2020-01-19' };
const lifecycle = (pid: number, q: Record<string, unknown> = {}, proj: Record<string, unknown> = {}) =>
  db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [PV], interval: 'day', dateRange: LRANGE, ...q }, pid, proj as any);

describe('LifecycleQuery (test_lifecycle_query_runner.py)', () => {
  let pid: number;
  beforeAll(async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS, '$pageview', (id) => ({ $browser: id === 'p1' ? 'Chrome' : 'Safari' }));
    pid = await project(persons, events);
  });

  it('test_lifecycle_query_whole_range: Jan 9 .. Jan 19, every person\'s first day new', async () => {
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-09', date_to: '2020-01-19' } });
    expect(r.results.map((x: any) => [x.status, x.data, x.count])).toEqual([
      ['new', [1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0], 4],
      ['returning', [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0], 2],
      ['resurrecting', [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1], 4],
      ['dormant', [0, -1, 0, 0, -2, -1, 0, -2, 0, -1, 0], -7],
    ]);
    expect(r.results[0].days).toEqual(Array.from({ length: 11 }, (_, i) => `2020-01-${String(9 + i).padStart(2, '0')}`));
    expect(r.results[0].labels[0]).toBe('9-Jan-2020');
    expect(r.results[3].labels[10]).toBe('19-Jan-2020');
  });

  it('test_lifecycle_trend_prop_filtering with the filter on the series (EventsNode.properties)', async () => {
    const r = await lifecycle(pid, { series: [{ ...PV, properties: [{ type: 'event', key: '$browser', value: 'Chrome', operator: 'exact' }] }] });
    expect(byStatus(r)).toEqual(P1_ONLY);
  });

  it('test_lifecycle_trend_action with an action step property filter', async () => {
    const chrome = action('chrome pageviews', [actionStep('$pageview', [{ key: '$browser', value: 'Chrome', type: 'event', operator: 'exact' }])]);
    const r = await lifecycle(pid, { series: [{ kind: 'ActionsNode', id: chrome }] });
    expect(byStatus(r)).toEqual(P1_ONLY);
    expect(r.results[3].label).toBe('chrome pageviews - dormant');
  });

  it('test_lifecycle_cohort_filter: a cohort property filter keeps its persons', async () => {
    const cohorts = new Map([[302, cohort(302, 'p1', [{ type: 'person', key: 'name', value: 'p1' }])]]);
    const r = await runWithCohorts(cohorts, () => lifecycle(pid, { properties: [{ type: 'cohort', key: 'id', value: 302 }] }));
    expect(byStatus(r)).toEqual(P1_ONLY);
    // not_in: p2, p3, p4 — p2 resurrecting and p3 new on the 12th, both dormant on the 13th, p4 new on the 15th
    const notIn = await runWithCohorts(cohorts, () => lifecycle(pid, { properties: [{ type: 'cohort', key: 'id', value: 302, operator: 'not_in' }] }));
    expect(byStatus(notIn)).toEqual({
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 0, 0, 0, 0, 0],
      dormant: [0, -2, 0, 0, -1, 0, 0, 0],
    });
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: LRANGE, properties: [{ type: 'cohort', key: 'id', value: 302 }] };
    expect(await runWithCohorts(cohorts, () => actorsOf(pid, { source, day: '2020-01-15', status: 'resurrecting' }))).toEqual(['p1']);
    expect(await runWithCohorts(cohorts, () => actorsOf(pid, { source, day: '2020-01-12', status: 'new' }))).toEqual([]);
  });

  it('test_lifecycle_trend_people for every status of a day: returning, resurrecting, new, dormant', async () => {
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: LRANGE };
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'returning' })).toEqual(['p1']);
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'dormant' })).toEqual([]);
    expect(await actorsOf(pid, { source, day: '2020-01-15', status: 'new' })).toEqual(['p4']);
    expect(await actorsOf(pid, { source, day: '2020-01-16', status: 'dormant' })).toEqual(['p1', 'p4']);
    expect(await actorsOf(pid, { source, day: '2020-01-19', status: 'resurrecting' })).toEqual(['p1']);
  });

  it('test_lifecycle_trend_weeks with the team week starting on Monday', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_WEEKS);
    const weeks = await project(persons, events);
    const r = await lifecycle(weeks, { interval: 'week', dateRange: { date_from: '2020-02-05T00:00:00Z', date_to: '2020-03-09T00:00:00Z' } }, { week_start_day: 1 });
    expect(r.results[0].days).toEqual(['2020-02-03', '2020-02-10', '2020-02-17', '2020-02-24', '2020-03-02', '2020-03-09']);
    // lifecycle labels are the week's first day (`%-d-%b-%Y`), not the trends week spans
    expect(r.results[0].labels).toEqual(['3-Feb-2020', '10-Feb-2020', '17-Feb-2020', '24-Feb-2020', '2-Mar-2020', '9-Mar-2020']);
    // Monday weeks: p1 in the weeks of Jan 27 (created), Feb 3, Feb 10, Feb 24, Mar 2
    expect(byStatus(r)).toEqual({
      new: [0, 2, 0, 1, 0, 0],
      returning: [1, 1, 1, 0, 1, 0],
      resurrecting: [0, 0, 0, 1, 0, 0],
      dormant: [0, 0, -2, -1, -1, -1],
    });
    const source = { kind: 'LifecycleQuery', series: [PV], interval: 'week', dateRange: { date_from: '2020-02-05T00:00:00Z', date_to: '2020-03-09T00:00:00Z' } };
    expect(await actorsOf(weeks, { source, day: '2020-02-10', status: 'new' }, { week_start_day: 1 })).toEqual(['p2', 'p3']);
    expect(await actorsOf(weeks, { source, day: '2020-02-17', status: 'dormant' }, { week_start_day: 1 })).toEqual(['p1', 'p3']);
  });

  it('test_lifecycle_trend_months in a project timezone: local calendar months decide new, returning and dormant', async () => {
    const months = await project(
      [{ distinct_ids: ['a'], created_at: '2020-02-01T05:00:00Z' }],
      // Jan 31 21:00, Feb 15 and Mar 31 20:00 in Los Angeles (Feb 1, Feb 15 and Apr 1 in UTC)
      ['2020-02-01T05:00:00Z', '2020-02-15T12:00:00Z', '2020-04-01T03:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'a', timestamp })),
    );
    const q = { interval: 'month', dateRange: { date_from: '2020-01-01', date_to: '2020-04-30' } };
    expect(byStatus(await lifecycle(months, q))).toEqual({ new: [0, 1, 0, 0], returning: [0, 0, 0, 0], resurrecting: [0, 0, 0, 1], dormant: [0, 0, -1, 0] });
    const la = await lifecycle(months, q, { timezone: 'America/Los_Angeles' });
    expect(la.results[0].days).toEqual(['2020-01-01', '2020-02-01', '2020-03-01', '2020-04-01']);
    expect(la.results[0].labels).toEqual(['1-Jan-2020', '1-Feb-2020', '1-Mar-2020', '1-Apr-2020']);
    expect(byStatus(la)).toEqual({ new: [1, 0, 0, 0], returning: [0, 1, 1, 0], resurrecting: [0, 0, 0, 0], dormant: [0, 0, 0, -1] });
  });

  it('labels (LifecycleQueryRunner.calculate): `%-d-%b-%Y` for every interval, `%-d-%b-%Y %H:%M` by hour; days `%Y-%m-%d[ %H:%M:%S]`', async () => {
    const week = await lifecycle(pid, { interval: 'week', dateRange: { date_from: '2019-12-25', date_to: '2020-01-19' } });
    expect(week.results[0].days).toEqual(['2019-12-22', '2019-12-29', '2020-01-05', '2020-01-12', '2020-01-19']);
    expect(week.results[0].labels).toEqual(['22-Dec-2019', '29-Dec-2019', '5-Jan-2020', '12-Jan-2020', '19-Jan-2020']);
    const month = await lifecycle(pid, { interval: 'month', dateRange: { date_from: '2019-12-01', date_to: '2020-01-19' } });
    expect(month.results[0].labels).toEqual(['1-Dec-2019', '1-Jan-2020']);
    expect(month.results[0].days).toEqual(['2019-12-01', '2020-01-01']);
    const hour = await lifecycle(pid, { interval: 'hour', dateRange: { date_from: '2020-01-12T10:00:00', date_to: '2020-01-12T13:00:00' } });
    expect(hour.results[0].days).toEqual(['2020-01-12 10:00:00', '2020-01-12 11:00:00', '2020-01-12 12:00:00', '2020-01-12 13:00:00']);
    expect(hour.results[0].labels).toEqual(['12-Jan-2020 10:00', '12-Jan-2020 11:00', '12-Jan-2020 12:00', '12-Jan-2020 13:00']);
    // p3 (created Jan 12 12:00) new at 12:00; p1 and p2 resurrecting (their last activity is a day earlier); all dormant at 13:00
    expect(byStatus(hour)).toEqual({ new: [0, 0, 1, 0], returning: [0, 0, 0, 0], resurrecting: [0, 0, 2, 0], dormant: [0, 0, 0, -3] });
  });

  it('aggregated by groups: a group without a group row (no created_at) is never new; its first activity resurrecting', async () => {
    const pv = (d: string, at: string, org: string): TestEvent => ({ event: '$pageview', distinct_id: d, timestamp: at, properties: { $group_0: org } });
    const groups = await project(
      [{ distinct_ids: ['u1'] }, { distinct_ids: ['u2'] }],
      [
        { event: '$groupidentify', distinct_id: 'u1', timestamp: '2020-01-12T09:00:00Z', properties: { $group_type: 'organization', $group_key: 'known', $group_set: {} } },
        pv('u1', '2020-01-12T10:00:00Z', 'known'),
        pv('u2', '2020-01-13T10:00:00Z', 'known'),
        pv('u2', '2020-01-12T11:00:00Z', 'unknown'),
        pv('u1', '2020-01-13T11:00:00Z', 'unknown'),
      ],
    );
    const q = { aggregation_group_type_index: 0, dateRange: { date_from: '2020-01-12', date_to: '2020-01-14' } };
    expect(byStatus(await lifecycle(groups, q))).toEqual({ new: [1, 0, 0], returning: [0, 2, 0], resurrecting: [1, 0, 0], dormant: [0, 0, -2] });
    const source = { kind: 'LifecycleQuery', series: [PV], ...q };
    // (the actors of a group without a row are not listed: PostHog's actors query reads the groups table)
    expect(await actorsOf(groups, { source, day: '2020-01-12', status: 'new' })).toEqual(['known']);
    expect(await actorsOf(groups, { source, day: '2020-01-13', status: 'returning' })).toEqual(['known']);
  });

  it('hour interval with a relative -24h (frozen clock): 25 hours from the top of the hour a day ago; the hour before is fetched', async () => {
    freeze('2020-01-12T13:30:00Z');
    const r = await lifecycle(pid, { interval: 'hour', dateRange: { date_from: '-24h' } });
    expect(r.results[0].days).toHaveLength(25);
    expect(r.results[0].days[0]).toBe('2020-01-11 13:00:00');
    expect(r.results[0].days[24]).toBe('2020-01-12 13:00:00');
    expect(r.results[0].labels[24]).toBe('12-Jan-2020 13:00');
    // p1's Jan 11 12:00 is the hour before the range: dormant at 13:00. On Jan 12 12:00 p3 is new (created then),
    // p1 and p2 resurrecting; all three dormant at 13:00.
    const d = byStatus(r);
    expect([d.new[23], d.resurrecting[23], d.returning[23], d.dormant[0], d.dormant[24]]).toEqual([1, 2, 0, -1, -3]);
    expect(r.results.map((x: any) => x.count)).toEqual([1, 0, 2, -4]);
    // the actors of an hour: its `days` entry
    const source = { kind: 'LifecycleQuery', series: [PV], interval: 'hour', dateRange: { date_from: '-24h' } };
    expect(await actorsOf(pid, { source, day: '2020-01-12 12:00:00', status: 'new' })).toEqual(['p3']);
    expect(await actorsOf(pid, { source, day: '2020-01-12 13:00:00', status: 'dormant' })).toEqual(['p1', 'p2', 'p3']);
  });

  it('week interval in a project timezone: the week of created_at is the local one (US/Pacific)', async () => {
    // created and first seen Feb 9 03:00 UTC = Sat Feb 8 19:00 in Los Angeles; seen again Feb 9 10:00 UTC = Sun Feb 9 02:00
    const weekTz = await project(
      [{ distinct_ids: ['w'], created_at: '2020-02-09T03:00:00Z' }],
      [{ event: 'other', distinct_id: 'w', timestamp: '2020-02-09T03:00:00Z' }, { event: '$pageview', distinct_id: 'w', timestamp: '2020-02-09T10:00:00Z' }],
    );
    const q = { interval: 'week', dateRange: { date_from: '2020-02-02', date_to: '2020-02-22' } };
    // UTC: created in the week of Feb 9, the week of its first pageview: new
    expect(byStatus(await lifecycle(weekTz, q))).toEqual({ new: [0, 1, 0], returning: [0, 0, 0], resurrecting: [0, 0, 0], dormant: [0, 0, -1] });
    // Los Angeles: created in the week of Feb 2, first pageview in the week of Feb 9: resurrecting
    expect(byStatus(await lifecycle(weekTz, q, { timezone: 'US/Pacific' }))).toEqual({ new: [0, 0, 0], returning: [0, 0, 0], resurrecting: [0, 1, 0], dormant: [0, 0, -1] });
  });

  it('test_lifecycle_trend_prop_filtering with a property group (OR of two persons)', async () => {
    const properties = {
      type: 'OR',
      values: [
        { type: 'AND', values: [{ type: 'person', key: 'name', operator: 'exact', value: 'p3' }] },
        { type: 'AND', values: [{ type: 'person', key: 'name', operator: 'exact', value: 'p4' }] },
      ],
    };
    expect(byStatus(await lifecycle(pid, { properties }))).toEqual({
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 0, 0, 0, 0, 0],
      dormant: [0, -1, 0, 0, -1, 0, 0, 0],
    });
  });

  it('test_sampling: a samplingFactor below 1 runs and answers the four series (PostHog\'s test asserts no numbers)', async () => {
    const r = await lifecycle(pid, { samplingFactor: 0.1 });
    expect(r.results.map((x: any) => x.status)).toEqual(['new', 'returning', 'resurrecting', 'dormant']);
    expect(r.results[0].days).toHaveLength(8);
  });

  it('test_interval_dates_days in a timezone behind UTC: -7d ends with the local today', async () => {
    // 03:00 UTC on May 5 is May 4 20:00 in US/Pacific
    freeze('2021-05-05T03:00:00Z');
    const empty = await project([], []);
    const r = await lifecycle(empty, { dateRange: { date_from: '-7d' } }, { timezone: 'US/Pacific' });
    expect(r.results[0].days).toEqual(['2021-04-27', '2021-04-28', '2021-04-29', '2021-04-30', '2021-05-01', '2021-05-02', '2021-05-03', '2021-05-04']);
    expect(r.results[0].labels[7]).toBe('4-May-2021');
    const utc = await lifecycle(empty, { dateRange: { date_from: '-7d' } });
    expect(utc.results[0].days[7]).toBe('2021-05-05');
  });

  it('a person created on a day without events: the first event later is resurrecting, then returning; dormant after the last', async () => {
    // test_lifecycle_edge_cases' rule with the creation inside the range: created Jan 13 (no event that day)
    const quiet = await project(
      [{ distinct_ids: ['q'], created_at: '2020-01-13T09:00:00Z' }],
      ['2020-01-15T12:00:00Z', '2020-01-16T12:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'q', timestamp })),
    );
    expect(byStatus(await lifecycle(quiet))).toEqual({
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 1, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 0, 0, 0],
      dormant: [0, 0, 0, 0, 0, -1, 0, 0],
    });
  });

  it('test_lifecycle_trend_with_zero_person_ids under a person filter: the counts of the filtered persons only', async () => {
    const r = await lifecycle(pid, { properties: [{ type: 'person', key: 'email', operator: 'is_set' }] });
    expect(byStatus(r)).toEqual(P1_ONLY);
    expect(byStatus(await lifecycle(pid))).toEqual(LIFECYCLE_TREND);
  });
});
