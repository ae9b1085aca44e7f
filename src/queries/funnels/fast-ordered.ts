/**
 * SQL-only ordered funnel (steps viz, no breakdown/exclusions/optional steps): the whole computation runs in the
 * engine and returns one row, instead of shipping per-actor event lists to JS.
 *
 * Shape: for each step k from the last down to 0, one window pass over the rows of steps k and k+1 of each actor
 * (ordered by time): a step-k row takes, from the following step-(k+1) rows, the earliest time of each later step
 * of their greedy chains (`min` works because "next matching event after t" is monotone in t, so the first
 * following row also has the smallest chain times). Each pass only reads the rows of two steps, so for the usual
 * "common → rare" funnels only the step-0 pass is large. Step-0 rows then know the greedy path from that start; the
 * steps reached are those inside the window; per actor the furthest start wins (ties: the sequence reaching its
 * last step first, then the later start — the UDF's choice), and the final aggregate counts actors per step and
 * their average/median conversion times.
 */
import { ast, type Expr, type Query } from '../../productql';

/**
 * Rows of steps k and k+1 at the same time: the step-k row sorts first, so it pairs with the later-step event of the
 * same timestamp (as the per-actor evaluation, which orders equal times by step). The caller guarantees that no
 * event matches two steps (distinct, non-null event names), so no event can pair with itself or be reused; this avoids
 * a tie-break on uuid, which cost a third of the query time.
 */

export interface FastFunnelInput {
  stepConds: Expr[];
  /** Range and global filters. */
  where: Expr;
  actor: Expr;
  /** Events without an actor (personless, empty aggregation value) are left out. */
  actorPresent: Expr;
  windowSeconds: number;
  /**
   * Optional breakdown (one string expression, '' when missing) with first/last-touch attribution: the value of
   * the actor's earliest/latest step event that has one (`keepEmpty`: of the earliest/latest step event, '' too, as
   * for a scalar group breakdown). Values past `limit` (ranked by last-step count, then earlier steps, then value)
   * are merged into `other` inside the query, so medians stay exact.
   */
  breakdown?: { expr: Expr; attribution: 'first_touch' | 'last_touch'; limit: number; other: string; keepEmpty?: boolean };
  /**
   * Trends viz instead of steps: `bucket` is the entrance-period expression of an event; the result has one row per
   * period with the actors (counted once per period, at their furthest start) reaching `from` and `to`.
   */
  trends?: { bucket: Expr; from: number; to: number };
  /**
   * Steps viz only (ignored with `trends`): find the candidate starts with ASOF joins instead of window passes
   * (engines with ASOF JOIN: DuckDB). Same answer, see {@link asofStarts}.
   */
  asof?: boolean;
}

const f = (name: string) => ast.field(name);
const c = (v: number | string | null) => ast.constant(v);
const col = (j: number) => `c${j}`;

