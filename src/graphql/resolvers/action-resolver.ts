import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { parsePage } from '../../pagination';
import type { GraphQLContext } from '../context';
import { ActionInput, actionInputBody, actionOf, ActionPage, ActionType } from '../types/action';

/** Actions over GraphQL: the same service as `/api/projects/<id>/actions/`. */
@Resolver(() => ActionType)
export class ActionResolver {
  @Query(() => ActionPage, { description: "A project's live actions, pinned first, then newest first, then by name (scope action:read)." })
  async actions(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('offset', () => Int, { nullable: true }) offset?: number,
  ): Promise<ActionPage> {
    const page = await ctx.services.actions.list(ctx.principal, projectId, parsePage({ limit, offset }));
    return { count: page.count, results: page.results.map(actionOf) };
  }

  @Query(() => ActionType, { description: 'One action by id (scope action:read).' })
  async action(@Ctx() ctx: GraphQLContext, @Arg('projectId', () => Int) projectId: number, @Arg('id', () => ID) id: string): Promise<ActionType> {
    return actionOf(await ctx.services.actions.get(ctx.principal, projectId, id));
  }

  @Mutation(() => ActionType, { description: 'Saves a new action (scope action:write).' })
  async createAction(@Ctx() ctx: GraphQLContext, @Arg('projectId', () => Int) projectId: number, @Arg('input', () => ActionInput) input: ActionInput): Promise<ActionType> {
    return actionOf(await ctx.services.actions.create(ctx.principal, projectId, actionInputBody(input)));
  }

  @Mutation(() => ActionType, { description: 'Changes an action; deleted: true soft-deletes it, false restores it (scope action:write).' })
  async updateAction(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => ActionInput) input: ActionInput,
  ): Promise<ActionType> {
    return actionOf(await ctx.services.actions.update(ctx.principal, projectId, id, actionInputBody(input)));
  }
}
