/**
 * A fifth pass over PostHog's stickiness and lifecycle suites (posthog/hogql_queries/insights/test/
 * test_stickiness_query_runner.py, test_lifecycle_query_runner.py, posthog/queries/test/test_stickiness.py,
 * posthog/queries/test/test_lifecycle.py): the scenarios the earlier passes (retention-lifecycle-stickiness-posthog-compat,
 * rsl-posthog-compat-{2,3}, stickiness-lifecycle-posthog-compat) do not pin — cumulative stickiness on the runner
 * suite's own fixture, static cohorts, series filters on actions, group actors without a group, the first and last
 * partial week/month/hour of a range (stickiness filters from date_from; lifecycle fetches whole intervals), several
 * lifecycle series ANDed, a creation later on the day of the first event, merged persons, test-account filters on
 * events, ranges without dateRange / with a relative date_to / with explicitDate, daylight-saving changes, the hourly
 * (self-join) lifecycle of groups and cohorts, and `e.` (PostHog's `FROM events AS e`) in stickiness expressions. Each
 * title names the PostHog test it follows; where PostHog's fixture is not copied as is, the expectation is derived from
 * the reference (§1.5, §1.8, §6, §7) and the comment says so.
 */
import { actionRegistry, actionStep, createInsightTestDb, type InsightTestDb, type TestEvent } from '../insights/testing';
import { byStatus, LIFECYCLE_DAYS, LIFECYCLE_TREND, LIFECYCLE_TREND_WITHOUT_P1, lifecycleData } from './testing';
import { setInsightsClock } from '../insights/date-range';
import { runWithCohorts, type ResolvedCohort } from '../../cohorts/cohort-scope';
import { lifecycleRunner } from './lifecycle-runner';
import { stickinessRunner } from './stickiness-runner';
import { actorsRunner } from './actors-runner';

let db: InsightTestDb;
const { source: actionSource, action } = actionRegistry(1900);
beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
});
afterAll(async () => {
  await db.close();
});

const project: InsightTestDb['project'] = (persons, events) => db.project(persons, events);

/** ActorsQuery over an InsightActorsQuery source: each actor's last distinct id in sort order (groups: their key), sorted. */
async function actorsOf(pid: number, source: Record<string, unknown>, proj: Record<string, unknown> = {}): Promise<string[]> {
  const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', ...source } }, pid, proj as any);
  return (r.results as any[]).map((row) => (row[0].distinct_ids ? [...row[0].distinct_ids].sort().pop() : row[0].id)).sort();
}

/** The person ids of a project's persons whose (first) distinct id is in `ids`: a static cohort's members. */
async function personIds(pid: number, ids: string[]): Promise<string[]> {
  const all = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], limit: 100 }, pid);
  return (all.results as any[][]).filter((row) => row[0].distinct_ids.some((d: string) => ids.includes(d))).map((row) => String(row[0].id));
}
const staticCohort = (id: number, persons: string[]): ResolvedCohort => ({ id, name: `static ${id}`, isStatic: true, group: null, personIds: persons });

const zeros = (n: number, at: Record<number, number> = {}) => Array.from({ length: n }, (_, i) => at[i] ?? 0);

// ------------------------------------------------------------------------------------------------ stickiness

/**
 * test_stickiness_query_runner.py's `_create_test_events`: p1 (Chrome, prop 10, org:1) $pageview Jan 11, 12, 13, 15,
 * 17, 19 and $pageleave Jan 11, 12; p2 (Firefox, prop 20, org:2) $pageview Jan 9, 11, 12 and $pageleave Jan 14.
 * `_run_query`'s default range is 2020-01-11 .. 2020-01-20 (10 days).
 */
async function stickinessProject(): Promise<number> {
  const at = (id: string, event: string, days: number[], props: Record<string, unknown>): TestEvent[] =>
    days.map((d) => ({ event, distinct_id: id, timestamp: `2020-01-${String(d).padStart(2, '0')}T12:00:00Z`, properties: props }));
  const p1 = { $browser: 'Chrome', prop: 10, bool_field: true, $group_0: 'org:1' };
  const p2 = { $browser: 'Firefox', prop: 20, bool_field: false, $group_0: 'org:2' };
  return project(
    [
      { distinct_ids: ['p1'], properties: { name: 'p1', email: 'test@posthog.com' } },
      { distinct_ids: ['p2'], properties: { name: 'p2' } },
    ],
    [
      ...at('p1', '$pageview', [11, 12, 13, 15, 17, 19], p1),
      ...at('p1', '$pageleave', [11, 12], p1),
      ...at('p2', '$pageview', [9, 11, 12], p2),
      ...at('p2', '$pageleave', [14], p2),
    ],
  );
}
const PV = { kind: 'EventsNode', event: '$pageview' };
const RANGE = { date_from: '2020-01-11', date_to: '2020-01-20' };
const stickiness = (pid: number, q: Record<string, unknown> = {}, proj: Record<string, unknown> = {}) =>
  db.run(stickinessRunner, { kind: 'StickinessQuery', series: [PV], dateRange: RANGE, ...q }, pid, proj as any);

