import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ActivityPage, ResultOptions } from '../src/insights/insight-service';
import type { LegacyEndpoint } from '../src/insights/legacy-results';
import { activityEntryRest } from '../src/insights/activity';
import { basicView, parseRefresh } from '../src/insights/insight-service';
import { strToBool } from '../src/insights/legacy-filters';
import { validationError } from '../src/errors';
import { trendCsv, trendCsvDisposition } from '../src/insights/trend-csv';
import { parsePage } from '../src/pagination';
import type { Services } from '../src/services';
import { chosenFormat, formatRenderer } from './csv-render';
import { apiRoute, forbidDestroy, listBody, projectIdParam, respond, type RestRequest } from './route';

/** `refresh`, `client_query_id` and `basic` of list/retrieve. */
const resultOptions = (r: RestRequest): ResultOptions => {
  const q = r.query;
  // PostHog: str_to_bool(basic), so only a truthy spelling (true, 1, yes, …) asks for the basic serializer
  const basic = strToBool(q.basic) ?? false;
  return {
    refresh: parseRefresh(q.refresh),
    clientQueryId: typeof q.client_query_id === 'string' ? q.client_query_id : undefined,
    signal: r.signal,
    basic,
    filtersOverride: jsonParam(q.filters_override, 'filters_override'),
    variablesOverride: jsonParam(q.variables_override, 'variables_override'),
  };
};

/** A JSON object sent as a query-string parameter (PostHog's `filters_override`, `variables_override`). */
function jsonParam(v: unknown, attr: string): unknown {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw validationError('Must be a JSON object.', attr);
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    throw validationError('Must be a JSON object.', attr);
  }
  if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) throw validationError('Must be a JSON object.', attr);
  return parsed ?? undefined;
}

/** PostHog's `format_paginated_url`: this request's absolute URL with `offset` moved to the next page. */
function nextPageUrl(request: FastifyRequest, offset: number): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('offset', String(offset));
  return url.toString();
}

/** PostHog's activity envelope: `{results, next, previous, total_count}` with 1-based `page` links. */
export function activityBody(request: FastifyRequest, a: ActivityPage) {
  const link = (page: number) => {
    const url = new URL(request.url, `${request.protocol}://${request.host}`);
    url.searchParams.set('limit', String(a.limit));
    url.searchParams.set('page', String(page));
    return url.toString();
  };
  return {
    results: a.results.map(activityEntryRest),
    next: a.has_next ? link(a.page + 1) : null,
    previous: a.page > 1 ? link(a.page - 1) : null,
    total_count: a.total_count,
  };
}

/**
 * Saved insights (PostHog's `/api/projects/<id>/insights/`, also under `/api/environments/<id>/`). `<id>` is the
 * numeric id or the short_id. DELETE answers 405 as PostHog's (soft delete is PATCH `{"deleted": true}`); GraphQL's
 * deleteInsight soft-deletes.
 */
