/**
 * TrendsQuery scenarios ported from PostHog's suites, ninth batch (after trends-posthog-compat{,-2,...,-8}.test.ts):
 * breakdown limits and the hidden Other under formulas (one and several breakdowns), cumulative and compared periods,
 * formulas over total values and `formulas` lists, active users of persons and groups by breakdown across the range
 * start, count per group by day, the labels of all-events series under a breakdown, and active-user math, formulas and
 * compare on total values and cumulative lines. Each test names the PostHog
 * test it follows, or the reference section (posthog-queries.md) where the scenario is not one of PostHog's own.
 */
import { activeUsersFixture, createInsightTestDb, ev, eventCountPerActorFixture, type InsightTestDb, useInsightsClock } from '../insights/testing';
import { BREAKDOWN_NULL as NULL_V, BREAKDOWN_OTHER as OTHER } from '../insights/breakdown';
import { trendsRunner } from './trends-runner';
import type { GroupTypeUpsert, GroupUpsert, InternalStatements } from '../../engines/engine';

let db: InsightTestDb;
const freeze = useInsightsClock();

const P_MAIN = 1; // pageviews and pageleaves of u1..u4 on Jan 6..9 2020 (a few before), with organizations
const P_PER_ACTOR = 2; // test_trends.py _create_event_count_per_actor_events()
const P_ACTIVE = 3; // test_trends.py _create_active_users_events()
const P_THIRTY = 4; // test_trends_query_runner.py: 30 persons, one $pageview each, breakdown_value and breakdown_value_2 = 0..29

/*
 * P_MAIN, UTC. Persons u1 (plan pro), u2 (free), u3 (no plan), u4 (pro). Organizations ($group_0): org:a and org:c
 * (finance), org:b (tech). Every pageview in the range has a $session_id: s1 and s2 (u1, Jan 6), s3 (u2, Jan 6), s4, s5,
 * s6 (Jan 7; u2's s6 again on Jan 8), s7 (Jan 8), s8 (Jan 9).
 *   $pageview  Jan 6: u1 Chrome/Mac org:a (10:00 and 11:00), u2 Firefox/Windows org:b
 *              Jan 7: u1 Chrome/Windows (no group), u3 Safari (no $os, no group), u2 Chrome/Mac org:c
 *              Jan 8: u4 Chrome/Mac org:a, u2 Firefox/Windows org:b
 *              Jan 9: u1 Chrome/Mac org:c
 *              before: Jan 1 u2 Edge, Jan 3 u3 Chrome/Mac
 *   $pageleave Jan 6 u1 Chrome/Mac, Jan 7 u2 Firefox/Windows, Jan 8 u2 Firefox/Windows, Jan 9 u3 Opera/Linux
 */
