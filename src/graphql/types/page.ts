import { type ClassType, Field, Int, ObjectType } from 'type-graphql';

/**
 * The `<Name>Page` GraphQL type of a `{count, results}` list (REST's list envelope without its links):
 * `export const ThingPage = pageOf(ThingType, 'Thing'); export type ThingPage = InstanceType<typeof ThingPage>;`.
 */
export function pageOf<T extends object>(item: ClassType<T>, name: string) {
  @ObjectType(`${name}Page`)
  class Page {
    @Field(() => Int)
    count!: number;

    @Field(() => [item])
    results!: T[];
  }
  return Page;
}
