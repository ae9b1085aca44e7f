/**
 * Legacy insight `filters` → query nodes: a port of PostHog's
 * `posthog/hogql_queries/legacy_compatibility/filter_to_query.py` (and of the value parsing its legacy `Filter` class
 * did for query-string input). Saved insights that only have `filters`, and the legacy `/insights/trend/` and
 * `/insights/funnel/` routes, run the query this produces.
 *
 * The output follows `filter_to_query(...)` with the unset (None) fields left out, as the node JSON Quarry stores and
 * returns; only fields Quarry's query schemas accept are produced.
 */
import { UserError, validationError } from '../errors';
import { CHART_DISPLAYS } from '../queries/insights/schema';
import { validateInsightQuery, type NodeValidator } from './insight-query';

type Dict = Record<string, unknown>;

/** PostHog's `insight_to_query_type`: legacy `insight` values → the query kind. */
export const LEGACY_INSIGHT_KINDS = {
  TRENDS: 'TrendsQuery',
  FUNNELS: 'FunnelsQuery',
  RETENTION: 'RetentionQuery',
  PATHS: 'PathsQuery',
  LIFECYCLE: 'LifecycleQuery',
  STICKINESS: 'StickinessQuery',
} as const;
export type LegacyInsightType = keyof typeof LEGACY_INSIGHT_KINDS;

// ------------------------------------------------------------------------------------------------ value parsing

/** Keys whose value is JSON: a query-string parameter carries it as JSON text (PostHog's Filter json.loads them). */
const JSON_KEYS = new Set([
  'events',
  'actions',
  'exclusions',
  'properties',
  'breakdowns',
  'hidden_legend_keys',
  'local_path_cleaning_filters',
  'include_event_types',
  'exclude_events',
  'path_groupings',
  'toggledLifecycles',
  'target_entity',
  'returning_entity',
  'funnel_filter',
]);
const INT_KEYS = new Set([
  'breakdown_limit',
  'breakdown_group_type_index',
  'breakdown_histogram_bin_count',
  'aggregation_group_type_index',
  'smoothing_intervals',
  'decimal_places',
  'funnel_window_interval',
  'funnel_window_days',
  'funnel_from_step',
  'funnel_to_step',
  'bin_count',
  'breakdown_attribution_value',
  'total_intervals',
  'step_limit',
  'edge_limit',
  'min_edge_weight',
  'max_edge_weight',
  'funnel_step',
]);
const FLOAT_KEYS = new Set(['sampling_factor']);
const BOOL_KEYS = new Set([
  'filter_test_accounts',
  'compare',
  'breakdown_normalize_url',
  'breakdown_hide_other_aggregation',
  'show_legend',
  'show_values_on_series',
  'show_percent_stack_view',
  'show_labels_on_series',
  'show_multiple_y_axes',
  'path_replacements',
  'cumulative',
  'show_mean',
]);
const TRUE_TEXT = new Set(['true', 't', 'yes', 'y', 'on', '1']);
const FALSE_TEXT = new Set(['false', 'f', 'no', 'n', 'off', '0']);

/** A boolean as pydantic's lax mode reads it; anything else is left for the schema to reject. */
function laxBool(v: unknown): unknown {
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (TRUE_TEXT.has(s)) return true;
    if (FALSE_TEXT.has(s)) return false;
  }
  if (v === 1) return true;
  if (v === 0) return false;
  return v;
}

/**
 * PostHog's `str_to_bool` (posthog/utils.py): true for any casing of y, yes, t, true, on or 1; anything else (`maybe`
 * too) is false — the reference's "truthy"/"falsy" of `saved` and `basic`, and of a legacy `explicit_date`. A typed
 * boolean (GraphQL) is taken as given; undefined when absent.
 */
export function strToBool(v: unknown): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  return ['y', 'yes', 't', 'true', 'on', '1'].includes(String(v).toLowerCase());
}

/**
 * Typed values from text: JSON for lists and objects, numbers and booleans for their keys (PostHog's Filter for
 * query-string parameters; pydantic's lax coercion for stored filters). Other values are kept as given.
 */
