/**
 * Typed GraphQL input and result of FunnelsQuery. Input field names are PostHog's JSON keys, so the input (minus
 * unset fields) is the query node the REST face sends to the same runner.
 */
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { BreakdownFilterInput, InsightFiltersInput, PropertyFilterInput } from './insights-inputs';
import { ResolvedDateRange } from './insights-results';

@InputType('FunnelStepInput', { description: 'One funnel step: an event (null = all events) with optional filters.' })
export class FunnelStepInput {
  @Field(() => String, { nullable: true, description: 'Always EventsNode (the default).' })
  kind?: string | null;
  @Field(() => String, { nullable: true })
  event?: string | null;
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => String, { nullable: true })
  custom_name?: string | null;
  @Field(() => [PropertyFilterInput], { nullable: true })
  properties?: PropertyFilterInput[] | null;
  @Field(() => Boolean, { nullable: true, description: 'The step may be skipped (steps viz, ordered/strict). Default false.' })
  optionalInFunnel?: boolean | null;
}

@InputType('FunnelExclusionInput', { description: 'An event that disqualifies a sequence between two steps.' })
export class FunnelExclusionInput {
  @Field(() => String, { nullable: true, description: 'Always EventsNode (the default).' })
  kind?: string | null;
  @Field(() => String, { nullable: true })
  event?: string | null;
  @Field(() => [PropertyFilterInput], { nullable: true })
  properties?: PropertyFilterInput[] | null;
  @Field(() => Int)
  funnelFromStep!: number;
  @Field(() => Int)
  funnelToStep!: number;
}

@InputType('FunnelsFilterInput')
export class FunnelsFilterInput {
  @Field(() => String, { nullable: true, description: 'steps (default) | trends | time_to_convert' })
  funnelVizType?: string | null;
  @Field(() => String, { nullable: true, description: 'ordered (default) | strict | unordered' })
  funnelOrderType?: string | null;
  @Field(() => Int, { nullable: true, description: 'Conversion window length. Default 14.' })
  funnelWindowInterval?: number | null;
  @Field(() => String, { nullable: true, description: 'second | minute | hour | day (default) | week | month (31 days)' })
  funnelWindowIntervalUnit?: string | null;
  @Field(() => [FunnelExclusionInput], { nullable: true })
  exclusions?: FunnelExclusionInput[] | null;
  @Field(() => String, { nullable: true, description: 'first_touch (default) | last_touch | all_events | step' })
  breakdownAttributionType?: string | null;
  @Field(() => Int, { nullable: true, description: 'Step index for step attribution.' })
  breakdownAttributionValue?: number | null;
  @Field(() => Int, { nullable: true, description: 'trends/time_to_convert: from step. Default 0.' })
  funnelFromStep?: number | null;
  @Field(() => Int, { nullable: true, description: 'trends/time_to_convert: to step. Default the last.' })
  funnelToStep?: number | null;
  @Field(() => Int, { nullable: true, description: 'time_to_convert bins (1..90). Default ceil(cbrt(n)), at most 60.' })
  binCount?: number | null;
  @Field(() => String, { nullable: true, description: 'Aggregate by this ProductQL expression instead of the person.' })
  funnelAggregateByHogQL?: string | null;
  @Field(() => String, { nullable: true, description: 'total | previous (display only).' })
  funnelStepReference?: string | null;
}

@InputType('FunnelsQueryInput')
export class FunnelsQueryInput extends InsightFiltersInput {
  @Field(() => [FunnelStepInput])
  series!: FunnelStepInput[];
  @Field(() => String, { nullable: true, description: 'minute | hour | day (default) | week | month (trends viz buckets).' })
  interval?: string | null;
  @Field(() => Int, { nullable: true })
  aggregation_group_type_index?: number | null;
  @Field(() => BreakdownFilterInput, { nullable: true })
  breakdownFilter?: BreakdownFilterInput | null;
  @Field(() => FunnelsFilterInput, { nullable: true })
  funnelsFilter?: FunnelsFilterInput | null;
}

@ObjectType('FunnelStep')
export class FunnelStep {
  @Field(() => String, { nullable: true, description: 'Event name (null for all events and unordered funnels).' })
  action_id!: string | null;
  @Field(() => String, { nullable: true, description: 'Step event name (null for an all-events step, as in PostHog).' })
  name!: string | null;
  @Field(() => String, { nullable: true })
  custom_name!: string | null;
  @Field(() => Int)
  order!: number;
  @Field(() => Int, { description: 'Actors who completed this step.' })
  count!: number;
  @Field(() => String)
  type!: string;
  @Field(() => Float, { nullable: true, description: 'Seconds from the previous step.' })
  average_conversion_time!: number | null;
  @Field(() => Float, { nullable: true })
  median_conversion_time!: number | null;
  @Field(() => [String], { nullable: true, description: 'Boxed breakdown value, e.g. ["Chrome"]; [""] for none; ["Other"].' })
  breakdown_value!: string[] | null;
}

@ObjectType('FunnelBreakdownSteps')
export class FunnelBreakdownSteps {
  @Field(() => [String])
  breakdown_value!: string[];
  @Field(() => [FunnelStep])
  steps!: FunnelStep[];
}

@ObjectType('FunnelTrendsItem')
export class FunnelTrendsItem {
  @Field(() => Int)
  count!: number;
  @Field(() => [Float], { description: 'Conversion rate % per entrance period.' })
  data!: number[];
  @Field(() => [String])
  days!: string[];
  @Field(() => [String])
  labels!: string[];
  @Field(() => [String], { nullable: true })
  breakdown_value!: string[] | null;
}

@ObjectType('FunnelTimeBin')
export class FunnelTimeBin {
  @Field(() => Float, { description: 'Bin start in seconds.' })
  bin!: number;
  @Field(() => Int)
  count!: number;
}

@ObjectType('FunnelTimeToConvert')
export class FunnelTimeToConvert {
  @Field(() => [FunnelTimeBin])
  bins!: FunnelTimeBin[];
  @Field(() => Float, { nullable: true })
  average_conversion_time!: number | null;
  @Field(() => Float, { nullable: true })
  median_conversion_time!: number | null;
}

@ObjectType('FunnelsResult', { description: 'One of steps / breakdowns / trends / timeToConvert is set, per funnelVizType.' })
export class FunnelsResult {
  @Field(() => [FunnelStep], { nullable: true, description: 'steps viz without breakdown ([] when nobody entered).' })
  steps!: FunnelStep[] | null;
  @Field(() => [FunnelBreakdownSteps], { nullable: true, description: 'steps viz with a breakdown.' })
  breakdowns!: FunnelBreakdownSteps[] | null;
  @Field(() => [FunnelTrendsItem], { nullable: true })
  trends!: FunnelTrendsItem[] | null;
  @Field(() => FunnelTimeToConvert, { nullable: true })
  timeToConvert!: FunnelTimeToConvert | null;
  @Field(() => String)
  hogql!: string;
  @Field(() => ResolvedDateRange, { nullable: true })
  resolved_date_range!: ResolvedDateRange | null;
  @Field(() => String)
  timezone!: string;
}
