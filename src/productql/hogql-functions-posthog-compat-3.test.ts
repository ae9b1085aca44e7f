/**
 * HogQL function cases ported from PostHog, third batch (after hogql-functions-posthog-compat(-2).test.ts,
 * hogql-posthog-compat(-2 .. -8).test.ts and functions-hogql.test.ts, which this does not repeat): functions of
 * posthog/hogql/functions/mapping.py (HOGQL_CLICKHOUSE_FUNCTIONS) with the values current ClickHouse gives, as
 * posthog/hogql/functions/test/test_mapping.py and posthog/hogql/test/test_query.py run them; and HogQL's null
 * handling in conditionals (test_query.py test_null_*, test_nullish_coalescing). Data through the real ingest path and
 * runner, like PostHog's `_create_event`; one data set for the file.
 * hogql-functions-posthog-compat-3.clickhouse.test.ts runs this file on ClickHouse with the same expected results.
 */
import { ev, hogqlTestProject } from '../queries/funnels/testing';
import { testEngine } from '../engines/clickhouse/test-engine';

const project = hogqlTestProject({
  persons: [{ id: '00000000-0000-4000-8000-0000000c33d9', distinct_ids: ['ann'], properties: { email: 'ann@x.com' } }],
  events: [
    ev('ann', '$pageview', '2021-01-01T10:00:00Z', { $current_url: 'https://www.example.com/a/b', word: 'héllo', n: 1 }),
    ev('ann', '$pageview', '2021-01-02T10:00:00Z', { $current_url: 'http://shop.example.org/cart', word: 'hello', n: 2 }),
    ev('ann', '$pageview', '2021-01-03T10:00:00Z', { n: 3 }),
  ],
});

const { hogql, rows, one } = project;
const perEvent = async (expr: string) => (await rows(`SELECT ${expr} FROM events ORDER BY timestamp`)).map((r: unknown[]) => r[0]);

