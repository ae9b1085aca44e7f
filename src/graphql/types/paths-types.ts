/** Typed GraphQL input and result of PathsQuery (field names are PostHog's JSON keys). */
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { FunnelsQueryInput } from './funnels-types';
import { InsightFiltersInput } from './insights-inputs';

@InputType('PathCleaningFilterInput')
export class PathCleaningFilterInput {
  @Field(() => String)
  regex!: string;
  @Field(() => String, { nullable: true })
  alias?: string | null;
  @Field(() => Int, { nullable: true })
  order?: number | null;
}

@InputType('PathsFilterInput')
export class PathsFilterInput {
  @Field(() => [String], { nullable: true, description: '$pageview | $screen | custom_event | hogql. Default: all events.' })
  includeEventTypes?: string[] | null;
  @Field(() => String, { nullable: true })
  startPoint?: string | null;
  @Field(() => String, { nullable: true })
  endPoint?: string | null;
  @Field(() => Int, { nullable: true, description: 'Items per path. Default 5.' })
  stepLimit?: number | null;
  @Field(() => Int, { nullable: true, description: 'Edges returned. Default 50.' })
  edgeLimit?: number | null;
  @Field(() => Int, { nullable: true })
  minEdgeWeight?: number | null;
  @Field(() => Int, { nullable: true })
  maxEdgeWeight?: number | null;
  @Field(() => [String], { nullable: true })
  excludeEvents?: string[] | null;
  @Field(() => [String], { nullable: true, description: 'Wildcard (*) patterns; a matching item becomes the pattern.' })
  pathGroupings?: string[] | null;
  @Field(() => Boolean, { nullable: true, description: "Apply the project's path cleaning rules. Default false." })
  pathReplacements?: boolean | null;
  @Field(() => [PathCleaningFilterInput], { nullable: true })
  localPathCleaningFilters?: PathCleaningFilterInput[] | null;
  @Field(() => String, { nullable: true })
  pathsHogQLExpression?: string | null;
}

@InputType('FunnelPathsFilterInput')
export class FunnelPathsFilterInput {
  @Field(() => String, { description: 'funnel_path_before_step | funnel_path_between_steps | funnel_path_after_step' })
  funnelPathType!: string;
  @Field(() => FunnelsQueryInput)
  funnelSource!: FunnelsQueryInput;
  @Field(() => Int, { nullable: true, description: '1-based step; negative: the actors who dropped off before step |n|.' })
  funnelStep?: number | null;
}

@InputType('PathsQueryInput')
export class PathsQueryInput extends InsightFiltersInput {
  @Field(() => PathsFilterInput)
  pathsFilter!: PathsFilterInput;
  @Field(() => FunnelPathsFilterInput, { nullable: true, description: 'Paths before, after or between the steps of a funnel, for its actors.' })
  funnelPathsFilter?: FunnelPathsFilterInput | null;
}

@ObjectType('PathsLink')
export class PathsLink {
  @Field(() => String, { description: '"<step>_<item>", step 1-based.' })
  source!: string;
  @Field(() => String)
  target!: string;
  @Field(() => Int)
  value!: number;
  @Field(() => Float, { description: 'Milliseconds.' })
  average_conversion_time!: number;
}

@ObjectType('PathsResult')
export class PathsResult {
  @Field(() => [PathsLink])
  results!: PathsLink[];
  @Field(() => String)
  hogql!: string;
  @Field(() => String)
  timezone!: string;
}
