import { actionRegistry, actionStep, createInsightTestDb, ev, type InsightTestDb, useInsightsClock } from '../insights/testing';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from '../insights/breakdown';
import { actorsRunner } from './actors-runner';
import { trendsRunner } from './trends-runner';
import { eventsRunner } from './events-runner';
import { insightActorsOptionsRunner } from './insight-actors-options-runner';
import { shutdownParser } from '../../productql/parser';

/**
 * PostHog's EventsQuery and ActorsQuery cases, second batch (events-actors-posthog-compat.test.ts is the first):
 * posthog/hogql_queries/insights/trends/test/test_trends_persons.py (the actors of a trends point: select actor,
 * created_at, event_count, orderBy event_count DESC), test_insight_actors_query_runner.py (its other data points),
 * test_actors_query_runner.py (paging, the persons list, sources) and EventsQuery's response (test_query.py,
 * events_query_runner.py). Each describe uses a project of its own and freezes the clock as PostHog's test does.
 * Runs on DuckDB here and on ClickHouse in the .clickhouse twin, with the same pinned results.
 */
let db: InsightTestDb;
const freeze = useInsightsClock();

beforeAll(async () => {
  db = await createInsightTestDb();
});
afterAll(async () => {
  await db.close();
  await shutdownParser();
});

const events = (q: Record<string, unknown>, project: number, settings: Record<string, unknown> = {}) =>
  db.run(eventsRunner, { kind: 'EventsQuery', ...q }, project, settings);
const actors = (q: Record<string, unknown>, project: number, settings: Record<string, unknown> = {}) =>
  db.run(actorsRunner, { kind: 'ActorsQuery', ...q }, project, settings);

