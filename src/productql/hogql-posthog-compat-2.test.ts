/**
 * More HogQLQuery scenarios ported from PostHog's tests, after hogql-posthog-compat.test.ts (which this does not
 * repeat): posthog/hogql/test/test_query.py (subqueries, the person joins in all their spellings, lambdas, arrays,
 * tuples, numbers(), window functions, CTE pivots) and the semantic cases of test_printer.py (errors for 0 indexes
 * and nested aggregations, HogQL-only functions). Data as PostHog's `_create_random_events`: one person `bla` with two
 * events, through the real ingest path and the real runner. ARRAY JOIN, SAMPLE and numbers() in depth are in
 * table-expressions.test.ts, IN COHORT in src/cohorts/productql-cohorts.test.ts.
 */
import { ev, openHarness, type Harness } from '../queries/funnels/testing';
import { productqlRunner } from '../queries/runners/productql-runner';
import { testEngine } from '../engines/clickhouse/test-engine';
import { compileProductQL, shapeResult, shutdownParser } from './index';

const PERSON = '00000000-0000-4000-8000-00000000c0de';
const RANDOM_UUID = 'RANDOM_TEST_ID::1';

let h: Harness;
let pid: number;
beforeAll(async () => {
  h = await openHarness();
  // test_query.py _create_random_events (frozen at 2020-01-10)
  pid = await h.load({
    persons: [{ id: PERSON, distinct_ids: ['bla'], properties: { sneaky_mail: 'tim@posthog.com', random_uuid: RANDOM_UUID } }],
    events: [0, 1].map((index) =>
      ev('bla', 'random event', `2020-01-10T00:0${index}:00Z`, { random_prop: "don't include", random_uuid: RANDOM_UUID, index }),
    ),
  });
});
afterAll(async () => {
  await h.close();
  await shutdownParser();
});

const hogql = (query: string) => h.run(productqlRunner, { kind: 'HogQLQuery', query }, pid);
const rows = async (query: string) => (await hogql(query)).results;
const T0 = '2020-01-10T00:00:00Z';
const T1 = '2020-01-10T00:01:00Z';

describe('test_query: queries and subqueries', () => {
  it('test_query: a grouped count', async () => {
    expect(await rows(`select count(), event from events where properties.random_uuid = '${RANDOM_UUID}' group by event`)).toEqual([[2, 'random event']]);
  });

  it.each([
    ['test_subquery', `SELECT count, event FROM (select count() as count, event from events where properties.random_uuid = '${RANDOM_UUID}' group by event) group by count, event`],
    ['test_subquery_alias', `SELECT count, event FROM (select count(*) as count, event from events where properties.random_uuid = '${RANDOM_UUID}' group by event) as c group by count, event`],
  ])('%s', async (_name, query) => {
    expect(await rows(query)).toEqual([[2, 'random event']]);
  });

  it('test_query_distinct: DISTINCT on persons', async () => {
    expect(await rows(`select distinct properties.sneaky_mail from persons where properties.random_uuid = '${RANDOM_UUID}'`)).toEqual([['tim@posthog.com']]);
  });

  it('test_query_person_distinct_ids', async () => {
    expect(await rows('select distinct person_id, distinct_id from person_distinct_ids')).toEqual([[PERSON, 'bla']]);
  });

  it('test_with_pivot_table_1_level: a CTE of grouped arrays', async () => {
    const q =
      'WITH PIVOT_TABLE_COL_ABC AS (SELECT distinct_id, groupArray(event) AS events, count() AS count FROM events GROUP BY distinct_id ORDER BY distinct_id ASC) ' +
      'SELECT distinct_id, events, count FROM PIVOT_TABLE_COL_ABC ORDER BY distinct_id ASC';
    expect(await rows(q)).toEqual([['bla', ['random event', 'random event'], 2]]);
  });
});

