/**
 * A sixth pass over PostHog's stickiness and lifecycle suites (posthog/hogql_queries/insights/test/
 * test_stickiness_query_runner.py, test_lifecycle_query_runner.py, the legacy posthog/queries/test/test_stickiness.py
 * and posthog/queries/test/test_lifecycle.py as run through the new runners, and the actors of their data points):
 * the scenarios the earlier passes do not pin — the legacy group aggregation by week (two group types, an action),
 * the team's default test-account filter (a person `email not_icontains`, which persons without an email pass),
 * person and event-metadata filters in ProductQL, a one-interval range, intervalCount 3 by day and 2 by month, compare
 * with a `compare_to` by week and with stickinessCriteria, Tokyo weeks, `date_from: "all"` by week, persons created by
 * their first event, a `$identify` merge (the actor vs a distinct-id actor), group lifecycles under a group property
 * filter, activity before the fetched window, and month actors. Each title names the PostHog test it follows; where
 * PostHog's fixture is not copied as is, the expectation is derived from the reference (§1.4, §1.5, §1.7, §1.8, §6, §7)
 * and the comment gives the arithmetic. One data set per describe, loaded once.
 */
import { actionRegistry, actionStep, createInsightTestDb, ev, type InsightTestDb, type TestEvent, type TestPerson, useInsightsClock } from '../insights/testing';
import { byStatus, LIFECYCLE_DAYS, LIFECYCLE_TREND, LIFECYCLE_TREND_WITHOUT_P1, lifecycleData } from './testing';
import { lifecycleRunner } from './lifecycle-runner';
import { stickinessRunner } from './stickiness-runner';
import { actorsRunner } from './actors-runner';

let db: InsightTestDb;
const { source: actionSource, action } = actionRegistry(2900);
const freeze = useInsightsClock('each');
beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
});
afterAll(async () => {
  await db.close();
});

const PV = { kind: 'EventsNode', event: '$pageview' };
const MOVIE = { kind: 'EventsNode', event: 'watched movie' };
const zeros = (n: number, at: Record<number, number> = {}) => Array.from({ length: n }, (_, i) => at[i] ?? 0);

/** ActorsQuery over an InsightActorsQuery source: each actor's last distinct id in sort order (groups: their key), sorted. */
async function actorsOf(pid: number, source: Record<string, unknown>, proj: Record<string, unknown> = {}): Promise<string[]> {
  const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', ...source } }, pid, proj as any);
  return (r.results as any[]).map((row) => (row[0].distinct_ids ? [...row[0].distinct_ids].sort().pop() : row[0].id)).sort();
}

const stickiness = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(stickinessRunner, { kind: 'StickinessQuery', series: [PV], ...q }, pid, proj as any);
const lifecycle = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [PV], ...q }, pid, proj as any);
const periods = (r: any) => (r.results as any[]).map((x) => [x.compare_label, x.count, x.data]);

/** The team's default test-account filter (PostHog's `get_internal_ip_filter`/default `test_account_filters`). */
const DEFAULT_TEST_FILTERS = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };

/**
 * test_stickiness.py `_create_multiple_people(period, event_properties)`: person1 at t0; person2 at t0, t0+p, t0+p;
 * person3 at t0, t0+p, t0+2p; person4 at t0+4p (t0 = 2020-01-01 12:00 UTC), "watched movie" with
 * `event_properties(i)` for the i-th person (0-based).
 */
function multiplePeople(periodMs: number, props: (i: number) => Record<string, unknown>, personProps: (i: number) => Record<string, unknown> = () => ({})) {
  const t0 = Date.parse('2020-01-01T12:00:00Z');
  const at = (k: number) => new Date(t0 + k * periodMs).toISOString();
  const offsets = [[0], [0, 1, 1], [0, 1, 2], [4]];
  const persons: TestPerson[] = offsets.map((_, i) => ({ distinct_ids: [`person${i + 1}`], properties: { name: `person${i + 1}`, ...personProps(i) } }));
  const events: TestEvent[] = offsets.flatMap((ks, i) => ks.map((k) => ev('watched movie', `person${i + 1}`, at(k), props(i))));
  return { persons, events };
}
const DAY = 86_400_000;
const WEEK = 7 * DAY;

// ------------------------------------------------------------------------------------------------ stickiness (legacy)

describe('StickinessQuery (posthog/queries/test/test_stickiness.py through the query runner)', () => {
  /** By week, each movie with `$group_0: org:{i // 2}` and `$group_1: company:1` (test_aggregate_by_groups). */
  let weekly: number;
  /** By day, person1 with a posthog.com email, person2 with another one, person3 and person4 without. */
  let daily: number;
  beforeAll(async () => {
    const w = multiplePeople(WEEK, (i) => ({ $group_0: `org:${Math.floor(i / 2)}`, $group_1: 'company:1' }));
    const identify = (type: string, key: string) => ev('$groupidentify', 'person1', '2019-12-01T00:00:00Z', { $group_type: type, $group_key: key, $group_set: { name: key } });
    weekly = await db.project(w.persons, [identify('organization', 'org:0'), identify('organization', 'org:1'), identify('company', 'company:1'), ...w.events]);
    const d = multiplePeople(DAY, () => ({}), (i) => (i === 0 ? { email: 'test@posthog.com' } : i === 1 ? { email: 'person2@example.com' } : {}));
    daily = await db.project(d.persons, d.events);
  });
  const WEEKS = { interval: 'week', dateRange: { date_from: '2020-01-01', date_to: '2020-02-15' } };

  it('test_aggregate_by_groups: organizations by week (org:0 in 2 weeks, org:1 in 4), the one company in 4', async () => {
    // Sunday weeks Dec 29 .. Feb 9 (7); movies on Jan 1, 8, 15 and 29. org:0 = person1, person2; org:1 = person3, person4
    const orgs = await stickiness(weekly, { ...WEEKS, series: [{ ...MOVIE, math: 'unique_group', math_group_type_index: 0 }] });
    expect(orgs.results[0]).toMatchObject({ data: [0, 1, 0, 1, 0, 0, 0], count: 2, labels: ['1 week', '2 weeks', '3 weeks', '4 weeks', '5 weeks', '6 weeks', '7 weeks'] });
    const companies = await stickiness(weekly, { ...WEEKS, series: [{ ...MOVIE, math: 'unique_group', math_group_type_index: 1 }] });
    expect(companies.results[0]).toMatchObject({ data: [0, 0, 0, 1, 0, 0, 0], count: 1 });
    const source = (index: number) => ({ kind: 'StickinessQuery', ...WEEKS, series: [{ ...MOVIE, math: 'unique_group', math_group_type_index: index }] });
    expect(await actorsOf(weekly, { source: source(0), day: 4 })).toEqual(['org:1']);
    expect(await actorsOf(weekly, { source: source(0), day: 2 })).toEqual(['org:0']);
    expect(await actorsOf(weekly, { source: source(1), day: 4 })).toEqual(['company:1']);
    expect(await actorsOf(weekly, { source: source(1), day: 1 })).toEqual([]);
  });

  it('test_aggregate_by_groups on an action series: the groups of the action\'s events', async () => {
    const id = action('watch movie action', [actionStep('watched movie')]);
    const r = await stickiness(weekly, { ...WEEKS, series: [{ kind: 'ActionsNode', id, math: 'unique_group', math_group_type_index: 0 }] });
    expect(r.results[0]).toMatchObject({ label: 'watch movie action', data: [0, 1, 0, 1, 0, 0, 0], count: 2 });
  });

  it('computedAs cumulative by week with an event and an action series: each series cumulated, in order (reference §6.2/§6.3)', async () => {
    // non-cumulative [2, 1, 1, 0, 0, 0, 0] (person1, person4 one week; person2 two; person3 three) → at least k weeks
    const id = action('movies cumulative', [actionStep('watched movie')]);
    const stickinessFilter = { computedAs: 'cumulative' };
    const r = await stickiness(weekly, { ...WEEKS, series: [MOVIE, { kind: 'ActionsNode', id }], stickinessFilter });
    expect(r.results.map((x: any) => [x.label, x.action.order, x.data, x.count])).toEqual([
      ['watched movie', 0, [4, 2, 1, 0, 0, 0, 0], 4],
      ['movies cumulative', 1, [4, 2, 1, 0, 0, 0, 0], 4],
    ]);
    expect(r.results[1].labels.slice(0, 2)).toEqual(['1 week or more', '2 weeks or more']);
    const source = { kind: 'StickinessQuery', ...WEEKS, series: [MOVIE, { kind: 'ActionsNode', id }], stickinessFilter };
    expect(await actorsOf(weekly, { source, day: 2, series: 1 })).toEqual(['person2', 'person3']);
  });

  it('stickinessCriteria by hour: person2\'s two movies of Jan 8 12:00 meet gte 2, person3\'s one does not', async () => {
    const q = { interval: 'hour', dateRange: { date_from: '2020-01-08T00:00:00', date_to: '2020-01-08T23:59:59' }, series: [MOVIE] };
    const all = await stickiness(weekly, q);
    expect(all.results[0]).toMatchObject({ data: zeros(24, { 0: 2 }), count: 2 });
    expect(all.results[0].labels.slice(0, 2)).toEqual(['1 hour', '2 hours']);
    const r = await stickiness(weekly, { ...q, stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } });
    expect(r.results[0]).toMatchObject({ data: zeros(24, { 0: 1 }), count: 1 });
    const source = { kind: 'StickinessQuery', ...q, stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } };
    expect(await actorsOf(weekly, { source, day: 1 })).toEqual(['person2']);
  });

  it('lifecycle by week with a group property in the team test-account filters: persons of org:0\'s events only', async () => {
    // org:0's movies: person1 Jan 1; person2 Jan 1, Jan 8 (twice). Weeks Dec 29 .. Feb 9
    const proj = { test_account_filters: [{ type: 'group', group_type_index: 0, key: 'name', value: 'org:1', operator: 'is_not' }] };
    const r = await lifecycle(weekly, { ...WEEKS, series: [MOVIE], filterTestAccounts: true }, proj);
    // this fixture gives the persons no created_at, so they are not created in their first week: resurrecting, not new
    expect(byStatus(r)).toEqual({ new: zeros(7), returning: zeros(7, { 1: 1 }), resurrecting: zeros(7, { 0: 2 }), dormant: zeros(7, { 1: -1, 2: -1 }) });
    const source = { kind: 'LifecycleQuery', ...WEEKS, series: [MOVIE], filterTestAccounts: true };
    expect(await actorsOf(weekly, { source, day: '2020-01-05', status: 'returning' }, proj)).toEqual(['person2']);
  });

  it('test_stickiness_people_endpoint by week: the persons active in exactly 1 and in 3 weeks', async () => {
    const source = { kind: 'StickinessQuery', ...WEEKS, series: [MOVIE] };
    expect((await stickiness(weekly, { ...WEEKS, series: [MOVIE] })).results[0]).toMatchObject({ data: [2, 1, 1, 0, 0, 0, 0], count: 4 });
    expect(await actorsOf(weekly, { source, day: 1 })).toEqual(['person1', 'person4']);
    expect(await actorsOf(weekly, { source, day: 3 })).toEqual(['person3']);
  });

  it('test_filter_test_accounts with the default filter (person email not_icontains @posthog.com): persons without an email stay', async () => {
    const q = { series: [MOVIE], dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } };
    expect((await stickiness(daily, q, DEFAULT_TEST_FILTERS)).results[0]).toMatchObject({ data: [2, 1, 1, 0, 0, 0, 0, 0], count: 4 });
    // without person1: person2 on 2 days, person3 on 3, person4 on 1
    const r = await stickiness(daily, { ...q, filterTestAccounts: true }, DEFAULT_TEST_FILTERS);
    expect(r.results[0]).toMatchObject({ data: [1, 1, 1, 0, 0, 0, 0, 0], count: 3 });
    const source = { kind: 'StickinessQuery', ...q, filterTestAccounts: true };
    expect(await actorsOf(daily, { source, day: 1 }, DEFAULT_TEST_FILTERS)).toEqual(['person4']);
  });

  it('test_filter_test_accounts with a group property in the team filters: only the events of org:0 count (reference §1.4)', async () => {
    // team filter: organization name is_not org:1 → the movies of person1 (week of Dec 29) and person2 (Dec 29, Jan 5)
    const proj = { test_account_filters: [{ type: 'group', group_type_index: 0, key: 'name', value: 'org:1', operator: 'is_not' }] };
    expect((await stickiness(weekly, { ...WEEKS, series: [MOVIE] }, proj)).results[0]).toMatchObject({ data: [2, 1, 1, 0, 0, 0, 0], count: 4 });
    const r = await stickiness(weekly, { ...WEEKS, series: [MOVIE], filterTestAccounts: true }, proj);
    expect(r.results[0]).toMatchObject({ data: [1, 1, 0, 0, 0, 0, 0], count: 2 });
    const source = { kind: 'StickinessQuery', ...WEEKS, series: [MOVIE], filterTestAccounts: true };
    expect(await actorsOf(weekly, { source, day: 2 }, proj)).toEqual(['person2']);
  });

  it('test_aggregate_by_groups with stickinessCriteria gte 2: the events of all the group\'s persons count together', async () => {
    // org:0: 2 movies in the week of Dec 29 (person1, person2), 2 in the week of Jan 5 (person2) → 2 weeks;
    // org:1: one movie a week (person3 Jan 1, 8, 15; person4 Jan 29) → none
    const series = [{ ...MOVIE, math: 'unique_group', math_group_type_index: 0 }];
    const r = await stickiness(weekly, { ...WEEKS, series, stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } });
    expect(r.results[0]).toMatchObject({ data: [0, 1, 0, 0, 0, 0, 0], count: 1 });
    const lte1 = await stickiness(weekly, { ...WEEKS, series, stickinessFilter: { stickinessCriteria: { operator: 'lte', value: 1 } } });
    expect(lte1.results[0]).toMatchObject({ data: [0, 0, 0, 1, 0, 0, 0], count: 1 });
  });
});