export function parseLegacyValues(raw: Dict): Dict {
  const out: Dict = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string') {
      out[k] = BOOL_KEYS.has(k) ? laxBool(v) : v;
      continue;
    }
    if (JSON_KEYS.has(k)) {
      if (v.trim() === '') continue;
      try {
        out[k] = JSON.parse(v);
      } catch {
        throw validationError(`${k} must be JSON.`, `filters__${k}`);
      }
    } else if (k === 'breakdown') {
      // Filter.breakdown: json.loads when it parses (a list of cohorts or properties, a cohort id), else the text
      out[k] = parseBreakdownText(v);
    } else if (INT_KEYS.has(k)) out[k] = /^\s*-?\d+\s*$/.test(v) ? Number(v) : v === '' ? undefined : v;
    // PostHog's `_sampling_factor` drops a text that is not a number
    else if (FLOAT_KEYS.has(k)) out[k] = v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined;
    else if (BOOL_KEYS.has(k)) out[k] = laxBool(v);
    else out[k] = v;
  }
  return out;
}

function parseBreakdownText(v: string): unknown {
  const t = v.trim();
  if (!t.startsWith('[') && !/^-?\d+$/.test(t)) return v;
  try {
    const parsed = JSON.parse(t) as unknown;
    return Array.isArray(parsed) || typeof parsed === 'number' ? parsed : v;
  } catch {
    return v;
  }
}

// ------------------------------------------------------------------------------------------------ helpers

