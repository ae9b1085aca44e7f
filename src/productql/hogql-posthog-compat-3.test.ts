/**
 * HogQL functions and printer cases ported from PostHog's tests, after hogql-posthog-compat(-2).test.ts and
 * functions-hogql.test.ts (which this does not repeat): posthog/hogql/test/test_printer.py (the error texts of
 * unknown functions and wrong arities, nullish comparisons, IN with tuples, escapes, unicode, lambdas),
 * posthog/hogql/test/test_query.py (sparkline) and the function tables of posthog/hogql/functions/mapping.py
 * (HOGQL_AGGREGATIONS with the -If combinator, HOGQL_CLICKHOUSE_FUNCTIONS: maths, conversions, dates, strings, URLs,
 * arrays, transform). hogql-posthog-compat-3.clickhouse.test.ts runs this file on ClickHouse 18.16 with the same
 * expected results; where 18.16 cannot do a function at all the test pins a clear 400 there instead.
 * The project timezone is Europe/Berlin (UTC+1, UTC+2 from 2024-03-31 01:00 UTC).
 */
import { shutdownParser } from './index';
import { createTestDb, type TestDb } from './testing';
import { testEngine } from '../engines/clickhouse/test-engine';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
  // one more project 1 event, with a URL
  await db.addEvents([
    {
      project_id: 1,
      uuid: '20000000-0000-4000-8000-000000000001',
      event: 'url-test',
      distinct_id: 'u',
      person_id: null,
      timestamp: Date.parse('2024-04-02T00:00:00Z'),
      properties: JSON.stringify({ $current_url: 'https://app.posthog.com/insights?utm_source=x#new' }),
      session_id: null,
      elements_chain: null,
      created_at: Date.parse('2024-04-02T00:00:00Z'),
    },
  ]);
});
afterAll(async () => {
  await db?.close();
  await shutdownParser();
});

const onClickHouse = testEngine() === 'clickhouse';
const row = async (text: string): Promise<unknown[]> => (await db.query(text)).results[0];
const all = async (text: string): Promise<unknown[][]> => (await db.query(text)).results;
const fails = (text: string, message: string | RegExp) =>
  expect(db.query(text)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message: typeof message === 'string' ? message : expect.stringMatching(message) });

describe('test_printer.py test_expr_parse_errors: function errors in PostHog words', () => {
  it.each([
    ['select count(1, 2, 3, 4) from events', "Aggregation 'count' expects at most 1 argument, found 4"],
    ['select countIf() from events', "Aggregation 'countIf' expects at least 1 argument, found 0"],
    ['select countIf(2, 3, 4) from events', "Aggregation 'countIf' expects at most 2 arguments, found 3"],
    ['select sparkline()', "Function 'sparkline' expects 1 argument, found 0"],
    // mapping.py: "toStartOfDay": HogQLFunctionMeta("toStartOfDay", 1, 2) (value, timezone)
    ['select toStartOfDay()', "Function 'toStartOfDay' expects at least 1 argument, found 0"],
    ['select arrayMap(x -> x * 2)', "Function 'arrayMap' expects at least 2 arguments, found 1"],
    ['select quantile(price) from events', "Aggregation 'quantile' requires parameters in addition to arguments"],
    ['select quantile(0.1, 0.2)(price) from events', "Aggregation 'quantile' expects 1 parameter, found 2"],
    ['select argMaxIf(event) from events', "Aggregation 'argMaxIf' expects 3 arguments, found 1"],
  ])('%s', async (text, message) => {
    await fails(text, message);
  });

  it('an unknown function is "Unsupported function call", with the closest name when there is one', async () => {
    await fails('select hamming_distance(1, 2)', /^Unsupported function call 'hamming_distance\(\.\.\.\)'/);
    await fails('select toStartOfDy(timestamp) from events', "Unsupported function call 'toStartOfDy(...)'. Perhaps you meant 'toStartOfDay(...)'?");
    await fails('select zzqqxx()', "Unsupported function call 'zzqqxx(...)'");
  });

  it('test_mapping.py: SQL-standard names in any case, every other name exactly as spelled', async () => {
    expect(await row("select COUNT(), Sum(1), LOWER('A'), CoAlesce(null, 1), ABS(-1), DATE_TRUNC('day', toDate('2024-01-02'))")).toEqual([1, 1, 'a', 1, 1, '2024-01-02']);
    await fails('select TOString(1)', /^Unsupported function call 'TOString\(\.\.\.\)'/);
    await fails('select PlUs(1, 2)', /^Unsupported function call 'PlUs\(\.\.\.\)'/);
    await fails('select COUNTIF(1)', /^Unsupported function call 'COUNTIF\(\.\.\.\)'/);
  });

  it('the -If combinator applies to aggregations only', async () => {
    await fails("select lowerIf('A', 1)", /^Unsupported function call 'lowerIf\(\.\.\.\)'/);
    await fails('select sumIfIf(1, 1, 1)', /^Unsupported function call 'sumIfIf\(\.\.\.\)'/);
  });
});

