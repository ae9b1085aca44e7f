/**
 * The legacy `filters` converter, after PostHog's `posthog/hogql_queries/legacy_compatibility/test/test_filter_to_query.py`
 * (the expected nodes are PostHog's, with unset fields left out), and every converted query through the same schemas
 * the query API validates with.
 */
import { UserError } from '../errors';
import { zodToUserError } from '../validation';
import { RUNNERS } from '../queries/runners';
import { cleanGlobalProperties, cleanProperty, filterToQuery, legacyInsightQuery, parseLegacyValues } from './legacy-filters';

const pageview = { kind: 'EventsNode', event: '$pageview', name: '$pageview' };

/** The query service's validateNode (same runner schemas, same error addressing: `query__<path>`). */
const validateNode = (node: { kind: string }) => {
  const runner = RUNNERS.find((r) => r.kinds.includes(node.kind));
  if (!runner) throw new Error(`no runner for ${node.kind}`);
  const parsed = runner.schema.safeParse(node);
  if (!parsed.success) {
    const e = zodToUserError(parsed.error);
    throw new UserError(e.status, e.type, e.code, e.message, { attr: e.attr ? `query__${e.attr}` : 'query' });
  }
  return parsed.data;
};

/**
 * Converts and checks that the query API accepts the result (a case about other fields that has no series is checked
 * with one: Quarry's trends-like nodes need at least one).
 */
const convert = (filters: Record<string, unknown>) => {
  const q = filterToQuery(filters);
  const withSeries = Array.isArray(q.series) && q.series.length === 0 ? { ...q, series: [pageview] } : q;
  validateNode(withSeries as { kind: string });
  return q;
};

const AND = (...values: unknown[]) => ({ type: 'AND', values: [{ type: 'AND', values }] });

describe('filter_to_query: kinds', () => {
  it.each([
    [{}, 'TrendsQuery'],
    [{ insight: 'TRENDS' }, 'TrendsQuery'],
    [{ insight: 'SESSIONS' }, 'TrendsQuery'],
    [{ insight: 'FUNNELS' }, 'FunnelsQuery'],
    [{ insight: 'RETENTION' }, 'RetentionQuery'],
    [{ insight: 'PATHS' }, 'PathsQuery'],
    [{ insight: 'STICKINESS' }, 'StickinessQuery'],
    [{ insight: 'LIFECYCLE' }, 'LifecycleQuery'],
  ])('test_base_%s', (filter, kind) => {
    expect(filterToQuery(filter).kind).toBe(kind);
  });

  it('an unknown insight type is a 400 on filters__insight', () => {
    expect(() => filterToQuery({ insight: 'PIES' })).toThrow(expect.objectContaining({ status: 400, attr: 'filters__insight' }));
  });

  it('test_date_range_default / test_date_range_custom / explicit_date', () => {
    expect(filterToQuery({}).dateRange).toBeUndefined();
    expect(filterToQuery({ date_from: '-14d', date_to: '-7d' }).dateRange).toEqual({ date_from: '-14d', date_to: '-7d' });
    expect(filterToQuery({ date_from: '2024-01-01', explicit_date: 'true' }).dateRange).toEqual({ date_from: '2024-01-01', explicitDate: true });
    expect(filterToQuery({ date_from: '2024-01-01', explicit_date: 'false' }).dateRange).toEqual({ date_from: '2024-01-01', explicitDate: false });
  });

  it('test_interval_default / test_interval_custom (none for retention and paths)', () => {
    expect(filterToQuery({}).interval).toBeUndefined();
    expect(filterToQuery({ interval: 'hour' }).interval).toBe('hour');
    expect(filterToQuery({ insight: 'RETENTION', interval: 'hour' }).interval).toBeUndefined();
    expect(filterToQuery({ insight: 'PATHS', interval: 'hour' }).interval).toBeUndefined();
  });
});

