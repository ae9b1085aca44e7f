import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parsePage, type Page } from '../src/pagination';
import { bulkDeletePersons, deletePerson } from '../src/projects/person-bulk-delete';
import { personActivity } from '../src/projects/person-activity';
import { activityBody } from './insights';
import type { PersonView } from '../src/projects/person-reader';
import { cohortsOfPerson } from '../src/projects/person-cohorts';
import { splitPerson } from '../src/projects/person-split';
import { deletePersonProperty, setPersonProperties, updatePersonProperty } from '../src/projects/person-property-events';
import type { Services } from '../src/services';
import { eventUuid } from '../src/projects/event-reader';
import { chosenFormat, formatRenderer } from './csv-render';
import { apiRoute, listBody, projectIdParam, respond, type RestRequest } from './route';

/** PostHog's undocumented `include_total` of the persons lists: any value but false/0 asks for `count`. */
export const includeTotal = (q: Record<string, unknown>): boolean =>
  q.include_total !== undefined && !['false', '0'].includes(String(q.include_total).toLowerCase());

/**
 * A page of persons as PostHog's PersonViewSet.list and CohortViewSet.persons answer it: `{results, next, previous}`,
 * a next page whenever this one is full (`len(results) >= limit`), a previous one when a whole page fits before it
 * (`offset - limit >= 0`), and `count` only when it was asked for (`include_total`).
 */
export function personsPage(request: FastifyRequest, page: Page, out: { count?: number; results: PersonView[] }) {
  const links = listBody(request, page, { count: page.offset + out.results.length + (out.results.length >= page.limit ? 1 : 0), results: [] }, { sorted: false });
  return {
    results: out.results,
    next: links.next,
    previous: page.offset - page.limit >= 0 ? links.previous : null,
    ...(out.count !== undefined ? { count: out.count } : {}),
  };
}

