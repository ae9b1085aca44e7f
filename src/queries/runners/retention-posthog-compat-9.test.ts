/**
 * Ninth pass over PostHog's test_retention_query_runner.py (and posthog/queries/test/test_retention.py as the runner
 * answers it): the cases the earlier compat files (retention-lifecycle-stickiness-posthog-compat, rsl-posthog-compat-2/-3,
 * retention-posthog-compat-4 … -8, retention/retention.test.ts) do not pin — PostHog's own
 * `_create_first_time_retention_events` layout (persons 3 and 4 signing up inside the range) under each retention type,
 * window mode, cumulative, minimumOccurrences and one-interval brackets, and the actors of its cohorts
 * (test_retention_people_in_period_first_time); bracket labels by Month and Hour; Week and "today" boundaries in a
 * project timezone; Month cohorts over a year boundary; numeric breakdown values, breakdown_limit at the number of
 * values, test-account filters under a breakdown; hogql and person filters on one entity; all events as one entity;
 * groups with a breakdown, cumulative and minimumOccurrences; personless first-time cohorts; an action of a filtered
 * step as the returning entity; session, event-metadata and entity cohort filters; days and weeks east of UTC read one
 * actor at a time; the schema's refusals. Where PostHog's exact fixture could not be recalled the expected
 * counts are derived from reference §4.1–§4.3 and the comments derive them.
 */
import { actionRegistry, actionStep, createInsightTestDb, type InsightTestDb, type TestEvent, type TestPerson } from '../insights/testing';
import { retentionDate as _date, retentionEvent as ev, retentionEvents as evs, retentionCounts as counts, pad } from './testing';
import { setInsightsClock } from '../insights/date-range';
import { runWithCohorts, type ResolvedCohort } from '../../cohorts/cohort-scope';
import { retentionRunner } from './retention-runner';
import { actorsRunner } from './actors-runner';

let db: InsightTestDb;
const { source: actionSource, action } = actionRegistry(2100);
beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
});
afterAll(async () => {
  await db.close();
});

const OTHER = '$$_posthog_breakdown_other_$$';
const people = (...ids: string[]): TestPerson[] => ids.map((id) => ({ distinct_ids: [id] }));
const retention = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(retentionRunner, { kind: 'RetentionQuery', retentionFilter: {}, ...q }, pid, proj as any);
const pluck = (r: any, key: string) => (r.results as any[]).map((x) => x[key]);
/** [breakdown_value, counts] per cohort row. */
const blocks = (r: any) => (r.results as any[]).map((x) => [x.breakdown_value, x.values.map((v: any) => v.count)]);
/**
 * The actors of cohort row `interval` as [distinct ids, appearances], asked for in PostHog's run_actors_query order
 * (`length(appearances) DESC, actor_id`); actors with as many appearances are sorted by distinct id here, as
 * actor_id is a random person uuid.
 */
