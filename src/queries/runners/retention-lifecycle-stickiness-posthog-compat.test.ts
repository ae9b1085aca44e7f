/**
 * RetentionQuery, LifecycleQuery and StickinessQuery scenarios ported from PostHog's own suites
 * (posthog/hogql_queries/insights/test/test_retention_query_runner.py, .../lifecycle/test/test_lifecycle_query_runner.py,
 * .../stickiness/test/test_stickiness_query_runner.py): the same event layouts, the same assertions on `values`,
 * `label`, `date`, `data`, `days`, `labels`, `count`, through the runners' schema + run path the query service uses.
 * Scenarios already pinned by retention.test.ts / lifecycle-runner.test.ts / stickiness-runner.test.ts are not repeated.
 */
import { createInsightTestDb, type InsightTestDb, type TestEvent, type TestPerson } from '../insights/testing';
import { byStatus, LIFECYCLE_DAYS, LIFECYCLE_WEEKS, lifecycleData, pad, PERSON1_DAY_ROWS, PERSON2_DAY_ROWS, retentionCounts as counts } from './testing';
import { setInsightsClock } from '../insights/date-range';
import { retentionRunner } from './retention-runner';
import { lifecycleRunner } from './lifecycle-runner';
import { stickinessRunner } from './stickiness-runner';

let db: InsightTestDb;
beforeAll(async () => {
  db = await createInsightTestDb();
});
afterAll(async () => {
  await db.close();
});

const project: InsightTestDb['project'] = (persons, events) => db.project(persons, events);

const pluck = (r: any, key: string) => (r.results as any[]).map((x) => x[key]);

// ------------------------------------------------------------------------------------------------ retention

/** test_retention_query_runner.py's `_date(day, month=0, hour=0)`: 2020-06-10 + `day` days, + `month` months. */
const _date = (day: number, month = 0, hour = 0, minute = 0) => {
  const d = new Date(Date.UTC(2020, 5 + month, 10 + day, hour, minute));
  return d.toISOString().slice(0, 19);
};
const pvs = (rows: [string, string][], event = '$pageview'): TestEvent[] => rows.map(([distinct_id, ts]) => ({ event, distinct_id, timestamp: `${ts}Z` }));

/** person1 (+ alias1) and person2, the layout of test_retention_default / test_day_interval. */
const DAY_EVENTS: [string, string][] = [...PERSON1_DAY_ROWS, ...PERSON2_DAY_ROWS];
const TWO_PERSONS: TestPerson[] = [{ distinct_ids: ['person1', 'alias1'] }, { distinct_ids: ['person2'] }];

const retention = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(retentionRunner, { kind: 'RetentionQuery', retentionFilter: {}, ...q }, pid, proj as any);

