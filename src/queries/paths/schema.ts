import { z } from 'zod';
import { checkRegexValue } from '../../limits';
import { insightBaseShape } from '../insights';
import { funnelsQuerySchema } from '../funnels/schema';

export const pathCleaningFilterSchema = z
  .object({ alias: z.string().nullish(), regex: z.string().nullish(), order: z.number().nullish() })
  .strict()
  .superRefine((f, ctx) => checkRegexValue(f.regex, ctx, ['regex']));

export const pathsFilterSchema = z
  .object({
    includeEventTypes: z.array(z.enum(['$pageview', '$screen', 'custom_event', 'hogql'])).nullish(),
    startPoint: z.string().nullish(),
    endPoint: z.string().nullish(),
    stepLimit: z.number().int().min(2).max(20).nullish(),
    edgeLimit: z.number().int().min(1).max(10_000).nullish(),
    minEdgeWeight: z.number().int().nullish(),
    maxEdgeWeight: z.number().int().nullish(),
    excludeEvents: z.array(z.string()).nullish(),
    pathGroupings: z.array(z.string()).nullish(),
    pathReplacements: z.boolean().nullish(),
    localPathCleaningFilters: z.array(pathCleaningFilterSchema).nullish(),
    pathsHogQLExpression: z.string().nullish(),
    pathStartKey: z.string().nullish(),
    pathEndKey: z.string().nullish(),
    pathDropoffKey: z.string().nullish(),
  })
  .strict();

/** PostHog's FunnelPathsFilter: paths before, after or between the steps of a funnel, for the funnel's actors. */
export const funnelPathsFilterSchema = z
  .object({
    funnelPathType: z.enum(['funnel_path_before_step', 'funnel_path_between_steps', 'funnel_path_after_step']),
    funnelSource: funnelsQuerySchema,
    /** 1-based step; negative: the actors who dropped off before step |n| (−2 is the first valid one). */
    funnelStep: z.number().int().nullish(),
  })
  .strict();
export type FunnelPathsFilter = z.infer<typeof funnelPathsFilterSchema>;

export const pathsQuerySchema = z
  .object({
    kind: z.literal('PathsQuery'),
    pathsFilter: pathsFilterSchema,
    funnelPathsFilter: funnelPathsFilterSchema.nullish(),
    ...insightBaseShape,
  })
  .strict();

export type PathsQueryNode = z.infer<typeof pathsQuerySchema>;