describe('test_query: persons through every join spelling', () => {
  it('test_query_joins_pdi: events joined to an argMax subquery of raw_person_distinct_ids', async () => {
    const q =
      'select event, timestamp, pdi.person_id from events e INNER JOIN (SELECT distinct_id, argMax(person_id, version) as person_id FROM raw_person_distinct_ids ' +
      'GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0) AS pdi ON e.distinct_id = pdi.distinct_id ORDER BY timestamp';
    expect(await rows(q)).toEqual([
      ['random event', T0, PERSON],
      ['random event', T1, PERSON],
    ]);
  });

  it.each([
    ['test_query_joins_events_pdi', 'select event, timestamp, pdi.distinct_id, pdi.person_id from events ORDER BY timestamp LIMIT 10', ['random event', T0, 'bla', PERSON]],
    ['test_query_joins_events_e_pdi', 'select event, e.timestamp, e.pdi.distinct_id, pdi.person_id from events e ORDER BY timestamp LIMIT 10', ['random event', T0, 'bla', PERSON]],
    ['test_query_joins_events_pdi_person', 'select event, timestamp, pdi.distinct_id, pdi.person.id from events ORDER BY timestamp LIMIT 10', ['random event', T0, 'bla', PERSON]],
    [
      'test_query_joins_events_pdi_person_properties',
      'select event, timestamp, pdi.distinct_id, pdi.person.properties.sneaky_mail from events ORDER BY timestamp LIMIT 10',
      ['random event', T0, 'bla', 'tim@posthog.com'],
    ],
    [
      'test_query_joins_events_pdi_e_person_properties',
      'select event, e.timestamp, pdi.distinct_id, e.pdi.person.properties.sneaky_mail from events e ORDER BY timestamp LIMIT 10',
      ['random event', T0, 'bla', 'tim@posthog.com'],
    ],
    ['test_query_joins_events_person_properties', 'select event, e.timestamp, e.pdi.person.properties.sneaky_mail from events e ORDER BY timestamp LIMIT 10', ['random event', T0, 'tim@posthog.com']],
  ])('%s', async (_name, query, first) => {
    const r = await rows(query);
    expect(r).toHaveLength(2);
    expect(r[0]).toEqual(first);
  });

  it('test_query_joins_pdi_persons: pdi.person from person_distinct_ids', async () => {
    const r = await rows('select pdi.distinct_id, pdi.person.id, pdi.person.properties.sneaky_mail from person_distinct_ids pdi LIMIT 10');
    expect(r).toEqual([['bla', PERSON, 'tim@posthog.com']]);
  });

  it.each([
    ['test_query_joins_events_person_properties_in_aggregration', 'select s.pdi.person.properties.sneaky_mail, count() from events s GROUP BY s.pdi.person.properties.sneaky_mail LIMIT 10'],
    ['test_select_person_on_events', 'select poe.properties.sneaky_mail, count() from events s GROUP BY poe.properties.sneaky_mail LIMIT 10'],
    ['person.properties in an aggregation', 'select person.properties.sneaky_mail, count() from events GROUP BY person.properties.sneaky_mail LIMIT 10'],
  ])('%s', async (_name, query) => {
    expect(await rows(query)).toEqual([['tim@posthog.com', 2]]);
  });
});

describe('test_query: arrays, tuples, lambdas, numbers', () => {
  it('test_hogql_lambdas', async () => {
    expect(await rows('SELECT arrayMap(x -> x * 2, [1, 2, 3]), 1')).toEqual([[[2, 4, 6], 1]]);
  });

  it('test_hogql_arrays: arrays index from 1', async () => {
    expect(await rows('SELECT [1, 2, 3], [10, 11, 12][1]')).toEqual([[[1, 2, 3], 10]]);
  });

  it('tuple access from 1', async () => {
    expect(await rows("SELECT tuple(1, 'a').2, (1, 2).1")).toEqual([['a', 1]]);
  });

  it('test_numbers: numbers(offset, count)', async () => {
    expect(await rows('SELECT number FROM numbers(1, 4)')).toEqual([[1], [2], [3], [4]]);
  });
});

describe('test_query: window functions', () => {
  const simple =
    'select distinct_id, timestamp, event, ' +
    'groupArray(event) OVER (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) AS two_before, ' +
    'groupArray(event) OVER (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) AS two_after ' +
    'from events order by distinct_id, timestamp';
  const named =
    'select distinct_id, timestamp, event, groupArray(event) OVER win1 AS two_before, groupArray(event) OVER win2 AS two_after from events ' +
    'WINDOW win1 AS (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING), ' +
    'win2 AS (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) order by distinct_id, timestamp';
  const expected = [
    ['bla', T0, 'random event', [], ['random event']],
    ['bla', T1, 'random event', ['random event'], []],
  ];

  it.each([
    ['test_window_functions_simple', simple],
    ['test_window_functions_with_window', named],
  ])('%s: groupArray over a frame (an empty frame is [])', async (_name, query) => {
    if (testEngine() === 'clickhouse') {
      // ClickHouse 18.16 has no window functions (README: known limits): a clear 400.
      await expect(hogql(query)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/Window functions are not available/) });
      return;
    }
    expect(await rows(query)).toEqual(expected);
  });
});

