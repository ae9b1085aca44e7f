/**
 * Typed GraphQL inputs of the insight queries. Field names are PostHog's JSON keys, so an input object *is* the
 * query node (after dropping unset fields) and the same runner answers GraphQL and REST without translation.
 * The one structural difference: GraphQL inputs cannot be unions, so a property group is
 * `{type, values: [filter], groups: [group]}` and becomes PostHog's `{type, values: [...groups, ...filters]}`.
 */
import { GraphQLJSON } from 'graphql-scalars';
import { Field, Float, InputType, Int } from 'type-graphql';

@InputType('InsightDateRangeInput', { description: 'dateRange: absolute (2024-01-01, ISO datetimes) or relative (-7d, -1mStart, all) dates.' })
export class InsightDateRangeInput {
  @Field(() => String, { nullable: true, description: 'Default -7d.' })
  date_from?: string | null;
  @Field(() => String, { nullable: true, description: 'Default now (rounded to the end of the interval).' })
  date_to?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Use the dates verbatim, without rounding. Default false.' })
  explicitDate?: boolean | null;
}

@InputType('PropertyFilterInput', { description: 'One property filter (event, person, event_metadata, hogql, ...).' })
export class PropertyFilterInput {
  @Field(() => String, { description: 'event | person | event_metadata | hogql | feature | ...' })
  type!: string;
  @Field(() => String, { description: 'Property key, or the ProductQL expression for hogql filters.' })
  key!: string;
  @Field(() => String, { nullable: true, description: 'exact (default), is_not, icontains, regex, gt, is_set, between, ...' })
  operator?: string | null;
  @Field(() => GraphQLJSON, { nullable: true, description: 'A string, number, boolean, or a list of them.' })
  value?: unknown;
  @Field(() => String, { nullable: true })
  label?: string | null;
}

@InputType('PropertyGroupFilterInput', { description: 'AND/OR group of filters and nested groups.' })
export class PropertyGroupFilterInput {
  @Field(() => String, { description: 'AND | OR' })
  type!: string;
  @Field(() => [PropertyFilterInput], { nullable: true })
  values?: PropertyFilterInput[] | null;
  @Field(() => [PropertyGroupFilterInput], { nullable: true })
  groups?: PropertyGroupFilterInput[] | null;
}

@InputType('EventsNodeInput', { description: 'A series of events (event null = all events).' })
export class EventsNodeInput {
  @Field(() => String, { nullable: true, description: 'Always EventsNode (the default).' })
  kind?: string | null;
  @Field(() => String, { nullable: true })
  event?: string | null;
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => String, { nullable: true })
  custom_name?: string | null;
  @Field(() => String, { nullable: true, description: 'total (default), dau, weekly_active, sum, p90, avg_count_per_actor, hogql, ...' })
  math?: string | null;
  @Field(() => String, { nullable: true })
  math_property?: string | null;
  @Field(() => String, { nullable: true })
  math_property_type?: string | null;
  @Field(() => String, { nullable: true })
  math_hogql?: string | null;
  @Field(() => Int, { nullable: true })
  math_group_type_index?: number | null;
  @Field(() => [PropertyFilterInput], { nullable: true })
  properties?: PropertyFilterInput[] | null;
}

@InputType('BreakdownInput')
export class BreakdownInput {
  @Field(() => String, { nullable: true, description: 'event (default) | person | hogql | event_metadata' })
  type?: string | null;
  @Field(() => String)
  property!: string;
  @Field(() => Boolean, { nullable: true })
  normalize_url?: boolean | null;
  @Field(() => Int, { nullable: true })
  histogram_bin_count?: number | null;
}

@InputType('BreakdownFilterInput')
export class BreakdownFilterInput {
  @Field(() => String, { nullable: true, description: 'event (default) | person | hogql | event_metadata' })
  breakdown_type?: string | null;
  @Field(() => String, { nullable: true, description: 'Property key or ProductQL expression.' })
  breakdown?: string | null;
  @Field(() => Int, { nullable: true, description: 'Default 25; the rest is summed into $$_posthog_breakdown_other_$$.' })
  breakdown_limit?: number | null;
  @Field(() => Boolean, { nullable: true })
  breakdown_normalize_url?: boolean | null;
  @Field(() => Int, { nullable: true })
  breakdown_histogram_bin_count?: number | null;
  @Field(() => Boolean, { nullable: true })
  breakdown_hide_other_aggregation?: boolean | null;
  @Field(() => [BreakdownInput], { nullable: true, description: 'Several breakdowns (max 3).' })
  breakdowns?: BreakdownInput[] | null;
}

@InputType('CompareFilterInput')
export class CompareFilterInput {
  @Field(() => Boolean, { nullable: true })
  compare?: boolean | null;
  @Field(() => String, { nullable: true, description: 'Relative offset of the previous period, e.g. -1w. Default: the preceding period.' })
  compare_to?: string | null;
}

@InputType('FormulaNodeInput')
export class FormulaNodeInput {
  @Field(() => String)
  formula!: string;
  @Field(() => String, { nullable: true })
  custom_name?: string | null;
}

