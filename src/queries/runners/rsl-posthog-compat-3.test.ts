/**
 * Third pass over PostHog's retention, stickiness and lifecycle suites (test_retention_query_runner.py,
 * test_stickiness_query_runner.py, test_lifecycle_query_runner.py): the cases retention-lifecycle-stickiness-posthog-compat
 * and rsl-posthog-compat-2 do not pin yet — actors paging, group property filters, group aggregation in lifecycle, option
 * combinations (minimumOccurrences with cumulative or first-time cohorts, stickinessCriteria with cumulative, criteria,
 * compare and compare_to in the actors of a stickiness point), Hour/Month periods in odd timezones, hour lifecycles,
 * interval dates, `date_from: "all"` for retention, and input errors. A randomized block checks that every data point's
 * count equals the number of actors its InsightActorsQuery lists. Each title names the PostHog test it ports; where the
 * fixture is a smaller copy of PostHog's, the expectation is derived from the reference (§4, §6, §7) and the comment says so.
 */
import { createInsightTestDb, type InsightTestDb, type TestEvent, type TestPerson } from '../insights/testing';
import { byStatus, pad, retentionCounts as counts, retentionDate as _date, retentionEvent as ev } from './testing';
import { setInsightsClock } from '../insights/date-range';
import { retentionRunner } from './retention-runner';
import { lifecycleRunner } from './lifecycle-runner';
import { stickinessRunner } from './stickiness-runner';
import { actorsRunner } from './actors-runner';

let db: InsightTestDb;
beforeAll(async () => {
  db = await createInsightTestDb();
});
afterAll(async () => {
  await db.close();
});

const project: InsightTestDb['project'] = (persons, events) => db.project(persons, events);

/** ActorsQuery over an InsightActorsQuery source: the actors' last distinct id in sort order (groups: their key), sorted. */
async function actorsOf(pid: number, source: Record<string, unknown>): Promise<string[]> {
  const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', ...source } }, pid);
  return (r.results as any[]).map((row) => (row[0].distinct_ids ? [...row[0].distinct_ids].sort().pop() : row[0].id)).sort();
}

// ------------------------------------------------------------------------------------------------ retention

const retention = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(retentionRunner, { kind: 'RetentionQuery', retentionFilter: {}, ...q }, pid, proj as any);