describe('filter_to_query: series', () => {
  it('test_series_default', () => {
    expect(filterToQuery({}).series).toEqual([]);
  });

  it('test_series_custom: actions first, events named after their event', () => {
    const q = filterToQuery({
      events: [{ id: '$pageview' }, { id: '$pageview', math: 'dau' }],
      actions: [{ id: 1 }, { id: 1, math: 'dau' }],
    });
    expect(q.series).toEqual([
      { kind: 'ActionsNode', id: 1 },
      { kind: 'ActionsNode', id: 1, math: 'dau' },
      pageview,
      { ...pageview, math: 'dau' },
    ]);
  });

  it('test_series_order: by order, where 0 and none sort first', () => {
    const q = filterToQuery({
      events: [
        { id: '$pageview', order: 1 },
        { id: '$pageview', math: 'dau', order: 2 },
      ],
      actions: [
        { id: 1, order: 3 },
        { id: 1, math: 'dau', order: 0 },
      ],
    });
    expect(q.series).toEqual([{ kind: 'ActionsNode', id: 1, math: 'dau' }, pageview, { ...pageview, math: 'dau' }, { kind: 'ActionsNode', id: 1 }]);
  });

  it('test_series_math', () => {
    const q = convert({
      events: [
        { id: '$pageview', math: 'dau' },
        { id: '$pageview', math: 'median', math_property: '$math_prop' },
        { id: '$pageview', math: 'avg_count_per_actor' },
        { id: '$pageview', math: 'unique_group', math_group_type_index: 0 },
        { id: '$pageview', math: 'hogql', math_hogql: 'avg(toInt(properties.$session_id)) + 1000' },
      ],
    });
    expect(q.series).toEqual([
      { ...pageview, math: 'dau' },
      { ...pageview, math: 'median', math_property: '$math_prop' },
      { ...pageview, math: 'avg_count_per_actor' },
      { ...pageview, math: 'unique_group', math_group_type_index: 0 },
      { ...pageview, math: 'hogql', math_hogql: 'avg(toInt(properties.$session_id)) + 1000' },
    ]);
  });

  it('test_series_properties: every property type, cleaned', () => {
    const q = convert({
      events: [
        { id: '$pageview', properties: [] },
        { id: '$pageview', properties: [{ key: 'success', type: 'event', value: ['true'], operator: 'exact' }] },
        { id: '$pageview', properties: [{ key: 'email', type: 'person', value: 'is_set', operator: 'is_set' }] },
        { id: '$pageview', properties: [{ key: 'text', value: ['some text'], operator: 'exact', type: 'element' }] },
        { id: '$pageview', properties: [{ key: '$session_duration', value: 1, operator: 'gt', type: 'session' }] },
        { id: '$pageview', properties: [{ key: 'id', value: 2, type: 'cohort' }] },
        { id: '$pageview', properties: [{ key: 'name', value: ['Hedgebox Inc.'], operator: 'exact', type: 'group', group_type_index: 2 }] },
        { id: '$pageview', properties: [{ key: "dateDiff('minute', timestamp, now()) < 30", type: 'hogql', value: null }] },
        {
          id: '$pageview',
          properties: [
            { key: '$referring_domain', type: 'event', value: 'google', operator: 'icontains' },
            { key: 'utm_source', type: 'event', value: 'is_not_set', operator: 'is_not_set' },
          ],
        },
      ],
    });
    expect(q.series).toEqual([
      pageview,
      { ...pageview, properties: [{ key: 'success', type: 'event', value: ['true'], operator: 'exact' }] },
      { ...pageview, properties: [{ key: 'email', type: 'person', value: 'is_set', operator: 'is_set' }] },
      { ...pageview, properties: [{ key: 'text', value: ['some text'], operator: 'exact', type: 'element' }] },
      { ...pageview, properties: [{ key: '$session_duration', value: 1, operator: 'gt', type: 'session' }] },
      { ...pageview, properties: [{ key: 'id', value: 2, type: 'cohort' }] },
      { ...pageview, properties: [{ key: 'name', value: ['Hedgebox Inc.'], operator: 'exact', type: 'group', group_type_index: 2 }] },
      { ...pageview, properties: [{ key: "dateDiff('minute', timestamp, now()) < 30", type: 'hogql' }] },
      {
        ...pageview,
        properties: [
          { key: '$referring_domain', type: 'event', value: 'google', operator: 'icontains' },
          { key: 'utm_source', type: 'event', value: 'is_not_set', operator: 'is_not_set' },
        ],
      },
    ]);
  });

  it('series properties as a flat property group and in the old key__operator form', () => {
    const group = filterToQuery({ events: [{ id: '$pageview', properties: { type: 'AND', values: [{ key: 'a', value: 'b' }] } }] });
    expect(group.series).toEqual([{ ...pageview, properties: [{ key: 'a', value: 'b', type: 'event', operator: 'exact' }] }]);
    const old = filterToQuery({ events: [{ id: '$pageview', properties: { utm_medium__icontains: 'email' } }] });
    expect(old.series).toEqual([{ ...pageview, properties: [{ key: 'utm_medium', value: 'email', operator: 'icontains', type: 'event' }] }]);
    expect(() => filterToQuery({ events: [{ id: '$pageview', properties: { type: 'AND', values: [{ type: 'OR', values: [] }] } }] })).toThrow(
      expect.objectContaining({ attr: 'filters__events__0__properties' }),
    );
  });

  it('events and actions as JSON text; template strings are dropped; all events; custom names; action ids as text', () => {
    const q = convert({ events: '[{"id": null, "custom_name": "Anything"}, "{{template}}"]', actions: [{ id: '7', name: 'Signed up' }] });
    expect(q.series).toEqual([
      { kind: 'ActionsNode', id: 7, name: 'Signed up' },
      { kind: 'EventsNode', name: 'All events', custom_name: 'Anything' },
    ]);
  });

  it('stickiness keeps actor maths only (other maths become dau); lifecycle drops math and properties', () => {
    const sticky = convert({ insight: 'STICKINESS', events: [{ id: '$pageview', math: 'sum', math_property: 'x' }, { id: '$pageview', math: 'weekly_active' }, { id: '$pageview' }] });
    expect(sticky.series).toEqual([{ ...pageview, math: 'dau' }, { ...pageview, math: 'weekly_active' }, pageview]);
    const lifecycle = convert({ insight: 'LIFECYCLE', events: [{ id: '$pageview', math: 'dau', properties: [{ key: 'a', value: 'b' }] }] });
    expect(lifecycle.series).toEqual([pageview]);
  });

  it('funnel steps: the legacy math "total" is left out, first-time maths kept, properties kept', () => {
    const q = convert({
      insight: 'FUNNELS',
      events: [
        { id: '$pageview', math: 'total', order: 0, properties: [{ key: 'a', value: 'b' }] },
        { id: 'signup', math: 'first_time_for_user', order: 1 },
      ],
    });
    expect(q.series).toEqual([
      { ...pageview, properties: [{ key: 'a', value: 'b', operator: 'exact', type: 'event' }] },
      { kind: 'EventsNode', event: 'signup', name: 'signup', math: 'first_time_for_user' },
    ]);
  });

  it('a series entry that is not an object is a 400 naming it', () => {
    expect(() => filterToQuery({ events: [{ id: 'a' }, 5] })).toThrow(expect.objectContaining({ status: 400, attr: 'filters__events__1' }));
    expect(() => filterToQuery({ events: 'not json' })).toThrow(expect.objectContaining({ status: 400, attr: 'filters__events' }));
  });
});