// ------------------------------------------------------------------------------------------------ stickiness (runner)

/**
 * test_stickiness_query_runner.py's `_create_test_events`: p1 (Chrome) $pageview Jan 11, 12, 13, 15, 17, 19 and
 * $pageleave Jan 11, 12; p2 (Firefox) $pageview Jan 9, 11, 12 and $pageleave Jan 14 (2020, 12:00 UTC).
 */
describe('StickinessQuery (test_stickiness_query_runner.py)', () => {
  let pid: number;
  beforeAll(async () => {
    const at = (id: string, event: string, days: number[], props: Record<string, unknown>): TestEvent[] =>
      days.map((d) => ev(event, id, `2020-01-${String(d).padStart(2, '0')}T12:00:00Z`, props));
    pid = await db.project(
      [
        { distinct_ids: ['p1'], properties: { name: 'p1', email: 'test@posthog.com' } },
        { distinct_ids: ['p2'], properties: { name: 'p2' } },
      ],
      [
        ...at('p1', '$pageview', [11, 12, 13, 15, 17, 19], { $browser: 'Chrome', prop: 10 }),
        ...at('p1', '$pageleave', [11, 12], { $browser: 'Chrome', prop: 10 }),
        ...at('p2', '$pageview', [9, 11, 12], { $browser: 'Firefox', prop: 20 }),
        ...at('p2', '$pageleave', [14], { $browser: 'Firefox', prop: 20 }),
      ],
    );
  });
  const RANGE = { date_from: '2020-01-11', date_to: '2020-01-20' };

  it('test_property_filtering_hogql on a person property (person.properties.name)', async () => {
    const r = await stickiness(pid, { dateRange: RANGE, properties: [{ type: 'hogql', key: "person.properties.name = 'p2'" }] });
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 1: 1 }), count: 1 });
  });

  it('test_person_property_filtering with is_not_set: the persons without an email (p2)', async () => {
    const r = await stickiness(pid, { dateRange: RANGE, properties: [{ type: 'person', key: 'email', operator: 'is_not_set' }] });
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 1: 1 }), count: 1 });
    const set = await stickiness(pid, { dateRange: RANGE, properties: [{ type: 'person', key: 'email', operator: 'is_set' }] });
    expect(set.results[0]).toMatchObject({ data: zeros(10, { 5: 1 }), count: 1 });
  });

  it('an event_metadata filter on distinct_id', async () => {
    const r = await stickiness(pid, { dateRange: RANGE, properties: [{ type: 'event_metadata', key: 'distinct_id', value: 'p1', operator: 'exact' }] });
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 5: 1 }), count: 1 });
  });

  it('test_filter_test_accounts with the default filter: p1 (test@posthog.com) left out, p2 (no email) kept', async () => {
    const r = await stickiness(pid, { dateRange: RANGE, filterTestAccounts: true }, DEFAULT_TEST_FILTERS);
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 1: 1 }), count: 1 });
  });

  it('a range of one day: one interval, "1 day"; computedAs non_cumulative is the default', async () => {
    const q = { dateRange: { date_from: '2020-01-12', date_to: '2020-01-12' }, stickinessFilter: { computedAs: 'non_cumulative' } };
    const r = await stickiness(pid, q);
    expect(r.results[0]).toMatchObject({ days: [1], labels: ['1 day'], data: [2], count: 2 });
    expect(await actorsOf(pid, { source: { kind: 'StickinessQuery', series: [PV], ...q }, day: 1 })).toEqual(['p1', 'p2']);
  });

  it('the actors of a day beyond the range\'s intervals: none', async () => {
    const source = { kind: 'StickinessQuery', series: [PV], dateRange: RANGE };
    expect(await actorsOf(pid, { source, day: 11 })).toEqual([]);
    expect(await actorsOf(pid, { source, day: 6 })).toEqual(['p1']);
  });

  it('intervalCount 3 by day: groups of three days counted back from date_to, the oldest one day long', async () => {
    // Jan 11 .. 20: {18, 19, 20} {15, 16, 17} {12, 13, 14} {11}: p1 in all four, p2 ({11}, {12}) in two
    const q = { dateRange: RANGE, intervalCount: 3 };
    expect((await stickiness(pid, q)).results[0]).toMatchObject({ days: [1, 2, 3, 4], data: [0, 1, 0, 1], count: 2 });
    const source = { kind: 'StickinessQuery', series: [PV], ...q };
    expect(await actorsOf(pid, { source, day: 4 })).toEqual(['p1']);
    expect(await actorsOf(pid, { source, day: 2 })).toEqual(['p2']);
  });

  it('test_compare with compare_to -1w by day: the previous 10 days are Jan 4 .. Jan 13, overlapping the current ones', async () => {
    const q = { dateRange: RANGE, compareFilter: { compare: true, compare_to: '-1w' } };
    // previous: p1 on Jan 11, 12, 13; p2 on Jan 9, 11, 12 — three days each
    expect(periods(await stickiness(pid, q))).toEqual([
      ['current', 2, zeros(10, { 1: 1, 5: 1 })],
      ['previous', 2, zeros(10, { 2: 2 })],
    ]);
    expect(await actorsOf(pid, { source: { kind: 'StickinessQuery', series: [PV], ...q }, day: 3, compare: 'previous' })).toEqual(['p1', 'p2']);
  });

  it('test_compare with compare_to -1w by week: the previous range starts a week earlier and is as long', async () => {
    // current Jan 12 .. 25, weeks of Jan 12 and 19: p1 in both, p2 in the first. previous Jan 5 .. 18, weeks of Jan 5
    // and 12: p1 (Jan 11; Jan 12 ..) and p2 (Jan 9, 11; Jan 12) in both
    const q = { interval: 'week', dateRange: { date_from: '2020-01-12', date_to: '2020-01-25' }, compareFilter: { compare: true, compare_to: '-1w' } };
    const r = await stickiness(pid, q);
    expect(periods(r)).toEqual([
      ['current', 2, [1, 1]],
      ['previous', 2, [0, 2]],
    ]);
    expect(r.results[1].labels).toEqual(['1 week', '2 weeks']);
    const source = { kind: 'StickinessQuery', series: [PV], ...q };
    expect(await actorsOf(pid, { source, day: 2, compare: 'previous' })).toEqual(['p1', 'p2']);
    expect(await actorsOf(pid, { source, day: 1, compare: 'current' })).toEqual(['p2']);
  });

  it('stickinessFilter display, showLegend, showValuesOnSeries, showMultipleYAxes and hiddenLegendIndexes are display-only', async () => {
    const stickinessFilter = { display: 'ActionsBar', showLegend: true, showValuesOnSeries: true, showMultipleYAxes: false, hiddenLegendIndexes: [0] };
    const r = await stickiness(pid, { dateRange: RANGE, stickinessFilter });
    expect(r.results[0]).toMatchObject({ data: zeros(10, { 1: 1, 5: 1 }), count: 2, labels: expect.arrayContaining(['1 day', '10 days']) });
  });

  it('test_stickiness_all_time by week: "all" starts with the week of the first pageview (Jan 9)', async () => {
    freeze('2020-01-20T12:00:00Z');
    // weeks of Jan 5, 12 and 19: p1 in all three (Jan 11; Jan 12 ..; Jan 19), p2 in two
    const r = await stickiness(pid, { interval: 'week', dateRange: { date_from: 'all' } });
    expect(r.results[0]).toMatchObject({ days: [1, 2, 3], data: [0, 1, 1], count: 2 });
  });

  // QueryPreviousPeriodDateRange.date_from_delta_mappings takes `all` (like a missing date_from) as "-7d", so
  // get_compare_period_dates' week kludge moves the previous start a day later, as for "Last 7 days"
  it('test_compare with date_from "all" by day: the previous period starts a day later (the -7d kludge), so it holds Jan 9', async () => {
    freeze('2020-01-20T12:00:00Z');
    // current Jan 9 .. 20 (12 days): p1 in 6 days, p2 in 3. previous: Jan 9 − (11 days 23:59:59.999999) = Dec 28,
    // + 1 day = Dec 29 .. Jan 9: p2's Jan 9 pageview, one day
    const r = await stickiness(pid, { dateRange: { date_from: 'all' }, compareFilter: { compare: true } });
    expect(periods(r)).toEqual([
      ['current', 2, zeros(12, { 2: 1, 5: 1 })],
      ['previous', 1, zeros(12, { 0: 1 })],
    ]);
  });
});

