import { createInsightTestDb, ev, type InsightTestDb, useInsightsClock } from '../insights/testing';
import { actorsRunner } from './actors-runner';
import { insightActorsOptionsRunner } from './insight-actors-options-runner';
import { trendsRunner } from './trends-runner';
import { lifecycleRunner } from './lifecycle-runner';
import { stickinessRunner } from './stickiness-runner';
import { shutdownParser } from '../../productql/parser';

/**
 * PostHog's ActorsQuery cases, third batch (events-actors-posthog-compat{,-2}.test.ts are the first two):
 * posthog/hogql_queries/test/test_actors_query_runner.py (search, the person_display_name column), the persons
 * modal's trends ActorsQuery (orderBy `event_count DESC, actor_id DESC`, read by parse_order_expr as its first item),
 * insights/test/test_insight_actors_query_options_runner.py (lifecycle options), includeRecordings
 * (insights/funnels/test/test_funnel_persons.py test_funnel_person_recordings, trends/test/test_trends_persons.py:
 * Quarry stores no recordings, so every actor's matched_recordings is `[]`), the strict and unordered funnel persons
 * (TestFunnelStrictStepsPersons, TestFunnelUnorderedStepsPersons) and the actors of lifecycle and stickiness points
 * over the data of test_lifecycle_query_runner.py / test_stickiness_query_runner.py `_create_test_events`.
 * All data is loaded once; each describe has a project of its own. Runs on DuckDB here and on ClickHouse in the
 * .clickhouse twin, with the same pinned results.
 */
let db: InsightTestDb;
const freeze = useInsightsClock();

const P_PERSONS = 301;
const P_INSIGHT = 302;
const P_STRICT = 303;
const P_UNORDERED = 304;
const P_POINTS = 305;