describe('RetentionQuery (test_retention_query_runner.py)', () => {
  it('test_retention_people_paginated: 150 persons in cohort Day 0, a page of 100 then the other 50', async () => {
    const persons: TestPerson[] = [];
    const events: TestEvent[] = [];
    for (let i = 0; i < 150; i++) {
      persons.push({ distinct_ids: [`person${i}`] });
      for (const d of [0, 1, 2, 5]) events.push(ev(`person${i}`, _date(d)));
    }
    const pid = await project(persons, events);
    const source = { kind: 'RetentionQuery', dateRange: { date_to: _date(10, 0, 6) }, retentionFilter: { totalIntervals: 11 } };
    const page = (offset?: number) =>
      db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'appearances'], source: { kind: 'InsightActorsQuery', source, interval: 0 }, ...(offset ? { offset } : {}) }, pid);
    const first = await page();
    expect(first.results).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    expect(first.results[0][1]).toEqual([0, 1, 2, 5]);
    const second = await page(100);
    expect(second.results).toHaveLength(50);
    expect(second.hasMore).toBe(false);
    const ids = new Set([...first.results, ...second.results].map((row: any[]) => row[0].id));
    expect(ids.size).toBe(150);
  });

  describe('test_groups_filtering (the layout of _create_groups_and_events; counts derived from reference §4.3)', () => {
    // org:6 is "technology", org:7 "agriculture". Week periods, Sunday weeks W0 = Jun 7 … W6 = Jul 19.
    let pid: number;
    beforeAll(async () => {
      const identify = (key: string, industry: string): TestEvent =>
        ev('person1', _date(-30), { $group_type: 'organization', $group_key: key, $group_set: { industry } }, '$groupidentify');
      const org = (key: string, company?: string) => ({ $groups: { organization: key, ...(company ? { company } : {}) } });
      pid = await project(
        [{ distinct_ids: ['person1', 'alias1'] }, { distinct_ids: ['person2'] }, { distinct_ids: ['person3'] }],
        [
          identify('org:6', 'technology'),
          identify('org:7', 'agriculture'),
          ev('person1', _date(0), org('org:6', 'company:1')),
          ev('person2', _date(0), org('org:6')),
          ev('person3', _date(0)),
          ev('person1', _date(1), org('org:7', 'company:1')),
          ev('person2', _date(1), org('org:6')),
          ev('person1', _date(7), org('org:6')),
          ev('person2', _date(7), org('org:7')),
          ev('person1', _date(14), org('org:6')),
          ev('person1', _date(-6, 1), org('org:6', 'company:1')),
          ev('person2', _date(-6, 1), org('org:6')),
          ev('person2', _date(1, 1), org('org:6')),
          ev('person1', _date(1, 1), org('org:7')),
          ev('person2', _date(15, 1), org('org:6', 'company:1')),
        ],
      );
    });
    const q = {
      dateRange: { date_to: _date(10, 1) },
      retentionFilter: { period: 'Week', totalIntervals: 7 },
      properties: [{ key: 'industry', value: 'technology', type: 'group', group_type_index: 0 }],
    };

    it('persons: only the events of technology organizations are cohort and return events', async () => {
      // person1: W0 W1 W2 W3; person2: W0 W3 W4 W6 (their org:7 and group-less events are left out)
      expect(counts(await retention(pid, q))).toEqual(pad([[2, 1, 1, 2, 1, 0, 1], [1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [2, 1, 0, 1], [1, 0, 1], [0, 0], [1]]));
    });

    it('aggregated by organization: org:6 alone, active in W0–W4 and W6', async () => {
      const r = await retention(pid, { ...q, aggregation_group_type_index: 0 });
      expect(counts(r)).toEqual(pad([[1, 1, 1, 1, 1, 0, 1], [1, 1, 1, 1, 0, 1], [1, 1, 1, 0, 1], [1, 1, 0, 1], [1, 0, 1], [0, 0], [1]]));
      expect(await actorsOf(pid, { source: { kind: 'RetentionQuery', ...q, aggregation_group_type_index: 0 }, interval: 0 })).toEqual(['org:6']);
    });
  });

  describe('minimumOccurrences with cumulative and first-time cohorts (reference §4.3)', () => {
    // person1: Jun 10 ×1, Jun 11 ×2, Jun 12 ×1, Jun 13 ×2; person2: Jun 10 ×1, Jun 11 ×1, Jun 12 ×2
    let pid: number;
    beforeAll(async () => {
      const times = (id: string, day: number, n: number) => Array.from({ length: n }, (_, i) => ev(id, _date(day, 0, 8 + i)));
      pid = await project(
        [{ distinct_ids: ['person1'] }, { distinct_ids: ['person2'] }],
        [...times('person1', 0, 1), ...times('person1', 1, 2), ...times('person1', 2, 1), ...times('person1', 3, 2), ...times('person2', 0, 1), ...times('person2', 1, 1), ...times('person2', 2, 2)],
      );
    });
    const q = (rf: Record<string, unknown>) => ({ dateRange: { date_from: _date(0), date_to: _date(3) }, retentionFilter: { totalIntervals: 4, minimumOccurrences: 2, ...rf } });

    it('recurring: a return interval counts with at least two returning events in it; the cohort interval needs one', async () => {
      expect(counts(await retention(pid, q({})))).toEqual([
        [2, 1, 1, 1],
        [2, 1, 1, 0],
        [2, 1, 0, 0],
        [1, 0, 0, 0],
      ]);
    });

    it('cumulative: an actor counts at every interval up to its last qualifying return', async () => {
      expect(counts(await retention(pid, q({ cumulative: true })))).toEqual([
        [2, 2, 2, 1],
        [2, 2, 1, 0],
        [2, 1, 0, 0],
        [1, 0, 0, 0],
      ]);
    });

    it('first-time cohorts: both persons start on Jun 10; the actors of a cell are those counted in it', async () => {
      const r = await retention(pid, q({ retentionType: 'retention_first_time' }));
      expect(counts(r)).toEqual([
        [2, 1, 1, 1],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
      ]);
      const appearances = await db.run(
        actorsRunner,
        { kind: 'ActorsQuery', select: ['person', 'appearances'], source: { kind: 'InsightActorsQuery', source: { kind: 'RetentionQuery', ...q({ retentionType: 'retention_first_time' }) }, interval: 0 } },
        pid,
      );
      expect((appearances.results as any[]).map((row) => [row[0].distinct_ids[0], row[1]]).sort()).toEqual([
        ['person1', [0, 1, 3]],
        ['person2', [0, 2]],
      ]);
    });
  });

  it('test_timezones with Hour periods: hours of a half-hour-offset zone start at :30 UTC (Asia/Kolkata)', async () => {
    const pid = await project([{ distinct_ids: ['p'] }], ['04:45', '05:35', '06:20', '06:40'].map((t) => ({ event: '$pageview', distinct_id: 'p', timestamp: `2024-01-01T${t}:00Z` })));
    // local 10:15, 11:05, 11:50, 12:10
    const r = await retention(pid, { dateRange: { date_to: '2024-01-01T12:00:00' }, retentionFilter: { period: 'Hour', totalIntervals: 3 } }, { timezone: 'Asia/Kolkata' });
    expect(r.results.map((x: any) => x.date)).toEqual(['2024-01-01T10:00:00+05:30', '2024-01-01T11:00:00+05:30', '2024-01-01T12:00:00+05:30']);
    expect(counts(r)).toEqual([
      [1, 1, 1],
      [1, 1, 0],
      [1, 0, 0],
    ]);
  });

  it('test_timezones with Month periods: local calendar months (US/Pacific), the first-time cohort of a local June event', async () => {
    // Jul 1 03:00Z is Jun 30 in US/Pacific; Aug 1 05:00Z is Jul 31
    const pid = await project(
      [{ distinct_ids: ['p'] }, { distinct_ids: ['q'] }],
      [
        { event: '$pageview', distinct_id: 'p', timestamp: '2020-07-01T03:00:00Z' },
        { event: '$pageview', distinct_id: 'p', timestamp: '2020-08-01T05:00:00Z' },
        { event: '$pageview', distinct_id: 'q', timestamp: '2020-07-01T09:00:00Z' },
      ],
    );
    const q = { dateRange: { date_from: '2020-06-01', date_to: '2020-07-31' }, retentionFilter: { period: 'Month', totalIntervals: 2, retentionType: 'retention_first_time' } };
    const r = await retention(pid, q, { timezone: 'US/Pacific' });
    expect(r.results.map((x: any) => x.date)).toEqual(['2020-06-01T00:00:00-07:00', '2020-07-01T00:00:00-07:00']);
    expect(counts(r)).toEqual([
      [1, 1],
      [1, 0],
    ]);
    // in UTC, both persons start in July and p's return is in August, after the range
    expect(counts(await retention(pid, q))).toEqual([
      [0, 0],
      [2, 0],
    ]);
  });

  it('meanRetentionCalculation is display-only: simple, weighted and none run alike; another value is a 400', async () => {
    const pid = await project([{ distinct_ids: ['p'] }], [ev('p', _date(0)), ev('p', _date(1))]);
    const base = { dateRange: { date_to: _date(1) }, retentionFilter: { totalIntervals: 2 } };
    const plain = counts(await retention(pid, base));
    for (const m of ['simple', 'weighted', 'none'])
      expect(counts(await retention(pid, { ...base, retentionFilter: { totalIntervals: 2, meanRetentionCalculation: m } }))).toEqual(plain);
    expect(retentionRunner.schema.safeParse({ kind: 'RetentionQuery', retentionFilter: { meanRetentionCalculation: 'median' } }).success).toBe(false);
  });

  it('date_from "all": the first cohort is the period of the earliest target or returning event', async () => {
    const pid = await project([{ distinct_ids: ['p'] }, { distinct_ids: ['q'] }], [ev('p', _date(0)), ev('p', _date(2)), ev('q', _date(1)), ev('q', _date(-3), {}, 'other')]);
    const r = await retention(pid, { dateRange: { date_from: 'all', date_to: _date(2) }, retentionFilter: { totalIntervals: 3 } });
    expect(r.results.map((x: any) => x.date)).toEqual(['2020-06-10T00:00:00Z', '2020-06-11T00:00:00Z', '2020-06-12T00:00:00Z']);
    expect(counts(r)).toEqual([
      [1, 0, 1],
      [1, 0, 0],
      [1, 0, 0],
    ]);
    // an empty project: the default range (totalIntervals periods up to date_to)
    const empty = await project([], []);
    const none = await retention(empty, { dateRange: { date_from: 'all', date_to: _date(2) }, retentionFilter: { totalIntervals: 3 } });
    expect(none.results.map((x: any) => x.date)).toEqual(['2020-06-10T00:00:00Z', '2020-06-11T00:00:00Z', '2020-06-12T00:00:00Z']);
  });
});

