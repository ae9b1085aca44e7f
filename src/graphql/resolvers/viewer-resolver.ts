import { Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { ViewerType } from '../types/viewer';

@Resolver(() => ViewerType)
export class ViewerResolver {
  @Query(() => ViewerType, { description: 'Who the credential is: its kind, scopes and reachable projects.' })
  async viewer(@Ctx() ctx: GraphQLContext): Promise<ViewerType> {
    const p = ctx.principal;
    return {
      principalType: p.kind,
      principalId: p.keyId,
      userId: p.kind === 'personal' ? p.userId : null,
      scopes: p.scopes,
      projects: await ctx.services.projects.visibleTo(p),
    };
  }
}
