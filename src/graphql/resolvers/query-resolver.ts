import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Ctx, Field, Float, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { parsePage } from '../../pagination';
import type { QueryStatus } from '../../queries/async-queries';
import type { GraphQLContext } from '../context';
import { pageOf } from '../types/page';

@ObjectType('ProductQLColumn')
class ProductQLColumnType {
  @Field()
  name!: string;

  @Field({ description: "ClickHouse-style type name, e.g. 'Nullable(String)', 'UInt64', \"DateTime64(6, 'UTC')\"." })
  type!: string;
}

/** The freshness envelope every query answer carries. */
@ObjectType('QueryFreshness')
export class QueryFreshness {
  @Field({ nullable: true, description: 'True when answered from the result cache.' })
  isCached?: boolean;

  @Field({ nullable: true, description: 'When the answer was computed.' })
  lastRefresh?: string;

  @Field({ nullable: true, description: 'Before this time a forced refresh is unlikely to be useful.' })
  nextAllowedClientRefresh?: string;

  @Field({ nullable: true, description: 'When the cached answer becomes stale.' })
  cacheTargetAge?: string;

  @Field({ nullable: true })
  cacheKey?: string;

  @Field({ nullable: true })
  timezone?: string;
}

/** Maps the envelope's snake_case fields to {@link QueryFreshness}. */
export const freshnessOf = (r: Record<string, unknown>): QueryFreshness => ({
  isCached: r.is_cached as boolean | undefined,
  lastRefresh: r.last_refresh as string | undefined,
  nextAllowedClientRefresh: r.next_allowed_client_refresh as string | undefined,
  cacheTargetAge: r.cache_target_age as string | undefined,
  cacheKey: r.cache_key as string | undefined,
  timezone: r.timezone as string | undefined,
});

@ObjectType('QueryStatus', { description: 'An async query: poll with queryStatus(id), stop with cancelQuery(id).' })
class QueryStatusType {
  @Field()
  id!: string;

  @Field()
  complete!: boolean;

  @Field()
  error!: boolean;

  @Field(() => String, { nullable: true })
  errorMessage!: string | null;

  @Field(() => String, { nullable: true })
  errorCode!: string | null;

  @Field()
  startTime!: string;

  @Field(() => String, { nullable: true })
  endTime!: string | null;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The full answer once complete.' })
  results!: unknown;
}

const statusOf = (s: QueryStatus): QueryStatusType => ({
  id: s.id,
  complete: s.complete,
  error: s.error,
  errorMessage: s.error_message,
  errorCode: s.error_code,
  startTime: s.start_time,
  endTime: s.end_time,
  results: s.results,
});

@ObjectType('QueryLogEntry', { description: 'One execution (or cache answer) of a query.' })
class QueryLogEntryType {
  @Field()
  id!: string;

  @Field(() => String, { nullable: true })
  queryId!: string | null;

  @Field()
  eventTime!: string;

  @Field(() => String, { nullable: true, description: 'Kind and id of the credential (never the key).' })
  principal!: string | null;

  @Field()
  kind!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field({ description: 'Equal for the same normalized query (the cache key).' })
  queryHash!: string;

  @Field(() => GraphQLJSON, { nullable: true })
  query!: unknown;

  @Field(() => Float)
  durationMs!: number;

  @Field(() => Int, { nullable: true })
  resultRows!: number | null;

  @Field()
  isCached!: boolean;

  @Field({ description: 'ok, error or cancelled.' })
  status!: string;

  @Field(() => String, { nullable: true })
  errorCode!: string | null;
}

const QueryLogPage = pageOf(QueryLogEntryType, 'QueryLog');
type QueryLogPage = InstanceType<typeof QueryLogPage>;

@ObjectType('ProductQLResult')
class ProductQLResultType extends QueryFreshness {
  @Field(() => [ProductQLColumnType])
  columns!: ProductQLColumnType[];

  @Field(() => GraphQLJSON, { description: 'Rows as arrays, in column order.' })
  rows!: unknown[][];

  @Field({ description: 'True when more rows exist past limit + offset.' })
  hasMore!: boolean;