export function fastOrderedFunnelQuery(inp: FastFunnelInput): Query {
  const n = inp.stepConds.length;
  const ctes = [
    ast.cte(
      'ev',
      ast.select({
        select: [
          // Non-null (filtered below): the printer turns a nullable `a = b` into coalesce(a = b, false), which DuckDB
          // cannot hash-join (a nested-loop join took 23 s at 1M events).
          ast.alias('actor', ast.call('assumeNotNull', [inp.actor])),
          // Seconds since the epoch: chain times stay plain numbers through unions and windows.
          ast.alias('ts', ast.arithmetic('-', f('timestamp'), ast.call('toDateTime', [c(0)]))),
          ...inp.stepConds.map((s, i) => ast.alias(`s${i}`, s)),
          ...(inp.breakdown ? [ast.alias('bd', inp.breakdown.expr)] : []),
          ...(inp.trends ? [ast.alias('bucket', inp.trends.bucket)] : []),
        ],
        from: 'events',
        where: ast.and(inp.where, ast.or(...inp.stepConds), inp.actorPresent),
      }),
    ),
  ];
  if (inp.asof && !inp.trends) return finish(inp, ctes, asofStarts(inp, ctes));
  // Last step: its own time is its chain.
  ctes.push(
    ast.cte(
      `p${n - 1}`,
      ast.select({
        select: [f('actor'), f('ts'), ast.alias(col(n - 1), f('ts'))],
        from: 'ev',
        where: f(`s${n - 1}`),
      }),
    ),
  );
  for (let k = n - 2; k >= 0; k--) {
    const later = Array.from({ length: n - 1 - k }, (_, i) => k + 1 + i);
    const bucket = inp.trends && k === 0;
    const own = ast.select({
      select: [f('actor'), f('ts'), ...(bucket ? [f('bucket')] : []), ast.alias('role', c(k)), ...later.map((j) => ast.alias(col(j), c(null)))],
      from: 'ev',
      where: f(`s${k}`),
    });
    const next = ast.select({
      select: [f('actor'), f('ts'), ...(bucket ? [ast.alias('bucket', c(null))] : []), ast.alias('role', c(k + 1)), ...later.map((j) => f(col(j)))],
      from: `p${k + 1}`,
    });
    const over = {
      partition_by: [f('actor')],
      order_by: [ast.order(f('ts')), ast.order(f('role'))],
    };
    const win = (j: number) => ({
      node: 'WindowFunction' as const,
      name: 'min',
      exprs: [ast.call('if', [ast.eq(f('role'), c(k + 1)), f(col(j)), c(null)])],
      over_expr: {
        node: 'WindowExpr' as const,
        ...over,
        frame_method: 'ROWS' as const,
        frame_start: { node: 'WindowFrameExpr' as const, frame_type: 'FOLLOWING' as const, frame_value: 1 },
        frame_end: { node: 'WindowFrameExpr' as const, frame_type: 'FOLLOWING' as const, frame_value: null },
      },
    });
    const windowed = ast.select({
      select: [f('actor'), f('ts'), ...(bucket ? [f('bucket')] : []), f('role'), ...later.map((j) => ast.alias(`n${j}`, win(j)))],
      from: ast.unionAll(own, next),
    });
    ctes.push(
      ast.cte(
        `p${k}`,
        ast.select({
          select: [f('actor'), f('ts'), ...(bucket ? [f('bucket')] : []), ast.alias(col(k), f('ts')), ...later.map((j) => ast.alias(col(j), f(`n${j}`)))],
          from: windowed,
          where: ast.eq(f('role'), c(k)),
        }),
      ),
    );
  }
  return finish(inp, ctes, 'p0');
}

/**
 * The starts worth evaluating, by ASOF joins (rows: actor, c0..c{n-1}), for the steps viz.
 *
 * A start's greedy chain depends only on its first step-1 event (c1 = the first step-1 event at or after it; then
 * each c_k = the first step-k event at or after c_{k-1}). All starts sharing a c1 share the chain, and the latest of
 * them reaches at least as far inside the window and wins the per-actor tie-break (equal reach and reach time: the
 * later start). That latest start is the latest step-0 event at or before c1, so the candidates are: for each
 * step-1 event, the latest step-0 event at or before it (ASOF JOIN), grouped by that start with c1 = the earliest
 * such step-1 event — which is the start's own greedy c1, as no step-0 event lies between the start and it — then
 * c2.. by ASOF LEFT JOINs to the first later event of each step. Starts without a step-1 event after them reach
 * step 0 only: one row per actor stands for them (no times: with reach 0 they are never read; only the step-0
 * count and, with a breakdown, the actor's value use the row).
 */