const isDict = (v: unknown): v is Dict => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The object without its null/undefined fields (the unset fields of a pydantic model). */
function compact(o: Dict): Dict {
  const out: Dict = {};
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** Adds `{key: value}` when the compacted value is not empty (PostHog: `model_dump(exclude_defaults=True)` non-empty). */
function nonEmpty(key: string, value: Dict): Dict {
  const c = compact(value);
  return Object.keys(c).length === 0 ? {} : { [key]: c };
}

const bad = (detail: string, key: string): UserError => validationError(detail, `filters__${key}`);

// ------------------------------------------------------------------------------------------------ properties

/** `clean_property`'s rule: cohort and hogql filters have no operator. */
const hasOperator = (p: Dict): boolean => p.type !== 'cohort' && p.type !== 'hogql';

/** PostHog's `clean_property`: typo fixes, cohort forms, the default operator, and no None values. */
export function cleanProperty(property: unknown, key = 'properties'): Dict {
  if (!isDict(property)) throw bad('Each property filter must be an object.', key);
  const p: Dict = { ...property };
  if (p.type === 'events') p.type = 'event';
  if (p.values !== undefined && p.values !== null && (p.value === undefined || p.value === null)) {
    p.value = p.values;
    delete p.values;
  }
  if (p.type === 'precalculated-cohort' || p.type === 'static-cohort') p.type = 'cohort';
  if (p.type === 'cohort' && p.key !== 'id') p.key = 'id';
  if (hasOperator(p) && (p.operator === undefined || p.operator === null)) p.operator = 'exact';
  if (!hasOperator(p) && p.operator !== undefined && p.operator !== null) delete p.operator;
  if (Array.isArray(p.value)) p.value = p.value.filter((x) => x !== null && x !== undefined);
  // PostHog's property filters default to the event type
  if (p.type === undefined || p.type === null) p.type = 'event';
  return compact(p);
}

/** `{"utm_medium__icontains": "email"}`: the oldest property form. */
const isOldStyle = (p: unknown): p is Dict => isDict(p) && Object.keys(p).length === 1 && p.type !== 'AND' && p.type !== 'OR';

function transformOldStyle(p: Dict): Dict[] {
  const key = Object.keys(p)[0];
  const [name, operator] = key.split('__');
  return [{ key: name, value: p[key], operator: operator ?? 'exact', type: 'event' }];
}

const isGroupType = (t: unknown): boolean => t === 'AND' || t === 'OR';

function cleanGroupValues(values: unknown, key: string): Dict[] {
  if (!Array.isArray(values)) throw bad('A property group must have a list of values.', key);
  // empty entries are dropped (PostHog: `if property`); anything else must be a filter or a group
  return values.filter((v) => !(isDict(v) && Object.keys(v).length === 0) && v !== null).map((v) => (isDict(v) ? cleanGroupValue(v, key) : cleanProperty(v, key)));
}

function cleanGroupValue(p: Dict, key: string): Dict {
  if (isGroupType(p.type)) return { type: p.type, values: cleanGroupValues(p.values, key) };
  return cleanProperty(p, key);
}

/** PostHog's `clean_global_properties`: any legacy form → a property group of groups (`{type: AND, values: [...]}`). */
export function cleanGlobalProperties(properties: unknown): Dict | undefined {
  if (properties === null || properties === undefined) return undefined;
  if ((Array.isArray(properties) || isDict(properties)) && Object.keys(properties).length === 0) return undefined;
  if (isOldStyle(properties)) return { type: 'AND', values: [{ type: 'AND', values: cleanGroupValues(transformOldStyle(properties), 'properties') }] };
  if (Array.isArray(properties)) return { type: 'AND', values: [{ type: 'AND', values: cleanGroupValues(properties, 'properties') }] };
  if (isDict(properties) && isGroupType(properties.type)) {
    const values = Array.isArray(properties.values) ? properties.values : [];
    const flat = !values.some((v) => isDict(v) && isGroupType(v.type));
    if (flat) return { type: 'AND', values: [cleanGroupValue(properties, 'properties')] };
    return cleanGroupValue(properties, 'properties');
  }
  throw bad('properties must be a list of property filters or a property group.', 'properties');
}

/** PostHog's `clean_entity_properties`: a series' properties as a flat list (None when empty). */
export function cleanEntityProperties(properties: unknown, key: string): Dict[] | undefined {
  if (properties === null || properties === undefined) return undefined;
  if ((Array.isArray(properties) || isDict(properties)) && Object.keys(properties).length === 0) return undefined;
  if (isOldStyle(properties)) return transformOldStyle(properties).map((p) => cleanProperty(p, key));
  if (Array.isArray(properties)) return properties.map((p) => cleanProperty(p, key));
  if (isDict(properties) && isGroupType(properties.type) && Array.isArray(properties.values) && !properties.values.some((v) => isDict(v) && isGroupType(v.type))) {
    return properties.values.map((p) => cleanProperty(p, key));
  }
  throw bad('Unexpected format of entity properties.', key);
}

// ------------------------------------------------------------------------------------------------ series

/** How much of an entity's math a kind keeps (PostHog's MathAvailability). */
type MathAvailability = 'unavailable' | 'all' | 'actors_only' | 'funnels_only';

/** Stickiness counts actors: other math becomes `dau` (PostHog's `actors_only_math_types`). */
const ACTORS_ONLY_MATH = ['dau', 'weekly_active', 'monthly_active', 'unique_group', 'hogql'];
/**
 * Funnel steps only take the first-time maths; `total` (the legacy default every old funnel step carries) is the
 * funnel's own default and is left out, as PostHog's expected funnel series show it.
 */
const FUNNEL_MATH = ['first_time_for_user', 'first_time_for_user_with_filters'];

interface LegacyEntity {
  type: 'events' | 'actions';
  data: Dict;
  order: number | null;
}

/** `_entities`: actions then events, each list JSON text or a list; string items (broken templates) are dropped. */
function entities(f: Dict): LegacyEntity[] {
  const out: LegacyEntity[] = [];
  for (const type of ['actions', 'events'] as const) {
    let list = f[type];
    if (list === undefined || list === null) continue;
    if (typeof list === 'string') {
      try {
        list = JSON.parse(list);
      } catch {
        throw bad(`${type} must be a list.`, type);
      }
    }
    if (!Array.isArray(list)) throw bad(`${type} must be a list.`, type);
    list.forEach((e, i) => {
      if (typeof e === 'string') return;
      if (!isDict(e)) throw bad(`Each entry of ${type} must be an object.`, `${type}__${i}`);
      const order = typeof e.order === 'number' ? e.order : typeof e.order === 'string' && /^\d+$/.test(e.order) ? Number(e.order) : null;
      out.push({ type, data: e, order });
    });
  }
  // PostHog sorts by `order if order else -1` (a stable sort): order 0 and no order come first
  return out
    .map((e, i) => ({ e, i, k: e.order ? e.order : -1 }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((x) => x.e);
}

/** PostHog's `Entity`: a custom name is trimmed text, and blank is none (`-1` → `"-1"`, `"  "` → null). */
const cleanCustomName = (v: unknown): string | null | undefined => (v === undefined || v === null ? v : String(v).trim() || null);

const intOrRaw = (v: unknown): unknown => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v);

/**
 * An entity's `properties` as PostHog's Entity reads them (PropertyMixin): JSON text is loaded — old clients send each
 * series' filters as text (test_insight.py test_insight_funnels_hogql_local_filters) — and text that is no JSON is
 * "Properties are unparsable!".
 */
function entityPropertiesValue(v: unknown, key: string): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    throw bad('Properties are unparsable!', key);
  }
}

