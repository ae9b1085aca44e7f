import { applyQueryOverrides, queryWithVariablesOverride } from './overrides';

describe('applyQueryOverrides (PostHog apply_dashboard_filters / apply_variable_overrides)', () => {
  const trends = {
    kind: 'TrendsQuery',
    series: [],
    dateRange: { date_from: '-7d', date_to: '-1d', explicitDate: false },
    properties: { type: 'OR', values: [{ key: 'a', type: 'event', value: 1 }] },
    breakdownFilter: { breakdown: '$browser' },
    interval: 'day',
  };

  it('replaces both dates (a missing one becomes null), ANDs properties, replaces breakdown and interval; the input stays', () => {
    const before = JSON.stringify(trends);
    const out = applyQueryOverrides(trends, { date_from: '-30d', explicitDate: true, properties: [{ key: 'b', value: 2 }], breakdown_filter: { breakdown: '$os' }, interval: 'week' }, undefined);
    expect(out.dateRange).toEqual({ date_from: '-30d', date_to: null, explicitDate: true });
    expect(out.properties).toEqual({ type: 'AND', values: [trends.properties, { type: 'AND', values: [{ key: 'b', value: 2 }] }] });
    expect([out.breakdownFilter, out.interval]).toEqual([{ breakdown: '$os' }, 'week']);
    expect(JSON.stringify(trends)).toBe(before);
  });

  it('a list of own properties becomes an AND group; no own properties: the override alone', () => {
    expect(applyQueryOverrides({ ...trends, properties: [{ key: 'a' }] }, { properties: [{ key: 'b' }] }, null).properties).toEqual({
      type: 'AND',
      values: [{ type: 'AND', values: [{ key: 'a' }] }, { type: 'AND', values: [{ key: 'b' }] }],
    });
    expect(applyQueryOverrides({ kind: 'StickinessQuery' }, { properties: [{ key: 'b' }] }, null).properties).toEqual([{ key: 'b' }]);
  });

  it('leaves what the kind does not have, and what the override does not say', () => {
    const out = applyQueryOverrides({ kind: 'StickinessQuery', dateRange: { date_from: '-7d' } }, { breakdown_filter: { breakdown: 'x' } }, null);
    expect(out).toEqual({ kind: 'StickinessQuery', dateRange: { date_from: '-7d' } });
  });

  it('an EventsQuery (no dateRange: its own after/before) runs as given, as PostHog applies dashboard filters only to nodes with both', () => {
    const events = { kind: 'EventsQuery', select: ['*'], after: '-7d', properties: [{ key: 'a', type: 'event', value: 1 }] };
    expect(applyQueryOverrides(events, { date_from: '-30d', properties: [{ key: 'b', value: 2 }] }, null)).toBe(events);
  });

  it('HogQL: the date range and properties go into filters', () => {
    const out = applyQueryOverrides(
      { kind: 'HogQLQuery', query: 'select 1', filters: { properties: [{ key: 'a' }] } },
      { date_to: '2024-01-02', properties: [{ key: 'b' }], filterTestAccounts: true },
      null,
    );
    expect(out.filters).toEqual({ properties: [{ key: 'a' }, { key: 'b' }], dateRange: { date_from: null, date_to: '2024-01-02' }, filterTestAccounts: true });
  });

  it('variables_override updates declared variables by id only', () => {
    const node = { kind: 'HogQLQuery', query: 'select {variables.x}', variables: { v1: { variableId: 'v1', code_name: 'x', value: 1 } } };
    expect(applyQueryOverrides(node, null, { v1: { value: 2 }, v2: { value: 3 } }).variables).toEqual({ v1: { variableId: 'v1', code_name: 'x', value: 2 } });
  });

  it('bad shapes are 400s naming the envelope field', () => {
    expect(() => applyQueryOverrides(trends, { date_from: 1 }, null)).toThrow(expect.objectContaining({ status: 400, attr: 'filters_override__date_from' }));
    expect(() => applyQueryOverrides(trends, null, { v1: 3 })).toThrow(expect.objectContaining({ status: 400, attr: 'variables_override__v1' }));
  });
});

describe('queryWithVariablesOverride (PostHog apply_dashboard_variables_to_dict: the query an insight shows)', () => {
  const viz = {
    kind: 'DataVisualizationNode',
    source: { kind: 'HogQLQuery', query: 'select {variables.test_1}', variables: { v1: { code_name: 'test_1', variableId: 'v1', isNull: true } } },
  };

  it('through the wrapper, a declared variable becomes {variableId, code_name, value}; undeclared ones are left out', () => {
    expect(queryWithVariablesOverride(viz, { v1: { value: 'override value!', code_name: 'ignored' }, v9: { value: 1 } })).toEqual({
      ...viz,
      source: { ...viz.source, variables: { v1: { variableId: 'v1', code_name: 'test_1', value: 'override value!' } } },
    });
  });

  it('no override, another kind or nothing declared: the same object', () => {
    expect(queryWithVariablesOverride(viz, null)).toBe(viz);
    expect(queryWithVariablesOverride(viz, { v9: { value: 1 } })).toBe(viz);
    const trends = { kind: 'TrendsQuery', series: [] };
    expect(queryWithVariablesOverride(trends, { v1: { value: 1 } })).toBe(trends);
  });
});
