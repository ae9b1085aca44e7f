import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { principalLabel } from './auth/principal';

/**
 * One structured line per request: request id, principal (ids only, never a key), route, status and
 * duration. Replaces fastify's two default lines (incoming, completed).
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      principal: principalLabel(request.principal),
      method: request.method,
      route: request.routeOptions?.url ?? null,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else request.log.info(line, 'request');
  }
}
