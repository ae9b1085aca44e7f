import type { FastifyInstance } from 'fastify';
import { parsePage } from '../src/pagination';
import type { Services } from '../src/services';
import { apiRoute, forbidDestroy, listBody, projectIdParam, respond } from './route';

/**
 * Cohorts (PostHog's `/api/projects/<id>/cohorts/`, also under `/api/environments/<id>/`): list, create, retrieve,
 * partial update; soft delete is PATCH `{"deleted": true}` and DELETE answers 405, as PostHog's (ForbidDestroyModel).
 * Static cohorts take persons with `add_persons_to_static_cohort` / `remove_person_from_static_cohort`.
 */
export function registerCohortRoutes(app: FastifyInstance, s: Services): void {
  const base = '/projects/:projectId/cohorts';
  apiRoute(app, s, 'GET', base, async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, await s.cohorts.list(r.principal, projectIdParam(r.params), page));
  });
  apiRoute(app, s, 'POST', base, async (r) => respond(201, await s.cohorts.create(r.principal, projectIdParam(r.params), r.body)));
  apiRoute(app, s, 'GET', `${base}/:cohortId`, (r) => s.cohorts.get(r.principal, projectIdParam(r.params), r.params.cohortId));
  apiRoute(app, s, ['PATCH', 'PUT'], `${base}/:cohortId`, (r) => s.cohorts.update(r.principal, projectIdParam(r.params), r.params.cohortId, r.body));
  apiRoute(app, s, 'PATCH', `${base}/:cohortId/add_persons_to_static_cohort`, (r) =>
    s.cohorts.addPersons(r.principal, projectIdParam(r.params), r.params.cohortId, r.body),
  );
  apiRoute(app, s, 'PATCH', `${base}/:cohortId/remove_person_from_static_cohort`, (r) =>
    s.cohorts.removePerson(r.principal, projectIdParam(r.params), r.params.cohortId, r.body),
  );
  forbidDestroy(app, s, `${base}/:cohortId`, 'cohort:write');
}
