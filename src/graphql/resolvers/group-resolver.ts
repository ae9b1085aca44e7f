import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { dropUndefined } from '../types/project';
import { groupOf, GroupPageType, GroupType, GroupTypeMetadataInput, groupTypeOf, GroupTypeType } from '../types/group';

/** Groups over GraphQL: the same service as `/api/projects/<id>/groups_types/` and `…/groups/`. */
@Resolver(() => GroupType)
export class GroupResolver {
  @Query(() => [GroupTypeType], { description: "The project's group types by index (scope group:read)." })
  async groupTypes(@Ctx() ctx: GraphQLContext, @Arg('projectId', () => Int) projectId: number): Promise<GroupTypeType[]> {
    return (await ctx.services.groups.listTypes(ctx.principal, projectId)).map(groupTypeOf);
  }

  @Query(() => GroupPageType, { description: 'Groups of one type, newest first; search matches the key exactly or any property text (scope group:read).' })
  async groups(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('groupTypeIndex', () => Int) groupTypeIndex: number,
    @Arg('search', () => String, { nullable: true }) search?: string,
    @Arg('cursor', () => String, { nullable: true }) cursor?: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
  ): Promise<GroupPageType> {
    const page = await ctx.services.groups.list(ctx.principal, projectId, dropUndefined({ group_type_index: groupTypeIndex, search, cursor, limit }));
    return { results: page.results.map(groupOf), nextCursor: page.nextCursor, previousCursor: page.previousCursor };
  }

  @Query(() => GroupType, { description: 'One group by type index and key (scope group:read).' })
  async group(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('groupTypeIndex', () => Int) groupTypeIndex: number,
    @Arg('groupKey') groupKey: string,
  ): Promise<GroupType> {
    return groupOf(await ctx.services.groups.find(ctx.principal, projectId, { group_type_index: groupTypeIndex, group_key: groupKey }));
  }

  @Mutation(() => [GroupTypeType], { description: 'Sets display names of group types; answers every group type (scope group:write).' })
  async updateGroupTypeMetadata(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('input', () => [GroupTypeMetadataInput]) input: GroupTypeMetadataInput[],
  ): Promise<GroupTypeType[]> {
    const rows = input.map((r) => dropUndefined({ group_type_index: r.groupTypeIndex, name_singular: r.nameSingular, name_plural: r.namePlural }));
    return (await ctx.services.groups.updateTypeMetadata(ctx.principal, projectId, rows)).map(groupTypeOf);
  }
}