async function actorsOf(pid: number, source: Record<string, unknown>, interval: number, proj: Record<string, unknown> = {}): Promise<[string, number[]][]> {
  const r = await db.run(
    actorsRunner,
    { kind: 'ActorsQuery', select: ['person', 'appearances'], orderBy: ['length(appearances) DESC', 'actor_id'], source: { kind: 'InsightActorsQuery', source, interval } },
    pid,
    proj as any,
  );
  const rows = (r.results as any[]).map((row): [string, number[]] => [[...row[0].distinct_ids].sort().join(','), row[1]]);
  expect(rows.map((x) => x[1].length)).toEqual(rows.map((x) => x[1].length).sort((a, b) => b - a));
  return rows.sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
async function withClock<T>(at: string, fn: () => Promise<T>): Promise<T> {
  const restore = setInsightsClock(new Date(at));
  try {
    return await fn();
  } finally {
    restore();
  }
}

describe('test_retention_query_runner.py: _create_first_time_retention_events', () => {
  // $user_signed_up: shouldnt_include on days -5 and -1; person1 on -1, 1, 2, 3, 4; person2 on -1; person3 on 0;
  // person4 on 2. $pageview: person1 on 0, 1, 2, 5 (alias1 on 5 at 09:00 too), 6; person2 on 1, 2, 3, 6; person3 on
  // 1, 3, 4, 5; person4 on 3, 5.
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(
      [{ distinct_ids: ['person1', 'alias1'] }, ...people('person2', 'person3', 'person4', 'shouldnt_include')],
      [
        ...evs(
          [
            ['shouldnt_include', _date(-5)],
            ['shouldnt_include', _date(-1)],
            ['person1', _date(-1)],
            ['person1', _date(1)],
            ['person1', _date(2)],
            ['person1', _date(3)],
            ['person1', _date(4)],
            ['person2', _date(-1)],
            ['person3', _date(0)],
            ['person4', _date(2)],
          ],
          '$user_signed_up',
        ),
        ...evs([
          ['person1', _date(0)],
          ['person1', _date(1)],
          ['person1', _date(2)],
          ['person1', _date(5)],
          ['alias1', _date(5, 0, 9)],
          ['person1', _date(6)],
          ['person2', _date(1)],
          ['person2', _date(2)],
          ['person2', _date(3)],
          ['person2', _date(6)],
          ['person3', _date(1)],
          ['person3', _date(3)],
          ['person3', _date(4)],
          ['person3', _date(5)],
          ['person4', _date(3)],
          ['person4', _date(5)],
        ]),
      ],
    );
  });
  const filter = (extra: Record<string, unknown> = {}) => ({
    period: 'Day',
    totalIntervals: 7,
    retentionType: 'retention_first_time',
    targetEntity: { id: '$user_signed_up', type: 'events' },
    returningEntity: { id: '$pageview', type: 'events' },
    ...extra,
  });
  const source = (extra: Record<string, unknown> = {}) => ({ kind: 'RetentionQuery', dateRange: { date_to: _date(5, 0, 6) }, retentionFilter: filter(extra) });
  // days -1 .. 5: person1 and person2 first signed up on day -1, person3 on day 0, person4 on day 2
  const FIRST_TIME = pad([[2, 1, 2, 2, 1, 0, 1], [1, 1, 0, 1, 1, 1], [0, 0, 0, 0, 0], [1, 1, 0, 1], [0, 0, 0], [0, 0], [0]]);

  it('test_first_time_retention: labels, the first cohort date and the counts', async () => {
    const r = await retention(pid, source());
    expect(pluck(r, 'label')).toEqual(['Day 0', 'Day 1', 'Day 2', 'Day 3', 'Day 4', 'Day 5', 'Day 6']);
    expect(r.results[0].date).toBe('2020-06-09T00:00:00Z');
    expect(r.results[6].date).toBe('2020-06-15T00:00:00Z');
    expect(counts(r)).toEqual(FIRST_TIME);
  });

  it('retention_first_ever_occurrence: the target has no filters, so the first-ever signup is the first matching one', async () => {
    expect(counts(await retention(pid, source({ retentionType: 'retention_first_ever_occurrence' })))).toEqual(FIRST_TIME);
  });

  it('retention_recurring over the same layout: every signup day is a cohort (shouldnt_include on day -1 too)', async () => {
    // day -1: shouldnt_include, person1, person2; day 0: person3; day 1: person1; day 2: person1, person4; day 3 and 4: person1
    expect(counts(await retention(pid, source({ retentionType: 'retention_recurring' })))).toEqual([
      [3, 1, 2, 2, 1, 0, 1],
      [1, 1, 0, 1, 1, 1, 0],
      [1, 1, 0, 0, 1, 0, 0],
      [2, 1, 0, 2, 0, 0, 0],
      [1, 0, 1, 0, 0, 0, 0],
      [1, 1, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
    ]);
  });

  it('24_hour_windows: every event is at midnight, so the 24-hour units are the calendar days (alias1 at 09:00 on day 5 is still unit 6)', async () => {
    expect(counts(await retention(pid, source({ timeWindowMode: '24_hour_windows' })))).toEqual(FIRST_TIME);
  });

  it('cumulative first-time retention: each person counts on every day up to its last return', async () => {
    // person1 back 1, 2, 3, 6 days later, person2 2, 3, 4; person3 1, 3, 4, 5; person4 1, 3
    expect(counts(await retention(pid, source({ cumulative: true })))).toEqual([
      [2, 2, 2, 2, 2, 1, 1],
      [1, 1, 1, 1, 1, 1, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [1, 1, 1, 1, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
    ]);
  });

  it('minimumOccurrences 2: only day 5 of person1 (a pageview of person1 and one of alias1) is a return', async () => {
    expect(counts(await retention(pid, source({ minimumOccurrences: 2 })))).toEqual([
      [2, 0, 0, 0, 0, 0, 1],
      [1, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
    ]);
  });

  it('retentionCustomBrackets of size 1 give the plain intervals, labelled "Day 1" … "Day 6"', async () => {
    const r = await retention(pid, source({ retentionCustomBrackets: [1, 1, 1, 1, 1, 1] }));
    expect(r.results[0].values.map((v: any) => v.label)).toEqual(['Day 0', 'Day 1', 'Day 2', 'Day 3', 'Day 4', 'Day 5', 'Day 6']);
    expect(counts(r)).toEqual(FIRST_TIME);
  });

  it('test_retention_people_in_period_first_time: the actors of cohort Day 0 (date_to day 10 at 06:00, 11 intervals)', async () => {
    const q = { kind: 'RetentionQuery', dateRange: { date_to: _date(10, 0, 6) }, retentionFilter: filter({ totalIntervals: 11 }) };
    expect(await actorsOf(pid, q, 0)).toEqual([['person3', [0, 1, 3, 4, 5]]]);
    expect(await actorsOf(pid, q, 2)).toEqual([['person4', [0, 1, 3]]]);
    // person1 and person2 first signed up before the range
    expect(await actorsOf(pid, q, 1)).toEqual([]);
  });

  it('the actors of the first cohort of test_first_time_retention: returns after date_to are not appearances', async () => {
    expect(await actorsOf(pid, source(), 0)).toEqual([
      ['alias1,person1', [0, 1, 2, 3, 6]],
      ['person2', [0, 2, 3, 4]],
    ]);
  });
});

describe('retentionCustomBrackets by Month and by Hour (reference §4.2: labels "<Period> i" or "<Period> i-j")', () => {
  it('Month brackets [1, 2]: "Month 1", then "Month 2-3"', async () => {
    // p1: Jan 15, Feb 3, Apr 20; p2: Feb 10, Mar 1
    const pid = await db.project(people('p1', 'p2'), [
      ev('p1', '2020-01-15T12:00:00'),
      ev('p1', '2020-02-03T12:00:00'),
      ev('p1', '2020-04-20T12:00:00'),
      ev('p2', '2020-02-10T12:00:00'),
      ev('p2', '2020-03-01T00:00:00'),
    ]);
    const r = await retention(pid, { dateRange: { date_from: '2020-01-01', date_to: '2020-04-30' }, retentionFilter: { period: 'Month', retentionCustomBrackets: [1, 2] } });
    expect(pluck(r, 'label')).toEqual(['Month 0', 'Month 1', 'Month 2', 'Month 3']);
    expect(pluck(r, 'date')).toEqual(['2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z', '2020-03-01T00:00:00Z', '2020-04-01T00:00:00Z']);
    expect(r.results[0].values.map((v: any) => v.label)).toEqual(['Month 0', 'Month 1', 'Month 2-3']);
    // Jan: p1 back in Feb (1) and Apr (3); Feb: p1 back in Apr (2), p2 in Mar (1)
    expect(counts(r)).toEqual([
      [1, 1, 1],
      [2, 1, 1],
      [1, 0, 0],
      [1, 0, 0],
    ]);
  });

  it('Hour brackets [2]: one bracket "Hour 1-2"; a return in the cohort hour is none', async () => {
    // a: 10:05 and 12:30; b: 11:10, 11:50 and 13:00
    const pid = await db.project(people('a', 'b'), [
      ev('a', '2020-06-10T10:05:00'),
      ev('a', '2020-06-10T12:30:00'),
      ev('b', '2020-06-10T11:10:00'),
      ev('b', '2020-06-10T11:50:00'),
      ev('b', '2020-06-10T13:00:00'),
    ]);
    const r = await retention(pid, {
      dateRange: { date_from: '2020-06-10T10:00:00', date_to: '2020-06-10T13:00:00' },
      retentionFilter: { period: 'Hour', retentionCustomBrackets: [2] },
    });
    expect(r.results[0].values.map((v: any) => v.label)).toEqual(['Hour 0', 'Hour 1-2']);
    expect(counts(r)).toEqual([
      [1, 1],
      [1, 1],
      [1, 0],
      [1, 0],
    ]);
  });
});

describe('test_timezones: Week periods and ranges ending today in US/Pacific (reference §1.5, §4.3)', () => {
  // a: Jun 10 18:00 UTC and Jun 14 03:00 UTC (Saturday Jun 13 20:00 in Los Angeles); b: Jun 14 03:00 UTC and Jun 15 12:00
  // UTC; c: Jun 14 08:00 UTC (Sunday Jun 14 01:00 in Los Angeles)
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(people('a', 'b', 'c'), [
      ev('a', '2020-06-10T18:00:00'),
      ev('a', '2020-06-14T03:00:00'),
      ev('b', '2020-06-14T03:00:00'),
      ev('b', '2020-06-15T12:00:00'),
      ev('c', '2020-06-14T08:00:00'),
    ]);
  });
  const source = { kind: 'RetentionQuery', dateRange: { date_from: '2020-06-10', date_to: '2020-06-20' }, retentionFilter: { period: 'Week', totalIntervals: 2 } };
  const LA = { timezone: 'America/Los_Angeles' };

  it('a Saturday evening in Los Angeles is a Sunday in UTC: the weeks differ by zone', async () => {
    const la = await retention(pid, source, LA);
    expect(pluck(la, 'date')).toEqual(['2020-06-07T00:00:00-07:00', '2020-06-14T00:00:00-07:00']);
    expect(counts(la)).toEqual([
      [2, 1],
      [2, 0],
    ]);
    const utc = await retention(pid, source);
    expect(pluck(utc, 'date')).toEqual(['2020-06-07T00:00:00Z', '2020-06-14T00:00:00Z']);
    expect(counts(utc)).toEqual([
      [1, 1],
      [3, 0],
    ]);
  });

  it('the actors of the local weeks: a is in the first week only, b returns', async () => {
    expect(await actorsOf(pid, source, 0, LA)).toEqual([
      ['b', [0, 1]],
      ['a', [0]],
    ]);
    expect(await actorsOf(pid, source, 1, LA)).toEqual([
      ['b', [0]],
      ['c', [0]],
    ]);
  });

  it('without dateRange the last cohort is today in the project timezone (frozen at Jun 17 03:00 UTC = Jun 16 20:00 local)', async () => {
    // a: Jun 15 06:00 UTC (Jun 14 local) and Jun 17 02:00 UTC (Jun 16 local); b: Jun 16 08:00 UTC and Jun 17 02:30 UTC
    // (both Jun 16 local)
    const today = await db.project(people('a', 'b'), [
      ev('a', '2020-06-15T06:00:00'),
      ev('a', '2020-06-17T02:00:00'),
      ev('b', '2020-06-16T08:00:00'),
      ev('b', '2020-06-17T02:30:00'),
    ]);
    await withClock('2020-06-17T03:00:00Z', async () => {
      const la = await retention(today, { retentionFilter: { totalIntervals: 3 } }, LA);
      expect(pluck(la, 'date')).toEqual(['2020-06-14T00:00:00-07:00', '2020-06-15T00:00:00-07:00', '2020-06-16T00:00:00-07:00']);
      expect(counts(la)).toEqual([
        [1, 0, 1],
        [0, 0, 0],
        [2, 0, 0],
      ]);
      const utc = await retention(today, { retentionFilter: { totalIntervals: 3 } });
      expect(pluck(utc, 'date')).toEqual(['2020-06-15T00:00:00Z', '2020-06-16T00:00:00Z', '2020-06-17T00:00:00Z']);
      expect(counts(utc)).toEqual([
        [1, 0, 1],
        [1, 1, 0],
        [2, 0, 0],
      ]);
    });
  });
});

describe('test_month_interval over a year boundary (reference §4.3)', () => {
  // a: Nov 15 2019, Jan 5 2020; b: Oct 20 2019 (before the range), Dec 1 2019, Feb 28 2020; c: Dec 31 2019 23:00 and
  // Jan 1 2020 01:00
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(people('a', 'b', 'c'), [
      ev('a', '2019-11-15T12:00:00'),
      ev('a', '2020-01-05T12:00:00'),
      ev('b', '2019-10-20T12:00:00'),
      ev('b', '2019-12-01T12:00:00'),
      ev('b', '2020-02-28T12:00:00'),
      ev('c', '2019-12-31T23:00:00'),
      ev('c', '2020-01-01T01:00:00'),
    ]);
  });
  const q = (retentionType: string) => ({ dateRange: { date_from: '2019-11-01', date_to: '2020-02-15' }, retentionFilter: { period: 'Month', totalIntervals: 4, retentionType } });

  it('recurring: Nov, Dec, Jan, Feb', async () => {
    const r = await retention(pid, q('retention_recurring'));
    expect(pluck(r, 'date')).toEqual(['2019-11-01T00:00:00Z', '2019-12-01T00:00:00Z', '2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z']);
    expect(counts(r)).toEqual([
      [1, 0, 1, 0],
      [2, 1, 1, 0],
      [2, 0, 0, 0],
      [1, 0, 0, 0],
    ]);
  });

  it('retention_first_time: b first came in October, so it is in no cohort', async () => {
    expect(counts(await retention(pid, q('retention_first_time')))).toEqual([
      [1, 0, 1, 0],
      [1, 1, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
  });
});

describe('date bounds by Day (reference §4.3)', () => {
  // a: Jun 11 12:00, Jun 12 23:59:59 and Jun 13 00:00:00
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(people('a'), [ev('a', '2020-06-11T12:00:00'), ev('a', '2020-06-12T23:59:59'), ev('a', '2020-06-13T00:00:00')]);
  });

  it('the last second of date_to\'s day is in the range, midnight after it is not', async () => {
    expect(counts(await retention(pid, { dateRange: { date_from: '2020-06-11', date_to: '2020-06-12' }, retentionFilter: { totalIntervals: 2 } }))).toEqual([
      [1, 1],
      [1, 0],
    ]);
  });

  it('date_from = date_to: one cohort row; returns after it are not seen', async () => {
    const r = await retention(pid, { dateRange: { date_from: '2020-06-11', date_to: '2020-06-11' }, retentionFilter: { totalIntervals: 3 } });
    expect(pluck(r, 'label')).toEqual(['Day 0']);
    expect(counts(r)).toEqual([[1, 0, 0]]);
  });

  // relative_date_parse_with_delta_mapping: "Fallback to also parse dates without zero-padding, e.g. 2021-1-1" (as
  // QueryDateRange reads the other insights' dates); a day the month lacks is not a date, not the next day
  it('a date without zero padding (2020-6-11) is 2020-06-11; 2020-06-31 is a 400, not July 1', async () => {
    const padded = await retention(pid, { dateRange: { date_from: '2020-06-11', date_to: '2020-06-12' }, retentionFilter: { totalIntervals: 2 } });
    const unpadded = await retention(pid, { dateRange: { date_from: '2020-6-11', date_to: '2020-6-12' }, retentionFilter: { totalIntervals: 2 } });
    expect([pluck(unpadded, 'date'), counts(unpadded)]).toEqual([pluck(padded, 'date'), counts(padded)]);
    expect(pluck(unpadded, 'date')).toEqual(['2020-06-11T00:00:00Z', '2020-06-12T00:00:00Z']);
    await expect(retention(pid, { dateRange: { date_from: '2020-06-11', date_to: '2020-06-31' } })).rejects.toMatchObject({ status: 400 });
    await expect(retention(pid, { dateRange: { date_from: '2020-02-30', date_to: '2020-06-12' } })).rejects.toMatchObject({ status: 400 });
  });

  // RetentionQueryRunner's `date` is date_from() + timedelta(days=i), Python wall-clock arithmetic on aware datetimes:
  // a day whose midnight falls in a DST gap keeps 00:00 with the offset from before the gap (fold=0)
  it('cohort dates in America/Santiago, whose clocks skip 00:00–01:00 on 2022-09-11: 00:00 with the offset before the gap', async () => {
    // s: Sep 10 08:00, Sep 11 09:00 and Sep 12 00:30 (local); t: Sep 12 00:30 and Sep 13 00:30 (local): the Sep 12 00:30
    // events are in Sep 12's cohort, which starts at its own midnight (not at 01:00 as Sep 11 does)
    const p = await db.project(people('s', 't'), [
      ev('s', '2022-09-10T12:00:00'),
      ev('s', '2022-09-11T12:00:00'),
      ev('s', '2022-09-12T03:30:00'),
      ev('t', '2022-09-12T03:30:00'),
      ev('t', '2022-09-13T03:30:00'),
    ]);
    const r = await retention(p, { dateRange: { date_from: '2022-09-10', date_to: '2022-09-13' }, retentionFilter: { totalIntervals: 4 } }, { timezone: 'America/Santiago' });
    expect(pluck(r, 'date')).toEqual(['2022-09-10T00:00:00-04:00', '2022-09-11T00:00:00-04:00', '2022-09-12T00:00:00-03:00', '2022-09-13T00:00:00-03:00']);
    expect(counts(r)).toEqual([
      [1, 1, 1, 0],
      [1, 1, 0, 0],
      [2, 1, 0, 0],
      [1, 0, 0, 0],
    ]);
  });
});

