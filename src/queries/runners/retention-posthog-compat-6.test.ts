/**
 * Sixth pass over PostHog's test_retention_query_runner.py: the cases the earlier compat files
 * (retention-lifecycle-stickiness-posthog-compat, rsl-posthog-compat-2/-3, retention-posthog-compat-4/-5,
 * retention/retention.test.ts) do not pin — 24-hour-window mode by Week and Month (7- and 30-day units), in a project
 * timezone, with Monday weeks and aggregated by groups; an action or all events as a first-time target; test-account
 * filters in the all-time first-time lookup; a merged distinct id seen before the range; cumulative recurring
 * retention; breakdowns with cumulative and minimumOccurrences; a filtered returning entity with minimumOccurrences;
 * first-time cohorts in a cohort breakdown; a date_from without date_to; a relative date_from by Week; bracket labels
 * by Week; the appearances of first-time actors. Each title names the PostHog test it follows; where PostHog's exact
 * fixture could not be recalled, the expected counts are derived from reference §4.3 and the comment says so.
 */
import { actionRegistry, actionStep, createInsightTestDb, type InsightTestDb } from '../insights/testing';
import { retentionDate as _date, retentionEvent as ev, retentionCounts as counts } from './testing';
import { setInsightsClock } from '../insights/date-range';
import { runWithCohorts, type ResolvedCohort } from '../../cohorts/cohort-scope';
import { retentionRunner } from './retention-runner';
import { actorsRunner } from './actors-runner';

let db: InsightTestDb;
const { source: actionSource, action } = actionRegistry(1100);
beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
});
afterAll(async () => {
  await db.close();
});

const project: InsightTestDb['project'] = (persons, events) => db.project(persons, events);
const people = (...ids: string[]) => ids.map((id) => ({ distinct_ids: [id] }));

