import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import type { UserBasic } from '../../insights/activity';
import type { InsightVariableView } from '../../insights/insight-variable-service';
import { UserBasicType } from './insight';
import { dropUndefined } from './project';
import { pageOf } from './page';

/** The GraphQL face of {@link InsightVariableView}: the same object, camelCase field names. */
@ObjectType('InsightVariable', { description: 'A saved SQL variable (PostHog’s InsightVariable), used as {variables.<codeName>}.' })
export class InsightVariableType {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field({ description: 'String, Number, Boolean, List or Date.' })
  type!: string;

  @Field(() => GraphQLJSON, { nullable: true })
  defaultValue!: unknown;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The choices of a List variable.' })
  values!: unknown;

  @Field(() => String, { nullable: true, description: 'Derived from the name at creation; what queries name.' })
  codeName!: string | null;

  @Field()
  createdAt!: string;

  @Field(() => UserBasicType, { nullable: true })
  createdBy!: UserBasic | null;
}

export const InsightVariablePage = pageOf(InsightVariableType, 'InsightVariable');
export type InsightVariablePage = InstanceType<typeof InsightVariablePage>;

@InputType('InsightVariableInput', { description: 'Writable variable fields; on update an absent field is left as is.' })
export class InsightVariableInput {
  @Field(() => String, { nullable: true })
  name?: string;

  @Field(() => String, { nullable: true, description: 'String, Number, Boolean, List or Date.' })
  type?: string;

  @Field(() => GraphQLJSON, { nullable: true })
  defaultValue?: unknown;

  @Field(() => GraphQLJSON, { nullable: true })
  values?: unknown;
}

export const insightVariableOf = (v: InsightVariableView): InsightVariableType => ({
  id: v.id,
  name: v.name,
  type: v.type,
  defaultValue: v.default_value,
  values: v.values,
  codeName: v.code_name,
  createdAt: v.created_at,
  createdBy: v.created_by,
});

export const insightVariableInputBody = (i: InsightVariableInput): Record<string, unknown> =>
  dropUndefined({ name: i.name ?? undefined, type: i.type ?? undefined, default_value: i.defaultValue, values: i.values });
