/**
 * HogQL functions beyond the basics (posthog/hogql/functions/mapping.py), tuples, toTimeZone display and `::` casts,
 * with ClickHouse's semantics, on a real DuckDB; functions-hogql.clickhouse.test.ts runs this file on ClickHouse 18.16
 * with the same expected results (where 18.16 cannot do a function, the test pins a clear 400 there instead).
 * The project timezone is Europe/Berlin (UTC+1, UTC+2 from 2024-03-31 01:00 UTC).
 */
import { shutdownParser } from './index';
import { createTestDb, type TestDb } from './testing';
import { testEngine } from '../engines/clickhouse/test-engine';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db?.close();
  await shutdownParser();
});

const onClickHouse = testEngine() === 'clickhouse';
const one = async (text: string): Promise<unknown> => (await db.query(text)).results[0][0];
const all = async (text: string): Promise<unknown[][]> => (await db.query(text)).results;

/** 2021-01-03 15:04:05 in Berlin (UTC+1): a Sunday in ISO week 53 of 2020. */
const T = "toDateTime('2021-01-03 15:04:05')";

describe('formatDateTime', () => {
  it.each([
    ['%Y-%m-%d %H:%i:%S', '2021-01-03 15:04:05'],
    ['%F %T', '2021-01-03 15:04:05'],
    ['%D', '01/03/21'],
    ['%y|%e|%j', "21| 3|003"],
    ['%u %w', '7 0'],
    ['%p %I', 'PM 03'],
    ['%G-W%V', '2020-W53'],
    ['%z', '+0100'],
    ['100%% at %R', '100% at 15:04'],
    ['no codes', 'no codes'],
  ])('formatDateTime(t, %j) = %j', async (format, expected) => {
    expect(await one(`select formatDateTime(${T}, '${format}')`)).toBe(expected);
  });

  it('formats in the project timezone across DST, or in the zone given', async () => {
    expect(await all("select formatDateTime(timestamp, '%F %T %z') from events where event = '$pageview' order by timestamp limit 3")).toEqual([
      ['2024-03-30 23:30:00 +0100'],
      ['2024-03-31 00:30:00 +0100'],
      ['2024-03-31 23:30:00 +0200'],
    ]);
    expect(await one(`select formatDateTime(${T}, '%H:%i %z', 'America/New_York')`)).toBe('09:04 -0500');
    expect(await one("select formatDateTime(toDate('2024-03-31'), '%F %T')")).toBe('2024-03-31 00:00:00');
    expect(await one("select formatDateTime(toTimeZone(timestamp, 'Asia/Kolkata'), '%T %z') from events order by timestamp limit 1")).toBe('04:00:00 +0530');
  });

  it.each([
    ["select formatDateTime(timestamp, event) from events", /constant format string/],
    [`select formatDateTime(${T}, '%L')`, /unsupported format code "%L"/],
    [`select formatDateTime(${T}, 'x%')`, /unsupported format code "%"/],
    [`select formatDateTime(${T}, '%F', 'Mars/Base')`, /valid IANA timezone/],
    [`select formatDateTime(${T})`, /Function 'formatDateTime' expects at least 2 arguments, found 1/],
  ])('%s is a 400', async (text, message) => {
    await expect(db.query(text)).rejects.toThrow(message);
  });
});

