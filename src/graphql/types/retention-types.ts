/** Typed GraphQL input and result of RetentionQuery (field names are PostHog's JSON keys). */
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { BreakdownFilterInput, InsightFiltersInput, PropertyFilterInput } from './insights-inputs';

@InputType('RetentionEntityInput', { description: 'An event (id = event name; null = all events) with optional filters.' })
export class RetentionEntityInput {
  @Field(() => String, { nullable: true, description: 'Event name. Default $pageview.' })
  id?: string | null;
  @Field(() => String, { nullable: true, description: 'events (default).' })
  type?: string | null;
  @Field(() => String, { nullable: true })
  name?: string | null;
  @Field(() => [PropertyFilterInput], { nullable: true })
  properties?: PropertyFilterInput[] | null;
}

@InputType('RetentionFilterInput')
export class RetentionFilterInput {
  @Field(() => String, { nullable: true, description: 'Hour | Day (default) | Week | Month' })
  period?: string | null;
  @Field(() => Int, { nullable: true, description: 'Intervals per cohort row (and rows without date_from). Default 8; null: 7.' })
  totalIntervals?: number | null;
  @Field(() => String, { nullable: true, description: 'retention_recurring (default) | retention_first_time | retention_first_ever_occurrence' })
  retentionType?: string | null;
  @Field(() => RetentionEntityInput, { nullable: true })
  targetEntity?: RetentionEntityInput | null;
  @Field(() => RetentionEntityInput, { nullable: true })
  returningEntity?: RetentionEntityInput | null;
  @Field(() => Int, { nullable: true, description: 'Returning events needed in an interval. Default 1.' })
  minimumOccurrences?: number | null;
  @Field(() => Boolean, { nullable: true, description: '"On or after" retention. Default false.' })
  cumulative?: boolean | null;
  @Field(() => String, { nullable: true, description: 'strict_calendar_dates (default) | 24_hour_windows' })
  timeWindowMode?: string | null;
  @Field(() => String, { nullable: true, description: 'total | previous (display only).' })
  retentionReference?: string | null;
  @Field(() => [Int], { nullable: true, description: 'Bracket sizes in periods after period 0, e.g. [1, 2, 3]: Day 0, Day 1, Day 2-3, Day 4-6.' })
  retentionCustomBrackets?: number[] | null;
  @Field(() => String, { nullable: true, description: 'count (default) | sum | avg of aggregationProperty.' })
  aggregationType?: string | null;
  @Field(() => String, { nullable: true })
  aggregationProperty?: string | null;
  @Field(() => String, { nullable: true, description: 'event (default) | person' })
  aggregationPropertyType?: string | null;
}

@InputType('RetentionQueryInput')
export class RetentionQueryInput extends InsightFiltersInput {
  @Field(() => RetentionFilterInput)
  retentionFilter!: RetentionFilterInput;
  @Field(() => Int, { nullable: true })
  aggregation_group_type_index?: number | null;
  @Field(() => BreakdownFilterInput, { nullable: true })
  breakdownFilter?: BreakdownFilterInput | null;
}

@ObjectType('RetentionValue')
export class RetentionValue {
  @Field(() => Int)
  count!: number;
  @Field(() => String, { description: 'Day 0, Day 1, ...' })
  label!: string;
  @Field(() => Float, { nullable: true, description: 'The sum or average of aggregationProperty (aggregationType sum | avg).' })
  aggregation_value?: number | null;
}

@ObjectType('RetentionCohort')
export class RetentionCohort {
  @Field(() => String)
  label!: string;
  @Field(() => String, { description: 'Cohort interval start, ISO datetime in the project timezone.' })
  date!: string;
  @Field(() => String, { nullable: true })
  breakdown_value!: string | null;
  @Field(() => [RetentionValue], { description: 'totalIntervals entries; the first is the cohort size.' })
  values!: RetentionValue[];
}

@ObjectType('RetentionResult')
export class RetentionResult {
  @Field(() => [RetentionCohort])
  results!: RetentionCohort[];
  @Field(() => String)
  hogql!: string;
  @Field(() => String)
  timezone!: string;
}
