import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, type FieldNode } from 'graphql';
import type { RateFamily } from '../auth/rate-limiter';
import { isUserError } from '../errors';
import type { GraphQLContext } from './context';

/** Top-level fields that run queries or endpoints count against those families, as their REST routes do. */
const QUERY_FIELDS = new Set(['query', 'productql', 'submitQuery', 'trends', 'stickiness', 'lifecycle', 'funnels', 'retention', 'paths']);
const ANALYTICS_FIELDS = new Set(['insights', 'insight', 'createInsight', 'updateInsight', 'deleteInsight', 'insightActivity']);

export function fieldRateFamily(field: string): RateFamily {
  if (QUERY_FIELDS.has(field)) return 'query';
  if (field === 'runEndpoint') return 'endpoint_run';
  if (ANALYTICS_FIELDS.has(field)) return 'analytics';
  return 'default';
}

/**
 * GraphQL operations count against the same buckets as REST: one request per top-level field, in that
 * field's family and for its `projectId` argument. Over the limit → 429 with Retry-After.
 */
export const rateLimitPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation, contextValue, request }) {
        const limiter = contextValue.services.rateLimiter;
        if (!limiter) return;
        for (const sel of operation?.selectionSet.selections ?? []) {
          if (sel.kind !== Kind.FIELD || sel.name.value.startsWith('__')) continue;
          try {
            limiter.check(contextValue.principal, fieldRateFamily(sel.name.value), projectIdArg(sel, request.variables));
          } catch (e) {
            if (!isUserError(e)) throw e;
            throw new GraphQLError(e.message, {
              extensions: {
                code: e.code,
                type: e.type,
                http: { status: 429, headers: new Map([['retry-after', String(e.retryAfter ?? 1)]]) },
              },
            });
          }
        }
      },
    };
  },
};

function projectIdArg(field: FieldNode, variables: Record<string, unknown> | undefined): number | undefined {
  const arg = field.arguments?.find((a) => a.name.value === 'projectId');
  if (!arg) return undefined;
  const v = arg.value.kind === Kind.INT ? Number(arg.value.value) : arg.value.kind === Kind.VARIABLE ? variables?.[arg.value.name.value] : undefined;
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
}