describe('test_query.py test_sparkline', () => {
  it("sparkline(values) is PostHog's chart marker tuple", async () => {
    expect(await row('select sparkline((1, 2, 3))')).toEqual([['__hogql_chart_type', 'sparkline', 'results', [1, 2, 3]]]);
    expect(await row('select sparkline([4, 5])')).toEqual([['__hogql_chart_type', 'sparkline', 'results', [4, 5]]]);
  });
});

describe('HOGQL_AGGREGATIONS: the -If combinator on every aggregation', () => {
  // Project 1's $pageview prices: 10, 9.5, '100' (text) and two without one; 'signup' has 'abc'.
  it('filters the aggregated rows by the last argument', async () => {
    expect(
      await row(
        "select argMaxIf(properties.$browser, timestamp, event = '$pageview' and properties.$browser != ''), argMinIf(properties.$browser, timestamp, event = '$pageview'), " +
          "arraySort(groupArrayIf(properties.$browser, event = '$pageview')), arraySort(groupUniqArrayIf(event, event != 'signup')), countIf(properties.plan, event = 'signup'), " +
          "medianIf(toFloat(properties.price), event = '$pageview'), stddevPopIf(toFloat(properties.price), toFloat(properties.price) < 50) from events",
      ),
    ).toEqual(['Chrome', 'Chrome', ['', 'Chrome', 'Chrome', 'Safari'], ['$pageview', 'url-test'], 1, 10, 0.25]);
  });

  it('keeps the parameters of a parametric aggregation: quantileIf(0.5)(x, cond)', async () => {
    expect(await row("select quantileIf(0.5)(toFloat(properties.price), event = '$pageview'), quantileExactIf(0.5)(toFloat(properties.price), 1 = 1) from events")).toEqual([10, 10]);
  });
});

describe('HOGQL_AGGREGATIONS: the -Distinct combinator', () => {
  it('aggregates the distinct values, also with -If', async () => {
    expect(await row("select countDistinct(event), countDistinctIf(event, event != 'signup'), sumDistinct(x), avgDistinct(x) from events, (select arrayJoin([1, 1, 2]) as x) as t")).toEqual([3, 2, 3, 1.5]);
    await fails('select lowerDistinct(event) from events', /^Unsupported function call 'lowerDistinct\(\.\.\.\)'/);
  });
});

