/**
 * HogQL function mapping cases ported from PostHog, after hogql-posthog-compat(-2 .. -7).test.ts and the unit tests of
 * src/productql (which this does not repeat): functions of posthog/hogql/functions/mapping.py (HOGQL_CLICKHOUSE_FUNCTIONS)
 * with the values current ClickHouse gives, where ClickHouse 18.16 (our test server) answers differently and Quarry
 * spells the current behaviour itself: formatDateTime's codes (`%M` is the month's name since ClickHouse 23.4, `%a`,
 * `%b`, `%W`, `%Q`, ...), greatest/least over any number of values of one kind that skip NULLs (ClickHouse 24.12),
 * floor/ceil to N digits, timeStampAdd/timeStampSub, dateDiff's unit abbreviations, toDate of text that is not a date
 * (HogQL's toDate of a string is toDateOrNull), and PostHog's sortableSemver (posthog/hogql/test/test_query.py
 * test_sortable_semver). Data through the real ingest path and runner, like PostHog's `_create_event`.
 * hogql-functions-posthog-compat.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, hogqlTestProject } from '../queries/funnels/testing';

const project = hogqlTestProject({
  persons: [{ id: '00000000-0000-4000-8000-0000000a11c8', distinct_ids: ['alice'], properties: { email: 'alice@x.com' } }],
  events: [
    ev('alice', '$pageview', '2021-01-01T10:00:00Z', { $app_version: '1.10.0', n: 3 }),
    ev('alice', '$pageview', '2021-01-02T10:00:00Z', { $app_version: '1.9.2' }),
    ev('alice', '$pageview', '2021-01-03T10:00:00Z', { $app_version: '1.2.0.beta' }),
  ],
});

const { hogql, rows, one } = project;
const fails = (query: string, message: string | RegExp) =>
  expect(hogql(query)).rejects.toMatchObject({ status: 400, code: 'hogql_query_error', message: typeof message === 'string' ? message : expect.stringMatching(message) });

// First in the file, with a short query: the parser's first parse is its slowest (see parser.ts PARSE_TIMEOUT_MS).
describe('test_query.py test_sortable_semver: sortableSemver(version) orders versions as versions', () => {
  it('the numbers of the leading dotted version', async () => {
    expect(await rows("SELECT sortableSemver('1.2.3'), sortableSemver('2.2.0.betabac'), sortableSemver('1.9.233434.10')")).toEqual([[[1, 2, 3], [2, 2, 0], [1, 9, 233434, 10]]]);
  });

  it('ORDER BY sortableSemver(semver) DESC', async () => {
    const versions = ['0.0.0.0.1000', '0.9', '0.2354.2', '1.0.0', '1.1.0', '1.2.0', '1.9.233434.10', '1.10.0', '1.1000.0', '2.0.0', '2.2.0.betabac', '2.2.1'];
    const q = `SELECT arrayJoin([${versions.map((v) => `'${v}'`).join(', ')}]) AS semver ORDER BY sortableSemver(semver) DESC`;
    expect(await rows(q)).toEqual(
      [['2.2.1'], ['2.2.0.betabac'], ['2.0.0'], ['1.1000.0'], ['1.10.0'], ['1.9.233434.10'], ['1.2.0'], ['1.1.0'], ['1.0.0'], ['0.2354.2'], ['0.9'], ['0.0.0.0.1000']],
    );
  });

  it('over a property: 1.10.0 is after 1.9.2 (a string sort says otherwise)', async () => {
    expect(await rows('SELECT properties.$app_version FROM events ORDER BY sortableSemver(properties.$app_version)')).toEqual([['1.2.0.beta'], ['1.9.2'], ['1.10.0']]);
    expect(await rows("SELECT max(sortableSemver(properties.$app_version)) FROM events")).toEqual([[[1, 10, 0]]]);
  });
});

describe("formatDateTime: current ClickHouse's format codes (%M is the month's name since 23.4; 18.16 read it as the minute)", () => {
  const T = "toDateTime('2023-01-02 13:04:05')";
  it.each([
    ['%M', 'January'],
    ['%i', '04'],
    ['%Y-%m-%d %H:%i:%S', '2023-01-02 13:04:05'],
    ['%a %W', 'Mon Monday'],
    ['%b %M', 'Jan January'],
    ['%c', '01'],
    ['%C', '20'],
    ['%k', '13'],
    ['%l', '01'],
    ['%r', '01:04 PM'],
    ['%Q', '1'],
    ['%e|%n|%t|%%', ' 2|\n|\t|%'],
  ])('formatDateTime(t, %j) = %j', async (format, expected) => {
    expect(await one(`formatDateTime(${T}, '${format}')`)).toBe(expected);
  });

  it('the names and the quarter are those of the zone formatted in', async () => {
    // 2023-12-31 23:30 UTC is Monday 2024-01-01 08:30 in Tokyo
    expect(await one("formatDateTime(toDateTime('2023-12-31 23:30:00', 'UTC'), '%a %W %b %M %Q %Y', 'Asia/Tokyo')")).toBe('Mon Monday Jan January 1 2024');
    expect(await one("formatDateTime(toDateTime('2023-12-31 23:30:00', 'UTC'), '%a %W %b %M %Q %Y', 'UTC')")).toBe('Sun Sunday Dec December 4 2023');
  });

  it('of a Date', async () => {
    expect(await one("formatDateTime(toDate('2023-05-14'), '%a, %e %b %Y (%W %M)')")).toBe('Sun, 14 May 2023 (Sunday May)');
  });

  it('of an events timestamp', async () => {
    expect(await rows("SELECT formatDateTime(timestamp, '%a %d %M %H:%i') FROM events ORDER BY timestamp")).toEqual([['Fri 01 January 10:00'], ['Sat 02 January 10:00'], ['Sun 03 January 10:00']]);
  });
});

describe('greatest / least: any number of values of one kind; NULLs skipped (ClickHouse 24.12: "greatest and least now ignore NULL input values")', () => {
  it.each([
    ['greatest(1, 5, 3)', 5],
    ['least(4, 2, 8, 3)', 2],
    ['greatest(1, 2.5)', 2.5],
    ["greatest('apple', 'banana', 'cherry')", 'cherry'],
    ["least('b', 'a')", 'a'],
    ["least(toDate('2023-01-01'), toDate('2023-02-01'))", '2023-01-01'],
    ['greatest(NULL, 1)', 1],
    ['least(1, NULL, 3)', 1],
    ['greatest(NULL, NULL)', null],
    ['max2(1, 2)', 2],
    ['min2(1, 2)', 1],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('over columns', async () => {
    expect(await rows("SELECT greatest(toDayOfMonth(timestamp), 2, toInt(properties.n)) FROM events ORDER BY timestamp")).toEqual([[3], [2], [3]]);
  });
});

describe('floor(x, N) / ceil(x, N): to N decimal places, N < 0 to tens, hundreds (mapping.py: floor and ceil take 1 to 2 arguments)', () => {
  it.each([
    ['floor(1234.5678, -2)', 1200],
    ['floor(1.2345, 2)', 1.23],
    ['ceil(1.2345, 2)', 1.24],
    ['ceil(1234.5, -2)', 1300],
    ['floor(-1.25, 1)', -1.3],
    ['ceil(-1.25, 1)', -1.2],
    ['floor(1234, -2)', 1200],
    ['ceil(1234, -2)', 1300],
    ['floor(15, 1)', 15],
    ['floor(2.7, 0)', 2],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('the digits must be a constant integer', async () => {
    await fails('SELECT floor(1.5, toInt(properties.n)) FROM events', /floor must be a constant integer/);
    await fails('SELECT ceil(1.5, 1, 2)', "Function 'ceil' expects at most 2 arguments, found 3");
  });
});

describe('timeStampAdd / timeStampSub (timestamp_add / timestamp_sub): a datetime plus or minus an interval', () => {
  it.each([
    ["timeStampAdd(toDate('2023-01-01'), toIntervalDay(2))", '2023-01-03'],
    ["timestamp_add(toDateTime('2023-01-01 00:00:00'), INTERVAL 3 HOUR)", '2023-01-01T03:00:00Z'],
    ["timeStampSub(toDate('2023-01-03'), toIntervalDay(2))", '2023-01-01'],
    ["timestamp_sub(toDateTime('2023-03-31 00:00:00'), INTERVAL 1 MONTH)", '2023-02-28T00:00:00Z'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('on an events timestamp', async () => {
    expect(await rows('SELECT timeStampAdd(timestamp, toIntervalMinute(90)) FROM events ORDER BY timestamp LIMIT 1')).toEqual([['2021-01-01T11:30:00Z']]);
  });
});

describe("dateDiff: ClickHouse's unit abbreviations and plurals", () => {
  it.each([
    ["dateDiff('dd', toDate('2023-01-01'), toDate('2023-01-05'))", 4],
    ["dateDiff('d', toDate('2023-01-01'), toDate('2023-01-05'))", 4],
    ["dateDiff('days', toDate('2023-01-01'), toDate('2023-01-05'))", 4],
    ["dateDiff('mi', toDateTime('2023-01-01 00:00:00'), toDateTime('2023-01-01 00:10:00'))", 10],
    ["dateDiff('n', toDateTime('2023-01-01 00:00:00'), toDateTime('2023-01-01 00:10:00'))", 10],
    ["dateDiff('ss', toDateTime('2023-01-01 00:00:00'), toDateTime('2023-01-01 00:01:00'))", 60],
    ["dateDiff('hh', toDateTime('2023-01-01 00:59:00'), toDateTime('2023-01-01 01:00:00'))", 1],
    ["dateDiff('wk', toDate('2023-01-07'), toDate('2023-01-09'))", 1],
    ["dateDiff('mm', toDate('2023-01-31'), toDate('2023-03-01'))", 2],
    ["dateDiff('qq', toDate('2023-01-01'), toDate('2023-12-31'))", 3],
    ["dateDiff('yyyy', toDate('2020-01-01'), toDate('2023-01-05'))", 3],
    ["date_diff('yy', toDate('2022-12-31'), toDate('2023-01-01'))", 1],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('an unknown unit is a 400', async () => {
    await fails("SELECT dateDiff('fortnight', toDate('2023-01-01'), toDate('2023-01-05'))", /Unit must be one of/);
  });
});

describe('dateAdd / dateSub / toStartOfQuarter: calendar arithmetic clamps to the end of the month', () => {
  it.each([
    ["dateAdd('month', 1, toDate('2023-01-31'))", '2023-02-28'],
    ["dateSub('year', 1, toDate('2024-02-29'))", '2023-02-28'],
    ["dateAdd('quarter', 1, toDate('2023-11-30'))", '2024-02-29'],
    ["dateSub('month', 1, toDateTime('2023-03-31 10:00:00'))", '2023-02-28T10:00:00Z'],
    ["toStartOfQuarter(toDate('2023-05-10'))", '2023-04-01'],
    ["toStartOfQuarter(toDateTime('2023-12-31 23:30:00'))", '2023-10-01'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe("toDate of text: HogQL's toDate of a string is ClickHouse's toDateOrNull", () => {
  it.each([
    ["toDate('2023-01-02')", '2023-01-02'],
    ["toDate('abc')", null],
    ["toDate('')", null],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe('intDiv / modulo of integers by zero: ClickHouse\'s "Division by zero" error, not NULL', () => {
  it.each(['SELECT intDiv(7, 0)', 'SELECT modulo(7, 0)', 'SELECT intDiv(7, toInt(properties.n) - 3) FROM events'])('%s is a 400', async (query) => {
    await expect(hogql(query)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/Division by zero/) });
  });

  it('other divisors as before', async () => {
    expect(await rows('SELECT intDiv(7, 2), intDiv(-7, 2), modulo(7, 3), modulo(-7, 3), intDiv(toInt(properties.n), 2) FROM events WHERE isNotNull(properties.n)')).toEqual([[3, -3, 1, -1, 1]]);
  });
});

describe("toUUID of text: HogQL's toUUID is NULL for text that is not a UUID", () => {
  it('NULL for other text, the UUID otherwise; a uuid column unchanged', async () => {
    expect(await rows("SELECT toUUID('abc'), toUUID('470ae8b0-6e31-4a6a-a0a4-3a0a1a0a5a0a'), toUUID(uuid) = uuid FROM events LIMIT 1")).toEqual([
      [null, '470ae8b0-6e31-4a6a-a0a4-3a0a1a0a5a0a', 1],
    ]);
  });
});

describe('initcap (mapping.py): each word with its first letter upper case and the rest lower case; words are runs of letters and digits', () => {
  it.each([
    ["initcap('hello world')", 'Hello World'],
    ["initcap('hELLO wORLD-foo bar1X')", 'Hello World-Foo Bar1x'],
    ["initcap('3rd-party_x')", '3rd-Party_X'],
    ["initcap('  x  y')", '  X  Y'],
    ["initcap('')", ''],
    ['initcap(NULL)', null],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('over columns', async () => {
    expect(await rows('SELECT initcap(event), initcap(properties.$app_version), initcap(properties.missing) FROM events ORDER BY timestamp LIMIT 1')).toEqual([['$Pageview', '1.10.0', null]]);
  });
});

describe("argMax / argMin of no rows: ClickHouse's default of the value's type ('' for a String), as for any / min / max", () => {
  it('no rows, and -If filtering every row out', async () => {
    expect(await rows('SELECT argMax(event, timestamp), argMin(distinct_id, timestamp) FROM events WHERE 0')).toEqual([['', '']]);
    expect(await rows("SELECT argMaxIf(event, timestamp, 0), argMinIf(event, timestamp, 0), argMaxIf(properties.$app_version, timestamp, event = '$pageview') FROM events")).toEqual([
      ['', '', '1.2.0.beta'],
    ]);
  });

  it('a Nullable value stays NULL', async () => {
    expect(await rows('SELECT argMax(toInt(properties.n), timestamp) FROM events WHERE 0')).toEqual([[null]]);
  });
});

describe('modulo / % of floats: the remainder keeps its fraction and the dividend\'s sign (current ClickHouse; 18.16 truncated floats first)', () => {
  it.each([
    ['modulo(7.5, 2)', 1.5],
    ['7.5 % 2', 1.5],
    ['-7.5 % 2', -1.5],
    ['modulo(7, 2.5)', 2],
    ['10.25 % 0.5', 0.25],
    ['-7 % 3', -1],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe("JSONExtract* / JSONHas of text that is not JSON: ClickHouse's defaults ('', 0, false), not an error", () => {
  it('constants', async () => {
    expect(
      await rows("SELECT JSONExtractString('not json', 'a'), JSONExtractInt('not json', 'a'), JSONExtractFloat('{bad', 'a'), JSONExtractBool('x', 'a'), JSONExtractRaw('not json', 'a'), JSONHas('not json', 'a'), JSONExtractString('{\"a\":\"b\"}', 'a')"),
    ).toEqual([['', 0, 0, 0, '', 0, 'b']]);
  });

  it('a column of text that is not JSON', async () => {
    expect(await rows("SELECT JSONExtractString(event, 'a'), JSONHas(event, 'a') FROM events ORDER BY timestamp LIMIT 1")).toEqual([['', 0]]);
  });
});
