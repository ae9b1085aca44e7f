import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { Principal } from '../src/auth/principal';
import { queryRateFamily, type RateFamily } from '../src/auth/rate-limiter';
import type { Scope } from '../src/auth/scopes';
import { authenticationFailed, projectNotFound, UserError } from '../src/errors';
import type { Page, Paged } from '../src/pagination';
import type { Services } from '../src/services';
import { FORM_ROUTE, MultipartForm } from './multipart';

export interface RestRequest {
  principal: Principal;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  request: FastifyRequest;
  /**
   * Aborted when the caller goes away before the response is sent: long work stops with it. Made on first read
   * (a cached answer never needs one).
   */
  readonly signal: AbortSignal;
}

/** A {@link RestRequest}: a class, so a request costs one object (the signal getter lives on the prototype). */
class Call implements RestRequest {
  private abort: AbortController | undefined;

  constructor(
    readonly principal: Principal,
    readonly params: Record<string, string>,
    readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {}

  get query(): Record<string, unknown> {
    return (this.request.query ?? {}) as Record<string, unknown>;
  }

  get body(): unknown {
    return this.request.body;
  }

  get signal(): AbortSignal {
    if (this.abort === undefined) {
      const controller = (this.abort = new AbortController());
      const raw = this.reply.raw;
      if (raw.destroyed && !raw.writableFinished) controller.abort();
      else {
        raw.once('close', () => {
          if (!raw.writableFinished) controller.abort();
        });
      }
    }
    return this.abort.signal;
  }
}

/** A response with an explicit status (and optional body and headers). */
export class RestResponse {
  constructor(
    readonly status: number,
    readonly body?: unknown,
    readonly headers?: Record<string, string>,
  ) {}
}

/** A body that is already JSON text (a cached answer's envelope): sent as is, with the JSON content type. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** What a handler returns: a body (sent with 200), or a {@link RestResponse}. */
export type RestResult = unknown;

export const respond = (status: number, body?: unknown, headers?: Record<string, string>) =>
  new RestResponse(status, body, headers);

/**
 * DELETE on a saved object PostHog soft-deletes (its ForbidDestroyModel: insights, actions, cohorts): 405 with an
 * empty body, after the same authentication and scope checks as any write, whether or not the object exists.
 * Clients PATCH `{"deleted": true}` instead.
 */
export function forbidDestroy(app: FastifyInstance, services: Services, path: string, scope: Scope): void {
  apiRoute(app, services, 'DELETE', path, async (r) => {
    await services.projects.projectFor(r.principal, projectIdParam(r.params), { scope });
    return respond(405);
  });
}

/**
 * Registers an authenticated REST route under /api. Paths under `/projects/:projectId` are also served under
 * `/environments/:projectId`, PostHog's alias. Trailing slashes are optional (router option).
 * Handlers are thin: they call one service function with the principal and the raw input. `form`: the route also takes
 * a `multipart/form-data` body (a {@link MultipartForm}); every other route answers one 415, as any non-JSON body.
 */
export function apiRoute(
  app: FastifyInstance,
  services: Services,
  method: HTTPMethods | HTTPMethods[],
  path: string,
  handler: (r: RestRequest) => RestResult | Promise<RestResult>,
  opts: { form?: boolean } = {},
): void {
  const family = rateFamilyOf(path);
  const paths = path.startsWith('/projects/:projectId')
    ? [path, path.replace('/projects/:projectId', '/environments/:projectId')]
    : [path];
  const legacy = legacyPathOf(path);
  if (legacy !== undefined) paths.push(legacy);
  const run = (principal: Principal, request: FastifyRequest, reply: FastifyReply): RestResult | Promise<RestResult> => {
    const params = (request.params ?? {}) as Record<string, string>;
    // a legacy route names no project: it is the caller's current one
    if (legacy !== undefined && params.projectId === undefined) params.projectId = CURRENT_PROJECT;
    const token = params.projectId !== undefined ? projectTokenOf(request) : undefined;
    if (token !== undefined) {
      // PostHog's TeamAndOrgViewSetMixin._get_team_from_request: a project token (`get_token`) names the project,
      // whatever the URL's id; a token no project has is AuthenticationFailed. The key's access is checked as usual.
      return services.projects.findByToken(token).then((project) => {
        if (!project) throw authenticationFailed('Incorrect authentication credentials.'); // DRF's default detail
        params.projectId = String(project.id);
        return run(principal, withoutToken(request), reply);
      });
    }
    if (params.projectId === CURRENT_PROJECT) {
      // PostHog's `@current`: the caller's current project, then the route as if its id had been given
      return services.projects.currentFor(principal).then((id) => {
        params.projectId = String(id);
        return run(principal, request, reply);
      });
    }
    services.rateLimiter?.check(
      principal,
      family === 'query' ? queryRateFamily(request.body) : family,
      /^\d{1,15}$/.test(params.projectId ?? '') ? Number(params.projectId) : undefined,
    );
    if (request.body !== undefined && !isJson(request.headers['content-type']) && !(opts.form && request.body instanceof MultipartForm)) {
      throw new UserError(
        415,
        'invalid_request',
        'unsupported_media_type',
        `Unsupported media type "${request.headers['content-type'] ?? ''}" in request.`,
      );
    }
    request.principal = principal;
    return handler(new Call(principal, params, request, reply));
  };
  for (const p of paths) {
    app.route({
      method,
      url: `/api${p}`,
      ...(opts.form ? { config: { [FORM_ROUTE]: true } } : {}),
      // Synchronous while everything is in memory (a remembered key, a handler answering from the cache without a
      // promise): each await is a microtask hop, and a cached answer would take several. Same checks, same order.
      handler: (request: FastifyRequest, reply: FastifyReply) => {
        if (request.headers.authorization === undefined) {
          const sent = keyOutsideHeader(request);
          if (sent !== undefined) {
            return services.auth
              .authenticatePersonalKey(sent.value, sent.source)
              .then(async (principal) => send(reply, await run(principal, request, reply)));
          }
        }
        const known = services.auth.remembered(request.headers.authorization);
        if (known === undefined) {
          return services.auth.authenticate(request.headers.authorization).then(async (principal) => send(reply, await run(principal, request, reply)));
        }
        const result = run(known, request, reply);
        if (result instanceof Promise) return result.then((r) => send(reply, r));
        send(reply, result);
        return undefined; // sent: fastify must not send again
      },
    });
  }
}

/**
 * A personal key sent without an Authorization header, as PostHog reads it (reference §3.1): `personal_api_key` in a
 * JSON body, else in the query string; only the first one found is tried. It is a credential, not input: it is taken
 * out of the body (whose raw text is then not reused for cached answers, so the key is kept nowhere).
 */
function keyOutsideHeader(request: FastifyRequest): { value: string; source: 'body' | 'query string' } | undefined {
  const body = request.body as Record<string, unknown> | undefined;
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && Object.hasOwn(body, 'personal_api_key')) {
    const value = body.personal_api_key;
    delete body.personal_api_key;
    request.rawBody = undefined;
    return { value: typeof value === 'string' ? value : '', source: 'body' };
  }
  const query = request.query as Record<string, unknown> | undefined;
  const q = query?.personal_api_key;
  if (q !== undefined) {
    delete query!.personal_api_key;
    return { value: typeof q === 'string' ? q : '', source: 'query string' };
  }
  return undefined;
}

