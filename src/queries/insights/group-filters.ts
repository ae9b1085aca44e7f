/**
 * Group properties in insights (reference §1.4, §1.6): a `{type: 'group', key, group_type_index: N}` filter and a
 * `breakdown_type: 'group'` breakdown (`breakdown_group_type_index: N`, or `group_type_index` in `breakdowns`) both
 * read `group_N.properties.<key>`: the properties of the project's group of type N whose key is the event's
 * `$group_N` (the ProductQL lazy join, src/productql/schema.ts). An event without that group, or whose group has no
 * row, reads NULL, like a missing event property.
 *
 * A breakdown without the index: PostHog builds the chain `group_{group_type_index}` without checking it, so it fails
 * to resolve (`group_None`) and the query is a 400; Quarry says so up front. A filter without it is incomplete and left
 * out (property-filters.ts propertyFilterToExpr, as PostHog's property_to_expr outside strict mode).
 */
import { validationError } from '../../errors';
import { GROUP_TYPE_INDEXES } from '../../productql/schema';

/** A group type index (0–4) from a filter or breakdown, or a 400 naming `attr`. */
export function groupTypeIndexOf(v: unknown, attr: string): number {
  if (typeof v === 'number' && (GROUP_TYPE_INDEXES as readonly number[]).includes(v)) return v;
  if (v === null || v === undefined) throw validationError('Group properties need a group type index (group_type_index, 0 to 4).', attr);
  throw validationError(`Group type index must be an integer from 0 to 4, got ${JSON.stringify(v)}.`, attr);
}

/** The ProductQL chain of a group property: `['group_N', 'properties', key]`. */
export function groupPropertyChain(f: { key: string; group_type_index?: number | null }, attr: string): string[] {
  return [`group_${groupTypeIndexOf(f.group_type_index, attr)}`, 'properties', f.key];
}