/** test_lifecycle_query_runner.py / test_insight_actors_query_runner.py: each person created at their first event. */
const LIFECYCLE_DATA: [string, string[]][] = [
  ['p1', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z']],
  ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z']],
  ['p3', ['2020-01-12T12:00:00Z']],
  ['p4', ['2020-01-15T12:00:00Z']],
];

/** test_funnel_persons.py `_create_sample_data_multiple_dropoffs` of the strict and unordered classes. */
const journeys = (groups: [number, number, [string, number][]][]) => {
  const persons: unknown[] = [];
  const events: unknown[] = [];
  for (const [from, to, steps] of groups)
    for (let i = from; i < to; i++) {
      persons.push({ distinct_ids: [`user_${i}`], properties: { name: `user_${i}` }, created_at: '2021-04-01T00:00:00Z' });
      for (const [event, day] of steps) events.push(ev(event, `user_${i}`, `2021-05-0${day}T00:00:00Z`));
    }
  return { persons, events };
};

beforeAll(async () => {
  db = await createInsightTestDb();
  await db.load(P_PERSONS, {
    persons: [
      { distinct_ids: ['2', 'some-random-uid'], properties: { email: 'tom@posthog.com' }, created_at: '2020-01-10T12:00:00Z' },
      { distinct_ids: ['ABC-Distinct'], properties: { name: 'Arthur' }, created_at: '2020-01-09T12:00:00Z' },
      { distinct_ids: ['zzz-3'], properties: { plan: 'free' }, created_at: '2020-01-08T12:00:00Z' },
      { distinct_ids: ['u4'], properties: { username: 'dee', Name: 'Dee Dee' }, created_at: '2020-01-07T12:00:00Z' },
    ],
  });
  await db.load(P_INSIGHT, {
    persons: LIFECYCLE_DATA.map(([id, ts]) => ({ distinct_ids: [id], properties: { name: id }, created_at: ts[0] })),
    events: [
      ...LIFECYCLE_DATA.flatMap(([id, ts]) => ts.map((t) => ev('$pageview', id, t, { $session_id: `s-${id}` }))),
      // (a second series for stickiness: p1 leaves on two days, p2 on one)
      ev('$pageleave', 'p1', '2020-01-11T13:00:00Z'),
      ev('$pageleave', 'p1', '2020-01-12T13:00:00Z'),
      ev('$pageleave', 'p2', '2020-01-13T13:00:00Z'),
    ],
  });
  const strict = journeys([
    [0, 5, [['step one', 1], ['step fake', 2], ['step two', 3], ['step three', 5]]],
    [5, 15, [['step one', 1], ['step two', 3]]],
    [15, 35, [['step one', 1]]],
  ]);
  await db.load(P_STRICT, strict);
  const unordered = journeys([
    [0, 5, [['step one', 1], ['step three', 3], ['step two', 5]]],
    [5, 15, [['step two', 1], ['step one', 3]]],
    [15, 35, [['step one', 1]]],
  ]);
  await db.load(P_UNORDERED, unordered);
  // (sessions: s1 lasts 30 minutes, s2 5 minutes, s3 one event)
  const pv = (d: string, t: string, props: Record<string, unknown>) => ev('$pageview', d, `2020-01-0${t}:00Z`, props);
  await db.load(P_POINTS, {
    persons: ['q1', 'q2', 'q3', 'q4'].map((d, i) => ({ distinct_ids: [d], properties: { name: d, tier: i % 2 ? 'pro' : 'free' } })),
    events: [
      ev('$groupidentify', 'q1', '2020-01-01T00:00:00Z', { $group_type: 'company', $group_key: 'acme', $group_set: { industry: 'tech' } }),
      ev('$groupidentify', 'q1', '2020-01-01T00:00:00Z', { $group_type: 'company', $group_key: 'beta', $group_set: { industry: 'retail' } }),
      pv('q1', '2T10:00', { $browser: 'Chrome', price: 10, is_pro: true, $session_id: 's1', $groups: { company: 'acme' } }),
      pv('q1', '2T10:30', { $browser: 'Chrome', price: 25, is_pro: true, $session_id: 's1', $groups: { company: 'acme' } }),
      pv('q2', '2T11:00', { $browser: 'Safari', price: 10, is_pro: false, $session_id: 's2', $groups: { company: 'beta' } }),
      pv('q2', '2T11:05', { $browser: 'Safari', price: 40, $session_id: 's2', $groups: { company: 'beta' } }),
      pv('q3', '3T09:00', { $browser: 'Firefox', price: 5, is_pro: false, $session_id: 's3' }),
      pv('q4', '3T09:00', { $browser: 'Chrome', $groups: { company: 'acme' } }),
      pv('q1', '4T12:00', { $browser: 'Edge', price: 100, is_pro: true }),
    ],
  });
});
afterAll(async () => {
  await db.close();
  await shutdownParser();
});

const actors = (q: Record<string, unknown>, project: number, settings: Record<string, unknown> = {}) =>
  db.run(actorsRunner, { kind: 'ActorsQuery', ...q }, project, settings);
const PV = { kind: 'EventsNode', event: '$pageview' };

describe('ActorsQuery persons list (test_actors_query_runner.py)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const idOf = async (distinctId: string): Promise<string> => {
    const r = await actors({ select: ['person'], limit: 10 }, P_PERSONS);
    return r.results.find((row: any[]) => row[0].distinct_ids.includes(distinctId))[0].id;
  };

  it("person_display_name -- Person (the frontend's default persons columns): {display_name, id}, the first display property set, else the id", async () => {
    const r = await actors({ select: ['person_display_name -- Person', 'id', 'created_at', 'person.$delete'] }, P_PERSONS);
    expect(r.columns).toEqual(['person_display_name -- Person', 'id', 'created_at', 'person.$delete']);
    const zzz = await idOf('zzz-3');
    // newest first (created_at selected)
    expect(r.results.map((row: any[]) => [row[0], row[0].id === row[1], row[3]])).toEqual([
      [{ display_name: 'tom@posthog.com', id: await idOf('2') }, true, 1],
      [{ display_name: 'Arthur', id: await idOf('ABC-Distinct') }, true, 1],
      [{ display_name: zzz, id: zzz }, true, 1],
      // PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES order: email, Email, name, Name, username, ...
      [{ display_name: 'Dee Dee', id: await idOf('u4') }, true, 1],
    ]);
    expect(r.types[0]).toMatch(/^Tuple\(/);
  });

  it('person_display_name with an aggregate groups by the person', async () => {
    const r = await actors({ select: ['person_display_name -- Person', 'count()'], search: 'tom@' }, P_PERSONS);
    expect(r.results).toEqual([[{ display_name: 'tom@posthog.com', id: await idOf('2') }, 1]]);
  });

  it.each<[string, string, string[]]>([
    // PersonStrategy.filter_conditions: ILIKE '%search%' on properties.email, properties.name and pdi.distinct_id
    ['test_persons_query_search_distinct_id: any distinct id of the person', 'some-random-uid', ['2']],
    ['a distinct id in any case', 'abc-distinct', ['ABC-Distinct']],
    ['part of a distinct id', 'zz-', ['zzz-3']],
    ['test_persons_query_search_email: part of the email, any case', 'TOM@POST', ['2']],
    ['test_persons_query_search_name: part of the name', 'rthu', ['ABC-Distinct']],
    ['other properties are not searched', 'free', []],
    ['nothing matches', 'nobody', []],
    // the term goes into the pattern as given (f"%{search}%", no escaping): % and _ are LIKE's wildcards
    ['an underscore matches any one character', 't_m@', ['2']],
    ['a percent sign matches any run of characters', 'T%HOG', ['2']],
    ['a lone % matches every person (each has a distinct id)', '%', ['2', 'ABC-Distinct', 'u4', 'zzz-3']],
    ['the name only: Name is not searched', 'Dee Dee', []],
  ])('search: %s', async (_title, search, expected) => {
    const r = await actors({ select: ['person'], search }, P_PERSONS);
    expect(r.results.map((row: any[]) => row[0].distinct_ids[0]).sort()).toEqual(expected);
  });

  it('search by the person UUID matches it whole only', async () => {
    const id = await idOf('zzz-3');
    expect((await actors({ select: ['id'], search: id }, P_PERSONS)).results).toEqual([[id]]);
    expect((await actors({ select: ['id'], search: `${id}x` }, P_PERSONS)).results).toEqual([]);
  });
});