describe('StickinessQuery (test_stickiness_query_runner.py)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await stickinessProject();
  });

  it('test_stickiness_runs_with_default_interval: no interval means days', async () => {
    const r = await stickiness(pid);
    expect(r.results[0]).toMatchObject({
      days: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      labels: ['1 day', '2 days', '3 days', '4 days', '5 days', '6 days', '7 days', '8 days', '9 days', '10 days'],
      data: [0, 1, 0, 0, 0, 1, 0, 0, 0, 0],
      count: 2,
    });
  });

  it('stickinessFilter.computedAs cumulative on the suite fixture: actors active on at least k days (reference §6.2/§6.3)', async () => {
    const r = await stickiness(pid, { stickinessFilter: { computedAs: 'cumulative' } });
    // non-cumulative [0, 1, 0, 0, 0, 1, ...]: p2 on 2 days, p1 on 6
    expect(r.results[0]).toMatchObject({
      data: [2, 2, 1, 1, 1, 1, 0, 0, 0, 0],
      labels: ['1 day or more', '2 days or more', '3 days or more', '4 days or more', '5 days or more', '6 days or more', '7 days or more', '8 days or more', '9 days or more', '10 days or more'],
      days: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      count: 2,
    });
    const source = { kind: 'StickinessQuery', series: [PV], dateRange: RANGE, stickinessFilter: { computedAs: 'cumulative' } };
    expect(await actorsOf(pid, { source, day: 1 })).toEqual(['p1', 'p2']);
    expect(await actorsOf(pid, { source, day: 3 })).toEqual(['p1']);
    expect(await actorsOf(pid, { source, day: 7 })).toEqual([]);
  });

  it('test_compare with computedAs cumulative: each period cumulated on its own, interleaved current/previous', async () => {
    const r = await stickiness(pid, { stickinessFilter: { computedAs: 'cumulative' }, compareFilter: { compare: true } });
    // previous period Jan 1 .. Jan 10: p2 on Jan 9
    expect(r.results.map((x: any) => [x.compare_label, x.data, x.count])).toEqual([
      ['current', [2, 2, 1, 1, 1, 1, 0, 0, 0, 0], 2],
      ['previous', [1, 0, 0, 0, 0, 0, 0, 0, 0, 0], 1],
    ]);
    expect(r.results[1].labels[0]).toBe('1 day or more');
  });

  it('test_actions with a series property filter on the ActionsNode: ANDed with the action steps', async () => {
    const views = action('all pageviews', [actionStep('$pageview')]);
    const r = await stickiness(pid, { series: [{ kind: 'ActionsNode', id: views, properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Firefox' }] }] });
    expect(r.results[0]).toMatchObject({ label: 'all pageviews', data: zeros(10, { 1: 1 }), count: 1 });
    const source = { kind: 'StickinessQuery', series: [{ kind: 'ActionsNode', id: views, properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Firefox' }] }], dateRange: RANGE };
    expect(await actorsOf(pid, { source, day: 2 })).toEqual(['p2']);
  });

  it('test_cohort_filtering with a static cohort: its persons only, in the counts and in the actors', async () => {
    const cohorts = new Map([[1301, staticCohort(1301, await personIds(pid, ['p1']))]]);
    const properties = [{ type: 'cohort', key: 'id', value: 1301 }];
    const r = await runWithCohorts(cohorts, () => stickiness(pid, { properties }));
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 5: 1 }), count: 1 });
    const source = { kind: 'StickinessQuery', series: [PV], dateRange: RANGE, properties };
    expect(await runWithCohorts(cohorts, () => actorsOf(pid, { source, day: 6 }))).toEqual(['p1']);
    expect(await runWithCohorts(cohorts, () => actorsOf(pid, { source, day: 2 }))).toEqual([]);
  });

  it('test_cohort_filtering with a dynamic cohort (person property email set): its persons only, in the counts and in the actors', async () => {
    // only p1 has an email; p1 active on 6 days of the range
    const cohorts = new Map<number, ResolvedCohort>([[1311, { id: 1311, name: 'emails', isStatic: false, group: { type: 'AND', values: [{ type: 'person', key: 'email', operator: 'is_set' }] } as any, personIds: [] }]]);
    const properties = [{ type: 'cohort', key: 'id', value: 1311 }];
    expect((await runWithCohorts(cohorts, () => stickiness(pid, { properties }))).results[0]).toMatchObject({ data: zeros(10, { 5: 1 }), count: 1 });
    const source = { kind: 'StickinessQuery', series: [PV], dateRange: RANGE, properties };
    expect(await runWithCohorts(cohorts, () => actorsOf(pid, { source, day: 6 }))).toEqual(['p1']);
  });

  it('test_hogql_aggregations: math_hogql may name the events table by its alias `e` (FROM events AS e)', async () => {
    const r = await stickiness(pid, { series: [{ ...PV, math: 'hogql', math_hogql: 'e.properties.prop' }] });
    // prop 10 (p1's events) on 6 days, prop 20 (p2's) on 2
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 1: 1, 5: 1 }), count: 2 });
    expect((await stickiness(pid, { series: [{ ...PV, math: 'hogql', math_hogql: 'properties.prop' }] })).results[0].data).toEqual(r.results[0].data);
    // a ProductQL property filter on the alias too (test_property_filtering_hogql)
    const chrome = await stickiness(pid, { properties: [{ type: 'hogql', key: "e.properties.$browser == 'Chrome'" }] });
    expect(chrome.results[0]).toMatchObject({ data: zeros(10, { 5: 1 }), count: 1 });
    const source = { kind: 'StickinessQuery', series: [PV], dateRange: RANGE, properties: [{ type: 'hogql', key: "e.properties.$browser == 'Chrome'" }] };
    expect(await actorsOf(pid, { source, day: 6 })).toEqual(['p1']);
    // with stickinessCriteria, and with date_from "all" (whose earliest-event lookup reads the same filter)
    const criteria = await stickiness(pid, { series: [{ ...PV, math: 'hogql', math_hogql: 'e.properties.prop' }], stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 1 } } });
    expect(criteria.results[0].data).toEqual(r.results[0].data);
    const restore = setInsightsClock(new Date('2020-01-20T12:00:00Z'));
    try {
      // (a filter every pageview passes: the start is Jan 9, p2's first pageview, whether or not filters narrow it)
      const all = await stickiness(pid, { dateRange: { date_from: 'all' }, properties: [{ type: 'hogql', key: 'e.properties.prop > 5' }] });
      // Jan 9 .. Jan 20: p2 on 3 days, p1 on 6
      expect(all.results[0]).toMatchObject({ days: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], data: zeros(12, { 2: 1, 5: 1 }) });
    } finally {
      restore();
    }
  });

  it('test_filter_test_accounts with a HogQL filter in the team filters', async () => {
    const proj = { test_account_filters: [{ type: 'hogql', key: "properties.$browser != 'Chrome'" }] };
    expect((await stickiness(pid, { filterTestAccounts: true }, proj)).results[0]).toMatchObject({ data: zeros(10, { 1: 1 }), count: 1 });
    expect((await stickiness(pid, { filterTestAccounts: false }, proj)).results[0].count).toBe(2);
  });
});

