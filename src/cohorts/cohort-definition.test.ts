import { cohortBreakdownValues } from '../queries/insights/breakdown';
import { cohortGroup, groupFromFilters, groupFromLegacyGroups, isEmptyGroup, referencedCohorts } from './cohort-definition';

describe('cohort definitions', () => {
  it('legacy groups: ORed groups of ANDed properties; untyped and event-typed properties are person properties', () => {
    expect(groupFromLegacyGroups([{ properties: [{ key: 'name', value: 'Jane' }, { key: 'plan', value: 'paid', type: 'event' }] }, { properties: [{ key: 'x', value: 1, type: 'person', operator: 'gt' }] }])).toEqual({
      type: 'OR',
      values: [
        { type: 'AND', values: [{ type: 'person', key: 'name', value: 'Jane' }, { type: 'person', key: 'plan', value: 'paid' }] },
        { type: 'AND', values: [{ type: 'person', key: 'x', value: 1, operator: 'gt' }] },
      ],
    });
  });

  it('filters: nested groups, cohort references (negation → not_in), extra PostHog keys dropped', () => {
    const g = groupFromFilters({
      properties: {
        type: 'AND',
        values: [
          { type: 'OR', values: [{ type: 'person', key: 'email', value: '@x.io', operator: 'icontains', negation: false, conditionHash: 'abc', bytecode: [] }] },
          { type: 'cohort', key: 'id', value: 7, negation: true },
          { type: 'cohort', key: 'id', value: '8', operator: 'in' },
        ],
      },
    });
    expect(g).toEqual({
      type: 'AND',
      values: [
        { type: 'OR', values: [{ type: 'person', key: 'email', value: '@x.io', operator: 'icontains' }] },
        { type: 'cohort', key: 'id', value: 7, operator: 'not_in' },
        { type: 'cohort', key: 'id', value: 8, operator: 'in' },
      ],
    });
    expect(referencedCohorts(g)).toEqual([7, 8]);
  });

  it('legacy action/event groups are behavioral criteria (PostHog’s Cohort.properties: days default 365, count → performed_event_multiple)', () => {
    const g = groupFromLegacyGroups([{ action_id: 3, days: 7 }, { event_id: '$pageview', count: 2, count_operator: 'gte' }]);
    expect(g.values).toEqual([
      { type: 'AND', values: [expect.objectContaining({ type: 'behavioral', value: 'performed_event', entity: { type: 'actions', id: 3 }, window: { n: 7, unit: 'day' }, negation: false })] },
      { type: 'AND', values: [expect.objectContaining({ type: 'behavioral', value: 'performed_event_multiple', entity: { type: 'events', name: '$pageview' }, window: { n: 365, unit: 'day' }, op: '>=', opValue: 2 })] },
    ]);
  });

  it('test_old_old_style_properties: a dict of properties, operators after "__"; test_faulty_type: event-typed means person', () => {
    expect(groupFromLegacyGroups([{ properties: [{ key: 'email', type: 'event', value: ['fake@test.com'], operator: 'exact' }] }, { properties: { abra: 'cadabra', name__icontains: 'alakazam' } }])).toEqual({
      type: 'OR',
      values: [
        { type: 'AND', values: [{ type: 'person', key: 'email', value: ['fake@test.com'], operator: 'exact' }] },
        { type: 'AND', values: [{ type: 'person', key: 'abra', value: 'cadabra' }, { type: 'person', key: 'name', value: 'alakazam', operator: 'icontains' }] },
      ],
    });
  });

  it.each([
    [{ value: 'y' }, { type: 'person', key: 'x', value: 'y', operator: 'is_not' }],
    [{ value: ['a', 'b'], operator: 'exact' }, { type: 'person', key: 'x', value: ['a', 'b'], operator: 'is_not' }],
    [{ value: 'y', operator: 'not_icontains' }, { type: 'person', key: 'x', value: 'y', operator: 'icontains' }],
    [{ operator: 'is_set' }, { type: 'person', key: 'x', operator: 'is_not_set' }],
    [
      { value: 5, operator: 'gt' },
      { type: 'OR', values: [{ type: 'person', key: 'x', value: 5, operator: 'lte' }, { type: 'person', key: 'x', operator: 'is_not_set' }] },
    ],
  ])('a negated person criterion %j is its negation (true where the property is not set)', (f, want) => {
    const g = groupFromFilters({ properties: { type: 'AND', values: [{ type: 'person', key: 'email', operator: 'is_set' }, { type: 'person', key: 'x', negation: true, ...f }] } });
    expect(g.values[1]).toEqual(want);
  });

  it('filters win over groups when they have properties; an empty definition is empty', () => {
    expect(cohortGroup({ filters: { properties: { type: 'AND', values: [] } }, groups: [{ properties: [{ key: 'a', value: 'b' }] }] })).toEqual({ type: 'AND', values: [] });
    expect(cohortGroup({ filters: null, groups: [{ properties: [{ key: 'a', value: 'b' }] }] }).type).toBe('OR');
    expect(isEmptyGroup(cohortGroup({ filters: null, groups: [] }))).toBe(true);
    expect(isEmptyGroup({ type: 'AND', values: [{ type: 'OR', values: [] }] })).toBe(true);
  });

  it.each([
    [{ properties: { type: 'AND', values: [{ type: 'behavioral', key: 'x', value: 'performed_event' }] } }, /time_value cannot be None/],
    [{ properties: { type: 'AND', values: [{ type: 'person', key: 'x', value: 'y', negation: true }] } }, /Negations must be paired with a positive filter/],
    [{ properties: { type: 'AND', values: [{ type: 'person', key: 'a', value: 1 }, { type: 'person', key: 'x', value: [1, 2], operator: 'gt', negation: true }] } }, /takes one value/],
    [{ properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: 'abc' }] } }, /id of a cohort/],
    [{ properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: 3, operator: 'exact' }] } }, /not valid for a cohort/],
    [{ properties: 'x' }, /property group/],
    [{}, /Filters must be a dictionary with a 'properties' key/],
    [{ properties: [{ type: 'event', key: 'a', value: 1 }] }, /not supported/],
  ])('refuses %j', (filters, message) => {
    expect(() => groupFromFilters(filters)).toThrow(message);
  });

  it('properties as a plain list are the AND of the criteria (PostHog’s Filter.property_groups reads a list so)', () => {
    expect(groupFromFilters({ properties: [{ type: 'person', key: 'a', value: 1 }, { type: 'cohort', key: 'id', value: 4 }] })).toEqual({
      type: 'AND',
      values: [
        { type: 'person', key: 'a', value: 1 },
        { type: 'cohort', key: 'id', value: 4, operator: 'in' },
      ],
    });
    expect(groupFromFilters({ properties: [] })).toEqual({ type: 'AND', values: [] });
  });
});