describe('HOGQL_AGGREGATIONS: more aggregations', () => {
  const xs = 'select number as x, number * 2 + 1 as y from numbers(1, 4)'; // x 1..4, y 3 5 7 9

  it('exact quantiles take a value of the sorted set; Low/High pick the lower/upper middle', async () => {
    expect(await row(`select medianExact(x), medianExactLow(x), medianExactHigh(x), quantileExact(0.25)(x), quantileExactLow(0.5)(x), quantileExactHigh(0.5)(x), quantileExact(1)(x), quantileTiming(0.5)(x) from (${xs})`)).toEqual([
      3, 2, 3, 2, 2, 3, 4, 3,
    ]);
    expect(await row('select medianExact(x), medianExactLow(x) from (select number as x from numbers(1, 5))')).toEqual([3, 3]);
  });

  it('interpolating quantiles and median variants', async () => {
    expect(await row(`select median(x), medianTDigest(x), medianDeterministic(x, y), quantileTDigest(0.5)(x), quantileDeterministic(0.5)(x, y) from (${xs})`)).toEqual([2.5, 2.5, 2.5, 2.5, 2.5]);
  });

  it('uniq variants count distinct values; uniqUpTo(N) stops at N + 1', async () => {
    expect(await row(`select uniqCombined(x), uniqCombined64(x % 2), uniqHLL12(x, y), uniqTheta(y), uniqUpTo(2)(x), uniqUpTo(10)(x) from (${xs})`)).toEqual([4, 2, 4, 4, 3, 4]);
  });

  it('statistics of two columns, weighted average, bitwise aggregations, anyLast/anyHeavy', async () => {
    const r = await row(`select covarPop(x, y), covarSamp(x, y), corr(x, y), avgWeighted(x, y), groupBitOr(x), groupBitAnd(y), groupBitXor(x), anyHeavy(7), anyLast(7) from (${xs})`);
    expect(r.slice(0, 4).map((v) => Math.round((v as number) * 1e6) / 1e6)).toEqual([2.5, 3.333333, 1, 2.916667]);
    expect(r.slice(4)).toEqual([7, 1, 4, 7, 7]);
  });

  it('topK(N)(x): the N most frequent values, most frequent first', async () => {
    expect(await row("select topK(1)(event), topK(event) from events where event != 'url-test'")).toEqual([['$pageview'], ['$pageview', 'signup']]);
  });
});

describe('HOGQL_CLICKHOUSE_FUNCTIONS: maths', () => {
  const round6 = (vs: unknown[]) => vs.map((v) => (typeof v === 'number' ? Math.round(v * 1e6) / 1e6 : v));

  it.each([
    ['pi(), e()', [3.141593, 2.718282]],
    ['ln(e()), exp2(3), exp10(2), cbrt(27), log1p(0)', [1, 8, 100, 3, 0]],
    ['sin(0), cos(0), tan(0), asin(1), acos(1), atan(1)', [0, 1, 0, 1.570796, 0, 0.785398]],
    ['atan2(1, 1), atan2(1, -1), atan2(-1, -1), atan2(1, 0), atan2(0, 1)', [0.785398, 2.356194, -2.356194, 1.570796, 0]],
    ['degrees(pi()), radians(180), hypot(3, 4)', [180, 3.141593, 5]],
    ['sign(-5), sign(0), sign(2.5), negate(3), negate(-1.5)', [-1, 0, 1, -3, 1.5]],
    ['intDivOrZero(7, 2), intDivOrZero(7, 0), moduloOrZero(7, 3), moduloOrZero(7, 0)', [3, 0, 1, 0]],
    ['gcd(12, 18), lcm(4, 6)', [6, 12]],
    ['trunc(2.7), trunc(-2.7), trunc(1.279, 2)', [2, -2, 1.27]],
    ['isFinite(1), isInfinite(1 / 0), isNaN(0 / 0), isNaN(1)', [1, 1, 1, 0]],
    ['positiveModulo(-7, 3), positiveModulo(7, 3), bitShiftLeft(1, 4), bitShiftRight(16, 2), bitNot(0)', [2, 1, 16, 4, -1]],
    ['xor(1, 0), xor(1, 1), xor(1, 1, 1), xor(0, 0)', [1, 0, 1, 0]],
  ])('%s', async (exprs, expected) => {
    expect(round6(await row(`select ${exprs}`))).toEqual(expected);
  });

  it('roundBankers rounds half to even (DuckDB; 18.16 lacks it: a 400)', async () => {
    if (onClickHouse) return fails('select roundBankers(2.5)', /"roundBankers" is not available on ClickHouse/);
    expect(await row('select roundBankers(2.5), roundBankers(3.5), roundBankers(1.25, 1)')).toEqual([2, 4, 1.2]);
  });
});

