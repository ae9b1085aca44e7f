/**
 * The REST surface against PostHog's own API tests (posthog/api/test/test_insight.py, test_personal_api_keys.py,
 * test_person.py, products/endpoints tests) and the reference (posthog-api.md): response shapes with null vs missing
 * fields, status codes and bodies, `@current`, key fields and scopes. Each case names the PostHog test or the
 * reference section it ports. Scenarios already pinned elsewhere (insights-api, endpoints-lifecycle,
 * projects-keys, auth-matrix, deletes) are not repeated.
 */
import { describePersonsCompat } from '../helpers/persons-compat';
import { startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let otherProject: number;

const INSIGHTS = '/api/projects/1/insights/';
const trends = {
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' } },
};
const sqlViz = (query: string) => ({ kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query } });

async function newKey(body: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await s.api('POST', '/api/personal_api_keys/', { label: 'compat', ...body });
  expect(r.status).toBe(201);
  return r.body;
}

beforeAll(async () => {
  s = await startServer();
  await s.server.services.ingestor.import(1, {
    events: [
      { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T10:00:00Z', properties: {} },
      { event: '$pageview', distinct_id: 'u2', timestamp: '2024-01-02T10:00:00Z', properties: {} },
    ],
  });
  await s.server.services.ingestor.flush();
  otherProject = (await s.api('POST', '/api/projects/', { name: 'compat other' })).body.id;
});
afterAll(() => s.close());

describe('insights (test_insight.py)', () => {
  // InsightBasicSerializer's fields: light objects, no result and no cache fields
  const BASIC_KEYS = [
    'created_at',
    'created_by',
    'dashboard_tiles',
    'dashboards',
    'derived_name',
    'description',
    'favorited',
    'filters',
    'id',
    'last_modified_at',
    'last_refresh',
    'name',
    'query',
    'refreshing',
    'saved',
    'short_id',
    'tags',
    'updated_at',
    'user_access_level',
  ];

  it('test_basic_results: basic=true lists the basic serializer fields only, last_refresh null before any result', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'basic' })).body.id;
    const base = `/api/projects/${p}/insights/`;
    const a = (await s.api('POST', base, { name: 'one', query: trends })).body;
    await s.api('POST', base, { name: 'two', query: sqlViz('SELECT 1') });
    const r = await s.api('GET', `${base}?basic=true`);
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(2);
    for (const row of r.body.results) expect(Object.keys(row).sort()).toEqual(BASIC_KEYS);
    const one = r.body.results.find((x: { id: number }) => x.id === a.id);
    expect(one).toMatchObject({ last_refresh: null, refreshing: false, name: 'one', short_id: a.short_id, query: trends });

    // after a computed result, basic shows when it was computed (still no result)
    const computed = await s.api('GET', `${base}${a.id}/?refresh=blocking`);
    const again = (await s.api('GET', `${base}?basic=true`)).body.results.find((x: { id: number }) => x.id === a.id);
    expect(again.last_refresh).toBe(computed.body.last_refresh);
    expect(again).not.toHaveProperty('result');
    // retrieve takes basic too
    const single = await s.api('GET', `${base}${a.id}/?basic=true`);
    expect(Object.keys(single.body).sort()).toEqual(BASIC_KEYS);
  });

  it('the full serializer always has the result fields: null before a result, not missing', async () => {
    const made = await s.api('POST', INSIGHTS, { name: 'nulls', query: sqlViz('SELECT 42 AS answer') });
    expect(made.status).toBe(201);
    for (const body of [made.body, (await s.api('GET', `${INSIGHTS}${made.body.id}/`)).body]) {
      expect(body).toMatchObject({
        result: null,
        hasMore: null,
        columns: null,
        types: null,
        hogql: null,
        resolved_date_range: null,
        last_refresh: null,
        cache_target_age: null,
        next_allowed_client_refresh: null,
        is_cached: false,
        query_status: null,
        timezone: 'UTC',
        filters: {},
      });
    }
    const fresh = await s.api('GET', `${INSIGHTS}${made.body.id}/?refresh=blocking`);
    expect(fresh.body).toMatchObject({ result: [[42]], columns: ['answer'], hasMore: false, is_cached: false });
    expect(typeof fresh.body.hogql).toBe('string');
    expect(fresh.body.types).toEqual([['answer', expect.any(String)]]);
  });

  it('trends insight: resolved_date_range comes with the result', async () => {
    const made = (await s.api('POST', INSIGHTS, { name: 'range', query: trends })).body;
    const got = await s.api('GET', `${INSIGHTS}${made.id}/?refresh=force_blocking`);
    expect(got.body.result[0]).toMatchObject({ data: [1, 1, 0], days: ['2024-01-01', '2024-01-02', '2024-01-03'], labels: ['1-Jan-2024', '2-Jan-2024', '3-Jan-2024'] });
    expect(got.body.resolved_date_range).toEqual({ date_from: '2024-01-01T00:00:00Z', date_to: '2024-01-03T23:59:59.999999Z' });
    expect(got.body.hasMore).toBeNull(); // trends answers carry no hasMore: the field stays null
  });

  it('retrieve with filters_override: the dashboard filters apply to the answer, not to the saved insight', async () => {
    // its own query (a range no other case uses): results are shared by identical queries
    const own = { ...trends, source: { ...trends.source, dateRange: { date_from: '2024-01-01', date_to: '2024-01-04' } } };
    const made = (await s.api('POST', INSIGHTS, { name: 'override', query: own })).body;
    const fo = encodeURIComponent(JSON.stringify({ date_from: '2024-01-02', date_to: '2024-01-03' }));
    const r = await s.api('GET', `${INSIGHTS}${made.id}/?refresh=blocking&filters_override=${fo}`);
    expect(r.status).toBe(200);
    expect(r.body.result[0]).toMatchObject({ data: [1, 0], days: ['2024-01-02', '2024-01-03'] });
    expect(r.body.query).toEqual(own); // the saved query is unchanged
    const props = encodeURIComponent(JSON.stringify({ properties: [{ key: 'nope', value: 'x', type: 'event' }] }));
    expect((await s.api('GET', `${INSIGHTS}${made.id}/?refresh=blocking&filters_override=${props}`)).body.result[0].data).toEqual([0, 0, 0, 0]);
    // without the override: the insight's own answer, and the overridden ones were not remembered as its cache
    const plain = await s.api('GET', `${INSIGHTS}${made.id}/`);
    expect([plain.body.result, plain.body.last_refresh]).toEqual([null, null]);
    expect((await s.api('GET', `${INSIGHTS}${made.id}/?refresh=blocking`)).body.result[0].data).toEqual([1, 1, 0, 0]);
    const bad = await s.api('GET', `${INSIGHTS}${made.id}/?filters_override=not-json`);
    expect([bad.status, bad.body.attr]).toEqual([400, 'filters_override']);
    const badShape = await s.api('GET', `${INSIGHTS}${made.id}/?refresh=blocking&filters_override=${encodeURIComponent('{"date_from": 5}')}`);
    expect([badShape.status, badShape.body.attr]).toEqual([400, 'filters_override__date_from']);
  });

  it('retrieve with variables_override: a SQL insight runs with the given variable value', async () => {
    const query = {
      kind: 'DataVisualizationNode',
      source: {
        kind: 'HogQLQuery',
        query: 'SELECT count() FROM events WHERE distinct_id = {variables.who}',
        variables: { 'var-who': { variableId: 'var-who', code_name: 'who', value: 'u1' } },
      },
    };
    const made = (await s.api('POST', INSIGHTS, { name: 'vars', query })).body;
    expect((await s.api('GET', `${INSIGHTS}${made.id}/?refresh=blocking`)).body.result).toEqual([[1]]);
    const vo = encodeURIComponent(JSON.stringify({ 'var-who': { value: 'nobody' } }));
    expect((await s.api('GET', `${INSIGHTS}${made.id}/?refresh=blocking&variables_override=${vo}`)).body.result).toEqual([[0]]);
  });

  it('list date filters (reference §2.3): strictly after *_from, before *_to, relative or absolute; dashboards', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'dates', timezone: 'Europe/Berlin' })).body.id;
    const base = `/api/projects/${p}/insights/`;
    await s.api('POST', base, { name: 'a', query: trends });
    await s.api('POST', base, { name: 'b', query: trends });
    const names = async (qs: string) => {
      const r = await s.api('GET', `${base}?basic=true&${qs}`);
      expect(r.status).toBe(200);
      return r.body.results.map((x: { name: string }) => x.name).sort();
    };
    expect(await names('date_from=-1h')).toEqual(['a', 'b']);
    expect(await names('date_from=2000-01-01')).toEqual(['a', 'b']);
    expect(await names('date_to=-1h')).toEqual([]);
    expect(await names('date_to=2999-01-01T00:00:00Z')).toEqual(['a', 'b']);
    expect(await names('created_date_from=-1d&created_date_to=2999-12-31')).toEqual(['a', 'b']);
    expect(await names('created_date_to=-1dStart')).toEqual([]);
    // no views are recorded: a last-viewed bound matches nothing; no dashboards: none is on dashboard 1
    expect(await names('last_viewed_date_from=-30d')).toEqual([]);
    expect(await names(`dashboards=${encodeURIComponent('[1]')}`)).toEqual([]);
    expect(await names(`dashboards=${encodeURIComponent('[]')}`)).toEqual(['a', 'b']);
    expect((await s.api('GET', `${base}?order=-last_viewed_at`)).body.count).toBe(2);
    const bad = await s.api('GET', `${base}?date_from=last%20tuesday`);
    expect([bad.status, bad.body.attr]).toEqual([400, 'date_from']);
  });

  it('test_hard_delete_is_forbidden: 405 after authorization, even for an insight that does not exist', async () => {
    const missing = await s.api('DELETE', `${INSIGHTS}99999999/`);
    expect([missing.status, missing.text]).toEqual([405, '']);
    const reader = (await newKey({ scopes: ['insight:read'] })).value;
    const denied = await s.api('DELETE', `${INSIGHTS}99999999/`, undefined, reader);
    expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'insight:write'"]);
    expect((await s.api('DELETE', `${INSIGHTS}99999999/`, undefined, null)).status).toBe(401);
    expect((await s.api('DELETE', `/api/projects/424242/insights/1/`)).body.detail).toBe('Project not found.');
  });
});

