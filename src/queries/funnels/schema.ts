import { z } from 'zod';
import { LIMIT_CODES, MAX_FUNNEL_EXCLUSIONS, MAX_FUNNEL_STEPS, maxItems } from '../../limits';
import { actionsNodeSchema, anyPropertyFilterSchema, breakdownFilterSchema, eventsNodeSchema, groupNodeSchema, insightBaseShape, intervalSchema } from '../insights';

/**
 * An exclusion: PostHog's FunnelExclusionEventsNode / FunnelExclusionActionsNode, i.e. a whole EventsNode or ActionsNode
 * (every series field accepted; math and display fields have no effect) plus the step range it applies to. An `id` on
 * an events exclusion (what some legacy-filter conversions leave) is tolerated and unused.
 */
const exclusionRange = { funnelFromStep: z.number().int(), funnelToStep: z.number().int() };
export const funnelExclusionSchema = z.discriminatedUnion('kind', [
  eventsNodeSchema.extend({ ...exclusionRange, id: z.union([z.number(), z.string()]).optional() }),
  actionsNodeSchema.extend(exclusionRange),
]);

export const funnelsFilterSchema = z
  .object({
    funnelVizType: z.enum(['steps', 'trends', 'time_to_convert']).nullable().optional(),
    funnelOrderType: z.enum(['ordered', 'strict', 'unordered']).nullable().optional(),
    // 0 is accepted and read as the default (PostHog's FunnelQueryContext: `funnelWindowInterval or 14`)
    funnelWindowInterval: z.number().int().min(0).nullable().optional(),
    funnelWindowIntervalUnit: z.enum(['second', 'minute', 'hour', 'day', 'week', 'month']).nullable().optional(),
    exclusions: z.array(funnelExclusionSchema).superRefine(maxItems(MAX_FUNNEL_EXCLUSIONS, LIMIT_CODES.tooManyExclusions, 'funnel exclusions')).nullable().optional(),
    breakdownAttributionType: z.enum(['first_touch', 'last_touch', 'all_events', 'step']).nullable().optional(),
    breakdownAttributionValue: z.number().int().nullable().optional(),
    funnelFromStep: z.number().int().nullable().optional(),
    funnelToStep: z.number().int().nullable().optional(),
    binCount: z.number().int().nullable().optional(),
    funnelAggregateByHogQL: z.string().nullable().optional(),
    funnelStepReference: z.enum(['total', 'previous']).nullable().optional(),
    layout: z.string().nullable().optional(),
    hiddenLegendBreakdowns: z.array(z.string()).nullable().optional(),
    resultCustomizations: z.unknown().optional(),
    goalLines: z.unknown().optional(),
    showLegend: z.boolean().nullable().optional(),
    showValuesOnSeries: z.boolean().nullable().optional(),
    useUdf: z.boolean().nullable().optional(),
    breakdownSorting: z.unknown().optional(),
  })
  .strict();

export const funnelsQuerySchema = z
  .object({
    kind: z.literal('FunnelsQuery'),
    // A GroupNode step is one step matched by an event of any of its nodes (PostHog's FunnelsQuery series accept it).
    series: z
      .array(z.discriminatedUnion('kind', [eventsNodeSchema, actionsNodeSchema, groupNodeSchema]))
      .min(1)
      .superRefine(maxItems(MAX_FUNNEL_STEPS, LIMIT_CODES.tooManySteps, 'funnel steps')),
    interval: intervalSchema.nullish(),
    breakdownFilter: breakdownFilterSchema.nullable().optional(),
    funnelsFilter: funnelsFilterSchema.nullable().optional(),
    ...insightBaseShape,
  })
  .strict();

export type FunnelsQueryNode = z.infer<typeof funnelsQuerySchema>;