describe('HOGQL_CLICKHOUSE_FUNCTIONS: conversions', () => {
  const U = '00000000-0000-4000-8000-00000000a001';

  it('toUUIDOrNull / toUUIDOrZero, toFloatOrDefault, toNullable / toLowCardinality', async () => {
    expect(await row(`select toUUIDOrNull('${U}'), toUUIDOrNull('nope'), toUUIDOrZero('nope'), toFloatOrDefault('1.5', 0), toFloatOrDefault('x', 7), toNullable(1), toLowCardinality('a')`)).toEqual([
      U,
      null,
      '00000000-0000-0000-0000-000000000000',
      1.5,
      7,
      1,
      'a',
    ]);
  });

  it('toTypeName of toNullable is Nullable', async () => {
    expect(await row("select toTypeName(toNullable('a'))")).toEqual(['Nullable(String)']);
  });
});

describe('HOGQL_CLICKHOUSE_FUNCTIONS: dates', () => {
  const T = "toDateTime('2024-01-31 10:30:00')";

  it('addX / subtractX shift by calendar units in the project timezone', async () => {
    expect(
      await row(
        `select addSeconds(${T}, 30), addMinutes(${T}, 30), addHours(${T}, 2), addDays(${T}, 1), addWeeks(${T}, 1), addMonths(${T}, 1), addQuarters(${T}, 1), addYears(${T}, 1)`,
      ),
    ).toEqual([
      '2024-01-31T10:30:30+01:00',
      '2024-01-31T11:00:00+01:00',
      '2024-01-31T12:30:00+01:00',
      '2024-02-01T10:30:00+01:00',
      '2024-02-07T10:30:00+01:00',
      '2024-02-29T10:30:00+01:00',
      '2024-04-30T10:30:00+02:00',
      '2025-01-31T10:30:00+01:00',
    ]);
    expect(await row(`select subtractDays(${T}, 31), subtractMonths(toDate('2024-03-31'), 1), subtractHours(${T}, 11), subtractYears(toDate('2024-02-29'), 1)`)).toEqual([
      '2023-12-31T10:30:00+01:00',
      '2024-02-29',
      '2024-01-30T23:30:00+01:00',
      '2023-02-28',
    ]);
  });

  it('keeps the wall-clock time across a DST change for day units', async () => {
    expect(await row("select addDays(toDateTime('2024-03-30 12:00:00'), 1), addHours(toDateTime('2024-03-31 01:00:00'), 2)")).toEqual([
      '2024-03-31T12:00:00+02:00',
      '2024-03-31T04:00:00+02:00',
    ]);
  });

  it('toLastDayOfMonth, monthName, toRelativeQuarterNum', async () => {
    expect(await row(`select toLastDayOfMonth(${T}), toLastDayOfMonth(toDate('2023-02-10')), monthName(${T}), monthName(toDate('2024-12-01')), toRelativeQuarterNum(${T})`)).toEqual([
      '2024-01-31',
      '2023-02-28',
      'January',
      'December',
      2024 * 4,
    ]);
  });

  it('age counts complete units, dateDiff crossed boundaries', async () => {
    const a = "toDateTime('2024-01-01 23:00:00')";
    const b = "toDateTime('2024-01-02 01:00:00')";
    expect(await row(`select age('day', ${a}, ${b}), dateDiff('day', ${a}, ${b}), age('hour', ${a}, ${b}), age('day', ${b}, ${a}), age('month', toDate('2024-01-15'), toDate('2024-03-14')), age('year', toDate('2020-02-01'), toDate('2024-02-01'))`)).toEqual([
      0, 1, 2, 0, 1, 4,
    ]);
  });

  it('reads columns', async () => {
    expect(await all("select addDays(timestamp, 1), monthName(timestamp) from events where event = 'signup'")).toEqual([['2024-04-02T00:30:00+02:00', 'April']]);
  });
});