@InputType('TrendsFilterInput')
export class TrendsFilterInput {
  @Field(() => String, { nullable: true, description: 'ActionsLineGraph (default), ActionsLineGraphCumulative, BoldNumber, ActionsPie, ...' })
  display?: string | null;
  @Field(() => String, { nullable: true })
  formula?: string | null;
  @Field(() => [String], { nullable: true })
  formulas?: string[] | null;
  @Field(() => [FormulaNodeInput], { nullable: true })
  formulaNodes?: FormulaNodeInput[] | null;
  @Field(() => Int, { nullable: true, description: 'Moving average over this many intervals (floored). Default 1.' })
  smoothingIntervals?: number | null;
  @Field(() => Int, { nullable: true })
  breakdown_histogram_bin_count?: number | null;
}

/** The filter fields every insight kind's input has (PostHog's InsightsQueryBase). */
@InputType('InsightFiltersInput')
export class InsightFiltersInput {
  @Field(() => InsightDateRangeInput, { nullable: true })
  dateRange?: InsightDateRangeInput | null;
  @Field(() => [PropertyFilterInput], { nullable: true, description: 'Global filters (ANDed).' })
  properties?: PropertyFilterInput[] | null;
  @Field(() => PropertyGroupFilterInput, { nullable: true, description: 'Global filters as an AND/OR group (instead of properties).' })
  propertyGroup?: PropertyGroupFilterInput | null;
  @Field(() => Boolean, { nullable: true, description: "Apply the project's test-account filters. Default false." })
  filterTestAccounts?: boolean | null;
}

/** The filters plus an event series and an interval: trends, stickiness and lifecycle. */
@InputType('InsightBaseInput')
export class InsightBaseInput extends InsightFiltersInput {
  @Field(() => [EventsNodeInput])
  series!: EventsNodeInput[];
  @Field(() => String, { nullable: true, description: 'minute | hour | day (default) | week | month' })
  interval?: string | null;
}

@InputType('TrendsQueryInput')
export class TrendsQueryInput extends InsightBaseInput {
  @Field(() => Int, { nullable: true })
  aggregation_group_type_index?: number | null;
  @Field(() => BreakdownFilterInput, { nullable: true })
  breakdownFilter?: BreakdownFilterInput | null;
  @Field(() => CompareFilterInput, { nullable: true })
  compareFilter?: CompareFilterInput | null;
  @Field(() => TrendsFilterInput, { nullable: true })
  trendsFilter?: TrendsFilterInput | null;
}

@InputType('StickinessCriteriaInput')
export class StickinessCriteriaInput {
  @Field(() => String, { description: 'gte | lte | exact' })
  operator!: string;
  @Field(() => Int)
  value!: number;
}

@InputType('StickinessFilterInput')
export class StickinessFilterInput {
  @Field(() => String, { nullable: true, description: 'non_cumulative (default) | cumulative' })
  computedAs?: string | null;
  @Field(() => StickinessCriteriaInput, { nullable: true })
  stickinessCriteria?: StickinessCriteriaInput | null;
  @Field(() => String, { nullable: true })
  display?: string | null;
}

@InputType('StickinessQueryInput')
export class StickinessQueryInput extends InsightBaseInput {
  @Field(() => Int, { nullable: true, description: 'Buckets per interval. Default 1.' })
  intervalCount?: number | null;
  @Field(() => StickinessFilterInput, { nullable: true })
  stickinessFilter?: StickinessFilterInput | null;
  @Field(() => CompareFilterInput, { nullable: true })
  compareFilter?: CompareFilterInput | null;
}

@InputType('LifecycleFilterInput')
export class LifecycleFilterInput {
  @Field(() => [String], { nullable: true, description: 'Display only: the four series are always returned.' })
  toggledLifecycles?: string[] | null;
}

@InputType('LifecycleQueryInput')
export class LifecycleQueryInput extends InsightBaseInput {
  @Field(() => Int, { nullable: true })
  aggregation_group_type_index?: number | null;
  @Field(() => LifecycleFilterInput, { nullable: true })
  lifecycleFilter?: LifecycleFilterInput | null;
}

void Float;

/** A GraphQL property group → PostHog's `{type, values}` (nested groups first). */
function groupToNode(g: PropertyGroupFilterInput): Record<string, unknown> {
  return { type: g.type, values: [...(g.groups ?? []).map(groupToNode), ...(g.values ?? [])] };
}

/** Drops unset (undefined or null) fields recursively and turns class instances into plain objects. */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined && x !== null) o[k] = plain(x);
    return o;
  }
  return v;
}

/**
 * The query node of an insight input, as the REST face would send it to the same runner: `kind` set, unset
 * fields dropped, the property group merged into `properties`, then the kind's own defaults.
 */
export function inputToNode(
  kind: string,
  input: InsightFiltersInput,
  defaults: (node: Record<string, unknown>) => void = () => {},
): Record<string, unknown> {
  const { propertyGroup, ...rest } = input as InsightFiltersInput & Record<string, unknown>;
  const node = plain(rest) as Record<string, unknown>;
  node.kind = kind;
  if (propertyGroup) {
    const g = plain(groupToNode(propertyGroup));
    node.properties = node.properties ? { type: 'AND', values: [{ type: 'AND', values: node.properties }, g] } : g;
  }
  defaults(node);
  return node;
}

/** Series without a kind are EventsNodes (the only series kind Quarry answers). */
export const defaultSeriesKinds = (node: Record<string, unknown>): void => {
  node.series = ((node.series as Record<string, unknown>[]) ?? []).map((s) => ({ ...s, kind: s.kind ?? 'EventsNode' }));
};
