/**
 * A lifecycle-only pass over PostHog's lifecycle suites (posthog/hogql_queries/insights/test/test_lifecycle_query_runner.py,
 * posthog/queries/test/test_lifecycle.py): the scenarios the earlier passes (retention-lifecycle-stickiness-posthog-compat,
 * rsl-posthog-compat-{2,3}, stickiness-lifecycle-posthog-compat{,-2}, lifecycle-runner) do not pin yet — PostHog's own
 * test-account filter (a person `email not_icontains`), a project timezone ahead of UTC (by day, week and hour, and a
 * half-hour zone), local-midnight edges, group property filters on person actors, actions of several steps, months
 * across a year end, a range running past the data, null-tolerant negative filters, and the node's validation
 * (lifecycleFilter's display keys, unknown keys, statuses, fields LifecycleQuery does not have). Each title names the
 * PostHog test it follows; where PostHog's fixture is not copied as is, the expectation is derived from the reference
 * (§1.2, §1.4, §1.5, §7) and the comment says so.
 */
import { actionRegistry, actionStep, createInsightTestDb, type InsightTestDb, type TestEvent, useInsightsClock } from '../insights/testing';
import { byStatus, LIFECYCLE_DAYS, LIFECYCLE_TREND, LIFECYCLE_TREND_WITHOUT_P1, lifecycleData } from './testing';
import { lifecycleQuerySchema } from '../insights';
import { lifecycleRunner } from './lifecycle-runner';
import { actorsRunner } from './actors-runner';

let db: InsightTestDb;
const { source: actionSource, action } = actionRegistry(2600);
/** LIFECYCLE_DAYS with test_lifecycle_query_runner.py's person properties (p1: email test@posthog.com), p1 on Chrome in org:1. */
let pid: number;
beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
  const { persons, events } = lifecycleData(LIFECYCLE_DAYS, '$pageview', (id) => (id === 'p1' ? { $browser: 'Chrome', $group_0: 'org:1' } : { $group_0: 'org:2' }));
  const org = (key: string, industry: string): TestEvent => ({
    event: '$groupidentify',
    distinct_id: 'p1',
    timestamp: '2019-12-01T00:00:00Z',
    properties: { $group_type: 'organization', $group_key: key, $group_set: { industry } },
  });
  pid = await db.project(persons, [org('org:1', 'technology'), org('org:2', 'agriculture'), ...events]);
});
afterAll(async () => {
  await db.close();
});

const PV = { kind: 'EventsNode', event: '$pageview' };
const RANGE = { date_from: '2020-01-12', date_to: '2020-01-19' };
const lifecycle = (project: number, q: Record<string, unknown> = {}, proj: Record<string, unknown> = {}) =>
  db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [PV], interval: 'day', dateRange: RANGE, ...q }, project, proj as any);

/** ActorsQuery over an InsightActorsQuery source: the actors' last distinct id in sort order, sorted. */
async function actorsOf(project: number, source: Record<string, unknown>, proj: Record<string, unknown> = {}): Promise<string[]> {
  const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', ...source } }, project, proj as any);
  return (r.results as any[]).map((row) => (row[0].distinct_ids ? [...row[0].distinct_ids].sort().pop() : row[0].id)).sort();
}


