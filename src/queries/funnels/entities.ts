/**
 * Comparing series nodes as PostHog's funnel validation does (posthog/hogql_queries/insights/utils/entities.py:
 * `is_equal`, `is_superset`): two nodes are the same definition when they have the same kind (an exclusion node counts
 * as its series kind), the same event or action id, and the same property and fixed-property filters regardless of
 * their order; a node is a superset of another when it is the same definition up to filters and the other's filters
 * are all among its own (so the other matches every event it matches).
 */
import { stableJson } from '../../stable-json';

/** The fields of a step or exclusion node that decide which events it matches. */
export interface EntityLike {
  kind?: string;
  event?: string | null;
  id?: unknown;
  properties?: unknown;
  fixedProperties?: unknown;
  /** A GroupNode's nodes. */
  nodes?: unknown;
}

/** A filter list (or group) as order-insensitive canonical texts: one per filter, keys sorted. */
function filterTexts(props: unknown): string[] {
  if (props === null || props === undefined) return [];
  const list = Array.isArray(props) ? props : [props];
  return list.map((f) => stableJson(f ?? null)).sort();
}

const sameTexts = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Same kind and the same event (EventsNode; null = all events), action id (ActionsNode) or nodes (GroupNode). */
function sameTarget(a: EntityLike, b: EntityLike): boolean {
  if ((a.kind ?? 'EventsNode') !== (b.kind ?? 'EventsNode')) return false;
  if ((a.kind ?? 'EventsNode') === 'ActionsNode') return Number(a.id) === Number(b.id);
  // (GroupNode steps: the same nodes, in any order)
  if (a.kind === 'GroupNode') return sameTexts(filterTexts(a.nodes), filterTexts(b.nodes));
  return (a.event ?? null) === (b.event ?? null);
}

/** PostHog's `is_equal`: the same definition, filters compared as sets of filters. */
export function isEqualEntity(a: EntityLike, b: EntityLike): boolean {
  return sameTarget(a, b) && sameTexts(filterTexts(a.properties), filterTexts(b.properties)) && sameTexts(filterTexts(a.fixedProperties), filterTexts(b.fixedProperties));
}

/** PostHog's `is_superset(a, b)`: same target, and every filter of `b` (properties and fixed properties) is one of `a`'s. */
export function isSupersetEntity(a: EntityLike, b: EntityLike): boolean {
  if (!sameTarget(a, b)) return false;
  const own = new Map<string, number>();
  for (const x of [...filterTexts(a.properties), ...filterTexts(a.fixedProperties)]) own.set(x, (own.get(x) ?? 0) + 1);
  for (const x of [...filterTexts(b.properties), ...filterTexts(b.fixedProperties)]) {
    const left = own.get(x) ?? 0;
    if (!left) return false;
    own.set(x, left - 1);
  }
  return true;
}

/**
 * An exclusion that would exclude a step of its own range (PostHog's "Exclusion steps cannot contain an event that's
 * part of funnel steps."): it is the step, or it matches every event the step matches.
 */
export const exclusionCoversStep = (step: EntityLike, exclusion: EntityLike): boolean => isEqualEntity(step, exclusion) || isSupersetEntity(step, exclusion);
