/**
 * The sources of an ActorsQuery (PostHog's InsightActorsQuery and FunnelsActorsQuery): which data point of which
 * insight, and the actors behind it, computed by the insight runner's own query builders.
 */
import { z } from 'zod';
import * as ast from '../../productql/ast';
import { parseSelect } from '../../productql/parser';
import { productqlQuerySchema, type ProductQLQueryNode } from '../schema/productql-query';
import { validationError } from '../../errors';
import type { RunnerContext } from '../runner';
import { dataNodeShape, lifecycleQuerySchema, stickinessQuerySchema, trendsQuerySchema } from '../insights';
import { funnelsQuerySchema } from '../funnels/schema';
import { retentionQuerySchema } from '../retention/schema';
import { trendsActorsQuery } from './trends-runner';
import { lifecycleActorsQuery } from './lifecycle-runner';
import { stickinessActorsQuery } from './stickiness-runner';
import { retentionActorsQuery } from './retention-runner';
import { pathsQuerySchema } from '../paths/schema';
import { pathsActors } from './paths-runner';
import { funnelActorIds } from '../funnels/actors';

const breakdownValueSchema = z.union([z.string().max(10_000), z.number(), z.array(z.union([z.string().max(10_000), z.number()])).max(10)]);

/**
 * PostHog's InsightActorsQuery: a data point of a trends, stickiness, lifecycle, retention or paths query. Its source
 * may also be a FunnelsQuery (PostHog's InsightQuerySource): InsightActorsQueryOptions answers it (every option null),
 * but its actors are a FunnelsActorsQuery's (see {@link resolveActorSource}).
 */
export const insightActorsQuerySchema = z
  .object({
    kind: z.literal('InsightActorsQuery'),
    source: z.discriminatedUnion('kind', [trendsQuerySchema, stickinessQuerySchema, lifecycleQuerySchema, retentionQuerySchema, pathsQuerySchema, funnelsQuerySchema]),
    /** Trends/lifecycle: the interval (`days` entry); stickiness: the number of intervals (1-based). */
    day: z.union([z.string().max(100), z.number().int()]).nullish(),
    /** Lifecycle: new, returning, resurrecting or dormant. */
    status: z.enum(['new', 'returning', 'resurrecting', 'dormant']).nullish(),
    /** Index of the series (default 0). */
    series: z.number().int().min(0).nullish(),
    breakdown: breakdownValueSchema.nullish(),
    compare: z.enum(['current', 'previous']).nullish(),
    /** Retention: the cohort row (0 = the first interval). */
    interval: z.number().int().min(0).nullish(),
    includeRecordings: z.boolean().nullish(),
    ...dataNodeShape,
  })
  .strict();

/** PostHog's FunnelsActorsQuery: the actors who reached (or dropped off before) a funnel step. */
export const funnelsActorsQuerySchema = z
  .object({
    kind: z.literal('FunnelsActorsQuery'),
    source: funnelsQuerySchema,
    /**
     * 1-based step; negative: dropped off before step |n| (reached step |n| − 1, not step |n|). Steps funnels need it or
     * funnelCustomSteps (0 or neither: 400 "Missing both funnelStep and funnelCustomSteps"); a step past the last one has
     * no actors. Trends funnels ignore it.
     */
    funnelStep: z.number().int().nullish(),
    /** One breakdown value of the funnel (boxed or not; a cohort id, `0`/`all` for all users). Default: every value. */
    funnelStepBreakdown: breakdownValueSchema.nullish(),
    /** Steps funnels: actors whose furthest step (1-based) is in the list (other numbers match nobody); a non-empty list wins over `funnelStep`. Default none. */
    funnelCustomSteps: z.array(z.number().int()).max(100).nullish(),
    /** Trends funnels (required there): the actors of the period who did not reach `funnelToStep` (true) or did (false). */
    funnelTrendsDropOff: z.boolean().nullish(),
    /** Trends funnels (required there): the start of the entrance period, as its `days` entry or a datetime. */
    funnelTrendsEntrancePeriodStart: z.string().max(100).nullish(),
    includeRecordings: z.boolean().nullish(),
    ...dataNodeShape,
  })
  .strict();

export const actorSourceSchema = z.discriminatedUnion('kind', [insightActorsQuerySchema, funnelsActorsQuerySchema, productqlQuerySchema]);
export type ActorSourceNode = z.infer<typeof actorSourceSchema>;

/** The actors of a data point: a query `SELECT actor_id[, event_count]` (one row per actor), or their ids. */
export interface ActorSource {
  /** Groups of this type are the actors; null: persons. */
  groupTypeIndex: number | null;
  query?: ast.SelectQuery;
  ids?: string[];
  /** The query has an `event_count` column (the actor's matching events in the data point). */
  eventCount: boolean;
  /** Columns computed with the actors (retention's `appearances`): column → actor id → value. */
  values?: Record<string, Map<string, unknown>>;
  /**
   * `includeRecordings` was asked for: the `matched_recordings` column exists (PostHog's actors query then carries each
   * actor's matching events, and lists the recorded sessions among them).
   */
  recordings?: boolean;
}

const boxed = (v: string | number | (string | number)[]): string[] => (Array.isArray(v) ? v : [v]).map(String);

export async function resolveActorSource(source: ActorSourceNode, ctx: RunnerContext): Promise<ActorSource> {
  const recordings = (source.kind === 'InsightActorsQuery' || source.kind === 'FunnelsActorsQuery') && source.includeRecordings === true;
  return { ...(await resolveActors(source, ctx)), recordings };
}

