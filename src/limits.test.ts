import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { assertResultSize, estimateRowsBytes, MAX_REGEX_LENGTH, re2Problem, regexError } from './limits';

/** Patterns whose verdict must equal DuckDB's (RE2): null = compiles. */
const PATTERNS = [
  'abc', 'a(b', 'a)b', '(?=x)', '(?!x)', '(?<=x)a', '(?<!x)a', '(a)\\1', '\\1', '\\0', '\\07', '\\12', '\\8',
  'a{1000}', 'a{1001}', 'a{2,1}', 'a{1000,}', '(a{100}){10}', '(a{100}){11}', '(a{2,}){500}', '(a{2,}){501}', '(a{10}){10}{10}',
  'a**', 'a*+', 'a*?', 'a+?', 'a??', '*a', '+', 'a{,5}', 'a{', '{5}', 'x{2}{3}',
  '[a-z]', '[z-a]', '[]a]', '[]', '[^]a]', '[a-]', '[-a]', '[a\\-z]', '[\\d-z]', '[a-\\d]', '[\\b]',
  '[[:alpha:]]', '[[:^digit:]]', '[[:foo:]]',
  '\\d+\\w\\s', '\\p{L}', '\\p{Lu}', '\\pN', '\\PL', '\\pQ', '\\p{Greek}', '\\p{^Greek}', '\\p{Any}', '\\p{Foo}',
  '\\x41', '\\x{41}', '\\x{110000}', '\\Q.*\\E', '\\z', '\\Z', '\\A', '\\G', '\\e', '\\cA', '\\k<a>', '\\_', '\\-', '\\.', '\\é', '\\C',
  '(?P<name>x)', '(?<name>x)', '(?P<>x)', '(?i)abc', '(?i:abc)', '(?-i)a', '(?)', '(?x)a', '(?#c)', '(?>a)', '(?U)a*', '(?s).', '(?m)^a',
  'a\\Q\\E{0}', 'a*\\Q\\E*', '\\E', 'a|', '|', '()', '(|a)', '^$', '\\b', '\\B', 'é', '(?i)(?P<n>a{3})+', '^/blog/[0-9]+/?$', '.*@example\\.com$',
];

let conn: DuckDBConnection;
beforeAll(async () => {
  conn = await (await DuckDBInstance.create(':memory:')).connect();
});

/** DuckDB's verdict: null when it compiles the pattern (as a constant, like the printer's bound parameter). */
async function duckdb(pattern: string): Promise<string | null> {
  try {
    await conn.run(`SELECT regexp_matches('x', '${pattern.replace(/'/g, "''")}')`);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

describe('re2Problem agrees with DuckDB (RE2)', () => {
  it.each(PATTERNS)('%s', async (pattern) => {
    const engine = await duckdb(pattern);
    expect({ pattern, rejected: re2Problem(pattern) !== null }).toEqual({ pattern, rejected: engine !== null });
  });

  it('on 2,000 generated near-regexes', async () => {
    const piece = fc.constantFrom(
      'a', 'b', '.', '*', '+', '?', '{2}', '{1,3}', '{1001}', '{0}', '(', ')', '(?:', '(?i)', '(?P<n>', '(?=', '[', ']', '[a-z]', '[^x]',
      '-', '^', '$', '|', '\\d', '\\w', '\\1', '\\.', '\\', '\\x4', '\\x41', '[[:alpha:]]', '\\p{L}', '{', '}', ',', '\\Q', '\\E',
      '\\b', '\\pN', '\\p{Greek}', '{,3}', '{2,}', '*?', '(?P<a>', '(?-s:', '\\0', '\\x{263a}', '[\\d-', 'é',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 8 }), async (parts) => {
        const pattern = parts.join('');
        const engine = await duckdb(pattern);
        expect({ pattern, rejected: re2Problem(pattern) !== null, engine }).toEqual({ pattern, rejected: engine !== null, engine });
      }),
      { numRuns: 2000, seed: 11 },
    );
  });
});

describe('regexError', () => {
  it('a pattern over the length limit is regex_too_long, with the attr', () => {
    const e = regexError('a'.repeat(MAX_REGEX_LENGTH + 1), 'properties__0__value');
    expect(e?.toBody()).toEqual({
      type: 'validation_error',
      code: 'regex_too_long',
      detail: `Regular expression is longer than ${MAX_REGEX_LENGTH} characters.`,
      attr: 'properties__0__value',
    });
    expect(regexError('a'.repeat(MAX_REGEX_LENGTH), null)).toBeNull();
  });

  it('an invalid pattern is invalid_regex naming the problem', () => {
    expect(regexError('(?=x)', 'a')?.toBody()).toEqual({
      type: 'validation_error',
      code: 'invalid_regex',
      detail: 'Invalid regular expression: invalid or unsupported Perl syntax.',
      attr: 'a',
    });
  });
});

describe('result size', () => {
  it('estimates JSON size closely enough and stops early', () => {
    const rows = [['abc', 1, null, { k: 'v' }], ['x'.repeat(1000), true, [1, 2]]];
    const est = estimateRowsBytes(rows);
    const real = JSON.stringify(rows).length;
    expect(est).toBeGreaterThanOrEqual(real * 0.8);
    expect(est).toBeLessThanOrEqual(real * 2);
    expect(estimateRowsBytes(Array.from({ length: 1e5 }, () => ['y'.repeat(100)]), 1000)).toBeLessThan(2000);
  });

  it('a too large answer is result_too_large', () => {
    expect(() => assertResultSize([['z'.repeat(2000)]], 1000)).toThrow(expect.objectContaining({ code: 'result_too_large', status: 400 }));
    expect(() => assertResultSize([['z'.repeat(500)]], 1000)).not.toThrow();
  });
});
