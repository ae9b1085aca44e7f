/**
 * Eighth pass over PostHog's test_retention_query_runner.py: combinations the earlier compat files
 * (retention-lifecycle-stickiness-posthog-compat, rsl-posthog-compat-2/-3, retention-posthog-compat-4 … -7,
 * retention/retention.test.ts) pin only one at a time — actions as both entities aggregated by groups, first-time and
 * first-ever cohorts of groups, a first-time person-property breakdown past breakdown_limit and the actors of its Other
 * block, sum/avg aggregation with a breakdown and of a person property (aggregationPropertyType person), personless
 * actors under a breakdown, cumulative with retentionReference previous, ranges starting or ending inside a Month or
 * Hour period, 24-hour windows past breakdown_limit; and one lifecycle combination (test_lifecycle_trend_action
 * aggregated by groups). Each title names the PostHog test it extends; none of PostHog's tests has these combinations,
 * so the expected counts follow the reference (§4.1–§4.3, §7.3) and the comments derive them.
 */
import { actionRegistry, actionStep, createInsightTestDb, type InsightTestDb, type TestEvent } from '../insights/testing';
import { PERSON1_DAY_ROWS, PERSON2_DAY_ROWS, retentionDate as _date, retentionEvent as ev, retentionEvents as evs, retentionCounts as counts, pad } from './testing';
import { retentionRunner } from './retention-runner';
import { lifecycleRunner } from './lifecycle-runner';
import { actorsRunner } from './actors-runner';

let db: InsightTestDb;
const { source: actionSource, action } = actionRegistry(1800);
beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
});
afterAll(async () => {
  await db.close();
});