describe('StickinessQuery: partial first and last intervals, group actors (reference §1.5, §1.8, §6.3)', () => {
  it('test_interval_week with date_from mid-week: events of the first week before date_from are left out', async () => {
    // a: Mon Jan 6 only (before date_from Wed Jan 8); b: Wed Jan 8 and Mon Jan 13; c: Sat Jan 18 and Sun Jan 19 (after date_to)
    const pid = await project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }, { distinct_ids: ['c'] }],
      [
        { event: '$pageview', distinct_id: 'a', timestamp: '2020-01-06T12:00:00Z' },
        { event: '$pageview', distinct_id: 'b', timestamp: '2020-01-08T12:00:00Z' },
        { event: '$pageview', distinct_id: 'b', timestamp: '2020-01-13T12:00:00Z' },
        { event: '$pageview', distinct_id: 'c', timestamp: '2020-01-18T12:00:00Z' },
        { event: '$pageview', distinct_id: 'c', timestamp: '2020-01-19T12:00:00Z' },
      ],
    );
    const r = await stickiness(pid, { interval: 'week', dateRange: { date_from: '2020-01-08', date_to: '2020-01-18' } });
    // weeks of Jan 5 and Jan 12: b in both, c in the second (its Sunday is after date_to), a in none
    expect(r.results[0]).toMatchObject({ labels: ['1 week', '2 weeks'], data: [1, 1], count: 2 });
    const source = { kind: 'StickinessQuery', series: [PV], interval: 'week', dateRange: { date_from: '2020-01-08', date_to: '2020-01-18' } };
    expect(await actorsOf(pid, { source, day: 1 })).toEqual(['c']);
  });

  it('test_interval_month with date_from and date_to mid-month: the month of date_from is whole, date_to ends the range', async () => {
    const pid = await project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }],
      [
        // a: Jan 3 (before date_from, same month), Feb 5; b: Jan 20, Feb 20 (after date_to)
        { event: '$pageview', distinct_id: 'a', timestamp: '2020-01-03T12:00:00Z' },
        { event: '$pageview', distinct_id: 'a', timestamp: '2020-02-05T12:00:00Z' },
        { event: '$pageview', distinct_id: 'b', timestamp: '2020-01-20T12:00:00Z' },
        { event: '$pageview', distinct_id: 'b', timestamp: '2020-02-20T12:00:00Z' },
      ],
    );
    // absolute date_from snaps to the start of its interval (month) in the filter, unlike weeks (reference §1.5)
    const r = await stickiness(pid, { interval: 'month', dateRange: { date_from: '2020-01-15', date_to: '2020-02-10' } });
    expect(r.results[0]).toMatchObject({ labels: ['1 month', '2 months'], data: [1, 1], count: 2 });
    const source = { kind: 'StickinessQuery', series: [PV], interval: 'month', dateRange: { date_from: '2020-01-15', date_to: '2020-02-10' } };
    expect(await actorsOf(pid, { source, day: 2 })).toEqual(['a']);
  });

  it('test_interval_hour with an absolute date_from mid-hour: the hour of date_from is whole', async () => {
    const pid = await stickinessProject();
    // 12:30 snaps to 12:00: the 12:00 events of Jan 11 are in; date_to 14:00 is kept as given (3 hours)
    const r = await stickiness(pid, { interval: 'hour', dateRange: { date_from: '2020-01-11T12:30:00', date_to: '2020-01-11T14:00:00' } });
    expect(r.results[0]).toMatchObject({ labels: ['1 hour', '2 hours', '3 hours'], data: [2, 0, 0], count: 2 });
  });

  it('test_group_aggregations: events without the group are no actor (not an empty-key group)', async () => {
    const pv = (d: string, day: number, group?: string): TestEvent => ({
      event: '$pageview',
      distinct_id: d,
      timestamp: `2020-01-${String(day).padStart(2, '0')}T12:00:00Z`,
      properties: group === undefined ? {} : { $group_0: group },
    });
    const pid = await project(
      [{ distinct_ids: ['u1'] }, { distinct_ids: ['u2'] }],
      [pv('u1', 11, 'org:1'), pv('u1', 12, 'org:1'), pv('u2', 13), pv('u2', 14), pv('u2', 15), pv('u2', 16, '')],
    );
    const series = [{ ...PV, math: 'unique_group', math_group_type_index: 0 }];
    const r = await stickiness(pid, { series });
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 1: 1 }), count: 1 });
    // by person: u1 on 2 days, u2 on 4
    expect((await stickiness(pid)).results[0]).toMatchObject({ data: zeros(10, { 1: 1, 3: 1 }), count: 2 });
  });

  it('stickinessCriteria with intervalCount 2: the events of each pair of days are counted together', async () => {
    // Jan 15 .. Jan 20, pairs counted back from Jan 20: (19, 20), (17, 18), (15, 16)
    const pid = await project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }],
      [
        // a: one event on Jan 15 and one on Jan 16 (2 in the first pair), one on Jan 19
        ...['2020-01-15T10:00:00Z', '2020-01-16T10:00:00Z', '2020-01-19T10:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'a', timestamp })),
        // b: two on Jan 17, two on Jan 20
        ...['2020-01-17T10:00:00Z', '2020-01-17T11:00:00Z', '2020-01-20T10:00:00Z', '2020-01-20T11:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'b', timestamp })),
      ],
    );
    const q = { intervalCount: 2, dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' } };
    expect((await stickiness(pid, q)).results[0]).toMatchObject({ days: [1, 2, 3], data: [0, 2, 0], count: 2 });
    const gte2 = await stickiness(pid, { ...q, stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } });
    // a: only the first pair has 2 events; b: both its pairs
    expect(gte2.results[0]).toMatchObject({ data: [1, 1, 0] });
  });
});