describe('InsightActorsQuery over trends (test_trends_persons.py)', () => {
  const P = 201;
  beforeAll(async () => {
    await db.load(P, {
      persons: [
        { distinct_ids: ['person1'], properties: { $geoip_country_code: 'US' }, created_at: '2023-04-01T00:00:00Z' },
        { distinct_ids: ['person2'], properties: { $geoip_country_code: 'DE' }, created_at: '2023-04-02T00:00:00Z' },
        { distinct_ids: ['person3'], properties: {}, created_at: '2023-04-03T00:00:00Z' },
      ],
      events: [
        ev('$pageview', 'person1', '2023-04-29T16:00:00Z', { $browser: 'Chrome', price: 10 }),
        ev('$pageview', 'person1', '2023-04-29T17:00:00Z', { $browser: 'Chrome', price: 20 }),
        ev('$pageview', 'person2', '2023-04-29T16:00:00Z', { $browser: 'Safari', price: 30 }),
        ev('$pageview', 'person3', '2023-04-30T10:00:00Z', {}),
        ev('$pageview', 'person1', '2023-05-01T16:00:00Z', { $browser: 'Chrome' }),
        ev('$pageleave', 'person2', '2023-04-30T16:00:00Z'),
        ev('$pageleave', 'person3', '2023-04-30T16:00:00Z'),
      ],
    });
  });
  beforeEach(() => freeze('2023-05-01T18:00:00Z'));

  const PV = { kind: 'EventsNode', event: '$pageview' };
  /** test_trends_persons.py get_actors: select actor, created_at, event_count; orderBy event_count DESC. */
  const getActors = async (trends: Record<string, unknown>, point: Record<string, unknown> = {}) => {
    const source = { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', series: [PV], dateRange: { date_from: '-7d' }, ...trends }, ...point };
    const r = await actors({ source, select: ['actor', 'created_at', 'event_count'], orderBy: ['event_count DESC'] }, P);
    return r.results.map((row: any[]) => [row[0].distinct_ids[0], row[2]]);
  };
  const sorted = (xs: unknown[][]) => [...xs].sort((a, b) => String(a[0]).localeCompare(String(b[0])));

  it('test_trends_single_series_persons: without a day, the actors of the whole range with their events', async () => {
    const r = await getActors({});
    expect(r[0]).toEqual(['person1', 3]);
    expect(sorted(r)).toEqual([['person1', 3], ['person2', 1], ['person3', 1]]);
    expect(await getActors({}, { day: '2023-04-29' })).toEqual([['person1', 2], ['person2', 1]]);
  });

  it('test_trends_multiple_series_persons: series 1', async () => {
    expect(sorted(await getActors({ series: [PV, { kind: 'EventsNode', event: '$pageleave' }] }, { series: 1 }))).toEqual([['person2', 1], ['person3', 1]]);
  });

  it('test_trends_event_breakdown_persons', async () => {
    const bf = { breakdownFilter: { breakdown: '$browser' } };
    expect(await getActors(bf, { breakdown: 'Safari' })).toEqual([['person2', 1]]);
    expect(await getActors(bf, { breakdown: 'Chrome', day: '2023-05-01' })).toEqual([['person1', 1]]);
    expect(await getActors(bf, { breakdown: BREAKDOWN_NULL })).toEqual([['person3', 1]]);
  });

  it('test_trends_person_breakdown_persons', async () => {
    expect(await getActors({ breakdownFilter: { breakdown: '$geoip_country_code', breakdown_type: 'person' } }, { breakdown: 'DE' })).toEqual([['person2', 1]]);
  });

  it('test_trends_hogql_breakdown_persons', async () => {
    expect(await getActors({ breakdownFilter: { breakdown: 'properties.$browser', breakdown_type: 'hogql' } }, { breakdown: 'Chrome' })).toEqual([['person1', 3]]);
  });

  it('test_trends_multiple_breakdowns_persons', async () => {
    const bf = { breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: '$geoip_country_code', type: 'person' }] } };
    expect(await getActors(bf, { breakdown: ['Chrome', 'US'] })).toEqual([['person1', 3]]);
  });

  it('test_trends_breakdown_others_persons', async () => {
    const bf = { breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } };
    expect(sorted(await getActors(bf, { breakdown: BREAKDOWN_OTHER }))).toEqual([['person2', 1], ['person3', 1]]);
  });

  it('test_trends_math_property_sum_persons / test_trends_math_count_per_actor_persons', async () => {
    expect(await getActors({ series: [{ ...PV, math: 'sum', math_property: 'price' }] }, { day: '2023-04-29' })).toEqual([['person1', 2], ['person2', 1]]);
    expect(await getActors({ series: [{ ...PV, math: 'avg_count_per_actor' }] }, { day: '2023-04-29' })).toEqual([['person1', 2], ['person2', 1]]);
  });

  it('test_trends_total_value_persons: a total-value display ignores the day', async () => {
    const r = await getActors({ trendsFilter: { display: 'BoldNumber' } }, { day: '2023-04-29' });
    expect(sorted(r)).toEqual([['person1', 3], ['person2', 1], ['person3', 1]]);
  });

  it('week interval: the day is the week of the project’s week start (week_start_day)', async () => {
    const weekly = async (day: string, week_start_day: number) => {
      const source = { kind: 'InsightActorsQuery', day, source: { kind: 'TrendsQuery', series: [PV], interval: 'week', dateRange: { date_from: '-7d' } } };
      const r = await actors({ source, select: ['actor', 'created_at', 'event_count'], orderBy: ['event_count DESC'] }, P, { week_start_day });
      return sorted(r.results.map((row: any[]) => [row[0].distinct_ids[0], row[2]]));
    };
    expect(await weekly('2023-04-24', 1)).toEqual([['person1', 2], ['person2', 1], ['person3', 1]]);
    expect(await weekly('2023-05-01', 1)).toEqual([['person1', 1]]);
    expect(await weekly('2023-04-23', 0)).toEqual([['person1', 2], ['person2', 1]]);
    expect(await weekly('2023-04-30', 0)).toEqual([['person1', 1], ['person3', 1]]);
  });

  it('an action series: the actors of the events matching the action', async () => {
    const registry = actionRegistry(9001);
    db.actions = registry.source;
    const chrome = registry.action('chrome views', [actionStep('$pageview', [{ type: 'event', key: '$browser', value: 'Chrome', operator: 'exact' }])]);
    expect(await getActors({ series: [{ kind: 'ActionsNode', id: chrome }] })).toEqual([['person1', 3]]);
    expect(await getActors({ series: [PV, { kind: 'ActionsNode', id: chrome, math: 'dau' }] }, { series: 1, day: '2023-05-01' })).toEqual([['person1', 1]]);
  });

  it('compare_to: the previous period is the given offset', async () => {
    const compared = { dateRange: { date_from: '2023-05-01', date_to: '2023-05-01' }, compareFilter: { compare: true, compare_to: '-2d' } };
    expect(await getActors(compared, { compare: 'previous', day: '2023-04-29' })).toEqual([['person1', 2], ['person2', 1]]);
  });

  it('test_trends_compare_persons', async () => {
    const compared = { dateRange: { date_from: '2023-04-30', date_to: '2023-05-01' }, compareFilter: { compare: true } };
    expect(await getActors(compared, { compare: 'current', day: '2023-05-01' })).toEqual([['person1', 1]]);
    expect(await getActors(compared, { compare: 'previous', day: '2023-04-29' })).toEqual([['person1', 2], ['person2', 1]]);
  });
});

