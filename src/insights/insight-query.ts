import { z } from 'zod';
import { UserError, validationError } from '../errors';
import { zodToUserError } from '../validation';

/** Query kinds an `InsightVizNode` may wrap (PostHog's InsightQueryNode). */
export const INSIGHT_SOURCE_KINDS = [
  'TrendsQuery',
  'FunnelsQuery',
  'RetentionQuery',
  'PathsQuery',
  'StickinessQuery',
  'LifecycleQuery',
] as const;

/** SQL kinds a `DataVisualizationNode` may wrap. */
export const SQL_KINDS = ['ProductQLQuery', 'HogQLQuery'] as const;

/** Wrapper nodes: display options around a `source` node that is what actually runs. */
export const WRAPPER_KINDS = ['InsightVizNode', 'DataVisualizationNode', 'DataTableNode'] as const;

/** Validates a bare query node (the query service's `validateNode`); errors carry `attr` = `query__…`. */
export type NodeValidator = (node: { kind: string }) => unknown;

// Display-only options of the wrapper nodes: accepted and stored, never part of what runs.
const displayOption = z.unknown().optional();
const wrapperSchemas: Record<(typeof WRAPPER_KINDS)[number], z.ZodType> = {
  InsightVizNode: z
    .object({
      kind: z.literal('InsightVizNode'),
      source: z.object({ kind: z.string() }).passthrough(),
      full: z.boolean().optional(),
      embedded: z.boolean().optional(),
      fitParentHeight: z.boolean().optional(),
      hidePersonsModal: z.boolean().optional(),
      hideTooltipOnScroll: z.boolean().optional(),
      showHeader: z.boolean().optional(),
      showTable: z.boolean().optional(),
      showCorrelationTable: z.boolean().optional(),
      showLastComputation: z.boolean().optional(),
      showLastComputationRefresh: z.boolean().optional(),
      showFilters: z.boolean().optional(),
      showResults: z.boolean().optional(),
      suppressSessionAnalysisWarning: z.boolean().optional(),
      vizSpecificOptions: displayOption,
      version: z.number().optional(),
    })
    .strict(),
  DataVisualizationNode: z
    .object({
      kind: z.literal('DataVisualizationNode'),
      source: z.object({ kind: z.string() }).passthrough(),
      display: z.string().optional(),
      chartSettings: displayOption,
      tableSettings: displayOption,
      version: z.number().optional(),
    })
    .strict(),
  DataTableNode: z
    .object({
      kind: z.literal('DataTableNode'),
      source: z.object({ kind: z.string() }).passthrough(),
      columns: z.array(z.string()).optional(),
      hiddenColumns: z.array(z.string()).optional(),
      full: z.boolean().optional(),
      embedded: z.boolean().optional(),
      expandable: z.boolean().optional(),
      showActions: z.boolean().optional(),
      showDateRange: z.boolean().optional(),
      showEventFilter: z.boolean().optional(),
      showExport: z.boolean().optional(),
      showHogQLEditor: z.boolean().optional(),
      showOpenEditorButton: z.boolean().optional(),
      showPropertyFilter: z.boolean().optional(),
      showReload: z.boolean().optional(),
      showResultsTable: z.boolean().optional(),
      showSearch: z.boolean().optional(),
      showTimings: z.boolean().optional(),
      showElapsedTime: z.boolean().optional(),
      showColumnConfigurator: z.boolean().optional(),
      showPersistentColumnConfigurator: z.boolean().optional(),
      allowSorting: z.boolean().optional(),
      version: z.number().optional(),
    })
    .strict(),
};

/**
 * Sources a DataTableNode may hold in PostHog's schema that no query runner answers (PostHog's process_query_model:
 * a cache miss when only the cache may answer, else "Unsupported query kind"). They can be saved in an insight.
 */
const NON_RUNNABLE_SOURCES: Record<string, z.ZodType> = {
  PersonsNode: z
    .object({
      kind: z.literal('PersonsNode'),
      cohort: z.number().int().nullish(),
      distinctId: z.string().nullish(),
      fixedProperties: z.array(z.object({}).passthrough()).nullish(),
      properties: z.array(z.object({}).passthrough()).nullish(),
      search: z.string().nullish(),
      limit: z.number().int().nullish(),
      offset: z.number().int().nullish(),
      modifiers: z.object({}).passthrough().nullish(),
      response: z.object({}).passthrough().nullish(),
      version: z.number().nullish(),
    })
    .strict(),
};

/** A node kind an insight may hold but nothing runs (see {@link NON_RUNNABLE_SOURCES}). */
export const isNonRunnable = (kind: string): boolean => Object.hasOwn(NON_RUNNABLE_SOURCES, kind);

const isWrapper = (kind: string): kind is (typeof WRAPPER_KINDS)[number] => (WRAPPER_KINDS as readonly string[]).includes(kind);

/** Prefixes an error's `attr` with the path of the wrapped node (`query__x` → `query__source__x`). */
function underSource(e: unknown): never {
  if (e instanceof UserError) {
    const attr = e.attr && e.attr.startsWith('query') ? e.attr.replace(/^query/, 'query__source') : 'query__source';
    throw new UserError(e.status, e.type, e.code, e.message, { attr, extra: e.extra, span: e.span });
  }
  throw e;
}

export interface InsightQueryKinds {
  /** `query.kind`. */
  queryKind: string;
  /** `query.source.kind` for a wrapper node, else null. */
  sourceKind: string | null;
}

/**
 * Validates an insight's `query` with the query schemas: a wrapper node (InsightVizNode, DataVisualizationNode,
 * DataTableNode) around a runnable node, or a bare runnable node. Errors name the field, e.g.
 * `query__source__series`. Returns the kinds kept for the list's `kind` filter.
 */
