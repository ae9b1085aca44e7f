import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../src/services';
import { apiRoute, projectIdParam, respond } from './route';

/** The list URL with `cursor` replaced (absolute, as DRF's CursorPagination links are). */
function cursorLink(request: FastifyRequest, cursor: string | null): string | null {
  if (cursor === null) return null;
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('cursor', cursor);
  return url.toString();
}

/** PostHog's groups API (`posthog/api/group.py`), scope group:read / group:write. */
export function registerGroupRoutes(app: FastifyInstance, s: Services): void {
  apiRoute(app, s, 'GET', '/projects/:projectId/groups_types', (r) => s.groups.listTypes(r.principal, projectIdParam(r.params)));
  apiRoute(app, s, 'PATCH', '/projects/:projectId/groups_types/update_metadata', (r) =>
    s.groups.updateTypeMetadata(r.principal, projectIdParam(r.params), r.body),
  );
  apiRoute(app, s, 'DELETE', '/projects/:projectId/groups_types/:groupTypeIndex', async (r) => {
    await s.groups.deleteType(r.principal, projectIdParam(r.params), r.params.groupTypeIndex);
    return respond(204);
  });
  // Cursor-paged, newest first: `{next, previous, results}` (PostHog's GroupCursorPagination has no count).
  apiRoute(app, s, 'GET', '/projects/:projectId/groups', async (r) => {
    const page = await s.groups.list(r.principal, projectIdParam(r.params), r.query);
    return { next: cursorLink(r.request, page.nextCursor), previous: cursorLink(r.request, page.previousCursor), results: page.results };
  });
  apiRoute(app, s, 'GET', '/projects/:projectId/groups/find', (r) => s.groups.find(r.principal, projectIdParam(r.params), r.query));
  apiRoute(app, s, 'GET', '/projects/:projectId/groups/property_definitions', (r) => s.groups.propertyDefinitions(r.principal, projectIdParam(r.params)));
  apiRoute(app, s, 'GET', '/projects/:projectId/groups/related', (r) => s.relatedActors.related(r.principal, projectIdParam(r.params), r.query));
  apiRoute(app, s, 'POST', '/projects/:projectId/groups/update_property', (r) => s.groups.updateProperty(r.principal, projectIdParam(r.params), r.query, r.body));
  apiRoute(app, s, 'POST', '/projects/:projectId/groups/delete_property', (r) => s.groups.deleteProperty(r.principal, projectIdParam(r.params), r.query, r.body));
  apiRoute(app, s, 'GET', '/projects/:projectId/groups/property_values', (r) => s.groups.propertyValues(r.principal, projectIdParam(r.params), r.query));
}