describe('InsightActorsQuery includeRecordings (test_funnel_persons.py test_funnel_person_recordings, test_trends_persons.py)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const dateRange = { date_from: '2020-01-09', date_to: '2020-01-19' };

  it('trends: matched_recordings is a column of empty lists (no recordings are stored)', async () => {
    const source = { kind: 'InsightActorsQuery', day: '2020-01-12', includeRecordings: true, source: { kind: 'TrendsQuery', dateRange, series: [PV] } };
    const r = await actors({ source, select: ['actor', 'event_count', 'matched_recordings'], orderBy: ['event_count DESC'] }, P_INSIGHT);
    expect(r.columns).toEqual(['actor', 'event_count', 'matched_recordings']);
    expect(r.results.map((row: any[]) => [row[0].distinct_ids[0], row[1], row[2]]).sort()).toEqual([
      ['p1', 1, []],
      ['p2', 1, []],
      ['p3', 1, []],
    ]);
  });

  it('funnels (get_actors: select id, person, matched_recordings; orderBy id)', async () => {
    const source = {
      kind: 'FunnelsActorsQuery',
      funnelStep: 2,
      includeRecordings: true,
      source: { kind: 'FunnelsQuery', dateRange, series: [PV, PV] },
    };
    const r = await actors({ source, select: ['id', 'person', 'matched_recordings'], orderBy: ['id'] }, P_INSIGHT);
    expect(r.results.map((row: any[]) => [row[0] === row[1].id, row[1].distinct_ids[0], row[2]]).sort()).toEqual([
      [true, 'p1', []],
      [true, 'p2', []],
    ]);
    // dropped off: still an empty list
    const dropped = await actors({ source: { ...source, funnelStep: -2 }, select: ['person', 'matched_recordings'] }, P_INSIGHT);
    expect(dropped.results.map((row: any[]) => [row[0].distinct_ids[0], row[1]]).sort()).toEqual([
      ['p3', []],
      ['p4', []],
    ]);
  });

  it('the default columns are unchanged by includeRecordings; matched_recordings without it is a 400', async () => {
    const source = { kind: 'InsightActorsQuery', day: '2020-01-09', includeRecordings: true, source: { kind: 'TrendsQuery', dateRange, series: [PV] } };
    const r = await actors({ source }, P_INSIGHT);
    expect(r.columns).toEqual(['person', 'id', 'created_at', 'person.$delete']);
    expect(r.results.map((row: any[]) => row[0].distinct_ids[0])).toEqual(['p2']);
    await expect(actors({ source: { ...source, includeRecordings: false }, select: ['actor', 'matched_recordings'] }, P_INSIGHT)).rejects.toMatchObject({
      status: 400,
      attr: 'select__1',
    });
  });
});

