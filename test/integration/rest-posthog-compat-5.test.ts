/**
 * The REST surface against PostHog's API tests, fifth batch (the earlier ones are rest-posthog-compat.test.ts, -2, -3
 * and -4): products/endpoints tests (list filters, per-version settings, targeting a version, freshness defaults,
 * insight endpoint runs), posthog/api/test/test_personal_api_keys.py (rolling a key), the project secret API key
 * tests (retrieve, update, roll, PostHog's allowed scopes) and test_query.py (the deprecated `async` flag). Each case
 * names the PostHog test or the reference section it ports. The insight endpoint runs read the engine: they live in
 * test/helpers/rest-compat-5.ts and run on ClickHouse too (rest-posthog-compat-5.clickhouse.test.ts).
 */
import { describeRestCompat5EndpointRuns } from '../helpers/rest-compat-5';
import { newKey, newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;

const sql = (query: string) => ({ kind: 'HogQLQuery', query });

beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

// insight endpoint runs on DuckDB (ClickHouse: rest-posthog-compat-5.clickhouse.test.ts)
describeRestCompat5EndpointRuns('DuckDB', () => s);

describe('endpoints (products/endpoints/backend/tests/test_endpoint.py, reference §1.3–§1.5)', () => {
  let p: number;
  const ep = () => `/api/environments/${p}/endpoints`;
  const names = async (qs: string) => {
    const r = await s.api('GET', `${ep()}/?${qs}`);
    expect(r.status).toBe(200);
    return r.body.results.map((e: { name: string }) => e.name).sort();
  };
  beforeAll(async () => {
    p = await newProject(s, 'rest-compat-5 endpoints');
  });

  it('list filters is_active and created_by', async () => {
    await s.api('POST', `${ep()}/`, { name: 'live_one', query: sql('select 1 as one') });
    const off = await s.api('POST', `${ep()}/`, { name: 'off_one', query: sql('select 2 as two'), is_active: false });
    expect([off.status, off.body.is_active]).toEqual([201, false]);
    expect(await names('is_active=true')).toEqual(['live_one']);
    expect(await names('is_active=false')).toEqual(['off_one']);
    expect(await names('created_by=1')).toEqual(['live_one', 'off_one']);
    expect(await names('created_by=4242')).toEqual([]);
    // an endpoint created inactive is readable but does not run
    expect((await s.api('GET', `${ep()}/off_one/`)).status).toBe(200);
    expect((await s.api('POST', `${ep()}/off_one/run/`, {})).body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
  });

  it('names are unique per project: the same name in another project is another endpoint, invisible from here', async () => {
    const other = await newProject(s, 'rest-compat-5 endpoints other');
    expect((await s.api('POST', `${ep()}/`, { name: 'shared_name', query: sql('select 1 as one') })).status).toBe(201);
    expect((await s.api('POST', `/api/environments/${other}/endpoints/`, { name: 'shared_name', query: sql('select 2 as two') })).status).toBe(201);
    expect((await s.api('POST', `${ep()}/shared_name/run/`, {})).body.results).toEqual([[1]]);
    expect((await s.api('POST', `/api/projects/${other}/endpoints/shared_name/run/`, {})).body.results).toEqual([[2]]);
    await s.api('DELETE', `/api/environments/${other}/endpoints/shared_name/`);
    expect((await s.api('GET', `/api/environments/${other}/endpoints/shared_name/`)).status).toBe(404);
    expect((await s.api('GET', `${ep()}/shared_name/`)).status).toBe(200);
  });

  it('tags and derived_from_insight (a short id, at most 12 characters) are kept and updated', async () => {
    const made = await s.api('POST', `${ep()}/`, { name: 'tagged', query: sql('select 1 as one'), tags: ['a', 'b'], derived_from_insight: 'AbCd1234' });
    expect([made.status, made.body.tags, made.body.derived_from_insight]).toEqual([201, ['a', 'b'], 'AbCd1234']);
    const upd = await s.api('PATCH', `${ep()}/tagged/`, { tags: ['c'] });
    expect([upd.body.tags, upd.body.derived_from_insight, upd.body.current_version]).toEqual([['c'], 'AbCd1234', 1]);
    const long = await s.api('POST', `${ep()}/`, { name: 'long_insight', query: sql('select 1 as one'), derived_from_insight: 'x'.repeat(13) });
    expect([long.status, long.body.attr]).toEqual([400, 'derived_from_insight']);
  });

  it('run: endpoint_version_created_at is the version’s creation time as Python’s isoformat (+00:00)', async () => {
    await s.api('POST', `${ep()}/`, { name: 'created_at_fmt', query: sql('select 1 as one') });
    const v1 = (await s.api('GET', `${ep()}/created_at_fmt/?version=1`)).body;
    const r = await s.api('POST', `${ep()}/created_at_fmt/run/`, {});
    expect(r.body.endpoint_version_created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
    expect(Date.parse(r.body.endpoint_version_created_at)).toBe(Date.parse(v1.version_created_at));
    // the same text from a cached answer
    const again = await s.api('POST', `${ep()}/created_at_fmt/run/`, {});
    expect([again.body.is_cached, again.body.endpoint_version_created_at]).toEqual([true, r.body.endpoint_version_created_at]);
  });

  it('the list pages as DRF’s LimitOffsetPagination: count, absolute next/previous, limit and offset', async () => {
    const q = await newProject(s, 'rest-compat-5 endpoints paging');
    for (const n of ['p1', 'p2', 'p3']) expect((await s.api('POST', `/api/environments/${q}/endpoints/`, { name: n, query: sql('select 1 as one') })).status).toBe(201);
    const first = await s.api('GET', `/api/environments/${q}/endpoints/?limit=2`);
    expect([first.body.count, first.body.results.length, first.body.previous]).toEqual([3, 2, null]);
    const next = new URL(first.body.next);
    expect([next.pathname, next.searchParams.get('limit'), next.searchParams.get('offset')]).toEqual([`/api/environments/${q}/endpoints/`, '2', '2']);
    const second = await s.api('GET', next.pathname + next.search);
    expect([second.body.count, second.body.results.length, second.body.next]).toEqual([3, 1, null]);
    expect(second.body.previous).not.toBeNull();
    const all = [...first.body.results, ...second.body.results].map((e: { name: string }) => e.name).sort();
    expect(all).toEqual(['p1', 'p2', 'p3']);
  });

  it('data_freshness_seconds null means the default, 86400, on create and on update', async () => {
    const made = await s.api('POST', `${ep()}/`, { name: 'fresh_default', query: sql('select 1 as one'), data_freshness_seconds: null });
    expect([made.status, made.body.data_freshness_seconds]).toEqual([201, 86400]);
    expect((await s.api('PATCH', `${ep()}/fresh_default/`, { data_freshness_seconds: 3600 })).body.data_freshness_seconds).toBe(3600);
    const back = await s.api('PATCH', `${ep()}/fresh_default/`, { data_freshness_seconds: null });
    expect([back.status, back.body.data_freshness_seconds]).toEqual([200, 86400]);
  });

  it('a new version only for a changed query: the same query with its keys in another order is no change', async () => {
    const q = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }], interval: 'day', dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' } };
    expect((await s.api('POST', `${ep()}/`, { name: 'key_order', query: q })).status).toBe(201);
    const reordered = { dateRange: { date_to: '2024-01-02', date_from: '2024-01-01' }, interval: 'day', series: [{ math: 'total', event: '$pageview', kind: 'EventsNode' }], kind: 'TrendsQuery' };
    const same = await s.api('PATCH', `${ep()}/key_order/`, { query: reordered });
    expect([same.status, same.body.current_version, same.body.versions_count]).toEqual([200, 1, 1]);
    const changed = await s.api('PATCH', `${ep()}/key_order/`, { query: { ...q, interval: 'hour' } });
    expect([changed.body.current_version, changed.body.versions_count]).toEqual([2, 2]);
  });

  it('description and freshness without a query change apply to the current version only', async () => {
    await s.api('POST', `${ep()}/`, { name: 'per_version', query: sql('select 1 as one'), description: 'first' });
    await s.api('PATCH', `${ep()}/per_version/`, { query: sql('select 2 as two') });
    const upd = await s.api('PATCH', `${ep()}/per_version/`, { description: 'second', data_freshness_seconds: 900 });
    expect(upd.body).toMatchObject({ current_version: 2, versions_count: 2, description: 'second', data_freshness_seconds: 900 });
    expect((await s.api('GET', `${ep()}/per_version/?version=1`)).body).toMatchObject({ version: 1, description: 'first', data_freshness_seconds: 86400 });
    expect((await s.api('GET', `${ep()}/per_version/?version=2`)).body).toMatchObject({ version: 2, description: 'second', data_freshness_seconds: 900 });
    // targeting version 1 changes version 1 only
    const v1 = await s.api('PATCH', `${ep()}/per_version/?version=1`, { description: 'first, edited' });
    expect(v1.body).toMatchObject({ version: 1, description: 'first, edited' });
    expect((await s.api('GET', `${ep()}/per_version/`)).body.description).toBe('second');
  });

  it('targeting a version on update: the body’s version wins over ?version; an unknown one is a 400 naming version', async () => {
    await s.api('POST', `${ep()}/`, { name: 'targeted', query: sql('select 1 as one') });
    await s.api('PATCH', `${ep()}/targeted/`, { query: sql('select 2 as two') });
    const r = await s.api('PATCH', `${ep()}/targeted/?version=2`, { version: 1, description: 'one' });
    expect([r.status, r.body.version, r.body.description]).toEqual([200, 1, 'one']);
    expect((await s.api('GET', `${ep()}/targeted/?version=2`)).body.description).toBe('');
    for (const [path, body] of [
      [`${ep()}/targeted/?version=9`, { description: 'x' }],
      [`${ep()}/targeted/`, { version: 9, description: 'x' }],
    ] as const) {
      const bad = await s.api('PATCH', path, body);
      expect([bad.status, bad.body.type, bad.body.attr]).toEqual([400, 'validation_error', 'version']);
    }
    // targeting the current version with its own query is no change, so no new version
    const same = await s.api('PATCH', `${ep()}/targeted/`, { version: 2, query: sql('select 2 as two'), is_active: false });
    expect([same.status, same.body.version, same.body.is_active, same.body.current_version]).toEqual([200, 2, false, 2]);
    // the endpoint stays active; its current version does not run
    const run = await s.api('POST', `${ep()}/targeted/run/`, {});
    expect([run.status, run.body.detail]).toEqual([400, 'Version 2 is inactive and cannot be executed.']);
    expect((await s.api('POST', `${ep()}/targeted/run/`, { version: 1 })).body.results).toEqual([[1]]);
  });
});

describe('optional_breakdown_properties (products/endpoints tests, reference §1.1, §1.4)', () => {
  let p: number;
  const ep = () => `/api/environments/${p}/endpoints`;
  const trends = (breakdownFilter: Record<string, unknown> | undefined, kind = 'TrendsQuery'): Record<string, unknown> => ({
    kind,
    series: [{ kind: 'EventsNode', event: '$pageview' }],
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' },
    ...(breakdownFilter ? { breakdownFilter } : {}),
  });
  beforeAll(async () => {
    p = await newProject(s, 'rest-compat-5 optional breakdowns');
  });

  it('kept per version for a breakdown of a TrendsQuery; the run without that variable answers across its values', async () => {
    const made = await s.api('POST', `${ep()}/`, { name: 'opt', query: trends({ breakdown: '$browser' }), optional_breakdown_properties: ['$browser'] });
    expect([made.status, made.body.optional_breakdown_properties]).toEqual([201, ['$browser']]);
    expect((await s.api('GET', `${ep()}/opt/`)).body.optional_breakdown_properties).toEqual(['$browser']);
    expect((await s.api('POST', `${ep()}/opt/run/`, {})).status).toBe(200);
    // a new version with the same breakdown inherits them; an explicit empty list clears them
    const v2 = await s.api('PATCH', `${ep()}/opt/`, { query: { ...trends({ breakdown: '$browser' }), interval: 'hour' } });
    expect([v2.body.current_version, v2.body.optional_breakdown_properties]).toEqual([2, ['$browser']]);
    const cleared = await s.api('PATCH', `${ep()}/opt/`, { optional_breakdown_properties: [] });
    expect(cleared.body.optional_breakdown_properties).toEqual([]);
    expect((await s.api('GET', `${ep()}/opt/?version=1`)).body.optional_breakdown_properties).toEqual(['$browser']);
    // a default endpoint has none
    expect((await s.api('POST', `${ep()}/`, { name: 'none', query: trends({ breakdown: '$os' }) })).body.optional_breakdown_properties).toEqual([]);
  });

  it.each([
    ['not a breakdown of the query', { name: 'bad1', query: trends({ breakdown: '$browser' }), optional_breakdown_properties: ['$os'] }],
    ['a query without breakdown', { name: 'bad2', query: trends(undefined), optional_breakdown_properties: ['$browser'] }],
    ['a HogQL endpoint', { name: 'bad3', query: sql('select 1 as one'), optional_breakdown_properties: ['$browser'] }],
    [
      'a kind that does not take them',
      { name: 'bad4', query: { ...trends({ breakdown: '$browser' }, 'FunnelsQuery'), series: [{ kind: 'EventsNode', event: 'a' }, { kind: 'EventsNode', event: 'b' }] }, optional_breakdown_properties: ['$browser'] },
    ],
  ])('%s → 400 naming optional_breakdown_properties', async (_n, body) => {
    const r = await s.api('POST', `${ep()}/`, body);
    expect([r.status, r.body.type, r.body.attr]).toEqual([400, 'validation_error', 'optional_breakdown_properties']);
  });
});

describe('endpoint run debug (products/endpoints execution tests, reference §1.6)', () => {
  it('debug: true adds what a plain run drops (cache_key, timings, hogql, resolved_date_range)', async () => {
    const p = await newProject(s, 'rest-compat-5 debug');
    const trends = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' } };
    expect((await s.api('POST', `/api/environments/${p}/endpoints/`, { name: 'dbg', query: trends })).status).toBe(201);
    const plain = await s.api('POST', `/api/environments/${p}/endpoints/dbg/run/`, {});
    expect(plain.status).toBe(200);
    for (const k of ['cache_key', 'timings', 'hogql', 'resolved_date_range', 'modifiers', 'calculation_trigger', 'explain']) expect(plain.body).not.toHaveProperty(k);
    const debug = await s.api('POST', `/api/environments/${p}/endpoints/dbg/run/`, { debug: true });
    expect(debug.status).toBe(200);
    expect(debug.body.cache_key).toMatch(/^cache_/);
    expect(typeof debug.body.hogql).toBe('string');
    expect(debug.body).toHaveProperty('timings');
    expect(debug.body.resolved_date_range).toEqual({ date_from: '2024-01-01T00:00:00Z', date_to: '2024-01-03T23:59:59.999999Z' });
    expect(debug.body.results).toEqual(plain.body.results);
  });
});

describe('personal API keys (test_personal_api_keys.py)', () => {
  it('test_header_resilient: extra spaces around the key in the Authorization header are fine', async () => {
    const r = await s.api('GET', '/api/projects/1/insights/', undefined, null, { authorization: `Bearer  ${s.key}  ` });
    expect(r.status).toBe(200);
  });

  it('roll: a new value in the response, last_rolled_at set, the old value refused at once; label and scopes kept', async () => {
    const made = await s.api('POST', '/api/personal_api_keys/', { label: 'to roll', scopes: ['insight:read'] });
    const old = made.body.value as string;
    expect((await s.api('GET', '/api/projects/1/insights/', undefined, old)).status).toBe(200);
    const r = await s.api('POST', `/api/personal_api_keys/${made.body.id}/roll/`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: made.body.id, label: 'to roll', scopes: ['insight:read'], value: expect.stringMatching(/^phx_/) });
    expect(r.body.value).not.toBe(old);
    expect(r.body.mask_value).toBe(`phx_...${r.body.value.slice(-4)}`);
    expect(Date.parse(r.body.last_rolled_at)).toBeGreaterThan(Date.now() - 60_000);
    const refused = await s.api('GET', '/api/projects/1/insights/', undefined, old);
    expect([refused.status, refused.body.code]).toEqual([401, 'authentication_failed']);
    expect((await s.api('GET', '/api/projects/1/insights/', undefined, r.body.value)).status).toBe(200);
    // afterwards the value is never shown again; last_rolled_at stays
    const got = await s.api('GET', `/api/personal_api_keys/${made.body.id}/`);
    expect(got.body).toMatchObject({ value: null, mask_value: r.body.mask_value, last_rolled_at: r.body.last_rolled_at });
  });

  it('roll needs personal_api_key:write; an unknown or revoked key is a 404', async () => {
    const made = (await s.api('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['insight:read'] })).body;
    const reader = await newKey(s, ['personal_api_key:read']);
    const denied = await s.api('POST', `/api/personal_api_keys/${made.id}/roll/`, undefined, reader);
    expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'personal_api_key:write'"]);
    expect((await s.api('POST', '/api/personal_api_keys/00000000-0000-0000-0000-000000000000/roll/')).status).toBe(404);
    await s.api('DELETE', `/api/personal_api_keys/${made.id}/`);
    expect((await s.api('POST', `/api/personal_api_keys/${made.id}/roll/`)).status).toBe(404);
  });
});

describe('project secret API keys (reference §3.3)', () => {
  let p: number;
  const keys = () => `/api/projects/${p}/project_secret_api_keys/`;
  beforeAll(async () => {
    p = await newProject(s, 'rest-compat-5 psak');
    await s.api('POST', `/api/environments/${p}/endpoints/`, { name: 'one', query: sql('select 1 as one') });
  });

  it('retrieve and update: label and scopes; the value is never shown again', async () => {
    const made = (await s.api('POST', keys(), { label: 'server', scopes: ['endpoint:read'] })).body;
    const got = await s.api('GET', `${keys()}${made.id}/`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: made.id, label: 'server', scopes: ['endpoint:read'], mask_value: made.mask_value, value: null, last_rolled_at: null });
    const upd = await s.api('PATCH', `${keys()}${made.id}/`, { label: 'renamed' });
    expect([upd.status, upd.body.label, upd.body.value]).toEqual([200, 'renamed', null]);
    const bad = await s.api('PATCH', `${keys()}${made.id}/`, { scopes: ['*'] });
    expect([bad.status, bad.body.attr]).toEqual([400, 'scopes']);
    // another project's key is not found through this one
    const other = await newProject(s, 'rest-compat-5 psak other');
    expect((await s.api('GET', `/api/projects/${other}/project_secret_api_keys/${made.id}/`)).status).toBe(404);
    // scope project:read to read, project:write to change
    const reader = await newKey(s, ['project:read']);
    expect((await s.api('GET', `${keys()}${made.id}/`, undefined, reader)).status).toBe(200);
    const denied = await s.api('PATCH', `${keys()}${made.id}/`, { label: 'x' }, reader);
    expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'project:write'"]);
  });

  it('roll: a new value once, last_rolled_at set, the old value stops running endpoints at once', async () => {
    const made = (await s.api('POST', keys(), { label: 'rolled', scopes: ['endpoint:read'] })).body;
    const run = (key: string) => s.api('POST', `/api/environments/${p}/endpoints/one/run/`, {}, key);
    expect((await run(made.value)).status).toBe(200);
    const r = await s.api('POST', `${keys()}${made.id}/roll/`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: made.id, label: 'rolled', scopes: ['endpoint:read'], value: expect.stringMatching(/^phs_/) });
    expect(r.body.value).not.toBe(made.value);
    expect(Date.parse(r.body.last_rolled_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await run(made.value)).status).toBe(401);
    expect((await run(r.body.value)).body.results).toEqual([[1]]);
    const listed = (await s.api('GET', keys())).body.results.find((k: { id: string }) => k.id === made.id);
    expect(listed).toMatchObject({ value: null, mask_value: r.body.mask_value, last_rolled_at: r.body.last_rolled_at });
    expect((await s.api('POST', `${keys()}00000000-0000-0000-0000-000000000000/roll/`)).status).toBe(404);
  });

  it('last_used_at: null until the key is used, then set by a run; a deleted key is a 401 and leaves the list', async () => {
    const made = (await s.api('POST', keys(), { label: 'used', scopes: ['endpoint:read'] })).body;
    const lastUsed = async () => (await s.api('GET', `${keys()}${made.id}/`)).body.last_used_at as string | null;
    expect([made.last_used_at, await lastUsed()]).toEqual([null, null]);
    expect((await s.api('POST', `/api/environments/${p}/endpoints/one/run/`, {}, made.value)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50)); // the usage write does not hold up the request
    expect(Date.parse((await lastUsed())!)).toBeGreaterThan(Date.now() - 60_000);
    expect((await s.api('DELETE', `${keys()}${made.id}/`)).status).toBe(204);
    const gone = await s.api('POST', `/api/environments/${p}/endpoints/one/run/`, {}, made.value);
    expect([gone.status, gone.body.type, gone.body.code]).toEqual([401, 'authentication_error', 'authentication_failed']);
    expect((await s.api('GET', `${keys()}${made.id}/`)).status).toBe(404);
    expect((await s.api('GET', keys())).body.results.map((k: { id: string }) => k.id)).not.toContain(made.id);
  });

  it('PostHog’s allowed scope pairs are accepted (feature_flag:read, …); only endpoint:read runs endpoints here', async () => {
    const flags = await s.api('POST', keys(), { label: 'flags', scopes: ['feature_flag:read', 'experiment:read'] });
    expect([flags.status, flags.body.scopes]).toEqual([201, ['feature_flag:read', 'experiment:read']]);
    const r = await s.api('POST', `/api/environments/${p}/endpoints/one/run/`, {}, flags.body.value);
    expect([r.status, r.body.detail]).toEqual([403, "API key missing required scope 'endpoint:read'"]);
    for (const scopes of [['*'], ['endpoint:write'], ['feature_flag:write'], ['insight:read']]) {
      const bad = await s.api('POST', keys(), { label: 'bad', scopes });
      expect([bad.status, bad.body.attr]).toEqual([400, 'scopes']);
    }
  });
});