describe('RetentionQuery (test_retention_query_runner.py)', () => {
  // retentionReference only changes how the frontend shows the percentages: the counts are the same with either
  it.each([{}, { retentionReference: 'total' }, { retentionReference: 'previous' }])('test_day_interval %j: date_to at 06:00 still includes the whole day; alias distinct ids are one person', async (reference) => {
    const pid = await project(TWO_PERSONS, pvs(DAY_EVENTS));
    const r = await retention(pid, { dateRange: { date_to: _date(10, 0, 6) }, retentionFilter: { totalIntervals: 11, ...reference } });
    expect(r.results).toHaveLength(11);
    expect(pluck(r, 'label')).toEqual(Array.from({ length: 11 }, (_, i) => `Day ${i}`));
    expect(r.results[0].date).toBe('2020-06-10T00:00:00Z');
    expect(r.results[0].values.map((v: any) => v.label)).toEqual(Array.from({ length: 11 }, (_, i) => `Day ${i}`));
    expect(counts(r)).toEqual(
      pad([
        [1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0],
        [2, 2, 1, 0, 1, 2, 0, 0, 0, 0],
        [2, 1, 0, 1, 2, 0, 0, 0, 0],
        [1, 0, 0, 1, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [2, 0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0],
        [0, 0],
        [0],
      ]),
    );
  });

  // person1/person2 over seven weeks (test_week_interval's events).
  const WEEK_EVENTS: [string, string][] = [
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
  ];
  const WEEK_COUNTS = pad([[2, 2, 1, 2, 2, 0, 1], [2, 1, 2, 2, 0, 1], [1, 1, 1, 0, 0], [2, 2, 0, 1], [2, 0, 1], [0, 0], [1]]);

  it('test_week_interval: Sunday weeks, then Monday weeks (team week_start_day)', async () => {
    const pid = await project(TWO_PERSONS, pvs(WEEK_EVENTS));
    const q = { dateRange: { date_to: _date(10, 1) }, retentionFilter: { period: 'Week', totalIntervals: 7 } };
    const sunday = await retention(pid, q);
    expect(pluck(sunday, 'label')).toEqual(['Week 0', 'Week 1', 'Week 2', 'Week 3', 'Week 4', 'Week 5', 'Week 6']);
    expect(counts(sunday)).toEqual(WEEK_COUNTS);
    expect(pluck(sunday, 'date')).toEqual([
      '2020-06-07T00:00:00Z',
      '2020-06-14T00:00:00Z',
      '2020-06-21T00:00:00Z',
      '2020-06-28T00:00:00Z',
      '2020-07-05T00:00:00Z',
      '2020-07-12T00:00:00Z',
      '2020-07-19T00:00:00Z',
    ]);
    const monday = await retention(pid, q, { week_start_day: 1 });
    expect(counts(monday)).toEqual(WEEK_COUNTS);
    expect(pluck(monday, 'date')).toEqual([
      '2020-06-08T00:00:00Z',
      '2020-06-15T00:00:00Z',
      '2020-06-22T00:00:00Z',
      '2020-06-29T00:00:00Z',
      '2020-07-06T00:00:00Z',
      '2020-07-13T00:00:00Z',
      '2020-07-20T00:00:00Z',
    ]);
  });

  it('test_interval_rounding: a date_to in the middle of the week gives the same weeks', async () => {
    const pid = await project(TWO_PERSONS, pvs(WEEK_EVENTS));
    const r = await retention(pid, { dateRange: { date_to: _date(14, 1) }, retentionFilter: { period: 'Week', totalIntervals: 7 } });
    expect(counts(r)).toEqual(WEEK_COUNTS);
    expect(r.results[0].date).toBe('2020-06-07T00:00:00Z');
    expect(r.results[6].date).toBe('2020-07-19T00:00:00Z');
  });

  /** test_hour_interval's counts; test_month_interval lays the same activity out by month. */
  const HOUR_LAYOUT_COUNTS = pad([
    [2, 2, 1, 0, 1, 2, 1, 0, 1, 0, 1],
    [2, 1, 0, 1, 2, 1, 0, 1, 0, 1],
    [1, 0, 1, 1, 0, 0, 1, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0],
    [1, 1, 0, 0, 1, 0, 0],
    [2, 1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1],
    [0, 0, 0, 0],
    [1, 0, 0],
    [0, 0],
    [1],
  ]);

  it('test_hour_interval: date_to 16:13 → eleven hours 06:00..16:00', async () => {
    const hourEvents: [string, number][] = [
      ['person1', 6],
      ['person2', 6],
      ['person1', 7],
      ['person2', 7],
      ['person1', 8],
      ['person1', 10],
      ['person1', 11],
      ['person2', 11],
      ['person2', 12],
      ['person1', 14],
      ['person2', 16],
    ];
    const pid = await project(TWO_PERSONS, pvs(hourEvents.map(([d, h]) => [d, _date(0, 0, h)])));
    const r = await retention(pid, { dateRange: { date_to: _date(0, 0, 16, 13) }, retentionFilter: { period: 'Hour', totalIntervals: 11 } });
    expect(pluck(r, 'label')).toEqual(Array.from({ length: 11 }, (_, i) => `Hour ${i}`));
    expect(pluck(r, 'date')).toEqual(Array.from({ length: 11 }, (_, i) => `2020-06-10T${String(6 + i).padStart(2, '0')}:00:00Z`));
    expect(counts(r)).toEqual(HOUR_LAYOUT_COUNTS);
  });

  it('test_month_interval: calendar months; `date` is the month start (reference §4.2/§4.3)', async () => {
    // The hour test's layout by month: person1 in months 0, 1, 2, 4, 5, 8 and person2 in 0, 1, 5, 6, 10 from January.
    const at = (m: number) => `2020-${String(1 + m).padStart(2, '0')}-10T00:00:00`;
    const pid = await project(TWO_PERSONS, [
      ...pvs([0, 1, 2, 4, 5, 8].map((m) => ['person1', at(m)] as [string, string])),
      ...pvs([0, 1, 5, 6, 10].map((m) => ['person2', at(m)] as [string, string])),
    ]);
    const r = await retention(pid, { dateRange: { date_to: '2020-11-10' }, retentionFilter: { period: 'Month', totalIntervals: 11 } });
    expect(pluck(r, 'label')).toEqual(Array.from({ length: 11 }, (_, i) => `Month ${i}`));
    expect(pluck(r, 'date')).toEqual(Array.from({ length: 11 }, (_, i) => `2020-${String(1 + i).padStart(2, '0')}-01T00:00:00Z`));
    expect(counts(r)).toEqual(HOUR_LAYOUT_COUNTS);
  });

  it('test_retention_multiple_events: $some_event cohorts, $pageview returns', async () => {
    const pid = await project(
      [...TWO_PERSONS, { distinct_ids: ['person3'] }, { distinct_ids: ['person4'] }],
      [
        ...pvs(
          [
            ['person1', _date(0)],
            ['person1', _date(1)],
            ['person1', _date(2)],
            ['person1', _date(3)],
            ['person2', _date(0)],
            ['person2', _date(1)],
            ['person2', _date(2)],
            ['person2', _date(3)],
            ['person3', _date(5)],
          ],
          '$some_event',
        ),
        ...pvs([
          ['person1', _date(5)],
          ['person1', _date(6)],
          ['person2', _date(5)],
        ]),
      ],
    );
    const r = await retention(pid, {
      dateRange: { date_to: _date(6, 0, 6) },
      retentionFilter: { targetEntity: { id: '$some_event', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' }, totalIntervals: 7 },
    });
    expect(r.results).toHaveLength(7);
    expect(counts(r)).toEqual(pad([[2, 0, 0, 0, 0, 2, 1], [2, 0, 0, 0, 2, 1], [2, 0, 0, 2, 1], [2, 0, 2, 1], [0, 0, 0], [1, 0], [0]]));
  });

  it('test_timezones: days and the naive date_to are in the project timezone; `date` carries its offset', async () => {
    const pid = await project(TWO_PERSONS, [
      ...pvs([
        ['person1', '2020-06-10T01:00:00'], // Jun 9 18:00 in Los Angeles
        ['person1', '2020-06-11T01:00:00'],
        ['person1', '2020-06-12T01:00:00'],
        ['person2', '2020-06-16T01:00:00'], // Jun 15 18:00 in Los Angeles
        ['person2', '2020-06-16T09:00:00'],
      ]),
    ]);
    const q = { dateRange: { date_to: _date(10, 0, 6) }, retentionFilter: { totalIntervals: 11 } };
    const utc = await retention(pid, q);
    const zeros = new Array(11).fill(0);
    const rows = (nonZero: Record<number, number[]>) => zeros.map((_, i) => [...(nonZero[i] ?? []), ...zeros].slice(0, 11));
    expect(counts(utc)).toEqual(rows({ 0: [1, 1, 1], 1: [1, 1], 2: [1], 6: [1] }));
    const pacific = await retention(pid, q, { timezone: 'US/Pacific' });
    expect(pacific.results[0].date).toBe('2020-06-10T00:00:00-07:00');
    expect(pacific.results[10].date).toBe('2020-06-20T00:00:00-07:00');
    expect(counts(pacific)).toEqual(rows({ 0: [1, 1], 1: [1], 5: [1, 1], 6: [1] }));
  });

  /** _create_first_time_retention_events: $user_signed_up targets, $pageview returns. */
  const FIRST_TIME_EVENTS: TestEvent[] = [
    ...pvs(
      [
        ['shouldnt_include', _date(-5)],
        ['shouldnt_include', _date(-1)],
        ['person1', _date(-1)],
        ['person1', _date(1)],
        ['person1', _date(2)],
        ['person1', _date(3)],
        ['person1', _date(4)],
        ['person2', _date(-1)],
        ['person3', _date(2)],
      ],
      '$user_signed_up',
    ),
    ...pvs([
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
      ['person3', _date(3)],
      ['person3', _date(4)],
      ['person4', _date(2)],
      ['person4', _date(6)],
    ]),
  ];
  const FIRST_TIME_PERSONS: TestPerson[] = [...TWO_PERSONS, { distinct_ids: ['person3'] }, { distinct_ids: ['person4'] }, { distinct_ids: ['shouldnt_include'] }];
  const signupToPageview = {
    period: 'Day',
    totalIntervals: 7,
    targetEntity: { id: '$user_signed_up', type: 'events' },
    returningEntity: { id: '$pageview', type: 'events' },
  };

  it('test_first_time_retention: cohort = day of the first-ever signup; a first signup before the range drops the person', async () => {
    const pid = await project(FIRST_TIME_PERSONS, FIRST_TIME_EVENTS);
    const r = await retention(pid, { dateRange: { date_to: _date(5, 0, 6) }, retentionFilter: { ...signupToPageview, retentionType: 'retention_first_time' } });
    expect(r.results).toHaveLength(7);
    expect(pluck(r, 'label')).toEqual(['Day 0', 'Day 1', 'Day 2', 'Day 3', 'Day 4', 'Day 5', 'Day 6']);
    expect(r.results[0].date).toBe('2020-06-09T00:00:00Z');
    expect(counts(r)).toEqual(pad([[2, 1, 2, 2, 1, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0], [0, 0], [0]]));
  });

  it('recurring retention over the same events: every signup day is a cohort', async () => {
    const pid = await project(FIRST_TIME_PERSONS, FIRST_TIME_EVENTS);
    const r = await retention(pid, { dateRange: { date_to: _date(5, 0, 6) }, retentionFilter: { ...signupToPageview, retentionType: 'retention_recurring' } });
    expect(counts(r)).toEqual(pad([[3, 1, 2, 2, 1, 0, 1], [0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 1], [2, 1, 1, 1], [1, 0, 1], [1, 1], [0]]));
  });

  it('test_retention_with_user_properties: a person property filter keeps the person and all their distinct ids', async () => {
    const pid = await project(
      [
        { distinct_ids: ['person1', 'alias1'], properties: { email: 'person1@test.com' } },
        { distinct_ids: ['person2'], properties: { email: 'person2@test.com' } },
      ],
      pvs(DAY_EVENTS),
    );
    const r = await retention(pid, {
      dateRange: { date_to: _date(6, 0, 0) },
      properties: [{ type: 'person', key: 'email', value: 'person1@test.com', operator: 'exact' }],
      retentionFilter: { totalIntervals: 7 },
    });
    expect(counts(r)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0], [1, 1], [1]]));
  });

  it('test_retention_any_event: id null on both entities matches every event name', async () => {
    const pid = await project(TWO_PERSONS, [
      ...pvs([
        ['person1', _date(0)],
        ['person2', _date(0)],
      ]),
      ...pvs(
        [
          ['person1', _date(1)],
          ['alias1', _date(2)],
          ['person2', _date(2)],
        ],
        '$some_event',
      ),
    ]);
    const any = { id: null, type: 'events' };
    const r = await retention(pid, { dateRange: { date_to: _date(3) }, retentionFilter: { totalIntervals: 4, targetEntity: any, returningEntity: any } });
    expect(counts(r)).toEqual([
      [2, 1, 2, 0],
      [1, 1, 0, 0],
      [2, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
    // only $pageview returns
    const pv = await retention(pid, {
      dateRange: { date_to: _date(3) },
      retentionFilter: { totalIntervals: 4, targetEntity: any, returningEntity: { id: '$pageview', type: 'events' } },
    });
    expect(counts(pv)[0]).toEqual([2, 0, 0, 0]);
  });

  it('target entity properties filter cohort entry only; returning entity properties filter returns only', async () => {
    const pid = await project(TWO_PERSONS, [
      { event: '$pageview', distinct_id: 'person1', timestamp: `${_date(0)}Z`, properties: { plan: 'pro' } },
      { event: '$pageview', distinct_id: 'person2', timestamp: `${_date(0)}Z`, properties: { plan: 'free' } },
      { event: '$pageview', distinct_id: 'person1', timestamp: `${_date(1)}Z`, properties: { plan: 'free' } },
      { event: '$pageview', distinct_id: 'person2', timestamp: `${_date(1)}Z`, properties: { plan: 'pro' } },
    ]);
    const pro = [{ type: 'event', key: 'plan', operator: 'exact', value: 'pro' }];
    const target = await retention(pid, {
      dateRange: { date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, targetEntity: { id: '$pageview', type: 'events', properties: pro }, returningEntity: { id: '$pageview', type: 'events' } },
    });
    // day 0: person1 (pro) returns on day 1 with a free pageview; day 1: person2 (pro)
    expect(counts(target)).toEqual([
      [1, 1, 0],
      [1, 0, 0],
      [0, 0, 0],
    ]);
    const returning = await retention(pid, {
      dateRange: { date_to: _date(2) },
      retentionFilter: { totalIntervals: 3, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events', properties: pro } },
    });
    // day 0: both; only person2's day-1 pageview is pro
    expect(counts(returning)).toEqual([
      [2, 1, 0],
      [2, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('test_groups_aggregating: aggregation_group_type_index counts groups; events without the group are left out', async () => {
    const withGroups = (rows: [string, string][], g0: string, g1: string): TestEvent[] =>
      rows.map(([distinct_id, ts]) => ({ event: '$pageview', distinct_id, timestamp: `${ts}Z`, properties: { $group_0: g0, $group_1: g1 } }));
    const p1 = WEEK_EVENTS.filter(([d]) => d === 'person1');
    const p2 = WEEK_EVENTS.filter(([d]) => d === 'person2');
    const pid = await project([...TWO_PERSONS, { distinct_ids: ['person3'] }], [
      ...withGroups(p1, 'org:5', 'company:1'),
      ...withGroups(p2, 'org:6', 'company:1'),
      ...pvs([['person3', _date(0)]]), // no group: not an actor
    ]);
    const q = { dateRange: { date_to: _date(10, 1) }, retentionFilter: { period: 'Week', totalIntervals: 7 } };
    const orgs = await retention(pid, { ...q, aggregation_group_type_index: 0 });
    expect(counts(orgs)).toEqual(WEEK_COUNTS);
    const companies = await retention(pid, { ...q, aggregation_group_type_index: 1 });
    expect(counts(companies)).toEqual(pad([[1, 1, 1, 1, 1, 0, 1], [1, 1, 1, 1, 0, 1], [1, 1, 1, 0, 1], [1, 1, 0, 1], [1, 0, 1], [0, 0], [1]]));
    const persons = await retention(pid, q);
    expect(counts(persons)[0][0]).toBe(3);
  });

  it('filterTestAccounts applies the team test-account filters to cohort and return events', async () => {
    const pid = await project(
      [
        { distinct_ids: ['person1', 'alias1'], properties: { email: 'person1@posthog.com' } },
        { distinct_ids: ['person2'], properties: { email: 'person2@test.com' } },
      ],
      pvs(DAY_EVENTS),
    );
    const proj = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
    const r = await retention(pid, { filterTestAccounts: true, dateRange: { date_to: _date(6) }, retentionFilter: { totalIntervals: 7 } }, proj);
    expect(counts(r)).toEqual(pad([[0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 0, 0, 1], [1, 1, 0, 0, 1], [1, 0, 0, 1], [0, 0, 0], [0, 0], [1]]));
  });

  it('persons merged after their events ($identify): the anonymous history counts for the merged person', async () => {
    const pid = await project(
      [],
      [
        { event: '$pageview', distinct_id: 'anon', timestamp: `${_date(0, 0, 10)}Z` },
        { event: '$pageview', distinct_id: 'user', timestamp: `${_date(1, 0, 10)}Z` },
        { event: '$identify', distinct_id: 'user', timestamp: `${_date(2, 0, 9)}Z`, properties: { $anon_distinct_id: 'anon' } },
        { event: '$pageview', distinct_id: 'anon', timestamp: `${_date(3, 0, 10)}Z` },
      ],
    );
    const q = { dateRange: { date_to: _date(3) }, retentionFilter: { totalIntervals: 4 } };
    expect(counts(await retention(pid, q))).toEqual([
      [1, 1, 0, 1],
      [1, 0, 1, 0],
      [0, 0, 0, 0],
      [1, 0, 0, 0],
    ]);
    const first = await retention(pid, { ...q, retentionFilter: { totalIntervals: 4, retentionType: 'retention_first_time' } });
    expect(counts(first)).toEqual([
      [1, 1, 0, 1],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
  });

  it('a relative date_from sets the first cohort (frozen clock): -7d by day is 8 rows', async () => {
    const restore = setInsightsClock(new Date('2020-06-16T15:00:00Z'));
    try {
      const pid = await project(TWO_PERSONS, pvs(DAY_EVENTS));
      const r = await retention(pid, { dateRange: { date_from: '-7d' }, retentionFilter: { totalIntervals: 7 } });
      expect(pluck(r, 'date')).toEqual(Array.from({ length: 8 }, (_, i) => `2020-06-${String(9 + i).padStart(2, '0')}T00:00:00Z`));
      expect(r.results[0].values).toHaveLength(7);
      expect(counts(r)[1]).toEqual([1, 1, 1, 0, 0, 1, 1]);
    } finally {
      restore();
    }
  });

  it('test_day_interval_sampled: samplingFactor 1 gives the unsampled answer', async () => {
    const pid = await project(TWO_PERSONS, pvs(DAY_EVENTS));
    const r = await retention(pid, { dateRange: { date_to: _date(10, 0, 6) }, samplingFactor: 1, retentionFilter: { totalIntervals: 11 } });
    expect(counts(r)[0]).toEqual([1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0]);
    expect(counts(r)[1]).toEqual([2, 2, 1, 0, 1, 2, 0, 0, 0, 0, 0]);
  });

  it('empty project: every cohort row is present with zero counts and labelled values', async () => {
    const pid = await project([], []);
    const r = await retention(pid, { dateRange: { date_to: '2020-06-16' }, retentionFilter: { totalIntervals: 7 } });
    expect(r.results).toHaveLength(7);
    expect(r.results[0]).toEqual({
      values: ['Day 0', 'Day 1', 'Day 2', 'Day 3', 'Day 4', 'Day 5', 'Day 6'].map((label) => ({ count: 0, label })),
      label: 'Day 0',
      date: '2020-06-10T00:00:00Z',
      breakdown_value: null,
    });
    expect(counts(r).flat().every((c: number) => c === 0)).toBe(true);
  });

  it('an explicit date_from sets the number of cohort rows; values keep totalIntervals entries', async () => {
    const pid = await project(TWO_PERSONS, pvs(DAY_EVENTS));
    const r = await retention(pid, { dateRange: { date_from: _date(1, 0, 15), date_to: _date(3) }, retentionFilter: { totalIntervals: 5 } });
    expect(pluck(r, 'date')).toEqual(['2020-06-11T00:00:00Z', '2020-06-12T00:00:00Z', '2020-06-13T00:00:00Z']);
    // returns after date_to (Jun 13) are not seen
    expect(counts(r)).toEqual([
      [2, 2, 1, 0, 0],
      [2, 1, 0, 0, 0],
      [1, 0, 0, 0, 0],
    ]);
  });

  it('without dateRange the range ends with the current period (frozen clock)', async () => {
    const restore = setInsightsClock(new Date('2020-06-16T15:00:00Z'));
    try {
      const pid = await project(TWO_PERSONS, pvs(DAY_EVENTS));
      const r = await retention(pid, { retentionFilter: { totalIntervals: 7 } });
      expect(pluck(r, 'date')[0]).toBe('2020-06-10T00:00:00Z');
      expect(pluck(r, 'date')[6]).toBe('2020-06-16T00:00:00Z');
      expect(counts(r)[0]).toEqual([1, 1, 1, 0, 0, 1, 1]);
    } finally {
      restore();
    }
  });
});

// ------------------------------------------------------------------------------------------------ lifecycle

const lifecycle = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', ...q }, pid, proj as any);

describe('LifecycleQuery (test_lifecycle_query_runner.py)', () => {
  it('test_lifecycle_trend', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' } });
    expect(byStatus(r)).toEqual({
      dormant: [0, -2, -1, 0, -2, 0, -1, 0],
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
    });
    expect(r.results[0].days).toEqual(['2020-01-12', '2020-01-13', '2020-01-14', '2020-01-15', '2020-01-16', '2020-01-17', '2020-01-18', '2020-01-19']);
    expect(r.results[0].labels).toEqual(['12-Jan-2020', '13-Jan-2020', '14-Jan-2020', '15-Jan-2020', '16-Jan-2020', '17-Jan-2020', '18-Jan-2020', '19-Jan-2020']);
    expect(r.results.map((x: any) => x.count)).toEqual([2, 2, 4, -6]);
    // the action object of the lifecycle runner: id, name, type, order, math (no other keys)
    expect(r.results[0].action).toEqual({ id: '$pageview', name: '$pageview', type: 'events', order: 0, math: 'total' });
  });

  it('test_lifecycle_trend_all_time: date_from "all" starts at the earliest event (frozen now)', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const restore = setInsightsClock(new Date('2020-01-17T13:01:01Z'));
    try {
      const r = await lifecycle(pid, { dateRange: { date_from: 'all' } });
      expect(r.results[0].days[0]).toBe('2020-01-09');
      expect(byStatus(r)).toEqual({
        dormant: [0, -1, 0, 0, -2, -1, 0, -2, 0],
        new: [1, 0, 1, 1, 0, 0, 1, 0, 0],
        returning: [0, 0, 0, 1, 1, 0, 0, 0, 0],
        resurrecting: [0, 0, 0, 1, 0, 0, 1, 0, 1],
      });
    } finally {
      restore();
    }
  });

  it('test_lifecycle_trend_prop_filtering: persons created after their events are never new', async () => {
    // _create_person outside freeze_time: created "now", long after the 2020 events.
    const ts = (d: string, n: number | null): TestEvent => ({ event: '$pageview', distinct_id: d.split('@')[0], timestamp: d.split('@')[1], properties: n === null ? {} : { $number: n } });
    const pid = await project(
      [{ distinct_ids: ['p1'], properties: { name: 'p1' } }, { distinct_ids: ['p2'], properties: { name: 'p2' } }, { distinct_ids: ['p3'], properties: { name: 'p3' } }, { distinct_ids: ['p4'], properties: { name: 'p4' } }],
      [
        ts('p1@2020-01-11T12:00:00Z', 1),
        ts('p1@2020-01-12T12:00:00Z', 1),
        ts('p1@2020-01-13T12:00:00Z', 1),
        ts('p1@2020-01-15T12:00:00Z', 1),
        ts('p1@2020-01-17T12:00:00Z', 1),
        ts('p1@2020-01-19T12:00:00Z', 1),
        ts('p2@2020-01-09T12:00:00Z', null),
        ts('p2@2020-01-12T12:00:00Z', null),
        ts('p3@2020-01-12T12:00:00Z', 1),
        ts('p4@2020-01-15T12:00:00Z', 1),
      ],
    );
    const r = await lifecycle(pid, {
      dateRange: { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' },
      properties: [{ type: 'event', key: '$number', value: '1', operator: 'exact' }],
    });
    expect(byStatus(r)).toEqual({
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 2, 0, 1, 0, 1],
      dormant: [0, -1, -1, 0, -2, 0, -1, 0],
    });
  });

  it('test_lifecycle_trends_distinct_id_repeat: two distinct ids of one person', async () => {
    const pid = await project(
      [{ distinct_ids: ['p1', 'another_p1'], created_at: '2020-01-12T12:00:00Z', properties: { name: 'p1' } }],
      [
        { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-12T12:00:00Z' },
        { event: '$pageview', distinct_id: 'another_p1', timestamp: '2020-01-14T12:00:00Z' },
        { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-15T12:00:00Z' },
        { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-17T12:00:00Z' },
        { event: '$pageview', distinct_id: 'p1', timestamp: '2020-01-19T12:00:00Z' },
      ],
    );
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' } });
    expect(byStatus(r)).toEqual({
      new: [1, 0, 0, 0, 0, 0, 0, 0],
      returning: [0, 0, 0, 1, 0, 0, 0, 0],
      resurrecting: [0, 0, 1, 0, 0, 1, 0, 1],
      dormant: [0, -1, 0, 0, -1, 0, -1, 0],
    });
  });

  it('test_lifecycle_trend_weeks: days are the week starts of the range', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_WEEKS);
    const pid = await project(persons, events);
    const r = await lifecycle(pid, { interval: 'week', dateRange: { date_from: '2020-02-05T00:00:00Z', date_to: '2020-03-09T00:00:00Z' } });
    expect(r.results[0].days).toEqual(['2020-02-02', '2020-02-09', '2020-02-16', '2020-02-23', '2020-03-01', '2020-03-08']);
    expect(byStatus(r)).toEqual({
      dormant: [0, 0, -2, -1, -1, -1],
      new: [0, 2, 0, 1, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 0],
      returning: [1, 1, 1, 0, 1, 0],
    });
  });

  it('test_lifecycle_trend_months', async () => {
    const { persons, events } = lifecycleData([
      ['p1', ['2020-01-11T12:00:00Z', '2020-02-12T12:00:00Z', '2020-03-13T12:00:00Z', '2020-05-15T12:00:00Z', '2020-07-17T12:00:00Z', '2020-09-19T12:00:00Z']],
      ['p2', ['2019-12-09T12:00:00Z', '2020-02-12T12:00:00Z']],
      ['p3', ['2020-02-12T12:00:00Z']],
      ['p4', ['2020-05-15T12:00:00Z']],
    ]);
    const pid = await project(persons, events);
    const r = await lifecycle(pid, { interval: 'month', dateRange: { date_from: '2020-02-01T00:00:00Z', date_to: '2020-09-01T00:00:00Z' } });
    expect(r.results[0].days).toEqual(['2020-02-01', '2020-03-01', '2020-04-01', '2020-05-01', '2020-06-01', '2020-07-01', '2020-08-01', '2020-09-01']);
    expect(byStatus(r)).toEqual({
      dormant: [0, -2, -1, 0, -2, 0, -1, 0],
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
    });
  });

  it('test_timezones: the same events in US/Pacific move p1 a day back', async () => {
    const { persons, events } = lifecycleData([
      ['p1', ['2020-01-11T23:00:00Z', '2020-01-12T01:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z']],
      ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z']],
      ['p3', ['2020-01-12T12:00:00Z']],
      ['p4', ['2020-01-15T12:00:00Z']],
    ]);
    const pid = await project(persons, events);
    const q = { dateRange: { date_from: '2020-01-12', date_to: '2020-01-19' } };
    expect(byStatus(await lifecycle(pid, q))).toEqual({
      dormant: [0, -2, -1, 0, -2, 0, -1, 0],
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 1, 0, 1, 0, 1],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
    });
    expect(byStatus(await lifecycle(pid, q, { timezone: 'US/Pacific' }))).toEqual({
      dormant: [-1, -2, -1, 0, -2, 0, -1, 0],
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      resurrecting: [1, 1, 0, 1, 0, 1, 0, 1],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
    });
  });

  it('test_lifecycle_hogql_person_properties: a HogQL filter on person properties', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const r = await lifecycle(pid, {
      dateRange: { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' },
      properties: [{ type: 'hogql', key: "like(person.properties.email, '%@posthog.com')" }],
    });
    expect(byStatus(r)).toEqual({
      dormant: [0, 0, -1, 0, -1, 0, -1, 0],
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
    });
  });

  it('test_lifecycle_hogql_event_properties: a HogQL filter on event properties', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS, '$pageview', (id) => ({ $current_url: id === 'p1' ? 'https://example.com/a' : 'https://other.com' }));
    const pid = await project(persons, events);
    const r = await lifecycle(pid, {
      dateRange: { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' },
      properties: [{ type: 'hogql', key: "like(properties.$current_url, '%example%')" }],
    });
    expect(byStatus(r)).toEqual({
      dormant: [0, 0, -1, 0, -1, 0, -1, 0],
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
    });
  });

  it('all events: label "All events - <status>", action id null and name "All events"', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS, 'custom');
    const pid = await project(persons, events);
    const r = await lifecycle(pid, { series: [{ kind: 'EventsNode', event: null }], dateRange: { date_from: '2020-01-12', date_to: '2020-01-19' } });
    expect(pluck(r, 'label')).toEqual(['All events - new', 'All events - returning', 'All events - resurrecting', 'All events - dormant']);
    expect(r.results[3].action).toEqual({ id: null, name: 'All events', type: 'events', order: 0, math: 'total' });
    expect(byStatus(r).new).toEqual([1, 0, 0, 1, 0, 0, 0, 0]);
  });

  it('a series name is display-only: the action name and label stay the event name', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const r = await lifecycle(pid, {
      series: [{ kind: 'EventsNode', event: '$pageview', name: 'Pageviews', custom_name: 'Views' }],
      dateRange: { date_from: '2020-01-12', date_to: '2020-01-19' },
    });
    expect(r.results[0].label).toBe('$pageview - new');
    expect(r.results[0].action).toEqual({ id: '$pageview', name: '$pageview', type: 'events', order: 0, math: 'total' });
  });

  it('activity before the creation interval: the creation interval is not "new" unless it is the first activity', async () => {
    // PostHog: previous_activity = [startOf(created_at), all_activity[:-1]...]; 'new' iff previous == current, which for
    // any interval but the first compares two different active intervals. A person created (merged) on Jan 14 with a
    // pageview on Jan 13: Jan 13 is resurrecting (first activity, not the creation day) and Jan 14 returning, not new.
    const pid = await project(
      [{ distinct_ids: ['late'], created_at: '2020-01-14T08:00:00Z' }],
      [
        { event: '$pageview', distinct_id: 'late', timestamp: '2020-01-13T12:00:00Z' },
        { event: '$pageview', distinct_id: 'late', timestamp: '2020-01-14T07:30:00Z' },
        { event: '$pageview', distinct_id: 'late', timestamp: '2020-01-14T08:30:00Z' },
        { event: '$pageview', distinct_id: 'late', timestamp: '2020-01-14T12:00:00Z' },
        { event: '$pageview', distinct_id: 'late', timestamp: '2020-01-16T12:00:00Z' },
      ],
    );
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-13', date_to: '2020-01-16' } });
    expect(byStatus(r)).toEqual({
      new: [0, 0, 0, 0],
      returning: [0, 1, 0, 0],
      resurrecting: [1, 0, 0, 1],
      dormant: [0, 0, -1, 0],
    });
    // the same by hour (self-join path)
    const h = await lifecycle(pid, { interval: 'hour', dateRange: { date_from: '2020-01-14T07:00:00', date_to: '2020-01-14T12:00:00' } });
    // created 08:00; active 07:00 (first in the fetched hours: resurrecting), 08:00 (after 07:00: returning), 12:00
    expect(byStatus(h)).toEqual({
      new: [0, 0, 0, 0, 0, 0],
      returning: [0, 1, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 0, 0, 1],
      dormant: [0, 0, -1, 0, 0, 0],
    });
  });

  it('filterTestAccounts: the team filters drop the test person', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const proj = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
    const r = await lifecycle(pid, { filterTestAccounts: true, dateRange: { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' } }, proj);
    // p1 (test@posthog.com) gone: p2 resurrecting + p3 new on the 12th, both dormant on the 13th, p4 new on the 15th
    expect(byStatus(r)).toEqual({
      new: [1, 0, 0, 1, 0, 0, 0, 0],
      returning: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [1, 0, 0, 0, 0, 0, 0, 0],
      dormant: [0, -2, 0, 0, -1, 0, 0, 0],
    });
  });

  it('empty project: four zero series with labels and days', async () => {
    const pid = await project([], []);
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-12', date_to: '2020-01-14' } });
    expect(r.results.map((x: any) => [x.status, x.label, x.data, x.count])).toEqual([
      ['new', '$pageview - new', [0, 0, 0], 0],
      ['returning', '$pageview - returning', [0, 0, 0], 0],
      ['resurrecting', '$pageview - resurrecting', [0, 0, 0], 0],
      ['dormant', '$pageview - dormant', [0, 0, 0], 0],
    ]);
    expect(r.results[0].days).toEqual(['2020-01-12', '2020-01-13', '2020-01-14']);
  });

  it('test_sampling: samplingFactor 1 gives the unsampled answer', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const r = await lifecycle(pid, { samplingFactor: 1, dateRange: { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' } });
    expect(byStatus(r).new).toEqual([1, 0, 0, 1, 0, 0, 0, 0]);
  });
});

// ------------------------------------------------------------------------------------------------ stickiness

/**
 * test_stickiness_query_runner.py's layout: p1 (Chrome, prop 10, org:1) and p2 (Firefox, prop 20, org:1 too here, so
 * group and hogql actors differ from persons); default range 2020-01-11 .. 2020-01-20 (10 days).
 * p1: Jan 11, 12, 13, 15, 17, 19 (6 days) | p2: Jan 9, 11, 12 (2 days in range) + $pageleave Jan 14.
 */
async function stickinessProject(): Promise<number> {
  const p = (id: string, ts: string[], props: Record<string, unknown>, event = '$pageview'): TestEvent[] => ts.map((t) => ({ event, distinct_id: id, timestamp: t, properties: props }));
  return project(
    [
      { distinct_ids: ['p1'], properties: { email: 'test@posthog.com' } },
      { distinct_ids: ['p2'], properties: { email: 'p2@example.com' } },
    ],
    [
      ...p('p1', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z'], {
        $browser: 'Chrome',
        prop: 10,
        $group_0: 'org:1',
      }),
      ...p('p2', ['2020-01-09T12:00:00Z', '2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z'], { $browser: 'Firefox', prop: 10, $group_0: 'org:1' }),
      ...p('p2', ['2020-01-14T12:00:00Z'], { $browser: 'Firefox' }, '$pageleave'),
    ],
  );
}
const stickiness = (pid: number, q: Record<string, unknown> = {}, proj: Record<string, unknown> = {}) =>
  db.run(
    stickinessRunner,
    { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: { date_from: '2020-01-11', date_to: '2020-01-20' }, ...q },
    pid,
    proj as any,
  );
const dayLabels = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1} day${i === 0 ? '' : 's'}`);

describe('StickinessQuery (test_stickiness_query_runner.py)', () => {
  let pid: number;
  beforeAll(async () => {
    pid = await stickinessProject();
  });

  it('test_days / test_count / test_labels', async () => {
    const r = await stickiness(pid);
    expect(r.results).toHaveLength(1);
    expect(r.results[0]).toMatchObject({
      days: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      labels: dayLabels(10),
      label: '$pageview',
      count: 2,
      data: [0, 1, 0, 0, 0, 1, 0, 0, 0, 0],
    });
  });

  it('test_interval_hour: absolute bounds at midnight give 25 hours', async () => {
    const r = await stickiness(pid, { interval: 'hour', dateRange: { date_from: '2020-01-11T00:00:00Z', date_to: '2020-01-12T00:00:00Z' } });
    const data = new Array(25).fill(0);
    data[0] = 2;
    expect(r.results[0].labels).toEqual(Array.from({ length: 25 }, (_, h) => `${h + 1} hour${h === 0 ? '' : 's'}`));
    expect(r.results[0].days).toEqual(Array.from({ length: 25 }, (_, h) => h + 1));
    expect(r.results[0].data).toEqual(data);
  });

  it('test_interval_week and test_interval_month', async () => {
    const week = await stickiness(pid, { interval: 'week' });
    expect(week.results[0]).toMatchObject({ labels: ['1 week', '2 weeks', '3 weeks'], days: [1, 2, 3], data: [0, 1, 1] });
    const month = await stickiness(pid, { interval: 'month' });
    expect(month.results[0]).toMatchObject({ labels: ['1 month'], days: [1], data: [2] });
  });

  it('test_interval_full_weeks: Sunday-to-Saturday range, events after date_to left out', async () => {
    const r = await stickiness(pid, { interval: 'week', dateRange: { date_from: '2019-12-29', date_to: '2020-01-18' } });
    expect(r.results[0]).toMatchObject({ days: [1, 2, 3], data: [0, 2, 0] });
  });

  it('test_property_filtering / test_event_filtering / test_property_filtering_hogql', async () => {
    const chrome = [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }];
    const expected = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0];
    expect((await stickiness(pid, { properties: chrome })).results[0].data).toEqual(expected);
    expect((await stickiness(pid, { series: [{ kind: 'EventsNode', event: '$pageview', properties: chrome }] })).results[0].data).toEqual(expected);
    expect((await stickiness(pid, { properties: [{ type: 'hogql', key: "properties.$browser == 'Chrome'" }] })).results[0].data).toEqual(expected);
    // person properties
    const person = await stickiness(pid, { properties: [{ type: 'person', key: 'email', operator: 'icontains', value: 'posthog.com' }] });
    expect(person.results[0]).toMatchObject({ data: expected, count: 1 });
  });

  it('test_filter_test_accounts', async () => {
    const proj = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
    const r = await stickiness(pid, { filterTestAccounts: true }, proj);
    expect(r.results[0]).toMatchObject({ data: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0], count: 1 });
    const off = await stickiness(pid, { filterTestAccounts: false }, proj);
    expect(off.results[0].count).toBe(2);
  });

  it('test_any_event: label "All events", action id null', async () => {
    const r = await stickiness(pid, { series: [{ kind: 'EventsNode', event: null }] });
    expect(r.results[0]).toMatchObject({ label: 'All events', data: [0, 0, 1, 0, 0, 1, 0, 0, 0, 0], count: 2 });
    expect(r.results[0].action).toMatchObject({ id: null, name: 'All events', type: 'events', order: 0 });
  });

  it('the action object: order, type, name, id, custom_name (reference §6.2)', async () => {
    const r = await stickiness(pid, { series: [{ kind: 'EventsNode', event: '$pageview', custom_name: 'Views' }, { kind: 'EventsNode', event: null }] });
    expect(r.results[0].action).toEqual({ order: 0, type: 'events', name: '$pageview', id: '$pageview', custom_name: 'Views' });
    expect(r.results[1].action).toEqual({ order: 1, type: 'events', name: 'All events', id: null, custom_name: null });
    expect(r.results[0].label).toBe('$pageview');
  });

  it('several series: one item each, in order, with action.order', async () => {
    const r = await stickiness(pid, { series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: '$pageleave' }] });
    expect(r.results.map((x: any) => [x.label, x.action.order, x.count])).toEqual([
      ['$pageview', 0, 2],
      ['$pageleave', 1, 1],
    ]);
    expect(r.results[1].data).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('test_compare: current then previous with the previous period of the same length', async () => {
    const r = await stickiness(pid, { compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare, x.compare_label, x.count])).toEqual([
      [true, 'current', 2],
      [true, 'previous', 1],
    ]);
    // previous period Jan 1 .. Jan 10: p2 on Jan 9
    expect(r.results[1].data).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(r.results[1].days).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('test_hogql_aggregations: math hogql makes the expression the actor', async () => {
    const r = await stickiness(pid, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'hogql', math_hogql: 'properties.prop' }] });
    // both persons send prop 10: one actor active on Jan 11, 12, 13, 15, 17, 19
    expect(r.results[0]).toMatchObject({ data: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0], count: 1 });
  });

  it('test_group_aggregations: math unique_group counts groups', async () => {
    const r = await stickiness(pid, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_group', math_group_type_index: 0 }] });
    expect(r.results[0]).toMatchObject({ data: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0], count: 1 });
  });

  it('other math values are ignored: counts persons', async () => {
    const r = await stickiness(pid, { series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }] });
    expect(r.results[0].data).toEqual([0, 1, 0, 0, 0, 1, 0, 0, 0, 0]);
  });

  it('merged distinct ids are one person; days are counted in the project timezone', async () => {
    const p2 = await project(
      [{ distinct_ids: ['x', 'x-alias'] }],
      [
        { event: '$pageview', distinct_id: 'x', timestamp: '2020-01-12T03:00:00Z' }, // Jan 11 22:00 in New York
        { event: '$pageview', distinct_id: 'x-alias', timestamp: '2020-01-12T12:00:00Z' },
      ],
    );
    const utc = await stickiness(p2);
    expect(utc.results[0].data.slice(0, 3)).toEqual([1, 0, 0]);
    const ny = await stickiness(p2, {}, { timezone: 'America/New_York' });
    expect(ny.results[0].data.slice(0, 3)).toEqual([0, 1, 0]);
  });

  it('a person merged by $identify after both distinct ids were active counts once', async () => {
    const p3 = await project(
      [],
      [
        { event: '$pageview', distinct_id: 'anon', timestamp: '2020-01-11T10:00:00Z' },
        { event: '$pageview', distinct_id: 'user', timestamp: '2020-01-12T10:00:00Z' },
        { event: '$identify', distinct_id: 'user', timestamp: '2020-01-13T09:00:00Z', properties: { $anon_distinct_id: 'anon' } },
      ],
    );
    const r = await stickiness(p3);
    expect(r.results[0]).toMatchObject({ data: [0, 1, 0, 0, 0, 0, 0, 0, 0, 0], count: 1 });
  });

  it('empty project: zeros for every day', async () => {
    const empty = await project([], []);
    const r = await stickiness(empty);
    expect(r.results[0]).toMatchObject({ data: new Array(10).fill(0), count: 0, days: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], labels: dayLabels(10) });
  });
});
