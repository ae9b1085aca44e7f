import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../src/services';
import { apiRoute, projectIdParam } from './route';

/**
 * PostHog's format_query_params_absolute_url: the request's absolute URL with its `offset` and `limit` values replaced
 * (or appended, offset first, when absent).
 */
function pageUrl(request: FastifyRequest, offset: number, limit: number): string {
  let url = new URL(request.url, `${request.protocol}://${request.host}`).toString();
  for (const [name, value] of [['offset', offset], ['limit', limit]] as const) {
    const re = new RegExp(`([&?]${name}=)(\\d+)`);
    url = re.test(url) ? url.replace(re, `$1${value}`) : `${url}${url.includes('?') ? '&' : '?'}${name}=${value}`;
  }
  return url;
}

/** PostHog's elements API (`posthog/api/element.py`, ElementViewSet), scope element:read. */
export function registerElementRoutes(app: FastifyInstance, s: Services): void {
  apiRoute(app, s, 'GET', '/projects/:projectId/elements/stats', async (r) => {
    const out = await s.elements.stats(r.principal, projectIdParam(r.params), r.query);
    // without paginate_response=true, the bare list of the page (the API's original answer)
    const paginate = [r.query.paginate_response].flat().pop() === 'true'; // QueryDict.get: the last value
    if (!paginate) return out.results;
    return {
      results: out.results,
      next: out.next && pageUrl(r.request, out.next.offset, out.next.limit),
      previous: out.previous && pageUrl(r.request, out.previous.offset, out.previous.limit),
    };
  });
  apiRoute(app, s, 'GET', '/projects/:projectId/elements/values', (r) => s.elements.values(r.principal, projectIdParam(r.params), r.query));
}
