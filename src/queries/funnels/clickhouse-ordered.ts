/**
 * SQL-only ordered funnel for ClickHouse (steps viz, same cases as fast-ordered.ts: no exclusions, no optional
 * steps, every step a distinct named event, breakdown with first/last touch or none).
 *
 * ClickHouse 18.16 has neither window functions nor ASOF joins, and its `windowFunnel` takes whole-second
 * timestamps (UInt32), orders equal timestamps arbitrarily and gives no step times, so the funnel is evaluated per
 * actor over arrays, with the same greedy-chain rules as the DuckDB path (see fast-ordered.ts):
 *
 * - one GROUP BY actor collects `key = epoch_ms * 64 + step` for the step events (the order of keys is time, then
 *   step: the per-actor evaluation orders equal times by step), step-0 keys and later-step keys apart. It holds
 *   only what must be per event (two `groupArrayIf`, no other aggregate: each aggregate costs a call per event);
 * - that GROUP BY is a stage (a materialized CTE: a temporary table on the server, see Dialect.stagesCtes). On
 *   18.16 everything after a GROUP BY in the same query runs in one stream, and the per-actor array work below (a
 *   sort of every actor's step-0/1 keys) took a third of the query on one core; read back from the table, it runs
 *   on every thread;
 * - only starts that can reach step 1 matter: the latest step-0 event before a step-1 event (a step-0 key whose next
 *   key in time among the step-0/1 keys is a step-1 key; all earlier starts sharing that step 1 share its chain, and
 *   the latest one reaches as far inside the window and wins the tie-break). One descending sort of the step-0/1 keys
 *   gives each start and, as its predecessor in that order, its step-1 key;
 * - later steps (only the few keys of steps 2+) by a small search per start: the first step-k key after the
 *   step-(k-1) key;
 * - per actor the start with the highest (reach, -time of reaching it, start time) wins, as in the per-actor
 *   evaluation (one Int64 score per start); conversion times are returned per step as arrays of milliseconds, and
 *   averages/medians are taken in JS exactly as the per-actor path does (ClickHouse's `median` samples).
 *
 * 18.16 pitfalls this shape avoids (each one checked against the server):
 * - a subquery column that only a lambda reads is dropped ("Unknown identifier"): every column a lambda captures is
 *   also an argument of a non-lambda function in the same SELECT (`R` is read by the sort that lambdas of the same
 *   SELECT capture it from);
 * - a SELECT alias that only a lambda reads is recomputed inside the lambda, where lambda arguments of the same name
 *   silently shadow its own: nothing here captures an alias, and nested lambdas use distinct argument names.
 */
import { ast, type Expr, type Query } from '../../productql';

export interface ClickHouseFunnelInput {
  stepConds: Expr[];
  where: Expr;
  actor: Expr;
  actorPresent: Expr;
  windowMs: number;
  /**
   * `where` already keeps only events of some step (each step is an event name without property filters, and `where`
   * holds `event IN (steps)`): the OR of the step conditions is not evaluated again per event. Default false.
   */
  whereSelectsSteps?: boolean;
  /** One breakdown string expression ('' when missing) with first/last-touch attribution (`keepEmpty`: '' is a value too). */
  breakdown?: { expr: Expr; attribution: 'first_touch' | 'last_touch'; keepEmpty?: boolean };
}

const f = (name: string) => ast.field(name);
const c = (v: number | string | null) => ast.constant(v);
const lam = (args: string[], body: Expr) => ast.lambda(args, body);
const call = (name: string, ...args: Expr[]) => ast.call(name, args);
/** Keys carry the step in their low bits: key = epoch_ms * STEP_BASE + step (MAX_FUNNEL_STEPS = 15 < 64). */
const STEP_BASE = 64;

/** The step in a key's low bits (bitAnd: cheaper than a modulo per element; keys are positive). */
const stepOf = (x: Expr): Expr => call('bitAnd', x, c(STEP_BASE - 1));
const msOf = (x: Expr): Expr => call('intDiv', x, c(STEP_BASE));

