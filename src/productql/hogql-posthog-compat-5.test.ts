/**
 * Query-structure cases ported from PostHog's tests, after hogql-posthog-compat(-2,-3,-4).test.ts (which this does not
 * repeat): posthog/hogql/test/test_resolver.py (test_resolve_errors: no field of an outer query inside a subquery, no
 * alias defined twice), posthog/hogql/test/test_query.py (test_property_access_with_arrays, tuples IN a subquery,
 * UNION ALL limits) and the errors ClickHouse raises for aggregations or window functions in clauses evaluated per row
 * (ILLEGAL_AGGREGATION, which PostHog exposes as a 400), caught by the printer so both engines say the same.
 * Data through the real ingest path and runner, like PostHog's `_create_event`. hogql-posthog-compat-5.clickhouse.test.ts
 * runs this file on ClickHouse with the same expected results.
 */
import { ev, openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { shutdownParser } from './index';
import { testEngine } from '../engines/clickhouse/test-engine';

const RANDOM = 'RANDOM_TEST_ID::5';
const ALICE = '00000000-0000-4000-8000-0000000a11ce';
const BOB = '00000000-0000-4000-8000-000000000b0b';

let h: Harness;
let pid: number;
beforeAll(async () => {
  h = await openHarness();
  pid = await h.load({
    persons: [
      { id: ALICE, distinct_ids: ['alice', 'alice2'], properties: { email: 'alice@x.com' } },
      { id: BOB, distinct_ids: ['bob'], properties: { email: 'bob@x.com' } },
    ],
    events: [
      // test_query.py test_property_access_with_arrays: the same value behind every shape of nesting
      ev(RANDOM, 'big event', '2020-01-10T00:00:00Z', {
        string: RANDOM,
        array_str: [RANDOM],
        obj_array: [{ id: RANDOM }],
        array_array_str: [[RANDOM]],
        array_obj_array: [{ id: [{ id: RANDOM }] }],
        array_array_obj: [[{ id: RANDOM }]],
        array_array_obj_array: [[{ id: [{ id: RANDOM }] }]],
        obj: { id: RANDOM },
        obj_obj: { id: { id: RANDOM } },
        obj_array_obj: { id: [{ id: RANDOM }] },
      }),
      ev('alice', '$pageview', '2020-01-10T00:01:00Z', { $browser: 'Chrome', $session_id: 's-alice' }),
      ev('alice2', '$pageview', '2020-01-10T00:02:00Z', { $browser: 'Safari' }),
      ev('alice', 'signup', '2020-01-10T00:03:00Z', {}),
      ev('bob', '$pageview', '2020-01-10T00:04:00Z', { $browser: 'Chrome' }),
    ],
  });
  // another project with the same person id and distinct ids of its own: never visible from `pid`
  await h.load({ persons: [{ id: ALICE, distinct_ids: ['alice', 'mallory'], properties: { email: 'mallory@x.com' } }], events: [ev('mallory', 'x', '2020-01-10T00:00:00Z')] });
});
afterAll(async () => {
  await h.close();
  await shutdownParser();
});

const onClickHouse = testEngine() === 'clickhouse';
const hogql = (query: string) => h.run(productqlRunner, { kind: 'HogQLQuery', query }, pid);
const rows = async (query: string) => (await hogql(query)).results;
const fails = (query: string, message: string | RegExp) =>
  expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message: typeof message === 'string' ? message : expect.stringMatching(message) });