  @Field(() => Int, { nullable: true, description: 'The default limit or the requested page size; null with the query\'s own LIMIT.' })
  limit!: number | null;

  @Field(() => Int, { nullable: true, description: 'The requested offset; null with the query\'s own LIMIT.' })
  offset!: number | null;

  @Field({ description: 'The query as run, printed back as normalized ProductQL.' })
  productql!: string;
}

@Resolver()
export class QueryResolver {
  @Query(() => GraphQLJSON, {
    description:
      'Runs any query node (ProductQLQuery, TrendsQuery, …) exactly as POST /api/projects/<id>/query/ with {"query": …} does (scope query:read).',
  })
  query(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('query', () => GraphQLJSON) query: unknown,
  ): Promise<unknown> {
    return ctx.services.queries.run(ctx.principal, projectId, { query });
  }

  @Mutation(() => QueryStatusType, { description: 'Starts a query in the background (refresh: force_async); poll it with queryStatus.' })
  async submitQuery(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('query', () => GraphQLJSON) query: unknown,
    @Arg('clientQueryId', { nullable: true }) clientQueryId?: string,
  ): Promise<QueryStatusType> {
    const out = await ctx.services.queries.run(ctx.principal, projectId, {
      query,
      refresh: 'force_async',
      ...(clientQueryId ? { client_query_id: clientQueryId } : {}),
    });
    return statusOf(out.query_status as QueryStatus);
  }

  @Query(() => QueryStatusType, { description: 'The status (and, once complete, the answer) of an async query.' })
  async queryStatus(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id') id: string,
  ): Promise<QueryStatusType> {
    const out = await ctx.services.queries.status(ctx.principal, projectId, id);
    return statusOf(out.body.query_status);
  }

  @Mutation(() => Boolean, { description: 'Cancels a running async query; its engine work stops.' })
  async cancelQuery(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id') id: string,
  ): Promise<boolean> {
    await ctx.services.queries.cancel(ctx.principal, projectId, id);
    return true;
  }

  @Query(() => QueryLogPage, { description: "What ran in a project, newest first (scope query:read)." })
  async queryLog(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('kind', { nullable: true }) kind?: string,
    @Arg('status', { nullable: true }) status?: string,
    @Arg('isCached', { nullable: true }) isCached?: boolean,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('offset', () => Int, { nullable: true }) offset?: number,
  ): Promise<QueryLogPage> {
    const page = await ctx.services.queries.queryLog(
      ctx.principal,
      projectId,
      { kind, status, is_cached: isCached === undefined || isCached === null ? undefined : String(isCached) },
      parsePage({ limit, offset }),
    );
    return {
      count: page.count,
      results: page.results.map((e) => ({
        id: e.id,
        queryId: e.query_id,
        eventTime: e.event_time,
        principal: e.principal,
        kind: e.kind,
        name: e.name,
        queryHash: e.query_hash,
        query: e.query,
        durationMs: e.duration_ms,
        resultRows: e.result_rows,
        isCached: e.is_cached,
        status: e.status,
        errorCode: e.error_code,
      })),
    };
  }

  @Query(() => ProductQLResultType, { description: 'Runs a ProductQL query with typed columns (scope query:read).' })
  async productql(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('sql') sql: string,
    @Arg('variables', () => GraphQLJSON, { nullable: true }) variables?: Record<string, unknown>,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('offset', () => Int, { nullable: true }) offset?: number,
  ): Promise<ProductQLResultType> {
    const r = (await ctx.services.queries.run(ctx.principal, projectId, {
      query: { kind: 'ProductQLQuery', query: sql, variables: variables ?? undefined, limit: limit ?? undefined, offset: offset ?? undefined },
    })) as { columns: string[]; types: [string, string][]; results: unknown[][]; hasMore?: boolean; limit?: number; offset?: number; productql: string };
    return {
      ...freshnessOf(r as unknown as Record<string, unknown>),
      columns: r.types.map(([name, type]) => ({ name, type })),
      rows: r.results,
      // (absent with the query's own LIMIT: then no more rows are asked for, and limit/offset are null)
      hasMore: r.hasMore ?? false,
      limit: r.limit ?? null,
      offset: r.offset ?? null,
      productql: r.productql,
    };
  }
}
