/**
 * Series math → ProductQL aggregations (reference §1.3).
 *
 * Aggregations that fit one GROUP BY are returned by {@link aggregationExpr}. Two families need more than that and
 * are described by {@link mathPlan}: `*_count_per_actor` (count per actor in an inner query, then aggregate over
 * actors) and `weekly_active`/`monthly_active` at sub-week intervals (sliding windows, computed by the runner).
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { parseExprSync } from '../../productql/parser';
import { lookupFunction } from '../../productql/functions';
import { validationError } from '../../errors';
import { INTERVAL_RANK, type IntervalType } from './interval';
import { COUNT_PER_ACTOR_MATH, PROPERTY_MATH, type EventsNode, type MathType } from './schema';
import { sessionPropertyExpr } from './session-filters';
import { groupPropertyChain } from './group-filters';

/**
 * PostHog's `convert_active_user_math_based_on_interval`: WAU at week-or-coarser and MAU at month intervals are
 * silently DAU. Missing math is `total`. Pass the series' `math_group_type_index` as `groupTypeIndex` where
 * `unique_group` may come without one: then it is `total`, as aggregation_operations.py's select_aggregation falls
 * through to count() (and adds no non-empty group filter) when the index is None.
 */
export function effectiveMath(math: MathType | null | undefined, interval: IntervalType, groupTypeIndex?: { index: number | null | undefined }): MathType {
  const m = math ?? 'total';
  if (m === 'unique_group' && groupTypeIndex && (groupTypeIndex.index === null || groupTypeIndex.index === undefined)) return 'total';
  if (m === 'weekly_active' && INTERVAL_RANK[interval] >= INTERVAL_RANK.week) return 'dau';
  if (m === 'monthly_active' && INTERVAL_RANK[interval] >= INTERVAL_RANK.month) return 'dau';
  return m;
}

/** The event's group key of type `index`, NULL when it has none (`''` or missing: PostHog's `$group_N != ''`). */
export function groupKeyExpr(index: number, table?: string): Expr {
  return ast.call('nullIf', [ast.field(...(table ? [table] : []), 'properties', `$group_${index}`), ast.constant('')]);
}

/** Who an actor is: `person_id`, or the group key ({@link groupKeyExpr}) when aggregating by a group type. */
export function actorExpr(groupTypeIndex?: number | null, table?: string): Expr {
  if (groupTypeIndex !== null && groupTypeIndex !== undefined) return groupKeyExpr(groupTypeIndex, table);
  return ast.field(...(table ? [table] : []), 'person_id');
}

/**
 * The person actor of trends/stickiness, counting personless events (`$process_person_profile: false`, stored
 * without a person, of a distinct id that has none yet: `person_id` resolves them to the person it gets later) as
 * one actor per distinct id — PostHog gives such events a person id derived from the distinct id, so they count in
 * DAU and stickiness (lifecycle excludes them: use {@link actorExpr}).
 * With a group type index, the group key.
 */
export function personOrDistinctActorExpr(groupTypeIndex?: number | null, table?: string): Expr {
  if (groupTypeIndex !== null && groupTypeIndex !== undefined) return actorExpr(groupTypeIndex, table);
  const f = (...chain: string[]): Expr => ast.field(...(table ? [table, ...chain] : chain));
  return ast.call('if', [
    ast.call('isNull', [f('person_id')]),
    ast.call('concat', [ast.constant('$distinct_id:'), f('distinct_id')]),
    ast.call('concat', [f('person_id'), ast.constant('')]),
  ]);
}

/**
 * {@link personOrDistinctActorExpr} without a group type, as two disjoint parts: events with a person (actor
 * `person_id`) and personless events (actor `distinct_id`). The two actor sets cannot overlap (the combined
 * expression prefixes distinct ids), so a distinct count over both is the sum of the parts' distinct counts, and
 * per-actor aggregates are the union of the parts'. Each part keys on a stored column instead of a text built per
 * row, and `isNull(person_id)` prints as a test on the stored column, which lets the engine skip whole blocks
 * without personless events (in practice the second part reads almost nothing).
 */