beforeAll(async () => {
  db = await createInsightTestDb();
  const groupTypes: GroupTypeUpsert[] = [{ project_id: P_MAIN, group_type: 'organization', group_type_index: 0, name_singular: null, name_plural: null }];
  const org = (group_key: string, industry: string): GroupUpsert => ({
    project_id: P_MAIN,
    group_type_index: 0,
    group_key,
    created_at: Date.parse('2020-01-01T00:00:00Z'),
    properties: { industry },
    version: 1,
  });
  await (db.engine as unknown as InternalStatements).writeBatch({ events: [], groupTypes, groups: [org('org:a', 'finance'), org('org:b', 'tech'), org('org:c', 'finance')] });
  const pv = (d: string, ts: string, p: Record<string, unknown>) => ev('$pageview', d, ts, p);
  const pl = (d: string, ts: string, p: Record<string, unknown>) => ev('$pageleave', d, ts, p);
  await db.load(P_MAIN, {
    persons: [
      { distinct_ids: ['u1'], properties: { plan: 'pro' } },
      { distinct_ids: ['u2'], properties: { plan: 'free' } },
      { distinct_ids: ['u3'], properties: {} },
      { distinct_ids: ['u4'], properties: { plan: 'pro' } },
    ],
    events: [
      pv('u2', '2020-01-01T10:00:00Z', { $browser: 'Edge' }),
      pv('u3', '2020-01-03T10:00:00Z', { $browser: 'Chrome', $os: 'Mac' }),
      pv('u1', '2020-01-06T10:00:00Z', { $browser: 'Chrome', $os: 'Mac', $group_0: 'org:a', $session_id: 's1' }),
      pv('u1', '2020-01-06T11:00:00Z', { $browser: 'Chrome', $os: 'Mac', $group_0: 'org:a', $session_id: 's2' }),
      pv('u2', '2020-01-06T12:00:00Z', { $browser: 'Firefox', $os: 'Windows', $group_0: 'org:b', $session_id: 's3' }),
      pv('u1', '2020-01-07T10:00:00Z', { $browser: 'Chrome', $os: 'Windows', $session_id: 's4' }),
      pv('u3', '2020-01-07T11:00:00Z', { $browser: 'Safari', $session_id: 's5' }),
      pv('u2', '2020-01-07T12:00:00Z', { $browser: 'Chrome', $os: 'Mac', $group_0: 'org:c', $session_id: 's6' }),
      pv('u4', '2020-01-08T10:00:00Z', { $browser: 'Chrome', $os: 'Mac', $group_0: 'org:a', $session_id: 's7' }),
      pv('u2', '2020-01-08T11:00:00Z', { $browser: 'Firefox', $os: 'Windows', $group_0: 'org:b', $session_id: 's6' }),
      pv('u1', '2020-01-09T10:00:00Z', { $browser: 'Chrome', $os: 'Mac', $group_0: 'org:c', $session_id: 's8' }),
      pl('u1', '2020-01-06T13:00:00Z', { $browser: 'Chrome', $os: 'Mac' }),
      pl('u2', '2020-01-07T13:00:00Z', { $browser: 'Firefox', $os: 'Windows' }),
      pl('u2', '2020-01-08T13:00:00Z', { $browser: 'Firefox', $os: 'Windows' }),
      pl('u3', '2020-01-09T13:00:00Z', { $browser: 'Opera', $os: 'Linux' }),
    ],
  });
  await db.load(P_PER_ACTOR, eventCountPerActorFixture());
  await db.load(P_ACTIVE, activeUsersFixture());
  await db.load(P_THIRTY, {
    events: Array.from({ length: 30 }, (_, v) => ev('$pageview', `person_${v}`, '2020-01-11T12:00:00Z', { breakdown_value: String(v), breakdown_value_2: String(v) })),
  });
});

afterAll(async () => {
  await db.close();
});

const trends = (project: number, q: Record<string, unknown>, settings: Record<string, unknown> = {}) =>
  db.run(trendsRunner, { kind: 'TrendsQuery', ...q }, project, settings);
const RANGE = { dateRange: { date_from: '2020-01-06', date_to: '2020-01-09' } };
const PV = { kind: 'EventsNode', event: '$pageview' };
const PL = { kind: 'EventsNode', event: '$pageleave' };
const valueData = (r: any) => r.results.map((x: any) => [x.breakdown_value, x.data]);
const OTHER2 = [OTHER, OTHER];