async function resolveActors(source: ActorSourceNode, ctx: RunnerContext): Promise<ActorSource> {
  if (source.kind === 'FunnelsActorsQuery') return funnelActors(source, ctx);
  if (source.kind !== 'InsightActorsQuery') return productqlActors(source);
  const inner = source.source;
  const only = (allowed: string[], ...keys: (keyof typeof source)[]): void => {
    for (const k of keys)
      if (source[k] !== undefined && source[k] !== null && !allowed.includes(inner.kind))
        throw validationError(`${String(k)} does not apply to a ${inner.kind} source.`, `source__${String(k)}`);
  };
  only(['LifecycleQuery'], 'status');
  only(['RetentionQuery'], 'interval');
  only(['TrendsQuery', 'RetentionQuery'], 'breakdown');
  switch (inner.kind) {
    case 'TrendsQuery': {
      const { query, groupTypeIndex } = await trendsActorsQuery(inner, ctx, source);
      return { query, groupTypeIndex, eventCount: true };
    }
    case 'LifecycleQuery': {
      const day = source.day === undefined || source.day === null ? null : String(source.day);
      const { query, groupTypeIndex } = await lifecycleActorsQuery(inner, ctx, { day, status: source.status });
      return { query, groupTypeIndex, eventCount: false };
    }
    case 'StickinessQuery': {
      // Without a day, PostHog's to_actors_query(interval_num=None) keeps every actor of the series: those active in
      // at least one interval, which is the cumulative point of day 1.
      const all = source.day === undefined || source.day === null;
      const day = all ? 1 : Number(source.day);
      if (!Number.isInteger(day) || day < 1) throw validationError('day must be the number of intervals (1 or more) for a stickiness source.', 'source__day');
      const stickiness = all ? { ...inner, stickinessFilter: { ...inner.stickinessFilter, computedAs: 'cumulative' as const } } : inner;
      const { query, groupTypeIndex } = await stickinessActorsQuery(stickiness, ctx, { day, series: source.series ?? 0, compare: source.compare ?? null });
      return { query, groupTypeIndex, eventCount: false };
    }
    case 'RetentionQuery': {
      const { ids, appearances, groupTypeIndex } = await retentionActorsQuery(inner, ctx, {
        interval: source.interval ?? 0,
        breakdown: source.breakdown === undefined || source.breakdown === null ? null : boxed(source.breakdown).join(''),
      });
      return { ids, groupTypeIndex, eventCount: false, values: { appearances } };
    }
    case 'PathsQuery': {
      // The node is picked by the source's pathsFilter (pathStartKey / pathEndKey / pathDropoffKey).
      const { ids, groupTypeIndex } = await pathsActors(inner, ctx);
      return { ids, groupTypeIndex, eventCount: false };
    }
    case 'FunnelsQuery':
      // PostHog's InsightActorsQueryRunner hands the funnel runner this node as if it were a FunnelsActorsQuery, and
      // fails reading its funnelStep (an internal error there): a funnel's data point has no InsightActorsQuery fields.
      throw validationError(
        'The actors of a funnel are asked for with a FunnelsActorsQuery (funnelStep, funnelCustomSteps, funnelStepBreakdown, funnelTrendsDropOff, funnelTrendsEntrancePeriodStart).',
        'source__kind',
      );
  }
}

async function funnelActors(source: z.infer<typeof funnelsActorsQuerySchema>, ctx: RunnerContext): Promise<ActorSource> {
  const ids = await funnelActorIds(source, ctx);
  return { groupTypeIndex: source.source.aggregation_group_type_index ?? null, ids, eventCount: false };
}

/**
 * The id column of a ProductQL source, as PostHog's ActorsQueryRunner.source_id_column picks it: a column aliased
 * `group_key`, `actor_id` or `person_id`; else the first column whose alias, or any part of whose field name, contains
 * `id`. Undefined when none does.
 */
function sourceIdColumn(select: ast.Expr[]): ast.Expr | undefined {
  const named = select.find((c) => c.node === 'Alias' && ['group_key', 'actor_id', 'person_id'].includes(c.alias));
  if (named) return named;
  return select.find(
    (c) => (c.node === 'Alias' && c.alias.includes('id')) || (c.node === 'Field' && c.chain.some((part) => String(part).toLowerCase().includes('id'))),
  );
}

/**
 * A ProductQL source (PostHog's ActorsQuery over a HogQLQuery, test_actors_query_runner.py `test_source_hogql_query`):
 * the persons whose ids its id column lists (see {@link sourceIdColumn}).
 */
async function productqlActors(source: ProductQLQueryNode): Promise<ActorSource> {
  if (source.variables || source.values) throw validationError('A ProductQL source of actors takes no variables.', 'source__variables');
  const parsed = await parseSelect(source.query);
  if (parsed.node !== 'SelectQuery' || !parsed.select.length)
    throw validationError('The source query must be one SELECT with a person id column.', 'source__query');
  const column = sourceIdColumn(parsed.select);
  // (PostHog's "Source query must have an id column")
  if (!column) throw validationError('Source query must have an id column (a column named person_id, actor_id, or with "id" in its name).', 'source__query');
  const id = column.node === 'Alias' ? column.expr : column;
  const inner: ast.SelectQuery = { ...parsed, select: [ast.alias('actor_id', ast.call('toString', [id]))] };
  const query = ast.select({ select: [ast.alias('actor_id', ast.field('h', 'actor_id'))], from: inner, fromAlias: 'h', groupBy: [ast.constant(1)] });
  return { query, groupTypeIndex: null, eventCount: false };
}