describe('filter_to_query: global filters', () => {
  it('test_sampling_factor / test_filter_test_accounts', () => {
    expect(filterToQuery({ sampling_factor: 0.1 }).samplingFactor).toBe(0.1);
    expect(filterToQuery({ sampling_factor: '0.1' }).samplingFactor).toBe(0.1);
    expect(filterToQuery({ sampling_factor: 'lots' }).samplingFactor).toBeUndefined();
    expect(filterToQuery({ filter_test_accounts: true }).filterTestAccounts).toBe(true);
    expect(filterToQuery({ filter_test_accounts: 'false' }).filterTestAccounts).toBe(false);
    expect(filterToQuery({}).filterTestAccounts).toBeUndefined();
  });

  it('test_properties_default / test_properties_list: a list becomes an AND group of an AND group', () => {
    expect(filterToQuery({}).properties).toBeUndefined();
    expect(filterToQuery({ properties: [] }).properties).toBeUndefined();
    expect(filterToQuery({ properties: {} }).properties).toBeUndefined();
    const q = convert({ properties: [{ key: '$browser', value: ['Chrome'], operator: 'exact', type: 'event' }] });
    expect(q.properties).toEqual(AND({ key: '$browser', value: ['Chrome'], operator: 'exact', type: 'event' }));
  });

  it('test_properties_group: a flat group is wrapped, a nested one kept', () => {
    const flat = { type: 'OR', values: [{ key: 'a', value: '1', type: 'person' }] };
    expect(convert({ properties: flat }).properties).toEqual({ type: 'AND', values: [{ type: 'OR', values: [{ key: 'a', value: '1', type: 'person', operator: 'exact' }] }] });
    const nested = { type: 'AND', values: [{ type: 'OR', values: [{ key: 'a', value: '1', type: 'event' }, {}] }, { type: 'AND', values: [] }] };
    expect(convert({ properties: nested }).properties).toEqual({
      type: 'AND',
      values: [{ type: 'OR', values: [{ key: 'a', value: '1', type: 'event', operator: 'exact' }] }, { type: 'AND', values: [] }],
    });
  });

  it('old style properties {"utm_medium__icontains": "email"}', () => {
    expect(convert({ properties: { utm_medium__icontains: 'email' } }).properties).toEqual(
      AND({ key: 'utm_medium', value: 'email', operator: 'icontains', type: 'event' }),
    );
    expect(convert({ properties: { plan: 'pro' } }).properties).toEqual(AND({ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }));
  });

  it.each([
    ['type typo', { key: 'a', value: 'b', type: 'events' }, { key: 'a', value: 'b', type: 'event', operator: 'exact' }],
    ['values typo', { key: 'a', values: ['b'], type: 'person', operator: 'exact' }, { key: 'a', value: ['b'], type: 'person', operator: 'exact' }],
    ['precalculated cohort', { key: 'id', value: 3, type: 'precalculated-cohort' }, { key: 'id', value: 3, type: 'cohort' }],
    ['static cohort with a wrong key and an operator', { key: 'cohort', value: 3, type: 'static-cohort', operator: 'exact' }, { key: 'id', value: 3, type: 'cohort' }],
    ['hogql with an operator', { key: '1 = 1', type: 'hogql', operator: 'exact' }, { key: '1 = 1', type: 'hogql' }],
    ['no operator', { key: 'a', value: 'b', type: 'person' }, { key: 'a', value: 'b', type: 'person', operator: 'exact' }],
    ['None in values', { key: 'a', value: ['b', null], type: 'event', operator: 'exact' }, { key: 'a', value: ['b'], type: 'event', operator: 'exact' }],
    ['None fields', { key: 'a', value: 'b', type: 'event', operator: 'exact', label: null }, { key: 'a', value: 'b', type: 'event', operator: 'exact' }],
    ['no type', { key: 'a', value: 'b' }, { key: 'a', value: 'b', type: 'event', operator: 'exact' }],
  ])('clean_property: %s', (_, input, expected) => {
    expect(cleanProperty(input)).toEqual(expected);
  });

  it('properties that are neither a list nor a group are a 400', () => {
    expect(() => cleanGlobalProperties('x')).toThrow(expect.objectContaining({ attr: 'filters__properties' }));
    expect(() => cleanGlobalProperties({ a: 1, b: 2 })).toThrow(expect.objectContaining({ attr: 'filters__properties' }));
    expect(() => filterToQuery({ properties: [5] })).toThrow(expect.objectContaining({ attr: 'filters__properties' }));
  });
});

describe('filter_to_query: breakdown and compare', () => {
  it('test_breakdown / test_breakdown_type_default / the events typo', () => {
    expect(convert({ breakdown_type: 'event', breakdown: '$browser' }).breakdownFilter).toEqual({ breakdown_type: 'event', breakdown: '$browser' });
    expect(convert({ breakdown: 'some_prop' }).breakdownFilter).toEqual({ breakdown_type: 'event', breakdown: 'some_prop' });
    expect(convert({ breakdown_type: 'events', breakdown: 'x' }).breakdownFilter).toEqual({ breakdown_type: 'event', breakdown: 'x' });
    expect(filterToQuery({}).breakdownFilter).toBeUndefined();
  });

  it('every breakdown field; histogram bins only for trends', () => {
    const all = {
      breakdown_type: 'group',
      breakdown: 'industry',
      breakdown_group_type_index: 0,
      breakdown_normalize_url: true,
      breakdown_hide_other_aggregation: true,
      breakdown_histogram_bin_count: 10,
      breakdown_limit: 5,
    };
    expect(convert(all).breakdownFilter).toEqual(all);
    const { breakdown_histogram_bin_count: _, ...funnel } = all;
    expect(convert({ insight: 'FUNNELS', events: [{ id: 'a' }], ...all }).breakdownFilter).toEqual(funnel);
  });

  it('cohort and multi-value breakdown lists (None values removed); other kinds have none', () => {
    expect(convert({ breakdown_type: 'cohort', breakdown: [1, 'all', null] }).breakdownFilter).toEqual({ breakdown_type: 'cohort', breakdown: [1, 'all'] });
    expect(convert({ insight: 'FUNNELS', events: [{ id: 'a' }], breakdown: ['$browser', '$os'] }).breakdownFilter).toEqual({
      breakdown_type: 'event',
      breakdown: ['$browser', '$os'],
    });
    expect(filterToQuery({ insight: 'STICKINESS', breakdown: 'x' }).breakdownFilter).toBeUndefined();
    expect(filterToQuery({ insight: 'RETENTION', breakdown: 'x' }).breakdownFilter).toBeUndefined();
  });

  it('broken breakdown_type "undefined" without a string breakdown is dropped', () => {
    expect(filterToQuery({ breakdown_type: 'undefined', breakdown: null }).breakdownFilter).toBeUndefined();
  });

  it('test_breakdown_converts_multi: trends keep up to three breakdowns; a funnel takes one', () => {
    expect(convert({ breakdowns: [{ type: 'event', property: '$browser' }] }).breakdownFilter).toEqual({ breakdowns: [{ type: 'event', property: '$browser' }] });
    const four = ['a', 'b', 'c', 'd'].map((property) => ({ property }));
    expect(convert({ breakdowns: four }).breakdownFilter).toEqual({ breakdowns: four.slice(0, 3).map((b) => ({ type: 'event', ...b })) });
    expect(convert({ insight: 'FUNNELS', events: [{ id: 'a' }], breakdowns: [{ type: 'person', property: 'plan' }] }).breakdownFilter).toEqual({
      breakdown_type: 'person',
      breakdown: 'plan',
    });
    expect(() => filterToQuery({ insight: 'FUNNELS', breakdowns: four })).toThrow(expect.objectContaining({ attr: 'filters__breakdowns' }));
  });

  it('test_compare: trends and stickiness', () => {
    expect(convert({ compare: true, compare_to: '-4w' }).compareFilter).toEqual({ compare: true, compare_to: '-4w' });
    expect(convert({ insight: 'STICKINESS', events: [{ id: 'a' }], compare: true }).compareFilter).toEqual({ compare: true });
    expect(filterToQuery({ insight: 'FUNNELS', compare: true }).compareFilter).toBeUndefined();
    expect(filterToQuery({}).compareFilter).toBeUndefined();
  });

  it('aggregation_group_type_index, except on stickiness', () => {
    expect(filterToQuery({ aggregation_group_type_index: 2 }).aggregation_group_type_index).toBe(2);
    expect(filterToQuery({ insight: 'STICKINESS', aggregation_group_type_index: 2 }).aggregation_group_type_index).toBeUndefined();
  });
});

