/**
 * Series nodes: which events a series matches, its label and the `action` object PostHog returns with results.
 * `EventsNode` as is; an `ActionsNode` is resolved against the project's live actions ({@link resolveSeries}) into a
 * {@link ResolvedSeries} that carries the action: its condition is the action's (the OR of its steps, see
 * src/actions/matching.ts) AND the node's own properties, its label the action's name. An action that does not exist
 * in the project (or is deleted): trends and stickiness drop the series from their results (PostHog matches nothing
 * for it, `1 = 2`, and leaves it out; reference §1.2), the other kinds answer a 400, as PostHog does. Data-warehouse
 * nodes are a 400.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { validationError } from '../../errors';
import { actionToExpr, type ActionDef } from '../../actions/matching';
import type { RunnerContext } from '../runner';
import { propertiesToExpr, type FilterContext } from './property-filters';
import type { EventsNode, SeriesNode, TrendsSeriesNode } from './schema';

/**
 * A series as runners use it: an EventsNode, an ActionsNode's fields with its action (`event` then null), or a
 * GroupNode's fields with its resolved nodes (`event` null; the events of any node match).
 */
export type ResolvedSeries = EventsNode & { action?: ActionDef; group?: ResolvedSeries[] };

/** An EventsNode that matches no event: stands for a series that is computed and then dropped. */
const NO_EVENTS: EventsNode = { kind: 'EventsNode', event: null, properties: [{ type: 'hogql', key: 'false' }] } as EventsNode;

/** The live actions of the project named by the ActionsNodes among `nodes` (none without RunnerContext.actions). */
export async function actionsOf(ctx: RunnerContext, nodes: readonly { kind?: string; id?: unknown }[]): Promise<Map<number, ActionDef>> {
  const ids = [...new Set(nodes.filter((n) => n.kind === 'ActionsNode').map((n) => n.id as number))];
  const source = ctx.actions;
  if (!ids.length || !source) return new Map();
  return source.liveActions(ctx.project.id, ids);
}

/** An ActionsNode with its action, as a series; a missing action is a 400 naming `attr`. */
function actionSeries(s: { kind: 'ActionsNode'; id: number } & Omit<EventsNode, 'kind' | 'event'>, actions: Map<number, ActionDef>, attr: string): ResolvedSeries {
  const action = actions.get(s.id);
  if (!action) throw validationError(`Action ${s.id} does not exist.`, attr, 'action_not_found');
  const { kind: _kind, id: _id, ...rest } = s;
  return { ...rest, kind: 'EventsNode', event: null, action };
}

/**
 * The series of a query, ActionsNodes resolved. `missing: 'drop'` (trends, stickiness): a missing action's series
 * becomes {@link NO_EVENTS} and its index goes to `dropped`; `'error'` (lifecycle): a 400 on `series__<i>`.
 */
export async function resolveSeries(
  series: readonly TrendsSeriesNode[],
  ctx: RunnerContext,
  missing: 'drop' | 'error',
  dropped: Set<number> = new Set(),
): Promise<ResolvedSeries[]> {
  const actions = await actionsOf(ctx, series.flatMap((s) => (s.kind === 'GroupNode' ? s.nodes : [s])));
  return series.map((s, i) => {
    if (s.kind === 'GroupNode') return groupSeries(s, actions, `series__${i}`);
    if (s.kind !== 'ActionsNode') return requireEventsNode(s, `series__${i}`);
    if (missing === 'drop' && !actions.has(s.id)) {
      dropped.add(i);
      return NO_EVENTS;
    }
    return actionSeries(s, actions, `series__${i}`);
  });
}

/**
 * A GroupNode as one series: its own fields (math, name, properties), event null, and its nodes resolved (a missing
 * action is a 400: the group cannot be computed without it). PostHog implements the OR operator only (its AND adds no
 * condition at all): AND is a 400 here.
 */
