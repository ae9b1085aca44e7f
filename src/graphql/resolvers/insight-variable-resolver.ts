import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { parsePage } from '../../pagination';
import type { GraphQLContext } from '../context';
import { InsightVariableInput, insightVariableInputBody, insightVariableOf, InsightVariablePage, InsightVariableType } from '../types/insight-variable';

/** Saved variables over GraphQL: the same service as `/api/projects/<id>/insight_variables/`. */
@Resolver(() => InsightVariableType)
export class InsightVariableResolver {
  @Query(() => InsightVariablePage, { description: "A project's saved variables, oldest first (scope insight_variable:read)." })
  async insightVariables(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('offset', () => Int, { nullable: true }) offset?: number,
  ): Promise<InsightVariablePage> {
    const page = await ctx.services.insightVariables.list(ctx.principal, projectId, parsePage({ limit, offset }));
    return { count: page.count, results: page.results.map(insightVariableOf) };
  }

  @Query(() => InsightVariableType, { description: 'One saved variable by id (scope insight_variable:read).' })
  async insightVariable(@Ctx() ctx: GraphQLContext, @Arg('projectId', () => Int) projectId: number, @Arg('id', () => ID) id: string): Promise<InsightVariableType> {
    return insightVariableOf(await ctx.services.insightVariables.get(ctx.principal, projectId, id));
  }

  @Mutation(() => InsightVariableType, { description: 'Saves a new variable; name and type are required (scope insight_variable:write).' })
  async createInsightVariable(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('input', () => InsightVariableInput) input: InsightVariableInput,
  ): Promise<InsightVariableType> {
    return insightVariableOf(await ctx.services.insightVariables.create(ctx.principal, projectId, insightVariableInputBody(input)));
  }

  @Mutation(() => InsightVariableType, { description: 'Changes a variable; its code name stays (scope insight_variable:write).' })
  async updateInsightVariable(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => InsightVariableInput) input: InsightVariableInput,
  ): Promise<InsightVariableType> {
    return insightVariableOf(await ctx.services.insightVariables.update(ctx.principal, projectId, id, insightVariableInputBody(input), true));
  }

  @Mutation(() => Boolean, { description: 'Deletes a variable for good (scope insight_variable:write).' })
  async deleteInsightVariable(@Ctx() ctx: GraphQLContext, @Arg('projectId', () => Int) projectId: number, @Arg('id', () => ID) id: string): Promise<boolean> {
    await ctx.services.insightVariables.delete(ctx.principal, projectId, id);
    return true;
  }
}
