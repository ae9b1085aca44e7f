import { createInsightTestDb, type InsightTestDb } from '../insights/testing';
import { setInsightsClock } from '../insights/date-range';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from '../insights/breakdown';
import { actorsRunner } from './actors-runner';
import { trendsRunner } from './trends-runner';
import { lifecycleRunner } from './lifecycle-runner';
import { stickinessRunner } from './stickiness-runner';
import { retentionRunner } from './retention-runner';
import { funnelsRunner } from './funnels-runner';
import { shutdownParser } from '../../productql/parser';

/**
 * Project 1 (UTC), now = Mon 2024-01-08 12:00; -7d = Jan 1..8.
 *  alice (u1, u1b; created Dec 1): $pageview Jan 1 10:00 (Chrome, company acme) and 11:00 (u1b, Chrome); signup Jan 2
 *  bob   (u2; created Dec 2):      $pageview Jan 1 12:00 (Safari, company beta), Jan 2 10:00 (Safari); signup Jan 3; purchase Jan 4
 *  carol (u3; created Dec 3):      $pageview Jan 2 11:00 (Chrome)
 *  dave  (u4; created Jan 5):      $pageview Jan 5 10:00
 *  ghost (personless):             $pageview Jan 1 13:00 (no browser)
 *  group acme (company, index 0) exists ($groupidentify); beta has no group row.
 * Project 2: a person with distinct id u1 and a Jan 1 $pageview (never an actor of project 1).
 */
let db: InsightTestDb;
let restore: () => void;
const ids: Record<string, string> = {};
beforeAll(async () => {
  db = await createInsightTestDb();
  restore = setInsightsClock(new Date('2024-01-08T12:00:00Z'));
  const pv = (distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id, timestamp, properties });
  await db.load(1, {
    persons: [
      { distinct_ids: ['u1', 'u1b'], properties: { email: 'alice@example.com', name: 'Alice', plan: 'pro' }, created_at: '2023-12-01T00:00:00Z' },
      { distinct_ids: ['u2'], properties: { email: 'bob@example.com', plan: 'free' }, created_at: '2023-12-02T00:00:00Z' },
      { distinct_ids: ['u3'], properties: { plan: 'free' }, created_at: '2023-12-03T00:00:00Z' },
      { distinct_ids: ['u4'], properties: {}, created_at: '2024-01-05T00:00:00Z' },
    ],
    events: [
      { event: '$groupidentify', distinct_id: 'u1', timestamp: '2024-01-01T09:00:00Z', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } } },
      pv('u1', '2024-01-01T10:00:00Z', { $browser: 'Chrome', $groups: { company: 'acme' } }),
      pv('u1b', '2024-01-01T11:00:00Z', { $browser: 'Chrome' }),
      pv('u2', '2024-01-01T12:00:00Z', { $browser: 'Safari', $groups: { company: 'beta' } }),
      pv('u2', '2024-01-02T10:00:00Z', { $browser: 'Safari' }),
      pv('u3', '2024-01-02T11:00:00Z', { $browser: 'Chrome' }),
      pv('u4', '2024-01-05T10:00:00Z'),
      pv('ghost', '2024-01-01T13:00:00Z', { $process_person_profile: false }),
      { event: 'signup', distinct_id: 'u1', timestamp: '2024-01-02T12:00:00Z', properties: {} },
      { event: 'signup', distinct_id: 'u2', timestamp: '2024-01-03T12:00:00Z', properties: {} },
      { event: 'purchase', distinct_id: 'u2', timestamp: '2024-01-04T12:00:00Z', properties: {} },
    ],
  });
  await db.load(2, {
    persons: [{ distinct_ids: ['u1'], properties: { email: 'other@example.com' }, created_at: '2023-12-01T00:00:00Z' }],
    events: [pv('u1', '2024-01-01T10:00:00Z', { $browser: 'Chrome' })],
  });
  const persons = await db.run(actorsRunner, { kind: 'ActorsQuery', select: ['person'], limit: 10 });
  for (const [p] of persons.results) ids[p.distinct_ids[0]] = p.id;
});
afterAll(async () => {
  restore();
  await db.close();
  // (the parser's worker would keep a lone run of this file from exiting)
  await shutdownParser();
});