export function personActorParts(table?: string): { actor: Expr; where: Expr }[] {
  const f = (...chain: string[]): Expr => ast.field(...(table ? [table, ...chain] : chain));
  return [
    { actor: f('person_id'), where: ast.call('isNotNull', [f('person_id')]) },
    { actor: f('distinct_id'), where: ast.call('isNull', [f('person_id')]) },
  ];
}

/** Condition excluding events without an actor (personless events, or empty `$group_N`). */
export function actorPresentExpr(groupTypeIndex?: number | null, table?: string): Expr {
  return ast.call('isNotNull', [actorExpr(groupTypeIndex, table)]);
}

const QUANTILES: Record<string, number> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 };

/**
 * The numeric value a property math aggregates: `toFloat(<property>)`, the property read by `math_property_type` as
 * PostHog's aggregation_operations.py `_get_math_chain` does — `properties.k` (events, the default),
 * `person.properties.k`, `session.k` (`session_properties`), `group_N.properties.k` (`group_properties`, N =
 * `math_group_type_index`) — and `$time` as a Unix timestamp.
 */
export function mathPropertyExpr(s: EventsNode, attr = 'series', table?: string): Expr {
  const f = (...chain: string[]): Expr => ast.field(...(table ? [table, ...chain] : chain));
  if (!s.math_property) throw validationError(`math "${s.math}" needs math_property.`, `${attr}__math_property`);
  if (s.math_property === '$time') return ast.call('toUnixTimestamp', [f('timestamp')]);
  const key = s.math_property;
  const base =
    s.math_property_type === 'person_properties'
      ? f('person', 'properties', key)
      : s.math_property_type === 'session_properties'
        ? sessionPropertyExpr(key, `${attr}__math_property`, table)
        : s.math_property_type === 'group_properties'
          ? f(...groupPropertyChain({ key, group_type_index: s.math_group_type_index }, `${attr}__math_group_type_index`))
          : f('properties', key);
  return ast.call('toFloat', [base]);
}

/** `ifNull(agg(x), 0)` for sum/avg/min/max/median/pNN over any numeric expression. */
export function numericAggregate(kind: string, x: Expr): Expr {
  let agg: Expr;
  if (kind in QUANTILES) agg = ast.call('quantile', [x], { params: [ast.constant(QUANTILES[kind])] });
  else if (kind === 'sum' || kind === 'avg' || kind === 'min' || kind === 'max') agg = ast.call(kind, [x]);
  else throw new Error(`not a numeric aggregate: ${kind}`);
  return ast.call('ifNull', [agg, ast.constant(0)]);
}

/** Property math over `$session_duration`: aggregated per session first (reference §1.3), not per event. */
export const isSessionDurationMath = (s: EventsNode, math: MathType): boolean =>
  s.math_property === '$session_duration' &&
  ['event_properties', 'session_properties'].includes(s.math_property_type ?? 'event_properties') &&
  (PROPERTY_MATH as readonly string[]).includes(math);

/** How a series' math is computed. */
export type MathPlan =
  | { kind: 'simple' }
  | { kind: 'count_per_actor'; aggregate: string }
  | { kind: 'active_window'; days: number }
  | { kind: 'first_time' };

/** Classifies a (normalized) math value. */
export function mathPlan(math: MathType): MathPlan {
  if ((COUNT_PER_ACTOR_MATH as readonly string[]).includes(math)) return { kind: 'count_per_actor', aggregate: math.replace('_count_per_actor', '') };
  if (math === 'weekly_active') return { kind: 'active_window', days: 7 };
  if (math === 'monthly_active') return { kind: 'active_window', days: 30 };
  if (math === 'first_time_for_user' || math === 'first_matching_event_for_user' || math === 'first_time_for_user_with_filters')
    return { kind: 'first_time' };
  return { kind: 'simple' };
}