function groupSeries(s: Extract<TrendsSeriesNode, { kind: 'GroupNode' }>, actions: Map<number, ActionDef>, attr: string): ResolvedSeries {
  if (s.operator !== 'OR') throw validationError('A GroupNode combines its nodes with OR; operator AND is not supported.', `${attr}__operator`, 'unsupported_series');
  const { kind: _kind, operator: _operator, nodes, ...rest } = s;
  const group = nodes.map((n, j) => (n.kind === 'ActionsNode' ? actionSeries(n, actions, `${attr}__nodes__${j}`) : n));
  return { ...rest, kind: 'EventsNode', event: null, group };
}

/** Narrows a series to an EventsNode or throws a 400 naming it (`attr`, e.g. `series__0`). ActionsNodes go through {@link resolveSeries}. */
export function requireEventsNode(s: SeriesNode, attr: string): EventsNode {
  if (s.kind === 'EventsNode') return s;
  if (s.kind === 'ActionsNode') throw validationError('ActionsNode series must be resolved against the project first.', attr, 'unsupported_series');
  throw validationError(`${s.kind} series are not supported: Quarry has no data warehouse. Use an EventsNode.`, attr, 'unsupported_series');
}

/** `event = '<name>'` (bound), the action's condition for an action series, or undefined for all events (`event: null`). */
export function eventMatchExpr(s: ResolvedSeries, ctx: FilterContext = {}): Expr | undefined {
  if (s.group) {
    // each node: its event (or action) and its own properties
    const nodes = s.group.map((n) => seriesFilterExpr(n, ctx));
    return nodes.some((n) => n === undefined) ? undefined : ast.or(...(nodes as Expr[]));
  }
  if (s.action) return actionToExpr(s.action, ctx);
  if (s.event === null || s.event === undefined) return undefined;
  return ast.compare('==', ast.field(...(ctx.table ? [ctx.table, 'event'] : ['event'])), ast.constant(s.event));
}

/** Event (or action) match AND the series' `properties` AND `fixedProperties`; undefined when nothing filters. */
export function seriesFilterExpr(s: ResolvedSeries, ctx: FilterContext = {}): Expr | undefined {
  const parts = [eventMatchExpr(s, ctx), propertiesToExpr(s.properties, ctx), propertiesToExpr(s.fixedProperties, ctx)].filter(
    (x): x is Expr => !!x,
  );
  return parts.length ? ast.and(...parts) : undefined;
}

/** The name of an action series (an unnamed action by its id). */
const actionName = (a: ActionDef): string => a.name ?? String(a.id);

/**
 * The series label: the action's name, the event name, or `All events`; a GroupNode's name, or its nodes' labels joined
 * with `, `. (`custom_name` is display-only and goes to `action`.)
 */
export const seriesLabel = (s: ResolvedSeries): string =>
  s.group ? (s.name ?? s.group.map(seriesLabel).join(', ')) : s.action ? actionName(s.action) : (s.event ?? 'All events');

/** PostHog's `id`/`type`/`name` of a series' `action` object: the action id and `actions`, or the event and `events`. */
export function seriesIdentity(s: ResolvedSeries): { id: string | number | null; type: 'events' | 'actions'; name: string } {
  if (s.group) return { id: null, type: 'events', name: seriesLabel(s) };
  if (s.action) return { id: s.action.id, type: 'actions', name: actionName(s.action) };
  return { id: s.event ?? null, type: 'events', name: s.name ?? s.event ?? 'All events' };
}

/** PostHog's `action` object of a series result. */
export function seriesAction(s: ResolvedSeries, order: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { id, type, name } = seriesIdentity(s);
  return {
    id,
    type,
    order,
    name,
    custom_name: s.custom_name ?? null,
    math: s.math ?? 'total',
    math_property: s.math_property ?? null,
    math_hogql: s.math_hogql ?? null,
    math_group_type_index: s.math_group_type_index ?? null,
    properties: s.properties ?? {},
    ...extra,
  };
}