const PV = { kind: 'EventsNode', event: '$pageview' };
const actors = (source: Record<string, unknown> | null, q: Record<string, unknown> = {}, project = 1) =>
  db.run(actorsRunner, { kind: 'ActorsQuery', ...(source ? { source } : {}), ...q }, project);
const trendsSource = (trends: Record<string, unknown>, point: Record<string, unknown>) => ({
  kind: 'InsightActorsQuery',
  source: { kind: 'TrendsQuery', dateRange: { date_from: '-7d' }, series: [PV], ...trends },
  ...point,
});
/** The first distinct id of each actor of a result whose first column is the actor. */
const names = (r: any): string[] => r.results.map((row: any[]) => row[0].distinct_ids[0]);

describe('ActorsQuery without a source (test_actors_query_runner.py)', () => {
  it('default columns person, id, created_at, person.$delete; newest first; actor objects with all distinct ids', async () => {
    const r = await actors(null);
    expect(r.columns).toEqual(['person', 'id', 'created_at', 'person.$delete']);
    expect(names(r)).toEqual(['u4', 'u3', 'u2', 'u1']);
    const alice = r.results[3];
    expect(alice[0]).toEqual({
      id: ids.u1,
      distinct_ids: ['u1', 'u1b'],
      properties: { email: 'alice@example.com', name: 'Alice', plan: 'pro' },
      created_at: '2023-12-01T00:00:00Z',
      is_identified: expect.any(Boolean),
    });
    expect(alice[1]).toBe(ids.u1);
    // cells as a ProductQL answer has them: datetimes in the project's timezone
    expect([alice[2], r.types.slice(1, 3)]).toEqual(['2023-12-01T00:00:00Z', ['UUID', "DateTime64(6, 'UTC')"]]);
    expect(alice[3]).toBe(1);
    expect(r).toMatchObject({ hasMore: false, limit: 100, offset: 0 });
    // PostHog counts missing actors whenever an actor column is selected (ActorsQueryRunner.calculate): none here
    expect(r.missing_actors_count).toBe(0);
  });

  it.each<[string, string[]]>([
    ['alice', ['u1']],
    ['EXAMPLE.COM', ['u2', 'u1']],
    ['u1b', ['u1']],
    ['u3', ['u3']],
    ['nobody', []],
    // the term goes into PostHog's ILIKE '%term%' as given: LIKE's wildcards in it are wildcards
    ['b_b', ['u2']],
    ['%', ['u4', 'u3', 'u2', 'u1']],
    ['a%@', ['u1']],
  ])('search %j matches email, name and distinct id substrings (any case)', async (search, expected) => {
    expect(names(await actors(null, { select: ['person', 'created_at'], search }))).toEqual(expected);
  });

  it('search by the person UUID', async () => {
    expect(names(await actors(null, { select: ['person'], search: ids.u3 }))).toEqual(['u3']);
  });

  it('properties filter persons; expressions over the person and orderBy', async () => {
    const r = await actors(null, {
      select: ['properties.email', 'properties.plan'],
      properties: [{ type: 'person', key: 'plan', value: 'free', operator: 'exact' }],
      orderBy: ['properties.email DESC'],
    });
    expect(r.results).toEqual([
      ['bob@example.com', 'free'],
      [null, 'free'],
    ]);
  });

  it('orderBy the person column sorts by email (PostHog PersonStrategy.order_by)', async () => {
    expect(names(await actors(null, { select: ['person'], orderBy: ['person DESC'] })).slice(0, 2)).toEqual(['u2', 'u1']);
    expect(names(await actors(null, { select: ['person'], orderBy: ['person ASC'] })).slice(0, 2)).toEqual(['u1', 'u2']);
  });

  it('limit, offset and hasMore page through the persons', async () => {
    const p1 = await actors(null, { select: ['person'], orderBy: ['created_at DESC'], limit: 3 });
    const p2 = await actors(null, { select: ['person'], orderBy: ['created_at DESC'], limit: 3, offset: 3 });
    expect([names(p1), p1.hasMore, names(p2), p2.hasMore]).toEqual([['u4', 'u3', 'u2'], true, ['u1'], false]);
  });

  it('a ProductQL source: the persons its first column lists (test_source_hogql_query)', async () => {
    const r = await actors({ kind: 'HogQLQuery', query: "SELECT DISTINCT person_id FROM events WHERE event = 'signup'" }, { select: ['person'] });
    expect(names(r).sort()).toEqual(['u1', 'u2']);
    expect(r.missing_actors_count).toBe(0);
    const bad = actors({ kind: 'HogQLQuery', query: 'SELECT 1 UNION ALL SELECT 2' });
    await expect(bad).rejects.toMatchObject({ status: 400 });
  });

  it("another project's persons never appear", async () => {
    const r = await actors(null, { select: ['person'] }, 2);
    expect(r.results.map((row: any[]) => row[0].properties.email)).toEqual(['other@example.com']);
  });
});

