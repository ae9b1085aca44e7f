/**
 * More RetentionQuery, StickinessQuery and LifecycleQuery cases ported from PostHog's suites — the ones
 * retention-lifecycle-stickiness-posthog-compat.test.ts, retention.test.ts, stickiness-runner.test.ts and
 * lifecycle-runner.test.ts do not pin yet: actions as entities/series, the legacy posthog/queries/test/test_stickiness.py
 * and test_lifecycle.py layouts, breakdowns with the Other bucket, and the actors of retention, stickiness and lifecycle
 * data points (InsightActorsQuery). Each title names the PostHog test it ports; where a number could not be recalled
 * exactly, the expectation is derived from the reference (§4, §6, §7) and the comment says so.
 */
import { actionRegistry, actionStep, createInsightTestDb, type InsightTestDb, type TestEvent, type TestPerson } from '../insights/testing';
import { byStatus, LIFECYCLE_DAYS, LIFECYCLE_TREND, pad, PERSON1_DAY_ROWS, PERSON2_DAY_ROWS, retentionCounts as counts, retentionDate as _date, retentionEvents as evs } from './testing';
import { setInsightsClock } from '../insights/date-range';
import { retentionRunner } from './retention-runner';
import { lifecycleRunner } from './lifecycle-runner';
import { stickinessRunner } from './stickiness-runner';
import { actorsRunner } from './actors-runner';
import { runWithCohorts, type ResolvedCohort } from '../../cohorts/cohort-scope';

let db: InsightTestDb;
const { source: actionSource, action } = actionRegistry(500);
beforeAll(async () => {
  db = await createInsightTestDb();
  db.actions = actionSource;
});
afterAll(async () => {
  await db.close();
});

const project: InsightTestDb['project'] = (persons, events) => db.project(persons, events);

const pluck = (r: any, key: string) => (r.results as any[]).map((x) => x[key]);
/** ActorsQuery over an InsightActorsQuery source: `[last distinct id in sort order, ...other selected columns]` per actor, sorted. */
async function actorsOf(pid: number, source: Record<string, unknown>, select: string[] = ['person']) {
  const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select, source: { kind: 'InsightActorsQuery', ...source } }, pid);
  return (r.results as any[]).map((row) => [(row[0].distinct_ids ? [...row[0].distinct_ids].sort().pop() : row[0].id), ...row.slice(1)]).sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
}

// ------------------------------------------------------------------------------------------------ retention

const TWO_PERSONS: TestPerson[] = [{ distinct_ids: ['person1', 'alias1'] }, { distinct_ids: ['person2'] }];
const DAY_ROWS: [string, string][] = [...PERSON1_DAY_ROWS, ...PERSON2_DAY_ROWS];
const retention = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(retentionRunner, { kind: 'RetentionQuery', retentionFilter: {}, ...q }, pid, proj as any);