// ------------------------------------------------------------------------------------------------ stickiness

/**
 * p1: Jan 1 ×1, Jan 2 ×3, Jan 3 ×2; p2: Jan 2 ×2; p4: Dec 28 ×2, Jan 4 ×1 — and p3: Dec 27, Dec 28 (the previous
 * period of Jan 1–7 is Dec 25–31).
 */
describe('StickinessQuery (test_stickiness_query_runner.py)', () => {
  let pid: number;
  beforeAll(async () => {
    const times = (id: string, day: string, n: number) => Array.from({ length: n }, (_, i) => ({ event: '$pageview', distinct_id: id, timestamp: `${day}T${10 + i}:00:00Z` }));
    pid = await project(
      ['p1', 'p2', 'p3', 'p4'].map((d) => ({ distinct_ids: [d] })),
      [
        ...times('p1', '2024-01-01', 1),
        ...times('p1', '2024-01-02', 3),
        ...times('p1', '2024-01-03', 2),
        ...times('p2', '2024-01-02', 2),
        ...times('p3', '2023-12-27', 1),
        ...times('p3', '2023-12-28', 1),
        ...times('p4', '2023-12-28', 2),
        ...times('p4', '2024-01-04', 1),
      ],
    );
  });
  const base = { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-07' } };
  const sticky = (q: Record<string, unknown>) => db.run(stickinessRunner, { ...base, ...q }, pid);
  const data = async (q: Record<string, unknown>) => (await sticky(q)).results[0].data;

  it.each<[string, Record<string, unknown>, number[]]>([
    ['no criteria', {}, [2, 0, 1, 0, 0, 0, 0]],
    ['gte 2', { stickinessCriteria: { operator: 'gte', value: 2 } }, [1, 1, 0, 0, 0, 0, 0]],
    ['gte 2, cumulative', { stickinessCriteria: { operator: 'gte', value: 2 }, computedAs: 'cumulative' }, [2, 1, 0, 0, 0, 0, 0]],
    ['exact 1', { stickinessCriteria: { operator: 'exact', value: 1 } }, [2, 0, 0, 0, 0, 0, 0]],
    ['lte 2', { stickinessCriteria: { operator: 'lte', value: 2 } }, [2, 1, 0, 0, 0, 0, 0]],
    ['lte 2, cumulative', { stickinessCriteria: { operator: 'lte', value: 2 }, computedAs: 'cumulative' }, [3, 1, 0, 0, 0, 0, 0]],
  ])('test_stickiness_criteria: %s', async (_n, stickinessFilter, expected) => {
    expect(await data({ stickinessFilter })).toEqual(expected);
  });

  it('test_actors_query with stickinessCriteria: the actors whose number of qualifying days is `day`', async () => {
    const source = { ...base, stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 } } };
    expect(await actorsOf(pid, { source, day: 2 })).toEqual(['p1']);
    expect(await actorsOf(pid, { source, day: 1 })).toEqual(['p2']);
    // cumulative: at least `day` qualifying days
    expect(await actorsOf(pid, { source: { ...source, stickinessFilter: { ...source.stickinessFilter, computedAs: 'cumulative' } }, day: 1 })).toEqual(['p1', 'p2']);
  });

  it('test_actors_query_with_compare: the previous period has its own actors', async () => {
    const source = { ...base, compareFilter: { compare: true } };
    const r = await sticky({ compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.data])).toEqual([
      ['current', [2, 0, 1, 0, 0, 0, 0]],
      ['previous', [1, 1, 0, 0, 0, 0, 0]],
    ]);
    expect(await actorsOf(pid, { source, day: 1, compare: 'current' })).toEqual(['p2', 'p4']);
    expect(await actorsOf(pid, { source, day: 2, compare: 'previous' })).toEqual(['p3']);
    expect(await actorsOf(pid, { source, day: 1, compare: 'previous' })).toEqual(['p4']);
  });

  it('test_compare with compare_to: the previous period is the range moved back by compare_to', async () => {
    // -4d: Dec 28 – Jan 3 (p1: 3 days; p2, p3, p4: 1 day each)
    const r = await sticky({ compareFilter: { compare: true, compare_to: '-4d' } });
    expect(r.results.map((x: any) => [x.compare_label, x.data])).toEqual([
      ['current', [2, 0, 1, 0, 0, 0, 0]],
      ['previous', [3, 0, 1, 0, 0, 0, 0]],
    ]);
    const source = { ...base, compareFilter: { compare: true, compare_to: '-4d' } };
    expect(await actorsOf(pid, { source, day: 1, compare: 'previous' })).toEqual(['p2', 'p3', 'p4']);
  });
});

