/**
 * Breakdown limit folded in ClickHouse in one pass over the events (the ClickHouse spelling of the trends runner's
 * `sqlBreakdownLimit`).
 *
 * The engine-neutral form ranks the values in an `IN (SELECT … ORDER BY … LIMIT n)` over the same aggregate `x` it
 * then folds, and ClickHouse 18.16 has no materialized CTEs: `x` (the scan of the events) runs twice. Here `x` runs
 * once and the ranking happens on its (small) result, in arrays:
 *
 * 1. per breakdown value: its total, and its `[bucket]` and `[[value]]` lists (each value wrapped in a one-element
 *    array, because `groupArray` skips NULLs and a NULL value must keep its place);
 * 2. one row: every value's rank key `(all-null, total is NULL, -total, b0, b1, …)` sorted as a tuple array (the
 *    order of the engine-neutral `ORDER BY`: normal values first, total descending, values ascending; NULL totals
 *    last, as ClickHouse orders NULLs), its first `limit` keys kept;
 * 3. one row per value again (`arrayJoin` over the positions): the value, or Other when its key is not kept;
 * 4. one row per (value, bucket), summed per `[bucket,] b0, …` as the engine-neutral form does.
 *
 * Same rows as the engine-neutral form (src/queries/runners/trends-runner.clickhouse.test.ts runs the trends suite,
 * breakdown limits included, on ClickHouse with the DuckDB expectations).
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, breakdownValueExpr, type BreakdownSpec } from './breakdown';

/** A column of the level below (always qualified: an unqualified name would find a select alias of the same name). */
const f = (name: string): Expr => ast.field('t', name);
const c = (v: number | string): Expr => ast.constant(v);
const call = (name: string, ...args: Expr[]): Expr => ast.call(name, args);
const at = (arr: Expr, i: Expr): Expr => call('arrayElement', arr, i);

/**
 * Event-property breakdowns of an additive aggregate (a count), keyed by the property's raw JSON text.
 *
 * On ClickHouse 18.16 `properties.k` prints as `visitParamExtractRaw` plus `visitParamExtractString` of the same
 * key (strings unescaped, other JSON values as their text): two passes over every event's properties text. Grouping
 * the events by the raw text alone (one pass) and turning each group's raw text into the value afterwards — on the
 * few grouped rows, where the printer's conversion is spelled out on the raw text ({@link rawJsonText}) — gives the
 * same values; raw texts that become the same value (`""`, `null` and a missing key are all the null value; an
 * escaped and an unescaped spelling of one string) are summed again, which is exact for a count and only for an
 * aggregate that sums like one. Null (not applicable) unless every breakdown is a plain event property.
 */
export function clickhouseRawBreakdownKeys(specs: BreakdownSpec[]): { keys: Expr[]; values: Expr[] } | null {
  if (!specs.length || specs.some((s) => s.type !== 'event' || s.histogramBinCount)) return null;
  return {
    keys: specs.map((s, i) => ast.alias(`k${i}`, call('JSONExtractRaw', ast.field('properties'), c(s.property)))),
    values: specs.map((s, i) => breakdownValueExpr(s, undefined, rawJsonText(f(`k${i}`)))),
  };
}

/**
 * What `properties.<k>` is, given the key's raw JSON text `r` (`''` when missing): a string value unescaped (the raw
 * text read back as the only key of an object, so JSON escapes are decoded exactly as for the whole properties
 * text), a missing key and `null` as NULL (`""` is `''`), any other value as its JSON text — the ClickHouse printer's
 * `jsonProperty`.
 */
export function rawJsonText(r: Expr): Expr {
  return call(
    'if',
    ast.or(ast.eq(r, c('')), ast.eq(r, c('null'))),
    ast.constant(null),
    call('if', call('startsWith', r, c('"')), call('JSONExtractString', call('concat', c('{"k":'), r, c('}')), c('k')), r),
  );
}

/**
 * `q` selects `[bucket,] b0.., value` (grouped); returns a query selecting the same columns with values past the
 * top `limit` (by total) folded into Other. With `values`, `q` selects keys `k0..` instead of `b0..`, and `values[i]`
 * (an expression of `t.k0..`) gives the value `b<i>` of a key; `value` is summed again per `[bucket,] b0..` before
 * the ranking (see {@link clickhouseRawBreakdownKeys}).
 */