describe("the persons modal's ActorsQuery over a trends point (frontend openPersonsModal, test_trends_persons.py)", () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const source = { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', dateRange: { date_from: '2020-01-09', date_to: '2020-01-19' }, series: [PV] } };

  it('orderBy ["event_count DESC, actor_id DESC"]: parse_order_expr reads the first item only', async () => {
    const r = await actors({ source, select: ['actor', 'created_at', 'event_count'], orderBy: ['event_count DESC, actor_id DESC'] }, P_INSIGHT);
    expect(r.results.map((row: any[]) => row[2])).toEqual([6, 2, 1, 1]);
    expect(r.results.slice(0, 2).map((row: any[]) => row[0].distinct_ids[0])).toEqual(['p1', 'p2']);
  });

  it('orderBy directions in any case, and the actor column by its display property', async () => {
    const names = async (orderBy: string[]) => (await actors({ source, select: ['properties.name'], orderBy }, P_INSIGHT)).results.map((r: string[]) => r[0]);
    expect(await names(['properties.name desc'])).toEqual(['p4', 'p3', 'p2', 'p1']);
    expect(await names(['event_count ASC', 'properties.name DESC'])).toEqual(['p4', 'p3', 'p2', 'p1']);
    expect(await names(['length(properties.name) DESC', 'properties.name Asc'])).toEqual(['p1', 'p2', 'p3', 'p4']);
  });

  it('orderBy an alias of a select column (test_persons_query_order_by_with_aliases: the aliases are the SELECT’s)', async () => {
    const r = await actors({ source, select: ['properties.name as n'], orderBy: ['n DESC'] }, P_INSIGHT);
    expect(r.results).toEqual([['p4'], ['p3'], ['p2'], ['p1']]);
    const grouped = await actors({ select: ['length(properties.name) as l', 'count() as c'], orderBy: ['c ASC'] }, P_STRICT);
    expect(grouped.results).toEqual([
      [6, 10],
      [7, 25],
    ]);
  });

  it('an orderBy that is no expression is a 400', async () => {
    await expect(actors({ source, select: ['properties.name'], orderBy: [', properties.name'] }, P_INSIGHT)).rejects.toMatchObject({ status: 400 });
  });
});

describe('InsightActorsQueryOptions over a lifecycle (test_insight_actors_query_options_runner.py)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));

  it('the days of the range and the four statuses (LifecycleQueryRunner.to_actors_query_options)', async () => {
    const source = { kind: 'LifecycleQuery', dateRange: { date_from: '2020-01-09', date_to: '2020-01-12' }, series: [PV] };
    const r = await db.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source } }, P_INSIGHT);
    expect(r.status).toEqual([
      { label: 'Dormant', value: 'dormant' },
      { label: 'New', value: 'new' },
      { label: 'Resurrecting', value: 'resurrecting' },
      { label: 'Returning', value: 'returning' },
    ]);
    expect(r.day).toEqual([
      { label: '9-Jan-2020', value: '2020-01-09T00:00:00Z' },
      { label: '10-Jan-2020', value: '2020-01-10T00:00:00Z' },
      { label: '11-Jan-2020', value: '2020-01-11T00:00:00Z' },
      { label: '12-Jan-2020', value: '2020-01-12T00:00:00Z' },
    ]);
  });

  it('each day option is a day the lifecycle actors can be asked for', async () => {
    const source = { kind: 'LifecycleQuery', dateRange: { date_from: '2020-01-09', date_to: '2020-01-12' }, series: [PV] };
    const o = await db.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source } }, P_INSIGHT);
    const r = await actors({ select: ['properties.name'], source: { kind: 'InsightActorsQuery', source, day: o.day[3].value, status: 'new' } }, P_INSIGHT);
    expect(r.results).toEqual([['p3']]);
  });
});