describe('test_query.py test_property_access_with_arrays', () => {
  const alternatives = [
    'properties.string',
    'properties.array_str.1',
    'properties.array_str[1]',
    'properties.obj_array.1.id',
    'properties.obj_array[1].id',
    "properties.obj_array[1]['id']",
    'properties.array_array_str.1.1',
    'properties.array_array_str[1][1]',
    'properties.array_obj_array.1.id.1.id',
    'properties.array_obj_array[1].id[1].id',
    'properties.array_array_obj.1.1.id',
    'properties.array_array_obj[1][1].id',
    'properties.array_array_obj_array.1.1.id.1.id',
    'properties.array_array_obj_array[1][1].id[1].id',
    'properties.obj.id',
    "properties.obj['id']",
    "properties['obj']['id']",
    'properties.obj_obj.id.id',
    "properties.obj_obj['id']['id']",
    'properties.obj_array_obj.id.1.id',
    'properties.obj_array_obj.id[1].id',
  ];

  it('every spelling of the nested path reads the string', async () => {
    if (onClickHouse) {
      // ClickHouse 18.16 has no JSON parser (visitParam* read object keys only): a clear 400, not a silent NULL.
      await fails(`SELECT properties.array_str[1] FROM events`, /^JSON array indexes in property paths .* are not available on this engine/);
      expect(await rows(`SELECT properties.obj.id, properties.obj_obj.id.id FROM events WHERE properties.string = '${RANDOM}'`)).toEqual([[RANDOM, RANDOM]]);
      return;
    }
    const r = await rows(`SELECT ${alternatives.join(', ')} FROM events WHERE properties.string = '${RANDOM}'`);
    expect(r).toEqual([alternatives.map(() => RANDOM)]);
  });

  (onClickHouse ? it.skip : it)('filters on nested array paths, and an index past the end reads NULL', async () => {
    expect(await rows(`SELECT count() FROM events WHERE properties.array_array_obj[1][1].id = '${RANDOM}' AND properties.obj_array.1.id = '${RANDOM}'`)).toEqual([[1]]);
    expect(await rows(`SELECT properties.array_str[2], properties.obj_array.2.id, properties.obj.nope FROM events WHERE properties.string = '${RANDOM}'`)).toEqual([[null, null, null]]);
  });
});

describe('test_resolver.py test_resolve_errors: a subquery sees no field of the query around it', () => {
  it.each([
    ["SELECT event, (select count() from events where event = x.event) as c FROM events x where event = '$pageview'", 'x'],
    ['SELECT x, (SELECT 1 AS x)', 'x'],
    ['SELECT x IN (SELECT 1 AS x)', 'x'],
    ['SELECT events.x FROM (SELECT event as x FROM events) AS t', 'events'],
    ['SELECT x.y FROM (SELECT event as y FROM events AS x) AS t', 'x'],
    ['SELECT 1 AS a, (SELECT a)', 'a'],
    ['SELECT event FROM events e WHERE e.distinct_id IN (SELECT distinct_id FROM person_distinct_ids WHERE person_id = e.person_id)', 'e'],
  ])('%s', async (query, name) => {
    await fails(query, `Unable to resolve field: ${name}`);
  });

  it('CTEs stay visible inside subqueries, column CTEs and subquery CTEs alike', async () => {
    expect(await rows('WITH 5 AS k SELECT (SELECT k + 1)')).toEqual([[6]]);
    expect(await rows("WITH pv AS (SELECT distinct_id FROM events WHERE event = '$pageview') SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM pv)")).toEqual([[4]]);
    // test_ctes_subquery_recursion: a CTE reading an earlier one
    expect(await rows("WITH users AS (SELECT event, timestamp as tt FROM events), final AS (SELECT tt FROM users) SELECT count() FROM final")).toEqual([[5]]);
  });

  it("a field of the SELECT's own tables comes before a column CTE of that name (visit_field: scope fields, then CTEs)", async () => {
    expect(await rows('WITH 1 AS x SELECT x FROM (SELECT 2 AS x)')).toEqual([[2]]);
    expect(await rows("WITH 'z' AS event SELECT event, k FROM events, (SELECT 1 AS k) AS t WHERE event = 'signup'")).toEqual([['signup', 1]]);
    expect(await rows("WITH 'z' AS zed SELECT zed, (SELECT zed) FROM events WHERE event = 'signup'")).toEqual([['z', 'z']]);
  });

  // ClickHouse 18.16 does not resolve a qualified column inside a lambda ("Unknown identifier"): DuckDB only.
  (onClickHouse ? it.skip : it)("lambda arguments and the row's columns stay visible inside the lambda body", async () => {
    expect(await rows("SELECT arrayMap(x -> concat(x, event), ['a']) FROM events WHERE event = 'signup'")).toEqual([[['asignup']]]);
  });
});

describe("test_resolver.py visit_alias: 'Cannot redefine an alias with the name'", () => {
  it.each([
    ['SELECT 1 AS x, 2 AS x', 'x'],
    ['SELECT event AS e, distinct_id AS e FROM events', 'e'],
    ['SELECT event AS e, e AS e FROM events', 'e'],
  ])('%s', async (query, name) => {
    await fails(query, `Cannot redefine an alias with the name: ${name}`);
  });

  it('one name per SELECT: the same alias in another SELECT of the query, or a column named like an alias, is fine', async () => {
    expect(await rows('SELECT 1 AS x UNION ALL SELECT 2 AS x')).toEqual([[1], [2]]);
    expect(await rows('SELECT x FROM (SELECT 1 AS x) WHERE x = (SELECT 1 AS x)')).toEqual([[1]]);
    expect(await rows("SELECT event AS timestamp, timestamp FROM events WHERE event = 'signup'")).toEqual([['signup', 'signup']]);
  });
});