describe('test_trends_query_runner.py: formulas over limited breakdowns', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const BOTH = { breakdowns: [{ property: '$browser' }, { property: '$os' }], breakdown_limit: 2 };

  it('test_trends_with_formula_and_multiple_breakdowns_hide_other_breakdowns: no Other array, hasMore still true', async () => {
    const r = await trends(P_MAIN, { ...RANGE, series: [PV, PL], trendsFilter: { formula: 'A+B' }, breakdownFilter: { ...BOTH, breakdown_hide_other_aggregation: true } });
    expect(valueData(r)).toEqual([
      [['Chrome', 'Mac'], [3, 1, 1, 1]],
      [['Firefox', 'Windows'], [1, 1, 2, 0]],
    ]);
    expect(r.results.map((x: any) => x.label)).toEqual(['Formula (A+B)', 'Formula (A+B)']);
    expect(r.hasMore).toBe(true);
  });

  it('test_trends_with_formula_and_multiple_breakdowns(_hide_other_breakdowns) over 30 values: 25 kept + Other (2 each), or the 25 alone', async () => {
    freeze('2020-01-21T00:00:00Z');
    const q = (hide: boolean) =>
      trends(P_THIRTY, {
        dateRange: { date_from: '2020-01-09', date_to: '2020-01-20' },
        series: [PV, PV],
        trendsFilter: { formula: 'A+B' },
        breakdownFilter: { breakdowns: [{ property: 'breakdown_value' }, { property: 'breakdown_value_2' }], ...(hide ? { breakdown_hide_other_aggregation: true } : {}) },
      });
    const shown = await q(false);
    expect(shown.results).toHaveLength(26);
    expect(shown.results[25]).toMatchObject({ breakdown_value: OTHER2, count: 10, label: 'Formula (A+B)' });
    expect(shown.results.slice(0, 25).every((x: any) => x.count === 2 && x.breakdown_value[0] === x.breakdown_value[1])).toBe(true);
    const hidden = await q(true);
    expect(hidden.results).toHaveLength(25);
    expect(hidden.results.flatMap((x: any) => x.breakdown_value)).not.toContain(OTHER);
    expect(hidden.hasMore).toBe(true);
  });

  it('multiple breakdowns with a limit under a formula: each series folds its own rest into Other, the formula adds the Others, last', async () => {
    const r = await trends(P_MAIN, { ...RANGE, series: [PV, PL], trendsFilter: { formula: 'A+B' }, breakdownFilter: BOTH });
    // A's rest: Chrome/Windows and Safari/null on Jan 7; B's rest: Opera/Linux on Jan 9 (Chrome/Mac ties with it, and
    // ranks first by value).
    expect(valueData(r)).toEqual([
      [['Chrome', 'Mac'], [3, 1, 1, 1]],
      [['Firefox', 'Windows'], [1, 1, 2, 0]],
      [OTHER2, [0, 2, 0, 1]],
    ]);
    expect(r.results.map((x: any) => x.count)).toEqual([6, 4, 3]);
  });

  it('a value in one series’ top and in the other’s Other: the formula reads 0 for it there (the limit is per series)', async () => {
    const r = await trends(P_MAIN, { ...RANGE, series: [PV, PL], trendsFilter: { formula: 'A+B' }, breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } });
    // A keeps Chrome [2, 2, 1, 1] (Other: Firefox and Safari); B keeps Firefox [0, 1, 1, 0] (Other: Chrome and Opera).
    expect(valueData(r)).toEqual([
      ['Chrome', [2, 2, 1, 1]],
      ['Firefox', [0, 1, 1, 0]],
      [OTHER, [2, 1, 1, 1]],
    ]);
    expect(r.hasMore).toBe(true);
  });
});

describe('breakdown limits with cumulative and compared periods (reference §2.3)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  it('ActionsLineGraphCumulative with breakdown_hide_other_aggregation: the kept value’s running sum alone, hasMore', async () => {
    const r = await trends(P_MAIN, {
      ...RANGE,
      series: [PV],
      breakdownFilter: { breakdown: '$browser', breakdown_limit: 1, breakdown_hide_other_aggregation: true },
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.data, x.count])).toEqual([['Chrome', [2, 4, 5, 6], 6]]);
    expect(r.hasMore).toBe(true);
  });

  it('compare with a hidden Other: each period keeps its own top value; previous items list the current days in action.days', async () => {
    const r = await trends(P_MAIN, {
      dateRange: { date_from: '2020-01-08', date_to: '2020-01-09' },
      series: [PV],
      compareFilter: { compare: true },
      breakdownFilter: { breakdown: '$os', breakdown_limit: 1, breakdown_hide_other_aggregation: true },
    });
    // current (Jan 8..9): Mac 2, Windows 1; previous (Jan 6..7): Mac 3, Windows 2, null 1
    expect(r.results.map((x: any) => [x.compare_label, x.breakdown_value, x.days, x.data])).toEqual([
      ['current', 'Mac', ['2020-01-08', '2020-01-09'], [1, 1]],
      ['previous', 'Mac', ['2020-01-06', '2020-01-07'], [2, 1]],
    ]);
    expect(r.results[1].action.days).toEqual(r.results[0].action.days);
    expect(r.hasMore).toBe(true);
  });

  it('smoothingIntervals with compare: each period averages its own buckets only', async () => {
    const r = await trends(P_MAIN, {
      dateRange: { date_from: '2020-01-07', date_to: '2020-01-09' },
      series: [PV],
      compareFilter: { compare: true },
      trendsFilter: { smoothingIntervals: 2 },
    });
    // current Jan 7..9 [3, 2, 1] → [3, 2, 1]; previous Jan 4..6 [0, 0, 3] → [0, 0, 1]
    expect(r.results.map((x: any) => [x.compare_label, x.data])).toEqual([
      ['current', [3, 2, 1]],
      ['previous', [0, 0, 1]],
    ]);
  });
});

