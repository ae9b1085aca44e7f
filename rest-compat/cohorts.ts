import type { FastifyInstance } from 'fastify';
import { parsePage, pythonInt } from '../src/pagination';
import type { PersonView } from '../src/projects/person-reader';
import { personsOfCohort } from '../src/projects/cohort-persons';
import { cohortFormInput, type CohortUpload } from '../src/cohorts/cohort-service';
import type { Services } from '../src/services';
import { MultipartForm } from './multipart';
import { includeTotal, personsPage } from './events';
import { activityBody } from './insights';
import { apiRoute, forbidDestroy, listBody, projectIdParam, respond, type RestRequest } from './route';
import { chosenFormat, formatRenderer } from './csv-render';

/** A JSON body as is; a multipart form (PostHog's CSV upload) as its fields and its `csv` file. */
function bodyOf(body: unknown): [unknown, CohortUpload] {
  if (!(body instanceof MultipartForm)) return [body, {}];
  return [cohortFormInput(body.fields), { csv: body.files.csv?.data }];
}

/** PostHog's CSV_EXPORT_LIMIT: the persons of a cohort's CSV export when no `limit` is given. */
const CSV_EXPORT_LIMIT = 10_000;

/** A person as CohortViewSet.persons answers it in JSON (PostHog's serialize_people: SerializedPerson). */
const serializedPerson = (p: PersonView) => ({ type: 'person' as const, ...p, matched_recordings: [], value_at_data_point: null });

/**
 * A person as CohortViewSet.persons exports it to CSV: a truthy `email` property moved out of the properties to an
 * `email` column, and the rest of its DELETE_KEYS dropped (`uuid`, `is_identified`; `type`, `matched_recordings` and
 * `value_at_data_point` are only in the JSON's {@link serializedPerson}).
 */
function csvPerson(p: PersonView): Record<string, unknown> {
  const { uuid: _uuid, is_identified: _identified, ...rest } = p;
  const email = p.properties.email;
  if (!email) return rest;
  const { email: _email, ...properties } = p.properties;
  return { ...rest, email, properties };
}

/**
 * Cohorts (PostHog's `/api/projects/<id>/cohorts/`, also under `/api/environments/<id>/`): list, create, retrieve,
 * partial update; soft delete is PATCH `{"deleted": true}` and DELETE answers 405, as PostHog's (ForbidDestroyModel).
 * Static cohorts take persons with `add_persons_to_static_cohort` / `remove_person_from_static_cohort`; `persons`
 * lists a cohort's persons as the persons list does. Create and update also take a multipart form, whose `csv` file
 * fills a static cohort with the distinct ids of its first column (PostHog's CSV upload).
 */
export function registerCohortRoutes(app: FastifyInstance, s: Services): void {
  const base = '/projects/:projectId/cohorts';
  apiRoute(app, s, 'GET', base, async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, await s.cohorts.list(r.principal, projectIdParam(r.params), page, { search: r.query.search, type: r.query.type, created_by_id: r.query.created_by_id, hide_behavioral_cohorts: r.query.hide_behavioral_cohorts }));
  });
  apiRoute(
    app,
    s,
    'POST',
    base,
    async (r) => {
      const [input, upload] = bodyOf(r.body);
      return respond(201, await s.cohorts.create(r.principal, projectIdParam(r.params), input, upload));
    },
    { form: true },
  );
  // PostHog's all_activity / activity actions (scope activity_log:read); `activity` is no cohort id
  apiRoute(app, s, 'GET', `${base}/activity`, async (r) => activityBody(r.request, await s.cohorts.activity(r.principal, projectIdParam(r.params), null, r.query)));
  apiRoute(app, s, 'GET', `${base}/:cohortId`, (r) => s.cohorts.get(r.principal, projectIdParam(r.params), r.params.cohortId));
  apiRoute(app, s, 'GET', `${base}/:cohortId/activity`, async (r) =>
    activityBody(r.request, await s.cohorts.activity(r.principal, projectIdParam(r.params), r.params.cohortId, r.query)),
  );
  apiRoute(
    app,
    s,
    ['PATCH', 'PUT'],
    `${base}/:cohortId`,
    (r) => {
      const [input, upload] = bodyOf(r.body);
      return s.cohorts.update(r.principal, projectIdParam(r.params), r.params.cohortId, input, upload);
    },
    { form: true },
  );
  apiRoute(app, s, 'PATCH', `${base}/:cohortId/add_persons_to_static_cohort`, (r) =>
    s.cohorts.addPersons(r.principal, projectIdParam(r.params), r.params.cohortId, r.body),
  );
  apiRoute(app, s, 'PATCH', `${base}/:cohortId/remove_person_from_static_cohort`, (r) =>
    s.cohorts.removePerson(r.principal, projectIdParam(r.params), r.params.cohortId, r.body),
  );
  // CohortViewSet.persons renders JSON and CSV (PaginatedCSVRenderer; `persons.csv` is DRF's format suffix, and
  // `is_csv_export` asks for the CSV's shaping too); without a format, DRF negotiates the Accept header
  const persons = async (r: RestRequest, query: Record<string, unknown>) => {
    const render = formatRenderer(query, r.request.headers.accept);
    const csv = chosenFormat(query, r.request.headers.accept) === 'csv' || Boolean(r.query.is_csv_export);
    // a CSV export without a `limit` (Filter's: missing or 0) is the first CSV_EXPORT_LIMIT persons
    const page = csv && !pythonInt(r.query.limit) ? { limit: CSV_EXPORT_LIMIT, offset: 0 } : parsePage(r.query);
    const out = await personsOfCohort(s, r.principal, projectIdParam(r.params), r.params.cohortId, r.query, page, includeTotal(r.query));
    const body = personsPage(r.request, page, out);
    return render(csv ? { ...body, results: body.results.map(csvPerson) } : { ...body, results: body.results.map(serializedPerson) });
  };
  apiRoute(app, s, 'GET', `${base}/:cohortId/persons`, (r) => persons(r, r.query));
  apiRoute(app, s, 'GET', `${base}/:cohortId/persons.:format`, (r) => persons(r, { ...r.query, format: r.params.format }));
  apiRoute(app, s, 'GET', `${base}/:cohortId/duplicate_as_static_cohort`, (r) =>
    s.cohorts.duplicateAsStatic(r.principal, projectIdParam(r.params), r.params.cohortId),
  );
  forbidDestroy(app, s, `${base}/:cohortId`, 'cohort:write');
}
