/**
 * Zod schemas of the insight query nodes, mirroring PostHog's `posthog/schema.py` (every object is strict, as
 * pydantic's `extra="forbid"`: an unknown key is a 400 naming it), and the defaults step each runner applies.
 *
 * Shared pieces (`insightBaseShape`, `seriesNodeSchema`, `propertiesSchema`, `breakdownFilterSchema`, ...) are exported
 * for every insight kind; kind schemas are `z.object({...insightBaseShape, ...}).strict()`.
 */
import { z } from 'zod';
import {
  checkRegexValue,
  LIMIT_CODES,
  limitIssue,
  MAX_BREAKDOWN_LIMIT,
  MAX_BREAKDOWN_LIST,
  MAX_BREAKDOWNS,
  MAX_SERIES,
  maxItems,
  maxLength,
} from '../../limits';
import { INTERVALS, type IntervalType } from './interval';
import { SEMVER_OPERATORS } from './semver';

// ---------------------------------------------------------------------------------------------- primitives

/** `minute | hour | day | week | month` (PostHog's `second` is not offered on insights). */
export const intervalSchema = z.enum(INTERVALS as unknown as [IntervalType, ...IntervalType[]]);

/** `{date_from?, date_to?, explicitDate?}`. */
export const dateRangeSchema = z
  .object({
    date_from: z.string().nullish(),
    date_to: z.string().nullish(),
    explicitDate: z.boolean().nullish(),
  })
  .strict();

/** Every PostHog PropertyOperator value. */
export const PROPERTY_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
  'is_date_exact',
  'is_date_before',
  'is_date_after',
  'between',
  'not_between',
  'min',
  'max',
  'in',
  'not_in',
  'is_cleaned_path_exact',
  'flag_evaluates_to',
  ...SEMVER_OPERATORS,
] as const;
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];
export const propertyOperatorSchema = z.enum(PROPERTY_OPERATORS);

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** A filter value: a scalar or a list of scalars. */
export const propertyValueSchema = z.union([scalar, z.array(scalar)]);

/** `regex`/`not_regex` values must be patterns RE2 compiles, within the length limit (400 before execution). */
const regexValues = (f: { operator?: string | null; value?: unknown }, ctx: z.RefinementCtx) => {
  if (f.operator === 'regex' || f.operator === 'not_regex') checkRegexValue(f.value, ctx, ['value']);
};

const keyed = <T extends string>(type: T, extra: z.ZodRawShape = {}) =>
  z
    .object({
      type: z.literal(type),
      key: z.string(),
      operator: propertyOperatorSchema.nullish(),
      value: propertyValueSchema.nullish(),
      label: z.string().nullish(),
      ...extra,
    })
    .strict()
    .superRefine(regexValues);

export const eventPropertyFilterSchema = keyed('event');
export const personPropertyFilterSchema = keyed('person');
export const eventMetadataPropertyFilterSchema = keyed('event_metadata');
export const sessionPropertyFilterSchema = keyed('session');
export const featurePropertyFilterSchema = keyed('feature');
export const elementPropertyFilterSchema = keyed('element');
export const groupPropertyFilterSchema = keyed('group', { group_type_index: z.number().int().min(0).max(4).nullish() });
export const cohortPropertyFilterSchema = z
  .object({
    type: z.literal('cohort'),
    key: z.literal('id'),
    value: z.union([z.number(), z.string()]),
    operator: propertyOperatorSchema.nullish(),
    cohort_name: z.string().nullish(),
    label: z.string().nullish(),
  })
  .strict();
export const hogqlPropertyFilterSchema = z
  .object({ type: z.literal('hogql'), key: z.string(), value: propertyValueSchema.nullish(), label: z.string().nullish() })
  .strict();

const PROPERTY_FILTER_SCHEMAS = [
  eventPropertyFilterSchema,
  personPropertyFilterSchema,
  eventMetadataPropertyFilterSchema,
  sessionPropertyFilterSchema,
  featurePropertyFilterSchema,
  elementPropertyFilterSchema,
  groupPropertyFilterSchema,
  cohortPropertyFilterSchema,
  hogqlPropertyFilterSchema,
] as const;

