import type { FastifyInstance } from 'fastify';
import { parsePage } from '../src/pagination';
import type { Services } from '../src/services';
import { apiRoute, listBody, projectIdParam, respond } from './route';

export function registerKeyRoutes(app: FastifyInstance, s: Services): void {
  apiRoute(app, s, 'GET', '/personal_api_keys', async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, await s.keys.listPersonal(r.principal, page));
  });
  apiRoute(app, s, 'POST', '/personal_api_keys', async (r) => respond(201, await s.keys.createPersonal(r.principal, r.body)));
  apiRoute(app, s, 'DELETE', '/personal_api_keys/:keyId', async (r) => {
    await s.keys.revokePersonal(r.principal, r.params.keyId);
    return respond(204);
  });

  apiRoute(app, s, 'GET', '/projects/:projectId/project_secret_api_keys', async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, await s.keys.listSecret(r.principal, projectIdParam(r.params), page));
  });
  apiRoute(app, s, 'POST', '/projects/:projectId/project_secret_api_keys', async (r) =>
    respond(201, await s.keys.createSecret(r.principal, projectIdParam(r.params), r.body)),
  );
  apiRoute(app, s, 'DELETE', '/projects/:projectId/project_secret_api_keys/:keyId', async (r) => {
    await s.keys.revokeSecret(r.principal, projectIdParam(r.params), r.params.keyId);
    return respond(204);
  });
}