describe('StickinessQuery: compare with stickinessCriteria (test_stickiness_query_runner.py; reference §1.7, §6.3)', () => {
  /** a: Jan 2 ×2, Jan 3 ×1, Jan 9 ×2, Jan 10 ×2; b: Jan 1 ×1, Jan 12 ×3 (2024). Current Jan 8 .. 14, previous Jan 1 .. 7. */
  let pid: number;
  beforeAll(async () => {
    const times = (id: string, day: string, n: number) => Array.from({ length: n }, (_, i) => ev('$pageview', id, `2024-01-${day}T${10 + i}:00:00Z`));
    pid = await db.project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }],
      [...times('a', '02', 2), ...times('a', '03', 1), ...times('a', '09', 2), ...times('a', '10', 2), ...times('b', '01', 1), ...times('b', '12', 3)],
    );
  });
  const base = { dateRange: { date_from: '2024-01-08', date_to: '2024-01-14' }, compareFilter: { compare: true } };

  it('without criteria: a in 2 days in both periods, b in 1', async () => {
    expect(periods(await stickiness(pid, base))).toEqual([
      ['current', 2, zeros(7, { 0: 1, 1: 1 })],
      ['previous', 2, zeros(7, { 0: 1, 1: 1 })],
    ]);
  });

  it('gte 2: each period counts its own qualifying days (b\'s Jan 1 has one event)', async () => {
    const r = await stickiness(pid, { ...base, stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } });
    expect(periods(r)).toEqual([
      ['current', 2, zeros(7, { 0: 1, 1: 1 })],
      ['previous', 1, zeros(7, { 0: 1 })],
    ]);
    const source = { kind: 'StickinessQuery', series: [PV], ...base, stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } };
    expect(await actorsOf(pid, { source, day: 1, compare: 'previous' })).toEqual(['a']);
    expect(await actorsOf(pid, { source, day: 2, compare: 'current' })).toEqual(['a']);
    expect(await actorsOf(pid, { source, day: 1, compare: 'current' })).toEqual(['b']);
  });

  it('gte 2 with computedAs cumulative: actors with at least k qualifying days, per period', async () => {
    const stickinessFilter = { stickinessCriteria: { operator: 'gte', value: 2 }, computedAs: 'cumulative' };
    const r = await stickiness(pid, { ...base, stickinessFilter });
    expect(periods(r)).toEqual([
      ['current', 2, zeros(7, { 0: 2, 1: 1 })],
      ['previous', 1, zeros(7, { 0: 1 })],
    ]);
    expect(r.results[0].labels[0]).toBe('1 day or more');
    const source = { kind: 'StickinessQuery', series: [PV], ...base, stickinessFilter };
    expect(await actorsOf(pid, { source, day: 1, compare: 'current' })).toEqual(['a', 'b']);
  });

  it('exact 3: only b\'s Jan 12 qualifies; the previous period has nobody', async () => {
    const r = await stickiness(pid, { ...base, stickinessFilter: { stickinessCriteria: { operator: 'exact', value: 3 } } });
    expect(periods(r)).toEqual([
      ['current', 1, zeros(7, { 0: 1 })],
      ['previous', 0, zeros(7)],
    ]);
  });
});

describe('StickinessQuery: weeks in a timezone, months in pairs, a $identify merge (reference §1.5, §1.8, §6.3)', () => {
  it('test_timezones by week (Asia/Tokyo): a Saturday-evening UTC event is on the local Sunday, in the next week', async () => {
    // Sat Jan 11 20:00Z (= Sun Jan 12 05:00 JST) and Mon Jan 13 12:00Z
    const pid = await db.project([{ distinct_ids: ['w'] }], [ev('$pageview', 'w', '2020-01-11T20:00:00Z'), ev('$pageview', 'w', '2020-01-13T12:00:00Z')]);
    const q = { interval: 'week', dateRange: { date_from: '2020-01-05', date_to: '2020-01-18' } };
    expect((await stickiness(pid, q)).results[0]).toMatchObject({ data: [0, 1], count: 1 });
    expect((await stickiness(pid, q, { timezone: 'Asia/Tokyo' })).results[0]).toMatchObject({ data: [1, 0], count: 1 });
  });

  it('intervalCount 2 in a project timezone (Asia/Tokyo): the pairs of local days counted back from the local date_to', async () => {
    // x: Jan 16 16:00Z (= Jan 17 01:00 JST) and Jan 18 10:00Z; y: Jan 15 10:00Z. Pairs (19, 20) (17, 18) (15, 16)
    const pid = await db.project(
      [{ distinct_ids: ['x'] }, { distinct_ids: ['y'] }],
      [ev('$pageview', 'x', '2020-01-16T16:00:00Z'), ev('$pageview', 'x', '2020-01-18T10:00:00Z'), ev('$pageview', 'y', '2020-01-15T10:00:00Z')],
    );
    const q = { intervalCount: 2, dateRange: { date_from: '2020-01-15', date_to: '2020-01-20' } };
    // UTC: x in (15, 16) and (17, 18); Tokyo: x in (17, 18) only
    expect((await stickiness(pid, q)).results[0]).toMatchObject({ days: [1, 2, 3], data: [1, 1, 0], count: 2 });
    expect((await stickiness(pid, q, { timezone: 'Asia/Tokyo' })).results[0]).toMatchObject({ days: [1, 2, 3], data: [2, 0, 0], count: 2 });
  });

  it('intervalCount 2 by month: pairs of months counted back from date_to (Jan–Feb, Mar–Apr, May–Jun)', async () => {
    const pv = (d: string, ts: string) => ev('$pageview', d, `2020-${ts}T12:00:00Z`);
    const pid = await db.project(
      [{ distinct_ids: ['m1'] }, { distinct_ids: ['m2'] }, { distinct_ids: ['m3'] }],
      [pv('m1', '01-15'), pv('m1', '02-15'), pv('m2', '02-10'), pv('m2', '03-10'), pv('m3', '01-20'), pv('m3', '03-20'), pv('m3', '06-20')],
    );
    const q = { interval: 'month', intervalCount: 2, dateRange: { date_from: '2020-01-01', date_to: '2020-06-30' } };
    // m1 in one pair, m2 in two, m3 in three
    expect((await stickiness(pid, q)).results[0]).toMatchObject({ days: [1, 2, 3], data: [1, 1, 1], count: 3 });
    expect(await actorsOf(pid, { source: { kind: 'StickinessQuery', series: [PV], ...q }, day: 1 })).toEqual(['m1']);
  });
});

// ------------------------------------------------------------------------------------------------ merged persons

