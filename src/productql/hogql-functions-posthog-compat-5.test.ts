/**
 * HogQL function cases ported from PostHog, fifth batch (after hogql-functions-posthog-compat(-2 .. -4).test.ts,
 * hogql-posthog-compat(-2 .. -11).test.ts and functions-hogql.test.ts, which this does not repeat):
 * - maths outside a function's domain (sqrt / log / asin of what they are not defined for) is ClickHouse's nan or
 *   -inf, which PostHog renders null, not an error (posthog/hogql/functions/test/test_mapping.py maths);
 * - range(start, end[, step]) from a negative start counts up from there;
 * - a Date moved by hours, minutes or seconds is a DateTime, and a DateTime moved by an interval stays one (whole
 *   seconds, no fraction in toString), as ClickHouse's addHours / plus(DateTime, Interval) type them;
 * - the parts of a date are ClickHouse's unsigned integers (toYear UInt16, toMonth UInt8, toUnixTimestamp UInt32, ...);
 * - ClickHouse's optional lambdas: arrayExists / arrayAll / arrayCount without a lambda or over several arrays,
 *   arraySum / arrayMin / arrayMax / arrayAvg of a lambda's values;
 * - JSONExtractString of a value that is not a JSON string reads '' (ClickHouse's wrong-type default);
 * - arrays of datetimes and dates (groupArray(timestamp), [toDate(x)]) render their elements as the scalars do, and
 *   arrayMap to tuples renders arrays of JSON arrays on every engine;
 * - more of mapping.py's date, string and JSON functions with the values ClickHouse gives, and PostHog's arity and
 *   unknown-function errors (posthog/hogql/functions/core.py validate_function_args, printer.py visit_call);
 * - toStartOfWeek's modes, months / years added to the end of a month, and today() / now() / text read in the project
 *   timezone (a UTC+14 one); timeSlot, toLastDayOfWeek, toStartOfISOYear, (to|from)ModifiedJulianDay, dateName.
 * - second pass: roundToExp2 / roundDuration / roundAge, unhex, JSONLength of objects, arrayCompact of NULL runs,
 *   quantileIf / quantilesIf, formatDateTime %g, gcd / lcm by zero, and more array, string, date and JSON values.
 * - toInt of a number is accurateCastOrNull(x, 'Int64') (mapping.py): NULL for a float beyond Int64, nan or inf (it wrapped
 *   to -9223372036854775808 on ClickHouse), and typed Nullable(Int64) on every engine; toInt of text with more digits
 *   than Int64 holds is NULL (ClickHouse 18.16 wrapped it), toFloat of text with surrounding whitespace or digit
 *   separators ('1 ', '1_000') is NULL (DuckDB read a number);
 * - JSONExtractInt cuts a fractional number (or text of one) to its integer part (DuckDB rounded it), and JSONExtract*
 *   read values written with whitespace after the colon (`{"a": "5"}`: ClickHouse 18.16's visitParamExtractRaw kept it
 *   and read 0 / ' "x"').
 * Data through the real ingest path and runner, like PostHog's `_create_event`; one data set for the file.
 * hogql-functions-posthog-compat-5.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, hogqlTestProject } from '../queries/funnels/testing';
import { testEngine } from '../engines/clickhouse/test-engine';

const project = hogqlTestProject({
  persons: [{ id: '00000000-0000-4000-8000-0000000e55f1', distinct_ids: ['dee'], properties: { email: 'dee@x.com' } }],
  events: [
    ev('dee', '$pageview', '2023-03-01T10:20:30Z', { n: 1, s: 'Ab', obj: { a: { b: 'c' } }, flag: true }),
    ev('dee', '$pageview', '2023-03-02T23:59:59Z', { n: 2, s: 'cD' }),
    ev('dee', 'signup', '2023-03-03T00:00:00Z', { n: 3 }),
  ],
});

const { hogql, rows, one } = project;
const typesOf = (r: { types: [string, string][] }) => r.types.map((t) => t[1]);
const perEvent = async (expr: string) => (await rows(`SELECT ${expr} FROM events ORDER BY timestamp`)).map((r: unknown[]) => r[0]);
const fails = (query: string, message: string | RegExp) =>
  expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message: typeof message === 'string' ? message : expect.stringMatching(message) });

// First in the file, with a short query: the parser's first parse is its slowest (see parser.ts PARSE_TIMEOUT_MS).
describe("test_mapping.py maths: outside a function's domain, ClickHouse's nan / -inf (PostHog renders them null), not an error", () => {
  it.each([
    ['sqrt(-4)', null],
    ['log(0)', null],
    ['log(-1)', null],
    ['ln(0)', null],
    ['log10(0)', null],
    ['log2(-1)', null],
    ['acos(2)', null],
    ['asin(-2)', null],
    ['isNaN(sqrt(-1))', 1],
    ['isInfinite(log(0))', 1],
    ['toString(log(0))', '-inf'],
    ['toString(sqrt(-1))', 'nan'],
    ['sqrt(16)', 4],
    ['log10(1000)', 3],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row: only the rows outside the domain read null', async () => {
    expect(await perEvent('sqrt(toFloat(properties.n) - 2)')).toEqual([null, 0, 1]);
    expect(await perEvent('log(toFloat(properties.n) - 2)')).toEqual([null, null, 0]);
    expect(await rows("SELECT countIf(isNaN(sqrt(toFloat(properties.n) - 2))) FROM events")).toEqual([[1]]);
  });
});

describe('test_mapping.py range(start, end[, step]): from a negative start, counting up from there', () => {
  it.each([
    ['range(-3, 3)', [-3, -2, -1, 0, 1, 2]],
    ['range(-3, 3, 2)', [-3, -1, 1]],
    ['range(-2, -1)', [-2]],
    ['range(5, 2)', []],
    ['range(1, 10, 3)', [1, 4, 7]],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('bounds computed per row', async () => {
    expect(await rows('SELECT range(number - 1, number + 2) FROM numbers(3)')).toEqual([[[-1, 0, 1]], [[0, 1, 2]], [[1, 2, 3]]]);
  });
});

describe("dateAdd / + INTERVAL: a Date moved by hours, minutes or seconds is a DateTime (ClickHouse's addHours(Date)); a DateTime stays one", () => {
  it.each([
    ["dateAdd('hour', 1, toDate('2023-01-01'))", '2023-01-01T01:00:00Z'],
    ["toTypeName(dateAdd('hour', 1, toDate('2023-01-01')))", "DateTime('UTC')"],
    ["toString(toDate('2023-01-01') + INTERVAL 90 MINUTE)", '2023-01-01 01:30:00'],
    ["toDate('2023-01-01') - INTERVAL 1 SECOND", '2022-12-31T23:59:59Z'],
    ["toString(toDate('2023-01-01') + INTERVAL 1 DAY)", '2023-01-02'],
    ["dateAdd('week', 2, toDate('2023-01-01'))", '2023-01-15'],
    ["dateAdd('second', 3600, toDateTime('2023-01-01 00:00:00'))", '2023-01-01T01:00:00Z'],
    ["dateSub('minute', 90, toDateTime('2023-01-01 00:00:00'))", '2022-12-31T22:30:00Z'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it.each([
    ["toStartOfDay(toDateTime('2023-01-01 10:00:00')) + INTERVAL 90 MINUTE", '2023-01-01 01:30:00', "DateTime('UTC')"],
    ['toDateTime(1672531200) + INTERVAL 1 DAY', '2023-01-02 00:00:00', "DateTime('UTC')"],
    ['INTERVAL 1 DAY + toDateTime(1672531200)', '2023-01-02 00:00:00', "DateTime('UTC')"],
    ["dateSub('month', 1, toStartOfHour(toDateTime('2023-03-31 10:30:00')))", '2023-02-28 10:00:00', "DateTime('UTC')"],
    // toDateTime of text is a DateTime64(6) (parseDateTime64BestEffortOrNull): moved, it keeps its six decimals
    ["toDateTime('2023-01-01 10:00:00') + INTERVAL 1 HOUR", '2023-01-01 11:00:00.000000', "DateTime64(6, 'UTC')"],
  ])('toString(%s) = %j, a %s', async (expr, text, type) => {
    expect(await rows(`SELECT toString(${expr}), toTypeName(${expr})`)).toEqual([[text, type]]);
  });

  it('of a bucket of timestamp, per row', async () => {
    const r = await hogql('SELECT toStartOfDay(timestamp) + INTERVAL 12 HOUR, toString(toStartOfDay(timestamp) + INTERVAL 12 HOUR), toStartOfHour(timestamp) - INTERVAL 1 DAY FROM events ORDER BY timestamp');
    expect(r.results).toEqual([
      ['2023-03-01T12:00:00Z', '2023-03-01 12:00:00', '2023-02-28T10:00:00Z'],
      ['2023-03-02T12:00:00Z', '2023-03-02 12:00:00', '2023-03-01T23:00:00Z'],
      ['2023-03-03T12:00:00Z', '2023-03-03 12:00:00', '2023-03-02T00:00:00Z'],
    ]);
    expect(typesOf(r)).toEqual(["DateTime('UTC')", 'String', "DateTime('UTC')"]);
  });
});

describe("date parts are ClickHouse's unsigned integers (mapping.py toYear / toMonth / ... toUnixTimestamp)", () => {
  it('types and values of timestamp parts', async () => {
    const r = await hogql(
      'SELECT toYear(timestamp), toQuarter(timestamp), toMonth(timestamp), toDayOfYear(timestamp), toDayOfMonth(timestamp), toDayOfWeek(timestamp), ' +
        'toHour(timestamp), toMinute(timestamp), toSecond(timestamp), toYYYYMM(timestamp), toYYYYMMDD(timestamp), toUnixTimestamp(timestamp) FROM events ORDER BY timestamp LIMIT 1',
    );
    expect(r.results).toEqual([[2023, 1, 3, 60, 1, 3, 10, 20, 30, 202303, 20230301, 1677666030]]);
    expect(typesOf(r)).toEqual(['UInt16', 'UInt8', 'UInt8', 'UInt16', 'UInt8', 'UInt8', 'UInt8', 'UInt8', 'UInt8', 'UInt32', 'UInt32', 'UInt32']);
  });

  it.each([
    ["toTypeName(toYear(toDate('2023-05-14')))", 'UInt16'],
    ["toTypeName(toDayOfWeek(toDate('2023-05-14'), 1))", 'UInt8'],
    ["toTypeName(toYYYYMMDDhhmmss(toDateTime('2023-01-02 03:04:05')))", 'UInt64'],
    // HogQL's toDate of text is toDateOrNull: its parts are Nullable
    ["toTypeName(toMonth(toDateOrNull('2023-05-14')))", 'Nullable(UInt8)'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('groupArray of a part is an Array of its type', async () => {
    const r = await hogql('SELECT groupArray(toDayOfMonth(timestamp)), toTypeName(groupArray(toDayOfMonth(timestamp))) FROM (SELECT timestamp FROM events ORDER BY timestamp)');
    expect(r.results).toEqual([[[1, 2, 3], 'Array(UInt8)']]);
  });
});

describe("arrayExists / arrayAll / arrayCount: ClickHouse's optional lambda (the non-zero elements) and lambdas over several arrays", () => {
  it.each([
    ['arrayCount([1, 0, 2])', 2],
    ['arrayExists([0, 0])', 0],
    ['arrayExists([0, 1])', 1],
    ['arrayAll([1, 2])', 1],
    ['arrayAll([1, 0])', 0],
    ['arrayExists((x, y) -> x = y, [1, 2], [2, 2])', 1],
    ['arrayAll((x, y) -> x <= y, [1, 2], [2, 2])', 1],
    ['arrayAll((x, y) -> x < y, [1, 2], [2, 2])', 0],
    ['arrayCount((x, y) -> x = y, [1, 2, 3], [2, 2, 3])', 2],
    ['arrayCount(x -> x > 1, [1, 2, 3])', 2],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('several arrays without a lambda are a 400', async () => {
    await fails('SELECT arrayCount([1], [2])', 'The first argument of arrayCount must be a lambda');
  });
});

describe('arraySum / arrayMin / arrayMax / arrayAvg of a lambda (ClickHouse: arraySum([func,] arr1, ...))', () => {
  it.each([
    ['arraySum(x -> x * 2, [1, 2, 3])', 12],
    ['arraySum((x, y) -> x * y, [1, 2, 3], [4, 5, 6])', 32],
    ['arrayMax(x -> -x, [1, 2, 3])', -1],
    ["arrayMin(x -> length(x), ['abc', 'a', 'ab'])", 1],
    ['arrayAvg(x -> x * 10, [1, 2])', 15],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row, and several arrays need a lambda', async () => {
    expect(await rows("SELECT arrayCount(x -> x = event, ['signup', '$pageview']), arraySum(x -> length(x), [event, distinct_id]) FROM events ORDER BY timestamp")).toEqual([
      [1, 12],
      [1, 12],
      [1, 9],
    ]);
    await fails('SELECT arraySum([1, 2], [3])', 'The first argument of arraySum must be a lambda');
  });
});

describe("JSONExtractString of a value that is no JSON string reads '' (ClickHouse: \"if the value ... has a wrong type, an empty string\")", () => {
  it.each([
    [`JSONExtractString('{"a":1}', 'a')`, ''],
    [`JSONExtractString('{"a":true}', 'a')`, ''],
    [`JSONExtractString('{"a":{"b":1}}', 'a')`, ''],
    [`JSONExtractString('{"a":null}', 'a')`, ''],
    [`JSONExtractString('{"a":{"b":"c"}}', 'a', 'b')`, 'c'],
    [`JSONExtractString('{"a":"x\\\\"y"}', 'a')`, 'x"y'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('of the properties: numbers, objects and missing keys read the default', async () => {
    expect(await rows("SELECT JSONExtractString(properties, 'n'), JSONExtractString(properties, 's'), JSONExtractString(properties, 'obj'), JSONExtractString(properties, 'obj', 'a', 'b') FROM events ORDER BY timestamp")).toEqual([
      ['', 'Ab', '', 'c'],
      ['', 'cD', '', ''],
      ['', '', '', ''],
    ]);
  });

  it('JSONHas is 1 for a key whose value is null', async () => {
    expect(await one(`JSONHas('{"a":{"b":null}}', 'a', 'b')`)).toBe(1);
  });
});

describe('test_mapping.py: date functions with the values ClickHouse gives', () => {
  it.each([
    // weeks of toStartOfInterval start on Monday (ClickHouse counts them from 1970-01-05)
    ["toStartOfInterval(toDate('2023-01-04'), INTERVAL 1 WEEK)", '2023-01-02'],
    ["toStartOfInterval(toDateTime('2023-01-04 10:00:00'), INTERVAL 1 WEEK)", '2023-01-02'],
    ["toStartOfInterval(toDateTime('2023-01-02 10:00:00'), INTERVAL 2 DAY)", '2023-01-01T00:00:00Z'],
    ["toStartOfInterval(toDateTime('2023-05-14 10:17:45'), INTERVAL 10 SECOND)", '2023-05-14T10:17:40Z'],
    ["toStartOfInterval(toDateTime('2023-05-14 10:00:00'), INTERVAL 1 QUARTER)", '2023-04-01'],
    ["toDayOfWeek(toDate('2023-01-01'), 0)", 7],
    ["dateDiff('month', toDate('2023-01-01'), toDate('2022-11-30'))", -2],
    ["dateDiff('day', toDateTime('2023-01-01 23:59:59'), toDateTime('2023-01-02 00:00:00'))", 1],
    ["formatDateTime(toDateTime('2023-01-02 13:04:05'), '%F %T')", '2023-01-02 13:04:05'],
    ["formatDateTime(toDateTime('2023-01-02 13:04:05'), '%j %u %w %V %G')", '002 1 1 01 2023'],
    ["formatDateTime(toDateTime('2023-01-02 13:04:05'), '%y %p %I %R')", '23 PM 01 13:04'],
    ['toTypeName(today())', 'Date'],
    ['yesterday() = today() - 1', 1],
    ['fromUnixTimestamp(0)', '1970-01-01T00:00:00Z'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe('test_mapping.py: string functions with the values ClickHouse gives', () => {
  it.each([
    ["left('hello', -2)", 'hel'],
    ["right('hello', -2)", 'llo'],
    ["left('hello', 10)", 'hello'],
    ["concatWithSeparator('-', 'a', 1, 2.5)", 'a-1-2.5'],
    ["appendTrailingCharIfAbsent('', '/')", ''],
    ["countSubstrings('aaaa', 'aa')", 2],
    ["'a_c' LIKE 'a\\\\_c'", 1],
    ["'abc' LIKE 'a\\\\_c'", 0],
    ["'100%' LIKE '%\\\\%'", 1],
    ["match('aBc', 'b')", 0],
    ["match('aBc', '(?i)b')", 1],
    ["replaceRegexpAll('Hello World', '^', 'here: ')", 'here: Hello World'],
    ["substringUTF8('héllo', 2, 3)", 'éll'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe("posthog/hogql/functions/core.py validate_function_args: \"Function 'x' expects N arguments, found M\"", () => {
  it.each([
    ['SELECT if(1, 2)', "Function 'if' expects 3 arguments, found 2"],
    ['SELECT toDateTime()', "Function 'toDateTime' expects at least 1 argument, found 0"],
    ['SELECT now(1, 2)', "Function 'now' expects at most 1 argument, found 2"],
    ['SELECT today(1)', "Function 'today' expects 0 arguments, found 1"],
    ["SELECT dateDiff('day', now())", "Function 'dateDiff' expects 3 arguments, found 2"],
    ['SELECT toString(1, 2)', "Function 'toString' expects 1 argument, found 2"],
    ['SELECT multiIf(1, 2)', "Function 'multiIf' expects at least 3 arguments, found 2"],
    ['SELECT coalesce()', "Function 'coalesce' expects at least 1 argument, found 0"],
    ['SELECT formatDateTime(now())', "Function 'formatDateTime' expects at least 2 arguments, found 1"],
    ["SELECT replaceAll('a', 'b')", "Function 'replaceAll' expects 3 arguments, found 2"],
    ['SELECT sum() FROM events', "Aggregation 'sum' expects 1 argument, found 0"],
    ['SELECT avg(1, 2) FROM events', "Aggregation 'avg' expects 1 argument, found 2"],
    ['SELECT argMax(event) FROM events', "Aggregation 'argMax' expects 2 arguments, found 1"],
    ['SELECT uniq() FROM events', "Aggregation 'uniq' expects at least 1 argument, found 0"],
  ])('%s', async (query, message) => {
    await fails(query, message);
  });

  it('an aggregation nested in HAVING is refused as in SELECT', async () => {
    await fails('SELECT event FROM events GROUP BY event HAVING sum(count()) > 1', "Aggregation 'count' cannot be nested inside another aggregation 'sum'.");
  });

  it("printer.py visit_call: an unknown function, with the closest name (difflib's get_close_matches)", async () => {
    await fails('SELECT arrayMapp(x -> x, [1])', "Unsupported function call 'arrayMapp(...)'. Perhaps you meant 'arrayMap(...)'?");
    await fails("SELECT JSONExtractStrin('{}', 'a')", "Unsupported function call 'JSONExtractStrin(...)'. Perhaps you meant 'JSONExtractString(...)'?");
    await fails('SELECT toStartofDay(timestamp) FROM events', "Unsupported function call 'toStartofDay(...)'. Perhaps you meant 'toStartOfDay(...)'?");
  });
});

describe('arrays of datetimes and dates render each element as the value itself renders (groupArray(timestamp), test_query.py)', () => {
  it('groupArray of timestamp, of a DateTime bucket, of a Date; typed Array(<the element type>)', async () => {
    const r = await hogql(
      'SELECT groupArray(timestamp), groupArray(toStartOfDay(timestamp)), groupArray(toDate(timestamp)), groupUniqArray(toStartOfMonth(timestamp)) FROM (SELECT timestamp FROM events ORDER BY timestamp)',
    );
    expect(r.results).toEqual([
      [
        ['2023-03-01T10:20:30Z', '2023-03-02T23:59:59Z', '2023-03-03T00:00:00Z'],
        ['2023-03-01T00:00:00Z', '2023-03-02T00:00:00Z', '2023-03-03T00:00:00Z'],
        ['2023-03-01', '2023-03-02', '2023-03-03'],
        ['2023-03-01'],
      ],
    ]);
    expect(typesOf(r)).toEqual(["Array(DateTime64(6, 'UTC'))", "Array(DateTime('UTC'))", 'Array(Date)', 'Array(Date)']);
  });

  it('in the zone of the values, sorted, and over no rows', async () => {
    expect(await rows("SELECT groupArray(toTimeZone(timestamp, 'Asia/Tokyo')), arraySort(groupArray(timestamp)) FROM events WHERE event = 'signup'")).toEqual([
      [['2023-03-03T09:00:00+09:00'], ['2023-03-03T00:00:00Z']],
    ]);
    expect(await rows('SELECT arraySort(groupArray(timestamp)) FROM events WHERE 1 = 0')).toEqual([[[]]]);
  });

  it('array literals of datetimes and dates; toString of an array of dates quotes them', async () => {
    expect(await rows("SELECT [toDateTime(1672531200)], [toDate('2023-01-01'), toDate('2023-01-02')], toString([toDate('2023-01-01')])")).toEqual([
      [['2023-01-01T00:00:00Z'], ['2023-01-01', '2023-01-02'], "['2023-01-01']"],
    ]);
  });
});

describe('arrayMap to tuples renders arrays of JSON arrays (as test_query.py reads arrays of tuples), on every engine', () => {
  it('of literals, of a column, over several arrays; x.N reads the elements back', async () => {
    expect(
      await rows("SELECT arrayMap(x -> (x, x * 2), [1, 2]), arrayMap((x, y) -> (x, y), [1, 2], ['a', 'b']), arrayMap(x -> (x, x * 2), [1, 2])[2], arrayFilter(t -> t.2 > 2, arrayMap(x -> (x, x * 2), [1, 2]))"),
    ).toEqual([[[[1, 2], [2, 4]], [[1, 'a'], [2, 'b']], [2, 4], [[2, 4]]]]);
    expect(await rows('SELECT arrayMap(x -> (x, 1), groupArray(event)) FROM (SELECT event FROM events ORDER BY timestamp)')).toEqual([
      [[['$pageview', 1], ['$pageview', 1], ['signup', 1]]],
    ]);
  });
});

describe("test_mapping.py lower / upper: ClickHouse's change ASCII letters only; lowerUTF8 / upperUTF8 the others too", () => {
  it.each([
    ["lower('ÀBc')", 'Àbc'],
    ["upper('àbC')", 'àBC'],
    ["lowerUTF8('ÄÖÜ x')", 'äöü x'],
    ["upperUTF8('äöü X')", 'ÄÖÜ X'],
    ["lower('Hello World')", 'hello world'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row, a NULL stays NULL', async () => {
    expect(await perEvent('upper(properties.s)')).toEqual(['AB', 'CD', null]);
  });
});

describe("test_mapping.py format(pattern, args...): ClickHouse's {} / {n} replacement fields", () => {
  it.each([
    ["format('{} {}', 'Hello', 'World')", 'Hello World'],
    ["format('{1} {0} {1}', 'World', 'Hello')", 'Hello World Hello'],
    ["format('{{}} {}', 'x')", '{} x'],
    ["format('no fields')", 'no fields'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row: String, Nullable(String) (NULL where an argument it reads is NULL)', async () => {
    const r = await hogql("SELECT format('{}: {}', event, properties.s), format('{}!', event) FROM events ORDER BY timestamp");
    expect(r.results).toEqual([
      ['$pageview: Ab', '$pageview!'],
      ['$pageview: cD', '$pageview!'],
      [null, 'signup!'],
    ]);
    expect(typesOf(r)).toEqual(['Nullable(String)', 'String']);
  });

  it("mixing {} and {n} is ClickHouse's error", async () => {
    await fails("SELECT format('{} {0}', 'a')", 'Cannot switch from automatic field numbering to manual field specification');
  });
});

describe("test_mapping.py regexpExtract(haystack, pattern[, index]): the index'th group of the first match (default 1, 0 the match)", () => {
  it.each([
    ["regexpExtract('100-200', '(\\\\d+)-(\\\\d+)', 1)", '100'],
    ["regexpExtract('100-200', '(\\\\d+)-(\\\\d+)', 2)", '200'],
    ["regexpExtract('100-200', '(\\\\d+)-(\\\\d+)', 0)", '100-200'],
    ["regexpExtract('100-200', '(\\\\d+)-(\\\\d+)')", '100'],
    ["regexpExtract('no digits', '(\\\\d+)')", ''],
    ["regexpExtract('a1b22c333', '\\\\d{2,}', 0)", '22'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row', async () => {
    expect(await perEvent("regexpExtract(distinct_id || '-' || event, '^(\\\\w+)-\\\\$?(\\\\w+)$', 2)")).toEqual(['pageview', 'pageview', 'signup']);
  });

  it('its pattern is checked like every regex: a lookahead (not RE2) is a 400 before the engine sees it', async () => {
    await expect(hogql("SELECT regexpExtract(event, '^(?=x)(.)') FROM events")).rejects.toMatchObject({ status: 400, code: 'invalid_regex' });
  });
});

describe('groupArray(max_size)(x): parametric, the first max_size values (ClickHouse: groupArray(1)(x) is [any(x)])', () => {
  it('over ordered rows, with -If, beside the whole array', async () => {
    const r = await hogql(
      "SELECT groupArray(2)(event), groupArray(10)(event), groupArrayIf(1)(event, event = 'signup'), groupArray(event) FROM (SELECT event FROM events ORDER BY timestamp)",
    );
    expect(r.results).toEqual([[['$pageview', '$pageview'], ['$pageview', '$pageview', 'signup'], ['signup'], ['$pageview', '$pageview', 'signup']]]);
    expect(typesOf(r)).toEqual(['Array(String)', 'Array(String)', 'Array(String)', 'Array(String)']);
  });

  it('per group', async () => {
    expect(await rows('SELECT event, length(groupArray(1)(timestamp)) FROM events GROUP BY event ORDER BY event')).toEqual([
      ['$pageview', 1],
      ['signup', 1],
    ]);
  });
});

describe('test_mapping.py / test_query.py: week modes, calendar arithmetic and the project timezone', () => {
  it.each([
    // toStartOfWeek's mode: only whether weeks start on Monday (odd modes) or Sunday
    ["toStartOfWeek(toDate('2023-03-08'), 2)", '2023-03-05'],
    ["toStartOfWeek(toDate('2023-03-08'), 3)", '2023-03-06'],
    ["toStartOfWeek(toDate('2023-03-08'), 5)", '2023-03-06'],
    ["toStartOfWeek(toDate('2023-03-05'), 1)", '2023-02-27'],
    ["toStartOfWeek(toDate('2023-03-05'), 0)", '2023-03-05'],
    ["toMonday(toDate('2023-03-05'))", '2023-02-27'],
    // months and years added keep to the end of a shorter month
    ["toDate('2023-03-31') + INTERVAL 1 MONTH", '2023-04-30'],
    ["toDate('2024-02-29') + INTERVAL 1 YEAR", '2025-02-28'],
    ["date_add('month', 1, toDate('2023-01-31'))", '2023-02-28'],
    ["date_sub('month', 1, toDate('2023-03-31'))", '2023-02-28'],
    ["toDateTime('2023-03-08 10:00:00') + INTERVAL '1' DAY", '2023-03-09T10:00:00Z'],
    ["toDateTime('2023-03-08 10:00:00') - INTERVAL 90 MINUTE", '2023-03-08T08:30:00Z'],
    ["date_diff('hour', toDateTime('2023-03-08 10:00:00'), toDateTime('2023-03-09 12:00:00'))", 26],
    ["dateDiff('quarter', toDate('2023-03-31'), toDate('2023-04-01'))", 1],
    ["dateDiff('year', toDate('2022-12-31'), toDate('2023-01-01'))", 1],
    ["dateDiff('week', toDate('2023-03-01'), toDate('2023-03-20'))", 3],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('types: week and month buckets of toStartOfInterval are Date, dateTrunc of a DateTime a DateTime', async () => {
    const r = await hogql(
      "SELECT toStartOfInterval(toDateTime('2023-03-08 10:17:00'), INTERVAL 1 week), toStartOfInterval(toDateTime('2023-03-08 10:17:00'), INTERVAL 1 month), toStartOfInterval(toDateTime('2023-03-08 10:17:00'), INTERVAL 3 hour), dateTrunc('month', toDateTime('2023-03-08 10:17:00')), dateTrunc('quarter', toDate('2023-05-08'))",
    );
    expect(r.results).toEqual([['2023-03-06', '2023-03-01', '2023-03-08T09:00:00Z', '2023-03-01T00:00:00Z', '2023-04-01']]);
    expect(typesOf(r)).toEqual(['Date', 'Date', "DateTime('UTC')", "DateTime('UTC')", 'Date']);
  });

  it("today() / yesterday() / now() are the project timezone's (UTC+14 is a day ahead of UTC for ten hours of each day)", async () => {
    const tz = { timezone: 'Pacific/Kiritimati' };
    expect(await rows("SELECT today() = toDate(now()), dateDiff('day', yesterday(), today()), toTypeName(now()), toDate(now('UTC')) = toDate(toTimeZone(now(), 'UTC'))", tz)).toEqual([
      [1, 1, "DateTime64(6, 'Pacific/Kiritimati')", 1],
    ]);
  });

  it('text without an offset is local time in the project timezone; with one, converted', async () => {
    const tz = { timezone: 'Pacific/Kiritimati' };
    expect(await rows("SELECT toDateTime('2023-03-01 00:00:00'), toUnixTimestamp(toDateTime('2023-03-01 00:00:00')), toDate('2023-03-01T23:30:00Z'), toDateTime('2023-03-01T23:30:00Z')", tz)).toEqual([
      ['2023-03-01T00:00:00+14:00', 1677578400, '2023-03-02', '2023-03-02T13:30:00+14:00'],
    ]);
  });
});

describe("mapping.py's timeSlot, toLastDayOfWeek, toStartOfISOYear and (to|from)ModifiedJulianDay, with ClickHouse's values and types", () => {
  it.each([
    ["timeSlot(toDateTime('2023-03-08 10:47:12'))", '2023-03-08T10:30:00Z'],
    ["toTypeName(timeSlot(toDateTime('2023-03-08 10:47:12')))", "DateTime('UTC')"],
    ["toLastDayOfWeek(toDate('2023-03-08'))", '2023-03-11'],
    ["toLastDayOfWeek(toDate('2023-03-08'), 1)", '2023-03-12'],
    ["toLastDayOfWeek(toDateTime('2023-03-05 10:00:00'), 1)", '2023-03-05'],
    ["toTypeName(toLastDayOfWeek(toDate('2023-03-08')))", 'Date'],
    ["toStartOfISOYear(toDate('2023-03-08'))", '2023-01-02'],
    ["toStartOfISOYear(toDate('2021-01-02'))", '2019-12-30'],
    ["toStartOfISOYear(toDate('2024-12-31'))", '2024-12-30'],
    ["toModifiedJulianDay('2023-03-08')", 60011],
    ["toTypeName(toModifiedJulianDay('2023-03-08'))", 'Int32'],
    ["toModifiedJulianDayOrNull('nope')", null],
    ['fromModifiedJulianDay(60011)', '2023-03-08'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row, in the project timezone', async () => {
    const r = await hogql('SELECT timeSlot(timestamp), toLastDayOfWeek(timestamp), toStartOfISOYear(timestamp), toModifiedJulianDay(timestamp) FROM events ORDER BY timestamp', { timezone: 'America/New_York' });
    expect(r.results).toEqual([
      ['2023-03-01T05:00:00-05:00', '2023-03-04', '2023-01-02', 60004],
      ['2023-03-02T18:30:00-05:00', '2023-03-04', '2023-01-02', 60005],
      ['2023-03-02T19:00:00-05:00', '2023-03-04', '2023-01-02', 60005],
    ]);
    expect(typesOf(r)).toEqual(["DateTime('America/New_York')", 'Date', 'Date', 'Int32']);
  });
});

describe("mapping.py's dateName(part, t): the part as text", () => {
  it.each([
    ["dateName('year', toDateTime('2021-04-14 11:22:33'))", '2021'],
    ["dateName('month', toDateTime('2021-04-14 11:22:33'))", 'April'],
    ["dateName('day', toDateTime('2021-04-14 11:22:33'))", '14'],
    ["dateName('quarter', toDateTime('2021-04-14 11:22:33'))", '2'],
    ["dateName('weekday', toDateTime('2021-04-14 11:22:33'))", 'Wednesday'],
    ["dateName('hour', toDateTime('2021-04-14 11:22:33'))", '11'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row in the project timezone; an unknown part is a 400', async () => {
    expect(await rows("SELECT dateName('weekday', timestamp), dateName('day', timestamp) FROM events ORDER BY timestamp", { timezone: 'America/New_York' })).toEqual([
      ['Wednesday', '1'],
      ['Thursday', '2'],
      ['Thursday', '2'],
    ]);
    await fails("SELECT dateName('fortnight', now())", /dateName's first argument must be one of/);
  });
});

describe('posthog/hogql/functions/test/test_recording_button.py: recording_button(session_id[, recording_status])', () => {
  it("is PostHog's tag tuple, as sparkline is its chart marker", async () => {
    expect(await one("recording_button('12345-6789')")).toEqual(['__hx_tag', 'RecordingButton', 'sessionId', '12345-6789']);
    expect(await one("recording_button('12345-6789', 'active')")).toEqual(['__hx_tag', 'RecordingButton', 'sessionId', '12345-6789', 'recordingStatus', 'active']);
    expect(await perEvent('recording_button(properties.s)')).toEqual([
      ['__hx_tag', 'RecordingButton', 'sessionId', 'Ab'],
      ['__hx_tag', 'RecordingButton', 'sessionId', 'cD'],
      ['__hx_tag', 'RecordingButton', 'sessionId', null],
    ]);
  });

  it('takes one or two arguments', async () => {
    await fails('SELECT recording_button()', "Function 'recording_button' expects at least 1 argument, found 0");
    await fails("SELECT recording_button('a', 'b', 'c')", "Function 'recording_button' expects at most 2 arguments, found 3");
  });
});

describe("mapping.py rounding: roundToExp2, roundDuration, roundAge (ClickHouse's documented steps)", () => {
  it.each([
    ['roundToExp2(10)', 8],
    ['roundToExp2(1023)', 512],
    ['roundToExp2(1024)', 1024],
    ['roundToExp2(1)', 1],
    ['roundToExp2(0)', 0],
    ['roundToExp2(-5)', 0],
    ['roundToExp2(10.7)', 8],
    ['roundDuration(0)', 0],
    ['roundDuration(0.5)', 0],
    ['roundDuration(1)', 1],
    ['roundDuration(9)', 1],
    ['roundDuration(45)', 30],
    ['roundDuration(59.9)', 30],
    ['roundDuration(230)', 180],
    ['roundDuration(7199)', 3600],
    ['roundDuration(100000)', 36000],
    ['roundDuration(-5)', 0],
    ['roundAge(0)', 0],
    ['roundAge(1)', 17],
    ['roundAge(17.9)', 17],
    ['roundAge(18)', 18],
    ['roundAge(24.5)', 18],
    ['roundAge(30)', 25],
    ['roundAge(40)', 35],
    ['roundAge(54.9)', 45],
    ['roundAge(55)', 55],
    ['roundAge(90)', 55],
    ['roundAge(-3)', 0],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row, a missing property reads null; one argument only', async () => {
    expect(await perEvent('roundDuration(properties.n * 20)')).toEqual([10, 30, 60]);
    expect(await perEvent('roundToExp2(properties.n * 3)')).toEqual([2, 4, 8]);
    expect(await perEvent('roundAge(properties.missing)')).toEqual([null, null, null]);
    await fails('SELECT roundAge(1, 2)', "Function 'roundAge' expects 1 argument, found 2");
  });
});

describe("mapping.py unhex(s): the bytes of hexadecimal digits, hex's inverse", () => {
  it.each([
    ["unhex('61626364')", 'abcd'],
    ["unhex('6a6B')", 'jk'],
    ["unhex('')", ''],
    ["unhex(hex('Quarry'))", 'Quarry'],
    ["hex(unhex('4142'))", '4142'],
    ["length(unhex('414'))", 2],
    ["unhex('414') = concat(unhex('04'), unhex('14'))", 1],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row; a missing property reads null', async () => {
    expect(await perEvent('unhex(hex(properties.s))')).toEqual(['Ab', 'cD', null]);
    expect(await perEvent('unhex(properties.missing)')).toEqual([null, null, null]);
  });
});

describe("JSONLength counts an object's keys as well as an array's elements (ClickHouse's; 0 for a scalar or a missing path)", () => {
  const cases: [string, number][] = [
    ['JSONLength(\'{"a":1,"b":[1,2]}\')', 2],
    ['JSONLength(\'{"a":1,"b":[1,2]}\', \'b\')', 2],
    ['JSONLength(\'{"a":{"x":1,"y":2,"z":3}}\', \'a\')', 3],
    ["JSONLength('[1,2,3]')", 3],
    ['JSONLength(\'{"a":1}\', \'a\')', 0],
    ['JSONLength(\'{"a":1}\', \'b\')', 0],
    ["JSONLength('{}')", 0],
  ];
  it.each(cases)('%s = %j', async (expr, expected) => {
    if (testEngine() === 'clickhouse') return expect(hogql(`SELECT ${expr}`)).rejects.toThrow('Function "JSONLength" is not available on ClickHouse');
    expect(await one(expr)).toBe(expected);
  });
});

describe('arrayCompact: a run of NULLs is one NULL (NULLs equal each other), on every engine', () => {
  it.each([
    ['arrayCompact([1,1,NULL,NULL,2,1,NULL])', [1, null, 2, 1, null]],
    ["arrayCompact(['a','a','b'])", ['a', 'b']],
    ['arrayCompact([NULL,NULL])', [null]],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('array and string functions as ClickHouse answers them (negative slices, NULL as a value, padding, regexp replacement)', () => {
  it.each([
    ['arraySlice([1,2,3,4,5], -2)', [4, 5]],
    ['arraySlice([1,2,3,4,5], -3, 2)', [3, 4]],
    ['arraySlice([1,2,3,4,5], 2, -1)', [2, 3, 4]],
    ['arraySlice([1,2,3,4,5], -1, -1)', []],
    ['arraySlice([1,2,3], 0)', []],
    ['indexOf([1,NULL,3], NULL)', 2],
    ['indexOf([1,2,3], 4)', 0],
    ['has([1,NULL], NULL)', 1],
    ['hasAll([1,2,3], [])', 1],
    ['hasAny([1,2,3], [])', 0],
    ['range(0, 10, 3)', [0, 3, 6, 9]],
    ['arraySort(arrayIntersect([1,2,3],[2,3,4],[3,2]))', [2, 3]],
    ['arraySort(arrayDistinct([1,2,2,NULL,1]))', [1, 2]],
    ['arrayPopBack([1,2,3])', [1, 2]],
    ["arrayZip([1,2],['a','b'])", [[1, 'a'], [2, 'b']]],
    ["splitByString('', 'abc')", ['a', 'b', 'c']],
    ["splitByChar(',', 'a,,b')", ['a', '', 'b']],
    ["splitByChar(',', '')", ['']],
    ["extractAll('a1b22c333', '\\\\d+')", ['1', '22', '333']],
    ["replaceRegexpOne('Hello, World!', 'o', '0')", 'Hell0, World!'],
    ["replaceRegexpOne('abc', '(b)', '[\\\\1]')", 'a[b]c'],
    ["leftPad('abc', 7, '*')", '****abc'],
    ["leftPad('abc', 2)", 'ab'],
    ["rightPad('abc', 7, '*-')", 'abc*-*-'],
    ['modulo(-7, 3)', -1],
    ['modulo(7, -3)', 1],
    ['intDiv(-7, 2)', -3],
    ['arrayDifference([1,3,6])', [0, 2, 3]],
    ["arrayFirstIndex(x -> x > 5, [1,2,3])", 0],
    ["position('abc', '')", 1],
    ["substring('abcdef', -3)", 'def'],
    ['JSONExtractString(\'{"a":{"b":"c"}}\', \'a\', \'b\')', 'c'],
    ["toISOWeek(toDate('2023-01-01'))", 52],
    ["toISOYear(toDate('2023-01-01'))", 2022],
    ["formatDateTime(toDateTime('2023-03-01 10:20:30'), '%j %u %V %e %p %I %y %D %F %T %R %w')", '060 3 09  1 AM 10 23 03/01/23 2023-03-01 10:20:30 10:20 3'],
    ["dateDiff('quarter', toDate('2023-03-31'), toDate('2023-04-01'))", 1],
    ["toUnixTimestamp64Milli(toDateTime64('2023-03-01 00:00:00.123', 3, 'UTC'))", 1677628800123],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('parametric aggregates under -If: the condition filters the rows (quantileIf / quantilesIf on ClickHouse ignored it)', () => {
  it.each([
    ['quantileIf(0.5)(toFloat(properties.n), toFloat(properties.n) > 1)', 2.5],
    ['quantileIf(0.5)(properties.n, properties.n > 1)', 2.5],
    ["quantilesIf(0.5, 1)(toFloat(properties.n), event = '$pageview')", [1.5, 2]],
    ["medianIf(toFloat(properties.n), event = '$pageview')", 1.5],
    ["quantileExactIf(0.5)(toFloat(properties.n), event = '$pageview')", 2],
    ["topKIf(1)(event, event = 'signup')", ['signup']],
  ])('%s = %j', async (expr, expected) => {
    const r = await rows(`SELECT ${expr} FROM events`);
    expect(r[0][0]).toEqual(expected);
  });
});

describe('dates as ClickHouse gives them: week boundaries, toDayOfWeek modes, formatDateTime %g and the other codes', () => {
  it.each([
    ["dateDiff('minute', toDateTime('2023-03-01 00:00:59'), toDateTime('2023-03-01 00:01:00'))", 1],
    ["dateDiff('day', toDateTime('2023-03-01 23:59:00'), toDateTime('2023-03-02 00:00:00'))", 1],
    ["dateDiff('week', toDate('2023-03-04'), toDate('2023-03-05'))", 0],
    ["dateDiff('week', toDate('2023-03-05'), toDate('2023-03-06'))", 1],
    ["dateDiff('month', toDate('2023-03-31'), toDate('2023-03-01'))", 0],
    ["dateDiff('year', toDate('2024-01-01'), toDate('2023-12-31'))", -1],
    ["toDayOfWeek(toDate('2023-03-05'))", 7],
    ["toDayOfWeek(toDate('2023-03-05'), 1)", 6],
    ["toDayOfWeek(toDate('2023-03-05'), 2)", 0],
    ["toDayOfWeek(toDate('2023-03-05'), 3)", 1],
    ["toDayOfYear(toDate('2023-12-31'))", 365],
    ["toRelativeWeekNum(toDate('1970-01-05'))", 1],
    ["toRelativeMonthNum(toDate('2023-08-01'))", 24284],
    ["toString(toStartOfWeek(toDate('2023-03-05')))", '2023-03-05'],
    ["toString(toStartOfWeek(toDate('2023-03-05'), 1))", '2023-02-27'],
    ["toString(toStartOfInterval(toDateTime('2023-03-01 10:37:00'), toIntervalMinute(15)))", '2023-03-01 10:30:00'],
    ["toString(dateTrunc('quarter', toDateTime('2023-08-15 10:00:00')))", '2023-07-01 00:00:00'],
    ["formatDateTime(toDateTime('2023-03-01 13:05:09'), '%h %I %l %k %p %M %b %a %W %C %G %g')", '01 01 01 13 PM March Mar Wed Wednesday 20 2023 23'],
    ["formatDateTime(toDate('2023-01-01'), '%G %g %V')", '2022 22 52'],
    ["formatDateTime(toDateTime('2023-03-01 13:05:09'), '%%|%Q|%s')", '%|1|09'],
    ["toString(parseDateTimeBestEffort('2023-03-01T10:20:30+02:00'))", '2023-03-01 08:20:30.000000'],
    ["toString(addMonths(toDate('2023-01-31'), 1))", '2023-02-28'],
    ["toString(subtractYears(toDate('2024-02-29'), 1))", '2023-02-28'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('strings, URLs, conditionals and conversions as ClickHouse answers them (DuckDB-only functions a clear 400 on ClickHouse)', () => {
  it.each([
    ["splitByRegexp('\\\\d+', 'a12bc23de345f')", ['a', 'bc', 'de', 'f']],
    ["base64Encode('clickhouse')", 'Y2xpY2tob3VzZQ=='],
    ["base64Decode('Y2xpY2tob3VzZQ==')", 'clickhouse'],
    ["tryBase64Decode('%%%')", ''],
    ["upper('abc')", 'ABC'],
    ["trimLeft('  a  ')", 'a  '],
    ["trimRight('  a  ')", '  a'],
    ["startsWith('abc', '')", 1],
    ["endsWith('abc', 'bc')", 1],
    ["match('abc', '^a.c$')", 1],
    ["extract('abc123', '\\\\d+')", '123'],
    ["extract('abc', '\\\\d+')", ''],
    ["like('abc', 'a%')", 1],
    ["ilike('ABC', 'a%')", 1],
    ["concat('a', NULL)", 'a'],
    ["concat('a', 1, 2.5)", 'a12.5'],
    ["left('abcdef', 3)", 'abc'],
    ["right('abcdef', 2)", 'ef'],
    ["left('abc', -1)", 'ab'],
    ["right('abc', -1)", 'bc'],
    ["multiIf(1 = 2, 'a', 2 = 2, 'b', 'c')", 'b'],
    ["if(NULL, 'y', 'n')", 'n'],
    ["coalesce(NULL, NULL, 3)", 3],
    ["ifNull(NULL, 'x')", 'x'],
    ["nullIf(1, 1)", null],
    ["transform(2, [1, 2], ['a', 'b'], 'z')", 'b'],
    ["transform(3, [1, 2], ['a', 'b'], 'z')", 'z'],
    ["domain('https://www.example.com/a?b=1')", 'www.example.com'],
    ["domainWithoutWWW('https://www.example.com/a?b=1')", 'example.com'],
    ["path('https://www.example.com/a/b?b=1#f')", '/a/b'],
    ["queryString('https://www.example.com/a/b?b=1#f')", 'b=1'],
    ["extractURLParameter('https://x.com/?a=1&b=2', 'b')", '2'],
    ["cutQueryString('https://x.com/p?a=1')", 'https://x.com/p'],
    ["topLevelDomain('https://www.example.co.uk/')", 'uk'],
    ["protocol('https://x.com')", 'https'],
    ["encodeURLComponent('a b&c')", 'a%20b%26c'],
    ["decodeURLComponent('a%20b%26c')", 'a b&c'],
    ["toString(toUUID('00000000-0000-0000-0000-000000000001'))", '00000000-0000-0000-0000-000000000001'],
    ["toInt('12abc')", null],
    ["toString(1.0)", '1'],
    ["toString(0.1 + 0.2)", '0.30000000000000004'],
    ["toBool('true')", true],
  ])('%s = %j', async (expr, expected) => {
    const name = /^(base64Encode|base64Decode|tryBase64Decode|splitByRegexp|encodeURLComponent)\(/.exec(expr)?.[1];
    if (testEngine() === 'clickhouse' && name) return expect(hogql(`SELECT ${expr}`)).rejects.toThrow(`Function "${name}" is not available on ClickHouse`);
    expect(await one(expr)).toEqual(expected);
  });
});

describe('maths and arrays as ClickHouse answers them; gcd / lcm with a zero argument its "Division by zero" error', () => {
  it.each([
    ['floor(-2.5)', -3],
    ['ceil(-2.5)', -2],
    ['floor(123.456, 1)', 123.4],
    ['ceil(123.451, 2)', 123.46],
    ['floor(1234, -2)', 1200],
    ['round(1234.5678, -2)', 1200],
    ['trunc(-2.7)', -2],
    ['trunc(2.789, 2)', 2.78],
    ['abs(-3)', 3],
    ['intDivOrZero(5, 0)', 0],
    ['moduloOrZero(5, 0)', 0],
    ['positiveModulo(-7, 3)', 2],
    ['bitAnd(12, 10)', 8],
    ['bitOr(12, 10)', 14],
    ['bitXor(12, 10)', 6],
    ['bitShiftLeft(1, 4)', 16],
    ['bitShiftRight(16, 2)', 4],
    ['pow(2, -1)', 0.5],
    ['exp10(2)', 100],
    ['log2(8)', 3],
    ['intExp2(10)', 1024],
    ['greatest(1, 3, 2)', 3],
    ['least(1, 3, 2)', 1],
    ['divide(1, 0)', null],
    ['divide(0, 0)', null],
    ['7 / 2', 3.5],
    ['-7 % 3', -1],
    ['arrayMax([1, 5, 3])', 5],
    ['arrayAvg([1, 2])', 1.5],
    ['arrayReduce(\'max\', [1, 5, 3])', 5],
    ["arrayCount(x -> x > 1, [1, 2, 3])", 2],
    ['arrayResize([1], 3)', [1, 0, 0]],
    ['arrayWithConstant(2, \'a\')', ['a', 'a']],
    ['arrayRotateLeft([1,2,3], 1)', [2, 3, 1]],
    ['arrayEnumerateUniq([1,1,2,1])', [1, 2, 1, 3]],
    ['arrayEnumerateDense([10,20,10])', [1, 2, 1]],
    ['arrayFlatten([[1],[2,3]])', [1, 2, 3]],
    ['arrayLastIndex(x -> x > 1, [1,2,3])', 3],
    ['hasSubstr([1,2,3], [2,3])', 1],
    ['length([1,2])', 2],
    ['empty([])', 1],
    ['notEmpty([1])', 1],
    ['arrayElement([1,2,3], -1)', 3],
    ['[1,2,3][5]', 0],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it.each(['gcd(0, 5)', 'gcd(5, 0)', 'lcm(0, 5)', 'lcm(5, 0)'])('%s is a 400 (Division by zero)', async (expr) => {
    await expect(hogql(`SELECT ${expr}`)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/Division by zero/) });
  });
  it('gcd / lcm of negatives', async () => {
    expect(await rows('SELECT gcd(-4, 6), lcm(-4, 6)')).toEqual([[2, 12]]);
  });
});

describe('JSON functions with their types (JSONExtract, keys, raw arrays, lengths); those 18.16 lacks a clear 400 on ClickHouse', () => {
  it.each([
    ["JSONExtract('{\"a\":\"x\"}', 'a', 'String')", 'x'],
    ["JSONExtract('{\"a\":1.5}', 'a', 'Float64')", 1.5],
    ["JSONExtractKeys('{\"a\":1,\"b\":2}')", ['a', 'b']],
    ["JSONExtractArrayRaw('[1,\"x\",{\"a\":1}]')", ['1', '"x"', '{"a":1}']],
    ["JSONArrayLength('[1,2,3]')", 3],
    ["JSONArrayLength('{}')", null],
    ["JSONExtractKeysAndValues('{\"a\":1,\"b\":2}', 'Int64')", [['a', 1], ['b', 2]]],
    ["isValidJSON('{')", 0],
    ["JSONHas('{\"a\":{\"b\":null}}', 'a', 'b')", 1],
  ])('%s = %j', async (expr, expected) => {
    const name = /^(JSONExtractKeys|JSONExtractArrayRaw|JSONArrayLength|JSONExtractKeysAndValues|isValidJSON)\(/.exec(expr)?.[1];
    if (testEngine() === 'clickhouse' && name) return expect(hogql(`SELECT ${expr}`)).rejects.toThrow(`Function "${name}" is not available on ClickHouse`);
    expect(await one(expr)).toEqual(expected);
  });
});

describe("test_mapping.py toInt: accurateCastOrNull(x, 'Int64'), NULL where a number has no Int64 value", () => {
  it.each([
    ['toInt(1e30)', null],
    ['toInt(-1e30)', null],
    ['toInt(1 / 0)', null],
    ['toInt(-1 / 0)', null],
    ['toInt(0 / 0)', null],
    ['toInt(sqrt(-1))', null],
    ['toInt(toFloat(\'x\'))', null],
    ['toInt(toFloat(\'12\'))', 12],
    ['toInt(2)', 2],
    ['toInt(-7)', -7],
    ['toInt(1e15)', 1e15],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row, and typed Nullable(Int64) for a number as for text', async () => {
    expect(await perEvent('toInt(toFloat(properties.n) * 1e30 - 1e30)')).toEqual([0, null, null]);
    const r = await hogql("SELECT toInt(1.5e30), toInt(2), toInt('3'), toInt(toFloat(properties.n)) FROM events ORDER BY timestamp LIMIT 1");
    expect(r.results).toEqual([[null, 2, 3, 1]]);
    expect(typesOf(r)).toEqual(['Nullable(Int64)', 'Nullable(Int64)', 'Nullable(Int64)', 'Nullable(Int64)']);
  });
});

describe("test_mapping.py toInt / toFloat of text: accurateCastOrNull reads the whole text as one number of the type", () => {
  it.each([
    ["toInt('9223372036854775807')", 9223372036854775807],
    ["toInt('-9223372036854775808')", -9223372036854775808],
    ["toInt('9223372036854775808')", null],
    ["toInt('-9223372036854775809')", null],
    ["toInt('99999999999999999999')", null],
    ["toInt('+5')", 5],
    ["toInt('007')", 7],
    ["toFloat('1 ')", null],
    ["toFloat(' 1')", null],
    ["toFloat('1_000')", null],
    ["toFloat('.5')", 0.5],
    ["toFloat('1.')", 1],
    ["toFloat('1E3')", 1000],
    ["toFloat('')", null],
  ])('%s = %j', async (expr, expected) => {
    const v = await one(expr);
    expect(v === null ? null : Number(v)).toBe(expected);
  });

  it('per row, of a property', async () => {
    expect(await perEvent("toInt(concat(toString(properties.n), '0000000000000000000'))")).toEqual([null, null, null]);
    expect(await perEvent("toInt(concat(toString(properties.n), '000000000000000000'))")).toEqual(['1000000000000000000', '2000000000000000000', '3000000000000000000']);
  });
});

describe('test_mapping.py JSONExtractInt / JSONExtractRaw of JSON written with spaces, numbers in text, fractions', () => {
  it.each([
    ['JSONExtractInt(\'{"a": "5"}\', \'a\')', 5],
    ['JSONExtractInt(\'{"a": 5.7}\', \'a\')', 5],
    ['JSONExtractInt(\'{"a": -5.7}\', \'a\')', -5],
    ['JSONExtractInt(\'{"a": "2.9"}\', \'a\')', 2],
    ['JSONExtractInt(\'{"a": 1e3}\', \'a\')', 1000],
    ['JSONExtractInt(\'{"a": null}\', \'a\')', 0],
    ['JSONExtractFloat(\'{"a": "1.5"}\', \'a\')', 1.5],
    ['JSONExtractFloat(\'{"a": 2.25 }\', \'a\')', 2.25],
    ['JSONExtractRaw(\'{"a": "x"}\', \'a\')', '"x"'],
    ['JSONExtractRaw(\'{"a":  [1,2] }\', \'a\')', '[1,2]'],
    ['JSONExtractString(\'{"a":  "x y" }\', \'a\')', 'x y'],
    ['JSONExtractString(\'{"a": 1}\', \'a\')', ''],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row, of the properties', async () => {
    expect(await perEvent("JSONExtractInt(concat('{\"v\": ', toString(properties.n), '.9}'), 'v')")).toEqual([1, 2, 3]);
  });
});