describe('breakdowns (reference §1.6, §4.3)', () => {
  describe('a numeric event property', () => {
    // a: n = 5 on days 0 and 1; b: n = 2.5 on day 0; c: n = 5 on day 1
    let pid: number;
    beforeAll(async () => {
      pid = await db.project(people('a', 'b', 'c'), [ev('a', _date(0), { n: 5 }), ev('a', _date(1), { n: 5 }), ev('b', _date(0), { n: 2.5 }), ev('c', _date(1), { n: 5 })]);
    });
    const q = (breakdown_limit?: number) => ({
      dateRange: { date_from: _date(0), date_to: _date(1) },
      retentionFilter: { totalIntervals: 2 },
      breakdownFilter: { breakdown: 'n', breakdown_type: 'event', ...(breakdown_limit ? { breakdown_limit } : {}) },
    });

    it('the values are the property\'s text: "5" and "2.5"', async () => {
      expect(blocks(await retention(pid, q()))).toEqual([
        ['5', [1, 1]],
        ['5', [2, 0]],
        ['2.5', [1, 0]],
        ['2.5', [0, 0]],
      ]);
    });

    it('breakdown_limit at the number of values: no Other block; one less: the smaller value is Other', async () => {
      expect(blocks(await retention(pid, q(2))).map((b) => b[0])).toEqual(['5', '5', '2.5', '2.5']);
      expect(blocks(await retention(pid, q(1)))).toEqual([
        ['5', [1, 1]],
        ['5', [2, 0]],
        [OTHER, [1, 0]],
        [OTHER, [0, 0]],
      ]);
    });
  });

  it('test_filter_test_accounts with a person property breakdown: the test person leaves its block', async () => {
    const pid = await db.project(
      [
        { distinct_ids: ['p1'], properties: { email: 'p1@example.com', plan: 'pro' } },
        { distinct_ids: ['p2'], properties: { email: 'p2@posthog.com', plan: 'pro' } },
        { distinct_ids: ['p3'], properties: { email: 'p3@example.com', plan: 'free' } },
      ],
      [ev('p1', _date(0)), ev('p1', _date(1)), ev('p2', _date(0)), ev('p2', _date(1)), ev('p3', _date(0))],
    );
    const proj = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
    const q = (filterTestAccounts: boolean) => ({
      dateRange: { date_from: _date(0), date_to: _date(1) },
      filterTestAccounts,
      retentionFilter: { totalIntervals: 2 },
      breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
    });
    expect(blocks(await retention(pid, q(false), proj))).toEqual([
      ['pro', [2, 2]],
      ['pro', [2, 0]],
      ['free', [1, 0]],
      ['free', [0, 0]],
    ]);
    expect(blocks(await retention(pid, q(true), proj))).toEqual([
      ['pro', [1, 1]],
      ['pro', [1, 0]],
      ['free', [1, 0]],
      ['free', [0, 0]],
    ]);
  });

  it('test_groups_aggregating with an event property breakdown: groups per value, events without the group left out', async () => {
    // Chrome: org:1 on days 0 (u1) and 1 (u2), org:3 on day 2; Safari: org:2 on days 0 and 2; u3's Chrome pageview has no group
    const g = (key: string, $browser: string) => ({ $group_0: key, $browser });
    const pid = await db.project(people('u1', 'u2', 'u3'), [
      ev('u1', _date(0), g('org:1', 'Chrome')),
      ev('u2', _date(1), g('org:1', 'Chrome')),
      ev('u1', _date(2), g('org:3', 'Chrome')),
      ev('u2', _date(0), g('org:2', 'Safari')),
      ev('u3', _date(2), g('org:2', 'Safari')),
      ev('u3', _date(0), { $browser: 'Chrome' }),
    ]);
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(2) },
      aggregation_group_type_index: 0,
      retentionFilter: { totalIntervals: 3 },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    });
    expect(blocks(r)).toEqual([
      ['Chrome', [1, 1, 0]],
      ['Chrome', [1, 0, 0]],
      ['Chrome', [1, 0, 0]],
      ['Safari', [1, 0, 1]],
      ['Safari', [0, 0, 0]],
      ['Safari', [1, 0, 0]],
    ]);
  });
});

