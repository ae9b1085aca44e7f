import { GraphQLJSON } from 'graphql-scalars';
import { Field, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType('EndpointColumn', { description: 'A result column: name and type (integer, float, string, datetime, date, boolean, array, json, unknown).' })
export class EndpointColumnType {
  @Field()
  name!: string;

  @Field()
  type!: string;
}

@ObjectType('EndpointColumnChange')
export class EndpointColumnChangeType {
  @Field()
  name!: string;

  @Field()
  from!: string;

  @Field()
  to!: string;
}

@ObjectType('EndpointColumnChanges', { description: "How a version's columns differ from the previous version's." })
export class EndpointColumnChangesType {
  @Field(() => [EndpointColumnType])
  added!: EndpointColumnType[];

  @Field(() => [EndpointColumnType])
  removed!: EndpointColumnType[];

  @Field(() => [EndpointColumnChangeType])
  retyped!: EndpointColumnChangeType[];
}

@ObjectType('EndpointVariable', { description: 'A variable a run accepts: `{variables.<name>}` in ProductQL, or a magic insight variable.' })
export class EndpointVariableType {
  @Field()
  name!: string;

  @Field({ description: 'String, Number, Boolean, List or Date.' })
  type!: string;

  @Field(() => GraphQLJSON, { name: 'default', nullable: true })
  default?: unknown;

  @Field({ description: 'A required variable must be sent (or fixed by the key). Default: true when there is no default value.' })
  required!: boolean;

  @Field(() => String, { nullable: true })
  description?: string | null;
}

@InputType('EndpointVariableInput')
export class EndpointVariableInput {
  @Field()
  name!: string;

  @Field({ description: 'String, Number, Boolean, List or Date.' })
  type!: string;

  @Field(() => GraphQLJSON, { name: 'default', nullable: true })
  default?: unknown;

  @Field({ nullable: true })
  required?: boolean;

  @Field({ nullable: true })
  description?: string;
}

@ObjectType('EndpointVersion', { description: 'An immutable query snapshot of an endpoint, with its per-version settings.' })
export class EndpointVersionType {
  @Field(() => Int)
  version!: number;

  @Field()
  id!: string;

  @Field(() => GraphQLJSON)
  query!: unknown;

  @Field()
  description!: string;

  @Field(() => Int)
  dataFreshnessSeconds!: number;

  @Field()
  isActive!: boolean;

  @Field(() => [EndpointVariableType])
  variables!: EndpointVariableType[];

  @Field(() => [EndpointColumnType])
  columns!: EndpointColumnType[];

  @Field(() => EndpointColumnChangesType, { nullable: true })
  columnChanges!: EndpointColumnChangesType | null;

  @Field()
  createdAt!: string;

  @Field(() => String, { nullable: true })
  lastExecutedAt!: string | null;
}

@ObjectType('Endpoint', { description: 'A named, published, versioned query (PostHog Endpoints).' })
export class EndpointType {
  /** Not a field: lets `versions` and `openapi` resolve in the right project. */
  projectId!: number;

  @Field()
  id!: string;

  @Field()
  name!: string;

  @Field()
  description!: string;

  @Field(() => GraphQLJSON, { description: 'The query node of the current version.' })
  query!: unknown;

  @Field()
  isActive!: boolean;

  @Field(() => Int)
  currentVersion!: number;

  @Field(() => Int)
  versionsCount!: number;

  @Field(() => Int)
  dataFreshnessSeconds!: number;

  @Field()
  endpointPath!: string;

  @Field(() => [EndpointVariableType])
  variables!: EndpointVariableType[];

  @Field(() => [EndpointColumnType])
  columns!: EndpointColumnType[];

  @Field(() => [String])
  tags!: string[];

  @Field()
  createdAt!: string;

  @Field()
  updatedAt!: string;

  @Field(() => String, { nullable: true })
  lastExecutedAt!: string | null;
}

@InputType('CreateEndpointInput')
export class CreateEndpointInput {
  @Field()
  name!: string;

  @Field(() => GraphQLJSON, { description: 'A ProductQLQuery/HogQLQuery node or an insight query node.' })
  query!: unknown;

  @Field({ nullable: true })
  description?: string;

  @Field(() => [EndpointVariableInput], { nullable: true })
  variables?: EndpointVariableInput[];

  @Field(() => Int, { nullable: true, description: 'Cache TTL: 900, 1800, 3600, 21600, 43200, 86400 (default) or 604800.' })
  dataFreshnessSeconds?: number;

  @Field({ nullable: true })
  isActive?: boolean;

  @Field(() => [String], { nullable: true })
  tags?: string[];
}

@InputType('UpdateEndpointInput', { description: 'A changed query (or variables) creates a new version; with `version`, settings apply to that version.' })
export class UpdateEndpointInput {
  @Field({ nullable: true })
  name?: string;

  @Field(() => GraphQLJSON, { nullable: true })
  query?: unknown;

  @Field({ nullable: true })
  description?: string;

  @Field(() => [EndpointVariableInput], { nullable: true })
  variables?: EndpointVariableInput[];

  @Field(() => Int, { nullable: true })
  dataFreshnessSeconds?: number;

  @Field({ nullable: true })
  isActive?: boolean;

  @Field(() => [String], { nullable: true })
  tags?: string[];

  @Field(() => Int, { nullable: true, description: 'Targets a version: description, freshness and isActive apply to it only.' })
  version?: number;
}

@ObjectType('EndpointRunResult', { description: 'The rows of a run, with typed columns.' })
export class EndpointRunResultType {
  @Field(() => [EndpointColumnType], { description: 'Result columns with their types (the version\'s, for insight kinds).' })
  columns!: EndpointColumnType[];

  @Field(() => [GraphQLJSON], { description: 'Each row: an array in column order (ProductQL) or the insight\'s result object.' })
  rows!: unknown[];

  @Field(() => [GraphQLJSON], { description: 'Each row as an object keyed by column name.' })
  objects!: unknown[];

  @Field()
  hasMore!: boolean;

  @Field(() => Int)
  endpointVersion!: number;

  @Field()
  endpointVersionCreatedAt!: string;

  @Field()
  executionId!: string;

  @Field()
  isCached!: boolean;

  @Field()
  lastRefresh!: string;

  @Field()
  cacheTargetAge!: string;

  @Field()
  timezone!: string;
}