// ------------------------------------------------------------------------------------------------ lifecycle

const LRANGE = { date_from: '2020-01-12', date_to: '2020-01-19' };
const lifecycle = (pid: number, q: Record<string, unknown> = {}, proj: Record<string, unknown> = {}) =>
  db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [PV], interval: 'day', dateRange: LRANGE, ...q }, pid, proj as any);
/** test_lifecycle_trend's answer with p1 alone. */
const P1_ONLY = {
  new: [0, 0, 0, 0, 0, 0, 0, 0],
  returning: [1, 1, 0, 0, 0, 0, 0, 0],
  resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
  dormant: [0, 0, -1, 0, -1, 0, -1, 0],
};

describe('LifecycleQuery (test_lifecycle_query_runner.py)', () => {
  let pid: number;
  beforeAll(async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS, '$pageview', (id) => ({ $browser: id === 'p1' ? 'Chrome' : 'Safari' }));
    pid = await project(persons, events);
  });

  it('several series are ANDed into one event filter; series[0] labels the results (reference §7.1)', async () => {
    const chrome = { ...PV, properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] };
    const r = await lifecycle(pid, { series: [PV, chrome] });
    expect(byStatus(r)).toEqual(P1_ONLY);
    expect(r.results[0].label).toBe('$pageview - new');
    // no event is both a $pageview and a $pageleave
    const none = await lifecycle(pid, { series: [PV, { kind: 'EventsNode', event: '$pageleave' }] });
    expect(none.results.map((x: any) => x.count)).toEqual([0, 0, 0, 0]);
    expect(none.results[3].label).toBe('$pageview - dormant');
  });

  it('test_lifecycle_cohort_filter with a static cohort: its persons only, in the counts and in the actors', async () => {
    const cohorts = new Map([[1302, staticCohort(1302, await personIds(pid, ['p2', 'p3', 'p4']))]]);
    const properties = [{ type: 'cohort', key: 'id', value: 1302 }];
    expect(byStatus(await runWithCohorts(cohorts, () => lifecycle(pid, { properties })))).toEqual(LIFECYCLE_TREND_WITHOUT_P1);
    expect(byStatus(await runWithCohorts(cohorts, () => lifecycle(pid, { properties: [{ ...properties[0], operator: 'not_in' }] })))).toEqual(P1_ONLY);
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: LRANGE, properties };
    expect(await runWithCohorts(cohorts, () => actorsOf(pid, { source, day: '2020-01-13', status: 'dormant' }))).toEqual(['p2', 'p3']);
  });

  it('test_lifecycle_cohort_filter with a dynamic cohort (person name in p2, p3, p4): as the static one', async () => {
    const group = { type: 'AND', values: [{ type: 'person', key: 'name', operator: 'exact', value: ['p2', 'p3', 'p4'] }] } as any;
    const cohorts = new Map<number, ResolvedCohort>([[1312, { id: 1312, name: 'not p1', isStatic: false, group, personIds: [] }]]);
    const properties = [{ type: 'cohort', key: 'id', value: 1312 }];
    expect(byStatus(await runWithCohorts(cohorts, () => lifecycle(pid, { properties })))).toEqual(LIFECYCLE_TREND_WITHOUT_P1);
    expect(byStatus(await runWithCohorts(cohorts, () => lifecycle(pid, { properties: [{ ...properties[0], operator: 'not_in' }] })))).toEqual(P1_ONLY);
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: LRANGE, properties };
    expect(await runWithCohorts(cohorts, () => actorsOf(pid, { source, day: '2020-01-15', status: 'new' }))).toEqual(['p4']);
  });

  it('test_filter_test_accounts with an event property filter in the team filters', async () => {
    const proj = { test_account_filters: [{ key: '$browser', value: 'Chrome', operator: 'is_not', type: 'event' }] };
    expect(byStatus(await lifecycle(pid, { filterTestAccounts: true }, proj))).toEqual(LIFECYCLE_TREND_WITHOUT_P1);
    expect(byStatus(await lifecycle(pid, { filterTestAccounts: false }, proj))).toEqual(LIFECYCLE_TREND);
  });

  it('test_events_query_partial_range: Jan 12 .. Jan 14, the day before fetched, the day after date_to not', async () => {
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-12', date_to: '2020-01-14' } });
    // p1 new on the 11th (fetched, not reported), returning 12th and 13th, dormant 14th; p2 resurrecting 12th, dormant
    // 13th; p3 new 12th, dormant 13th; p4 (Jan 15) not fetched
    expect(r.results.map((x: any) => [x.status, x.data, x.count])).toEqual([
      ['new', [1, 0, 0], 1],
      ['returning', [1, 1, 0], 2],
      ['resurrecting', [1, 0, 0], 1],
      ['dormant', [0, -2, -1], -3],
    ]);
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: { date_from: '2020-01-12', date_to: '2020-01-14' } };
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'returning' })).toEqual(['p1']);
    expect(await actorsOf(pid, { source, day: '2020-01-13', status: 'dormant' })).toEqual(['p2', 'p3']);
    expect(await actorsOf(pid, { source, day: '2020-01-14', status: 'dormant' })).toEqual(['p1']);
  });

  it('toggledLifecycles hides nothing from the response or the actors (display only, reference §7.1)', async () => {
    const r = await lifecycle(pid, { lifecycleFilter: { toggledLifecycles: ['dormant'] } });
    expect(byStatus(r)).toEqual(LIFECYCLE_TREND);
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: LRANGE, lifecycleFilter: { toggledLifecycles: ['dormant'] } };
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'new' })).toEqual(['p3']);
  });
});

