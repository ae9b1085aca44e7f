import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { parsePage } from '../../pagination';
import type { GraphQLContext } from '../context';
import { CohortInput, cohortInputBody, cohortOf, CohortPage, CohortType } from '../types/cohort';

/** Cohorts over GraphQL: the same service as `/api/projects/<id>/cohorts/`. */
@Resolver(() => CohortType)
export class CohortResolver {
  @Query(() => CohortPage, { description: "A project's live cohorts, newest first, each with its person count (scope cohort:read)." })
  async cohorts(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('limit', () => Int, { nullable: true }) limit?: number,
    @Arg('offset', () => Int, { nullable: true }) offset?: number,
  ): Promise<CohortPage> {
    const page = await ctx.services.cohorts.list(ctx.principal, projectId, parsePage({ limit, offset }));
    return { count: page.count, results: page.results.map(cohortOf) };
  }

  @Query(() => CohortType, { description: 'One cohort by id (scope cohort:read).' })
  async cohort(@Ctx() ctx: GraphQLContext, @Arg('projectId', () => Int) projectId: number, @Arg('id', () => ID) id: string): Promise<CohortType> {
    return cohortOf(await ctx.services.cohorts.get(ctx.principal, projectId, id));
  }

  @Mutation(() => CohortType, { description: 'Saves a new cohort (scope cohort:write).' })
  async createCohort(@Ctx() ctx: GraphQLContext, @Arg('projectId', () => Int) projectId: number, @Arg('input', () => CohortInput) input: CohortInput): Promise<CohortType> {
    return cohortOf(await ctx.services.cohorts.create(ctx.principal, projectId, cohortInputBody(input)));
  }

  @Mutation(() => CohortType, { description: 'Changes a cohort; deleted: true soft-deletes it, false restores it (scope cohort:write).' })
  async updateCohort(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => CohortInput) input: CohortInput,
  ): Promise<CohortType> {
    return cohortOf(await ctx.services.cohorts.update(ctx.principal, projectId, id, cohortInputBody(input)));
  }

  @Mutation(() => Boolean, { description: 'Adds persons (by id) to a static cohort (scope cohort:write).' })
  async addPersonsToCohort(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id', () => ID) id: string,
    @Arg('personIds', () => [ID]) personIds: string[],
  ): Promise<boolean> {
    await ctx.services.cohorts.addPersons(ctx.principal, projectId, id, { person_ids: personIds });
    return true;
  }

  @Mutation(() => Boolean, { description: 'Removes a person (by id) from a static cohort (scope cohort:write).' })
  async removePersonFromCohort(
    @Ctx() ctx: GraphQLContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('id', () => ID) id: string,
    @Arg('personId', () => ID) personId: string,
  ): Promise<boolean> {
    await ctx.services.cohorts.removePerson(ctx.principal, projectId, id, { person_id: personId });
    return true;
  }
}
