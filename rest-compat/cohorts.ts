import type { FastifyInstance } from 'fastify';
import { parsePage } from '../src/pagination';
import { personsOfCohort } from '../src/projects/cohort-persons';
import type { Services } from '../src/services';
import { includeTotal, personsPage } from './events';
import { apiRoute, forbidDestroy, listBody, projectIdParam, respond } from './route';

/**
 * Cohorts (PostHog's `/api/projects/<id>/cohorts/`, also under `/api/environments/<id>/`): list, create, retrieve,
 * partial update; soft delete is PATCH `{"deleted": true}` and DELETE answers 405, as PostHog's (ForbidDestroyModel).
 * Static cohorts take persons with `add_persons_to_static_cohort` / `remove_person_from_static_cohort`; `persons`
 * lists a cohort's persons as the persons list does.
 */
export function registerCohortRoutes(app: FastifyInstance, s: Services): void {
  const base = '/projects/:projectId/cohorts';
  apiRoute(app, s, 'GET', base, async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, await s.cohorts.list(r.principal, projectIdParam(r.params), page, { search: r.query.search }));
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
  apiRoute(app, s, 'GET', `${base}/:cohortId/persons`, async (r) => {
    const page = parsePage(r.query);
    const out = await personsOfCohort(s, r.principal, projectIdParam(r.params), r.params.cohortId, r.query, page, includeTotal(r.query));
    return personsPage(r.request, page, out);
  });
  apiRoute(app, s, 'GET', `${base}/:cohortId/duplicate_as_static_cohort`, (r) =>
    s.cohorts.duplicateAsStatic(r.principal, projectIdParam(r.params), r.params.cohortId),
  );
  forbidDestroy(app, s, `${base}/:cohortId`, 'cohort:write');
}
