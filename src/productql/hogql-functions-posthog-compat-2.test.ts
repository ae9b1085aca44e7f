/**
 * HogQL function mapping cases ported from PostHog, second batch (after hogql-functions-posthog-compat.test.ts and
 * hogql-posthog-compat(-2 .. -7).test.ts, which this does not repeat): string, URL, array, date/time, aggregate and
 * type-check functions of posthog/hogql/functions/mapping.py (HOGQL_CLICKHOUSE_FUNCTIONS, HOGQL_AGGREGATIONS), with
 * the values current ClickHouse gives (posthog/hogql/functions/test/test_mapping.py, posthog/hogql/test/test_query.py
 * run them on current ClickHouse). Data through the real ingest path and runner, like PostHog's `_create_event`.
 * hogql-functions-posthog-compat-2.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, hogqlTestProject } from '../queries/funnels/testing';

const project = hogqlTestProject({
  persons: [{ id: '00000000-0000-4000-8000-0000000b22c8', distinct_ids: ['bob'], properties: { email: 'bob@x.com' } }],
  events: [
    ev('bob', '$pageview', '2021-01-01T10:00:00Z', { $current_url: 'https://www.example.com/a/b?utm_source=x&q=1#top', n: 1 }),
    ev('bob', '$pageview', '2021-01-02T10:00:00Z', { $current_url: 'http://shop.example.org/cart', n: 2 }),
    ev('bob', '$pageview', '2021-01-03T10:00:00Z', { n: 4 }),
  ],
});

const { hogql, rows, one } = project;

// First in the file, with a short query: the parser's first parse is its slowest (see parser.ts PARSE_TIMEOUT_MS).
describe('string functions (mapping.py: replaceOne, replaceRegexpOne, positionCaseInsensitive, startsWith, endsWith)', () => {
  it.each([
    ["replaceOne('hello hello', 'l', 'L')", 'heLlo hello'],
    ["replaceRegexpOne('abc123def456', '[0-9]+', 'X')", 'abcXdef456'],
    ["replaceRegexpAll('abc123def456', '[0-9]+', 'X')", 'abcXdefX'],
    ["replaceRegexpOne('2023-01-15', '([0-9]+)-([0-9]+)-([0-9]+)', '\\\\3/\\\\2/\\\\1')", '15/01/2023'],
    ["positionCaseInsensitive('Hello World', 'WORLD')", 7],
    ["position('Hello', 'z')", 0],
    ["position('Hello', 'l')", 3],
    ["extract('abc123def', '[0-9]+')", '123'],
    ["extract('abcdef', '[0-9]+')", ''],
    ["extractAll('a1b22c333', '[0-9]+')", ['1', '22', '333']],
    ["splitByChar(',', 'a,b,,c')", ['a', 'b', '', 'c']],
    ["splitByString(', ', 'a, b, c')", ['a', 'b', 'c']],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('leftPad / rightPad: pad to a length with a fill string (a space by default); a longer string is cut to the length', () => {
  it.each([
    ["leftPad('abc', 7, '*')", '****abc'],
    ["leftPad('abc', 5)", '  abc'],
    ["rightPad('abc', 5)", 'abc  '],
    ["leftPad('abc', 6, 'xy')", 'xyxabc'],
    ["rightPad('abc', 6, 'xy')", 'abcxyx'],
    ["leftPad('abcdef', 3)", 'abc'],
    ["rightPad('abcdef', 3)", 'abc'],
    ["leftPad('abc', 0)", ''],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe('substring: 1-based; a negative offset counts from the end', () => {
  it.each([
    ["substring('Hello', 2)", 'ello'],
    ["substring('Hello', 2, 3)", 'ell'],
    ["substring('Hello', -3)", 'llo'],
    ["substring('Hello', -3, 2)", 'll'],
    ["substring('Hello', 10)", ''],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe('lengthUTF8 / empty / notEmpty (predicates are UInt8 1/0, as ClickHouse comparisons are)', () => {
  it.each([
    ["lengthUTF8('héllo')", 5],
    ["empty('')", 1],
    ["empty('a')", 0],
    ["notEmpty('')", 0],
    ["notEmpty('a')", 1],
    ['empty([])', 1],
    ['notEmpty([1])', 1],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('toString of numbers and dates', () => {
  it.each([
    ['toString(1.5)', '1.5'],
    ['toString(42)', '42'],
    ['toString(-3)', '-3'],
    ["toString(toDate('2023-01-02'))", '2023-01-02'],
    // toDateTime(text) is a DateTime64(6) (mapping.py: parseDateTime64BestEffortOrNull(text, 6, tz)): six decimals
    ["toString(toDateTime('2023-01-02 03:04:05'))", '2023-01-02 03:04:05.000000'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe("URL functions (ClickHouse's, in mapping.py)", () => {
  const U = "'https://www.example.com:8080/a/b?utm_source=x&q=1#top'";
  it.each([
    [`protocol(${U})`, 'https'],
    [`domain(${U})`, 'www.example.com'],
    [`domainWithoutWWW(${U})`, 'example.com'],
    [`topLevelDomain(${U})`, 'com'],
    [`path(${U})`, '/a/b'],
    [`pathFull(${U})`, '/a/b?utm_source=x&q=1#top'],
    [`queryString(${U})`, 'utm_source=x&q=1'],
    [`fragment(${U})`, 'top'],
    [`cutQueryString(${U})`, 'https://www.example.com:8080/a/b#top'],
    [`cutFragment(${U})`, 'https://www.example.com:8080/a/b?utm_source=x&q=1'],
    [`cutQueryStringAndFragment(${U})`, 'https://www.example.com:8080/a/b'],
    [`extractURLParameter(${U}, 'q')`, '1'],
    [`extractURLParameter(${U}, 'missing')`, ''],
    [`extractURLParameters(${U})`, ['utm_source=x', 'q=1']],
    [`extractURLParameterNames(${U})`, ['utm_source', 'q']],
    ["decodeURLComponent('a%20b%2Fc')", 'a b/c'],
    ["domain('not a url')", ''],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('over a property', async () => {
    expect(await rows('SELECT domain(properties.$current_url), path(properties.$current_url) FROM events ORDER BY timestamp')).toEqual([
      ['www.example.com', '/a/b'],
      ['shop.example.org', '/cart'],
      [null, null],
    ]);
  });
});

describe('array functions (mapping.py)', () => {
  it.each([
    ['arraySlice([1, 2, 3, 4, 5], 2)', [2, 3, 4, 5]],
    ['arraySlice([1, 2, 3, 4, 5], 2, 2)', [2, 3]],
    ['arraySlice([1, 2, 3, 4, 5], -2)', [4, 5]],
    ['arraySlice([1, 2, 3, 4, 5], -3, 2)', [3, 4]],
    ['arraySlice([1, 2, 3, 4, 5], 2, -1)', [2, 3, 4]],
    ['arrayCompact([1, 1, 2, 2, 1, 3, 3])', [1, 2, 1, 3]],
    ['arrayCount(x -> x > 1, [1, 2, 3])', 2],
    ['arraySum([1, 2, 3])', 6],
    ['arraySum([1.5, 2.5])', 4],
    ['arrayAvg([1, 2, 3, 4])', 2.5],
    ['arrayMin([3, 1, 2])', 1],
    ['arrayMax([3, 1, 2])', 3],
    ['has([1, 2, 3], 2)', 1],
    ['has([1, 2, 3], 4)', 0],
    ["has(['a', 'b'], 'b')", 1],
    ['arrayFlatten([[1, 2], [3], []])', [1, 2, 3]],
    ['arraySort(arrayIntersect([1, 2, 3], [2, 3, 4]))', [2, 3]],
    ['arrayUniq([1, 2, 2, 3, 3, 3])', 3],
    ['arraySort(arrayDistinct([3, 1, 3, 2, 1]))', [1, 2, 3]],
    ['indexOf([10, 20, 30], 30)', 3],
    ['indexOf([10, 20, 30], 40)', 0],
    ["arrayStringConcat(['a', 'b', 'c'], '-')", 'a-b-c'],
    ["arrayStringConcat(['a', 'b'])", 'ab'],
    ['range(5)', [0, 1, 2, 3, 4]],
    ['range(1, 6, 2)', [1, 3, 5]],
    ['range(1, 10, 3)', [1, 4, 7]],
    ['range(5, 2, 1)', []],
    ['arrayReverse([1, 2, 3])', [3, 2, 1]],
    ['countEqual([1, 2, 1, 1], 1)', 3],
    ['arrayElement([10, 20, 30], -1)', 30],
    ['[10, 20, 30][2]', 20],
    ['arrayFirst(x -> x > 1, [1, 2, 3])', 2],
    ['arrayLastIndex(x -> x > 1, [1, 2, 3])', 3],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('arrayZip: tuples of the i-th elements', async () => {
    expect(await one("arrayZip([1, 2], ['a', 'b'])")).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
  });
});

describe('date and time functions (mapping.py)', () => {
  it.each([
    ["toYYYYMM(toDate('2023-05-14'))", 202305],
    ["toYYYYMMDD(toDate('2023-05-14'))", 20230514],
    ["toYYYYMMDD(toDateTime('2023-05-14 23:00:00'))", 20230514],
    ["toStartOfMonth(toDate('2023-05-14'))", '2023-05-01'],
    ["toStartOfYear(toDate('2023-05-14'))", '2023-01-01'],
    ["toStartOfWeek(toDate('2023-01-04'))", '2023-01-01'],
    ["toStartOfWeek(toDate('2023-01-04'), 1)", '2023-01-02'],
    ["toMonday(toDate('2023-01-01'))", '2022-12-26'],
    ["toStartOfInterval(toDateTime('2023-01-02 13:47:31'), toIntervalMinute(15))", '2023-01-02T13:45:00Z'],
    ["toStartOfInterval(toDateTime('2023-01-02 13:47:31'), INTERVAL 1 HOUR)", '2023-01-02T13:00:00Z'],
    ["toStartOfDay(toDateTime('2023-01-02 13:47:31'))", '2023-01-02T00:00:00Z'],
    ["toStartOfHour(toDateTime('2023-01-02 13:47:31'))", '2023-01-02T13:00:00Z'],
    ["toStartOfFifteenMinutes(toDateTime('2023-01-02 13:47:31'))", '2023-01-02T13:45:00Z'],
    ["addDays(toDate('2023-01-31'), 1)", '2023-02-01'],
    ["addMonths(toDate('2023-01-31'), 1)", '2023-02-28'],
    ["subtractHours(toDateTime('2023-01-01 01:00:00'), 2)", '2022-12-31T23:00:00Z'],
    ["addWeeks(toDate('2023-01-01'), 2)", '2023-01-15'],
    ["subtractYears(toDate('2024-02-29'), 1)", '2023-02-28'],
    ["toDayOfWeek(toDate('2023-01-01'))", 7],
    ["toDayOfWeek(toDate('2023-01-02'))", 1],
    ["toDayOfYear(toDate('2023-02-01'))", 32],
    ["toQuarter(toDate('2023-05-14'))", 2],
    ["toISOWeek(toDate('2023-01-01'))", 52],
    ["toLastDayOfMonth(toDate('2024-02-10'))", '2024-02-29'],
    ["toRelativeDayNum(toDate('1970-01-11'))", 10],
    ["age('day', toDate('2023-01-31'), toDate('2023-02-28'))", 28],
    ["age('year', toDate('2020-03-01'), toDate('2023-02-28'))", 2],
    ["toDateTime('2023-01-02 03:04:05')", '2023-01-02T03:04:05Z'],
    ["toDateTime('not a date')", null],
    ["toUnixTimestamp(toDateTime('2023-01-01 00:00:00'))", 1672531200],
    ['toDateTime(1672531200)', '2023-01-01T00:00:00Z'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('aggregations (HOGQL_AGGREGATIONS)', () => {
  const over = (agg: string, values: string) => one(`${agg} FROM (SELECT arrayJoin(${values}) AS x)`);
  it.each([
    ['quantile(0.5)(x)', '[1, 2, 3, 4]', 2.5],
    ['median(x)', '[1, 2, 3, 4, 5]', 3],
    ['quantiles(0.25, 0.5, 0.75)(x)', '[1, 2, 3, 4, 5]', [2, 3, 4]],
    ['uniqIf(x, x > 1)', '[1, 2, 2, 3]', 2],
    ['countIf(x > 1)', '[1, 2, 2, 3]', 3],
    ['sumIf(x, x > 1)', '[1, 2, 2, 3]', 7],
    ['groupArrayIf(x, x > 1)', '[1, 2, 2, 3]', [2, 2, 3]],
    ['arraySort(groupUniqArray(x))', '[3, 1, 3, 2]', [1, 2, 3]],
    ['varPop(x)', '[1, 2, 3, 4]', 1.25],
    ['stddevPop(x)', '[2, 4, 4, 4, 5, 5, 7, 9]', 2],
    ['varSamp(x)', '[1, 2, 3, 4, 5]', 2.5],
    ['count(DISTINCT x)', '[1, 2, 2, 3]', 3],
    ['countDistinct(x)', '[1, 2, 2, 3]', 3],
    ['avgWeighted(x, x)', '[1, 2, 3]', 14 / 6],
  ])('%s over %s = %j', async (agg, values, expected) => {
    expect(await over(agg, values)).toEqual(expected);
  });

  it('stddevSamp and corr', async () => {
    expect(await one('stddevSamp(x) FROM (SELECT arrayJoin([1, 2, 3, 4]) AS x)')).toBeCloseTo(1.2909944487358056, 12);
    expect(await one('corr(x, y) FROM (SELECT arrayJoin([1, 2, 3]) AS x, x * 2 AS y)')).toBeCloseTo(1, 12);
  });

  it('over events', async () => {
    expect(await rows("SELECT quantile(0.5)(toFloat(properties.n)), uniqIf(properties.$current_url, isNotNull(properties.$current_url)), anyLast(event) FROM events")).toEqual([[2, 2, '$pageview']]);
  });
});

describe('type checks: isNaN, isFinite, isInfinite, toTypeName', () => {
  it.each([
    ['isNaN(0 / 0)', 1],
    ['isNaN(1 / 2)', 0],
    ['isFinite(1 / 0)', 0],
    ['isFinite(1.5)', 1],
    ['isInfinite(-1 / 0)', 1],
    ['toTypeName([1, 2])', 'Array(UInt8)'],
    ["toTypeName(['a'])", 'Array(String)'],
    ['toTypeName(NULL)', 'Nullable(Nothing)'],
    ["toTypeName(toInt('1'))", 'Nullable(Int64)'],
    ["toTypeName(toFloat('1'))", 'Nullable(Float64)'],
    ["toTypeName(toDateOrNull('2023-01-01'))", 'Nullable(Date)'],
    ['toTypeName(toString(1))', 'String'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe("concat of numbers, dates and NULL (HogQL's concat: each argument as text, NULL as '')", () => {
  it.each([
    ["concat('a', 1, 2.5)", 'a12.5'],
    ["concat('v', -3, '.', 0)", 'v-3.0'],
    ["concat('d:', toDate('2023-01-02'))", 'd:2023-01-02'],
    ["'a' || 1", 'a1'],
    ['concat(NULL, NULL)', ''],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('of a missing property', async () => {
    expect(await rows("SELECT concat('n=', properties.n, ' url=', properties.$current_url) FROM events ORDER BY timestamp")).toEqual([
      ['n=1 url=https://www.example.com/a/b?utm_source=x&q=1#top'],
      ['n=2 url=http://shop.example.org/cart'],
      ['n=4 url='],
    ]);
  });
});

describe('aggregations skip NULLs (groupArray, count(x), uniq, avg, min, max)', () => {
  const over = (agg: string) => one(`${agg} FROM (SELECT arrayJoin([1, NULL, 2, NULL, 2]) AS x)`);
  it.each([
    ['groupArray(x)', [1, 2, 2]],
    ['count(x)', 3],
    ['count()', 5],
    ['uniq(x)', 2],
    ['sum(x)', 5],
    ['avg(x)', 5 / 3],
    ['min(x)', 1],
    ['max(x)', 2],
    ['countIf(isNull(x))', 2],
  ])('%s over [1, NULL, 2, NULL, 2] = %j', async (agg, expected) => {
    expect(await over(agg)).toEqual(expected);
  });

  it('over a property some events lack', async () => {
    expect(await rows('SELECT groupArray(properties.$current_url), count(properties.$current_url), uniq(properties.$current_url) FROM events')).toEqual([
      [['https://www.example.com/a/b?utm_source=x&q=1#top', 'http://shop.example.org/cart'], 2, 2],
    ]);
  });
});

describe("toDateTime of text: PostHog's parseDateTime64BestEffortOrNull", () => {
  it.each([
    ["toDateTime('2023-01-02T03:04:05Z')", '2023-01-02T03:04:05Z'],
    ["toDateTime('2023-01-02T03:04:05+02:00')", '2023-01-02T01:04:05Z'],
    ["toDateTime('2023-01-02')", '2023-01-02T00:00:00Z'],
    ["toDateTime('')", null],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe("round of a float half-way: ClickHouse's banker's rounding for floats (\"rounds to the nearest even\")", () => {
  it.each([
    ['round(2.5)', 2],
    ['round(3.5)', 4],
    ['round(-2.5)', -2],
    ['round(0.125, 2)', 0.12],
    ['round(2.6)', 3],
    ['round(1234, -2)', 1200],
    ['round(toFloat(1250), -2)', 1200],
    ['round(toFloat(1350), -2)', 1400],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('over a column', async () => {
    expect(await rows('SELECT round(toFloat(properties.n) / 4, 1), round(toFloat(properties.n) + 0.5) FROM events ORDER BY timestamp')).toEqual([
      [0.2, 2],
      [0.5, 2],
      [1, 4],
    ]);
  });
});

describe('calendar functions of a DateTime that answer a Date (current ClickHouse)', () => {
  it.each([
    ["toStartOfWeek(toDateTime('2023-01-04 10:00:00'))", '2023-01-01'],
    ["toStartOfMonth(toDateTime('2023-05-14 10:00:00'))", '2023-05-01'],
    ["toStartOfYear(toDateTime('2023-05-14 10:00:00'))", '2023-01-01'],
    ["toMonday(toDateTime('2023-01-04 10:00:00'))", '2023-01-02'],
    ["toDate(toDateTime('2023-05-14 23:59:59'))", '2023-05-14'],
    ["toStartOfInterval(toDate('2023-05-14'), toIntervalMonth(1))", '2023-05-01'],
    ["toStartOfInterval(toDate('2023-05-14'), toIntervalYear(1))", '2023-01-01'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe('quantiles at the ends, and of a single row', () => {
  it.each([
    ['quantiles(0, 1)(x)', '[3, 1, 5, 2, 4]', [1, 5]],
    ['quantile(0)(x)', '[3, 1, 5]', 1],
    ['quantile(1)(x)', '[3, 1, 5]', 5],
    ['quantile(0.9)(x)', '[7]', 7],
    ['median(x)', '[7]', 7],
  ])('%s over %s = %j', async (agg, values, expected) => {
    expect(await one(`${agg} FROM (SELECT arrayJoin(${values}) AS x)`)).toEqual(expected);
  });
});

describe('toString of floats: the shortest text that reads back as the same number', () => {
  it.each([
    ['toString(1.0)', '1'],
    ['toString(-0.5)', '-0.5'],
    ['toString(0.1 + 0.2)', '0.30000000000000004'],
    ['toString(1 / 3)', '0.3333333333333333'],
    ['toString(2.5e-3)', '0.0025'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe('extractURLParameter / decodeURLComponent edge cases', () => {
  it.each([
    ["extractURLParameter('http://a.com/?x=a%20b', 'x')", 'a%20b'],
    ["extractURLParameter('http://a.com/?x=1&x=2', 'x')", '1'],
    ["extractURLParameter('http://a.com/?xy=1&x=2', 'x')", '2'],
    ["decodeURLComponent('a+b%2Bc')", 'a+b+c'],
    ["decodeURLComponent('%E2%9C%93')", '✓'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe('arrays: empty arrays, deep flattening', () => {
  it.each([
    ['arrayFlatten([[[1]], [[2, 3]]])', [1, 2, 3]],
    ['arraySum(arrayFilter(x -> x > 5, [1, 2]))', 0],
    ["arrayStringConcat(arrayFilter(x -> x != '', ['']), ',')", ''],
    ['arrayCompact(arrayFilter(x -> x > 5, [1, 2]))', []],
    ['arrayIntersect([1, 2], [3])', []],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('-If aggregations when no row matches: the type default (0, [])', () => {
  it('sumIf / countIf / uniqIf / groupArrayIf / minIf / maxIf', async () => {
    expect(await one('sumIf(x, x > 9), countIf(x > 9), uniqIf(x, x > 9), groupArrayIf(x, x > 9), minIf(x, x > 9), maxIf(x, x > 9) FROM (SELECT arrayJoin([1, 2, 3]) AS x)')).toBe(0);
    expect((await rows('SELECT sumIf(x, x > 9), countIf(x > 9), uniqIf(x, x > 9), groupArrayIf(x, x > 9), minIf(x, x > 9), maxIf(x, x > 9) FROM (SELECT arrayJoin([1, 2, 3]) AS x)'))[0]).toEqual([0, 0, 0, [], 0, 0]);
  });
});

describe('splitting and searching with empty strings, reverse of an array', () => {
  it.each([
    ["splitByChar(',', '')", ['']],
    ["splitByString('', 'abc')", ['a', 'b', 'c']],
    ["position('abc', '')", 1],
    ["positionCaseInsensitive('abc', '')", 1],
    ['reverse([1, 2, 3])', [3, 2, 1]],
    ["reverse('abc')", 'cba'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});
