/** printHogQLExpr's text parses back to the same expression (the `hogql` field of answers, persons `properties=`). */
import { hogqlIdent, printHogQLExpr } from './hogql';
import { initParser, parseExprSync } from './parser';

beforeAll(() => initParser());

describe('hogqlIdent', () => {
  it.each([
    ['plain', 'plain'],
    ['$browser', '$browser'],
    ['with space', '`with space`'],
    ['a`b', '`a``b`'],
    ['back\\slash', '`back\\\\slash`'],
    ['select', '`select`'],
  ])('%j prints as %s', (name, printed) => {
    expect(hogqlIdent(name)).toBe(printed);
  });

  it.each(['a`b', 'back\\slash', 'with space', '`', 'x`y`z', 'é ü'])('a property key %j survives print and parse', (key) => {
    const expr = parseExprSync(`properties.${hogqlIdent(key)}`) as { chain?: unknown[] };
    expect(expr.chain).toEqual(['properties', key]);
    expect(printHogQLExpr(parseExprSync(printHogQLExpr(expr as never)))).toBe(printHogQLExpr(expr as never));
  });
});