describe('InsightActorsQuery over trends, group math (test_trends_persons.py)', () => {
  const P = 202;
  beforeAll(async () => {
    const group = (key: string) => ev('$groupidentify', 'person0', '2023-04-01T00:00:00Z', { $group_type: 'Company', $group_key: key, $group_set: {} });
    await db.load(P, {
      persons: Array.from({ length: 6 }, (_, i) => ({ distinct_ids: [`person${i}`], properties: {} })),
      events: [
        group('Hooli'),
        group('Pied Piper'),
        ...[0, 1, 2].map((i) => ev('$pageview', `person${i}`, '2023-05-01T12:00:00Z', { $groups: { Company: 'Hooli' } })),
        ev('$pageview', 'person0', '2023-05-01T13:00:00Z', { $groups: { Company: 'Hooli' } }),
        ...[3, 4].map((i) => ev('$pageview', `person${i}`, '2023-05-01T12:00:00Z', { $groups: { Company: 'Pied Piper' } })),
        ev('$pageview', 'person5', '2023-05-01T12:00:00Z'),
      ],
    });
  });
  beforeEach(() => freeze('2023-05-01T18:00:00Z'));

  it('test_trends_math_group_persons: unique_group makes the groups the actors, with their events', async () => {
    const source = {
      kind: 'InsightActorsQuery',
      source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_group', math_group_type_index: 0 }], dateRange: { date_from: '-7d' } },
    };
    const r = await actors({ source, select: ['actor', 'created_at', 'event_count'], orderBy: ['event_count DESC'] }, P);
    expect(r.results.map((row: any[]) => [row[0].id, row[0].type, row[2]])).toEqual([
      ['Hooli', 'group', 4],
      ['Pied Piper', 'group', 2],
    ]);
  });
});

describe('InsightActorsQuery over trends, breakdown details (test_trends_persons.py)', () => {
  const P = 203;
  beforeAll(async () => {
    await db.load(P, {
      persons: ['u1', 'u2', 'u3', 'u4'].map((d) => ({ distinct_ids: [d], properties: { name: d } })),
      events: [
        ev('$pageview', 'u1', '2023-04-29T10:00:00Z', { $current_url: 'https://a.com/x/', $browser: 'Chrome', $os: 'Mac' }),
        ev('$pageview', 'u2', '2023-04-29T10:00:00Z', { $current_url: 'https://a.com/x', $browser: 'Chrome', $os: 'Windows' }),
        ev('$pageview', 'u3', '2023-04-29T10:00:00Z', { $current_url: 'https://a.com/y/', $browser: 'Safari', $os: 'Mac' }),
        ev('$pageview', 'u4', '2023-04-29T10:00:00Z', { $current_url: 'https://a.com/y?q=1', $browser: 'Firefox', $os: 'Linux' }),
      ],
    });
  });
  beforeEach(() => freeze('2023-05-01T18:00:00Z'));
  const names = async (trends: Record<string, unknown>, point: Record<string, unknown>) => {
    const source = { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' }, ...trends }, ...point };
    return (await actors({ source, select: ['properties.name'] }, P)).results.map((r: string[]) => r[0]).sort();
  };

  it('breakdown_normalize_url: the actors of a URL without its trailing slash', async () => {
    const bf = { breakdownFilter: { breakdown: '$current_url', breakdown_normalize_url: true } };
    const t = await db.run(trendsRunner, { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' }, ...bf }, P);
    expect(t.results.find((r: any) => r.breakdown_value === 'https://a.com/x').count).toBe(2);
    expect(await names(bf, { breakdown: 'https://a.com/x' })).toEqual(['u1', 'u2']);
  });

  it('multiple breakdowns with a limit: the "Other" actors', async () => {
    const bf = { breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: '$os' }], breakdown_limit: 1 } };
    expect(await names(bf, { breakdown: [BREAKDOWN_OTHER, BREAKDOWN_OTHER] })).toEqual(['u2', 'u3', 'u4']);
  });
});

