import type { FastifyInstance } from 'fastify';
import type { Services } from '../src/services';
import { apiRoute, projectIdParam } from './route';

/** PostHog's sessions API (`posthog/api/sessions.py`): session property definitions and values, scope query:read. */
export function registerSessionRoutes(app: FastifyInstance, s: Services): void {
  apiRoute(app, s, 'GET', '/projects/:projectId/sessions/property_definitions', (r) => s.sessionProperties.definitions(r.principal, projectIdParam(r.params), r.query));
  apiRoute(app, s, 'GET', '/projects/:projectId/sessions/values', (r) => s.sessionProperties.values(r.principal, projectIdParam(r.params), r.query));
}