/** Sends what a handler returned (see {@link RestResult}). */
function send(reply: FastifyReply, result: RestResult): FastifyReply {
  if (result instanceof RestResponse) {
    if (result.headers) reply.headers(result.headers);
    reply.code(result.status);
    if (result.body instanceof JsonText) return reply.type(JSON_TYPE).send(result.body.text);
    return result.body === undefined ? reply.send() : reply.send(result.body);
  }
  if (result instanceof JsonText) return reply.type(JSON_TYPE).send(result.text);
  return reply.send(result);
}

/** The project id PostHog accepts for "the caller's current project" (reference §0). */
const CURRENT_PROJECT = '@current';

/**
 * PostHog's legacy routes without a project in the path (posthog/api/__init__.py "Legacy endpoints": e.g.
 * `router.register(r"person", person.LegacyPersonViewSet)`, `r"cohort"`), each the project route of the caller's
 * current project (`param_derived_from_user_current_team`). test_person.py calls `/api/person/…` throughout, and
 * `/api/cohort/<id>/persons` for a cohort's persons.
 */
const LEGACY_PREFIXES: [project: string, legacy: string][] = [
  ['/projects/:projectId/persons', '/person'],
  ['/projects/:projectId/cohorts', '/cohort'],
  // test_element.py calls `/api/element/stats/` and `/api/element/values/`
  ['/projects/:projectId/elements', '/element'],
  // posthog/api/__init__.py's legacy project router also serves events, insights and actions
  ['/projects/:projectId/events', '/event'],
  ['/projects/:projectId/insights', '/insight'],
  ['/projects/:projectId/actions', '/action'],
];

