import type { FastifyInstance } from 'fastify';
import type { Services } from '../src/services';
import { apiRoute, projectIdParam, respond } from './route';

export function registerEventRoutes(app: FastifyInstance, s: Services): void {
  apiRoute(app, s, 'POST', '/projects/:projectId/import', (r) => s.events.import(r.principal, projectIdParam(r.params), r.body));
  apiRoute(app, s, 'DELETE', '/projects/:projectId/persons/:personId', async (r) => {
    const deleteEvents = ['true', '1'].includes(String(r.query.delete_events ?? '').toLowerCase());
    await s.events.deletePerson(r.principal, projectIdParam(r.params), r.params.personId, deleteEvents);
    return respond(204);
  });
}