// ------------------------------------------------------------------------------------------------ lifecycle

const lifecycle = (pid: number, q: Record<string, unknown>) =>
  db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], ...q }, pid);

describe('LifecycleQuery (test_lifecycle_query_runner.py)', () => {
  it('aggregated by groups: "new" is the interval of the group\'s created_at; the actors are groups (reference §7.3)', async () => {
    const identify = (key: string, at: string): TestEvent => ({
      event: '$groupidentify',
      distinct_id: 'u1',
      timestamp: at,
      properties: { $group_type: 'company', $group_key: key, $group_set: { name: key } },
    });
    const pv = (d: string, at: string, company?: string): TestEvent => ({ event: '$pageview', distinct_id: d, timestamp: at, properties: company ? { $groups: { company } } : {} });
    const pid = await project(
      [{ distinct_ids: ['u1'] }, { distinct_ids: ['u2'] }, { distinct_ids: ['u3'] }],
      [
        identify('acme', '2024-01-01T09:00:00Z'),
        identify('beta', '2023-12-20T09:00:00Z'),
        pv('u1', '2024-01-01T10:00:00Z', 'acme'),
        pv('u2', '2024-01-02T10:00:00Z', 'acme'),
        pv('u1', '2024-01-04T10:00:00Z', 'acme'),
        pv('u2', '2024-01-02T11:00:00Z', 'beta'),
        pv('u3', '2024-01-01T10:00:00Z'), // no group: not an actor
      ],
    );
    const q = { aggregation_group_type_index: 0, dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' } };
    expect(byStatus(await lifecycle(pid, q))).toEqual({
      new: [1, 0, 0, 0, 0],
      returning: [0, 1, 0, 0, 0],
      resurrecting: [0, 1, 0, 1, 0],
      dormant: [0, 0, -2, 0, -1],
    });
    const source = { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], ...q };
    expect(await actorsOf(pid, { source, day: '2024-01-03', status: 'dormant' })).toEqual(['acme', 'beta']);
    expect(await actorsOf(pid, { source, day: '2024-01-02', status: 'resurrecting' })).toEqual(['beta']);
  });

  it('hour interval: hours of the person\'s creation, consecutive hours, a gap, and the dormant hour after each run', async () => {
    const pid = await project(
      [{ distinct_ids: ['p'], created_at: '2024-01-01T10:15:00Z' }],
      ['10:20', '11:05', '13:30'].map((t) => ({ event: '$pageview', distinct_id: 'p', timestamp: `2024-01-01T${t}:00Z` })),
    );
    const r = await lifecycle(pid, { interval: 'hour', dateRange: { date_from: '2024-01-01T10:00:00', date_to: '2024-01-01T14:00:00' } });
    expect(r.results[0].days).toEqual(['2024-01-01 10:00:00', '2024-01-01 11:00:00', '2024-01-01 12:00:00', '2024-01-01 13:00:00', '2024-01-01 14:00:00']);
    expect(byStatus(r)).toEqual({
      new: [1, 0, 0, 0, 0],
      returning: [0, 1, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0],
      dormant: [0, 0, -1, 0, -1],
    });
  });
});