describe('insights cancel (reference §2.1, InsightViewSet.cancel)', () => {
  it('201 with an empty body whether or not the query runs; stops a running async refresh', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'cancel' })).body.id;
    await s.server.services.ingestor.import(p, {
      events: Array.from({ length: 3000 }, (_, i) => ({ event: 'bulk', distinct_id: `d${i % 50}`, timestamp: '2024-01-01T00:00:00Z' })),
    });
    await s.server.services.ingestor.flush();
    const base = `/api/projects/${p}/insights/`;
    // 3,000 events cubed: far more rows than the test waits for
    const i = (await s.api('POST', base, { query: sqlViz('SELECT count() FROM events AS a CROSS JOIN events AS b CROSS JOIN events AS c') })).body;
    const started = await s.api('GET', `${base}${i.id}/?refresh=force_async&client_query_id=compat-cancel`);
    expect(started.body.query_status).toMatchObject({ id: 'compat-cancel', complete: false });
    const r = await s.api('POST', `${base}cancel/`, { client_query_id: 'compat-cancel' });
    expect([r.status, r.text]).toEqual([201, '']);
    await s.server.services.queries.async.wait('compat-cancel');
    const st = await s.api('GET', `/api/projects/${p}/query/compat-cancel/`);
    expect(st.body.query_status).toMatchObject({ complete: true, error: true, error_code: 'cancelled' });
    // nothing running under that id: the same answer
    const again = await s.api('POST', `${base}cancel`, { client_query_id: 'never-started' });
    expect([again.status, again.text]).toEqual([201, '']);
  });

  it('without client_query_id → 400 naming it', async () => {
    const r = await s.api('POST', `${INSIGHTS}cancel/`, {});
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Field is required.', attr: 'client_query_id' });
  });
});