describe('a $identify merge (anonymous then identified): one person for stickiness and lifecycle (reference §1.8)', () => {
  /** anon1 views Jan 12 (its person created then); user1 identifies with $anon_distinct_id anon1 on Jan 13, views Jan 13 and 14; anon1 views Jan 13 too. */
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(
      [],
      [
        ev('$pageview', 'anon1', '2020-01-12T10:00:00Z'),
        ev('$identify', 'user1', '2020-01-13T09:00:00Z', { $anon_distinct_id: 'anon1' }),
        ev('$pageview', 'user1', '2020-01-13T10:00:00Z'),
        ev('$pageview', 'anon1', '2020-01-13T11:00:00Z'),
        ev('$pageview', 'user1', '2020-01-14T10:00:00Z'),
      ],
    );
  });
  const dateRange = { date_from: '2020-01-11', date_to: '2020-01-15' };

  it('stickiness: the person is active on 3 days; by distinct_id (math_hogql) anon1 on 2 and user1 on 2', async () => {
    expect((await stickiness(pid, { dateRange })).results[0]).toMatchObject({ data: [0, 0, 1, 0, 0], count: 1 });
    const byDistinctId = await stickiness(pid, { dateRange, series: [{ ...PV, math: 'hogql', math_hogql: 'distinct_id' }] });
    expect(byDistinctId.results[0]).toMatchObject({ data: [0, 2, 0, 0, 0], count: 2 });
    expect(await actorsOf(pid, { source: { kind: 'StickinessQuery', series: [PV], dateRange }, day: 3 })).toEqual(['user1']);
  });

  it('test_lifecycle_trends_distinct_id_repeat through $identify: new at the first anonymous view, then returning, one actor a day', async () => {
    const r = await lifecycle(pid, { dateRange });
    expect(byStatus(r)).toEqual({ new: [0, 1, 0, 0, 0], returning: [0, 0, 1, 1, 0], resurrecting: [0, 0, 0, 0, 0], dormant: [0, 0, 0, 0, -1] });
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange };
    expect(await actorsOf(pid, { source, day: '2020-01-13', status: 'returning' })).toEqual(['user1']);
    expect(await actorsOf(pid, { source, day: '2020-01-15', status: 'dormant' })).toEqual(['user1']);
  });
});

// ------------------------------------------------------------------------------------------------ lifecycle

describe('LifecycleQuery (test_lifecycle_query_runner.py, test_lifecycle.py)', () => {
  /** test_lifecycle_trend's fixture (each person created at their first event; p1 with test@posthog.com), p1 on Chrome. */
  let pid: number;
  beforeAll(async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS, '$pageview', (id) => ({ $browser: id === 'p1' ? 'Chrome' : 'Safari' }));
    pid = await db.project(persons, events);
  });
  const LRANGE = { date_from: '2020-01-12', date_to: '2020-01-19' };

  it('test_filter_test_accounts with the default filter (person email not_icontains @posthog.com): p1 left out', async () => {
    expect(byStatus(await lifecycle(pid, { dateRange: LRANGE, filterTestAccounts: true }, DEFAULT_TEST_FILTERS))).toEqual(LIFECYCLE_TREND_WITHOUT_P1);
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: LRANGE, filterTestAccounts: true };
    expect(await actorsOf(pid, { source, day: '2020-01-13', status: 'dormant' }, DEFAULT_TEST_FILTERS)).toEqual(['p2', 'p3']);
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'returning' }, DEFAULT_TEST_FILTERS)).toEqual([]);
  });

  it('team test-account filters, global properties and series properties are ANDed', async () => {
    // not p1 (test filter), not p4 (global), Safari (series): p2 and p3
    const r = await lifecycle(
      pid,
      {
        dateRange: LRANGE,
        filterTestAccounts: true,
        properties: [{ type: 'person', key: 'name', value: 'p4', operator: 'is_not' }],
        series: [{ ...PV, properties: [{ type: 'event', key: '$browser', value: 'Safari', operator: 'exact' }] }],
      },
      DEFAULT_TEST_FILTERS,
    );
    expect(byStatus(r)).toEqual({ new: zeros(8, { 0: 1 }), returning: zeros(8), resurrecting: zeros(8, { 0: 1 }), dormant: zeros(8, { 1: -2 }) });
  });

  it('a range of one day: the day after p1\'s Jan 13 is dormant; Jan 15 has p4 new and p1 resurrecting', async () => {
    const jan14 = await lifecycle(pid, { dateRange: { date_from: '2020-01-14', date_to: '2020-01-14' } });
    expect(jan14.results[0]).toMatchObject({ days: ['2020-01-14'], labels: ['14-Jan-2020'] });
    expect(jan14.results.map((x: any) => [x.status, x.data, x.count])).toEqual([
      ['new', [0], 0],
      ['returning', [0], 0],
      ['resurrecting', [0], 0],
      ['dormant', [-1], -1],
    ]);
    expect(byStatus(await lifecycle(pid, { dateRange: { date_from: '2020-01-15', date_to: '2020-01-15' } }))).toEqual({ new: [1], returning: [0], resurrecting: [1], dormant: [0] });
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: { date_from: '2020-01-14', date_to: '2020-01-14' } };
    expect(await actorsOf(pid, { source, day: '2020-01-14', status: 'dormant' })).toEqual(['p1']);
  });

  it('test_lifecycle_trend_any_event with an event property filter: all events of Chrome are p1\'s', async () => {
    const r = await lifecycle(pid, { dateRange: LRANGE, series: [{ kind: 'EventsNode', event: null, properties: [{ type: 'event', key: '$browser', value: 'Chrome', operator: 'exact' }] }] });
    expect(byStatus(r)).toEqual({ new: zeros(8), returning: zeros(8, { 0: 1, 1: 1 }), resurrecting: zeros(8, { 3: 1, 5: 1, 7: 1 }), dormant: zeros(8, { 2: -1, 4: -1, 6: -1 }) });
    expect(r.results[1].label).toBe('All events - returning');
  });

  it('test_filter_test_accounts by hour (the self-join path): p1 left out of the hours of Jan 12', async () => {
    const q = { interval: 'hour', dateRange: { date_from: '2020-01-12T10:00:00', date_to: '2020-01-12T13:00:00' } };
    expect(byStatus(await lifecycle(pid, q, DEFAULT_TEST_FILTERS))).toEqual({ new: [0, 0, 1, 0], returning: zeros(4), resurrecting: [0, 0, 2, 0], dormant: [0, 0, 0, -3] });
    // p3 new at 12:00 (its creation), p2 resurrecting; both dormant at 13:00
    const r = await lifecycle(pid, { ...q, filterTestAccounts: true }, DEFAULT_TEST_FILTERS);
    expect(byStatus(r)).toEqual({ new: [0, 0, 1, 0], returning: zeros(4), resurrecting: [0, 0, 1, 0], dormant: [0, 0, 0, -2] });
  });

  it('test_lifecycle_trend_action with a person property filter in the action step', async () => {
    const id = action('p1 pageviews', [actionStep('$pageview', [{ type: 'person', key: 'name', value: 'p1', operator: 'exact' }])]);
    const r = await lifecycle(pid, { dateRange: LRANGE, series: [{ kind: 'ActionsNode', id }] });
    expect(byStatus(r)).toEqual({ new: zeros(8), returning: zeros(8, { 0: 1, 1: 1 }), resurrecting: zeros(8, { 3: 1, 5: 1, 7: 1 }), dormant: zeros(8, { 2: -1, 4: -1, 6: -1 }) });
    expect(r.results[0].action).toEqual({ id: String(id), name: 'p1 pageviews', type: 'actions', order: 0, math: 'total' });
  });

  it('test_lifecycle_trend_action by hour (the self-join path): an action step with an event property, a series property filter', async () => {
    // hours 10:00 .. 13:00 of Jan 12: p1 (Chrome, last seen Jan 11) resurrecting at 12:00; p2 (Safari) resurrecting, p3 new
    const q = { interval: 'hour', dateRange: { date_from: '2020-01-12T10:00:00', date_to: '2020-01-12T13:00:00' } };
    const id = action('chrome views', [actionStep('$pageview', [{ type: 'event', key: '$browser', value: 'Chrome', operator: 'exact' }])]);
    const r = await lifecycle(pid, { ...q, series: [{ kind: 'ActionsNode', id }] });
    expect(byStatus(r)).toEqual({ new: zeros(4), returning: zeros(4), resurrecting: [0, 0, 1, 0], dormant: [0, 0, 0, -1] });
    expect(r.results[2]).toMatchObject({ label: 'chrome views - resurrecting', status: 'resurrecting', days: ['2020-01-12 10:00:00', '2020-01-12 11:00:00', '2020-01-12 12:00:00', '2020-01-12 13:00:00'] });
    const safari = await lifecycle(pid, { ...q, series: [{ ...PV, properties: [{ type: 'event', key: '$browser', value: 'Safari', operator: 'exact' }] }] });
    expect(byStatus(safari)).toEqual({ new: [0, 0, 1, 0], returning: zeros(4), resurrecting: [0, 0, 1, 0], dormant: [0, 0, 0, -2] });
    const source = { kind: 'LifecycleQuery', ...q, series: [{ kind: 'ActionsNode', id }] };
    expect(await actorsOf(pid, { source, day: '2020-01-12 12:00:00', status: 'resurrecting' })).toEqual(['p1']);
  });

  it('test_lifecycle_trend_all_time by week: weeks of Jan 5, 12 and 19 (frozen now Jan 20)', async () => {
    freeze('2020-01-20T12:00:00Z');
    const r = await lifecycle(pid, { interval: 'week', dateRange: { date_from: 'all' } });
    expect(r.results[0].days).toEqual(['2020-01-05', '2020-01-12', '2020-01-19']);
    expect(r.results[0].labels).toEqual(['5-Jan-2020', '12-Jan-2020', '19-Jan-2020']);
    // wk Jan 5: p1 and p2 created and active (new); wk 12: p1, p2 returning, p3, p4 new; wk 19: p1 returning, the rest dormant
    expect(byStatus(r)).toEqual({ new: [2, 2, 0], returning: [0, 2, 1], resurrecting: [0, 0, 0], dormant: [0, 0, -3] });
  });
});