describe('aggregations and window functions in clauses evaluated per row (ClickHouse ILLEGAL_AGGREGATION, a 400)', () => {
  it.each([
    ['SELECT count() FROM events WHERE count() > 1', "Aggregation 'count' cannot be used in WHERE: filter on aggregated values with HAVING."],
    ['SELECT 1 FROM events PREWHERE sum(1) > 0', "Aggregation 'sum' cannot be used in PREWHERE."],
    ['SELECT count() FROM events GROUP BY count()', "Aggregation 'count' cannot be used in GROUP BY."],
    // an alias is its expression
    ['SELECT count() AS c FROM events GROUP BY c', "Aggregation 'count' cannot be used in GROUP BY."],
    ['SELECT max(timestamp) AS m FROM events WHERE m > now()', "Aggregation 'max' cannot be used in WHERE: filter on aggregated values with HAVING."],
    ['SELECT 1 FROM events e JOIN persons p ON count() = 1', "Aggregation 'count' cannot be used in JOIN ON."],
    ['SELECT event FROM events WHERE row_number() OVER () > 1', "Window function 'row_number' cannot be used in WHERE: compute it in a subquery and filter its result."],
    ['SELECT event FROM events GROUP BY row_number() OVER ()', "Window function 'row_number' cannot be used in GROUP BY: compute it in a subquery and filter its result."],
    ['SELECT event, count() FROM events GROUP BY event HAVING sum(count()) OVER () > 1', "Window function 'sum' cannot be used in HAVING: compute it in a subquery and filter its result."],
    // ClickHouse: "Window function row_number() OVER () is found inside aggregate function"
    ['SELECT sum(row_number() OVER ()) FROM events', "Window function 'row_number' cannot be used inside aggregation 'sum': compute it in a subquery."],
  ])('%s', async (query, message) => {
    await fails(query, message);
  });

  it('an aggregation inside a window function, and count(*) OVER, are fine (ClickHouse 18.16 has no window functions: a 400)', async () => {
    const query = 'SELECT event, count(*) OVER (), sum(count()) OVER () FROM events GROUP BY event ORDER BY event';
    if (onClickHouse) return fails(query, /Window functions are not available/);
    expect(await rows(query)).toEqual([
      ['$pageview', 3, 5],
      ['big event', 3, 5],
      ['signup', 3, 5],
    ]);
    expect(await rows("SELECT count() FROM (SELECT row_number() OVER (ORDER BY timestamp) AS r FROM events) WHERE r > 2")).toEqual([[3]]);
  });

  it('aggregations stay fine in HAVING, ORDER BY, and in subqueries of WHERE and JOIN', async () => {
    expect(await rows('SELECT event, count() FROM events GROUP BY event HAVING count() > 1 ORDER BY count() DESC')).toEqual([['$pageview', 3]]);
    expect(await rows('SELECT count() FROM events WHERE event IN (SELECT event FROM events GROUP BY event HAVING count() > 1)')).toEqual([[3]]);
    expect(await rows('SELECT count() FROM events WHERE (SELECT count() FROM events) = 5')).toEqual([[5]]);
    expect(await rows('SELECT e.event, t.c FROM events e JOIN (SELECT event, count() AS c FROM events GROUP BY event) t ON t.event = e.event WHERE e.event = \'signup\'')).toEqual([['signup', 1]]);
  });
});

