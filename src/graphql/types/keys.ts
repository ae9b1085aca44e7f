import { Field, InputType, Int, ObjectType } from 'type-graphql';
import type { PersonalKeyView, SecretKeyView } from '../../auth/key-service';

@ObjectType('PersonalApiKey')
export class PersonalApiKeyType implements PersonalKeyView {
  @Field()
  id!: string;

  @Field()
  label!: string;

  @Field({ name: 'maskValue', description: 'First 4 and last 4 characters of the key.' })
  mask_value!: string;

  @Field(() => [String])
  scopes!: string[];

  @Field(() => [Int], { name: 'scopedTeams', nullable: true, description: 'Projects the key is restricted to; null = all.' })
  scoped_teams!: number[] | null;

  @Field({ name: 'createdAt' })
  created_at!: string;

  @Field(() => String, { name: 'lastUsedAt', nullable: true })
  last_used_at!: string | null;

  @Field({ nullable: true, description: 'The key itself: only in the response of the mutation that created it.' })
  value?: string;
}

@ObjectType('ProjectSecretApiKey')
export class ProjectSecretApiKeyType implements SecretKeyView {
  @Field()
  id!: string;

  @Field()
  label!: string;

  @Field({ name: 'maskValue' })
  mask_value!: string;

  @Field(() => [String])
  scopes!: string[];

  @Field(() => Int, { name: 'projectId' })
  project_id!: number;

  @Field(() => Int, { name: 'createdBy', nullable: true })
  created_by!: number | null;

  @Field({ name: 'createdAt' })
  created_at!: string;

  @Field(() => String, { name: 'lastUsedAt', nullable: true })
  last_used_at!: string | null;

  @Field({ nullable: true, description: 'The key itself: only in the response of the mutation that created it.' })
  value?: string;
}

@InputType('PersonalApiKeyInput')
export class PersonalApiKeyInput {
  @Field({ nullable: true })
  label?: string;

  @Field(() => [String])
  scopes!: string[];

  @Field(() => [Int], { nullable: true })
  scopedTeams?: number[] | null;
}

@InputType('ProjectSecretApiKeyInput')
export class ProjectSecretApiKeyInput {
  @Field({ nullable: true })
  label?: string;

  @Field(() => [String])
  scopes!: string[];
}