export function validateInsightQuery(query: unknown, validateNode: NodeValidator): InsightQueryKinds {
  if (query === undefined) throw validationError('This field is required.', 'query', 'required');
  if (query === null) throw validationError('This field may not be null.', 'query', 'null');
  if (typeof query !== 'object' || Array.isArray(query)) throw validationError('The query must be an object.', 'query');
  const kind = (query as { kind?: unknown }).kind;
  if (typeof kind !== 'string') throw validationError('The query must have a string "kind".', 'query__kind', 'required');
  if (!isWrapper(kind)) {
    validateNode(query as { kind: string });
    return { queryKind: kind, sourceKind: null };
  }
  const parsed = wrapperSchemas[kind].safeParse(query, { reportInput: true });
  if (!parsed.success) {
    const e = zodToUserError(parsed.error);
    throw new UserError(e.status, e.type, e.code, e.message, { attr: e.attr ? `query__${e.attr}` : 'query' });
  }
  const source = (query as { source: { kind: string } }).source;
  const allowed: readonly string[] | null =
    kind === 'InsightVizNode' ? INSIGHT_SOURCE_KINDS : kind === 'DataVisualizationNode' ? SQL_KINDS : null;
  if (allowed && !allowed.includes(source.kind)) {
    throw validationError(`A ${kind} wraps one of: ${allowed.join(', ')}; got "${source.kind}".`, 'query__source__kind');
  }
  if (kind === 'DataTableNode' && isNonRunnable(source.kind)) {
    const checked = NON_RUNNABLE_SOURCES[source.kind].safeParse(source, { reportInput: true });
    if (!checked.success) {
      const e = zodToUserError(checked.error);
      throw new UserError(e.status, e.type, e.code, e.message, { attr: e.attr ? `query__source__${e.attr}` : 'query__source' });
    }
    return { queryKind: kind, sourceKind: source.kind };
  }
  try {
    validateNode(source);
  } catch (e) {
    underSource(e);
  }
  return { queryKind: kind, sourceKind: source.kind };
}

/** The node that runs for an insight query: the `source` of a wrapper node, else the node itself. */
export function executableNode(query: Record<string, unknown>): { kind: string } {
  const kind = query.kind as string;
  return (isWrapper(kind) ? query.source : query) as { kind: string };
}

/** PostHog's `insight` list filter values → the runnable kinds they select. */
export const INSIGHT_TYPE_KINDS: Record<string, readonly string[]> = {
  TRENDS: ['TrendsQuery'],
  FUNNELS: ['FunnelsQuery'],
  RETENTION: ['RetentionQuery'],
  PATHS: ['PathsQuery'],
  STICKINESS: ['StickinessQuery'],
  LIFECYCLE: ['LifecycleQuery'],
  SQL: SQL_KINDS,
  JSON: [],
};

const EVENT_LABELS: Record<string, string> = {
  $pageview: 'Pageview',
  $pageleave: 'Pageleave',
  $autocapture: 'Autocapture',
  $screen: 'Screen',
  $identify: 'Identify',
  $exception: 'Exception',
};

interface SeriesLike {
  kind?: string;
  event?: string | null;
  name?: string | null;
  custom_name?: string | null;
  math?: string;
}

const seriesLabel = (s: SeriesLike | undefined): string => {
  if (!s) return 'All events';
  if (s.custom_name) return s.custom_name;
  if (s.event === null || (s.kind === 'EventsNode' && s.event === undefined)) return 'All events';
  const e = s.event ?? s.name ?? 'All events';
  return EVENT_LABELS[e] ?? e;
};

const MATH_LABELS: Record<string, string> = {
  total: 'count',
  dau: 'unique users',
  weekly_active: 'weekly active users',
  monthly_active: 'monthly active users',
  unique_session: 'unique sessions',
  sum: 'sum',
  avg: 'average',
  min: 'minimum',
  max: 'maximum',
  median: 'median',
};

const joinLabels = (series: SeriesLike[], withMath: boolean): string =>
  series
    .map((s) => seriesLabel(s) + (withMath ? ` ${MATH_LABELS[s.math ?? 'total'] ?? s.math}` : ''))
    .join(' & ');

/**
 * The auto-generated title of an insight (`derived_name`) when the client does not send one, in the spirit of
 * PostHog's UI: "Pageview count & Sign up unique users", "Pageview → Sign up conversion", "SQL query".
 */
export function deriveName(query: Record<string, unknown>): string {
  const node = executableNode(query) as unknown as Record<string, unknown> & { kind: string };
  const series = (Array.isArray(node.series) ? node.series : []) as SeriesLike[];
  switch (node.kind) {
    case 'TrendsQuery':
      return series.length ? joinLabels(series, true) : 'Trends';
    case 'FunnelsQuery':
      return series.length ? `${series.map((s) => seriesLabel(s)).join(' → ')} conversion` : 'Funnel';
    case 'StickinessQuery':
      return series.length ? `${joinLabels(series, false)} stickiness` : 'Stickiness';
    case 'LifecycleQuery':
      return `${series.length ? joinLabels(series.slice(0, 1), false) : 'All events'} lifecycle`;
    case 'RetentionQuery': {
      const t = ((node.retentionFilter ?? {}) as { targetEntity?: { id?: unknown; name?: unknown; custom_name?: unknown } | null }).targetEntity;
      const id = t?.custom_name ?? t?.name ?? t?.id;
      return `Retention of ${typeof id === 'string' ? (EVENT_LABELS[id] ?? id) : 'All events'}`;
    }
    case 'PathsQuery':
      return 'User paths';
    case 'ProductQLQuery':
    case 'HogQLQuery':
      return 'SQL query';
    default:
      return node.kind;
  }
}
