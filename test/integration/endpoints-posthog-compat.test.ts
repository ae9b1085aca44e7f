/**
 * Named endpoints against PostHog's own endpoint tests (products/endpoints/backend/tests: test_endpoint.py,
 * test_endpoint_execution.py, test_endpoint_versions.py, test_endpoint_openapi.py), the cases the earlier passes
 * (endpoints-*.test.ts, rest-posthog-compat*.test.ts) did not cover. Each case names the PostHog test it follows or
 * the reference section (posthog-api.md §1, §3) it ports. One server and one project for the whole file; the few
 * events are counted per day on fixed dates, so no case depends on the engine (no ClickHouse twin).
 */
import { newKey, newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let p: number;
let ep: string;

const sql = (query: string) => ({ kind: 'HogQLQuery', query });
/** A saved variable of the project (PostHog's endpoint validation: each in-query definition names one by its UUID). */
const savedVar = async (name: string, type = 'String'): Promise<string> => {
  const r = await s.api('POST', `/api/projects/${p}/insight_variables/`, { name, type });
  expect([name, r.status]).toEqual([name, 201]);
  return r.body.id;
};
const notFound = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
const trends = (extra: Record<string, unknown> = {}) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview' }],
  dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' },
  ...extra,
});

beforeAll(async () => {
  s = await startServer();
  p = await newProject(s, 'endpoints-posthog-compat');
  ep = `/api/environments/${p}/endpoints`;
  const r = await s.server.services.ingestor.import(p, {
    events: [
      { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T10:00:00Z', properties: { $browser: 'Chrome' } },
      { event: '$pageview', distinct_id: 'u2', timestamp: '2024-01-02T10:00:00Z', properties: { $browser: 'Safari' } },
      { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-03T10:00:00Z', properties: { $browser: 'Chrome' } },
    ],
  });
  expect(r).toMatchObject({ errors: [] });
  await s.server.services.ingestor.flush();
});
afterAll(() => s.close());

describe('create, retrieve, update, delete (test_endpoint.py)', () => {
  it('test_create_endpoint: 201; the query is kept exactly as sent; active, version 1, created by the caller', async () => {
    const query = sql('select 1 as result');
    const r = await s.api('POST', `${ep}/`, { name: 'test_query', query, description: 'Test query description' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'test_query',
      query,
      description: 'Test query description',
      is_active: true,
      current_version: 1,
      versions_count: 1,
      endpoint_path: `/api/environments/${p}/endpoints/test_query/run`,
    });
    expect(r.body.query).toEqual(query);
    expect(new URL(r.body.ui_url).pathname).toBe(`/project/${p}/endpoints/test_query`);
    for (const k of ['id', 'created_at', 'updated_at']) expect(typeof r.body[k]).toBe('string');
    expect(r.body.created_by).toMatchObject({ id: 1 });
    const got = await s.api('GET', `${ep}/test_query/`);
    expect([got.status, got.body.id, got.body.query]).toEqual([200, r.body.id, query]);
  });

  it('created through /api/projects/: endpoint_path still names /api/environments/ (reference §1.2)', async () => {
    const r = await s.api('POST', `/api/projects/${p}/endpoints/`, { name: 'via_projects', query: sql('select 1 as one') });
    expect([r.status, r.body.endpoint_path]).toEqual([201, `/api/environments/${p}/endpoints/via_projects/run`]);
  });

  it('test_update_endpoint (PUT): the description and the query change; the new query is version 2; updated_at moves, created_at stays', async () => {
    const made = (await s.api('POST', `${ep}/`, { name: 'put_me', query: sql('select 1 as result'), description: 'before' })).body;
    await new Promise((r) => setTimeout(r, 5));
    const query = sql('select 2 as result');
    // PUT takes the same optional fields as PATCH: no name needed
    const r = await s.api('PUT', `${ep}/put_me/`, { description: 'Updated description', query });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: made.id, name: 'put_me', description: 'Updated description', query, current_version: 2, versions_count: 2 });
    expect([r.body.created_at, Date.parse(r.body.updated_at) > Date.parse(made.updated_at)]).toEqual([made.created_at, true]);
    expect((await s.api('POST', `${ep}/put_me/run/`, {})).body.results).toEqual([[2]]);
  });

  it.each([
    ['GET', '/nope/'],
    ['PATCH', '/nope/'],
    ['PUT', '/nope/'],
    ['DELETE', '/nope/'],
    ['GET', '/nope/versions/'],
    ['GET', '/nope/openapi.json/'],
    ['POST', '/nope/run/'],
  ])('a missing endpoint: %s %s → 404 Not found.', async (method, path) => {
    const r = await s.api(method, `${ep}${path}`, method === 'GET' || method === 'DELETE' ? undefined : { description: 'x' });
    expect([r.status, r.body]).toEqual([404, notFound]);
  });

  it('test_list_endpoints: every live endpoint of the project, each as retrieve shows it', async () => {
    const q = await newProject(s, 'endpoints-posthog-compat list');
    for (const n of ['first', 'second']) await s.api('POST', `/api/environments/${q}/endpoints/`, { name: n, query: sql('select 1 as one') });
    const list = await s.api('GET', `/api/environments/${q}/endpoints/`);
    expect([list.status, list.body.count, list.body.results.map((e: { name: string }) => e.name).sort()]).toEqual([200, 2, ['first', 'second']]);
    const one = list.body.results.find((e: { name: string }) => e.name === 'first');
    expect(one).toEqual((await s.api('GET', `/api/environments/${q}/endpoints/first/`)).body);
  });

  it('the list is newest first (-created_at): an update, a new version included, does not move an endpoint; ?is_active=true lists the active ones', async () => {
    const q = await newProject(s, 'endpoints-posthog-compat order');
    const qe = `/api/environments/${q}/endpoints`;
    for (const n of ['older', 'middle', 'newer']) {
      expect((await s.api('POST', `${qe}/`, { name: n, query: sql('select 1 as one') })).status).toBe(201);
      await new Promise((r) => setTimeout(r, 5));
    }
    await s.api('PATCH', `${qe}/older/`, { query: sql('select 2 as one'), description: 'touched' });
    await s.api('PATCH', `${qe}/middle/`, { is_active: false });
    const names = async (path: string) => (await s.api('GET', `${qe}/${path}`)).body.results.map((e: { name: string }) => e.name);
    expect(await names('')).toEqual(['newer', 'middle', 'older']);
    expect(await names('?is_active=true')).toEqual(['newer', 'older']);
    expect(await names('?is_active=false')).toEqual(['middle']);
    expect(await names('?limit=1&offset=1')).toEqual(['middle']);
  });

  it('data_freshness_seconds: each allowed bucket is kept; any other value on update → 400 naming it, nothing changes', async () => {
    await s.api('POST', `${ep}/`, { name: 'fresh', query: sql('select 1 as one') });
    for (const n of [900, 1800, 3600, 21600, 43200, 86400, 604800]) {
      const r = await s.api('PATCH', `${ep}/fresh/`, { data_freshness_seconds: n });
      expect([n, r.status, r.body.data_freshness_seconds]).toEqual([n, 200, n]);
    }
    for (const n of [0, 300, 86401, -900]) {
      const r = await s.api('PATCH', `${ep}/fresh/`, { data_freshness_seconds: n });
      expect([n, r.status, r.body.type, r.body.attr]).toEqual([n, 400, 'validation_error', 'data_freshness_seconds']);
      expect(r.body.detail).toMatch(/^Data freshness must be one of: \[900, 1800, 3600, 21600, 43200, 86400, 604800\]/);
    }
    expect((await s.api('GET', `${ep}/fresh/`)).body).toMatchObject({ data_freshness_seconds: 604800, current_version: 1 });
  });

  it('names are case-sensitive (a unique name per team, compared exactly): Daily and daily are two endpoints', async () => {
    expect((await s.api('POST', `${ep}/`, { name: 'Daily', query: sql('select 1 as one') })).status).toBe(201);
    expect((await s.api('POST', `${ep}/`, { name: 'daily', query: sql('select 2 as one') })).status).toBe(201);
    expect((await s.api('POST', `${ep}/Daily/run/`, {})).body.results).toEqual([[1]]);
    expect((await s.api('POST', `${ep}/daily/run/`, {})).body.results).toEqual([[2]]);
    const dup = await s.api('POST', `${ep}/`, { name: 'Daily', query: sql('select 3 as one') });
    expect([dup.status, dup.body.attr, dup.body.detail]).toEqual([400, 'name', 'An endpoint with this name already exists for this team.']);
  });

  it('a deleted endpoint cannot be updated or deleted again: 404', async () => {
    await s.api('POST', `${ep}/`, { name: 'deleted_once', query: sql('select 1 as one') });
    expect((await s.api('DELETE', `${ep}/deleted_once/`)).status).toBe(204);
    expect([(await s.api('PATCH', `${ep}/deleted_once/`, { description: 'x' })).status, (await s.api('DELETE', `${ep}/deleted_once/`)).status]).toEqual([404, 404]);
  });
});