describe('insight refresh modes (test_insight.py, reference §2.4)', () => {
  let p: number;
  const base = () => `/api/projects/${p}/insights/`;
  const make = async (query: string) => (await s.api('POST', base(), { query: { kind: 'DataVisualizationNode', source: sql(query) } })).body as { id: number };
  beforeAll(async () => {
    p = await newProject(s, 'rest-compat-5 refresh modes');
  });

  it('async_except_on_cache_miss: a miss is computed at once (no query_status); then the fresh result is served', async () => {
    const i = await make('select 5 as five');
    const first = await s.api('GET', `${base()}${i.id}/?refresh=async_except_on_cache_miss`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ result: [[5]], query_status: null, is_cached: false });
    const again = await s.api('GET', `${base()}${i.id}/?refresh=async_except_on_cache_miss`);
    expect(again.body).toMatchObject({ result: [[5]], query_status: null, is_cached: true, last_refresh: first.body.last_refresh });
  });

  it('lazy_async: a miss starts a computation bound to the insight; its result is then the cached one', async () => {
    const i = await make('select 6 as six');
    const started = await s.api('GET', `${base()}${i.id}/?refresh=lazy_async&client_query_id=compat5-lazy`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ result: null, query_status: { id: 'compat5-lazy', complete: false, insight_id: i.id } });
    await s.server.services.queries.async.wait('compat5-lazy');
    const after = await s.api('GET', `${base()}${i.id}/?refresh=lazy_async`);
    expect(after.body).toMatchObject({ result: [[6]], query_status: null, is_cached: true });
  });
});