describe('LifecycleQuery: creation, partial intervals (reference §7.3)', () => {
  it('test_lifecycle_edge_cases: a person created later on the day of their first event is new that day', async () => {
    const pid = await project(
      [{ distinct_ids: ['late'], created_at: '2020-01-12T15:00:00Z' }],
      ['2020-01-12T10:00:00Z', '2020-01-13T10:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'late', timestamp })),
    );
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-12', date_to: '2020-01-15' } });
    expect(byStatus(r)).toEqual({ new: [1, 0, 0, 0], returning: [0, 1, 0, 0], resurrecting: [0, 0, 0, 0], dormant: [0, 0, -1, 0] });
  });

  it('persons merged after their events are one actor, created at the earlier of the two creations', async () => {
    // PostHog's person merge keeps the earlier created_at: a (Jan 10) and b (Jan 12) merged on Jan 13
    const pid = await project(
      [
        { distinct_ids: ['a'], created_at: '2020-01-10T12:00:00Z' },
        { distinct_ids: ['b'], created_at: '2020-01-12T12:00:00Z' },
      ],
      [
        { event: '$pageview', distinct_id: 'a', timestamp: '2020-01-10T12:00:00Z' },
        { event: '$pageview', distinct_id: 'b', timestamp: '2020-01-12T12:00:00Z' },
        { event: '$merge_dangerously', distinct_id: 'b', timestamp: '2020-01-13T09:00:00Z', properties: { alias: 'a' } },
      ],
    );
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-10', date_to: '2020-01-14' } });
    expect(byStatus(r)).toEqual({ new: [1, 0, 0, 0, 0], returning: [0, 0, 0, 0, 0], resurrecting: [0, 0, 1, 0, 0], dormant: [0, -1, 0, -1, 0] });
  });

  it('test_lifecycle_trend_weeks with date_from and date_to mid-week: whole weeks are fetched', async () => {
    // a: created and active Mon Feb 3 (before date_from Wed Feb 5, same week); b: created Jan 1, active Sat Feb 15
    // (after date_to Wed Feb 12, same week)
    const pid = await project(
      [
        { distinct_ids: ['a'], created_at: '2020-02-03T10:00:00Z' },
        { distinct_ids: ['b'], created_at: '2020-01-01T10:00:00Z' },
      ],
      [
        { event: '$pageview', distinct_id: 'a', timestamp: '2020-02-03T12:00:00Z' },
        { event: '$pageview', distinct_id: 'b', timestamp: '2020-02-15T12:00:00Z' },
      ],
    );
    const q = { interval: 'week', dateRange: { date_from: '2020-02-05', date_to: '2020-02-12' } };
    const r = await lifecycle(pid, q);
    expect(r.results[0].days).toEqual(['2020-02-02', '2020-02-09']);
    expect(byStatus(r)).toEqual({ new: [1, 0], returning: [0, 0], resurrecting: [0, 1], dormant: [0, -1] });
    const source = { kind: 'LifecycleQuery', series: [PV], ...q };
    expect(await actorsOf(pid, { source, day: '2020-02-09', status: 'resurrecting' })).toEqual(['b']);
    expect(await actorsOf(pid, { source, day: '2020-02-09', status: 'dormant' })).toEqual(['a']);
  });

  it('test_lifecycle_trend_months with date_from and date_to mid-month: whole months are fetched', async () => {
    const pid = await project(
      [
        { distinct_ids: ['a'], created_at: '2020-01-02T10:00:00Z' },
        { distinct_ids: ['b'], created_at: '2019-06-01T10:00:00Z' },
      ],
      [
        // a: Jan 3 (before date_from Jan 20), Feb 25 (after date_to Feb 10); b: Dec 31 (the month before), Jan 5
        { event: '$pageview', distinct_id: 'a', timestamp: '2020-01-03T12:00:00Z' },
        { event: '$pageview', distinct_id: 'a', timestamp: '2020-02-25T12:00:00Z' },
        { event: '$pageview', distinct_id: 'b', timestamp: '2019-12-31T12:00:00Z' },
        { event: '$pageview', distinct_id: 'b', timestamp: '2020-01-05T12:00:00Z' },
      ],
    );
    const r = await lifecycle(pid, { interval: 'month', dateRange: { date_from: '2020-01-20', date_to: '2020-02-10' } });
    expect(r.results[0].days).toEqual(['2020-01-01', '2020-02-01']);
    expect(byStatus(r)).toEqual({ new: [1, 0], returning: [1, 1], resurrecting: [0, 0], dormant: [0, -1] });
  });
});

// ------------------------------------------------------------------------------------------------ relative ranges, DST, sub-day paths

describe('relative ranges under a frozen clock (test_interval_dates_days; reference §1.5)', () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it('no dateRange at all: -7d, the 8 days up to today (stickiness and lifecycle)', async () => {
    restore = setInsightsClock(new Date('2020-01-20T12:00:00Z'));
    const pid = await stickinessProject();
    const r = await db.run(stickinessRunner, { kind: 'StickinessQuery', series: [PV] }, pid);
    // Jan 13 .. Jan 20: p1 on Jan 13, 15, 17, 19
    expect(r.results[0]).toMatchObject({ days: [1, 2, 3, 4, 5, 6, 7, 8], data: zeros(8, { 3: 1 }), count: 1 });
    restore();
    restore = setInsightsClock(new Date('2020-01-19T12:00:00Z'));
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const lpid = await project(persons, events);
    const l = await db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [PV] }, lpid);
    expect(l.results[0].days).toEqual(['2020-01-12', '2020-01-13', '2020-01-14', '2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19']);
    expect(byStatus(l)).toEqual(LIFECYCLE_TREND);
  });

  it('a relative date_to (-1d) ends with yesterday, whole (stickiness and lifecycle)', async () => {
    restore = setInsightsClock(new Date('2020-01-20T12:00:00Z'));
    const dateRange = { date_from: '-7d', date_to: '-1d' };
    const pid = await stickinessProject();
    // Jan 13 .. Jan 19: 7 days, p1 on 4 of them
    expect((await stickiness(pid, { dateRange })).results[0]).toMatchObject({ days: [1, 2, 3, 4, 5, 6, 7], data: zeros(7, { 3: 1 }), count: 1 });
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const lpid = await project(persons, events);
    const l = await lifecycle(lpid, { dateRange });
    expect(l.results[0].days).toEqual(['2020-01-13', '2020-01-14', '2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19']);
    expect(byStatus(l)).toEqual(Object.fromEntries(Object.entries(LIFECYCLE_TREND).map(([k, v]) => [k, v.slice(1)])));
  });
});