/** True when the math counts distinct actors (cumulative displays count each actor once, at first appearance). */
export const isActorCountMath = (math: MathType): boolean => math === 'dau' || math === 'unique_group';

/**
 * The per-bucket aggregation of a series whose plan is `simple` (or the inner count of the others):
 * total → count(); dau → uniq(actor); unique_session → uniq($session_id); unique_group → uniq($group_N);
 * property math → ifNull(agg(toFloat(prop)), 0); hogql → the parsed `math_hogql`.
 */
export function aggregationExpr(s: EventsNode, math: MathType, opts: { groupTypeIndex?: number | null; attr?: string; table?: string } = {}): Expr {
  const attr = opts.attr ?? 'series';
  const f = (...chain: string[]): Expr => ast.field(...(opts.table ? [opts.table, ...chain] : chain));
  switch (math) {
    case 'total':
    case 'first_time_for_user':
    case 'first_matching_event_for_user':
    case 'first_time_for_user_with_filters':
      return ast.call('count', []);
    case 'dau':
    case 'weekly_active':
    case 'monthly_active': {
      const g = s.math_group_type_index ?? opts.groupTypeIndex;
      return ast.call('uniq', [personOrDistinctActorExpr(g, opts.table)]);
    }
    case 'unique_group': {
      if (s.math_group_type_index === null || s.math_group_type_index === undefined)
        throw validationError('math "unique_group" needs math_group_type_index.', `${attr}__math_group_type_index`);
      return ast.call('uniq', [groupKeyExpr(s.math_group_type_index, opts.table)]);
    }
    case 'unique_session':
      return ast.call('uniq', [ast.call('nullIf', [f('$session_id'), ast.constant('')])]);
    case 'hogql': {
      if (!s.math_hogql) throw validationError('math "hogql" needs math_hogql.', `${attr}__math_hogql`);
      const expr = parseExprSync(s.math_hogql);
      // (a bare column would reach the engine as "not under an aggregate function / not in GROUP BY"; a constant is fine)
      if (!containsAggregate(expr) && someNode(expr, (n) => n.node === 'Field'))
        throw validationError(`math_hogql "${s.math_hogql}" must be an aggregation, e.g. sum(properties.price) or count().`, `${attr}__math_hogql`);
      return expr;
    }
    default:
      if ((PROPERTY_MATH as readonly string[]).includes(math)) return numericAggregate(math, mathPropertyExpr(s, attr, opts.table));
      throw validationError(`math "${math}" is not supported here.`, `${attr}__math`);
  }
}

/**
 * True when `e` (a parsed ProductQL expression) calls an aggregate function outside of any subquery: a HogQL math must
 * (it is the per-bucket value), a breakdown expression must not (it is grouped by).
 */
export const containsAggregate = (e: unknown): boolean =>
  someNode(e, (n) => n.node === 'Call' && typeof n.name === 'string' && lookupFunction(n.name)?.kind === 'aggregate');

/** True when a node of `e` outside of any subquery satisfies `pred`. */
function someNode(e: unknown, pred: (n: { node?: unknown; name?: unknown }) => boolean): boolean {
  if (e === null || typeof e !== 'object') return false;
  if (Array.isArray(e)) return e.some((x) => someNode(x, pred));
  const n = e as { node?: unknown; name?: unknown };
  if (n.node === 'SelectQuery' || n.node === 'SelectSetQuery') return false;
  return pred(n) || Object.values(e).some((x) => someNode(x, pred));
}

/** Extra WHERE conditions a math implies: group math excludes events with an empty `$group_N`. */
export function mathFilterExpr(s: EventsNode, math: MathType, groupTypeIndex?: number | null, table?: string): Expr | undefined {
  const g = s.math_group_type_index ?? (math === 'dau' || math === 'weekly_active' || math === 'monthly_active' ? groupTypeIndex : null);
  if ((math === 'unique_group' || math === 'dau' || math === 'weekly_active' || math === 'monthly_active') && g !== null && g !== undefined)
    return actorPresentExpr(g, table);
  return undefined;
}