describe('the actors of lifecycle and stickiness points (test_lifecycle_query_runner.py, test_stickiness_query_runner.py data)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const dateRange = { date_from: '2020-01-09', date_to: '2020-01-19' };
  const names = async (source: Record<string, unknown>) => (await actors({ select: ['properties.name'], source }, P_INSIGHT)).results.map((r: string[]) => r[0]).sort();

  it.each<[string, string, string[]]>([
    ['2020-01-09', 'new', ['p2']],
    ['2020-01-10', 'dormant', ['p2']],
    ['2020-01-12', 'new', ['p3']],
    ['2020-01-12', 'resurrecting', ['p2']],
    ['2020-01-12', 'returning', ['p1']],
    ['2020-01-13', 'dormant', ['p2', 'p3']],
    ['2020-01-15', 'new', ['p4']],
    ['2020-01-15', 'resurrecting', ['p1']],
    ['2020-01-16', 'dormant', ['p1', 'p4']],
  ])('lifecycle %s %s', async (day, status, expected) => {
    expect(await names({ kind: 'InsightActorsQuery', day, status, source: { kind: 'LifecycleQuery', dateRange, series: [PV] } })).toEqual(expected);
  });

  it.each<[number, number, string[]]>([
    [0, 6, ['p1']],
    [0, 2, ['p2']],
    [0, 1, ['p3', 'p4']],
    [0, 3, []],
    [1, 2, ['p1']],
    [1, 1, ['p2']],
  ])('stickiness series %d, %d intervals', async (series, day, expected) => {
    const source = { kind: 'StickinessQuery', dateRange, series: [PV, { kind: 'EventsNode', event: '$pageleave' }] };
    expect(await names({ kind: 'InsightActorsQuery', day, series, source })).toEqual(expected);
  });
});

describe('FunnelsActorsQuery over strict and unordered funnels (test_funnel_persons.py)', () => {
  beforeEach(() => freeze('2021-05-10T00:00:00Z'));
  const funnel = (funnelOrderType: string) => ({
    kind: 'FunnelsQuery',
    series: ['step one', 'step two', 'step three'].map((event) => ({ kind: 'EventsNode', event })),
    dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' },
    funnelsFilter: { funnelOrderType, funnelWindowInterval: 7 },
  });
  const count = async (project: number, order: string, funnelStep: number) =>
    (await actors({ select: ['id'], limit: 100, source: { kind: 'FunnelsActorsQuery', source: funnel(order), funnelStep } }, project)).results.length;

  it.each<[string, number, number]>([
    ['test_first_step', 1, 35],
    ['test_second_step', 2, 10],
    ['test_second_step_dropoff', -2, 25],
    ['test_third_step', 3, 0],
  ])('TestFunnelStrictStepsPersons %s (funnelStep %d)', async (_t, funnelStep, n) => {
    expect(await count(P_STRICT, 'strict', funnelStep)).toBe(n);
  });

  it.each<[string, number, number]>([
    ['test_first_step', 1, 35],
    ['test_last_step', 3, 5],
    ['test_second_step_dropoff', -2, 20],
    ['test_last_step_dropoff', -3, 10],
  ])('TestFunnelUnorderedStepsPersons %s (funnelStep %d)', async (_t, funnelStep, n) => {
    expect(await count(P_UNORDERED, 'unordered', funnelStep)).toBe(n);
  });
});