/** A filter `type` Quarry does not filter on (PostHog's data_warehouse*, recording, log_entry, ...) names itself. */
const unsupportedFilterType = (iss: { code?: string; note?: string; input?: unknown }): string | undefined => {
  if (iss.code !== 'invalid_union' || iss.note !== 'No matching discriminator') return undefined;
  const type = iss.input && typeof iss.input === 'object' ? (iss.input as { type?: unknown }).type : undefined;
  const known = PROPERTY_FILTER_SCHEMAS.map((x) => x.shape.type.value).join(', ');
  return `Property filters of type ${JSON.stringify(type)} are not supported (${known}).`;
};

/**
 * Any single property filter. One without `type` is an event property filter: PostHog's EventPropertyFilter has
 * `type: "event"` as its default, so `{"key": "$browser", "value": "Chrome"}` is accepted as one.
 */
export const anyPropertyFilterSchema = z.preprocess(
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) && !('type' in v) ? { ...v, type: 'event' } : v),
  z.discriminatedUnion('type', [...PROPERTY_FILTER_SCHEMAS], { error: unsupportedFilterType }),
);
export type AnyPropertyFilter = z.infer<typeof anyPropertyFilterSchema>;

/**
 * `schemaFor(v)` chosen by the value's shape, with that schema's issues: a union of list / group / filter would only
 * say "Invalid input" about `properties` when one filter deep inside is wrong.
 */
const byShape = <T>(schemaFor: (v: unknown) => z.ZodType<T>) =>
  z.unknown().transform((v, ctx): T => {
    const r = schemaFor(v).safeParse(v, { reportInput: true });
    if (r.success) return r.data;
    // pushed as they are: addIssue would replace an undefined `input`, the mark of a missing field (validation.ts)
    ctx.issues.push(...(r.error.issues as never[]));
    return z.NEVER;
  });
const isGroupShape = (v: unknown): boolean =>
  !!v && typeof v === 'object' && !Array.isArray(v) && ((v as { type?: unknown }).type === 'AND' || (v as { type?: unknown }).type === 'OR');

/** `{type: 'AND'|'OR', values: [filter | group, ...]}` (nested groups allowed). */
export interface PropertyGroupFilter {
  type: 'AND' | 'OR';
  values: (AnyPropertyFilter | PropertyGroupFilter)[];
}
export const propertyGroupFilterSchema: z.ZodType<PropertyGroupFilter> = z.lazy(() =>
  z
    .object({
      type: z.enum(['AND', 'OR']),
      values: z.array(filterOrGroupSchema),
    })
    .strict(),
);
/** A property filter or a property group, told apart by shape. */
const filterOrGroupSchema = byShape<AnyPropertyFilter | PropertyGroupFilter>((v) => (isGroupShape(v) ? propertyGroupFilterSchema : anyPropertyFilterSchema));

/** Insight/series `properties`: a list (ANDed) or a property group. */
export const propertiesSchema = byShape<AnyPropertyFilter[] | PropertyGroupFilter>((v) =>
  Array.isArray(v) ? z.array(anyPropertyFilterSchema) : propertyGroupFilterSchema,
).nullish();
export type PropertiesInput = z.infer<typeof propertiesSchema>;

/**
 * PostHog's EventsQuery.fixedProperties: a list whose items are property filters or property groups
 * (`list[PropertyGroupFilter | PropertyGroupFilterValue | AnyPropertyFilter]`), ANDed; or a group, as `properties`.
 */
export const filtersAndGroupsSchema = byShape<(AnyPropertyFilter | PropertyGroupFilter)[] | PropertyGroupFilter>((v) =>
  Array.isArray(v) ? z.array(filterOrGroupSchema) : propertyGroupFilterSchema,
).nullish();

// ---------------------------------------------------------------------------------------------- math and series