describe('@current project (reference §0, routing.py)', () => {
  it('resolves to the caller’s project under both prefixes, for every nested route', async () => {
    const direct = await s.api('GET', '/api/projects/1/');
    const current = await s.api('GET', '/api/projects/@current/');
    expect(current.status).toBe(200);
    expect(current.body).toEqual(direct.body);
    expect((await s.api('GET', '/api/environments/@current')).body).toEqual(direct.body);
    const made = (await s.api('POST', '/api/projects/@current/insights/', { name: 'via current', query: trends })).body;
    expect((await s.api('GET', `${INSIGHTS}${made.id}/`)).body.name).toBe('via current');
    const q = await s.api('POST', '/api/environments/@current/query/', { query: { kind: 'HogQLQuery', query: 'SELECT 1' } });
    expect([q.status, q.body.results]).toEqual([200, [[1]]]);
  });

  it('a key restricted to one project: @current is that project', async () => {
    const k = await newKey({ scopes: ['project:read', 'insight:read'], scoped_teams: [otherProject] });
    const r = await s.api('GET', '/api/projects/@current/', undefined, k.value);
    expect([r.status, r.body.id]).toEqual([200, otherProject]);
  });

  it('a project secret key: @current is its project (endpoint runs)', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'secret current' })).body.id;
    await s.api('POST', `/api/environments/${p}/endpoints/`, { name: 'one', query: { kind: 'HogQLQuery', query: 'SELECT 1 AS one' } });
    const secret = (await s.api('POST', `/api/projects/${p}/project_secret_api_keys/`, { label: 's', scopes: ['endpoint:read'] })).body.value;
    const r = await s.api('POST', '/api/environments/@current/endpoints/one/run/', {}, secret);
    expect([r.status, r.body.results]).toEqual([200, [[1]]]);
  });

  it('without credentials it is still a 401, not a lookup', async () => {
    const r = await s.api('GET', '/api/projects/@current/insights/', undefined, null);
    expect([r.status, r.body.code]).toEqual([401, 'not_authenticated']);
  });
});

