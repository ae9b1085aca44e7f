/**
 * The REST surface against PostHog's API tests, sixth batch (the earlier ones are rest-posthog-compat.test.ts and -2 to
 * -5): posthog/api/test/test_personal_api_keys.py (blank labels, the hourly last_used_at, where a key is looked for,
 * read vs write scopes, deleted keys, project-scoped keys off project routes, malformed scopes, other users' keys),
 * products/endpoints/backend/tests/test_endpoint.py (name rules, reusing a deleted endpoint's name, what a new version
 * inherits, materializing an inactive endpoint, last_executed_at per version and its 30-minute granularity), the
 * endpoint execution tests (null optional fields of a run), posthog/api/test/test_insight.py (the deprecated `saved`
 * flag, a filters-only insight's fields, the legacy trend and funnel routes), test_query.py (null envelope fields, the
 * default row limit, another project's query ids) and test_rate_limit.py (insights are throttled as ClickHouse views,
 * CRUD included; project secret keys per key and per project). Each case names the PostHog test or the reference
 * section it ports.
 * The legacy trend and funnel cases read the events: they live in test/helpers/rest-compat-6.ts and run on ClickHouse
 * too (rest-posthog-compat-6.clickhouse.test.ts).
 */
import { describeRestCompat6Legacy } from '../helpers/rest-compat-6';
import { newKey, newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;

const sql = (query: string) => ({ kind: 'HogQLQuery', query });
const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } };

beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

// the legacy trend and funnel routes on DuckDB (ClickHouse: rest-posthog-compat-6.clickhouse.test.ts)
describeRestCompat6Legacy('DuckDB', () => s);