describe('InsightActorsQuery over trends (test_trends.py _get_actors)', () => {
  it('dau on a day: the persons with an event that day, most events first; personless actors are missing_actors_count', async () => {
    const trends = await db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '-7d' }, series: [{ ...PV, math: 'dau' }] });
    expect(trends.results[0].data[0]).toBe(3);
    const r = await actors(trendsSource({ series: [{ ...PV, math: 'dau' }] }, { day: '2024-01-01' }), { select: ['actor', 'event_count'] });
    expect(r.results.map((row: any[]) => [row[0].distinct_ids, row[1]])).toEqual([
      [['u1', 'u1b'], 2],
      [['u2'], 1],
    ]);
    expect(r.results.length + r.missing_actors_count).toBe(trends.results[0].data[0]);
  });

  it.each<[string, string[]]>([
    ['2024-01-02', ['u2', 'u3']],
    ['2024-01-05', ['u4']],
    ['2024-01-06', []],
  ])('total count, day %s', async (day, expected) => {
    const r = await actors(trendsSource({}, { day }), { select: ['actor'] });
    expect(names(r).sort()).toEqual(expected);
  });

  it('a breakdown value restricts to its line; the null value is the events without the property', async () => {
    const chrome = await actors(trendsSource({ breakdownFilter: { breakdown: '$browser' } }, { day: '2024-01-02', breakdown: 'Chrome' }), { select: ['actor'] });
    expect(names(chrome)).toEqual(['u3']);
    const none = await actors(trendsSource({ breakdownFilter: { breakdown: '$browser' } }, { day: '2024-01-01', breakdown: BREAKDOWN_NULL }), { select: ['actor'] });
    expect([names(none), none.missing_actors_count]).toEqual([[], 1]);
  });

  it('series picks the series; cumulative dau spans from the range start', async () => {
    const signup = { kind: 'EventsNode', event: 'signup', math: 'dau' };
    const r = await actors(trendsSource({ series: [PV, signup] }, { day: '2024-01-03', series: 1 }), { select: ['actor'] });
    expect(names(r)).toEqual(['u2']);
    const cumulative = trendsSource({ series: [signup], trendsFilter: { display: 'ActionsLineGraphCumulative' } }, { day: '2024-01-03' });
    expect(names(await actors(cumulative, { select: ['actor'] })).sort()).toEqual(['u1', 'u2']);
  });

  it('compare: previous lists the actors of the previous period', async () => {
    const compared = { dateRange: { date_from: '2024-01-05', date_to: '2024-01-08' }, compareFilter: { compare: true } };
    const r = await actors(trendsSource(compared, { day: '2024-01-02', compare: 'previous' }), { select: ['actor'] });
    expect(names(r).sort()).toEqual(['u2', 'u3']);
    const current = await actors(trendsSource(compared, { day: '2024-01-05', compare: 'current' }), { select: ['actor'] });
    expect(names(current)).toEqual(['u4']);
  });

  it('hour interval: the day is the hour bucket', async () => {
    const hourly = { interval: 'hour', dateRange: { date_from: '2024-01-01', date_to: '2024-01-01 23:59:59' } };
    const trends = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [PV], ...hourly });
    const day = trends.results[0].days[11];
    expect(names(await actors(trendsSource(hourly, { day }), { select: ['actor'] }))).toEqual(['u1']);
    expect(names(await actors(trendsSource(hourly, { day: '2024-01-01T11:30:00Z' }), { select: ['actor'] }))).toEqual(['u1']);
  });

  it('the "Other" breakdown value: the values past the breakdown limit', async () => {
    // Jan 1: Chrome (2 events, alice) ranks first; Safari (bob) and the null value (ghost) are Other.
    const bf = { breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } };
    const trends = await db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '-7d' }, series: [{ ...PV, math: 'dau' }], ...bf });
    const other = trends.results.find((x: any) => x.breakdown_value === BREAKDOWN_OTHER);
    const r = await actors(trendsSource({ series: [{ ...PV, math: 'dau' }], ...bf }, { day: '2024-01-01', breakdown: BREAKDOWN_OTHER }), { select: ['actor'] });
    expect([names(r), r.missing_actors_count]).toEqual([['u2'], 1]);
    expect(r.results.length + r.missing_actors_count).toBe(other.data[0]);
  });

  it.each<[string, string, string[]]>([
    ['first_time_for_user', '2024-01-01', ['u1', 'u2']],
    ['first_time_for_user', '2024-01-02', ['u3']],
    ['first_matching_event_for_user', '2024-01-05', ['u4']],
  ])('%s on %s: the actors whose first event falls that day, as the insight counts them', async (math, day, expected) => {
    const series = [{ ...PV, math }];
    const trends = await db.run(trendsRunner, { kind: 'TrendsQuery', dateRange: { date_from: '-7d' }, series });
    const r = await actors(trendsSource({ series }, { day }), { select: ['actor'] });
    expect(names(r).sort()).toEqual(expected);
    expect(r.results.length + r.missing_actors_count).toBe(trends.results[0].data[trends.results[0].days.indexOf(day)]);
  });

  it('first-time actors of a breakdown value: the value of their first event', async () => {
    const series = [{ ...PV, math: 'first_time_for_user' }];
    const r = await actors(trendsSource({ series, breakdownFilter: { breakdown: '$browser' } }, { day: '2024-01-01', breakdown: 'Safari' }), { select: ['actor'] });
    expect(names(r)).toEqual(['u2']);
  });

  it('weekly active users of a day: everyone active in the 7 days ending that day', async () => {
    const wau = trendsSource({ series: [{ ...PV, math: 'weekly_active' }] }, { day: '2024-01-05' });
    const r = await actors(wau, { select: ['actor'] });
    expect(names(r).sort()).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect(r.missing_actors_count).toBe(1);
  });

  it('group aggregation: the actors are groups; a key without a group row is missing', async () => {
    const r = await actors(trendsSource({ aggregation_group_type_index: 0, series: [{ ...PV, math: 'dau' }] }, { day: '2024-01-01' }));
    expect(r.columns).toEqual(['group']);
    expect(r.results).toEqual([
      [{ id: 'acme', type: 'group', properties: { name: 'Acme' }, group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme' }, created_at: '2024-01-01T09:00:00Z' }],
    ]);
    expect(r.missing_actors_count).toBe(1);
    const search = await actors(trendsSource({ aggregation_group_type_index: 0, series: [{ ...PV, math: 'dau' }] }, { day: '2024-01-01' }), { search: 'acm' });
    expect(search.results.map((row: any[]) => row[0].group_key)).toEqual(['acme']);
    const none = await actors(trendsSource({ aggregation_group_type_index: 0, series: [{ ...PV, math: 'dau' }] }, { day: '2024-01-01' }), { search: 'zzz' });
    expect(none.results).toEqual([]);
    // GroupStrategy: ILIKE '%term%' on the name and the key, the term as given (LIKE's wildcards are wildcards)
    for (const term of ['A_M', 'c%e', 'ACME']) {
      const r2 = await actors(trendsSource({ aggregation_group_type_index: 0, series: [{ ...PV, math: 'dau' }] }, { day: '2024-01-01' }), { search: term });
      expect([term, r2.results.map((row: any[]) => row[0].group_key)]).toEqual([term, ['acme']]);
    }
  });

  it('a day outside the range, a missing series and a breakdown without a breakdown query are 400s', async () => {
    for (const point of [{ day: '2023-06-01' }, { day: '2024-01-01', series: 3 }, { day: '2024-01-01', breakdown: 'Chrome' }]) {
      await expect(actors(trendsSource({}, point))).rejects.toMatchObject({ status: 400 });
    }
  });
});