describe('LifecycleQuery: interval dates and paging (test_lifecycle_query_runner.py)', () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it.each<[string, string, string, string[]]>([
    ['test_interval_dates_days', '2021-05-05T12:00:00Z', '-7d', ['2021-04-28', '2021-04-29', '2021-04-30', '2021-05-01', '2021-05-02', '2021-05-03', '2021-05-04', '2021-05-05']],
    ['test_interval_dates_weeks', '2021-05-06T12:00:00Z', '-30d', ['2021-04-04', '2021-04-11', '2021-04-18', '2021-04-25', '2021-05-02']],
    ['test_interval_dates_months', '2021-05-05T12:00:00Z', '-90d', ['2021-02-01', '2021-03-01', '2021-04-01', '2021-05-01']],
  ])('%s', async (_name, now, dateFrom, days) => {
    restore = setInsightsClock(new Date(now));
    const pid = await project([], []);
    const interval = _name.endsWith('days') ? 'day' : _name.endsWith('weeks') ? 'week' : 'month';
    const r = await lifecycle(pid, { interval, dateRange: { date_from: dateFrom } });
    for (const series of r.results) {
      expect(series.days).toEqual(days);
      expect(series.data).toEqual(days.map(() => 0));
    }
  });

  it('test_lifecycle_trend_people_paginated: 150 new persons on one day, a page of 100 then the other 50', async () => {
    const persons: TestPerson[] = [];
    const events: TestEvent[] = [];
    for (let i = 0; i < 150; i++) {
      persons.push({ distinct_ids: [`person${i}`], created_at: '2020-01-15T00:00:00Z' });
      events.push({ event: '$pageview', distinct_id: `person${i}`, timestamp: '2020-01-15T12:00:00Z' });
    }
    const pid = await project(persons, events);
    const source = { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2020-01-12', date_to: '2020-01-19' } };
    const page = (offset?: number) =>
      db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source, day: '2020-01-15', status: 'new' }, ...(offset ? { offset } : {}) }, pid);
    const first = await page();
    expect(first.results).toHaveLength(100);
    expect(first.hasMore).toBe(true);
    const second = await page(100);
    expect(second.results).toHaveLength(50);
    expect(new Set([...first.results, ...second.results].map((row: any[]) => row[0].id)).size).toBe(150);
  });
});