describe('dateRange.explicitDate (reference §1.5: the dates verbatim)', () => {
  const ev = (d: string, ts: string): TestEvent => ({ event: '$pageview', distinct_id: d, timestamp: ts });
  let pid: number;
  beforeAll(async () => {
    pid = await project(
      [
        { distinct_ids: ['p1'], created_at: '2020-01-11T12:00:00Z' },
        { distinct_ids: ['p2'], created_at: '2020-01-11T08:00:00Z' },
      ],
      [ev('p1', '2020-01-11T12:00:00Z'), ev('p1', '2020-01-12T12:00:00Z'), ev('p1', '2020-01-13T12:00:00Z'), ev('p2', '2020-01-11T08:00:00Z'), ev('p2', '2020-01-12T12:00:00Z')],
    );
  });
  const dateRange = { date_from: '2020-01-11T10:00:00', date_to: '2020-01-13T11:00:00' };

  it('stickiness: events before date_from\'s time or after date_to\'s are left out; the days of the range stay 3', async () => {
    const exact = await stickiness(pid, { dateRange: { ...dateRange, explicitDate: true } });
    // p1: Jan 11 12:00, Jan 12 (Jan 13 12:00 is after 11:00); p2: Jan 12 (Jan 11 08:00 is before 10:00)
    expect(exact.results[0]).toMatchObject({ days: [1, 2, 3], data: [1, 1, 0], count: 2 });
    // rounded: the whole days of Jan 11 .. Jan 13
    expect((await stickiness(pid, { dateRange })).results[0]).toMatchObject({ days: [1, 2, 3], data: [0, 1, 1], count: 2 });
  });
});