export function clickhouseBreakdownLimit(q: ast.SelectQuery, nb: number, hasBucket: boolean, limit: number, values?: Expr[]): ast.SelectQuery {
  const bs = Array.from({ length: nb }, (_, i) => `b${i}`);
  const positions = (n: number): Expr[] => Array.from({ length: n }, (_, i) => c(i + 1));
  if (values && values.length !== nb) throw new Error('clickhouseBreakdownLimit: one value expression per breakdown');
  // 0. keys → values (summed again where several keys give one value); the keys have their own names (`k<i>`), as an
  // alias `b0` defined through a column `t.b0` would be cyclic for ClickHouse 18.16
  const source = values
    ? ast.select({
        select: [...(hasBucket ? [ast.alias('bucket', f('bucket'))] : []), ...bs.map((b, i) => ast.alias(b, values[i])), ast.alias('value', call('sum', f('value')))],
        from: q,
        fromAlias: 't',
        groupBy: positions((hasBucket ? 1 : 0) + nb),
      })
    : q;
  // 1. per value
  const perValue = ast.select({
    select: [
      ...bs.map((b) => ast.alias(b, f(b))),
      ast.alias('total', call('sum', f('value'))),
      ...(hasBucket ? [ast.alias('bkts', call('groupArray', f('bucket')))] : []),
      ast.alias('vals', call('groupArray', ast.array([f('value')]))),
    ],
    from: source,
    fromAlias: 't',
    groupBy: positions(nb),
  });
  // 2. one row: keys, kept keys, and the per-value lists
  const allNull = ast.and(...bs.map((b) => ast.eq(f(b), c(BREAKDOWN_NULL))));
  const rankKey = ast.tuple([
    call('if', allNull, c(1), c(0)),
    call('if', call('isNull', f('total')), c(1), c(0)),
    ast.arithmetic('-', c(0), call('ifNull', f('total'), c(0))),
    ...bs.map(f),
  ]);
  const keys = call('groupArray', rankKey);
  const oneRow = ast.select({
    select: [
      ast.alias('keys', keys),
      ast.alias('kept', call('arrayFilter', ast.lambda(['k', 'r'], ast.compare('<=', ast.field('r'), c(limit))), call('arraySort', keys), call('arrayEnumerate', keys))),
      ...bs.map((b) => ast.alias(`all_${b}`, call('groupArray', f(b)))),
      ...(hasBucket ? [ast.alias('all_bkts', call('groupArray', f('bkts')))] : []),
      ast.alias('all_vals', call('groupArray', f('vals'))),
    ],
    from: perValue,
    fromAlias: 't',
  });
  // 3. one row per value, folded
  const i = ast.field('i');
  const keep = call('has', f('kept'), at(f('keys'), i));
  const perValueFolded = ast.select({
    select: [
      ast.alias('i', call('arrayJoin', call('arrayEnumerate', f('keys')))),
      ...bs.map((b) => ast.alias(b, call('if', keep, at(f(`all_${b}`), i), c(BREAKDOWN_OTHER)))),
      ...(hasBucket ? [ast.alias('bkts', at(f('all_bkts'), i))] : []),
      ast.alias('vals', at(f('all_vals'), i)),
    ],
    from: oneRow,
    fromAlias: 't',
  });
  // 4. one row per (value, bucket)
  const j = ast.field('j');
  const rows = ast.select({
    select: [
      ast.alias('j', call('arrayJoin', call('arrayEnumerate', f('vals')))),
      ...(hasBucket ? [ast.alias('bucket', at(f('bkts'), j))] : []),
      ...bs.map((b) => ast.alias(b, f(b))),
      ast.alias('value', at(at(f('vals'), j), c(1))),
    ],
    from: perValueFolded,
    fromAlias: 't',
  });
  return ast.select({
    select: [...(hasBucket ? [ast.alias('bucket', f('bucket'))] : []), ...bs.map((b) => ast.alias(b, f(b))), ast.alias('value', call('sum', f('value')))],
    from: rows,
    fromAlias: 't',
    groupBy: positions((hasBucket ? 1 : 0) + nb),
  });
}