// ------------------------------------------------------------------------------------------------ counts and actors agree

/**
 * Every count of a data point equals the number of actors an InsightActorsQuery lists for it (PostHog's persons modal
 * opens on the count it shows). The counts come from the grid/aggregate queries, the actors from other code paths (the
 * per-actor retention evaluation, the lifecycle/stickiness actor queries), so random data with several options checks
 * them against each other.
 */
describe('the actors of each data point are as many as its count', () => {
  let pid: number;
  beforeAll(async () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const persons: TestPerson[] = [];
    const events: TestEvent[] = [];
    for (let p = 0; p < 40; p++) {
      persons.push({ distinct_ids: [`u${p}`], created_at: new Date(Date.UTC(2024, 0, 1 + Math.floor(rnd() * 10))).toISOString(), properties: { plan: rnd() < 0.5 ? 'pro' : 'free' } });
      for (let i = 0, n = 1 + Math.floor(rnd() * 14); i < n; i++) {
        const at = new Date(Date.UTC(2024, 0, 1 + Math.floor(rnd() * 14), Math.floor(rnd() * 24), Math.floor(rnd() * 60))).toISOString();
        events.push({ event: rnd() < 0.7 ? '$pageview' : 'signup', distinct_id: `u${p}`, timestamp: at, properties: { $browser: ['Chrome', 'Safari', 'Edge'][Math.floor(rnd() * 3)] } });
      }
    }
    pid = await project(persons, events);
  });
  const PV = { id: '$pageview', type: 'events' };

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['recurring', {}, {}],
    ['first_time, signup then pageviews, cumulative', { retentionType: 'retention_first_time', targetEntity: { id: 'signup', type: 'events' }, returningEntity: PV, cumulative: true }, {}],
    ['recurring, min 2', { minimumOccurrences: 2 }, {}],
    ['first_ever by browser, limit 2', { retentionType: 'retention_first_ever_occurrence' }, { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } }],
    ['recurring by person plan, Week', { period: 'Week', totalIntervals: 3 }, { breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' } }],
  ])('retention: %s', async (_n, rf, extra) => {
    const source = { kind: 'RetentionQuery', dateRange: { date_from: '2024-01-01', date_to: '2024-01-10' }, retentionFilter: { totalIntervals: 7, ...rf }, ...extra };
    const r = await retention(pid, source);
    const cohorts = new Map<unknown, number>();
    let nonZero = 0;
    for (const row of r.results as any[]) {
      const c = cohorts.get(row.breakdown_value) ?? 0;
      cohorts.set(row.breakdown_value, c + 1);
      if (row.values[0].count === 0) continue;
      const a = await db.run(
        actorsRunner,
        {
          kind: 'ActorsQuery',
          select: ['actor_id', 'appearances'],
          limit: 1000,
          source: { kind: 'InsightActorsQuery', source, interval: c, ...(row.breakdown_value !== null ? { breakdown: row.breakdown_value } : {}) },
        },
        pid,
      );
      const listed = row.values.map((_: unknown, k: number) => (a.results as any[]).filter((x) => x[1].includes(k)).length);
      expect(listed).toEqual(row.values.map((v: any) => v.count));
      nonZero += row.values.slice(1).filter((v: any) => v.count > 0).length;
    }
    expect(nonZero).toBeGreaterThan(0);
  });

  it.each<[string, Record<string, unknown>]>([
    ['day', { interval: 'day', dateRange: { date_from: '2024-01-02', date_to: '2024-01-12' } }],
    ['week, pro persons', { interval: 'week', dateRange: { date_from: '2024-01-01', date_to: '2024-01-20' }, properties: [{ type: 'person', key: 'plan', value: 'pro' }] }],
  ])('lifecycle: %s', async (_n, q) => {
    const source = { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: 'signup' }], ...q };
    const r = await db.run(lifecycleRunner, source, pid);
    for (const series of r.results as any[])
      for (let i = 0; i < series.days.length; i++) {
        if (!series.data[i]) continue;
        const a = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor_id'], limit: 1000, source: { kind: 'InsightActorsQuery', source, day: series.days[i], status: series.status } }, pid);
        expect([series.status, series.days[i], a.results.length]).toEqual([series.status, series.days[i], Math.abs(series.data[i])]);
      }
  });

  it.each<[string, Record<string, unknown>]>([
    ['days', {}],
    ['gte 2 a day, cumulative', { stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 2 }, computedAs: 'cumulative' } }],
    ['pairs of days, compared', { intervalCount: 2, compareFilter: { compare: true } }],
  ])('stickiness: %s', async (_n, q) => {
    const source = { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2024-01-08', date_to: '2024-01-14' }, ...q };
    const r = await db.run(stickinessRunner, source, pid);
    for (const series of r.results as any[])
      for (let k = 1; k <= series.data.length; k++) {
        const a = await db.run(
          actorsRunner,
          { kind: 'ActorsQuery', select: ['actor_id'], limit: 1000, source: { kind: 'InsightActorsQuery', source, day: k, ...(series.compare_label ? { compare: series.compare_label } : {}) } },
          pid,
        );
        expect([series.compare_label, k, a.results.length]).toEqual([series.compare_label, k, series.data[k - 1]]);
      }
  });
});