describe('daylight-saving changes in the project timezone (test_timezones; reference §1.5, §7.3)', () => {
  const pv = (d: string, ts: string): TestEvent => ({ event: '$pageview', distinct_id: d, timestamp: ts });

  it('lifecycle by week across the spring change (US/Pacific, Mar 8 2020): consecutive local weeks stay returning', async () => {
    // created Sun Mar 1 12:00 PST; active Mon Mar 2, Mon Mar 9 and Mon Mar 16 (noon local)
    const pid = await project([{ distinct_ids: ['w'], created_at: '2020-03-01T20:00:00Z' }], [pv('w', '2020-03-02T20:00:00Z'), pv('w', '2020-03-09T19:00:00Z'), pv('w', '2020-03-16T19:00:00Z')]);
    const r = await lifecycle(pid, { interval: 'week', dateRange: { date_from: '2020-03-01', date_to: '2020-03-28' } }, { timezone: 'US/Pacific' });
    expect(r.results[0].days).toEqual(['2020-03-01', '2020-03-08', '2020-03-15', '2020-03-22']);
    expect(byStatus(r)).toEqual({ new: [1, 0, 0, 0], returning: [0, 1, 1, 0], resurrecting: [0, 0, 0, 0], dormant: [0, 0, 0, -1] });
  });

  it('lifecycle by day across the autumn change (US/Pacific, Nov 1 2020, a 25-hour day)', async () => {
    // local: Oct 31 12:00, Nov 1 12:00, Nov 1 23:30, Nov 2 23:30, Nov 4 12:00
    const pid = await project(
      [{ distinct_ids: ['f'], created_at: '2020-10-31T19:00:00Z' }],
      [pv('f', '2020-10-31T19:00:00Z'), pv('f', '2020-11-01T20:00:00Z'), pv('f', '2020-11-02T07:30:00Z'), pv('f', '2020-11-03T07:30:00Z'), pv('f', '2020-11-04T20:00:00Z')],
    );
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-10-31', date_to: '2020-11-05' } }, { timezone: 'US/Pacific' });
    expect(r.results[0].days).toEqual(['2020-10-31', '2020-11-01', '2020-11-02', '2020-11-03', '2020-11-04', '2020-11-05']);
    expect(byStatus(r)).toEqual({
      new: [1, 0, 0, 0, 0, 0],
      returning: [0, 1, 1, 0, 0, 0],
      resurrecting: [0, 0, 0, 0, 1, 0],
      dormant: [0, 0, 0, -1, 0, -1],
    });
    // the same events counted as stickiness: 4 local days (5 UTC days)
    const q = { dateRange: { date_from: '2020-10-31', date_to: '2020-11-05' } };
    expect((await stickiness(pid, q, { timezone: 'US/Pacific' })).results[0]).toMatchObject({ data: [0, 0, 0, 1, 0, 0], count: 1 });
    expect((await stickiness(pid, q)).results[0]).toMatchObject({ data: [0, 0, 0, 0, 1, 0], count: 1 });
  });

  it('stickiness by hour on the spring-forward day: 23 local hours, 01:30 PST and 03:30 PDT are two of them', async () => {
    const pid = await project([{ distinct_ids: ['h'] }], [pv('h', '2020-03-08T09:30:00Z'), pv('h', '2020-03-08T10:30:00Z')]);
    const r = await stickiness(pid, { interval: 'hour', dateRange: { date_from: '2020-03-08T00:00:00', date_to: '2020-03-08T23:00:00' } }, { timezone: 'US/Pacific' });
    expect(r.results[0].days).toHaveLength(23);
    expect(r.results[0].data).toEqual(zeros(23, { 1: 1 }));
  });
});

