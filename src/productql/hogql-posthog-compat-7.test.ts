/**
 * HogQL cases ported from PostHog, after hogql-posthog-compat(-2 .. -6).test.ts (which this does not repeat): array
 * elements read out of bounds (ClickHouse's arrayElement: the element type's default, not NULL), lagInFrame /
 * leadInFrame reading only inside their window frame, substring from offset 0, JSONExtract* of a NULL value, the
 * trim(LEADING | TRAILING | BOTH ... FROM ...) forms of posthog/hogql/test/test_printer.py
 * (test_trim_leading_trailing_both), a CTE defined inside a CTE (posthog/hogql/test/test_query.py, the pivot-table
 * tests), intHash32 / intHash64 of posthog/hogql/functions/mapping.py (values checked against ClickHouse's) and
 * aggregations of no rows (ClickHouse: the type's default). Data through the real ingest path and runner, like
 * PostHog's `_create_event`.
 * hogql-posthog-compat-7.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, hogqlTestProject } from '../queries/funnels/testing';
import { testEngine } from '../engines/clickhouse/test-engine';

const project = hogqlTestProject({
  persons: [
    { id: '00000000-0000-4000-8000-0000000a11c7', distinct_ids: ['alice'], properties: { email: 'alice@x.com' } },
    { id: '00000000-0000-4000-8000-000000000b07', distinct_ids: ['bob'], properties: { email: 'bob@x.com' } },
  ],
  events: [
    ev('alice', '$pageview', '2021-01-01T10:00:00Z', { $current_url: 'https://x.com/a/b', obj: { a: 'x', n: 3 } }),
    ev('alice', 'signup', '2021-01-02T10:00:00Z', { $current_url: 'https://x.com/', obj: { b: 1 } }),
    ev('bob', '$pageview', '2021-01-03T10:00:00Z', { $current_url: 'https://x.com/c' }),
    ev('bob', 'purchase', '2021-01-04T10:00:00Z', {}),
  ],
});

const { hogql, rows } = project;

// First in the file, with a short query: the parser's first parse is its slowest (see parser.ts PARSE_TIMEOUT_MS).
describe('test_printer.py test_trim_leading_trailing_both: trim(LEADING | TRAILING | BOTH chars FROM x) is trimLeft / trimRight / trim', () => {
  it('removes the characters of the set from the start, the end or both; the columns are the printed calls', async () => {
    const r = await hogql("SELECT trim(LEADING 'x' FROM 'xxhixx'), trim(TRAILING 'xy' FROM 'hixyyx'), trim(BOTH ' ()' FROM '(  Hello, world!  )')");
    expect(r.results).toEqual([['hixx', 'hi', 'Hello, world!']]);
    expect(r.columns).toEqual(["trimLeft('xxhixx', 'x')", "trimRight('hixyyx', 'xy')", "trim('(  Hello, world!  )', ' ()')"]);
  });

  it('on a column', async () => {
    expect(await rows("SELECT trim(LEADING 'hpts:/' FROM properties.$current_url), trim(TRAILING '/' FROM properties.$current_url) FROM events WHERE event = 'signup'")).toEqual([
      ['x.com/', 'https://x.com'],
    ]);
  });
});

describe('arrayElement out of bounds: the default of the element type (ClickHouse: "0 for numbers, an empty string for strings"), not NULL', () => {
  it.each([
    ['[1, 2, 3][5]', 0],
    ["['a', 'b'][3]", ''],
    ['[1, 2, 3][-1]', 3],
    ['[1, 2, 3][-4]', 0],
    ["['a', 'b'][-3]", ''],
    ['[1, 300][3]', 0],
    ['[1.5, 2.5][3]', 0],
    ['[[1, 2], [3]][3]', []],
    ['[[1, 2], [3]][3][1]', 0],
    ['[[1, 2], [3]][2][1]', 3],
    ['arrayElement([1, 2], 3)', 0],
    ["arrayElement(['x'], 0)", ''],
    ["splitByChar('/', '/a/b')[9]", ''],
    ["splitByString('::', 'x::y')[5]", ''],
  ])('%s is %j', async (expr, expected) => {
    expect(await rows(`SELECT ${expr}`)).toEqual([[expected]]);
  });

  it.each([
    // Nullable elements default to NULL; a NULL index reads NULL
    ['[1, NULL][3]'],
    ["['a', NULL][3]"],
    ["['a', 'b'][NULL]"],
  ])('%s is NULL', async (expr) => {
    expect(await rows(`SELECT ${expr}`)).toEqual([[null]]);
  });

  it('an array column of a subquery, and indexes computed per row', async () => {
    expect(await rows('SELECT arr[5], arr[2], arr[n], arr[n - 4] FROM (SELECT [1, 2, 3] AS arr, 5 AS n)')).toEqual([[0, 2, 0, 1]]);
    // (not of a Nullable value: ClickHouse has no Nullable arrays, splitByChar of a Nullable(String) fails there)
    expect(await rows("SELECT splitByChar('/', ifNull(properties.$current_url, ''))[4], splitByChar('/', event)[3] FROM events ORDER BY timestamp")).toEqual([
      ['a', ''],
      ['', ''],
      ['c', ''],
      ['', ''],
    ]);
  });

  it('arrays taken out of arrays (arrayJoin), sorted or filtered keep their element type', async () => {
    expect(await rows('SELECT x[2], x[1] FROM (SELECT arrayJoin([[1, 2], [3]]) AS x)')).toEqual([
      [2, 1],
      [0, 3],
    ]);
    expect(await rows("SELECT arraySort([3, 1])[3], arrayReverseSort(['b', 'a'])[3], arrayFilter(x -> x > 1, [1, 2, 3])[5]")).toEqual([[0, '', 0]]);
  });

  it('arrayFirst / arrayLast without a matching element read the default too (NULL for Nullable elements)', async () => {
    expect(await rows("SELECT arrayFirst(x -> x > 1, [1, 2, 3]), arrayFirst(x -> x > 5, [1, 2, 3]), arrayLast(x -> x = 'z', ['a']), arrayLast(x -> x != 'z', ['a', 'b']), arrayFirst(x -> x > 5, [1, NULL])")).toEqual([
      [2, 0, '', 'b', null],
    ]);
    expect(await rows("SELECT arrayFirst(x -> x = 'z', splitByChar('$', event)) FROM events WHERE event = '$pageview'")).toEqual([[''], ['']]);
  });

  it('ClickHouse types the literal arrays by their elements', async () => {
    expect(await rows("SELECT toTypeName([1, 2, 3]), toTypeName(['a']), toTypeName([1, 300]), toTypeName(splitByChar(',', 'a,b'))")).toEqual([
      ['Array(UInt8)', 'Array(String)', 'Array(UInt16)', 'Array(String)'],
    ]);
  });
});

describe("lagInFrame / leadInFrame read only inside the window frame (ClickHouse: 'respects the window frame'; lag/lead do not)", () => {
  const window = async (query: string, expected: unknown[][]) => {
    if (testEngine() === 'clickhouse') {
      // ClickHouse 18.16 has no window functions (README: known limits): a clear 400
      await expect(hogql(query)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/Window functions are not available/) });
      return;
    }
    expect(await rows(query)).toEqual(expected);
  };

  it('the default frame with ORDER BY ends at the current row: leadInFrame reads the default; lagInFrame reads the row before', async () => {
    await window('SELECT number, leadInFrame(number) OVER (ORDER BY number), lagInFrame(number) OVER (ORDER BY number) FROM numbers(3) ORDER BY number', [
      [0, 0, 0],
      [1, 0, 0],
      [2, 0, 1],
    ]);
  });

  it('without ORDER BY the frame is the whole partition; with ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING too', async () => {
    await window(
      'SELECT number, leadInFrame(number) OVER (), leadInFrame(number) OVER (ORDER BY number ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM numbers(3) ORDER BY number',
      [
        [0, 1, 1],
        [1, 2, 2],
        [2, 0, 0],
      ],
    );
  });

  it('RANGE frames end (or start) at the last (first) row of equal ORDER BY values', async () => {
    await window(
      'SELECT number, leadInFrame(number) OVER (ORDER BY intDiv(number, 2)), lagInFrame(number) OVER (ORDER BY intDiv(number, 2) RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM numbers(5) ORDER BY number',
      [
        [0, 1, 0],
        [1, 0, 0],
        [2, 3, 0],
        [3, 0, 2],
        [4, 0, 0],
      ],
    );
  });

  it('ROWS frames: an offset outside the frame reads the default (given, or of the type: NULL for Nullable)', async () => {
    await window(
      'SELECT number, lagInFrame(number) OVER (ORDER BY number ROWS BETWEEN CURRENT ROW AND CURRENT ROW), lagInFrame(number, 2) OVER (ORDER BY number ROWS 1 PRECEDING), leadInFrame(number, 1, 99) OVER w, lagInFrame(toNullable(number)) OVER (PARTITION BY number % 2 ORDER BY number ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), lagInFrame(number, 1) OVER (ORDER BY number ROWS BETWEEN 1 PRECEDING AND 1 PRECEDING) FROM numbers(4) WINDOW w AS (ORDER BY number ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) ORDER BY number',
      [
        [0, 0, 0, 99, null, 0],
        [1, 0, 0, 99, null, 0],
        [2, 0, 0, 99, null, 1],
        [3, 0, 0, 99, null, 2],
      ],
    );
  });
});

describe('substring(s, offset[, length]) from offset 0 is empty (ClickHouse), negative offsets count from the end', () => {
  it.each([
    ["substring('hello', 0)", ''],
    ["substring('hello', 0, 3)", ''],
    ["substring('hello', -3, 2)", 'll'],
    ["substring('hello', 2, 3)", 'ell'],
    ["substring('hello', 6)", ''],
    ["substringUTF8('héllo', 0, 2)", ''],
    ["substringUTF8('héllo', 2, 2)", 'él'],
  ])('%s is %j', async (expr, expected) => {
    expect(await rows(`SELECT ${expr}`)).toEqual([[expected]]);
  });

  it('an offset computed per row', async () => {
    expect(await rows("SELECT substring(event, toInt(n) - 5), substring(event, n - 3) FROM (SELECT 'abc' AS event, 5 AS n)")).toEqual([['', 'bc']]);
  });
});

describe('JSONExtract* of a NULL value (a property that is not set) is NULL; of a JSON text without the key, the default', () => {
  it('per row', async () => {
    const q =
      "SELECT event, JSONExtractString(properties.obj, 'a'), JSONExtractInt(properties.obj, 'n'), JSONExtractFloat(properties.obj, 'n'), JSONExtractRaw(properties.obj, 'a'), JSONHas(properties.obj, 'a') FROM events ORDER BY timestamp";
    expect(await rows(q)).toEqual([
      ['$pageview', 'x', 3, 3, '"x"', 1],
      ['signup', '', 0, 0, '', 0],
      ['$pageview', null, null, null, null, null],
      ['purchase', null, null, null, null, null],
    ]);
  });

  it('constants', async () => {
    expect(await rows(`SELECT JSONExtractString('{"a":"x"}', 'a'), JSONExtractString('{"a":"x"}', 'b'), JSONExtractInt('{"a":3}', 'a'), JSONHas('{"a":1}', 'b'), JSONExtractString(NULL, 'a')`)).toEqual([
      ['x', '', 3, 0, null],
    ]);
  });
});

describe('test_query.py pivot tables: a CTE defined inside a CTE', () => {
  it('reads its rows through the outer CTE', async () => {
    const q = `
      WITH final AS (
        WITH pt AS (
          SELECT distinct_id AS pivot_column, groupArray(event) AS event_type_col, groupArray(c) AS count_col
          FROM (SELECT event, distinct_id, count() AS c FROM events GROUP BY event, distinct_id)
          GROUP BY pivot_column
        )
        SELECT pivot_column, arrayJoin(arrayZip(event_type_col, count_col)) AS tuple_col FROM pt
      )
      SELECT pivot_column, tuple_col.1 AS event, tuple_col.2 AS count FROM final ORDER BY pivot_column, event`;
    const r = await hogql(q);
    expect(r.columns).toEqual(['pivot_column', 'event', 'count']);
    expect(r.results).toEqual([
      ['alice', '$pageview', 1],
      ['alice', 'signup', 1],
      ['bob', '$pageview', 1],
      ['bob', 'purchase', 1],
    ]);
  });
});

describe('mapping.py intHash32 / intHash64: ClickHouse integer hashes, the same numbers on every engine', () => {
  it('the ClickHouse documentation examples: intHash32(42) and intHash64(42)', async () => {
    // UInt64 values beyond 2^53 are shown as text, as every 64-bit integer that a JSON number cannot hold
    expect(await rows('SELECT intHash32(42), intHash64(42)')).toEqual([[1228623923, '11490350930367293593']]);
  });

  it.each([
    [0, 4249604106, '4761183170873013810'],
    [1, 1343103100, '10577349846663553072'],
    [-1, 3545659993, '14600443904207254319'],
    [1000000, 2391343991, '14608560239930825669'],
  ])('%i: intHash32 %i, intHash64 %s (a negative value is read as its UInt64)', async (x, h32, h64) => {
    expect(await rows(`SELECT intHash32(${x}), intHash64(${x})`)).toEqual([[h32, h64]]);
  });

  it('per row, typed UInt32 / UInt64; NULL for NULL', async () => {
    expect(await rows('SELECT number, intHash32(number), intHash64(number) FROM numbers(3)')).toEqual([
      [0, 4249604106, '4761183170873013810'],
      [1, 1343103100, '10577349846663553072'],
      [2, 1996614413, '18198135717204167749'],
    ]);
    expect(await rows("SELECT toTypeName(intHash32(1)), toTypeName(intHash64(1)), intHash64(NULL), intHash32(toInt(properties.nope)) FROM events WHERE event = 'signup'")).toEqual([
      ['UInt32', 'UInt64', null, null],
    ]);
  });

  it('a value that is no integer is a 400', async () => {
    await expect(hogql("SELECT intHash64('a')")).rejects.toMatchObject({ status: 400, message: 'intHash64 takes an integer: use intHash64(toInt(x))' });
  });
});

describe('aggregations of no rows: the default of a non-Nullable type (ClickHouse), NULL for a Nullable one', () => {
  it('sum / min / max / any / anyLast of no row read 0 or the empty string; avg reads NULL (ClickHouse nan); count 0', async () => {
    expect(await rows('SELECT min(number), max(number), sum(number), avg(number), count(number), any(number), anyLast(number) FROM numbers(0)')).toEqual([[0, 0, 0, null, 0, 0, 0]]);
    expect(await rows("SELECT any(event), anyLast(event), min(event), max(event), groupUniqArray(event), sumIf(1, event = 'x'), maxIf(event, event = 'x') FROM events WHERE event = 'nope'")).toEqual([
      ['', '', '', '', [], 0, ''],
    ]);
  });

  it('-If aggregations of no matching row, too', async () => {
    expect(await rows('SELECT sumIf(number, number > 10), countIf(number > 10), minIf(number, number > 10), anyIf(number, number > 10) FROM numbers(3)')).toEqual([[0, 0, 0, 0]]);
  });

  it('a property is Nullable: NULL', async () => {
    expect(await rows("SELECT sum(properties.n), min(properties.$current_url), max(toFloat(properties.n)) FROM events WHERE event = 'nope'")).toEqual([[null, null, null]]);
  });

  it('groups are never empty: their values are unchanged', async () => {
    expect(await rows('SELECT event, sum(1), min(event), max(timestamp) FROM events GROUP BY event ORDER BY event')).toEqual([
      ['$pageview', 2, '$pageview', '2021-01-03T10:00:00Z'],
      ['purchase', 1, 'purchase', '2021-01-04T10:00:00Z'],
      ['signup', 1, 'signup', '2021-01-02T10:00:00Z'],
    ]);
  });
});
