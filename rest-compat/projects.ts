import type { FastifyInstance } from 'fastify';
import { parsePage } from '../src/pagination';
import type { Services } from '../src/services';
import { apiRoute, listBody, projectIdParam, respond } from './route';

export function registerProjectRoutes(app: FastifyInstance, s: Services): void {
  apiRoute(app, s, 'GET', '/projects', async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, await s.projects.list(r.principal, page));
  });
  apiRoute(app, s, 'POST', '/projects', async (r) => respond(201, await s.projects.create(r.principal, r.body)));
  apiRoute(app, s, 'GET', '/projects/:projectId', (r) => s.projects.get(r.principal, projectIdParam(r.params)));
  apiRoute(app, s, 'PATCH', '/projects/:projectId', (r) => s.projects.update(r.principal, projectIdParam(r.params), r.body));
  apiRoute(app, s, 'DELETE', '/projects/:projectId', async (r) => {
    await s.projects.delete(r.principal, projectIdParam(r.params));
    return respond(204);
  });
}
