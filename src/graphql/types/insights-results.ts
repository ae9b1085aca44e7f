/**
 * Typed GraphQL results of the insight queries: the PostHog response items with their JSON key names.
 * `breakdown_value` is a string (multi-breakdowns joined with `::`); `breakdown_values` always lists the parts.
 */
import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType('InsightSeriesAction', { description: 'The series a result item belongs to (null for formula items).' })
export class InsightSeriesAction {
  @Field(() => String, { nullable: true, description: 'Event name; null for all events.' })
  id!: string | null;
  @Field(() => String)
  type!: string;
  @Field(() => Int)
  order!: number;
  @Field(() => String, { nullable: true })
  name!: string | null;
  @Field(() => String, { nullable: true })
  custom_name!: string | null;
  @Field(() => String, { nullable: true })
  math!: string | null;
  @Field(() => String, { nullable: true })
  math_property!: string | null;
  @Field(() => String, { nullable: true })
  math_hogql!: string | null;
}

@ObjectType('ResolvedDateRange')
export class ResolvedDateRange {
  @Field(() => String)
  date_from!: string;
  @Field(() => String)
  date_to!: string;
}

@ObjectType('TrendsResultItem')
export class TrendsResultItem {
  @Field(() => String)
  label!: string;
  @Field(() => [Float], { description: 'One value per bucket; empty for total-value displays.' })
  data!: number[];
  @Field(() => [String], { description: 'Bucket starts: YYYY-MM-DD, or YYYY-MM-DD HH:MM:SS for hour/minute.' })
  days!: string[];
  @Field(() => [String], { nullable: true })
  labels!: string[] | null;
  @Field(() => Float, { description: 'Sum of data (last value for cumulative); 0 for total-value displays.' })
  count!: number;
  @Field(() => Float, { nullable: true, description: 'Total-value displays (BoldNumber, ActionsPie, ...).' })
  aggregated_value!: number | null;
  @Field(() => String, { nullable: true })
  breakdown_value!: string | null;
  @Field(() => [String], { nullable: true })
  breakdown_values!: string[] | null;
  @Field(() => Boolean, { nullable: true })
  compare!: boolean | null;
  @Field(() => String, { nullable: true, description: 'current | previous' })
  compare_label!: string | null;
  @Field(() => InsightSeriesAction, { nullable: true })
  action!: InsightSeriesAction | null;
}

@ObjectType('TrendsResult')
export class TrendsResult {
  @Field(() => [TrendsResultItem])
  results!: TrendsResultItem[];
  @Field(() => Boolean, { description: 'True when an Other breakdown bucket exists.' })
  hasMore!: boolean;
  @Field(() => String, { description: 'The ProductQL of the (first) query run.' })
  hogql!: string;
  @Field(() => ResolvedDateRange)
  resolved_date_range!: ResolvedDateRange;
  @Field(() => String)
  timezone!: string;
}

@ObjectType('StickinessResultItem')
export class StickinessResultItem {
  @Field(() => String)
  label!: string;
  @Field(() => [Float], { description: 'data[k-1]: actors active in exactly k intervals (≥ k when cumulative).' })
  data!: number[];
  @Field(() => [Int])
  days!: number[];
  @Field(() => [String])
  labels!: string[];
  @Field(() => Float)
  count!: number;
  @Field(() => Boolean, { nullable: true })
  compare!: boolean | null;
  @Field(() => String, { nullable: true })
  compare_label!: string | null;
  @Field(() => InsightSeriesAction, { nullable: true })
  action!: InsightSeriesAction | null;
}

@ObjectType('StickinessResult')
export class StickinessResult {
  @Field(() => [StickinessResultItem])
  results!: StickinessResultItem[];
  @Field(() => String)
  hogql!: string;
  @Field(() => ResolvedDateRange)
  resolved_date_range!: ResolvedDateRange;
  @Field(() => String)
  timezone!: string;
}

@ObjectType('LifecycleResultItem')
export class LifecycleResultItem {
  @Field(() => String)
  label!: string;
  @Field(() => String, { description: 'new | returning | resurrecting | dormant' })
  status!: string;
  @Field(() => [Float], { description: 'Actors per bucket; negative for dormant.' })
  data!: number[];
  @Field(() => [String])
  days!: string[];
  @Field(() => [String])
  labels!: string[];
  @Field(() => Float)
  count!: number;
  @Field(() => InsightSeriesAction, { nullable: true })
  action!: InsightSeriesAction | null;
}

@ObjectType('LifecycleResult')
export class LifecycleResult {
  @Field(() => [LifecycleResultItem])
  results!: LifecycleResultItem[];
  @Field(() => String)
  hogql!: string;
  @Field(() => ResolvedDateRange)
  resolved_date_range!: ResolvedDateRange;
  @Field(() => String)
  timezone!: string;
}
