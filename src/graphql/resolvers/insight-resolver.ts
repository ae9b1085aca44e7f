import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { parseRefresh } from '../../insights/insight-service';
import { parsePage } from '../../pagination';
import type { GraphQLContext } from '../context';
import { ActivityPageType, activityPageOf, InsightInput, insightInputBody, insightOf, InsightPage, InsightType } from '../types/insight';

const REFRESH_DOC = 'force_cache (default: cached result or none), blocking, force_blocking, async, lazy_async, async_except_on_cache_miss, force_async.';

/** Saved insights over GraphQL: the same service as `/api/projects/<id>/insights/`. */
@Resolver(() => InsightType)
export class InsightResolver {
  @Query(() => InsightPage, { description: "A project's saved insights, with results per refresh (scope insight:read)." })
  async insights(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('search', () => String, { nullable: true, description: 'Substring of the name, derived name, description or a tag, or a fuzzy (trigram) match of the name or derived name, listed after the substring matches.' }) search?: string,
    @Arg('saved', () => Boolean, { nullable: true }) saved?: boolean,
    @Arg('favorited', () => Boolean, { nullable: true }) favorited?: boolean,
    @Arg('kind', () => String, { nullable: true, description: 'Query kind, outer or wrapped (e.g. TrendsQuery).' }) kind?: string,
    @Arg('tags', () => [String], { nullable: true, description: 'Insights with any of these tags.' }) tags?: string[],
    @Arg('order', () => String, { nullable: true, description: 'A field, - for descending, e.g. -last_modified_at.' }) order?: string,
    @Arg('refresh', () => String, { nullable: true, description: REFRESH_DOC }) refresh?: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('offset', () => Int, { nullable: true }) offset?: number,
  ): Promise<InsightPage> {
    const page = await ctx.services.insights.list(
      ctx.principal,
      projectId,
      { search, saved, favorited, kind, tags: tags ?? undefined, order },
      parsePage({ limit, offset }),
      { refresh: parseRefresh(refresh) },
    );
    return { count: page.count, results: page.results.map(insightOf) };
  }

  @Query(() => InsightType, { description: 'One insight by id or short_id, with its result and freshness (scope insight:read).' })
  async insight(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id', () => ID) id: string,
    @Arg('refresh', () => String, { nullable: true, description: REFRESH_DOC }) refresh?: string,
    @Arg('clientQueryId', () => String, { nullable: true }) clientQueryId?: string,
  ): Promise<InsightType> {
    return insightOf(await ctx.services.insights.get(ctx.principal, projectId, id, { refresh: parseRefresh(refresh), clientQueryId: clientQueryId ?? undefined }));
  }

  @Mutation(() => InsightType, { description: 'Saves a new insight (scope insight:write).' })
  async createInsight(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('input', () => InsightInput) input: InsightInput,
  ): Promise<InsightType> {
    return insightOf(await ctx.services.insights.create(ctx.principal, projectId, insightInputBody(input)));
  }

  @Mutation(() => InsightType, { description: 'Changes an insight; deleted: false restores a deleted one (scope insight:write).' })
  async updateInsight(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => InsightInput) input: InsightInput,
  ): Promise<InsightType> {
    return insightOf(await ctx.services.insights.update(ctx.principal, projectId, id, insightInputBody(input), { partial: true }));
  }

  @Mutation(() => Boolean, { description: 'Soft-deletes an insight; updateInsight with deleted: false restores it (scope insight:write).' })
  async deleteInsight(@Ctx() ctx: GraphQLContext, @Arg('projectId', () => Int) projectId: number, @Arg('id', () => ID) id: string): Promise<boolean> {
    await ctx.services.insights.delete(ctx.principal, projectId, id);
    return true;
  }

  @Query(() => ActivityPageType, { description: "Changes to an insight, newest first; page is 1-based (scope activity_log:read)." })
  async insightActivity(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id', () => ID) id: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('page', () => Int, { nullable: true }) page?: number,
  ): Promise<ActivityPageType> {
    return activityPageOf(await ctx.services.insights.activity(ctx.principal, projectId, id, { limit: limit ?? undefined, page: page ?? undefined }));
  }
}