describe('LifecycleQuery: creation (reference §1.8, §7.3)', () => {
  it('test_lifecycle_trend with persons created by their first event (no person rows given): the same answer', async () => {
    const { events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await db.project([], events);
    expect(byStatus(await lifecycle(pid, { dateRange: { date_from: '2020-01-12', date_to: '2020-01-19' } }))).toEqual(LIFECYCLE_TREND);
  });

  it('activity before the fetched window (two days before date_from) does not stop the creation day from being new', async () => {
    // created Jan 12 12:00, active Jan 10 and Jan 12; the window starts Jan 11 (date_from − 1 day), so Jan 12 is the
    // first activity seen and the creation day: new
    const pid = await db.project([{ distinct_ids: ['x'], created_at: '2020-01-12T12:00:00Z' }], [ev('$pageview', 'x', '2020-01-10T12:00:00Z'), ev('$pageview', 'x', '2020-01-12T13:00:00Z')]);
    expect(byStatus(await lifecycle(pid, { dateRange: { date_from: '2020-01-12', date_to: '2020-01-13' } }))).toEqual({ new: [1, 0], returning: [0, 0], resurrecting: [0, 0], dormant: [0, -1] });
  });
});

describe('LifecycleQuery aggregated by groups, with group property filters (test_lifecycle_query_runner.py group aggregation)', () => {
  /**
   * org:a (industry tech) identified Jan 10 08:00, org:b (finance) Jan 1. u1 views for org:a Jan 10 and 11; u2 for org:b
   * Jan 11 and 13; u3 without a group Jan 12. Persons u1, u2, u3 created Jan 10, 11, 12.
   */
  let pid: number;
  beforeAll(async () => {
    const org = (d: string, at: string, key?: string) => ev('$pageview', d, at, key ? { $groups: { organization: key } } : {});
    pid = await db.project(
      [
        { distinct_ids: ['u1'], created_at: '2020-01-10T00:00:00Z' },
        { distinct_ids: ['u2'], created_at: '2020-01-11T00:00:00Z' },
        { distinct_ids: ['u3'], created_at: '2020-01-12T00:00:00Z' },
      ],
      [
        ev('$groupidentify', 'u2', '2020-01-01T08:00:00Z', { $group_type: 'organization', $group_key: 'org:b', $group_set: { industry: 'finance' } }),
        ev('$groupidentify', 'u1', '2020-01-10T08:00:00Z', { $group_type: 'organization', $group_key: 'org:a', $group_set: { industry: 'tech' } }),
        org('u1', '2020-01-10T10:00:00Z', 'org:a'),
        org('u1', '2020-01-11T10:00:00Z', 'org:a'),
        org('u2', '2020-01-11T11:00:00Z', 'org:b'),
        org('u2', '2020-01-13T11:00:00Z', 'org:b'),
        org('u3', '2020-01-12T11:00:00Z'),
      ],
    );
  });
  const q = { aggregation_group_type_index: 0, dateRange: { date_from: '2020-01-10', date_to: '2020-01-14' } };
  const tech = [{ type: 'group', key: 'industry', value: 'tech', operator: 'exact', group_type_index: 0 }];
  const ALL = { new: [1, 0, 0, 0, 0], returning: [0, 1, 0, 0, 0], resurrecting: [0, 1, 0, 1, 0], dormant: [0, 0, -2, 0, -1] };

  it('org:a new at its creation, then returning; org:b (created before) resurrecting twice; u3\'s groupless view is no actor', async () => {
    expect(byStatus(await lifecycle(pid, q))).toEqual(ALL);
    const source = { kind: 'LifecycleQuery', series: [PV], ...q };
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'dormant' })).toEqual(['org:a', 'org:b']);
    expect(await actorsOf(pid, { source, day: '2020-01-13', status: 'resurrecting' })).toEqual(['org:b']);
  });

  it('a group property filter keeps the groups of that industry', async () => {
    expect(byStatus(await lifecycle(pid, { ...q, properties: tech }))).toEqual({ new: [1, 0, 0, 0, 0], returning: [0, 1, 0, 0, 0], resurrecting: zeros(5), dormant: [0, 0, -1, 0, 0] });
    const source = { kind: 'LifecycleQuery', series: [PV], ...q, properties: tech };
    expect(await actorsOf(pid, { source, day: '2020-01-11', status: 'returning' })).toEqual(['org:a']);
    expect(await actorsOf(pid, { source, day: '2020-01-11', status: 'resurrecting' })).toEqual([]);
  });

  it('persons under a group property filter: the persons of finance organizations\' events (u2)', async () => {
    const finance = [{ type: 'group', key: 'industry', value: 'finance', operator: 'exact', group_type_index: 0 }];
    const r = await lifecycle(pid, { dateRange: q.dateRange, properties: finance });
    // u2 created Jan 11: new then, dormant Jan 12, resurrecting Jan 13, dormant Jan 14
    expect(byStatus(r)).toEqual({ new: [0, 1, 0, 0, 0], returning: zeros(5), resurrecting: [0, 0, 0, 1, 0], dormant: [0, 0, -1, 0, -1] });
  });

  it('by month: both organizations created and first active in January are new then, dormant in February', async () => {
    const mq = { aggregation_group_type_index: 0, interval: 'month', dateRange: { date_from: '2019-12-01', date_to: '2020-02-29' } };
    const r = await lifecycle(pid, mq);
    expect(r.results[0].days).toEqual(['2019-12-01', '2020-01-01', '2020-02-01']);
    expect(byStatus(r)).toEqual({ new: [0, 2, 0], returning: zeros(3), resurrecting: zeros(3), dormant: [0, 0, -2] });
    const source = { kind: 'LifecycleQuery', series: [PV], ...mq };
    expect(await actorsOf(pid, { source, day: '2020-02-01', status: 'dormant' })).toEqual(['org:a', 'org:b']);
  });

  it('an action series aggregated by groups: the groups of the action\'s events', async () => {
    const id = action('org views', [actionStep('$pageview')]);
    const r = await lifecycle(pid, { ...q, series: [{ kind: 'ActionsNode', id }] });
    expect(byStatus(r)).toEqual(ALL);
    expect(r.results[0].label).toBe('org views - new');
  });

  it('by week: org:a new in its creation week; org:b (created the week before) resurrecting, then returning', async () => {
    const wq = { aggregation_group_type_index: 0, interval: 'week', dateRange: { date_from: '2020-01-05', date_to: '2020-01-18' } };
    expect(byStatus(await lifecycle(pid, wq))).toEqual({ new: [1, 0], returning: [0, 1], resurrecting: [1, 0], dormant: [0, -1] });
    const source = { kind: 'LifecycleQuery', series: [PV], ...wq };
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'dormant' })).toEqual(['org:a']);
    expect(await actorsOf(pid, { source, day: '2020-01-05', status: 'resurrecting' })).toEqual(['org:b']);
  });

  it('stickiness (test_hogql_aggregations): math_hogql $group_0 makes the empty group of a groupless event an actor, unique_group does not', async () => {
    const dateRange = q.dateRange;
    const groups = await stickiness(pid, { dateRange, series: [{ ...PV, math: 'unique_group', math_group_type_index: 0 }] });
    expect(groups.results[0]).toMatchObject({ data: [0, 2, 0, 0, 0], count: 2 });
    // `$group_0` is '' (a value, not NULL) on u3's event: that actor is active on one day
    const hogql = await stickiness(pid, { dateRange, series: [{ ...PV, math: 'hogql', math_hogql: '$group_0' }] });
    expect(hogql.results[0]).toMatchObject({ data: [1, 2, 0, 0, 0], count: 3 });
  });
});

describe('LifecycleQuery by month: the actors of each status (test_lifecycle_trend_months, test_lifecycle_trend_people)', () => {
  let pid: number;
  beforeAll(async () => {
    const { persons, events } = lifecycleData([
      ['p1', ['2020-01-11T12:00:00Z', '2020-02-12T12:00:00Z', '2020-03-13T12:00:00Z', '2020-05-15T12:00:00Z', '2020-07-17T12:00:00Z', '2020-09-19T12:00:00Z']],
      ['p2', ['2019-12-09T12:00:00Z', '2020-02-12T12:00:00Z']],
      ['p3', ['2020-02-12T12:00:00Z']],
      ['p4', ['2020-05-15T12:00:00Z']],
    ]);
    pid = await db.project(persons, events);
  });
  const source = { kind: 'LifecycleQuery', series: [PV], interval: 'month', dateRange: { date_from: '2020-02-01', date_to: '2020-09-30' } };

  it('test_lifecycle_trend_all_time by month: December 2019 (p2\'s first view) to the month of now', async () => {
    freeze('2020-09-20T12:00:00Z');
    const r = await lifecycle(pid, { interval: 'month', dateRange: { date_from: 'all' } });
    expect(r.results[0].days).toEqual(['2019-12-01', '2020-01-01', '2020-02-01', '2020-03-01', '2020-04-01', '2020-05-01', '2020-06-01', '2020-07-01', '2020-08-01', '2020-09-01']);
    expect(byStatus(r)).toEqual({
      new: [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 0, 1, 1, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 1, 0, 0, 1, 0, 1, 0, 1],
      dormant: [0, -1, 0, -2, -1, 0, -2, 0, -1, 0],
    });
  });

  it.each<[string, string, string[]]>([
    ['2020-02-01', 'new', ['p3']],
    ['2020-02-01', 'resurrecting', ['p2']],
    ['2020-03-01', 'dormant', ['p2', 'p3']],
    ['2020-03-01', 'returning', ['p1']],
    ['2020-05-01', 'new', ['p4']],
    ['2020-06-01', 'dormant', ['p1', 'p4']],
  ])('%s %s', async (day, status, expected) => {
    expect(await actorsOf(pid, { source, day, status })).toEqual(expected);
  });
});

