import type { GraphQLSchema } from 'graphql';
import { buildSchemaSync, type NonEmptyArray } from 'type-graphql';
import { InsightsResolver } from './resolvers/insights-resolver';
import { InsightResolver } from './resolvers/insight-resolver';
import { FunnelsResolver } from './resolvers/funnels-resolver';
import { RetentionResolver } from './resolvers/retention-resolver';
import { PathsResolver } from './resolvers/paths-resolver';
import { EndpointResolver } from './resolvers/endpoint-resolver';
import { KeyResolver } from './resolvers/key-resolver';
import { ProjectResolver } from './resolvers/project-resolver';
import { QueryResolver } from './resolvers/query-resolver';
import { ViewerResolver } from './resolvers/viewer-resolver';
import { ActionResolver } from './resolvers/action-resolver';
import { CohortResolver } from './resolvers/cohort-resolver';
import { GroupResolver } from './resolvers/group-resolver';
import { InsightVariableResolver } from './resolvers/insight-variable-resolver';

/** Every resolver class; a later capability appends its own. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const RESOLVERS: NonEmptyArray<Function> = [
  ViewerResolver,
  ProjectResolver,
  KeyResolver,
  QueryResolver,
  InsightsResolver,
  InsightResolver,
  FunnelsResolver,
  RetentionResolver,
  PathsResolver,
  EndpointResolver,
  ActionResolver,
  CohortResolver,
  GroupResolver,
  InsightVariableResolver,
];

let schema: GraphQLSchema | undefined;

/** The executable schema, built once per process. */
export function graphqlSchema(): GraphQLSchema {
  schema ??= buildSchemaSync({ resolvers: RESOLVERS, validate: false, emitSchemaFile: false });
  return schema;
}
