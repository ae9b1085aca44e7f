/**
 * ClickHouse's multi-needle searches in posthog/hogql/functions/mapping.py (`multiSearchAny(haystack, [needles])`,
 * `multiMatchAny(haystack, [patterns])`, ...) as ProductQL expressions over `position` and `match`, one per needle:
 * DuckDB has no such functions and ClickHouse 18.16 lacks most of them. As in ClickHouse, the needles are a constant
 * array written out in the query (`['a', 'b']`), so the expression is known when the query is compiled.
 */
import { array, call, compare, constant, lambda, field, or, type Expr } from './ast';

/** The names handled here, and the number of their arguments (always 2: haystack, needles). */
export const MULTI_SEARCH_FUNCTIONS: ReadonlySet<string> = new Set([
  'multiSearchAny',
  'multiSearchFirstIndex',
  'multiSearchFirstPosition',
  'multiSearchAllPositions',
  'multiSearchAllPositionsUTF8',
  'multiMatchAny',
  'multiMatchAnyIndex',
]);

/**
 * `name(haystack, needles)` as an expression; `fail` reports needles that are not an array literal.
 * - multiSearchAny: whether any needle occurs (an empty needle always does); false without needles.
 * - multiSearchAllPositions(UTF8): each needle's position (1-based, 0 when absent), as `position` counts it.
 * - multiSearchFirstPosition: the leftmost position at which any needle occurs, 0 when none does.
 * - multiSearchFirstIndex: the 1-based index of the first needle (in the array's order) that occurs, 0 when none
 *   does (ClickHouse's searcher keeps the smallest index found).
 * - multiMatchAny / multiMatchAnyIndex: whether a pattern matches / the index of a matching pattern (the first one;
 *   ClickHouse returns any of them), 0 when none matches.
 */
export function multiSearchExpr(name: string, haystack: Expr, needles: Expr, fail: (message: string) => never): Expr {
  if (needles.node !== 'Array') fail(`The second argument of ${name} must be a constant array of strings, like ['a', 'b']`);
  const items = needles.exprs;
  const regex = name.startsWith('multiMatch');
  // (a NULL haystack matches nothing, as it contains no needle)
  const hit = (n: Expr): Expr => (regex ? call('ifNull', [call('match', [haystack, n]), constant(false)]) : compare('>', call('position', [haystack, n]), constant(0)));
  const firstIndex = (): Expr => call('multiIf', [...items.flatMap((n, i) => [hit(n), constant(i + 1)]), constant(0)]);
  switch (name) {
    case 'multiSearchAny':
    case 'multiMatchAny':
      // (without needles: a UInt8 0, as the function's other answers)
      return items.length ? or(...items.map(hit)) : compare('==', constant(0), constant(1));
    case 'multiSearchFirstIndex':
    case 'multiMatchAnyIndex':
      return items.length ? firstIndex() : constant(0);
    case 'multiSearchAllPositions':
    case 'multiSearchAllPositionsUTF8':
      // (positions in bytes; the UTF8 variant's in characters)
      return array(items.map((n) => call(name.endsWith('UTF8') ? 'positionUTF8' : 'position', [haystack, n])));
    case 'multiSearchFirstPosition': {
      if (!items.length) return constant(0);
      const found = call('arrayFilter', [lambda(['x'], compare('>', field('x'), constant(0))), array(items.map((n) => call('position', [haystack, n])))]);
      return call('if', [call('empty', [found]), constant(0), call('arrayMin', [found])]);
    }
    default:
      return fail(`Unknown search function ${name}`);
  }
}
