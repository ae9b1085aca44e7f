/**
 * SQL-only ordered funnel for ClickHouse (steps viz, same cases as fast-ordered.ts: no exclusions, no optional
 * steps, every step a distinct named event, breakdown with first/last touch or none).
 *
 * ClickHouse 18.16 has neither window functions nor ASOF joins, and its `windowFunnel` takes whole-second
 * timestamps (UInt32), orders equal timestamps arbitrarily and gives no step times, so the funnel is evaluated per
 * actor over arrays, with the same greedy-chain rules as the DuckDB path (see fast-ordered.ts):
 *
 * - one GROUP BY actor collects `key = epoch_ms * 64 + step` for the step events (the order of keys is time, then
 *   step: the per-actor evaluation orders equal times by step), step-0/1 keys and later-step keys apart, with the
 *   actor's first and last step-1 key. Everything after that GROUP BY runs in one stream on 18.16 (its result is a
 *   single stream), so per-actor array work after it is kept small and the per-event work stays in the aggregation,
 *   which runs on every thread;
 * - only starts that can reach step 1 matter (the latest step-0 event before a step-1 event, i.e. a step-0 key
 *   followed in time by a step-1 key among the step-0/1 keys): step-0 keys after the last step-1 key, or more than the
 *   window before the first one, cannot be such a start with a step 1 inside the window (a start whose step 1 is out
 *   of the window reaches step 0 only, as if it were absent), so they are dropped before the step-0/1 keys are sorted;
 *   of the rest only the starts are kept, so the chain work runs on a few keys per actor;
 * - chains are built from the last step back: "the chain values of the first step-(k+1) event after me" is a
 *   backward fill over the (descending) array. 18.16 drops subquery columns that only a lambda reads (a lambda sees
 *   its arrays and the aggregates of its own SELECT, no more), so the fill is elementwise:
 *   a running sum that resets at each step-(k+1) key (arrayCumSumNonNegative with a large negative term) and adds
 *   that key's value on the next element (the array shifted by one);
 * - per actor the start with the highest (reach, -time of reaching it, start time) wins, as in the per-actor
 *   evaluation; conversion times are returned per step as arrays of milliseconds, and averages/medians are taken in
 *   JS exactly as the per-actor path does (ClickHouse's `median` samples).
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
  /** One breakdown string expression ('' when missing) with first/last-touch attribution. */
  breakdown?: { expr: Expr; attribution: 'first_touch' | 'last_touch' };
}

const f = (name: string) => ast.field(name);
const c = (v: number | string | null) => ast.constant(v);
const lam = (args: string[], body: Expr) => ast.lambda(args, body);
const call = (name: string, ...args: Expr[]) => ast.call(name, args);
/** Keys carry the step in their low bits: key = epoch_ms * STEP_BASE + step (MAX_FUNNEL_STEPS = 15 < 64). */
const STEP_BASE = 64;
/** Larger than any key (keys < 2^48 until the year 6429): resets the running sum of a backward fill (a safe integer, bound as Int64). */
const RESET = -(2 ** 52);

const stepOf = (x: Expr): Expr => ast.arithmetic('%', x, c(STEP_BASE));
const msOf = (x: Expr): Expr => call('intDiv', x, c(STEP_BASE));
/** The array moved one place later: element i is element i-1 of `a` (0 first); same length, also when empty. */
const shifted = (a: Expr): Expr => call('arrayPopBack', call('arrayPushFront', a, c(0)));

/**
 * Backward fill over the descending key array `keys`: for each element, `values` of the nearest element before it in
 * the array (= after it in time) whose step is `mark`; 0 when there is none. Values must be positive.
 */
function fill(keys: Expr, values: Expr, mark: number): Expr {
  const body = ast.arithmetic(
    '+',
    call('if', ast.eq(stepOf(f('x')), c(mark)), c(RESET), c(0)),
    call('if', ast.eq(stepOf(f('p')), c(mark)), f('v'), c(0)),
  );
  return call('arrayCumSumNonNegative', call('arrayMap', lam(['x', 'p', 'v'], body), keys, shifted(keys), shifted(values)));
}