describe('tuples IN a subquery of several columns (test_query.py; ClickHouse compares the tuple with each row)', () => {
  it('(a, b) IN (SELECT x, y ...) matches rows equal in every column', async () => {
    expect(await rows("SELECT count() FROM events WHERE (event, distinct_id) IN (SELECT event, distinct_id FROM events WHERE distinct_id = 'alice')")).toEqual([[2]]);
    expect(await rows("SELECT count() FROM events WHERE (event, distinct_id) NOT IN (SELECT event, distinct_id FROM events WHERE distinct_id = 'alice')")).toEqual([[3]]);
    expect(await rows("SELECT count() FROM events WHERE tuple(event, properties.$browser) IN (SELECT '$pageview', 'Chrome')")).toEqual([[2]]);
    expect(await rows("SELECT (1, 'a') IN (SELECT 1, 'a'), (1, 'b') IN (SELECT 1, 'a')")).toEqual([[1, 0]]);
  });

  it('over a UNION ALL and through a person join', async () => {
    expect(
      await rows("SELECT count() FROM events WHERE (event, distinct_id) IN (SELECT '$pageview', 'bob' UNION ALL SELECT 'signup', 'alice')"),
    ).toEqual([[2]]);
    expect(await rows("SELECT count() FROM events WHERE (person_id, event) IN (SELECT id, 'signup' FROM persons WHERE properties.email = 'alice@x.com')")).toEqual([[1]]);
  });

  it('a different number of columns at left and right is a 400 (ClickHouse NUMBER_OF_COLUMNS_DOESNT_MATCH)', async () => {
    await fails('SELECT event IN (SELECT event, distinct_id FROM events) FROM events', "Number of columns in section IN doesn't match. 1 at left, 2 at right.");
    await fails("SELECT (1, 'a', 2) IN (SELECT 1, 'a')", "Number of columns in section IN doesn't match. 3 at left, 2 at right.");
  });
});

describe('test_query.py test_hogql_union_all_limits: the default LIMIT goes on each SELECT of a set', () => {
  it('each SELECT without a LIMIT gets 100, the response has no hasMore/limit/offset, and the hogql shows it', async () => {
    const r = await hogql('SELECT event FROM events UNION ALL SELECT event FROM events');
    expect(r.hogql).toBe('SELECT event FROM events LIMIT 100 UNION ALL SELECT event FROM events LIMIT 100');
    expect(r.results).toHaveLength(10);
    expect(r).not.toHaveProperty('hasMore');
    const big = await hogql('SELECT number FROM numbers(150) UNION ALL SELECT number FROM numbers(150)');
    expect(big.results).toHaveLength(200);
    expect(big).not.toHaveProperty('hasMore');
  });

  it("a SELECT's own LIMIT is kept (clamped to 50,000); a LIMIT on the whole set is the set's", async () => {
    const r = await hogql('SELECT number FROM numbers(150) LIMIT 3 UNION ALL SELECT number FROM numbers(150)');
    expect(r.results).toHaveLength(103);
    expect(r.hogql).toBe('SELECT number FROM numbers(150) LIMIT 3 UNION ALL SELECT number FROM numbers(150) LIMIT 100');
    expect(await rows('(SELECT number FROM numbers(150) UNION ALL SELECT number FROM numbers(150)) LIMIT 5')).toHaveLength(5);
    // UNION DISTINCT: rows in no particular order
    const distinct = (await hogql('SELECT 1 UNION ALL SELECT 2 UNION DISTINCT SELECT 2')).results as number[][];
    expect(distinct.sort((a, b) => a[0] - b[0])).toEqual([[1], [2]]);
  });
});

describe("test_resolver.py lookup_field_by_name: 'Ambiguous query. Found multiple sources for field'", () => {
  it.each([
    ['SELECT event FROM events e1 JOIN events e2 ON e1.uuid = e2.uuid', 'event'],
    ['SELECT properties FROM events e JOIN persons p ON p.id = e.person_id', 'properties'],
    ['SELECT x FROM (SELECT 1 AS x) t1 JOIN (SELECT 1 AS x) t2 ON t1.x = t2.x', 'x'],
  ])('%s', async (query, name) => {
    await fails(query, new RegExp(`^Ambiguous query. Found multiple sources for field: ${name}\\b`));
  });

  it('a qualified name picks one', async () => {
    expect(await rows("SELECT e1.event, e2.distinct_id FROM events e1 JOIN events e2 ON e1.uuid = e2.uuid WHERE e1.event = 'signup'")).toEqual([['signup', 'alice']]);
  });
});

