import { UserError, validationError } from '../errors';
import { diffFields } from './activity';
import { deriveName, executableNode, validateInsightQuery } from './insight-query';
import { parseRefresh } from './insight-service';

/** A stand-in for the query service's validateNode: knows two kinds, rejects a TrendsQuery without series. */
const validateNode = (node: { kind: string }) => {
  if (!['TrendsQuery', 'HogQLQuery', 'FunnelsQuery'].includes(node.kind)) throw validationError('Unknown query kind.', 'query__kind');
  if (node.kind === 'TrendsQuery' && !('series' in node)) throw validationError('This field is required.', 'query__series', 'required');
  return node;
};
const attrOf = (f: () => unknown): string | null => {
  try {
    f();
  } catch (e) {
    return (e as UserError).attr;
  }
  return 'no error';
};
const trends = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] };

describe('validateInsightQuery', () => {
  it.each([
    ['InsightVizNode', { kind: 'InsightVizNode', source: trends, showHeader: true }, { queryKind: 'InsightVizNode', sourceKind: 'TrendsQuery' }],
    ['DataVisualizationNode', { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: 'SELECT 1' }, display: 'ActionsTable' }, { queryKind: 'DataVisualizationNode', sourceKind: 'HogQLQuery' }],
    ['DataTableNode', { kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: 'SELECT 1' } }, { queryKind: 'DataTableNode', sourceKind: 'HogQLQuery' }],
    ['bare node', trends, { queryKind: 'TrendsQuery', sourceKind: null }],
  ])('accepts %s', (_, q, kinds) => {
    expect(validateInsightQuery(q, validateNode)).toEqual(kinds);
  });

  it.each([
    ['missing', undefined, 'query'],
    ['array', [], 'query'],
    ['no kind', { source: trends }, 'query__kind'],
    ['unknown bare kind', { kind: 'Nope' }, 'query__kind'],
    ['source error is re-rooted', { kind: 'InsightVizNode', source: { kind: 'TrendsQuery' } }, 'query__source__series'],
    ['unknown source kind', { kind: 'DataTableNode', source: { kind: 'Nope' } }, 'query__source__kind'],
    ['insight viz wraps only insight kinds', { kind: 'InsightVizNode', source: { kind: 'HogQLQuery', query: 'x' } }, 'query__source__kind'],
    ['data viz wraps only SQL', { kind: 'DataVisualizationNode', source: trends }, 'query__source__kind'],
    ['unknown wrapper key', { kind: 'InsightVizNode', source: trends, nope: 1 }, 'query__nope'],
    ['source missing', { kind: 'InsightVizNode' }, 'query__source'],
  ])('rejects %s', (_, q, attr) => {
    expect(attrOf(() => validateInsightQuery(q, validateNode))).toBe(attr);
  });
});

it('executableNode unwraps wrapper nodes only', () => {
  expect(executableNode({ kind: 'InsightVizNode', source: trends })).toBe(trends);
  expect(executableNode(trends)).toBe(trends);
});

describe('deriveName', () => {
  it.each([
    [{ kind: 'InsightVizNode', source: trends }, 'Pageview count'],
    [{ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }, { kind: 'EventsNode', event: 'signup' }] }, 'Pageview unique users & signup count'],
    [{ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: null }] }, 'All events count'],
    [{ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x', custom_name: 'Custom' }] }, 'Custom count'],
    [{ kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }] }, 'Pageview → signup conversion'],
    [{ kind: 'RetentionQuery', retentionFilter: { targetEntity: { id: '$pageview', type: 'events' } } }, 'Retention of Pageview'],
    [{ kind: 'RetentionQuery', retentionFilter: {} }, 'Retention of All events'],
    [{ kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: 'a' }] }, 'a stickiness'],
    [{ kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: 'a' }] }, 'a lifecycle'],
    [{ kind: 'PathsQuery' }, 'User paths'],
    [{ kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: 'SELECT 1' } }, 'SQL query'],
  ])('%j → %s', (q, name) => {
    expect(deriveName(q)).toBe(name);
  });
});

describe('parseRefresh', () => {
  it.each([
    [undefined, 'force_cache'],
    ['', 'force_cache'],
    ['false', 'force_cache'],
    ['true', 'force_blocking'],
    [true, 'force_blocking'],
    // PostHog's _request_has_key_set: any casing of true / 1 / yes (Python clients send True)
    ['True', 'force_blocking'],
    ['1', 'force_blocking'],
    ['YES', 'force_blocking'],
    ['False', 'force_cache'],
    ['0', 'force_cache'],
    ['blocking', 'blocking'],
    ['async', 'async'],
    ['lazy_async', 'lazy_async'],
    ['force_async', 'force_async'],
    ['async_except_on_cache_miss', 'async_except_on_cache_miss'],
  ])('%p → %s', (v, mode) => {
    expect(parseRefresh(v)).toBe(mode);
  });
  it('rejects anything else with attr refresh', () => {
    expect(attrOf(() => parseRefresh('soon'))).toBe('refresh');
  });
});

describe('diffFields', () => {
  it('lists set fields on create, skipping empty ones', () => {
    expect(diffFields('Insight', null, { name: 'n', description: null, tags: [], favorited: false })).toEqual([
      { type: 'Insight', action: 'created', field: 'name', before: null, after: 'n' },
      { type: 'Insight', action: 'created', field: 'favorited', before: null, after: false },
    ]);
  });
  it('lists only fields whose value changed, deeply compared', () => {
    const before = { name: 'a', query: { kind: 'X', n: [1] }, tags: ['t'] };
    expect(diffFields('Insight', before, { name: 'a', query: { kind: 'X', n: [1] }, tags: ['t', 'u'] })).toEqual([
      { type: 'Insight', action: 'changed', field: 'tags', before: ['t'], after: ['t', 'u'] },
    ]);
    expect(diffFields('Insight', before, { ...before })).toEqual([]);
  });
});
