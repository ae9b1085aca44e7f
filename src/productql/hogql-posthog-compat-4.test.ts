/**
 * HogQL functions ported from PostHog's tests, after hogql-posthog-compat(-2, -3).test.ts and functions-hogql.test.ts
 * (which this does not repeat): the rest of posthog/hogql/functions/mapping.py's HOGQL_CLICKHOUSE_FUNCTIONS (integer,
 * float and decimal conversions, timezone arguments of the date functions, RFC 822 dates) and
 * posthog/hogql/test/test_query.py cases on them. hogql-posthog-compat-4.clickhouse.test.ts runs this file on
 * ClickHouse 18.16 with the same expected results.
 * The project timezone is Europe/Berlin (UTC+1, UTC+2 from 2024-03-31 01:00 UTC).
 */
import { shutdownParser } from './index';
import { createTestDb, type TestDb } from './testing';

let db: TestDb;
const at = (iso: string): number => Date.parse(iso);
beforeAll(async () => {
  db = await createTestDb();
  // a session with urls, for events.session.$urls
  const base = { project_id: 1, distinct_id: 'u4', person_id: null, elements_chain: null, session_id: 'h1-s' };
  await db.addEvents(
    [
      ['30000000-0000-4000-8000-000000000001', '2024-04-03T10:00:00Z', 'https://a.com/x'],
      ['30000000-0000-4000-8000-000000000002', '2024-04-03T10:01:00Z', 'https://a.com/y'],
      ['30000000-0000-4000-8000-000000000003', '2024-04-03T10:02:00Z', 'https://a.com/x'],
    ].map(([uuid, t, u]) => ({
      ...base,
      uuid,
      event: 'h1-page',
      timestamp: at(t),
      created_at: at(t),
      properties: JSON.stringify({ $current_url: u, $session_id: 'h1-s' }),
    })),
  );
});
afterAll(async () => {
  await db?.close();
  await shutdownParser();
});

const one = async (text: string): Promise<unknown> => (await db.query(text)).results[0][0];
const all = async (text: string): Promise<unknown[][]> => (await db.query(text)).results;
const fails = (text: string, message: string | RegExp) =>
  expect(db.query(text)).rejects.toMatchObject({ status: 400, message: typeof message === 'string' ? message : expect.stringMatching(message) });

describe('test_sessions_v2.py: events.session.$urls', () => {
  it('session.$urls from events is the session\'s sorted distinct urls, on every event of it', async () => {
    expect(await all("select session.$urls, session.$num_uniq_urls from events where event = 'h1-page' order by timestamp")).toEqual([
      [['https://a.com/x', 'https://a.com/y'], 2],
      [['https://a.com/x', 'https://a.com/y'], 2],
      [['https://a.com/x', 'https://a.com/y'], 2],
    ]);
  });
  it('an event without a session reads an empty list', async () => {
    expect(await all("select session.$urls from events where event = 'signup' or (event = '$pageview' and distinct_id = 'anon') order by timestamp")).toEqual([[[]], [[]]]);
  });
});

