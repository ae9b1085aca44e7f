import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { registerRestRoutes } from '../rest-compat';
import type { Principal } from './auth/principal';
import type { Config } from './config';
import { internalErrorBody, isUserError, notFound, type ErrorBody } from './errors';
import { registerGraphQL } from './graphql/server';
import { registerCaptureRoutes } from './ingest/capture-routes';
import { RequestLog } from './request-log';
import type { Services } from './services';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the request's credential has been checked. */
    principal?: Principal;
  }
}

/**
 * Builds the HTTP app: GraphQL (+ GraphiQL), the REST paths, capture routes and /healthz, with one error
 * body everywhere and one structured log line per request.
 */
export async function buildApp(config: Config, services: Services, logger: Logger): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    logController: new RequestLog(),
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    forceCloseConnections: 'idle',
  });

  app.decorateRequest('principal', undefined);

  // JSON as fastify parses it (prototype-poisoning safe), but an empty body is no body: clients that send
  // `Content-Type: application/json` on every call, DELETE included, are common.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    return defaultJson(request, text, done);
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  // While draining, tell keep-alive clients to go away, so shutdown does not wait for their idle timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, retryAfter } = errorResponse(error, request);
    if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
    reply.code(status).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(notFound('Endpoint not found.').toBody());
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.addHook('onResponse', async (request, reply) => {
    services.metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });
  app.get('/metrics', async (_request, reply) => reply.type(services.metrics.contentType).send(await services.metrics.text()));

  await registerGraphQL(app, services, config);
  registerRestRoutes(app, services);
  registerCaptureRoutes(app, {
    ingestor: services.ingestor,
    resolveToken: async (token) => (await services.projects.findByToken(token))?.id ?? null,
  });

  return app;
}

/** Maps any thrown value to a status and the standard error body. */
function errorResponse(error: unknown, request: FastifyRequest): { status: number; body: ErrorBody; retryAfter?: number } {
  if (isUserError(error)) return { status: error.status, body: error.toBody(), retryAfter: error.retryAfter };
  const fe = error as FastifyError;
  const status = fe.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) {
      return { status, body: { type: 'invalid_request', code: 'request_too_large', detail: 'Request body is too large.', attr: null } };
    }
    if (status === 415) {
      return {
        status,
        body: { type: 'invalid_request', code: 'unsupported_media_type', detail: `Unsupported media type "${request.headers['content-type'] ?? ''}" in request.`, attr: null },
      };
    }
    if (fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || fe instanceof SyntaxError) {
      return { status: 400, body: { type: 'invalid_request', code: 'parse_error', detail: `JSON parse error - ${fe.message}`, attr: null } };
    }
    return { status, body: { type: 'invalid_request', code: 'invalid_request', detail: fe.message, attr: null } };
  }
  request.log.error({ reqId: request.id, err: error }, 'internal error');
  return { status: 500, body: internalErrorBody(request.id) };
}