describe('LifecycleQuery (test_lifecycle_query_runner.py, test_lifecycle.py)', () => {
  it('test_filter_test_accounts: the team filter `email not_icontains @posthog.com` (a person filter) leaves p1 out', async () => {
    const proj = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
    const r = await lifecycle(pid, { filterTestAccounts: true }, proj);
    expect(byStatus(r)).toEqual(LIFECYCLE_TREND_WITHOUT_P1);
    expect(r.results.map((x: any) => x.count)).toEqual([2, 0, 1, -3]);
    expect(byStatus(await lifecycle(pid, { filterTestAccounts: false }, proj))).toEqual(LIFECYCLE_TREND);
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: RANGE, filterTestAccounts: true };
    expect(await actorsOf(pid, { source, day: '2020-01-13', status: 'dormant' }, proj)).toEqual(['p2', 'p3']);
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'returning' }, proj)).toEqual([]);
  });

  it('test_lifecycle_trend_prop_filtering with a group property filter: persons stay the actors, only org:1 events count', async () => {
    // reference §1.4: a group filter reads group_0.properties; p1's events are org:1 (technology), the others org:2
    const properties = [{ type: 'group', key: 'industry', value: 'technology', operator: 'exact', group_type_index: 0 }];
    expect(byStatus(await lifecycle(pid, { properties }))).toEqual({
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
      dormant: [0, 0, -1, 0, -1, 0, -1, 0],
    });
    expect(byStatus(await lifecycle(pid, { properties: [{ ...properties[0], value: 'agriculture' }] }))).toEqual(LIFECYCLE_TREND_WITHOUT_P1);
  });

  it('test_lifecycle_trend_prop_filtering with `is_not` on a property only p1 has: the persons without it are kept (reference §1.4)', async () => {
    // nullable `!=` is ifNull(notEquals(a, b), 1): p2, p3, p4 have no $browser and pass
    const r = await lifecycle(pid, { properties: [{ type: 'event', key: '$browser', value: 'Chrome', operator: 'is_not' }] });
    expect(byStatus(r)).toEqual(LIFECYCLE_TREND_WITHOUT_P1);
    const set = await lifecycle(pid, { properties: [{ type: 'event', key: '$browser', operator: 'is_not_set' }] });
    expect(byStatus(set)).toEqual(LIFECYCLE_TREND_WITHOUT_P1);
  });

  it('test_lifecycle_trend_action with an action of two steps: events matching either step (reference §1.2)', async () => {
    // p1's $pageview days as in test_lifecycle_trend; p2 only $pageleave (Jan 9, 12); p3 $autocapture (matches no step)
    const pid2 = await db.project(
      [
        { distinct_ids: ['p1'], created_at: '2020-01-11T12:00:00Z' },
        { distinct_ids: ['p2'], created_at: '2020-01-09T12:00:00Z' },
        { distinct_ids: ['p3'], created_at: '2020-01-12T12:00:00Z' },
      ],
      [
        ...LIFECYCLE_DAYS[0][1].map((timestamp) => ({ event: '$pageview', distinct_id: 'p1', timestamp })),
        ...LIFECYCLE_DAYS[1][1].map((timestamp) => ({ event: '$pageleave', distinct_id: 'p2', timestamp })),
        { event: '$autocapture', distinct_id: 'p3', timestamp: '2020-01-12T12:00:00Z' },
      ],
    );
    const both = action('views or leaves', [actionStep('$pageview'), actionStep('$pageleave')]);
    const r = await lifecycle(pid2, { series: [{ kind: 'ActionsNode', id: both }] });
    expect(byStatus(r)).toEqual({
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
      dormant: [0, -1, -1, 0, -1, 0, -1, 0],
    });
    expect(r.results.map((x: any) => x.label)).toEqual(['views or leaves - new', 'views or leaves - returning', 'views or leaves - resurrecting', 'views or leaves - dormant']);
    expect(r.results[2].action).toEqual({ id: String(both), name: 'views or leaves', type: 'actions', order: 0, math: 'total' });
  });

  it('the series math and its name are ignored: counts of actors, action.math "total", the label the action name', async () => {
    // the lifecycle query has no math: math, math_property and custom_name of the node change nothing (reference §7.2)
    const r = await lifecycle(pid, { series: [{ ...PV, math: 'sum', math_property: '$browser', custom_name: 'Views' }] });
    expect(byStatus(r)).toEqual(LIFECYCLE_TREND);
    expect(r.results[0].action).toEqual({ id: '$pageview', name: '$pageview', type: 'events', order: 0, math: 'total' });
    const views = action('views', [actionStep('$pageview')]);
    const a = await lifecycle(pid, { series: [{ kind: 'ActionsNode', id: views, math: 'dau', custom_name: 'My views' }] });
    expect(byStatus(a)).toEqual(LIFECYCLE_TREND);
    expect(a.results[3].label).toBe('views - dormant');
    expect(a.results[3].action).toEqual({ id: String(views), name: 'views', type: 'actions', order: 0, math: 'total' });
  });

  it('a series fixedProperties filter is ANDed with its properties (reference §1.2)', async () => {
    const series = [{ ...PV, fixedProperties: [{ type: 'person', key: 'name', value: ['p1', 'p3'], operator: 'exact' }], properties: [{ type: 'person', key: 'name', value: 'p1', operator: 'is_not' }] }];
    // p3 alone: new on the 12th, dormant on the 13th
    expect(byStatus(await lifecycle(pid, { series }))).toEqual({
      new: [1, 0, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 0, 0, 0, 0, 0],
      dormant: [0, -1, 0, 0, 0, 0, 0, 0],
    });
  });

  it('minute interval (an IntervalType of LifecycleQuery): the statuses of minutes, as of hours, labelled by day', async () => {
    // derived (reference §7.1, §7.3): created 10:02:30; active 10:02, 10:03 and 10:05
    const m = await db.project(
      [{ distinct_ids: ['m'], created_at: '2020-01-12T10:02:30Z' }],
      ['10:02:40', '10:03:10', '10:03:50', '10:05:00'].map((t) => ({ event: '$pageview', distinct_id: 'm', timestamp: `2020-01-12T${t}Z` })),
    );
    const r = await lifecycle(m, { interval: 'minute', dateRange: { date_from: '2020-01-12T10:01:00', date_to: '2020-01-12T10:06:00' } });
    // LifecycleQueryRunner adds the time to labels and days by hour only: minutes carry their day
    expect(r.results[0].days).toEqual(new Array(6).fill('2020-01-12'));
    expect(r.results[0].labels).toEqual(new Array(6).fill('12-Jan-2020'));
    expect(byStatus(r)).toEqual({
      new: [0, 1, 0, 0, 0, 0],
      returning: [0, 0, 1, 0, 0, 0],
      resurrecting: [0, 0, 0, 0, 1, 0],
      dormant: [0, 0, 0, -1, 0, -1],
    });
  });

  it('a range that runs past the data: the day after the last activity is dormant, later days are zero', async () => {
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-17', date_to: '2020-01-23' } });
    expect(r.results[0].days).toEqual(['2020-01-17', '2020-01-18', '2020-01-19', '2020-01-20', '2020-01-21', '2020-01-22', '2020-01-23']);
    expect(byStatus(r)).toEqual({
      new: [0, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 0, 1, 0, 0, 0, 0],
      dormant: [0, -1, 0, -1, 0, 0, 0],
    });
    expect(r.results.map((x: any) => x.count)).toEqual([0, 0, 2, -2]);
  });

  it('test_lifecycle_trend_months across a year end: December then January is returning, a skipped month dormant', async () => {
    // derived (reference §7.3): created Nov 20 2019; active Nov, Dec, Jan, Mar
    const pid2 = await db.project(
      [{ distinct_ids: ['y'], created_at: '2019-11-20T12:00:00Z' }],
      ['2019-11-20T12:00:00Z', '2019-12-31T23:30:00Z', '2020-01-01T00:30:00Z', '2020-03-02T12:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'y', timestamp })),
    );
    const r = await lifecycle(pid2, { interval: 'month', dateRange: { date_from: '2019-11-01', date_to: '2020-04-30' } });
    expect(r.results[0].days).toEqual(['2019-11-01', '2019-12-01', '2020-01-01', '2020-02-01', '2020-03-01', '2020-04-01']);
    expect(r.results[0].labels).toEqual(['1-Nov-2019', '1-Dec-2019', '1-Jan-2020', '1-Feb-2020', '1-Mar-2020', '1-Apr-2020']);
    expect(byStatus(r)).toEqual({
      new: [1, 0, 0, 0, 0, 0],
      returning: [0, 1, 1, 0, 0, 0],
      resurrecting: [0, 0, 0, 0, 1, 0],
      dormant: [0, 0, 0, -1, 0, -1],
    });
  });
});

