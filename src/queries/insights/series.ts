/**
 * Series nodes: which events a series matches, its label and the `action` object PostHog returns with results.
 * Only `EventsNode` is answerable. Quarry has no actions, so every ActionsNode names an action that does not exist:
 * trends and stickiness drop such a series from their results (PostHog matches nothing for it, `1 = 2`, and leaves
 * it out; reference §1.2), the other kinds answer a 400, as PostHog does. Data-warehouse nodes are a 400.
 */
import * as ast from '../../productql/ast';
import type { Expr } from '../../productql/ast';
import { validationError } from '../../errors';
import { propertiesToExpr, type FilterContext } from './property-filters';
import type { EventsNode, SeriesNode } from './schema';

/** An EventsNode that matches no event: stands for a series that is computed and then dropped. */
export const NO_EVENTS: EventsNode = { kind: 'EventsNode', event: null, properties: [{ type: 'hogql', key: 'false' }] } as EventsNode;

/**
 * Trends/stickiness series: an EventsNode as is; an ActionsNode (an action that does not exist here) as
 * {@link NO_EVENTS}, its index added to `dropped`; anything else a 400 (see {@link requireEventsNode}).
 */
export function eventsOrDropped(s: SeriesNode, i: number, dropped: Set<number>): EventsNode {
  if (s.kind !== 'ActionsNode') return requireEventsNode(s, `series__${i}`);
  dropped.add(i);
  return NO_EVENTS;
}

/** Narrows a series to an EventsNode or throws a 400 naming it (`attr`, e.g. `series__0`). */
export function requireEventsNode(s: SeriesNode, attr: string): EventsNode {
  if (s.kind === 'EventsNode') return s;
  if (s.kind === 'ActionsNode') throw validationError('ActionsNode series are not supported: Quarry has no actions. Use an EventsNode.', attr, 'unsupported_series');
  throw validationError(`${s.kind} series are not supported: Quarry has no data warehouse. Use an EventsNode.`, attr, 'unsupported_series');
}

/** `event = '<name>'` (bound), or undefined for all events (`event: null`). */
export function eventMatchExpr(s: EventsNode, ctx: FilterContext = {}): Expr | undefined {
  if (s.event === null || s.event === undefined) return undefined;
  return ast.compare('==', ast.field(...(ctx.table ? [ctx.table, 'event'] : ['event'])), ast.constant(s.event));
}

/** Event match AND the series' `properties` AND `fixedProperties`; undefined when nothing filters. */
export function seriesFilterExpr(s: EventsNode, ctx: FilterContext = {}): Expr | undefined {
  const parts = [eventMatchExpr(s, ctx), propertiesToExpr(s.properties, ctx), propertiesToExpr(s.fixedProperties, ctx)].filter(
    (x): x is Expr => !!x,
  );
  return parts.length ? ast.and(...parts) : undefined;
}

/** The series label: the event name, or `All events`. (`custom_name` is display-only and goes to `action`.) */
export const seriesLabel = (s: EventsNode): string => s.event ?? 'All events';

/** PostHog's `action` object of a series result. */
export function seriesAction(s: EventsNode, order: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: s.event ?? null,
    type: 'events',
    order,
    name: s.name ?? s.event ?? 'All events',
    custom_name: s.custom_name ?? null,
    math: s.math ?? 'total',
    math_property: s.math_property ?? null,
    math_hogql: s.math_hogql ?? null,
    math_group_type_index: s.math_group_type_index ?? null,
    properties: s.properties ?? {},
    ...extra,
  };
}
