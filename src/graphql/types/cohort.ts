import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import type { CohortView } from '../../cohorts/cohort-service';
import { UserBasicType } from './insight';
import { dropUndefined } from './project';
import { pageOf } from './page';

/** The GraphQL face of {@link CohortView}: the same object, camelCase field names. */
@ObjectType('Cohort', { description: 'A saved group of persons: dynamic (criteria evaluated at query time) or static (a list).' })
export class CohortType {
  @Field(() => Int)
  id!: number;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field()
  description!: string;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The criteria: {properties: {type: AND|OR, values: [...]}}.' })
  filters!: unknown;

  @Field(() => GraphQLJSON, { description: 'Legacy criteria groups.' })
  groups!: unknown;

  @Field()
  isStatic!: boolean;

  @Field()
  deleted!: boolean;

  @Field(() => Int, { nullable: true, description: 'Persons in the cohort now.' })
  count!: number | null;

  @Field()
  createdAt!: string;

  @Field(() => UserBasicType, { nullable: true })
  createdBy!: CohortView['created_by'];
}

export const CohortPage = pageOf(CohortType, 'Cohort');
export type CohortPage = InstanceType<typeof CohortPage>;

@InputType('CohortInput', { description: 'Writable cohort fields; an absent field is left as is.' })
export class CohortInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => GraphQLJSON, { nullable: true })
  filters?: unknown;

  @Field(() => GraphQLJSON, { nullable: true })
  groups?: unknown;

  @Field({ nullable: true, description: 'Only when creating: a static cohort holds a list of persons.' })
  isStatic?: boolean;

  @Field({ nullable: true, description: 'true soft-deletes; false restores.' })
  deleted?: boolean;

  @Field(() => [ID], { nullable: true, description: 'Only when creating a static cohort: its persons.' })
  personIds?: string[];
}

export const cohortOf = (v: CohortView): CohortType => ({
  id: v.id,
  name: v.name,
  description: v.description,
  filters: v.filters,
  groups: v.groups,
  isStatic: v.is_static,
  deleted: v.deleted,
  count: v.count,
  createdAt: v.created_at,
  createdBy: v.created_by,
});

export const cohortInputBody = (i: CohortInput): Record<string, unknown> =>
  dropUndefined({
    name: i.name,
    description: i.description,
    filters: i.filters,
    groups: i.groups,
    is_static: i.isStatic,
    deleted: i.deleted,
    _create_static_person_ids: i.personIds,
  });
