import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { dropUndefined } from '../types/project';
import {
  PersonalApiKeyInput,
  PersonalApiKeyType,
  ProjectSecretApiKeyInput,
  ProjectSecretApiKeyType,
} from '../types/keys';

@Resolver()
export class KeyResolver {
  @Query(() => [PersonalApiKeyType], { description: "The caller's live personal API keys, masked (scope personal_api_key:read)." })
  async personalApiKeys(@Ctx() ctx: GraphQLContext): Promise<PersonalApiKeyType[]> {
    return ctx.services.keys.listPersonal(ctx.principal);
  }

  @Mutation(() => PersonalApiKeyType, { description: 'Creates a personal API key; `value` is shown only here (scope personal_api_key:write).' })
  createPersonalApiKey(
    @Ctx() ctx: GraphQLContext,
    @Arg('input', () => PersonalApiKeyInput) input: PersonalApiKeyInput,
  ): Promise<PersonalApiKeyType> {
    return ctx.services.keys.createPersonal(
      ctx.principal,
      dropUndefined({ label: input.label, scopes: input.scopes, scoped_teams: input.scopedTeams }),
    );
  }

  @Mutation(() => Boolean, { description: 'Revokes a personal API key; it fails from the next request on.' })
  async revokePersonalApiKey(@Ctx() ctx: GraphQLContext, @Arg('id') id: string): Promise<boolean> {
    await ctx.services.keys.revokePersonal(ctx.principal, id);
    return true;
  }

  @Query(() => [ProjectSecretApiKeyType], { description: "A project's live secret API keys, masked (scope project:read)." })
  async projectSecretApiKeys(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
  ): Promise<ProjectSecretApiKeyType[]> {
    return (await ctx.services.keys.listSecret(ctx.principal, projectId, { limit: 1000, offset: 0 })).results;
  }

  @Mutation(() => ProjectSecretApiKeyType, { description: 'Creates a project secret API key (scope project:write).' })
  createProjectSecretApiKey(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('input', () => ProjectSecretApiKeyInput) input: ProjectSecretApiKeyInput,
  ): Promise<ProjectSecretApiKeyType> {
    return ctx.services.keys.createSecret(ctx.principal, projectId, dropUndefined({ label: input.label, scopes: input.scopes }));
  }

  @Mutation(() => Boolean)
  async revokeProjectSecretApiKey(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id') id: string,
  ): Promise<boolean> {
    await ctx.services.keys.revokeSecret(ctx.principal, projectId, id);
    return true;
  }
}