/** PostHog's BaseMathType values. */
export const BASE_MATH = ['total', 'dau', 'weekly_active', 'monthly_active', 'unique_session', 'first_time_for_user', 'first_matching_event_for_user'] as const;
/** Math over `math_property` (PropertyMathType). */
export const PROPERTY_MATH = ['avg', 'sum', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'] as const;
/** Events per actor per bucket, then aggregated over actors (CountPerActorMathType). */
export const COUNT_PER_ACTOR_MATH = [
  'avg_count_per_actor',
  'min_count_per_actor',
  'max_count_per_actor',
  'median_count_per_actor',
  'p75_count_per_actor',
  'p90_count_per_actor',
  'p95_count_per_actor',
  'p99_count_per_actor',
] as const;
/** Every math value a series may carry. */
export const MATH_TYPES = [...BASE_MATH, ...PROPERTY_MATH, ...COUNT_PER_ACTOR_MATH, 'unique_group', 'hogql', 'first_time_for_user_with_filters'] as const;
export type MathType = (typeof MATH_TYPES)[number];
export const mathSchema = z.enum(MATH_TYPES);

const entityShape = {
  name: z.string().nullish(),
  custom_name: z.string().nullish(),
  math: mathSchema.nullish(),
  math_property: z.string().nullish(),
  math_property_type: z.string().nullish(),
  math_property_revenue_currency: z.object({ property: z.string().nullish(), static: z.string().nullish() }).strict().nullish(),
  math_hogql: z.string().nullish(),
  math_group_type_index: z.number().int().min(0).max(4).nullish(),
  math_multiplier: z.number().nullish(),
  properties: z.array(anyPropertyFilterSchema).nullish(),
  fixedProperties: z.array(anyPropertyFilterSchema).nullish(),
  optionalInFunnel: z.boolean().nullish(),
  version: z.number().nullish(),
  response: z.record(z.string(), z.unknown()).nullish(),
};

/** `EventsNode`: `event: null` (or missing) means all events. */
export const eventsNodeSchema = z
  .object({
    kind: z.literal('EventsNode'),
    event: z.string().nullish(),
    limit: z.number().int().nullish(),
    orderBy: z.array(z.string()).nullish(),
    ...entityShape,
  })
  .strict();
export type EventsNode = z.infer<typeof eventsNodeSchema>;

/** `ActionsNode` (accepted by the schema; runners answer a clear 400: Quarry has no actions yet). */
export const actionsNodeSchema = z.object({ kind: z.literal('ActionsNode'), id: z.number().int(), ...entityShape }).strict();

/** Data warehouse series (accepted by the schema; runners answer a clear 400). */
export const dataWarehouseNodeSchema = z
  .object({
    kind: z.enum(['DataWarehouseNode', 'FunnelsDataWarehouseNode', 'LifecycleDataWarehouseNode']),
    id: z.string(),
    table_name: z.string(),
    timestamp_field: z.string(),
    distinct_id_field: z.string().nullish(),
    id_field: z.string().nullish(),
    aggregation_target_field: z.string().nullish(),
    created_at_field: z.string().nullish(),
    dw_source_type: z.string().nullish(),
    ...entityShape,
  })
  .strict();

/** Any series node of trends/stickiness/lifecycle. */
export const seriesNodeSchema = z.discriminatedUnion('kind', [eventsNodeSchema, actionsNodeSchema, dataWarehouseNodeSchema]);
export type SeriesNode = z.infer<typeof seriesNodeSchema>;

/**
 * `GroupNode` (trends only here): one series over the events of several event/action nodes, each with its own
 * properties; the group's math, name and properties apply to all of them. Operator `OR` (the one PostHog implements).
 */
export const groupNodeSchema = z
  .object({
    kind: z.literal('GroupNode'),
    operator: z.enum(['AND', 'OR']),
    nodes: z.array(z.discriminatedUnion('kind', [eventsNodeSchema, actionsNodeSchema])).min(1, 'A GroupNode needs at least one node.').max(MAX_SERIES),
    ...entityShape,
  })
  .strict();
export type GroupNode = z.infer<typeof groupNodeSchema>;

/** A series of a trends query: any series node, or a GroupNode. */
export type TrendsSeriesNode = SeriesNode | GroupNode;

/** `series` of trends/stickiness/lifecycle: 1 to {@link MAX_SERIES} nodes (`too_many_series` past it). */
export const seriesListSchema = z
  .array(seriesNodeSchema)
  .min(1, 'At least one series is required.')
  .superRefine(maxItems(MAX_SERIES, LIMIT_CODES.tooManySeries, 'series'));

/**
 * `series` of trends: as {@link seriesListSchema}, GroupNodes allowed, and possibly empty: PostHog's TrendsQuery
 * has no lower bound and its runner answers an empty series list with no results (`if len(queries) == 0`).
 */
export const trendsSeriesListSchema = z
  .array(z.discriminatedUnion('kind', [eventsNodeSchema, actionsNodeSchema, dataWarehouseNodeSchema, groupNodeSchema]))
  .superRefine(maxItems(MAX_SERIES, LIMIT_CODES.tooManySeries, 'series'));

// ---------------------------------------------------------------------------------------------- breakdown, compare

/** Every breakdown_type value PostHog accepts (Quarry answers event, person, hogql, event_metadata). */
export const BREAKDOWN_TYPES = [
  'event',
  'person',
  'group',
  'session',
  'cohort',
  'hogql',
  'event_metadata',
  'data_warehouse',
  'data_warehouse_person_property',
  'revenue_analytics',
] as const;
export const breakdownTypeSchema = z.enum(BREAKDOWN_TYPES);

/** One entry of `breakdowns` (multi-breakdown). */
export const breakdownSchema = z
  .object({
    type: breakdownTypeSchema.nullish(),
    property: z.union([z.string(), z.number()]),
    normalize_url: z.boolean().nullish(),
    group_type_index: z.number().int().nullish(),
    histogram_bin_count: z.number().int().positive().nullish(),
  })
  .strict();

/** `breakdownFilter`. */
export const breakdownFilterSchema = z
  .object({
    breakdown_type: breakdownTypeSchema.nullish(),
    breakdown: z
      .union([
        z.string(),
        z.number(),
        z.array(z.union([z.string(), z.number()])).superRefine(maxItems(MAX_BREAKDOWN_LIST, LIMIT_CODES.tooManyBreakdowns, 'breakdown values')),
      ])
      .nullish(),
    breakdown_limit: z
      .number()
      .int()
      .nullish()
      .superRefine((v, ctx) => {
        if (v !== null && v !== undefined && (v < 1 || v > MAX_BREAKDOWN_LIMIT))
          limitIssue(ctx, LIMIT_CODES.breakdownLimit, `breakdown_limit must be between 1 and ${MAX_BREAKDOWN_LIMIT}, got ${v}.`);
      }),
    breakdown_normalize_url: z.boolean().nullish(),
    breakdown_group_type_index: z.number().int().nullish(),
    breakdown_histogram_bin_count: z.number().int().positive().nullish(),
    breakdown_hide_other_aggregation: z.boolean().nullish(),
    // PostHog's BreakdownFilter.breakdowns is `max_length=3`
    breakdowns: z.array(breakdownSchema).superRefine(maxLength(MAX_BREAKDOWNS, LIMIT_CODES.tooManyBreakdowns)).nullish(),
  })
  .strict();
export type BreakdownFilter = z.infer<typeof breakdownFilterSchema>;

/** `compareFilter`. */
export const compareFilterSchema = z.object({ compare: z.boolean().nullish(), compare_to: z.string().nullish() }).strict();
export type CompareFilter = z.infer<typeof compareFilterSchema>;

// ---------------------------------------------------------------------------------------------- base

/**
 * Fields of every data node PostHog sends besides its own (DataNode: client modifiers, tags, the schema version, a
 * cached response): accepted and not acted on. Spread into a non-insight kind's `z.object({...}).strict()`.
 */
export const dataNodeShape = {
  modifiers: z.record(z.string(), z.unknown()).nullish(),
  tags: z.record(z.string(), z.unknown()).nullish(),
  version: z.number().nullish(),
  response: z.unknown().optional(),
};

/** Fields every insight node has (`InsightsQueryBase`). Spread into a kind's `z.object({...}).strict()`. */
export const insightBaseShape = {
  dateRange: dateRangeSchema.nullish(),
  filterTestAccounts: z.boolean().nullish(),
  properties: propertiesSchema,
  aggregation_group_type_index: z.number().int().min(0).max(4).nullish(),
  samplingFactor: z.number().positive().nullish(),
  dataColorTheme: z.number().nullish(),
  modifiers: z.record(z.string(), z.unknown()).nullish(),
  tags: z.object({ scene: z.string().nullish(), productKey: z.string().nullish(), name: z.string().nullish() }).strict().nullish(),
  version: z.number().nullish(),
  response: z.record(z.string(), z.unknown()).nullish(),
};

// ---------------------------------------------------------------------------------------------- trends

/** Displays answering one `aggregated_value` per series (interval forced to day). */
export const TOTAL_VALUE_DISPLAYS = ['BoldNumber', 'ActionsPie', 'ActionsBarValue', 'ActionsTable', 'WorldMap', 'CalendarHeatmap', 'Progress'] as const;
/** Every ChartDisplayType value. */
export const CHART_DISPLAYS = [
  'ActionsLineGraph',
  'ActionsBar',
  'ActionsUnstackedBar',
  'ActionsStackedBar',
  'ActionsAreaGraph',
  'ActionsLineGraphCumulative',
  ...TOTAL_VALUE_DISPLAYS,
] as const;
export const chartDisplaySchema = z.enum(CHART_DISPLAYS);
export type ChartDisplay = (typeof CHART_DISPLAYS)[number];

/** True for displays that answer one `aggregated_value` per series instead of a time series. */
export const isTotalValueDisplay = (d: string | null | undefined): boolean => !!d && (TOTAL_VALUE_DISPLAYS as readonly string[]).includes(d);

const display = z.record(z.string(), z.unknown());

/** `trendsFilter`: display, formulas, smoothing and histogram bins change results; the rest is display-only. */
export const trendsFilterSchema = z
  .object({
    display: chartDisplaySchema.nullish(),
    formula: z.string().nullish(),
    formulas: z.array(z.string()).nullish(),
    formulaNodes: z.array(z.object({ formula: z.string(), custom_name: z.string().nullish() }).strict()).nullish(),
    smoothingIntervals: z.number().int().min(1).nullish(),
    breakdown_histogram_bin_count: z.number().int().positive().nullish(),
    showLegend: z.boolean().nullish(),
    showValuesOnSeries: z.boolean().nullish(),
    showLabelsOnSeries: z.boolean().nullish(),
    showPercentStackView: z.boolean().nullish(),
    showMultipleYAxes: z.boolean().nullish(),
    showAlertThresholdLines: z.boolean().nullish(),
    showConfidenceIntervals: z.boolean().nullish(),
    confidenceLevel: z.number().nullish(),
    showTrendLines: z.boolean().nullish(),
    showMovingAverage: z.boolean().nullish(),
    movingAverageIntervals: z.number().nullish(),
    aggregationAxisFormat: z.string().nullish(),
    aggregationAxisPrefix: z.string().nullish(),
    aggregationAxisPostfix: z.string().nullish(),
    decimalPlaces: z.number().nullish(),
    minDecimalPlaces: z.number().nullish(),
    yAxisScaleType: z.string().nullish(),
    hiddenLegendIndexes: z.array(z.number()).nullish(),
    resultCustomizationBy: z.string().nullish(),
    resultCustomizations: display.nullish(),
    goalLines: z.array(display).nullish(),
    detailedResultsAggregationType: z.string().nullish(),
  })
  .strict();
export type TrendsFilter = z.infer<typeof trendsFilterSchema>;

/** `TrendsQuery` node (strict). Apply {@link trendsDefaults} after validation. */
export const trendsQuerySchema = z
  .object({
    kind: z.literal('TrendsQuery'),
    ...insightBaseShape,
    series: trendsSeriesListSchema,
    interval: intervalSchema.nullish(),
    breakdownFilter: breakdownFilterSchema.nullish(),
    compareFilter: compareFilterSchema.nullish(),
    trendsFilter: trendsFilterSchema.nullish(),
    conversionGoal: z.unknown().optional(),
  })
  .strict();
export type TrendsQuery = z.infer<typeof trendsQuerySchema>;

// ---------------------------------------------------------------------------------------------- stickiness

/** `stickinessFilter`: `computedAs` (default non_cumulative), `stickinessCriteria` {operator gte|lte|exact, value}; the rest is display-only. */
export const stickinessFilterSchema = z
  .object({
    display: chartDisplaySchema.nullish(),
    computedAs: z.enum(['non_cumulative', 'cumulative']).nullish(),
    stickinessCriteria: z.object({ operator: z.enum(['gte', 'lte', 'exact']), value: z.number().int() }).strict().nullish(),
    showLegend: z.boolean().nullish(),
    showValuesOnSeries: z.boolean().nullish(),
    showMultipleYAxes: z.boolean().nullish(),
    hiddenLegendIndexes: z.array(z.number()).nullish(),
    resultCustomizationBy: z.string().nullish(),
    resultCustomizations: display.nullish(),
  })
  .strict();

const { aggregation_group_type_index: _noGroups, ...stickinessBase } = insightBaseShape;
void _noGroups;

/** `StickinessQuery` node (strict; no aggregation_group_type_index, as in PostHog). Defaults: interval day, intervalCount 1, non_cumulative. */
export const stickinessQuerySchema = z
  .object({
    kind: z.literal('StickinessQuery'),
    ...stickinessBase,
    series: seriesListSchema,
    interval: intervalSchema.nullish(),
    intervalCount: z.number().int().positive().nullish(),
    stickinessFilter: stickinessFilterSchema.nullish(),
    compareFilter: compareFilterSchema.nullish(),
  })
  .strict();
export type StickinessQuery = z.infer<typeof stickinessQuerySchema>;

// ---------------------------------------------------------------------------------------------- lifecycle

/** Lifecycle statuses in result order. */
export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

export const lifecycleFilterSchema = z
  .object({
    toggledLifecycles: z.array(z.enum(LIFECYCLE_STATUSES)).nullish(),
    showValuesOnSeries: z.boolean().nullish(),
    showLegend: z.boolean().nullish(),
    stacked: z.boolean().nullish(),
  })
  .strict();

/** `LifecycleQuery` node (strict). Defaults: interval day; lifecycleFilter is display-only. */
export const lifecycleQuerySchema = z
  .object({
    kind: z.literal('LifecycleQuery'),
    ...insightBaseShape,
    series: seriesListSchema,
    interval: intervalSchema.nullish(),
    lifecycleFilter: lifecycleFilterSchema.nullish(),
    customAggregationTarget: z.boolean().nullish(),
  })
  .strict();
export type LifecycleQuery = z.infer<typeof lifecycleQuerySchema>;

// ---------------------------------------------------------------------------------------------- defaults

/** Trends after the defaults step: interval (day; forced to day for total-value displays), display, limits. */
export interface TrendsDefaults {
  interval: IntervalType;
  display: ChartDisplay;
  totalValue: boolean;
  breakdownLimit: number;
  smoothingIntervals: number;
  /** Formulas in order (formulaNodes > formulas > formula), with optional custom names. */
  formulas: { formula: string; custom_name?: string | null }[];
}

/** PostHog's default breakdown limit (250 for WorldMap). */
export const DEFAULT_BREAKDOWN_LIMIT = 25;

/** The defaults step for TrendsQuery. */
export function trendsDefaults(q: TrendsQuery): TrendsDefaults {
  const displayValue = (q.trendsFilter?.display ?? 'ActionsLineGraph') as ChartDisplay;
  const totalValue = isTotalValueDisplay(displayValue);
  const tf = q.trendsFilter ?? {};
  const formulas = tf.formulaNodes?.length
    ? tf.formulaNodes.map((f) => ({ formula: f.formula, custom_name: f.custom_name }))
    : tf.formulas?.length
      ? tf.formulas.map((f) => ({ formula: f }))
      : tf.formula
        ? [{ formula: tf.formula }]
        : [];
  return {
    interval: totalValue ? 'day' : (q.interval ?? 'day'),
    display: displayValue,
    totalValue,
    breakdownLimit: q.breakdownFilter?.breakdown_limit ?? (displayValue === 'WorldMap' ? 250 : DEFAULT_BREAKDOWN_LIMIT),
    smoothingIntervals: tf.smoothingIntervals ?? 1,
    formulas: formulas.filter((f) => f.formula.trim() !== ''),
  };
}