describe('filter_to_query: per-kind filters', () => {
  it('test_trends_filter', () => {
    const q = convert({
      events: [{ id: 'a' }, { id: 'b' }],
      smoothing_intervals: 2,
      compare: true,
      show_legend: true,
      hidden_legend_keys: { '0': true, '1': false, Chrome: true },
      aggregation_axis_format: 'duration_ms',
      aggregation_axis_prefix: 'pre',
      aggregation_axis_postfix: 'post',
      formula: 'A + B',
      shown_as: 'Volume',
      display: 'ActionsAreaGraph',
      show_values_on_series: true,
      show_percent_stack_view: true,
      decimal_places: 5,
    });
    expect(q.trendsFilter).toEqual({
      smoothingIntervals: 2,
      showLegend: true,
      hiddenLegendIndexes: [0],
      aggregationAxisFormat: 'duration_ms',
      aggregationAxisPrefix: 'pre',
      aggregationAxisPostfix: 'post',
      formula: 'A + B',
      display: 'ActionsAreaGraph',
      showValuesOnSeries: true,
      showPercentStackView: true,
      decimalPlaces: 5,
    });
    expect(q.compareFilter).toEqual({ compare: true });
  });

  it('an unknown display is dropped (clean_display); no trendsFilter when nothing is set', () => {
    expect(filterToQuery({ display: 'ActionsLineGraphNope' }).trendsFilter).toBeUndefined();
    expect(filterToQuery({}).trendsFilter).toBeUndefined();
  });

  it('test_funnels_filter', () => {
    const q = convert({
      insight: 'FUNNELS',
      events: [{ id: 'a' }, { id: 'b' }, { id: 'c' }],
      funnel_viz_type: 'steps',
      funnel_window_interval_unit: 'day',
      funnel_window_interval: 7,
      funnel_order_type: 'strict',
      exclusions: [
        { id: '$pageview', type: 'events', order: 0, name: '$pageview', funnel_from_step: 1, funnel_to_step: 2 },
        { id: 3, type: 'actions', order: 0, name: 'Some action', funnel_from_step: 1, funnel_to_step: 2 },
      ],
      bin_count: 15,
      funnel_from_step: 1,
      funnel_to_step: 2,
    });
    expect(q.funnelsFilter).toEqual({
      funnelVizType: 'steps',
      funnelWindowIntervalUnit: 'day',
      funnelWindowInterval: 7,
      funnelOrderType: 'strict',
      exclusions: [
        { kind: 'EventsNode', event: '$pageview', name: '$pageview', funnelFromStep: 1, funnelToStep: 2 },
        { kind: 'ActionsNode', id: 3, name: 'Some action', funnelFromStep: 1, funnelToStep: 2 },
      ],
      binCount: 15,
      funnelFromStep: 1,
      funnelToStep: 2,
    });
  });

  it('funnel_window_days → a window in days; attribution, step reference, layout, hidden breakdowns, aggregation by HogQL', () => {
    const q = convert({
      insight: 'FUNNELS',
      events: [{ id: 'a' }, { id: 'b' }],
      funnel_window_days: 14,
      breakdown_attribution_type: 'step',
      breakdown_attribution_value: 1,
      funnel_step_reference: 'previous',
      layout: 'horizontal',
      hidden_legend_keys: { Chrome: true, Safari: false, '0': true },
      funnel_aggregate_by_hogql: 'person_id',
    });
    expect(q.funnelsFilter).toEqual({
      funnelWindowInterval: 14,
      funnelWindowIntervalUnit: 'day',
      breakdownAttributionType: 'step',
      breakdownAttributionValue: 1,
      funnelStepReference: 'previous',
      layout: 'horizontal',
      hiddenLegendBreakdowns: ['Chrome'],
      funnelAggregateByHogQL: 'person_id',
      exclusions: [],
    });
    // an explicit interval wins over the old days
    expect((filterToQuery({ insight: 'FUNNELS', funnel_window_days: 3, funnel_window_interval: 2, funnel_window_interval_unit: 'hour' }).funnelsFilter as any)).toMatchObject({
      funnelWindowInterval: 2,
      funnelWindowIntervalUnit: 'hour',
    });
    expect(filterToQuery({ insight: 'FUNNELS', exclusions: [] }).funnelsFilter).toBeUndefined();
  });

  it('test_retention_filter', () => {
    const q = convert({
      insight: 'RETENTION',
      retention_type: 'retention_first_time',
      retention_reference: 'previous',
      total_intervals: 12,
      returning_entity: { id: '$pageview', name: '$pageview', type: 'events' },
      target_entity: { id: 1, name: 'Some action', type: 'actions', order: 0, properties: [] },
      period: 'Week',
      cumulative: true,
    });
    expect(q).toEqual({
      kind: 'RetentionQuery',
      retentionFilter: {
        retentionType: 'retention_first_time',
        retentionReference: 'previous',
        totalIntervals: 12,
        returningEntity: { id: '$pageview', name: '$pageview', type: 'events' },
        targetEntity: { id: 1, name: 'Some action', type: 'actions', order: 0 },
        period: 'Week',
        cumulative: true,
      },
    });
    expect(convert({ insight: 'RETENTION' })).toEqual({ kind: 'RetentionQuery', retentionFilter: {} });
  });

  it('test_paths_filter (with its funnel paths filter)', () => {
    const q = convert({
      insight: 'PATHS',
      include_event_types: ['$pageview', 'hogql'],
      start_point: 'http://localhost:8000/events',
      end_point: 'http://localhost:8000/home',
      paths_hogql_expression: 'event',
      edge_limit: 50,
      min_edge_weight: 10,
      max_edge_weight: 20,
      local_path_cleaning_filters: [{ alias: 'merchant', regex: '\\/merchant\\/\\d+\\/dashboard$' }],
      path_replacements: true,
      exclude_events: ['http://localhost:8000/events'],
      step_limit: 5,
      path_groupings: ['/merchant/*/payment'],
      funnel_paths: 'funnel_path_between_steps',
      funnel_filter: {
        insight: 'FUNNELS',
        events: [
          { type: 'events', id: '$pageview', order: 0, name: '$pageview', math: 'total' },
          { type: 'events', id: null, order: 1, math: 'total' },
        ],
        funnel_viz_type: 'steps',
        exclusions: [],
        filter_test_accounts: true,
        funnel_step: 2,
      },
    });
    expect(q.pathsFilter).toEqual({
      includeEventTypes: ['$pageview', 'hogql'],
      pathsHogQLExpression: 'event',
      startPoint: 'http://localhost:8000/events',
      endPoint: 'http://localhost:8000/home',
      edgeLimit: 50,
      minEdgeWeight: 10,
      maxEdgeWeight: 20,
      localPathCleaningFilters: [{ alias: 'merchant', regex: '\\/merchant\\/\\d+\\/dashboard$' }],
      pathReplacements: true,
      excludeEvents: ['http://localhost:8000/events'],
      stepLimit: 5,
      pathGroupings: ['/merchant/*/payment'],
    });
    expect(q.funnelPathsFilter).toEqual({
      funnelPathType: 'funnel_path_between_steps',
      funnelStep: 2,
      funnelSource: {
        kind: 'FunnelsQuery',
        series: [pageview, { kind: 'EventsNode', name: 'All events' }],
        filterTestAccounts: true,
        funnelsFilter: { funnelVizType: 'steps', exclusions: [] },
      },
    });
    expect(convert({ insight: 'PATHS' })).toEqual({ kind: 'PathsQuery', pathsFilter: {} });
  });

  it('test_stickiness_filter', () => {
    const q = convert({
      insight: 'STICKINESS',
      events: [{ id: 'a' }, { id: 'b' }],
      compare: true,
      show_legend: true,
      hidden_legend_keys: { '1': true },
      show_values_on_series: true,
      shown_as: 'Stickiness',
      display: 'ActionsLineGraph',
    });
    expect(q.stickinessFilter).toEqual({ display: 'ActionsLineGraph', showLegend: true, hiddenLegendIndexes: [1], showValuesOnSeries: true });
    expect(q.compareFilter).toEqual({ compare: true });
  });

  it('test_lifecycle_filter', () => {
    const q = convert({
      insight: 'LIFECYCLE',
      events: [{ id: '$pageview' }],
      shown_as: 'Lifecycle',
      toggledLifecycles: ['new', 'dormant'],
      show_values_on_series: true,
      show_legend: true,
    });
    expect(q.lifecycleFilter).toEqual({ toggledLifecycles: ['new', 'dormant'], showValuesOnSeries: true, showLegend: true });
  });
});