describe('personal API keys (test_personal_api_keys.py)', () => {
  it('test_create_personal_api_key: the serializer fields, value only at creation', async () => {
    const r = await s.api('POST', '/api/personal_api_keys/', { label: 'Test key uno', scopes: ['insight:read'], scoped_organizations: [], scoped_teams: [] });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      label: 'Test key uno',
      last_used_at: null,
      user_id: 1,
      scopes: ['insight:read'],
      scoped_organizations: [],
      scoped_teams: [],
      value: expect.stringMatching(/^phx_/),
      mask_value: `phx_...${r.body.value.slice(-4)}`,
      created_at: expect.any(String),
      last_rolled_at: null,
    });
    const listed = (await s.api('GET', '/api/personal_api_keys/')).body.find((x: { id: string }) => x.id === r.body.id);
    // the serializer always has `value` (get_key_value): null except in the creating response
    expect(listed).toMatchObject({ value: null, user_id: 1, scoped_teams: [], last_rolled_at: null });
    expect((await s.api('GET', `/api/personal_api_keys/${r.body.id}/`)).body.value).toBeNull();
  });

  it('an empty scoped_teams list restricts nothing (PostHog checks `if scoped_teams`)', async () => {
    const k = await newKey({ scopes: ['project:read', 'insight:read'], scoped_teams: [] });
    for (const p of [1, otherProject]) expect((await s.api('GET', `/api/projects/${p}/insights/`, undefined, k.value)).status).toBe(200);
    // non-project routes are open to it too, where a restricted key is refused
    const list = await s.api('GET', '/api/projects/', undefined, k.value);
    expect(list.body.results.map((x: { id: number }) => x.id)).toEqual(expect.arrayContaining([1, otherProject]));
    const restricted = await newKey({ scopes: ['project:read', 'insight:read', 'personal_api_key:read'], scoped_teams: [1] });
    const refused = await s.api('GET', '/api/personal_api_keys/', undefined, restricted.value);
    expect([refused.status, refused.body.detail]).toEqual([403, 'API keys with scoped projects are only supported on project-based endpoints.']);
  });

  it('scoped_organizations: only empty or null (Quarry has one organization)', async () => {
    const r = await s.api('POST', '/api/personal_api_keys/', { label: 'org', scopes: ['insight:read'], scoped_organizations: ['0190f0c2-1111-7000-8000-000000000001'] });
    expect([r.status, r.body.attr, r.body.type]).toEqual([400, 'scoped_organizations', 'validation_error']);
    expect((await s.api('POST', '/api/personal_api_keys/', { label: 'org', scopes: ['insight:read'], scoped_organizations: null })).body.scoped_organizations).toBeNull();
  });

  it('scoped_organizations is kept as sent (PostHog’s ArrayField, null=True): [] reads back as [] on retrieve and list; PATCH changes it', async () => {
    const made = await newKey({ scopes: ['insight:read'], scoped_organizations: [] });
    expect(made.scoped_organizations).toEqual([]);
    const got = async () => (await s.api('GET', `/api/personal_api_keys/${made.id}/`)).body.scoped_organizations;
    expect(await got()).toEqual([]);
    const listed = (await s.api('GET', '/api/personal_api_keys/')).body.find((k: { id: string }) => k.id === made.id);
    expect(listed.scoped_organizations).toEqual([]);
    expect((await s.api('PATCH', `/api/personal_api_keys/${made.id}/`, { scoped_organizations: null })).body.scoped_organizations).toBeNull();
    expect(await got()).toBeNull();
    expect((await s.api('PATCH', `/api/personal_api_keys/${made.id}/`, { scoped_organizations: [] })).body.scoped_organizations).toEqual([]);
    // a key made without the field has none
    expect((await newKey({ scopes: ['insight:read'] })).scoped_organizations).toBeNull();
  });

  it('the label is the model’s CharField(max_length=40) through DRF: trimmed, then at most 40 characters, on create and update', async () => {
    const tooLong = { type: 'validation_error', code: 'max_length', detail: 'Ensure this field has no more than 40 characters.', attr: 'label' };
    const r = await s.api('POST', '/api/personal_api_keys/', { label: 'x'.repeat(41), scopes: ['insight:read'] });
    expect([r.status, r.body]).toEqual([400, tooLong]);
    const ok = await newKey({ label: `  ${'y'.repeat(40)}  `, scopes: ['insight:read'] });
    expect(ok.label).toBe('y'.repeat(40));
    const upd = await s.api('PATCH', `/api/personal_api_keys/${ok.id}/`, { label: 'z'.repeat(41) });
    expect([upd.status, upd.body]).toEqual([400, tooLong]);
    expect((await s.api('GET', `/api/personal_api_keys/${ok.id}/`)).body.label).toBe('y'.repeat(40));
    // CharField takes a number as its text; a boolean is not a string
    expect((await s.api('PATCH', `/api/personal_api_keys/${ok.id}/`, { label: 7 })).body.label).toBe('7');
    const bool = await s.api('PATCH', `/api/personal_api_keys/${ok.id}/`, { label: true });
    expect([bool.status, bool.body.code, bool.body.detail, bool.body.attr]).toEqual([400, 'invalid_input', 'Not a valid string.', 'label']);
    const nul = await s.api('PATCH', `/api/personal_api_keys/${ok.id}/`, { label: null });
    expect([nul.status, nul.body.code, nul.body.detail, nul.body.attr]).toEqual([400, 'null', 'This field may not be null.', 'label']);
  });

  it('PostHog scope objects Quarry has no routes for are valid but grant nothing', async () => {
    const k = await newKey({ scopes: ['dashboard:read', 'feature_flag:write', 'person:read'] });
    expect(k.scopes).toEqual(['dashboard:read', 'feature_flag:write', 'person:read']);
    const r = await s.api('GET', INSIGHTS, undefined, k.value);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'insight:read'", attr: null });
    const bad = await s.api('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['internal_run:read'] });
    expect([bad.status, bad.body.attr]).toEqual([400, 'scopes']);
  });

  it('test_query_string / test_body: a personal key as personal_api_key in the query string or a JSON body', async () => {
    const k = (await newKey({ scopes: ['insight:read', 'query:read'] })).value;
    const viaQuery = await s.api('GET', `${INSIGHTS}?personal_api_key=${k}`, undefined, null);
    expect(viaQuery.status).toBe(200);
    const viaBody = await s.api('POST', `/api/projects/1/query/`, { personal_api_key: k, query: { kind: 'HogQLQuery', query: 'SELECT 5' } }, null);
    expect([viaBody.status, viaBody.body.results]).toEqual([200, [[5]]]);
    // scopes still apply
    const denied = await s.api('POST', INSIGHTS, { personal_api_key: k, name: 'x', query: trends }, null);
    expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'insight:write'"]);
    // a bad key is named after where it was found
    for (const [where, r] of [
      ['query string', await s.api('GET', `${INSIGHTS}?personal_api_key=phx_nope`, undefined, null)],
      ['body', await s.api('POST', '/api/projects/1/query/', { personal_api_key: 'phx_nope', query: { kind: 'HogQLQuery', query: 'SELECT 5' } }, null)],
    ] as const) {
      expect([r.status, r.body]).toEqual([
        401,
        { type: 'authentication_error', code: 'authentication_failed', detail: `Personal API key found in request ${where} is invalid.`, attr: null },
      ]);
    }
    // the header wins when both are sent (only the first candidate is tried)
    const both = await s.api('GET', `${INSIGHTS}?personal_api_key=${k}`, undefined, 'phx_wrong');
    expect([both.status, both.body.detail]).toEqual([401, 'Personal API key found in request Authorization header is invalid.']);
  });

  it('project secret keys travel only in the Authorization header', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'psak header only' })).body.id;
    await s.api('POST', `/api/environments/${p}/endpoints/`, { name: 'one', query: { kind: 'HogQLQuery', query: 'SELECT 1 AS one' } });
    const secret = (await s.api('POST', `/api/projects/${p}/project_secret_api_keys/`, { label: 's', scopes: ['endpoint:read'] })).body.value;
    const r = await s.api('POST', `/api/environments/${p}/endpoints/one/run/?personal_api_key=${secret}`, {}, null);
    expect([r.status, r.body.detail]).toEqual([401, 'Personal API key found in request query string is invalid.']);
    expect((await s.api('POST', `/api/environments/${p}/endpoints/one/run/`, {}, secret)).status).toBe(200);
  });

  it('retrieve and update one key (PersonalAPIKeyViewSet is a model viewset): changes apply on the next request', async () => {
    const k = await newKey({ label: 'before', scopes: ['insight:read'] });
    const got = await s.api('GET', `/api/personal_api_keys/${k.id}/`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...k, value: null, last_used_at: null });
    expect((await s.api('GET', INSIGHTS, undefined, k.value)).status).toBe(200);
    const patched = await s.api('PATCH', `/api/personal_api_keys/${k.id}`, { label: 'after', scopes: ['query:read'] });
    expect([patched.status, patched.body.label, patched.body.scopes]).toEqual([200, 'after', ['query:read']]);
    expect(patched.body.value).toBeNull();
    expect((await s.api('GET', INSIGHTS, undefined, k.value)).body.detail).toBe("API key missing required scope 'insight:read'");
    const restricted = await s.api('PATCH', `/api/personal_api_keys/${k.id}/`, { scopes: ['insight:read'], scoped_teams: [otherProject] });
    expect(restricted.body.scoped_teams).toEqual([otherProject]);
    // test_personal_api_keys.py scoped teams: 403 naming the project (posthog-api.md §3.2)
    const outside = await s.api('GET', INSIGHTS, undefined, k.value);
    expect([outside.status, outside.body.detail]).toEqual([403, 'API key does not have access to the requested project: ID 1.']);
    expect((await s.api('GET', `/api/projects/${otherProject}/insights/`, undefined, k.value)).status).toBe(200);
    // 404 for a key that does not exist; a weaker key cannot raise a key above itself
    expect((await s.api('GET', '/api/personal_api_keys/00000000-0000-0000-0000-000000000000/')).status).toBe(404);
    const weak = await newKey({ scopes: ['personal_api_key:write'] });
    const raise = await s.api('PATCH', `/api/personal_api_keys/${k.id}/`, { scopes: ['*'] }, weak.value);
    expect([raise.status, raise.body.code]).toEqual([403, 'permission_denied']);
    const bad = await s.api('PATCH', `/api/personal_api_keys/${k.id}/`, { scopes: ['nope:read'] });
    expect([bad.status, bad.body.attr]).toEqual([400, 'scopes']);
  });

  it('project secret keys carry last_rolled_at (reference §3.3 fields)', async () => {
    const r = await s.api('POST', '/api/projects/1/project_secret_api_keys/', { label: 'rolled', scopes: ['endpoint:read'] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ label: 'rolled', last_rolled_at: null, last_used_at: null, value: expect.stringMatching(/^phs_/) });
    const listed = (await s.api('GET', '/api/projects/1/project_secret_api_keys/')).body.results.find((x: { id: string }) => x.id === r.body.id);
    expect(listed).toMatchObject({ label: 'rolled', value: null, mask_value: r.body.mask_value });
  });
});