describe('personal API keys (test_personal_api_keys.py)', () => {
  it('test_create_personal_api_key_label_required: a blank label is DRF’s `blank` error, before any other field', async () => {
    const r = await s.api('POST', '/api/personal_api_keys/', { label: '' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'validation_error', code: 'blank', detail: 'This field may not be blank.', attr: 'label' });
    // DRF trims a CharField before the blank check
    expect((await s.api('POST', '/api/personal_api_keys/', { label: '   ', scopes: ['insight:read'] })).body).toMatchObject({ code: 'blank', attr: 'label' });
    // the same field on update; the key keeps its label
    const made = await s.api('POST', '/api/personal_api_keys/', { label: 'named', scopes: ['insight:read'] });
    expect(made.status).toBe(201);
    const upd = await s.api('PATCH', `/api/personal_api_keys/${made.body.id}/`, { label: '' });
    expect([upd.status, upd.body.code, upd.body.attr]).toEqual([400, 'blank', 'label']);
    expect((await s.api('GET', `/api/personal_api_keys/${made.body.id}/`)).body.label).toBe('named');
  });

  it('test_does_not_update_last_used_at_within_the_hour / test_updates_last_used_at_outside_the_hour', async () => {
    const made = await s.api('POST', '/api/personal_api_keys/', { label: 'usage', scopes: ['insight:read'] });
    const [id, key] = [made.body.id as string, made.body.value as string];
    const lastUsed = async () => (await s.api('GET', `/api/personal_api_keys/${id}/`)).body.last_used_at as string | null;
    const use = async () => expect((await s.api('GET', `/api/projects/1/insights/?basic=true`, undefined, key)).status).toBe(200);
    expect(await lastUsed()).toBeNull();
    const realNow = Date.now.bind(Date);
    let shift = 0;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
    try {
      await use();
      const first = await lastUsed();
      expect(first).not.toBeNull();
      // 30 minutes later: PostHog writes last_used_at only when it is more than an hour old
      shift = 30 * 60_000;
      await use();
      expect(await lastUsed()).toBe(first);
      // 61 minutes after the first use: written again
      shift = 61 * 60_000;
      await use();
      const second = await lastUsed();
      expect(Date.parse(second!) - Date.parse(first!)).toBeGreaterThanOrEqual(61 * 60_000 - 1000);
    } finally {
      clock.mockRestore();
    }
  });

  it('reference §3.1: header, then body, then query string — only the first key found is tried', async () => {
    const query = { query: sql('select 1') };
    // a bad Authorization header is refused even with a good key in the body
    const header = await s.api('POST', '/api/projects/1/query/', { ...query, personal_api_key: s.key }, 'phx_not_a_key');
    expect(header.body).toEqual({
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request Authorization header is invalid.',
      attr: null,
    });
    // a bad body key is refused even with a good one in the query string
    const body = await s.api('POST', `/api/projects/1/query/?personal_api_key=${s.key}`, { ...query, personal_api_key: 'phx_not_a_key' }, null);
    expect([body.status, body.body.detail]).toEqual([401, 'Personal API key found in request body is invalid.']);
    // a good body key wins over a bad query-string one
    expect((await s.api('POST', '/api/projects/1/query/?personal_api_key=phx_not_a_key', { ...query, personal_api_key: s.key }, null)).status).toBe(200);
  });

  it('TestPersonalAPIKeysWithScopeAPIAuthentication: a read scope does not grant write (test_works_with_routes_missing_action_annotations); write implies read', async () => {
    const made = await s.api('POST', '/api/projects/1/insights/', { name: 'scoped write', query: trends });
    expect(made.status).toBe(201);
    const read = await newKey(s, ['insight:read']);
    expect((await s.api('GET', `/api/projects/1/insights/${made.body.id}/`, undefined, read)).status).toBe(200);
    const patch = await s.api('PATCH', `/api/projects/1/insights/${made.body.id}/`, {}, read);
    expect([patch.status, patch.body]).toEqual([
      403,
      { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'insight:write'", attr: null },
    ]);
    const write = await newKey(s, ['insight:write']);
    expect((await s.api('GET', `/api/projects/1/insights/${made.body.id}/`, undefined, write)).status).toBe(200);
    expect((await s.api('PATCH', `/api/projects/1/insights/${made.body.id}/`, { name: 'renamed' }, write)).status).toBe(200);
    // an unrelated scope grants nothing here: the route's own scope is named
    const other = await newKey(s, ['feature_flag:write']);
    expect((await s.api('GET', '/api/projects/1/insights/', undefined, other)).body.detail).toBe("API key missing required scope 'insight:read'");
  });

  it('test_no_key / a deleted key: 401 not_authenticated without credentials; a deleted key is invalid wherever it is sent', async () => {
    const none = await s.api('GET', '/api/projects/1/insights/', undefined, null);
    expect([none.status, none.body]).toEqual([
      401,
      { type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null },
    ]);
    const made = await s.api('POST', '/api/personal_api_keys/', { label: 'to delete', scopes: ['insight:read'] });
    const key = made.body.value as string;
    expect((await s.api('GET', '/api/projects/1/insights/', undefined, key)).status).toBe(200);
    expect((await s.api('DELETE', `/api/personal_api_keys/${made.body.id}/`)).status).toBe(204);
    const header = await s.api('GET', '/api/projects/1/insights/', undefined, key);
    expect([header.status, header.body]).toEqual([
      401,
      { type: 'authentication_error', code: 'authentication_failed', detail: 'Personal API key found in request Authorization header is invalid.', attr: null },
    ]);
    const qs = await s.api('GET', `/api/projects/1/insights/?personal_api_key=${key}`, undefined, null);
    expect([qs.status, qs.body.detail]).toEqual([401, 'Personal API key found in request query string is invalid.']);
    // the deleted key is gone from the list and from retrieve
    expect((await s.api('GET', `/api/personal_api_keys/${made.body.id}/`)).status).toBe(404);
  });

  it('test_denies_access_to_non_team_endpoints_if_scoped_teams: a project-scoped key on a route outside projects is a 403', async () => {
    const key = await newKey(s, ['personal_api_key:read', 'insight:read'], { scoped_teams: [1] });
    expect((await s.api('GET', '/api/projects/1/insights/', undefined, key)).status).toBe(200);
    const r = await s.api('GET', '/api/personal_api_keys/', undefined, key);
    expect([r.status, r.body]).toEqual([
      403,
      { type: 'authentication_error', code: 'permission_denied', detail: 'API keys with scoped projects are only supported on project-based endpoints.', attr: null },
    ]);
    const ok = await newKey(s, ['personal_api_key:read', 'insight:read'], { scoped_teams: [] });
    expect((await s.api('GET', '/api/personal_api_keys/', undefined, ok)).status).toBe(200);
  });

  it('test_list_only_user_personal_api_keys: another user’s keys are neither listed nor reachable by id', async () => {
    const services = s.server.services;
    const other = await services.store.users.save(services.store.users.create({ email: 'abc@def.xyz', name: 'Other' }));
    const theirs = await services.keys.issuePersonal(other.id, { label: 'Other test', scopes: ['*'], scoped_teams: null });
    const mine = await s.api('GET', '/api/personal_api_keys/');
    expect(mine.body.map((k: { id: string }) => k.id)).not.toContain(theirs.id);
    expect(mine.body.every((k: { user_id: number }) => k.user_id === 1)).toBe(true);
    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', 'roll/']] as const) {
      const r = await s.api(method, `/api/personal_api_keys/${theirs.id}/${path}`, method === 'PATCH' ? { label: 'mine now' } : undefined);
      expect([method, r.status]).toEqual([method, 404]);
    }
    const own = await s.api('GET', '/api/personal_api_keys/', undefined, theirs.value);
    expect(own.body.map((k: { id: string; label: string; value: null }) => [k.id, k.label, k.value])).toEqual([[theirs.id, 'Other test', null]]);
  });

  it('test_list_only_user_personal_api_keys: the list is a bare array of the serializer’s records, not a page; limit and offset change nothing', async () => {
    const services = s.server.services;
    const other = await services.store.users.save(services.store.users.create({ email: 'list@def.xyz', name: 'Lister' }));
    const theirs = await services.keys.issuePersonal(other.id, { label: 'Test', scopes: ['*'], scoped_teams: null });
    const second = await services.keys.issuePersonal(other.id, { label: 'Second', scopes: ['personal_api_key:read'], scoped_teams: null });
    const r = await s.api('GET', '/api/personal_api_keys', undefined, theirs.value);
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body).toHaveLength(2);
    const mine = r.body.find((k: { id: string }) => k.id === theirs.id);
    expect(Object.keys(mine).sort()).toEqual(
      ['created_at', 'id', 'label', 'last_rolled_at', 'last_used_at', 'mask_value', 'scoped_organizations', 'scoped_teams', 'scopes', 'user_id', 'value'],
    );
    expect(mine).toMatchObject({ id: theirs.id, label: 'Test', user_id: other.id, scopes: ['*'], value: null, last_rolled_at: null, mask_value: `${theirs.value!.slice(0, 4)}...${theirs.value!.slice(-4)}` });
    // DRF pages only through a pagination class; this viewset has none, so the paging parameters are just ignored
    const paged = await s.api('GET', '/api/personal_api_keys/?limit=1&offset=1', undefined, second.value);
    expect(paged.body.map((k: { id: string }) => k.id).sort()).toEqual([theirs.id, second.id].sort());
    // test_get_someone_elses_personal_api_key: the bootstrap user's key is another user's here, DRF's not_found_response
    const bootstrapKey = (await s.api('GET', '/api/personal_api_keys/')).body.find((k: { label: string }) => k.label === 'bootstrap');
    const foreign = await s.api('GET', `/api/personal_api_keys/${bootstrapKey.id}/`, undefined, theirs.value);
    expect([foreign.status, foreign.body]).toEqual([404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null }]);
  });

  it.each(['insight', 'insight:', ':read', 'insight:read:write', '**', 'INSIGHT:READ'])('validate_scopes: %j is “Invalid scope: …”', async (scope) => {
    const r = await s.api('POST', '/api/personal_api_keys/', { label: 'bad scope', scopes: [scope] });
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: `Invalid scope: ${scope}`, attr: 'scopes' }]);
  });

  it('the value is shown once: create has it (phx_, its mask the first and last four characters); list and retrieve have null', async () => {
    const made = await s.api('POST', '/api/personal_api_keys/', { label: 'once', scopes: ['*'] });
    expect(made.status).toBe(201);
    const value = made.body.value as string;
    expect(value.startsWith('phx_')).toBe(true);
    expect(made.body.mask_value).toBe(`${value.slice(0, 4)}...${value.slice(-4)}`);
    const one = await s.api('GET', `/api/personal_api_keys/${made.body.id}/`);
    expect([one.body.value, one.body.mask_value, one.body.scopes]).toEqual([null, made.body.mask_value, ['*']]);
    const list = await s.api('GET', '/api/personal_api_keys/');
    expect(list.body.find((k: { id: string }) => k.id === made.body.id).value).toBeNull();
    expect(list.text).not.toContain(value);
  });
});