describe('a whole insight', () => {
  it("test_insight.py's filters: the TrendsQuery PostHog runs", () => {
    const q = convert({
      events: [{ id: '$pageview', math: 'total' }],
      properties: [{ key: '$browser', value: 'Mac OS X' }],
      display: 'ActionsLineGraph',
      date_from: '-7d',
      interval: 'day',
      filter_test_accounts: true,
    });
    expect(q).toEqual({
      kind: 'TrendsQuery',
      dateRange: { date_from: '-7d' },
      interval: 'day',
      series: [{ ...pageview, math: 'total' }],
      filterTestAccounts: true,
      properties: AND({ key: '$browser', value: 'Mac OS X', operator: 'exact', type: 'event' }),
      trendsFilter: { display: 'ActionsLineGraph' },
    });
  });

  it('query-string values: JSON lists and objects, numbers, booleans, breakdown lists', () => {
    expect(
      parseLegacyValues({
        events: '[{"id":"$pageview"}]',
        properties: '{"type":"AND","values":[]}',
        breakdown: '[1,2]',
        breakdown_limit: '5',
        compare: 'true',
        sampling_factor: '0.5',
        date_from: '-7d',
        interval: 'week',
      }),
    ).toEqual({
      events: [{ id: '$pageview' }],
      properties: { type: 'AND', values: [] },
      breakdown: [1, 2],
      breakdown_limit: 5,
      compare: true,
      sampling_factor: 0.5,
      date_from: '-7d',
      interval: 'week',
    });
    expect(parseLegacyValues({ breakdown: '$browser' }).breakdown).toBe('$browser');
    expect(() => parseLegacyValues({ properties: '[{' })).toThrow(expect.objectContaining({ attr: 'filters__properties' }));
  });

  it('legacyInsightQuery wraps the node as PostHog\'s query_from_filters and validates it, errors on `filters`', () => {
    expect(legacyInsightQuery({ events: [{ id: '$pageview' }] }, validateNode)).toEqual({
      kind: 'InsightVizNode',
      source: { kind: 'TrendsQuery', series: [pageview] },
      full: true,
    });
    // no events: a trends query with no series, which PostHog runs to no results (test_insight.py sends `{events: []}`)
    expect(legacyInsightQuery({ insight: 'TRENDS', events: [] }, validateNode)).toMatchObject({ source: { kind: 'TrendsQuery', series: [] } });
    const fail = (f: unknown) => {
      try {
        legacyInsightQuery(f, validateNode);
      } catch (e) {
        return e as UserError;
      }
      throw new Error('expected a validation error');
    };
    expect(fail({ events: [{ id: '$pageview', math: 'sideways' }] })).toMatchObject({ status: 400, attr: 'filters', message: expect.stringContaining('series.0.math') });
    expect(fail({ interval: 'fortnight', events: [{ id: 'a' }] })).toMatchObject({ status: 400, attr: 'filters', message: expect.stringContaining('interval') });
    expect(fail([1])).toMatchObject({ status: 400, attr: 'filters' });
  });
});


