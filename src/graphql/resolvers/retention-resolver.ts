import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { inputToNode } from '../types/insights-inputs';
import { RetentionQueryInput, RetentionResult } from '../types/retention-types';

type Item = Record<string, unknown>;

/** Typed RetentionQuery; the same node and runner as POST /api/projects/<id>/query/. */
@Resolver()
export class RetentionResolver {
  @Query(() => RetentionResult, { description: 'RetentionQuery with typed input and results (scope query:read).' })
  async retention(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('query', () => RetentionQueryInput) query: RetentionQueryInput,
  ): Promise<RetentionResult> {
    const r = (await ctx.services.queries.run(ctx.principal, projectId, { query: inputToNode('RetentionQuery', query) })) as Item;
    return {
      results: (r.results as Item[]).map((c) => ({
        label: String(c.label),
        date: String(c.date),
        breakdown_value: c.breakdown_value === null || c.breakdown_value === undefined ? null : String(c.breakdown_value),
        values: (c.values as Item[]).map((v) => ({
          count: Number(v.count),
          label: String(v.label),
          aggregation_value: v.aggregation_value === undefined || v.aggregation_value === null ? null : Number(v.aggregation_value),
        })),
      })),
      hogql: String(r.hogql ?? ''),
      timezone: String(r.timezone ?? 'UTC'),
    };
  }
}
