import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { parsePage } from '../../pagination';
import type { GraphQLContext } from '../context';
import { ProjectInput, ProjectPage, ProjectType, projectInputBody } from '../types/project';

@Resolver(() => ProjectType)
export class ProjectResolver {
  @Query(() => ProjectPage, { description: 'Projects this credential can see (scope project:read).' })
  projects(
    @Ctx() ctx: GraphQLContext,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('offset', () => Int, { nullable: true }) offset?: number,
  ): Promise<ProjectPage> {
    return ctx.services.projects.list(ctx.principal, parsePage({ limit, offset }));
  }

  @Query(() => ProjectType, { description: 'One project (scope project:read).' })
  project(@Ctx() ctx: GraphQLContext, @Arg('id', () => Int) id: number): Promise<ProjectType> {
    return ctx.services.projects.get(ctx.principal, id);
  }

  @Mutation(() => ProjectType, { description: 'Creates a project (scope project:write).' })
  createProject(@Ctx() ctx: GraphQLContext, @Arg('input', () => ProjectInput) input: ProjectInput): Promise<ProjectType> {
    return ctx.services.projects.create(ctx.principal, projectInputBody(input));
  }

  @Mutation(() => ProjectType, { description: 'Updates a project (scope project:write).' })
  updateProject(
    @Ctx() ctx: GraphQLContext,
    @Arg('id', () => Int) id: number,
    @Arg('input', () => ProjectInput) input: ProjectInput,
  ): Promise<ProjectType> {
    return ctx.services.projects.update(ctx.principal, id, projectInputBody(input));
  }

  @Mutation(() => Boolean, { description: 'Deletes a project with its events and persons (scope project:write).' })
  async deleteProject(@Ctx() ctx: GraphQLContext, @Arg('id', () => Int) id: number): Promise<boolean> {
    await ctx.services.projects.delete(ctx.principal, id);
    return true;
  }
}