describe('entity filters (test_retention_with_properties / test_retention_with_user_properties, reference §4.3)', () => {
  it('a hogql property filter on the target entity picks the cohort events only', async () => {
    // a: pro on day 0, free on day 1; b: free on day 0, pro on day 1, free on day 2
    const pid = await db.project(people('a', 'b'), [
      ev('a', _date(0), { plan: 'pro' }),
      ev('a', _date(1), { plan: 'free' }),
      ev('b', _date(0), { plan: 'free' }),
      ev('b', _date(1), { plan: 'pro' }),
      ev('b', _date(2), { plan: 'free' }),
    ]);
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: {
        totalIntervals: 3,
        targetEntity: { id: '$pageview', type: 'events', properties: [{ type: 'hogql', key: "properties.plan = 'pro'" }] },
        returningEntity: { id: '$pageview', type: 'events' },
      },
    });
    expect(counts(r)).toEqual([
      [1, 1, 0],
      [1, 1, 0],
      [0, 0, 0],
    ]);
  });

  it('a person property filter on the returning entity: only that person\'s returns count', async () => {
    const pid = await db.project(
      [
        { distinct_ids: ['a'], properties: { plan: 'pro' } },
        { distinct_ids: ['b'], properties: { plan: 'free' } },
      ],
      [ev('a', _date(0), {}, 'sign up'), ev('a', _date(1)), ev('b', _date(0), {}, 'sign up'), ev('b', _date(1)), ev('b', _date(2))],
    );
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: {
        totalIntervals: 3,
        targetEntity: { id: 'sign up', type: 'events' },
        returningEntity: { id: '$pageview', type: 'events', properties: [{ type: 'person', key: 'plan', value: 'pro', operator: 'exact' }] },
      },
    });
    expect(counts(r)).toEqual([
      [2, 1, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('global properties and target entity properties both apply to cohort events; the global ones to returns too', async () => {
    // a: Chrome pro on day 0, Chrome on day 1; b: Safari pro on day 0, Chrome on day 1; c: Chrome pro on day 0, Safari on day 1
    const pid = await db.project(people('a', 'b', 'c'), [
      ev('a', _date(0), { $browser: 'Chrome', plan: 'pro' }),
      ev('a', _date(1), { $browser: 'Chrome' }),
      ev('b', _date(0), { $browser: 'Safari', plan: 'pro' }),
      ev('b', _date(1), { $browser: 'Chrome' }),
      ev('c', _date(0), { $browser: 'Chrome', plan: 'pro' }),
      ev('c', _date(1), { $browser: 'Safari' }),
    ]);
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(2) },
      properties: [{ type: 'event', key: '$browser', value: 'Chrome', operator: 'exact' }],
      retentionFilter: {
        totalIntervals: 3,
        targetEntity: { id: '$pageview', type: 'events', properties: [{ type: 'event', key: 'plan', value: 'pro', operator: 'exact' }] },
        returningEntity: { id: '$pageview', type: 'events' },
      },
    });
    expect(counts(r)).toEqual([
      [2, 1, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('test_retention_event_action with a filtered step as the returning entity: only Chrome pageviews are returns', async () => {
    const chrome = action('chrome pageview', [actionStep('$pageview', [{ key: '$browser', value: 'Chrome', type: 'event', operator: 'exact' }])]);
    const pid = await db.project(people('a', 'b'), [
      ev('a', _date(0), {}, 'sign up'),
      ev('a', _date(1), { $browser: 'Safari' }),
      ev('a', _date(2), { $browser: 'Chrome' }),
      ev('b', _date(0), {}, 'sign up'),
      ev('b', _date(1), { $browser: 'Chrome' }),
    ]);
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, targetEntity: { id: 'sign up', type: 'events' }, returningEntity: { id: chrome, type: 'actions' } },
    });
    expect(counts(r)).toEqual([
      [2, 1, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('test_retention_any_event as the returning entity only: any event after the cohort day is a return', async () => {
    // a: sign up day 0, "other" day 1, sign up day 2; b: sign up day 1
    const pid = await db.project(people('a', 'b'), [ev('a', _date(0), {}, 'sign up'), ev('a', _date(1), {}, 'other'), ev('a', _date(2), {}, 'sign up'), ev('b', _date(1), {}, 'sign up')]);
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, targetEntity: { id: 'sign up', type: 'events' }, returningEntity: { id: null, type: 'events' } },
    });
    expect(counts(r)).toEqual([
      [1, 1, 1],
      [1, 0, 0],
      [1, 0, 0],
    ]);
  });

  it('test_retention_any_event as the target entity only: every day with any event is a cohort; only purchases return', async () => {
    // a: "x" on day 0, purchase on day 1; b: purchase on day 0, "y" on day 2
    const pid = await db.project(people('a', 'b'), [ev('a', _date(0), {}, 'x'), ev('a', _date(1), {}, 'purchase'), ev('b', _date(0), {}, 'purchase'), ev('b', _date(2), {}, 'y')]);
    const r = await retention(pid, {
      dateRange: { date_from: _date(0), date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, targetEntity: { id: null, type: 'events' }, returningEntity: { id: 'purchase', type: 'events' } },
    });
    expect(counts(r)).toEqual([
      [2, 1, 0],
      [1, 0, 0],
      [1, 0, 0],
    ]);
  });
});

describe('session, event-metadata and cohort filters (reference §1.4: global filters on start and return events, entity filters on their own events)', () => {
  // a (pro): session s1 on day 0 (00:00 and 01:00: an hour long), session s2 on day 1 (one event); b: s3 on day 0, s4 on day 2
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(
      [{ distinct_ids: ['a'], properties: { plan: 'pro' } }, { distinct_ids: ['b'] }],
      [
        ev('a', _date(0), { $session_id: 's1' }),
        ev('a', _date(0, 0, 1), { $session_id: 's1' }),
        ev('a', _date(1), { $session_id: 's2' }),
        ev('b', _date(0), { $session_id: 's3' }),
        ev('b', _date(2), { $session_id: 's4' }),
      ],
    );
  });
  const q = (extra: Record<string, unknown>) => ({ dateRange: { date_from: _date(0), date_to: _date(2) }, retentionFilter: { totalIntervals: 3 }, ...extra });
  const ALL = [
    [2, 1, 1],
    [1, 0, 0],
    [1, 0, 0],
  ];

  it('a session property filter ($session_duration > 60): only the events of a\'s hour-long session, so no return', async () => {
    expect(counts(await retention(pid, q({})))).toEqual(ALL);
    expect(counts(await retention(pid, q({ properties: [{ type: 'session', key: '$session_duration', operator: 'gt', value: 60 }] })))).toEqual([
      [1, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('an event_metadata filter on distinct_id', async () => {
    expect(counts(await retention(pid, q({ properties: [{ type: 'event_metadata', key: 'distinct_id', operator: 'exact', value: 'b' }] })))).toEqual([
      [1, 0, 1],
      [0, 0, 0],
      [1, 0, 0],
    ]);
  });

  it('a cohort filter on the target entity only: b starts no cohort, but a\'s returns are any pageview', async () => {
    const pro: ResolvedCohort = { id: 91, name: 'pro', isStatic: false, group: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } as any, personIds: [] };
    const r = await runWithCohorts(new Map([[91, pro]]), () =>
      retention(pid, {
        dateRange: { date_from: _date(0), date_to: _date(2) },
        retentionFilter: {
          totalIntervals: 3,
          targetEntity: { id: '$pageview', type: 'events', properties: [{ type: 'cohort', key: 'id', value: 91 }] },
          returningEntity: { id: '$pageview', type: 'events' },
        },
      }),
    );
    expect(counts(r)).toEqual([
      [1, 1, 0],
      [1, 0, 0],
      [0, 0, 0],
    ]);
  });
});

describe('test_groups_aggregating with cumulative and minimumOccurrences (reference §4.3)', () => {
  it('cumulative: a group back on day 2 counts on day 1 too', async () => {
    // org:1 on days 0 (u1) and 2 (u2); org:2 on day 1
    const pid = await db.project(people('u1', 'u2'), [ev('u1', _date(0), { $group_0: 'org:1' }), ev('u2', _date(2), { $group_0: 'org:1' }), ev('u1', _date(1), { $group_0: 'org:2' })]);
    const r = await retention(pid, { dateRange: { date_from: _date(0), date_to: _date(2) }, aggregation_group_type_index: 0, retentionFilter: { totalIntervals: 3, cumulative: true } });
    expect(counts(r)).toEqual([
      [1, 1, 1],
      [1, 0, 0],
      [1, 0, 0],
    ]);
  });

  it('minimumOccurrences 2: the events of the group by any of its persons add up', async () => {
    // org:1 on day 0, and twice on day 1 (u1 and u2); org:2 on day 0 and once on day 1
    const pid = await db.project(people('u1', 'u2'), [
      ev('u1', _date(0), { $group_0: 'org:1' }),
      ev('u1', _date(1), { $group_0: 'org:1' }),
      ev('u2', _date(1), { $group_0: 'org:1' }),
      ev('u2', _date(0), { $group_0: 'org:2' }),
      ev('u2', _date(1, 0, 5), { $group_0: 'org:2' }),
    ]);
    const r = await retention(pid, { dateRange: { date_from: _date(0), date_to: _date(1) }, aggregation_group_type_index: 0, retentionFilter: { totalIntervals: 2, minimumOccurrences: 2 } });
    expect(counts(r)).toEqual([
      [2, 1],
      [2, 0],
    ]);
  });
});

it('personless events in first-time cohorts: each distinct id is an actor whose first event is looked up over all time (reference §4.3)', async () => {
  // anon1 (no person) on days -1, 0, 1: first seen before the range; anon2 on days 0 and 2; p1 (a person) on days 1 and 2
  const anon = (id: string, day: number): TestEvent => ev(id, _date(day), { $process_person_profile: false });
  const pid = await db.project(people('p1'), [anon('anon1', -1), anon('anon1', 0), anon('anon1', 1), anon('anon2', 0), anon('anon2', 2), ev('p1', _date(1)), ev('p1', _date(2))]);
  const q = (retentionType: string) => ({ dateRange: { date_from: _date(0), date_to: _date(2) }, retentionFilter: { totalIntervals: 3, retentionType } });
  expect(counts(await retention(pid, q('retention_first_time')))).toEqual([
    [1, 0, 1],
    [1, 1, 0],
    [0, 0, 0],
  ]);
  expect(counts(await retention(pid, q('retention_recurring')))).toEqual([
    [2, 1, 1],
    [2, 1, 0],
    [2, 0, 0],
  ]);
});

describe('the schema refuses what PostHog\'s pydantic models refuse (extra=forbid, enums)', () => {
  it.each<[string, Record<string, unknown>]>([
    ['an unknown retentionFilter key', { retentionFilter: { totalIntervals: 3, interval: 'day' } }],
    ['an unknown target entity key', { retentionFilter: { targetEntity: { id: '$pageview', type: 'events', event: '$pageview' } } }],
    ['a lower-case period', { retentionFilter: { period: 'day' } }],
    ['an unknown retentionType', { retentionFilter: { retentionType: 'retention_unbounded' } }],
    ['an unknown timeWindowMode', { retentionFilter: { timeWindowMode: 'rolling' } }],
    ['a missing retentionFilter', {}],
  ])('%s', (_what, q) => {
    expect(retentionRunner.schema.safeParse({ kind: 'RetentionQuery', ...q }).success).toBe(false);
  });
});

describe('retention_first_ever_occurrence: global filters narrow the first-ever lookup, entity filters do not (reference §4.3)', () => {
  // a: Safari on day 0, Chrome on days 1 and 2; b: Chrome on days 0 and 2
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(people('a', 'b'), [
      ev('a', _date(0), { $browser: 'Safari' }),
      ev('a', _date(1), { $browser: 'Chrome' }),
      ev('a', _date(2), { $browser: 'Chrome' }),
      ev('b', _date(0), { $browser: 'Chrome' }),
      ev('b', _date(2), { $browser: 'Chrome' }),
    ]);
  });
  const chrome = [{ type: 'event', key: '$browser', value: 'Chrome', operator: 'exact' }];
  const q = (retentionType: string, where: 'global' | 'entity') => ({
    dateRange: { date_from: _date(0), date_to: _date(2) },
    ...(where === 'global' ? { properties: chrome } : {}),
    retentionFilter: {
      totalIntervals: 3,
      retentionType,
      targetEntity: { id: '$pageview', type: 'events', ...(where === 'entity' ? { properties: chrome } : {}) },
      returningEntity: { id: '$pageview', type: 'events' },
    },
  });

  it('a global Chrome filter: a\'s Safari pageview is not seen, so its first-ever event is the Chrome one of day 1', async () => {
    expect(counts(await retention(pid, q('retention_first_ever_occurrence', 'global')))).toEqual([
      [1, 0, 1],
      [1, 1, 0],
      [0, 0, 0],
    ]);
  });

  it('the filter on the target entity: a\'s first-ever pageview (Safari) does not match it, so a is in no cohort', async () => {
    expect(counts(await retention(pid, q('retention_first_ever_occurrence', 'entity')))).toEqual([
      [1, 0, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('retention_first_time with the filter on the target entity: a starts with its first matching event (day 1)', async () => {
    expect(counts(await retention(pid, q('retention_first_time', 'entity')))).toEqual([
      [1, 0, 1],
      [1, 1, 0],
      [0, 0, 0],
    ]);
  });
});

it('aggregationType sum and avg aggregated by groups: the property over the group\'s events, avg per group (reference §4.3)', async () => {
  // org:1: amounts 3 (u1) and 4 (u2) on day 0, 5 (u1) on day 1; org:2: 10 (u2) on day 1
  const pv = (id: string, day: number, org: string, amount: number) => ev(id, _date(day), { $group_0: org, amount });
  const pid = await db.project(people('u1', 'u2'), [pv('u1', 0, 'org:1', 3), pv('u2', 0, 'org:1', 4), pv('u1', 1, 'org:1', 5), pv('u2', 1, 'org:2', 10)]);
  const cells = async (aggregationType: string) =>
    (
      (
        await retention(pid, {
          dateRange: { date_from: _date(0), date_to: _date(1) },
          aggregation_group_type_index: 0,
          retentionFilter: { totalIntervals: 2, aggregationType, aggregationProperty: 'amount' },
        })
      ).results as any[]
    ).map((x) => x.values.map((v: any) => [v.count, v.aggregation_value]));
  expect(await cells('sum')).toEqual([
    [
      [1, 7],
      [1, 5],
    ],
    [
      [2, 15],
      [0, 0],
    ],
  ]);
  expect(await cells('avg')).toEqual([
    [
      [1, 7],
      [1, 5],
    ],
    [
      [2, 7.5],
      [0, 0],
    ],
  ]);
});

it('test_retention_people_basic with a search: the actors of the cohort whose email (any case) or distinct id matches', async () => {
  // p1 (bob@example.com) on days 0 and 1; p2 (alice@example.com) on day 0; p3 (bobby@test.com) on day 1 only
  const pid = await db.project(
    [
      { distinct_ids: ['p1'], properties: { email: 'bob@example.com' } },
      { distinct_ids: ['p2'], properties: { email: 'alice@example.com' } },
      { distinct_ids: ['p3'], properties: { email: 'bobby@test.com' } },
    ],
    [ev('p1', _date(0)), ev('p1', _date(1)), ev('p2', _date(0)), ev('p3', _date(1))],
  );
  const source = { kind: 'RetentionQuery', dateRange: { date_from: _date(0), date_to: _date(1) }, retentionFilter: { totalIntervals: 2 } };
  const search = async (term: string, interval: number) =>
    (
      (await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'appearances'], search: term, source: { kind: 'InsightActorsQuery', source, interval } }, pid)).results as any[]
    ).map((row) => [row[0].distinct_ids[0], row[1]]);
  expect(await search('bob', 0)).toEqual([['p1', [0, 1]]]);
  expect(await search('ALICE', 0)).toEqual([['p2', [0]]]);
  expect(await search('p2', 0)).toEqual([['p2', [0]]]);
  expect(await search('test.com', 0)).toEqual([]);
  expect(await search('test.com', 1)).toEqual([['p3', [0]]]);
});

describe('test_timezones east of UTC (Asia/Tokyo, UTC+9) where each actor\'s events are read one by one (sum aggregation, actors)', () => {
  const TOKYO = { timezone: 'Asia/Tokyo' };

  it('Day periods: an event at 20:00 UTC is on the next local day; sums follow the counts', async () => {
    // a: Jun 9 20:00 UTC (Jun 10 05:00 local, amount 1) and Jun 10 16:00 UTC (Jun 11 01:00 local, amount 2); b: Jun 10
    // 10:00 UTC (Jun 10 19:00 local, amount 4)
    const pid = await db.project(people('a', 'b'), [ev('a', '2020-06-09T20:00:00', { amount: 1 }), ev('a', '2020-06-10T16:00:00', { amount: 2 }), ev('b', '2020-06-10T10:00:00', { amount: 4 })]);
    const q = (retentionFilter: Record<string, unknown>) => ({ dateRange: { date_from: '2020-06-10', date_to: '2020-06-11' }, retentionFilter: { totalIntervals: 2, ...retentionFilter } });
    expect(counts(await retention(pid, q({}), TOKYO))).toEqual([
      [2, 1],
      [1, 0],
    ]);
    const r = await retention(pid, q({ aggregationType: 'sum', aggregationProperty: 'amount' }), TOKYO);
    expect(pluck(r, 'date')).toEqual(['2020-06-10T00:00:00+09:00', '2020-06-11T00:00:00+09:00']);
    expect((r.results as any[]).map((x) => x.values.map((v: any) => [v.count, v.aggregation_value]))).toEqual([
      [
        [2, 5],
        [1, 2],
      ],
      [
        [1, 2],
        [0, 0],
      ],
    ]);
    expect(await actorsOf(pid, { kind: 'RetentionQuery', ...q({}) }, 0, TOKYO)).toEqual([
      ['a', [0, 1]],
      ['b', [0]],
    ]);
  });

  it('Week periods: 01:00 on a local Sunday starts the next week (a Saturday in UTC)', async () => {
    // a: Jun 9 20:00 UTC (Wednesday Jun 10 local) and Jun 13 16:00 UTC (Sunday Jun 14 01:00 local); b: Jun 13 16:00 UTC
    const pid = await db.project(people('a', 'b'), [ev('a', '2020-06-09T20:00:00'), ev('a', '2020-06-13T16:00:00'), ev('b', '2020-06-13T16:00:00')]);
    const source = { kind: 'RetentionQuery', dateRange: { date_from: '2020-06-07', date_to: '2020-06-14' }, retentionFilter: { period: 'Week', totalIntervals: 2 } };
    expect(counts(await retention(pid, source, TOKYO))).toEqual([
      [1, 1],
      [2, 0],
    ]);
    expect(await actorsOf(pid, source, 0, TOKYO)).toEqual([['a', [0, 1]]]);
    expect(await actorsOf(pid, source, 1, TOKYO)).toEqual([
      ['a', [0]],
      ['b', [0]],
    ]);
  });
});

describe('tenth-pass cases: actions with entity filters, Hour and Month cohorts (test_retention_query_runner.py; counts derived from reference §4.3)', () => {
  it('test_retention_event_action with properties on the ActionsNode returning entity: they narrow the action\'s events', async () => {
    // a signs up on day 0; Safari pageview day 1 (no), Chrome autocapture day 2, Chrome pageview day 3, Chrome other event
    // day 4 (not the action); b signs up on day 1, a Chrome autocapture on day 1 (its cohort day), a Chrome pageview day 2
    const act = action('pageview or autocapture', [actionStep('$pageview'), actionStep('$autocapture')]);
    const chrome = { $browser: 'Chrome' };
    const pid = await db.project(people('a', 'b'), [
      ev('a', _date(0), {}, '$user_signed_up'),
      ev('a', _date(1), { $browser: 'Safari' }),
      ev('a', _date(2), chrome, '$autocapture'),
      ev('a', _date(3), chrome),
      ev('a', _date(4), chrome, 'other'),
      ev('b', _date(1), {}, '$user_signed_up'),
      ev('b', _date(1, 0, 5), chrome, '$autocapture'),
      ev('b', _date(2), chrome),
    ]);
    const source = {
      kind: 'RetentionQuery',
      dateRange: { date_from: _date(0), date_to: _date(4) },
      retentionFilter: {
        totalIntervals: 5,
        targetEntity: { id: '$user_signed_up', type: 'events' },
        returningEntity: { id: act, type: 'actions', kind: 'ActionsNode', properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] },
      },
    };
    const r = await retention(pid, source);
    expect(counts(r)).toEqual(pad([[1, 0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 0], [0, 0], [0]]));
    expect(await actorsOf(pid, source, 0)).toEqual([['a', [0, 2, 3]]]);
    expect(await actorsOf(pid, source, 1)).toEqual([['b', [0, 1]]]);
  });

  describe('Hour periods with minimumOccurrences 2 (test_hour_interval; reference §4.3)', () => {
    // p: 10:05 (first), 11:10 and 11:20 (two), 12:00 (one), 13:00 and 13:30 (two); q: 11:00 (first), 12:10 and 12:40
    let pid: number;
    beforeAll(async () => {
      pid = await db.project(people('p', 'q'), [
        ev('p', '2020-06-10T10:05:00'),
        ev('p', '2020-06-10T11:10:00'),
        ev('p', '2020-06-10T11:20:00'),
        ev('p', '2020-06-10T12:00:00'),
        ev('p', '2020-06-10T13:00:00'),
        ev('p', '2020-06-10T13:30:00'),
        ev('q', '2020-06-10T11:00:00'),
        ev('q', '2020-06-10T12:10:00'),
        ev('q', '2020-06-10T12:40:00'),
      ]);
    });
    const source = (extra: Record<string, unknown>) => ({
      kind: 'RetentionQuery',
      dateRange: { date_from: '2020-06-10T10:00:00', date_to: '2020-06-10T13:00:00' },
      retentionFilter: { period: 'Hour', totalIntervals: 5, retentionType: 'retention_first_time', minimumOccurrences: 2, ...extra },
    });

    it('first-time: p returns in hours 1 and 3 (two events each), not hour 2 (one); q in hour 1', async () => {
      const r = await retention(pid, source({}));
      expect(pluck(r, 'label')).toEqual(['Hour 0', 'Hour 1', 'Hour 2', 'Hour 3']);
      expect(pluck(r, 'date')).toEqual(['2020-06-10T10:00:00Z', '2020-06-10T11:00:00Z', '2020-06-10T12:00:00Z', '2020-06-10T13:00:00Z']);
      expect(counts(r)).toEqual([
        [1, 1, 0, 1, 0],
        [1, 1, 0, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
      ]);
      expect(await actorsOf(pid, source({}), 0)).toEqual([['p', [0, 1, 3]]]);
    });

    it('cumulative: p counts in hours 1 to 3', async () => {
      const r = await retention(pid, source({ cumulative: true }));
      expect(counts(r)).toEqual([
        [1, 1, 1, 1, 0],
        [1, 1, 0, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
      ]);
      expect(await actorsOf(pid, source({ cumulative: true }), 0)).toEqual([['p', [0, 1, 2, 3]]]);
    });
  });

  describe('Month periods with a filtered target (test_month_interval; reference §4.3 on the first-time types)', () => {
    // p1: Safari pageview Jan 5, Chrome Feb 3, Mar 2; p2: Chrome Feb 10, Apr 1
    let pid: number;
    beforeAll(async () => {
      pid = await db.project(people('p1', 'p2'), [
        ev('p1', '2020-01-05T10:00:00', { $browser: 'Safari' }),
        ev('p1', '2020-02-03T10:00:00', { $browser: 'Chrome' }),
        ev('p1', '2020-03-02T10:00:00', { $browser: 'Chrome' }),
        ev('p2', '2020-02-10T10:00:00', { $browser: 'Chrome' }),
        ev('p2', '2020-04-01T10:00:00', { $browser: 'Chrome' }),
      ]);
    });
    const q = (retentionType: string) => ({
      dateRange: { date_from: '2020-01-01', date_to: '2020-04-30' },
      retentionFilter: {
        period: 'Month',
        totalIntervals: 4,
        retentionType,
        targetEntity: { id: '$pageview', type: 'events', properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] },
        returningEntity: { id: '$pageview', type: 'events' },
      },
    });

    it('retention_first_time: both start in February (p1 with its first Chrome pageview)', async () => {
      const r = await retention(pid, q('retention_first_time'));
      expect(pluck(r, 'label')).toEqual(['Month 0', 'Month 1', 'Month 2', 'Month 3']);
      expect(pluck(r, 'date')).toEqual(['2020-01-01T00:00:00Z', '2020-02-01T00:00:00Z', '2020-03-01T00:00:00Z', '2020-04-01T00:00:00Z']);
      expect(counts(r)).toEqual([
        [0, 0, 0, 0],
        [2, 1, 1, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
      ]);
    });

    it('retention_first_ever_occurrence: p1\'s first-ever pageview (Safari) does not match, so only p2', async () => {
      expect(counts(await retention(pid, q('retention_first_ever_occurrence')))).toEqual([
        [0, 0, 0, 0],
        [1, 0, 1, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
      ]);
    });

    it('retention_recurring: a cohort in each month with a Chrome pageview', async () => {
      expect(counts(await retention(pid, q('retention_recurring')))).toEqual([
        [0, 0, 0, 0],
        [2, 1, 1, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
      ]);
    });
  });
});

describe('test_filter_test_accounts with a cohort among the test-account filters (reference §1.1, §1.4, §4.3)', () => {
  // a and b (an internal user, in cohort 93) view on days 0 and 1; c on day 1 only
  let pid: number;
  beforeAll(async () => {
    pid = await db.project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'], properties: { email: 'b@internal.example' } }, { distinct_ids: ['c'] }],
      [ev('a', _date(0)), ev('a', _date(1)), ev('b', _date(0)), ev('b', _date(1)), ev('c', _date(1))],
    );
  });
  const internal: ResolvedCohort = { id: 93, name: 'internal', isStatic: false, group: { type: 'AND', values: [{ key: 'email', value: 'internal.example', operator: 'icontains', type: 'person' }] } as any, personIds: [] };
  const proj = { test_account_filters: [{ key: 'id', value: 93, type: 'cohort', operator: 'not_in' }] };
  const source = (filterTestAccounts: boolean) => ({ kind: 'RetentionQuery', filterTestAccounts, dateRange: { date_from: _date(0), date_to: _date(1) }, retentionFilter: { totalIntervals: 2 } });

  it('with the filters b is in no cohort; without them it is', async () => {
    const run = (on: boolean) => runWithCohorts(new Map([[93, internal]]), () => retention(pid, source(on), proj));
    expect(counts(await run(true))).toEqual([
      [1, 1],
      [2, 0],
    ]);
    expect(counts(await run(false))).toEqual([
      [2, 2],
      [3, 0],
    ]);
    expect(await runWithCohorts(new Map([[93, internal]]), () => actorsOf(pid, source(true), 1, proj))).toEqual([
      ['a', [0]],
      ['c', [0]],
    ]);
  });
});

it('personless events under a not_in cohort filter: PostHog gives them a person id in no cohort, so they stay (reference §1.8, §4.3)', async () => {
  // anon (no person) on days 0 and 1; p1 (in cohort 94) on days 0 and 1; p2 on day 1
  const anon = (day: number): TestEvent => ev('anon', _date(day), { $process_person_profile: false });
  const pid = await db.project([{ distinct_ids: ['p1'], properties: { plan: 'pro' } }, { distinct_ids: ['p2'] }], [anon(0), anon(1), ev('p1', _date(0)), ev('p1', _date(1)), ev('p2', _date(1))]);
  const pro: ResolvedCohort = { id: 94, name: 'pro', isStatic: false, group: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } as any, personIds: [] };
  const q = (operator: string) => ({ dateRange: { date_from: _date(0), date_to: _date(1) }, properties: [{ type: 'cohort', key: 'id', value: 94, operator }], retentionFilter: { totalIntervals: 2 } });
  const run = (operator: string) => runWithCohorts(new Map([[94, pro]]), () => retention(pid, q(operator)));
  expect(counts(await run('not_in'))).toEqual([
    [1, 1],
    [2, 0],
  ]);
  expect(counts(await run('in'))).toEqual([
    [1, 1],
    [1, 0],
  ]);
});

describe('eleventh-pass cases: showMean, an action target under a person property breakdown (test_retention_query_runner.py; counts derived from reference §4.2/§4.3)', () => {
  // a (pro): sign up day 0, views days 1 and 2; b (free): purchase day 0, views days 0 and 2; c (pro): purchase day 1,
  // view day 2. The target is the action "sign up or purchase", the returning entity $pageview.
  let pid: number;
  let act: number;
  beforeAll(async () => {
    act = action('sign up or purchase', [actionStep('$user_signed_up'), actionStep('purchase')]);
    pid = await db.project(
      [
        { distinct_ids: ['a'], properties: { plan: 'pro' } },
        { distinct_ids: ['b'], properties: { plan: 'free' } },
        { distinct_ids: ['c'], properties: { plan: 'pro' } },
      ],
      [
        ev('a', _date(0), {}, '$user_signed_up'),
        ev('a', _date(1)),
        ev('a', _date(2)),
        ev('b', _date(0), {}, 'purchase'),
        ev('b', _date(0, 0, 5)),
        ev('b', _date(2)),
        ev('c', _date(1), {}, 'purchase'),
        ev('c', _date(2)),
      ],
    );
  });
  const source = () => ({
    kind: 'RetentionQuery',
    dateRange: { date_from: _date(0), date_to: _date(2) },
    breakdownFilter: { breakdown_type: 'person', breakdown: 'plan' },
    retentionFilter: { totalIntervals: 3, targetEntity: { id: act, type: 'actions' }, returningEntity: { id: '$pageview', type: 'events' } },
  });

  it('one block per plan, pro (two cohort members) first; b\'s view on its cohort day adds nothing', async () => {
    expect(blocks(await retention(pid, source()))).toEqual([
      ['pro', [1, 1, 1]],
      ['pro', [1, 1, 0]],
      ['pro', [0, 0, 0]],
      ['free', [1, 0, 1]],
      ['free', [0, 0, 0]],
      ['free', [0, 0, 0]],
    ]);
  });

  it('the actors of a block\'s cohort row (InsightActorsQuery with interval and breakdown) and their appearances', async () => {
    const of = async (interval: number, breakdown: string) => {
      const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'appearances'], source: { kind: 'InsightActorsQuery', source: source(), interval, breakdown } }, pid);
      return (r.results as any[]).map((row) => [[...row[0].distinct_ids].sort().join(','), row[1]]);
    };
    expect(await of(0, 'pro')).toEqual([['a', [0, 1, 2]]]);
    expect(await of(1, 'pro')).toEqual([['c', [0, 1]]]);
    expect(await of(0, 'free')).toEqual([['b', [0, 2]]]);
    expect(await of(1, 'free')).toEqual([]);
  });

  it('showMean (true or false) is display only: the rows are the same', async () => {
    const plain = blocks(await retention(pid, source()));
    for (const showMean of [true, false]) {
      const q = source();
      expect(blocks(await retention(pid, { ...q, retentionFilter: { ...q.retentionFilter, showMean } }))).toEqual(plain);
    }
  });
});

it('test_hour_interval with a person property breakdown: one block of Hour rows per tier, and the actors of a block\'s hour (reference §4.2/§4.3)', async () => {
  // gold: x at 10:05, 11:30, 12:59; w at 10:20. silver: y at 10:10, 12:00.
  const at = (h: number, m: number) => new Date(Date.UTC(2020, 5, 10, h, m)).toISOString().slice(0, 19);
  const pid = await db.project(
    [
      { distinct_ids: ['x'], properties: { tier: 'gold' } },
      { distinct_ids: ['w'], properties: { tier: 'gold' } },
      { distinct_ids: ['y'], properties: { tier: 'silver' } },
    ],
    [ev('x', at(10, 5)), ev('x', at(11, 30)), ev('x', at(12, 59)), ev('w', at(10, 20)), ev('y', at(10, 10)), ev('y', at(12, 0))],
  );
  const source = { kind: 'RetentionQuery', dateRange: { date_from: at(10, 0), date_to: at(12, 0) }, breakdownFilter: { breakdown_type: 'person', breakdown: 'tier' }, retentionFilter: { period: 'Hour', totalIntervals: 3 } };
  const r = await retention(pid, source);
  expect(pluck(r, 'label')).toEqual(['Hour 0', 'Hour 1', 'Hour 2', 'Hour 0', 'Hour 1', 'Hour 2']);
  expect(blocks(r)).toEqual([
    ['gold', [2, 1, 1]],
    ['gold', [1, 1, 0]],
    ['gold', [1, 0, 0]],
    ['silver', [1, 0, 1]],
    ['silver', [0, 0, 0]],
    ['silver', [1, 0, 0]],
  ]);
  const of = async (interval: number, breakdown: string) => {
    const a = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'appearances'], source: { kind: 'InsightActorsQuery', source, interval, breakdown } }, pid);
    return (a.results as any[]).map((row) => [[...row[0].distinct_ids].sort().join(','), row[1]]).sort((p, q) => (p[0] < q[0] ? -1 : 1));
  };
  expect(await of(0, 'gold')).toEqual([
    ['w', [0]],
    ['x', [0, 1, 2]],
  ]);
  expect(await of(0, 'silver')).toEqual([['y', [0, 2]]]);
  expect(await of(2, 'silver')).toEqual([['y', [0]]]);
});