export function registerInsightRoutes(app: FastifyInstance, s: Services): void {
  const base = '/projects/:projectId/insights';
  const list = async (r: RestRequest, query: Record<string, unknown>) => {
    const render = formatRenderer(query, r.request.headers.accept);
    const page = parsePage(r.query);
    const opts = resultOptions(r);
    const out = await s.insights.list(r.principal, projectIdParam(r.params), r.query, page, opts);
    return render(opts.basic ? listBody(r.request, page, { count: out.count, results: out.results.map(basicView) }) : listBody(r.request, page, out));
  };
  apiRoute(app, s, 'GET', base, (r) => list(r, r.query));
  // DRF's format suffix on the list (`…/insights.csv`): the suffix is the `format`, over the query string's
  apiRoute(app, s, 'GET', `${base}.:format`, (r) => list(r, { ...r.query, format: r.params.format }));
  // no body is an empty one, as Django's test client posts it: an insight needs no field (test_insight.py
  // test_created_updated_and_last_modified creates one with a bare POST)
  apiRoute(app, s, 'POST', base, async (r) => respond(201, await s.insights.create(r.principal, projectIdParam(r.params), r.body ?? {})));
  apiRoute(app, s, 'POST', `${base}/cancel`, async (r) => {
    await s.insights.cancel(r.principal, projectIdParam(r.params), r.body);
    return respond(201);
  });
  // the legacy filter routes; `next` (trends only) pages breakdown values, as PostHog's. `query` is the request's query
  // string, with the `format` of a URL suffix (`trend.csv/`) when the retrieve route below hands one over.
  const legacy = async (r: RestRequest, endpoint: LegacyEndpoint, query: Record<string, unknown>) => {
    const body = r.request.method === 'POST' ? r.body : undefined;
    // DRF's renderer choice: `format` is the renderer's, never a filter key
    const { format: _format, export_name: exportName, export_insight_id: exportInsightId, ...filterQuery } = query;
    // DRF's renderer choice (a `format` no renderer has is a 404); the viewset renders JSON and CSV (reference §2),
    // the CSV only for trends
    const csv = chosenFormat(query, r.request.headers.accept) === 'csv' && endpoint === 'trend';
    const answer = await s.insights.legacyResult(r.principal, projectIdParam(r.params), endpoint, filterQuery, body, r.signal);
    if (csv) {
      const origin = `${r.request.protocol}://${r.request.host}`;
      const link = typeof exportInsightId === 'string' && exportInsightId !== '' ? `${origin}/insights/${exportInsightId}/` : undefined;
      return respond(200, trendCsv(answer.body.result, link), {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': trendCsvDisposition(exportName, answer.resolvedDateRange),
      });
    }
    if (answer.nextOffset === undefined) return answer.body;
    return { ...answer.body, next: answer.nextOffset === null ? null : nextPageUrl(r.request, answer.nextOffset) };
  };
  for (const endpoint of ['trend', 'funnel', 'path'] as const) {
    apiRoute(app, s, ['GET', 'POST'], `${base}/${endpoint}`, (r) => legacy(r, endpoint, r.query));
  }
  // PostHog's retention action takes GET only (RetentionFilter(data=request.GET.dict()))
  apiRoute(app, s, 'GET', `${base}/retention`, (r) => legacy(r, 'retention', r.query));
  // PostHog's InsightViewed actions: views feed last_viewed_at, the last-viewed filters and my_last_viewed
  apiRoute(app, s, 'POST', `${base}/viewed`, async (r) => {
    await s.insights.viewed(r.principal, projectIdParam(r.params), r.body);
    return respond(201);
  });
  apiRoute(app, s, 'POST', `${base}/:insightId/viewed`, async (r) => {
    await s.insights.viewedOne(r.principal, projectIdParam(r.params), r.params.insightId);
    return respond(201);
  });
  apiRoute(app, s, 'GET', `${base}/my_last_viewed`, async (r) => (await s.insights.myLastViewed(r.principal, projectIdParam(r.params))).map(basicView));
  apiRoute(app, s, 'GET', `${base}/trending`, async (r) => {
    const rows = await s.insights.trending(r.principal, projectIdParam(r.params), r.query);
    const results = rows.map((t) => ({ ...basicView(t.view), last_modified_by: t.view.last_modified_by, view_count: t.view_count, viewers: t.viewers }));
    return { count: results.length, next: null, previous: null, results };
  });
  apiRoute(app, s, 'GET', `${base}/activity`, async (r) =>
    activityBody(r.request, await s.insights.activity(r.principal, projectIdParam(r.params), null, r.query)),
  );
  apiRoute(app, s, 'GET', `${base}/:insightId`, async (r) => {
    // DRF's format suffix patterns (`…/insights/<id>.csv/`, `…/insights/trend.csv/`): the suffix is the `format`, over
    // the query string's; ids and short_ids have no dot (the router's lookup is `[^/.]+`)
    const suffix = /^([^.]+)\.([a-z0-9]+)$/.exec(r.params.insightId);
    const ref = suffix ? suffix[1] : r.params.insightId;
    const query = suffix ? { ...r.query, format: suffix[2] } : r.query;
    if (suffix && (ref === 'trend' || ref === 'funnel' || ref === 'path' || ref === 'retention')) return legacy(r, ref, query);
    const render = formatRenderer(query, r.request.headers.accept);
    const opts = resultOptions(r);
    const view = await s.insights.get(r.principal, projectIdParam(r.params), ref, opts);
    return render(opts.basic ? basicView(view) : view);
  });
  apiRoute(app, s, 'PATCH', `${base}/:insightId`, (r) =>
    s.insights.update(r.principal, projectIdParam(r.params), r.params.insightId, r.body ?? {}, { partial: true }),
  );
  apiRoute(app, s, 'PUT', `${base}/:insightId`, (r) =>
    s.insights.update(r.principal, projectIdParam(r.params), r.params.insightId, r.body ?? {}, { partial: false }),
  );
  forbidDestroy(app, s, `${base}/:insightId`, 'insight:write');
  apiRoute(app, s, 'GET', `${base}/:insightId/activity`, async (r) =>
    activityBody(r.request, await s.insights.activity(r.principal, projectIdParam(r.params), r.params.insightId, r.query)),
  );
}