describe('dateTrunc / date_trunc', () => {
  it.each([
    ["dateTrunc('month', toDateTime('2024-03-31 03:04:05'))", '2024-03-01T00:00:00+01:00'],
    ["date_trunc('day', toDateTime('2024-03-31 03:04:05'))", '2024-03-31T00:00:00+01:00'],
    ["dateTrunc('hour', toDateTime('2024-03-31 03:04:05'))", '2024-03-31T03:00:00+02:00'],
    ["dateTrunc('minute', toDateTime('2024-03-31 03:04:05'))", '2024-03-31T03:04:00+02:00'],
    ["dateTrunc('second', toDateTime('2024-03-31 03:04:05.250'))", '2024-03-31T03:04:05+02:00'],
    ["dateTrunc('week', toDateTime('2024-03-31 03:04:05'))", '2024-03-25T00:00:00+01:00'],
    ["dateTrunc('quarter', toDateTime('2024-05-31 03:04:05'))", '2024-04-01T00:00:00+02:00'],
    ["dateTrunc('year', toDateTime('2024-05-31 03:04:05'))", '2024-01-01T00:00:00+01:00'],
    // truncated in the zone given, and shown there (ClickHouse returns a DateTime in that zone)
    ["dateTrunc('day', toDateTime('2024-03-31 03:04:05'), 'America/New_York')", '2024-03-30T00:00:00-04:00'],
    ["dateTrunc('week', toDate('2024-03-31'))", '2024-03-25'],
    ["dateTrunc('month', toDate('2024-03-31'))", '2024-03-01'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  it('truncates columns in the project timezone', async () => {
    expect(await all("select dateTrunc('day', timestamp), count() from events group by 1 order by 1")).toEqual([
      ['2024-03-30T00:00:00+01:00', 1],
      ['2024-03-31T00:00:00+01:00', 2],
      ['2024-04-01T00:00:00+02:00', 3],
    ]);
  });

  it('refuses an unknown unit', async () => {
    await expect(db.query('select dateTrunc(\'fortnight\', timestamp) from events')).rejects.toThrow(/Unit must be one of/);
  });
});

describe('toStartOfInterval', () => {
  const t = "toDateTime('2024-04-02 15:04:05')";
  it.each([
    [`toStartOfInterval(${t}, INTERVAL 5 minute)`, '2024-04-02T15:00:00+02:00'],
    [`toStartOfInterval(${t}, INTERVAL 15 second)`, '2024-04-02T15:04:00+02:00'],
    [`toStartOfInterval(${t}, toIntervalMinute(1))`, '2024-04-02T15:04:00+02:00'],
    [`toStartOfInterval(${t}, INTERVAL 2 hour)`, '2024-04-02T14:00:00+02:00'],
    [`toStartOfInterval(${t}, INTERVAL 5 hour)`, '2024-04-02T15:00:00+02:00'],
    [`toStartOfInterval(${t}, INTERVAL 1 day)`, '2024-04-02T00:00:00+02:00'],
    [`toStartOfInterval(${t}, INTERVAL 7 day)`, '2024-03-28T00:00:00+01:00'],
    [`toStartOfInterval(${t}, INTERVAL 1 week)`, '2024-04-01'],
    [`toStartOfInterval(${t}, INTERVAL 2 week)`, '2024-04-01'],
    [`toStartOfInterval(${t}, INTERVAL 3 week)`, '2024-03-25'],
    [`toStartOfInterval(${t}, INTERVAL 1 month)`, '2024-04-01'],
    [`toStartOfInterval(${t}, INTERVAL 5 month)`, '2024-03-01'],
    [`toStartOfInterval(${t}, INTERVAL 1 quarter)`, '2024-04-01'],
    [`toStartOfInterval(${t}, INTERVAL 2 quarter)`, '2024-01-01'],
    [`toStartOfInterval(${t}, INTERVAL 10 year)`, '2020-01-01'],
    ["toStartOfInterval(toDate('2024-04-02'), INTERVAL 7 day)", '2024-03-28'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  it('buckets columns', async () => {
    expect(await all('select toStartOfInterval(timestamp, INTERVAL 12 hour) as b, count() from events group by b order by b')).toEqual([
      ['2024-03-30T12:00:00+01:00', 1],
      ['2024-03-31T00:00:00+01:00', 1],
      // hours are counted from the local midnight, also on the day the clocks go forward
      ['2024-03-31T12:00:00+02:00', 1],
      ['2024-04-01T00:00:00+02:00', 1],
      ['2024-04-01T12:00:00+02:00', 2],
    ]);
  });

  it.each([
    ['select toStartOfInterval(timestamp, toIntervalMinute(toInt(event))) from events', /constant positive count/],
    ['select toStartOfInterval(timestamp, INTERVAL 0 minute) from events', /constant positive count/],
    ['select toStartOfInterval(timestamp, 5) from events', /constant positive count/],
    ["select toStartOfInterval(toDate('2024-01-01'), INTERVAL 5 minute)", /unit of a day or more/],
  ])('%s is a 400', async (text, message) => {
    await expect(db.query(text)).rejects.toThrow(message);
  });
});

describe('date parts and conversions', () => {
  it.each([
    [`toDayOfYear(${T})`, 3],
    [`toISOWeek(${T})`, 53],
    [`toISOYear(${T})`, 2020],
    [`toSecond(${T})`, 5],
    [`toQuarter(${T})`, 1],
    [`toYYYYMM(${T})`, 202101],
    [`toYYYYMMDD(${T})`, 20210103],
    [`toYYYYMMDDhhmmss(${T})`, 20210103150405],
    [`toMonday(${T})`, '2020-12-28'],
    [`toRelativeDayNum(${T})`, 18630],
    [`toRelativeWeekNum(${T})`, 2661],
    [`toRelativeMonthNum(${T})`, 24253],
    [`toRelativeYearNum(${T})`, 2021],
    [`toUnixTimestamp64Milli(${T})`, 1609682645000],
    ['fromUnixTimestamp64Milli(1609682645000)', '2021-01-03T15:04:05+01:00'],
    ["toDateTime64('2021-01-03 15:04:05', 6)", '2021-01-03T15:04:05+01:00'],
    ["toStartOfTenMinutes(toDateTime('2021-01-03 15:04:05'))", '2021-01-03T15:00:00+01:00'],
    ["toStartOfSecond(toDateTime('2021-01-03 15:04:05.250'))", '2021-01-03T15:04:05+01:00'],
    ["parseDateTimeBestEffort('2021-01-03T14:04:05Z')", '2021-01-03T15:04:05+01:00'],
    ["parseDateTimeBestEffort('2021-01-03 15:04:05')", '2021-01-03T15:04:05+01:00'],
    // parsed in the zone given, and shown there (ClickHouse returns a DateTime in that zone)
    ["parseDateTimeBestEffort('2021-01-03 15:04:05', 'UTC')", '2021-01-03T15:04:05Z'],
    ["parseDateTimeBestEffortOrNull('not a date')", null],
    ["parseDateTimeBestEffortOrZero('not a date')", '1970-01-01T01:00:00+01:00'],
    ["toDateOrNull('2021-01-03')", '2021-01-03'],
    ["toDateOrNull('nope')", null],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  it('reads columns in the project timezone', async () => {
    expect(await all('select toDayOfYear(timestamp), toYYYYMMDD(timestamp), toSecond(timestamp), toISOWeek(timestamp) from events order by timestamp limit 2')).toEqual([
      [90, 20240330, 0, 13],
      [91, 20240331, 0, 13],
    ]);
    expect(await all('select parseDateTimeBestEffortOrNull(properties.$browser) from events order by timestamp limit 1')).toEqual([[null]]);
  });
});

describe('toTypeName', () => {
  it.each([
    ['toTypeName(1)', 'UInt8'],
    ['toTypeName(300)', 'UInt16'],
    ['toTypeName(-1)', 'Int8'],
    ['toTypeName(1.5)', 'Float64'],
    ["toTypeName('a')", 'String'],
    ["toTypeName((1, 'a'))", 'Tuple(UInt8, String)'],
    ["toTypeName(toDate('2024-01-01'))", 'Date'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  it('names column types as ClickHouse does through HogQL', async () => {
    expect(
      await all("select toTypeName(timestamp), toTypeName(properties.$browser), toTypeName(event), toTypeName(toTimeZone(timestamp, 'UTC')) from events limit 1"),
    ).toEqual([["DateTime64(6, 'Europe/Berlin')", 'Nullable(String)', 'String', "DateTime64(6, 'UTC')"]]);
  });
});

describe('strings', () => {
  it.each([
    ["left('hello', 2)", 'he'],
    ["right('hello', 2)", 'lo'],
    ["left('hello', -1)", 'hell'],
    ["right('hello', -1)", 'ello'],
    ["left('hello', 0)", ''],
    ["right('hello', 0)", ''],
    ["left('héllo', 2)", 'hé'],
    ["right('hello', 10)", 'hello'],
    ["trimLeft('  a  ')", 'a  '],
    ["trimRight('  a  ')", '  a'],
    ["replaceOne('a-b-c', '-', '+')", 'a+b-c'],
    ["replaceOne('a.b.c', '.', '')", 'ab.c'],
    ["replaceOne('abc', 'z', 'x')", 'abc'],
    ["positionCaseInsensitive('Hello', 'LL')", 3],
    ["positionUTF8('héllo', 'l')", 3],
    ["lengthUTF8('héllo')", 5],
    ["upperUTF8('héllo')", 'HÉLLO'],
    ["substringUTF8('héllo', 2, 3)", 'éll'],
    ["toIntOrNull('12')", 12],
    ["toIntOrNull('x')", null],
    ["toFloatOrNull('1.5')", 1.5],
    ["toFloatOrZero('x')", 0],
    ["toIntOrZero('x')", 0],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  // ClickHouse's extract / extractAll: the first capturing group of each match, else the whole match; '' / [] when
  // nothing matches (DuckDB's regexp_extract alone returns the whole match).
  it.each([
    ["extract('abc', 'b')", 'b'],
    ["extract('abc', '(b)c')", 'b'],
    ["extract('abc', 'a(?:b)c')", 'abc'],
    ["extract('abc', '(?P<x>b)')", 'b'],
    ["extract('a(b)c', '[(]b[)]')", '(b)'],
    ["extract('a(b)c', '[(]b\\\\)')", '(b)'],
    ["extract('abc', 'x')", ''],
    ["extract(properties.missing, 'x')", null],
    ["extractAll('a1b22c', '[0-9]+')", ['1', '22']],
    ["extractAll('k=1;k=2;k=1', 'k=([0-9])')", ['1', '2', '1']],
    ["extractAll('abc', 'x')", []],
    ["extractAll('abc', concat('(', 'b)'))", ['b']],
    ["extract('abc', concat('a', 'b'))", 'ab'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr} from events limit 1`)).toEqual(expected);
  });

  it('replaceOne refuses an empty pattern, as ClickHouse does', async () => {
    await expect(db.query("select replaceOne(event, '', 'x') from events")).rejects.toThrow(/pattern must not be empty/);
  });

  it('works on columns', async () => {
    expect(await all("select left(event, 3), right(distinct_id, 1), replaceOne(event, 'e', 'E') from events order by timestamp limit 1")).toEqual([
      ['$pa', '1', '$pagEview'],
    ]);
  });

  (onClickHouse ? it.skip : it)('base64Encode / base64Decode (DuckDB)', async () => {
    expect(await all("select base64Encode('hé'), base64Decode('aMOp'), tryBase64Decode('%%%')")).toEqual([['aMOp', 'hé', '']]);
  });
  (onClickHouse ? it : it.skip)('base64Encode / base64Decode are a clear 400 on ClickHouse 18.16', async () => {
    await expect(db.query("select base64Encode('a')")).rejects.toThrow(/"base64Encode" is not available on ClickHouse/);
    await expect(db.query("select base64Decode('YQ==')")).rejects.toThrow(/"base64Decode" is not available on ClickHouse/);
  });
});

describe('JSONExtractKeysAndValues', () => {
  const J = `'{"x": {"a": 5, "b": "7", "c": 11.5, "d": "s", "e": null, "f": [1]}}'`;
  (onClickHouse ? it.skip : it)('pairs each key with its value converted to the type; values that do not convert are left out (DuckDB)', async () => {
    const r = await db.query(`select JSONExtractKeysAndValues(${J}, 'x', 'Int64'), JSONExtractKeysAndValues(${J}, 'x', 'String'), JSONExtractKeysAndValues(${J}, 'x', 'Float64')`);
    expect(r.results).toEqual([
      [
        [['a', 5], ['b', 7], ['c', 11]],
        [['a', '5'], ['b', '7'], ['c', '11.5'], ['d', 's'], ['f', '[1]']],
        [['a', 5], ['b', 7], ['c', 11.5]],
      ],
    ]);
    expect(r.types.map((t) => t[1])).toEqual(['Array(Tuple(String, Int64))', 'Array(Tuple(String, String))', 'Array(Tuple(String, Float64))']);
    expect(await all("select JSONExtractKeysAndValues(properties, 'String'), JSONExtractKeysAndValues(properties, 'list', 'String') from events where event = 'signup'")).toEqual([
      [[['plan', 'pro'], ['price', 'abc']], []],
    ]);
  });
  (onClickHouse ? it.skip : it)('its pairs are tuples once taken out of the array (ARRAY JOIN, arrayJoin)', async () => {
    expect(await all("select kv.1, kv.2 from events array join JSONExtractKeysAndValues(properties, 'String') as kv where event = 'signup' order by kv.1")).toEqual([
      ['plan', 'pro'],
      ['price', 'abc'],
    ]);
    const r = await db.query("select arrayJoin(JSONExtractKeysAndValues(properties, 'String')) as kv, kv.1 from events where event = 'signup' order by kv.1");
    expect(r.results).toEqual([
      [['plan', 'pro'], 'plan'],
      [['price', 'abc'], 'price'],
    ]);
    expect(r.types[0]).toEqual(['kv', 'Tuple(String, String)']);
  });
  (onClickHouse ? it.skip : it)('takes a known value type, as a constant (400)', async () => {
    await expect(db.query("select JSONExtractKeysAndValues(properties, 'Decimal') from events")).rejects.toMatchObject({ status: 400, message: expect.stringContaining('takes the value type last') });
  });
  (onClickHouse ? it : it.skip)('is a clear 400 on ClickHouse 18.16 (no JSONExtract functions)', async () => {
    await expect(db.query(`select JSONExtractKeysAndValues(${J}, 'x', 'Int64')`)).rejects.toThrow(/"JSONExtractKeysAndValues" is not available on ClickHouse/);
  });
});

describe('arrays', () => {
  it.each([
    ['arraySum([1, 2, 3.5])', 6.5],
    ['arraySum([1, 2, 3])', 6],
    ["arrayStringConcat(['a', 'b', 'c'], '-')", 'a-b-c'],
    ["arrayStringConcat(['a', 'b'])", 'ab'],
    ['arrayDistinct([3, 1, 3, 2, 1])', [3, 1, 2]],
    ['arrayReverse([1, 2, 3])', [3, 2, 1]],
    ['arrayUniq([1, 2, 1])', 2],
    ['arraySlice([1, 2, 3, 4], 2, 2)', [2, 3]],
    ['arraySlice([1, 2, 3, 4], -2)', [3, 4]],
    ['arraySlice([1, 2, 3, 4], 2, -1)', [2, 3]],
    ['arraySlice([1, 2, 3, 4], 0)', []],
    ['arrayCount(x -> x > 1, [1, 2, 3])', 2],
    ['arrayAll(x -> x > 0, [1, 2])', 1],
    ['arrayAll(x -> x > 1, [1, 2])', 0],
    ["arrayStringConcat(arrayReverse(splitByString(', ', 'a, b, c')), '|')", 'c|b|a'],
    ['hasAny([1, 2], [3, 2])', 1],
    ['hasAny([1, 2], [3])', 0],
    ['hasAll([1, 2, 3], [3, 1])', 1],
    ['hasAll([1, 2], [3, 1])', 0],
    ['length([1, 2, 3])', 3],
    ['empty([1])', 0],
    ['notEmpty([1])', 1],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toEqual(expected);
  });

  // ClickHouse's lambdas over several arrays take their i-th elements together (DuckDB's see one array: the others are
  // read at the element's index there).
  it.each([
    ['arrayMap((x, y) -> x + y, [1, 2], [10, 20])', [11, 22]],
    ["arrayMap((x, y, z) -> concat(x, y, z), ['a', 'b'], ['c', 'd'], ['e', 'f'])", ['ace', 'bdf']],
    ["arrayFilter((x, y) -> y > 10, ['a', 'b', 'c'], [10, 20, 30])", ['b', 'c']],
    ['arrayMap(x -> arrayMap((a, b) -> a * b, [x, x], [1, 2]), [1, 2])', [[1, 2], [2, 4]]],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toEqual(expected);
  });

  it('a lambda over several arrays works on column values, and takes one argument per array (400)', async () => {
    expect(await all("select arrayMap((d, e) -> concat(d, ':', e), [distinct_id, 'x'], [event, 'y']) from events order by timestamp limit 1")).toEqual([[['user1:$pageview', 'x:y']]]);
    await expect(db.query('select arrayMap((x, y) -> x, [1], [2], [3])')).rejects.toMatchObject({ status: 400, message: expect.stringContaining('takes one argument per array') });
    await expect(db.query('select arrayFilter(x -> x, [1], [2])')).rejects.toMatchObject({ status: 400, message: expect.stringContaining('takes one argument per array') });
  });

  it('works on column values', async () => {
    expect(await all("select arrayStringConcat(groupArray(distinct_id), ',') from (select distinct_id from events order by timestamp limit 3)")).toEqual([['user1,user1,user2']]);
    expect(await all('select length(groupArray(distinct_id)), notEmpty(groupArray(distinct_id)) from events')).toEqual([[6, 1]]);
    expect(await all('select arrayDistinct(groupArray(distinct_id)) from (select distinct_id from events order by timestamp limit 3)')).toEqual([[['user1', 'user2']]]);
  });
});

describe('tuples', () => {
  it('render as JSON arrays, typed Tuple(...)', async () => {
    const r = await db.query("select (1, 2, 3), tuple(1, 'a'), ((1, 2), 'x')");
    expect(r.results).toEqual([[[1, 2, 3], [1, 'a'], [[1, 2], 'x']]]);
    expect(r.types.map((t) => t[1])).toEqual(['Tuple(UInt8, UInt8, UInt8)', 'Tuple(UInt8, String)', 'Tuple(Tuple(UInt8, UInt8), String)']);
  });

  it('t.N reads the N-th element (1-based), also through subqueries and tupleElement', async () => {
    expect(await all("select tuple(1, 'a').1, (1, 'a').2, tupleElement((7, 'x'), 2), ((1, 2), 'x').1.2")).toEqual([[1, 'a', 'x', 2]]);
    expect(await all("select t.1, t.2 from (select (event, distinct_id) as t, timestamp from events) order by timestamp limit 1")).toEqual([['$pageview', 'user1']]);
    expect(await all('select t.2 from (select tuple(timestamp, count()) as t from events group by timestamp) order by t.1 limit 1')).toEqual([[1]]);
  });

  it('keep JSON property access as 1-based array indexes', async () => {
    // properties.list.1 on a JSON property is the first array element (semantics.test.ts pins more on DuckDB)
    expect(await all("select properties.price from events where properties.price is not null order by timestamp limit 1")).toEqual([['10']]);
  });

  it.each([
    ['select (1, 2).3', /Tuple index out of range: 3/],
    ['select (1, 2).0', /Tuple index out of range: 0/],
    ['select event.1 from events', /needs a tuple value/],
    ['select tupleElement((1, 2), toInt(event)) from events', /Tuple index out of range/],
  ])('%s is a 400', async (text, message) => {
    await expect(db.query(text)).rejects.toThrow(message);
  });
});

describe('toTimeZone', () => {
  it('shows the value in the given zone, typed DateTime64(6, zone)', async () => {
    const r = await db.query("select toTimeZone(timestamp, 'America/New_York') as ny, timestamp from events order by timestamp limit 1");
    expect(r.results).toEqual([['2024-03-30T18:30:00-04:00', '2024-03-30T23:30:00+01:00']]);
    expect(r.types).toEqual([
      ['ny', "DateTime64(6, 'America/New_York')"],
      ['timestamp', "DateTime64(6, 'Europe/Berlin')"],
    ]);
  });

  it('is read in that zone by toString and calendar parts, and keeps the instant', async () => {
    expect(
      await all(
        "select toString(toTimeZone(timestamp, 'America/New_York')), toHour(toTimeZone(timestamp, 'America/New_York')), toDate(toTimeZone(timestamp, 'America/New_York')), toTimeZone(timestamp, 'America/New_York') = timestamp from events order by timestamp limit 1",
      ),
    ).toEqual([['2024-03-30 18:30:00.000000', 18, '2024-03-30', 1]]);
    expect(await all("select ny from (select toTimeZone(timestamp, 'Asia/Tokyo') as ny, timestamp from events) order by timestamp limit 1")).toEqual([['2024-03-31T07:30:00+09:00']]);
  });

  it('buckets in that zone and shows the buckets there', async () => {
    const r = await db.query(
      "select toStartOfDay(toTimeZone(timestamp, 'America/New_York')) as d, toStartOfHour(toTimeZone(timestamp, 'Asia/Tokyo')) as h, dateTrunc('month', toTimeZone(timestamp, 'America/New_York')) as m from events order by timestamp limit 1",
    );
    expect(r.results).toEqual([['2024-03-30T00:00:00-04:00', '2024-03-31T07:00:00+09:00', '2024-03-01T00:00:00-05:00']]);
    // whole-second buckets: ClickHouse's DateTime of that zone (hogql-functions-posthog-compat-4.test.ts)
    expect(r.types.map((t) => t[1])).toEqual(["DateTime('America/New_York')", "DateTime('Asia/Tokyo')", "DateTime('America/New_York')"]);
  });
});

describe(':: casts', () => {
  it.each([
    ["'12'::Int64", 12],
    ["'12'::UInt8", 12],
    ['12::String', '12'],
    ["'1.5'::Float64", 1.5],
    ["'2024-03-31'::Date", '2024-03-31'],
    ["'2024-03-31 10:00:00'::DateTime", '2024-03-31T10:00:00+02:00'],
    ["'true'::Bool", true],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  it('compile and print back as the conversion function', async () => {
    const r = await db.query("select '12'::Int64 as a, event::String from events where toFloat64(properties.price)::Int32 = 10");
    expect(r.results).toEqual([[12, '$pageview']]);
    expect(r.columns).toEqual(['a', 'toString(event)']);
    expect(r.compiled.hogql).toBe("SELECT toInt64('12') AS a, toString(event) FROM events WHERE equals(toInt32(toFloat64(properties.price)), 10) LIMIT 100");
  });

  it('refuses types it cannot convert to', async () => {
    await expect(db.query("select 'a'::IPv4")).rejects.toThrow(/Cannot cast to type/);
  });
});

describe('LIMIT n BY', () => {
  it('keeps the first n rows per value, in ORDER BY order', async () => {
    expect(await all('select distinct_id, event from events order by timestamp limit 1 by distinct_id')).toEqual([
      ['user1', '$pageview'],
      ['user2', '$pageview'],
      ['user3', '$pageview'],
      ['anon', '$pageview'],
    ]);
    expect(await all('select distinct_id, properties.$browser from events order by timestamp desc limit 1 by distinct_id')).toEqual([
      ['anon', ''],
      ['user3', null],
      ['user2', null],
      ['user1', 'Safari'],
    ]);
    expect(await all('select distinct_id from events order by timestamp limit 1 by distinct_id limit 2')).toEqual([['user1'], ['user2']]);
  });

  it('works on aggregates, several expressions and in subqueries', async () => {
    expect(await all('select event, distinct_id, count() as c from events group by event, distinct_id order by c desc, distinct_id limit 1 by event')).toEqual([
      ['$pageview', 'user1', 2],
      ['signup', 'user2', 1],
    ]);
    expect(await all('select count() from (select event, distinct_id from events order by timestamp limit 1 by event, distinct_id)')).toEqual([[5]]);
  });

  it('LIMIT n OFFSET m BY skips m rows per value (DuckDB; ClickHouse 18.16 has no OFFSET there: a 400)', async () => {
    const text = 'select distinct_id, event from events order by timestamp limit 1 offset 1 by distinct_id';
    if (onClickHouse) await expect(db.query(text)).rejects.toThrow(/LIMIT \.\.\. OFFSET \.\.\. BY is not available/);
    else expect(await all(text)).toEqual([['user1', '$pageview'], ['user2', 'signup']]);
  });
});