/** PostHog's `legacy_entity_to_node`. */
function entityToNode(entity: LegacyEntity, includeProperties: boolean, math: MathAvailability, key: string): Dict {
  const d = entity.data;
  const id = d.id ?? null;
  // LegacyEntity: an event without a name is named after its event ("All events" for none)
  const name = entity.type === 'events' && !d.name ? (id === null ? 'All events' : String(id)) : d.name;
  let shared: Dict = { name, custom_name: cleanCustomName(d.custom_name) };
  if (includeProperties) shared.properties = cleanEntityProperties(entityPropertiesValue(d.properties, `${key}__properties`), `${key}__properties`);
  const m = d.math ?? null;
  if (math === 'actors_only' && m !== null && !ACTORS_ONLY_MATH.includes(String(m))) shared.math = 'dau';
  else if (math === 'funnels_only') {
    if (m !== null && FUNNEL_MATH.includes(String(m))) shared.math = m;
  } else if (math !== 'unavailable') {
    shared = {
      ...shared,
      math: m,
      math_property: d.math_property,
      math_hogql: d.math_hogql,
      math_group_type_index: intOrRaw(d.math_group_type_index),
    };
  }
  if (entity.type === 'actions') return compact({ kind: 'ActionsNode', id: intOrRaw(id), ...shared });
  return compact({ kind: 'EventsNode', event: id, ...shared });
}

// ------------------------------------------------------------------------------------------------ the parts

/** `_insight_type`: `insight` (default TRENDS; the old SESSIONS insight is a trend). */
export function legacyInsightType(f: Dict): LegacyInsightType {
  const t = f.insight ?? 'TRENDS';
  if (t === 'SESSIONS') return 'TRENDS';
  if (typeof t !== 'string' || !(t in LEGACY_INSIGHT_KINDS)) {
    throw validationError(`Unsupported insight type: ${String(t)}. Expected one of ${Object.keys(LEGACY_INSIGHT_KINDS).join(', ')}.`, 'filters__insight');
  }
  return t as LegacyInsightType;
}

function dateRange(f: Dict): Dict {
  const explicit = f.explicit_date ? strToBool(f.explicit_date) : undefined;
  return nonEmpty('dateRange', { date_from: f.date_from, date_to: f.date_to, explicitDate: explicit });
}

function series(f: Dict, type: LegacyInsightType): Dict {
  if (type === 'RETENTION' || type === 'PATHS') return {};
  const math: MathAvailability = type === 'TRENDS' ? 'all' : type === 'STICKINESS' ? 'actors_only' : type === 'FUNNELS' ? 'funnels_only' : 'unavailable';
  const includeProperties = type !== 'LIFECYCLE';
  return { series: entities(f).map((e, i) => entityToNode(e, includeProperties, math, `${e.type}__${i}`)) };
}