describe('query API (test_query.py, reference §9.1)', () => {
  it('the deprecated async: true runs as refresh async: a miss answers 202 with a query_status, then the cached answer', async () => {
    const p = await newProject(s, 'rest-compat-5 async flag');
    const body = { query: sql('select 77 as n'), async: true };
    const first = await s.api('POST', `/api/projects/${p}/query/`, body);
    expect(first.status).toBe(202);
    expect(first.body.query_status).toMatchObject({ query_async: true, complete: false, team_id: p });
    await s.server.services.queries.async.wait(first.body.query_status.id);
    const second = await s.api('POST', `/api/projects/${p}/query/`, body);
    expect(second.status).toBe(200);
    expect([second.body.results, second.body.is_cached]).toEqual([[[77]], true]);
    const named = await s.api('POST', `/api/projects/${p}/query/`, { query: sql('select 1'), name: 'n'.repeat(129) });
    expect([named.status, named.body.attr]).toEqual([400, 'name']);
  });
});

describe('rate limits (test_rate_limit.py, reference §5.1)', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startServer({ env: { QUARRY_RATE_LIMIT_ENABLED: 'true', QUARRY_RATE_LIMITS: JSON.stringify({ default: { burst: 2, sustained: 100 } }) } });
  });
  afterAll(() => limited.close());

  it('test_does_not_rate_limit_capture_endpoints: capture has no limits, whatever the API budget', async () => {
    const token = (await limited.api('GET', '/api/projects/1/')).body.api_token as string;
    expect(token).toMatch(/^phc_/);
    for (let i = 0; i < 2; i++) await limited.api('GET', '/api/projects/');
    expect((await limited.api('GET', '/api/projects/')).status).toBe(429);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${limited.url}/capture/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: token, event: 'e', distinct_id: `d${i}` }),
      });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
  });

  it('an unauthenticated request is a 401, never a 429 (throttles count API keys only)', async () => {
    for (let i = 0; i < 4; i++) expect((await limited.api('GET', '/api/projects/', undefined, null)).status).toBe(401);
  });
});