export function clickhouseOrderedFunnelQuery(inp: ClickHouseFunnelInput): Query {
  const n = inp.stepConds.length;
  // multiIf(s0, 0, s1, 1, ..., n-1): the events are filtered to step events, and no event matches two steps.
  const stepCode = call('multiIf', ...inp.stepConds.slice(0, -1).flatMap((s, i) => [s, c(i)]), c(n - 1));
  // `timestamp` is epoch milliseconds (Int64) in the ClickHouse dialect: the key is plain integer arithmetic on it.
  const key = ast.arithmetic('+', ast.arithmetic('*', f('timestamp'), c(STEP_BASE)), stepCode);
  const bd = inp.breakdown;
  // The aggregate's `If` conditions read the step code the key already computes (one multiIf per event).
  const only = (cond: Expr): Expr => ({ node: 'Call', name: 'groupArray', args: [key], filter_expr: cond }) as Expr;
  const step1Key = (name: 'min' | 'max'): Expr => ({ node: 'Call', name, args: [key], filter_expr: ast.eq(stepCode, c(1)) }) as Expr;
  // Step-0/1 keys that can matter (see above), sorted: `lead` is the earliest step-0 key whose step 1 can be inside
  // the window, key ≥ (ms of the first step-1 key − window) * 64; capped at 2^52 so the bound stays an exact Int64
  // (keys are below 2^48). The filter reads the actor's aggregates inside a lambda of the aggregating SELECT (18.16
  // drops subquery columns that only lambdas read, so they are not carried to a next level).
  const lead = Math.min(inp.windowMs * STEP_BASE + 1, 2 ** 52);
  const first1 = step1Key('min');
  const perActor = ast.select({
    select: [
      ast.alias('actor', inp.actor),
      ast.alias(
        'e01',
        call(
          'arrayReverseSort',
          call(
            'arrayFilter',
            lam(['x'], ast.and(ast.compare('>=', f('x'), ast.arithmetic('-', first1, c(lead))), ast.compare('<=', f('x'), step1Key('max')))),
            only(ast.compare('<=', stepCode, c(1))),
          ),
        ),
      ),
      // Later-step keys before the first step-1 key follow no start's step 1.
      ...(n > 2 ? [ast.alias('later', call('arrayFilter', lam(['x'], ast.compare('>', f('x'), first1)), only(ast.compare('>=', stepCode, c(2)))))] : []),
      ...(bd
        ? [
            ast.alias(
              'value',
              call('ifNull', { node: 'Call', name: bd.attribution === 'first_touch' ? 'argMin' : 'argMax', args: [bd.expr, key], filter_expr: ast.compare('!=', bd.expr, c('')) } as Expr, c('')),
            ),
          ]
        : []),
    ],
    from: 'events',
    where: ast.and(inp.where, inp.whereSelectsSteps ? undefined : ast.or(...inp.stepConds), inp.actorPresent),
    groupBy: [f('actor')],
    // Actors without a step-0 event are not in the funnel (step codes are 0..n-1).
    having: ast.eq(call('min', stepCode), c(0)),
  });
  const carry = bd ? [f('value')] : [];
  // A step-0 key survives only when the next later one among the step-0/1 keys is a step-1 key.
  const kept = call(
    'arrayFilter',
    lam(['x', 'p'], ast.or(ast.eq(stepOf(f('x')), c(1)), ast.eq(stepOf(f('p')), c(1)))),
    f('e01'),
    shifted(f('e01')),
  );
  let q: Query = ast.select({
    select: [f('actor'), ...carry, ast.alias('d', n > 2 ? call('arrayReverseSort', call('arrayConcat', kept, f('later'))) : kept)],
    from: perActor,
  });
  // Chains from the last step back: after the pass for step k, `v{j}` (j > k) holds, at step-k keys, the key of
  // step j on the greedy chain from that key.
  let have: number[] = [];
  for (let k = n - 2; k >= 0; k--) {
    const fills = [k + 1, ...have].map((j) => ast.alias(`v${j}_${k}`, fill(f('d'), j === k + 1 ? f('d') : f(`v${j}_${k + 1}`), k + 1)));
    q = ast.select({ select: [f('actor'), ...carry, f('d'), ...fills], from: q });
    have = [k + 1, ...have];
  }
  // Starts (step-0 keys) with their chains.
  const onStarts = (col: Expr) => call('arrayFilter', lam(['y', 'x'], ast.eq(stepOf(f('x')), c(0))), col, f('d'));
  const chainCols = Array.from({ length: n }, (_, j) => `c${j}`);
  const starts = ast.select({
    select: [f('actor'), ...carry, ...chainCols.map((name, j) => ast.alias(name, onStarts(j === 0 ? f('d') : f(`v${j}_0`))))],
    from: q,
  });
  // Steps reached inside the window (chain times increase, so counting is enough).
  const args = chainCols.map((_, j) => `a${j}`);
  const inWindow = (j: number) =>
    call('if', ast.and(ast.compare('>', f(args[j]), c(0)), ast.compare('<=', msOf(f(args[j])), ast.arithmetic('+', msOf(f(args[0])), c(inp.windowMs)))), c(1), c(0));
  const reachBody = Array.from({ length: n - 1 }, (_, i) => inWindow(i + 1) as Expr).reduce((a, b) => ast.arithmetic('+', a, b));
  const withReach = ast.select({
    select: [f('actor'), ...carry, ...chainCols.map(f), ast.alias('reach', call('arrayMap', lam(args, reachBody), ...chainCols.map(f)))],
    from: starts,
  });
  // The winning start: max (reach, -time of the furthest step, start).
  const reachTime = call('multiIf', ...Array.from({ length: n - 1 }, (_, i) => [ast.eq(f('r'), c(i + 1)), f(args[i + 1])]).flat(), f(args[0]));
  const rank = call('arrayMap', lam(['r', ...args], ast.tuple([f('r'), ast.arithmetic('-', c(0), reachTime), f(args[0])])), f('reach'), ...chainCols.map(f));
  const best = ast.select({
    select: [...carry, ...chainCols.map(f), f('reach'), ast.alias('best', call('arrayReduce', c('argMax'), call('arrayEnumerate', f('reach')), rank))],
    from: withReach,
  });
  // Per actor: furthest step and step times (ms) of the winning start; an actor without any start reaching step 1
  // has an empty list (best = 0 → reach 0).
  const at = (col: string) => call('arrayElement', f(col), f('best'));
  const actorRow = ast.select({
    select: [
      ...carry,
      ast.alias('max_reach', call('ifNull', at('reach'), c(0))),
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
  if (!bd) return ast.select({ select: out, from: actorRow });
  return ast.select({ select: [f('value'), ...out], from: actorRow, groupBy: [f('value')], orderBy: [ast.order(f('value'))] });
}