// ------------------------------------------------------------------------------------------------ bad input

describe('bad input is a 400, not an engine error or a wrong answer', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await project([{ distinct_ids: ['p'] }], [{ event: '$pageview', distinct_id: 'p', timestamp: '2024-01-01T10:00:00Z' }]);
  });
  const dateRange = { date_from: '2024-01-01', date_to: '2024-01-03' };

  it('a retention range of more than 10,000 periods is a 400 on dateRange, not a silently shortened answer', async () => {
    await expect(retention(pid, { dateRange: { date_from: '2022-01-01', date_to: '2024-01-02' }, retentionFilter: { period: 'Hour', totalIntervals: 3 } })).rejects.toMatchObject({
      status: 400,
      attr: 'dateRange',
    });
    // the same range by Day is 732 cohorts
    const r = await retention(pid, { dateRange: { date_from: '2022-01-01', date_to: '2024-01-02' }, retentionFilter: { period: 'Day', totalIntervals: 3 } });
    expect(r.results).toHaveLength(732);
    expect(r.results[730].values.map((v: any) => v.count)).toEqual([1, 0, 0]);
  });

  it('stickiness math_hogql (the actor of each event)', async () => {
    await expect(
      db.run(stickinessRunner, { kind: 'StickinessQuery', dateRange, series: [{ kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: 'count()' }] }, pid),
    ).rejects.toMatchObject({ status: 400, attr: 'series__0__math_hogql' });
    // a value of each event is an actor
    const ok = await db.run(stickinessRunner, { kind: 'StickinessQuery', dateRange, series: [{ kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: 'distinct_id' }] }, pid);
    expect(ok.results[0].data).toEqual([1, 0, 0]);
  });

  it('a ProductQL property filter (lifecycle, retention)', async () => {
    const properties = [{ type: 'hogql', key: 'count() > 1' }];
    await expect(lifecycle(pid, { dateRange, properties })).rejects.toMatchObject({ status: 400 });
    await expect(retention(pid, { properties, dateRange: { date_to: '2024-01-03' } })).rejects.toMatchObject({ status: 400 });
    // an aggregate inside a subquery is a value per row (p was created at import, after its event: resurrecting)
    const sub = [{ type: 'hogql', key: 'event IN (SELECT event FROM events GROUP BY event HAVING count() > 0)' }];
    expect(byStatus(await lifecycle(pid, { dateRange, properties: sub })).resurrecting).toEqual([1, 0, 0]);
  });
});
