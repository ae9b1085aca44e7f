import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { unwrapResolverError } from '@apollo/server/errors';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Config } from '../config';
import { isUserError } from '../errors';
import type { Services } from '../services';
import type { GraphQLContext } from './context';
import { prefersHtml, registerGraphiQL, sendGraphiQLPage } from './graphiql';
import { costPlugin, depthRule } from './limits';
import { rateLimitPlugin } from './rate-limit-plugin';
import { graphqlSchema } from './schema';

/**
 * Mounts Apollo Server at /graphql. A browser's GET (Accept: text/html) gets GraphiQL, served from local files.
 * Errors: a UserError keeps its code (in `extensions.code`) and HTTP status; anything else is logged and shown
 * as an internal error carrying the request id.
 */
export async function registerGraphQL(app: FastifyInstance, services: Services, config: Config): Promise<void> {
  const schema = graphqlSchema();
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // our own SIGTERM handler drains HTTP and the ingest log; Apollo's would re-kill the process midway
    stopOnTerminationSignals: false,
    validationRules: [depthRule(config.graphqlMaxDepth)],
    plugins: [ApolloServerPluginLandingPageDisabled(), fastifyApolloDrainPlugin(app), costPlugin(schema, config.graphqlMaxCost), rateLimitPlugin, statusPlugin],
    formatError: (formatted, error) => formatError(formatted, error, app),
  });
  await apollo.start();
  registerGraphiQL(app);

  const handler = fastifyApolloHandler(apollo, {
    context: async (request: FastifyRequest): Promise<GraphQLContext> => {
      try {
        const principal = await services.auth.authenticate(request.headers.authorization);
        request.principal = principal;
        return { principal, services, requestId: request.id };
      } catch (e) {
        if (isUserError(e)) {
          throw new GraphQLError(e.message, {
            extensions: { code: e.code, type: e.type, http: { status: e.status } },
          });
        }
        throw e;
      }
    },
  });

  app.route({
    method: ['GET', 'POST', 'OPTIONS'],
    url: '/graphql',
    handler: async function (request: FastifyRequest, reply: FastifyReply) {
      if (request.method === 'GET' && prefersHtml(request.headers.accept) && !hasQueryString(request)) {
        return sendGraphiQLPage(reply);
      }
      return handler.call(this, request as never, reply as never);
    },
  });
}

const hasQueryString = (request: FastifyRequest) => Object.keys((request.query as object) ?? {}).length > 0;

/** Carries a resolver's UserError status to the HTTP response when it is the only error. */
const statusPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, contextValue }) {
        // formatError has no context: tag each error with the request id it must report
        for (const e of errors) (e as { requestId?: string }).requestId = contextValue?.requestId;
      },
      async willSendResponse({ response, errors }) {
        if (response.body.kind !== 'single' || !errors?.length) return;
        const hasData = response.body.singleResult.data && Object.values(response.body.singleResult.data).some((v) => v !== null);
        if (hasData) return;
        const statuses = errors.map((e) => {
          const original = unwrapResolverError(e);
          return isUserError(original) ? original.status : undefined;
        });
        if (statuses.length && statuses.every((s) => s !== undefined && s === statuses[0])) {
          response.http.status = statuses[0];
        }
      },
    };
  },
};

function formatError(formatted: GraphQLFormattedError, error: unknown, app: FastifyInstance): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (isUserError(original)) {
    return {
      message: original.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: {
        code: original.code,
        type: original.type,
        attr: original.attr,
        ...(original.span ? { start: original.span.start, end: original.span.end } : {}),
        ...(original.extra ? { extra: original.extra } : {}),
      },
    };
  }
  if (original instanceof GraphQLError || !(original instanceof Error)) {
    // Parse, validation and our own GraphQLErrors are the caller's; strip any stack.
    const { stacktrace: _s, ...ext } = (formatted.extensions ?? {}) as Record<string, unknown>;
    return { ...formatted, extensions: ext };
  }
  const requestId = (error as { requestId?: string }).requestId ?? 'unknown';
  app.log.error({ err: original, path: formatted.path }, 'internal error in GraphQL resolver');
  return {
    message: `Internal server error. Request id: ${requestId}`,
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: 'INTERNAL_SERVER_ERROR', type: 'server_error' },
  };
}