function asofStarts(inp: FastFunnelInput, ctes: ast.CTE[]): Query {
  const n = inp.stepConds.length;
  // Each step's events straight from the table (plain filters the scan can apply; native timestamps, converted to
  // seconds only on the few chained rows).
  for (let k = 0; k < n; k++)
    ctes.push(
      ast.cte(
        `e${k}`,
        ast.select({
          select: [ast.alias('actor', ast.call('assumeNotNull', [inp.actor])), ast.alias('ts', f('timestamp'))],
          from: 'events',
          where: ast.and(inp.where, inp.stepConds[k], inp.actorPresent),
        }),
      ),
    );
  const on = (a: string, b: string, ineq: Expr): Expr => ast.and(ast.eq(ast.field(a, 'actor'), ast.field(b, 'actor')), ineq);
  ctes.push(
    ast.cte(
      'ch1',
      ast.select({
        select: [ast.alias('actor', ast.field('b', 'actor')), ast.alias('c0', ast.field('a', 'ts')), ast.alias('c1', ast.call('min', [ast.field('b', 'ts')]))],
        from: ast.joins(
          ast.joinExpr('e1', { alias: 'b' }),
          ast.joinExpr('e0', { alias: 'a', type: 'ASOF JOIN', on: on('b', 'a', ast.compare('>=', ast.field('b', 'ts'), ast.field('a', 'ts'))) }),
        ),
        groupBy: [c(1), c(2)],
      }),
    ),
  );
  for (let k = 2; k < n; k++) {
    ctes.push(
      ast.cte(
        `ch${k}`,
        ast.select({
          select: [
            ast.field('a', 'actor'),
            ...Array.from({ length: k }, (_, j) => ast.field('a', col(j))),
            ast.alias(col(k), ast.field('b', 'ts')),
          ],
          from: ast.joins(
            ast.joinExpr(`ch${k - 1}`, { alias: 'a' }),
            ast.joinExpr(`e${k}`, { alias: 'b', type: 'ASOF LEFT JOIN', on: on('a', 'b', ast.compare('<=', ast.field('a', col(k - 1)), ast.field('b', 'ts'))) }),
          ),
        }),
      ),
    );
  }
  // Seconds since the epoch, as the window-pass form's chain times.
  const secs = (e: Expr): Expr => ast.arithmetic('-', e, ast.call('toDateTime', [c(0)]));
  // (qualified: an unqualified `c0` here would be the alias being defined)
  const chained = ast.select({
    select: [ast.field('ch', 'actor'), ...Array.from({ length: n }, (_, j) => ast.alias(col(j), secs(ast.field('ch', col(j)))))],
    from: `ch${n - 1}`,
    fromAlias: 'ch',
  });
  // Actors with a step-0 event but no start reaching step 1 still count at step 0 (their times are never read).
  const stepZeroOnly = ast.select({
    select: [f('actor'), ...Array.from({ length: n }, (_, j) => ast.alias(col(j), c(null)))],
    from: 'e0',
    groupBy: [f('actor')],
  });
  return ast.unionAll(chained, stepZeroOnly);
}