// First in the file, with a short query: the parser's first parse is its slowest (see parser.ts PARSE_TIMEOUT_MS).
describe("length counts bytes, as ClickHouse's (mapping.py length; lengthUTF8 counts characters)", () => {
  it.each([
    ["length('hello')", 5],
    ["length('héllo')", 6],
    ["lengthUTF8('héllo')", 5],
    ["length('🦔')", 4],
    ["lengthUTF8('🦔')", 1],
    ["length('')", 0],
    ['length([1, 2, 3])', 3],
    ['length([])', 0],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('of a property: bytes, NULL when missing', async () => {
    expect(await perEvent('length(properties.word)')).toEqual([6, 5, null]);
    expect(await perEvent('lengthUTF8(properties.word)')).toEqual([5, 5, null]);
  });
});

describe('multiSearchAny / multiSearchFirstIndex / multiSearchFirstPosition / multiSearchAllPositions (mapping.py: searching in strings)', () => {
  it.each([
    ["multiSearchAny('hello world', ['xyz', 'wor'])", 1],
    ["multiSearchAny('hello world', ['xyz', 'abc'])", 0],
    ["multiSearchAny('abc', [''])", 1],
    ["multiSearchAny('abc', [])", 0],
    ["multiSearchFirstIndex('hello world', ['xyz', 'wor'])", 2],
    ["multiSearchFirstIndex('hello world', ['xyz', 'abc'])", 0],
    ["multiSearchFirstPosition('hello world', ['wor', 'llo'])", 3],
    ["multiSearchFirstPosition('hello world', ['xyz'])", 0],
    ["multiSearchAllPositions('hello world', ['o', 'world', 'z'])", [5, 7, 0]],
    ["multiSearchAllPositionsUTF8('hello world', ['h', 'd'])", [1, 11]],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('over a property (a missing one contains no needle)', async () => {
    expect(await perEvent("multiSearchAny(properties.$current_url, ['example.org', 'www.'])")).toEqual([1, 1, 0]);
    expect(await perEvent("multiSearchFirstPosition(properties.$current_url, ['/a', 'example'])")).toEqual([13, 13, 0]);
  });

  it('in WHERE', async () => {
    expect(await rows("SELECT count() FROM events WHERE multiSearchAny(properties.$current_url, ['/cart', '/checkout'])")).toEqual([[1]]);
  });

  it('needles that are not an array literal are a 400, as ClickHouse wants a constant array', async () => {
    await expect(hogql("SELECT multiSearchAny(event, splitByChar(',', 'a,b')) FROM events")).rejects.toThrow(/must be a constant array of strings/);
  });
});

describe('multiMatchAny / multiMatchAnyIndex: regular expressions (re2 syntax, as match)', () => {
  it.each([
    ["multiMatchAny('hello world', ['^h.*o\\\\s', 'z'])", 1],
    ["multiMatchAny('abc', ['x', 'y'])", 0],
    ["multiMatchAny('abc', ['^ABC$'])", 0],
    ["multiMatchAny('abc', ['(?i)^ABC$'])", 1],
    ["multiMatchAnyIndex('abc', ['x', 'b'])", 2],
    ["multiMatchAnyIndex('abc', ['x', 'y'])", 0],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('over a property', async () => {
    expect(await perEvent("multiMatchAny(properties.$current_url, ['^https://', '\\\\.org/'])")).toEqual([1, 1, 0]);
    expect(await perEvent("multiMatchAnyIndex(properties.$current_url, ['^https://', '\\\\.org/'])")).toEqual([1, 2, 0]);
  });
});

describe('toString of floats as ClickHouse writes them: plain decimals from 1e-6 to below 1e21, else an exponent without "+"', () => {
  it.each([
    ['toString(1e20)', '100000000000000000000'],
    ['toString(1e21)', '1e21'],
    ['toString(1.5e16)', '15000000000000000'],
    ['toString(1e15)', '1000000000000000'],
    ['toString(0.000001)', '0.000001'],
    ['toString(0.000123)', '0.000123'],
    ['toString(1e-7)', '1e-7'],
    ['toString(-2.5e-8)', '-2.5e-8'],
    ['toString(123456789012345680000.0)', '123456789012345680000'],
    ['toString(0 / 0)', 'nan'],
    ['toString(1 / 0)', 'inf'],
    ['toString(-1 / 0)', '-inf'],
    ["concat('x', 1e-7, ' ', 1e20)", 'x1e-7 100000000000000000000'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe('arrayResize / arrayWithConstant / arrayRotateLeft / arrayRotateRight (mapping.py: arrays)', () => {
  it.each([
    ['arrayResize([1, 2], 4)', [1, 2, 0, 0]],
    ['arrayResize([1, 2], 4, 9)', [1, 2, 9, 9]],
    ['arrayResize([1, 2, 3], 2)', [1, 2]],
    ['arrayResize([1, 2], 0)', []],
    ["arrayResize(['a'], 3)", ['a', '', '']],
    ['arrayResize([1, 2], 4)[4]', 0],
    ["arrayWithConstant(3, 'x')", ['x', 'x', 'x']],
    ['arrayWithConstant(0, 1)', []],
    ['arrayRotateLeft([1, 2, 3, 4], 1)', [2, 3, 4, 1]],
    ['arrayRotateRight([1, 2, 3, 4], 1)', [4, 1, 2, 3]],
    ['arrayRotateLeft([1, 2, 3, 4], 5)', [2, 3, 4, 1]],
    ['arrayRotateLeft([1, 2, 3, 4], -1)', [4, 1, 2, 3]],
    ['arrayRotateRight([1, 2, 3, 4], 0)', [1, 2, 3, 4]],
    ["toTypeName(arrayResize([1, 2], 4))", 'Array(UInt8)'],
    ["toTypeName(arrayWithConstant(2, 'x'))", 'Array(String)'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('arrayWithConstant of a property', async () => {
    expect(await perEvent('arrayWithConstant(2, properties.n)')).toEqual([
      ['1', '1'],
      ['2', '2'],
      ['3', '3'],
    ]);
  });
});

describe('arrayEnumerateUniq / arrayEnumerateDense', () => {
  it.each([
    ['arrayEnumerateUniq([10, 20, 10, 30, 20, 10])', [1, 1, 2, 1, 2, 3]],
    ["arrayEnumerateUniq(['a', 'b', 'a'])", [1, 1, 2]],
    ['arrayEnumerateUniq([])', []],
    ['arrayEnumerateDense([10, 20, 10, 30])', [1, 2, 1, 3]],
    ["arrayEnumerateDense(['b', 'a', 'b'])", [1, 2, 1]],
    ['toTypeName(arrayEnumerateUniq([1]))', 'Array(UInt32)'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('if / multiIf with NULL branches, coalesce / ifNull / nullIf (test_query.py null handling)', () => {
  it.each([
    ['if(1 = 1, NULL, 1)', null],
    ['if(1 = 2, NULL, 1)', 1],
    ['multiIf(1 = 2, 1, NULL)', null],
    ['multiIf(1 = 1, NULL, 2)', null],
    ['if(NULL, 1, 2)', 2],
    ['coalesce(NULL, 1, 2)', 1],
    ['coalesce(NULL, NULL)', null],
    ["ifNull(NULL, 'a')", 'a'],
    ['nullIf(1, 1)', null],
    ['nullIf(1, 2)', 1],
    ["nullIf('a', 'b')", 'a'],
    ['null ?? null ?? 2', 2],
    ['toTypeName(nullIf(1, 2))', 'Nullable(UInt8)'],
    ['toTypeName(if(1 = 2, NULL, 1))', 'Nullable(UInt8)'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('over a property: NULL falls to the next value', async () => {
    expect(await perEvent("coalesce(properties.$current_url, properties.word, 'none')")).toEqual(['https://www.example.com/a/b', 'http://shop.example.org/cart', 'none']);
    expect(await perEvent("if(isNull(properties.word), NULL, upperUTF8(properties.word))")).toEqual(['HÉLLO', 'HELLO', null]);
    expect(await perEvent("nullIf(properties.word, 'hello')")).toEqual(['héllo', null, null]);
  });
});

describe('tuples: literal, tuple(), t.N access and tupleElement (test_query.py test_tuple_access)', () => {
  it.each([
    ["tuple(1, 'a').2", 'a'],
    ["(1, 'a').1", 1],
    ["(1, (2, 'x')).2.2", 'x'],
    ["tupleElement((1, 'a'), 2)", 'a'],
    ["toTypeName((1, 'a'))", 'Tuple(UInt8, String)'],
    ["toTypeName(tuple(1, 'a', 2.5))", 'Tuple(UInt8, String, Float64)'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });

  it('from a subquery column', async () => {
    expect(await rows("SELECT t.1, t.2 FROM (SELECT (toInt(properties.n), event) AS t FROM events) ORDER BY t.1")).toEqual([
      [1, '$pageview'],
      [2, '$pageview'],
      [3, '$pageview'],
    ]);
  });
});

describe("toString of arrays and tuples: ClickHouse's text, without spaces, strings quoted", () => {
  it.each([
    ['toString([1, 2])', '[1,2]'],
    ["toString(['a', 'b'])", "['a','b']"],
    ["toString(['it\\'s'])", "['it\\'s']"],
    ['toString([])', '[]'],
    ["toString((1, 'a'))", "(1,'a')"],
    ['toString([1e20, 0.1])', '[100000000000000000000,0.1]'],
    ["toString(splitByChar(',', 'a,b'))", "['a','b']"],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('an array of Nullable properties is Array(Nullable(String)): quoted items, NULL for a missing one (a hogql breakdown [properties.x])', async () => {
    expect(await perEvent('toString([properties.word])')).toEqual(["['héllo']", "['hello']", '[NULL]']);
    expect(await perEvent("toString([properties.word, 'x'])")).toEqual(["['héllo','x']", "['hello','x']", "[NULL,'x']"]);
    expect(await perEvent('toTypeName([properties.word])')).toEqual(Array(3).fill('Array(Nullable(String))'));
  });
});

describe('array literals and subscripts (test_query.py test_hogql_arrays): an element has the array element type', () => {
  it('SELECT [1, 2, 3], [10, 11, 12][1]', async () => {
    const r = await hogql('SELECT [1, 2, 3], [10, 11, 12][1]');
    expect(r.results).toEqual([[[1, 2, 3], 10]]);
    expect(r.types).toEqual([
      ['[1, 2, 3]', 'Array(UInt8)'],
      ['[10, 11, 12][1]', 'UInt8'],
    ]);
  });

  it.each([
    ['[10, 11, 12][5]', 0],
    ["['a'][2]", ''],
    ['toTypeName([10, 11, 12][1])', 'UInt8'],
    ["concat('x', [10, 11, 12][1])", 'x10'],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });
});

describe('emptyArrayString() / emptyArrayUInt8() ... (mapping.py: arrays): an empty array of that type', () => {
  it.each([
    ['emptyArrayString()', []],
    ['toTypeName(emptyArrayString())', 'Array(String)'],
    ['toTypeName(emptyArrayFloat64())', 'Array(Float64)'],
    ['length(emptyArrayUInt8())', 0],
    ["arrayPushBack(emptyArrayString(), 'a')", ['a']],
    ['emptyArrayString()[1]', ''],
    ['emptyArrayInt64()[1]', 0],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toEqual(expected);
  });
});

describe('countMatches / countMatchesCaseInsensitive: non-overlapping matches of a regular expression', () => {
  it.each([
    ["countMatches('foobarfoo', 'foo')", 2],
    ["countMatches('abc', 'x')", 0],
    ["countMatches('aaaa', 'aa')", 2],
    ["countMatches('a1b22c333', '[0-9]+')", 3],
    ["countMatches('a1b2', '([a-z])([0-9])')", 2],
    ["countMatchesCaseInsensitive('aAa', 'a')", 3],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('over a property: NULL when it is missing', async () => {
    expect(await perEvent("countMatches(properties.$current_url, '[a-z]+')")).toEqual([6, 5, null]);
  });
});

describe('sum is Nullable only when its argument is (ClickHouse sums no rows to 0)', () => {
  it('types and values, over rows and over none', async () => {
    const r = await hogql('SELECT sum(1), sum(toInt(properties.n)), toTypeName(sum(1)), toTypeName(sum(toInt(properties.n))) FROM events');
    expect(r.results).toEqual([[3, 6, 'UInt64', 'Nullable(Int64)']]);
    expect(await rows('SELECT sum(1), sumIf(1, 1 = 2) FROM events WHERE 1 = 2')).toEqual([[0, 0]]);
  });
});

describe('LEFT SEMI / LEFT ANTI JOIN: the left rows with / without a match (a clear 400 where the engine has no such join)', () => {
  const semi = "SELECT count() FROM events e LEFT SEMI JOIN (SELECT 'https://www.example.com/a/b' AS u UNION ALL SELECT 'https://www.example.com/a/b' AS u) t ON t.u = e.properties.$current_url";
  const anti = "SELECT count() FROM events e LEFT ANTI JOIN (SELECT 'https://www.example.com/a/b' AS u) t ON t.u = e.properties.$current_url";
  it('SEMI: each matching left row once; ANTI: the rows without a match (a missing property matches nothing)', async () => {
    if (testEngine() === 'clickhouse') {
      await expect(hogql(semi)).rejects.toThrow(/LEFT SEMI JOIN is not available on this engine/);
      await expect(hogql(anti)).rejects.toThrow(/LEFT ANTI JOIN is not available on this engine/);
      return;
    }
    expect(await rows(semi)).toEqual([[1]]);
    expect(await rows(anti)).toEqual([[2]]);
  });
});

describe("length's type is ClickHouse's UInt64 (Nullable for a property)", () => {
  it('types of length and lengthUTF8', async () => {
    const r = await hogql("SELECT length('abc'), lengthUTF8('abc'), length([1]), length(properties.word), toTypeName(length('abc')) FROM events ORDER BY timestamp LIMIT 1");
    expect(r.results).toEqual([[3, 3, 1, 6, 'UInt64']]);
    expect(r.types.map((t: [string, string]) => t[1])).toEqual(['UInt64', 'UInt64', 'UInt64', 'Nullable(UInt64)', 'String']);
  });
});

describe('hasSubstr: the elements of the second array one after another in the first', () => {
  it.each([
    ['hasSubstr([1, 2, 3, 4], [2, 3])', 1],
    ['hasSubstr([1, 2, 3, 4], [3, 2])', 0],
    ['hasSubstr([1, 2, 3, 4], [])', 1],
    ['hasSubstr([], [1])', 0],
    ['hasSubstr([1, 2], [1, 2, 3])', 0],
    ["hasSubstr(['a', 'b', 'c'], ['b', 'c'])", 1],
    ['hasSubstr([1, 2, 3], [3])', 1],
  ])('%s = %j', async (expr, expected) => {
    expect(await one(expr)).toBe(expected);
  });

  it('over a property split into parts', async () => {
    expect(await perEvent("hasSubstr(splitByChar('/', ifNull(properties.$current_url, '')), ['a', 'b'])")).toEqual([1, 0, 0]);
  });
});