describe('test_printer: errors a user can act on', () => {
  it.each([
    ['SELECT properties.0 FROM events', 'SQL indexes start from one, not from zero. E.g: array[1]'],
    ['SELECT properties.id.0 FROM events', 'SQL indexes start from one, not from zero. E.g: array[1]'],
    ['SELECT array(1, 2, 3)[0]', 'SQL indexes start from one, not from zero. E.g: array[1]'],
    ['SELECT [1, 2, 3][0]', 'SQL indexes start from one, not from zero. E.g: array[1]'],
    ['SELECT avg(avg(properties.index)) FROM events', "Aggregation 'avg' cannot be nested inside another aggregation 'avg'."],
    ['SELECT sum(count()) FROM events', "Aggregation 'count' cannot be nested inside another aggregation 'sum'."],
  ])('%s', async (query, message) => {
    await expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message });
  });

  it('an aggregate of a subquery that aggregates is not a nested aggregation', async () => {
    expect(await rows('SELECT sum((SELECT count() FROM events)) FROM events')).toEqual([[4]]);
  });

  it.each([
    ['SELECT avg(bla) FROM events', 'Unable to resolve field: bla'],
    ['SELECT person.chipotle FROM events', 'Field not found: chipotle'],
    ['SELECT count(2, 4) FROM events', "Aggregation 'count' expects at most 1 argument, found 2"],
  ])('%s is a 400 naming what is wrong', async (query, message) => {
    await expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message });
  });
});

describe('test_printer.py test_expr_parse_errors / test_expr_syntax_errors: the texts PostHog asserts (assertIn)', () => {
  it.each([
    ['SELECT yeet.the.cloud FROM events', 'Unable to resolve field: yeet'],
    ['SELECT chipotle FROM events', 'Unable to resolve field: chipotle'],
    ['SELECT uniq() FROM events', "Aggregation 'uniq' expects at least 1 argument, found 0"],
    ['SELECT quantile()(event) FROM events', "Aggregation 'quantile' requires parameters in addition to arguments"],
    ['SELECT hamburger(event) FROM events', "Unsupported function call 'hamburger(...)'"],
    ['SELECT mad(event) FROM events', "Unsupported function call 'mad(...)'"],
    ['SELECT noway(event) FROM events', "Unsupported function call 'noway(...)'"],
    // posthog/hogql/escape_sql.py: an identifier printed to ClickHouse may not hold a %
    ['SELECT event AS `as%d` FROM events', 'The HogQL identifier "as%d" is not permitted as it contains the "%" character'],
    ['SELECT 1 FROM events AS `e%`', 'The HogQL identifier "e%" is not permitted as it contains the "%" character'],
    // the grammar parses a call of an expression (Hog programs); HogQL refuses it
    ['SELECT b.a(bla) FROM events', 'You can only call simple functions in HogQL, not expressions'],
  ])('%s', async (query, message) => {
    await expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message: expect.stringContaining(message) });
  });
});

describe('test_printer.py parametric_first_arg: arrayReduce names an aggregation', () => {
  it('test_can_call_parametric_function / _from_placeholder', async () => {
    expect(await rows("SELECT arrayReduce('sum', [1, 2, 3])")).toEqual([[6]]);
    expect((await h.run(productqlRunner, { kind: 'HogQLQuery', query: 'SELECT arrayReduce({f}, [1, 2, 3])', values: { f: 'sum' } }, pid)).results).toEqual([[6]]);
  });

  it.each([
    ['test_fails_on_parametric_function_with_no_arguments', 'SELECT arrayReduce()', "Missing arguments in function 'arrayReduce'"],
    ['test_fails_on_parametric_function_with_invalid_argument_function', "SELECT arrayReduce('blah', [1, 2, 3])", "Invalid parametric function in 'arrayReduce', 'blah' is not supported."],
  ])('%s', async (_name, query, message) => {
    await expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message });
  });
});

describe('test_resolver.py test_resolve_errors: correlated and out-of-scope names are "Unable to resolve field:"', () => {
  it.each([
    ["SELECT event, (select count() from events where event = x.event) as c FROM events x where event = '$pageview'", 'Unable to resolve field: x'],
    ['SELECT x, (SELECT 1 AS x)', 'Unable to resolve field: x'],
    ['SELECT x IN (SELECT 1 AS x)', 'Unable to resolve field: x'],
    ['SELECT events.x FROM (SELECT event as x FROM events) AS t', 'Unable to resolve field: events'],
    ['SELECT x.y FROM (SELECT event as y FROM events AS x) AS t', 'Unable to resolve field: x'],
  ])('%s', async (query, message) => {
    await expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message });
  });
});