describe('endpoints (products/endpoints/backend/tests/test_endpoint.py, reference §1.1, §1.4, §1.5)', () => {
  let p: number;
  const ep = () => `/api/environments/${p}/endpoints`;
  beforeAll(async () => {
    p = await newProject(s, 'rest-compat-6 endpoints');
  });

  it.each(['my endpoint', 'my.endpoint', '_leading_underscore', '-leading-hyphen', 'name/with/slash', ''])('an invalid name %j → 400 naming the rule', async (name) => {
    const r = await s.api('POST', `${ep()}/`, { name, query: sql('select 1') });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: `Invalid name '${name}'. Must start with a letter, followed by letters, numbers, hyphens or underscores, and be at most 128 characters.`,
      attr: 'name',
    });
  });

  it.each(['A', 'a-b_c', 'Daily-Signups_2', 'a'.repeat(128)])('a valid name %s → 201, its run path named after it', async (name) => {
    const r = await s.api('POST', `${ep()}/`, { name, query: sql('select 1 as one') });
    expect([r.status, r.body.name, r.body.endpoint_path]).toEqual([201, name, `/api/environments/${p}/endpoints/${name}/run`]);
    expect((await s.api('POST', `${ep()}/${name}/run/`, {})).body.results).toEqual([[1]]);
  });

  it('names are unique among live endpoints only: a deleted endpoint’s name is free again, and starts at version 1', async () => {
    await s.api('POST', `${ep()}/`, { name: 'reused', query: sql('select 1 as one') });
    await s.api('PATCH', `${ep()}/reused/`, { query: sql('select 2 as one') });
    expect((await s.api('DELETE', `${ep()}/reused/`)).status).toBe(204);
    const again = await s.api('POST', `${ep()}/`, { name: 'reused', query: sql('select 3 as one') });
    expect([again.status, again.body.current_version, again.body.versions_count]).toEqual([201, 1, 1]);
    expect((await s.api('POST', `${ep()}/reused/run/`, {})).body).toMatchObject({ results: [[3]], endpoint_version: 1 });
    // and a PATCH-delete frees it the same way
    expect((await s.api('PATCH', `${ep()}/reused/`, { deleted: true })).body).toEqual({ success: true });
    expect((await s.api('POST', `${ep()}/`, { name: 'reused', query: sql('select 4 as one') })).status).toBe(201);
  });

  it('a new version inherits the description and freshness; a description sent with the query is the new version’s only', async () => {
    await s.api('POST', `${ep()}/`, { name: 'inherits', query: sql('select 1 as one'), description: 'first', data_freshness_seconds: 3600 });
    const v2 = await s.api('PATCH', `${ep()}/inherits/`, { query: sql('select 2 as one') });
    expect(v2.body).toMatchObject({ current_version: 2, description: 'first', data_freshness_seconds: 3600 });
    const v3 = await s.api('PATCH', `${ep()}/inherits/`, { query: sql('select 3 as one'), description: 'third' });
    expect(v3.body).toMatchObject({ current_version: 3, description: 'third', data_freshness_seconds: 3600 });
    expect((await s.api('GET', `${ep()}/inherits/?version=2`)).body).toMatchObject({ version: 2, description: 'first', data_freshness_seconds: 3600 });
    expect((await s.api('GET', `${ep()}/inherits/?version=1`)).body).toMatchObject({ version: 1, description: 'first' });
  });

  it('is_materialized on an inactive endpoint: “Cannot enable materialization on inactive endpoint.” before anything else (reference §1.4)', async () => {
    await s.api('POST', `${ep()}/`, { name: 'sleeping', query: sql('select 1 as one'), is_active: false });
    const refused = { type: 'validation_error', code: 'invalid_input', detail: 'Cannot enable materialization on inactive endpoint.', attr: 'is_materialized' };
    expect((await s.api('PATCH', `${ep()}/sleeping/`, { is_materialized: true })).body).toEqual(refused);
    // deactivating and materializing in one body is the same
    await s.api('POST', `${ep()}/`, { name: 'awake', query: sql('select 1 as one') });
    expect((await s.api('PATCH', `${ep()}/awake/`, { is_active: false, is_materialized: true })).body).toEqual(refused);
    expect((await s.api('POST', `${ep()}/`, { name: 'born_sleeping', query: sql('select 1 as one'), is_active: false, is_materialized: true })).body).toEqual(refused);
    // nothing changed; turning materialization off is fine
    expect((await s.api('GET', `${ep()}/awake/`)).body.is_active).toBe(true);
    expect((await s.api('PATCH', `${ep()}/sleeping/`, { is_materialized: false })).status).toBe(200);
  });

  it('last_executed_at: set by an API-key run on the endpoint and on the version that ran, not on the others', async () => {
    await s.api('POST', `${ep()}/`, { name: 'executed', query: sql('select 1 as one') });
    await s.api('PATCH', `${ep()}/executed/`, { query: sql('select 2 as one') });
    expect((await s.api('GET', `${ep()}/executed/`)).body.last_executed_at).toBeNull();
    expect((await s.api('POST', `${ep()}/executed/run/`, { version: 1 })).body.results).toEqual([[1]]);
    const endpoint = (await s.api('GET', `${ep()}/executed/`)).body;
    const v1 = (await s.api('GET', `${ep()}/executed/?version=1`)).body;
    const v2 = (await s.api('GET', `${ep()}/executed/?version=2`)).body;
    expect(endpoint.last_executed_at).not.toBeNull();
    expect([v1.last_executed_at !== null, v2.last_executed_at]).toEqual([true, null]);
  });

  it('last_executed_at has a 30-minute granularity (reference §1.1): a run 10 minutes later leaves it, one 31 minutes later moves it', async () => {
    await s.api('POST', `${ep()}/`, { name: 'granular', query: sql('select 1 as one') });
    const executed = async () => (await s.api('GET', `${ep()}/granular/`)).body.last_executed_at as string | null;
    const realNow = Date.now.bind(Date);
    let shift = 0;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
    try {
      expect((await s.api('POST', `${ep()}/granular/run/`, {})).status).toBe(200);
      const first = await executed();
      expect(first).not.toBeNull();
      shift = 10 * 60_000;
      expect((await s.api('POST', `${ep()}/granular/run/`, { refresh: 'force' })).status).toBe(200);
      expect(await executed()).toBe(first);
      shift = 31 * 60_000;
      expect((await s.api('POST', `${ep()}/granular/run/`, { refresh: 'force' })).status).toBe(200);
      expect(Date.parse((await executed())!) - Date.parse(first!)).toBeGreaterThanOrEqual(31 * 60_000 - 1000);
    } finally {
      clock.mockRestore();
    }
  });
});

