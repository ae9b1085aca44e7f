import { gql, startServer, type TestServer } from '../helpers/server';

/** Endpoints over REST: lifecycle, versions, the /run error table, secret keys, paging, CSV/NDJSON. */
describe('endpoints', () => {
  let s: TestServer;
  const P = '/api/environments/1/endpoints';
  const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

  const countSql = {
    kind: 'HogQLQuery',
    query: 'SELECT event, count() AS c FROM events WHERE properties.customer_id = {variables.customer_id} GROUP BY event ORDER BY event',
  };
  const customerVar = { name: 'customer_id', type: 'String', required: true, description: 'The customer' };

  beforeAll(async () => {
    s = await startServer();
    const events = [];
    for (let i = 0; i < 25; i++) events.push({ event: `e${String(i).padStart(2, '0')}`, distinct_id: `u${i % 5}`, timestamp: day(1), properties: { customer_id: 'acme', n: i } });
    for (let i = 0; i < 3; i++) events.push({ event: 'signup', distinct_id: `v${i}`, timestamp: day(2), properties: { customer_id: 'globex', n: i } });
    const r = await s.server.services.ingestor.import(1, { events });
    expect(r).toMatchObject({ errors: [] });
    await s.server.services.ingestor.flush();
  });
  afterAll(() => s.close());

  it('lifecycle: create → run → new query is v2 → pinned v1 and latest → deactivate v1 → delete', async () => {
    const created = await s.api('POST', `${P}/`, { name: 'by_event', query: countSql, variables: [customerVar], description: 'Events per name', data_freshness_seconds: 900, tags: ['t'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'by_event',
      description: 'Events per name',
      is_active: true,
      current_version: 1,
      versions_count: 1,
      data_freshness_seconds: 900,
      endpoint_path: '/api/environments/1/endpoints/by_event/run',
      is_materialized: false,
      columns: [
        { name: 'event', type: 'string' },
        { name: 'c', type: 'integer' },
      ],
      tags: ['t'],
      last_executed_at: null,
      variables: [customerVar],
    });
    expect(created.body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/environments\/1\/endpoints\/by_event\/run$/);

    const run1 = await s.api('POST', `${P}/by_event/run`, { variables: { customer_id: 'globex' } });
    expect(run1.status).toBe(200);
    expect(Object.keys(run1.body)[0]).toBe('results');
    expect(run1.body).toMatchObject({
      results: [['signup', 3]],
      columns: ['event', 'c'],
      hasMore: false,
      is_cached: false,
      name: 'by_event',
      endpoint_version: 1,
      query_status: null,
      timezone: 'UTC',
    });
    expect(run1.body.types[1][1]).toMatch(/Int/);
    expect(run1.body.execution_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(run1.body).not.toHaveProperty('hogql');
    expect(run1.body).not.toHaveProperty('cache_key');
    // cached for the version's freshness, keyed by the variables
    const again = await s.api('POST', `${P}/by_event/run`, { variables: { customer_id: 'globex' } });
    expect(again.body).toMatchObject({ is_cached: true, last_refresh: run1.body.last_refresh });
    expect(Date.parse(again.body.cache_target_age) - Date.parse(again.body.last_refresh)).toBe(900_000);
    const other = await s.api('POST', `${P}/by_event/run`, { variables: { customer_id: 'acme' } });
    expect(other.body).toMatchObject({ is_cached: false });
    expect(other.body.results).toHaveLength(25);
    const forced = await s.api('POST', `${P}/by_event/run`, { variables: { customer_id: 'globex' }, refresh: 'force' });
    expect(forced.body.is_cached).toBe(false);
    expect((await s.api('GET', `${P}/by_event/`)).body.last_executed_at).not.toBeNull();

    // a changed query creates v2, inheriting variables, description and freshness
    const q2 = { kind: 'HogQLQuery', query: 'SELECT event, count() AS c, max(timestamp) AS last_seen FROM events WHERE properties.customer_id = {variables.customer_id} GROUP BY event ORDER BY event' };
    const upd = await s.api('PATCH', `${P}/by_event/`, { query: q2 });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ current_version: 2, versions_count: 2, description: 'Events per name', data_freshness_seconds: 900, variables: [customerVar] });
    const v2 = await s.api('GET', `${P}/by_event/?version=2`);
    expect(v2.body).toMatchObject({ version: 2, is_active: true, endpoint_is_active: true, column_changes: { added: [{ name: 'last_seen', type: 'datetime' }], removed: [], retyped: [] } });
    // the same query again is no new version
    expect((await s.api('PATCH', `${P}/by_event/`, { query: q2, description: 'd2' })).body).toMatchObject({ current_version: 2, description: 'd2' });

    const latest = await s.api('POST', `${P}/by_event/run`, { variables: { customer_id: 'globex' } });
    expect(latest.body).toMatchObject({ columns: ['event', 'c', 'last_seen'], endpoint_version: 2 });
    const pinned = await s.api('POST', `${P}/by_event/run?version=1`, { variables: { customer_id: 'globex' } });
    expect(pinned.body).toMatchObject({ columns: ['event', 'c'], endpoint_version: 1, results: [['signup', 3]] });
    // the body wins over the query string
    expect((await s.api('POST', `${P}/by_event/run?version=1`, { version: 2, variables: { customer_id: 'globex' } })).body.endpoint_version).toBe(2);

    // targeting a version: a query change is refused; is_active applies to that version only
    const bad = await s.api('PATCH', `${P}/by_event/?version=1`, { query: q2 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ attr: 'query', detail: 'Cannot change query when targeting a specific version. Query changes create a new version.' });
    const off = await s.api('PATCH', `${P}/by_event/`, { version: 1, is_active: false });
    expect(off.body).toMatchObject({ version: 1, is_active: false, endpoint_is_active: true });
    const inactive = await s.api('POST', `${P}/by_event/run`, { version: 1, variables: { customer_id: 'globex' } });
    expect(inactive.status).toBe(400);
    expect(inactive.body.detail).toBe('Version 1 is inactive and cannot be executed.');
    expect((await s.api('POST', `${P}/by_event/run`, { variables: { customer_id: 'globex' } })).status).toBe(200);

    const versions = await s.api('GET', `${P}/by_event/versions/?limit=1`);
    expect(versions.body).toMatchObject({ count: 2, previous: null, results: [{ version: 2 }] });
    expect(versions.body.next).toContain('offset=1');

    const listed = await s.api('GET', `/api/projects/1/endpoints/`);
    expect(listed.body.results.map((e: { name: string }) => e.name)).toContain('by_event');

    expect((await s.api('DELETE', `${P}/by_event/`)).status).toBe(204);
    expect((await s.api('GET', `${P}/by_event/`)).status).toBe(404);
    expect((await s.api('POST', `${P}/by_event/run`, { variables: { customer_id: 'x' } })).status).toBe(404);
    // the name is free again
    expect((await s.api('POST', `${P}/`, { name: 'by_event', query: countSql, variables: [customerVar] })).status).toBe(201);
    expect((await s.api('PATCH', `${P}/by_event/`, { deleted: true })).body).toEqual({ success: true });
    expect((await s.api('GET', `${P}/by_event/`)).status).toBe(404);
  });

  it('endpoint-level is_active: an inactive endpoint answers 404 on run', async () => {
    await s.api('POST', `${P}/`, { name: 'toggle', query: { kind: 'HogQLQuery', query: 'SELECT 1 AS one' } });
    expect((await s.api('PATCH', `${P}/toggle/`, { is_active: false })).body.is_active).toBe(false);
    expect((await s.api('POST', `${P}/toggle/run`, {})).body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    await s.api('PATCH', `${P}/toggle/`, { is_active: true });
    expect((await s.api('GET', `${P}/toggle/run`)).body.results).toEqual([[1]]);
    expect((await s.api('GET', `${P}/?is_active=false`)).body.results.map((e: { name: string }) => e.name)).not.toContain('toggle');
  });

  describe('create and update validation', () => {
    it.each([
      [{ query: countSql }, 'name', 'This field is required.'],
      [{ name: 'x1' }, 'query', 'This field is required.'],
      [{ name: '1abc', query: { kind: 'HogQLQuery', query: 'SELECT 1' } }, 'name', /^Invalid name '1abc'. Must start with a letter/],
      [{ name: 'a'.repeat(129), query: { kind: 'HogQLQuery', query: 'SELECT 1' } }, 'name', /^Invalid name/],
      [{ name: 'x2', query: countSql }, 'variables', /undefined variable\(s\): customer_id/],
      [{ name: 'x3', query: { kind: 'HogQLQuery', query: 'SELECT 1' }, variables: [customerVar] }, 'variables', /declared but not used in the query: customer_id/],
      [{ name: 'x4', query: { kind: 'HogQLQuery', query: 'SELEC 1' } }, 'query', /^Invalid HogQL query/],
      [{ name: 'x5', query: { kind: 'HogQLQuery', query: 'SELECT nope FROM events' } }, 'query', /nope/],
      [{ name: 'x6', query: { kind: 'HogQLQuery', query: 'SELECT 1' }, data_freshness_seconds: 60 }, 'data_freshness_seconds', /^Data freshness must be one of: \[900, 1800/],
      [{ name: 'x7', query: { kind: 'NopeQuery' } }, 'query__kind', /Unknown query kind/],
      [{ name: 'x8', query: { kind: 'HogQLQuery', query: 'SELECT 1' }, bogus: 1 }, 'bogus', "Unknown field 'bogus'."],
      [{ name: 'x9', query: { kind: 'HogQLQuery', query: 'SELECT {x}' } }, 'query', /only use \{variables.<name>\} placeholders/],
      [{ name: 'x10', query: { kind: 'HogQLQuery', query: 'SELECT {variables.a}' }, variables: [{ name: 'a', type: 'Number', default: 'no' }] }, 'variables', /default of variable 'a' must be a number/],
      [{ name: 'x11', query: { kind: 'HogQLQuery', query: 'SELECT 1' }, is_materialized: true }, 'is_materialized', /Cannot materialize endpoint/],
      [{ name: 'x12', query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'a' }] }, variables: [{ name: 'foo', type: 'String' }] }, 'variables', /only take the variables/],
    ])('400 for %j', async (body, attr, detail) => {
      const r = await s.api('POST', `${P}/`, body);
      expect(r.status).toBe(400);
      expect(r.body.attr).toBe(attr);
      if (typeof detail === 'string') expect(r.body.detail).toBe(detail);
      else expect(r.body.detail).toMatch(detail);
    });

    it('duplicate names among live endpoints are a 400', async () => {
      await s.api('POST', `${P}/`, { name: 'dup', query: { kind: 'HogQLQuery', query: 'SELECT 1' } });
      const r = await s.api('POST', `/api/projects/1/endpoints/`, { name: 'dup', query: { kind: 'HogQLQuery', query: 'SELECT 2' } });
      expect(r.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'An endpoint with this name already exists for this team.', attr: 'name' });
    });

    it('PostHog-style in-query variables become declarations', async () => {
      const id = (await s.api('POST', '/api/projects/1/insight_variables/', { name: 'n', type: 'Number' })).body.id;
      const r = await s.api('POST', `${P}/`, {
        name: 'ph_vars',
        query: { kind: 'HogQLQuery', query: 'SELECT {variables.n} + 1 AS m', variables: { [id]: { variableId: id, code_name: 'n', value: 41 } } },
      });
      expect(r.status).toBe(201);
      expect(r.body.variables).toEqual([{ name: 'n', type: 'Number', default: 41 }]);
      expect((await s.api('POST', `${P}/ph_vars/run`, {})).body.results).toEqual([[42]]);
      expect((await s.api('POST', `${P}/ph_vars/run`, { variables: { n: 1 } })).body.results).toEqual([[2]]);
    });
  });

  it.each([
    ['a variable id that is no UUID', 'a1b2', 'Variable ID(s) not valid UUIDs: a1b2'],
    ['a UUID no saved variable of the project has', '0190f0c2-1111-7000-8000-0000000000ff', 'Variable ID(s) not found: 0190f0c2-1111-7000-8000-0000000000ff'],
  ])('an in-query definition must name a saved variable (PostHog’s endpoint validation): %s → 400', async (_what, id, detail) => {
    const query = { kind: 'HogQLQuery', query: 'SELECT {variables.m} AS m', variables: { [id]: { variableId: id, code_name: 'm', value: 1 } } };
    const made = await s.api('POST', `${P}/`, { name: 'bad_var_id', query });
    expect([made.status, made.body.type, made.body.attr, made.body.detail]).toEqual([400, 'validation_error', 'variables', detail]);
    expect((await s.api('POST', `${P}/`, { name: 'good_var_id', query: { kind: 'HogQLQuery', query: 'SELECT 1 AS m' } })).status).toBeLessThan(500);
    const patched = await s.api('PATCH', `${P}/good_var_id/`, { query });
    expect([patched.status, patched.body.detail]).toEqual([400, detail]);
  });

  describe('/run error table', () => {
    beforeAll(async () => {
      const r = await s.api('POST', `${P}/`, {
        name: 'typed',
        query: {
          kind: 'HogQLQuery',
          query:
            "SELECT {variables.s} AS s, {variables.n} AS n, {variables.b} AS b, toDate({variables.d}) AS d, event FROM events WHERE event IN {variables.l} AND properties.customer_id = {variables.customer_id} ORDER BY event",
        },
        variables: [
          { name: 's', type: 'String', default: 'x' },
          { name: 'n', type: 'Number', default: 1 },
          { name: 'b', type: 'Boolean', default: true },
          { name: 'd', type: 'Date', default: '2024-01-02' },
          { name: 'l', type: 'List', default: ['e01'] },
          customerVar,
        ],
      });
      expect(r.status).toBe(201);
      expect(r.body.columns).toEqual([
        { name: 's', type: 'string' },
        { name: 'n', type: 'integer' },
        { name: 'b', type: 'boolean' },
        { name: 'd', type: 'date' },
        { name: 'event', type: 'string' },
      ]);
    });

    it('binds every type, lists included; values are never spliced', async () => {
      const r = await s.api('POST', `${P}/typed/run`, { variables: { customer_id: 'acme', l: ['e02', 'e03'], s: "it's'; DROP TABLE events; --", n: 7, b: false, d: '2025-03-04' } });
      expect(r.status).toBe(200);
      expect(r.body.results).toEqual([
        ["it's'; DROP TABLE events; --", 7, false, '2025-03-04', 'e02'],
        ["it's'; DROP TABLE events; --", 7, false, '2025-03-04', 'e03'],
      ]);
      const empty = await s.api('POST', `${P}/typed/run`, { variables: { customer_id: 'acme', l: [] } });
      expect(empty.body.results).toEqual([]);
      const nulls = await s.api('POST', `${P}/typed/run`, { variables: { customer_id: null } });
      expect(nulls.body.results).toEqual([]);
    });

    it.each([
      ['unknown variable', { variables: { customer_id: 'a', nope: 1 } }, { attr: 'variables', detail: 'Unknown variable(s): nope' }],
      ['missing required variable', { variables: {} }, { attr: 'variables', detail: "Required variable(s) 'customer_id' not provided" }],
      ['wrong type (number)', { variables: { customer_id: 'a', n: 'seven' } }, { attr: 'variables__n', detail: "Variable 'n' must be a number." }],
      ['wrong type (string)', { variables: { customer_id: 5 } }, { attr: 'variables__customer_id', detail: "Variable 'customer_id' must be a string." }],
      ['wrong type (list)', { variables: { customer_id: 'a', l: 'e01' } }, { attr: 'variables__l', detail: expect.stringMatching(/^Variable 'l' must be a list/) }],
      ['wrong type (date)', { variables: { customer_id: 'a', d: 'yesterday' } }, { attr: 'variables__d', detail: expect.stringMatching(/^Variable 'd' must be a date/) }],
      ['unknown body key', { variables: { customer_id: 'a' }, nope: true }, { attr: 'nope', code: 'unrecognized_field' }],
      ['bad refresh', { variables: { customer_id: 'a' }, refresh: 'blocking' }, { attr: 'refresh' }],
      ['direct on a non-materialized endpoint', { variables: { customer_id: 'a' }, refresh: 'direct' }, { attr: 'refresh' }],
      ['query_override', { variables: { customer_id: 'a' }, query_override: {} }, { attr: 'query_override' }],
      ['filters_override on SQL', { variables: { customer_id: 'a' }, filters_override: {} }, { attr: 'filters_override', detail: 'Not allowed for HogQL endpoints. Use variables instead.' }],
    ])('400: %s', async (_label, body, expected) => {
      const r = await s.api('POST', `${P}/typed/run`, body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject(expected);
    });

    it.each([
      ['POST', '/typed/run', { limit: 'x', variables: { customer_id: 'a' } }, { error: 'Invalid limit parameter: x' }],
      ['POST', '/typed/run', { limit: 0, variables: { customer_id: 'a' } }, { error: 'Invalid limit parameter: 0' }],
      ['POST', '/typed/run', { version: 'abc', variables: { customer_id: 'a' } }, { error: 'Invalid version parameter: abc' }],
      ['POST', '/typed/run', { offset: -1, limit: 1, variables: { customer_id: 'a' } }, { error: 'Invalid offset parameter: -1' }],
      ['POST', '/typed/run', { offset: 5, variables: { customer_id: 'a' } }, { error: 'offset requires limit to be set' }],
      ['GET', '/typed/run?version=x', undefined, { error: 'Invalid version parameter: x' }],
      ['GET', '/typed/run?offset=2', undefined, { error: 'offset requires limit to be set' }],
    ])('400 non-standard body: %s %s %j', async (method, path, body, expected) => {
      const r = await s.api(method, `${P}${path}`, body);
      expect(r.status).toBe(400);
      expect(r.body).toEqual(expected);
    });

    it('404s: missing endpoint, pinned version missing (with current_version)', async () => {
      expect((await s.api('POST', `${P}/nope/run`, {})).body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
      const r = await s.api('POST', `${P}/typed/run`, { version: 7, variables: { customer_id: 'a' } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: "Version 7 not found for endpoint 'typed'", current_version: 1 });
      expect((await s.api('GET', `${P}/typed/?version=9`)).body).toEqual({ error: 'Version 9 not found' });
      expect((await s.api('GET', `${P}/typed/?version=x`)).body).toMatchObject({ attr: 'version', detail: 'Must be an integer, got: x' });
      expect((await s.api('GET', `${P}/typed/openapi.json?version=3`)).status).toBe(404);
    });

    it('401/403: no credentials, missing scope, wrong project', async () => {
      expect((await s.api('POST', `${P}/typed/run`, {}, null)).status).toBe(401);
      const readOnly = (await s.api('POST', '/api/personal_api_keys/', { label: 'q', scopes: ['query:read'] })).body.value;
      const r = await s.api('POST', `${P}/typed/run`, {}, readOnly);
      expect(r.status).toBe(403);
      expect(r.body.detail).toBe("API key missing required scope 'endpoint:read'");
      const reader = (await s.api('POST', '/api/personal_api_keys/', { label: 'r', scopes: ['endpoint:read'] })).body.value;
      expect((await s.api('POST', `${P}/`, { name: 'nope', query: { kind: 'HogQLQuery', query: 'SELECT 1' } }, reader)).status).toBe(403);
      expect((await s.api('GET', `${P}/typed/`, undefined, reader)).status).toBe(200);
    });
  });

  describe('project secret keys', () => {
    let key: string;
    let acmeKey: string;
    beforeAll(async () => {
      await s.api('POST', `${P}/`, { name: 'per_customer', query: countSql, variables: [customerVar] });
      key = (await s.api('POST', '/api/projects/1/project_secret_api_keys/', { label: 'k', scopes: ['endpoint:read'] })).body.value;
      const acme = await s.api('POST', '/api/projects/1/project_secret_api_keys/', { label: 'acme', scopes: ['endpoint:read'], fixed_variables: { customer_id: 'acme' } });
      expect(acme.status).toBe(201);
      expect(acme.body.fixed_variables).toEqual({ customer_id: 'acme' });
      acmeKey = acme.body.value;
    });

    it('runs endpoints', async () => {
      const r = await s.api('POST', `${P}/per_customer/run`, { variables: { customer_id: 'globex' } }, key);
      expect(r.status).toBe(200);
      expect(r.body.results).toEqual([['signup', 3]]);
    });

    it('fixed variables override whatever the caller sends', async () => {
      const r = await s.api('POST', `${P}/per_customer/run`, { variables: { customer_id: 'globex' } }, acmeKey);
      expect(r.status).toBe(200);
      expect(r.body.results).toHaveLength(25);
      expect(r.body.results.every((row: unknown[]) => String(row[0]).startsWith('e'))).toBe(true);
      const none = await s.api('POST', `${P}/per_customer/run`, {}, acmeKey);
      expect(none.body.results).toHaveLength(25);
    });

    it('a key with fixed variables cannot run an endpoint that does not declare them', async () => {
      await s.api('POST', `${P}/`, { name: 'everything', query: { kind: 'HogQLQuery', query: 'SELECT count() AS c FROM events' } });
      const r = await s.api('POST', `${P}/everything/run`, {}, acmeKey);
      expect(r.status).toBe(403);
      expect((await s.api('POST', `${P}/everything/run`, {}, key)).status).toBe(200);
    });

    it.each([
      ['GET', `${P}/`],
      ['POST', `${P}/`],
      ['GET', `${P}/per_customer/`],
      ['PATCH', `${P}/per_customer/`],
      ['DELETE', `${P}/per_customer/`],
      ['GET', `${P}/per_customer/versions/`],
      ['GET', `${P}/per_customer/openapi.json`],
      ['POST', '/api/projects/1/query/'],
      ['GET', '/api/projects/1/'],
    ])('cannot %s %s', async (method, path) => {
      const r = await s.api(method, path, method === 'GET' || method === 'DELETE' ? undefined : { name: 'z', query: { kind: 'HogQLQuery', query: 'SELECT 1' } }, key);
      expect(r.status).toBe(403);
      expect(r.body.detail).toBe('This action does not support project secret API key access');
    });

    it('a key of another project cannot run this one', async () => {
      const other = (await s.api('POST', '/api/projects/', { name: 'other' })).body.id;
      const k2 = (await s.api('POST', `/api/projects/${other}/project_secret_api_keys/`, { scopes: ['endpoint:read'] })).body.value;
      // PostHog's team binding (posthog-api.md §3.3): 403 naming the project
      const r = await s.api('POST', `${P}/per_customer/run`, { variables: { customer_id: 'a' } }, k2);
      expect([r.status, r.body.detail]).toEqual([403, 'API key does not have access to the requested project: ID 1.']);
    });

    it('runs are in the query log', async () => {
      const log = await s.api('GET', '/api/projects/1/query_log/?limit=500');
      expect(log.body.results.some((e: { name: string; principal: string }) => e.name === 'endpoint:per_customer' && /secret/.test(e.principal))).toBe(true);
    });
  });

  describe('paging and streaming', () => {
    const all = { kind: 'HogQLQuery', query: "SELECT event, properties.n AS n FROM events WHERE properties.customer_id = 'acme' ORDER BY event" };
    beforeAll(async () => {
      expect((await s.api('POST', `${P}/`, { name: 'rows', query: all })).status).toBe(201);
    });

    it('pages across a boundary with exact hasMore', async () => {
      const p1 = await s.api('POST', `${P}/rows/run`, { limit: 10 });
      expect(p1.body).toMatchObject({ hasMore: true });
      expect(p1.body.results.map((r: unknown[]) => r[0])).toEqual(Array.from({ length: 10 }, (_, i) => `e${String(i).padStart(2, '0')}`));
      const p3 = await s.api('POST', `${P}/rows/run`, { limit: 10, offset: 20 });
      expect(p3.body.hasMore).toBe(false);
      expect(p3.body.results).toHaveLength(5);
      const exact = await s.api('GET', `${P}/rows/run?limit=5&offset=20`);
      expect(exact.body.hasMore).toBe(false);
      expect(exact.body.results).toHaveLength(5);
      const before = await s.api('GET', `${P}/rows/run?limit=5&offset=19`);
      expect(before.body.hasMore).toBe(true);
      expect(before.body.results[0][0]).toBe('e19');
    });

    it('result_format objects', async () => {
      const r = await s.api('POST', `${P}/rows/run`, { limit: 2, result_format: 'objects' });
      expect(r.body.results).toEqual([
        { event: 'e00', n: '0' },
        { event: 'e01', n: '1' },
      ]);
    });

    it('CSV and NDJSON match the JSON rows', async () => {
      const json = await s.api('POST', `${P}/rows/run`, { limit: 30 });
      const csv = await s.api('POST', `${P}/rows/run`, { limit: 30 }, undefined, { accept: 'text/csv' });
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = csv.text.trimEnd().split('\r\n');
      expect(lines[0]).toBe('event,n');
      expect(lines.slice(1).map((l) => l.split(','))).toEqual(json.body.results.map((r: unknown[]) => r.map(String)));
      const nd = await s.api('POST', `${P}/rows/run`, { limit: 30 }, undefined, { accept: 'application/x-ndjson' });
      expect(nd.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      expect(nd.text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(json.body.results);
      const ndObj = await s.api('POST', `${P}/rows/run`, { limit: 3, result_format: 'objects' }, undefined, { accept: 'application/x-ndjson' });
      expect(ndObj.text.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual((await s.api('POST', `${P}/rows/run`, { limit: 3, result_format: 'objects' })).body.results);
    });
  });

  describe('GraphQL', () => {
    it('creates, reads (versions, openapi), updates, runs and deletes on the same service', async () => {
      const created = await gql(
        s,
        `mutation($input: CreateEndpointInput!) { createEndpoint(projectId: 1, input: $input) { name currentVersion variables { name type required default } columns { name type } } }`,
        { input: { name: 'gql_ep', query: countSql, variables: [{ name: 'customer_id', type: 'String', default: 'globex' }], dataFreshnessSeconds: 3600 } },
      );
      expect(created.body.errors).toBeUndefined();
      expect(created.body.data.createEndpoint).toEqual({
        name: 'gql_ep',
        currentVersion: 1,
        variables: [{ name: 'customer_id', type: 'String', required: false, default: 'globex' }],
        columns: [
          { name: 'event', type: 'string' },
          { name: 'c', type: 'integer' },
        ],
      });
      const q2 = { kind: 'HogQLQuery', query: 'SELECT event FROM events WHERE properties.customer_id = {variables.customer_id} ORDER BY event' };
      const upd = await gql(s, `mutation($q: JSON) { updateEndpoint(projectId: 1, name: "gql_ep", input: { query: $q }) { currentVersion } }`, { q: q2 });
      expect(upd.body.data.updateEndpoint.currentVersion).toBe(2);

      const read = await gql(s, `{ endpoint(projectId: 1, name: "gql_ep") { name dataFreshnessSeconds versions { version columns { name } columnChanges { added { name } removed { name type } retyped { name } } } openapi(version: 1) } }`);
      expect(read.body.errors).toBeUndefined();
      const ep = read.body.data.endpoint;
      expect(ep.dataFreshnessSeconds).toBe(3600);
      expect(ep.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
      expect(ep.versions[0].columnChanges).toEqual({ added: [], removed: [{ name: 'c', type: 'integer' }], retyped: [] });
      expect(ep.openapi.info.version).toBe('1');

      const ran = await gql(s, `{ runEndpoint(projectId: 1, name: "gql_ep", version: 1, variables: { customer_id: "acme" }, limit: 2, offset: 1) { columns { name type } rows objects hasMore endpointVersion } }`);
      expect(ran.body.errors).toBeUndefined();
      expect(ran.body.data.runEndpoint).toEqual({
        columns: [
          { name: 'event', type: 'string' },
          { name: 'c', type: 'integer' },
        ],
        rows: [['e01', 1], ['e02', 1]],
        objects: [{ event: 'e01', c: 1 }, { event: 'e02', c: 1 }],
        hasMore: true,
        endpointVersion: 1,
      });
      const rest = await s.api('POST', `${P}/gql_ep/run`, { version: 1, variables: { customer_id: 'acme' }, limit: 2, offset: 1 });
      expect(rest.body.results).toEqual(ran.body.data.runEndpoint.rows);

      const bad = await gql(s, `{ runEndpoint(projectId: 1, name: "gql_ep", variables: { nope: 1 }) { hasMore } }`);
      expect(bad.body.errors[0].extensions.code).toBe('invalid_input');
      const listed = await gql(s, `{ endpoints(projectId: 1) { name } }`);
      expect(listed.body.data.endpoints.map((e: { name: string }) => e.name)).toContain('gql_ep');
      expect((await gql(s, `mutation { deleteEndpoint(projectId: 1, name: "gql_ep") }`)).body.data.deleteEndpoint).toBe(true);
      expect((await gql(s, `{ endpoint(projectId: 1, name: "gql_ep") { name } }`)).body.errors[0].extensions.code).toBe('not_found');
    });
  });
});