describe('FunnelsActorsQuery (test_funnel_persons.py)', () => {
  const funnel = {
    kind: 'FunnelsQuery',
    dateRange: { date_from: '-7d' },
    series: [PV, { kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }],
  };
  const source = (extra: Record<string, unknown>) => ({ kind: 'FunnelsActorsQuery', source: funnel, ...extra });

  it.each<[number, string[]]>([
    [1, ['u1', 'u2', 'u3', 'u4']],
    [2, ['u1', 'u2']],
    [3, ['u2']],
    [-2, ['u3', 'u4']],
    [-3, ['u1']],
  ])('funnelStep %d', async (funnelStep, expected) => {
    const r = await actors(source({ funnelStep }), { select: ['actor'] });
    expect(names(r).sort()).toEqual(expected);
  });

  it('the actors of each step number exactly the step counts of the funnel', async () => {
    const f = await db.run(funnelsRunner, funnel);
    for (const [i, step] of (f.results as any[]).entries()) {
      const r = await actors(source({ funnelStep: i + 1 }), { select: ['actor'] });
      expect(r.results.length + r.missing_actors_count).toBe(step.count);
    }
  });

  it('funnelStepBreakdown restricts to one breakdown value', async () => {
    const withBreakdown = { ...funnel, series: funnel.series.slice(0, 2), breakdownFilter: { breakdown: '$browser' } };
    const r = await actors({ kind: 'FunnelsActorsQuery', source: withBreakdown, funnelStep: 1, funnelStepBreakdown: 'Chrome' }, { select: ['actor'] });
    expect(names(r).sort()).toEqual(['u1', 'u3']);
  });

  it('funnelStep 0 is a 400 (PostHog: "Missing both funnelStep and funnelCustomSteps"); past the last step, no actors', async () => {
    await expect(actors(source({ funnelStep: 0 }))).rejects.toMatchObject({ status: 400, message: 'Missing both funnelStep and funnelCustomSteps' });
    expect((await actors(source({ funnelStep: 4 }), { select: ['actor'] })).results).toEqual([]);
  });
});