// persons run on both engines: test/helpers/persons-compat.ts (ClickHouse: rest-posthog-compat.clickhouse.test.ts)
describePersonsCompat('DuckDB', () => s);

describe('projects (test_team.py)', () => {
  it('an invalid timezone is DRF’s invalid_choice, on @current too; nothing changes', async () => {
    const before = (await s.api('GET', '/api/projects/1/')).body;
    const r = await s.api('PATCH', '/api/environments/@current/', { timezone: 'America/I_Dont_Exist' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'validation_error', code: 'invalid_choice', detail: '"America/I_Dont_Exist" is not a valid choice.', attr: 'timezone' });
    expect((await s.api('GET', '/api/projects/1/')).body).toEqual(before);
  });

  it('week_start_day takes 0 or 1, as a number or as text (a ChoiceField); anything else is invalid_choice', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'week', week_start_day: '1' })).body;
    expect(p.week_start_day).toBe(1);
    const back = await s.api('PATCH', `/api/projects/${p.id}/`, { week_start_day: 0 });
    expect(back.body.week_start_day).toBe(0);
    const bad = await s.api('PATCH', `/api/projects/${p.id}/`, { week_start_day: 7 });
    expect(bad.body).toEqual({ type: 'validation_error', code: 'invalid_choice', detail: '"7" is not a valid choice.', attr: 'week_start_day' });
  });
});