describe('formulas over total values and formula lists (reference §2.3: division by zero is 0)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const NONE = { kind: 'EventsNode', event: 'no such event' };

  it('A / B on BoldNumber with B empty: 0, not null or Infinity', async () => {
    const r = await trends(P_MAIN, { ...RANGE, series: [PV, NONE], trendsFilter: { formula: 'A / B', display: 'BoldNumber' } });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({ label: 'Formula (A / B)', aggregated_value: 0, action: null });
  });

  it('B / A per breakdown value on ActionsTable: the ratio of the aggregated values, 0 where A has none', async () => {
    const r = await trends(P_MAIN, { ...RANGE, series: [PV, PL], breakdownFilter: { breakdown: '$browser' }, trendsFilter: { formula: 'B / A', display: 'ActionsTable' } });
    // pageviews: Chrome 6, Firefox 2, Safari 1; pageleaves: Firefox 2, Chrome 1, Opera 1
    const rows = r.results.map((x: any) => [x.breakdown_value, x.aggregated_value]);
    expect(rows.slice(0, 2)).toEqual([
      ['Firefox', 1],
      ['Chrome', 1 / 6],
    ]);
    // (Safari and Opera tie at 0; their order is not asserted)
    expect(new Map(rows.slice(2))).toEqual(new Map([['Safari', 0], ['Opera', 0]]));
  });

  it('FormulaAST (formula_ast.py) evaluates with Python\'s operators: % takes the sign of the divisor, so (B - A) % 3 of -2 is 1', async () => {
    const r = await trends(P_MAIN, { ...RANGE, series: [PV, PL], trendsFilter: { formula: '(B - A) % 3' } });
    // B - A = [-2, -2, -1, 0]
    expect(r.results[0].data).toEqual([1, 1, 2, 0]);
    const neg = await trends(P_MAIN, { ...RANGE, series: [PV, PL], trendsFilter: { formula: 'A % -2' } });
    // A = [3, 3, 2, 1]: 3 % -2 = -1, 2 % -2 = 0, 1 % -2 = -1
    expect(neg.results[0].data).toEqual([-1, -1, 0, -1]);
  });

  it('unique sessions per person (unique_session / dau): 3 sessions of 2 persons on Jan 6', async () => {
    const r = await trends(P_MAIN, { ...RANGE, series: [{ ...PV, math: 'unique_session' }, { ...PV, math: 'dau' }], trendsFilter: { formula: 'A / B' } });
    expect(r.results.map((x: any) => [x.label, x.data])).toEqual([['Formula (A / B)', [1.5, 1, 1, 1]]]);
  });

  it('several formulaNodes with compare: each formula answers its current, then its previous items', async () => {
    const r = await trends(P_MAIN, {
      dateRange: { date_from: '2020-01-08', date_to: '2020-01-09' },
      series: [PV, PL],
      compareFilter: { compare: true },
      trendsFilter: { formulaNodes: [{ formula: 'A + B', custom_name: 'sum' }, { formula: 'A - B' }] },
    });
    // current (Jan 8..9): A [2, 1], B [1, 1]; previous (Jan 6..7): A [3, 3], B [1, 1]
    expect(r.results.map((x: any) => [x.label, x.compare_label, x.data])).toEqual([
      ['sum', 'current', [3, 2]],
      ['sum', 'previous', [4, 4]],
      ['Formula (A - B)', 'current', [1, 0]],
      ['Formula (A - B)', 'previous', [2, 2]],
    ]);
  });

  it('trendsFilter.formulas: one item set per formula, in order, each labelled "Formula (<formula>)"', async () => {
    const r = await trends(P_MAIN, { ...RANGE, series: [PV, PL], trendsFilter: { formulas: ['A + B', 'A - B'] } });
    expect(r.results.map((x: any) => [x.label, x.data])).toEqual([
      ['Formula (A + B)', [4, 4, 3, 2]],
      ['Formula (A - B)', [2, 2, 1, 0]],
    ]);
  });
});