describe('posthog/hogql/ast.py get_child: an unknown field of a table or of an aliased subquery', () => {
  it.each([
    // BaseTableType.get_child, through a table alias, a lazy join or a lazy table
    ['SELECT e.nope FROM events e', 'Field not found: nope'],
    ['SELECT events.nope FROM events', 'Field not found: nope'],
    ['SELECT p.nope FROM persons p', 'Field not found: nope'],
    ['SELECT pdi.nope FROM events', 'Field not found: nope'],
    ['SELECT person.nope.x FROM events', 'Field not found: nope'],
    ['SELECT session.nope FROM events', 'Field not found: nope'],
    ['SELECT s.nope FROM sessions s', 'Field not found: nope'],
    ['SELECT n.nope FROM numbers(3) n', 'Field not found: nope'],
    // SelectQueryAliasType.get_child (a CTE is a subquery under its name)
    ['SELECT t.x FROM (SELECT 1 AS a) t', 'Field x not found on query with alias t'],
    ['WITH c AS (SELECT 1 AS a) SELECT c.b FROM c', 'Field b not found on query with alias c'],
    // printer.py visit_field: a lazy join read as a value, named as written
    ['SELECT person FROM events', "Can't select a table when a column is expected: person"],
    ['SELECT e.pdi FROM events e', "Can't select a table when a column is expected: e.pdi"],
    ['SELECT pdi.person FROM events', "Can't select a table when a column is expected: pdi.person"],
  ])('%s', async (query, message) => {
    await expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message });
  });
});

describe('test_parser.py test_malformed_sql / test_reserved_keyword_alias_error: syntax errors with their span', () => {
  it.each([
    ['SELEC 2', "mismatched input 'SELEC' expecting {SELECT, WITH, '{', '(', '<'}", 0, 7],
    ['SELECT 0 AS trUE FROM events', '"trUE" cannot be an alias or identifier, as it\'s a reserved keyword', 7, 16],
  ])('%s', async (query, message, start, end) => {
    await expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_syntax_error', message, span: { start, end } });
  });
});

describe('test_printer: test_to_start_of_week_gets_mode', () => {
  const run = async (weekStartDay?: number) => {
    const query = "SELECT toStartOfWeek(toDate('2020-01-10')), toStartOfWeek(toDate('2020-01-10'), 0), toStartOfWeek(toDate('2020-01-10'), 1)";
    const compiled = await compileProductQL({ query, projectId: pid, timezone: 'UTC', dialect: h.engine.dialect, weekStartDay });
    const r = await h.engine.query(compiled.sql, compiled.params, { stages: compiled.stages });
    return shapeResult(r.rows, compiled).results;
  };

  it("toStartOfWeek(x) without a mode starts weeks on the project's first day (Sunday by default); a mode wins", async () => {
    expect(await run()).toEqual([['2020-01-05', '2020-01-05', '2020-01-06']]);
    expect(await run(0)).toEqual([['2020-01-05', '2020-01-05', '2020-01-06']]);
    expect(await run(1)).toEqual([['2020-01-06', '2020-01-05', '2020-01-06']]);
  });
});

describe('functions of posthog/hogql/functions/mapping.py', () => {
  it.each([
    ['max2(1, 2), min2(1, 2)', [2, 1]],
    ["trim(LEADING 'x' FROM 'xxaxx'), trim(TRAILING 'x' FROM 'xxaxx'), trim(BOTH 'x' FROM 'xxaxx')", ['axx', 'xxa', 'a']],
    ["trim(BOTH 'x]-' FROM ']x-a-x]')", ['a']],
    ["trim(BOTH '' FROM 'xax')", ['xax']],
  ])('select %s', async (exprs, expected) => {
    expect(await rows(`SELECT ${exprs}`)).toEqual([expected]);
  });
});

describe('test_query.py: JSON rendering', () => {
  it('test_json_undefined_constant_error: NaN and ±Infinity read null (PostHog renders with orjson)', async () => {
    expect(await rows('SELECT 1 / 0, -1 / 0, 0 / 0, 2.5')).toEqual([[null, null, null, 2.5]]);
  });
});
