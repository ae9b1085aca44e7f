import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';
import type { ProjectView } from '../../projects/project-service';
import { pageOf } from './page';

/** The GraphQL face of {@link ProjectView}: the same object, camelCase field names. */
@ObjectType('Project')
export class ProjectType implements ProjectView {
  @Field(() => Int)
  id!: number;

  @Field()
  name!: string;

  @Field({ description: 'IANA timezone in which dates are bucketed and shown.' })
  timezone!: string;

  @Field(() => Int, { name: 'weekStartDay', description: '0 = Sunday, 1 = Monday.' })
  week_start_day!: number;

  @Field({ name: 'apiToken', description: 'Public capture token (phc_…), safe in client code.' })
  api_token!: string;

  @Field(() => GraphQLJSON, { name: 'testAccountFilters' })
  test_account_filters!: unknown[];

  @Field(() => GraphQLJSON, { name: 'pathCleaningFilters' })
  path_cleaning_filters!: unknown[];

  @Field(() => [String], {
    name: 'personDisplayNameProperties',
    nullable: true,
    description: "The person properties a display name is taken from, in order; null: PostHog's defaults.",
  })
  person_display_name_properties!: string[] | null;

  @Field({ name: 'anonymizeIps', description: 'Capture stores this project\'s events without `$ip`.' })
  anonymize_ips!: boolean;

  @Field({ name: 'createdAt' })
  created_at!: string;
}

export const ProjectPage = pageOf(ProjectType, 'Project');
export type ProjectPage = InstanceType<typeof ProjectPage>;

@InputType('ProjectInput')
export class ProjectInput {
  @Field({ nullable: true })
  name?: string;

  @Field({ nullable: true })
  timezone?: string;

  @Field(() => Int, { nullable: true })
  weekStartDay?: number;

  @Field(() => GraphQLJSON, { nullable: true })
  testAccountFilters?: unknown[];

  @Field(() => GraphQLJSON, { nullable: true })
  pathCleaningFilters?: unknown[];

  @Field(() => [String], { nullable: true })
  personDisplayNameProperties?: string[] | null;

  @Field({ nullable: true })
  anonymizeIps?: boolean;
}

/** The REST-shaped body the service validates. */
export const projectInputBody = (i: ProjectInput): Record<string, unknown> =>
  dropUndefined({
    name: i.name,
    timezone: i.timezone,
    week_start_day: i.weekStartDay,
    test_account_filters: i.testAccountFilters,
    path_cleaning_filters: i.pathCleaningFilters,
    person_display_name_properties: i.personDisplayNameProperties,
    anonymize_ips: i.anonymizeIps,
  });

export function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