describe('active users by breakdown across the range start (reference §1.3: events from date_from − 7 days)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  it('weekly_active by person plan: u3’s Jan 3 pageview keeps them active through Jan 9; u2’s Jan 1 one is outside every window', async () => {
    const r = await trends(P_MAIN, {
      ...RANGE,
      series: [{ ...PV, math: 'weekly_active' }],
      breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
    });
    expect(valueData(r)).toEqual([
      ['pro', [1, 1, 2, 2]],
      ['free', [1, 1, 1, 1]],
      [NULL_V, [1, 1, 1, 1]],
    ]);
  });

  it('weekly_active organizations (math_group_type_index 0) by their industry: events without a group are left out', async () => {
    const r = await trends(P_MAIN, {
      ...RANGE,
      series: [{ ...PV, math: 'weekly_active', math_group_type_index: 0 }],
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
    });
    expect(valueData(r)).toEqual([
      ['finance', [1, 2, 2, 2]],
      ['tech', [1, 1, 1, 1]],
    ]);
  });

  it('dau by hour with a breakdown: distinct persons per hour and value', async () => {
    const r = await trends(P_MAIN, {
      dateRange: { date_from: '2020-01-06T00:00:00', date_to: '2020-01-06T23:59:59' },
      interval: 'hour',
      series: [{ ...PV, math: 'dau' }],
      breakdownFilter: { breakdown: '$browser' },
    });
    expect(r.results.map((x: any) => x.breakdown_value)).toEqual(['Chrome', 'Firefox']);
    expect(r.results[0].days).toHaveLength(24);
    expect(r.results[0].days[10]).toBe('2020-01-06 10:00:00');
    const hot = (data: number[]) => data.flatMap((v, i) => (v ? [[i, v]] : []));
    expect(hot(r.results[0].data)).toEqual([
      [10, 1],
      [11, 1],
    ]);
    expect(hot(r.results[1].data)).toEqual([[12, 1]]);
  });
});

describe('test_trends.py: test_trends_count_per_group_average_daily (_create_event_count_per_actor_events)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  it('avg events per organization by day: 3 in bouba on Jan 1, 1 in kiki on Jan 4, 2 + 1 on Jan 5 (the event without a group left out)', async () => {
    const r = await trends(P_PER_ACTOR, {
      dateRange: { date_from: '2020-01-01', date_to: '2020-01-07' },
      series: [{ kind: 'EventsNode', event: 'viewed video', math: 'avg_count_per_actor', math_group_type_index: 0 }],
    });
    expect(r.results).toHaveLength(1);
    expect(r.results[0].days).toEqual(['2020-01-01', '2020-01-02', '2020-01-03', '2020-01-04', '2020-01-05', '2020-01-06', '2020-01-07']);
    expect(r.results[0].data).toEqual([3, 0, 0, 1, 1.5, 0, 0]);
  });
});

describe('labels of all-events series under a breakdown (reference §1.2, §2.3)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  it('event null next to an event series: "All events - <value>" and "$pageleave - <value>"', async () => {
    const r = await trends(P_MAIN, {
      ...RANGE,
      series: [{ kind: 'EventsNode', event: null }, PL],
      breakdownFilter: { breakdown: '$os', breakdown_limit: 1 },
    });
    expect(r.results.map((x: any) => [x.label, x.count])).toEqual([
      ['All events - Mac', 6],
      [`All events - ${OTHER}`, 7],
      ['$pageleave - Windows', 2],
      [`$pageleave - ${OTHER}`, 2],
    ]);
    expect(r.results[0].action).toMatchObject({ id: null, name: 'All events', order: 0 });
  });
});

describe('test_trends.py: test_weekly_active_users_weekly_minus_utc / _plus_utc (_create_active_users_events)', () => {
  beforeEach(() => freeze('2020-01-20T00:00:00Z'));

  it.each(['America/Phoenix', 'Asia/Tokyo'])('weekly_active by week in %s is weekly uniques of local weeks: p0; p1 and p2; p1', async (timezone) => {
    const r = await trends(
      P_ACTIVE,
      { dateRange: { date_from: '2019-12-29', date_to: '2020-01-18' }, interval: 'week', series: [{ ...PV, math: 'weekly_active' }] },
      { timezone },
    );
    expect(r.results[0].days).toEqual(['2019-12-29', '2020-01-05', '2020-01-12']);
    expect(r.results[0].data).toEqual([1, 2, 1]);
  });
});