function breakdownFilter(f: Dict, type: LegacyInsightType): Dict {
  if (type !== 'TRENDS' && type !== 'FUNNELS') return {};
  // broken breakdown filters of old insights
  if (f.breakdown_type === 'undefined' && typeof f.breakdown !== 'string') return {};
  const b: Dict = {
    breakdown_type: f.breakdown_type === 'events' ? 'event' : f.breakdown_type,
    breakdown: f.breakdown,
    breakdown_normalize_url: f.breakdown_normalize_url,
    breakdown_group_type_index: f.breakdown_group_type_index,
    breakdown_hide_other_aggregation: f.breakdown_hide_other_aggregation,
    breakdown_histogram_bin_count: type === 'TRENDS' ? f.breakdown_histogram_bin_count : undefined,
    breakdown_limit: f.breakdown_limit,
  };
  const breakdowns = f.breakdowns;
  if (breakdowns !== undefined && breakdowns !== null) {
    if (!Array.isArray(breakdowns)) throw bad('breakdowns must be a list.', 'breakdowns');
    if (type === 'TRENDS') {
      // trends take up to three breakdowns
      const list = breakdowns
        .filter((x): x is Dict => isDict(x) && 'property' in x)
        .map((x) =>
          compact({
            type: x.type ?? 'event',
            property: x.property,
            normalize_url: x.normalize_url,
            histogram_bin_count: x.histogram_bin_count,
            group_type_index: x.group_type_index,
          }),
        );
      if (list.length > 0) b.breakdowns = list.slice(0, 3);
    } else if (breakdowns.length === 1 && isDict(breakdowns[0])) {
      b.breakdown_type = breakdowns[0].type;
      b.breakdown = breakdowns[0].property;
    } else if (breakdowns.length > 1) {
      throw bad('Could not convert multi-breakdown property `breakdowns`: a funnel takes one breakdown.', 'breakdowns');
    }
  }
  if (b.breakdown !== undefined && b.breakdown !== null && (b.breakdown_type === undefined || b.breakdown_type === null)) b.breakdown_type = 'event';
  if (Array.isArray(b.breakdown)) b.breakdown = b.breakdown.filter((x) => x !== null && x !== undefined);
  return nonEmpty('breakdownFilter', b);
}

function compareFilter(f: Dict, type: LegacyInsightType): Dict {
  if (type !== 'TRENDS' && type !== 'STICKINESS') return {};
  return nonEmpty('compareFilter', { compare: f.compare, compare_to: f.compare_to });
}

/**
 * `hidden_legend_keys` `{"0": true, "Chrome": true}`: PostHog's `hidden_legend_keys_to_indexes` keeps the keys Python's
 * `int()` reads (`" 1"`, `"-1"`, `"1_0"`; not `"1.5"`), `hidden_legend_keys_to_breakdowns` the keys that are not all
 * digits (`str.isnumeric`), so `"-1"` and `"1.5"` are breakdown values.
 */
function hiddenLegend(keys: unknown, numeric: boolean): unknown[] | undefined {
  if (!isDict(keys)) return undefined;
  const hidden = Object.entries(keys).filter(([, v]) => v);
  const isInt = (k: string) => /^\s*[+-]?\d+(_\d+)*\s*$/.test(k);
  const out = numeric ? hidden.filter(([k]) => isInt(k)).map(([k]) => Number(k.replace(/_/g, ''))) : hidden.filter(([k]) => !/^\d+$/.test(k)).map(([k]) => k);
  return out.length ? out : undefined;
}

/** PostHog's `clean_display`: a display that is not a chart type is dropped. */
const cleanDisplay = (d: unknown): unknown => ((CHART_DISPLAYS as readonly unknown[]).includes(d) ? d : undefined);

/** PostHog's `exlusion_entity_to_node`: the step's event or action (no properties, no math) with its step range. */
function exclusionNode(e: unknown, i: number): Dict {
  if (!isDict(e)) throw bad('Each exclusion must be an object.', `exclusions__${i}`);
  const type = e.type === 'actions' ? 'actions' : 'events';
  const node = entityToNode({ type, data: e, order: null }, false, 'unavailable', `exclusions__${i}`);
  return compact({ ...node, funnelFromStep: e.funnel_from_step, funnelToStep: e.funnel_to_step });
}

/** `to_base_entity_dict`: a retention entity. */
function baseEntity(e: unknown, key: string): Dict | undefined {
  if (e === undefined || e === null) return undefined;
  if (!isDict(e)) throw bad(`${key} must be an object.`, key);
  return compact({ type: e.type, id: e.id, name: e.name, custom_name: e.custom_name, order: e.order });
}

