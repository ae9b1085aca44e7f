import { GraphQLJSON } from 'graphql-scalars';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import type { GroupTypeView, GroupView } from '../../projects/group-service';

/** The GraphQL face of {@link GroupTypeView}. */
@ObjectType('GroupType', { description: "One of a project's group types (index 0–4, assigned at ingestion in order of first sight)." })
export class GroupTypeType {
  @Field({ description: 'The name events use in properties.$groups.' })
  groupType!: string;

  @Field(() => Int)
  groupTypeIndex!: number;

  @Field(() => String, { nullable: true })
  nameSingular!: string | null;

  @Field(() => String, { nullable: true })
  namePlural!: string | null;
}

/** The GraphQL face of {@link GroupView}. */
@ObjectType('Group', { description: 'A group ($groupidentify): its key and properties.' })
export class GroupType {
  @Field(() => Int)
  groupTypeIndex!: number;

  @Field()
  groupKey!: string;

  @Field(() => GraphQLJSON)
  groupProperties!: unknown;

  @Field()
  createdAt!: string;
}

@ObjectType('GroupPage', { description: 'Groups newest first; pass nextCursor as cursor for the next page.' })
export class GroupPageType {
  @Field(() => [GroupType])
  results!: GroupType[];

  @Field(() => String, { nullable: true })
  nextCursor!: string | null;

  @Field(() => String, { nullable: true })
  previousCursor!: string | null;
}

@InputType('GroupTypeMetadataInput', { description: 'Display names of a group type.' })
export class GroupTypeMetadataInput {
  @Field(() => Int)
  groupTypeIndex!: number;

  @Field(() => String, { nullable: true })
  nameSingular?: string | null;

  @Field(() => String, { nullable: true })
  namePlural?: string | null;
}

export const groupTypeOf = (t: GroupTypeView): GroupTypeType => ({
  groupType: t.group_type,
  groupTypeIndex: t.group_type_index,
  nameSingular: t.name_singular,
  namePlural: t.name_plural,
});

export const groupOf = (g: GroupView): GroupType => ({
  groupTypeIndex: g.group_type_index,
  groupKey: g.group_key,
  groupProperties: g.group_properties,
  createdAt: g.created_at,
});