describe('active-user math, formulas and compare on total values and cumulative lines (reference §1.3, §1.7, §2.3)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const agg = (r: any) => r.results.map((x: any) => [x.breakdown_value, x.aggregated_value]);

  it('monthly_active as a total value (ActionsTable): the 30 days up to date_to, u2’s Jan 1 and u3’s Jan 3 pageviews included', async () => {
    const r = await trends(P_MAIN, { series: [{ ...PV, math: 'monthly_active' }], ...RANGE, trendsFilter: { display: 'ActionsTable' } });
    expect(r.results.map((x: any) => [x.label, x.aggregated_value, x.data, x.count])).toEqual([['$pageview', 4, [], 0]]);
  });

  it('weekly_active on ActionsPie by $browser: the 7 days up to date_to per value (u3’s Jan 3 Chrome in, u2’s Jan 1 Edge out)', async () => {
    const r = await trends(P_MAIN, { series: [{ ...PV, math: 'weekly_active' }], ...RANGE, breakdownFilter: { breakdown: '$browser' }, trendsFilter: { display: 'ActionsPie' } });
    expect(agg(r)).toEqual([
      ['Chrome', 4],
      ['Firefox', 1],
      ['Safari', 1],
    ]);
  });

  it('ActionsPie with breakdown_hide_other_aggregation: the kept value alone, hasMore', async () => {
    const r = await trends(P_MAIN, {
      series: [PV],
      ...RANGE,
      breakdownFilter: { breakdown: '$browser', breakdown_limit: 1, breakdown_hide_other_aggregation: true },
      trendsFilter: { display: 'ActionsPie' },
    });
    expect(agg(r)).toEqual([['Chrome', 6]]);
    expect(r.hasMore).toBe(true);
  });

  it('avg_count_per_actor on ActionsPie by $os: events per person of each value over the range, the null value last', async () => {
    const r = await trends(P_MAIN, { series: [{ ...PV, math: 'avg_count_per_actor' }], ...RANGE, breakdownFilter: { breakdown: '$os' }, trendsFilter: { display: 'ActionsPie' } });
    expect(agg(r)).toEqual([
      ['Mac', 5 / 3],
      ['Windows', 1.5],
      [NULL_V, 1],
    ]);
  });

  it('a hogql breakdown on ActionsTable with breakdown_limit 2: the top two, the rest in Other, hasMore', async () => {
    const r = await trends(P_MAIN, {
      series: [PV],
      ...RANGE,
      breakdownFilter: { breakdown: "concat(properties.$browser, '-', properties.$os)", breakdown_type: 'hogql', breakdown_limit: 2 },
      trendsFilter: { display: 'ActionsTable' },
    });
    expect(agg(r)).toEqual([
      ['Chrome-Mac', 5],
      ['Firefox-Windows', 2],
      [OTHER, 2],
    ]);
    expect(r.hasMore).toBe(true);
  });

  it('a formula on ActionsLineGraphCumulative with compare: A + B of the running sums per period, count the sum of the formula’s data (apply_formula_to_results_group)', async () => {
    const r = await trends(P_MAIN, { series: [PV, PL], ...RANGE, compareFilter: { compare: true }, trendsFilter: { display: 'ActionsLineGraphCumulative', formula: 'A+B' } });
    expect(r.results.map((x: any) => [x.label, x.compare_label, x.days[0], x.data, x.count])).toEqual([
      ['Formula (A+B)', 'current', '2020-01-06', [4, 8, 11, 13], 36],
      ['Formula (A+B)', 'previous', '2020-01-02', [0, 1, 1, 1], 3],
    ]);
  });

  it('BoldNumber dau with compare over -3d: the exact 72 hours before now, and the 72 before those', async () => {
    const r = await trends(P_MAIN, { series: [{ ...PV, math: 'dau' }], dateRange: { date_from: '-3d' }, compareFilter: { compare: true }, trendsFilter: { display: 'BoldNumber' } });
    expect(r.results.map((x: any) => [x.compare_label, x.aggregated_value])).toEqual([
      ['current', 3],
      ['previous', 3],
    ]);
  });

  it('BoldNumber compare_to -1w over -3d: the exact 72 hours a week earlier (Dec 31 12:00 .. Jan 3 12:00); with a date_to the periods are whole days', async () => {
    const exact = await trends(P_MAIN, { series: [PV], dateRange: { date_from: '-3d' }, compareFilter: { compare: true, compare_to: '-1w' }, trendsFilter: { display: 'BoldNumber' } });
    expect(exact.results.map((x: any) => [x.compare_label, x.aggregated_value])).toEqual([
      ['current', 4],
      ['previous', 2],
    ]);
    expect(exact.resolved_date_range).toEqual({ date_from: '2020-01-07T12:00:00Z', date_to: '2020-01-10T12:00:00Z' });
    const days = await trends(P_MAIN, { series: [PV], dateRange: { date_from: '-3d', date_to: '-1d' }, compareFilter: { compare: true }, trendsFilter: { display: 'BoldNumber' } });
    expect(days.results.map((x: any) => [x.compare_label, x.aggregated_value])).toEqual([
      ['current', 6],
      ['previous', 3],
    ]);
  });

  it('unique_session with compare: distinct sessions per day of each period, labelled by position', async () => {
    const r = await trends(P_MAIN, { series: [{ ...PV, math: 'unique_session' }], dateRange: { date_from: '2020-01-08', date_to: '2020-01-09' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.labels, x.data])).toEqual([
      ['current', ['2020-01-08', '2020-01-09'], ['day 0', 'day 1'], [2, 1]],
      ['previous', ['2020-01-06', '2020-01-07'], ['day 0', 'day 1'], [3, 3]],
    ]);
  });

  it('compare: every item’s filter echoes the query’s own range (_query_to_filter reads the runner’s query_date_range), previous and formula items too', async () => {
    const current = { date_from: '2020-01-06T00:00:00Z', date_to: '2020-01-09T23:59:59.999999Z' };
    const r = await trends(P_MAIN, { series: [PV], ...RANGE, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.days[0], x.filter.date_from, x.filter.date_to])).toEqual([
      ['current', '2020-01-06', current.date_from, current.date_to],
      ['previous', '2020-01-02', current.date_from, current.date_to],
    ]);
    const f = await trends(P_MAIN, { series: [PV, PL], ...RANGE, compareFilter: { compare: true }, trendsFilter: { formula: 'A+B' } });
    expect(f.results.map((x: any) => [x.compare_label, x.filter.date_from, x.filter.date_to])).toEqual([
      ['current', current.date_from, current.date_to],
      ['previous', current.date_from, current.date_to],
    ]);
  });

  it('compare_to -1d by hour over an explicit range: the same hours of the day before', async () => {
    const r = await trends(P_MAIN, {
      series: [PV],
      dateRange: { date_from: '2020-01-07T10:00:00', date_to: '2020-01-07T12:00:00', explicitDate: true },
      interval: 'hour',
      compareFilter: { compare: true, compare_to: '-1d' },
    });
    expect(r.results.map((x: any) => [x.compare_label, x.days, x.labels, x.data])).toEqual([
      ['current', ['2020-01-07 10:00:00', '2020-01-07 11:00:00', '2020-01-07 12:00:00'], ['hour 0', 'hour 1', 'hour 2'], [1, 1, 1]],
      ['previous', ['2020-01-06 10:00:00', '2020-01-06 11:00:00', '2020-01-06 12:00:00'], ['hour 0', 'hour 1', 'hour 2'], [1, 1, 1]],
    ]);
  });
});

