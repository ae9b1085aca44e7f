import { ast, MAX_LIMIT, type Expr, type Query } from '../../productql';
import { executeCompiled, printInsightQuery } from '../insights/execute';
import type { RunnerContext } from '../runner';

export interface PagedRun {
  rows: unknown[][];
  columns: string[];
  /** The query as run (normalized ProductQL), for the response's `hogql`. */
  hogql: string;
}

/**
 * Runs an insight's intermediate query through the one printer and returns every row. The printer clamps the
 * top-level LIMIT to 50,000 (a safety rule for callers), so large per-actor intermediate results are read in
 * pages of that size; the query must have a total ORDER BY for the pages to be stable.
 */
export async function runAllRows(ctx: RunnerContext, query: Query, label = 'execute'): Promise<PagedRun> {
  const rows: unknown[][] = [];
  let offset = 0;
  let hogql = '';
  let columns: string[] = [];
  for (;;) {
    // (reused for an equal AST: printing a funnel or retention grid costs milliseconds of JS)
    const { compiled } = await ctx.timings.measure('print', () => printInsightQuery(ctx, query, { limit: MAX_LIMIT, offset }));
    hogql ||= compiled.hogql;
    columns = compiled.columnNames;
    const res = await executeCompiled(ctx, compiled, label);
    const page = res.rows.length > compiled.limit ? res.rows.slice(0, compiled.limit) : res.rows;
    for (const r of page) rows.push(r);
    if (res.rows.length <= compiled.limit) break;
    offset += compiled.limit;
  }
  return { rows, columns, hogql };
}

const ACTOR_SEP = '\u0002';

/**
 * Per-actor item lists with one engine pass: items are grouped by a 3-character prefix of the actor (≤ 4,096
 * groups for uuids, far below the 50,000-row clamp), so the query runs once instead of once per page of actors;
 * the lists are split back per actor here. `actor` must be a string expression, `item` a string per event.
 */
export async function runPerActorItems(
  ctx: RunnerContext,
  parts: { actor: Expr; item: Expr; where?: Expr; from?: Query },
): Promise<{ actors: Map<string, string[]>; hogql: string }> {
  const query = ast.select({
    select: [
      ast.alias('bucket', ast.call('substring', [parts.actor, ast.constant(1), ast.constant(3)])),
      ast.alias('evs', ast.call('groupArray', [ast.call('concat', [parts.actor, ast.constant(ACTOR_SEP), parts.item])])),
    ],
    from: parts.from ?? 'events',
    where: parts.where,
    groupBy: [ast.field('bucket')],
    orderBy: [ast.order(ast.field('bucket'))],
  });
  const { rows, hogql } = await runAllRows(ctx, query);
  const actors = new Map<string, string[]>();
  for (const r of rows)
    for (const raw of (r[1] as string[]) ?? []) {
      const s = String(raw);
      const i = s.indexOf(ACTOR_SEP);
      const a = s.slice(0, i);
      let l = actors.get(a);
      if (!l) actors.set(a, (l = []));
      l.push(s.slice(i + 1));
    }
  return { actors, hogql };
}

/** Milliseconds since the epoch as an integer (cheaper to print and parse than float seconds). */
export const epochMsExpr = (ts: Expr = ast.field('timestamp')): Expr =>
  ast.call('toInt', [ast.call('round', [ast.arithmetic('*', ast.arithmetic('-', ts, ast.call('toDateTime', [ast.constant(0)])), ast.constant(1000))])]);
