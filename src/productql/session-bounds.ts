/**
 * The sessions an `events.session.*` lazy join needs: only those of the events the SELECT keeps.
 *
 * `sessions` is computed from events (schema.ts {@link SESSIONS_QUERY}); joined as is, it aggregates every event of the
 * project whatever the query's date range. PostHog's sessions lazy join pushes the events' timestamp bounds into the
 * sessions table with a buffer of `SESSION_BUFFER_DAYS = 3` days on each side (posthog/hogql/database/schema/util/
 * where_clause_extractor.py: `min_timestamp >= lower - toIntervalDay(3)`, `<= upper + toIntervalDay(3)`). Quarry does
 * the same on the events it aggregates: when the WHERE of the SELECT that reads the events keeps only events with
 * `timestamp` in [lower, upper] (conjuncts of its top-level AND comparing `timestamp` with a constant expression), the
 * sessions are aggregated over the events in [lower − 3 days, upper + 3 days]. For a kept event, every event of its
 * session lies in that window unless the session lasts longer than 3 days, so its sessions row is the same as
 * without bounds (PostHog's SDKs end a session after 24 hours).
 */
import * as ast from './ast';
import type { Expr, SelectQuery } from './ast';
import { SESSIONS_QUERY } from './schema';

/** Days of events read before the lower and after the upper bound of the kept events (PostHog's buffer). */
export const SESSION_BUFFER_DAYS = 3;

/** Bounds on the kept events' `timestamp`: constant expressions (each holds for every kept event). */
export interface TimestampBounds {
  lower: Expr[];
  upper: Expr[];
}

/** An expression that reads no column and no subquery: the same value wherever it is printed in one query. */
function isConstantExpr(e: Expr | null | undefined, depth = 0): boolean {
  if (!e || depth > 32) return false;
  switch (e.node) {
    case 'Constant':
      return true;
    case 'Call':
      return !e.distinct && !e.filter_expr && (e.params ?? []).every((p) => isConstantExpr(p, depth + 1)) && e.args.every((a) => isConstantExpr(a, depth + 1));
    case 'ArithmeticOperation':
      return isConstantExpr(e.left, depth + 1) && isConstantExpr(e.right, depth + 1);
    default:
      return false;
  }
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==' };

/**
 * The `timestamp` bounds of the events table named `name` in the top-level AND of the WHERE (and PREWHERE) of `q`
 * (`sole`: it is the only table of the SELECT, so a bare `timestamp` is its column, unless the SELECT names an alias
 * `timestamp`, which a bare name would then mean). Null when there is none.
 */
export function timestampBounds(q: SelectQuery, name: string, sole: boolean): TimestampBounds | null {
  const bare = sole && !q.select.some((e) => e.node === 'Alias' && e.alias === 'timestamp');
  const isTs = (e: Expr): boolean =>
    e.node === 'Field' && ((e.chain.length === 2 && e.chain[0] === name && e.chain[1] === 'timestamp') || (bare && e.chain.length === 1 && e.chain[0] === 'timestamp'));
  const out: TimestampBounds = { lower: [], upper: [] };
  const visit = (e: Expr | null | undefined, depth: number): void => {
    if (!e || depth > 32) return;
    if (e.node === 'And') return e.exprs.forEach((x) => visit(x, depth + 1));
    if (e.node === 'BetweenExpr' && !e.negated && isTs(e.expr) && isConstantExpr(e.low) && isConstantExpr(e.high)) {
      out.lower.push(e.low);
      out.upper.push(e.high);
      return;
    }
    if (e.node !== 'CompareOperation' || !(e.op in FLIP)) return;
    let op = e.op as string;
    let value: Expr;
    if (isTs(e.left) && isConstantExpr(e.right)) value = e.right;
    else if (isTs(e.right) && isConstantExpr(e.left)) {
      value = e.left;
      op = FLIP[op];
    } else return;
    if (op === '>' || op === '>=' || op === '==') out.lower.push(value);
    if (op === '<' || op === '<=' || op === '==') out.upper.push(value);
  };
  visit(q.prewhere, 0);
  visit(q.where, 0);
  return out.lower.length || out.upper.length ? out : null;
}

/** The sessions query over the events in the bounds widened by {@link SESSION_BUFFER_DAYS}. */
export function boundedSessionsQuery(bounds: TimestampBounds, sessions: SelectQuery = SESSIONS_QUERY): SelectQuery {
  const ts = ast.field('timestamp');
  const buffer = ast.call('toIntervalDay', [ast.constant(SESSION_BUFFER_DAYS)]);
  const asTime = (v: Expr): Expr => ast.call('toDateTime', [v]);
  return {
    ...sessions,
    where: ast.and(
      sessions.where,
      ...bounds.lower.map((v) => ast.compare('>=', ts, ast.arithmetic('-', asTime(v), buffer))),
      ...bounds.upper.map((v) => ast.compare('<=', ts, ast.arithmetic('+', asTime(v), buffer))),
    ),
  };
}