/** The legacy path serving a project route, if PostHog has one. */
function legacyPathOf(path: string): string | undefined {
  for (const [project, legacy] of LEGACY_PREFIXES) {
    if (path === project || path.startsWith(`${project}/`) || path.startsWith(`${project}.`)) return legacy + path.slice(project.length);
  }
  return undefined;
}

/**
 * The project token of a request as PostHog's get_token reads it for a project route: on a GET, `token` or else
 * `api_key` of the query string (stripped; empty is none). Bodies are JSON here (get_token reads form fields only).
 */
function projectTokenOf(request: FastifyRequest): string | undefined {
  if (request.method !== 'GET') return undefined;
  const q = (request.query ?? {}) as Record<string, unknown>;
  const last = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v); // QueryDict.get: the last value
  for (const name of ['token', 'api_key']) {
    const v = last(q[name]);
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return undefined;
}

/** The request with its token taken (the project is chosen once; a second pass must not look it up again). */
function withoutToken(request: FastifyRequest): FastifyRequest {
  const q = { ...((request.query ?? {}) as Record<string, unknown>) };
  delete q.token;
  delete q.api_key;
  request.query = q;
  return request;
}

/** A numeric project id from the path; anything else is a project that does not exist. */
export function projectIdParam(params: Record<string, string>): number {
  const raw = params.projectId;
  if (!/^\d{1,15}$/.test(raw ?? '')) throw projectNotFound();
  return Number(raw);
}

/**
 * DRF-style list envelope with absolute next/previous URLs. DRF's replace_query_param writes a link's parameters sorted
 * by name (`urlencode(sorted(...))`); `sorted: false` keeps the request's order (the persons lists build theirs apart).
 */
export function listBody<T>(request: FastifyRequest, page: Page, paged: Paged<T>, { sorted = true }: { sorted?: boolean } = {}) {
  const link = (offset: number) => {
    const url = new URL(request.url, `${request.protocol}://${request.host}`);
    url.searchParams.set('limit', String(page.limit));
    if (offset > 0) url.searchParams.set('offset', String(offset));
    else url.searchParams.delete('offset');
    if (sorted) url.searchParams.sort();
    return url.toString();
  };
  return {
    count: paged.count,
    next: page.offset + page.limit < paged.count ? link(page.offset + page.limit) : null,
    previous: page.offset > 0 ? link(Math.max(0, page.offset - page.limit)) : null,
    results: paged.results,
  };
}

/** What fastify sets for a serialized object. */
const JSON_TYPE = 'application/json; charset=utf-8';

const isJson = (contentType: string | undefined) => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType ?? '');

/** The rate-limit family of a route, from its path (PostHog's throttle classes; see {@link queryRateFamily} for 'query'). */
export function rateFamilyOf(path: string): RateFamily {
  if (/\/query(\/|$)/.test(path)) return 'query';
  if (/\/endpoints\/:[^/]+\/run$/.test(path)) return 'endpoint_run';
  // PostHog's ClickHouse throttle classes: insights, persons and the events API
  // (a DRF format suffix, `insights.:format`, is the same view)
  if (/\/(insights|persons|events)(\/|\.:format$|$)/.test(path)) return 'analytics';
  return 'default';
}