it('an action of overlapping steps as the returning entity with minimumOccurrences 2: an event matching both steps counts once (reference §4.3)', async () => {
  // a: view day 0; one Chrome view day 1 (both steps); two views day 2. b: view day 0; two views day 1.
  const act = action('any view or a Chrome view', [actionStep('$pageview'), actionStep('$pageview', [{ key: '$browser', value: 'Chrome', type: 'event', operator: 'exact' }])]);
  const pid = await db.project(people('a', 'b'), [
    ev('a', _date(0)),
    ev('a', _date(1), { $browser: 'Chrome' }),
    ev('a', _date(2)),
    ev('a', _date(2, 0, 3)),
    ev('b', _date(0)),
    ev('b', _date(1), { $browser: 'Chrome' }),
    ev('b', _date(1, 0, 3)),
  ]);
  const q = (minimumOccurrences?: number) => ({
    dateRange: { date_from: _date(0), date_to: _date(2) },
    retentionFilter: { totalIntervals: 3, minimumOccurrences, returningEntity: { id: act, type: 'actions' } },
  });
  expect(counts(await retention(pid, q()))).toEqual([
    [2, 2, 1],
    [2, 1, 0],
    [1, 0, 0],
  ]);
  expect(counts(await retention(pid, q(2)))).toEqual([
    [2, 1, 1],
    [2, 1, 0],
    [1, 0, 0],
  ]);
});