describe('persons.pdi (reference §10: persons has `pdi`; PostHog persons_pdi is an INNER JOIN on person_id = id)', () => {
  it("reads a person once per distinct id of theirs, only the project's own", async () => {
    // the big event's distinct id got a person of its own at ingestion
    expect(await rows('SELECT properties.email, pdi.distinct_id, pdi.person_id = id FROM persons ORDER BY pdi.distinct_id')).toEqual([
      [null, RANDOM, 1],
      ['alice@x.com', 'alice', 1],
      ['alice@x.com', 'alice2', 1],
      ['bob@x.com', 'bob', 1],
    ]);
    expect(await rows("SELECT p.properties.email FROM persons p WHERE p.pdi.distinct_id = 'alice2'")).toEqual([['alice@x.com']]);
    expect(await rows("SELECT count() FROM persons WHERE pdi.distinct_id = 'mallory'")).toEqual([[0]]);
  });

  it('persons without pdi fields read one row per person', async () => {
    expect(await rows('SELECT count() FROM persons')).toEqual([[3]]);
  });

  it.each([
    ['SELECT pdi FROM persons', "Can't select a table when a column is expected: pdi"],
    ['SELECT pdi.version FROM persons', 'Field not found: version'],
    ['SELECT pdi.person.id FROM persons', 'Field not found: person'],
    ['SELECT pdi.distinct_id FROM raw_persons', 'Unable to resolve field: pdi'],
  ])('%s is a 400', async (query, message) => {
    await fails(query, message);
  });
});

describe('arrayJoin() in the select list of a grouped query (breakdowns by the elements of an array)', () => {
  it('groups, filters and orders by the alias of the elements', async () => {
    expect(await rows("SELECT arrayJoin(['a', 'b']) AS x, count() FROM events WHERE event = '$pageview' GROUP BY x ORDER BY x")).toEqual([
      ['a', 3],
      ['b', 3],
    ]);
    expect(
      await rows("SELECT event, arrayJoin(splitByChar(',', 'x,y')) AS part, count() AS c FROM events WHERE part != 'y' GROUP BY event, part ORDER BY c DESC, event"),
    ).toEqual([
      ['$pageview', 'x', 3],
      ['big event', 'x', 1],
      ['signup', 'x', 1],
    ]);
  });

  it('an empty array drops its row; a person join keeps working', async () => {
    expect(await rows("SELECT arrayJoin(arraySlice(['s'], 1, if(event = 'signup', 1, 0))) AS x, count() FROM events GROUP BY x")).toEqual([['s', 1]]);
    expect(await rows("SELECT arrayJoin([person.properties.email]) AS email, count() FROM events WHERE event = '$pageview' GROUP BY email ORDER BY email")).toEqual([
      ['alice@x.com', 2],
      ['bob@x.com', 1],
    ]);
  });
});

describe("sessions.id (PostHog's sessions tables: `id` duplicates `session_id`)", () => {
  it('reads the session id, from the sessions table and through events.session', async () => {
    expect(await rows('SELECT id, session_id FROM sessions')).toEqual([['s-alice', 's-alice']]);
    expect(await rows("SELECT session.id FROM events WHERE event = '$pageview' ORDER BY timestamp")).toEqual([['s-alice'], [null], [null]]);
    expect(await rows('SELECT count() FROM events e JOIN sessions s ON s.id = e.$session_id')).toEqual([[1]]);
  });
});

