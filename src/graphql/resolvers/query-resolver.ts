import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';

@ObjectType('ProductQLColumn')
class ProductQLColumnType {
  @Field()
  name!: string;

  @Field({ description: "ClickHouse-style type name, e.g. 'Nullable(String)', 'UInt64', \"DateTime64(6, 'UTC')\"." })
  type!: string;
}

@ObjectType('ProductQLResult')
class ProductQLResultType {
  @Field(() => [ProductQLColumnType])
  columns!: ProductQLColumnType[];

  @Field(() => GraphQLJSON, { description: 'Rows as arrays, in column order.' })
  rows!: unknown[][];

  @Field({ description: 'True when more rows exist past limit + offset.' })
  hasMore!: boolean;

  @Field(() => Int)
  limit!: number;

  @Field(() => Int)
  offset!: number;

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
    })) as { columns: string[]; types: [string, string][]; results: unknown[][]; hasMore: boolean; limit: number; offset: number; productql: string };
    return {
      columns: r.types.map(([name, type]) => ({ name, type })),
      rows: r.results,
      hasMore: r.hasMore,
      limit: r.limit,
      offset: r.offset,
      productql: r.productql,
    };
  }
}