describe('filter_to_query: compatibility pass (test_filter_to_query.py)', () => {
  it('test_hogql_filter: a global HogQL property has no operator', () => {
    expect(convert({ properties: [{ type: 'hogql', key: "event = '$pageview'" }] }).properties).toEqual(AND({ type: 'hogql', key: "event = '$pageview'" }));
  });

  it('test_properties_list: every global property type, cleaned', () => {
    const q = convert({
      properties: [
        { key: 'success', type: 'event', value: ['true'], operator: 'exact' },
        { key: 'email', type: 'person', value: 'is_set', operator: 'is_set' },
        { key: 'text', value: ['some text'], operator: 'exact', type: 'element' },
        { key: '$session_duration', value: 1, operator: 'gt', type: 'session' },
        { key: 'id', value: 2, type: 'cohort' },
        { key: 'name', value: ['Hedgebox Inc.'], operator: 'exact', type: 'group', group_type_index: 2 },
        { key: "dateDiff('minute', timestamp, now()) < 30", type: 'hogql', value: null },
      ],
    });
    expect(q.properties).toEqual(
      AND(
        { key: 'success', type: 'event', value: ['true'], operator: 'exact' },
        { key: 'email', type: 'person', value: 'is_set', operator: 'is_set' },
        { key: 'text', value: ['some text'], operator: 'exact', type: 'element' },
        { key: '$session_duration', value: 1, operator: 'gt', type: 'session' },
        { key: 'id', value: 2, type: 'cohort' },
        { key: 'name', value: ['Hedgebox Inc.'], operator: 'exact', type: 'group', group_type_index: 2 },
        { key: "dateDiff('minute', timestamp, now()) < 30", type: 'hogql' },
      ),
    );
  });

  it('clean_global_properties: old dict-style {"$browser": "Chrome"}; a group of groups kept as is', () => {
    expect(cleanGlobalProperties({ $browser: 'Chrome' })).toEqual(AND({ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }));
    const nested = { type: 'OR', values: [{ type: 'AND', values: [{ key: 'a', value: 'b', type: 'person' }] }] };
    expect(cleanGlobalProperties(nested)).toEqual({ type: 'OR', values: [{ type: 'AND', values: [{ key: 'a', value: 'b', type: 'person', operator: 'exact' }] }] });
  });

  it('test_breakdown_converts_cohort: cohort ids and "all"', () => {
    expect(convert({ breakdown_type: 'cohort', breakdown: ['all'] }).breakdownFilter).toEqual({ breakdown_type: 'cohort', breakdown: ['all'] });
    expect(convert({ breakdown_type: 'cohort', breakdown: [1, 2] }).breakdownFilter).toEqual({ breakdown_type: 'cohort', breakdown: [1, 2] });
    expect(filterToQuery({ breakdown_type: 'cohort', breakdown: '[1, "all"]' }).breakdownFilter).toEqual({ breakdown_type: 'cohort', breakdown: [1, 'all'] });
  });

  it('test_breakdown_type_hogql / person / session / group / histogram / normalize_url / limit', () => {
    expect(convert({ breakdown_type: 'hogql', breakdown: 'properties.$browser' }).breakdownFilter).toEqual({ breakdown_type: 'hogql', breakdown: 'properties.$browser' });
    expect(convert({ breakdown_type: 'person', breakdown: '$browser' }).breakdownFilter).toEqual({ breakdown_type: 'person', breakdown: '$browser' });
    expect(convert({ breakdown_type: 'session', breakdown: '$session_duration' }).breakdownFilter).toEqual({ breakdown_type: 'session', breakdown: '$session_duration' });
    expect(convert({ breakdown_type: 'group', breakdown: '$browser', breakdown_group_type_index: 0 }).breakdownFilter).toEqual({
      breakdown_type: 'group',
      breakdown: '$browser',
      breakdown_group_type_index: 0,
    });
    expect(convert({ breakdown_type: 'event', breakdown: '$browser', breakdown_histogram_bin_count: 5 }).breakdownFilter).toEqual({
      breakdown_type: 'event',
      breakdown: '$browser',
      breakdown_histogram_bin_count: 5,
    });
    expect(convert({ breakdown_type: 'event', breakdown: '$current_url', breakdown_normalize_url: true }).breakdownFilter).toEqual({
      breakdown_type: 'event',
      breakdown: '$current_url',
      breakdown_normalize_url: true,
    });
    expect(convert({ breakdown_type: 'event', breakdown: '$browser', breakdown_limit: 20 }).breakdownFilter).toEqual({ breakdown_type: 'event', breakdown: '$browser', breakdown_limit: 20 });
    expect(filterToQuery({ breakdown: '$browser', breakdown_limit: '20' }).breakdownFilter).toEqual({ breakdown_type: 'event', breakdown: '$browser', breakdown_limit: 20 });
  });

  it('test_breakdown_converts_multi with a breakdown_type alongside; a trends breakdown as a list of properties', () => {
    expect(convert({ breakdowns: [{ type: 'event', property: '$browser' }], breakdown_type: 'event' }).breakdownFilter).toEqual({
      breakdown_type: 'event',
      breakdowns: [{ type: 'event', property: '$browser' }],
    });
    expect(convert({ breakdowns: [{ type: 'session', property: '$session_duration', histogram_bin_count: 10 }, { type: 'group', property: 'name', group_type_index: 1 }] }).breakdownFilter).toEqual({
      breakdowns: [
        { type: 'session', property: '$session_duration', histogram_bin_count: 10 },
        { type: 'group', property: 'name', group_type_index: 1 },
      ],
    });
    expect(convert({ insight: 'FUNNELS', events: [{ id: 'a' }], breakdowns: [{ property: '$browser' }] }).breakdownFilter).toEqual({ breakdown_type: 'event', breakdown: '$browser' });
  });

  it('_insight_filter for FUNNELS: events and actions interleaved by order', () => {
    const q = convert({
      insight: 'FUNNELS',
      events: [
        { id: '$pageview', order: 0 },
        { id: 'signup', order: 2 },
      ],
      actions: [{ id: 5, name: 'Clicked', order: 1 }],
    });
    expect(q.series).toEqual([pageview, { kind: 'ActionsNode', id: 5, name: 'Clicked' }, { kind: 'EventsNode', event: 'signup', name: 'signup' }]);
  });

  it('math_group_type_index as text is an index; custom names kept on every kind', () => {
    const q = convert({ events: [{ id: '$pageview', math: 'unique_group', math_group_type_index: '1', custom_name: 'Orgs' }] });
    expect(q.series).toEqual([{ ...pageview, custom_name: 'Orgs', math: 'unique_group', math_group_type_index: 1 }]);
    const f = convert({ insight: 'FUNNELS', events: [{ id: '$pageview', custom_name: 'Landing', math: 'dau' }] });
    expect(f.series).toEqual([{ ...pageview, custom_name: 'Landing' }]);
    // LegacyEntity: custom names are trimmed text, blank ones none
    expect(filterToQuery({ events: [{ id: '$pageview', custom_name: '  Views  ' }, { id: '$pageview', custom_name: '   ' }, { id: '$pageview', custom_name: -1 }] }).series).toEqual([
      { ...pageview, custom_name: 'Views' },
      pageview,
      { ...pageview, custom_name: '-1' },
    ]);
  });

  it('date_from "all"; explicit_date as a boolean and as text', () => {
    expect(convert({ date_from: 'all' }).dateRange).toEqual({ date_from: 'all' });
    expect(filterToQuery({ date_from: '-7d', explicit_date: true }).dateRange).toEqual({ date_from: '-7d', explicitDate: true });
    expect(filterToQuery({ date_from: '-7d', explicit_date: 'yes' }).dateRange).toEqual({ date_from: '-7d', explicitDate: true });
    expect(filterToQuery({ date_to: '2024-01-31' }).dateRange).toEqual({ date_to: '2024-01-31' });
    // str_to_bool: y, yes, t, true, on, 1 in any casing; any other text is false
    expect(filterToQuery({ date_from: '-7d', explicit_date: 'ON' }).dateRange).toEqual({ date_from: '-7d', explicitDate: true });
    expect(filterToQuery({ date_from: '-7d', explicit_date: 'tomorrow' }).dateRange).toEqual({ date_from: '-7d', explicitDate: false });
    expect(filterToQuery({ date_from: '-7d', explicit_date: '10' }).dateRange).toEqual({ date_from: '-7d', explicitDate: false });
  });

  it('test_compare: compare_to alone', () => {
    expect(filterToQuery({ compare_to: '-1w' }).compareFilter).toEqual({ compare_to: '-1w' });
    expect(filterToQuery({ insight: 'LIFECYCLE', compare: true }).compareFilter).toBeUndefined();
  });

  it('test_trends_filter: display-only fields and every chart display', () => {
    const q = convert({
      display: 'BoldNumber',
      show_labels_on_series: true,
      y_axis_scale_type: 'log10',
      show_multiple_y_axes: true,
    });
    expect(q.trendsFilter).toEqual({ display: 'BoldNumber', showLabelsOnSeries: true, yAxisScaleType: 'log10', showMultipleYAxes: true });
    for (const display of ['ActionsLineGraph', 'ActionsBar', 'ActionsAreaGraph', 'ActionsLineGraphCumulative', 'BoldNumber', 'ActionsPie', 'ActionsBarValue', 'ActionsTable', 'WorldMap']) {
      expect(filterToQuery({ display }).trendsFilter).toEqual({ display });
    }
    expect(filterToQuery({ display: 'PathsViz' }).trendsFilter).toBeUndefined();
    expect(filterToQuery({ smoothing_intervals: '7', decimal_places: '2' }).trendsFilter).toEqual({ smoothingIntervals: 7, decimalPlaces: 2 });
  });

  it('hidden legend keys: indexes are what int() reads, breakdowns the keys that are not all digits', () => {
    const keys = { '0': true, ' 2': true, '-1': true, '1.5': true, Infinity: true, Chrome: true, '3': false };
    expect(filterToQuery({ events: [{ id: 'a' }], hidden_legend_keys: keys }).trendsFilter).toEqual({ hiddenLegendIndexes: [0, 2, -1] });
    expect(filterToQuery({ insight: 'FUNNELS', hidden_legend_keys: keys }).funnelsFilter).toEqual({
      hiddenLegendBreakdowns: [' 2', '-1', '1.5', 'Infinity', 'Chrome'],
      exclusions: [],
    });
  });

  it('test_stickiness_filter: an unknown display is dropped; hidden legend keys that are false or breakdowns are not indexes', () => {
    expect(filterToQuery({ insight: 'STICKINESS', display: 'Nope', hidden_legend_keys: { '0': false, Chrome: true } }).stickinessFilter).toBeUndefined();
    expect(filterToQuery({ insight: 'STICKINESS', show_multiple_y_axes: true }).stickinessFilter).toEqual({ showMultipleYAxes: true });
  });

  it('test_retention_filter: show_mean, a custom named target', () => {
    const q = convert({
      insight: 'RETENTION',
      show_mean: true,
      period: 'Day',
      target_entity: { id: 'signup', type: 'events', custom_name: 'Sign up', order: null },
    });
    expect(q.retentionFilter).toEqual({ showMean: true, period: 'Day', targetEntity: { id: 'signup', type: 'events', custom_name: 'Sign up' } });
    expect(filterToQuery({ insight: 'RETENTION', total_intervals: '8' }).retentionFilter).toEqual({ totalIntervals: 8 });
  });

  it('test_paths_filter: no funnelPathsFilter without a funnel filter; path_type is legacy and dropped', () => {
    const q = convert({ insight: 'PATHS', funnel_paths: 'funnel_path_before_step', funnel_filter: {}, path_type: '$pageview' });
    expect(q).toEqual({ kind: 'PathsQuery', pathsFilter: {} });
    expect(filterToQuery({ insight: 'PATHS', step_limit: '3', edge_limit: '10' }).pathsFilter).toEqual({ stepLimit: 3, edgeLimit: 10 });
  });

  it('test_lifecycle_filter: global properties and test-account filtering kept, series without math or properties', () => {
    const q = convert({
      insight: 'LIFECYCLE',
      events: [{ id: '$pageview', math: 'total', properties: [{ key: 'a', value: 'b' }] }],
      properties: [{ key: '$browser', value: 'Chrome', type: 'event' }],
      filter_test_accounts: true,
      interval: 'week',
    });
    expect(q).toEqual({
      kind: 'LifecycleQuery',
      interval: 'week',
      series: [pageview],
      filterTestAccounts: true,
      properties: AND({ key: '$browser', value: 'Chrome', type: 'event', operator: 'exact' }),
    });
  });
});