describe('endpoint runs (products/endpoints execution tests, reference §1.6)', () => {
  it('EndpointRunRequest’s optional fields take null as their default: refresh null is cache, query_override null is none', async () => {
    const p = await newProject(s, 'rest-compat-6 run nulls');
    const ep = `/api/environments/${p}/endpoints`;
    expect((await s.api('POST', `${ep}/`, { name: 'nulls', query: sql('select 1 as one') })).status).toBe(201);
    const nulls = { variables: null, version: null, limit: null, offset: null, refresh: null, client_query_id: null, debug: null, filters_override: null, query_override: null };
    const first = await s.api('POST', `${ep}/nulls/run/`, nulls);
    expect([first.status, first.body.results, first.body.is_cached, first.body.endpoint_version]).toEqual([200, [[1]], false, 1]);
    expect((await s.api('POST', `${ep}/nulls/run/`, nulls)).body.is_cached).toBe(true);
    // a value is still checked, and query_override is still refused when given
    expect((await s.api('POST', `${ep}/nulls/run/`, { refresh: 'blocking' })).body.attr).toBe('refresh');
    expect((await s.api('POST', `${ep}/nulls/run/`, { query_override: { kind: 'HogQLQuery', query: 'select 2' } })).body.attr).toBe('query_override');
  });
});

