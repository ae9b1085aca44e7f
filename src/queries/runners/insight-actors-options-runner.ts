/**
 * InsightActorsQueryOptions (PostHog's InsightActorsQueryOptionsRunner): the choices an InsightActorsQuery over an
 * insight can be asked for — its days, statuses, retention intervals, series, breakdown values and compare periods —
 * so that a client can list them before asking for the actors of one. PostHog asks the source insight's runner
 * (`to_actors_query_options`): trends, lifecycle, stickiness and retention have one; any other source (funnels, paths)
 * answers PostHog's InsightActorsQueryOptionsResponse with every option null. Every answer carries all seven keys, as
 * PostHog's response model does (a key without options for the source is null).
 */
import { z } from 'zod';
import { dataNodeShape, ensureFilterParser, isCompare, resolveSeries, seriesLabel, type StickinessQuery } from '../insights';
import type { QueryRunner, RunnerContext } from '../runner';
import { funnelsActorsQuerySchema, insightActorsQuerySchema } from './actors-sources';
import { trendsActorsQueryOptions } from './trends-runner';
import { lifecycleActorsQueryOptions } from './lifecycle-runner';
import { retentionRange } from './retention-runner';
import type { RetentionQueryNode } from '../retention/schema';

/** `{kind: 'InsightActorsQueryOptions', source: InsightActorsQuery | FunnelsActorsQuery}` (strict). */
export const insightActorsQueryOptionsSchema = z
  .object({
    kind: z.literal('InsightActorsQueryOptions'),
    source: z.discriminatedUnion('kind', [insightActorsQuerySchema, funnelsActorsQuerySchema]),
    ...dataNodeShape,
  })
  .strict();
export type InsightActorsQueryOptionsNode = z.infer<typeof insightActorsQueryOptionsSchema>;

/** PostHog's InsightActorsQueryOptionsResponse() with nothing set: the answer for a source without options. */
const NO_OPTIONS = { day: null, status: null, interval: null, breakdown: null, breakdowns: null, series: null, compare: null };

const COMPARE_OPTIONS = [
  { label: 'Current', value: 'current' },
  { label: 'Previous', value: 'previous' },
];

/**
 * StickinessQueryRunner.to_actors_query_options: the series (labelled by their event, `All events` or the action's
 * name) and, when the insight compares, Current/Previous. No days: a stickiness point's `day` is a number of intervals.
 */
async function stickinessActorsQueryOptions(node: StickinessQuery, ctx: RunnerContext) {
  await ensureFilterParser();
  const dropped = new Set<number>();
  const series = await resolveSeries(node.series, ctx, 'drop', dropped);
  return {
    series: series.map((s, i) => ({ label: seriesLabel(s), value: i })).filter((_, i) => !dropped.has(i)),
    compare: isCompare(node.compareFilter) ? COMPARE_OPTIONS : null,
  };
}

/**
 * RetentionQueryRunner.to_actors_query_options: one option per cohort row of the insight, labelled as the row is
 * (`Day 0`, `Week 1`, ...) and valued by its index (the InsightActorsQuery's `interval`).
 */
function retentionActorsQueryOptions(node: RetentionQueryNode, ctx: RunnerContext) {
  const period = node.retentionFilter.period ?? 'Day';
  const { buckets } = retentionRange(node, ctx.project.timezone, ctx.project.week_start_day ?? 0);
  return { interval: buckets.map((_, i) => ({ label: `${period} ${i}`, value: i })) };
}

export const insightActorsOptionsRunner: QueryRunner<InsightActorsQueryOptionsNode> = {
  kinds: ['InsightActorsQueryOptions'],
  schema: insightActorsQueryOptionsSchema,
  queryOnly: true,
  async run(node, ctx) {
    const source = node.source.source;
    switch (source.kind) {
      case 'TrendsQuery':
        return { ...NO_OPTIONS, ...(await trendsActorsQueryOptions(source, ctx)) };
      case 'LifecycleQuery':
        return { ...NO_OPTIONS, ...(await lifecycleActorsQueryOptions(source, ctx)) };
      case 'StickinessQuery':
        return { ...NO_OPTIONS, ...(await stickinessActorsQueryOptions(source, ctx)) };
      case 'RetentionQuery':
        return { ...NO_OPTIONS, ...retentionActorsQueryOptions(source, ctx) };
      default:
        return { ...NO_OPTIONS };
    }
  },
};