describe('HOGQL_CLICKHOUSE_FUNCTIONS: strings', () => {
  it.each([
    ["leftPad('abc', 6, 'xy'), leftPad('abc', 5), leftPad('abcdef', 3, '*'), rightPad('abc', 6, 'xy'), rightPad('abcdef', 2, '*')", ['xyxabc', '  abc', 'abc', 'abcxyx', 'ab']],
    ["leftPadUTF8('ä', 3, 'ö'), rightPadUTF8('ä', 3, 'ö')", ['ööä', 'äöö']],
    ["repeat('ab', 3), repeat('x', 0), repeat('x', -1)", ['ababab', '', '']],
    ["appendTrailingCharIfAbsent('a', '/'), appendTrailingCharIfAbsent('a/', '/'), appendTrailingCharIfAbsent('', '/')", ['a/', 'a/', '']],
    ["splitByWhitespace('  a b\\tc  ')", [['a', 'b', 'c']]],
    ["countSubstrings('aaaa', 'aa'), countSubstrings('abcab', 'ab'), countSubstrings('abc', 'z')", [2, 2, 0]],
    ["leftUTF8('héllo', 2), rightUTF8('héllo', 3)", ['hé', 'llo']],
    ["concatWithSeparator('-', 'a', 'b', 'c'), concatWithSeparator(', ', 'x')", ['a-b-c', 'x']],
    ["hex('abc'), hex(255)", ['616263', 'FF']],
    ["decodeURLComponent('a%20b%2Fc')", ['a b/c']],
  ])('%s', async (exprs, expected) => {
    expect(await row(`select ${exprs}`)).toEqual(expected);
  });

  it('work on columns', async () => {
    expect(await all("select leftPad(event, 10, '.'), repeat(distinct_id, 2) from events where event = 'signup'")).toEqual([['....signup', 'user2user2']]);
  });
});

describe('HOGQL_CLICKHOUSE_FUNCTIONS: URLs', () => {
  const U = "'https://www.example.com:8080/a/b?x=1&y=2#frag'";

  it.each([
    ['protocol', U, 'https'],
    ['domain', U, 'www.example.com'],
    ['domainWithoutWWW', U, 'example.com'],
    ['topLevelDomain', U, 'com'],
    ['firstSignificantSubdomain', U, 'example'],
    ['cutToFirstSignificantSubdomain', U, 'example.com'],
    ['firstSignificantSubdomain', "'https://news.clickhouse.com.tr/'", 'clickhouse'],
    ['cutToFirstSignificantSubdomain', "'https://news.clickhouse.com.tr/'", 'clickhouse.com.tr'],
    ['firstSignificantSubdomain', "'ftp://ftp.test.org'", 'test'],
    ['path', U, '/a/b'],
    ['pathFull', U, '/a/b?x=1&y=2#frag'],
    ['queryString', U, 'x=1&y=2'],
    ['fragment', U, 'frag'],
    ['queryStringAndFragment', U, 'x=1&y=2#frag'],
    ['cutWWW', U, 'https://example.com:8080/a/b?x=1&y=2#frag'],
    ['cutQueryString', U, 'https://www.example.com:8080/a/b#frag'],
    ['cutFragment', U, 'https://www.example.com:8080/a/b?x=1&y=2'],
    ['cutQueryStringAndFragment', U, 'https://www.example.com:8080/a/b'],
    ['domain', "'//cdn.example.com/x.js'", 'cdn.example.com'],
    ['domain', "'https://localhost:3000/p'", 'localhost'],
    ['topLevelDomain', "'https://localhost:3000/p'", ''],
    ['protocol', "'mailto:bob@example.com'", 'mailto'],
    ['domain', "'mailto:bob@example.com'", ''],
    ['queryString', "'https://example.com'", ''],
  ])('%s(%s)', async (fn, url, expected) => {
    expect(await row(`select ${fn}(${url})`)).toEqual([expected]);
  });

  it('URL parameters', async () => {
    expect(await row(`select extractURLParameter(${U}, 'y'), extractURLParameter(${U}, 'z'), extractURLParameters(${U}), extractURLParameterNames(${U}), extractURLParameters('https://example.com')`)).toEqual([
      '2',
      '',
      ['x=1', 'y=2'],
      ['x', 'y'],
      [],
    ]);
    expect(await row("select extractURLParameter('https://a.io/?utm_source=news&utm_medium=email', 'utm_medium')")).toEqual(['email']);
  });

  it('work on columns', async () => {
    expect(await all("select domain(properties.$current_url), path(properties.$current_url), extractURLParameter(properties.$current_url, 'utm_source') from events where event = 'url-test'")).toEqual([
      ['app.posthog.com', '/insights', 'x'],
    ]);
  });
});