function insightFilter(f: Dict, type: LegacyInsightType): Dict {
  switch (type) {
    case 'TRENDS':
      return nonEmpty('trendsFilter', {
        smoothingIntervals: f.smoothing_intervals,
        showLegend: f.show_legend,
        hiddenLegendIndexes: hiddenLegend(f.hidden_legend_keys, true),
        aggregationAxisFormat: f.aggregation_axis_format,
        aggregationAxisPrefix: f.aggregation_axis_prefix,
        aggregationAxisPostfix: f.aggregation_axis_postfix,
        decimalPlaces: f.decimal_places,
        formula: f.formula,
        display: cleanDisplay(f.display),
        showValuesOnSeries: f.show_values_on_series,
        showPercentStackView: f.show_percent_stack_view,
        showLabelsOnSeries: f.show_labels_on_series,
        yAxisScaleType: f.y_axis_scale_type,
        showMultipleYAxes: f.show_multiple_y_axes,
      });
    case 'FUNNELS': {
      const exclusions = f.exclusions ?? [];
      if (!Array.isArray(exclusions)) throw bad('exclusions must be a list.', 'exclusions');
      let windowInterval = f.funnel_window_interval;
      let windowUnit = f.funnel_window_interval_unit;
      // the old conversion window in days
      if ((windowInterval === undefined || windowInterval === null) && f.funnel_window_days) {
        windowInterval = f.funnel_window_days;
        windowUnit = 'day';
      }
      const ff = compact({
        funnelVizType: f.funnel_viz_type,
        funnelOrderType: f.funnel_order_type,
        funnelFromStep: f.funnel_from_step,
        funnelToStep: f.funnel_to_step,
        funnelWindowIntervalUnit: windowUnit,
        funnelWindowInterval: windowInterval,
        funnelStepReference: f.funnel_step_reference,
        breakdownAttributionType: f.breakdown_attribution_type,
        breakdownAttributionValue: f.breakdown_attribution_value,
        binCount: f.bin_count,
        layout: f.layout,
        hiddenLegendBreakdowns: hiddenLegend(f.hidden_legend_keys, false),
        funnelAggregateByHogQL: f.funnel_aggregate_by_hogql,
      });
      const ex = exclusions.map(exclusionNode);
      // `exclusions` defaults to []: a funnel with nothing else set has no funnelsFilter
      if (Object.keys(ff).length === 0 && ex.length === 0) return {};
      return { funnelsFilter: { ...ff, exclusions: ex } };
    }
    case 'RETENTION':
      // RetentionQuery requires its retentionFilter
      return {
        retentionFilter: compact({
          retentionType: f.retention_type,
          retentionReference: f.retention_reference,
          totalIntervals: f.total_intervals,
          returningEntity: baseEntity(f.returning_entity, 'returning_entity'),
          targetEntity: baseEntity(f.target_entity, 'target_entity'),
          period: f.period,
          cumulative: f.cumulative,
          showMean: f.show_mean,
        }),
      };
    case 'PATHS': {
      const funnelPaths = f.funnel_paths;
      const funnelFilter = f.funnel_filter;
      const funnelPathsFilter =
        funnelPaths === undefined || funnelPaths === null || !isDict(funnelFilter) || Object.keys(funnelFilter).length === 0
          ? undefined
          : { funnelPathType: funnelPaths, funnelSource: filterToQuery(funnelFilter), funnelStep: parseLegacyValues(funnelFilter).funnel_step };
      return compact({
        pathsFilter: compact({
          pathReplacements: f.path_replacements,
          localPathCleaningFilters: f.local_path_cleaning_filters,
          minEdgeWeight: f.min_edge_weight,
          maxEdgeWeight: f.max_edge_weight,
          edgeLimit: f.edge_limit,
          startPoint: f.start_point,
          endPoint: f.end_point,
          stepLimit: f.step_limit,
          includeEventTypes: f.include_event_types,
          excludeEvents: f.exclude_events,
          pathGroupings: f.path_groupings,
          pathsHogQLExpression: f.paths_hogql_expression,
        }),
        funnelPathsFilter: funnelPathsFilter && compact(funnelPathsFilter),
      });
    }
    case 'LIFECYCLE':
      return nonEmpty('lifecycleFilter', { toggledLifecycles: f.toggledLifecycles, showLegend: f.show_legend, showValuesOnSeries: f.show_values_on_series });
    case 'STICKINESS':
      return nonEmpty('stickinessFilter', {
        display: cleanDisplay(f.display),
        showLegend: f.show_legend,
        hiddenLegendIndexes: hiddenLegend(f.hidden_legend_keys, true),
        showValuesOnSeries: f.show_values_on_series,
        showMultipleYAxes: f.show_multiple_y_axes,
      });
  }
}