describe('test_aggregation_operations.py test_all_cases_return: every math answers, by day and as a total value', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  // [math, math_property, data Jan 6..9, aggregated Jan 6..9 (ActionsTable)]. Per person over the range: u1 4 pageviews,
  // u2 3, u3 1, u4 1; by day Jan 6: u1 2, u2 1; every other day one each. $browser holds no numbers: property math is 0.
  it.each<[string, string | null, number[], number]>([
    ['total', null, [3, 3, 2, 1], 9],
    ['dau', null, [2, 3, 2, 1], 4],
    ['weekly_active', null, [3, 3, 4, 4], 4],
    ['monthly_active', null, [3, 3, 4, 4], 4],
    ['unique_session', null, [3, 3, 2, 1], 8],
    ['first_time_for_user', null, [1, 0, 1, 0], 2],
    ['first_matching_event_for_user', null, [1, 0, 1, 0], 2],
    ['avg', '$browser', [0, 0, 0, 0], 0],
    ['sum', '$browser', [0, 0, 0, 0], 0],
    ['p90', '$browser', [0, 0, 0, 0], 0],
    ['avg_count_per_actor', null, [1.5, 1, 1, 1], 2.25],
    ['min_count_per_actor', null, [1, 1, 1, 1], 1],
    ['max_count_per_actor', null, [2, 1, 1, 1], 4],
    ['median_count_per_actor', null, [1.5, 1, 1, 1], 2],
    ['p75_count_per_actor', null, [1.75, 1, 1, 1], 3.25],
    ['p90_count_per_actor', null, [1.9, 1, 1, 1], 3.7],
    ['p95_count_per_actor', null, [1.95, 1, 1, 1], 3.85],
    ['p99_count_per_actor', null, [1.99, 1, 1, 1], 3.97],
    ['unique_group', null, [3, 3, 2, 1], 9], // no math_group_type_index: select_aggregation falls through to count()
  ])('%s', async (math, math_property, data, aggregated) => {
    const series = [{ ...PV, math, ...(math_property ? { math_property } : {}) }];
    const byDay = await trends(P_MAIN, { series, ...RANGE });
    expect(byDay.results).toHaveLength(1);
    byDay.results[0].data.forEach((v: number, i: number) => expect(v).toBeCloseTo(data[i], 9));
    const table = await trends(P_MAIN, { series, ...RANGE, trendsFilter: { display: 'ActionsTable' } });
    expect(table.results[0].aggregated_value).toBeCloseTo(aggregated, 9);
  });
});

