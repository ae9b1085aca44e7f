import type { FastifyInstance } from 'fastify';
import type { Services } from '../src/services';
import { apiRoute, projectIdParam } from './route';

export function registerQueryRoutes(app: FastifyInstance, s: Services): void {
  apiRoute(app, s, 'POST', '/projects/:projectId/query', (r) =>
    s.queries.run(r.principal, projectIdParam(r.params), r.body, r.signal),
  );
}
