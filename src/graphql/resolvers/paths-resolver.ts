import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { inputToNode } from '../types/insights-inputs';
import { funnelsInputToNode } from './funnels-resolver';
import { PathsQueryInput, PathsResult, type PathsLink } from '../types/paths-types';

type Item = Record<string, unknown>;

/** Typed PathsQuery; the same node and runner as POST /api/projects/<id>/query/. */
@Resolver()
export class PathsResolver {
  @Query(() => PathsResult, { description: 'PathsQuery with typed input and results (scope query:read).' })
  async paths(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('query', () => PathsQueryInput) query: PathsQueryInput,
  ): Promise<PathsResult> {
    const { funnelPathsFilter, ...rest } = query;
    const node = inputToNode('PathsQuery', rest as PathsQueryInput);
    if (funnelPathsFilter) node.funnelPathsFilter = { ...funnelPathsFilter, funnelSource: funnelsInputToNode(funnelPathsFilter.funnelSource) };
    const r = (await ctx.services.queries.run(ctx.principal, projectId, { query: node })) as Item;
    return { results: r.results as PathsLink[], hogql: String(r.hogql ?? ''), timezone: String(r.timezone ?? 'UTC') };
  }
}