const OTHER = '$$_posthog_breakdown_other_$$';
const people = (...ids: string[]) => ids.map((id) => ({ distinct_ids: [id] }));
const retention = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(retentionRunner, { kind: 'RetentionQuery', retentionFilter: {}, ...q }, pid, proj as any);
/** [breakdown_value, counts] per cohort row. */
const blocks = (r: any) => (r.results as any[]).map((x) => [x.breakdown_value, x.values.map((v: any) => v.count)]);
async function actorsOf(pid: number, source: Record<string, unknown>, point: Record<string, unknown>): Promise<[string, number[]][]> {
  const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'appearances'], source: { kind: 'InsightActorsQuery', source, ...point } }, pid);
  return (r.results as any[]).map((row): [string, number[]] => [[...row[0].distinct_ids].sort()[0], row[1]]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe('RetentionQuery, eighth pass (test_retention_query_runner.py)', () => {
  it('test_retention_action_start_point aggregated by groups (test_groups_aggregating): an action of two steps as both entities; events without the group are left out', async () => {
    // Action = sign up OR purchase. org:1: a's sign ups on days 0 and 2, c's purchase on day 1 (a's pageview on day 1 is
    // no step); org:2: b's sign up day 0, purchase day 2; c's group-less sign up on day 1 is no group's.
    const both = action('signed up or bought', [actionStep('sign up'), actionStep('purchase')]);
    const org = (key: string) => ({ $group_0: key });
    const pid = await db.project(people('a', 'b', 'c'), [
      ev('a', _date(0), org('org:1'), 'sign up'),
      ev('a', _date(1), org('org:1')),
      ev('a', _date(2), org('org:1'), 'sign up'),
      ev('b', _date(0), org('org:2'), 'sign up'),
      ev('b', _date(2), org('org:2'), 'purchase'),
      ev('c', _date(1), {}, 'sign up'),
      ev('c', _date(1, 0, 5), org('org:1'), 'purchase'),
    ]);
    const entity = { id: both, type: 'actions' };
    const q = { dateRange: { date_to: _date(3) }, aggregation_group_type_index: 0, retentionFilter: { totalIntervals: 4, targetEntity: entity, returningEntity: entity } };
    expect(counts(await retention(pid, q))).toEqual([
      [2, 1, 2, 0],
      [1, 1, 0, 0],
      [2, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
    // by persons instead: a (days 0, 2), b (days 0, 2), c (day 1, both events)
    expect(counts(await retention(pid, { ...q, aggregation_group_type_index: undefined }))).toEqual([
      [2, 0, 2, 0],
      [1, 0, 0, 0],
      [2, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
  });

  describe('test_groups_aggregating with first-time cohorts of a filtered target (reference §4.3)', () => {
    // Target: sign up with plan pro; returning: $pageview. org:1's first sign up (day 0) is free, its first pro one on
    // day 1, back on day 2; org:2's first sign up (pro) on day 1, back on day 2; org:3's on day 0 (pro), back on day 1
    // (its day-2 pageview has no group).
    const org = (key: string, plan?: string) => ({ $group_0: key, ...(plan ? { plan } : {}) });
    let pid: number;
    beforeAll(async () => {
      pid = await db.project(people('a', 'b', 'c'), [
        ev('a', _date(0), org('org:1', 'free'), 'sign up'),
        ev('a', _date(1), org('org:1', 'pro'), 'sign up'),
        ev('a', _date(2), org('org:1')),
        ev('b', _date(1), org('org:2', 'pro'), 'sign up'),
        ev('b', _date(2), org('org:2')),
        ev('c', _date(0), org('org:3', 'pro'), 'sign up'),
        ev('c', _date(1), org('org:3')),
        ev('c', _date(2)),
      ]);
    });
    const q = (retentionType: string) => ({
      dateRange: { date_to: _date(2) },
      aggregation_group_type_index: 0,
      retentionFilter: {
        totalIntervals: 3,
        retentionType,
        targetEntity: { id: 'sign up', type: 'events', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] },
        returningEntity: { id: '$pageview', type: 'events' },
      },
    });

    it('retention_first_time: the first matching event anchors the group (org:1 on day 1)', async () => {
      expect(counts(await retention(pid, q('retention_first_time')))).toEqual([
        [1, 1, 0],
        [2, 2, 0],
        [0, 0, 0],
      ]);
    });

    it('retention_first_ever_occurrence: org:1\'s first sign up does not match, so it is in no cohort', async () => {
      expect(counts(await retention(pid, q('retention_first_ever_occurrence')))).toEqual([
        [1, 1, 0],
        [1, 1, 0],
        [0, 0, 0],
      ]);
    });
  });

  describe('test_first_time_retention with a person property breakdown past breakdown_limit (reference §4.3)', () => {
    // First-time cohorts: p1 (pro) day 0, back day 1; p2 (free) day 0, back day 2; p3 (free) day 1, back day 2;
    // p5 (no plan: "") day 1, back day 3; p4's first pageview is before the range: in no cohort.
    // Blocks by cohort size: free (2), then "" and pro (1 each), merged into Other with breakdown_limit 1.
    let pid: number;
    beforeAll(async () => {
      pid = await db.project(
        [
          { distinct_ids: ['p1'], properties: { plan: 'pro' } },
          { distinct_ids: ['p2'], properties: { plan: 'free' } },
          { distinct_ids: ['p3'], properties: { plan: 'free' } },
          { distinct_ids: ['p4'], properties: { plan: 'team' } },
          { distinct_ids: ['p5'] },
        ],
        [
          ev('p1', _date(0)),
          ev('p1', _date(1)),
          ev('p2', _date(0)),
          ev('p2', _date(2)),
          ev('p3', _date(1)),
          ev('p3', _date(2)),
          ev('p4', _date(-2)),
          ev('p4', _date(1)),
          ev('p5', _date(1)),
          ev('p5', _date(3)),
        ],
      );
    });
    const source = {
      kind: 'RetentionQuery',
      dateRange: { date_to: _date(3) },
      retentionFilter: { totalIntervals: 4, retentionType: 'retention_first_time' },
      breakdownFilter: { breakdown: 'plan', breakdown_type: 'person', breakdown_limit: 1 },
    };

    it('free, then Other holding "" and pro', async () => {
      expect(blocks(await retention(pid, source))).toEqual([
        ['free', [1, 0, 1, 0]],
        ['free', [1, 1, 0, 0]],
        ['free', [0, 0, 0, 0]],
        ['free', [0, 0, 0, 0]],
        [OTHER, [1, 1, 0, 0]],
        [OTHER, [1, 0, 1, 0]],
        [OTHER, [0, 0, 0, 0]],
        [OTHER, [0, 0, 0, 0]],
      ]);
    });

    it('without the limit: free (the largest) first, then a block each for "" (no plan) and pro', async () => {
      // ("" and pro tie on cohort size; the reference does not say how ties are ordered, so only their blocks are pinned)
      const r = await retention(pid, { ...source, breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } });
      const rows = blocks(r);
      expect(rows.slice(0, 4)).toEqual([
        ['free', [1, 0, 1, 0]],
        ['free', [1, 1, 0, 0]],
        ['free', [0, 0, 0, 0]],
        ['free', [0, 0, 0, 0]],
      ]);
      const rest = Object.fromEntries(['', 'pro'].map((v) => [v, rows.filter((x) => x[0] === v).map((x) => x[1])]));
      expect(rest).toEqual({
        '': [
          [0, 0, 0, 0],
          [1, 0, 1, 0],
          [0, 0, 0, 0],
          [0, 0, 0, 0],
        ],
        pro: [
          [1, 1, 0, 0],
          [0, 0, 0, 0],
          [0, 0, 0, 0],
          [0, 0, 0, 0],
        ],
      });
      expect(rows).toHaveLength(12);
    });

    it('the actors of the Other block: those of every merged value, with their appearances', async () => {
      expect(await actorsOf(pid, source, { interval: 0, breakdown: OTHER })).toEqual([['p1', [0, 1]]]);
      expect(await actorsOf(pid, source, { interval: 1, breakdown: OTHER })).toEqual([['p5', [0, 2]]]);
      expect(await actorsOf(pid, source, { interval: 1, breakdown: 'free' })).toEqual([['p3', [0, 1]]]);
    });
  });

  describe('aggregationType sum and avg with an event property breakdown (reference §4.1–§4.3)', () => {
    // x (Chrome): amounts 5, 3, 2 on days 0, 1, 2; z (Chrome): 4 on day 1; y (Safari): 10 on day 0, 1 on day 2.
    // Chrome day 0: x, start 5, returns 3 (day 1) and 2 (day 2); day 1: x and z, start 3 + 4, x's return 2;
    // day 2: x, start 2. Safari day 0: y, start 10, return 1 on day 2; day 2: y, start 1.
    let pid: number;
    beforeAll(async () => {
      const pv = (id: string, day: number, $browser: string, amount: number) => ev(id, _date(day), { $browser, amount });
      pid = await db.project(people('x', 'y', 'z'), [pv('x', 0, 'Chrome', 5), pv('x', 1, 'Chrome', 3), pv('x', 2, 'Chrome', 2), pv('z', 1, 'Chrome', 4), pv('y', 0, 'Safari', 10), pv('y', 2, 'Safari', 1)]);
    });
    const q = (aggregationType: string) => ({
      dateRange: { date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, aggregationType, aggregationProperty: 'amount' },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    });
    const cells = (r: any) => (r.results as any[]).map((x) => [x.breakdown_value, x.values.map((v: any) => [v.count, v.aggregation_value])]);

    it('sum', async () => {
      expect(cells(await retention(pid, q('sum')))).toEqual([
        ['Chrome', [[1, 5], [1, 3], [1, 2]]],
        ['Chrome', [[2, 7], [1, 2], [0, 0]]],
        ['Chrome', [[1, 2], [0, 0], [0, 0]]],
        ['Safari', [[1, 10], [0, 0], [1, 1]]],
        ['Safari', [[0, 0], [0, 0], [0, 0]]],
        ['Safari', [[1, 1], [0, 0], [0, 0]]],
      ]);
    });

    it('avg: the sum over the actors counted in the cell', async () => {
      expect(cells(await retention(pid, q('avg'))).slice(0, 2)).toEqual([
        ['Chrome', [[1, 5], [1, 3], [1, 2]]],
        ['Chrome', [[2, 3.5], [1, 2], [0, 0]]],
      ]);
    });
  });

  it('aggregationType sum and avg of a person property (aggregationPropertyType person): each counted actor adds its person\'s value', async () => {
    // a (ltv 10) on days 0 and 1; b (ltv 5) on days 0 and 2; c (ltv "n/a", no number: adds 0) on day 1. One event per
    // actor and day, so the sums over events and over actors agree.
    const pid = await db.project(
      [
        { distinct_ids: ['a'], properties: { ltv: 10 } },
        { distinct_ids: ['b'], properties: { ltv: 5 } },
        { distinct_ids: ['c'], properties: { ltv: 'n/a' } },
      ],
      [ev('a', _date(0)), ev('a', _date(1)), ev('b', _date(0)), ev('b', _date(2)), ev('c', _date(1))],
    );
    const cells = async (aggregationType: string) =>
      ((await retention(pid, { dateRange: { date_to: _date(2) }, retentionFilter: { totalIntervals: 3, aggregationType, aggregationProperty: 'ltv', aggregationPropertyType: 'person' } })).results as any[]).map((x) =>
        x.values.map((v: any) => [v.count, v.aggregation_value]),
      );
    expect(await cells('sum')).toEqual([
      [[2, 15], [1, 10], [1, 5]],
      [[2, 10], [0, 0], [0, 0]],
      [[1, 5], [0, 0], [0, 0]],
    ]);
    expect((await cells('avg'))[0]).toEqual([[2, 7.5], [1, 10], [1, 5]]);
  });

  it('personless events under a breakdown: each distinct id an actor of its own, in the block of its value (reference §4.3)', async () => {
    // anon1/anon2 send $process_person_profile false and have no person; p1 is a person. Chrome: anon1 (days 0, 1) and
    // p1 (days 0, 2); Safari: anon2 (day 1).
    const anon = (id: string, day: number, $browser: string) => ev(id, _date(day), { $browser, $process_person_profile: false });
    const pid = await db.project(people('p1'), [
      anon('anon1', 0, 'Chrome'),
      anon('anon1', 1, 'Chrome'),
      ev('p1', _date(0), { $browser: 'Chrome' }),
      ev('p1', _date(2), { $browser: 'Chrome' }),
      anon('anon2', 1, 'Safari'),
    ]);
    const r = await retention(pid, { dateRange: { date_to: _date(2) }, retentionFilter: { totalIntervals: 3 }, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } });
    expect(blocks(r)).toEqual([
      ['Chrome', [2, 1, 1]],
      ['Chrome', [1, 0, 0]],
      ['Chrome', [1, 0, 0]],
      ['Safari', [0, 0, 0]],
      ['Safari', [1, 0, 0]],
      ['Safari', [0, 0, 0]],
    ]);
  });
  it('test_day_interval with cumulative and retentionReference previous: each actor counted up to its last return (the reference is display only)', async () => {
    // person1 (with alias1) on days 0, 1, 2, 5, 6; person2 on days 1, 2, 3, 6 (test_day_interval's layout).
    const pid = await db.project([{ distinct_ids: ['person1', 'alias1'] }, { distinct_ids: ['person2'] }], evs([...PERSON1_DAY_ROWS, ...PERSON2_DAY_ROWS]));
    const r = await retention(pid, { dateRange: { date_to: _date(10, 0, 6) }, retentionFilter: { totalIntervals: 11, cumulative: true, retentionReference: 'previous' } });
    expect(counts(r)).toEqual(
      pad([[1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0], [2, 2, 2, 2, 2, 2, 0, 0, 0, 0], [2, 2, 2, 2, 2, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]),
    );
  });

  describe('ranges that end or start inside a period (test_interval_rounding; reference §4.3)', () => {
    it('Month: a date_to in the middle or at the very end of August gives the months of a date_to on August 1', async () => {
      // p1: Jun 10, Jul 10, Aug 10; p2: Jul 20, Aug 5 (Aug 31 23:00 is still August)
      const pid = await db.project(people('p1', 'p2'), [
        ev('p1', '2020-06-10T12:00:00'),
        ev('p1', '2020-07-10T12:00:00'),
        ev('p1', '2020-08-10T12:00:00'),
        ev('p2', '2020-07-20T12:00:00'),
        ev('p2', '2020-08-05T12:00:00'),
        ev('p2', '2020-08-31T23:00:00'),
      ]);
      for (const date_to of ['2020-08-01', '2020-08-15', '2020-08-31T23:30:00']) {
        const r = await retention(pid, { dateRange: { date_to }, retentionFilter: { period: 'Month', totalIntervals: 3 } });
        expect((r.results as any[]).map((x) => x.date)).toEqual(['2020-06-01T00:00:00Z', '2020-07-01T00:00:00Z', '2020-08-01T00:00:00Z']);
        expect(counts(r)).toEqual([
          [1, 1, 1],
          [2, 2, 0],
          [2, 0, 0],
        ]);
      }
    });

    it('Hour: a date_from at 10:30 starts with the whole 10:00 hour; a date_to at 12:15 ends with the whole 12:00 hour', async () => {
      // a: 10:10 and 11:50; b: 12:05 and 12:20 (the same hour: no return); c: 13:05, after the range
      const pid = await db.project(people('a', 'b', 'c'), [
        ev('a', '2020-06-10T10:10:00'),
        ev('a', '2020-06-10T11:50:00'),
        ev('b', '2020-06-10T12:05:00'),
        ev('b', '2020-06-10T12:20:00'),
        ev('c', '2020-06-10T13:05:00'),
      ]);
      const r = await retention(pid, { dateRange: { date_from: '2020-06-10T10:30:00', date_to: '2020-06-10T12:15:00' }, retentionFilter: { period: 'Hour', totalIntervals: 3 } });
      expect((r.results as any[]).map((x) => [x.label, x.date])).toEqual([
        ['Hour 0', '2020-06-10T10:00:00Z'],
        ['Hour 1', '2020-06-10T11:00:00Z'],
        ['Hour 2', '2020-06-10T12:00:00Z'],
      ]);
      expect(counts(r)).toEqual([
        [1, 1, 0],
        [1, 0, 0],
        [1, 0, 0],
      ]);
    });
  });
  it('24_hour_windows with breakdown_limit: the Other block and its actors (reference §4.3: the value of the first event, the Other block past the limit)', async () => {
    // a (Chrome): t0 day 0 10:00, back day 1 09:00 (23 h: window 0) and 11:00 (25 h: window 1); b (Safari): t0 day 0
    // 20:00, back day 2 21:00 (window 2); c (Safari): t0 day 1 05:00 (cohort 1), back day 2 04:00 (window 0);
    // d (Edge): t0 day 0 12:00. Safari (2) is kept; Chrome and Edge (1 each) are Other.
    const pv = (id: string, ts: string, $browser: string) => ev(id, ts, { $browser });
    const pid = await db.project(people('a', 'b', 'c', 'd'), [
      pv('a', '2020-06-10T10:00:00', 'Chrome'),
      pv('a', '2020-06-11T09:00:00', 'Chrome'),
      pv('a', '2020-06-11T11:00:00', 'Chrome'),
      pv('b', '2020-06-10T20:00:00', 'Safari'),
      pv('b', '2020-06-12T21:00:00', 'Safari'),
      pv('c', '2020-06-11T05:00:00', 'Safari'),
      pv('c', '2020-06-12T04:00:00', 'Safari'),
      pv('d', '2020-06-10T12:00:00', 'Edge'),
    ]);
    const source = {
      kind: 'RetentionQuery',
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, timeWindowMode: '24_hour_windows' },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 1 },
    };
    expect(blocks(await retention(pid, source))).toEqual([
      ['Safari', [1, 0, 1]],
      ['Safari', [1, 0, 0]],
      ['Safari', [0, 0, 0]],
      [OTHER, [2, 1, 0]],
      [OTHER, [0, 0, 0]],
      [OTHER, [0, 0, 0]],
    ]);
    expect(await actorsOf(pid, source, { interval: 0, breakdown: OTHER })).toEqual([
      ['a', [0, 1]],
      ['d', [0]],
    ]);
  });
});

describe('LifecycleQuery (test_lifecycle_query_runner.py)', () => {
  it('test_lifecycle_trend_action aggregated by groups: the action\'s events of each group; "new" in the group\'s creation interval', async () => {
    // acme created Jan 1 (its $groupidentify), beta Dec 20. Action = sign up OR purchase. acme: u1's sign up Jan 1 (new),
    // u2's purchase Jan 3 (resurrecting; u2's pageview Jan 2 is no step); beta: u1's purchase Jan 2 (resurrecting: created
    // earlier); u3's group-less sign up is no actor's. Dormant: acme Jan 2 and Jan 4, beta Jan 3.
    const both = action('signed up or bought (groups)', [actionStep('sign up'), actionStep('purchase')]);
    const identify = (key: string, at: string): TestEvent => ({
      event: '$groupidentify',
      distinct_id: 'u1',
      timestamp: at,
      properties: { $group_type: 'company', $group_key: key, $group_set: { name: key } },
    });
    const e = (event: string, d: string, at: string, company?: string): TestEvent => ({ event, distinct_id: d, timestamp: at, properties: company ? { $groups: { company } } : {} });
    const pid = await db.project(people('u1', 'u2', 'u3'), [
      identify('acme', '2024-01-01T09:00:00Z'),
      identify('beta', '2023-12-20T09:00:00Z'),
      e('sign up', 'u1', '2024-01-01T10:00:00Z', 'acme'),
      e('$pageview', 'u2', '2024-01-02T10:00:00Z', 'acme'),
      e('purchase', 'u2', '2024-01-03T10:00:00Z', 'acme'),
      e('purchase', 'u1', '2024-01-02T11:00:00Z', 'beta'),
      e('sign up', 'u3', '2024-01-02T10:00:00Z'),
    ]);
    const r = await db.run(
      lifecycleRunner,
      { kind: 'LifecycleQuery', series: [{ kind: 'ActionsNode', id: both }], aggregation_group_type_index: 0, dateRange: { date_from: '2024-01-01', date_to: '2024-01-04' } },
      pid,
    );
    expect((r.results as any[]).map((x) => [x.label, x.action.id, x.action.type, x.data])).toEqual([
      ['signed up or bought (groups) - new', String(both), 'actions', [1, 0, 0, 0]],
      ['signed up or bought (groups) - returning', String(both), 'actions', [0, 0, 0, 0]],
      ['signed up or bought (groups) - resurrecting', String(both), 'actions', [0, 1, 1, 0]],
      ['signed up or bought (groups) - dormant', String(both), 'actions', [0, -1, -1, -1]],
    ]);
  });
});
