import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, valueFromASTUntyped, type FieldNode } from 'graphql';
import { queryRateFamily, type RateFamily } from '../auth/rate-limiter';
import { isUserError } from '../errors';
import type { GraphQLContext } from './context';

/**
 * Top-level fields that run queries or endpoints count against those families, as their REST routes do: a node sent to
 * `query`/`submitQuery` by its kind (PostHog's QueryViewSet.get_throttles: HogQL the query family, other kinds the
 * ClickHouse throttles), SQL the query family, the insight kinds' fields the analytics one.
 */
const NODE_FIELDS = new Set(['query', 'submitQuery']);
const ANALYTICS_FIELDS = new Set([
  'insights', 'insight', 'createInsight', 'updateInsight', 'deleteInsight', 'insightActivity',
  'trends', 'stickiness', 'lifecycle', 'funnels', 'retention', 'paths',
]);

export function fieldRateFamily(field: string, node?: unknown): RateFamily {
  if (NODE_FIELDS.has(field)) return queryRateFamily({ query: node });
  if (field === 'productql') return 'query';
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
            const family = fieldRateFamily(sel.name.value, NODE_FIELDS.has(sel.name.value) ? queryArg(sel, request.variables) : undefined);
            limiter.check(contextValue.principal, family, projectIdArg(sel, request.variables));
          } catch (e) {
            if (!isUserError(e)) throw e;
            throw new GraphQLError(e.message, {
              extensions: {
                code: e.code,
                type: e.type,
                // DRF sends no Retry-After when a throttle cannot tell the wait
                http: { status: 429, headers: new Map(e.retryAfter === undefined ? [] : [['retry-after', String(e.retryAfter)]]) },
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

/** The `query` argument's value (a literal or a variable), for its kind. */
function queryArg(field: FieldNode, variables: Record<string, unknown> | undefined): unknown {
  const arg = field.arguments?.find((a) => a.name.value === 'query');
  return arg === undefined ? undefined : valueFromASTUntyped(arg.value, variables ?? undefined);
}