describe('HOGQL_CLICKHOUSE_FUNCTIONS: arrays', () => {
  it.each([
    ['arraySort([3, 1, 2]), arrayReverseSort([3, 1, 2])', [[1, 2, 3], [3, 2, 1]]],
    ["arraySort(x -> -x, [1, 3, 2]), arrayReverseSort(x -> x.2, [(1, 'b'), (2, 'c'), (3, 'a')]), arraySort((x, y) -> y, ['a', 'b', 'c'], [3, 1, 2])", [[3, 2, 1], [[2, 'c'], [1, 'b'], [3, 'a']], ['b', 'c', 'a']]],
    ['arrayCumSum([1, 2, 3]), arrayCumSumNonNegative([1, 1, -4, 1]), arrayDifference([1, 4, 9])', [[1, 3, 6], [1, 2, 0, 1], [0, 3, 5]]],
    ['arrayPopFront([1, 2, 3]), arrayPopBack([1, 2, 3]), arrayPushFront([1, 2], 0), arrayPushBack([1, 2], 3)', [[2, 3], [1, 2], [0, 1, 2], [1, 2, 3]]],
    ['arrayConcat([1], [2, 3], [4]), arrayEnumerate([7, 8, 9])', [[1, 2, 3, 4], [1, 2, 3]]],
    ["arrayReduce('max', [1, 5, 2]), arrayReduce('sum', [1, 5, 2])", [5, 8]],
    ['range(3), range(2, 5)', [[0, 1, 2], [2, 3, 4]]],
    ['arrayFirst(x -> x > 1, [1, 2, 3]), arrayLast(x -> x > 1, [1, 2, 3]), arrayFirstIndex(x -> x > 1, [1, 2, 3]), arrayLastIndex(x -> x > 1, [1, 2, 3]), arrayFirstIndex(x -> x > 5, [1, 2])', [2, 3, 2, 3, 0]],
    ['countEqual([1, 2, 1, 1], 1), countEqual([1, 2], 5)', [3, 0]],
    ['arrayMin([3, 1, 2]), arrayMax([3, 1, 2]), arrayAvg([1, 2, 3, 4])', [1, 3, 2.5]],
    ['arrayCompact([1, 1, 2, 2, 1, 3, 3])', [[1, 2, 1, 3]]],
    ['arrayFlatten([[1, 2], [3], []])', [[1, 2, 3]]],
    ['arraySort(arrayIntersect([1, 2, 3], [2, 3, 4], [3, 2]))', [[2, 3]]],
    ["arrayZip([1, 2], ['a', 'b']), arrayMap(t -> t.2, arrayZip([1, 2], ['a', 'b']))", [[[1, 'a'], [2, 'b']], ['a', 'b']]],
  ])('%s', async (exprs, expected) => {
    expect(await row(`select ${exprs}`)).toEqual(expected);
  });

  it('arrays of tuples render as arrays of JSON arrays, and lambdas read their elements by x.N', async () => {
    expect(await row("select [(1, 'b'), (2, 'c')], arrayMap(x -> x.2, [(1, 'b'), (2, 'c')]), [(1, 'b'), (2, 'c')][2], arrayFirst(x -> x.1 > 1, [(1, 'b'), (2, 'c')])")).toEqual([
      [[1, 'b'], [2, 'c']],
      ['b', 'c'],
      [2, 'c'],
      [2, 'c'],
    ]);
    expect(await row("select arraySort(x -> x.2, groupArray((event, distinct_id)))[1], arrayFilter(x -> x.1 = 'signup', groupUniqArray((event, distinct_id))) from events")).toEqual([
      ['$pageview', 'anon'],
      [['signup', 'user2']],
    ]);
    // x.1 on a lambda argument that is not a tuple: the engine refuses it (its engines turn that into a 400 query_error)
    await expect(db.query('select arrayMap(x -> x.1, [1, 2])')).rejects.toThrow(/struct_extract_at|tupleElement/);
  });

  it('range(start, end, step) (18.16 has no step: a constant positive step is spelled there, another step is a 400)', async () => {
    expect(await row('select range(0, 10, 3)')).toEqual([[0, 3, 6, 9]]);
    if (onClickHouse) return fails('select range(0, 10, number + 1) from numbers(1)', /takes a constant positive integer step on ClickHouse/);
  });

  it('generated sizes are bounded: a constant beyond the bound is a 400, a computed one is capped', async () => {
    await fails('select range(1000000000)', 'range is limited to 1,000,000');
    await fails('select range(5, 2000000)', 'range is limited to 1,000,000');
    await fails("select repeat('ab', 6000000)", 'repeat is limited to 10,000,000');
    await fails("select leftPad('a', 20000000, 'x')", 'leftPad is limited to 10,000,000');
    expect(await row("select length(range(number * 3000000)), length(repeat('ab', number * 6000000)) from numbers(1, 1)")).toEqual([1_000_000, 10_000_000]);
  });

  it('lambdas of arrayFirst/arrayLast take one argument per array, and must be lambdas', async () => {
    expect(await row('select arrayFirst((x, y) -> y > 10, [1, 2, 3], [5, 15, 25]), arrayLastIndex((x, y) -> x < y, [1, 9, 3], [2, 2, 4])')).toEqual([2, 3]);
    await fails('select arrayFirst(1, [1])', /The first argument of arrayFirst must be a lambda/);
  });

  it('work on columns', async () => {
    expect(await all("select arraySort(groupArray(properties.$browser)), arrayCompact(arraySort(groupArray(event))) from events where event = '$pageview'")).toEqual([
      [['', 'Chrome', 'Chrome', 'Safari'], ['$pageview']],
    ]);
  });
});

