/**
 * Quarry's error taxonomy. Two families, as in PostHog (drf-exceptions-hog) and Apollo Server:
 *
 * - {@link UserError}: the caller can act on it. It carries a stable `code`, the HTTP status as data, a
 *   message, the offending field (`attr`, nested fields joined with `__`) and, for ProductQL, a source span.
 *   REST renders `{type, code, detail, attr}`; GraphQL puts `code` in `extensions`.
 * - anything else is internal: logged with the request id and shown only as a generic message with that id.
 */

export type ErrorType =
  | 'authentication_error'
  | 'invalid_request'
  | 'throttled_error'
  | 'validation_error'
  | 'server_error';

export interface SourceSpan {
  start: number;
  end: number;
}

export interface UserErrorOptions {
  attr?: string | null;
  span?: SourceSpan;
  /** Seconds until a retry may succeed; rendered as `Retry-After`. */
  retryAfter?: number;
  extra?: Record<string, unknown>;
}

export class UserError extends Error {
  readonly attr: string | null;
  readonly span?: SourceSpan;
  readonly retryAfter?: number;
  readonly extra?: Record<string, unknown>;

  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    detail: string,
    options: UserErrorOptions = {},
  ) {
    super(detail);
    this.name = 'UserError';
    this.attr = options.attr ?? null;
    this.span = options.span;
    this.retryAfter = options.retryAfter;
    this.extra = options.extra;
  }

  get detail(): string {
    return this.message;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { type: this.type, code: this.code, detail: this.message, attr: this.attr };
    if (this.span) body.extra = { ...(this.extra ?? {}), start: this.span.start, end: this.span.end };
    else if (this.extra) body.extra = this.extra;
    return body;
  }
}

export interface ErrorBody {
  type: ErrorType;
  code: string;
  detail: string;
  attr: string | null;
  extra?: Record<string, unknown>;
}

export const notAuthenticated = (): UserError =>
  new UserError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.');

export const authenticationFailed = (
  detail = 'Personal API key found in request Authorization header is invalid.',
): UserError => new UserError(401, 'authentication_error', 'authentication_failed', detail);

export const permissionDenied = (detail: string): UserError =>
  new UserError(403, 'authentication_error', 'permission_denied', detail);

export const missingScope = (scope: string): UserError => permissionDenied(`API key missing required scope '${scope}'`);

export const notFound = (detail = 'Not found.'): UserError =>
  new UserError(404, 'invalid_request', 'not_found', detail);

export const projectNotFound = (): UserError => notFound('Project not found.');

export const validationError = (detail: string, attr: string | null = null, code = 'invalid_input'): UserError =>
  new UserError(400, 'validation_error', code, detail, { attr });

export const parseError = (detail: string): UserError => new UserError(400, 'invalid_request', 'parse_error', detail);

export const conflict = (detail: string, attr: string | null = null): UserError =>
  new UserError(409, 'invalid_request', 'conflict', detail, { attr });

/**
 * DRF's Throttled: "Request was throttled." and, when the wait is known, "Expected available in N second(s)." with a
 * `Retry-After` (drf-exceptions-hog ≥ 0.4.0); a throttle that cannot tell the wait (DRF's `wait()` is None) says neither.
 */
export const throttled = (retryAfter?: number): UserError =>
  new UserError(
    429,
    'throttled_error',
    'throttled',
    retryAfter === undefined
      ? 'Request was throttled.'
      : `Request was throttled. Expected available in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
    { retryAfter },
  );

/** Body of an internal error as the caller sees it: no stack, no SQL, only the request id. */
export const internalErrorBody = (requestId: string): ErrorBody => ({
  type: 'server_error',
  code: 'error',
  detail: `A server error occurred. Request id: ${requestId}`,
  attr: null,
});

export const isUserError = (e: unknown): e is UserError => e instanceof UserError;
