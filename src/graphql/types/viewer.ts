import { Field, Int, ObjectType } from 'type-graphql';
import { ProjectType } from './project';

@ObjectType('Viewer', { description: 'The caller, as its credential identifies it.' })
export class ViewerType {
  @Field({ description: '"personal" (personal API key) or "project_secret" (project secret API key).' })
  principalType!: string;

  @Field({ description: 'Id of the key used.' })
  principalId!: string;

  @Field(() => Int, { nullable: true })
  userId!: number | null;

  @Field(() => [String])
  scopes!: string[];

  @Field(() => [ProjectType], { description: 'Projects this credential can see.' })
  projects!: ProjectType[];
}