describe('the series of a StickinessQuery or LifecycleQuery (posthog/schema.py; reference §6.1, §7.1)', () => {
  it.each<[string, unknown]>([
    ['StickinessQuery', stickinessRunner.schema],
    ['LifecycleQuery', lifecycleRunner.schema],
  ])('%s: a GroupNode is no series of it (EventsNode, ActionsNode or a data warehouse node only)', (kind, schema) => {
    const group = { kind: 'GroupNode', operator: 'OR', nodes: [PV, { kind: 'EventsNode', event: '$pageleave' }] };
    const r = (schema as typeof stickinessRunner.schema).safeParse({ kind, series: [group] });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path.slice(0, 2)).toEqual(['series', 0]);
  });
});

describe('groups across periods and test accounts (test_stickiness_query_runner.py test_compare × test_group_aggregations; test_lifecycle_query_runner.py test_filter_test_accounts × group aggregation)', () => {
  /**
   * org:1 (u1) identified Jan 1; org:2 (u2) identified Jan 1. $pageview for org:1 Jan 2, 3, 9, 10, 11; for org:2 Jan 5 and
   * Jan 12; u3 without a group Jan 9 (12:00 UTC, 2020).
   */
  let pid: number;
  beforeAll(async () => {
    const gi = (d: string, key: string) => ev('$groupidentify', d, '2020-01-01T08:00:00Z', { $group_type: 'organization', $group_key: key, $group_set: { name: key } });
    const views = (d: string, key: string | null, days: number[]) =>
      days.map((day) => ev('$pageview', d, `2020-01-${String(day).padStart(2, '0')}T12:00:00Z`, key ? { $groups: { organization: key } } : {}));
    pid = await db.project(
      [{ distinct_ids: ['u1'] }, { distinct_ids: ['u2'] }, { distinct_ids: ['u3'] }],
      [gi('u1', 'org:1'), gi('u2', 'org:2'), ...views('u1', 'org:1', [2, 3, 9, 10, 11]), ...views('u2', 'org:2', [5, 12]), ...views('u3', null, [9])],
    );
  });
  const GROUPS = { ...PV, math: 'unique_group', math_group_type_index: 0 };
  // Jan 8 .. Jan 14; the previous period is the 7 days before, Jan 1 .. Jan 7 (reference §1.7)
  const q = { series: [GROUPS], dateRange: { date_from: '2020-01-08', date_to: '2020-01-14' }, compareFilter: { compare: true } };

  it('unique_group with compare: each period counts the groups\' own active days; the actors of either period are groups', async () => {
    expect(periods(await stickiness(pid, q))).toEqual([
      ['current', 2, [1, 0, 1, 0, 0, 0, 0]],
      ['previous', 2, [1, 1, 0, 0, 0, 0, 0]],
    ]);
    const source = { kind: 'StickinessQuery', ...q };
    expect(await actorsOf(pid, { source, day: 3, compare: 'current' })).toEqual(['org:1']);
    expect(await actorsOf(pid, { source, day: 1, compare: 'current' })).toEqual(['org:2']);
    expect(await actorsOf(pid, { source, day: 2, compare: 'previous' })).toEqual(['org:1']);
    expect(await actorsOf(pid, { source, day: 1, compare: 'previous' })).toEqual(['org:2']);
  });

  it('unique_group with compare and computedAs cumulative: groups in at least k days, per period', async () => {
    const cq = { ...q, stickinessFilter: { computedAs: 'cumulative' } };
    expect(periods(await stickiness(pid, cq))).toEqual([
      ['current', 2, [2, 1, 1, 0, 0, 0, 0]],
      ['previous', 2, [2, 1, 0, 0, 0, 0, 0]],
    ]);
    const source = { kind: 'StickinessQuery', ...cq };
    expect(await actorsOf(pid, { source, day: 1, compare: 'previous' })).toEqual(['org:1', 'org:2']);
    expect(await actorsOf(pid, { source, day: 2, compare: 'current' })).toEqual(['org:1']);
  });

  it('a person series beside it compares persons: u3\'s groupless day makes him an actor', async () => {
    const r = await stickiness(pid, { ...q, series: [GROUPS, PV] });
    expect(r.results.map((x: any) => [x.action.order, x.compare_label, x.data.slice(0, 3)])).toEqual([
      [0, 'current', [1, 0, 1]],
      [0, 'previous', [1, 1, 0]],
      [1, 'current', [2, 0, 1]],
      [1, 'previous', [1, 1, 0]],
    ]);
  });

  it('lifecycle by groups with filterTestAccounts: the test account\'s events are left out; a group first seen after its creation day resurrects', async () => {
    const proj = { test_account_filters: [{ key: '$browser', value: 'Safari', operator: 'is_not', type: 'event' }] };
    const other = await db.project(
      [{ distinct_ids: ['t1'] }, { distinct_ids: ['t2'] }],
      [
        ev('$groupidentify', 't1', '2020-01-10T08:00:00Z', { $group_type: 'organization', $group_key: 'org:a', $group_set: {} }),
        ev('$groupidentify', 't2', '2020-01-01T08:00:00Z', { $group_type: 'organization', $group_key: 'org:b', $group_set: {} }),
        // t1 browses with Safari (a test account's browser), t2 with Chrome
        ev('$pageview', 't1', '2020-01-10T10:00:00Z', { $browser: 'Safari', $groups: { organization: 'org:a' } }),
        ev('$pageview', 't1', '2020-01-11T10:00:00Z', { $browser: 'Safari', $groups: { organization: 'org:a' } }),
        ev('$pageview', 't2', '2020-01-12T10:00:00Z', { $browser: 'Chrome', $groups: { organization: 'org:a' } }),
        ev('$pageview', 't2', '2020-01-11T11:00:00Z', { $browser: 'Chrome', $groups: { organization: 'org:b' } }),
      ],
    );
    const lq = { aggregation_group_type_index: 0, dateRange: { date_from: '2020-01-10', date_to: '2020-01-14' } };
    expect(byStatus(await lifecycle(other, lq, proj))).toEqual({
      new: [1, 0, 0, 0, 0],
      returning: [0, 1, 1, 0, 0],
      resurrecting: [0, 1, 0, 0, 0],
      dormant: [0, 0, -1, -1, 0],
    });
    const filtered = { ...lq, filterTestAccounts: true };
    expect(byStatus(await lifecycle(other, filtered, proj))).toEqual({
      new: zeros(5),
      returning: zeros(5),
      resurrecting: [0, 1, 1, 0, 0],
      dormant: [0, 0, -1, -1, 0],
    });
    const source = { kind: 'LifecycleQuery', series: [PV], ...filtered };
    expect(await actorsOf(other, { source, day: '2020-01-12', status: 'resurrecting' }, proj)).toEqual(['org:a']);
  });
});

describe('StickinessQuery by month with compare (test_compare; reference §1.7: the previous period is as long, ending the day before date_from)', () => {
  it('Feb .. Apr against Nov .. Jan: three months each', async () => {
    const at = (d: string, days: string[]) => days.map((day) => ev('$pageview', d, `${day}T12:00:00Z`));
    const pid = await db.project(
      [{ distinct_ids: ['p1'] }, { distinct_ids: ['p2'] }],
      [...at('p1', ['2019-11-15', '2019-12-15', '2020-02-15', '2020-03-15', '2020-04-15']), ...at('p2', ['2020-01-15', '2020-03-15'])],
    );
    const q = { interval: 'month', dateRange: { date_from: '2020-02-01', date_to: '2020-04-30' }, compareFilter: { compare: true } };
    const r = await stickiness(pid, q);
    expect(periods(r)).toEqual([
      ['current', 2, [1, 0, 1]],
      ['previous', 2, [1, 1, 0]],
    ]);
    expect(r.results[1].labels).toEqual(['1 month', '2 months', '3 months']);
    const source = { kind: 'StickinessQuery', series: [PV], ...q };
    expect(await actorsOf(pid, { source, day: 2, compare: 'previous' })).toEqual(['p1']);
  });
});

