/** Hostile and malformed requests: each gets a clean error body, and the server keeps serving. */
import http from 'node:http';
import type { ApiResponse, TestServer } from '../helpers/server';
import { startServer } from '../helpers/server';

let srv: TestServer;
let small: TestServer;
beforeAll(async () => {
  [srv, small] = await Promise.all([startServer(), startServer({ env: { QUARRY_BODY_LIMIT_BYTES: '2048' } })]);
});
afterAll(async () => {
  await Promise.all([srv?.close(), small?.close()]);
});

async function healthy(s: TestServer) {
  const r = await s.api('GET', '/healthz', undefined, null);
  expect([r.status, r.body]).toEqual([200, { status: 'ok' }]);
}

const NO_LEAKS = /\bat \S+ \(|node_modules|\.ts:\d+|SQLITE|SELECT |INSERT |QueryFailedError|stack/i;

describe('malformed JSON → 400 parse_error', () => {
  it.each([
    ['truncated object', '{"name": "x"'],
    ['trailing comma', '{"name": "x",}'],
    ['single quotes', "{'name': 'x'}"],
    ['bare word', 'name=x'],
    ['NaN', '{"name": NaN}'],
  ])('%s', async (_name, raw) => {
    const r = await srv.api('POST', '/api/projects/', raw);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'invalid_request', code: 'parse_error', detail: expect.stringMatching(/^JSON parse error - /), attr: null });
    expect(r.text).not.toMatch(NO_LEAKS);
    await healthy(srv);
  });

  it('empty body with a JSON content type is no body: a POST misses its fields, a DELETE works', async () => {
    const r = await srv.api('POST', '/api/projects/', '', undefined, { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error' });
    const created = await srv.api('POST', '/api/projects/', { name: 'to delete' });
    const d = await srv.api('DELETE', `/api/projects/${created.body.id}/`, '', undefined, { 'content-type': 'application/json' });
    expect(d.status).toBe(204);
    await healthy(srv);
  });

  it.each([
    ['spaces and newlines', ' \n\t\r '],
    ['a no-break space and a BOM', '\u00a0\ufeff'],
  ])('a body of only whitespace (%s) is no body too', async (_what, text) => {
    const r = await srv.api('POST', '/api/projects/', text, undefined, { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error' });
  });

  it('JSON prototype pollution is refused, not applied', async () => {
    const r = await srv.api('POST', '/api/projects/', '{"name": "x", "__proto__": {"polluted": true}}');
    expect(r.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await healthy(srv);
  });

  it('malformed JSON on /graphql is a 400 too', async () => {
    const r = await srv.api('POST', '/graphql', '{"query": ');
    expect(r.status).toBe(400);
    expect(r.text).not.toMatch(NO_LEAKS);
    await healthy(srv);
  });
});

describe('body size', () => {
  it.each([
    ['REST', '/api/projects/'],
    ['GraphQL', '/graphql'],
  ])('%s: body over QUARRY_BODY_LIMIT_BYTES → 413', async (_name, path) => {
    const r = await small.api('POST', path, { name: 'x'.repeat(4096) });
    expect(r.status).toBe(413);
    if (path.startsWith('/api')) {
      expect(r.body).toEqual({ type: 'invalid_request', code: 'request_too_large', detail: 'Request body is too large.', attr: null });
    }
    await healthy(small);
  });

  it('a body just under the limit is accepted', async () => {
    const r = await small.api('POST', '/api/projects/', { name: 'x'.repeat(150), test_account_filters: [{ pad: 'y'.repeat(1500) }] });
    expect(r.status).toBe(201);
  });

  it('a lying Content-Length over the limit is refused before reading', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(small.url);
      const req = http.request(
        { host: u.hostname, port: u.port, method: 'POST', path: '/api/projects/', headers: { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024), authorization: `Bearer ${small.key}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      req.write('{"name":"');
    });
    expect(status).toBe(413);
    await healthy(small);
  });

  it('a real 21 MB request against the default 20 MB limit → 413', async () => {
    const r = await srv.api('POST', '/api/projects/', { name: 'big', test_account_filters: [{ pad: 'z'.repeat(21 * 1024 * 1024) }] });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ type: 'invalid_request', code: 'request_too_large', detail: 'Request body is too large.', attr: null });
    await healthy(srv);
  });

  it('a 19 MB request is within the default limit (reaches validation)', async () => {
    const r = await srv.api('POST', '/api/projects/', { name: 'big', colour: 'z'.repeat(19 * 1024 * 1024) });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'validation_error', code: 'unrecognized_field', detail: "Unknown field 'colour'.", attr: 'colour' });
    await healthy(srv);
  });
});

describe('wrong types and unknown fields → 400 validation_error with attr', () => {
  it.each<[string, string, string, unknown, string | null]>([
    ['POST', '/api/projects/', 'unknown field', { name: 'x', extra: 1 }, 'extra'],
    ['POST', '/api/projects/', 'week_start_day as string', { name: 'x', week_start_day: 'monday' }, 'week_start_day'],
    ['POST', '/api/projects/', 'body is an array', [{ name: 'x' }], null],
    ['POST', '/api/projects/', 'body is a number', 42, null],
    ['POST', '/api/projects/', 'body is null', null, null],
    ['PATCH', '/api/projects/1/', 'unknown field', { nme: 'typo' }, 'nme'],
    ['PATCH', '/api/projects/1/', 'path_cleaning_filters item missing regex', { path_cleaning_filters: [{ alias: 'a' }] }, 'path_cleaning_filters__0__regex'],
    ['POST', '/api/personal_api_keys/', 'scoped_teams as string', { scopes: ['query:read'], scoped_teams: '1' }, 'scoped_teams'],
    ['POST', '/api/projects/1/project_secret_api_keys/', 'label as list', { scopes: ['endpoint:read'], label: ['a'] }, 'label'],
  ])('%s %s: %s', async (method, path, _name, body, attr) => {
    const r = await srv.api(method, path, JSON.stringify(body));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'validation_error', code: expect.any(String), detail: expect.any(String), attr });
    await healthy(srv);
  });

  it('no body at all on a create → 400, not 500', async () => {
    const r = await srv.api('POST', '/api/projects/');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error' });
    await healthy(srv);
  });
});

describe('unknown routes → 404 not_found', () => {
  it.each([
    ['GET', '/api/nope/'],
    ['GET', '/api/projects/1/nope/'],
    ['POST', '/api/environments/'],
    ['GET', '/nope'],
    ['GET', '/api/'],
    ['GET', '/api/projects/1/project_secret_api_keys/a/b/'],
  ])('%s %s', async (method, path) => {
    const r = await srv.api(method, path, method === 'POST' ? {} : undefined);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Endpoint not found.', attr: null });
    await healthy(srv);
  });

  it('an unknown route answers 404 even without a key (no auth oracle needed)', async () => {
    const r = await srv.api('GET', '/api/nope/', undefined, null);
    expect(r.status).toBe(404);
  });

  it.each([
    ['PUT', '/api/projects/1/'],
    ['DELETE', '/api/projects/'],
    ['PATCH', '/api/personal_api_keys/'],
    ['PUT', '/api/projects/1/query/'],
    ['GET', '/api/environments/1/query'],
  ])("a known path with an unsupported method: %s %s → 405 method_not_allowed with Allow, as DRF's", async (method, path) => {
    const r = await srv.api(method, path, method === 'DELETE' || method === 'GET' ? undefined : {});
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${method}" not allowed.`, attr: null });
    expect(r.headers.get('allow')).toMatch(/^(GET|POST|PUT|PATCH|DELETE|HEAD)(, (GET|POST|PUT|PATCH|DELETE|HEAD))*$/);
    expect(r.headers.get('allow')).not.toContain(method);
    await healthy(srv);
  });

  it('the Allow header lists the methods the path is served with', async () => {
    const r = await srv.api('DELETE', '/api/projects/1/query/');
    expect(r.headers.get('allow')).toBe('POST');
    const list = await srv.api('PUT', '/api/projects/1/insights/');
    expect(list.headers.get('allow')).toBe('GET, POST, HEAD');
  });

  it('authentication comes first on a known path (DRF: 401 before 405), so the method list needs a key', async () => {
    const r = await srv.api('PUT', '/api/projects/1/query/', {}, null);
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ type: 'authentication_error', code: 'not_authenticated' });
    expect(r.headers.get('allow')).toBeNull();
  });
});

describe('wrong content type → 415', () => {
  // Regression: fastify's built-in text/plain parser hands the raw string to the service, which answered
  // 400 validation_error instead of 415 on the JSON-only /api routes.
  it('regression: text/plain on a JSON route → 415, not 400', async () => {
    const r = await srv.api('POST', '/api/projects/', '{"name": "x"}', undefined, { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.body).toEqual({ type: 'invalid_request', code: 'unsupported_media_type', detail: 'Unsupported media type "text/plain" in request.', attr: null });
    await healthy(srv);
  });

  it.each([
    ['application/xml', '<project><name>x</name></project>'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--x--'],
  ])('%s', async (type, raw) => {
    const r = await srv.api('POST', '/api/projects/', raw, undefined, { 'content-type': type });
    expect(r.status).toBe(415);
    expect(r.body).toEqual({ type: 'invalid_request', code: 'unsupported_media_type', detail: `Unsupported media type "${type}" in request.`, attr: null });
    await healthy(srv);
  });

  it('JSON with a charset parameter is fine', async () => {
    const r = await srv.api('POST', '/api/projects/', { name: 'charset' }, undefined, { 'content-type': 'application/json; charset=utf-8' });
    expect(r.status).toBe(201);
  });
});

describe('odd headers and ids', () => {
  it.each<[string, Record<string, string>]>([
    ['two-word Authorization', { authorization: 'Bearer a b' }],
    ['Basic auth', { authorization: 'Basic Zm9vOmJhcg==' }],
    ['Bearer without key', { authorization: 'Bearer' }],
  ])('%s → 401 authentication_failed', async (_name, headers) => {
    const r: ApiResponse = await srv.api('GET', '/api/projects/', undefined, null, headers);
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ type: 'authentication_error', code: 'authentication_failed', attr: null });
  });

  it('a very long key is just a bad key', async () => {
    const r = await srv.api('GET', '/api/projects/', undefined, 'phx_' + 'a'.repeat(8000));
    expect(r.status).toBe(401);
    await healthy(srv);
  });

  it('a very long path parameter is a 404, not a 500', async () => {
    const r = await srv.api('GET', `/api/projects/${'9'.repeat(400)}/`);
    expect(r.status).toBe(404);
    await healthy(srv);
  });

  it('every response carries a request id', async () => {
    const r = await srv.api('GET', '/api/nope/');
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  // The id is set in the onSend hook (no onRequest hook): answers made by the error handler and the body parser too.
  it.each<[string, () => Promise<Response>]>([
    ['a 200', () => fetch(`${srv.url}/healthz`)],
    ['a 401 (no key)', () => fetch(`${srv.url}/api/projects/`)],
    ['a 400 (bad JSON)', () => fetch(`${srv.url}/api/projects/1/query/`, { method: 'POST', headers: { authorization: `Bearer ${srv.key}`, 'content-type': 'application/json' }, body: '{"query":' })],
    ['a 415 (not JSON)', () => fetch(`${srv.url}/api/projects/1/query/`, { method: 'POST', headers: { authorization: `Bearer ${srv.key}`, 'content-type': 'text/plain' }, body: 'x' })],
    ['a GraphQL answer', () => fetch(`${srv.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${srv.key}`, 'content-type': 'application/json' }, body: '{"query":"{ viewer { principalType } }"}' })],
  ])('%s carries a request id, a new one each time', async (_what, send) => {
    const a = await send();
    const b = await send();
    await a.arrayBuffer();
    await b.arrayBuffer();
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });
});

describe('internal errors', () => {
  it('show only a generic message with the request id: no stack, no SQL', async () => {
    // Close the metadata store under the running server: the next query fails inside TypeORM.
    const local = await startServer();
    try {
      await local.server.services.store.db.destroy();
      const r = await local.api('GET', '/api/projects/');
      expect(r.status).toBe(500);
      const id = r.headers.get('x-request-id');
      expect(r.body).toEqual({ type: 'server_error', code: 'error', detail: `A server error occurred. Request id: ${id}`, attr: null });
      expect(r.text).not.toMatch(NO_LEAKS);
      const g = await local.api('POST', '/graphql', { query: '{ viewer { userId } }' });
      expect(g.text).not.toMatch(NO_LEAKS);
      expect(g.status).toBeGreaterThanOrEqual(500);
      const h = await local.api('GET', '/healthz', undefined, null);
      expect(h.status).toBe(200);
    } finally {
      await local.close();
    }
  });
});