it('test_retention_with_cohort_breakdown with cumulative retention: each cohort block is cumulative on its own (reference §4.3)', async () => {
  // p1 (pro) views days 0 and 2; p2 (free) days 0 and 1; p3 (pro) days 1 and 2. Cohort 95: plan pro.
  const pid = await db.project(
    [
      { distinct_ids: ['p1'], properties: { plan: 'pro' } },
      { distinct_ids: ['p2'], properties: { plan: 'free' } },
      { distinct_ids: ['p3'], properties: { plan: 'pro' } },
    ],
    [ev('p1', _date(0)), ev('p1', _date(2)), ev('p2', _date(0)), ev('p2', _date(1)), ev('p3', _date(1)), ev('p3', _date(2))],
  );
  const pro: ResolvedCohort = { id: 95, name: 'pro', isStatic: false, group: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } as any, personIds: [] };
  const scope = <T>(fn: () => Promise<T>) => runWithCohorts(new Map([[95, pro]]), fn);
  const source = { kind: 'RetentionQuery', dateRange: { date_from: _date(0), date_to: _date(2) }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [95, 'all'] }, retentionFilter: { totalIntervals: 3, cumulative: true } };
  expect(blocks(await scope(() => retention(pid, source)))).toEqual([
    [0, [2, 2, 1]],
    [0, [2, 1, 0]],
    [0, [2, 0, 0]],
    [95, [1, 1, 1]],
    [95, [1, 1, 0]],
    [95, [2, 0, 0]],
  ]);
  const of = async (interval: number, breakdown: number | string) => {
    const a = await scope(() => db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source, interval, breakdown } }, pid));
    return (a.results as any[]).map((row) => [...row[0].distinct_ids].sort().join(',')).sort();
  };
  expect(await of(0, 95)).toEqual(['p1']);
  expect(await of(2, 95)).toEqual(['p1', 'p3']);
  expect(await of(1, 'all')).toEqual(['p2', 'p3']);
});