describe('EventsQuery response (test_query.py, events_query_runner.py)', () => {
  const P = 204;
  const U = 'RANDOM_TEST_ID::0190b1b1';
  beforeAll(async () => {
    await db.load(P, {
      persons: [{ distinct_ids: ['2'], properties: { email: 'tom@posthog.com' }, created_at: '2020-01-10T12:00:00Z' }],
      events: [
        ev('sign up', '2', '2020-01-10T12:00:00Z', { key: 'test_val1' }),
        ev('sign out', '2', '2020-01-10T12:11:00Z', { key: 'test_val2' }),
        ev('sign out', '3', '2020-01-10T12:12:00Z', { key: 'test_val2' }),
        // test_events_query_limit: more events of one distinct id than the default page
        ...Array.from({ length: 105 }, () => ev('sign up', U, '2020-01-10T12:00:00Z', { key: 'test_val1' })),
      ],
    });
  });
  beforeEach(() => freeze('2020-01-10T12:14:00Z'));

  it('"*" is typed as the tuple of its fields in order (team_id Int64 after timestamp)', async () => {
    const r = await events({ select: ['*'], where: ["distinct_id = '2'"] }, P);
    expect(r.types).toEqual(["Tuple(UUID, String, String, DateTime64(6, 'UTC'), Int64, String, String, DateTime64(6, 'UTC'))"]);
    expect(Object.keys(r.results[0][0])).toEqual(['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'elements_chain', 'created_at']);
  });

  it('EventsQueryResponse carries the modifiers', async () => {
    expect((await events({ select: ['event'], limit: 1 }, P)).modifiers).toEqual({});
    expect((await events({ select: ['event'], limit: 1, modifiers: { personsOnEventsMode: 'person_id_override_properties_joined' } }, P)).modifiers).toEqual({
      personsOnEventsMode: 'person_id_override_properties_joined',
    });
  });

  it('test_events_query_limit: the default page is 100 rows with hasMore; a larger limit returns the rest', async () => {
    const where = [`distinct_id = '${U}'`];
    const first = await events({ select: ['event'], where }, P);
    expect([first.results.length, first.hasMore, first.limit]).toEqual([100, true, 100]);
    const all = await events({ select: ['event'], where, limit: 200 }, P);
    expect([all.results.length, all.hasMore, all.limit]).toEqual([105, false, 200]);
  });

  it('orderBy an alias of a select column', async () => {
    const r = await events({ select: ['event', 'count() as c'], where: [`distinct_id != '${U}'`], orderBy: ['c ASC'] }, P);
    expect(r.results).toEqual([
      ['sign up', 1],
      ['sign out', 2],
    ]);
  });
});

describe('ActorsQuery paging and response (test_actors_query_runner.py)', () => {
  const P = 205;
  beforeAll(async () => {
    await db.load(P, {
      persons: Array.from({ length: 3 }, (_, i) => ({ distinct_ids: [`d${i}`], properties: { email: `p${i}@x.com` }, created_at: `2021-01-0${i + 1}T00:00:00Z` })),
    });
  });
  beforeEach(() => freeze('2021-01-10T00:00:00Z'));

  it('limit 0 or less is the default 100; above 50,000 reads 50,000 (HogQLHasMorePaginator.from_limit_context)', async () => {
    for (const [limit, want] of [
      [0, 100],
      [-5, 100],
      [20_000, 20_000],
      [60_000, 50_000],
    ]) {
      const r = await actors({ select: ['properties.email'], limit }, P);
      expect([r.limit, r.results.length, r.hasMore]).toEqual([want, 3, false]);
    }
  });

  it('missing_actors_count is 0 for the persons list when the actor column is selected', async () => {
    const r = await actors({}, P);
    expect(r.results.map((row: any[]) => row[0].properties.email)).toEqual(['p2@x.com', 'p1@x.com', 'p0@x.com']);
    expect(r.missing_actors_count).toBe(0);
  });
});

describe('InsightActorsQuery, the other data points of test_insight_actors_query_runner.py', () => {
  const P = 206;
  const TZ = { timezone: 'US/Pacific' };
  // _create_test_events: each person created when its first event happens (_create_person under freeze_time)
  const data: [string, string[], string | null][] = [
    ['p1', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z'], 'org:6'],
    ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z'], null],
    ['p3', ['2020-01-12T12:00:00Z'], 'org:7'],
    ['p4', ['2020-01-15T12:00:00Z'], 'org:7'],
  ];
  beforeAll(async () => {
    await db.load(P, {
      persons: data.map(([id, timestamps]) => ({ distinct_ids: [id], properties: { name: id, ...(id === 'p1' ? { email: 'test@posthog.com' } : {}) }, created_at: timestamps[0] })),
      events: data.flatMap(([id, timestamps, org]) => timestamps.map((t) => ev('$pageview', id, t, org ? { $groups: { organization: org } } : {}))),
    });
  });
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));

  const dateRange = { date_from: '2020-01-09', date_to: '2020-01-19' };
  const PV = { kind: 'EventsNode', event: '$pageview' };
  const names = async (source: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    (await actors({ select: ['properties.name'], orderBy: ['properties.name'], source, ...extra }, P, TZ)).results.map((r: string[]) => r[0]);

  it('test_insight_persons_trends_query_with_argmaxV1 / V2: the persons modifier changes nothing', async () => {
    const source = { kind: 'InsightActorsQuery', day: '2020-01-09', source: { kind: 'TrendsQuery', dateRange, series: [PV] } };
    for (const personsArgMaxVersion of ['v1', 'v2']) expect(await names(source, { modifiers: { personsArgMaxVersion } })).toEqual(['p2']);
  });

  it.each<[string, string, string[]]>([
    ['new', '2020-01-11', ['p1']],
    ['new', '2020-01-12', ['p3']],
    ['resurrecting', '2020-01-12', ['p2']],
    ['returning', '2020-01-13', ['p1']],
    ['dormant', '2020-01-13', ['p2', 'p3']],
    ['dormant', '2020-01-14', ['p1']],
    ['resurrecting', '2020-01-15', ['p1']],
    ['new', '2020-01-15', ['p4']],
  ])('lifecycle actors: %s on %s', async (status, day, want) => {
    const source = { kind: 'LifecycleQuery', dateRange, series: [PV] };
    expect(await names({ kind: 'InsightActorsQuery', day, status, source })).toEqual(want);
  });

  it.each<[number, string[]]>([
    [1, ['p3', 'p4']],
    [2, ['p2']],
    [6, ['p1']],
    [3, []],
  ])('stickiness actors active on exactly %i days', async (day, want) => {
    expect(await names({ kind: 'InsightActorsQuery', day, source: { kind: 'StickinessQuery', dateRange, series: [PV] } })).toEqual(want);
  });

  it('trends actors of a day, and of a person-property filtered insight', async () => {
    const trends = { kind: 'TrendsQuery', dateRange, series: [PV] };
    expect(await names({ kind: 'InsightActorsQuery', day: '2020-01-12', source: trends })).toEqual(['p1', 'p2', 'p3']);
    const filtered = { ...trends, properties: [{ type: 'person', key: 'email', value: 'test@posthog.com', operator: 'exact' }] };
    expect(await names({ kind: 'InsightActorsQuery', day: '2020-01-12', source: filtered })).toEqual(['p1']);
  });

  it('test_persons_query_grouping (test_actors_query_runner.py): a person listed by a source once, whatever its events', async () => {
    const source = { kind: 'HogQLQuery', query: "SELECT person_id FROM events WHERE event = '$pageview'" };
    expect(await names(source)).toEqual(['p1', 'p2', 'p3', 'p4']);
  });
});

describe('the person of merged distinct ids (events_query_runner.py person column, actors_query_runner.py)', () => {
  const P = 207;
  beforeAll(async () => {
    await db.load(P, {
      events: [
        ev('$pageview', 'anon1', '2020-01-10T11:00:00Z'),
        ev('$identify', 'user1', '2020-01-10T11:30:00Z', { $anon_distinct_id: 'anon1', $set: { email: 'merged@posthog.com' } }),
        ev('$pageview', 'user1', '2020-01-10T12:00:00Z'),
      ],
    });
  });
  beforeEach(() => freeze('2020-01-10T12:14:00Z'));

  it('the person column: one person for both distinct ids, with the distinct id of each event', async () => {
    const r = await events({ select: ['person', 'event', 'distinct_id'], event: '$pageview' }, P);
    expect(r.results.map((row: any[]) => [row[0].distinct_id, row[0].properties, row[2]])).toEqual([
      ['anon1', { email: 'merged@posthog.com' }, 'anon1'],
      ['user1', { email: 'merged@posthog.com' }, 'user1'],
    ]);
    expect(r.results[0][0].uuid).toBe(r.results[1][0].uuid);
  });

  it('the persons list: the merged person once, with both distinct ids; search finds it by either', async () => {
    const all = await actors({ select: ['person'] }, P);
    expect(all.results).toHaveLength(1);
    expect([...all.results[0][0].distinct_ids].sort()).toEqual(['anon1', 'user1']);
    for (const search of ['anon1', 'user1', 'MERGED@']) expect((await actors({ select: ['properties.email'], search }, P)).results).toEqual([['merged@posthog.com']]);
  });
});

describe('TrendsActorsQueryBuilder date bounds (test_trends_actors_query_builder.py: Europe/Berlin, 2023-05-08 … 2023-05-14)', () => {
  const P = 208;
  const TZ = { timezone: 'Europe/Berlin' };
  beforeAll(async () => {
    // (Berlin is UTC+2 in May and April)
    await db.load(P, {
      persons: Array.from({ length: 10 }, (_, i) => ({ distinct_ids: [`u${i + 1}`], properties: { name: `u${i + 1}` } })),
      events: [
        ev('$pageview', 'u1', '2023-05-07T21:59:00Z'), // 05-07 23:59: before the range
        ev('$pageview', 'u1', '2023-05-03T21:59:00Z'), // 05-03 23:59
        ev('$pageview', 'u2', '2023-05-07T22:00:00Z'), // 05-08 00:00: the first instant of the range
        ev('$pageview', 'u3', '2023-05-09T22:30:00Z'), // 05-10 00:30
        ev('$pageview', 'u4', '2023-05-10T21:59:59Z'), // 05-10 23:59:59
        ev('$pageview', 'u5', '2023-05-10T22:00:01Z'), // 05-11 00:00:01
        ev('$pageview', 'u6', '2023-05-14T21:59:59Z'), // 05-14 23:59:59: the last second of the range
        ev('$pageview', 'u7', '2023-05-14T22:00:00Z'), // 05-15 00:00: after the range
        ev('$pageview', 'u8', '2023-05-04T10:00:00Z'), // 05-04 12:00
        ev('$pageview', 'u9', '2023-04-10T22:00:01Z'), // 04-11 00:00:01
        ev('$pageview', 'u10', '2023-04-10T21:59:00Z'), // 04-10 23:59
      ],
    });
  });
  beforeEach(() => freeze('2023-05-20T12:00:00Z'));

  const PV = { kind: 'EventsNode', event: '$pageview' };
  const trends = (q: Record<string, unknown> = {}) => ({ kind: 'TrendsQuery', series: [PV], dateRange: { date_from: '2023-05-08', date_to: '2023-05-14' }, ...q });
  const names = async (q: Record<string, unknown>, point: Record<string, unknown> = {}) => {
    const r = await actors({ source: { kind: 'InsightActorsQuery', source: trends(q), ...point }, select: ['properties.name'] }, P, TZ);
    return r.results.map((row: string[]) => row[0]).sort();
  };

  it('test_date_range: without a day, the whole range in the project timezone, both ends inclusive', async () => {
    expect(await names({})).toEqual(['u2', 'u3', 'u4', 'u5', 'u6']);
  });

  it('test_time_frame: a day is [day 00:00, next day 00:00) in the project timezone', async () => {
    expect(await names({}, { day: '2023-05-10' })).toEqual(['u3', 'u4']);
    expect(await names({}, { day: '2023-05-08' })).toEqual(['u2']);
    expect(await names({}, { day: '2023-05-11' })).toEqual(['u5']);
    expect(await names({}, { day: '2023-05-14' })).toEqual(['u6']);
  });

  it('test_date_range_total_value: a total-value display takes the whole range whatever the day', async () => {
    expect(await names({ trendsFilter: { display: 'ActionsPie' } }, { day: '2023-05-10' })).toEqual(['u2', 'u3', 'u4', 'u5', 'u6']);
  });

  it('hour interval: the day is the hour in the project timezone', async () => {
    expect(await names({ interval: 'hour' }, { day: '2023-05-10 00:00:00' })).toEqual(['u3']);
    expect(await names({ interval: 'hour' }, { day: '2023-05-10 23:00:00' })).toEqual(['u4']);
  });

  it('hour interval: each day option (the hour with the project offset) and each days entry names the hour of its data point', async () => {
    const q = { interval: 'hour', dateRange: { date_from: '2023-05-10', date_to: '2023-05-11' } };
    const t = await db.run(trendsRunner, trends(q), P, TZ);
    const o = await db.run(insightActorsOptionsRunner, { kind: 'InsightActorsQueryOptions', source: { kind: 'InsightActorsQuery', source: trends(q) } }, P, TZ);
    expect(o.day[0].value).toBe('2023-05-10T00:00:00+02:00');
    const line = t.results[0];
    expect(o.day).toHaveLength(line.days.length);
    for (const [i, day] of line.days.entries()) {
      if (!line.data[i]) continue;
      const want = line.data[i];
      expect([day, (await names(q, { day })).length]).toEqual([day, want]);
      expect([o.day[i].value, (await names(q, { day: o.day[i].value })).length]).toEqual([o.day[i].value, want]);
    }
    expect(await names(q, { day: o.day[23].value })).toEqual(['u4']);
  });

  it('test_date_range_compare_previous: the previous period is 2023-05-01 … 2023-05-07, its days as the previous series has them', async () => {
    const compare = { compareFilter: { compare: true } };
    expect(await names(compare, { compare: 'previous' })).toEqual(['u1', 'u8']);
    expect(await names(compare, { compare: 'previous', day: '2023-05-07' })).toEqual(['u1']);
    expect(await names(compare, { compare: 'previous', day: '2023-05-04' })).toEqual(['u8']);
    expect(await names(compare, { compare: 'current', day: '2023-05-10' })).toEqual(['u3', 'u4']);
  });

  it('test_date_range_weekly_active_users_math: a day looks back 6 days (05-04 … 05-10)', async () => {
    // (u1: active on 05-07, not for its 05-03 event)
    expect(await names({ series: [{ ...PV, math: 'weekly_active' }] }, { day: '2023-05-10' })).toEqual(['u1', 'u2', 'u3', 'u4', 'u8']);
    expect(await names({ series: [{ ...PV, math: 'weekly_active' }] }, { day: '2023-05-08' })).toEqual(['u1', 'u2', 'u8']);
    // the last day's window stops at the range's end (05-14 23:59:59.999999): u7, at 05-15 00:00, is out
    expect(await names({ series: [{ ...PV, math: 'weekly_active' }] }, { day: '2023-05-14' })).not.toContain('u7');
  });

  it('weekly active users with a total-value display: the last 7 days of the range, whatever the day', async () => {
    const q = { series: [{ ...PV, math: 'weekly_active' }], trendsFilter: { display: 'BoldNumber' } };
    expect(await names(q, { day: '2023-05-10' })).toEqual(['u2', 'u3', 'u4', 'u5', 'u6']);
    expect((await db.run(trendsRunner, trends(q), P, TZ)).results[0].aggregated_value).toBe(5);
  });

  it('weekly active users compared: a previous day looks back 6 days from it (04-27 … 05-03)', async () => {
    const q = { series: [{ ...PV, math: 'weekly_active' }], compareFilter: { compare: true } };
    expect(await names(q, { compare: 'previous', day: '2023-05-03' })).toEqual(['u1']);
    expect(await names(q, { compare: 'previous', day: '2023-05-04' })).toEqual(['u1', 'u8']);
  });

  it('test_date_range_monthly_active_users_math: a day looks back 29 days (04-11 … 05-10)', async () => {
    expect(await names({ series: [{ ...PV, math: 'monthly_active' }] }, { day: '2023-05-10' })).toEqual(['u1', 'u2', 'u3', 'u4', 'u8', 'u9']);
  });

  it('the actors of each point number its value: their events for total, themselves for dau/WAU/MAU (a month interval counts from the start of the month)', async () => {
    const total = async (q: Record<string, unknown>, day: string) => {
      const r = await actors({ source: { kind: 'InsightActorsQuery', source: trends(q), day }, select: ['actor_id', 'event_count'] }, P, TZ);
      const counted = (q.series as { math?: string }[] | undefined)?.[0]?.math;
      return counted ? r.results.length : r.results.reduce((n: number, row: number[]) => n + row[1], 0);
    };
    const queries = [{}, { interval: 'week' }, { interval: 'month' }, ...['dau', 'weekly_active', 'monthly_active'].map((math) => ({ series: [{ ...PV, math }] }))];
    for (const q of queries) {
      const t = await db.run(trendsRunner, trends(q), P, TZ);
      for (const [i, day] of t.results[0].days.entries()) expect([q, day, await total(q, day)]).toEqual([q, day, t.results[0].data[i]]);
    }
    expect((await db.run(trendsRunner, trends({ interval: 'month' }), P, TZ)).results[0].data).toEqual([8]);
  });
});

describe('first-time math actors (test_actors_query_runner.py test_actors_query_for_first_matching_event, test_trends_persons.py)', () => {
  const P = 209;
  beforeAll(async () => {
    await db.load(P, {
      persons: ['p1', 'p2', 'p3'].map((d) => ({ distinct_ids: [d], properties: { name: d } })),
      events: [
        // p1: Chrome first, then Safari twice; p2: Safari first; p3: Chrome only
        ev('$pageview', 'p1', '2020-01-01T12:00:00Z', { $browser: 'Chrome' }),
        ev('$pageview', 'p1', '2020-01-03T12:00:00Z', { $browser: 'Safari' }),
        ev('$pageview', 'p1', '2020-01-04T12:00:00Z', { $browser: 'Safari' }),
        ev('$pageview', 'p2', '2020-01-02T12:00:00Z', { $browser: 'Safari' }),
        ev('$pageview', 'p2', '2020-01-03T13:00:00Z', { $browser: 'Safari' }),
        ev('$pageview', 'p3', '2020-01-03T12:00:00Z', { $browser: 'Chrome' }),
      ],
    });
  });
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  const SAFARI = [{ type: 'event', key: '$browser', value: 'Safari', operator: 'exact' }];
  const series = (math: string) => [{ kind: 'EventsNode', event: '$pageview', math, properties: SAFARI }];
  const names = async (math: string, day?: string) => {
    const source = { kind: 'InsightActorsQuery', ...(day ? { day } : {}), source: { kind: 'TrendsQuery', series: series(math), dateRange: { date_from: '2020-01-01', date_to: '2020-01-05' } } };
    return (await actors({ source, select: ['properties.name'] }, P)).results.map((r: string[]) => r[0]).sort();
  };

  it.each<[string, string, string[]]>([
    // the actor's first event matching the series' filters
    ['first_matching_event_for_user', '2020-01-02', ['p2']],
    ['first_matching_event_for_user', '2020-01-03', ['p1']],
    ['first_matching_event_for_user', '2020-01-04', []],
    // the actor's first event of the series' event, counted only when it matches the filters: p1's was Chrome
    ['first_time_for_user', '2020-01-02', ['p2']],
    ['first_time_for_user', '2020-01-03', []],
  ])('%s on %s', async (math, day, want) => {
    expect(await names(math, day)).toEqual(want);
  });

  it('without a day: every actor counted once in the range', async () => {
    expect(await names('first_matching_event_for_user')).toEqual(['p1', 'p2']);
    expect(await names('first_time_for_user')).toEqual(['p2']);
  });

  it('the actors of each day number the insight’s value', async () => {
    for (const math of ['first_matching_event_for_user', 'first_time_for_user']) {
      const t = await db.run(trendsRunner, { kind: 'TrendsQuery', series: series(math), dateRange: { date_from: '2020-01-01', date_to: '2020-01-05' } }, P);
      for (const [i, day] of t.results[0].days.entries()) expect([math, day, (await names(math, day)).length]).toEqual([math, day, t.results[0].data[i]]);
    }
  });
});

describe('filterTestAccounts in the source: its actors leave out the test accounts, as the insight does', () => {
  const P = 210;
  const SETTINGS = { test_account_filters: [{ key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' }] };
  beforeAll(async () => {
    await db.load(P, {
      persons: [
        // (created at their first event: lifecycle's new)
        { distinct_ids: ['a'], properties: { name: 'a', email: 'a@posthog.com' }, created_at: '2020-01-02T12:00:00Z' },
        { distinct_ids: ['b'], properties: { name: 'b', email: 'b@example.com' }, created_at: '2020-01-02T12:00:00Z' },
        { distinct_ids: ['c'], properties: { name: 'c' }, created_at: '2020-01-02T12:00:00Z' },
      ],
      events: ['a', 'b', 'c'].flatMap((d) => [ev('$pageview', d, '2020-01-02T12:00:00Z'), ev('signup', d, '2020-01-02T13:00:00Z'), ev('$pageview', d, '2020-01-03T12:00:00Z')]),
    });
  });
  beforeEach(() => freeze('2020-01-10T12:00:00Z'));

  const PV = { kind: 'EventsNode', event: '$pageview' };
  const dateRange = { date_from: '2020-01-01', date_to: '2020-01-05' };
  const names = async (source: Record<string, unknown>) =>
    (await actors({ source, select: ['properties.name'] }, P, SETTINGS)).results.map((r: string[]) => r[0]).sort();

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['trends', { kind: 'TrendsQuery', series: [PV], dateRange }, { day: '2020-01-02' }],
    ['lifecycle', { kind: 'LifecycleQuery', series: [PV], dateRange }, { day: '2020-01-02', status: 'new' }],
    ['stickiness', { kind: 'StickinessQuery', series: [PV], dateRange }, { day: 2 }],
  ])('%s', async (_kind, source, point) => {
    expect(await names({ kind: 'InsightActorsQuery', source: { ...source, filterTestAccounts: true }, ...point })).toEqual(['b', 'c']);
    expect(await names({ kind: 'InsightActorsQuery', source: { ...source, filterTestAccounts: false }, ...point })).toEqual(['a', 'b', 'c']);
  });

  it('funnels (FunnelsActorsQuery)', async () => {
    const funnel = { kind: 'FunnelsQuery', series: [PV, { kind: 'EventsNode', event: 'signup' }], dateRange };
    expect(await names({ kind: 'FunnelsActorsQuery', source: { ...funnel, filterTestAccounts: true }, funnelStep: 2 })).toEqual(['b', 'c']);
    expect(await names({ kind: 'FunnelsActorsQuery', source: funnel, funnelStep: 2 })).toEqual(['a', 'b', 'c']);
  });

  it('retention (an interval’s cohort)', async () => {
    const retention = { kind: 'RetentionQuery', dateRange, retentionFilter: { totalIntervals: 3, period: 'Day' } };
    expect(await names({ kind: 'InsightActorsQuery', source: { ...retention, filterTestAccounts: true }, interval: 1 })).toEqual(['b', 'c']);
  });
});
