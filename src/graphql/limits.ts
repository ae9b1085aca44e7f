import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { getComplexity, simpleEstimator } from 'graphql-query-complexity';

/**
 * Rejects operations nested deeper than `maxDepth` levels of fields (introspection fields are not counted).
 * graphql-depth-limit counts the top-level fields as depth 0, hence the - 1.
 */
export const depthRule = (maxDepth: number) => depthLimit(maxDepth - 1);

/**
 * Rejects operations whose estimated cost exceeds `maxCost`: each field costs 1, and a field returning a list
 * multiplies its children by the requested `limit` (or 10 when none is given).
 */
/** Introspection (GraphiQL's schema load) is free: it is bounded by the schema, not by data. */
const skipIntrospection = (o: { field: { name: string } }) => (o.field.name.startsWith('__') ? 0 : undefined);

export function costPlugin(schema: GraphQLSchema, maxCost: number): ApolloServerPlugin {
  const listEstimator = (options: { args: Record<string, unknown>; childComplexity: number; field: { type: unknown } }) => {
    const typeName = String(options.field.type);
    if (!typeName.includes('[')) return undefined;
    const limit = typeof options.args.limit === 'number' ? options.args.limit : 10;
    return 1 + Math.max(1, limit) * options.childComplexity;
  };
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document }) {
          let cost: number;
          try {
            cost = getComplexity({
              schema,
              operationName: request.operationName ?? undefined,
              query: document,
              variables: request.variables ?? {},
              estimators: [skipIntrospection as never, listEstimator as never, simpleEstimator({ defaultComplexity: 1 })],
            });
          } catch (e) {
            // getComplexity coerces the variables first: a missing or mistyped one is the caller's error
            throw new GraphQLError((e as Error).message, {
              extensions: { code: 'BAD_USER_INPUT', type: 'validation_error', http: { status: 400 } },
            });
          }
          if (cost > maxCost) {
            throw new GraphQLError(`Operation cost ${cost} exceeds the limit of ${maxCost}.`, {
              extensions: { code: 'query_too_complex', type: 'validation_error', http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}