it('test_groups_aggregating with a property breakdown of the same group type: blocks of groups, and the groups of a block\'s cohort row (reference §4.3)', async () => {
  // org:1 (tech) on days 0 and 1; org:2 (finance) on day 0; org:3 (tech) on days 1 and 2.
  const identify = (key: string, industry: string): TestEvent => ({ event: '$groupidentify', distinct_id: 'p', timestamp: `${_date(-5)}Z`, properties: { $group_type: 'organization', $group_key: key, $group_set: { industry } } });
  const at = (day: number, org: string) => ev('p', _date(day), { $groups: { organization: org } });
  const pid = await db.project(people('p'), [identify('org:1', 'tech'), identify('org:2', 'finance'), identify('org:3', 'tech'), at(0, 'org:1'), at(1, 'org:1'), at(0, 'org:2'), at(1, 'org:3'), at(2, 'org:3')]);
  const source = {
    kind: 'RetentionQuery',
    aggregation_group_type_index: 0,
    dateRange: { date_from: _date(0), date_to: _date(2) },
    breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
    retentionFilter: { totalIntervals: 3 },
  };
  expect(blocks(await retention(pid, source))).toEqual([
    ['tech', [1, 1, 0]],
    ['tech', [2, 1, 0]],
    ['tech', [1, 0, 0]],
    ['finance', [1, 0, 0]],
    ['finance', [0, 0, 0]],
    ['finance', [0, 0, 0]],
  ]);
  const of = async (interval: number, breakdown: string) => {
    const a = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor', 'appearances'], source: { kind: 'InsightActorsQuery', source, interval, breakdown } }, pid);
    return (a.results as any[]).map((row) => [row[0].id, row[1]]).sort();
  };
  expect(await of(1, 'tech')).toEqual([
    ['org:1', [0]],
    ['org:3', [0, 1]],
  ]);
  expect(await of(0, 'finance')).toEqual([['org:2', [0]]]);
});

