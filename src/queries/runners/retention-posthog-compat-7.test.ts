/**
 * Seventh pass over PostHog's test_retention_query_runner.py: `retentionFilter.retentionReference`, which no earlier
 * compat file sends. PostHog's RetentionQueryRunner never reads it (the frontend uses it to show each interval as a
 * share of the cohort, `total`, or of the interval before, `previous`), so the counts are PostHog's own for the test
 * each case follows, whichever reference is asked for (reference §4.1: "display only"). And test_timezones across a DST
 * change with first-time cohorts, which failed on ClickHouse (the regression case names the bug).
 */
import { createInsightTestDb, type InsightTestDb, type TestEvent } from '../insights/testing';
import { PERSON1_DAY_ROWS, PERSON2_DAY_ROWS, retentionDate as _date, retentionCounts as counts, pad } from './testing';
import { retentionRunner } from './retention-runner';
import { actorsRunner } from './actors-runner';

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
