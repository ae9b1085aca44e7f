import { createInsightTestDb, type InsightTestDb, useInsightsClock } from '../insights/testing';
import { eventsRunner } from './events-runner';
import { actorsRunner } from './actors-runner';
import { productqlRunner } from './productql-runner';
import { shutdownParser } from '../../productql/parser';

/**
 * PostHog's own cases for EventsQuery and ActorsQuery, recalled from posthog/api/test/test_query.py (the EventsQuery
 * ones), posthog/hogql_queries/test/test_events_query_runner.py, test_actors_query_runner.py and
 * posthog/hogql_queries/insights/test/test_insight_actors_query_runner.py; the test names are in the titles. Each
 * describe uses a project of its own (PostHog's tests each get a fresh team) and freezes the clock as the test does.
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

const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) => ({ event, distinct_id, timestamp, properties });
const events = (q: Record<string, unknown>, project: number, settings: Record<string, unknown> = {}) =>
  db.run(eventsRunner, { kind: 'EventsQuery', ...q }, project, settings);
const actors = (q: Record<string, unknown>, project: number, settings: Record<string, unknown> = {}) =>
  db.run(actorsRunner, { kind: 'ActorsQuery', ...q }, project, settings);

describe('EventsQuery (posthog/api/test/test_query.py)', () => {
  const P = 101;
  beforeAll(async () => {
    await db.load(P, {
      persons: [{ distinct_ids: ['2', 'some-random-uid'], properties: { email: 'tom@posthog.com' }, created_at: '2020-01-10T12:00:00Z' }],
      events: [
        ev('sign up', '2', '2020-01-10T12:00:00Z', { key: 'test_val1' }),
        ev('sign out', '2', '2020-01-10T12:11:00Z', { key: 'test_val2' }),
        ev('sign out', '3', '2020-01-10T12:12:00Z', { key: 'test_val2' }),
        ev('sign out', '4', '2020-01-10T12:13:00Z', { key: 'test_val3', path: 'a/b/c' }),
      ],
    });
  });
  beforeEach(() => freeze('2020-01-10T12:14:00Z'));

  it('test_select_hogql_expressions: columns, types, results in the first column order', async () => {
    const r = await events({ select: ['properties.key', 'event', 'distinct_id', "concat(event, ' ', properties.key)"] }, P);
    expect(r).toMatchObject({
      columns: ['properties.key', 'event', 'distinct_id', "concat(event, ' ', properties.key)"],
      hasMore: false,
      results: [
        ['test_val1', 'sign up', '2', 'sign up test_val1'],
        ['test_val2', 'sign out', '2', 'sign out test_val2'],
        ['test_val2', 'sign out', '3', 'sign out test_val2'],
        ['test_val3', 'sign out', '4', 'sign out test_val3'],
      ],
      types: ['Nullable(String)', 'String', 'String', 'String'],
    });
  });

  it('test_select_hogql_expressions: "*" is a Tuple typed dict, other columns as they are', async () => {
    const r = await events({ select: ['*', 'event'] }, P);
    expect(r.columns).toEqual(['*', 'event']);
    expect(r.types[0]).toContain('Tuple(');
    expect(r.types[1]).toBe('String');
    expect(r.results).toHaveLength(4);
    for (const [star, event] of r.results) {
      expect(star).toEqual(expect.objectContaining({ event, team_id: P }));
      expect(typeof event).toBe('string');
    }
  });

  it('test_select_hogql_expressions: count() groups by the other columns, count() DESC; orderBy overrides', async () => {
    const where = ["event == 'sign up' or like(properties.key, '%val2')"];
    const r = await events({ select: ['count()', 'event'], where }, P);
    expect(r).toMatchObject({ columns: ['count()', 'event'], hasMore: false, types: ['UInt64', 'String'], results: [[2, 'sign out'], [1, 'sign up']] });
    expect((await events({ select: ['count()', 'event'], where, orderBy: ['count() ASC'] }, P)).results).toEqual([
      [1, 'sign up'],
      [2, 'sign out'],
    ]);
    expect((await events({ select: ['event', 'count()'], where, orderBy: ['event ASC'] }, P)).results).toEqual([
      ['sign out', 2],
      ['sign up', 1],
    ]);
  });

  it('test_event_property_filter', async () => {
    const select = ['event', 'distinct_id', 'properties.key', "concat(event, ' ', properties.key)"];
    const one = await events({ select, properties: [{ type: 'event', key: 'key', value: 'test_val3', operator: 'exact' }] }, P);
    expect(one.results).toEqual([['sign out', '4', 'test_val3', 'sign out test_val3']]);
    const two = await events({ select, properties: [{ type: 'event', key: 'path', value: '/', operator: 'icontains' }] }, P);
    expect(two.results).toEqual([['sign out', '4', 'test_val3', 'sign out test_val3']]);
    expect((await events({ select, properties: [{ type: 'event', key: 'key', value: 'test_val2', operator: 'exact' }] }, P)).results).toHaveLength(2);
  });

  it("test_person_property_filter: a person's events, a constant with a % kept as given", async () => {
    const r = await events(
      {
        select: ['event', 'distinct_id', 'properties.key', "'a%sd'", "concat(event, ' ', properties.key)"],
        properties: [{ type: 'person', key: 'email', value: 'tom@posthog.com', operator: 'exact' }],
      },
      P,
    );
    expect(r.results).toEqual([
      ['sign out', '2', 'test_val2', 'a%sd', 'sign out test_val2'],
      ['sign up', '2', 'test_val1', 'a%sd', 'sign up test_val1'],
    ]);
  });

  it('test_property_filter_aggregations: a hogql filter that aggregates is HAVING', async () => {
    expect((await events({ select: ['properties.key', 'count()'] }, P)).results).toHaveLength(3);
    const r = await events({ select: ['properties.key', 'count()'], properties: [{ type: 'hogql', key: 'count() > 1' }] }, P);
    expect(r.results).toEqual([['test_val2', 2]]);
  });

  it('person.properties and the person column: the person of the distinct id, with created_at as PostHog renders it', async () => {
    const r = await events({ select: ['person.properties.email', 'count()'] }, P);
    expect(r.results.sort()).toEqual([
      [null, 2],
      ['tom@posthog.com', 2],
    ]);
    const p = await events({ select: ['person', 'event', 'timestamp'], where: ["distinct_id = '2'"] }, P);
    expect(p.results.map((row: unknown[]) => row[0])).toEqual([
      { uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), created_at: '2020-01-10T12:00:00Z', properties: { email: 'tom@posthog.com' }, distinct_id: '2' },
      { uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), created_at: '2020-01-10T12:00:00Z', properties: { email: 'tom@posthog.com' }, distinct_id: '2' },
    ]);
  });
});

describe('EventsQuery: the events table default columns (frontend defaultDataTableColumns)', () => {
  const P = 106;
  beforeAll(async () => {
    await db.load(P, {
      persons: [
        { distinct_ids: ['2'], properties: { email: 'tom@posthog.com', name: 'Tom' } },
        { distinct_ids: ['5'], properties: { name: 'Ann' } },
      ],
      events: [ev('sign up', '2', '2020-01-10T12:00:00Z', { $current_url: 'https://a.com', $lib: 'web' }), ev('$screen', '5', '2020-01-10T12:01:00Z', { $screen_name: 'Home', $lib: 'ios' })],
    });
  });
  beforeEach(() => freeze('2020-01-10T12:14:00Z'));

  it('person_display_name -- Person: {display_name, id}, the first display property set', async () => {
    const select = ['*', 'event', 'person_display_name -- Person', 'coalesce(properties.$current_url, properties.$screen_name) -- Url / Screen', 'properties.$lib', 'timestamp'];
    const r = await events({ select }, P);
    expect(r.columns).toEqual(select);
    expect(r.types[2]).toMatch(/^Tuple\(/);
    expect(r.results.map((row: any[]) => row.slice(1))).toEqual([
      ['$screen', { display_name: 'Ann', id: expect.stringMatching(/^[0-9a-f-]{36}$/) }, 'Home', 'ios', '2020-01-10T12:01:00Z'],
      ['sign up', { display_name: 'tom@posthog.com', id: expect.stringMatching(/^[0-9a-f-]{36}$/) }, 'https://a.com', 'web', '2020-01-10T12:00:00Z'],
    ]);
    expect(r.hogql).toContain('tuple(coalesce(toString(person.properties.email)');
    const people = await events({ select: ['person_display_name -- Person', 'count()'] }, P);
    expect(people.results.map((row: any[]) => [row[0].display_name, row[1]]).sort()).toEqual([
      ['Ann', 1],
      ['tom@posthog.com', 1],
    ]);
  });
});

describe('EventsQuery dates (test_query.py test_events_query_all_time_date)', () => {
  const P = 102;
  beforeAll(async () => {
    await db.load(P, {
      events: [ev('sign up', '2', '2020-01-10T12:00:00Z'), ev('sign up', '2', '2021-06-01T12:00:00Z'), ev('sign up', '2', '2022-12-01T12:00:00Z')],
    });
  });
  beforeEach(() => freeze('2023-01-12T12:14:00Z'));

  it.each<[Record<string, unknown>, string[]]>([
    [{}, []],
    [{ after: 'all' }, ['2022-12-01', '2021-06-01', '2020-01-10']],
    [{ after: '-1y' }, ['2022-12-01']],
    [{ after: 'all', before: '-1y' }, ['2021-06-01', '2020-01-10']],
    [{ after: '-4y', before: '2022-01-01' }, ['2021-06-01', '2020-01-10']],
    [{ after: '-2y', before: '2022-01-01' }, ['2021-06-01']],
    [{ after: '-30d' }, []],
    [{ after: '-6w' }, []],
    [{ after: '-7w' }, ['2022-12-01']],
    [{ after: '-2m' }, ['2022-12-01']],
  ])('%j', async (bounds, days) => {
    const r = await events({ select: ['event', 'timestamp'], ...bounds }, P);
    expect(r.results.map((row: string[]) => row[1].slice(0, 10))).toEqual(days);
  });
});

describe('EventsQuery runner (test_events_query_runner.py)', () => {
  const P = 103;
  beforeAll(async () => {
    await db.load(P, {
      persons: ['p_true', 'p_false', 'p_notset', 'p_null', 'p_big', 'p_one'].map((d) => ({ distinct_ids: [d], properties: { name: d } })),
      events: [
        ev('$pageview', 'p_true', '2020-01-11T12:00:01Z', { boolean_field: true }),
        ev('$pageview', 'p_false', '2020-01-11T12:00:02Z', { boolean_field: false }),
        ev('$pageview', 'p_notset', '2020-01-11T12:00:04Z', {}),
        ev('$pageview', 'p_null', '2020-01-11T12:00:04Z', { boolean_field: null, arr_field: ["I'm a string with a ' in it"], str_field: "I'm a string with a ' in it" }),
        ev('$pageview', 'p_one', '2020-01-11T12:00:14Z', { boolean_field: null, arr_field: ['I"m a string with a " in it'], str_field: 'I"m a string with a " in it' }),
        ev('$pageview', 'p_big', '2020-01-11T12:00:20Z', { bigInt: Number(2n ** 159n - 24n) }),
      ],
    });
  });
  beforeEach(() => freeze('2020-01-11T12:01:00Z'));

  const ids = async (q: Record<string, unknown>) => new Set((await events({ after: '-1d', select: ['*'], event: null, ...q }, P)).results.map((r: any[]) => r[0].distinct_id));

  it('test_is_not_set_boolean: a property set to null is not set', async () => {
    const r = await ids({ properties: [{ type: 'event', key: 'boolean_field', operator: 'is_not_set', value: 'is_not_set' }] });
    expect(r).toEqual(new Set(['p_notset', 'p_null', 'p_one', 'p_big']));
  });

  it('test_is_set_boolean: true and false are set', async () => {
    expect(await ids({ properties: [{ type: 'event', key: 'boolean_field', operator: 'is_set', value: 'is_set' }] })).toEqual(new Set(['p_true', 'p_false']));
  });

  it('boolean values compare as "true"/"false" (exact true)', async () => {
    expect(await ids({ properties: [{ type: 'event', key: 'boolean_field', operator: 'exact', value: ['true'] }] })).toEqual(new Set(['p_true']));
  });

  it('test_big_int: a huge integer property reads back as a float', async () => {
    const r = await events({ after: '-1d', select: ['*'], where: ["distinct_id = 'p_big'"] }, P);
    expect(r.results[0][0].properties.bigInt).toBe(2 ** 159);
  });

  it('test_escaped_single_quotes_in_where_clause', async () => {
    // the same strings compared as a plain property (PostHog's own where, over an array property, is the next case)
    const where = (s: string) => [`properties.str_field = ${s}`];
    const single = await events({ after: '-1d', select: ['*'], where: where("'I\\'m a string with a \\' in it'") }, P);
    expect(single.results.map((r: any[]) => r[0].distinct_id)).toEqual(['p_null']);
    const double = await events({ after: '-1d', select: ['*'], where: where("'I\"m a string with a \" in it'") }, P);
    expect(double.results.map((r: any[]) => r[0].distinct_id)).toEqual(['p_one']);
  });

  it("test_escaped_single_quotes_in_where_clause: PostHog's own where, has(JSONExtract(ifNull(properties.arr_field, '[]'), 'Array(String)'), …)", async () => {
    const where = (s: string) => [`has(JSONExtract(ifNull(properties.arr_field,'[]'),'Array(String)'), ${s})`];
    const single = await events({ after: '-1d', select: ['*'], where: where("'I\\'m a string with a \\' in it'") }, P);
    expect(single.results.map((r: any[]) => r[0].distinct_id)).toEqual(['p_null']);
    const double = await events({ after: '-1d', select: ['*'], where: where("'I\"m a string with a \" in it'") }, P);
    expect(double.results.map((r: any[]) => r[0].distinct_id)).toEqual(['p_one']);
    // the extracted arrays themselves: the strings unescaped; [] where the property is missing
    const arrays = await events({ after: '-1d', select: ['distinct_id', "JSONExtract(ifNull(properties.arr_field, '[]'), 'Array(String)')"], orderBy: ['distinct_id'] }, P);
    expect(arrays.results).toEqual([
      ['p_big', []],
      ['p_false', []],
      ['p_notset', []],
      ['p_null', ["I'm a string with a ' in it"]],
      ['p_one', ['I"m a string with a " in it']],
      ['p_true', []],
    ]);
  });

  it('the default order is timestamp DESC when timestamp is selected; limit/offset/hasMore page it', async () => {
    const page = (limit: number, offset = 0) => events({ after: '-1d', select: ['distinct_id', 'timestamp'], limit, offset }, P);
    const a = await page(2);
    expect([a.results.map((r: string[]) => r[0]), a.hasMore]).toEqual([['p_big', 'p_one'], true]);
    const b = await page(2, 4);
    expect([b.results.map((r: string[]) => r[0]), b.hasMore]).toEqual([['p_false', 'p_true'], false]);
  });
});

describe('ActorsQuery (test_actors_query_runner.py)', () => {
  const P = 104;
  const U = 'RANDOM_TEST_ID::0190a0a0';
  beforeAll(async () => {
    const persons = Array.from({ length: 10 }, (_, index) => ({
      distinct_ids: [`id-${U}-${index}`],
      properties: { email: `jacob${index}@${U}.posthog.com`, name: `Mr Jacob ${U}`, random_uuid: U, index },
      is_identified: true,
      created_at: '2021-01-01T12:00:00Z',
    }));
    await db.load(P, {
      persons,
      events: persons.flatMap((_, index) => [
        ev(`clicky-${index}`, `id-${U}-${index}`, '2021-01-01T12:00:00Z'),
        ev(`scroll-${index}`, `id-${U}-${index}`, '2021-01-01T12:00:00Z'),
      ]),
    });
  });
  beforeEach(() => freeze('2021-01-03T12:00:00Z'));

  it('test_default_persons_query: the default columns, actor objects with PostHog’s keys', async () => {
    const r = await actors({}, P);
    expect(r.columns).toEqual(['person', 'id', 'created_at', 'person.$delete']);
    expect(r.results).toHaveLength(10);
    const person = r.results[0][0];
    expect(new Set(Object.keys(person))).toEqual(new Set(['id', 'created_at', 'distinct_ids', 'properties', 'is_identified']));
    expect(person.properties.random_uuid).toBe(U);
    expect(person.distinct_ids.length).toBeGreaterThan(0);
    expect(person.is_identified).toBe(true);
    expect(r.results[0][1]).toBe(person.id);
    expect(r.types[0]).toBe('UUID');
  });

  it('test_persons_query_properties', async () => {
    const properties = [
      { type: 'person', key: 'random_uuid', value: U, operator: 'exact' },
      { type: 'person', key: 'index', value: '4', operator: 'gt' },
    ];
    expect((await actors({ properties }, P)).results).toHaveLength(5);
  });

  it('test_persons_query_fixed_properties', async () => {
    const fixedProperties = [
      { type: 'person', key: 'random_uuid', value: U, operator: 'exact' },
      { type: 'person', key: 'index', value: '2', operator: 'lt' },
    ];
    expect((await actors({ fixedProperties }, P)).results).toHaveLength(2);
  });

  it.each<[string, string, number]>([
    ['test_persons_query_search_email', `jacob4@${U}.posthog`, 1],
    ['test_persons_query_search_email (any case)', `JACOB4@${U}.posthog`, 1],
    ['test_persons_query_search_name', `Mr Jacob ${U}`, 10],
    ['test_persons_query_search_name (any case)', `MR JACOB ${U}`, 10],
    ['test_persons_query_search_distinct_id', `id-${U}-9`, 1],
  ])('%s', async (_name, search, n) => {
    expect((await actors({ search }, P)).results).toHaveLength(n);
  });

  it('test_persons_query_aggregation_select_having: an aggregate groups by the other columns', async () => {
    const r = await actors({ select: ['properties.name', 'count()'] }, P);
    expect(r.results).toEqual([[`Mr Jacob ${U}`, 10]]);
    expect(r.types[1]).toBe('UInt64');
    const filtered = await actors({ select: ['properties.name', 'count()'], properties: [{ type: 'person', key: 'index', value: '4', operator: 'gt' }] }, P);
    expect(filtered.results).toEqual([[`Mr Jacob ${U}`, 5]]);
  });

  it('test_persons_query_order_by', async () => {
    const r = await actors({ select: ['properties.email'], orderBy: ['properties.email DESC'] }, P);
    expect(r.results[0]).toEqual([`jacob9@${U}.posthog.com`]);
  });

  it('test_persons_query_order_by_with_aliases: the first column orders by default', async () => {
    const r = await actors({ select: ['properties.email as email'] }, P);
    expect(r.results[0]).toEqual([`jacob0@${U}.posthog.com`]);
  });

  it('test_persons_query_limit', async () => {
    const first = await actors({ select: ['properties.email'], orderBy: ['properties.email DESC'], limit: 1 }, P);
    expect([first.results, first.hasMore]).toEqual([[[`jacob9@${U}.posthog.com`]], true]);
    const third = await actors({ select: ['properties.email'], orderBy: ['properties.email DESC'], limit: 1, offset: 2 }, P);
    expect([third.results, third.hasMore]).toEqual([[[`jacob7@${U}.posthog.com`]], true]);
  });

  it('test_source_hogql_query', async () => {
    const source = { kind: 'HogQLQuery', query: "SELECT distinct person_id FROM events WHERE event='clicky-4'" };
    const r = await actors({ select: ['properties.email'], orderBy: ['properties.email DESC'], source }, P);
    expect(r.results).toEqual([[`jacob4@${U}.posthog.com`]]);
  });

  it('test_source_lifecycle_query', async () => {
    const source = {
      kind: 'LifecycleQuery',
      series: [{ kind: 'EventsNode', event: 'clicky-4' }],
      properties: [{ type: 'person', key: 'random_uuid', value: U, operator: 'exact' }],
      interval: 'day',
      dateRange: { date_from: '-7d' },
    };
    const r = await actors({ select: ['properties.email'], orderBy: ['properties.email DESC'], source: { kind: 'InsightActorsQuery', source } }, P);
    expect(r.results).toEqual([[`jacob4@${U}.posthog.com`]]);
  });

  it('an aggregate over the actors of a data point, and the actor column of grouped rows', async () => {
    const source = { kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', dateRange: { date_from: '-7d' }, series: [{ kind: 'EventsNode', event: null }] }, day: '2021-01-01' };
    expect((await actors({ select: ['count()'], source }, P)).results).toEqual([[10]]);
    const r = await actors({ select: ['person', 'count()'], source }, P);
    const rows = r.results.map((row: any[]) => [row[0].properties.email, row[0].distinct_ids, row[1]]).sort();
    expect(rows.slice(0, 2)).toEqual([
      [`jacob0@${U}.posthog.com`, [`id-${U}-0`], 1],
      [`jacob1@${U}.posthog.com`, [`id-${U}-1`], 1],
    ]);
    expect([rows.length, r.types]).toEqual([10, ['UUID', 'UInt64']]);
  });
});

describe('InsightActorsQuery (test_insight_actors_query_runner.py)', () => {
  const P = 105;
  const TZ = { timezone: 'US/Pacific' };
  const data: [string, string[], string | null][] = [
    ['p1', ['2020-01-11T12:00:00Z', '2020-01-12T12:00:00Z', '2020-01-13T12:00:00Z', '2020-01-15T12:00:00Z', '2020-01-17T12:00:00Z', '2020-01-19T12:00:00Z'], 'org:6'],
    ['p2', ['2020-01-09T12:00:00Z', '2020-01-12T12:00:00Z'], null],
    ['p3', ['2020-01-12T12:00:00Z'], 'org:7'],
    ['p4', ['2020-01-15T12:00:00Z'], 'org:7'],
  ];
  beforeAll(async () => {
    const group = (key: string, name: string, industry: string) =>
      ev('$groupidentify', 'p1', '2020-01-01T00:00:00Z', { $group_type: 'organization', $group_key: key, $group_set: { name, industry } });
    await db.load(P, {
      persons: data.map(([id]) => ({ distinct_ids: [id], properties: { name: id, ...(id === 'p1' ? { email: 'test@posthog.com' } : {}) } })),
      events: [
        group('org:5', 'Hedgebox Inc.', 'finance'),
        group('org:6', 'Hooli', 'technology'),
        group('org:7', 'Pied Piper', 'finance'),
        ...data.flatMap(([id, timestamps, org]) =>
          // p2's first event is org:5's only one
          timestamps.map((t, i) => ev('$pageview', id, t, id === 'p2' && i === 0 ? { $groups: { organization: 'org:5' } } : org ? { $groups: { organization: org } } : {})),
        ),
      ],
    });
  });
  beforeEach(() => freeze('2020-01-20T12:00:00Z'));

  const names = async (source: Record<string, unknown>, settings: Record<string, unknown> = TZ) =>
    (await actors({ select: ['properties.name'], source }, P, settings)).results;
  const dateRange = { date_from: '2020-01-09', date_to: '2020-01-19' };
  const PV = { kind: 'EventsNode', event: '$pageview' };

  it('test_insight_persons_lifecycle_query', async () => {
    const source = { kind: 'LifecycleQuery', dateRange, series: [{ ...PV, math: 'total' }] };
    expect(await names({ kind: 'InsightActorsQuery', day: '2020-01-12', status: 'returning', source })).toEqual([['p1']]);
  });

  it('test_insight_persons_lifecycle_query_week_monday / _sunday: the week start of the project', async () => {
    const source = { kind: 'LifecycleQuery', dateRange, interval: 'week', series: [PV] };
    expect(await names({ kind: 'InsightActorsQuery', day: '2020-01-13', status: 'returning', source }, { ...TZ, week_start_day: 1 })).toEqual([['p1']]);
    expect(await names({ kind: 'InsightActorsQuery', day: '2020-01-12', status: 'returning', source }, { ...TZ, week_start_day: 0 })).toEqual([['p1'], ['p2']]);
  });

  it('test_insight_persons_stickiness_query', async () => {
    expect(await names({ kind: 'InsightActorsQuery', day: 2, source: { kind: 'StickinessQuery', dateRange, series: [PV] } })).toEqual([['p2']]);
  });

  it('test_insight_persons_stickiness_groups_query', async () => {
    const source = { kind: 'StickinessQuery', dateRange, series: [{ ...PV, math: 'unique_group', math_group_type_index: 0 }] };
    expect(await names({ kind: 'InsightActorsQuery', day: 1, source })).toEqual([['Hedgebox Inc.']]);
  });

  it('test_insight_persons_trends_query', async () => {
    expect(await names({ kind: 'InsightActorsQuery', day: '2020-01-09', source: { kind: 'TrendsQuery', dateRange, series: [PV] } })).toEqual([['p2']]);
  });

  it('test_insight_persons_trends_groups_query: the group actor shape', async () => {
    const source = { kind: 'InsightActorsQuery', day: '2020-01-09', source: { kind: 'TrendsQuery', aggregation_group_type_index: 0, dateRange, series: [PV] } };
    expect(await names(source)).toEqual([['Hedgebox Inc.']]);
    const r = await actors({ source }, P, TZ);
    expect(r.columns).toEqual(['group']);
    expect(r.types).toEqual(['String']);
    expect(r.results).toEqual([
      [
        {
          id: 'org:5',
          type: 'group',
          properties: { name: 'Hedgebox Inc.', industry: 'finance' },
          group_key: 'org:5',
          group_type_index: 0,
          created_at: '2020-01-01T00:00:00Z',
          group_properties: { name: 'Hedgebox Inc.', industry: 'finance' },
        },
      ],
    ]);
  });

  it('test_insight_persons_funnels_query', async () => {
    const source = { kind: 'FunnelsQuery', dateRange: { date_from: '2020-01-01', date_to: '2020-01-19' }, series: [PV, PV] };
    expect(await names({ kind: 'FunnelsActorsQuery', funnelStep: 2, source })).toEqual([['p1'], ['p2']]);
  });

  // PostHog's tests ask these as a HogQL query over HogQLX query tags (`select * from (<ActorsQuery ...>...)`, the
  // dates as placeholders): the same actors
  const hogqlx = async (query: string, settings: Record<string, unknown> = TZ) =>
    (await db.run(productqlRunner, { kind: 'HogQLQuery', query, values: { date_from: '2020-01-09', date_to: '2020-01-19' } }, P, settings)).results;
  const tagged = (inner: string, source: string) => `
    select * from (
      <ActorsQuery select={['properties.name']}>
        ${inner.replace('/>', `>${source}</${inner.slice(1).split(' ')[0]}>`)}
      </ActorsQuery>
    )`;
  const DATES = 'dateRange={<DateRange date_from={date_from} date_to={date_to} />}';
  it.each<[string, string, string, unknown[][], Record<string, unknown>]>([
    ['test_insight_persons_lifecycle_query', "<InsightActorsQuery day='2020-01-12' status='returning' />", `<LifecycleQuery ${DATES} series={[<EventsNode event='$pageview' math='total' />]} />`, [['p1']], TZ],
    ['test_insight_persons_lifecycle_query_week_monday', "<InsightActorsQuery day='2020-01-13' status='returning' />", `<LifecycleQuery ${DATES} interval='week' series={[<EventsNode event='$pageview' />]} />`, [['p1']], { ...TZ, week_start_day: 1 }],
    ['test_insight_persons_lifecycle_query_week_sunday', "<InsightActorsQuery day='2020-01-12' status='returning' />", `<LifecycleQuery ${DATES} interval='week' series={[<EventsNode event='$pageview' />]} />`, [['p1'], ['p2']], { ...TZ, week_start_day: 0 }],
    ['test_insight_persons_stickiness_query', '<InsightActorsQuery day={2} />', `<StickinessQuery ${DATES} series={[<EventsNode event='$pageview' />]} />`, [['p2']], TZ],
    ['test_insight_persons_stickiness_groups_query', '<InsightActorsQuery day={1} />', `<StickinessQuery ${DATES} series={[<EventsNode event='$pageview' math='unique_group' math_group_type_index={0} />]} />`, [['Hedgebox Inc.']], TZ],
    ['test_insight_persons_trends_query', "<InsightActorsQuery day='2020-01-09' />", `<TrendsQuery ${DATES} series={[<EventsNode event='$pageview' />]} />`, [['p2']], TZ],
    ['test_insight_persons_trends_groups_query', "<InsightActorsQuery day='2020-01-09' />", `<TrendsQuery ${DATES} aggregation_group_type_index={0} series={[<EventsNode event='$pageview' />]} />`, [['Hedgebox Inc.']], TZ],
    ['test_insight_persons_funnels_query', '<FunnelsActorsQuery funnelStep={2} />', "<FunnelsQuery dateRange={<DateRange date_from='2020-01-01' date_to='2020-01-19' />} series={[<EventsNode event='$pageview' />, <EventsNode event='$pageview' />]} />", [['p1'], ['p2']], TZ],
  ])('%s, as PostHog asks it (HogQLX query tags in a HogQL query)', async (_n, inner, source, expected, settings) => {
    expect(await hogqlx(tagged(inner, source), settings)).toEqual(expected);
  });

  it('HogQLX query tags: an outer aggregate over the actors, {placeholders}, an empty answer, a bad node', async () => {
    const trends = (day: string) => tagged(`<InsightActorsQuery day='${day}' />`, `<TrendsQuery dateRange={<DateRange date_from={{date_from}} date_to={{date_to}} />} series={[<EventsNode event='$pageview' />]} />`);
    expect(await hogqlx(`select count(), groupArray(name) from (${trends('2020-01-12')})`)).toEqual([[3, ['p1', 'p2', 'p3']]]);
    expect(await hogqlx(trends('2020-01-10'))).toEqual([]);
    // property filters as tags: their type from the model's name
    const filtered = tagged(
      "<InsightActorsQuery day='2020-01-12' />",
      `<TrendsQuery ${DATES} series={[<EventsNode event='$pageview' />]} properties={[<PersonPropertyFilter key='name' value={['p1', 'p3']} operator='exact' />, <HogQLPropertyFilter key='1 = 1' />]} />`,
    );
    expect(await hogqlx(`select name from (${filtered}) order by name`)).toEqual([['p1'], ['p3']]);
    await expect(hogqlx("select * from (<ActorsQuery limit='x' />)")).rejects.toMatchObject({ status: 400, message: expect.stringContaining('<ActorsQuery>: limit') });
    // an answer is inlined as constants: at most 1,000 rows
    const rows = (n: number) => hogqlx(`select count() from (<HogQLQuery query='select number from numbers(${n}) limit ${n}' />)`);
    expect(await rows(1_000)).toEqual([[1_000]]);
    await expect(rows(1_001)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('<HogQLQuery> answered 1001 rows') });
  });

  it('HogQLX: an ActorsQuery tag’s actor column is the actor’s id (ActorsQueryRunner.to_query selects persons.id / groups.key; only its answer carries the object)', async () => {
    const trendsTag = (extra = '') =>
      `<InsightActorsQuery day='2020-01-09'><TrendsQuery ${DATES} ${extra} series={[<EventsNode event='$pageview' />]} /></InsightActorsQuery>`;
    const p2 = (await actors({ select: ['id'], search: 'p2' }, P, TZ)).results[0][0];
    expect(await hogqlx(`select * from (<ActorsQuery>${trendsTag()}</ActorsQuery>)`)).toEqual([[p2, p2, expect.any(String), 1]]);
    expect(await hogqlx(`select person = id from (<ActorsQuery select={['person', 'id']}>${trendsTag()}</ActorsQuery>)`)).toEqual([[1]]);
    expect(await hogqlx(`select * from (<ActorsQuery>${trendsTag('aggregation_group_type_index={0}')}</ActorsQuery>)`)).toEqual([['org:5']]);
  });

  it('trends breakdown, series and compare points (TrendsActorsQueryBuilder)', async () => {
    const trends = (extra: Record<string, unknown>) => ({ kind: 'TrendsQuery', dateRange, series: [PV, { ...PV, math: 'dau' }], ...extra });
    const byOrg = trends({ breakdownFilter: { breakdown_type: 'group', breakdown_group_type_index: 0, breakdown: 'industry' } });
    expect(await names({ kind: 'InsightActorsQuery', day: '2020-01-12', series: 1, breakdown: 'finance', source: byOrg })).toEqual([['p3']]);
    const compared = trends({ dateRange: { date_from: '2020-01-16', date_to: '2020-01-19' }, compareFilter: { compare: true } });
    expect(await names({ kind: 'InsightActorsQuery', day: '2020-01-12', compare: 'previous', source: compared })).toEqual([['p1'], ['p2'], ['p3']]);
  });

  it('includeRecordings is accepted: no recordings are kept, so matched_recordings lists none', async () => {
    const source = { kind: 'InsightActorsQuery', day: '2020-01-09', includeRecordings: true, source: { kind: 'TrendsQuery', dateRange, series: [PV] } };
    expect((await actors({ source, select: ['properties.name', 'matched_recordings'] }, P, TZ)).results).toEqual([['p2', []]]);
    const funnel = { kind: 'FunnelsActorsQuery', funnelStep: 2, includeRecordings: true, source: { kind: 'FunnelsQuery', dateRange, series: [PV, PV] } };
    expect((await actors({ source: funnel, select: ['properties.name', 'matched_recordings'] }, P, TZ)).results).toEqual([
      ['p1', []],
      ['p2', []],
    ]);
    expect((await actors({ source: { ...source, includeRecordings: false }, select: ['properties.name'] }, P, TZ)).results).toEqual([['p2']]);
  });

  it('matched_recordings without includeRecordings is a 400 (the source has no such column)', async () => {
    const source = { kind: 'InsightActorsQuery', day: '2020-01-09', source: { kind: 'TrendsQuery', dateRange, series: [PV] } };
    await expect(actors({ source, select: ['actor', 'matched_recordings'] }, P, TZ)).rejects.toMatchObject({ status: 400, attr: 'select__1' });
  });
});