/** From the starts (`p0` or a query; rows: actor[, bucket], c0..c{n-1}) to the final answer. */
function finish(inp: FastFunnelInput, ctes: ast.CTE[], startRows: string | Query): Query {
  const n = inp.stepConds.length;
  // Per start: steps reached inside the window (chain times increase, so counting is enough).
  const within = (j: number) => ast.call('if', [ast.compare('<=', f(col(j)), ast.arithmetic('+', f('c0'), c(inp.windowSeconds))), c(1), c(0)]);
  const reach = Array.from({ length: n - 1 }, (_, i) => within(i + 1) as Expr).reduce((a, b) => ast.arithmetic('+', a, b), c(0) as Expr);
  const starts = ast.select({
    select: [f('actor'), ...(inp.trends ? [f('bucket')] : []), ...Array.from({ length: n }, (_, j) => f(col(j))), ast.alias('reach', reach)],
    from: startRows,
    ...(typeof startRows === 'string' ? {} : { fromAlias: 'st' }),
  });
  if (inp.trends) {
    // Per entrance period: every start advances on its own greedy chain (PostHog's funnel trends keep each entry
    // independently; a later start does not take over an earlier one's progress), and each actor counts once per
    // period, at the furthest reach of its starts there.
    const perPeriod = ast.select({
      select: [f('bucket'), ast.alias('max_reach', ast.call('max', [f('reach')]))],
      from: starts,
      groupBy: [f('actor'), f('bucket')],
    });
    return {
      ...ast.select({
        select: [
          f('bucket'),
          ast.alias('from_count', ast.call('countIf', [ast.compare('>=', f('max_reach'), c(inp.trends.from))])),
          ast.alias('to_count', ast.call('countIf', [ast.compare('>=', f('max_reach'), c(inp.trends.to))])),
        ],
        from: perPeriod,
        groupBy: [f('bucket')],
        orderBy: [ast.order(f('bucket'))],
      }),
      ctes,
    };
  }
  const reachTime = ast.call('multiIf', [...Array.from({ length: n - 1 }, (_, i) => [ast.eq(f('reach'), c(i + 1)), f(col(i + 1))]).flat(), f('c0')]);
  const key = ast.tuple([f('reach'), ast.arithmetic('-', c(0), reachTime), f('c0')]);
  const perActor = ast.select({
    select: [
      ...(inp.breakdown ? [f('actor')] : []),
      ast.alias('max_reach', ast.call('max', [f('reach')])),
      ...Array.from({ length: n }, (_, j) => ast.alias(`b${j}`, ast.call('argMax', [f(col(j)), key]))),
    ],
    from: starts,
    groupBy: [f('actor')],
  });
  const out: Expr[] = [];
  const stepAggregates = (): Expr[] => out;
  for (let k = 0; k < n; k++) out.push(ast.alias(`count_${k}`, ast.call('countIf', [ast.compare('>=', f('max_reach'), c(k))])));
  for (let k = 1; k < n; k++) {
    // Chain times are float seconds since the epoch (~1.7e9, so ~1e-7 s of float error); events carry whole
    // milliseconds, so rounding the difference to 3 decimals gives the exact conversion time (0.1, not 0.0999999).
    const diff = ast.call('round', [ast.arithmetic('-', f(`b${k}`), f(`b${k - 1}`)), c(3)]);
    // Zero-second conversions count but have no time (the funnel UDF's `groupArrayIf(timings[i], timings[i] > 0)`).
    const d = ast.call('if', [ast.and(ast.compare('>=', f('max_reach'), c(k)), ast.compare('>', diff, c(0))), diff, c(null)]);
    out.push(ast.alias(`avg_${k}`, ast.call('avg', [d])), ast.alias(`median_${k}`, ast.call('median', [d])));
  }
  if (!inp.breakdown) return { ...ast.select({ select: out, from: perActor }), ctes };

  // Breakdown: the actor's attributed value, then counts per value, ranked, the rest merged into `other`.
  const bd = inp.breakdown;
  const touch: Expr = {
    node: 'Call',
    name: bd.attribution === 'first_touch' ? 'argMin' : 'argMax',
    args: [f('bd'), f('ts')],
    ...(bd.keepEmpty ? {} : { filter_expr: ast.compare('!=', f('bd'), c('')) }),
  } as Expr;
  ctes.push(
    ast.cte(
      'actor_value',
      ast.select({ select: [f('actor'), ast.alias('value', ast.call('ifNull', [touch, c('')]))], from: 'ev', groupBy: [f('actor')] }),
    ),
    ast.cte(
      'per_actor',
      ast.select({
        select: [f('pa.max_reach'), ...Array.from({ length: n }, (_, j) => f(`pa.b${j}`)), ast.alias('value', f('av.value'))],
        from: ast.joins(
          ast.joinExpr(perActor, { alias: 'pa' }),
          ast.joinExpr('actor_value', { alias: 'av', type: 'INNER JOIN', on: ast.eq(f('pa.actor'), f('av.actor')) }),
        ),
      }),
    ),
  );
  const counts = Array.from({ length: n }, (_, k) => ast.alias(`count_${k}`, ast.call('countIf', [ast.compare('>=', f('max_reach'), c(k))])));
  const perValue = ast.select({ select: [f('value'), ...counts], from: 'per_actor', groupBy: [f('value')] });
  const rank: Expr = {
    node: 'WindowFunction',
    name: 'row_number',
    exprs: [],
    over_expr: {
      node: 'WindowExpr',
      order_by: [...Array.from({ length: n }, (_, i) => ast.order(f(`count_${n - 1 - i}`), 'DESC')), ast.order(f('value'))],
    },
  };
  ctes.push(ast.cte('ranked', ast.select({ select: [f('value'), ast.alias('rk', rank)], from: perValue })));
  const label = ast.call('if', [ast.compare('<=', f('r.rk'), c(bd.limit)), f('r.value'), c(bd.other)]);
  return {
    ...ast.select({
      select: [ast.alias('breakdown_value', label), ast.alias('rank', ast.call('min', [f('r.rk')])), ...stepAggregates()],
      from: ast.joins(ast.joinExpr('per_actor', { alias: 'x' }), ast.joinExpr('ranked', { alias: 'r', type: 'INNER JOIN', on: ast.eq(f('x.value'), f('r.value')) })),
      groupBy: [ast.field('breakdown_value')],
      orderBy: [ast.order(f('rank'))],
    }),
    ctes,
  };
}
