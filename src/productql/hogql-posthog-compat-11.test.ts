/**
 * HogQL cases ported from PostHog, after hogql-posthog-compat(-2 .. -10).test.ts (which this does not repeat):
 * - posthog/hogql/test/test_resolver.py: `*` expansion (test_asterisk_expander_*: subqueries, unions, one table only,
 *   "Cannot use '*' ..." errors), a table alias joined twice ("Already have joined a table called ..."), test_ctes_loop,
 *   fields of an aliased table (the alias replaces the table name);
 * - posthog/hogql/test/test_printer.py: test_count_if_distinct, test_concat_pipes / test_nullish_concat (a datetime
 *   is written as toString writes it), test_alias_keywords, test_comparisons (IN a single value, `~`), CASE without
 *   ELSE, ARRAY JOIN without FROM;
 * - posthog/hogql/test/test_query.py: test_null_properties / test_nullish_coalescing (JSON null, missing keys, "0"
 *   and 0), and posthog/hogql_queries/test/test_hogql_query_runner.py `values` of any JSON type;
 * - HogQLX tags in expressions (test_parser.py test_hogqlx_*, resolver.py visit_hogqlx_tag / convert_to_hx): the tuple
 *   ('__hx_tag', kind, name, value, ...) the frontend renders; a tag where a table goes is a clear 400.
 * Data as PostHog's `_create_random_events` (one person `bla`), through the real ingest path and runner.
 * hogql-posthog-compat-11.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, hogqlTestProject } from '../queries/funnels/testing';
import { testEngine } from '../engines/clickhouse/test-engine';

const project = hogqlTestProject({
  persons: [
    { distinct_ids: ['bla'], properties: { sneaky_mail: 'tim@posthog.com', random_uuid: 'RANDOM_TEST_ID::11' } },
    { distinct_ids: ['p1'], properties: { name: 'Person 1' } },
  ],
  events: [
    ev('bla', 'random event', '2020-01-10T00:00:00Z', { random_prop: "don't include", random_uuid: 'RANDOM_TEST_ID::11', index: 0 }),
    ev('bla', 'random event', '2020-01-10T00:01:00Z', { random_prop: "don't include", random_uuid: 'RANDOM_TEST_ID::11', index: 1 }),
    // test_query.py test_null_properties
    ev('bla', 'empty event', '2020-01-10T00:02:00Z', { empty_string: '', null: null, str_zero: '0', num_zero: 0, random_uuid: 'RANDOM_TEST_ID::null' }),
    ev('p1', 'random bla', '2020-01-10T00:10:00Z', { character: 'Luigi' }),
  ],
});

const hogql = (query: string, timezone = 'UTC', extra: Record<string, unknown> = {}) => project.hogql(query, { timezone }, extra);
const rows = async (query: string, timezone = 'UTC') => (await hogql(query, timezone)).results;
const fails = (query: string, message: string, code = 'hogql_query_error') => expect(hogql(query)).rejects.toMatchObject({ status: 400, code, message });

describe('test_resolver.py test_asterisk_expander_*: * reads the columns of the one table of the SELECT', () => {
  it('test_asterisk_expander_subquery: * of a subquery is its columns, named as there', async () => {
    const r = await hogql('select * from (select 1 as a, 2 as b)');
    expect(r.results).toEqual([[1, 2]]);
    expect(r.columns).toEqual(['a', 'b']);
  });

  it('test_asterisk_expander_subquery_alias: x.* of an aliased subquery', async () => {
    const r = await hogql('select x.* from (select 1 as a, 2 as b) x');
    expect(r.results).toEqual([[1, 2]]);
    expect(r.columns).toEqual(['a', 'b']);
  });

  it('test_asterisk_expander_from_subquery_table: * of (select * from events) has the columns of events', async () => {
    const direct = await hogql('select * from events order by timestamp');
    const nested = await hogql('select * from (select * from events) order by timestamp');
    expect(nested.columns).toEqual(direct.columns);
    expect(nested.results).toEqual(direct.results);
    expect(nested.results).toHaveLength(4);
  });

  it('test_asterisk_expander_select_union: * over a UNION ALL of two SELECT * from events', async () => {
    const direct = await hogql('select * from events');
    const union = await hogql('select * from (select * from events union all select * from events)');
    expect(union.columns).toEqual(direct.columns);
    expect(union.results).toHaveLength(8);
  });

  it.each([
    ['select * from (select 1 as a, 2 as b) x left join (select 1 as a, 2 as b) y on x.a = y.a'],
    ['select * from events e1, events e2'],
    ['select * from events e join persons p on p.id = e.person_id'],
  ])("test_asterisk_expander_multiple_table_error: %s is \"Cannot use '*' without table name ...\"", async (query) => {
    await fails(query, "Cannot use '*' without table name when there are multiple tables in the query");
  });

  it("without a FROM: \"Cannot use '*' when there are no tables in the query\"", async () => {
    await fails('select *', "Cannot use '*' when there are no tables in the query");
  });

  it('a qualified * picks one table of a join', async () => {
    const r = await hogql('select y.* from (select 1 as a, 2 as b) x left join (select 1 as a, 3 as c) y on x.a = y.a');
    expect(r.results).toEqual([[1, 3]]);
    expect(r.columns).toEqual(['a', 'c']);
  });

  it('ARRAY JOIN aliases are no table: * reads the columns of the table, once per element', async () => {
    const r = await hogql('select * from (select 1 as a, 2 as b) array join [1, 2] as c');
    expect(r.results).toEqual([
      [1, 2],
      [1, 2],
    ]);
    expect(r.columns).toEqual(['a', 'b']);
  });
});

describe("test_resolver.py visit_join_expr: 'Already have joined a table called \"x\". Can't redefine.'", () => {
  it.each([
    ['select 1 from events e join events e on e.uuid = e.uuid', 'e'],
    ['select 1 from events join events on events.uuid = events.uuid', 'events'],
    ['select 1 from (select 1 as a) t join (select 1 as a) t on t.a = t.a', 't'],
    ['with a as (select 1 as x) select a.x from a, a', 'a'],
  ])('%s', async (query, name) => {
    await fails(query, `Already have joined a table called "${name}". Can't redefine.`);
  });

  it('the same table under two aliases is fine', async () => {
    expect(await rows('select count() from events e1 join events e2 on e1.uuid = e2.uuid')).toEqual([[4]]);
  });
});

describe('test_resolver.py test_ctes_loop', () => {
  it.each([
    ['with cte as (select * from cte) select * from cte'],
    ['with cte as (select event from cte) select count() from events where event in (select event from cte)'],
  ])("%s: 'Too many CTE expansions (50+). Probably a CTE loop.'", async (query) => {
    await fails(query, 'Too many CTE expansions (50+). Probably a CTE loop.');
  });

  it('a CTE read twice in one query is no loop', async () => {
    expect(await rows('with cte as (select event from events) select count() from cte c1 join cte c2 on c1.event = c2.event')).toEqual([[6]]);
  });
});

describe('test_resolver.py test_resolve_events_table_alias: the alias replaces the table name', () => {
  it('e.event reads the events aliased e; events.event is no field there', async () => {
    expect(await rows("select e.event, e.properties.character from events e where e.event = 'random bla'")).toEqual([['random bla', 'Luigi']]);
    await fails('select events.event from events e', 'Unable to resolve field: events');
  });

  it('test_resolve_events_table_column_alias_inside_subquery: the columns of an aliased subquery through its alias', async () => {
    expect(await rows("select b, e.c from (select event as b, timestamp as c from events) e where e.b = 'random bla'")).toEqual([['random bla', '2020-01-10T00:10:00Z']]);
  });
});

describe('test_printer.py test_count_if_distinct: countIf(DISTINCT x, cond) counts the distinct x where cond holds', () => {
  it('over all events, beside count(DISTINCT x) and countIf(cond)', async () => {
    expect(await rows("select countIf(distinct event, event like 'random%'), count(distinct event), countIf(event like 'random%') from events")).toEqual([[2, 3, 3]]);
  });

  it('per group; NULL values are not counted', async () => {
    expect(await rows("select distinct_id, countIf(distinct properties.random_uuid, event != 'random bla') from events group by distinct_id order by distinct_id")).toEqual([
      ['bla', 2],
      ['p1', 0],
    ]);
  });
});

describe("test_printer.py test_concat_pipes / test_nullish_concat: concat and || write a datetime as toString does", () => {
  it("'a' || NULL || 3 || timestamp: the DateTime64(6) with six decimals, NULL as ''", async () => {
    expect(await rows("select 'a' || NULL || 3 || timestamp from events order by timestamp limit 1")).toEqual([['a32020-01-10 00:00:00.000000']]);
  });

  it('a DateTime (toStartOfDay) without a fraction, a Date as the day; the same text as toString', async () => {
    expect(await rows("select concat(timestamp, '|', toStartOfDay(timestamp), '|', toDate(timestamp)), concat(timestamp) = toString(timestamp) from events order by timestamp limit 1")).toEqual([
      ['2020-01-10 00:00:00.000000|2020-01-10 00:00:00|2020-01-10', 1],
    ]);
  });

  it('in the project timezone', async () => {
    expect(await rows("select concat('t=', timestamp), concat('h=', toStartOfHour(timestamp)) from events order by timestamp limit 1", 'America/New_York')).toEqual([
      ['t=2020-01-09 19:00:00.000000', 'h=2020-01-09 19:00:00'],
    ]);
  });

  it('per row, beside a property some events lack', async () => {
    expect(await rows("select concat(properties.random_uuid, ':', timestamp) from events order by timestamp")).toEqual([
      ['RANDOM_TEST_ID::11:2020-01-10 00:00:00.000000'],
      ['RANDOM_TEST_ID::11:2020-01-10 00:01:00.000000'],
      ['RANDOM_TEST_ID::null:2020-01-10 00:02:00.000000'],
      [':2020-01-10 00:10:00.000000'],
    ]);
  });
});

describe('test_printer.py test_concat_pipes: concat takes toString of every argument that is no string', () => {
  it('arrays, tuples, Bool and comparison values, UUIDs, dates', async () => {
    expect(
      await rows("select concat('a', [1, 2]), concat('a', (1, 'x')), concat('a', true), concat('a', 1 = 1), concat(1, 2.5), 'u:' || toUUID('00000000-0000-0000-0000-000000000001'), concat('d:', toDate('2020-01-02'))"),
    ).toEqual([['a[1,2]', "a(1,'x')", 'atrue', 'a1', '12.5', 'u:00000000-0000-0000-0000-000000000001', 'd:2020-01-02']]);
  });

  it('an interval as the count of its unit, as toString writes it', async () => {
    expect(await rows("select concat('a', toIntervalDay(2)), toString(toIntervalMonth(14)), toString(toIntervalQuarter(2)), toString(INTERVAL 90 minute), toString(toIntervalWeek(3))")).toEqual([
      ['a2', '14', '2', '90', '3'],
    ]);
  });
});

describe('test_printer.py test_case_when: CASE without ELSE is NULL where no branch holds, typed Nullable once', () => {
  it('a constant', async () => {
    const r = await hogql("select CASE WHEN 1 > 2 THEN 'a' END AS c, toTypeName(CASE WHEN 1 > 2 THEN 'a' END) AS t");
    expect(r.results).toEqual([[null, 'Nullable(String)']]);
    expect(r.types).toEqual([
      ['c', 'Nullable(String)'],
      ['t', 'String'],
    ]);
  });

  it('per row', async () => {
    const r = await hogql("select CASE WHEN event = 'random bla' THEN 'bla' END AS c from events order by timestamp");
    expect(r.results).toEqual([[null], [null], [null], ['bla']]);
    expect(r.types).toEqual([['c', 'Nullable(String)']]);
  });
});

describe('test_query.py test_null_properties / test_nullish_coalescing', () => {
  it('"" reads \'\' (not NULL), a JSON null and a missing key read NULL; "0" and 0 read "0"', async () => {
    expect(
      await rows(
        "SELECT properties.empty_string, properties.`null`, properties.undefined, properties.str_zero, properties.num_zero FROM events WHERE properties.random_uuid = 'RANDOM_TEST_ID::null'",
      ),
    ).toEqual([['', null, null, '0', '0']]);
  });

  it('?? takes the default for NULL only', async () => {
    expect(
      await rows(
        "SELECT properties.empty_string ?? 'empty_string', properties.`null` ?? 'null', properties.undefined ?? 'undefined', properties.str_zero ?? 'str_zero', properties.num_zero ?? 'num_zero' FROM events WHERE properties.random_uuid = 'RANDOM_TEST_ID::null'",
      ),
    ).toEqual([['', 'null', 'undefined', '0', '0']]);
  });
});

describe('test_printer.py test_comparisons: IN a single value, ~ as =~', () => {
  it("event in 'E' / event not in 'E'", async () => {
    expect(await rows("select event from events where event in 'random bla'")).toEqual([['random bla']]);
    expect(await rows("select count() from events where event not in 'random bla'")).toEqual([[3]]);
  });

  it("event ~ 'E' matches the regular expression", async () => {
    expect(await rows("select event from events where event ~ 'bla$'")).toEqual([['random bla']]);
  });
});

describe('test_printer.py test_alias_keywords', () => {
  it.each([
    ['select 1 as team_id', 'team_id'],
    ['select event as team_id from events', 'team_id'],
    ['select 1 as true', 'true'],
  ])("%s: '\"%s\" cannot be an alias or identifier, as it's a reserved keyword'", async (query, name) => {
    await expect(hogql(query)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining(`"${name}" cannot be an alias or identifier, as it's a reserved keyword`),
    });
  });

  it('backquoted aliases that look like SQL are only names', async () => {
    const r = await hogql('select 1 as `-- select team_id`, 2 as `SELECT`, 3 as `0x0`');
    expect(r.results).toEqual([[1, 2, 3]]);
    expect(r.columns).toEqual(['-- select team_id', 'SELECT', '0x0']);
  });
});

describe('test_printer.py: ARRAY JOIN needs a FROM clause', () => {
  it("'Using ARRAY JOIN without a FROM clause is not permitted'", async () => {
    await expect(hogql('select a array join [1, 2, 3] as a')).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Using ARRAY JOIN without a FROM clause is not permitted'),
    });
  });
});

describe('test_hogql_query_runner.py test_hogql_query_values: {name} takes a value of any JSON type', () => {
  it('an array, a string and null', async () => {
    const r = await hogql('select {x}, {y}, {z}', 'UTC', { values: { x: [1, 2], y: 's', z: null } });
    expect(r.results).toEqual([[[1, 2], 's', null]]);
  });

  it('in WHERE', async () => {
    const r = await hogql('select event from events where event = {e} order by timestamp', 'UTC', { values: { e: 'random bla' } });
    expect(r.results).toEqual([['random bla']]);
  });
});

describe('test_printer.py test_arrays: arrayElement(arr, i) is arr[i], typed as the elements are', () => {
  it('constants: the element, the type default out of bounds, and the element type', async () => {
    const r = await hogql("select arrayElement([1, 2, 3], 2) AS a, arrayElement([1, 2, 3], 5) AS b, arrayElement(['x', 'y'], -1) AS c, toTypeName(arrayElement([1, 2, 3], 2)) AS t");
    expect(r.results).toEqual([[2, 0, 'y', 'UInt8']]);
    expect(r.types).toEqual([
      ['a', 'UInt8'],
      ['b', 'UInt8'],
      ['c', 'String'],
      ['t', 'String'],
    ]);
  });

  it('per row, as arr[i]', async () => {
    expect(await rows("select arrayElement(splitByChar(' ', event), 2), splitByChar(' ', event)[2] from events where event != 'random event' order by timestamp")).toEqual([
      ['event', 'event'],
      ['bla', 'bla'],
    ]);
  });
});

describe("test_printer.py test_intervals: an interval is read as ClickHouse returns it, the count of its unit, typed Interval<Unit>", () => {
  it("toIntervalX(n), INTERVAL n UNIT and INTERVAL 'n units'", async () => {
    const r = await hogql("select INTERVAL 5 DAY AS d, INTERVAL '2 hours' AS h, toIntervalMinute(90) AS m, toIntervalWeek(2) AS w, toIntervalMonth(3) AS mo, toIntervalYear(1) AS y");
    expect(r.results).toEqual([[5, 2, 90, 2, 3, 1]]);
    expect(r.types).toEqual([
      ['d', 'IntervalDay'],
      ['h', 'IntervalHour'],
      ['m', 'IntervalMinute'],
      ['w', 'IntervalWeek'],
      ['mo', 'IntervalMonth'],
      ['y', 'IntervalYear'],
    ]);
  });

  it('through a subquery it keeps its unit, in a value and in datetime arithmetic', async () => {
    const r = await hogql('select x, timestamp + x from (select toIntervalDay(3) as x, timestamp from events) order by timestamp limit 1');
    expect(r.results).toEqual([[3, '2020-01-13T00:00:00Z']]);
    expect(r.types[0]).toEqual(['x', 'IntervalDay']);
  });
});

describe('test_query.py dates in the project timezone: a half-hour offset (Asia/Kolkata, UTC+05:30)', () => {
  it('starts of periods, parts and text of the local time; toUnixTimestamp is the instant', async () => {
    const r = await hogql(
      "select toStartOfWeek(timestamp), toStartOfHour(timestamp), toStartOfFifteenMinutes(timestamp), toHour(timestamp), toMinute(timestamp), formatDateTime(timestamp, '%Y-%m-%d %H:%i'), toUnixTimestamp(timestamp) AS u from events order by timestamp limit 1",
      'Asia/Kolkata',
    );
    expect(r.results).toEqual([['2020-01-05', '2020-01-10T05:00:00+05:30', '2020-01-10T05:30:00+05:30', 5, 30, '2020-01-10 05:30', 1578614400]]);
  });

  it('string datetimes compared with timestamp are local times', async () => {
    expect(await rows("select timestamp > '2020-01-10 05:31:00', timestamp = toDateTime('2020-01-10 05:30:00') from events order by timestamp limit 1", 'Asia/Kolkata')).toEqual([[0, 1]]);
  });
});

describe('GROUP BY ... WITH ROLLUP / WITH TOTALS: the parser (PostHog’s, the same grammar) drops the modifier', () => {
  it.each([['with rollup'], ['with totals']])('group by event %s reads the groups only', async (modifier) => {
    expect(await rows(`select event, count() from events group by event ${modifier} order by event`)).toEqual([
      ['empty event', 1],
      ['random bla', 1],
      ['random event', 2],
    ]);
  });
});

describe('test_printer.py LIMIT / OFFSET of an expression: PostHog prints it (clamped with min2), ClickHouse folds it', () => {
  it('limit 1 + 1, offset 1 * 2', async () => {
    expect(await rows('select event from events order by timestamp limit 1 + 1')).toEqual([['random event'], ['random event']]);
    expect(await rows('select event from events order by timestamp limit 2 offset 1 * 2')).toEqual([['empty event'], ['random bla']]);
  });

  it('of a {value}', async () => {
    const r = await hogql('select event from events order by timestamp limit {n} - 1', 'UTC', { values: { n: 2 } });
    expect(r.results).toEqual([['random event']]);
  });
});

describe('posthog/hogql/placeholders.py and query.py: a {placeholder} without a value', () => {
  it('with other values: "Placeholder {x} is not available in this context. You can use the following: ..."', async () => {
    await expect(hogql('select {foo}', 'UTC', { values: { bar: 1 } })).rejects.toMatchObject({
      status: 400,
      message: 'Placeholder {foo} is not available in this context. You can use the following: bar',
    });
  });

  it('without values: "Query contains placeholders, but none were provided. Placeholders in query: x"', async () => {
    await expect(hogql('select {foo}')).rejects.toMatchObject({
      status: 400,
      message: 'Query contains placeholders, but none were provided. Placeholders in query: foo',
    });
  });
});

describe('test_resolver.py hidden aliases: a field is named by the last part of its chain, even an empty one', () => {
  it('properties.`` is a column named ""', async () => {
    const r = await hogql('select properties.`` from events order by timestamp limit 1');
    expect(r.results).toEqual([[null]]);
    expect(r.columns).toEqual(['']);
  });
});

describe('test_query.py test_with_pivot_table_2_levels: a WITH inside a CTE', () => {
  it('the inner CTE is visible in its own query only', async () => {
    const q =
      'WITH final AS (WITH PIVOT_TABLE_COL_ABC AS (SELECT distinct_id, arraySort(groupArray(event)) AS events, count() AS count FROM events GROUP BY distinct_id) ' +
      'SELECT distinct_id, events, count FROM PIVOT_TABLE_COL_ABC ORDER BY distinct_id ASC) SELECT distinct_id, events, count FROM final';
    expect(await rows(q)).toEqual([
      ['bla', ['empty event', 'random event', 'random event'], 3],
      ['p1', ['random bla'], 1],
    ]);
    await expect(hogql('WITH final AS (WITH inner_cte AS (SELECT 1 AS a) SELECT a FROM inner_cte) SELECT a FROM inner_cte')).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('Unknown table "inner_cte".'),
    });
  });

  it('column CTEs: WITH <expr> AS name', async () => {
    expect(await rows("WITH 'random event' AS e, 1 + 1 AS two SELECT count(), two FROM events WHERE event = e")).toEqual([[2, 2]]);
  });
});

describe("HogQLQueryResponse.types are ClickHouse's: integer literals by their value, integer arithmetic by NumberTraits", () => {
  it('literals: UInt8, Int8, UInt16, UInt32; through a subquery and a CTE too', async () => {
    const r = await hogql('select 1, -1, 300, 70000, 1.5');
    expect(r.types).toEqual([
      ['1', 'UInt8'],
      ['-1', 'Int8'],
      ['300', 'UInt16'],
      ['70000', 'UInt32'],
      ['1.5', 'Float64'],
    ]);
    expect(await rows('select a, toTypeName(a), toTypeName(b) from (select 1 as a, -200 as b)')).toEqual([[1, 'UInt8', 'Int16']]);
    expect((await hogql('with t as (select 1 as a) select a from t')).types).toEqual([['a', 'UInt8']]);
  });

  it.each([
    ['1 + 1', 'UInt16'],
    ['plus(1, 1)', 'UInt16'],
    ['1 - 1', 'Int16'],
    ['2 * 300', 'UInt32'],
    ['5 % 3', 'UInt8'],
    ['-5 % 3', 'Int16'],
    ['4 / 2', 'Float64'],
    ['1 + 1.5', 'Float64'],
    ['toUnixTimestamp(now()) + 1', 'UInt64'],
    ['toInt(properties.index) + 1', 'Nullable(Int64)'],
  ])('toTypeName(%s) = %s', async (expr, type) => {
    expect(await rows(`select toTypeName(${expr}) from events limit 1`)).toEqual([[type]]);
  });

  it('aggregates: count() + 1 is UInt64, count() - 1 Int64; sum of unsigned integers UInt64, of signed ones Int64', async () => {
    const r = await hogql('select count() + 1, count() - 1, sum(1), sumIf(1, 1 = 1), sum(-1) from events');
    expect(r.results).toEqual([[5, 3, 4, 4, -4]]);
    expect(r.types.map((t: string[]) => t[1])).toEqual(['UInt64', 'Int64', 'UInt64', 'UInt64', 'Int64']);
  });

  it('toTypeName of an aggregate: the query still aggregates (one row)', async () => {
    expect(await rows('select toTypeName(count()), toTypeName(sum(1)) from events')).toEqual([['UInt64', 'UInt64']]);
    expect(await rows('select event, toTypeName(count()) from events group by event order by event')).toEqual([
      ['empty event', 'UInt64'],
      ['random bla', 'UInt64'],
      ['random event', 'UInt64'],
    ]);
  });
});

describe('OFFSET without LIMIT (test_printer.py: the top-level SELECT gets the default LIMIT, the OFFSET stays)', () => {
  it('at the top level: the default 100 rows from the offset on', async () => {
    const r = await hogql('select number from numbers(300) offset 150');
    expect(r.results).toHaveLength(100);
    expect(r.results[0]).toEqual([150]);
    expect(r.results[99]).toEqual([249]);
    expect(await rows('select number from numbers(200) offset 190')).toEqual([[190], [191], [192], [193], [194], [195], [196], [197], [198], [199]]);
  });

  it('in a subquery: every row after the offset (ClickHouse 18.16 has no OFFSET without LIMIT either)', async () => {
    expect(await rows('select number from (select number from numbers(5) offset 3)')).toEqual([[3], [4]]);
    expect(await rows('select number from (select number from numbers(5) order by number desc offset 1) order by number')).toEqual([[0], [1], [2], [3]]);
    expect(await rows("select count() from (select event from events order by timestamp offset 1)")).toEqual([[3]]);
  });
});

describe('INTERSECT / EXCEPT (HogQL set operators beside UNION ALL / UNION DISTINCT)', () => {
  it('keep the rows of both / of the first only; ClickHouse 18.16 has neither: a 400 naming the operator', async () => {
    const intersect = "select event from events where event != 'random bla' intersect select event from events where event = 'random event'";
    const except = "select event from (select event from events except select event from events where event = 'random event') order by event";
    if (testEngine() === 'clickhouse') {
      await fails(intersect, 'INTERSECT is not available on this engine');
      await fails(except, 'EXCEPT is not available on this engine');
      return;
    }
    expect(await rows(intersect)).toEqual([['random event']]);
    expect(await rows(except)).toEqual([['empty event'], ['random bla']]);
  });
});

describe('HogQLX tags (test_parser.py test_hogqlx_*; resolver.py visit_hogqlx_tag reads them as convert_to_hx does)', () => {
  it("<strong>hi</strong> is the tuple ('__hx_tag', 'strong', 'children', ['hi'])", async () => {
    expect(await rows('select <strong>hi</strong>')).toEqual([[['__hx_tag', 'strong', 'children', ['hi']]]]);
  });

  it('attributes in source order (text and {expressions}), then the children; a nested tag is its own tuple', async () => {
    expect(await rows("select <a href='https://posthog.com' title={event}>{event}</a> from events order by timestamp limit 1")).toEqual([
      [['__hx_tag', 'a', 'href', 'https://posthog.com', 'title', 'random event', 'children', ['random event']]],
    ]);
    expect(await rows("select <ul><li id='1' /><li id='2' /></ul>")).toEqual([
      [['__hx_tag', 'ul', 'children', [['__hx_tag', 'li', 'id', '1'], ['__hx_tag', 'li', 'id', '2']]]],
    ]);
  });

  it('a tag without attributes or children is the marker alone', async () => {
    expect(await rows('select <br />')).toEqual([[['__hx_tag', 'br']]]);
  });

  it("a tag where a table goes is a clear 400, unless it is a query tag (<ActorsQuery />: that node's answer, src/queries/runners/hogqlx-queries.ts)", async () => {
    await fails('select * from <strong />', 'A HogQLX tag (<strong />) cannot be used as a table: name a table or write a subquery');
    expect(await rows('select count() from <ActorsQuery />')).toEqual([[2]]);
    expect(await rows("select * from (<ActorsQuery select={['properties.name']} orderBy={['properties.name']} />)")).toEqual([['Person 1'], [null]]);
  });
});

// PostHog prints an answer's `hogql` (and names an unaliased column) with its printer's "hogql" dialect, after
// placeholders became constants: every operator is its function (printer.py visit_compare_operation / visit_and /
// visit_arithmetic_operation, `tuple(...)`), table aliases with AS. Quarry printed the operators as written.
describe('test_query.py: response.hogql is the hogql-dialect print (operators as functions, values inlined)', () => {
  const random_uuid = 'RANDOM_TEST_ID::11';

  it('test_query: equals(...) with the placeholder value in place', async () => {
    const r = await hogql('select count(), event from events where properties.random_uuid = {random_uuid} group by event', 'UTC', { values: { random_uuid } });
    expect(r.results).toEqual([[2, 'random event']]);
    expect(r.hogql).toBe(`SELECT count(), event FROM events WHERE equals(properties.random_uuid, '${random_uuid}') GROUP BY event LIMIT 100`);
  });

  it('test_subquery: the subquery printed the same way', async () => {
    const r = await hogql(
      'SELECT count, event FROM (select count() as count, event from events where properties.random_uuid = {random_uuid} group by event) group by count, event',
      'UTC',
      { values: { random_uuid } },
    );
    expect(r.results).toEqual([[2, 'random event']]);
    expect(r.hogql).toBe(
      `SELECT count, event FROM (SELECT count() AS count, event FROM events WHERE equals(properties.random_uuid, '${random_uuid}') GROUP BY event) GROUP BY count, event LIMIT 100`,
    );
  });

  it('test_query_joins_pdi: INNER JOIN a subquery; HAVING and ON as equals(...)', async () => {
    const r = await hogql(`
      SELECT event, timestamp, pdi.person_id from events e
      INNER JOIN (
          SELECT distinct_id,
                 argMax(person_id, version) as person_id
            FROM raw_person_distinct_ids
           GROUP BY distinct_id
          HAVING argMax(is_deleted, version) = 0
         ) AS pdi
      ON e.distinct_id = pdi.distinct_id`);
    expect(r.hogql).toBe(
      'SELECT event, timestamp, pdi.person_id FROM events AS e INNER JOIN (SELECT distinct_id, argMax(person_id, version) AS person_id FROM raw_person_distinct_ids GROUP BY distinct_id HAVING equals(argMax(is_deleted, version), 0)) AS pdi ON equals(e.distinct_id, pdi.distinct_id) LIMIT 100',
    );
    expect(r.results).toHaveLength(4);
  });

  it('test_hogql_query_filters: {filters} as and(properties, less(timestamp, date_to), greaterOrEquals(timestamp, date_from))', async () => {
    const query = 'SELECT event, distinct_id from events WHERE distinct_id={distinct_id} and {filters}';
    const properties = [{ key: 'index', operator: 'exact', value: '1', type: 'event' }];
    const run = (filters: Record<string, unknown>) => hogql(query, 'UTC', { values: { distinct_id: 'bla' }, filters });
    let r = await run({ properties });
    expect(r.hogql).toBe("SELECT event, distinct_id FROM events WHERE and(equals(distinct_id, 'bla'), equals(properties.index, '1')) LIMIT 100");
    expect(r.results).toHaveLength(1);
    r = await run({ properties, dateRange: { date_from: '2020-01-01', date_to: '2020-01-02' } });
    expect(r.hogql).toBe(
      "SELECT event, distinct_id FROM events WHERE and(equals(distinct_id, 'bla'), and(equals(properties.index, '1'), less(timestamp, toDateTime('2020-01-02 00:00:00.000000')), greaterOrEquals(timestamp, toDateTime('2020-01-01 00:00:00.000000')))) LIMIT 100",
    );
    expect(r.results).toHaveLength(0);
    r = await run({ properties, dateRange: { date_from: '2020-01-01', date_to: '2020-02-02' } });
    expect(r.results).toHaveLength(1);
  });

  it('{filters.dateRange.from} / {filters.dateRange.to} are datetime constants too', async () => {
    const r = await hogql('select count() from events where timestamp >= {filters.dateRange.from} and timestamp < {filters.dateRange.to}', 'UTC', {
      filters: { dateRange: { date_from: '2020-01-10 00:01:00', date_to: '2020-01-11' } },
    });
    expect(r.results).toEqual([[3]]);
    expect(r.hogql).toBe(
      "SELECT count() FROM events WHERE and(greaterOrEquals(timestamp, toDateTime('2020-01-10 00:01:00.000000')), less(timestamp, toDateTime('2020-01-11 00:00:00.000000'))) LIMIT 100",
    );
  });

  it('every operator as its function: arithmetic, comparisons, regex, and / or / not, tuples; lambdas, arrays and BETWEEN as written', async () => {
    const r = await hogql(
      "select 1 + 2, count() * 2 - 1, 7 / 2 % 3, event != 'x', event like 'r%', event not ilike 'x%', event ~ 'bla$', event !~* 'X', " +
        "event in ('a', 'b'), not (1 and 0 or 1), (1, 'a'), arrayMap(x -> x + 1, [1, 2]), 5 between 1 and 10 from events where event = 'random bla' group by event",
    );
    expect(r.columns).toEqual([
      'plus(1, 2)',
      'minus(multiply(count(), 2), 1)',
      'modulo(divide(7, 2), 3)',
      "notEquals(event, 'x')",
      "like(event, 'r%')",
      "notILike(event, 'x%')",
      "match(event, 'bla$')",
      "not(match(event, concat('(?i)', 'X')))",
      "in(event, tuple('a', 'b'))",
      'not(or(and(1, 0), 1))',
      "tuple(1, 'a')",
      'arrayMap(x -> plus(x, 1), [1, 2])',
      '5 BETWEEN 1 AND 10',
    ]);
    expect(r.results).toEqual([[3, 1, 0.5, 1, 1, 1, 1, 1, 0, 0, [1, 'a'], [2, 3], 1]]);
    expect(r.types.map((t: string[]) => t[0])).toEqual(r.columns);
    expect(r.hogql).toMatch(/ FROM events WHERE equals\(event, 'random bla'\) GROUP BY event LIMIT 100$/);
  });

  it("test_sparkline.py: sparkline(values) prints as PostHog's resolver makes it, the marker tuple", async () => {
    const r = await hogql('select sparkline([1,2,3])');
    expect(r.hogql).toBe("SELECT tuple('__hogql_chart_type', 'sparkline', 'results', [1, 2, 3]) LIMIT 100");
    expect(r.results[0][0]).toEqual(['__hogql_chart_type', 'sparkline', 'results', [1, 2, 3]]);
    expect(r.columns).toEqual(["tuple('__hogql_chart_type', 'sparkline', 'results', [1, 2, 3])"]);
  });

  it('a {value} in the select list is named by its constant', async () => {
    const r = await hogql('select {x}, {n} + 1, {xs}', 'UTC', { values: { x: "it's", n: 2, xs: ['a', null] } });
    expect(r.results).toEqual([["it's", 3, ['a', null]]]);
    expect(r.columns).toEqual(["'it\\'s'", 'plus(2, 1)', "['a', NULL]"]);
  });

  it('HogQLQueryResponse.modifiers: the answer carries the modifiers the query ran with', async () => {
    const modifiers = { bounceRatePageViewMode: 'uniq_urls' };
    expect((await hogql('select 1', 'UTC', { modifiers })).modifiers).toMatchObject(modifiers);
    expect(await hogql('select 1')).toHaveProperty('modifiers');
  });
});