export function registerEventRoutes(app: FastifyInstance, s: Services): void {
  // PostHog's persons API (read side), scope person:read
  // PersonViewSet renders JSON and CSV (PaginatedCSVRenderer: a line per person of the page); `persons.csv` is DRF's
  // format suffix (test_person.py test_csv_export); without a format, DRF negotiates the Accept header
  const listPersons = async (r: RestRequest, query: Record<string, unknown>) => {
    const render = formatRenderer(query, r.request.headers.accept);
    const page = parsePage(r.query);
    return render(personsPage(r.request, page, await s.persons.list(r.principal, projectIdParam(r.params), r.query, page, includeTotal(r.query))));
  };
  apiRoute(app, s, 'GET', '/projects/:projectId/persons', (r) => listPersons(r, r.query));
  apiRoute(app, s, 'GET', '/projects/:projectId/persons.:format', (r) => listPersons(r, { ...r.query, format: r.params.format }));
  apiRoute(app, s, 'GET', '/projects/:projectId/persons/cohorts', (r) => cohortsOfPerson(s, r.principal, projectIdParam(r.params), r.query));
  apiRoute(app, s, 'GET', '/projects/:projectId/persons/properties', (r) => s.persons.propertyNames(r.principal, projectIdParam(r.params)));
  apiRoute(app, s, 'GET', '/projects/:projectId/persons/values', (r) => s.persons.values(r.principal, projectIdParam(r.params), r.query));
  // PostHog's activity actions (scope activity_log:read): every person's, or a live person's
  apiRoute(app, s, 'GET', '/projects/:projectId/persons/activity', async (r) =>
    activityBody(r.request, await personActivity(s, r.principal, projectIdParam(r.params), null, r.query)),
  );
  apiRoute(app, s, 'GET', '/projects/:projectId/persons/:personId/activity', async (r) =>
    activityBody(r.request, await personActivity(s, r.principal, projectIdParam(r.params), r.params.personId, r.query)),
  );
  apiRoute(app, s, 'GET', '/projects/:projectId/persons/:personId', (r) => s.persons.get(r.principal, projectIdParam(r.params), r.params.personId));

  // PostHog's events API (read side), scope query:read: `{next, results}`, `next` pages by `before` (or `after`)
  // EventViewSet renders JSON and CSV (PaginatedCSVRenderer: a line per event; `events.csv` is DRF's format suffix)
  const listEvents = async (r: RestRequest, query: Record<string, unknown>) => {
    const render = formatRenderer(query, r.request.headers.accept);
    const csv = chosenFormat(query, r.request.headers.accept) === 'csv';
    const { format: _format, ...filters } = query;
    const out = await s.eventLog.list(r.principal, projectIdParam(r.params), filters, { csv });
    let next: string | null = null;
    if (out.next !== null) {
      // PostHog's _build_next_url: the request's parameters, with the bound of the next page set
      const url = new URL(r.request.url, `${r.request.protocol}://${r.request.host}`);
      url.searchParams.set(out.next.param, out.next.value);
      next = url.toString();
    }
    return render({ next, results: out.results });
  };
  apiRoute(app, s, 'GET', '/projects/:projectId/events', (r) => listEvents(r, r.query));
  apiRoute(app, s, 'GET', '/projects/:projectId/events.:format', (r) => listEvents(r, { ...r.query, format: r.params.format }));
  apiRoute(app, s, 'GET', '/projects/:projectId/events/values', (r) => s.eventLog.values(r.principal, projectIdParam(r.params), r.query));
  apiRoute(app, s, 'GET', '/projects/:projectId/events/:eventId', async (r) => {
    const projectId = projectIdParam(r.params);
    if (eventUuid(r.params.eventId) === null) {
      // PostHog's EventViewSet.retrieve answers an id that is no UUID with this body of its own (no `attr`)
      await s.eventLog.checkAccess(r.principal, projectId);
      return respond(400, { detail: 'Invalid UUID', code: 'invalid', type: 'validation_error' });
    }
    // PostHog's `request.query_params.get("include_person", False)`: any non-empty value (the last one given) asks for
    // the person, "false" included
    const given = r.query.include_person;
    const include = Array.isArray(given) ? given[given.length - 1] : given;
    return s.eventLog.get(r.principal, projectId, r.params.eventId, { includePerson: typeof include === 'string' && include !== '' });
  });
  apiRoute(app, s, 'POST', '/projects/:projectId/import', (r) => s.events.import(r.principal, projectIdParam(r.params), r.body));
  // PostHog's bulk_delete: 202 with an empty body (test_person.py test_bulk_delete_ids / _distinct_id)
  apiRoute(app, s, 'POST', '/projects/:projectId/persons/bulk_delete', async (r) => {
    await bulkDeletePersons(s, r.principal, projectIdParam(r.params), r.body);
    return respond(202);
  });
  // PostHog's delete_property: 201 with an empty body (test_person.py test_delete_person_properties)
  apiRoute(app, s, 'POST', '/projects/:projectId/persons/:personId/delete_property', async (r) => {
    await deletePersonProperty(s, r.principal, projectIdParam(r.params), r.params.personId, r.body);
    return respond(201);
  });
  // PostHog's update_property: one property set through a `$set` event; 202 with an empty body
  apiRoute(app, s, 'POST', '/projects/:projectId/persons/:personId/update_property', async (r) => {
    await updatePersonProperty(s, r.principal, projectIdParam(r.params), r.params.personId, r.body);
    return respond(202);
  });
  // PostHog's split: 201 {"success": true} (test_person.py test_split_people_delete_props)
  apiRoute(app, s, 'POST', '/projects/:projectId/persons/:personId/split', async (r) => {
    await splitPerson(s, r.principal, projectIdParam(r.params), r.params.personId, r.body);
    return respond(201, { success: true });
  });
  // PostHog's person update: only properties, set through a `$set` event; 202 with an empty body (test_update_person_props)
  apiRoute(app, s, ['PATCH', 'PUT'], '/projects/:projectId/persons/:personId', async (r) => {
    await setPersonProperties(s, r.principal, projectIdParam(r.params), r.params.personId, r.body);
    return respond(202);
  });
  apiRoute(app, s, 'DELETE', '/projects/:projectId/persons/:personId', async (r) => {
    const deleteEvents = ['true', '1'].includes(String(r.query.delete_events ?? '').toLowerCase());
    await deletePerson(s, r.principal, projectIdParam(r.params), r.params.personId, deleteEvents);
    // PostHog answers a person delete 202 with an empty body (test_person.py test_delete_person)
    return respond(202);
  });
}