describe('negations (test_cohort_query.py TestCohortNegationValidation: check_negation_clause)', () => {
  const P = (key: string, value: string, negation = false) => ({ type: 'person', key, value, ...(negation ? { negation: true } : {}) });
  const G = (type: 'AND' | 'OR', ...values: unknown[]) => ({ type, values });
  const check = (root: unknown) => () => cohortGroup({ filters: { properties: root } as never, groups: [] });
  const refused = expect.objectContaining({ status: 400, message: 'Negations must be paired with a positive filter.' });

  it.each([
    ['test_basic_valid_negation_tree', G('AND', P('name', 'test'), P('email', 'xxx', true))],
    ['test_valid_negation_tree_with_extra_layers', G('OR', G('AND', P('name', 'test')), G('AND', G('OR', G('AND', P('email', 'xxx', true))), G('OR', G('AND', P('name', 'test2')))))],
    ['test_valid_negation_tree_with_extra_layers_recombining_at_top', G('AND', G('OR', G('AND', P('email', 'xxx', true))), G('OR', G('AND', P('name', 'test2'))))],
    ['test_empty_property_group', G('AND')],
  ])('%s: accepted', (_n, root) => {
    expect(check(root)).not.toThrow();
  });

  it.each([
    ['test_invalid_negation_tree_with_extra_layers', G('OR', G('AND', G('OR', G('AND', P('email', 'xxx', true)))), G('AND', G('OR', G('AND', P('name', 'test2')))))],
    ['test_invalid_negation_tree_no_positive_filter', G('OR', G('AND', P('name', 'test', true)), G('AND', P('email', 'xxx', true)))],
    ['a lone negated person property', G('AND', P('email', 'xxx', true))],
    ['a negation and a positive ORed in one group (only an AND group pairs them)', G('OR', P('name', 'test', true), P('email', 'xxx'))],
  ])('%s: refused', (_n, root) => {
    expect(check(root)).toThrow(refused);
  });
});

describe('cohort breakdown values', () => {
  it.each([
    [{ breakdown_type: 'cohort' as const, breakdown: [3, '4', 'all', 3] }, [3, 4, 'all']],
    [{ breakdown_type: 'cohort' as const, breakdown: 5 }, [5]],
    [{ breakdown_type: 'cohort' as const, breakdown: 'all' }, ['all']],
    [{ breakdown_type: 'event' as const, breakdown: '$browser' }, null],
  ])('%j → %j', (f, want) => {
    expect(cohortBreakdownValues(f)).toEqual(want);
  });

  it.each([[{ breakdown_type: 'cohort' as const, breakdown: ['x'] }], [{ breakdown_type: 'cohort' as const, breakdown: [] }], [{ breakdown_type: 'cohort' as const, breakdown: [-1] }]])(
    '%j is a 400',
    (f) => {
      expect(() => cohortBreakdownValues(f)).toThrow(expect.objectContaining({ status: 400 }));
    },
  );
});