// ------------------------------------------------------------------------------------------------ entry points

/**
 * PostHog's `filter_to_query`: a legacy filter object → the insight query node it stands for (TrendsQuery,
 * FunnelsQuery, RetentionQuery, PathsQuery, StickinessQuery or LifecycleQuery). Structural problems (an unknown
 * insight type, a series that is not an object, unreadable properties) are 400s with `attr` `filters__<key>`; the
 * node itself is not validated here ({@link legacyInsightQuery} does).
 */
export function filterToQuery(filters: Dict): Dict {
  const f = parseLegacyValues(filters);
  const type = legacyInsightType(f);
  const noInterval = type === 'RETENTION' || type === 'PATHS';
  return compact({
    kind: LEGACY_INSIGHT_KINDS[type],
    ...dateRange(f),
    interval: noInterval ? undefined : f.interval,
    ...series(f, type),
    samplingFactor: f.sampling_factor,
    filterTestAccounts: f.filter_test_accounts,
    properties: cleanGlobalProperties(f.properties),
    ...breakdownFilter(f, type),
    ...compareFilter(f, type),
    // StickinessQuery has no aggregation_group_type_index
    aggregation_group_type_index: type === 'STICKINESS' ? undefined : f.aggregation_group_type_index,
    ...insightFilter(f, type),
  });
}

/**
 * The filters as an insight saves them: PostHog's InsightSerializer turns each series' `custom_name` into trimmed text
 * (blank → null), so `-1` is saved as `"-1"` and `"  "` as null.
 */
export function cleanSavedFilters(filters: Dict): Dict {
  const out: Dict = { ...filters };
  for (const key of ['events', 'actions'] as const) {
    const list = out[key];
    if (!Array.isArray(list)) continue;
    out[key] = list.map((e) => {
      if (!isDict(e) || e.custom_name === undefined || e.custom_name === null) return e;
      return { ...e, custom_name: cleanCustomName(e.custom_name) };
    });
  }
  return out;
}

/** True when `filters` holds anything: `{}`, null and absent mean "no legacy filters". */
export const hasLegacyFilters = (filters: unknown): filters is Dict => isDict(filters) && Object.keys(filters).length > 0;

/**
 * The query a filters-only insight gets on read: PostHog's `Insight.query_from_filters`,
 * `{kind: "InsightVizNode", source: filter_to_query(filters), full: true}`, validated with the query schemas. A
 * failure is a 400 on `filters` naming where the converted query broke.
 */
export function legacyInsightQuery(filters: unknown, validateNode: NodeValidator): Dict {
  if (!isDict(filters)) throw validationError('filters must be an object.', 'filters');
  const source = filterToQuery(filters);
  const query = { kind: 'InsightVizNode', source, full: true };
  validateConverted(query, validateNode);
  return query;
}

/** Validates a converted query; errors are re-addressed to `filters` (the client never sent that query). */
export function validateConverted(query: Dict, validateNode: NodeValidator): void {
  try {
    validateInsightQuery(query, validateNode);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    const where = e.attr ? e.attr.replace(/^query__source__?/, '').replace(/__/g, '.') : '';
    const detail = where ? `Invalid filters: ${e.message} (at ${where} of the converted query)` : `Invalid filters: ${e.message}`;
    throw new UserError(e.status, e.type, e.code, detail, { attr: 'filters', extra: e.extra });
  }
}