describe('RetentionQuery (test_retention_query_runner.py)', () => {
  it('test_retention_event_action: an action as the target entity, an event as the returning entity', async () => {
    const signup = action('signed up', [actionStep('sign up')]);
    const pid = await project(TWO_PERSONS, [
      ...evs(
        [
          ['person1', _date(0)],
          ['person1', _date(1)],
          ['person1', _date(2)],
          ['person1', _date(3)],
          ['person2', _date(0)],
          ['person2', _date(1)],
          ['person2', _date(2)],
          ['person2', _date(3)],
        ],
        'sign up',
      ),
      ...evs(
        [
          ['person1', _date(3)],
          ['person2', _date(5)],
        ],
        '$some_event',
      ),
    ]);
    const r = await retention(pid, {
      dateRange: { date_to: _date(6) },
      retentionFilter: { totalIntervals: 7, targetEntity: { id: signup, type: 'actions' }, returningEntity: { id: '$some_event', type: 'events' } },
    });
    expect(pluck(r, 'label')).toEqual(['Day 0', 'Day 1', 'Day 2', 'Day 3', 'Day 4', 'Day 5', 'Day 6']);
    expect(r.results[0].date).toBe('2020-06-10T00:00:00Z');
    expect(counts(r)).toEqual(pad([[2, 0, 0, 1, 0, 1, 0], [2, 0, 1, 0, 1, 0], [2, 1, 0, 1, 0], [2, 0, 1, 0], [0, 0, 0], [0, 0], [0]]));
  });

  it('test_retention_action_start_point: the same action as target and returning entity', async () => {
    const signup = action('signed up', [actionStep('sign up')]);
    const pid = await project(TWO_PERSONS, evs(DAY_ROWS, 'sign up'));
    const entity = { id: signup, type: 'actions' };
    const r = await retention(pid, { dateRange: { date_to: _date(6) }, retentionFilter: { totalIntervals: 7, targetEntity: entity, returningEntity: entity } });
    expect(counts(r)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1], [2, 2, 1, 0, 1, 2], [2, 1, 0, 1, 2], [1, 0, 0, 1], [0, 0, 0], [1, 1], [2]]));
  });

  it('test_retention_with_user_properties_via_action: an action step with a person property filter', async () => {
    const a = action('person1 pageviews', [actionStep('$pageview', [{ key: 'email', value: 'person1@test.com', type: 'person', operator: 'exact' }])]);
    const pid = await project(
      [
        { distinct_ids: ['person1', 'alias1'], properties: { email: 'person1@test.com' } },
        { distinct_ids: ['person2'], properties: { email: 'person2@test.com' } },
      ],
      evs(DAY_ROWS),
    );
    const entity = { id: a, type: 'actions' };
    const r = await retention(pid, { dateRange: { date_to: _date(6) }, retentionFilter: { totalIntervals: 7, targetEntity: entity, returningEntity: entity } });
    expect(counts(r)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0], [1, 1], [1]]));
  });

  it('an ActionsNode-kind entity (`kind: "ActionsNode"`) is an action too', async () => {
    const signup = action('signed up', [actionStep('sign up')]);
    const pid = await project(TWO_PERSONS, evs(DAY_ROWS, 'sign up'));
    const entity = { id: signup, kind: 'ActionsNode' };
    const r = await retention(pid, { dateRange: { date_to: _date(6) }, retentionFilter: { totalIntervals: 7, targetEntity: entity, returningEntity: entity } });
    expect(counts(r)[0]).toEqual([1, 1, 1, 0, 0, 1, 1]);
  });

  it('an action that does not exist is a 400 on the entity', async () => {
    const pid = await project(TWO_PERSONS, evs(DAY_ROWS));
    await expect(
      retention(pid, { dateRange: { date_to: _date(6) }, retentionFilter: { totalIntervals: 7, targetEntity: { id: 99999, type: 'actions' } } }),
    ).rejects.toMatchObject({ status: 400, attr: 'retentionFilter__targetEntity' });
  });

  it('test_retention_with_properties: a global event property filter applies to cohort and return events', async () => {
    // person1's events carry $some_property (person2's do not): only person1 is seen.
    const pid = await project(TWO_PERSONS, [
      ...evs(DAY_ROWS.filter(([d]) => d !== 'person2'), '$pageview', { $some_property: 'value' }),
      ...evs(DAY_ROWS.filter(([d]) => d === 'person2')),
    ]);
    const r = await retention(pid, {
      dateRange: { date_to: _date(6) },
      properties: [{ type: 'event', key: '$some_property', value: 'value', operator: 'exact' }],
      retentionFilter: { totalIntervals: 7 },
    });
    expect(counts(r)).toEqual(pad([[1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0], [1, 1], [1]]));
  });

  it('test_first_time_retention with Week periods: cohort = week of the first-ever target event', async () => {
    // person1 signs up in week 0 and again in week 1; person2 first signs up in week 1; both return in week 2.
    const pid = await project(TWO_PERSONS, [
      ...evs(
        [
          ['person1', _date(-2)], // Mon Jun 8 (week of Sun Jun 7)
          ['person1', _date(5)],
          ['person2', _date(5)], // Mon Jun 15
        ],
        'signup',
      ),
      ...evs([
        ['person1', _date(12)],
        ['person2', _date(12)],
      ]),
    ]);
    const q = {
      dateRange: { date_from: _date(-3), date_to: _date(12) },
      retentionFilter: { period: 'Week', totalIntervals: 3, targetEntity: { id: 'signup', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
    };
    const first = await retention(pid, { ...q, retentionFilter: { ...q.retentionFilter, retentionType: 'retention_first_time' } });
    expect(pluck(first, 'date')).toEqual(['2020-06-07T00:00:00Z', '2020-06-14T00:00:00Z', '2020-06-21T00:00:00Z']);
    expect(counts(first)).toEqual([
      [1, 0, 1],
      [1, 1, 0],
      [0, 0, 0],
    ]);
    const recurring = await retention(pid, q);
    expect(counts(recurring)).toEqual([
      [1, 0, 1],
      [2, 2, 0],
      [0, 0, 0],
    ]);
  });

  it('breakdown by a person property: one block of rows per value, largest cohorts first (reference §4.2/§4.3)', async () => {
    const pid = await project(
      [
        { distinct_ids: ['person1', 'alias1'], properties: { plan: 'pro' } },
        { distinct_ids: ['person2'], properties: { plan: 'free' } },
        { distinct_ids: ['person3'], properties: { plan: 'free' } },
        { distinct_ids: ['person4'] },
      ],
      [
        ...evs(DAY_ROWS),
        ...evs([
          ['person3', _date(1)],
          ['person3', _date(2)],
          ['person4', _date(0)],
        ]),
      ],
    );
    const r = await retention(pid, {
      dateRange: { date_to: _date(2) },
      breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
      retentionFilter: { totalIntervals: 3 },
    });
    expect(r.results.map((x: any) => [x.breakdown_value, x.label, x.values.map((v: any) => v.count)])).toEqual([
      ['free', 'Day 0', [0, 0, 0]],
      ['free', 'Day 1', [2, 2, 0]],
      ['free', 'Day 2', [2, 0, 0]],
      ['pro', 'Day 0', [1, 1, 1]],
      ['pro', 'Day 1', [1, 1, 0]],
      ['pro', 'Day 2', [1, 0, 0]],
      ['', 'Day 0', [1, 0, 0]],
      ['', 'Day 1', [0, 0, 0]],
      ['', 'Day 2', [0, 0, 0]],
    ]);
    // breakdown_value is null without a breakdown
    expect((await retention(pid, { dateRange: { date_to: _date(2) }, retentionFilter: { totalIntervals: 3 } })).results[0].breakdown_value).toBeNull();
  });

  it('breakdown by a group property (breakdown_type group, breakdown_group_type_index)', async () => {
    const identify = (key: string, industry: string): TestEvent => ({
      event: '$groupidentify',
      distinct_id: 'person1',
      timestamp: `${_date(-5)}Z`,
      properties: { $group_type: 'company', $group_key: key, $group_set: { industry } },
    });
    const pid = await project(TWO_PERSONS, [
      identify('acme', 'finance'),
      identify('beta', 'tech'),
      ...evs([['person1', _date(0)], ['person1', _date(1)]], '$pageview', { $groups: { company: 'acme' } }),
      ...evs([['person2', _date(0)]], '$pageview', { $groups: { company: 'beta' } }),
      ...evs([['person2', _date(1)]]),
    ]);
    const r = await retention(pid, {
      dateRange: { date_to: _date(1) },
      breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 },
      retentionFilter: { totalIntervals: 2 },
    });
    // person2's Jun 11 pageview has no company: its cohort there is the empty value; returns count whatever their value
    expect(r.results.map((x: any) => [x.breakdown_value, x.values.map((v: any) => v.count)])).toEqual([
      ['finance', [1, 1]],
      ['finance', [1, 0]],
      ['', [0, 0]],
      ['', [1, 0]],
      ['tech', [1, 1]],
      ['tech', [0, 0]],
    ]);
  });

  it('cohort breakdown: one block per cohort (breakdown_value its id, 0 for all users), an actor in every cohort it is in (reference §4.3)', async () => {
    const pid = await project(
      [
        { distinct_ids: ['person1', 'alias1'], properties: { plan: 'pro' } },
        { distinct_ids: ['person2'], properties: { plan: 'free' } },
      ],
      evs(DAY_ROWS),
    );
    const pro: ResolvedCohort = { id: 71, name: 'pro', isStatic: false, group: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } as any, personIds: [] };
    const scope = <T>(fn: () => Promise<T>) => runWithCohorts(new Map([[71, pro]]), fn);
    const q = { dateRange: { date_to: _date(2) }, breakdownFilter: { breakdown_type: 'cohort', breakdown: [71, 'all'] }, retentionFilter: { totalIntervals: 3 } };
    const r = await scope(() => retention(pid, q));
    expect(r.results.map((x: any) => [x.breakdown_value, x.label, x.values.map((v: any) => v.count)])).toEqual([
      [0, 'Day 0', [1, 1, 1]],
      [0, 'Day 1', [2, 2, 0]],
      [0, 'Day 2', [2, 0, 0]],
      [71, 'Day 0', [1, 1, 1]],
      [71, 'Day 1', [1, 1, 0]],
      [71, 'Day 2', [1, 0, 0]],
    ]);
    const source = { kind: 'RetentionQuery', ...q };
    expect(await scope(() => actorsOf(pid, { source, interval: 1, breakdown: 71 }))).toEqual([['person1']]);
    expect(await scope(() => actorsOf(pid, { source, interval: 1, breakdown: 'all' }))).toEqual([['person1'], ['person2']]);
    // a cohort the project does not have
    await expect(scope(() => retention(pid, { ...q, breakdownFilter: { breakdown_type: 'cohort', breakdown: [72] } }))).rejects.toMatchObject({ status: 400 });
  });

  it('breakdown_limit: the values past the limit are merged into "$$_posthog_breakdown_other_$$", last', async () => {
    const pid = await project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }, { distinct_ids: ['c'] }, { distinct_ids: ['d'] }],
      [
        ...evs([['a', _date(0)], ['a', _date(1)], ['b', _date(0)]], '$pageview', { $browser: 'Chrome' }),
        ...evs([['c', _date(0)], ['c', _date(1)]], '$pageview', { $browser: 'Safari' }),
        ...evs([['d', _date(1)]], '$pageview', { $browser: 'Firefox' }),
      ],
    );
    const q = { dateRange: { date_to: _date(1) }, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 1 }, retentionFilter: { totalIntervals: 2 } };
    const r = await retention(pid, q);
    expect(r.results.map((x: any) => [x.breakdown_value, x.values.map((v: any) => v.count)])).toEqual([
      ['Chrome', [2, 1]],
      ['Chrome', [1, 0]],
      ['$$_posthog_breakdown_other_$$', [1, 1]],
      ['$$_posthog_breakdown_other_$$', [2, 0]],
    ]);
    // the actors of each block: a value, and the Other bucket (every value past the limit)
    expect(await actorsOf(pid, { source: { kind: 'RetentionQuery', ...q }, interval: 0, breakdown: 'Chrome' })).toEqual([['a'], ['b']]);
    expect(await actorsOf(pid, { source: { kind: 'RetentionQuery', ...q }, interval: 1, breakdown: '$$_posthog_breakdown_other_$$' })).toEqual([['c'], ['d']]);
    expect(await actorsOf(pid, { source: { kind: 'RetentionQuery', ...q }, interval: 0, breakdown: '$$_posthog_breakdown_other_$$' })).toEqual([['c']]);
  });

  it('test_retention_people_basic / test_retention_people_in_period: the actors of a cohort and the intervals they appear in', async () => {
    const pid = await project(TWO_PERSONS, evs(DAY_ROWS));
    const source = { kind: 'RetentionQuery', dateRange: { date_to: _date(10, 0, 6) }, retentionFilter: { totalIntervals: 11 } };
    // cohort Day 0 (Jun 10): person1 only, returning on days 1, 2, 5, 6
    expect(await actorsOf(pid, { source, interval: 0 }, ['person', 'appearances'])).toEqual([['person1', [0, 1, 2, 5, 6]]]);
    // cohort Day 1: person1 (returns 1, 4, 5 days later) and person2 (1, 2, 5)
    expect(await actorsOf(pid, { source, interval: 1 }, ['person', 'appearances'])).toEqual([
      ['person1', [0, 1, 4, 5]],
      ['person2', [0, 1, 2, 5]],
    ]);
    expect(await actorsOf(pid, { source, interval: 4 })).toEqual([]);
  });

  it('run_actors_query: the actors ordered by `length(appearances) DESC`, then `actor_id`', async () => {
    const pid = await project([...TWO_PERSONS, { distinct_ids: ['person3'] }], [...evs(DAY_ROWS), ...evs([['person3', _date(1)]])]);
    const source = { kind: 'RetentionQuery', dateRange: { date_to: _date(10, 0, 6) }, retentionFilter: { totalIntervals: 11 } };
    const r = await db.run(
      actorsRunner,
      { kind: 'ActorsQuery', select: ['person', 'appearances'], orderBy: ['length(appearances) DESC', 'actor_id'], source: { kind: 'InsightActorsQuery', source, interval: 1 } },
      pid,
    );
    expect(r.results.map((row: any[]) => row[1].length)).toEqual([4, 4, 1]);
    expect(r.results[2]).toEqual([expect.objectContaining({ distinct_ids: ['person3'] }), [0]]);
    const ids = r.results.slice(0, 2).map((row: any[]) => row[0].id);
    expect(ids).toEqual([...ids].sort());
    // an expression of the column in select too
    const lengths = await db.run(
      actorsRunner,
      { kind: 'ActorsQuery', select: ['length(appearances)'], orderBy: ['length(appearances)'], source: { kind: 'InsightActorsQuery', source, interval: 1 } },
      pid,
    );
    expect(lengths.results.map((row: any[]) => Number(row[0]))).toEqual([1, 4, 4]);
    // an empty cohort: no rows, not an error
    const none = await db.run(
      actorsRunner,
      { kind: 'ActorsQuery', select: ['person', 'appearances'], orderBy: ['length(appearances) DESC', 'actor_id'], source: { kind: 'InsightActorsQuery', source, interval: 4 } },
      pid,
    );
    expect(none.results).toEqual([]);
  });

  it('test_retention_people_first_time: only the cohort of the first-ever target event', async () => {
    const pid = await project(
      [...TWO_PERSONS, { distinct_ids: ['person3'] }],
      [
        ...evs(
          [
            ['person1', _date(-1)],
            ['person1', _date(1)],
            ['person2', _date(1)],
            ['person3', _date(2)],
          ],
          '$user_signed_up',
        ),
        ...evs([
          ['person1', _date(2)],
          ['person2', _date(3)],
          ['person3', _date(3)],
        ]),
      ],
    );
    const source = {
      kind: 'RetentionQuery',
      dateRange: { date_from: _date(0), date_to: _date(4) },
      retentionFilter: {
        totalIntervals: 5,
        retentionType: 'retention_first_time',
        targetEntity: { id: '$user_signed_up', type: 'events' },
        returningEntity: { id: '$pageview', type: 'events' },
      },
    };
    // person1's first signup is before the range: in no cohort
    expect(await actorsOf(pid, { source, interval: 1 }, ['person', 'appearances'])).toEqual([['person2', [0, 2]]]);
    expect(await actorsOf(pid, { source, interval: 2 }, ['person', 'appearances'])).toEqual([['person3', [0, 1]]]);
    expect(await actorsOf(pid, { source, interval: 0 })).toEqual([]);
  });

  it('test_timezones across a DST change: Day periods are local calendar days (23-hour Mar 8 in US/Pacific)', async () => {
    // 12:00 local every day Mar 6..10 (PST -8 until Mar 8 02:00, then PDT -7), and 23:30 local on Mar 7
    const pid = await project(
      [{ distinct_ids: ['a'] }],
      [
        ...['2020-03-06T20:00:00', '2020-03-07T20:00:00', '2020-03-08T07:30:00', '2020-03-08T19:00:00', '2020-03-09T19:00:00', '2020-03-10T19:00:00'].map((t) => ({
          event: '$pageview',
          distinct_id: 'a',
          timestamp: `${t}Z`,
        })),
      ],
    );
    const r = await retention(pid, { dateRange: { date_from: '2020-03-06', date_to: '2020-03-10' }, retentionFilter: { totalIntervals: 5 } }, { timezone: 'US/Pacific' });
    expect(pluck(r, 'date')).toEqual([
      '2020-03-06T00:00:00-08:00',
      '2020-03-07T00:00:00-08:00',
      '2020-03-08T00:00:00-08:00',
      '2020-03-09T00:00:00-07:00',
      '2020-03-10T00:00:00-07:00',
    ]);
    expect(counts(r)).toEqual([
      [1, 1, 1, 1, 1],
      [1, 1, 1, 1, 0],
      [1, 1, 1, 0, 0],
      [1, 1, 0, 0, 0],
      [1, 0, 0, 0, 0],
    ]);
  });

  describe('aggregationType sum/avg (reference §4.1–§4.3): aggregation_value beside each count', () => {
    const revenue = (distinct_id: string, ts: string, r: unknown): TestEvent => ({ event: '$pageview', distinct_id, timestamp: `${ts}Z`, properties: { revenue: r } });
    const layout = (): Promise<number> =>
      project(
        [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }],
        [
          revenue('a', _date(0, 0, 9), 10),
          revenue('a', _date(0, 0, 10), 5),
          revenue('a', _date(1), 3),
          revenue('a', _date(2), 'abc'),
          revenue('b', _date(0, 0, 11), 20),
          revenue('b', _date(2), 7),
        ],
      );
    const q = (rf: Record<string, unknown>) => ({ dateRange: { date_to: _date(2) }, retentionFilter: { totalIntervals: 3, aggregationProperty: 'revenue', ...rf } });
    const agg = (r: any) => (r.results as any[]).map((x) => x.values.map((v: any) => v.aggregation_value));

    it('sum: interval 0 over the start events of the cohort interval, interval k over the counted returns; non-numbers add 0', async () => {
      const pid = await layout();
      const r = await retention(pid, q({ aggregationType: 'sum' }));
      expect(counts(r)).toEqual([
        [2, 1, 2],
        [1, 1, 0],
        [2, 0, 0],
      ]);
      expect(agg(r)).toEqual([
        [35, 3, 7],
        [3, 0, 0],
        [7, 0, 0],
      ]);
    });

    it('avg: the sum over the actors counted in the cell', async () => {
      const pid = await layout();
      expect(agg(await retention(pid, q({ aggregationType: 'avg' })))).toEqual([
        [17.5, 3, 3.5],
        [3, 0, 0],
        [3.5, 0, 0],
      ]);
    });

    it('first-time cohorts: the start value is the first event\'s only', async () => {
      const pid = await layout();
      const r = await retention(pid, q({ aggregationType: 'sum', retentionType: 'retention_first_time' }));
      expect(agg(r)[0]).toEqual([30, 3, 7]);
      expect(counts(r)[1]).toEqual([0, 0, 0]);
    });

    it('count (the default) has no aggregation_value; sum without aggregationProperty is a 400', async () => {
      const pid = await layout();
      expect((await retention(pid, q({}))).results[0].values[0]).toEqual({ count: 2, label: 'Day 0' });
      await expect(retention(pid, { ...q({ aggregationType: 'sum' }), retentionFilter: { totalIntervals: 3, aggregationType: 'sum' } })).rejects.toMatchObject({
        status: 400,
        attr: 'retentionFilter__aggregationProperty',
      });
    });
  });

  it('retentionCustomBrackets: return intervals grouped in runs of the given sizes, labelled "Day 2-3" (reference §4.2)', async () => {
    const pid = await project(TWO_PERSONS, evs(DAY_ROWS));
    const q = { dateRange: { date_to: _date(10, 0, 6) }, retentionFilter: { totalIntervals: 11, retentionCustomBrackets: [1, 2, 3] } };
    const r = await retention(pid, q);
    expect(r.results).toHaveLength(11);
    expect(r.results[0].values.map((v: any) => v.label)).toEqual(['Day 0', 'Day 1', 'Day 2-3', 'Day 4-6']);
    expect(pluck(r, 'label').slice(0, 2)).toEqual(['Day 0', 'Day 1']);
    // Jun 10: person1 returns 1, 2, 5, 6 days later; Jun 11: person1 1, 4, 5 and person2 1, 2, 5
    expect(counts(r).slice(0, 2)).toEqual([
      [1, 1, 1, 1],
      [2, 2, 1, 2],
    ]);
    const cumulative = await retention(pid, { ...q, retentionFilter: { ...q.retentionFilter, cumulative: true } });
    expect(counts(cumulative)[1]).toEqual([2, 2, 2, 2]);
    // the actors' appearances are the values they count in
    expect(await actorsOf(pid, { source: { kind: 'RetentionQuery', ...q }, interval: 1 }, ['person', 'appearances'])).toEqual([
      ['person1', [0, 1, 3]],
      ['person2', [0, 1, 2, 3]],
    ]);
    await expect(retention(pid, { ...q, retentionFilter: { retentionCustomBrackets: [2, 0] } })).rejects.toMatchObject({ status: 400, attr: 'retentionFilter__retentionCustomBrackets' });
  });

  it('Week periods in the project timezone and week start (Monday, US/Pacific)', async () => {
    // Jun 7 22:00 and Jun 14 22:00 local are Sundays: the end of the Monday weeks of Jun 1 and Jun 8; Jun 15 01:00 is a Monday
    const pid = await project(
      [{ distinct_ids: ['a'] }],
      ['2020-06-08T05:00:00Z', '2020-06-15T05:00:00Z', '2020-06-15T08:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'a', timestamp })),
    );
    const q = { dateRange: { date_from: '2020-06-01', date_to: '2020-06-15' }, retentionFilter: { period: 'Week', totalIntervals: 3 } };
    const r = await retention(pid, q, { timezone: 'US/Pacific', week_start_day: 1 });
    expect(pluck(r, 'date')).toEqual(['2020-06-01T00:00:00-07:00', '2020-06-08T00:00:00-07:00', '2020-06-15T00:00:00-07:00']);
    expect(counts(r)).toEqual([
      [1, 1, 1],
      [1, 1, 0],
      [1, 0, 0],
    ]);
    const first = await retention(pid, { ...q, retentionFilter: { ...q.retentionFilter, retentionType: 'retention_first_time' } }, { timezone: 'US/Pacific', week_start_day: 1 });
    expect(counts(first)).toEqual([
      [1, 1, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('timeWindowMode 24_hour_windows with first-time cohorts: returns measured in 24-hour steps from the first event', async () => {
    const pid = await project(
      [{ distinct_ids: ['a'] }],
      ['2020-06-10T22:00:00Z', '2020-06-11T20:00:00Z', '2020-06-12T23:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'a', timestamp })),
    );
    const q = { dateRange: { date_from: _date(0), date_to: _date(2) }, retentionFilter: { totalIntervals: 3, retentionType: 'retention_first_time' } };
    // calendar days: Jun 10, 11, 12
    expect(counts(await retention(pid, q))[0]).toEqual([1, 1, 1]);
    // 24-hour windows from Jun 10 22:00: Jun 11 20:00 is within the first 24 hours, Jun 12 23:00 in the third window
    const windows = await retention(pid, { ...q, retentionFilter: { ...q.retentionFilter, timeWindowMode: '24_hour_windows' } });
    expect(counts(windows)).toEqual([
      [1, 0, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('test_groups_in_period: the actors of a group-aggregated cohort are groups', async () => {
    const pid = await project(TWO_PERSONS, [
      { event: '$groupidentify', distinct_id: 'person1', timestamp: `${_date(-5)}Z`, properties: { $group_type: 'organization', $group_key: 'org:5', $group_set: { name: 'Five' } } },
      { event: '$groupidentify', distinct_id: 'person2', timestamp: `${_date(-5)}Z`, properties: { $group_type: 'organization', $group_key: 'org:6', $group_set: { name: 'Six' } } },
      ...evs([['person1', _date(0)], ['person1', _date(1)]], '$pageview', { $groups: { organization: 'org:5' } }),
      ...evs([['person2', _date(0)]], '$pageview', { $groups: { organization: 'org:6' } }),
    ]);
    const source = { kind: 'RetentionQuery', aggregation_group_type_index: 0, dateRange: { date_to: _date(2) }, retentionFilter: { totalIntervals: 3 } };
    const r = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor', 'appearances'], source: { kind: 'InsightActorsQuery', source, interval: 0 } }, pid);
    expect((r.results as any[]).map((row) => [row[0].id, row[1]]).sort()).toEqual([
      ['org:5', [0, 1]],
      ['org:6', [0]],
    ]);
  });
});

// ------------------------------------------------------------------------------------------------ stickiness

/**
 * posthog/queries/test/test_stickiness.py's `_create_multiple_people(period)`: from 2020-01-01T12:00Z,
 * person1 once; person2 at 0 and twice at 1 period; person3 (person3a, person3b) at 0, 1, 2 periods; person4 at 4.
 */
async function multiplePeople(period: (t: Date, n: number) => Date, props: (i: number) => Record<string, unknown> = () => ({}), extra: TestEvent[] = [], extraPersons: TestPerson[] = []) {
  const base = new Date('2020-01-01T12:00:00Z');
  const at = (n: number) => period(base, n).toISOString();
  const e = (distinct_id: string, n: number): TestEvent => ({ event: 'watched movie', distinct_id, timestamp: at(n), properties: props(n) });
  return project(
    [
      { distinct_ids: ['person1'], properties: { name: 'person1' } },
      { distinct_ids: ['person2'], properties: { name: 'person2' } },
      { distinct_ids: ['person3a', 'person3b'], properties: { name: 'person3' } },
      { distinct_ids: ['person4'], properties: { name: 'person4' } },
      ...extraPersons,
    ],
    [e('person1', 0), e('person2', 0), e('person2', 1), e('person2', 1), e('person3a', 0), e('person3b', 1), e('person3a', 2), e('person4', 4), ...extra],
  );
}
const days = (t: Date, n: number) => new Date(t.getTime() + n * 86400_000);
const hours = (t: Date, n: number) => new Date(t.getTime() + n * 3600_000);
const weeks = (t: Date, n: number) => new Date(t.getTime() + n * 7 * 86400_000);
const months = (t: Date, n: number) => new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + n, t.getUTCDate(), t.getUTCHours()));
const MOVIE = { kind: 'EventsNode', event: 'watched movie' };
const stickiness = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(stickinessRunner, { kind: 'StickinessQuery', series: [MOVIE], ...q }, pid, proj as any);

describe('StickinessQuery (posthog/queries/test/test_stickiness.py via test_stickiness_query_runner.py)', () => {
  it('test_stickiness: 2 people on 1 day, 1 on 2 days, 1 on 3 days', async () => {
    const pid = await multiplePeople(days);
    const r = await stickiness(pid, { dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } });
    expect(r.results[0]).toMatchObject({
      count: 4,
      data: [2, 1, 1, 0, 0, 0, 0, 0],
      days: [1, 2, 3, 4, 5, 6, 7, 8],
      labels: ['1 day', '2 days', '3 days', '4 days', '5 days', '6 days', '7 days', '8 days'],
      label: 'watched movie',
    });
  });

  it('test_stickiness_all_time: date_from "all" starts at the earliest event (frozen now)', async () => {
    const pid = await multiplePeople(days);
    const restore = setInsightsClock(new Date('2020-01-08T13:01:01Z'));
    try {
      const r = await stickiness(pid, { dateRange: { date_from: 'all' } });
      expect(r.results[0]).toMatchObject({ count: 4, data: [2, 1, 1, 0, 0, 0, 0, 0] });
      expect(r.results[0].labels[6]).toBe('7 days');
    } finally {
      restore();
    }
  });

  it('test_stickiness_hours', async () => {
    const pid = await multiplePeople(hours);
    const r = await stickiness(pid, { interval: 'hour', dateRange: { date_from: '2020-01-01T12:00:00Z', date_to: '2020-01-01T20:00:00Z' } });
    expect(r.results[0].count).toBe(4);
    expect(r.results[0].data.slice(0, 7)).toEqual([2, 1, 1, 0, 0, 0, 0]);
    expect(r.results[0].labels.slice(0, 3)).toEqual(['1 hour', '2 hours', '3 hours']);
    expect(r.results[0].labels[6]).toBe('7 hours');
  });

  it('test_stickiness_weeks', async () => {
    const pid = await multiplePeople(weeks);
    const r = await stickiness(pid, { interval: 'week', dateRange: { date_from: '2020-01-01', date_to: '2020-02-15' } });
    expect(r.results[0].count).toBe(4);
    expect(r.results[0].data.slice(0, 7)).toEqual([2, 1, 1, 0, 0, 0, 0]);
    expect(r.results[0].labels.slice(0, 3)).toEqual(['1 week', '2 weeks', '3 weeks']);
  });

  it('test_stickiness_months', async () => {
    const pid = await multiplePeople(months);
    const r = await stickiness(pid, { interval: 'month', dateRange: { date_from: '2020-01-01', date_to: '2020-09-01' } });
    expect(r.results[0].count).toBe(4);
    expect(r.results[0].data.slice(0, 7)).toEqual([2, 1, 1, 0, 0, 0, 0]);
    expect(r.results[0].labels.slice(0, 3)).toEqual(['1 month', '2 months', '3 months']);
  });

  it('test_stickiness_prop_filter / test_stickiness_entity_filter: Chrome on even periods only', async () => {
    const pid = await multiplePeople(days, (i) => ({ $browser: i % 2 === 0 ? 'Chrome' : 'Safari' }));
    const range = { dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } };
    const chrome = [{ key: '$browser', value: 'Chrome', type: 'event', operator: 'exact' }];
    // person1 day 1, person2 day 1, person3 days 1 and 3, person4 day 5
    const global = await stickiness(pid, { ...range, properties: chrome });
    expect(global.results[0]).toMatchObject({ count: 4, data: [3, 1, 0, 0, 0, 0, 0, 0] });
    const entity = await stickiness(pid, { ...range, series: [{ ...MOVIE, properties: chrome }] });
    expect(entity.results[0].data).toEqual(global.results[0].data);
  });

  it('test_stickiness_action / test_actions: an action series, labelled with the action name', async () => {
    const pid = await multiplePeople(days);
    const a = action('watch movie action', [actionStep('watched movie')]);
    const r = await stickiness(pid, { series: [{ kind: 'ActionsNode', id: a }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } });
    expect(r.results[0]).toMatchObject({ label: 'watch movie action', count: 4, data: [2, 1, 1, 0, 0, 0, 0, 0] });
    expect(r.results[0].action).toEqual({ order: 0, type: 'actions', name: 'watch movie action', id: a, custom_name: null });
  });

  it('test_stickiness_people_endpoint: the actors active on exactly 1 day; cumulative: on at least 2 days', async () => {
    const pid = await multiplePeople(days);
    const source = { kind: 'StickinessQuery', series: [MOVIE], dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } };
    expect(await actorsOf(pid, { source, day: 1 })).toEqual([['person1'], ['person4']]);
    expect(await actorsOf(pid, { source, day: 3 })).toEqual([['person3b']]);
    const cumulative = { ...source, stickinessFilter: { computedAs: 'cumulative' } };
    expect(await actorsOf(pid, { source: cumulative, day: 2 })).toEqual([['person2'], ['person3b']]);
  });

  it('test_compare: the previous period (the 8 days before Jan 1) has no events', async () => {
    const pid = await multiplePeople(days);
    const r = await stickiness(pid, { dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' }, compareFilter: { compare: true } });
    expect(r.results.map((x: any) => [x.compare_label, x.count, x.data.slice(0, 3)])).toEqual([
      ['current', 4, [2, 1, 1]],
      ['previous', 0, [0, 0, 0]],
    ]);
  });

  it('test_filter_test_accounts: a test person is left out', async () => {
    const pid = await multiplePeople(days, () => ({}), [{ event: 'watched movie', distinct_id: 'ph', timestamp: '2020-01-03T12:00:00Z' }], [
      { distinct_ids: ['ph'], properties: { email: 'test@posthog.com' } },
    ]);
    const proj = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
    const range = { dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } };
    expect((await stickiness(pid, { ...range, filterTestAccounts: true }, proj)).results[0]).toMatchObject({ count: 4, data: [2, 1, 1, 0, 0, 0, 0, 0] });
    expect((await stickiness(pid, { ...range }, proj)).results[0]).toMatchObject({ count: 5, data: [3, 1, 1, 0, 0, 0, 0, 0] });
  });

  it('test_aggregate_by_groups: math unique_group counts groups, and their actors are groups', async () => {
    // organization by period: 0, 1 → org:0; 2 → org:1; 4 → org:2 (weeks)
    const orgs: TestEvent[] = [0, 1, 2].map((i) => ({
      event: '$groupidentify',
      distinct_id: 'person1',
      timestamp: '2019-12-01T00:00:00Z',
      properties: { $group_type: 'organization', $group_key: `org:${i}` },
    }));
    const pid = await multiplePeople(weeks, (i) => ({ $groups: { organization: `org:${Math.floor(i / 2)}` } }), orgs);
    const series = [{ ...MOVIE, math: 'unique_group', math_group_type_index: 0 }];
    const q = { series, interval: 'week', dateRange: { date_from: '2020-01-01', date_to: '2020-02-15' } };
    const r = await stickiness(pid, q);
    expect(r.results[0]).toMatchObject({ count: 3, data: [2, 1, 0, 0, 0, 0, 0] });
    const one = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['actor'], source: { kind: 'InsightActorsQuery', source: { kind: 'StickinessQuery', ...q }, day: 1 } }, pid);
    expect((one.results as any[]).map((row) => row[0].id).sort()).toEqual(['org:1', 'org:2']);
  });

  it('intervalCount: whole intervals elapsed until date_to (age), counted back from date_to (reference §6.3)', async () => {
    const pid = await project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }, { distinct_ids: ['h'] }],
      [
        { event: 'watched movie', distinct_id: 'a', timestamp: '2020-01-15T12:00:00Z' },
        { event: 'watched movie', distinct_id: 'a', timestamp: '2020-03-05T12:00:00Z' },
        { event: 'watched movie', distinct_id: 'b', timestamp: '2020-02-01T12:00:00Z' },
        ...['00:30', '01:30', '02:30', '03:30', '04:10'].map((t) => ({ event: 'watched movie', distinct_id: 'h', timestamp: `2020-01-11T${t}:00Z` })),
      ],
    );
    // months until Mar 10: a's Jan 15 is 1 whole month before (pair 0, with Mar 5; calendar months apart it would be
    // 2: pair 1), b's Feb 1 also 1, h's Jan 11 1: each in 1 pair
    const months = await stickiness(pid, { interval: 'month', intervalCount: 2, dateRange: { date_from: '2020-01-01', date_to: '2020-03-10' } });
    expect(months.results[0]).toMatchObject({ data: [3, 0], days: [1, 2] });
    // an absolute hour date_to is kept as given (04:00): 03:30 and 02:30 are 0 and 1 whole hours before (pair 0),
    // 01:30 and 00:30 pair 1, 04:10 is after date_to
    const hours = await stickiness(pid, { interval: 'hour', intervalCount: 2, dateRange: { date_from: '2020-01-11T00:00:00', date_to: '2020-01-11T04:00:00' } });
    expect(hours.results[0]).toMatchObject({ data: [0, 1, 0], count: 1 });
  });

  it('test_timezones: days are counted in the project timezone', async () => {
    // a: Jan 1 12:00Z and Jan 2 06:00Z — two days in UTC, one in Los Angeles (Jan 1 04:00 and 22:00); b: one day.
    const pid = await project(
      [{ distinct_ids: ['a'] }, { distinct_ids: ['b'] }],
      [
        { event: 'watched movie', distinct_id: 'a', timestamp: '2020-01-01T12:00:00Z' },
        { event: 'watched movie', distinct_id: 'a', timestamp: '2020-01-02T06:00:00Z' },
        { event: 'watched movie', distinct_id: 'b', timestamp: '2020-01-03T12:00:00Z' },
      ],
    );
    const q = { dateRange: { date_from: '2020-01-01', date_to: '2020-01-08' } };
    expect((await stickiness(pid, q)).results[0].data.slice(0, 3)).toEqual([1, 1, 0]);
    expect((await stickiness(pid, q, { timezone: 'America/Los_Angeles' })).results[0].data.slice(0, 3)).toEqual([2, 0, 0]);
  });
});

// ------------------------------------------------------------------------------------------------ lifecycle

/** test_lifecycle.py's layout: each person created at their first event. */
function lifecycleData(data: [string, string[]][], event: (i: number) => string = () => '$pageview') {
  const persons: TestPerson[] = data.map(([id, ts]) => ({ distinct_ids: [id], created_at: ts[0], properties: { name: id } }));
  const events: TestEvent[] = data.flatMap(([id, ts]) => ts.map((t, i) => ({ event: event(i), distinct_id: id, timestamp: t })));
  return { persons, events };
}
const RANGE = { date_from: '2020-01-12T00:00:00Z', date_to: '2020-01-19T00:00:00Z' };
const lifecycle = (pid: number, q: Record<string, unknown>, proj: Record<string, unknown> = {}) =>
  db.run(lifecycleRunner, { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: RANGE, ...q }, pid, proj as any);

describe('LifecycleQuery (test_lifecycle_query_runner.py, posthog/queries/test/test_lifecycle.py)', () => {
  it('test_lifecycle_edge_cases: a person created the day before their first event is resurrecting, not new', async () => {
    const pid = await project(
      [{ distinct_ids: ['person1'], created_at: '2020-01-11T12:00:00Z' }],
      ['2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-16T12:00:00Z'].map((timestamp) => ({ event: '$pageview', distinct_id: 'person1', timestamp })),
    );
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-11T00:00:00Z', date_to: '2020-01-18T00:00:00Z' } });
    expect(byStatus(r)).toEqual({
      dormant: [0, 0, 0, -1, 0, 0, -1, 0],
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 1, 0, 0, 1, 0, 0, 0],
      returning: [0, 0, 1, 0, 0, 1, 0, 0],
    });
  });

  it('test_lifecycle_trend_person_prop_filtering: a person property filter keeps p1 only', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const r = await lifecycle(pid, { properties: [{ key: 'name', value: 'p1', type: 'person', operator: 'exact' }] });
    expect(byStatus(r)).toEqual({
      dormant: [0, 0, -1, 0, -1, 0, -1, 0],
      new: [0, 0, 0, 0, 0, 0, 0, 0],
      resurrecting: [0, 0, 0, 1, 0, 1, 0, 1],
      returning: [1, 1, 0, 0, 0, 0, 0, 0],
    });
  });

  it('test_lifecycle_trend_action: an action series; the label is the action name, action.id its id as text', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const a = action('sign up', [actionStep('$pageview')]);
    const r = await lifecycle(pid, { series: [{ kind: 'ActionsNode', id: a }] });
    expect(byStatus(r)).toEqual(LIFECYCLE_TREND);
    expect(pluck(r, 'label')).toEqual(['sign up - new', 'sign up - returning', 'sign up - resurrecting', 'sign up - dormant']);
    expect(r.results[0].action).toEqual({ id: String(a), name: 'sign up', type: 'actions', order: 0, math: 'total' });
  });

  it('an action that does not exist is a 400 (reference §1.2: lifecycle raises)', async () => {
    const pid = await project([], []);
    await expect(lifecycle(pid, { series: [{ kind: 'ActionsNode', id: 987654 }] })).rejects.toMatchObject({ status: 400 });
  });

  it('test_lifecycle_trend_any_event: all events, whatever their names', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS, (i) => (i % 2 ? '$other' : '$pageview'));
    const pid = await project(persons, events);
    const r = await lifecycle(pid, { series: [{ kind: 'EventsNode', event: null }] });
    expect(byStatus(r)).toEqual(LIFECYCLE_TREND);
    expect(r.results[0].label).toBe('All events - new');
  });

  it('test_lifecycle_trend_with_zero_person_ids: events without a person ($process_person_profile false) are left out', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, [
      ...events,
      { event: '$pageview', distinct_id: 'anon', timestamp: '2020-01-12T12:00:00Z', properties: { $process_person_profile: false } },
      { event: '$pageview', distinct_id: 'anon', timestamp: '2020-01-14T12:00:00Z', properties: { $process_person_profile: false } },
    ]);
    expect(byStatus(await lifecycle(pid, {}))).toEqual(LIFECYCLE_TREND);
  });

  it('an event with $process_person_profile false is left out even when its distinct id has a person (reference §7.3)', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    // p3 (created and active Jan 12) also on Jan 13 and 14, personless: without the exclusion p3 would be returning.
    // (An anonymous visitor's personless event too, as posthog-js `identified_only` sends them: the check runs for
    // projects that have personless events, see lifecycle-runner.ts personlessExcluded.)
    const pid = await project(persons, [
      ...events,
      { event: '$pageview', distinct_id: 'anon', timestamp: '2020-01-13T12:00:00Z', properties: { $process_person_profile: false } },
      { event: '$pageview', distinct_id: 'p3', timestamp: '2020-01-13T12:00:00Z', properties: { $process_person_profile: false } },
      { event: '$pageview', distinct_id: 'p3', timestamp: '2020-01-14T12:00:00Z', properties: { $process_person_profile: 'false' } },
    ]);
    expect(byStatus(await lifecycle(pid, {}))).toEqual(LIFECYCLE_TREND);
  });

  it('test_timezones across a DST change: consecutive local days stay returning (US/Pacific, Mar 8 2020)', async () => {
    const pid = await project(
      [{ distinct_ids: ['a'], created_at: '2020-03-06T20:00:00Z' }],
      ['2020-03-06T20:00:00', '2020-03-07T20:00:00', '2020-03-08T19:00:00', '2020-03-09T19:00:00', '2020-03-11T19:00:00'].map((t) => ({ event: '$pageview', distinct_id: 'a', timestamp: `${t}Z` })),
    );
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-03-06', date_to: '2020-03-12' } }, { timezone: 'US/Pacific' });
    expect(r.results[0].days).toEqual(['2020-03-06', '2020-03-07', '2020-03-08', '2020-03-09', '2020-03-10', '2020-03-11', '2020-03-12']);
    expect(byStatus(r)).toEqual({
      new: [1, 0, 0, 0, 0, 0, 0],
      returning: [0, 1, 1, 1, 0, 0, 0],
      resurrecting: [0, 0, 0, 0, 0, 1, 0],
      dormant: [0, 0, 0, 0, -1, 0, -1],
    });
    // by hour across the change: 01:00 PST is followed by 03:00 PDT
    const h = await project(
      [{ distinct_ids: ['b'], created_at: '2020-03-08T09:10:00Z' }],
      ['2020-03-08T09:30:00', '2020-03-08T10:30:00'].map((t) => ({ event: '$pageview', distinct_id: 'b', timestamp: `${t}Z` })),
    );
    const byHour = await lifecycle(h, { interval: 'hour', dateRange: { date_from: '2020-03-08T00:00:00', date_to: '2020-03-08T04:00:00' } }, { timezone: 'US/Pacific' });
    expect(byHour.results[0].days.length).toBe(4);
    expect(byStatus(byHour)).toEqual({
      new: [0, 1, 0, 0],
      returning: [0, 0, 1, 0],
      resurrecting: [0, 0, 0, 0],
      dormant: [0, 0, 0, -1],
    });
  });

  it('test_lifecycle_trend_people: the actors of a status on a day', async () => {
    const { persons, events } = lifecycleData(LIFECYCLE_DAYS);
    const pid = await project(persons, events);
    const source = { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: RANGE };
    expect(await actorsOf(pid, { source, day: '2020-01-13', status: 'dormant' })).toEqual([['p2'], ['p3']]);
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'new' })).toEqual([['p3']]);
    expect(await actorsOf(pid, { source, day: '2020-01-12', status: 'resurrecting' })).toEqual([['p2']]);
    expect(await actorsOf(pid, { source, day: '2020-01-15', status: 'resurrecting' })).toEqual([['p1']]);
    // the legacy endpoint's target_date form: a datetime at the start of the interval
    expect(await actorsOf(pid, { source, day: '2020-01-13T00:00:00Z', status: 'dormant' })).toEqual([['p2'], ['p3']]);
  });

  it('a day before date_from: the interval just before the range only decides the first day (fetched, not reported)', async () => {
    // p active Jan 11 (before the range) and Jan 12: returning on the 12th; q active Jan 11 only: dormant on the 12th.
    const pid = await project(
      [
        { distinct_ids: ['p'], created_at: '2020-01-01T00:00:00Z' },
        { distinct_ids: ['q'], created_at: '2020-01-01T00:00:00Z' },
      ],
      [
        { event: '$pageview', distinct_id: 'p', timestamp: '2020-01-11T12:00:00Z' },
        { event: '$pageview', distinct_id: 'p', timestamp: '2020-01-12T12:00:00Z' },
        { event: '$pageview', distinct_id: 'q', timestamp: '2020-01-11T12:00:00Z' },
      ],
    );
    const r = await lifecycle(pid, { dateRange: { date_from: '2020-01-12', date_to: '2020-01-13' } });
    expect(byStatus(r)).toEqual({ new: [0, 0], returning: [1, 0], resurrecting: [0, 0], dormant: [-1, -1] });
  });
});