describe('filter_to_query: query-string legacy filters (Filter values as text)', () => {
  it('a funnel from text: JSON exclusions and hidden legend keys, integer windows and steps, boolean flags', () => {
    const q = filterToQuery({
      insight: 'FUNNELS',
      events: '[{"id": "$pageview", "order": 0}, {"id": "signup", "order": 1}]',
      exclusions: '[{"id": "logout", "type": "events", "funnel_from_step": 0, "funnel_to_step": 1}]',
      funnel_window_interval: '3',
      funnel_window_interval_unit: 'hour',
      funnel_from_step: '0',
      funnel_to_step: '1',
      hidden_legend_keys: '{"Chrome": true}',
      filter_test_accounts: 'true',
      breakdown_attribution_value: '1',
    });
    expect(q).toEqual({
      kind: 'FunnelsQuery',
      series: [pageview, { kind: 'EventsNode', event: 'signup', name: 'signup' }],
      filterTestAccounts: true,
      funnelsFilter: {
        funnelWindowInterval: 3,
        funnelWindowIntervalUnit: 'hour',
        funnelFromStep: 0,
        funnelToStep: 1,
        breakdownAttributionValue: 1,
        hiddenLegendBreakdowns: ['Chrome'],
        exclusions: [{ kind: 'EventsNode', event: 'logout', name: 'logout', funnelFromStep: 0, funnelToStep: 1 }],
      },
    });
  });

  it('a trend from text: JSON properties and breakdowns, boolean display flags', () => {
    const q = filterToQuery({
      events: '[{"id": "$pageview"}]',
      properties: '[{"key": "$browser", "value": "Chrome"}]',
      breakdowns: '[{"type": "person", "property": "plan"}]',
      show_values_on_series: 'false',
      show_legend: '1',
    });
    expect(q).toEqual({
      kind: 'TrendsQuery',
      series: [pageview],
      properties: AND({ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }),
      breakdownFilter: { breakdowns: [{ type: 'person', property: 'plan' }] },
      trendsFilter: { showValuesOnSeries: false, showLegend: true },
    });
  });
});