describe('versions (test_endpoint_versions.py)', () => {
  it('current_version_id is the newest version’s version_id; each version has its own id', async () => {
    await s.api('POST', `${ep}/`, { name: 'ids', query: sql('select 1 as one') });
    await s.api('PATCH', `${ep}/ids/`, { query: sql('select 2 as one') });
    const endpoint = (await s.api('GET', `${ep}/ids/`)).body;
    const v1 = (await s.api('GET', `${ep}/ids/?version=1`)).body;
    const v2 = (await s.api('GET', `${ep}/ids/?version=2`)).body;
    expect(endpoint.current_version_id).toBe(v2.version_id);
    expect(v1.version_id).not.toBe(v2.version_id);
    expect(v1.id).toBe(endpoint.id);
  });

  it('the version view of an inactive endpoint: endpoint_is_active false, the version’s own is_active true', async () => {
    await s.api('POST', `${ep}/`, { name: 'off_endpoint', query: sql('select 1 as one') });
    expect((await s.api('PATCH', `${ep}/off_endpoint/`, { is_active: false })).body.is_active).toBe(false);
    const v1 = (await s.api('GET', `${ep}/off_endpoint/?version=1`)).body;
    expect([v1.version, v1.is_active, v1.endpoint_is_active]).toEqual([1, true, false]);
    // the endpoint-level switch wins on run, a pinned version included
    expect((await s.api('POST', `${ep}/off_endpoint/run/`, { version: 1 })).body).toEqual(notFound);
  });

  it('?version=0 or -1 on retrieve and openapi.json is an integer naming no version: 404 {"error"}, not “Must be an integer”', async () => {
    await s.api('POST', `${ep}/`, { name: 'zero', query: sql('select 1 as one') });
    for (const n of ['0', '-1']) {
      for (const path of [`/zero/?version=${n}`, `/zero/versions/${n}/`, `/zero/openapi.json/?version=${n}`]) {
        const r = await s.api('GET', `${ep}${path}`);
        expect([path, r.status, r.body]).toEqual([path, 404, { error: `Version ${n} not found` }]);
      }
      const upd = await s.api('PATCH', `${ep}/zero/?version=${n}`, { description: 'x' });
      expect([upd.status, upd.body.type, upd.body.attr]).toEqual([400, 'validation_error', 'version']);
    }
    // a non-integer is still PostHog's “Must be an integer, got: x”
    expect((await s.api('GET', `${ep}/zero/?version=1.5`)).body).toMatchObject({ attr: 'version', detail: 'Must be an integer, got: 1.5' });
  });

  it('a changed variable default inside the query is a changed query: version 2, whose runs default to the new value', async () => {
    const id = await savedVar('who');
    const q = (value: string) => ({ kind: 'HogQLQuery', query: 'select {variables.who} as who', variables: { [id]: { variableId: id, code_name: 'who', value } } });
    await s.api('POST', `${ep}/`, { name: 'defaults', query: q('ada') });
    expect((await s.api('PATCH', `${ep}/defaults/`, { query: q('ada') })).body.current_version).toBe(1);
    const r = await s.api('PATCH', `${ep}/defaults/`, { query: q('grace') });
    expect([r.status, r.body.current_version, r.body.query]).toEqual([200, 2, q('grace')]);
    expect((await s.api('POST', `${ep}/defaults/run/`, {})).body.results).toEqual([['grace']]);
    expect((await s.api('POST', `${ep}/defaults/run/`, { version: 1 })).body.results).toEqual([['ada']]);
  });

  it('is_active, tags and freshness changes make no new version', async () => {
    await s.api('POST', `${ep}/`, { name: 'settings_only', query: sql('select 1 as one') });
    for (const change of [{ is_active: false }, { is_active: true }, { tags: ['x'] }, { data_freshness_seconds: 900 }, { description: 'd' }]) {
      const r = await s.api('PATCH', `${ep}/settings_only/`, change);
      expect([r.status, r.body.current_version, r.body.versions_count]).toEqual([200, 1, 1]);
    }
  });
});

