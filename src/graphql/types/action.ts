import { GraphQLJSON } from 'graphql-scalars';
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import type { ActionView } from '../../actions/action-service';
import type { UserBasic } from '../../insights/activity';
import { UserBasicType } from './insight';
import { dropUndefined } from './project';
import { pageOf } from './page';

/** The GraphQL face of {@link ActionView}: the same object, camelCase field names. */
@ObjectType('Action', { description: 'A saved event definition: an OR of steps, usable as an ActionsNode series.' })
export class ActionType {
  @Field(() => Int)
  id!: number;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field()
  description!: string;

  @Field(() => [String])
  tags!: string[];

  @Field(() => GraphQLJSON, { description: 'Steps as in the REST API: event, properties, url/url_matching, selector, tag_name, text, href.' })
  steps!: unknown;

  @Field()
  deleted!: boolean;

  @Field(() => String, { nullable: true })
  pinnedAt!: string | null;

  @Field()
  createdAt!: string;

  @Field(() => UserBasicType, { nullable: true })
  createdBy!: UserBasic | null;

  @Field()
  updatedAt!: string;
}

export const ActionPage = pageOf(ActionType, 'Action');
export type ActionPage = InstanceType<typeof ActionPage>;

@InputType('ActionInput', { description: 'Writable action fields; an absent field is left as is.' })
export class ActionInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'null is the same as absent: an action always has a description ("" for none).' })
  description?: string | null;

  @Field(() => [String], { nullable: true })
  tags?: string[];

  @Field(() => GraphQLJSON, { nullable: true, description: 'A list of steps (REST field names).' })
  steps?: unknown;

  @Field({ nullable: true, description: 'true soft-deletes; false restores.' })
  deleted?: boolean;

  @Field(() => String, { nullable: true, description: 'An ISO datetime pins the action; null unpins it.' })
  pinnedAt?: string | null;
}

export const actionOf = (v: ActionView): ActionType => ({
  id: v.id,
  name: v.name,
  description: v.description,
  tags: v.tags,
  steps: v.steps,
  deleted: v.deleted,
  pinnedAt: v.pinned_at,
  createdAt: v.created_at,
  createdBy: v.created_by,
  updatedAt: v.updated_at,
});

export const actionInputBody = (i: ActionInput): Record<string, unknown> =>
  dropUndefined({ name: i.name, description: i.description ?? undefined, tags: i.tags, steps: i.steps, deleted: i.deleted, pinned_at: i.pinnedAt });
