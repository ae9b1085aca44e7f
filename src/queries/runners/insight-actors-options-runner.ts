/**
 * InsightActorsQueryOptions (PostHog's InsightActorsQueryOptionsRunner): the choices an InsightActorsQuery over an
 * insight can be asked for — its days, series, breakdown values and compare periods — so that a client can list them
 * before asking for the actors of one. PostHog asks the source insight's runner (`to_actors_query_options`); so does
 * this runner. Trends and lifecycle sources; the others (stickiness, funnels, retention, paths) are a 400 naming the
 * source kind, as long as PostHog's answer for them is not pinned down (reference silent).
 */
import { z } from 'zod';
import { validationError } from '../../errors';
import { dataNodeShape } from '../insights';
import type { QueryRunner } from '../runner';
import { funnelsActorsQuerySchema, insightActorsQuerySchema } from './actors-sources';
import { trendsActorsQueryOptions } from './trends-runner';
import { lifecycleActorsQueryOptions } from './lifecycle-runner';

/** `{kind: 'InsightActorsQueryOptions', source: InsightActorsQuery | FunnelsActorsQuery}` (strict). */
export const insightActorsQueryOptionsSchema = z
  .object({
    kind: z.literal('InsightActorsQueryOptions'),
    source: z.discriminatedUnion('kind', [insightActorsQuerySchema, funnelsActorsQuerySchema]),
    ...dataNodeShape,
  })
  .strict();
export type InsightActorsQueryOptionsNode = z.infer<typeof insightActorsQueryOptionsSchema>;

export const insightActorsOptionsRunner: QueryRunner<InsightActorsQueryOptionsNode> = {
  kinds: ['InsightActorsQueryOptions'],
  schema: insightActorsQueryOptionsSchema,
  queryOnly: true,
  async run(node, ctx) {
    const source = node.source.kind === 'InsightActorsQuery' ? node.source.source : node.source;
    if (source.kind === 'LifecycleQuery') return { ...(await lifecycleActorsQueryOptions(source, ctx)) };
    if (source.kind !== 'TrendsQuery')
      throw validationError(`InsightActorsQueryOptions is answered for TrendsQuery and LifecycleQuery sources; got ${source.kind}.`, 'source__source__kind', 'unsupported_query');
    return { ...(await trendsActorsQueryOptions(source, ctx)) };
  },
};