describe('test_timezones: a project timezone ahead of UTC (reference §1.5: buckets and created_at in project time)', () => {
  /** test_timezones' fixture: test_lifecycle_trend's, with p1's first two events at Jan 11 23:00 and Jan 12 01:00 UTC. */
  let tzPid: number;
  beforeAll(async () => {
    const { persons, events } = lifecycleData([
      ['p1', ['2020-01-11T23:00:00Z', '2020-01-12T01:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z']],
      ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z']],
      ['p3', ['2020-01-12T12:00:00Z']],
      ['p4', ['2020-01-15T12:00:00Z']],
    ]);
    tzPid = await db.project(persons, events);
  });

  it('Asia/Tokyo by day: p1 is created and first seen on the local Jan 12 (new), Jan 13 returning', async () => {
    // UTC+9: p1 local Jan 12 08:00 and 10:00, then Jan 13, 15, 17, 19 21:00; p2 Jan 9 and 12 21:00; p3 Jan 12; p4 Jan 15
    const r = await lifecycle(tzPid, {}, { timezone: 'Asia/Tokyo' });
    expect(r.results[0].days).toEqual(['2020-01-12', '2020-01-13', '2020-01-14', '2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19']);
    expect(byStatus(r)).toEqual({
      new: [2, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 1, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
      dormant: [0, -2, -1, 0, -2, 0, -1, 0],
    });
    const source = { kind: 'LifecycleQuery', series: [PV], dateRange: RANGE };
    expect(await actorsOf(tzPid, { source, day: '2020-01-12', status: 'new' }, { timezone: 'Asia/Tokyo' })).toEqual(['p1', 'p3']);
    expect(await actorsOf(tzPid, { source, day: '2020-01-13', status: 'returning' }, { timezone: 'Asia/Tokyo' })).toEqual(['p1']);
  });

  it('Asia/Tokyo by hour: local hours and labels; p1 created at 08:00 local is new then, resurrecting at 10:00', async () => {
    const q = { interval: 'hour', dateRange: { date_from: '2020-01-12T07:00:00', date_to: '2020-01-12T11:00:00' } };
    const r = await lifecycle(tzPid, q, { timezone: 'Asia/Tokyo' });
    expect(r.results[0].days).toEqual(['2020-01-12 07:00:00', '2020-01-12 08:00:00', '2020-01-12 09:00:00', '2020-01-12 10:00:00', '2020-01-12 11:00:00']);
    expect(r.results[0].labels).toEqual(['12-Jan-2020 07:00', '12-Jan-2020 08:00', '12-Jan-2020 09:00', '12-Jan-2020 10:00', '12-Jan-2020 11:00']);
    expect(byStatus(r)).toEqual({
      new: [0, 1, 0, 0, 0],
      returning: [0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0],
      dormant: [0, 0, -1, 0, -1],
    });
  });

  it('Asia/Kolkata by hour: local hours start at :30 UTC', async () => {
    // UTC+5:30: p1's Jan 11 23:00Z is Jan 12 04:30 local (hour 04:00, created then), Jan 12 01:00Z is 06:30 (hour 06:00)
    const q = { interval: 'hour', dateRange: { date_from: '2020-01-12T04:00:00', date_to: '2020-01-12T07:00:00' } };
    const r = await lifecycle(tzPid, q, { timezone: 'Asia/Kolkata' });
    expect(r.results[0].days).toEqual(['2020-01-12 04:00:00', '2020-01-12 05:00:00', '2020-01-12 06:00:00', '2020-01-12 07:00:00']);
    expect(byStatus(r)).toEqual({ new: [1, 0, 0, 0], returning: [0, 0, 0, 0], resurrecting: [0, 0, 1, 0], dormant: [0, -1, 0, -1] });
  });

  it('US/Pacific by hour on the spring-forward day (Mar 8 2020): no 02:00 hour; 01:30 PST then 03:30 PDT is returning', async () => {
    // LifecycleQueryRunner's periods are `start_of_period - INTERVAL 1 HOUR` in ClickHouse (real time), so the hour
    // before 03:00 PDT is 01:00 PST. p1 (created Mar 1): 09:30Z = 01:30 PST, 10:30Z = 03:30 PDT, 12:30Z = 05:30 PDT.
    const s = await db.project(
      [{ distinct_ids: ['s'], created_at: '2020-03-01T00:00:00Z' }],
      ['2020-03-08T09:30:00Z', '2020-03-08T10:30:00Z', '2020-03-08T12:30:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 's', timestamp })),
    );
    const dateRange = { date_from: '2020-03-08T00:00:00', date_to: '2020-03-08T06:00:00' };
    const r = await lifecycle(s, { interval: 'hour', dateRange }, { timezone: 'US/Pacific' });
    expect(r.results[0].days).toEqual(['2020-03-08 00:00:00', '2020-03-08 01:00:00', '2020-03-08 03:00:00', '2020-03-08 04:00:00', '2020-03-08 05:00:00', '2020-03-08 06:00:00']);
    expect(r.results[0].labels).toEqual(['8-Mar-2020 00:00', '8-Mar-2020 01:00', '8-Mar-2020 03:00', '8-Mar-2020 04:00', '8-Mar-2020 05:00', '8-Mar-2020 06:00']);
    expect(byStatus(r)).toEqual({
      new: [0, 0, 0, 0, 0, 0],
      returning: [0, 0, 1, 0, 0, 0],
      resurrecting: [0, 1, 0, 0, 1, 0],
      dormant: [0, 0, 0, -1, 0, -1],
    });
    const source = { kind: 'LifecycleQuery', series: [PV], interval: 'hour', dateRange };
    expect(await actorsOf(s, { source, day: '2020-03-08 03:00:00', status: 'returning' }, { timezone: 'US/Pacific' })).toEqual(['s']);
  });

  it('Asia/Tokyo by week: a Saturday-evening UTC event is on the local Sunday, in the next week', async () => {
    // created and seen Sat Feb 8 20:00Z (= Sun Feb 9 05:00 JST), seen again Sat Feb 15 16:00Z (= Sun Feb 16 01:00 JST)
    const w = await db.project(
      [{ distinct_ids: ['w'], created_at: '2020-02-08T20:00:00Z' }],
      ['2020-02-08T20:00:00Z', '2020-02-15T16:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'w', timestamp })),
    );
    const q = { interval: 'week', dateRange: { date_from: '2020-02-02', date_to: '2020-02-29' } };
    const utc = await lifecycle(w, q);
    expect(utc.results[0].days).toEqual(['2020-02-02', '2020-02-09', '2020-02-16', '2020-02-23']);
    expect(byStatus(utc)).toEqual({ new: [1, 0, 0, 0], returning: [0, 1, 0, 0], resurrecting: [0, 0, 0, 0], dormant: [0, 0, -1, 0] });
    const tokyo = await lifecycle(w, q, { timezone: 'Asia/Tokyo' });
    expect(tokyo.results[0].days).toEqual(['2020-02-02', '2020-02-09', '2020-02-16', '2020-02-23']);
    expect(byStatus(tokyo)).toEqual({ new: [0, 1, 0, 0], returning: [0, 0, 1, 0], resurrecting: [0, 0, 0, 0], dormant: [0, 0, 0, -1] });
  });

  it('local midnight: an event at 00:00:00 local is on the new day, one at 23:59:59 on the old (US/Pacific)', async () => {
    // created Jan 12 00:00:00 PST (08:00Z); events Jan 12 00:00:00, Jan 13 23:59:59 and Jan 15 00:00:00 local
    const m = await db.project(
      [{ distinct_ids: ['m'], created_at: '2020-01-12T08:00:00Z' }],
      ['2020-01-12T08:00:00Z', '2020-01-14T07:59:59Z', '2020-01-15T08:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'm', timestamp })),
    );
    const q = { dateRange: { date_from: '2020-01-11', date_to: '2020-01-16' } };
    expect(byStatus(await lifecycle(m, q, { timezone: 'US/Pacific' }))).toEqual({
      new: [0, 1, 0, 0, 0, 0],
      returning: [0, 0, 1, 0, 0, 0],
      resurrecting: [0, 0, 0, 0, 1, 0],
      dormant: [0, 0, 0, -1, 0, -1],
    });
    // the same instants in UTC: Jan 12 08:00, Jan 14 07:59:59, Jan 15 08:00 — Jan 13 has no activity
    expect(byStatus(await lifecycle(m, q))).toEqual({
      new: [0, 1, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 1, 0],
      resurrecting: [0, 0, 0, 1, 0, 0],
      dormant: [0, 0, -1, 0, 0, -1],
    });
  });
});

describe('the LifecycleQuery node (posthog/schema.py: extra="forbid"; reference §7.1)', () => {
  it('lifecycleFilter showValuesOnSeries, showLegend and stacked are display-only', async () => {
    const r = await lifecycle(pid, { lifecycleFilter: { showValuesOnSeries: true, showLegend: true, stacked: false, toggledLifecycles: ['new', 'dormant'] } });
    expect(byStatus(r)).toEqual(LIFECYCLE_TREND);
    expect(r.results.map((x: any) => x.status)).toEqual(['new', 'returning', 'resurrecting', 'dormant']);
  });

  it('interval null is day', async () => {
    const r = await lifecycle(pid, { interval: null });
    expect(r.results[0].days).toHaveLength(8);
    expect(byStatus(r)).toEqual(LIFECYCLE_TREND);
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown lifecycleFilter key', { lifecycleFilter: { showValues: true } }],
    ['a status that is not one of the four', { lifecycleFilter: { toggledLifecycles: ['churned'] } }],
    ['breakdownFilter (not a LifecycleQuery field)', { breakdownFilter: { breakdown: '$browser' } }],
    ['compareFilter (not a LifecycleQuery field)', { compareFilter: { compare: true } }],
    ['an unknown interval', { interval: 'quarter' }],
  ])('%s is rejected', (_name, extra) => {
    const node = { kind: 'LifecycleQuery', series: [PV], dateRange: RANGE, ...extra };
    expect(lifecycleQuerySchema.safeParse(node).success).toBe(false);
  });
});

describe('filters and relative ranges on the lifecycle (reference §1.4, §1.5)', () => {
  const freeze = useInsightsClock('each');
  let months: number;
  beforeAll(async () => {
    // test_lifecycle_trend_months' fixture
    const { persons, events } = lifecycleData([
      ['p1', ['2020-01-11T12:00:00Z', '2020-02-12T12:00:00Z', '2020-03-13T12:00:00Z', '2020-05-15T12:00:00Z', '2020-07-17T12:00:00Z', '2020-09-19T12:00:00Z']],
      ['p2', ['2019-12-09T12:00:00Z', '2020-02-12T12:00:00Z']],
      ['p3', ['2020-02-12T12:00:00Z']],
      ['p4', ['2020-05-15T12:00:00Z']],
    ]);
    months = await db.project(persons, events);
  });
  const MONTHS = {
    new: [1, 0, 0, 1, 0, 0, 0, 0],
    returning: [1, 1, 0, 0, 0, 0, 0, 0],
    resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
    dormant: [0, -2, -1, 0, -2, 0, -1, 0],
  };

  it('test_lifecycle_trend_months with relative dates: -7m and -7mStart from Sep 15 are the months Feb .. Sep', async () => {
    freeze('2020-09-15T12:00:00Z');
    for (const date_from of ['-7m', '-7mStart']) {
      const r = await lifecycle(months, { interval: 'month', dateRange: { date_from } });
      expect(r.results[0].days).toEqual(['2020-02-01', '2020-03-01', '2020-04-01', '2020-05-01', '2020-06-01', '2020-07-01', '2020-08-01', '2020-09-01']);
      expect(byStatus(r)).toEqual(MONTHS);
    }
    // -1mStart .. -1mEnd: August alone (p1 dormant there after July)
    const aug = await lifecycle(months, { interval: 'month', dateRange: { date_from: '-1mStart', date_to: '-1mEnd' } });
    expect(aug.results[0].days).toEqual(['2020-08-01']);
    expect(byStatus(aug)).toEqual({ new: [0], returning: [0], resurrecting: [0], dormant: [-1] });
  });

  it('explicitDate: the window is still whole intervals (reference §7.3: [startOf(date_from) − 1, startOf(date_to) + 1))', async () => {
    // date_from Jan 12 10:00 and date_to Jan 19 11:00 verbatim: their days are the buckets, and the fetched events run
    // from the start of Jan 11 to the end of Jan 19 (p1's Jan 19 12:00 counts, as p3's Jan 12 12:00)
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-12T10:00:00', date_to: '2020-01-19T11:00:00', explicitDate: true } });
    expect(r.results[0].days).toEqual(['2020-01-12', '2020-01-13', '2020-01-14', '2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19']);
    expect(byStatus(r)).toEqual(LIFECYCLE_TREND);
  });

  it('an event_metadata filter on distinct_id keeps p1', async () => {
    const r = await lifecycle(pid, { properties: [{ type: 'event_metadata', key: 'distinct_id', value: 'p1', operator: 'exact' }] });
    expect(byStatus(r)).toEqual({
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
      dormant: [0, 0, -1, 0, -1, 0, -1, 0],
    });
  });

  it('no-op filters: an empty list value, an empty property group, filterTestAccounts without team filters', async () => {
    expect(byStatus(await lifecycle(pid, { properties: [{ type: 'person', key: 'name', value: [], operator: 'exact' }] }))).toEqual(LIFECYCLE_TREND);
    expect(byStatus(await lifecycle(pid, { properties: { type: 'AND', values: [] } }))).toEqual(LIFECYCLE_TREND);
    expect(byStatus(await lifecycle(pid, { filterTestAccounts: true }))).toEqual(LIFECYCLE_TREND);
  });

  it('a person filter with a list value is an OR of its values (p3, p4)', async () => {
    expect(byStatus(await lifecycle(pid, { properties: [{ type: 'person', key: 'name', value: ['p3', 'p4'], operator: 'exact' }] }))).toEqual({
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 0, 0, 0, 0, 0],
      dormant: [0, -1, 0, 0, -1, 0, 0, 0],
    });
  });
});
