import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CONTENT_TYPES, rowStream, streamFormatOf } from '../src/endpoints/stream';
import { parsePage } from '../src/pagination';
import type { Services } from '../src/services';
import { apiRoute, JsonText, listBody, projectIdParam, respond, type RestRequest } from './route';

const origin = (r: FastifyRequest) => `${r.protocol}://${r.host}`;

/** PostHog's Endpoints routes (reference §1.3), under /projects/<id>/ and /environments/<id>/. */
export function registerEndpointRoutes(app: FastifyInstance, s: Services): void {
  const base = '/projects/:projectId/endpoints';
  apiRoute(app, s, 'GET', base, async (r) => {
    const page = parsePage(r.query);
    const out = await s.endpoints.list(r.principal, projectIdParam(r.params), r.query, page, { origin: origin(r.request) });
    return listBody(r.request, page, out);
  });
  apiRoute(app, s, 'POST', base, async (r) =>
    // no body is an empty one (DRF's request.data): the answer names the first missing field
    respond(201, await s.endpoints.create(r.principal, projectIdParam(r.params), r.body ?? {}, { origin: origin(r.request) })),
  );
  apiRoute(app, s, 'POST', `${base}/bulk_update_tags`, async (r) => {
    // the refusal comes after the same checks as any endpoint write: nothing answers before authorization
    await s.projects.projectFor(r.principal, projectIdParam(r.params), { scope: 'endpoint:write' });
    return respond(405, { detail: 'Bulk tag updates are not supported for endpoints.' });
  });
  // POST actions that only read (PostHog's endpoint read scope)
  apiRoute(app, s, 'POST', `${base}/last_execution_times`, (r) => s.endpoints.lastExecutionTimes(r.principal, projectIdParam(r.params), r.body));
  apiRoute(app, s, 'GET', `${base}/materialization_conditions`, (r) => s.endpoints.materializationConditions(r.principal, projectIdParam(r.params)));
  apiRoute(app, s, 'POST', `${base}/:name/materialization_preview`, (r) =>
    s.endpoints.materializationPreview(r.principal, projectIdParam(r.params), r.params.name, r.body),
  );
  apiRoute(app, s, 'POST', `${base}/:name/materialization_suggestion`, (r) =>
    s.endpoints.materializationSuggestion(r.principal, projectIdParam(r.params), r.params.name),
  );
  apiRoute(app, s, 'GET', `${base}/:name/materialization_status`, (r) =>
    s.endpoints.materializationStatus(r.principal, projectIdParam(r.params), r.params.name, r.query.version, { origin: origin(r.request) }),
  );
  apiRoute(app, s, 'GET', `${base}/:name`, (r) =>
    s.endpoints.get(r.principal, projectIdParam(r.params), r.params.name, r.query.version, { origin: origin(r.request) }),
  );
  apiRoute(app, s, ['PATCH', 'PUT'], `${base}/:name`, (r) =>
    s.endpoints.update(r.principal, projectIdParam(r.params), r.params.name, r.body ?? {}, r.query.version, { origin: origin(r.request) }),
  );
  apiRoute(app, s, 'DELETE', `${base}/:name`, async (r) => {
    await s.endpoints.delete(r.principal, projectIdParam(r.params), r.params.name);
    return respond(204);
  });
  apiRoute(app, s, 'GET', `${base}/:name/versions`, async (r) => {
    const page = parsePage(r.query);
    const out = await s.endpoints.listVersions(r.principal, projectIdParam(r.params), r.params.name, page, { origin: origin(r.request) });
    return listBody(r.request, page, out);
  });
  // the older per-version route (reference §1.3): the same as `GET …/<name>/?version=n`
  apiRoute(app, s, 'GET', `${base}/:name/versions/:version`, (r) =>
    s.endpoints.get(r.principal, projectIdParam(r.params), r.params.name, r.params.version, { origin: origin(r.request) }),
  );
  apiRoute(app, s, 'GET', `${base}/:name/logs`, async (r) => {
    const page = parsePage(r.query);
    return listBody(r.request, page, await s.endpoints.logs(r.principal, projectIdParam(r.params), r.params.name, r.query, page));
  });
  apiRoute(app, s, 'GET', `${base}/:name/openapi.json`, (r) =>
    s.endpoints.openapi(r.principal, projectIdParam(r.params), r.params.name, r.query.version, { origin: origin(r.request) }),
  );
  apiRoute(app, s, ['GET', 'POST'], `${base}/:name/run`, (r) => {
    // a repeated JSON run of a cached answer comes back synchronously (see EndpointService.cachedRun)
    if (r.request.method === 'POST' && r.request.rawBody !== undefined && !streamFormatOf(r.request.headers.accept)) {
      const hit = s.endpoints.cachedRun(r.principal, projectIdParam(r.params), r.params.name, r.query, r.request.rawBody);
      if (hit !== undefined) return respond(200, hit.json !== undefined ? new JsonText(hit.json) : hit.body, hit.headers);
    }
    return runEndpoint(r);
  });
  const runEndpoint = async (r: RestRequest) => {
    const isGet = r.request.method === 'GET';
    const body = isGet ? {} : (r.body ?? {});
    const out = await s.endpoints.run(r.principal, projectIdParam(r.params), r.params.name, body, r.query, () => r.signal, isGet ? undefined : r.request.rawBody);
    const format = streamFormatOf(r.request.headers.accept);
    if (format) {
      return respond(200, rowStream(format, out.body.columns, out.body.results), {
        ...out.headers,
        'content-type': CONTENT_TYPES[format],
        'x-endpoint-version': String(out.body.endpoint_version),
        'x-has-more': String(out.body.hasMore),
        'x-execution-id': String(out.body.execution_id),
      });
    }
    return respond(200, out.json !== undefined ? new JsonText(out.json) : out.body, out.headers);
  };
}