describe('mapping.py: fixed-width integer conversions (ClickHouse toUInt8 .. toInt64, -OrNull, -OrZero)', () => {
  it.each([
    ['toUInt8(300)', 44],
    ['toUInt8(-1)', 255],
    ['toUInt8(255.9)', 255],
    ['toInt8(200)', -56],
    ['toInt8(-129)', 127],
    ['toUInt16(65537)', 1],
    ['toInt16(40000)', -25536],
    ['toUInt32(-1)', 4294967295],
    ['toUInt32(12.7)', 12],
    ['toInt32(2147483648)', -2147483648],
    ['toUInt64(42)', 42],
    // past JavaScript's safe integers: the exact digits, as text
    ['toUInt64(-1)', '18446744073709551615'],
    ["toUInt8('7')", 7],
    // text is read as an integer, or not at all (ClickHouse: toUInt32OrNull('3.9') is NULL, toUInt32('3.9') throws)
    ["toUInt32('3.9')", null],
    ["toUInt32OrZero('3.9')", 0],
    ["toUInt8OrNull('abc')", null],
    ["toUInt8OrNull('')", null],
    ["toUInt16OrZero('abc')", 0],
    ["toInt32OrNull('-12')", -12],
    ["toInt64OrZero('x')", 0],
    ["toInt64OrZero('-5')", -5],
    ['toUInt8OrNull(NULL)', null],
    ['toUInt8OrZero(NULL)', 0],
    ["toFloat64OrZero('x')", 0],
    ["toFloat64OrZero('2.5')", 2.5],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  it('reports ClickHouse type names', async () => {
    expect(await all("select toTypeName(toUInt8(1)), toTypeName(toInt16(1)), toTypeName(toUInt64(1)), toTypeName(toUInt32OrZero('1')), toTypeName(toUInt8OrNull('1')), toTypeName(toUInt8(event)) from events limit 1")).toEqual([
      ['UInt8', 'Int16', 'UInt64', 'UInt32', 'Nullable(UInt8)', 'Nullable(UInt8)'],
    ]);
  });

  it('converts property values per row: unreadable ones ("9.5" too) are NULL (OrNull) or 0 (OrZero)', async () => {
    expect(await all("select toUInt8OrNull(properties.price), toUInt8OrZero(properties.price) from events where event in ('$pageview', 'signup') and properties.price is not null order by timestamp")).toEqual([
      [10, 10],
      [null, 0],
      [100, 100],
      [null, 0],
    ]);
  });
});

describe('mapping.py: toDecimal(x, scale) (accurateCastOrNull to Decimal64) and ClickHouse toDecimal32/64/128', () => {
  it.each([
    ['toDecimal(1.239, 2)', 1.23],
    ['toDecimal(-1.239, 2)', -1.23],
    ['toDecimal(5, 3)', 5],
    ["toDecimal('1.239', 2)", 1.23],
    ["toDecimal('0.29', 2)", 0.29],
    ["toDecimal(' -12.5 ', 0)", -12],
    ["toDecimal('12.', 1)", 12],
    ["toDecimal('abc', 2)", null],
    ["toDecimal('', 2)", null],
    ['toDecimal(NULL, 2)', null],
    ['toDecimal32(123456789, 0)', 123456789],
    ['toDecimal32(1234567890, 0)', null],
    ['toDecimal32(12345678.9, 2)', null],
    ['toDecimal32OrZero(1234567890, 0)', 0],
    ["toDecimal64OrNull('7.123456', 4)", 7.1234],
    ["toDecimal64OrZero('nope', 4)", 0],
    ["toDecimal128('3.14159', 3)", 3.141],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  it('reports ClickHouse type names, and reads property values per row', async () => {
    // toDecimal is accurateCastOrNull in HogQL: Nullable
    expect(await all("select toTypeName(toDecimal(1, 2)), toTypeName(toDecimal32(1, 3)), toTypeName(toDecimal128OrNull(1, 10)), toTypeName(toDecimal64OrZero('1', 1))")).toEqual([
      ['Nullable(Decimal(18, 2))', 'Decimal(9, 3)', 'Nullable(Decimal(38, 10))', 'Decimal(18, 1)'],
    ]);
    expect(await all("select toDecimal(properties.price, 1) from events where event in ('$pageview', 'signup') and properties.price is not null order by timestamp")).toEqual([[10], [9.5], [100], [null]]);
  });

  it.each([
    ['select toDecimal(1.5)', "Function 'toDecimal' expects 2 arguments, found 1"],
    ['select toDecimal(1.5, event) from events', 'toDecimal takes a constant scale from 0 to 18 as its second argument'],
    ['select toDecimal32(1.5, 10)', 'toDecimal32 takes a constant scale from 0 to 9 as its second argument'],
    ['select toDecimal64(1.5, -1)', 'toDecimal64 takes a constant scale from 0 to 18 as its second argument'],
    ['select toDecimal(now(), 2)', 'Cannot convert a datetime value to a decimal'],
  ])('%s is a 400', async (text, message) => {
    await fails(text, message);
  });
});

describe('mapping.py: timezone arguments (toDateTime(x, tz), toStartOfDay(x, tz), toUnixTimestamp(x, tz), toDayOfWeek(x, mode, tz))', () => {
  /** 2024-01-01 23:30 in Berlin: 22:30 UTC, 07:30 on Jan 2 in Tokyo, 04:00 on Jan 2 in Kolkata. */
  const B = "toDateTime('2024-01-01 23:30:00')";
  // (a datetime shown in UTC reads Z, as every zoned value Quarry shows)
  it.each([
    ["toDateTime('2024-01-01 00:00:00', 'UTC')", '2024-01-01T00:00:00Z'],
    ["toDateTime('2024-01-01 00:00:00', 'America/New_York')", '2024-01-01T00:00:00-05:00'],
    ["toDateTime('2024-06-01T10:00:00Z', 'Asia/Tokyo')", '2024-06-01T19:00:00+09:00'],
    [`toDateTime(${B}, 'UTC')`, '2024-01-01T22:30:00Z'],
    ["toDateTime64('2024-01-01 00:00:00', 6, 'America/New_York')", '2024-01-01T00:00:00-05:00'],
    [`toDateTime64(${B}, 3, 'UTC')`, '2024-01-01T22:30:00Z'],
    // toDate of text in a zone: the date there of the datetime the text is there
    ["toDate('2024-01-01 23:30:00', 'Asia/Tokyo')", '2024-01-01'],
    ["toDate('2024-01-01', 'Asia/Tokyo')", '2024-01-01'],
    [`toDate(${B}, 'Asia/Tokyo')`, '2024-01-02'],
    [`toStartOfDay(${B}, 'Asia/Tokyo')`, '2024-01-02T00:00:00+09:00'],
    ["toStartOfDay('2024-01-01 23:30:00', 'Asia/Tokyo')", '2024-01-01T00:00:00+09:00'],
    ["toStartOfDay(toDate('2024-01-01'), 'Asia/Tokyo')", '2024-01-01T00:00:00+09:00'],
    ["toUnixTimestamp('2024-01-01 00:00:00', 'UTC')", 1704067200],
    ["toUnixTimestamp('2024-01-01 00:00:00')", 1704063600],
    [`toUnixTimestamp(${B}, 'Asia/Tokyo')`, 1704148200],
    // Sunday 23:30 in Berlin is Monday in Tokyo
    ["toDayOfWeek(toDateTime('2024-01-07 23:30:00'))", 7],
    ["toDayOfWeek(toDateTime('2024-01-07 23:30:00'), 0, 'Asia/Tokyo')", 1],
    ["toDayOfWeek(toDateTime('2024-01-07 23:30:00'), 1)", 6],
    ["toDayOfWeek(toDateTime('2024-01-07 23:30:00'), 2)", 0],
    ["toDayOfWeek(toDateTime('2024-01-07 23:30:00'), 3)", 1],
    ["toDayOfWeek(toDateTime('2024-01-07 23:30:00'), 2, 'Asia/Tokyo')", 1],
    // calendar parts of a value given a zone read it there (toDateTime(x, tz) is shown in tz)
    [`toHour(toDateTime(${B}, 'UTC'))`, 22],
    [`toDayOfMonth(toDateTime(${B}, 'Asia/Tokyo'))`, 2],
    [`toStartOfMonth(toDateTime(toDateTime('2024-01-31 23:30:00'), 'Asia/Tokyo'))`, '2024-02-01'],
    [`toStartOfHour(toDateTime(${B}, 'Asia/Kolkata'))`, '2024-01-02T04:00:00+05:30'],
    [`toStartOfFifteenMinutes(toTimeZone(${B}, 'Asia/Kathmandu'))`, '2024-01-02T04:15:00+05:45'],
    ["toStartOfTenMinutes(toTimeZone(toDateTime('2024-01-01 23:37:00'), 'Asia/Kolkata'))", '2024-01-02T04:00:00+05:30'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  it('now(tz) is the current instant shown in that zone', async () => {
    const r = await db.query("select now('Asia/Tokyo'), timeZoneOf(now('Asia/Tokyo')), dateDiff('second', now(), now('Asia/Tokyo')) < 5");
    expect(r.results[0][0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+09:00$/);
    expect(r.results[0].slice(1)).toEqual(['Asia/Tokyo', 1]);
    await fails("select now('Nowhere/Land')", 'Timezone must be a valid IANA timezone name');
    await fails("select now('UTC', 1)", "Function 'now' expects at most 1 argument, found 2");
  });

  it('reads each row in the zone given, and types the result in it', async () => {
    const r = await db.query(
      "select toStartOfDay(timestamp, 'UTC') as d, toDayOfWeek(timestamp, 0, 'America/New_York') as w, toDateTime(timestamp, 'UTC') as t from events where event = '$pageview' order by timestamp limit 2",
    );
    expect(r.results).toEqual([
      ['2024-03-30T00:00:00Z', 6, '2024-03-30T22:30:00Z'],
      ['2024-03-30T00:00:00Z', 6, '2024-03-30T23:30:00Z'],
    ]);
    // toStartOfDay and toDateTime of a datetime are ClickHouse DateTimes (whole seconds; hogql-functions-posthog-compat-4.test.ts),
    // toDayOfWeek a UInt8 (hogql-functions-posthog-compat-5.test.ts)
    expect(r.types.map((t) => t[1])).toEqual(["DateTime('UTC')", 'UInt8', "DateTime('UTC')"]);
  });

  it('groups by the zoned bucket', async () => {
    expect(await all("select toStartOfDay(timestamp, 'UTC') as d, count() from events where event = '$pageview' group by d order by d")).toEqual([
      ['2024-03-30T00:00:00Z', 2],
      ['2024-03-31T00:00:00Z', 1],
      ['2024-04-01T00:00:00Z', 2],
    ]);
  });

  it.each([
    ["select toStartOfDay(timestamp, 'Mars/Base') from events", 'Timezone must be a valid IANA timezone name'],
    ['select toStartOfDay(timestamp, event) from events', 'Timezone must be a valid IANA timezone name'],
    ["select toDateTime('2024-01-01', 'Not/AZone')", 'Timezone must be a valid IANA timezone name'],
    ["select toDateTime64('2024-01-01', 3, 'Not/AZone')", 'Timezone must be a valid IANA timezone name'],
    ["select toDate('2024-01-01', 'Not/AZone')", 'Timezone must be a valid IANA timezone name'],
    ["select toDayOfWeek(timestamp, 7) from events", 'toDayOfWeek mode must be a constant 0, 1, 2 or 3'],
    ["select toDayOfWeek(timestamp, 'UTC') from events", 'toDayOfWeek mode must be a constant 0, 1, 2 or 3'],
    ["select toStartOfDay(timestamp, 'UTC', 'UTC') from events", "Function 'toStartOfDay' expects at most 2 arguments, found 3"],
    ["select toDayOfWeek(timestamp, 0, 'UTC', 1) from events", "Function 'toDayOfWeek' expects at most 3 arguments, found 4"],
    // the other date functions of the mapping take the value alone
    ["select toHour(timestamp, 'UTC') from events", "Function 'toHour' expects 1 argument, found 2"],
    ["select toStartOfHour(timestamp, 'UTC') from events", "Function 'toStartOfHour' expects 1 argument, found 2"],
  ])('%s is a 400', async (text, message) => {
    await fails(text, message);
  });
});

describe('mapping.py parseDateTimeBestEffort(OrNull/OrZero): RFC 822 / RFC 1123 dates, as ClickHouse reads them', () => {
  it.each([
    ["parseDateTimeBestEffort('Tue, 01 Oct 2024 12:34:56 GMT')", '2024-10-01T14:34:56+02:00'],
    ["parseDateTimeBestEffortOrNull('Wed, 02 Oct 2002 13:00:00 +0200')", '2002-10-02T13:00:00+02:00'],
    ["parseDateTimeBestEffortOrNull('Sat, 02 Mar 2024 10:00:00 -0500')", '2024-03-02T16:00:00+01:00'],
    ["parseDateTimeBestEffortOrNull('02 Mar 2024 10:00:00 +0000')", '2024-03-02T11:00:00+01:00'],
    ["parseDateTimeBestEffortOrNull('Sat, 2 Mar 2024 10:00:00 GMT')", '2024-03-02T11:00:00+01:00'],
    // without a zone: local time, in the project's zone or the one given
    ["parseDateTimeBestEffortOrNull('Sat, 02 Mar 2024 10:00:00')", '2024-03-02T10:00:00+01:00'],
    ["parseDateTimeBestEffortOrNull('Sat, 02 Mar 2024 10:00:00', 'UTC')", '2024-03-02T10:00:00Z'],
    ["parseDateTimeBestEffortOrNull('Sat, 02 Mar 2024 10:00:00 GMT', 'Asia/Tokyo')", '2024-03-02T19:00:00+09:00'],
    ["parseDateTimeBestEffortOrNull('Thu, 03 Oct 2024 12:34 UTC')", '2024-10-03T14:34:00+02:00'],
    ["parseDateTimeBestEffortOrNull('3 oct 2024 12:34:56 gmt')", '2024-10-03T14:34:56+02:00'],
    ["parseDateTimeBestEffortOrNull('Thu, 03 Oct 2024 12:34:56 +05:30')", '2024-10-03T09:04:56+02:00'],
    ["parseDateTimeBestEffortOrNull('Oct 03 2024 12:34:56')", '2024-10-03T12:34:56+02:00'],
    ["parseDateTimeBestEffortOrNull('03 Oct 2024')", '2024-10-03T00:00:00+02:00'],
    ["parseDateTimeBestEffortOrNull('Tue, 01 Foo 2024 12:34:56 GMT')", null],
    // test_printer.py test_functions_expecting_datetime_arg: parseDateTimeBestEffort('23/10/2020 12:12:57'), day first
    ["parseDateTimeBestEffort('23/10/2020 12:12:57')", '2020-10-23T12:12:57+02:00'],
    ["parseDateTimeBestEffortOrNull('10/11/2020', 'UTC')", '2020-11-10T00:00:00Z'],
    ["parseDateTimeBestEffortOrNull('1/2/2020 3:04:05', 'UTC')", '2020-02-01T03:04:05Z'],
    ["parseDateTimeBestEffortOrNull('23/10/2020 12:12', 'UTC')", '2020-10-23T12:12:00Z'],
    ["parseDateTimeBestEffortOrNull('2020/10/23 12:12:57', 'UTC')", '2020-10-23T12:12:57Z'],
    ["parseDateTimeBestEffortOrNull('20201023121257', 'UTC')", '2020-10-23T12:12:57Z'],
    ["parseDateTimeBestEffortOrZero('not a date at all')", '1970-01-01T01:00:00+01:00'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });

  it('reads property values per row', async () => {
    const base = { project_id: 1, distinct_id: 'rfc', person_id: null, elements_chain: null, session_id: null, event: 'rfc-date' };
    await db.addEvents(
      ['Tue, 01 Oct 2024 12:34:56 GMT', 'Wed, 02 Oct 2024 13:00:00 +0200', '2024-10-03 10:00:00', 'garbage'].map((d, i) => ({
        ...base,
        uuid: `30000000-0000-4000-8000-0000000001${i}0`,
        timestamp: at(`2024-04-0${i + 4}T00:00:00Z`),
        created_at: at('2024-04-04T00:00:00Z'),
        properties: JSON.stringify({ sent: d }),
      })),
    );
    expect(await all("select parseDateTimeBestEffortOrNull(properties.sent, 'UTC') from events where event = 'rfc-date' order by timestamp")).toEqual([
      ['2024-10-01T12:34:56Z'],
      ['2024-10-02T11:00:00Z'],
      ['2024-10-03T10:00:00Z'],
      [null],
    ]);
  });
});

describe('mapping.py HOGQL_AGGREGATIONS combinators: -OrNull, -OrDefault, -Array, -ForEach (with -If)', () => {
  const none = "from events where event = 'no such event'";
  it.each([
    [`select sumOrNull(toFloat(properties.price)) ${none}`, null],
    [`select sumOrDefault(toFloat(properties.price)) ${none}`, 0],
    [`select countOrNull() ${none}`, null],
    [`select countOrDefault() ${none}`, 0],
    [`select uniqOrNull(distinct_id) ${none}`, null],
    [`select avgOrNull(toFloat(properties.price)) ${none}`, null],
    [`select avgOrDefault(toFloat(properties.price)) ${none}`, 0],
    [`select maxOrDefault(event) ${none}`, ''],
    [`select maxOrNull(event) ${none}`, null],
    // with values to aggregate, the aggregate itself
    ["select sumOrNull(toFloat(properties.price)) from events where event = '$pageview'", 119.5],
    ["select countOrNull() from events where event = '$pageview'", 5],
    ["select uniqOrDefault(distinct_id) from events where event = '$pageview'", 4],
    ["select maxOrNull(event) from events where event in ('$pageview', 'signup')", 'signup'],
    // -If inside, in either order
    ["select sumIfOrNull(toFloat(properties.price), event = 'no such event') from events", null],
    ["select sumOrNullIf(toFloat(properties.price), event = '$pageview') from events", 119.5],
    ["select countIfOrDefault(event = 'no such event') from events", 0],
    ["select countIfOrNull(event = 'no such event') from events", null],
    // only the rows of the condition count: signup's price 'abc' is no number
    ["select sumIfOrNull(toFloat(properties.price), event = 'signup') from events", null],
    ["select round(avgIfOrNull(toFloat(properties.price), event = '$pageview'), 2) from events", 39.83],
    // no value to aggregate: NULL property values are skipped, as ClickHouse's Nullable aggregates skip them
    ["select sumOrNull(toFloat(properties.nope)) from events", null],
  ])('%s = %j', async (text, expected) => {
    expect(await one(text)).toBe(expected);
  });

  it('-Array aggregates the elements of the arrays', async () => {
    expect(
      await all(
        'select sumArray(range(number + 1)), countArray(range(number + 1)), minArray(range(number + 1)), maxArray(range(number + 1)), uniqArray(range(number + 1)), arraySort(groupArrayArray(range(number + 1))), arraySort(groupUniqArrayArray(range(number + 1))) from numbers(3)',
      ),
    ).toEqual([[4, 6, 0, 2, 3, [0, 0, 0, 1, 1, 2], [0, 1, 2]]]);
    expect(await one('select avgArray(range(number + 1)) from numbers(4)')).toBe(1);
    expect(await all('select sumArrayIf(range(number + 1), number < 2), uniqArrayIf(range(number + 1), number = 2), countArrayIf(range(number + 1), number > 5) from numbers(3)')).toEqual([[1, 3, 0]]);
    expect(await all('select sumArrayOrNull(range(number)), sumArray(range(number)) from numbers(3) where number > 5')).toEqual([[null, 0]]);
    expect(await all("select uniqArray(splitByChar(',', event)) from events where event in ('$pageview', 'signup')")).toEqual([[2]]);
  });

  it('-ForEach aggregates the arrays position by position', async () => {
    // rows: [0], [0, 1], [0, 1, 2]
    expect(await all('select sumForEach(range(number + 1)), countForEach(range(number + 1)), minForEach(range(number + 1)), maxForEach(range(number + 1)) from numbers(3)')).toEqual([
      [
        [0, 2, 2],
        [3, 2, 1],
        [0, 1, 2],
        [0, 1, 2],
      ],
    ]);
    expect(await all('select sumForEachIf(range(number + 1), number > 0), sumForEach(range(number + 1)) from numbers(3) where number > 5')).toEqual([[[], []]]);
    expect(await one('select sumForEachIf(range(number + 1), number > 0) from numbers(3)')).toEqual([0, 2, 2]);
  });

  it.each([
    ['select sumArray(range(number), range(number)) from numbers(3)', "Aggregation 'sumArray' expects 1 argument, found 2"],
    ['select sumOrNull() from events', "Aggregation 'sumOrNull' expects 1 argument, found 0"],
    ['select anyArray(range(number)) from numbers(3)', /^Unsupported function call 'anyArray\(\.\.\.\)'/],
    ['select sumOrNullOrNull(number) from numbers(3)', /^Unsupported function call 'sumOrNullOrNull\(\.\.\.\)'/],
    ['select lowerOrNull(event) from events', /^Unsupported function call 'lowerOrNull\(\.\.\.\)'/],
    // windowFunnel (a ClickHouse aggregation PostHog's funnels use internally) is not a ProductQL function
    ["select windowFunnel(86400)(timestamp, event = 'a', event = 'b') from events", /^Unsupported function call 'windowFunnel\(\.\.\.\)'/],
  ])('%s is a 400', async (text, message) => {
    await fails(text, message);
  });
});

describe('mapping.py: timeZoneOf, intExp2/intExp10, countSubstringsCaseInsensitive', () => {
  it.each([
    ['timeZoneOf(now())', 'Europe/Berlin'],
    ["timeZoneOf(toTimeZone(now(), 'Asia/Tokyo'))", 'Asia/Tokyo'],
    ["timeZoneOf(toDateTime('2024-01-01 00:00:00', 'UTC'))", 'UTC'],
    ['intExp2(10)', 1024],
    ['intExp2(0)', 1],
    ['intExp10(3)', 1000],
    ["countSubstringsCaseInsensitive('aBcAbCabc', 'ABC')", 3],
    ["countSubstringsCaseInsensitive('abc', '')", 0],
    // an empty needle counts nothing (18.16's replaceAll refused it)
    ["countSubstrings('abc', '')", 0],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });
  it('timeZoneOf reads a column in the project zone', async () => {
    expect(await all("select timeZoneOf(timestamp), timeZoneOf(toTimeZone(timestamp, 'America/New_York')) from events limit 1")).toEqual([['Europe/Berlin', 'America/New_York']]);
  });
  it('timeZoneOf of something else is a 400', async () => {
    await fails("select timeZoneOf('2024-01-01')", 'timeZoneOf takes a DateTime value');
  });
});

describe('mapping.py HOGQL_AGGREGATIONS combinators: -State in a subquery, -Merge over its rows', () => {
  const states = (select: string) => `from (select event as e, ${select} from events where event in ('$pageview', 'signup') group by e)`;
  it.each([
    // distinct ids over both groups (user1, user2, user3, anon), not the sum of the groups' counts (4 + 1)
    [`select uniqMerge(s) ${states('uniqState(distinct_id) as s')}`, 4],
    [`select uniqExactMerge(s) ${states('uniqExactState(distinct_id) as s')}`, 4],
    [`select countMerge(s) ${states('countState() as s')}`, 6],
    [`select sumMerge(s) ${states('sumState(toFloat(properties.price)) as s')}`, 119.5],
    [`select round(avgMerge(s), 2) ${states('avgState(toFloat(properties.price)) as s')}`, 39.83],
    [`select minMerge(s) ${states('minState(toFloat(properties.price)) as s')}`, 9.5],
    [`select maxMerge(s) ${states('maxState(toFloat(properties.price)) as s')}`, 100],
    [`select argMaxMerge(s) ${states('argMaxState(distinct_id, timestamp) as s')}`, 'anon'],
    [`select argMinMerge(s) ${states('argMinState(distinct_id, timestamp) as s')}`, 'user1'],
    // -If on either side
    [`select uniqMergeIf(s, e = 'signup') ${states('uniqState(distinct_id) as s')}`, 1],
    [`select uniqMerge(s) ${states("uniqStateIf(distinct_id, distinct_id != 'anon') as s")}`, 3],
    [`select countMerge(s) ${states("countStateIf(distinct_id = 'user2') as s")}`, 2],
  ])('%s = %j', async (text, expected) => {
    expect(await one(text)).toBe(expected);
  });

  it('merges per group', async () => {
    expect(
      await all(
        "select d, uniqMerge(s) from (select toDate(timestamp) as d, event as e, uniqState(distinct_id) as s from events where event in ('$pageview', 'signup') group by d, e) group by d order by d",
      ),
    ).toEqual([
      // Berlin days: user1 | user1, user2 | user2 (signup), user3, anon
      ['2024-03-30', 1],
      ['2024-03-31', 2],
      ['2024-04-01', 3],
    ]);
  });

  it.each([
    ['select uniqMerge(distinct_id, event) from events', "Aggregation 'uniqMerge' expects 1 argument, found 2"],
    ['select quantileState(0.5)(number) from numbers(3)', /^Unsupported function call 'quantileState\(\.\.\.\)'/],
  ])('%s is a 400', async (text, message) => {
    await fails(text, message);
  });
});

describe('mapping.py hash functions: MD5, SHA1, SHA256 (digests shown as hex text)', () => {
  it.each([
    ["MD5('abc')", '900150983cd24fb0d6963f7d28e17f72'],
    ["hex(MD5('abc'))", '900150983CD24FB0D6963F7D28E17F72'],
    ["lower(hex(MD5('abc')))", '900150983cd24fb0d6963f7d28e17f72'],
    ["SHA1('abc')", 'a9993e364706816aba3e25717850c26c9cd0d89d'],
    ["hex(SHA256('abc'))", 'BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD'],
    ["MD5('')", 'd41d8cd98f00b204e9800998ecf8427e'],
    ['MD5(NULL)', null],
    ["toTypeName(MD5('abc'))", 'FixedString(16)'],
    ["MD5('abc') = MD5(concat('a', 'bc'))", 1],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });
  it('hashes column values per row', async () => {
    expect(await all("select distinct_id, hex(MD5(distinct_id)) from events where event = 'signup'")).toEqual([['user2', '7E58D63B60197CEB55A1C487989A3720']]);
  });
  it('a non-string argument is a 400', async () => {
    await fails('select MD5(1)', 'MD5 takes a string: use MD5(toString(x))');
  });
});

describe('ClickHouse functions ProductQL does not have: PostHog\'s "Unsupported function call", saying why', () => {
  it.each([
    ["select mapKeys(map('a', 1))", /^Unsupported function call 'mapKeys\(\.\.\.\)': Map values are not available/],
    ["select cityHash64('a')", "Unsupported function call 'cityHash64(...)': this hash is not available in ProductQL (its values could not be the same on every engine): use MD5, SHA1 or SHA256"],
    ["select xxHash64('a')", /^Unsupported function call 'xxHash64\(\.\.\.\)': this hash is not available/],
    ["select windowFunnel(86400)(timestamp, event = 'a') from events", /^Unsupported function call 'windowFunnel\(\.\.\.\)': ClickHouse's funnel and sequence aggregations are not available in ProductQL: use a FunnelsQuery/],
    // other unknown names keep PostHog's suggestion of a close one
    ['select toStartOfDya(now())', "Unsupported function call 'toStartOfDya(...)'. Perhaps you meant 'toStartOfDay(...)'?"],
  ])('%s is a 400', async (text, message) => {
    await fails(text, message);
  });
});

describe('mapping.py: netloc, port, ifNotFinite', () => {
  it.each([
    ["netloc('http://paul@www.example.com:80/a?b#c')", 'paul@www.example.com:80'],
    ["netloc('https://posthog.com')", 'posthog.com'],
    ["netloc('not a url')", ''],
    ["port('http://www.example.com:8080/a')", 8080],
    ["port('https://user:pw@[::1]:443/')", 443],
    ["port('https://www.example.com/a:99')", 0],
    ["port('https://www.example.com', 443)", 443],
    ['ifNotFinite(1 / 0, 42)', 42],
    ['ifNotFinite(0 / 0, -1)', -1],
    ['ifNotFinite(1.5, 42)', 1.5],
    ['ifNotFinite(NULL, 7)', 7],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });
  it('reads property values per row', async () => {
    expect(await all("select port(properties.$current_url, 1), netloc(properties.$current_url) from events where event = 'h1-page' order by timestamp limit 1")).toEqual([[1, 'a.com']]);
    expect(await all("select ifNotFinite(toFloat(properties.price), -1) from events where event in ('$pageview', 'signup') order by timestamp")).toEqual([[10], [9.5], [100], [-1], [-1], [-1]]);
  });
  it('a default port that is no constant port number is a 400', async () => {
    await fails("select port('http://a.com', 70000)", 'port takes a constant default port from 0 to 65535');
  });
});

describe('mapping.py parseDateTime(text, format[, tz]) (parseDateTimeOrNull, MySQL format codes)', () => {
  it.each([
    // test_printer.py test_functions_expecting_datetime_arg
    ["parseDateTime('2021-01-04+23:00:00', '%Y-%m-%d+%H:%i:%s')", '2021-01-04T23:00:00+01:00'],
    ["parseDateTimeOrNull('04/01/2021 23:05', '%d/%m/%Y %H:%i')", '2021-01-04T23:05:00+01:00'],
    ["parseDateTime('2021-01-04', '%Y-%m-%d')", '2021-01-04T00:00:00+01:00'],
    ["parseDateTime('2021 x', '%Y x')", '2021-01-01T00:00:00+01:00'],
    ["parseDateTime('20210104 2300', '%Y%m%d %H%S')", '2021-01-04T23:00:00+01:00'],
    ["parseDateTime('100% 2021', '100%% %Y')", '2021-01-01T00:00:00+01:00'],
    ["parseDateTime('2021-01-04 23:00:00', '%Y-%m-%d %H:%i:%s', 'UTC')", '2021-01-04T23:00:00Z'],
    // text that does not match the format, or is no date: NULL
    ["parseDateTimeOrNull('2021/01/04', '%Y-%m-%d')", null],
    ["parseDateTimeOrNull('2021-01-04 extra', '%Y-%m-%d')", null],
    ["parseDateTimeOrNull('2021-13-04', '%Y-%m-%d')", null],
    ["parseDateTimeOrNull('2021-02-30', '%Y-%m-%d')", null],
    ["parseDateTimeOrNull('2021-02-03 24:00', '%Y-%m-%d %H:%i')", null],
    ["parseDateTimeOrNull('', '%Y-%m-%d')", null],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(`select ${expr}`)).toBe(expected);
  });
  it('reads each row', async () => {
    expect(await all("select parseDateTimeOrNull(concat('2021-01-0', toString(number + 8)), '%Y-%m-%d', 'UTC') from numbers(3) order by number")).toEqual([
      ['2021-01-08T00:00:00Z'],
      ['2021-01-09T00:00:00Z'],
      [null],
    ]);
  });
  it.each([
    ["select parseDateTime('2021', event) from events", 'parseDateTime takes a constant format string'],
    ["select parseDateTime('2021', '%Y-%q')", 'parseDateTime: unsupported format code "%q" (supported: %Y %m %d %H %i %s %S %%)'],
    ["select parseDateTime('2021', '%Y %Y')", 'parseDateTime: the format reads "%Y" twice'],
    ["select parseDateTime('01', '%m')", 'parseDateTime: the format must read a year (%Y)'],
    ["select parseDateTime('2021', '%Y', 'Mars/Base')", 'Timezone must be a valid IANA timezone name'],
  ])('%s is a 400', async (text, message) => {
    await fails(text, message);
  });
});

describe('formatDateTime: the MySQL codes current ClickHouse releases read (%i minute, %s second, %h 12-hour hour)', () => {
  it.each([
    ['%Y-%m-%d %H:%i:%s', '2021-01-03 15:04:05'],
    ['%h:%i %p', '03:04 PM'],
  ])('formatDateTime(t, %j) = %j', async (format, expected) => {
    expect(await one(`select formatDateTime(toDateTime('2021-01-03 15:04:05'), '${format}')`)).toBe(expected);
  });
});