describe('GROUP BY ALL / ROLLUP / CUBE / GROUPING SETS (the parser reports them as group_by_mode; they were ignored)', () => {
  it('GROUP BY ALL groups by every select item without an aggregation', async () => {
    const r = await hogql("SELECT event, properties.$browser AS b, count() AS c, sum(1) + 1 FROM events WHERE event != 'big event' GROUP BY ALL ORDER BY event, b");
    expect(r.results).toEqual([
      ['$pageview', 'Chrome', 2, 3],
      ['$pageview', 'Safari', 1, 2],
      ['signup', null, 1, 2],
    ]);
    expect(r.hogql).toBe("SELECT event, properties.$browser AS b, count() AS c, plus(sum(1), 1) FROM events WHERE notEquals(event, 'big event') GROUP BY ALL ORDER BY event ASC, b ASC LIMIT 100");
    expect(await rows('SELECT count() FROM events GROUP BY ALL')).toEqual([[5]]);
    await fails('SELECT * FROM events GROUP BY ALL', 'GROUP BY ALL cannot be used with *: name the columns');
  });

  it('ROLLUP, CUBE and GROUPING SETS add the subtotal rows (DuckDB; ClickHouse 18.16 has none of them: a 400)', async () => {
    // A key left out of a subtotal row reads its type's default ('' for a String), as ClickHouse fills it without
    // group_by_use_nulls (which PostHog's settings leave off); ORDER BY sees that value too
    const rollup = "SELECT event, count() FROM events WHERE event != 'big event' GROUP BY ROLLUP(event) ORDER BY event";
    const sets = "SELECT event, count() FROM events WHERE event != 'big event' GROUP BY GROUPING SETS ((event), ()) ORDER BY event";
    const cube = "SELECT event, distinct_id, count() FROM events WHERE event = 'signup' GROUP BY CUBE(event, distinct_id) ORDER BY event, distinct_id";
    if (onClickHouse) {
      await fails(rollup, 'GROUP BY ROLLUP is not available on this engine');
      await fails(sets, 'GROUP BY GROUPING SETS is not available on this engine');
      await fails(cube, 'GROUP BY CUBE is not available on this engine');
      return;
    }
    const expected = [
      ['', 4],
      ['$pageview', 3],
      ['signup', 1],
    ];
    expect(await rows(rollup)).toEqual(expected);
    expect(await rows(sets)).toEqual(expected);
    expect(await rows(cube)).toEqual([
      ['', '', 1],
      ['', 'alice', 1],
      ['signup', '', 1],
      ['signup', 'alice', 1],
    ]);
    // a Nullable key (a property) reads NULL there, its type's default; NULLs sort last
    expect(await rows("SELECT properties.$browser AS b, count() FROM events WHERE event = '$pageview' GROUP BY ROLLUP(b) ORDER BY b")).toEqual([
      ['Chrome', 2],
      ['Safari', 1],
      [null, 3],
    ]);
    // a number key reads 0
    expect(await rows("SELECT length(event) AS l, count() FROM events WHERE event != 'big event' GROUP BY ROLLUP(l) ORDER BY l")).toEqual([
      [0, 4],
      [6, 1],
      [9, 3],
    ]);
    expect((await hogql(sets)).hogql).toBe("SELECT event, count() FROM events WHERE notEquals(event, 'big event') GROUP BY GROUPING SETS ((event), ()) ORDER BY event ASC LIMIT 100");
  });
});

describe('NULL in an IN list (PostHog runs HogQL with ClickHouse transform_null_in = 1: NULL matches NULL)', () => {
  // properties.nope: a NULL of the row
  it.each([
    ['properties.nope IN (NULL)', 1],
    ["properties.nope IN ('1', '2')", 0],
    ['1 IN (NULL)', 0],
    ['2 IN (1, NULL)', 0],
    ["properties.nope IN ('1', NULL)", 1],
    ["properties.nope NOT IN ('1')", 1],
    ["properties.nope NOT IN ('1', NULL)", 0],
    ['properties.nope NOT IN (NULL)', 0],
    ['1 NOT IN (1, NULL)', 0],
    ['2 NOT IN (1, NULL)', 1],
  ])('%s is %s', async (expr, expected) => {
    expect(await rows(`SELECT ${expr} FROM events WHERE event = 'signup'`)).toEqual([[expected]]);
  });

  it('a property without a value matches a NULL of the list; the column is named by PostHog\'s hogql print', async () => {
    const r = await hogql("SELECT event, properties.$browser IN ('Chrome', NULL) AS m FROM events WHERE event != 'big event' ORDER BY timestamp");
    expect(r.results).toEqual([
      ['$pageview', 1],
      ['$pageview', 0],
      ['signup', 1],
      ['$pageview', 1],
    ]);
    expect(await rows("SELECT count() FROM events WHERE properties.$browser NOT IN ('Safari', NULL)")).toEqual([[2]]);
    expect((await hogql('SELECT 1 IN (1, NULL)')).columns).toEqual(['in(1, tuple(1, NULL))']);
  });
});

describe('case-insensitive regular expressions (match with (?i), =~*, !~*)', () => {
  // ClickHouse 18.16's literal pre-check ignored (?i): match('Chrome', '(?i)chrome') was false there
  it.each([
    ["match(properties.$browser, '(?i)chrome')", 2],
    ["match(properties.$browser, '(?i)^chr')", 2],
    ["match(properties.$browser, '(?i)chrome|safari')", 3],
    ["properties.$browser =~* 'CHROME'", 2],
    ["properties.$browser !~* 'chrome'", 1],
    ["match(properties.$browser, 'chrome')", 0],
    ["match(properties.$browser, '(?i)fire')", 0],
  ])('%s matches %i events', async (cond, n) => {
    expect(await rows(`SELECT count() FROM events WHERE event = '$pageview' AND ${cond}`)).toEqual([[n]]);
  });
});