describe('the OpenAPI document (test_endpoint_openapi.py)', () => {
  it('HogQL variables: Date is a string of format date, Boolean a boolean; one without a default is required', async () => {
    const made = await s.api('POST', `${ep}/`, {
      name: 'typed_vars',
      query: sql('select toDate({variables.day}) as d, {variables.flag} as f'),
      variables: [
        { name: 'day', type: 'Date' },
        { name: 'flag', type: 'Boolean', default: true },
      ],
    });
    expect(made.status).toBe(201);
    const d = (await s.api('GET', `${ep}/typed_vars/openapi.json/`)).body;
    // servers: the site's URL (PostHog's SITE_URL)
    expect(d.servers).toEqual([{ url: s.url }]);
    const vars = d.components.schemas.Variables;
    expect(vars.required).toEqual(['day']);
    expect(vars.properties.day).toMatchObject({ type: 'string', format: 'date', description: 'Variable: day' });
    expect(vars.properties.day).not.toHaveProperty('example');
    expect(vars.properties.flag).toMatchObject({ type: 'boolean', description: 'Variable: flag', example: true });
    expect(d.components.schemas.EndpointRunRequest.required).toEqual(['variables']);
    expect(d.paths[`/api/projects/${p}/endpoints/typed_vars/run`].post.requestBody.required).toBe(true);
  });

  it('PostHog-style in-query variables: a value is the example and makes it optional; a null value makes it required', async () => {
    const [a, b] = [await savedVar('a'), await savedVar('b')];
    const made = await s.api('POST', `${ep}/`, {
      name: 'inline_vars',
      query: {
        kind: 'HogQLQuery',
        query: 'select {variables.a} as a, {variables.b} as b',
        variables: {
          [a]: { variableId: a, code_name: 'a', value: 'x' },
          [b]: { variableId: b, code_name: 'b', value: null },
        },
      },
    });
    expect(made.status).toBe(201);
    const vars = (await s.api('GET', `${ep}/inline_vars/openapi.json/`)).body.components.schemas.Variables;
    expect(vars.required).toEqual(['b']);
    expect(vars.properties.a).toMatchObject({ type: 'string', example: 'x' });
    expect(vars.properties.b).not.toHaveProperty('example');
  });

  it('an insight endpoint: a RetentionQuery with one breakdown offers it; two breakdowns offer only the dates', async () => {
    const retention = {
      kind: 'RetentionQuery',
      retentionFilter: { targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' }, totalIntervals: 3 },
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    };
    expect((await s.api('POST', `${ep}/`, { name: 'ret_browser', query: retention })).status).toBe(201);
    const one = (await s.api('GET', `${ep}/ret_browser/openapi.json/`)).body.components.schemas.Variables;
    expect(Object.keys(one.properties).sort()).toEqual(['$browser', 'date_from', 'date_to']);
    expect(one.properties.$browser).toMatchObject({ type: 'string', example: 'Chrome' });
    const two = trends({ breakdownFilter: { breakdowns: [{ property: '$browser', type: 'event' }, { property: '$os', type: 'event' }] } });
    expect((await s.api('POST', `${ep}/`, { name: 'two_breakdowns', query: two })).status).toBe(201);
    const vars = (await s.api('GET', `${ep}/two_breakdowns/openapi.json/`)).body.components.schemas.Variables;
    expect(Object.keys(vars.properties).sort()).toEqual(['date_from', 'date_to']);
  });

  it('info.description is the selected version’s description, or “PostHog Endpoint: {name}” without one', async () => {
    await s.api('POST', `${ep}/`, { name: 'described', query: sql('select 1 as one') });
    await s.api('PATCH', `${ep}/described/`, { query: sql('select 2 as one'), description: 'Second' });
    expect((await s.api('GET', `${ep}/described/openapi.json/`)).body.info).toEqual({ title: 'described', description: 'Second', version: '2' });
    expect((await s.api('GET', `${ep}/described/openapi.json/?version=1`)).body.info).toEqual({ title: 'described', description: 'PostHog Endpoint: described', version: '1' });
  });

  it('an inactive endpoint still has its document (only run checks is_active)', async () => {
    await s.api('POST', `${ep}/`, { name: 'asleep_doc', query: sql('select 1 as one'), is_active: false });
    const r = await s.api('GET', `${ep}/asleep_doc/openapi.json/`);
    expect([r.status, r.body.info.title]).toEqual([200, 'asleep_doc']);
  });
});

describe('runs (test_endpoint_execution.py)', () => {
  beforeAll(async () => {
    expect((await s.api('POST', `${ep}/`, { name: 'run_target', query: sql('select 1 as result') })).status).toBe(201);
    expect((await s.api('POST', `${ep}/`, { name: 'daily_views', query: trends() })).status).toBe(201);
  });

  it('a TrendsQuery endpoint answers the series; date_from/date_to variables override the range', async () => {
    const r = await s.api('POST', `${ep}/daily_views/run/`, {});
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { days: string[]; data: number[] }) => [x.days, x.data])).toEqual([[['2024-01-01', '2024-01-02', '2024-01-03'], [1, 1, 1]]]);
    const narrowed = await s.api('POST', `${ep}/daily_views/run/`, { variables: { date_from: '2024-01-02', date_to: '2024-01-03' } });
    expect(narrowed.body.results.map((x: { days: string[]; data: number[] }) => [x.days, x.data])).toEqual([[['2024-01-02', '2024-01-03'], [1, 1]]]);
  });

  it('version, limit and offset sent as numeric strings in the body are read as integers (as from the query string)', async () => {
    await s.api('POST', `${ep}/`, { name: 'three_rows', query: sql('select number from numbers(3) order by number') });
    const r = await s.api('POST', `${ep}/three_rows/run/`, { version: '1', limit: '1', offset: '1' });
    expect([r.status, r.body.results, r.body.hasMore, r.body.endpoint_version]).toEqual([200, [[1]], true, 1]);
  });

  it('paging a query with a LIMIT of its own: a run limit still caps the rows, and hasMore never counts a row past that LIMIT', async () => {
    await s.api('POST', `${ep}/`, { name: 'own_limit', query: sql('select number from numbers(10) order by number limit 3') });
    const capped = await s.api('POST', `${ep}/own_limit/run/`, { limit: 2 });
    expect([capped.status, capped.body.results, capped.body.hasMore]).toEqual([200, [[0], [1]], true]);
    const wide = await s.api('POST', `${ep}/own_limit/run/`, { limit: 10 });
    expect([wide.status, wide.body.hasMore]).toEqual([200, false]);
    expect(wide.body.results.length).toBeLessThanOrEqual(10);
  });

  it('a run limit past HogQL’s largest returned rows (50000) is clamped to it (the has-more paginator’s min), not refused', async () => {
    await s.api('POST', `${ep}/`, { name: 'many_rows', query: sql('select number from numbers(50002) order by number') });
    for (const body of [{ limit: 1_000_000 }, { limit: 50_001, offset: 1 }]) {
      const r = await s.api('POST', `${ep}/many_rows/run/`, body);
      expect([r.status, r.body.results.length, r.body.hasMore, r.body.limit]).toEqual([200, 50_000, true, 50_000]);
      expect(r.body.results[0]).toEqual([body.offset ?? 0]);
    }
    const q = await s.api('GET', `${ep}/many_rows/run/?limit=60000&offset=2`);
    expect([q.status, q.body.results.length, q.body.hasMore, q.body.offset]).toEqual([200, 50_000, false, 2]);
  });

  it('a RetentionQuery endpoint takes its breakdown as a variable: only that value’s cohorts', async () => {
    const retention = {
      kind: 'RetentionQuery',
      retentionFilter: { targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' }, totalIntervals: 3 },
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    };
    expect((await s.api('POST', `${ep}/`, { name: 'retained', query: retention })).status).toBe(201);
    const cohorts = (r: { body: { results: { breakdown_value: string; values: { count: number }[] }[] } }) =>
      r.body.results.map((c) => [c.breakdown_value, c.values.map((v) => v.count)]);
    expect(cohorts(await s.api('POST', `${ep}/retained/run/`, {}))).toEqual([
      ['Chrome', [1, 0, 1]],
      ['Chrome', [0, 0, 0]],
      ['Chrome', [1, 0, 0]],
      ['Safari', [0, 0, 0]],
      ['Safari', [1, 0, 0]],
      ['Safari', [0, 0, 0]],
    ]);
    expect(cohorts(await s.api('POST', `${ep}/retained/run/`, { variables: { $browser: 'Safari' } }))).toEqual([
      ['Safari', [0, 0, 0]],
      ['Safari', [1, 0, 0]],
      ['Safari', [0, 0, 0]],
    ]);
  });

  it('refresh "force" recomputes and refills the cache: the next default ("cache") run serves that answer', async () => {
    await s.api('POST', `${ep}/`, { name: 'cached', query: sql('select count() as c from events') });
    const first = (await s.api('POST', `${ep}/cached/run/`, {})).body;
    await new Promise((r) => setTimeout(r, 1100));
    const forced = (await s.api('POST', `${ep}/cached/run/`, { refresh: 'force' })).body;
    expect([forced.is_cached, forced.results, forced.last_refresh > first.last_refresh]).toEqual([false, [[3]], true]);
    const next = (await s.api('POST', `${ep}/cached/run/`, { refresh: 'cache' })).body;
    expect([next.is_cached, next.last_refresh]).toEqual([true, forced.last_refresh]);
  });

  it('a breakdown variable on an insight endpoint without that breakdown is unknown', async () => {
    const r = await s.api('POST', `${ep}/daily_views/run/`, { variables: { $browser: 'Chrome' } });
    expect([r.status, r.body.attr, r.body.detail]).toEqual([400, 'variables', 'Unknown variable(s): $browser']);
  });

  it('endpoint:write implies endpoint:read: such a key lists, retrieves and runs', async () => {
    const writer = await newKey(s, ['endpoint:write']);
    expect((await s.api('GET', `${ep}/`, undefined, writer)).status).toBe(200);
    expect((await s.api('GET', `${ep}/run_target/`, undefined, writer)).status).toBe(200);
    expect((await s.api('POST', `${ep}/run_target/run/`, {}, writer)).body.results).toEqual([[1]]);
  });

  it.each([
    ['PATCH', '/run_target/', { description: 'x' }],
    ['DELETE', '/run_target/', undefined],
  ])('an endpoint:read key cannot %s: 403 naming endpoint:write', async (method, path, body) => {
    const reader = await newKey(s, ['endpoint:read']);
    const r = await s.api(method, `${ep}${path}`, body, reader);
    expect([r.status, r.body.detail]).toEqual([403, "API key missing required scope 'endpoint:write'"]);
  });

  it.each([
    ['POST', '/last_execution_times/', { names: [] }],
    ['GET', '/run_target/materialization_status/', undefined],
    ['GET', '/run_target/versions/1/', undefined],
  ])('a project secret key runs only: %s %s → 403', async (method, path, body) => {
    const key = (await s.api('POST', `/api/projects/${p}/project_secret_api_keys/`, { label: `k${path.length}`, scopes: ['endpoint:read'] })).body.value;
    const r = await s.api(method, `${ep}${path}`, body, key);
    expect([r.status, r.body.detail]).toEqual([403, 'This action does not support project secret API key access']);
  });

  it('a personal key scoped to another project: 403 naming this one', async () => {
    const other = await newProject(s, 'endpoints-posthog-compat scoped');
    const scoped = await newKey(s, ['endpoint:read'], { scoped_teams: [other] });
    const r = await s.api('POST', `${ep}/run_target/run/`, {}, scoped);
    expect([r.status, r.body.detail]).toEqual([403, `API key does not have access to the requested project: ID ${p}.`]);
  });

  it('@current is the caller’s project for a personal key too', async () => {
    const r = await s.api('GET', '/api/projects/@current/endpoints/');
    expect(r.status).toBe(200);
  });

  it('a non-numeric project id → 404 Project not found.', async () => {
    const r = await s.api('POST', '/api/environments/abc/endpoints/run_target/run/', {});
    expect([r.status, r.body]).toEqual([404, { type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null }]);
  });
});