describe('insights (test_insight.py, reference §2.2, §2.3)', () => {
  let p: number;
  const ins = () => `/api/projects/${p}/insights`;
  const names = async (qs: string) => (await s.api('GET', `${ins()}/?basic=true&${qs}`)).body.results.map((i: { name: string }) => i.name).sort();
  beforeAll(async () => {
    p = await newProject(s, 'rest-compat-6 insights');
  });

  it('test_create_insight_items: a filters-only insight, saved as given, no description, no tags, an 8-character short_id', async () => {
    const filters = { events: [{ id: '$pageview' }], date_from: '-90d' };
    const r = await s.api('POST', `${ins()}/`, { filters, name: 'a created dashboard' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'a created dashboard', description: null, tags: [], filters });
    expect(r.body.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
  });

  it('saved (deprecated): saved=false lists the unsaved only, saved=true the saved; any update saves the insight', async () => {
    const draft = await s.api('POST', `${ins()}/`, { name: 'draft', query: trends, saved: false });
    await s.api('POST', `${ins()}/`, { name: 'kept', query: trends });
    expect([draft.status, draft.body.saved]).toEqual([201, false]);
    expect(await names('saved=false')).toEqual(['draft']);
    expect(await names('saved=true')).toEqual(expect.arrayContaining(['kept']));
    expect(await names('saved=true')).not.toContain('draft');
    const upd = await s.api('PATCH', `${ins()}/${draft.body.id}/`, { description: 'now saved' });
    expect([upd.status, upd.body.saved]).toEqual([200, true]);
    expect(await names('saved=false')).toEqual([]);
  });
});

describe('query API (test_query.py, reference §9.1 QueryRequest)', () => {
  it('the optional envelope fields take null as their default: refresh null is blocking', async () => {
    const p = await newProject(s, 'rest-compat-6 query nulls');
    const body = { query: sql('select 7 as seven'), refresh: null, client_query_id: null, name: null, async: null, limit_context: null, filters_override: null, variables_override: null };
    const first = await s.api('POST', `/api/projects/${p}/query/`, body);
    expect([first.status, first.body.results, first.body.is_cached]).toEqual([200, [[7]], false]);
    // blocking: a fresh cached answer is served
    expect((await s.api('POST', `/api/projects/${p}/query/`, body)).body.is_cached).toBe(true);
    // a wrong value is still a 400 naming the field
    expect((await s.api('POST', `/api/projects/${p}/query/`, { query: sql('select 1'), refresh: 'sometimes' })).body.attr).toBe('refresh');
  });

  it('test_full_hogql_query_limit: a query without LIMIT returns the default 100 rows (DEFAULT_RETURNED_ROWS), with hasMore', async () => {
    const r = await s.api('POST', '/api/projects/1/query/', { query: sql('select number from numbers(150)') });
    expect(r.status).toBe(200);
    expect([r.body.results.length, r.body.hasMore, r.body.limit]).toEqual([100, true, 100]);
    expect(r.body.results.at(-1)).toEqual([99]);
  });
});

describe('query API (test_query.py TestQueryRetrieve, reference §9.2)', () => {
  it('another project’s query id is a 404 for status; its cancel is a 204 that touches nothing (cancel_query); the owner still sees it', async () => {
    const mine = await newProject(s, 'rest-compat-6 query owner');
    const other = await newProject(s, 'rest-compat-6 query other');
    const started = await s.api('POST', `/api/projects/${mine}/query/`, { query: sql('select 1'), client_query_id: 'compat6-owned', refresh: 'force_async' });
    expect([started.status, started.body.query_status.id]).toEqual([202, 'compat6-owned']);
    await s.server.services.queries.async.wait('compat6-owned');
    const r = await s.api('GET', `/api/projects/${other}/query/compat6-owned/`);
    expect([r.status, r.body.code]).toEqual([404, 'not_found']);
    expect((await s.api('DELETE', `/api/projects/${other}/query/compat6-owned/`)).status).toBe(204);
    const own = await s.api('GET', `/api/projects/${mine}/query/compat6-owned/`);
    expect([own.status, own.body.query_status.complete, own.body.query_status.results.results]).toEqual([200, true, [[1]]]);
  });
});

describe('rate limits (test_rate_limit.py, reference §5.1)', () => {
  let r: TestServer;
  beforeAll(async () => {
    r = await startServer({
      env: {
        QUARRY_RATE_LIMIT_ENABLED: 'true',
        QUARRY_RATE_LIMITS: JSON.stringify({ default: { burst: 50, sustained: 500 }, analytics: { burst: 3, sustained: 500 }, endpoint_run: { burst: 3, sustained: 500 } }),
      },
    });
  });
  afterAll(() => r.close());

  it('test_clickhouse_burst_rate_limit: insights are throttled with the ClickHouse class for every action, CRUD included', async () => {
    const key = await newKey(r, ['insight:write', 'project:read']);
    const made = await r.api('POST', '/api/projects/1/insights/', { name: 'limited', query: trends }, key);
    expect(made.status).toBe(201);
    expect((await r.api('PATCH', `/api/projects/1/insights/${made.body.id}/`, { name: 'renamed' }, key)).status).toBe(200);
    expect((await r.api('GET', `/api/projects/1/insights/${made.body.id}/`, undefined, key)).status).toBe(200);
    const throttled = await r.api('GET', '/api/projects/1/insights/', undefined, key);
    expect(throttled.status).toBe(429);
    expect(throttled.body).toMatchObject({ type: 'throttled_error', code: 'throttled', attr: null });
    expect(throttled.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds?\.$/);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // the default (burst) class keeps its own budget
    expect((await r.api('GET', '/api/projects/', undefined, key)).status).toBe(200);
  });

  it('project secret keys: each key has a budget and the project’s keys share one (psak:{key_id} and psak-team:{team_id})', async () => {
    const projectOf = async (name: string) => {
      const id = (await r.api('POST', '/api/projects/', { name })).body.id as number;
      expect((await r.api('POST', `/api/environments/${id}/endpoints/`, { name: 'limited', query: sql('select 1 as one') })).status).toBe(201);
      const secret = async () => (await r.api('POST', `/api/environments/${id}/project_secret_api_keys/`, { label: 'run', scopes: ['endpoint:read'] })).body.value as string;
      return { id, a: await secret(), b: await secret() };
    };
    const one = await projectOf('rest-compat-6 psak one');
    const two = await projectOf('rest-compat-6 psak two');
    const run = (p: { id: number }, key: string) => r.api('POST', `/api/environments/${p.id}/endpoints/limited/run/`, {}, key);
    expect((await run(one, one.a)).status).toBe(200);
    expect((await run(one, one.a)).status).toBe(200);
    expect((await run(one, one.b)).status).toBe(200);
    // key b has used one run of its own, but the project's keys have used the project's three
    const refused = await run(one, one.b);
    expect([refused.status, refused.body.code]).toEqual([429, 'throttled']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // another project's keys are not affected
    expect((await run(two, two.a)).status).toBe(200);
  });
});