describe('endpoints (reference §1.3)', () => {
  const P = '/api/environments/1/endpoints';

  it('POST last_execution_times: runs through an API key, in the query-status wrapper', async () => {
    await s.api('POST', `${P}/`, { name: 'ran_once', query: { kind: 'HogQLQuery', query: 'SELECT 1 AS one' } });
    await s.api('POST', `${P}/`, { name: 'never_ran', query: { kind: 'HogQLQuery', query: 'SELECT 2 AS two' } });
    const before = await s.api('POST', `${P}/last_execution_times/`, { names: ['ran_once', 'never_ran'] });
    expect(before.status).toBe(200);
    expect(before.body.query_status).toMatchObject({ id: '', team_id: 1, complete: true, error: false, results: [] });

    expect((await s.api('POST', `${P}/ran_once/run/`, {})).status).toBe(200);
    const after = await s.api('POST', `/api/projects/1/endpoints/last_execution_times`, { names: ['ran_once', 'never_ran', 'no_such_endpoint'] });
    expect(after.body.query_status.results).toEqual([['ran_once', expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/)]]);
    const endpoint = (await s.api('GET', `${P}/ran_once/`)).body;
    expect(Date.parse(after.body.query_status.results[0][1])).toBe(Math.floor(Date.parse(endpoint.last_executed_at) / 1000) * 1000);

    const empty = await s.api('POST', `${P}/last_execution_times/`, { names: [] });
    expect([empty.status, empty.body.query_status.results]).toEqual([200, null]);
  });

  it.each([
    ['an invalid name', { names: ['ok', '1bad'] }, { attr: 'names', detail: 'Invalid endpoint name: 1bad' }],
    ['names missing', {}, { attr: 'names', code: 'required' }],
    ['names not a list', { names: 'ran_once' }, { attr: 'names' }],
  ])('last_execution_times with %s → 400', async (_n, body, want) => {
    const r = await s.api('POST', `${P}/last_execution_times/`, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', ...want });
  });

  it('last_execution_times is a read action: endpoint:read is enough, query:read is not', async () => {
    const reader = (await newKey({ scopes: ['endpoint:read'] })).value;
    expect((await s.api('POST', `${P}/last_execution_times/`, { names: [] }, reader)).status).toBe(200);
    const other = (await newKey({ scopes: ['query:read'] })).value;
    const r = await s.api('POST', `${P}/last_execution_times/`, { names: [] }, other);
    expect([r.status, r.body.detail]).toEqual([403, "API key missing required scope 'endpoint:read'"]);
  });

  it('GET materialization_status: the materialization object, never enabled in Quarry; 404s as retrieve', async () => {
    await s.api('POST', `${P}/`, { name: 'mat_status', query: { kind: 'HogQLQuery', query: 'SELECT 1 AS one' } });
    const r = await s.api('GET', `${P}/mat_status/materialization_status/`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'mat_status', enabled: false, ready: false, can_materialize: false, reason: expect.any(String) });
    expect((await s.api('GET', `${P}/mat_status/materialization_status/?version=1`)).status).toBe(200);
    expect((await s.api('GET', `${P}/mat_status/materialization_status/?version=5`)).body).toEqual({ error: 'Version 5 not found' });
    expect((await s.api('GET', `${P}/nope/materialization_status/`)).body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
  });
});
