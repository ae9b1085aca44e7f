import type { FastifyInstance } from 'fastify';
import { parsePage } from '../src/pagination';
import type { Services } from '../src/services';
import { apiRoute, listBody, projectIdParam, respond } from './route';

/**
 * Saved variables (PostHog's `/api/projects/<id>/insight_variables/`, also under `/api/environments/<id>/`): list
 * (paginated), create, retrieve, update and delete (204), over src/insights/insight-variable-service.ts.
 */
export function registerInsightVariableRoutes(app: FastifyInstance, s: Services): void {
  const base = '/projects/:projectId/insight_variables';
  apiRoute(app, s, 'GET', base, async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, await s.insightVariables.list(r.principal, projectIdParam(r.params), page));
  });
  apiRoute(app, s, 'POST', base, async (r) => respond(201, await s.insightVariables.create(r.principal, projectIdParam(r.params), r.body)));
  apiRoute(app, s, 'GET', `${base}/:variableId`, (r) => s.insightVariables.get(r.principal, projectIdParam(r.params), r.params.variableId));
  apiRoute(app, s, 'PATCH', `${base}/:variableId`, (r) => s.insightVariables.update(r.principal, projectIdParam(r.params), r.params.variableId, r.body, true));
  apiRoute(app, s, 'PUT', `${base}/:variableId`, (r) => s.insightVariables.update(r.principal, projectIdParam(r.params), r.params.variableId, r.body, false));
  apiRoute(app, s, 'DELETE', `${base}/:variableId`, async (r) => {
    await s.insightVariables.delete(r.principal, projectIdParam(r.params), r.params.variableId);
    return respond(204);
  });
}
