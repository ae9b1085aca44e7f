import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ActivityPage, ResultOptions } from '../src/insights/insight-service';
import { parseRefresh } from '../src/insights/insight-service';
import { parsePage } from '../src/pagination';
import type { Services } from '../src/services';
import { apiRoute, listBody, projectIdParam, respond, type RestRequest } from './route';

/** `refresh`, `client_query_id` and `basic` of list/retrieve. */
const resultOptions = (r: RestRequest): ResultOptions => {
  const q = r.query;
  const basic = q.basic !== undefined && !['false', '0', ''].includes(String(q.basic).toLowerCase());
  return {
    refresh: parseRefresh(q.refresh),
    clientQueryId: typeof q.client_query_id === 'string' ? q.client_query_id : undefined,
    signal: r.signal,
    basic,
  };
};

/** PostHog's activity envelope: `{results, next, previous, total_count}` with 1-based `page` links. */
function activityBody(request: FastifyRequest, a: ActivityPage) {
  const link = (page: number) => {
    const url = new URL(request.url, `${request.protocol}://${request.host}`);
    url.searchParams.set('limit', String(a.limit));
    url.searchParams.set('page', String(page));
    return url.toString();
  };
  return {
    results: a.results,
    next: a.has_next ? link(a.page + 1) : null,
    previous: a.page > 1 ? link(a.page - 1) : null,
    total_count: a.total_count,
  };
}

/**
 * Saved insights (PostHog's `/api/projects/<id>/insights/`, also under `/api/environments/<id>/`). `<id>` is the
 * numeric id or the short_id. DELETE soft-deletes (204), where PostHog answers 405 and wants PATCH `deleted`.
 */
export function registerInsightRoutes(app: FastifyInstance, s: Services): void {
  const base = '/projects/:projectId/insights';
  apiRoute(app, s, 'GET', base, async (r) => {
    const page = parsePage(r.query);
    const opts = resultOptions(r);
    return listBody(r.request, page, await s.insights.list(r.principal, projectIdParam(r.params), r.query, page, opts));
  });
  apiRoute(app, s, 'POST', base, async (r) => respond(201, await s.insights.create(r.principal, projectIdParam(r.params), r.body)));
  apiRoute(app, s, 'GET', `${base}/activity`, async (r) =>
    activityBody(r.request, await s.insights.activity(r.principal, projectIdParam(r.params), null, r.query)),
  );
  apiRoute(app, s, 'GET', `${base}/:insightId`, (r) =>
    s.insights.get(r.principal, projectIdParam(r.params), r.params.insightId, resultOptions(r)),
  );
  apiRoute(app, s, 'PATCH', `${base}/:insightId`, (r) =>
    s.insights.update(r.principal, projectIdParam(r.params), r.params.insightId, r.body, { partial: true }),
  );
  apiRoute(app, s, 'PUT', `${base}/:insightId`, (r) =>
    s.insights.update(r.principal, projectIdParam(r.params), r.params.insightId, r.body, { partial: false }),
  );
  apiRoute(app, s, 'DELETE', `${base}/:insightId`, async (r) => {
    await s.insights.delete(r.principal, projectIdParam(r.params), r.params.insightId);
    return respond(204);
  });
  apiRoute(app, s, 'GET', `${base}/:insightId/activity`, async (r) =>
    activityBody(r.request, await s.insights.activity(r.principal, projectIdParam(r.params), r.params.insightId, r.query)),
  );
}
