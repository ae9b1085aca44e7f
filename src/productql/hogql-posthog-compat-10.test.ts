/**
 * HogQL cases ported from PostHog, after hogql-posthog-compat(-2 .. -9).test.ts (which this does not repeat):
 * - booleans as PostHog's ClickHouse (≥ 22) returns them: the literals `true` / `false` and `toBool(x)` are `Bool`
 *   (JSON true / false), while comparisons and logical operators (`1 = 1`, `and`, `not`, `in`, `like`, `has`, ...)
 *   are `UInt8` (JSON 1 / 0), in the result `types` too (posthog/hogql/test/test_query.py, test_printer.py
 *   `test_constants`: `true` / `false` are printed as such; functions/test/test_mapping.py `toBool`);
 * - boolean JSON properties read as the text of the JSON value (`properties.$bool_prop` is 'true'), as PostHog's
 *   property access (replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(...), ''), 'null'), '^"|"$', '')) reads them.
 * Data through the real ingest path and runner, like PostHog's `_create_person` / `_create_event`.
 * hogql-posthog-compat-10.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, hogqlTestProject } from '../queries/funnels/testing';

const project = hogqlTestProject({
  persons: [
    { distinct_ids: ['bob'], properties: { name: 'Bob' } },
    { distinct_ids: ['ann'], properties: { name: 'Ann' } },
  ],
  events: [
    ev('bob', 'e', '2023-01-01T12:00:00Z', { $bool_prop: true, n: 3 }),
    ev('ann', 'e', '2023-01-02T12:00:00.123Z', { $bool_prop: false, n: 1 }),
    ev('ann', 'f', '2023-01-03T12:00:00Z', {}),
  ],
});

const hogql = (query: string) => project.hogql(query, { timezone: 'UTC' });
const rows = async (query: string) => (await hogql(query)).results;

describe('booleans: true / false are Bool, comparisons and logical operators UInt8 (ClickHouse ≥ 22, as PostHog runs)', () => {
  it('SELECT true, false, 1 = 1: true, false, 1, typed Bool, Bool, UInt8', async () => {
    const r = await hogql('SELECT true, false, 1 = 1, toTypeName(true), toTypeName(1 = 1)');
    expect(r.results).toEqual([[true, false, 1, 'Bool', 'UInt8']]);
    expect(r.types).toEqual([
      ['true', 'Bool'],
      ['false', 'Bool'],
      ['equals(1, 1)', 'UInt8'],
      ['toTypeName(true)', 'String'],
      ['toTypeName(equals(1, 1))', 'String'],
    ]);
  });

  it.each([
    ['1 = 2', 0],
    ['1 != 2', 1],
    ['not 1', 0],
    ['not(0)', 1],
    ['1 and 0', 0],
    ['1 or 0', 1],
    ['2 < 3', 1],
    ["'abc' like 'a%'", 1],
    ["'abc' ilike 'X%'", 0],
    ['1 in (1, 2)', 1],
    ['3 not in (1, 2)', 1],
    ["'abc' =~ 'b'", 1],
    ['has([1, 2], 3)', 0],
    ['isNull(NULL)', 1],
    ['5 between 1 and 10', 1],
    ['not true', 0],
    ['true and false', 0],
  ])('%s is %j (UInt8)', async (expr, expected) => {
    const r = await hogql(`SELECT ${expr}`);
    expect(r.results).toEqual([[expected]]);
    expect(r.types[0][1]).toBe('UInt8');
  });

  it('per row: a comparison over a column is 1 / 0; a nullable one is Nullable(UInt8)', async () => {
    const r = await hogql("SELECT distinct_id, event = 'e', toInt(properties.n) > 1 FROM events ORDER BY timestamp");
    expect(r.results).toEqual([
      ['bob', 1, 1],
      ['ann', 1, 0],
      ['ann', 0, 0],
    ]);
    expect(r.types.map((t: string[]) => t[1])).toEqual(['String', 'UInt8', 'UInt8']);
  });

  it('toBool and CAST(x AS Bool) are Bool (test_mapping.py: toBool)', async () => {
    const r = await hogql('SELECT toBool(1), toBool(0), CAST(1 AS Bool), toTypeName(toBool(1)), toBool(1 = 1)');
    expect(r.results).toEqual([[true, false, true, 'Bool', true]]);
    expect(r.types.map((t: string[]) => t[1])).toEqual(['Bool', 'Bool', 'Bool', 'String', 'Bool']);
  });

  it('if(c, true, false) is Bool as its values are; if(c, 1 = 1, 0 = 1) UInt8', async () => {
    const r = await hogql('SELECT if(1 = 1, true, false), if(1 = 1, 1 = 1, 0 = 1)');
    expect(r.results).toEqual([[true, 1]]);
    expect(r.types.map((t: string[]) => t[1])).toEqual(['Bool', 'UInt8']);
  });

  it('inside arrays and tuples: Array(UInt8) of 1 / 0, Array(Bool) of true / false', async () => {
    const r = await hogql('SELECT [1 = 1, 2 = 1], [true, false], (1 = 1, true), toTypeName([1 = 1]), toTypeName([true])');
    expect(r.results).toEqual([[[1, 0], [true, false], [1, true], 'Array(UInt8)', 'Array(Bool)']]);
    expect(r.types.slice(0, 3).map((t: string[]) => t[1])).toEqual(['Array(UInt8)', 'Array(Bool)', 'Tuple(UInt8, Bool)']);
  });

  it('through a subquery and an alias, each keeps its type', async () => {
    const r = await hogql('SELECT x, y, toTypeName(x), toTypeName(y) FROM (SELECT 1 = 1 AS x, true AS y)');
    expect(r.results).toEqual([[1, true, 'UInt8', 'Bool']]);
  });

  it("as text: a comparison is '1' / '0', a Bool 'true' / 'false'", async () => {
    expect(await rows("SELECT toString(1 = 1), toString(1 = 2), toString(true), toString(false), concat('x', 1 = 2), concat('x', true)")).toEqual([['1', '0', 'true', 'false', 'x0', 'xtrue']]);
    expect(await rows('SELECT toString([1 = 1, 1 = 2]), toString((1 = 1, 2))')).toEqual([['[1,0]', '(1,2)']]);
  });

  it('as a number: a comparison adds and sums as 1 / 0', async () => {
    expect(await rows("SELECT (1 = 1) + 1, true + 1, sum(event = 'e'), sum(toInt(properties.n) > 1) FROM events")).toEqual([[2, 2, 2, 1]]);
  });

  it('compared with a number, as the number it is: (1 = 1) = 2 is 0, (1 = 1) = 1 is 1', async () => {
    expect(await rows('SELECT (1 = 1) = 2, (1 = 1) = 1, (1 = 2) = 0, true = 1')).toEqual([[0, 1, 1, 1]]);
  });

  it('filters and counts are unchanged: WHERE a comparison, countIf a comparison', async () => {
    expect(await rows("SELECT count(), countIf(event = 'e') FROM events WHERE (event = 'e') = 1 OR event = 'f'")).toEqual([[3, 2]]);
  });
});

describe('boolean JSON properties read as the JSON text (PostHog property access)', () => {
  it("properties.$bool_prop is 'true' / 'false' (Nullable(String)), and compares as text", async () => {
    const r = await hogql("SELECT properties.$bool_prop, properties.$bool_prop = 'true' FROM events ORDER BY timestamp");
    expect(r.results).toEqual([
      ['true', 1],
      ['false', 0],
      [null, 0],
    ]);
    expect(r.types.map((t: string[]) => t[1])).toEqual(['Nullable(String)', 'UInt8']);
  });

  it('toBool reads the text as a Bool', async () => {
    expect(await rows('SELECT toBool(properties.$bool_prop) FROM events ORDER BY timestamp')).toEqual([[true], [false], [null]]);
  });
});

// HogQL's `timestamp` is a DateTime64(6, tz), as are now() (now64(6, tz)) and toDateTime(<text>) (mapping.py:
// parseDateTime64BestEffortOrNull(text, 6, tz)): ClickHouse's toString writes them with six decimals. toDateTime of a
// number or datetime and toStartOfDay are DateTime (whole seconds): no fraction; a Date is the day.
describe('toString of datetimes: DateTime64(6) with six decimals, DateTime without', () => {
  it('toString(timestamp) per row, milliseconds kept', async () => {
    expect(await rows('SELECT toString(timestamp) FROM events ORDER BY timestamp')).toEqual([['2023-01-01 12:00:00.000000'], ['2023-01-02 12:00:00.123000'], ['2023-01-03 12:00:00.000000']]);
  });

  it('in the project timezone and in toTimeZone’s zone', async () => {
    const r = await project.hogql("SELECT toString(timestamp), toString(toTimeZone(timestamp, 'Asia/Tokyo')) FROM events ORDER BY timestamp LIMIT 1", { timezone: 'Europe/Berlin' });
    expect(r.results).toEqual([['2023-01-01 13:00:00.000000', '2023-01-01 21:00:00.000000']]);
  });

  it.each([
    ["toString(toDateTime('2023-01-01 12:00:00'))", '2023-01-01 12:00:00.000000'],
    ["toString(toDateTime('2023-01-01T12:00:00.5Z'))", '2023-01-01 12:00:00.500000'],
    ['toString(toDateTime(1672574400))', '2023-01-01 12:00:00'],
    ["toString(toStartOfDay(toDateTime('2023-01-01 12:34:56')))", '2023-01-01 00:00:00'],
    ["toString(toDate('2023-01-01'))", '2023-01-01'],
  ])('%s = %j', async (expr, expected) => {
    expect(await rows(`SELECT ${expr}`)).toEqual([[expected]]);
  });

  it('timestamp and now() are typed DateTime64(6, tz)', async () => {
    expect(await rows('SELECT toTypeName(timestamp), toTypeName(now()) FROM events LIMIT 1')).toEqual([["DateTime64(6, 'UTC')", "DateTime64(6, 'UTC')"]]);
  });

  it('toString(now()) has six decimals; toString(toStartOfDay(timestamp)) none', async () => {
    const [[now, day]] = await rows('SELECT toString(now()), toString(toStartOfDay(timestamp)) FROM events ORDER BY timestamp LIMIT 1');
    expect(now).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
    expect(day).toBe('2023-01-01 00:00:00');
  });
});

describe('JSONExtractRaw returns the raw JSON text (ClickHouse): strings keep their quotes, booleans are true / false', () => {
  it('of a property and of a constant', async () => {
    expect(await rows("SELECT JSONExtractRaw(properties, '$bool_prop'), JSONExtractRaw(properties, 'n'), JSONExtractRaw('{\"a\":\"x\"}', 'a') FROM events ORDER BY timestamp LIMIT 1")).toEqual([
      ['true', '3', '"x"'],
    ]);
  });
});
