import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { registerRestRoutes } from '../rest-compat';
import { trackApiMethods } from '../rest-compat/method-table';
import type { Principal } from './auth/principal';
import type { Config } from './config';
import { internalErrorBody, isUserError, notFound, type ErrorBody } from './errors';
import { registerGraphQL } from './graphql/server';
import { registerCaptureRoutes } from './ingest/capture-routes';
import { lazyChildLogger, RequestLog } from './request-log';
import type { Services } from './services';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set once the request's credential has been checked. */
    principal?: Principal;
    /** The JSON body's text as received (the query route recognizes a repeated request by it). */
    rawBody?: string;
  }
}

/**
 * Builds the HTTP app: GraphQL (+ GraphiQL), the REST paths, capture routes and /healthz, with one error
 * body everywhere and one structured log line per request.
 */
export async function buildApp(config: Config, services: Services, logger: Logger): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    logController: new RequestLog((method, route, status, seconds) => services.metrics.observeRequest(method, route, status, seconds)),
    // A request's child logger (bound to its id) is built only when something logs through it: the request line
    // itself is written by RequestLog on the root logger with the id as a field (same line, no child per request).
    childLoggerFactory: lazyChildLogger,
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    forceCloseConnections: 'idle',
  });

  app.decorateRequest('principal', undefined);
  app.decorateRequest('rawBody', undefined);

  // JSON as fastify parses it (prototype-poisoning safe), but an empty body is no body: clients that send
  // `Content-Type: application/json` on every call, DELETE included, are common.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    // Text starting with a visible ASCII character (`{`, `[`, …) cannot trim to nothing: only other text is trimmed
    // (a copy of the body) to find out.
    const first = text.charCodeAt(0);
    if (text.length === 0 || ((first <= 32 || first >= 127) && text.trim() === '')) return done(null, undefined);
    request.rawBody = text;
    return defaultJson(request, text, done);
  });

  // One hook on every request, callback-style (an async hook costs a promise and a microtask hop per request):
  // every answer fastify sends — errors and 404s included — passes onSend, so the request id is set there
  // rather than in a second (onRequest) hook. Request metrics are observed by RequestLog, without a hook.
  // While draining, keep-alive clients are told to go away, so shutdown does not wait for their idle timeout.
  // A connection that has sent nothing yet (a browser's speculative preconnect) is not idle to Node, so close()
  // would wait for its headers timeout (60 s): it carries no request to drain and is dropped at close.
  let closing = false;
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, retryAfter } = errorResponse(error, request);
    if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
    reply.code(status).send(body);
  });

  const methodNotAllowed = trackApiMethods(app, services);
  app.setNotFoundHandler(async (request, reply) => {
    if (await methodNotAllowed(request, reply)) return reply;
    return reply.code(404).send(notFound('Endpoint not found.').toBody());
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/metrics', async (_request, reply) => reply.type(services.metrics.contentType).send(await services.metrics.text()));

  await registerGraphQL(app, services, config);
  registerRestRoutes(app, services);
  registerCaptureRoutes(app, {
    ingestor: services.ingestor,
    resolveToken: async (token) => (await services.projects.findByToken(token))?.id ?? null,
    anonymizeIpTokens: () => services.projects.anonymizeIpTokens(),
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
  if (isDiskFull(error)) {
    request.log.error({ reqId: request.id, err: error }, 'disk full');
    return {
      status: 503,
      retryAfter: 30,
      body: { type: 'server_error', code: 'disk_full', detail: 'The data directory is out of space; nothing was written. Free space and retry.', attr: null },
    };
  }
  request.log.error({ reqId: request.id, err: error }, 'internal error');
  return { status: 500, body: internalErrorBody(request.id) };
}

/** SQLite (SQLITE_FULL) or the file system (ENOSPC) ran out of space: the write was refused, not half-done. */
function isDiskFull(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || (typeof e?.message === 'string' && /SQLITE_FULL|database or disk is full|ENOSPC/.test(e.message));
}
