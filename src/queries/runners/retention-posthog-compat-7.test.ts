/**
 * Seventh pass over PostHog's test_retention_query_runner.py: `retentionFilter.retentionReference`, which no earlier
 * compat file sends. PostHog's RetentionQueryRunner never reads it (the frontend uses it to show each interval as a
 * share of the cohort, `total`, or of the interval before, `previous`), so the counts are PostHog's own for the test
 * each case follows, whichever reference is asked for (reference §4.1: "display only"). And test_timezones across a DST
 * change with first-time cohorts, which failed on ClickHouse (the regression case names the bug). And the cohort rows of a
 * query without a dateRange (test_query_date_range.py TestQueryDateRangeWithIntervals).
 */
import { createInsightTestDb, type InsightTestDb, type TestEvent } from '../insights/testing';
import { PERSON1_DAY_ROWS, PERSON2_DAY_ROWS, retentionDate as _date, retentionCounts as counts, pad } from './testing';
import { setInsightsClock } from '../insights/date-range';
import { retentionRunner } from './retention-runner';
import { actorsRunner } from './actors-runner';
import { insightActorsOptionsRunner } from './insight-actors-options-runner';

let db: InsightTestDb;
beforeAll(async () => {
  db = await createInsightTestDb();
});
afterAll(async () => {
  await db.close();
});

const TWO_PERSONS = [{ distinct_ids: ['person1', 'alias1'] }, { distinct_ids: ['person2'] }];
const pvs = (rows: [string, string][]): TestEvent[] => rows.map(([distinct_id, ts]) => ({ event: '$pageview', distinct_id, timestamp: `${ts}Z` }));
const retention = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) => db.run(retentionRunner, { kind: 'RetentionQuery', ...q }, pid, proj as any);

describe('retentionReference is display only (test_retention_query_runner.py)', () => {
  let days: number;
  let weeks: number;
  beforeAll(async () => {
    days = await db.project(TWO_PERSONS, pvs([...PERSON1_DAY_ROWS, ...PERSON2_DAY_ROWS]));
    weeks = await db.project(
      TWO_PERSONS,
      pvs([
        ['person1', _date(0)],
        ['person2', _date(0)],
        ['person1', _date(1)],
        ['person2', _date(1)],
        ['person1', _date(7)],
        ['person2', _date(7)],
        ['person1', _date(14)],
        ['person1', _date(-6, 1)],
        ['person2', _date(-6, 1)],
        ['person2', _date(1, 1)],
        ['person1', _date(1, 1)],
        ['person2', _date(15, 1)],
      ]),
    );
  });

  it.each(['total', 'previous'])('test_week_interval with retentionReference %s (and cumulative off)', async (retentionReference) => {
    const r = await retention(weeks, { dateRange: { date_to: _date(10, 1) }, retentionFilter: { period: 'Week', totalIntervals: 7, retentionReference, cumulative: false } });
    expect(counts(r)).toEqual(pad([[2, 2, 1, 2, 2, 0, 1], [2, 1, 2, 2, 0, 1], [1, 1, 1, 0, 0], [2, 2, 0, 1], [2, 0, 1], [0, 0], [1]]));
  });

  it('test_retention_people_basic with retentionReference previous: the actors of cohort Day 0 and their appearances', async () => {
    const source = { kind: 'RetentionQuery', dateRange: { date_to: _date(10, 0, 6) }, retentionFilter: { totalIntervals: 11, retentionReference: 'previous' } };
    const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'appearances'], source: { kind: 'InsightActorsQuery', source, interval: 0 } }, days);
    expect((r.results as any[]).map((row) => [[...row[0].distinct_ids].sort()[0], row[1]])).toEqual([['alias1', [0, 1, 2, 5, 6]]]);
  });
});

