import type { FastifyInstance } from 'fastify';
import { parsePage, type Paged } from '../src/pagination';
import type { Services } from '../src/services';
import { apiRoute, listBody, projectIdParam, respond } from './route';

/**
 * PostHog's key serializers always have `value`: the key itself in the response that created it, null in every
 * other (`get_key_value` returns the value kept on the object just created, else None).
 */
const withValue = <T extends { value?: string }>(k: T): T & { value: string | null } => ({ ...k, value: k.value ?? null });
const pageWithValue = <T extends { value?: string }>(p: Paged<T>): Paged<T & { value: string | null }> => ({ count: p.count, results: p.results.map(withValue) });

export function registerKeyRoutes(app: FastifyInstance, s: Services): void {
  // not paged: PostHog's personal keys list is a bare array (see KeyService.listPersonal)
  apiRoute(app, s, 'GET', '/personal_api_keys', async (r) => (await s.keys.listPersonal(r.principal)).map(withValue));
  apiRoute(app, s, 'POST', '/personal_api_keys', async (r) => respond(201, await s.keys.createPersonal(r.principal, r.body)));
  apiRoute(app, s, 'GET', '/personal_api_keys/:keyId', async (r) => withValue(await s.keys.getPersonal(r.principal, r.params.keyId)));
  apiRoute(app, s, ['PATCH', 'PUT'], '/personal_api_keys/:keyId', async (r) => withValue(await s.keys.updatePersonal(r.principal, r.params.keyId, r.body)));
  apiRoute(app, s, 'POST', '/personal_api_keys/:keyId/roll', async (r) => s.keys.rollPersonal(r.principal, r.params.keyId));
  apiRoute(app, s, 'DELETE', '/personal_api_keys/:keyId', async (r) => {
    await s.keys.revokePersonal(r.principal, r.params.keyId);
    return respond(204);
  });

  apiRoute(app, s, 'GET', '/projects/:projectId/project_secret_api_keys', async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, pageWithValue(await s.keys.listSecret(r.principal, projectIdParam(r.params), page)));
  });
  apiRoute(app, s, 'POST', '/projects/:projectId/project_secret_api_keys', async (r) =>
    respond(201, await s.keys.createSecret(r.principal, projectIdParam(r.params), r.body)),
  );
  apiRoute(app, s, 'GET', '/projects/:projectId/project_secret_api_keys/:keyId', async (r) =>
    withValue(await s.keys.getSecret(r.principal, projectIdParam(r.params), r.params.keyId)),
  );
  apiRoute(app, s, ['PATCH', 'PUT'], '/projects/:projectId/project_secret_api_keys/:keyId', async (r) =>
    withValue(await s.keys.updateSecret(r.principal, projectIdParam(r.params), r.params.keyId, r.body)),
  );
  apiRoute(app, s, 'POST', '/projects/:projectId/project_secret_api_keys/:keyId/roll', async (r) =>
    s.keys.rollSecret(r.principal, projectIdParam(r.params), r.params.keyId),
  );
  apiRoute(app, s, 'DELETE', '/projects/:projectId/project_secret_api_keys/:keyId', async (r) => {
    await s.keys.revokeSecret(r.principal, projectIdParam(r.params), r.params.keyId);
    return respond(204);
  });
}