describe('transform and JSON', () => {
  it('transform(x, from, to[, default]) maps values, keeping x (or the default) when it is not in `from`', async () => {
    expect(await row("select transform(2, [1, 2], ['a', 'b'], 'z'), transform(5, [1, 2], ['a', 'b'], 'z'), transform(5, [1, 2], [10, 20])")).toEqual(['b', 'z', 5]);
    expect(await all("select transform(event, ['$pageview', 'signup'], ['view', 'sign up'], 'other') as t, count() from events group by t order by t")).toEqual([
      ['other', 1],
      ['sign up', 1],
      ['view', 5],
    ]);
  });

  it('JSONExtract(json, keys..., Type) reads the value as that type', async () => {
    expect(await row(`select JSONExtract('{"a":1}', 'a', 'Int64'), JSONExtract('{"a":"x"}', 'a', 'String'), JSONExtract('{"a":{"b":2.5}}', 'a', 'b', 'Float64'), JSONExtract('{"a":true}', 'a', 'Bool')`)).toEqual([1, 'x', 2.5, 1]);
    // an array type reads each element (PostHog's test_events_query_runner.py filters on has(JSONExtract(…, 'Array(String)'), …))
    expect(await row(`select JSONExtract('{"a":["x","y"]}', 'a', 'Array(String)'), JSONExtract('{"a":[1,2]}', 'a', 'Array(Int64)'), JSONExtract('{"a":1}', 'a', 'Array(String)')`)).toEqual([['x', 'y'], [1, 2], []]);
    await fails(`select JSONExtract('{"a":1}', 'a', 'Map(String, String)')`, /JSONExtract takes the return type last/);
  });

  it('JSONExtractUInt reads a number like JSONExtractInt', async () => {
    expect(await row(`select JSONExtractUInt('{"a":3}', 'a'), JSONExtractUInt('{"a":"x"}', 'a')`)).toEqual([3, 0]);
  });

  it('JSONArrayLength: the length of an array, NULL for anything else (DuckDB; 18.16: a 400)', async () => {
    if (onClickHouse) return fails(`select JSONArrayLength('[]')`, /"JSONArrayLength" is not available on ClickHouse/);
    expect(await row(`select JSONArrayLength('[1, 2, 3]'), JSONArrayLength('{"a": [1]}', 'a'), JSONArrayLength('{}'), JSONArrayLength('[]')`)).toEqual([3, 1, null, 0]);
  });

  it('isValidJSON (DuckDB; 18.16 has no JSON parser: a 400)', async () => {
    if (onClickHouse) return fails(`select isValidJSON('{}')`, /"isValidJSON" is not available on ClickHouse/);
    expect(await row(`select isValidJSON('{"a": 1}'), isValidJSON('{nope')`)).toEqual([1, 0]);
  });
});