describe('test_base_insights: real-world legacy filters convert to a query the API accepts', () => {
  const real: Record<string, unknown>[] = [
    { events: [{ id: 'signed_up', type: 'events', order: 0 }], actions: [], display: 'ActionsLineGraph', insight: 'TRENDS', interval: 'week', date_from: '-8w' },
    {
      events: [{ id: '$pageview', name: '$pageview', type: 'events', order: 0, math: 'dau', math_property: null, properties: [] }],
      actions: [{ id: 123, math: 'total', name: 'Clicked', type: 'actions', order: 1, properties: [], math_property: null }],
      display: 'ActionsBarValue',
      insight: 'TRENDS',
      interval: 'day',
      shown_as: 'Volume',
      date_from: 'all',
      date_to: null,
      new_entity: [],
      entity_type: 'events',
      breakdown: '$browser',
      breakdown_type: 'event',
      properties: [{ key: 'id', type: 'precalculated-cohort', value: 760, operator: null }],
      filter_test_accounts: false,
    },
    {
      insight: 'FUNNELS',
      events: [
        { id: '$pageview', type: 'events', order: 0, name: '$pageview', math: 'total' },
        { id: 'signed_up', type: 'events', order: 1, name: 'signed_up', custom_name: 'Signed up' },
      ],
      funnel_viz_type: 'time_to_convert',
      funnel_window_days: 14,
      funnel_order_type: 'unordered',
      layout: 'vertical',
      exclusions: [{ id: 'x', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }],
      breakdown: 123,
      breakdown_type: 'cohort',
      entrance_period_start: '2021-01-01',
      drop_off: false,
    },
    {
      insight: 'RETENTION',
      period: 'Week',
      target_entity: { id: '$pageview', name: '$pageview', type: 'events' },
      returning_entity: { id: 5, name: 'Did thing', type: 'actions' },
      retention_type: 'retention_recurring',
      total_intervals: 11,
      date_to: '2021-01-01',
    },
    { insight: 'LIFECYCLE', events: [{ id: '$pageview', type: 'events', order: 0 }], shown_as: 'Lifecycle', interval: 'day', date_from: '-30d', properties: { type: 'AND', values: [] } },
    { insight: 'STICKINESS', events: [{ id: '$pageview', math: 'total' }], shown_as: 'Stickiness', display: 'ActionsBar', compare: 'true' },
    { insight: 'PATHS', path_type: '$pageview', include_event_types: ['$pageview'], date_from: '-7d', start_point: '/home' },
    { insight: 'TRENDS', events: ['{{template}}', { id: '$pageview' }], properties: { type: 'AND', values: [{ type: 'OR', values: [{}] }] } },
  ];
  it.each(real.map((f, i) => [i, f]))('insight_%s', (_, filter) => {
    expect(() => legacyInsightQuery(filter, validateNode)).not.toThrow();
  });
});