export function clickhouseOrderedFunnelQuery(inp: ClickHouseFunnelInput): Query {
  const n = inp.stepConds.length;
  // s1 + 2 * s2 + ... + (n-1) * s(n-1): the events are filtered to step events, and no event matches two steps (the
  // steps are distinct event names), so this is the step's index. Plain arithmetic on the 0/1 conditions: 18.16's
  // multiIf cost about as much again per event as the whole key.
  const stepCode = inp.stepConds
    .slice(1)
    .map((s, i) => (i === 0 ? s : ast.arithmetic('*', c(i + 1), s)))
    .reduce((x, y) => ast.arithmetic('+', x, y));
  // `timestamp` is epoch milliseconds (Int64) in the ClickHouse dialect: the key is plain integer arithmetic on it.
  const key = ast.arithmetic('+', ast.arithmetic('*', f('timestamp'), c(STEP_BASE)), stepCode);
  const bd = inp.breakdown;
  // The aggregate's `If` conditions read the step code the key already computes (one multiIf per event).
  const only = (cond: Expr): Expr => ({ node: 'Call', name: 'groupArray', args: [key], filter_expr: cond }) as Expr;
  // Per actor: its step-0 keys (P) and its keys of later steps (R, a few); no HAVING (an aggregate more per event):
  // actors without a step-0 key are told apart below.
  const perActor = ast.select({
    select: [
      ast.alias('actor', inp.actor),
      ast.alias('P', only(ast.eq(stepCode, c(0)))),
      ast.alias('R', only(ast.compare('>=', stepCode, c(1)))),
      ...(bd
        ? [
            ast.alias(
              'value',
              call(
                'ifNull',
                {
                  node: 'Call',
                  name: bd.attribution === 'first_touch' ? 'argMin' : 'argMax',
                  args: [bd.expr, key],
                  ...(bd.keepEmpty ? {} : { filter_expr: ast.compare('!=', bd.expr, c('')) }),
                } as Expr,
                c(''),
              ),
            ),
          ]
        : []),
    ],
    from: 'events',
    where: ast.and(inp.where, inp.whereSelectsSteps ? undefined : ast.or(...inp.stepConds), inp.actorPresent),
    groupBy: [f('actor')],
  });
  const carry = bd ? [f('value')] : [];
  // Step-0 and step-1 keys, latest first. A start is a step-0 key right after a step-1 key in this order; that
  // step-1 key is its c1. (`e` is written out where it is used: 18.16 computes the same expression once.)
  const e = call(
    'arrayReverseSort',
    call('arrayConcat', f('P'), call('arrayFilter', lam(['x'], ast.eq(stepOf(f('x')), c(1))), f('R'))),
  );
  // Step changes along `e` (keys' steps are 0 or 1): -1 exactly where a step-0 key follows a step-1 key, i.e. at a
  // start; the previous key there is e[i] - (e[i] - e[i-1]). arrayDifference is one pass, where shifting an array
  // (arrayPushFront, then arrayPopBack) copies it twice.
  const turns = call('arrayDifference', call('arrayMap', lam(['x'], stepOf(f('x'))), e));
  const isStart = ast.eq(f('d'), c(-1));
  const atStarts = (a: Expr) => call('arrayFilter', lam(['x', 'd'], isStart), a, turns);
  const chainCols = Array.from({ length: n }, (_, j) => `c${j}`);
  const chains: Expr[] = [
    ast.alias('c0', atStarts(e)),
    // Subtracted on the starts only (a few per actor), not along the whole array.
    ast.alias('c1', call('arrayMap', lam(['x', 'dx'], ast.arithmetic('-', f('x'), f('dx'))), atStarts(e), atStarts(call('arrayDifference', e)))),
  ];
  // c_j: the first step-j key after c_{j-1} (0 when none, or when the chain already stopped). R is unsorted and
  // small: the least matching key. The lambda captures R, which the sort in `e` also reads (see above).
  for (let j = 2; j < n; j++) {
    const [pa, ya] = [`p${j}`, `y${j}`];
    const next = call('arrayReduce', c('min'), call('arrayFilter', lam([ya], ast.and(ast.eq(stepOf(f(ya)), c(j)), ast.compare('>', f(ya), f(pa)))), f('R')));
    chains.push(ast.alias(`c${j}`, call('arrayMap', lam([pa], call('if', ast.compare('>', f(pa), c(0)), next, c(0))), f(`c${j - 1}`))));
  }
  const starts = ast.select({
    select: [
      ...carry,
      // Whether the actor has a step-0 event at all (counted at step 0): arrayExists, as `notEmpty` prints for strings.
      ast.alias('has0', call('arrayExists', lam(['z'], c(1)), f('P'))),
      ...chains,
    ],
    from: 'per_actor',
  });
  // Steps reached inside the window (chain times increase, so counting is enough). In keys: a start has step 0, so
  // ms(a) <= ms(a0) + window ⇔ a <= a0 + window * 64 + 63 (no division per element); capped so the bound stays an
  // exact Int64 constant (keys are below 2^48).
  const span = Math.min(inp.windowMs * STEP_BASE + STEP_BASE - 1, 2 ** 52);
  const inWindow = (a0: Expr, aj: Expr): Expr => ast.and(ast.compare('>', aj, c(0)), ast.compare('<=', aj, ast.arithmetic('+', a0, c(span))));
  const reachOf = (a: Expr[]): Expr =>
    a.slice(1).map((aj) => call('if', inWindow(a[0], aj), c(1), c(0)) as Expr).reduce((x, y) => ast.arithmetic('+', x, y));
  // The winning start: max (reach, -time of the furthest step reached, start). One Int64 per start instead of a tuple
  // (18.16 compares tuples as generic values): reach * 2^49 - time of the furthest step reached (keys are below 2^48,
  // so the reach decides first); ties go to the first maximum, and the starts are latest first (argMax keeps the first).
  const args = chainCols.map((_, j) => `a${j}`);
  const a: Expr[] = args.map((x) => f(x));
  const reachTime = a.slice(1).reduce<Expr>((t, aj) => call('greatest', t, call('if', inWindow(a[0], aj), aj, c(0))), a[0]);
  const score = ast.arithmetic('-', ast.arithmetic('*', reachOf(a), c(2 ** 49)), reachTime);
  const best = ast.select({
    select: [...carry, f('has0'), ...chainCols.map(f), ast.alias('best', call('arrayReduce', c('argMax'), call('arrayEnumerate', f('c0')), call('arrayMap', lam(args, score), ...chainCols.map(f))))],
    from: starts,
  });
  // Per actor: furthest step (-1 without a step-0 event: in no step) and step times (ms) of the winning start; an
  // actor without any start reaching step 1 has no start (best = 0: every time 0, reach 0).
  const at = (col: string) => call('arrayElement', f(col), f('best'));
  const actorRow = ast.select({
    select: [
      ...carry,
      ast.alias('max_reach', call('if', f('has0'), reachOf(chainCols.map(at)), c(-1))),
      ...chainCols.map((name, j) => ast.alias(`t${j}`, msOf(at(name)))),
    ],
    from: best,
  });
  const out: Expr[] = [];
  for (let k = 0; k < n; k++) out.push(ast.alias(`count_${k}`, call('countIf', ast.compare('>=', f('max_reach'), c(k)))));
  for (let k = 1; k < n; k++)
    out.push(
      ast.alias(`ms_${k}`, {
        node: 'Call',
        name: 'groupArray',
        args: [ast.arithmetic('-', f(`t${k}`), f(`t${k - 1}`))],
        filter_expr: ast.compare('>=', f('max_reach'), c(k)),
      } as Expr),
    );
  // The per-actor arrays are a stage: computed into a temporary table, which the array work then reads on every
  // thread (inlined, it would run in the one stream after the GROUP BY).
  const ctes = [ast.cte('per_actor', perActor, { materialized: true })];
  if (!bd) return ast.select({ ctes, select: out, from: actorRow });
  return ast.select({ ctes, select: [f('value'), ...out], from: actorRow, groupBy: [f('value')], orderBy: [ast.order(f('value'))] });
}