describe('LifecycleQuery by hour and by week aggregated by groups, under person filters (test_lifecycle_trend_person_prop_filtering × group aggregation)', () => {
  /** org:a identified Jan 10 08:00 (by t1), org:b Jan 1; t1 views org:a at 10:00 and 11:00, t2 org:b at 11:00 and org:a at 12:00 (Jan 10 2020). */
  let pid: number;
  beforeAll(async () => {
    const view = (d: string, hh: string, key: string) => ev('$pageview', d, `2020-01-10T${hh}:00:00Z`, { $groups: { organization: key } });
    pid = await db.project(
      [
        { distinct_ids: ['t1'], properties: { name: 't1', email: 'test@posthog.com' } },
        { distinct_ids: ['t2'], properties: { name: 't2' } },
      ],
      [
        ev('$groupidentify', 't2', '2020-01-01T08:00:00Z', { $group_type: 'organization', $group_key: 'org:b', $group_set: {} }),
        ev('$groupidentify', 't1', '2020-01-10T08:00:00Z', { $group_type: 'organization', $group_key: 'org:a', $group_set: {} }),
        view('t1', '10', 'org:a'),
        view('t1', '11', 'org:a'),
        view('t2', '11', 'org:b'),
        view('t2', '12', 'org:a'),
      ],
    );
  });
  const hq = { aggregation_group_type_index: 0, interval: 'hour', dateRange: { date_from: '2020-01-10T10:00:00', date_to: '2020-01-10T14:00:00' } };
  // with t2's events only: org:b resurrecting at 11:00, org:a (created at 08:00) resurrecting at 12:00; each dormant the hour after
  const T2_ONLY = { new: zeros(5), returning: zeros(5), resurrecting: [0, 1, 1, 0, 0], dormant: [0, 0, -1, -1, 0] };

  it('by hour: org:a first seen two hours after its creation hour resurrects, then returns', async () => {
    expect(byStatus(await lifecycle(pid, hq))).toEqual({ new: zeros(5), returning: [0, 1, 1, 0, 0], resurrecting: [1, 1, 0, 0, 0], dormant: [0, 0, -1, -1, 0] });
  });

  it('by hour with a person property filter: the groups of t2\'s events only', async () => {
    const properties = [{ type: 'person', key: 'name', value: 't2', operator: 'exact' }];
    expect(byStatus(await lifecycle(pid, { ...hq, properties }))).toEqual(T2_ONLY);
    const source = { kind: 'LifecycleQuery', series: [PV], ...hq, properties };
    expect(await actorsOf(pid, { source, day: '2020-01-10 12:00:00', status: 'resurrecting' })).toEqual(['org:a']);
  });

  it('by hour with the default test-account filter (a person email filter): the same', async () => {
    expect(byStatus(await lifecycle(pid, { ...hq, filterTestAccounts: true }, DEFAULT_TEST_FILTERS))).toEqual(T2_ONLY);
  });

  it('by week with a person property filter: t2\'s view of org:a falls in its creation week, still new', async () => {
    const wq = { aggregation_group_type_index: 0, interval: 'week', dateRange: { date_from: '2020-01-05', date_to: '2020-01-18' } };
    // org:a created in the week of Jan 5 and active in it: new; org:b created the week before: resurrecting
    expect(byStatus(await lifecycle(pid, wq))).toEqual({ new: [1, 0], returning: [0, 0], resurrecting: [1, 0], dormant: [0, -2] });
    const properties = [{ type: 'person', key: 'name', value: 't2', operator: 'exact' }];
    expect(byStatus(await lifecycle(pid, { ...wq, properties }))).toEqual({ new: [1, 0], returning: [0, 0], resurrecting: [1, 0], dormant: [0, -2] });
  });
});

describe('LifecycleQuery aggregated by groups in a project timezone (test_timezones × group aggregation; reference §1.5, §7.3: created_at bucketed in project time)', () => {
  it('by day (America/New_York): a group created at 02:00 UTC was created the local day before, so its first local day resurrects', async () => {
    const pid = await db.project(
      [{ distinct_ids: ['u1'] }],
      [
        ev('$groupidentify', 'u1', '2020-01-10T02:00:00Z', { $group_type: 'organization', $group_key: 'org:a', $group_set: {} }),
        ev('$pageview', 'u1', '2020-01-10T12:00:00Z', { $groups: { organization: 'org:a' } }),
        ev('$pageview', 'u1', '2020-01-11T12:00:00Z', { $groups: { organization: 'org:a' } }),
      ],
    );
    const q = { aggregation_group_type_index: 0, dateRange: { date_from: '2020-01-09', date_to: '2020-01-12' } };
    expect(byStatus(await lifecycle(pid, q))).toEqual({ new: [0, 1, 0, 0], returning: [0, 0, 1, 0], resurrecting: zeros(4), dormant: [0, 0, 0, -1] });
    const ny = { timezone: 'America/New_York' };
    expect(byStatus(await lifecycle(pid, q, ny))).toEqual({ new: zeros(4), returning: [0, 0, 1, 0], resurrecting: [0, 1, 0, 0], dormant: [0, 0, 0, -1] });
    const source = { kind: 'LifecycleQuery', series: [PV], ...q };
    expect(await actorsOf(pid, { source, day: '2020-01-10', status: 'resurrecting' }, ny)).toEqual(['org:a']);
  });

  it('by hour (Asia/Kolkata): created at 09:50 local, first seen at 10:10 local: resurrecting; in UTC both are the 04:00 hour: new', async () => {
    const pid = await db.project(
      [{ distinct_ids: ['u1'] }],
      [
        ev('$groupidentify', 'u1', '2020-01-10T04:20:00Z', { $group_type: 'organization', $group_key: 'org:a', $group_set: {} }),
        ev('$pageview', 'u1', '2020-01-10T04:40:00Z', { $groups: { organization: 'org:a' } }),
      ],
    );
    const utc = await lifecycle(pid, { aggregation_group_type_index: 0, interval: 'hour', dateRange: { date_from: '2020-01-10T03:00:00', date_to: '2020-01-10T05:00:00' } });
    expect(byStatus(utc)).toEqual({ new: [0, 1, 0], returning: zeros(3), resurrecting: zeros(3), dormant: [0, 0, -1] });
    const kq = { aggregation_group_type_index: 0, interval: 'hour', dateRange: { date_from: '2020-01-10T09:00:00', date_to: '2020-01-10T11:00:00' } };
    const kolkata = await lifecycle(pid, kq, { timezone: 'Asia/Kolkata' });
    expect(kolkata.results[0].days).toEqual(['2020-01-10 09:00:00', '2020-01-10 10:00:00', '2020-01-10 11:00:00']);
    expect(byStatus(kolkata)).toEqual({ new: zeros(3), returning: zeros(3), resurrecting: [0, 1, 0], dormant: [0, 0, -1] });
  });
});

describe('StickinessQuery: an action aggregated by groups under a person property filter (test_actions × test_group_aggregations × test_person_property_filtering)', () => {
  it('the person filter picks the events, the groups of those events are the actors', async () => {
    // org:1: u1 (pro) on Jan 1 and 2 (signed up), u2 (free) on Jan 3 (paid); org:2: u2 on Jan 1 and 2 (paid)
    const at = (d: string, event: string, day: number, key: string) => ev(event, d, `2020-01-0${day}T12:00:00Z`, { $groups: { organization: key } });
    const pid = await db.project(
      [
        { distinct_ids: ['u1'], properties: { plan: 'pro' } },
        { distinct_ids: ['u2'], properties: { plan: 'free' } },
      ],
      [
        ev('$groupidentify', 'u1', '2020-01-01T08:00:00Z', { $group_type: 'organization', $group_key: 'org:1', $group_set: {} }),
        ev('$groupidentify', 'u2', '2020-01-01T08:00:00Z', { $group_type: 'organization', $group_key: 'org:2', $group_set: {} }),
        at('u1', 'signed up', 1, 'org:1'),
        at('u1', 'signed up', 2, 'org:1'),
        at('u2', 'paid', 3, 'org:1'),
        at('u2', 'paid', 1, 'org:2'),
        at('u2', 'paid', 2, 'org:2'),
      ],
    );
    const id = action('conversion', [actionStep('signed up'), actionStep('paid')]);
    const series = [{ kind: 'ActionsNode', id, math: 'unique_group', math_group_type_index: 0 }];
    const q = { series, dateRange: { date_from: '2020-01-01', date_to: '2020-01-04' } };
    expect((await stickiness(pid, q)).results[0]).toMatchObject({ label: 'conversion', data: [0, 1, 1, 0], count: 2 });
    const free = [{ type: 'person', key: 'plan', value: 'free', operator: 'exact' }];
    expect((await stickiness(pid, { ...q, properties: free })).results[0]).toMatchObject({ data: [1, 1, 0, 0], count: 2 });
    const source = { kind: 'StickinessQuery', ...q, properties: free };
    expect(await actorsOf(pid, { source, day: 1 })).toEqual(['org:1']);
    expect(await actorsOf(pid, { source, day: 2 })).toEqual(['org:2']);
  });
});