describe('every data point of a trends insight: its actors number its value (TrendsActorsQueryBuilder over each breakdown kind)', () => {
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));
  const PVS = { kind: 'EventsNode', event: '$pageview' };
  /** The insight's points (line × day) and, for each, the actors' events (total) or the actors (dau): they agree. */
  const sweep = async (q: Record<string, unknown>): Promise<number> => {
    const trends = { kind: 'TrendsQuery', series: [PVS], dateRange: { date_from: '2020-01-02', date_to: '2020-01-04' }, ...q };
    const t = await db.run(trendsRunner, trends, P_POINTS);
    const dau = (trends.series as { math?: string }[])[0].math === 'dau';
    let points = 0;
    for (const line of t.results)
      for (const [i, day] of line.days.entries()) {
        // (an empty point of a breakdown line is asked for once per line, to keep the sweep short)
        if (!line.data[i] && line.data.slice(0, i).some((v: number) => !v)) continue;
        const point = { kind: 'InsightActorsQuery', source: trends, day, ...(line.breakdown_value !== undefined ? { breakdown: line.breakdown_value } : {}) };
        const r = await actors({ source: point, select: ['actor_id', 'event_count'] }, P_POINTS);
        const got = dau ? r.results.length : r.results.reduce((n: number, row: number[]) => n + row[1], 0);
        expect([line.breakdown_value, day, got]).toEqual([line.breakdown_value, day, line.data[i]]);
        points += line.data[i] ? 1 : 0;
      }
    return points;
  };

  it.each<[string, Record<string, unknown>]>([
    ['an event property with the null value', { breakdownFilter: { breakdown: '$browser' } }],
    ['a numeric property (values as text)', { breakdownFilter: { breakdown: 'price' } }],
    ['a boolean property ("true"/"false")', { breakdownFilter: { breakdown: 'is_pro' } }],
    ['a histogram of a numeric property', { breakdownFilter: { breakdown: 'price', breakdown_histogram_bin_count: 2 } }],
    ['a person property', { breakdownFilter: { breakdown: 'tier', breakdown_type: 'person' } }],
    ['a group property', { breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 } }],
    ['a session duration histogram', { breakdownFilter: { breakdown: '$session_duration', breakdown_type: 'session', breakdown_histogram_bin_count: 2 } }],
    ['a ProductQL expression', { breakdownFilter: { breakdown: "if(toFloat(properties.price) > 20, 'big', 'small')", breakdown_type: 'hogql' } }],
    ['a limit with "Other"', { breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } }],
    ['two breakdowns', { breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: 'tier', type: 'person' }] } }],
    ['dau by browser', { series: [{ ...PVS, math: 'dau' }], breakdownFilter: { breakdown: '$browser' } }],
  ])('%s', async (_title, q) => {
    expect(await sweep(q)).toBeGreaterThan(1);
  });

  it.each<[string, Record<string, unknown>]>([
    ['unique_session', { math: 'unique_session' }],
    ['a property sum', { math: 'sum', math_property: 'price' }],
    ['a property minimum', { math: 'min', math_property: 'price' }],
    ['a ProductQL aggregate', { math: 'hogql', math_hogql: 'sum(toFloat(properties.price))' }],
    ['a 90th percentile', { math: 'p90', math_property: 'price' }],
  ])('%s: the actors are the persons of the point’s events, with those events', async (_title, math) => {
    const point = (day: string) => ({ kind: 'InsightActorsQuery', day, source: { kind: 'TrendsQuery', series: [{ ...PVS, ...math }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-04' } } });
    const of = async (day: string) => (await actors({ source: point(day), select: ['properties.name', 'event_count'], orderBy: ['properties.name'] }, P_POINTS)).results;
    expect(await of('2020-01-02')).toEqual([['q1', 2], ['q2', 2]]);
    expect(await of('2020-01-04')).toEqual([['q1', 1]]);
  });
});

describe('every lifecycle and stickiness data point: its actors number its value (week and month intervals, a timezone)', () => {
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));
  const PVS = { kind: 'EventsNode', event: '$pageview' };
  const count = async (source: Record<string, unknown>, point: Record<string, unknown>, settings: Record<string, unknown>) =>
    (await actors({ source: { kind: 'InsightActorsQuery', source, ...point }, select: ['actor_id'] }, P_INSIGHT, settings)).results.length;

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['day, Asia/Tokyo', { interval: 'day', dateRange: { date_from: '2020-01-11', date_to: '2020-01-14' } }, { timezone: 'Asia/Tokyo' }],
    ['week starting Monday', { interval: 'week', dateRange: { date_from: '2019-12-29', date_to: '2020-01-19' } }, { week_start_day: 1 }],
    ['month', { interval: 'month', dateRange: { date_from: '2019-12-01', date_to: '2020-01-19' } }, {}],
  ])('lifecycle by %s', async (_title, q, settings) => {
    const source = { kind: 'LifecycleQuery', series: [PVS], ...q };
    const r = await db.run(lifecycleRunner, source, P_INSIGHT, settings);
    let nonzero = 0;
    for (const line of r.results)
      for (const [i, day] of line.days.entries()) {
        // (one empty point per status line is enough)
        if (!line.data[i] && line.data.slice(0, i).some((v: number) => !v)) continue;
        expect([line.status, day, await count(source, { day, status: line.status }, settings)]).toEqual([line.status, day, Math.abs(line.data[i])]);
        if (line.data[i]) nonzero++;
      }
    expect(nonzero).toBeGreaterThan(0);
  });

  it.each<[string, Record<string, unknown>]>([
    ['day', { interval: 'day', dateRange: { date_from: '2020-01-08', date_to: '2020-01-19' } }],
    ['week', { interval: 'week', dateRange: { date_from: '2019-12-29', date_to: '2020-01-19' } }],
  ])('stickiness by %s', async (_title, q) => {
    const source = { kind: 'StickinessQuery', series: [PVS], ...q };
    const r = await db.run(stickinessRunner, source, P_INSIGHT);
    for (const [i, day] of r.results[0].days.entries()) expect([day, await count(source, { day }, {})]).toEqual([day, r.results[0].data[i]]);
  });
});
