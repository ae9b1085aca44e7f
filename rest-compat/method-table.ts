import Router from 'find-my-way';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../src/services';
import { UserError } from '../src/errors';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The `/api` paths and the methods each is served with, so a known path called with another method answers as
 * Django REST framework does — 405 `method_not_allowed` with an `Allow` header, after authentication — instead of
 * "Endpoint not found". Filled from fastify's onRoute hook: every `/api` route registered after
 * {@link trackApiMethods} is known, whoever registers it.
 */
export function trackApiMethods(app: FastifyInstance, services: Services): (request: FastifyRequest, reply: FastifyReply) => Promise<boolean> {
  // the same matching rules as the app's router (trailing slash optional, long ids)
  const router = Router({ ignoreTrailingSlash: true, maxParamLength: 500 });
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    for (const m of [route.method].flat()) if ((METHODS as readonly string[]).includes(m)) router.on(m as (typeof METHODS)[number], route.url, () => undefined);
  });
  /** Answers 405 when the request's path is served with other methods (true), else leaves the reply alone. */
  return async (request, reply) => {
    if (!request.url.startsWith('/api/')) return false;
    const path = request.url.split('?', 1)[0];
    const allowed = METHODS.filter((m) => router.find(m, path) !== null);
    if (allowed.length === 0) return false;
    await services.auth.authenticate(request.headers.authorization);
    const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', ');
    reply
      .code(405)
      .header('allow', allow)
      .send(new UserError(405, 'invalid_request', 'method_not_allowed', `Method "${request.method}" not allowed.`).toBody());
    return true;
  };
}