describe('LifecycleQuery by hour (the self-join path): groups and cohorts', () => {
  it('aggregated by groups: the hour of the group\'s creation is new; consecutive hours returning; a gap resurrecting', async () => {
    const pid = await project(
      [{ distinct_ids: ['u1'] }, { distinct_ids: ['u2'] }],
      [
        { event: '$groupidentify', distinct_id: 'u1', timestamp: '2024-01-01T10:15:00Z', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'acme' } } },
        { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T10:30:00Z', properties: { $groups: { company: 'acme' } } },
        { event: '$pageview', distinct_id: 'u2', timestamp: '2024-01-01T11:30:00Z', properties: { $groups: { company: 'acme' } } },
        { event: '$pageview', distinct_id: 'u2', timestamp: '2024-01-01T13:10:00Z', properties: { $groups: { company: 'acme' } } },
        // without the group: no actor
        { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T12:10:00Z' },
      ],
    );
    const q = { interval: 'hour', aggregation_group_type_index: 0, dateRange: { date_from: '2024-01-01T10:00:00', date_to: '2024-01-01T14:00:00' } };
    expect(byStatus(await lifecycle(pid, q))).toEqual({
      new: [1, 0, 0, 0, 0],
      returning: [0, 1, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0],
      dormant: [0, 0, -1, 0, -1],
    });
    const source = { kind: 'LifecycleQuery', series: [PV], ...q };
    expect(await actorsOf(pid, { source, day: '2024-01-01 13:00:00', status: 'resurrecting' })).toEqual(['acme']);
  });

  it('a static cohort filter by hour: its persons only', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const cohorts = new Map([[1303, staticCohort(1303, await personIds(pid, ['p3']))]]);
    const q = { interval: 'hour', dateRange: { date_from: '2020-01-12T10:00:00', date_to: '2020-01-12T13:00:00' }, properties: [{ type: 'cohort', key: 'id', value: 1303 }] };
    // p3, created and active Jan 12 12:00: new then dormant
    expect(byStatus(await runWithCohorts(cohorts, () => lifecycle(pid, q)))).toEqual({ new: [0, 0, 1, 0], returning: [0, 0, 0, 0], resurrecting: [0, 0, 0, 0], dormant: [0, 0, 0, -1] });
  });
});

describe('more ranges: date_from "all" by series, compare with intervalCount, minutes', () => {
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it('test_lifecycle_trend_all_time: "all" starts at the earliest event of the series, not of the project (reference §7.3)', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    // an earlier event of another name does not move the start
    const pid = await project([...persons, { distinct_ids: ['early'], created_at: '2020-01-01T12:00:00Z' }], [...events, { event: '$other', distinct_id: 'early', timestamp: '2020-01-01T12:00:00Z' }]);
    restore = setInsightsClock(new Date('2020-01-17T13:01:01Z'));
    const r = await lifecycle(pid, { dateRange: { date_from: 'all' } });
    expect(r.results[0].days[0]).toBe('2020-01-09');
    expect(r.results[0].days).toHaveLength(9);
    expect(byStatus(r).new).toEqual([1, 0, 1, 1, 0, 0, 1, 0, 0]);
    // all events: the other event's day is the start
    const any = await lifecycle(pid, { series: [{ kind: 'EventsNode', event: null }], dateRange: { date_from: 'all' } });
    expect(any.results[0].days[0]).toBe('2020-01-01');
    expect(byStatus(any).new.slice(0, 3)).toEqual([1, 0, 0]);
  });

  it('test_compare with intervalCount 2: the previous period\'s pairs are counted back from its own date_to', async () => {
    const pid = await stickinessProject();
    // current Jan 11 .. Jan 20, pairs (19,20) (17,18) (15,16) (13,14) (11,12): p1 in 5 pairs, p2 in 1;
    // previous Jan 1 .. Jan 10, pairs (9,10) ...: p2 in 1
    const r = await stickiness(pid, { intervalCount: 2, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', [1, 2, 3, 4, 5], [1, 0, 0, 0, 1]],
      ['previous', [1, 2, 3, 4, 5], [1, 0, 0, 0, 0]],
    ]);
    const source = { kind: 'StickinessQuery', series: [PV], dateRange: RANGE, intervalCount: 2, compareFilter: { compare: true } };
    expect(await actorsOf(pid, { source, day: 5, compare: 'current' })).toEqual(['p1']);
    expect(await actorsOf(pid, { source, day: 1, compare: 'current' })).toEqual(['p2']);
    expect(await actorsOf(pid, { source, day: 1, compare: 'previous' })).toEqual(['p2']);
  });

  it('minute interval: "1 minute" labels, one bucket per minute of the range', async () => {
    const pid = await project(
      [{ distinct_ids: ['m'] }],
      ['2020-01-11T12:00:10Z', '2020-01-11T12:00:50Z', '2020-01-11T12:03:00Z', '2020-01-11T12:09:59Z', '2020-01-11T12:10:30Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'm', timestamp })),
    );
    const r = await stickiness(pid, { interval: 'minute', dateRange: { date_from: '2020-01-11T12:00:00', date_to: '2020-01-11T12:09:00' } });
    expect(r.results[0].labels.slice(0, 3)).toEqual(['1 minute', '2 minutes', '3 minutes']);
    expect(r.results[0].days).toHaveLength(10);
    // 12:00 and 12:03 (12:09:59 is after the absolute date_to 12:09:00)
    expect(r.results[0].data).toEqual(zeros(10, { 1: 1 }));
  });
});