const retention = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(retentionRunner, { kind: 'RetentionQuery', retentionFilter: {}, ...q }, pid, proj as any);
const blocks = (r: any) => (r.results as any[]).map((x) => [x.breakdown_value, x.label, x.values.map((v: any) => v.count)]);
async function actorsOf(pid: number, source: Record<string, unknown>, interval: number): Promise<[string, number[]][]> {
  const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'appearances'], source: { kind: 'InsightActorsQuery', source, interval } }, pid);
  return (r.results as any[]).map((row): [string, number[]] => [[...row[0].distinct_ids].sort()[0], row[1]]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe('RetentionQuery, sixth pass (test_retention_query_runner.py)', () => {
  describe('24_hour_windows with Week and Month periods (reference §4.3: units of 7 and 30 days from the first event)', () => {
    it('Week: the cohort is the 7-day unit of the first event after date_from; a return 6 days 23 hours later is still unit 0', async () => {
      // Sunday weeks from Jun 7. a: t0 Tue Jun 9 10:00, back Jun 16 09:00 (unit 0) and Jun 23 11:00 (unit 2);
      // b: t0 Sat Jun 13 20:00, back Sun Jun 14 10:00 (a calendar week later, but unit 0) and Jun 21 19:00 (unit 1);
      // c: t0 Sun Jun 14 01:00 (unit 1 from Jun 7), back Jun 27 00:00 (12 days 23 hours: unit 1).
      const pid = await project(people('a', 'b', 'c'), [
        ev('a', '2020-06-09T10:00:00'),
        ev('a', '2020-06-16T09:00:00'),
        ev('a', '2020-06-23T11:00:00'),
        ev('b', '2020-06-13T20:00:00'),
        ev('b', '2020-06-14T10:00:00'),
        ev('b', '2020-06-21T19:00:00'),
        ev('c', '2020-06-14T01:00:00'),
        ev('c', '2020-06-27T00:00:00'),
      ]);
      const r = await retention(pid, {
        dateRange: { date_from: '2020-06-07', date_to: '2020-06-27' },
        retentionFilter: { period: 'Week', totalIntervals: 3, timeWindowMode: '24_hour_windows' },
      });
      expect((r.results as any[]).map((x) => [x.label, x.date])).toEqual([
        ['Week 0', '2020-06-07T00:00:00Z'],
        ['Week 1', '2020-06-14T00:00:00Z'],
        ['Week 2', '2020-06-21T00:00:00Z'],
      ]);
      expect(counts(r)).toEqual([
        [2, 1, 1],
        [1, 1, 0],
        [0, 0, 0],
      ]);
    });

    it('Month: units of 30 days, not calendar months (a July 31 first event is in the third cohort)', async () => {
      // From Jun 1. a: t0 Jun 30 10:00 (unit 0), back Jul 29 09:00 (28 days 23 hours: unit 0) and Jul 31 11:00 (unit 1);
      // b: t0 Jul 1 00:30 (30 days after Jun 1: unit 1), back Aug 30 00:00 (unit 1); c: t0 Jul 31 12:00 (unit 2).
      const pid = await project(people('a', 'b', 'c'), [
        ev('a', '2020-06-30T10:00:00'),
        ev('a', '2020-07-29T09:00:00'),
        ev('a', '2020-07-31T11:00:00'),
        ev('b', '2020-07-01T00:30:00'),
        ev('b', '2020-08-30T00:00:00'),
        ev('c', '2020-07-31T12:00:00'),
      ]);
      const r = await retention(pid, {
        dateRange: { date_from: '2020-06-01', date_to: '2020-08-31' },
        retentionFilter: { period: 'Month', totalIntervals: 3, timeWindowMode: '24_hour_windows' },
      });
      expect(counts(r)).toEqual([
        [1, 1, 0],
        [1, 1, 0],
        [1, 0, 0],
      ]);
    });
  });

  it('test_timezones with 24_hour_windows: the units count from local midnight of date_from (Asia/Tokyo, UTC+9)', async () => {
    // Jun 10 00:00 in Tokyo is Jun 9 15:00 UTC. a: t0 Jun 10 14:00 UTC (23:00 local: unit 0), back 23 hours later (unit 0)
    // and 25 hours later (unit 1); b: t0 Jun 10 16:00 UTC (Jun 11 01:00 local: unit 1)
    const pid = await project(people('a', 'b'), [
      ev('a', '2020-06-10T14:00:00'),
      ev('a', '2020-06-11T13:00:00'),
      ev('a', '2020-06-11T15:00:00'),
      ev('b', '2020-06-10T16:00:00'),
    ]);
    const r = await retention(
      pid,
      { dateRange: { date_from: '2020-06-10', date_to: '2020-06-12' }, retentionFilter: { totalIntervals: 3, timeWindowMode: '24_hour_windows' } },
      { timezone: 'Asia/Tokyo' },
    );
    expect((r.results as any[]).map((x) => x.date)).toEqual(['2020-06-10T00:00:00+09:00', '2020-06-11T00:00:00+09:00', '2020-06-12T00:00:00+09:00']);
    expect(counts(r)).toEqual([
      [1, 1, 0],
      [1, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('test_first_time_retention with an action as the target: the cohort of the first event matching any step of the action', async () => {
    const started = action('started', [actionStep('$user_signed_up'), actionStep('bought')]);
    // a: first match "bought" on day 0; b: a pageview (no match) on day 0, signs up on day 1; c: first bought before the range
    const pid = await project(people('a', 'b', 'c'), [
      ev('a', _date(0), {}, 'bought'),
      ev('a', _date(1), {}, '$user_signed_up'),
      ev('a', _date(2)),
      ev('b', _date(0)),
      ev('b', _date(1), {}, '$user_signed_up'),
      ev('b', _date(2)),
      ev('c', _date(-1), {}, 'bought'),
      ev('c', _date(1), {}, 'bought'),
      ev('c', _date(2)),
    ]);
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: {
        totalIntervals: 3,
        retentionType: 'retention_first_time',
        targetEntity: { id: started, type: 'actions', name: 'started' },
        returningEntity: { id: '$pageview', type: 'events' },
      },
    });
    expect(counts(r)).toEqual([
      [1, 0, 1],
      [1, 1, 0],
      [0, 0, 0],
    ]);
  });

  it('first-time retention with all events as the target (id null): the first event of any name anchors the cohort', async () => {
    // a: "x" on day 0 then a pageview; b: a pageview before the range; c: "y" on days 1 and 2 (no pageview return)
    const pid = await project(people('a', 'b', 'c'), [
      ev('a', _date(0), {}, 'x'),
      ev('a', _date(1)),
      ev('b', _date(-1)),
      ev('b', _date(1), {}, 'x'),
      ev('c', _date(1), {}, 'y'),
      ev('c', _date(2), {}, 'y'),
    ]);
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, retentionType: 'retention_first_time', targetEntity: { id: null, type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
    });
    expect(counts(r)).toEqual([
      [1, 1, 0],
      [1, 0, 0],
      [0, 0, 0],
    ]);
  });

  describe('test_filter_test_accounts with first-time cohorts (reference §4.3: the filters apply to the all-time first-event lookup too)', () => {
    // a's first pageview (day 0) is from localhost, its later ones are not; b's day-1 pageview is from localhost.
    let pid: number;
    beforeAll(async () => {
      pid = await project(people('a', 'b'), [
        ev('a', _date(0), { $host: 'localhost' }),
        ev('a', _date(1), { $host: 'example.com' }),
        ev('a', _date(2), { $host: 'example.com' }),
        ev('b', _date(0), { $host: 'example.com' }),
        ev('b', _date(1), { $host: 'localhost' }),
      ]);
    });
    const proj = { test_account_filters: [{ key: '$host', operator: 'is_not', value: 'localhost', type: 'event' }] };
    const q = (filterTestAccounts: boolean) => ({
      filterTestAccounts,
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, retentionType: 'retention_first_time' },
    });

    it('with the filters: a starts on day 1 (its first event left), b has no return (its return left)', async () => {
      expect(counts(await retention(pid, q(true), proj))).toEqual([
        [1, 0, 0],
        [1, 1, 0],
        [0, 0, 0],
      ]);
    });

    it('without them: both start on day 0', async () => {
      expect(counts(await retention(pid, q(false), proj))).toEqual([
        [2, 2, 1],
        [0, 0, 0],
        [0, 0, 0],
      ]);
    });
  });

  it('test_first_time_retention with a merged person: an event of another distinct id before the range drops the person', async () => {
    // p's own first event is on day 0, but its alias was seen on day -2: p's first-ever event is outside the range
    const pid = await project(
      [{ distinct_ids: ['p', 'p_alias'] }, { distinct_ids: ['q'] }],
      [ev('p_alias', _date(-2)), ev('p', _date(0)), ev('p', _date(1)), ev('q', _date(0)), ev('q', _date(1))],
    );
    const q = (retentionType: string) => ({ dateRange: { date_from: _date(0), date_to: _date(1) }, retentionFilter: { totalIntervals: 2, retentionType } });
    expect(counts(await retention(pid, q('retention_first_time')))).toEqual([
      [1, 1],
      [0, 0],
    ]);
    expect(counts(await retention(pid, q('retention_recurring')))).toEqual([
      [2, 2],
      [2, 0],
    ]);
  });

  it('retention_first_ever_occurrence: a first-ever event before the range that matches the filters keeps the actor out', async () => {
    // a: first pageview (pro) before the range, pro again on day 0; b: first pageview (pro) on day 0, back on day 1
    const pid = await project(people('a', 'b'), [
      ev('a', _date(-1), { plan: 'pro' }),
      ev('a', _date(0), { plan: 'pro' }),
      ev('a', _date(1)),
      ev('b', _date(0), { plan: 'pro' }),
      ev('b', _date(1)),
    ]);
    const pro = { id: '$pageview', type: 'events', properties: [{ type: 'event', key: 'plan', operator: 'exact', value: 'pro' }] };
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(1) },
      retentionFilter: { totalIntervals: 2, retentionType: 'retention_first_ever_occurrence', targetEntity: pro, returningEntity: { id: '$pageview', type: 'events' } },
    });
    expect(counts(r)).toEqual([
      [1, 1],
      [0, 0],
    ]);
  });

  it('cumulative recurring retention: an actor back on day k counts on days 1..k of its cohort, and is a cohort of its own on each day it comes back', async () => {
    // p1 on days 0 and 3, p2 on days 0 and 1, p3 on days 0 and 2
    const pid = await project(people('p1', 'p2', 'p3'), [ev('p1', _date(0)), ev('p1', _date(3)), ev('p2', _date(0)), ev('p2', _date(1)), ev('p3', _date(0)), ev('p3', _date(2))]);
    const r = await retention(pid, { dateRange: { date_to: _date(4) }, retentionFilter: { totalIntervals: 5, cumulative: true } });
    expect(counts(r)).toEqual([
      [3, 3, 2, 1, 0],
      [1, 0, 0, 0, 0],
      [1, 0, 0, 0, 0],
      [1, 0, 0, 0, 0],
      [0, 0, 0, 0, 0],
    ]);
  });

  describe('breakdowns with cumulative retention and minimumOccurrences (reference §4.3)', () => {
    // every event of a person has one browser: a (Chrome) day 0 and twice on day 2; c (Chrome) twice on day 1; b (Safari) days 0, 1
    let pid: number;
    beforeAll(async () => {
      pid = await project(people('a', 'b', 'c'), [
        ev('a', _date(0), { $browser: 'Chrome' }),
        ev('a', _date(2), { $browser: 'Chrome' }),
        ev('a', _date(2, 0, 5), { $browser: 'Chrome' }),
        ev('c', _date(1), { $browser: 'Chrome' }),
        ev('c', _date(1, 0, 5), { $browser: 'Chrome' }),
        ev('b', _date(0), { $browser: 'Safari' }),
        ev('b', _date(1), { $browser: 'Safari' }),
      ]);
    });
    const q = (retentionFilter: Record<string, unknown>) => ({
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, ...retentionFilter },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    });

    it('cumulative: a (Chrome, back on day 2) counts on day 1 too; each block is cumulative on its own', async () => {
      expect(blocks(await retention(pid, q({ cumulative: true })))).toEqual([
        ['Chrome', 'Day 0', [1, 1, 1]],
        ['Chrome', 'Day 1', [1, 0, 0]],
        ['Chrome', 'Day 2', [1, 0, 0]],
        ['Safari', 'Day 0', [1, 1, 0]],
        ['Safari', 'Day 1', [1, 0, 0]],
        ['Safari', 'Day 2', [0, 0, 0]],
      ]);
    });

    it('minimumOccurrences 2: a (two returns on day 2) still returns, b (one) no longer does; cohort sizes are unchanged', async () => {
      expect(blocks(await retention(pid, q({ minimumOccurrences: 2 })))).toEqual([
        ['Chrome', 'Day 0', [1, 0, 1]],
        ['Chrome', 'Day 1', [1, 0, 0]],
        ['Chrome', 'Day 2', [1, 0, 0]],
        ['Safari', 'Day 0', [1, 0, 0]],
        ['Safari', 'Day 1', [1, 0, 0]],
        ['Safari', 'Day 2', [0, 0, 0]],
      ]);
    });
  });

  it('a date_from without date_to: the cohorts run from date_from to the current period (frozen clock)', async () => {
    const restore = setInsightsClock(new Date('2020-06-13T12:00:00Z'));
    try {
      const pid = await project(people('a'), [ev('a', _date(0)), ev('a', _date(3, 0, 9))]);
      const r = await retention(pid, { dateRange: { date_from: _date(0) }, retentionFilter: { totalIntervals: 5 } });
      expect((r.results as any[]).map((x) => x.date)).toEqual(['2020-06-10T00:00:00Z', '2020-06-11T00:00:00Z', '2020-06-12T00:00:00Z', '2020-06-13T00:00:00Z']);
      expect(counts(r)).toEqual([
        [1, 0, 0, 1, 0],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
      ]);
    } finally {
      restore();
    }
  });

  it('a relative date_from by Week: the first cohort is the week holding the start of that day (frozen clock)', async () => {
    // now Wed Jun 17; -14d is Wed Jun 3, in the week of Sun May 31; the last cohort is the current week (Jun 14)
    const restore = setInsightsClock(new Date('2020-06-17T12:00:00Z'));
    try {
      const pid = await project(people('a'), [ev('a', '2020-05-31T08:00:00'), ev('a', '2020-06-15T08:00:00')]);
      const r = await retention(pid, { dateRange: { date_from: '-14d' }, retentionFilter: { period: 'Week', totalIntervals: 4 } });
      expect((r.results as any[]).map((x) => x.date)).toEqual(['2020-05-31T00:00:00Z', '2020-06-07T00:00:00Z', '2020-06-14T00:00:00Z']);
      expect(counts(r)).toEqual([
        [1, 0, 1, 0],
        [0, 0, 0, 0],
        [1, 0, 0, 0],
      ]);
    } finally {
      restore();
    }
  });

  it('retentionCustomBrackets by Week: values labelled "Week 1", "Week 2-3" (reference §4.2)', async () => {
    // Sunday weeks from Jun 7: a in week 0, back in weeks 1 and 3
    const pid = await project(people('a'), [ev('a', '2020-06-08T10:00:00'), ev('a', '2020-06-15T10:00:00'), ev('a', '2020-06-29T10:00:00')]);
    const r = await retention(pid, {
      dateRange: { date_from: '2020-06-07', date_to: '2020-07-04' },
      retentionFilter: { period: 'Week', retentionCustomBrackets: [1, 2] },
    });
    expect((r.results as any[])[0].values).toEqual([
      { count: 1, label: 'Week 0' },
      { count: 1, label: 'Week 1' },
      { count: 1, label: 'Week 2-3' },
    ]);
    expect((r.results as any[]).map((x) => x.label)).toEqual(['Week 0', 'Week 1', 'Week 2', 'Week 3']);
  });

  it('test_groups_aggregating in 24_hour_windows: each group in the cohort of its first event; events without the group are left out', async () => {
    // org:1: first event Jun 10 20:00 (two persons), back Jun 11 19:00 (23 hours: window 0) and Jun 12 21:00 (window 2);
    // org:2: first event Jun 11 08:00, back Jun 12 09:00 (window 1); person c's group-less events are no actor's
    const org = (key: string) => ({ $group_0: key });
    const pid = await project(people('a', 'b', 'c'), [
      ev('a', '2020-06-10T20:00:00', org('org:1')),
      ev('b', '2020-06-11T19:00:00', org('org:1')),
      ev('a', '2020-06-12T21:00:00', org('org:1')),
      ev('b', '2020-06-11T08:00:00', org('org:2')),
      ev('b', '2020-06-12T09:00:00', org('org:2')),
      ev('c', '2020-06-10T01:00:00'),
      ev('c', '2020-06-11T01:00:00'),
    ]);
    const q = { dateRange: { date_from: _date(0), date_to: _date(3) }, retentionFilter: { totalIntervals: 4, timeWindowMode: '24_hour_windows' } };
    expect(counts(await retention(pid, { ...q, aggregation_group_type_index: 0 }))).toEqual([
      [1, 0, 1, 0],
      [1, 1, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
  });

  it('a returning entity with properties and minimumOccurrences: only the matching returns are counted toward the minimum', async () => {
    // a: two returns on day 1, one of them pro; b: two pro returns on day 1
    const pid = await project(people('a', 'b'), [
      ev('a', _date(0)),
      ev('a', _date(1), { plan: 'pro' }),
      ev('a', _date(1, 0, 5), { plan: 'free' }),
      ev('b', _date(0)),
      ev('b', _date(1), { plan: 'pro' }),
      ev('b', _date(1, 0, 5), { plan: 'pro' }),
    ]);
    const proReturns = { id: '$pageview', type: 'events', properties: [{ type: 'event', key: 'plan', operator: 'exact', value: 'pro' }] };
    const q = (minimumOccurrences: number) => ({
      dateRange: { date_from: _date(0), date_to: _date(1) },
      retentionFilter: { totalIntervals: 2, minimumOccurrences, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: proReturns },
    });
    expect(counts(await retention(pid, q(1)))[0]).toEqual([2, 2]);
    expect(counts(await retention(pid, q(2)))[0]).toEqual([2, 1]);
  });

  it('test_week_interval with 24_hour_windows and Monday weeks: the units count from the Monday that starts date_from\'s week', async () => {
    // date_from Wed Jun 10 → Monday Jun 8. a: t0 Sun Jun 14 23:00 (unit 0), back Mon Jun 15 10:00 (11 hours: unit 0) and
    // Tue Jun 23 (8 days later: unit 1); b: t0 Mon Jun 15 01:00 (unit 1)
    const pid = await project(people('a', 'b'), [
      ev('a', '2020-06-14T23:00:00'),
      ev('a', '2020-06-15T10:00:00'),
      ev('a', '2020-06-23T10:00:00'),
      ev('b', '2020-06-15T01:00:00'),
    ]);
    const r = await retention(
      pid,
      { dateRange: { date_from: '2020-06-10', date_to: '2020-06-24' }, retentionFilter: { period: 'Week', totalIntervals: 3, timeWindowMode: '24_hour_windows' } },
      { week_start_day: 1 },
    );
    expect((r.results as any[]).map((x) => x.date)).toEqual(['2020-06-08T00:00:00Z', '2020-06-15T00:00:00Z', '2020-06-22T00:00:00Z']);
    expect(counts(r)).toEqual([
      [1, 1, 0],
      [1, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('test_retention_with_cohort_breakdown and first-time cohorts: the first event is looked up over all of the person\'s events in each block', async () => {
    const pro: ResolvedCohort = { id: 61, name: 'pro', isStatic: false, group: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } as any, personIds: [] };
    const scope = <T>(fn: () => Promise<T>) => runWithCohorts(new Map([[61, pro]]), fn);
    // a (pro): first pageview before the range; b (pro): day 0, back day 1; c (free): day 1
    const pid = await project(
      [
        { distinct_ids: ['a'], properties: { plan: 'pro' } },
        { distinct_ids: ['b'], properties: { plan: 'pro' } },
        { distinct_ids: ['c'], properties: { plan: 'free' } },
      ],
      [ev('a', _date(-1)), ev('a', _date(0)), ev('a', _date(1)), ev('b', _date(0)), ev('b', _date(1)), ev('c', _date(1))],
    );
    const r = await scope(() =>
      retention(pid, {
        dateRange: { date_from: _date(0), date_to: _date(1) },
        retentionFilter: { totalIntervals: 2, retentionType: 'retention_first_time' },
        breakdownFilter: { breakdown_type: 'cohort', breakdown: [61, 'all'] },
      }),
    );
    expect(blocks(r)).toEqual([
      [0, 'Day 0', [1, 1]],
      [0, 'Day 1', [1, 0]],
      [61, 'Day 0', [1, 1]],
      [61, 'Day 1', [0, 0]],
    ]);
  });

  it('test_retention_people_first_time with a returning entity of its own: appearances are the return intervals of that entity', async () => {
    // a signs up on day 0 and buys on days 1 and 3 (its pageview on day 2 is no return); b signs up on day 0 and never buys
    const pid = await project(people('a', 'b'), [
      ev('a', _date(0), {}, '$user_signed_up'),
      ev('a', _date(1), {}, 'bought'),
      ev('a', _date(2)),
      ev('a', _date(3), {}, 'bought'),
      ev('b', _date(0), {}, '$user_signed_up'),
      ev('b', _date(1)),
    ]);
    const source = {
      kind: 'RetentionQuery',
      dateRange: { date_from: _date(0), date_to: _date(3) },
      retentionFilter: {
        totalIntervals: 4,
        retentionType: 'retention_first_time',
        targetEntity: { id: '$user_signed_up', type: 'events' },
        returningEntity: { id: 'bought', type: 'events' },
      },
    };
    expect(await actorsOf(pid, source, 0)).toEqual([
      ['a', [0, 1, 3]],
      ['b', [0]],
    ]);
    expect(await actorsOf(pid, source, 1)).toEqual([]);
  });
});
