/**
 * Escaping of every value the ClickHouse printer splices into SQL (ClickHouse 18.16 has no server-side
 * parameters). Exact text for each escape, then a round trip through a real server: the literal must read back
 * as exactly the original value, and never change the shape of the statement around it.
 */
import { describeClickHouse, startSingle, type TestServer } from '../engines/clickhouse/test-server';
import { bindPositional, chIdent, chLiteral, chNumber, chString } from './clickhouse-literals';

describe('chString', () => {
  it.each([
    ['plain', "'plain'"],
    ['', "''"],
    ["it's", "'it\\'s'"],
    ["''", "'\\'\\''"],
    ['back\\slash', "'back\\\\slash'"],
    ['\\', "'\\\\'"],
    ["\\'", "'\\\\\\''"],
    ['nul\u0000byte', "'nul\\0byte'"],
    ['line\nbreak\r\ttab', "'line\\nbreak\\r\\ttab'"],
    ['\u0001\u001f\u007f', "'\\x01\\x1f\\x7f'"],
    ['ü€𝄞', "'ü€𝄞'"],
    ['lone \ud800 high', "'lone \ufffd high'"],
    ['lone \udc00 low', "'lone \ufffd low'"],
    ["'; DROP TABLE events; --", "'\\'; DROP TABLE events; --'"],
    ['`', "'`'"],
    ['"', `'"'`],
  ])('%j → %s', (input, expected) => {
    expect(chString(input)).toBe(expected);
  });

  it('escapes very long strings without growing unexpectedly', () => {
    const s = "a'".repeat(100_000);
    const out = chString(s);
    expect(out.length).toBe(2 + 300_000);
    expect(out.startsWith("'a\\'")).toBe(true);
  });

  it('never leaves an unescaped quote inside the literal', () => {
    for (const s of ["'", "\\'", "\\\\'", "x\\", "\\\u0000'", "'\\'"]) {
      const body = chString(s).slice(1, -1);
      // Every quote inside is preceded by an odd number of backslashes.
      for (const m of body.matchAll(/(\\*)'/g)) expect(m[1].length % 2).toBe(1);
      expect(body.endsWith('\\') && !/(^|[^\\])(\\\\)*$/.test(body)).toBe(false);
    }
  });
});

describe('chIdent, chNumber, chLiteral, bindPositional', () => {
  it.each([
    ['events', '`events`'],
    ['we`ird', '`we\\`ird`'],
    ["it's", "`it's`"],
    ['a\\b', '`a\\\\b`'],
    ['\u0001x', '`\\x01x`'],
    ['$browser', '`$browser`'],
  ])('ident %j → %s', (input, expected) => expect(chIdent(input)).toBe(expected));

  it.each([
    [0, '0'],
    [42, '42'],
    [-1, '(-1)'],
    [9.5, '9.5'],
    [-0.25, '(-0.25)'],
    [1e308, "toFloat64('1e+308')"],
    [5e-324, "toFloat64('5e-324')"],
    [9007199254740993, '9007199254740992'], // integral: exact as a UInt64 literal
  ])('number %p → %s', (input, expected) => expect(chNumber(input)).toBe(expected));

  it('refuses what it cannot print', () => {
    expect(() => chNumber(Infinity)).toThrow();
    expect(() => chNumber(NaN)).toThrow();
    expect(() => chLiteral({})).toThrow();
    expect(() => chLiteral([1])).toThrow();
  });

  it('prints null and booleans', () => {
    expect(chLiteral(null)).toBe('NULL');
    expect(chLiteral(undefined)).toBe('NULL');
    expect(chLiteral(true)).toBe('1');
    expect(chLiteral(false)).toBe('0');
  });

  it('binds ? outside literals and identifiers only', () => {
    expect(bindPositional("SELECT '?', `?`, ? WHERE x = ?", ["a'b", 3])).toBe("SELECT '?', `?`, 'a\\'b' WHERE x = 3");
    expect(bindPositional("SELECT 'it\\'s ?', ?", [1])).toBe("SELECT 'it\\'s ?', 1");
    expect(() => bindPositional('SELECT ?', [])).not.toThrow();
    expect(() => bindPositional('SELECT ?, ?', [1])).toThrow();
    expect(() => bindPositional('SELECT 1', [1])).toThrow();
  });
});

describeClickHouse('literals on a real ClickHouse server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startSingle();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const readBack = async (literal: string): Promise<string> => {
    const res = await fetch(`${server.url}/?default_format=JSONCompact&max_query_size=16777216`, { method: 'POST', body: `SELECT ${literal} AS v, 'END' AS tail` });
    const text = await res.text();
    if (!res.ok) throw new Error(text);
    const body = JSON.parse(text) as { data: unknown[][] };
    expect(body.data).toHaveLength(1);
    expect(body.data[0][1]).toBe('END'); // the literal closed exactly where it should
    return body.data[0][0] as string;
  };

  it.each([
    'plain',
    '',
    "it's",
    "''",
    'back\\slash',
    '\\',
    "\\'",
    "'; SELECT 1; --",
    'nul\u0000byte',
    'line\nbreak\r\ttab',
    '\u0001\u001f\u007f',
    'ü€𝄞 中文',
    '`"',
    "x' || 'y",
  ])('round-trips %j', async (s) => {
    expect(await readBack(chString(s))).toBe(s);
  });

  it('round-trips a 1 MB string', async () => {
    const s = "a'\\\u0000€".repeat(200_000);
    expect(await readBack(chString(s))).toBe(s);
  });

  it('maps lone surrogates to U+FFFD', async () => {
    expect(await readBack(chString('a\ud800b'))).toBe('a\ufffdb');
  });

  it.each([0, 42, -1, 9.5, -0.25, 1e308, 1e-300, 123456789012345])('reads back number %p', async (n) => {
    expect(Number(await readBack(chNumber(n)))).toBe(n);
  });
});
