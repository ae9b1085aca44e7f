import { z } from 'zod';
import { breakdownFilterSchema, insightBaseShape, propertiesSchema } from '../insights';

export const retentionEntitySchema = z
  .object({
    id: z.union([z.string(), z.number()]).nullable().optional(),
    type: z.enum(['events', 'actions']).nullable().optional(),
    name: z.string().nullable().optional(),
    custom_name: z.string().nullable().optional(),
    kind: z.enum(['EventsNode', 'ActionsNode']).nullable().optional(),
    order: z.number().nullable().optional(),
    uuid: z.string().nullable().optional(),
    properties: propertiesSchema,
  })
  .strict();
export type RetentionEntity = z.infer<typeof retentionEntitySchema>;

export const retentionFilterSchema = z
  .object({
    period: z.enum(['Hour', 'Day', 'Week', 'Month']).nullable().optional(),
    totalIntervals: z.number().int().min(0).max(500).nullable().optional(),
    retentionType: z.enum(['retention_first_time', 'retention_recurring', 'retention_first_ever_occurrence']).nullable().optional(),
    targetEntity: retentionEntitySchema.nullable().optional(),
    returningEntity: retentionEntitySchema.nullable().optional(),
    retentionReference: z.enum(['total', 'previous']).nullable().optional(),
    minimumOccurrences: z.number().int().min(1).nullable().optional(),
    cumulative: z.boolean().nullable().optional(),
    timeWindowMode: z.enum(['strict_calendar_dates', '24_hour_windows']).nullable().optional(),
    retentionCustomBrackets: z.array(z.number()).nullable().optional(),
    aggregationType: z.enum(['count', 'sum', 'avg']).nullable().optional(),
    aggregationProperty: z.string().nullable().optional(),
    aggregationPropertyType: z.enum(['event', 'person', 'data_warehouse']).nullable().optional(),
    /** Display only (how the UI averages the cohorts); PostHog's MeanRetentionCalculation enum. */
    meanRetentionCalculation: z.enum(['simple', 'weighted', 'none']).nullable().optional(),
    display: z.string().nullable().optional(),
    showTrendLines: z.boolean().nullable().optional(),
    selectedInterval: z.number().nullable().optional(),
    cohortLabelStartIndex: z.number().nullable().optional(),
    dashboardDisplay: z.unknown().optional(),
    showMean: z.unknown().optional(),
  })
  .strict();

export const retentionQuerySchema = z
  .object({
    kind: z.literal('RetentionQuery'),
    retentionFilter: retentionFilterSchema,
    breakdownFilter: breakdownFilterSchema.nullable().optional(),
    ...insightBaseShape,
  })
  .strict();

export type RetentionQueryNode = z.infer<typeof retentionQuerySchema>;