describe('test_printer.py: semantics of printed expressions', () => {
  it.each([
    // test_nullish_concat / nullish operators
    ["null ?? 1, 2 ?? 3, properties.nope ?? 'x'", "from events where event = 'signup'", [1, 2, 'x']],
    // test_comparisons_with_null: = NULL is IS NULL, != NULL is IS NOT NULL
    ['null = null, null != null, 1 = null, 1 != null', '', [1, 0, 0, 1]],
    ["properties.nope = null, properties.plan != null, properties.nope != 'x', properties.nope = 'x'", "from events where event = 'signup'", [1, 1, 1, 0]],
    // test_in / not in, tuples and lists
    ["'a' in ('a', 'b'), 'c' not in ('a', 'b'), 1 in (1), 2 in [1, 2]", '', [1, 1, 1, 1]],
    ["(1, 'a') in ((1, 'a'), (2, 'b')), (1, 'b') in ((1, 'a'), (2, 'b'))", '', [1, 0]],
    // test_between
    ['5 between 1 and 10, 5 not between 1 and 4', '', [1, 1]],
    // test_regex operators
    ["'abc' =~ 'b', 'abc' !~ 'x', 'ABC' =~* 'b', 'ABC' !~* 'b'", '', [1, 1, 1, 0]],
    // test_like operators
    ["'abc' like 'a%', 'abc' ilike 'A%', 'abc' not like '%z', 'abc' not ilike 'A%'", '', [1, 1, 1, 0]],
    // a backslash escapes % and _ in LIKE patterns, as in ClickHouse (DuckDB is told so with ESCAPE)
    ["'ab_c' like '%b\\\\_c', 'abxc' like '%b\\\\_c', '50%' ilike '50\\\\%', '500' like '50\\\\%', like('a_b', 'a\\\\_b'), notILike('a_b', 'A\\\\_B')", '', [1, 0, 1, 0, 1, 0]],
    // test_constants
    ['1, -1, 1.5, true, false, null', '', [1, -1, 1.5, true, false, null]],
    // test_strings: escapes and unicode
    // (length counts bytes, as ClickHouse's: the hedgehog is 4 of them)
    ["'a\\'b', 'tab\\there', 'ünïcödé 🦔', length('🦔'), lowerUTF8('ÄÖÜ')", '', ["a'b", 'tab\there', 'ünïcödé 🦔', 4, 'äöü']],
    // test_case: CASE WHEN / CASE x WHEN
    ["CASE WHEN 1 > 2 THEN 'a' WHEN 2 > 1 THEN 'b' ELSE 'c' END, CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END", '', ['b', 'two']],
    // test_lambdas
    ['arrayMap(x -> x * 2, [1, 2, 3]), arrayMap((x, y) -> x * y, [1, 2], [3, 4]), arrayFilter(x -> x > 1, [1, 2, 3]), arrayExists(x -> x = 2, [1, 2])', '', [[2, 4, 6], [3, 8], [2, 3], 1]],
    // test_intervals
    ["toDateTime('2024-01-01 00:00:00') + INTERVAL 1 DAY, toDateTime('2024-01-01 00:00:00') - INTERVAL 2 HOUR", '', ['2024-01-02T00:00:00+01:00', '2023-12-31T22:00:00+01:00']],
    // integer division is float division, as in ClickHouse
    ['1 / 2, 7 % 3, intDiv(7, 2)', '', [0.5, 1, 3]],
  ])('select %s', async (exprs, from, expected) => {
    expect(await row(`select ${exprs} ${from}`)).toEqual(expected);
  });

  it('test_select_limit_by: LIMIT n BY keeps the first n rows of each value', async () => {
    expect(await all("select event, distinct_id from events where event != 'url-test' order by event, distinct_id limit 1 by event")).toEqual([
      ['$pageview', 'anon'],
      ['signup', 'user2'],
    ]);
  });

  it('test_order_by: ORDER BY expressions, directions and aliases', async () => {
    expect(await all("select event, count() as c from events where event != 'url-test' group by event order by c desc, event asc")).toEqual([
      ['$pageview', 5],
      ['signup', 1],
    ]);
  });
});