describe('session property filters on stickiness and lifecycle (test_stickiness_query_runner.py / test_lifecycle_query_runner.py property filtering × sessions; reference §1.4)', () => {
  // $session_duration is the span of all the session's events, whatever the series: s1 300 s, s2 0, s3 600 (p1);
  // s4 120, s5 0 (p2); s6 1800 (p3: a $pageview at 09:00 and another event at 09:30)
  let pid: number;
  beforeAll(async () => {
    const pv = (d: string, ts: string, s: string) => ev('$pageview', d, ts, { $session_id: s });
    const created = '2024-01-01T00:00:00Z';
    pid = await db.project(
      ['p1', 'p2', 'p3'].map((d) => ({ distinct_ids: [d], created_at: created, properties: { name: d } })),
      [
        pv('p1', '2024-01-01T10:00:00Z', 's1'),
        pv('p1', '2024-01-01T10:05:00Z', 's1'),
        pv('p1', '2024-01-02T10:00:00Z', 's2'),
        pv('p1', '2024-01-03T10:00:00Z', 's3'),
        pv('p1', '2024-01-03T10:10:00Z', 's3'),
        pv('p2', '2024-01-02T12:00:00Z', 's4'),
        pv('p2', '2024-01-02T12:02:00Z', 's4'),
        pv('p2', '2024-01-03T12:00:00Z', 's5'),
        pv('p3', '2024-01-01T09:00:00Z', 's6'),
        ev('other', 'p3', '2024-01-01T09:30:00Z', { $session_id: 's6' }),
      ],
    );
  });
  const LONG = [{ type: 'session', key: '$session_duration', operator: 'gt', value: 60 }];
  const q = { dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' } };

  it('stickiness: only the days of sessions over a minute (p1 on Jan 1 and 3, p2 on Jan 2, p3 on Jan 1 by its other event)', async () => {
    expect((await stickiness(pid, q)).results[0]).toMatchObject({ data: [1, 1, 1], count: 3 });
    expect((await stickiness(pid, { ...q, properties: LONG })).results[0]).toMatchObject({ data: [2, 1, 0], count: 3 });
    const source = { kind: 'StickinessQuery', series: [PV], ...q, properties: LONG };
    expect(await actorsOf(pid, { source, day: 1 })).toEqual(['p2', 'p3']);
    expect(await actorsOf(pid, { source, day: 2 })).toEqual(['p1']);
  });

  it('stickiness: the filter on the series (EventsNode.properties) is the same', async () => {
    const r = await stickiness(pid, { ...q, series: [{ ...PV, properties: LONG }] });
    expect(r.results[0]).toMatchObject({ data: [2, 1, 0], count: 3 });
  });

  it('lifecycle: the filtered days decide the statuses (all created Jan 1)', async () => {
    expect(byStatus(await lifecycle(pid, { ...q, properties: LONG }))).toEqual({
      new: [2, 0, 0],
      returning: [0, 0, 0],
      resurrecting: [0, 1, 1],
      dormant: [0, -2, -1],
    });
    const source = { kind: 'LifecycleQuery', series: [PV], ...q, properties: LONG };
    expect(await actorsOf(pid, { source, day: '2024-01-02', status: 'dormant' })).toEqual(['p1', 'p3']);
    expect(await actorsOf(pid, { source, day: '2024-01-03', status: 'resurrecting' })).toEqual(['p1']);
  });

  it('lifecycle by hour (the self-join path): p1\'s one-event session on Jan 2 10:00 is left out, p2\'s two-minute one at 12:00 kept', async () => {
    const hours = { interval: 'hour', dateRange: { date_from: '2024-01-02 10:00:00', date_to: '2024-01-02 12:00:00' } };
    expect(byStatus(await lifecycle(pid, hours))).toEqual({ new: [0, 0, 0], returning: [0, 0, 0], resurrecting: [1, 0, 1], dormant: [0, -1, 0] });
    expect(byStatus(await lifecycle(pid, { ...hours, properties: LONG }))).toEqual({ new: [0, 0, 0], returning: [0, 0, 0], resurrecting: [0, 0, 1], dormant: [0, 0, 0] });
  });

  it('a ProductQL filter reading the session (session.$session_duration > 60) is the same filter', async () => {
    const properties = [{ type: 'hogql', key: 'session.$session_duration > 60' }];
    expect((await stickiness(pid, { ...q, properties })).results[0]).toMatchObject({ data: [2, 1, 0], count: 3 });
    expect(byStatus(await lifecycle(pid, { ...q, properties }))).toEqual({ new: [2, 0, 0], returning: [0, 0, 0], resurrecting: [0, 1, 1], dormant: [0, -2, -1] });
    const hours = { interval: 'hour', dateRange: { date_from: '2024-01-02 10:00:00', date_to: '2024-01-02 12:00:00' } };
    expect(byStatus(await lifecycle(pid, { ...hours, properties }))).toEqual({ new: [0, 0, 0], returning: [0, 0, 0], resurrecting: [0, 0, 1], dormant: [0, 0, 0] });
  });

  it('a property group ORing the session filter with a person filter (name p2): p2\'s short sessions count too', async () => {
    const properties = { type: 'AND', values: [{ type: 'OR', values: [...LONG, { type: 'person', key: 'name', operator: 'exact', value: 'p2' }] }] };
    expect((await stickiness(pid, { ...q, properties })).results[0]).toMatchObject({ data: [1, 2, 0], count: 3 });
    expect(byStatus(await lifecycle(pid, { ...q, properties }))).toEqual({ new: [2, 0, 0], returning: [0, 0, 1], resurrecting: [0, 1, 1], dormant: [0, -2, 0] });
    const hours = { interval: 'hour', dateRange: { date_from: '2024-01-02 10:00:00', date_to: '2024-01-02 12:00:00' } };
    expect(byStatus(await lifecycle(pid, { ...hours, properties }))).toEqual({ new: [0, 0, 0], returning: [0, 0, 0], resurrecting: [0, 0, 1], dormant: [0, 0, 0] });
  });

  it('lifecycle aggregated by groups: org:a (created Jan 1) new, dormant after its short-session day, resurrecting', async () => {
    const at = (ts: string, sid: string) => ev('$pageview', 'u1', ts, { $session_id: sid, $groups: { organization: 'org:a' } });
    const gp = await db.project(
      [{ distinct_ids: ['u1'], created_at: '2023-12-01T00:00:00Z', properties: { plan: 'pro' } }],
      [
        ev('$groupidentify', 'u1', '2024-01-01T08:00:00Z', { $group_type: 'organization', $group_key: 'org:a', $group_set: { industry: 'tech' } }),
        at('2024-01-01T10:00:00Z', 'g1'),
        at('2024-01-01T10:05:00Z', 'g1'),
        at('2024-01-02T10:00:00Z', 'g2'),
        at('2024-01-03T10:00:00Z', 'g3'),
        at('2024-01-03T10:10:00Z', 'g3'),
      ],
    );
    const byGroup = { ...q, aggregation_group_type_index: 0 };
    expect(byStatus(await lifecycle(gp, byGroup))).toEqual({ new: [1, 0, 0], returning: [0, 1, 1], resurrecting: [0, 0, 0], dormant: [0, 0, 0] });
    expect(byStatus(await lifecycle(gp, { ...byGroup, properties: LONG }))).toEqual({ new: [1, 0, 0], returning: [0, 0, 0], resurrecting: [0, 0, 1], dormant: [0, -1, 0] });
    const r = await stickiness(gp, { ...q, series: [{ ...PV, math: 'unique_group', math_group_type_index: 0 }], properties: LONG });
    expect(r.results[0]).toMatchObject({ data: [0, 1, 0], count: 1 });
    // with a person and a group property filter beside it (three joins of the events): the same answers
    const all = [...LONG, { type: 'person', key: 'plan', operator: 'exact', value: 'pro' }, { type: 'group', group_type_index: 0, key: 'industry', operator: 'exact', value: 'tech' }];
    expect(byStatus(await lifecycle(gp, { ...byGroup, properties: all }))).toEqual({ new: [1, 0, 0], returning: [0, 0, 0], resurrecting: [0, 0, 1], dormant: [0, -1, 0] });
    expect(byStatus(await lifecycle(gp, { ...q, properties: all }))).toEqual({ new: [0, 0, 0], returning: [0, 0, 0], resurrecting: [1, 0, 1], dormant: [0, -1, 0] });
    expect((await stickiness(gp, { ...q, properties: all })).results[0]).toMatchObject({ data: [0, 1, 0], count: 1 });
    expect((await stickiness(gp, { ...q, properties: [...all.slice(0, 2), { ...all[2], value: 'finance' }] })).results[0]).toMatchObject({ data: [0, 0, 0], count: 0 });
  });

  it('stickiness with compare: each period\'s events filtered by their own sessions', async () => {
    const range = { dateRange: { date_from: '2024-01-02', date_to: '2024-01-03' }, compareFilter: { compare: true } };
    // current Jan 2 .. 3, previous Dec 31 .. Jan 1
    expect(periods(await stickiness(pid, range))).toEqual([
      ['current', 2, [0, 2]],
      ['previous', 2, [2, 0]],
    ]);
    expect(periods(await stickiness(pid, { ...range, properties: LONG }))).toEqual([
      ['current', 2, [2, 0]],
      ['previous', 2, [2, 0]],
    ]);
    const source = { kind: 'StickinessQuery', series: [PV], ...range, properties: LONG };
    expect(await actorsOf(pid, { source, day: 1, compare: 'current' })).toEqual(['p1', 'p2']);
    expect(await actorsOf(pid, { source, day: 1, compare: 'previous' })).toEqual(['p1', 'p3']);
  });
});

describe('element filters and autocapture actions on stickiness and lifecycle (test_actions × autocapture; reference §1.2, §1.4)', () => {
  // $autocapture: p1 clicks "Sign up" on Jan 1 and 3 and a nav link "Plans" on Jan 2; p2 clicks "Sign up" on Jan 2
  const SIGN_UP = 'button.btn:attr__href="/signup"href="/signup"nth-child="1"nth-of-type="1"text="Sign up"';
  const PLANS = 'a.nav:href="/Pricing/plans"nth-child="1"nth-of-type="1"text="Plans";div:nth-child="1"nth-of-type="1"';
  const AC = { kind: 'EventsNode', event: '$autocapture' };
  const q = { series: [AC], dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' } };
  let pid: number;
  beforeAll(async () => {
    const click = (d: string, day: number, chain: string) => ev('$autocapture', d, `2024-01-0${day}T10:00:00Z`, { $elements_chain: chain });
    pid = await db.project(
      ['p1', 'p2'].map((d) => ({ distinct_ids: [d], created_at: '2024-01-01T00:00:00Z' })),
      [click('p1', 1, SIGN_UP), click('p1', 2, PLANS), click('p1', 3, SIGN_UP), click('p2', 2, SIGN_UP)],
    );
  });
  const TEXT = [{ type: 'element', key: 'text', operator: 'exact', value: 'Sign up' }];

  it('an element text filter: only the "Sign up" clicks', async () => {
    expect((await stickiness(pid, q)).results[0]).toMatchObject({ data: [1, 0, 1], count: 2 });
    expect((await stickiness(pid, { ...q, properties: TEXT })).results[0]).toMatchObject({ data: [1, 1, 0], count: 2 });
    expect(byStatus(await lifecycle(pid, { ...q, properties: TEXT }))).toEqual({ new: [1, 0, 0], returning: [0, 0, 0], resurrecting: [0, 1, 1], dormant: [0, -1, -1] });
  });

  it('an action step matching the element text and a selector: the same days', async () => {
    const text = action('sign up clicks', [{ ...actionStep('$autocapture'), text: 'Sign up', text_matching: 'exact' }]);
    const selector = action('button clicks', [{ ...actionStep('$autocapture'), selector: 'button.btn' }]);
    for (const id of [text, selector]) {
      const series = [{ kind: 'ActionsNode', id }];
      expect((await stickiness(pid, { ...q, series })).results[0]).toMatchObject({ data: [1, 1, 0], count: 2 });
      expect(byStatus(await lifecycle(pid, { ...q, series }))).toEqual({ new: [1, 0, 0], returning: [0, 0, 0], resurrecting: [0, 1, 1], dormant: [0, -1, -1] });
    }
  });
});
