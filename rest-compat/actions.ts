import type { FastifyInstance } from 'fastify';
import type { Services } from '../src/services';
import { actionEventCount } from '../src/actions/action-count';
import { formatRenderer } from './csv-render';
import { apiRoute, forbidDestroy, projectIdParam, respond, type RestRequest } from './route';

/**
 * Actions (PostHog's `/api/projects/<id>/actions/`, also under `/api/environments/<id>/`). DELETE answers 405 as
 * PostHog's (ForbidDestroyModel): an action is soft-deleted by PATCH `{"deleted": true}`. `GET …/<id>/count/` answers
 * `{count}`, the events the action matches (src/actions/action-count.ts).
 */
export function registerActionRoutes(app: FastifyInstance, s: Services): void {
  const base = '/projects/:projectId/actions';
  // ActionViewSet.list is not paginated: `{"results": [...]}` with every live action (limit/offset are ignored). It
  // renders JSON and CSV (PaginatedCSVRenderer: a line per action; `actions.csv` is DRF's format suffix)
  const list = async (r: RestRequest, query: Record<string, unknown>) => {
    const render = formatRenderer(query, r.request.headers.accept);
    return render({ results: (await s.actions.list(r.principal, projectIdParam(r.params))).results });
  };
  apiRoute(app, s, 'GET', base, (r) => list(r, r.query));
  apiRoute(app, s, 'GET', `${base}.:format`, (r) => list(r, { ...r.query, format: r.params.format }));
  apiRoute(app, s, 'POST', base, async (r) => respond(201, await s.actions.create(r.principal, projectIdParam(r.params), r.body)));
  apiRoute(app, s, 'GET', `${base}/:actionId`, (r) => s.actions.get(r.principal, projectIdParam(r.params), r.params.actionId));
  apiRoute(app, s, ['PATCH', 'PUT'], `${base}/:actionId`, (r) => s.actions.update(r.principal, projectIdParam(r.params), r.params.actionId, r.body));
  apiRoute(app, s, 'GET', `${base}/:actionId/count`, (r) => actionEventCount(s, r.principal, projectIdParam(r.params), r.params.actionId));
  forbidDestroy(app, s, `${base}/:actionId`, 'action:write');
}