describe('a project far east of UTC (Pacific/Auckland, +13:00 in January; reference §1.5: buckets are local)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const NZ = { timezone: 'Pacific/Auckland' };
  const DAYS = ['2020-01-06', '2020-01-07', '2020-01-08', '2020-01-09'];

  // Local times: u1 Jan 6 23:00, Jan 7 00:00 and 23:00, Jan 9 23:00; u2 Jan 7 01:00, Jan 8 01:00, Jan 9 00:00; u3 Jan 3 23:00,
  // Jan 8 00:00; u4 Jan 8 23:00; u2 Jan 1 23:00.
  it('volume, dau, weekly_active and a breakdown by local day; the 11:00 UTC event is the next local day', async () => {
    const pv = await trends(P_MAIN, { series: [PV], ...RANGE }, NZ);
    expect([pv.results[0].days, pv.results[0].data]).toEqual([DAYS, [1, 3, 3, 2]]);
    const dau = await trends(P_MAIN, { series: [{ ...PV, math: 'dau' }], ...RANGE }, NZ);
    expect(dau.results[0].data).toEqual([1, 2, 3, 2]);
    const wau = await trends(P_MAIN, { series: [{ ...PV, math: 'weekly_active' }], ...RANGE }, NZ);
    expect(wau.results[0].data).toEqual([3, 3, 4, 4]);
    const bd = await trends(P_MAIN, { series: [PV], ...RANGE, breakdownFilter: { breakdown: '$browser' } }, NZ);
    expect(valueData(bd)).toEqual([
      ['Chrome', [1, 2, 2, 1]],
      ['Firefox', [0, 1, 0, 1]],
      ['Safari', [0, 0, 1, 0]],
    ]);
  });

  it('compare, week and hour buckets and a total value, all local', async () => {
    const cmp = await trends(P_MAIN, { series: [PV], dateRange: { date_from: '2020-01-08', date_to: '2020-01-09' }, compareFilter: { compare: true } }, NZ);
    expect(cmp.results.map((x: any) => [x.compare_label, x.days, x.data])).toEqual([
      ['current', ['2020-01-08', '2020-01-09'], [3, 2]],
      ['previous', ['2020-01-06', '2020-01-07'], [1, 3]],
    ]);
    const week = await trends(P_MAIN, { series: [PV], ...RANGE, interval: 'week' }, NZ);
    expect([week.results[0].days, week.results[0].data]).toEqual([['2020-01-05'], [9]]);
    const hour = await trends(P_MAIN, { series: [PV], dateRange: { date_from: '2020-01-07T00:00:00', date_to: '2020-01-07T02:00:00' }, interval: 'hour' }, NZ);
    expect([hour.results[0].days, hour.results[0].data]).toEqual([['2020-01-07 00:00:00', '2020-01-07 01:00:00', '2020-01-07 02:00:00'], [1, 1, 0]]);
    const table = await trends(P_MAIN, { series: [{ ...PV, math: 'dau' }], ...RANGE, trendsFilter: { display: 'ActionsTable' } }, NZ);
    expect(table.results[0].aggregated_value).toBe(4);
  });
});
