import type { FastifyInstance } from 'fastify';
import { isUserError, validationError } from '../src/errors';
import { parsePage } from '../src/pagination';
import type { Services } from '../src/services';
import { apiRoute, JsonText, listBody, projectIdParam, respond } from './route';

export function registerQueryRoutes(app: FastifyInstance, s: Services): void {
  apiRoute(app, s, 'POST', '/projects/:projectId/query', (r) => {
    const projectId = projectIdParam(r.params);
    // A repeated request is recognized by its text: no validation again, and no signal when the answer is cached;
    // a fresh cached answer to it comes back synchronously.
    const raw = r.request.rawBody;
    const hit = raw !== undefined ? s.queries.cachedAnswer(r.principal, projectId, raw) : undefined;
    if (hit !== undefined) return respond(hit.status, hit.json !== undefined ? new JsonText(hit.json) : hit.body);
    return (async () => {
      const out =
        (raw !== undefined ? await s.queries.cachedRequest(r.principal, projectId, r.body, raw, () => r.signal) : undefined) ??
        (await s.queries.request(r.principal, projectId, r.body, r.signal));
      return respond(out.status, out.json !== undefined ? new JsonText(out.json) : out.body);
    })();
  });
  // PostHog's QueryViewSet.upgrade: `{query}` with every node migrated to the latest schema version, not run. Quarry's
  // query schema has one version (no schema migrations), so the node comes back as sent.
  apiRoute(app, s, 'POST', '/projects/:projectId/query/upgrade', async (r) => {
    await s.projects.projectFor(r.principal, projectIdParam(r.params), { scope: 'query:read' });
    const body = r.body as Record<string, unknown> | null | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body) || body.query === undefined) throw validationError('This field is required.', 'query');
    return { query: body.query };
  });
  apiRoute(app, s, 'GET', '/projects/:projectId/query/:queryId', async (r) => {
    const out = await s.queries.status(r.principal, projectIdParam(r.params), r.params.queryId);
    return respond(out.status, out.body);
  });
  // PostHog's QueryViewSet.destroy: 204 with an empty body (test_query.py TestQueryRetrieve.test_destroy), whatever
  // the query's state: its cancel_query passes over a status it cannot find (QueryNotFoundError) and returns True, so
  // an id never seen (or another project's, which is not this project's to cancel) is a 204 too. The project and the
  // scope are still checked first.
  apiRoute(app, s, 'DELETE', '/projects/:projectId/query/:queryId', async (r) => {
    const projectId = projectIdParam(r.params);
    await s.projects.projectFor(r.principal, projectId, { scope: 'query:read' });
    try {
      await s.queries.cancel(r.principal, projectId, r.params.queryId);
    } catch (e) {
      if (!isUserError(e) || e.status !== 404) throw e;
    }
    return respond(204);
  });
  apiRoute(app, s, 'GET', '/projects/:projectId/query_log', async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, await s.queries.queryLog(r.principal, projectIdParam(r.params), r.query, page));
  });
}
