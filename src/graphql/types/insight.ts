import { GraphQLJSON } from 'graphql-scalars';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import type { ActivityPage } from '../../insights/insight-service';
import type { InsightView } from '../../insights/insight-service';
import type { ActivityView, UserBasic } from '../../insights/activity';
import { QueryFreshness } from '../resolvers/query-resolver';
import { dropUndefined } from './project';
import { pageOf } from './page';

@ObjectType('UserBasic', { description: 'Who created or changed something.' })
export class UserBasicType {
  @Field(() => Int)
  id!: number;

  @Field()
  email!: string;

  @Field({ name: 'firstName' })
  first_name!: string;
}

/** The GraphQL face of {@link InsightView}: the same object, camelCase field names. */
@ObjectType('Insight', { description: 'A saved insight: a named query node with its latest result.' })
export class InsightType extends QueryFreshness {
  @Field(() => Int)
  id!: number;

  @Field({ description: '8 characters, unique in the project.' })
  shortId!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => String, { nullable: true, description: 'The auto-generated title.' })
  derivedName!: string | null;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => GraphQLJSON, { nullable: true, description: 'InsightVizNode, DataVisualizationNode, DataTableNode or a bare query node; null for an insight saved without one.' })
  query!: unknown;

  @Field(() => GraphQLJSON, { description: "PostHog's legacy filters of an insight saved with filters and no query (its query is what they convert to); {} otherwise." })
  filters!: unknown;

  @Field(() => [String])
  tags!: string[];

  @Field()
  favorited!: boolean;

  @Field()
  saved!: boolean;

  @Field()
  deleted!: boolean;

  @Field(() => Int, { nullable: true })
  order!: number | null;

  @Field()
  createdAt!: string;

  @Field(() => UserBasicType, { nullable: true })
  createdBy!: UserBasic | null;

  @Field()
  updatedAt!: string;

  @Field()
  lastModifiedAt!: string;

  @Field(() => UserBasicType, { nullable: true })
  lastModifiedBy!: UserBasic | null;

  @Field(() => GraphQLJSON, { nullable: true, description: "The query's results (null when not computed yet: refresh to compute)." })
  result!: unknown;

  @Field(() => GraphQLJSON, { nullable: true, description: 'Set while an async computation runs (id to poll with queryStatus).' })
  queryStatus!: unknown;
}

export const InsightPage = pageOf(InsightType, 'Insight');
export type InsightPage = InstanceType<typeof InsightPage>;

@InputType('InsightInput', { description: 'Writable insight fields; an absent field is left as is.' })
export class InsightInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  derivedName?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => GraphQLJSON, { nullable: true })
  query?: unknown;

  @Field(() => GraphQLJSON, { nullable: true, description: "PostHog's legacy filters, used when no query is given (converted as PostHog's filter_to_query)." })
  filters?: unknown;

  @Field(() => [String], { nullable: true })
  tags?: string[];

  @Field({ nullable: true })
  favorited?: boolean;

  @Field({ nullable: true })
  saved?: boolean;

  @Field({ nullable: true, description: 'true soft-deletes; false restores a deleted insight.' })
  deleted?: boolean;

  @Field(() => Int, { nullable: true })
  order?: number | null;
}

@ObjectType('ActivityChange')
export class ActivityChangeType {
  @Field()
  type!: string;

  @Field({ description: 'created, changed or deleted.' })
  action!: string;

  @Field(() => String, { nullable: true })
  field!: string | null;

  @Field(() => GraphQLJSON, { nullable: true })
  before!: unknown;

  @Field(() => GraphQLJSON, { nullable: true })
  after!: unknown;
}

@ObjectType('ActivityEntry', { description: 'Who changed an item, when, and how.' })
export class ActivityEntryType {
  @Field(() => Int)
  id!: number;

  @Field(() => UserBasicType, { nullable: true })
  user!: UserBasic | null;

  @Field({ description: 'created, updated, deleted or restored.' })
  activity!: string;

  @Field()
  scope!: string;

  @Field()
  itemId!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => [ActivityChangeType])
  changes!: ActivityChangeType[];

  @Field()
  createdAt!: string;
}

@ObjectType('ActivityPage')
export class ActivityPageType {
  @Field(() => Int)
  totalCount!: number;

  @Field(() => [ActivityEntryType])
  results!: ActivityEntryType[];
}

export const insightOf = (v: InsightView): InsightType => ({
  id: v.id,
  shortId: v.short_id,
  name: v.name,
  derivedName: v.derived_name,
  description: v.description,
  query: v.query,
  filters: v.filters,
  tags: v.tags,
  favorited: v.favorited,
  saved: v.saved,
  deleted: v.deleted,
  order: v.order,
  createdAt: v.created_at,
  createdBy: v.created_by,
  updatedAt: v.updated_at,
  lastModifiedAt: v.last_modified_at,
  lastModifiedBy: v.last_modified_by,
  result: v.result ?? null,
  queryStatus: v.query_status ?? null,
  isCached: v.is_cached,
  lastRefresh: v.last_refresh ?? undefined,
  nextAllowedClientRefresh: v.next_allowed_client_refresh ?? undefined,
  cacheTargetAge: v.cache_target_age ?? undefined,
  cacheKey: v.cache_key ?? v.filters_hash ?? undefined,
  timezone: v.timezone,
});

const entryOf = (a: ActivityView): ActivityEntryType => ({
  id: a.id,
  user: a.user,
  activity: a.activity,
  scope: a.scope,
  itemId: a.item_id,
  name: a.detail.name,
  changes: a.detail.changes ?? [],
  createdAt: a.created_at,
});

export const activityPageOf = (p: ActivityPage): ActivityPageType => ({ totalCount: p.total_count, results: p.results.map(entryOf) });

/** The REST-shaped body the service validates. */
export const insightInputBody = (i: InsightInput): Record<string, unknown> =>
  dropUndefined({
    name: i.name,
    derived_name: i.derivedName,
    description: i.description,
    query: i.query,
    filters: i.filters,
    tags: i.tags,
    favorited: i.favorited,
    saved: i.saved,
    deleted: i.deleted,
    order: i.order,
  });