describe('test_timezones across a DST change with first-time cohorts (derived from reference §4.3 on US/Pacific local days)', () => {
  // Regression: on ClickHouse a first-time retention range holding a DST change failed with "There is no supertype for
  // types UInt64, Int8" (its one-read grid counted the non-uniform periods unsigned, then pushed a -1 beside them).
  // p1: first signup Fri Mar 6 10:00 PST, back Sun Mar 8 10:00 PDT (day 2) and Mon Mar 9 23:30 PDT (day 3).
  // p2: first signup Mar 3, before the range: in no cohort. p3: first signup Sun Mar 8 01:30 PST (the 23-hour day), a
  // pageview Mar 8 23:30 PDT (its own cohort day: no return) and Tue Mar 10 00:30 PDT (day 2).
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(
      [{ distinct_ids: ['p1'] }, { distinct_ids: ['p2'] }, { distinct_ids: ['p3'] }],
      [
        ['signup', 'p1', '2020-03-06T18:00:00'],
        ['$pageview', 'p1', '2020-03-08T17:00:00'],
        ['$pageview', 'p1', '2020-03-10T06:30:00'],
        ['signup', 'p2', '2020-03-03T18:00:00'],
        ['signup', 'p2', '2020-03-07T18:00:00'],
        ['$pageview', 'p2', '2020-03-08T18:00:00'],
        ['signup', 'p3', '2020-03-08T09:30:00'],
        ['signup', 'p3', '2020-03-09T18:00:00'],
        ['$pageview', 'p3', '2020-03-09T06:30:00'],
        ['$pageview', 'p3', '2020-03-10T07:30:00'],
      ].map(([event, distinct_id, ts]) => ({ event, distinct_id, timestamp: `${ts}Z` })),
    );
  });

  it.each(['retention_first_time', 'retention_first_ever_occurrence'])('%s', async (retentionType) => {
    const r = await retention(
      pid,
      {
        dateRange: { date_from: '2020-03-06', date_to: '2020-03-10' },
        retentionFilter: { totalIntervals: 5, retentionType, targetEntity: { id: 'signup', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
      },
      { timezone: 'US/Pacific' },
    );
    expect((r.results as any[]).map((x) => x.date)).toEqual([
      '2020-03-06T00:00:00-08:00',
      '2020-03-07T00:00:00-08:00',
      '2020-03-08T00:00:00-08:00',
      '2020-03-09T00:00:00-07:00',
      '2020-03-10T00:00:00-07:00',
    ]);
    expect(counts(r)).toEqual([
      [1, 0, 1, 1, 0],
      [0, 0, 0, 0, 0],
      [1, 0, 1, 0, 0],
      [0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0],
    ]);
  });

  it('Week periods (Monday weeks) over the same change: p1, p2 and p3 start in the week of Mar 2; p1 and p3 return in the next', async () => {
    const r = await retention(
      pid,
      {
        dateRange: { date_from: '2020-03-02', date_to: '2020-03-10' },
        retentionFilter: { period: 'Week', totalIntervals: 2, retentionType: 'retention_first_time', targetEntity: { id: 'signup', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
      },
      { timezone: 'US/Pacific', week_start_day: 1 },
    );
    expect((r.results as any[]).map((x) => x.date)).toEqual(['2020-03-02T00:00:00-08:00', '2020-03-09T00:00:00-07:00']);
    expect(counts(r)).toEqual([
      [3, 2],
      [0, 0],
    ]);
  });
});

/*
 * posthog/hogql_queries/utils/test/test_query_date_range.py TestQueryDateRangeWithIntervals: no dateRange, 5 intervals,
 * now = 2021-08-25T00:00:00Z. date_to = the start of the interval after now's (Day: Aug 26 00:00, Hour: Aug 25 01:00),
 * date_from = 5 intervals before it (Day: Aug 21, Hour: Aug 24 20:00, Week: Sunday Jul 25, Month: Apr 1): those are the
 * five cohort rows, and events just outside either bound are in none of them.
 * One person's pageviews: e1 Apr 1 00:00, e9 Mar 31 23:59 (before the Month rows); e2 Sun Jul 25 00:00, e8 Jul 24 23:59
 * (before the Week rows); e3 Sat Aug 21 00:00, e7 Aug 20 23:59 (before the Day rows); e4 Aug 24 20:00, e6 Aug 24 19:59
 * (before the Hour rows); e5 Aug 25 00:30; e10 Aug 25 01:00 (after the Hour rows, in the last Day row).
 */
describe('test_query_date_range.py TestQueryDateRangeWithIntervals: cohort rows without a dateRange (5 intervals, now 2021-08-25T00:00Z)', () => {
  let pid: number;
  let restore: () => void;
  beforeAll(async () => {
    restore = setInsightsClock(new Date('2021-08-25T00:00:00Z'));
    pid = await db.project(
      [{ distinct_ids: ['p1'] }],
      pvs(
        ['2021-04-01T00:00:00', '2021-03-31T23:59:00', '2021-07-25T00:00:00', '2021-07-24T23:59:00', '2021-08-21T00:00:00', '2021-08-20T23:59:00'].map((t) => ['p1', t] as [string, string]).concat(
          ['2021-08-24T20:00:00', '2021-08-24T19:59:00', '2021-08-25T00:30:00', '2021-08-25T01:00:00'].map((t) => ['p1', t] as [string, string]),
        ),
      ),
    );
  });
  afterAll(() => restore());

  it.each<[string, string[], number[]]>([
    ['Day', ['2021-08-21', '2021-08-22', '2021-08-23', '2021-08-24', '2021-08-25'].map((d) => `${d}T00:00:00Z`), [1, 0, 0, 1, 1]],
    ['Hour', ['2021-08-24T20', '2021-08-24T21', '2021-08-24T22', '2021-08-24T23', '2021-08-25T00'].map((d) => `${d}:00:00Z`), [1, 0, 0, 0, 1]],
    ['Week', ['2021-07-25', '2021-08-01', '2021-08-08', '2021-08-15', '2021-08-22'].map((d) => `${d}T00:00:00Z`), [1, 0, 0, 1, 1]],
    ['Month', ['2021-04-01', '2021-05-01', '2021-06-01', '2021-07-01', '2021-08-01'].map((d) => `${d}T00:00:00Z`), [1, 0, 0, 1, 1]],
  ])('%s', async (period, dates, cohortSizes) => {
    const r = await retention(pid, { retentionFilter: { period, totalIntervals: 5 } });
    expect((r.results as any[]).map((x) => x.date)).toEqual(dates);
    expect((r.results as any[]).map((x) => x.values[0].count)).toEqual(cohortSizes);
  });
});

/*
 * The default totalIntervals. PostHog's RetentionFilter model has `totalIntervals: Optional[int] = 8` (the schema's
 * `@default 8`, filled in by pydantic when the key is absent), so the runner's `totalIntervals or
 * DEFAULT_TOTAL_INTERVALS` (7) only answers an explicit null or 0. test_retention_default runs `retentionFilter: {}`
 * unfrozen on the day layout: eight cohort rows ending today, all zeros (the 2020 events are long before them).
 */
describe('test_retention_default: no totalIntervals is 8 intervals (the schema default); null or 0 is the runner fallback, 7', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(TWO_PERSONS, pvs([...PERSON1_DAY_ROWS, ...PERSON2_DAY_ROWS]));
  });

  it('test_retention_default: retentionFilter {} unfrozen is an 8 × 8 grid of zeros', async () => {
    const r = await retention(pid, { retentionFilter: {} });
    expect(counts(r)).toEqual(pad([[0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]));
    expect((r.results as any[]).map((x) => x.label)).toEqual(Array.from({ length: 8 }, (_, i) => `Day ${i}`));
  });

  it.each<[string, number, Record<string, unknown>]>([
    ['absent', 8, {}],
    ['null', 7, { totalIntervals: null }],
    ['0', 7, { totalIntervals: 0 }],
  ])('frozen on day 7 (Jun 17): totalIntervals %s gives %i rows of as many values', async (_label, n, filter) => {
    const restore = setInsightsClock(new Date('2020-06-17T10:00:00Z'));
    try {
      const r = await retention(pid, { retentionFilter: filter });
      const rows = r.results as any[];
      expect(rows).toHaveLength(n);
      expect(rows[rows.length - 1].date).toBe('2020-06-17T00:00:00Z');
      expect(rows[0].values).toHaveLength(n);
      // person1 on days 0, 1, 2, 5, 6; person2 on days 1, 2, 3, 6 (day 7: nobody)
      const full = [
        [1, 1, 1, 0, 0, 1, 1, 0],
        [2, 2, 1, 0, 1, 2, 0, 0],
        [2, 1, 0, 1, 2, 0, 0, 0],
        [1, 0, 0, 1, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0, 0, 0],
        [2, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
      ];
      expect(counts(r)).toEqual(full.slice(8 - n).map((row) => row.slice(0, n)));
    } finally {
      restore();
    }
  });

  it('the actors of the eighth row (frozen on day 6, Jun 16): the cohort rows of the options and of the actors are those of the answer', async () => {
    const restore = setInsightsClock(new Date('2020-06-16T10:00:00Z'));
    try {
      const source = { kind: 'RetentionQuery', retentionFilter: {} };
      const options = await db.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source } }, pid);
      expect(options.interval.map((o: any) => o.label)).toEqual(Array.from({ length: 8 }, (_, i) => `Day ${i}`));
      // row 7 is Jun 16 (day 6): person1 and person2 start a cohort there; nobody returns within the range
      const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'appearances'], source: { kind: 'InsightActorsQuery', source, interval: 7 } }, pid);
      expect((r.results as any[]).map((row) => [[...row[0].distinct_ids].sort()[0], row[1]]).sort()).toEqual([
        ['alias1', [0]],
        ['person2', [0]],
      ]);
      const explicitNull = await db.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source: { ...source, retentionFilter: { totalIntervals: null } } } }, pid);
      expect(explicitNull.interval).toHaveLength(7);
    } finally {
      restore();
    }
  });
});
