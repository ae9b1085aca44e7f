import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { FastifyChildLoggerFactory } from 'fastify/types/logger';
import { principalLabel } from './auth/principal';

/**
 * One structured line per request: request id, principal (ids only, never a key), route, status and
 * duration. Replaces fastify's two default lines (incoming, completed).
 *
 * The line is written on the app's root logger with the request id as its first field — the same JSON line a
 * per-request child logger would write — so no child logger is built for a request that logs nothing else (see
 * {@link lazyChildLogger}), and nothing at all is built when the level is above `info`.
 */
export class RequestLog extends LogController {
  /**
   * @param observe Called for every completed request (before the line is written) with its route pattern
   * (`unmatched` when no route matched), status and duration in seconds: the metrics' observer. Fastify calls
   * {@link requestCompleted} for every response anyway, so observing here costs no `onResponse` hook (a hook is
   * a hook runner, an iterator and a callback per request).
   */
  constructor(private readonly observe?: (method: string, route: string, status: number, seconds: number) => void) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.observe?.(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    const log = request.server.log;
    if (error) {
      log.error(
        {
          reqId: request.id,
          principal: principalLabel(request.principal),
          method: request.method,
          route: request.routeOptions?.url ?? null,
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 10) / 10,
          err: error,
        },
        'request errored',
      );
    } else if ((log as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled('info')) {
      log.info(
        {
          reqId: request.id,
          principal: principalLabel(request.principal),
          method: request.method,
          route: request.routeOptions?.url ?? null,
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      );
    }
  }
}

type LogFn = FastifyBaseLogger['info'];

/**
 * A request's logger that builds its pino child (bound to the request id) on first use. Most requests never log
 * through it, and a child costs an object and a serialized binding per request.
 */
class LazyChildLogger {
  private real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: Record<string, unknown>,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.real ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.real?.level ?? (this.options.level as string | undefined) ?? this.parent.level;
  }
  set level(level: string) {
    this.logger.level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.logger as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled(level);
  }
  fatal(...args: Parameters<LogFn>): void {
    this.logger.fatal(...args);
  }
  error(...args: Parameters<LogFn>): void {
    this.logger.error(...args);
  }
  warn(...args: Parameters<LogFn>): void {
    this.logger.warn(...args);
  }
  info(...args: Parameters<LogFn>): void {
    this.logger.info(...args);
  }
  debug(...args: Parameters<LogFn>): void {
    this.logger.debug(...args);
  }
  trace(...args: Parameters<LogFn>): void {
    this.logger.trace(...args);
  }
  silent(...args: Parameters<LogFn>): void {
    this.logger.silent(...args);
  }
  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** fastify's `childLoggerFactory`: see {@link LazyChildLogger}. */
export const lazyChildLogger: FastifyChildLoggerFactory = (logger, bindings, options) =>
  new LazyChildLogger(logger, bindings as Record<string, unknown>, options as Record<string, unknown>) as unknown as FastifyBaseLogger;