describe('InsightActorsQuery over lifecycle, stickiness and retention', () => {
  const lifecycle = { kind: 'LifecycleQuery', dateRange: { date_from: '-7d' }, series: [PV] };
  it.each<[string, string, string[]]>([
    ['2024-01-01', 'resurrecting', ['u1', 'u2']],
    ['2024-01-02', 'returning', ['u2']],
    ['2024-01-02', 'resurrecting', ['u3']],
    ['2024-01-02', 'dormant', ['u1']],
    ['2024-01-03', 'dormant', ['u2', 'u3']],
    ['2024-01-05', 'new', ['u4']],
  ])('lifecycle %s %s (test_lifecycle.py _get_actors)', async (day, status, expected) => {
    const r = await actors({ kind: 'InsightActorsQuery', source: lifecycle, day, status }, { select: ['actor'] });
    expect(names(r).sort()).toEqual(expected);
    const counts = await db.run(lifecycleRunner, lifecycle);
    const line = counts.results.find((x: any) => x.status === status);
    expect(Math.abs(line.data[line.days.indexOf(day)])).toBe(expected.length);
  });

  it('lifecycle without a status: every status of the day; without a day: every interval', async () => {
    const day = await actors({ kind: 'InsightActorsQuery', source: lifecycle, day: '2024-01-02' }, { select: ['actor'] });
    expect(names(day).sort()).toEqual(['u1', 'u2', 'u3']);
    const resurrected = await actors({ kind: 'InsightActorsQuery', source: lifecycle, status: 'resurrecting' }, { select: ['actor'] });
    expect(names(resurrected).sort()).toEqual(['u1', 'u2', 'u3']);
  });

  it('lifecycle: an unknown status is a 400', async () => {
    await expect(actors({ kind: 'InsightActorsQuery', source: lifecycle, day: '2024-01-01', status: 'gone' })).rejects.toMatchObject({ name: 'ZodError' });
  });

  const stickiness = { kind: 'StickinessQuery', dateRange: { date_from: '-7d' }, series: [PV] };
  it.each<[number, string[], number]>([
    [1, ['u1', 'u3', 'u4'], 1],
    [2, ['u2'], 0],
    [3, [], 0],
  ])('stickiness day %d: the actors active on exactly that many days', async (day, expected, missing) => {
    const r = await actors({ kind: 'InsightActorsQuery', source: stickiness, day }, { select: ['actor'] });
    expect([names(r).sort(), r.missing_actors_count]).toEqual([expected, missing]);
    const counts = await db.run(stickinessRunner, stickiness);
    expect(counts.results[0].data[day - 1]).toBe(expected.length + missing);
  });

  const retention = {
    kind: 'RetentionQuery',
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' },
    retentionFilter: { period: 'Day', totalIntervals: 5, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
  };
  it.each<[number, [string, number[]][]]>([
    [0, [['u1', [0]], ['u2', [0, 1]]]],
    [1, [['u2', [0]], ['u3', [0]]]],
    [2, []],
  ])('retention cohort %d: the actors and the intervals they appear in (test_retention.py actors_in_period)', async (interval, expected) => {
    const r = await actors({ kind: 'InsightActorsQuery', source: retention, interval }, { select: ['actor', 'appearances'] });
    const got = r.results.map((row: any[]) => [row[0].distinct_ids[0], row[1]]).sort();
    expect(got).toEqual(expected);
    const counts = await db.run(retentionRunner, retention);
    expect(counts.results[interval].values[0].count).toBe(expected.length + r.missing_actors_count);
  });
});

describe('validation', () => {
  it.each<[string, Record<string, unknown>]>([
    ['unknown key', { kind: 'ActorsQuery', nope: 1 }],
    ['unknown source kind', { kind: 'ActorsQuery', source: { kind: 'PathsActorsQuery' } }],
    ['status on a trends source', { kind: 'ActorsQuery', source: trendsSource({}, { day: '2024-01-01', status: 'new' }) }],
    ['bad select expression', { kind: 'ActorsQuery', select: ['properties.'] }],
    ['a window function', { kind: 'ActorsQuery', select: ['row_number() OVER ()'] }],
    ['a subquery', { kind: 'ActorsQuery', select: ['(SELECT count() FROM events)'] }],
    ['appearances with an aggregate', { kind: 'ActorsQuery', select: ['appearances', 'count()'], source: { kind: 'InsightActorsQuery', source: { kind: 'RetentionQuery', retentionFilter: {} } } }],
    ['event_count without a source', { kind: 'ActorsQuery', select: ['event_count'] }],
  ])('%s is a 400', async (_name, node) => {
    const err = await db.run(actorsRunner, node).then(
      () => null,
      (e: any) => e,
    );
    expect(err).not.toBeNull();
    expect(err.status === 400 || err.name === 'ZodError').toBe(true);
  });
});