it('test_week_interval with Monday weeks in Europe/Berlin, first-time and cumulative: a Sunday-night UTC event is on Monday local time (reference §1.5, §4.3)', async () => {
  // a: first event Sun Jun 14 22:30 UTC (Mon 00:30 in Berlin), back Mon Jun 22; b: first event Sun Jun 14 21:30 UTC
  // (Sun 23:30 in Berlin), back Mon Jun 22; c: first event Jun 1 (before the range), again Jun 9.
  const pid = await db.project(people('a', 'b', 'c'), [
    ev('a', '2020-06-14T22:30:00'),
    ev('a', '2020-06-22T10:00:00'),
    ev('b', '2020-06-14T21:30:00'),
    ev('b', '2020-06-22T12:00:00'),
    ev('c', '2020-06-01T12:00:00'),
    ev('c', '2020-06-09T12:00:00'),
  ]);
  const q = (cumulative: boolean) => ({
    dateRange: { date_from: '2020-06-08', date_to: '2020-06-22' },
    retentionFilter: { period: 'Week', totalIntervals: 3, retentionType: 'retention_first_time', cumulative },
  });
  const berlin = { timezone: 'Europe/Berlin', week_start_day: 1 };
  const r = await retention(pid, q(false), berlin);
  expect(pluck(r, 'date')).toEqual(['2020-06-08T00:00:00+02:00', '2020-06-15T00:00:00+02:00', '2020-06-22T00:00:00+02:00']);
  expect(counts(r)).toEqual([
    [1, 0, 1],
    [1, 1, 0],
    [0, 0, 0],
  ]);
  expect(counts(await retention(pid, q(true), berlin))).toEqual([
    [1, 1, 1],
    [1, 1, 0],
    [0, 0, 0],
  ]);
  // in UTC both first events are on Sunday Jun 14, in the Monday week of Jun 8
  expect(counts(await retention(pid, q(true), { week_start_day: 1 }))).toEqual([
    [2, 2, 2],
    [0, 0, 0],
    [0, 0, 0],
  ]);
  expect(await actorsOf(pid, { kind: 'RetentionQuery', ...q(false) }, 1, berlin)).toEqual([['a', [0, 1]]]);
});

it('test_month_interval with a person property breakdown and minimumOccurrences 2: a month with one return is none; the actors\' appearances follow (reference §4.3)', async () => {
  // m (pro): Jan 5; Feb 3; Mar 2 and Mar 20. n (free): Jan 10; Feb 1 and Feb 28; Mar 5. o (free): Jan 15.
  const pid = await db.project(
    [
      { distinct_ids: ['m'], properties: { plan: 'pro' } },
      { distinct_ids: ['n'], properties: { plan: 'free' } },
      { distinct_ids: ['o'], properties: { plan: 'free' } },
    ],
    [
      ev('m', '2020-01-05T12:00:00'),
      ev('m', '2020-02-03T12:00:00'),
      ev('m', '2020-03-02T12:00:00'),
      ev('m', '2020-03-20T12:00:00'),
      ev('n', '2020-01-10T12:00:00'),
      ev('n', '2020-02-01T12:00:00'),
      ev('n', '2020-02-28T12:00:00'),
      ev('n', '2020-03-05T12:00:00'),
      ev('o', '2020-01-15T12:00:00'),
    ],
  );
  const source = {
    kind: 'RetentionQuery',
    dateRange: { date_from: '2020-01-01', date_to: '2020-03-01' },
    breakdownFilter: { breakdown_type: 'person', breakdown: 'plan' },
    retentionFilter: { period: 'Month', totalIntervals: 3, minimumOccurrences: 2 },
  };
  const r = await retention(pid, source);
  expect(pluck(r, 'label')).toEqual(['Month 0', 'Month 1', 'Month 2', 'Month 0', 'Month 1', 'Month 2']);
  expect(blocks(r)).toEqual([
    ['free', [2, 1, 0]],
    ['free', [1, 0, 0]],
    ['free', [1, 0, 0]],
    ['pro', [1, 0, 1]],
    ['pro', [1, 1, 0]],
    ['pro', [1, 0, 0]],
  ]);
  const of = async (interval: number, breakdown: string) => {
    const a = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person', 'appearances'], source: { kind: 'InsightActorsQuery', source, interval, breakdown } }, pid);
    return (a.results as any[]).map((row) => [[...row[0].distinct_ids].sort().join(','), row[1]]).sort((p, q) => (p[0] < q[0] ? -1 : 1));
  };
  expect(await of(0, 'pro')).toEqual([['m', [0, 2]]]);
  expect(await of(0, 'free')).toEqual([
    ['n', [0, 1]],
    ['o', [0]],
  ]);
});

it('test_filter_test_accounts with test_groups_aggregating: a group\'s events by a test person are left out, so it starts later or not at all (reference §1.1, §4.3)', async () => {
  // i (internal): org:1 on days 0 and 1, org:2 on day 0; u: org:2 on days 1 and 2 (both groups identified before the range:
  // the actors of a group-aggregated query are rows of the groups table).
  const at = (who: string, day: number, org: string) => ev(who, _date(day), { $groups: { organization: org } });
  const identify = (key: string): TestEvent => ({ event: '$groupidentify', distinct_id: 'u', timestamp: `${_date(-5)}Z`, properties: { $group_type: 'organization', $group_key: key, $group_set: { name: key } } });
  const pid = await db.project([{ distinct_ids: ['i'], properties: { email: 'i@internal.example' } }, { distinct_ids: ['u'] }], [identify('org:1'), identify('org:2'), at('i', 0, 'org:1'), at('i', 1, 'org:1'), at('i', 0, 'org:2'), at('u', 1, 'org:2'), at('u', 2, 'org:2')]);
  const proj = { test_account_filters: [{ key: 'email', value: 'internal.example', operator: 'not_icontains', type: 'person' }] };
  const source = (filterTestAccounts: boolean) => ({ kind: 'RetentionQuery', aggregation_group_type_index: 0, filterTestAccounts, dateRange: { date_from: _date(0), date_to: _date(2) }, retentionFilter: { totalIntervals: 3 } });
  expect(counts(await retention(pid, source(true), proj))).toEqual([
    [0, 0, 0],
    [1, 1, 0],
    [1, 0, 0],
  ]);
  expect(counts(await retention(pid, source(false), proj))).toEqual([
    [2, 2, 1],
    [2, 1, 0],
    [1, 0, 0],
  ]);
  const groups = async (on: boolean, interval: number) => {
    const a = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor', 'appearances'], source: { kind: 'InsightActorsQuery', source: source(on), interval } }, pid, proj as any);
    return (a.results as any[]).map((row) => [row[0].id, row[1]]).sort();
  };
  expect(await groups(true, 1)).toEqual([['org:2', [0, 1]]]);
  expect(await groups(false, 0)).toEqual([
    ['org:1', [0, 1]],
    ['org:2', [0, 1, 2]],
  ]);
});
