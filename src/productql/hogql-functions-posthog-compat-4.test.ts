/**
 * HogQL function cases ported from PostHog, fourth batch (after hogql-functions-posthog-compat(-2, -3).test.ts,
 * hogql-posthog-compat(-2 .. -10).test.ts and functions-hogql.test.ts, which this does not repeat):
 * - whole-second datetimes as PostHog's ClickHouse types them: toDateTime(number | datetime), toStartOfDay / Hour /
 *   Minute / FifteenMinutes, toStartOfInterval, fromUnixTimestamp are `DateTime('<tz>')` (no sub-second part), while
 *   `timestamp`, now() and toDateTime(text) are `DateTime64(6, '<tz>')`; through subquery columns too
 *   (posthog/hogql/test/test_query.py datetime cases, functions/test/test_mapping.py toDateTime / toStartOf*);
 * - aggregates that return one of their values (any, anyLast, min, max, argMax ...) keep the value's type (any(true) is
 *   Bool, any(1 = 1) UInt8) and are Nullable only when it is; groupArray(true) is an Array(Bool);
 * - date, string, array and rounding functions of posthog/hogql/functions/mapping.py with the values ClickHouse gives;
 * - parseDateTimeInJodaSyntax (test_mapping.py), if / multiIf / coalesce / ifNull typed by ClickHouse's least supertype, and
 *   toDate / toDateOrNull of text that is no real date (February 30, month 13) NULL on ClickHouse 18.16 too; the time
 *   windows tumble / hop and their bounds, tuples holding datetimes shown as the scalars are, formatDateTime's %f.
 * Data through the real ingest path and runner, like PostHog's `_create_event`; one data set for the file.
 * hogql-functions-posthog-compat-4.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, hogqlTestProject } from '../queries/funnels/testing';

const project = hogqlTestProject({
  persons: [{ id: '00000000-0000-4000-8000-0000000d44e1', distinct_ids: ['cat'], properties: { email: 'cat@x.com' } }],
  events: [
    ev('cat', '$pageview', '2023-01-01T10:20:30.123Z', { n: 1, flag: true }),
    ev('cat', '$pageview', '2023-01-02T23:59:59.999Z', { n: 2 }),
  ],
});

const { hogql, rows, one } = project;
const typesOf = (r: { types: [string, string][] }) => r.types.map((t) => t[1]);

// First in the file, with a short query: the parser's first parse is its slowest (see parser.ts PARSE_TIMEOUT_MS).
describe("whole-second datetimes are ClickHouse's DateTime('<tz>'), timestamp and toDateTime(text) DateTime64(6, '<tz>') (test_mapping.py toDateTime / toStartOf*)", () => {
  it.each([
    ['toTypeName(toDateTime(1672531200))', "DateTime('UTC')"],
    ["toTypeName(toDateTime('2023-01-01 00:00:00'))", "DateTime64(6, 'UTC')"],
    ['toTypeName(fromUnixTimestamp(1672531200))', "DateTime('UTC')"],
    ["toTypeName(toStartOfInterval(toDateTime('2023-01-01 10:37:12'), INTERVAL 15 minute))", "DateTime('UTC')"],
    ["toTypeName(toDateTime(1672531200, 'America/New_York'))", "DateTime('America/New_York')"],
    ['toString(toDateTime(1672531200.7))', '2023-01-01 00:00:00'],
    ["toStartOfInterval(toDateTime('2023-01-01 10:37:12'), INTERVAL 15 minute)", '2023-01-01T10:30:00Z'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('of timestamp: toStartOfDay / Hour / Minute / FifteenMinutes and toDateTime(timestamp) are DateTime, toStartOfWeek / Month Date', async () => {
    const r = await hogql(
      'SELECT toTypeName(timestamp), toTypeName(toStartOfDay(timestamp)), toTypeName(toStartOfHour(timestamp)), toTypeName(toStartOfMinute(timestamp)), ' +
        'toTypeName(toStartOfFifteenMinutes(timestamp)), toTypeName(toDateTime(timestamp)), toTypeName(toStartOfWeek(timestamp)), toTypeName(toStartOfMonth(timestamp)) FROM events LIMIT 1',
    );
    expect(r.results).toEqual([["DateTime64(6, 'UTC')", "DateTime('UTC')", "DateTime('UTC')", "DateTime('UTC')", "DateTime('UTC')", "DateTime('UTC')", 'Date', 'Date']]);
  });

  it('result types and values: toDateTime(timestamp) drops the milliseconds timestamp keeps', async () => {
    const r = await hogql('SELECT timestamp, toDateTime(timestamp), toStartOfDay(timestamp), toStartOfMinute(timestamp) FROM events ORDER BY timestamp');
    expect(r.results).toEqual([
      ['2023-01-01T10:20:30.123000Z', '2023-01-01T10:20:30Z', '2023-01-01T00:00:00Z', '2023-01-01T10:20:00Z'],
      ['2023-01-02T23:59:59.999000Z', '2023-01-02T23:59:59Z', '2023-01-02T00:00:00Z', '2023-01-02T23:59:00Z'],
    ]);
    expect(typesOf(r)).toEqual(["DateTime64(6, 'UTC')", "DateTime('UTC')", "DateTime('UTC')", "DateTime('UTC')"]);
  });

  it('in another zone: DateTime of that zone, shown there', async () => {
    const r = await hogql("SELECT toDateTime(timestamp, 'America/New_York'), toStartOfDay(timestamp, 'Asia/Tokyo') FROM events ORDER BY timestamp LIMIT 1");
    expect(r.results).toEqual([['2023-01-01T05:20:30-05:00', '2023-01-01T00:00:00+09:00']]);
    expect(typesOf(r)).toEqual(["DateTime('America/New_York')", "DateTime('Asia/Tokyo')"]);
  });

  it('through a subquery column: still a DateTime (type, value, toString without a fraction)', async () => {
    const r = await hogql('SELECT d, toTypeName(d), toString(d), toStartOfHour(d) FROM (SELECT toDateTime(timestamp) AS d FROM events) ORDER BY d');
    expect(r.results).toEqual([
      ['2023-01-01T10:20:30Z', "DateTime('UTC')", '2023-01-01 10:20:30', '2023-01-01T10:00:00Z'],
      ['2023-01-02T23:59:59Z', "DateTime('UTC')", '2023-01-02 23:59:59', '2023-01-02T23:00:00Z'],
    ]);
    expect(typesOf(r)).toEqual(["DateTime('UTC')", 'String', 'String', "DateTime('UTC')"]);
  });

  it("in a project's timezone: DateTime('<project tz>') beside timestamp's DateTime64(6, '<project tz>')", async () => {
    const r = await hogql('SELECT toStartOfDay(timestamp), toTypeName(toStartOfDay(timestamp)), toTypeName(timestamp), toDateTime(toDate(timestamp)) FROM events ORDER BY timestamp LIMIT 1', { timezone: 'Europe/Berlin' });
    expect(r.results).toEqual([['2023-01-01T00:00:00+01:00', "DateTime('Europe/Berlin')", "DateTime64(6, 'Europe/Berlin')", '2023-01-01T00:00:00+01:00']]);
    expect(typesOf(r)).toEqual(["DateTime('Europe/Berlin')", 'String', 'String', "DateTime('Europe/Berlin')"]);
  });

  it('casts: ::DateTime has whole seconds, ::DateTime64 keeps the fraction', async () => {
    expect(
      await rows("SELECT toString(timestamp::DateTime), toTypeName(CAST(timestamp AS DateTime)), toString(timestamp::DateTime64), toTypeName(CAST(timestamp AS DateTime64(6))) FROM events ORDER BY timestamp LIMIT 1"),
    ).toEqual([['2023-01-01 10:20:30', "DateTime('UTC')", '2023-01-01 10:20:30.123000', "DateTime64(6, 'UTC')"]]);
  });

  it('a subquery column of timestamp stays a DateTime64(6) with six decimals', async () => {
    expect(await rows('SELECT toTypeName(t), toString(t) FROM (SELECT timestamp AS t FROM events) ORDER BY t LIMIT 1')).toEqual([
      ["DateTime64(6, 'UTC')", '2023-01-01 10:20:30.123000'],
    ]);
  });
});

describe('aggregates returning one of their values keep its type: any(true) is Bool, any(1 = 1) UInt8, Nullable only when the value is', () => {
  it('types and values over rows', async () => {
    const r = await hogql(
      'SELECT any(true), any(1 = 1), min(true), max(false), anyLast(toBool(1)), max(1), any(event), argMax(event, timestamp), toTypeName(any(true)), toTypeName(any(1 = 1)), toTypeName(max(1)), toTypeName(any(event)) FROM events',
    );
    expect(r.results).toEqual([[true, 1, true, false, true, 1, '$pageview', '$pageview', 'Bool', 'UInt8', 'UInt8', 'String']]);
    expect(typesOf(r)).toEqual(['Bool', 'UInt8', 'Bool', 'Bool', 'Bool', 'UInt8', 'String', 'String', 'String', 'String', 'String', 'String']);
  });

  it("over no rows: the type's default (false, 0, '')", async () => {
    const r = await hogql('SELECT any(true), min(1 = 1), max(1), any(event) FROM events WHERE 1 = 2');
    expect(r.results).toEqual([[false, 0, 0, '']]);
    expect(typesOf(r)).toEqual(['Bool', 'UInt8', 'UInt8', 'String']);
  });

  it('anyIf(true, cond) is Bool; of a nullable value Nullable', async () => {
    const r = await hogql('SELECT anyIf(true, 1 = 1), toTypeName(anyIf(true, 1 = 1)), toTypeName(any(toInt(properties.n))) FROM events');
    expect(r.results).toEqual([[true, 'Bool', 'Nullable(Int64)']]);
  });

  it('groupArray(true) is an Array(Bool) of true / false; of comparisons Array(UInt8)', async () => {
    const r = await hogql('SELECT groupArray(true), groupArray(n = 1), toTypeName(groupArray(true)) FROM (SELECT toInt(properties.n) AS n FROM events ORDER BY n)');
    expect(r.results).toEqual([[[true, true], [1, 0], 'Array(Bool)']]);
    expect(typesOf(r)).toEqual(['Array(Bool)', 'Array(UInt8)', 'String']);
  });
});

describe('position counts bytes, as ClickHouse\'s (positionUTF8 counts characters; mapping.py position / positionUTF8)', () => {
  it.each([
    ["position('héllo', 'l')", 4],
    ["position('héllo', 'z')", 0],
    ["position('héllo', '')", 1],
    ["position('🦔x', 'x')", 5],
    ["multiSearchAllPositions('héllo', ['l', 'o'])", [4, 6]],
    ["multiSearchAllPositionsUTF8('héllo', ['l', 'o'])", [3, 5]],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('date parts and differences (mapping.py: toYYYYMM, toISOWeek, toDayOfWeek modes, dateDiff / dateAdd / dateSub units)', () => {
  it.each([
    ["toYYYYMM(toDate('2023-02-15'))", 202302],
    ["toYYYYMMDD(toDate('2023-02-15'))", 20230215],
    ["toISOYear(toDate('2023-01-01'))", 2022],
    ["toISOWeek(toDate('2023-01-02'))", 1],
    // 2023-01-01 is a Sunday: mode 0 Monday = 1 .. Sunday = 7; mode 1 Monday = 0 .. 6; mode 2 Sunday = 0; mode 3 Sunday = 1
    ["toDayOfWeek(toDate('2023-01-01'), 1)", 6],
    ["toDayOfWeek(toDate('2023-01-01'), 2)", 0],
    ["toDayOfWeek(toDate('2023-01-01'), 3)", 1],
    // dateDiff counts the unit boundaries crossed
    ["dateDiff('quarter', toDate('2023-01-01'), toDate('2023-07-01'))", 2],
    ["dateDiff('year', toDate('2022-12-31'), toDate('2023-01-01'))", 1],
    ["dateDiff('month', toDate('2023-01-31'), toDate('2023-02-01'))", 1],
    ["dateDiff('day', toDate('2023-01-02'), toDate('2023-01-01'))", -1],
    ["dateDiff('hour', toDateTime('2023-01-01 10:59:00'), toDateTime('2023-01-01 11:00:00'))", 1],
    // month arithmetic clamps to the month's last day
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('regular expressions: replaceRegexpOne with \\0, extract / extractAll take the first capture group', () => {
  it.each([
    ["replaceRegexpOne('abc', '(b)', '[\\\\0]')", 'a[b]c'],
    ["replaceRegexpAll('abcb', 'b', '<\\\\0>')", 'a<b>c<b>'],
    ["extract('foo=1&bar=2', 'bar=([0-9]+)')", '2'],
    ["extractAll('a=1,b=22', '[a-z]=([0-9]+)')", ['1', '22']],
    ["extractAll('abc', '[0-9]')", []],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('trim: spaces from both ends; with BOTH / LEADING, any of the characters given', () => {
  it.each([
    ["trim('  a  ')", 'a'],
    ["trim(BOTH 'ab' FROM 'abxba')", 'x'],
    ["trim(LEADING ' ' FROM '  a ')", 'a '],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('array functions: arrayFilter over several arrays, arrayReduce, arrayEnumerate, arrayReverseSort, indexOf, arrayExists / arrayAll', () => {
  it.each([
    ["arrayFilter((x, y) -> y > 1, ['a', 'b', 'c'], [1, 2, 3])", ['b', 'c']],
    ['arrayReverseSort([1, 3, 2])', [3, 2, 1]],
    ["arrayReduce('max', [1, 3, 2])", 3],
    ["arrayReduce('sum', [1, 2, 3])", 6],
    ['arrayEnumerate([5, 6, 7])', [1, 2, 3]],
    ["indexOf(['a', 'b'], 'b')", 2],
    ["indexOf(['a', 'b'], 'c')", 0],
    ['arrayExists(x -> x > 2, [1, 2, 3])', 1],
    ['arrayAll(x -> x > 2, [1, 2, 3])', 0],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('min / max / argMax of a datetime keep its kind and zone', () => {
  it('max of a DateTime is written without a fraction; max of a value in another zone is shown there', async () => {
    expect(
      await rows("SELECT max(toStartOfDay(timestamp)), toString(max(toDateTime(timestamp))), max(toTimeZone(timestamp, 'Asia/Tokyo')), argMax(toStartOfHour(timestamp), timestamp) FROM events"),
    ).toEqual([['2023-01-02T00:00:00Z', '2023-01-02 23:59:59', '2023-01-03T08:59:59.999000+09:00', '2023-01-02T23:00:00Z']]);
  });
});

describe('test_mapping.py test_parse_datetime_in_joda_syntax: parseDateTimeInJodaSyntax is HogQL\'s parseDateTimeInJodaSyntaxOrNull', () => {
  it.each([
    ["parseDateTimeInJodaSyntax('2023-02-24 14:53:31', 'yyyy-MM-dd HH:mm:ss')", '2023-02-24T14:53:31Z'],
    ["parseDateTimeInJodaSyntax('24.02.2023', 'dd.MM.yyyy')", '2023-02-24T00:00:00Z'],
    ["parseDateTimeInJodaSyntax('2023-02-24T14', 'yyyy-MM-dd\\'T\\'HH')", '2023-02-24T14:00:00Z'],
    ["parseDateTimeInJodaSyntax('2023-02-24 14', 'yyyy-MM-dd HH', 'Asia/Tokyo')", '2023-02-24T14:00:00+09:00'],
    ["parseDateTimeInJodaSyntax('not a date', 'yyyy-MM-dd')", null],
    ["parseDateTimeInJodaSyntaxOrNull('2023-02-24', 'yyyy-MM-dd')", '2023-02-24T00:00:00Z'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row, in the project timezone', async () => {
    expect(await rows("SELECT parseDateTimeInJodaSyntax(toString(toDate(timestamp)), 'yyyy-MM-dd') FROM events ORDER BY timestamp", { timezone: 'Europe/Berlin' })).toEqual([
      ['2023-01-01T00:00:00+01:00'],
      ['2023-01-03T00:00:00+01:00'],
    ]);
  });

  it('a field it does not read, or a format that is not a constant, is a 400', async () => {
    await expect(hogql("SELECT parseDateTimeInJodaSyntax('24.2.2023', 'd.M.yyyy')")).rejects.toMatchObject({ status: 400, message: expect.stringContaining('unsupported field "d"') });
    await expect(hogql("SELECT parseDateTimeInJodaSyntax('2023', event) FROM events")).rejects.toMatchObject({ status: 400, message: expect.stringContaining('constant format') });
  });
});

describe("if / multiIf / coalesce / ifNull are typed by ClickHouse's least supertype of their values", () => {
  it('integers and a float: Float64 (with the value of the branch taken); integers: the widest, signed when one is', async () => {
    const r = await hogql('SELECT if(1 = 1, 1, 2.5), multiIf(0, 1, 1, 2.5, 3), if(1 = 1, 1, 300), if(1 = 1, 1, -1), if(1 = 0, 1, NULL), toString(multiIf(0, 1, 1, 2.5, 3))');
    expect(r.results).toEqual([[1, 2.5, 1, 1, null, '2.5']]);
    expect(typesOf(r)).toEqual(['Float64', 'Float64', 'UInt16', 'Int16', 'Nullable(UInt8)', 'String']);
  });

  it('coalesce / ifNull: Nullable only when every value is', async () => {
    const r = await hogql(
      "SELECT coalesce(NULL, 1), ifNull(NULL, 2), coalesce(NULL, 1.5, 2), coalesce(toInt(properties.n), 0), coalesce(toInt(properties.n), toInt(properties.m)), ifNull(properties.missing, 'dflt') FROM events ORDER BY timestamp",
    );
    expect(r.results).toEqual([
      [1, 2, 1.5, 1, 1, 'dflt'],
      [1, 2, 1.5, 2, 2, 'dflt'],
    ]);
    expect(typesOf(r)).toEqual(['UInt8', 'UInt8', 'Float64', 'Int64', 'Nullable(Int64)', 'String']);
  });

  it('per row: if(cond, 1, 0.5) is a Float64 column', async () => {
    const r = await hogql("SELECT if(properties.n = 2, 1, 0.5), toTypeName(if(properties.n = 2, 1, 0.5)) FROM events ORDER BY timestamp");
    expect(r.results).toEqual([
      [0.5, 'Float64'],
      [1, 'Float64'],
    ]);
  });
});

describe('toDate / toDateOrNull of text that is no real date: NULL (HogQL prints toDate(text) as toDateOrNull), on every engine', () => {
  it.each([
    ["toDateOrNull('2023-02-30')", null],
    ["toDateOrNull('2023-02-29')", null],
    ["toDateOrNull('2023-13-01')", null],
    ["toDateOrNull('2023-00-10')", null],
    ["toDateOrNull('2023-01-32')", null],
    ["toDateOrNull('x')", null],
    ["toDateOrNull('')", null],
    ["toDateOrNull('2024-02-29')", '2024-02-29'],
    ["toDateOrNull('2023-03-01 10:00:00')", '2023-03-01'],
    ["toDateOrNull('2023-3-1')", '2023-03-01'],
    ["toDate('2023-02-30')", null],
    ["toDate('2023-13-01')", null],
    ["toDate('2023-3-1')", '2023-03-01'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('per row: a property holding a date or not', async () => {
    expect(await rows("SELECT toDateOrNull(if(properties.n = 1, '2023-02-31', '2023-02-28')), toDate(if(properties.n = 1, '2023-04-31', '2023-04-30')) FROM events ORDER BY timestamp")).toEqual([
      [null, null],
      ['2023-02-28', '2023-04-30'],
    ]);
  });
});

describe("mapping.py's time windows tumble / hop (test_printer.py test_functions_expecting_datetime_arg), and tuples holding datetimes", () => {
  it('tumble(t, size): the window holding t, as a tuple of DateTimes; tumbleStart / tumbleEnd its bounds; an interval count given as text', async () => {
    const r = await hogql(
      "SELECT tumble(toDateTime('2023-06-12'), toIntervalDay('1')), tumbleStart(toDateTime('2023-06-12 10:00:00'), toIntervalDay('1')), tumbleEnd(toDateTime('2023-06-14 10:00:00'), INTERVAL 1 WEEK), tumbleStart(tumble(toDateTime('2023-06-12 10:17:00'), INTERVAL 15 MINUTE))",
    );
    expect(r.results).toEqual([[['2023-06-12T00:00:00Z', '2023-06-13T00:00:00Z'], '2023-06-12T00:00:00Z', '2023-06-19T00:00:00Z', '2023-06-12T10:15:00Z']]);
    expect(typesOf(r)).toEqual(["Tuple(DateTime('UTC'), DateTime('UTC'))", "DateTime('UTC')", "DateTime('UTC')", "DateTime('UTC')"]);
  });

  it('hop(t, step, size): the window of size ending at the first step boundary after t', async () => {
    expect(
      await rows("SELECT hop(toDateTime('2024-07-04 10:00:00'), INTERVAL '1' DAY, INTERVAL '2' DAY), hopStart(toDateTime('2024-07-04 10:00:00'), INTERVAL 1 HOUR, INTERVAL 3 HOUR), hopEnd(toDateTime('2024-07-04 10:00:00'), INTERVAL 1 HOUR, INTERVAL 3 HOUR)"),
    ).toEqual([[['2024-07-03T00:00:00Z', '2024-07-05T00:00:00Z'], '2024-07-04T08:00:00Z', '2024-07-04T11:00:00Z']]);
  });

  it('per row in the project timezone; grouped by a window', async () => {
    const tz = { timezone: 'Europe/Berlin' };
    expect(await rows('SELECT tumble(timestamp, INTERVAL 1 HOUR), tumbleStart(timestamp, INTERVAL 1 DAY) FROM events ORDER BY timestamp', tz)).toEqual([
      [['2023-01-01T11:00:00+01:00', '2023-01-01T12:00:00+01:00'], '2023-01-01T00:00:00+01:00'],
      [['2023-01-03T00:00:00+01:00', '2023-01-03T01:00:00+01:00'], '2023-01-03T00:00:00+01:00'],
    ]);
    expect(await rows('SELECT tumbleStart(timestamp, INTERVAL 1 WEEK) AS w, count() FROM events GROUP BY w ORDER BY w')).toEqual([
      ['2022-12-26T00:00:00Z', 1],
      ['2023-01-02T00:00:00Z', 1],
    ]);
  });

  it('a tuple with datetimes and dates shows them as the scalars are shown (in their zone)', async () => {
    const r = await hogql("SELECT (timestamp, event), (toDate('2023-01-01'), 1), (toTimeZone(timestamp, 'Asia/Tokyo'), toStartOfDay(timestamp)) FROM events ORDER BY timestamp LIMIT 1", { timezone: 'Europe/Berlin' });
    expect(r.results).toEqual([[['2023-01-01T11:20:30.123000+01:00', '$pageview'], ['2023-01-01', 1], ['2023-01-01T19:20:30.123000+09:00', '2023-01-01T00:00:00+01:00']]]);
    expect(typesOf(r)).toEqual(["Tuple(DateTime64(6, 'Europe/Berlin'), String)", 'Tuple(Date, UInt8)', "Tuple(DateTime64(6, 'Asia/Tokyo'), DateTime('Europe/Berlin'))"]);
  });

  it('tumble takes (time, interval); hop (time, step, size)', async () => {
    await expect(hogql('SELECT tumble(now())')).rejects.toMatchObject({ status: 400 });
    await expect(hogql('SELECT hopStart(now(), INTERVAL 1 HOUR)')).rejects.toMatchObject({ status: 400, message: expect.stringContaining('hopStart takes') });
  });
});

describe("formatDateTime's %f: the microseconds, 000000 for a DateTime or Date (ClickHouse since 23.4)", () => {
  it('of timestamp, of whole-second values and of dates', async () => {
    expect(
      await rows("SELECT formatDateTime(timestamp, '%H:%i:%S.%f'), formatDateTime(toDateTime(timestamp), '%f'), formatDateTime(toStartOfMinute(timestamp), '%f'), formatDateTime(toDate(timestamp), '%f') FROM events ORDER BY timestamp", { timezone: 'Asia/Kolkata' }),
    ).toEqual([
      ['15:50:30.123000', '000000', '000000', '000000'],
      ['05:29:59.999000', '000000', '000000', '000000'],
    ]);
    expect(await one("formatDateTime(toDateTime64('2023-03-01 10:00:00.5', 6), '%f')")).toBe('500000');
  });
});

describe('toDateTime64(x, P[, tz]) (mapping.py "toDateTime64"): ClickHouse DateTime64(P), the fraction cut to P digits', () => {
  it('is typed DateTime64(P, <zone>), and keeps P digits at most (milliseconds are the finest kept here)', async () => {
    const r = await hogql(
      "SELECT toDateTime64('2023-03-01 10:00:00.567', 0), toDateTime64('2023-03-01 10:00:00.567', 1), toDateTime64('2023-03-01 10:00:00.567', 3), toDateTime64('2023-03-01 10:00:00.567', 6, 'America/New_York')",
      { timezone: 'UTC' },
    );
    expect(r.results).toEqual([['2023-03-01T10:00:00Z', '2023-03-01T10:00:00.500000Z', '2023-03-01T10:00:00.567000Z', '2023-03-01T10:00:00.567000-05:00']]);
    expect(typesOf(r)).toEqual(["DateTime64(0, 'UTC')", "DateTime64(1, 'UTC')", "DateTime64(3, 'UTC')", "DateTime64(6, 'America/New_York')"]);
  });

  it('toDateTime64(x, 0) has no fraction: toString writes none', async () => {
    expect(await one("toString(toDateTime64('2023-03-01 10:00:00.567', 0))")).toBe('2023-03-01 10:00:00');
    expect(await one("toTypeName(toDateTime64(now(), 3))")).toMatch(/^DateTime64\(3, '/);
  });
});
