/**
 * Named endpoints against PostHog's endpoint tests (products/endpoints/backend/tests: test_endpoint.py,
 * test_endpoint_execution.py, test_endpoint_versions.py, test_endpoint_openapi.py, test_endpoint_materialization*.py),
 * third pass: the rules of posthog-api.md §1 and §3 that endpoints-posthog-compat.test.ts, endpoints-*.test.ts and
 * rest-posthog-compat*.test.ts do not pin yet. Each case names the PostHog test or the reference section it follows.
 * One server, one project without events: the SQL selects constants or `numbers(n)`, the one insight endpoint answers
 * zeros, so no answer depends on the engine (no ClickHouse twin).
 */
import { Endpoint, User } from '../../src/store/entities';
import { gql, newKey, newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;
let p: number;
let ep: string;

const sql = (query: string) => ({ kind: 'HogQLQuery', query });
const notFound = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
const trends = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' } };
/** Creates an endpoint and checks the 201. */
const make = async (body: Record<string, unknown>) => {
  const r = await s.api('POST', `${ep}/`, body);
  expect([body.name, r.status]).toEqual([body.name, 201]);
  return r.body;
};
/** Runs the server's clock `ms` ahead (Date.now only: what cache freshness and usage times are judged by). */
const clockAhead = (ms: number) => {
  const realNow = Date.now.bind(Date);
  return jest.spyOn(Date, 'now').mockImplementation(() => realNow() + ms);
};

beforeAll(async () => {
  s = await startServer();
  p = await newProject(s, 'endpoints-posthog-compat-2');
  ep = `/api/environments/${p}/endpoints`;
});
afterAll(() => s.close());
afterEach(() => jest.restoreAllMocks());

describe('the serialized endpoint (reference §1.2, test_endpoint.py)', () => {
  const ENDPOINT_KEYS = [
    'id', 'name', 'description', 'query', 'is_active', 'data_freshness_seconds', 'endpoint_path', 'url', 'ui_url', 'created_at', 'updated_at',
    'created_by', 'is_materialized', 'current_version', 'current_version_id', 'versions_count', 'derived_from_insight', 'last_executed_at',
    'materialization', 'bucket_overrides', 'columns', 'tags', 'optional_breakdown_properties',
  ];
  const VERSION_KEYS = ['version', 'version_id', 'endpoint_is_active', 'version_created_at', 'version_created_by', 'version_updated_at'];
  const USER_BASIC_KEYS = ['distinct_id', 'email', 'first_name', 'hedgehog_config', 'id', 'is_email_verified', 'last_name', 'role_at_organization', 'uuid'];

  it('create, retrieve, list and update answer every documented field; `deleted` is never serialized', async () => {
    const made = await make({ name: 'shape', query: sql('select 1 as one') });
    const got = (await s.api('GET', `${ep}/shape/`)).body;
    const listed = (await s.api('GET', `${ep}/`)).body.results.find((e: { name: string }) => e.name === 'shape');
    const updated = (await s.api('PATCH', `${ep}/shape/`, { description: 'd' })).body;
    for (const view of [made, got, listed, updated]) {
      expect(Object.keys(view)).toEqual(expect.arrayContaining(ENDPOINT_KEYS));
      expect(view).not.toHaveProperty('deleted');
      for (const k of VERSION_KEYS) expect(view).not.toHaveProperty(k);
    }
    expect(made).toMatchObject({ is_materialized: false, bucket_overrides: null, derived_from_insight: null, last_executed_at: null, tags: [], optional_breakdown_properties: [] });
    // UserBasicSerializer's keys (Quarry's users lack the uuid, distinct id, verification, hedgehog and role: null)
    expect(Object.keys(made.created_by).sort()).toEqual(USER_BASIC_KEYS);
    expect(made.created_by).toMatchObject({ id: expect.any(Number), email: expect.any(String), first_name: expect.any(String), last_name: expect.any(String) });
    expect(made.materialization).toMatchObject({ name: 'shape', enabled: false, ready: false, can_materialize: false });
  });

  it('the version view adds version, version_id, endpoint_is_active and the version’s times and author (reference §1.2)', async () => {
    await make({ name: 'version_shape', query: sql('select 1 as one') });
    const v1 = (await s.api('GET', `${ep}/version_shape/?version=1`)).body;
    expect(Object.keys(v1)).toEqual(expect.arrayContaining([...ENDPOINT_KEYS, ...VERSION_KEYS]));
    expect(v1).not.toHaveProperty('deleted');
    expect([v1.version, v1.version_id, v1.endpoint_is_active]).toEqual([1, v1.current_version_id, true]);
    expect(Object.keys(v1.version_created_by).sort()).toEqual(USER_BASIC_KEYS);
  });
});

describe('delete (reference §1.3, §1.5, test_endpoint.py)', () => {
  it('DELETE answers 204 with an empty body', async () => {
    await make({ name: 'to_delete', query: sql('select 1 as one') });
    const r = await s.api('DELETE', `${ep}/to_delete/`);
    expect([r.status, r.text]).toEqual([204, '']);
    expect((await s.api('GET', `${ep}/to_delete/`)).body).toEqual(notFound);
  });

  it('PUT {"deleted": true} soft-deletes as PATCH does: 200 {"success": true}, then 404 everywhere', async () => {
    await make({ name: 'put_deleted', query: sql('select 1 as one') });
    const r = await s.api('PUT', `${ep}/put_deleted/`, { deleted: true });
    expect([r.status, r.body]).toEqual([200, { success: true }]);
    expect((await s.api('GET', `${ep}/put_deleted/`)).body).toEqual(notFound);
    expect((await s.api('POST', `${ep}/put_deleted/run/`, {})).body).toEqual(notFound);
  });

  it('{"deleted": false} (or null) is no delete: the rest of the body is an ordinary update', async () => {
    await make({ name: 'not_deleted', query: sql('select 1 as one') });
    const r = await s.api('PATCH', `${ep}/not_deleted/`, { deleted: false, description: 'kept' });
    expect([r.status, r.body.name, r.body.description]).toEqual([200, 'not_deleted', 'kept']);
    const n = await s.api('PATCH', `${ep}/not_deleted/`, { deleted: null, description: 'still' });
    expect([n.status, n.body.description]).toEqual([200, 'still']);
    expect((await s.api('POST', `${ep}/not_deleted/run/`, {})).body.results).toEqual([[1]]);
  });
});

describe('routing (reference §0, §4.2)', () => {
  beforeAll(async () => {
    await make({ name: 'routed', query: sql('select 1 as one') });
  });

  it.each([
    ['DELETE', '/routed/run/', 'GET, POST, HEAD'],
    ['PATCH', '/routed/run/', 'GET, POST, HEAD'],
    ['POST', '/routed/', 'GET, PUT, PATCH, DELETE, HEAD'],
    ['PUT', '/', 'GET, POST, HEAD'],
    ['DELETE', '/routed/versions/', 'GET, HEAD'],
    ['POST', '/routed/openapi.json/', 'GET, HEAD'],
  ])('%s …/endpoints%s → 405 method_not_allowed, Allow: %s (DRF)', async (method, path, allow) => {
    const r = await s.api(method, `${ep}${path}`, method === 'DELETE' ? undefined : {});
    expect([r.status, r.body]).toEqual([405, { type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${method}" not allowed.`, attr: null }]);
    expect(r.headers.get('allow')?.split(', ').sort()).toEqual(allow.split(', ').sort());
  });

  it('@current under /api/environments/ is the personal key’s project too: list, create and run', async () => {
    const list = await s.api('GET', '/api/environments/@current/endpoints/');
    expect(list.status).toBe(200);
    // the bootstrap key's current project is the first one, not this file's
    const own = await s.api('POST', '/api/environments/@current/endpoints/', { name: 'at_current', query: sql('select 5 as five') });
    expect([own.status, own.body.endpoint_path]).toEqual([201, expect.stringMatching(/^\/api\/environments\/\d+\/endpoints\/at_current\/run$/)]);
    const id = own.body.endpoint_path.split('/')[3];
    expect((await s.api('POST', `/api/environments/${id}/endpoints/at_current/run/`, {})).body.results).toEqual([[5]]);
    expect((await s.api('POST', '/api/environments/@current/endpoints/at_current/run/', {})).body.results).toEqual([[5]]);
  });
});

describe('create validation (reference §1.4)', () => {
  it('a HogQL query with a direct warehouse connection (connectionId) → 400 naming query', async () => {
    const r = await s.api('POST', `${ep}/`, { name: 'direct_conn', query: { ...sql('select 1 as one'), connectionId: 'warehouse-1' } });
    expect([r.status, r.body.type, r.body.attr]).toEqual([400, 'validation_error', 'query']);
    expect(r.body.detail).toMatch(/connection/);
    expect((await s.api('GET', `${ep}/direct_conn/`)).status).toBe(404);
    // nor may an update add one
    await make({ name: 'no_conn', query: sql('select 1 as one') });
    const upd = await s.api('PATCH', `${ep}/no_conn/`, { query: { ...sql('select 2 as one'), connectionId: 'warehouse-1' } });
    expect([upd.status, upd.body.attr]).toEqual([400, 'query']);
    expect((await s.api('GET', `${ep}/no_conn/`)).body.current_version).toBe(1);
  });
});

describe('EndpointRequest values (reference §1.4: a pydantic model, all fields optional)', () => {
  it('null is “not given”: is_active, tags and the others null on create take their defaults, on update change nothing', async () => {
    const nulls = { description: null, is_active: null, tags: null, data_freshness_seconds: null, derived_from_insight: null, is_materialized: null, bucket_overrides: null, version: null, deleted: null };
    const made = await s.api('POST', `${ep}/`, { name: 'all_nulls', query: sql('select 1 as one'), ...nulls });
    expect([made.status, made.body.is_active, made.body.tags, made.body.data_freshness_seconds]).toEqual([201, true, [], 86400]);
    await s.api('PATCH', `${ep}/all_nulls/`, { is_active: false, tags: ['kept'] });
    const upd = await s.api('PATCH', `${ep}/all_nulls/`, { is_active: null, tags: null, deleted: null });
    expect([upd.status, upd.body.is_active, upd.body.tags, upd.body.current_version]).toEqual([200, false, ['kept'], 1]);
  });

  it('integer fields as integer strings (pydantic’s lax mode): data_freshness_seconds "3600", version "1"', async () => {
    const made = await s.api('POST', `${ep}/`, { name: 'lax_ints', query: sql('select 1 as one'), data_freshness_seconds: '3600' });
    expect([made.status, made.body.data_freshness_seconds]).toEqual([201, 3600]);
    await s.api('PATCH', `${ep}/lax_ints/`, { query: sql('select 2 as one') });
    const targeted = await s.api('PATCH', `${ep}/lax_ints/`, { version: '1', description: 'first' });
    expect([targeted.status, targeted.body.version, targeted.body.description]).toEqual([200, 1, 'first']);
    // still one of the buckets, still an integer
    for (const bad of ['3601', '1h', '900.5']) {
      const r = await s.api('PATCH', `${ep}/lax_ints/`, { data_freshness_seconds: bad });
      expect([bad, r.status, r.body.attr]).toEqual([bad, 400, 'data_freshness_seconds']);
    }
    expect((await s.api('GET', `${ep}/lax_ints/`)).body.data_freshness_seconds).toBe(3600);
  });

  it('booleans as pydantic’s lax mode reads them: is_active "false", "no", 0 and "1"; anything else is pydantic’s message', async () => {
    await make({ name: 'lax_bools', query: sql('select 1 as one'), is_active: 'false' });
    expect((await s.api('GET', `${ep}/lax_bools/`)).body.is_active).toBe(false);
    for (const [sent, kept] of [['1', true], ['no', false], [1, true], [0, false], ['TRUE', true]] as const) {
      const r = await s.api('PATCH', `${ep}/lax_bools/`, { is_active: sent });
      expect([sent, r.status, r.body.is_active, r.body.current_version]).toEqual([sent, 200, kept, 1]);
    }
    for (const bad of ['maybe', 2, []]) {
      const r = await s.api('PATCH', `${ep}/lax_bools/`, { is_active: bad });
      expect([bad, r.status, r.body.attr, r.body.detail]).toEqual([
        bad,
        400,
        'is_active',
        typeof bad === 'string' ? 'Input should be a valid boolean, unable to interpret input' : 'Input should be a valid boolean',
      ]);
    }
    // nothing changed by the refused ones: the last accepted "TRUE"
    expect((await s.api('GET', `${ep}/lax_bools/`)).body.is_active).toBe(true);
  });
});

describe('is_active at two levels (reference §1.1, §1.5, test_endpoint_versions.py)', () => {
  it('an inactive endpoint stays inactive when one of its versions is switched on; a new query keeps it inactive', async () => {
    await make({ name: 'two_levels', query: sql('select 1 as one') });
    expect((await s.api('PATCH', `${ep}/two_levels/`, { is_active: false })).body.is_active).toBe(false);
    const v1 = await s.api('PATCH', `${ep}/two_levels/?version=1`, { is_active: true });
    expect([v1.status, v1.body.is_active, v1.body.endpoint_is_active]).toEqual([200, true, false]);
    expect((await s.api('POST', `${ep}/two_levels/run/`, {})).body).toEqual(notFound);
    const v2 = await s.api('PATCH', `${ep}/two_levels/`, { query: sql('select 2 as one') });
    expect([v2.body.current_version, v2.body.is_active]).toEqual([2, false]);
    expect((await s.api('POST', `${ep}/two_levels/run/`, {})).body).toEqual(notFound);
    expect((await s.api('PATCH', `${ep}/two_levels/`, { is_active: true })).body.is_active).toBe(true);
    expect((await s.api('POST', `${ep}/two_levels/run/`, {})).body.results).toEqual([[2]]);
  });
});

describe('run request (reference §1.6, test_endpoint_execution.py)', () => {
  beforeAll(async () => {
    await make({ name: 'rows', query: sql('select number from numbers(4) order by number') });
    await make({ name: 'needs_var', query: { kind: 'HogQLQuery', query: 'select {variables.who} as who' }, variables: [{ name: 'who', type: 'String' }] });
  });

  it.each(['async', 'blocking', 'force_async', 'force_blocking', 'force_cache', 'lazy_async', 'CACHE'])(
    'refresh %j is not an endpoint mode (cache, force, direct only): 400 naming refresh, with pydantic’s message',
    async (mode) => {
      const r = await s.api('POST', `${ep}/rows/run/`, { refresh: mode });
      expect([r.status, r.body.type, r.body.attr, r.body.detail]).toEqual([400, 'validation_error', 'refresh', "Input should be 'cache', 'force' or 'direct'"]);
    },
  );

  it.each([
    ['variables as a list', { variables: ['who'] }, 'variables', 'Input should be a valid dictionary'],
    ['variables as a string', { variables: 'who=x' }, 'variables', 'Input should be a valid dictionary'],
    ['debug as an object', { debug: { on: true } }, 'debug', 'Input should be a valid boolean'],
    ['debug as a word pydantic does not read', { debug: 'maybe' }, 'debug', 'Input should be a valid boolean, unable to interpret input'],
    ['debug as 2', { debug: 2 }, 'debug', 'Input should be a valid boolean'],
    ['client_query_id as a number', { client_query_id: 5 }, 'client_query_id', 'Input should be a valid string'],
  ])('EndpointRunRequest field types: %s → 400 naming the field with pydantic’s message', async (_what, body, attr, detail) => {
    const r = await s.api('POST', `${ep}/rows/run/`, body);
    expect([r.status, r.body.type, r.body.attr, r.body.detail]).toEqual([400, 'validation_error', attr, detail]);
  });

  it.each([
    ['"true"', 'true', true],
    ['"yes"', 'yes', true],
    ['1', 1, true],
    ['"off"', 'off', false],
    ['0', 0, false],
  ])('debug %s is read as pydantic’s lax bool reads it', async (_label, debug, on) => {
    const r = await s.api('POST', `${ep}/rows/run/`, { debug });
    expect([r.status, 'cache_key' in r.body]).toEqual([200, on]);
  });

  it('limit and offset: the body’s win over the query string’s, each on its own', async () => {
    const r = await s.api('POST', `${ep}/rows/run/?limit=1&offset=3`, { limit: 2, offset: 1 });
    expect([r.status, r.body.results, r.body.hasMore]).toEqual([200, [[1], [2]], true]);
    // a body limit with the query string's offset
    const mixed = await s.api('POST', `${ep}/rows/run/?offset=2`, { limit: 1 });
    expect([mixed.status, mixed.body.results]).toEqual([200, [[2]]]);
  });

  it('GET run: other query-string parameters are ignored; variables cannot come from it, so a required one is missing', async () => {
    const r = await s.api('GET', `${ep}/rows/run/?foo=bar&refresh=nope&debug=true`);
    expect([r.status, r.body.results.length]).toEqual([200, 4]);
    expect(r.body).not.toHaveProperty('cache_key');
    const missing = await s.api('GET', `${ep}/needs_var/run/?variables=%7B%22who%22%3A%22x%22%7D&who=x`);
    expect([missing.status, missing.body.attr, missing.body.detail]).toEqual([400, 'variables', "Required variable(s) 'who' not provided"]);
    expect((await s.api('POST', `${ep}/needs_var/run/`, { variables: { who: 'x' } })).body.results).toEqual([['x']]);
  });

  it('date_from and date_to are magic variables of insight endpoints only: unknown on a HogQL endpoint', async () => {
    const r = await s.api('POST', `${ep}/rows/run/`, { variables: { date_from: '2024-01-01', date_to: '2024-01-02' } });
    expect([r.status, r.body.attr, r.body.detail]).toEqual([400, 'variables', 'Unknown variable(s): date_from, date_to']);
  });
});

describe('run response (reference §1.6)', () => {
  const TAIL = ['name', 'execution_id', 'endpoint_version', 'endpoint_version_created_at'];
  const ENVELOPE = ['hasMore', 'is_cached', 'last_refresh', 'next_allowed_client_refresh', 'cache_target_age', 'timezone', 'query_status'];

  it.each([
    ['a HogQL endpoint', 'resp_sql', sql('select 7 as seven')],
    ['an insight endpoint', 'resp_trends', trends],
  ])('%s: results first, the envelope keys, then name, execution_id, endpoint_version, endpoint_version_created_at last', async (_what, name, query) => {
    await make({ name, query });
    for (const refresh of ['force', 'cache']) {
      const r = await s.api('POST', `${ep}/${name}/run/`, { refresh });
      expect(r.status).toBe(200);
      const keys = Object.keys(r.body);
      expect([refresh, keys[0], keys.slice(-4)]).toEqual([refresh, 'results', TAIL]);
      expect(keys).toEqual(expect.arrayContaining(ENVELOPE));
      expect([r.body.is_cached, r.body.name, r.body.endpoint_version]).toEqual([refresh === 'cache', name, 1]);
    }
  });

  it('debug on a HogQL endpoint: a debug run adds cache_key, timings and hogql; the next plain run of that cached answer drops them again', async () => {
    await make({ name: 'dbg_sql', query: sql('select 2 as two') });
    const debug = await s.api('POST', `${ep}/dbg_sql/run/`, { debug: true });
    expect([debug.status, debug.body.is_cached, debug.body.results]).toEqual([200, false, [[2]]]);
    expect(debug.body.cache_key).toMatch(/^cache_/);
    expect(typeof debug.body.hogql).toBe('string');
    expect(debug.body).toHaveProperty('timings');
    const plain = await s.api('POST', `${ep}/dbg_sql/run/`, {});
    expect([plain.body.is_cached, plain.body.results]).toEqual([true, [[2]]]);
    for (const k of ['cache_key', 'timings', 'hogql', 'modifiers', 'explain', 'calculation_trigger', 'resolved_date_range']) expect(plain.body).not.toHaveProperty(k);
    // and the other way round: a cached answer first served plain, then with debug
    const again = await s.api('POST', `${ep}/dbg_sql/run/`, { debug: true });
    expect([again.body.is_cached, again.body.cache_key]).toEqual([true, debug.body.cache_key]);
  });
});

describe('cost guardrails on /run (reference §1.6 status table, §4.2)', () => {
  it('a run past the query time limit: 400 query_timeout (type server_error, not the query API’s 504), with a remediation', async () => {
    // 1e14 rows to sum: runs until cancelled
    await make({ name: 'too_slow', query: sql('select sum((a.number * b.number) % 7) as s from numbers(10000000) as a cross join numbers(10000000) as b') });
    const options = (s.server.services.queries as unknown as { options: { timeoutMs: number } }).options;
    const timeoutMs = options.timeoutMs;
    options.timeoutMs = 200;
    try {
      const r = await s.api('POST', `${ep}/too_slow/run/`, {});
      expect([r.status, r.body.type, r.body.code, r.body.attr]).toEqual([400, 'server_error', 'query_timeout', null]);
      expect(r.body.detail).toMatch(/time limit.*\. Narrow the query/);
    } finally {
      options.timeoutMs = timeoutMs;
    }
  });
});

describe('caching by data_freshness_seconds (reference §1.6 “Inline: data_freshness_seconds”, §1.8)', () => {
  it('a cached answer is served until the version’s freshness has passed, then recomputed', async () => {
    await make({ name: 'fresh_15m', query: sql('select 15 as m'), data_freshness_seconds: 900 });
    await make({ name: 'fresh_1h', query: sql('select 60 as m'), data_freshness_seconds: 3600 });
    const first = { short: (await s.api('POST', `${ep}/fresh_15m/run/`, {})).body, long: (await s.api('POST', `${ep}/fresh_1h/run/`, {})).body };
    expect([first.short.is_cached, first.long.is_cached]).toEqual([false, false]);
    expect(Date.parse(first.short.cache_target_age) - Date.parse(first.short.last_refresh)).toBe(900_000);
    expect(Date.parse(first.long.cache_target_age) - Date.parse(first.long.last_refresh)).toBe(3_600_000);

    clockAhead(16 * 60_000);
    const short = (await s.api('POST', `${ep}/fresh_15m/run/`, {})).body;
    const long = (await s.api('POST', `${ep}/fresh_1h/run/`, {})).body;
    expect([short.is_cached, long.is_cached, long.last_refresh]).toEqual([false, true, first.long.last_refresh]);
    jest.restoreAllMocks();

    clockAhead(61 * 60_000);
    expect((await s.api('POST', `${ep}/fresh_1h/run/`, {})).body.is_cached).toBe(false);
  });

  it('a freshness change applies to the answer already cached: its cache_target_age moves, and it expires by the new freshness', async () => {
    await make({ name: 'fresh_change', query: sql('select 3 as three') });
    const first = (await s.api('POST', `${ep}/fresh_change/run/`, {})).body;
    expect((await s.api('POST', `${ep}/fresh_change/run/`, {})).body.is_cached).toBe(true);
    expect((await s.api('PATCH', `${ep}/fresh_change/`, { data_freshness_seconds: 900 })).body.data_freshness_seconds).toBe(900);
    const cached = (await s.api('POST', `${ep}/fresh_change/run/`, {})).body;
    expect([cached.is_cached, cached.last_refresh]).toEqual([true, first.last_refresh]);
    expect(Date.parse(cached.cache_target_age) - Date.parse(cached.last_refresh)).toBe(900_000);
    clockAhead(16 * 60_000);
    expect((await s.api('POST', `${ep}/fresh_change/run/`, {})).body.is_cached).toBe(false);
  });
});

describe('per-version freshness (reference §1.1, §1.5: data_freshness_seconds belongs to the version)', () => {
  it('a pinned run is cached for the pinned version’s freshness, not the current one’s', async () => {
    await make({ name: 'fresh_versions', query: sql('select 1 as v'), data_freshness_seconds: 900 });
    await s.api('PATCH', `${ep}/fresh_versions/`, { query: sql('select 2 as v') });
    expect((await s.api('PATCH', `${ep}/fresh_versions/`, { data_freshness_seconds: 604800 })).body.current_version).toBe(2);
    const age = (b: { cache_target_age: string; last_refresh: string }) => Date.parse(b.cache_target_age) - Date.parse(b.last_refresh);
    const v1 = (await s.api('POST', `${ep}/fresh_versions/run/`, { version: 1 })).body;
    const v2 = (await s.api('POST', `${ep}/fresh_versions/run/`, {})).body;
    expect([v1.endpoint_version, age(v1), v2.endpoint_version, age(v2)]).toEqual([1, 900_000, 2, 604_800_000]);
    clockAhead(16 * 60_000);
    expect((await s.api('POST', `${ep}/fresh_versions/run/`, { version: 1 })).body.is_cached).toBe(false);
    expect((await s.api('POST', `${ep}/fresh_versions/run/`, {})).body.is_cached).toBe(true);
  });
});

describe('usage times (reference §1.1, §1.3)', () => {
  it('last_executed_at is set by a project secret key’s run too, on the endpoint and the version', async () => {
    await make({ name: 'psak_ran', query: sql('select 1 as one') });
    const secret = (await s.api('POST', `/api/projects/${p}/project_secret_api_keys/`, { label: 'usage', scopes: ['endpoint:read'] })).body.value;
    expect((await s.api('POST', `${ep}/psak_ran/run/`, {}, secret)).status).toBe(200);
    const endpoint = (await s.api('GET', `${ep}/psak_ran/`)).body;
    const v1 = (await s.api('GET', `${ep}/psak_ran/?version=1`)).body;
    expect(Date.parse(endpoint.last_executed_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(v1.last_executed_at).toBe(endpoint.last_executed_at);
  });

  it('last_execution_times: a deleted endpoint, and another project’s endpoint of the same name, have no row', async () => {
    await make({ name: 'ran_then_deleted', query: sql('select 1 as one') });
    await make({ name: 'ran_here', query: sql('select 1 as one') });
    expect((await s.api('POST', `${ep}/ran_then_deleted/run/`, {})).status).toBe(200);
    expect((await s.api('DELETE', `${ep}/ran_then_deleted/`)).status).toBe(204);
    const other = await newProject(s, 'endpoints-posthog-compat-2 other');
    await s.api('POST', `/api/environments/${other}/endpoints/`, { name: 'ran_elsewhere', query: sql('select 1 as one') });
    expect((await s.api('POST', `/api/environments/${other}/endpoints/ran_elsewhere/run/`, {})).status).toBe(200);
    expect((await s.api('POST', `${ep}/ran_here/run/`, {})).status).toBe(200);
    const r = await s.api('POST', `${ep}/last_execution_times/`, { names: ['ran_then_deleted', 'ran_elsewhere', 'ran_here'] });
    expect(r.status).toBe(200);
    expect(r.body.query_status.results.map((row: string[]) => row[0])).toEqual(['ran_here']);
  });
});

describe('logs (reference §1.3 …/logs/, §1.6 “Rejected /run calls also write an ERROR entry”)', () => {
  type Entry = { log_source_id: string; instance_id: string; timestamp: string; level: string; message: string };
  const logs = async (qs = '') => {
    const r = await s.api('GET', `${ep}/logged/logs/${qs}`);
    expect(r.status).toBe(200);
    return r.body.results as Entry[];
  };

  it('a run writes an INFO entry whose instance_id is its execution_id; a refused run an ERROR entry; newest first', async () => {
    const made = await make({ name: 'logged', query: { kind: 'HogQLQuery', query: 'select {variables.n} as n' }, variables: [{ name: 'n', type: 'Number', default: 1 }] });
    expect(await logs()).toEqual([]);
    const ok = (await s.api('POST', `${ep}/logged/run/`, {})).body;
    const refused = await s.api('POST', `${ep}/logged/run/`, { variables: { n: 'one' } });
    expect(refused.status).toBe(400);
    const cached = (await s.api('POST', `${ep}/logged/run/`, {})).body;
    expect(cached.is_cached).toBe(true);
    const entries = await logs();
    expect(entries.map((e) => [e.level, e.log_source_id])).toEqual([
      ['INFO', made.id],
      ['ERROR', made.id],
      ['INFO', made.id],
    ]);
    expect([entries[0].instance_id, entries[2].instance_id]).toEqual([cached.execution_id, ok.execution_id]);
    expect(entries[1].message).toContain(refused.body.detail);
    for (const e of entries) expect(Object.keys(e).sort()).toEqual(['instance_id', 'level', 'log_source_id', 'message', 'timestamp']);
    expect(Date.parse(entries[0].timestamp)).toBeGreaterThanOrEqual(Date.parse(entries[2].timestamp));
  });

  it('filters level, search, instance_id, after and before; pages by limit', async () => {
    const all = await logs();
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect((await logs('?level=ERROR')).map((e) => e.level)).toEqual(['ERROR']);
    expect((await logs('?level=info,error')).length).toBe(all.length);
    expect((await logs(`?instance_id=${all[0].instance_id}`)).map((e) => e.instance_id)).toEqual([all[0].instance_id]);
    expect((await logs(`?search=${encodeURIComponent('MUST BE A NUMBER')}`)).map((e) => e.level)).toEqual(['ERROR']);
    expect(await logs(`?after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect((await logs(`?before=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).length).toBe(all.length);
    const page = await s.api('GET', `${ep}/logged/logs/?limit=1`);
    expect([page.body.count, page.body.results, page.body.previous]).toEqual([all.length, [all[0]], null]);
    const bad = await s.api('GET', `${ep}/logged/logs/?after=yesterday`);
    expect([bad.status, bad.body.type, bad.body.attr]).toEqual([400, 'validation_error', 'after']);
  });

  it('a missing endpoint has no logs (404); a project secret key may not read them (it runs only)', async () => {
    expect((await s.api('GET', `${ep}/nope/logs/`)).body).toEqual(notFound);
    const secret = (await s.api('POST', `/api/projects/${p}/project_secret_api_keys/`, { label: 'logs', scopes: ['endpoint:read'] })).body.value;
    const r = await s.api('GET', `${ep}/logged/logs/`, undefined, secret);
    expect([r.status, r.body.detail]).toEqual([403, 'This action does not support project secret API key access']);
  });
});

describe('materialization routes (reference §1.3, test_endpoint_materialization*.py; Quarry materializes nothing)', () => {
  beforeAll(async () => {
    await make({ name: 'mat', query: sql('select 1 as one') });
  });

  it('GET materialization_conditions: 200 {conditions_source, rewrite_contract}, two strings', async () => {
    for (const prefix of [`/api/environments/${p}`, `/api/projects/${p}`]) {
      const r = await s.api('GET', `${prefix}/endpoints/materialization_conditions/`);
      expect([r.status, Object.keys(r.body).sort()]).toEqual([200, ['conditions_source', 'rewrite_contract']]);
      expect([typeof r.body.conditions_source, typeof r.body.rewrite_contract]).toEqual(['string', 'string']);
    }
  });

  it('POST materialization_preview: the preview keys; never materializable here, with the reason the status gives', async () => {
    const r = await s.api('POST', `${ep}/mat/materialization_preview/`, { version: 1, bucket_overrides: { timestamp: 'day' } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['aggregates', 'can_materialize', 'display_execution_query', 'execution_query', 'range_pairs', 'reason', 'transformed_query']);
    const status = (await s.api('GET', `${ep}/mat/materialization_status/`)).body;
    expect(r.body).toMatchObject({ can_materialize: false, reason: status.reason, range_pairs: [], aggregates: [] });
    expect((await s.api('POST', `${ep}/mat/materialization_preview/`)).status).toBe(200);
  });

  it.each([
    ['an unknown version', 404, { version: 9 }, { error: 'Version 9 not found' }],
    ['a bucket function that is none', 400, { bucket_overrides: { timestamp: 'fortnight' } }, { type: 'validation_error', attr: 'bucket_overrides' }],
    ['an unknown key', 400, { nope: 1 }, { type: 'validation_error', attr: 'nope' }],
  ])('materialization_preview with %s → %d', async (_what, status, body, want) => {
    const r = await s.api('POST', `${ep}/mat/materialization_preview/`, body);
    expect(r.status).toBe(status);
    if ('error' in want) expect(r.body).toEqual(want);
    else expect(r.body).toMatchObject(want);
  });

  it('POST materialization_suggestion: the feature is off, so PostHog’s 404 {"error"}; a missing endpoint is Not found.', async () => {
    const r = await s.api('POST', `${ep}/mat/materialization_suggestion/`, {});
    expect([r.status, Object.keys(r.body), typeof r.body.error]).toEqual([404, ['error'], 'string']);
    expect((await s.api('POST', `${ep}/nope/materialization_suggestion/`, {})).body).toEqual(notFound);
    expect((await s.api('POST', `${ep}/nope/materialization_preview/`, {})).body).toEqual(notFound);
  });

  it('they are read actions: an endpoint:read key may call them, a project secret key may not (it runs only)', async () => {
    const reader = await newKey(s, ['endpoint:read']);
    expect((await s.api('GET', `${ep}/materialization_conditions/`, undefined, reader)).status).toBe(200);
    expect((await s.api('POST', `${ep}/mat/materialization_preview/`, {}, reader)).status).toBe(200);
    const secret = (await s.api('POST', `/api/projects/${p}/project_secret_api_keys/`, { label: 'mat', scopes: ['endpoint:read'] })).body.value;
    for (const [method, path] of [
      ['GET', '/materialization_conditions/'],
      ['POST', '/mat/materialization_preview/'],
      ['POST', '/mat/materialization_suggestion/'],
    ]) {
      const r = await s.api(method, `${ep}${path}`, method === 'POST' ? {} : undefined, secret);
      expect([path, r.status, r.body.detail]).toEqual([path, 403, 'This action does not support project secret API key access']);
    }
  });
});

describe('the OpenAPI document (test_endpoint_openapi.py, reference §1.7)', () => {
  it('?version=N documents that version’s variables: a variable added by version 2 is absent from version 1’s document', async () => {
    await make({ name: 'doc-vars', query: sql('select 1 as one') });
    await s.api('PATCH', `${ep}/doc-vars/`, { query: { kind: 'HogQLQuery', query: 'select {variables.who} as who' }, variables: [{ name: 'who', type: 'String' }] });
    const v2 = (await s.api('GET', `${ep}/doc-vars/openapi.json/`)).body;
    expect([v2.info.version, v2.components.schemas.Variables.required, v2.components.schemas.EndpointRunRequest.required]).toEqual(['2', ['who'], ['variables']]);
    const v1 = (await s.api('GET', `${ep}/doc-vars/openapi.json/?version=1`)).body;
    expect([v1.info.version, v1.components.schemas.Variables, v1.components.schemas.EndpointRunRequest.required]).toEqual(['1', undefined, undefined]);
    expect(v1.paths[`/api/projects/${p}/endpoints/doc-vars/run`].post.requestBody.required).toBe(false);
  });

  it('400, 401 and 404 carry PostHog’s descriptions: Invalid request, Authentication required, Endpoint not found', async () => {
    await make({ name: 'doc-responses', query: sql('select 1 as one') });
    const d = (await s.api('GET', `${ep}/doc-responses/openapi.json/`)).body;
    const responses = d.paths[`/api/projects/${p}/endpoints/doc-responses/run`].post.responses;
    expect([responses['400'].description, responses['401'].description, responses['404'].description]).toEqual([
      'Invalid request',
      'Authentication required',
      'Endpoint not found',
    ]);
    const result = d.components.schemas.RunResult;
    expect(result.properties.results.type).toBe('array');
    expect(result.required).toContain('results');
    expect(result.properties.hasMore.type).toBe('boolean');
  });

  it('the 200 response’s own schema is PostHog’s object: results (an array, required), columns (strings), hasMore (a boolean)', async () => {
    await make({ name: 'doc-200', query: sql('select 1 as one') });
    const d = (await s.api('GET', `${ep}/doc-200/openapi.json/`)).body;
    const ok = d.paths[`/api/projects/${p}/endpoints/doc-200/run`].post.responses['200'].content['application/json'].schema;
    expect([ok.type, ok.required]).toEqual(['object', ['results']]);
    expect(ok.properties).toMatchObject({ results: { type: 'array' }, columns: { type: 'array', items: { type: 'string' } }, hasMore: { type: 'boolean' } });
    // and a run answers that shape
    const run = await s.api('POST', `${ep}/doc-200/run/`, {});
    expect([Array.isArray(run.body.results), run.body.columns, run.body.hasMore]).toEqual([true, ['one'], false]);
  });
});

describe('HogQL variables in the query (reference §1.4, §1.6; test_endpoint_execution.py)', () => {
  let id: string;
  let withDefault: Record<string, unknown>;
  beforeAll(async () => {
    // PostHog's endpoint validation: an in-query definition names a saved variable of the project by its UUID
    id = (await s.api('POST', `/api/projects/${p}/insight_variables/`, { name: 'who', type: 'String' })).body.id;
    withDefault = {
      kind: 'HogQLQuery',
      query: "select coalesce({variables.who}, 'nobody') as who",
      variables: { [id]: { variableId: id, code_name: 'who', value: 'default one' } },
    };
  });

  it('a run without the variable uses the value saved in the query; a given value replaces it; null is SQL NULL', async () => {
    await make({ name: 'in-query-vars', query: withDefault });
    const run = async (body: Record<string, unknown>) => (await s.api('POST', `${ep}/in-query-vars/run/`, body)).body.results;
    expect(await run({})).toEqual([['default one']]);
    expect(await run({ variables: { who: 'given' } })).toEqual([['given']]);
    expect(await run({ variables: { who: null } })).toEqual([['nobody']]);
  });

  it('isNull: true in the saved query is a value set to NULL (HogQL’s variable replacement): a run without the variable binds NULL, whatever `value` holds; a given value replaces it', async () => {
    const nulled = { ...withDefault, variables: { [id]: { variableId: id, code_name: 'who', value: 'stale text', isNull: true } } };
    const made = await make({ name: 'in-query-null', query: nulled });
    expect(made.query).toEqual(nulled);
    const run = async (body: Record<string, unknown>) => (await s.api('POST', `${ep}/in-query-null/run/`, body)).body.results;
    expect(await run({})).toEqual([['nobody']]);
    expect(await run({ variables: { who: 'given' } })).toEqual([['given']]);
    // the query API binds it alike
    const viaQuery = await s.api('POST', `/api/projects/${p}/query/`, { query: nulled });
    expect(viaQuery.body.results).toEqual([['nobody']]);
    // optional in the document: the run body need not carry it, and no stale example is shown
    const doc = (await s.api('GET', `${ep}/in-query-null/openapi.json/`)).body;
    expect(doc.components.schemas.Variables.required).toBeUndefined();
    expect(doc.components.schemas.Variables.properties.who.example).toBeUndefined();
    expect(doc.paths[`/api/projects/${p}/endpoints/in-query-null/run`].post.requestBody.required).toBe(false);
  });

  it('a syntax error on create: 400 naming query, “Invalid HogQL query: ” and the parser’s message', async () => {
    const r = await s.api('POST', `${ep}/`, { name: 'bad-sql', query: sql('SELEC 1') });
    expect([r.status, r.body.attr, r.body.detail]).toEqual([400, 'query', "Invalid HogQL query: mismatched input 'SELEC' expecting {SELECT, WITH, '{', '(', '<'}"]);
    expect((await s.api('GET', `${ep}/bad-sql/`)).status).toBe(404);
  });
});

describe('list filters, bulk tags and the documented version range (reference §1.3, §1.7; test_endpoint.py, test_endpoint_openapi.py)', () => {
  it('?created_by=<user id> lists that user’s endpoints only; it combines with is_active', async () => {
    const q = await newProject(s, 'endpoints-posthog-compat-2 created_by');
    const eq = `/api/environments/${q}/endpoints`;
    for (const [name, is_active] of [['mine', true], ['mine_off', false], ['theirs', true]] as const) {
      expect((await s.api('POST', `${eq}/`, { name, query: sql('select 1 as one'), is_active })).status).toBe(201);
    }
    // another user of the organization made `theirs` (Quarry's keys all belong to the bootstrap user)
    const users = s.server.services.store.db.getRepository(User);
    const other = (await users.save(users.create({ email: 'other@endpoints-compat-2.test', name: 'Other' }))).id;
    await s.server.services.store.db.getRepository(Endpoint).update({ project_id: q, name: 'theirs' }, { created_by_id: other });
    const me = (await s.api('GET', `${eq}/mine/`)).body.created_by.id;
    const names = async (qs: string) => (await s.api('GET', `${eq}/?${qs}`)).body.results.map((e: { name: string }) => e.name).sort();
    expect(await names(`created_by=${other}`)).toEqual(['theirs']);
    expect(await names(`created_by=${me}`)).toEqual(['mine', 'mine_off']);
    expect(await names(`created_by=${me}&is_active=true`)).toEqual(['mine']);
    expect((await s.api('GET', `${eq}/theirs/`)).body.created_by).toMatchObject({ id: other, email: 'other@endpoints-compat-2.test' });
  });

  it('POST bulk_update_tags: 405 {"detail": "Bulk tag updates are not supported for endpoints."}', async () => {
    const r = await s.api('POST', `${ep}/bulk_update_tags/`, { ids: [1], action: 'add', tags: ['x'] });
    expect([r.status, r.body]).toEqual([405, { detail: 'Bulk tag updates are not supported for endpoints.' }]);
  });

  it('EndpointRunRequest.version states the range 1-{current_version}, minimum 1; limit minimum 1', async () => {
    await make({ name: 'ranged', query: sql('select 1 as one') });
    await s.api('PATCH', `${ep}/ranged/`, { query: sql('select 2 as one') });
    await s.api('PATCH', `${ep}/ranged/`, { query: sql('select 3 as one') });
    const props = (await s.api('GET', `${ep}/ranged/openapi.json/`)).body.components.schemas.EndpointRunRequest.properties;
    expect(props.version).toMatchObject({ type: 'integer', minimum: 1, description: expect.stringContaining('1-3') });
    expect(props.limit).toMatchObject({ type: 'integer', minimum: 1 });
    expect(props.refresh.enum).toEqual(['cache', 'force', 'direct']);
  });
});

describe('breakdown values on an insight endpoint run (reference §1.6; test_endpoint_execution.py)', () => {
  // its own project with three events; only per-series counts are compared, so no answer depends on the engine
  let eb: string;
  const byBrowser = { ...trends, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } };
  const pairs = (results: { breakdown_value: unknown; count: number }[]) => results.map((r) => [r.breakdown_value, r.count]);
  beforeAll(async () => {
    const q = await newProject(s, 'endpoints-posthog-compat-2 breakdowns');
    eb = `/api/environments/${q}/endpoints`;
    await s.server.services.ingestor.import(q, {
      events: [
        { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T10:00:00Z', properties: { $browser: 'Chrome' } },
        { event: '$pageview', distinct_id: 'u2', timestamp: '2024-01-01T11:00:00Z', properties: { $browser: 'Chrome' } },
        { event: '$pageview', distinct_id: 'u3', timestamp: '2024-01-01T12:00:00Z', properties: {} },
      ],
    });
    await s.server.services.ingestor.flush();
    expect((await s.api('POST', `${eb}/`, { name: 'by_browser', query: byBrowser })).status).toBe(201);
    const direct = await s.api('POST', `/api/projects/${q}/query/`, { query: byBrowser });
    expect(pairs(direct.body.results)).toEqual([
      ['Chrome', 2],
      ['$$_posthog_breakdown_null_$$', 1],
    ]);
  });

  it('the null-breakdown marker the query API answers becomes null on the endpoint run', async () => {
    const r = await s.api('POST', `${eb}/by_browser/run/`, {});
    expect([r.status, pairs(r.body.results)]).toEqual([
      200,
      [
        ['Chrome', 2],
        [null, 1],
      ],
    ]);
  });

  it('a breakdown variable filters by that value; "" means the property is not set', async () => {
    const chrome = await s.api('POST', `${eb}/by_browser/run/`, { variables: { $browser: 'Chrome' } });
    expect([chrome.status, pairs(chrome.body.results)]).toEqual([200, [['Chrome', 2]]]);
    const unset = await s.api('POST', `${eb}/by_browser/run/`, { variables: { $browser: '' } });
    expect([unset.status, pairs(unset.body.results)]).toEqual([200, [[null, 1]]]);
  });
});

describe('HogQL syntax errors on create and update (reference §1.4; test_endpoint.py)', () => {
  it.each(['POST', 'PATCH'])('%s: a DRF ValidationError on query, so code invalid_input (not the query API’s hogql_syntax_error)', async (method) => {
    if (method === 'PATCH') await make({ name: 'syntax_update', query: sql('select 1 as one') });
    const r = method === 'POST' ? await s.api('POST', `${ep}/`, { name: 'syntax_create', query: sql('selec 1') }) : await s.api('PATCH', `${ep}/syntax_update/`, { query: sql('selec 1') });
    expect([r.status, r.body.type, r.body.code, r.body.attr]).toEqual([400, 'validation_error', 'invalid_input', 'query']);
    expect(r.body.detail).toBe("Invalid HogQL query: mismatched input 'selec' expecting {SELECT, WITH, '{', '(', '<'}");
  });
});

describe('saved variables: /insight_variables/ (posthog/api/test/test_insight_variable.py, InsightVariableSerializer)', () => {
  let vp: number;
  let iv: string;
  beforeAll(async () => {
    vp = await newProject(s, 'endpoints-posthog-compat-2 insight variables');
    iv = `/api/environments/${vp}/insight_variables`;
  });
  const VARIABLE_KEYS = ['code_name', 'created_at', 'created_by', 'default_value', 'id', 'name', 'type', 'values'];

  it('test_create_insight_variable: 201; code_name "test_1" from "Test 1"; the serializer’s fields; created_by is the caller', async () => {
    const r = await s.api('POST', `${iv}/`, { name: 'Test 1', type: 'String' });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(VARIABLE_KEYS);
    expect(r.body).toMatchObject({ name: 'Test 1', type: 'String', code_name: 'test_1', default_value: null, values: null });
    expect(r.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(r.body.created_by).toMatchObject({ id: expect.any(Number), email: expect.any(String) });
    expect(Number.isNaN(Date.parse(r.body.created_at))).toBe(false);
    // retrieved and listed alike, under /api/projects/ too
    expect((await s.api('GET', `/api/projects/${vp}/insight_variables/${r.body.id}/`)).body).toEqual(r.body);
    const list = (await s.api('GET', `${iv}/`)).body;
    expect(list).toMatchObject({ count: 1, next: null, previous: null });
    expect(list.results).toEqual([r.body]);
  });

  it('test_no_duplicate_code_names: a second name with the same code name is 400 “Variable with name already exists” (no attr); nothing is saved', async () => {
    const r = await s.api('POST', `${iv}/`, { name: 'TEST 1', type: 'Number' });
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code: 'invalid_input', detail: 'Variable with name already exists', attr: null }]);
    expect((await s.api('GET', `${iv}/`)).body.count).toBe(1);
  });

  it.each([
    [{ type: 'String' }, 'name', 'required', 'This field is required.'],
    [{ name: '', type: 'String' }, 'name', 'blank', 'This field may not be blank.'],
    [{ name: 'x'.repeat(401), type: 'String' }, 'name', 'max_length', 'Ensure this field has no more than 400 characters.'],
    [{ name: 'No type' }, 'type', 'required', 'This field is required.'],
    [{ name: 'Bad type', type: 'Text' }, 'type', 'invalid_choice', '"Text" is not a valid choice.'],
  ])('create %j: 400 on %s (%s)', async (body, attr, code, detail) => {
    const r = await s.api('POST', `${iv}/`, body);
    expect([r.status, r.body]).toEqual([400, { type: 'validation_error', code, detail, attr }]);
  });

  it('read-only fields are ignored; default_value and values take any JSON; a List keeps its values', async () => {
    const r = await s.api('POST', `${iv}/`, { name: 'Plan tier', type: 'List', values: ['free', 'pro'], default_value: 'pro', code_name: 'ignored', id: 'x' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ code_name: 'plan_tier', values: ['free', 'pro'], default_value: 'pro' });
    expect(r.body.id).not.toBe('x');
  });

  it('PATCH changes the fields given (the code name stays as created); PUT needs name and type', async () => {
    const made = (await s.api('POST', `${iv}/`, { name: 'Limit rows', type: 'Number', default_value: 10 })).body;
    const patched = await s.api('PATCH', `${iv}/${made.id}/`, { name: 'Row limit', default_value: 20 });
    expect([patched.status, patched.body.name, patched.body.default_value, patched.body.code_name, patched.body.type]).toEqual([200, 'Row limit', 20, 'limit_rows', 'Number']);
    const put = await s.api('PUT', `${iv}/${made.id}/`, { name: 'Row limit' });
    expect([put.status, put.body.attr, put.body.code]).toEqual([400, 'type', 'required']);
    const bad = await s.api('PATCH', `${iv}/${made.id}/`, { type: 'Nope' });
    expect([bad.status, bad.body.attr, bad.body.detail]).toEqual([400, 'type', '"Nope" is not a valid choice.']);
  });

  it('test_delete_insight_variable: 204 and gone; an unknown id, a non-UUID or another project’s variable is 404', async () => {
    const made = (await s.api('POST', `${iv}/`, { name: 'Test Delete', type: 'String' })).body;
    const del = await s.api('DELETE', `${iv}/${made.id}/`);
    expect([del.status, del.text]).toEqual([204, '']);
    expect((await s.api('GET', `${iv}/${made.id}/`)).body).toEqual(notFound);
    expect((await s.api('DELETE', `${iv}/${made.id}/`)).status).toBe(404);
    expect((await s.api('GET', `${iv}/not-a-uuid/`)).body).toEqual(notFound);
    const other = (await s.api('GET', `${iv}/`)).body.results[0];
    expect((await s.api('GET', `/api/projects/${p}/insight_variables/${other.id}/`)).body).toEqual(notFound);
  });

  it('the list is paginated as the project’s other lists (limit/offset, absolute next/previous)', async () => {
    const q = await newProject(s, 'endpoints-posthog-compat-2 variable pages');
    for (const name of ['A', 'B', 'C']) expect((await s.api('POST', `/api/projects/${q}/insight_variables/`, { name, type: 'String' })).status).toBe(201);
    const page = (await s.api('GET', `/api/projects/${q}/insight_variables/?limit=2`)).body;
    expect([page.count, page.results.map((v: { name: string }) => v.name), page.previous]).toEqual([3, ['A', 'B'], null]);
    expect(page.next).toMatch(new RegExp(`/api/projects/${q}/insight_variables/\\?limit=2&offset=2$`));
  });

  it('scopes insight_variable:read / insight_variable:write', async () => {
    const read = await newKey(s, ['insight_variable:read']);
    expect((await s.api('GET', `${iv}/`, undefined, read)).status).toBe(200);
    const r = await s.api('POST', `${iv}/`, { name: 'Nope', type: 'String' }, read);
    expect([r.status, r.body.detail]).toEqual([403, "API key missing required scope 'insight_variable:write'"]);
  });
});

describe('saved variables in HogQL queries (posthog/hogql/variables.py replace_variables; test_hogql_query_runner.py)', () => {
  let vp: number;
  let foo: { id: string };
  beforeAll(async () => {
    vp = await newProject(s, 'endpoints-posthog-compat-2 variables in queries');
    foo = (await s.api('POST', `/api/projects/${vp}/insight_variables/`, { name: 'Foo', type: 'String', default_value: 'some value' })).body;
  });
  const ask = async (def: Record<string, unknown>) => {
    const r = await s.api('POST', `/api/projects/${vp}/query/`, { query: { kind: 'HogQLQuery', query: 'select {variables.foo} as foo', variables: { [foo.id]: { variableId: foo.id, code_name: 'foo', ...def } } } });
    expect(r.status).toBe(200);
    return r.body.results;
  };

  it('a value is bound; no value (absent or null) takes the saved default_value; isNull is NULL', async () => {
    expect(await ask({ value: 'bar' })).toEqual([['bar']]);
    expect(await ask({})).toEqual([['some value']]);
    expect(await ask({ value: null })).toEqual([['some value']]);
    expect(await ask({ value: 'ignored', isNull: true })).toEqual([[null]]);
  });

  it('a changed default is read by the next query (cached answers are dropped)', async () => {
    expect(await ask({})).toEqual([['some value']]);
    expect((await s.api('PATCH', `/api/projects/${vp}/insight_variables/${foo.id}/`, { default_value: 'changed' })).status).toBe(200);
    expect(await ask({})).toEqual([['changed']]);
    await s.api('PATCH', `/api/projects/${vp}/insight_variables/${foo.id}/`, { default_value: 'some value' });
  });

  it('another project’s variable does not exist here (replace_variables reads the team’s own), with a value too', async () => {
    for (const def of [{}, { value: 'given' }]) {
      const r = await s.api('POST', `/api/projects/${p}/query/`, {
        query: { kind: 'HogQLQuery', query: "select coalesce({variables.foo}, 'none') as foo", variables: { [foo.id]: { variableId: foo.id, code_name: 'foo', ...def } } },
      });
      expect([r.status, r.body.type, r.body.detail]).toEqual([400, 'validation_error', 'Variable foo does not exist']);
    }
  });

  it('test_variables.py: a definition whose saved variable has another code name, or is deleted, does not exist; no definition is “missing from query”', async () => {
    const asked = (variables: Record<string, unknown>) =>
      s.api('POST', `/api/projects/${vp}/query/`, { query: { kind: 'HogQLQuery', query: 'select {variables.bar} as bar', variables } });
    const renamed = await asked({ [foo.id]: { variableId: foo.id, code_name: 'bar', value: 1 } });
    expect([renamed.status, renamed.body.detail]).toEqual([400, 'Variable bar does not exist']);
    const missing = await asked({ [foo.id]: { variableId: foo.id, code_name: 'foo', value: 1 } });
    expect([missing.status, missing.body.detail]).toEqual([400, 'Variable bar is missing from query']);
    const bar = (await s.api('POST', `/api/projects/${vp}/insight_variables/`, { name: 'Bar', type: 'Number', default_value: 7 })).body;
    expect((await asked({ [bar.id]: { variableId: bar.id, code_name: 'bar' } })).body.results).toEqual([[7]]);
    expect((await s.api('DELETE', `/api/projects/${vp}/insight_variables/${bar.id}/`)).status).toBe(204);
    const deleted = await asked({ [bar.id]: { variableId: bar.id, code_name: 'bar' } });
    expect([deleted.status, deleted.body.detail]).toEqual([400, 'Variable bar does not exist']);
    // a definition that is no saved variable's (no UUID id) is Quarry's own, bound as given
    expect((await asked({ inline: { variableId: 'inline', code_name: 'bar', value: 3 } })).body.results).toEqual([[3]]);
  });
});

describe('saved variables in endpoints (reference §1.4, §1.7; test_endpoint.py, test_endpoint_openapi.py)', () => {
  let vp: number;
  let vep: string;
  let limit: { id: string };
  let since: { id: string };
  beforeAll(async () => {
    vp = await newProject(s, 'endpoints-posthog-compat-2 variables in endpoints');
    vep = `/api/environments/${vp}/endpoints`;
    limit = (await s.api('POST', `/api/projects/${vp}/insight_variables/`, { name: 'Row limit', type: 'Number', default_value: 3 })).body;
    since = (await s.api('POST', `/api/projects/${vp}/insight_variables/`, { name: 'Since', type: 'Date' })).body;
  });

  it('a definition naming a saved variable takes its type and default: a run without it uses the default; the document types it', async () => {
    const query = { kind: 'HogQLQuery', query: 'select {variables.row_limit} * 2 as twice', variables: { [limit.id]: { variableId: limit.id, code_name: 'row_limit', value: null } } };
    const r = await s.api('POST', `${vep}/`, { name: 'saved-number', query });
    expect(r.status).toBe(201);
    const run = async (body: Record<string, unknown>) => s.api('POST', `${vep}/saved-number/run/`, body);
    expect((await run({})).body.results).toEqual([[6]]);
    expect((await run({ variables: { row_limit: 5 } })).body.results).toEqual([[10]]);
    const wrong = await run({ variables: { row_limit: 'five' } });
    expect([wrong.status, wrong.body.attr]).toEqual([400, 'variables__row_limit']);
    const doc = (await s.api('GET', `${vep}/saved-number/openapi.json/`)).body;
    expect(doc.components.schemas.Variables.properties.row_limit).toMatchObject({ type: 'number', example: 3, description: 'Variable: row_limit' });
    expect(doc.components.schemas.Variables.required).toBeUndefined();
  });

  it('a saved Date variable without a default is a required date in the document', async () => {
    const query = { kind: 'HogQLQuery', query: 'select toDate({variables.since}) as d', variables: { [since.id]: { variableId: since.id, code_name: 'since' } } };
    expect((await s.api('POST', `${vep}/`, { name: 'saved-date', query })).status).toBe(201);
    const doc = (await s.api('GET', `${vep}/saved-date/openapi.json/`)).body;
    expect(doc.components.schemas.Variables.properties.since).toMatchObject({ type: 'string', format: 'date' });
    expect(doc.components.schemas.Variables.required).toEqual(['since']);
    const run = await s.api('POST', `${vep}/saved-date/run/`, { variables: { since: '2024-05-06' } });
    expect(run.body.results).toEqual([['2024-05-06']]);
  });

  it('placeholders without a definition are auto-filled from the project’s saved variables of that code name', async () => {
    const r = await s.api('POST', `${vep}/`, { name: 'auto-filled', query: sql('select {variables.row_limit} + 1 as n') });
    expect(r.status).toBe(201);
    expect(r.body.query.variables).toEqual({ [limit.id]: { variableId: limit.id, code_name: 'row_limit', value: 3 } });
    expect((await s.api('POST', `${vep}/auto-filled/run/`, {})).body.results).toEqual([[4]]);
    const doc = (await s.api('GET', `${vep}/auto-filled/openapi.json/`)).body;
    expect(doc.components.schemas.Variables.properties.row_limit.type).toBe('number');
    // a placeholder no saved variable answers is still PostHog's undefined-variable error
    const bad = await s.api('POST', `${vep}/`, { name: 'not-filled', query: sql('select {variables.nobody} as n') });
    expect([bad.status, bad.body.detail]).toEqual([400, 'Query references undefined variable(s): nobody. See https://posthog.com/docs/endpoints/variables for detail.']);
  });
});

describe('saved variables in a saved SQL insight (posthog/api/test/test_insight.py test_insight_variables_overrides)', () => {
  it('a definition without a value runs with the saved default; variables_override sets the value, shown in the returned query', async () => {
    const vp = await newProject(s, 'endpoints-posthog-compat-2 variables in insights');
    const v = (await s.api('POST', `/api/projects/${vp}/insight_variables/`, { name: 'Test 1', type: 'String', default_value: 'some_default_value' })).body;
    expect(v.code_name).toBe('test_1');
    const query = {
      kind: 'DataVisualizationNode',
      source: { kind: 'HogQLQuery', query: 'select {variables.test_1}', variables: { [v.id]: { code_name: 'test_1', variableId: v.id } } },
    };
    const made = await s.api('POST', `/api/projects/${vp}/insights/`, { name: 'sql with a variable', query });
    expect(made.status).toBe(201);
    const plain = (await s.api('GET', `/api/projects/${vp}/insights/${made.body.id}/?refresh=blocking`)).body;
    expect(plain.result).toEqual([['some_default_value']]);
    const override = encodeURIComponent(JSON.stringify({ [v.id]: { code_name: 'test_1', variableId: v.id, value: 'override value!' } }));
    const got = (await s.api('GET', `/api/projects/${vp}/insights/${made.body.id}/?refresh=blocking&variables_override=${override}`)).body;
    expect(got.result).toEqual([['override value!']]);
    expect(Object.keys(got.query.source.variables)).toHaveLength(1);
    for (const data of Object.values(got.query.source.variables) as { value: unknown }[]) expect(data.value).toBe('override value!');
  });
});

describe('saved variables over GraphQL (the same service as /insight_variables/)', () => {
  it('create, read, update and delete; the code name and the validation errors are the REST ones', async () => {
    const vp = await newProject(s, 'endpoints-posthog-compat-2 variables graphql');
    const fields = 'id name type defaultValue values codeName createdAt createdBy { id }';
    const made = await gql(s, `mutation($p: Int!) { createInsightVariable(projectId: $p, input: { name: "Max rows", type: "Number", defaultValue: 5 }) { ${fields} } }`, { p: vp });
    const v = made.body.data.createInsightVariable;
    expect(v).toMatchObject({ name: 'Max rows', type: 'Number', defaultValue: 5, values: null, codeName: 'max_rows' });
    const rest = (await s.api('GET', `/api/projects/${vp}/insight_variables/${v.id}/`)).body;
    expect([rest.code_name, rest.default_value]).toEqual(['max_rows', 5]);
    const listed = await gql(s, `query($p: Int!) { insightVariables(projectId: $p) { count results { id codeName } } }`, { p: vp });
    expect(listed.body.data.insightVariables).toEqual({ count: 1, results: [{ id: v.id, codeName: 'max_rows' }] });
    const updated = await gql(s, `mutation($p: Int!, $id: ID!) { updateInsightVariable(projectId: $p, id: $id, input: { defaultValue: 7 }) { defaultValue codeName } }`, { p: vp, id: v.id });
    expect(updated.body.data.updateInsightVariable).toEqual({ defaultValue: 7, codeName: 'max_rows' });
    const dup = await gql(s, `mutation($p: Int!) { createInsightVariable(projectId: $p, input: { name: "max rows", type: "String" }) { id } }`, { p: vp });
    expect(dup.body.errors[0]).toMatchObject({ message: 'Variable with name already exists', extensions: { code: 'invalid_input' } });
    const gone = await gql(s, `mutation($p: Int!, $id: ID!) { deleteInsightVariable(projectId: $p, id: $id) }`, { p: vp, id: v.id });
    expect(gone.body.data.deleteInsightVariable).toBe(true);
    expect((await s.api('GET', `/api/projects/${vp}/insight_variables/${v.id}/`)).status).toBe(404);
  });
});

describe('filters_override on run and name boundaries (reference §1.4, §1.6; test_endpoint.py, test_endpoint_execution.py)', () => {
  beforeAll(async () => {
    await make({ name: 'fo_sql', query: sql('select 1 as one') });
    await make({ name: 'fo_trends', query: trends });
  });

  it('a HogQL endpoint refuses filters_override: 400 naming it, “Not allowed for HogQL endpoints. Use variables instead.”', async () => {
    const r = await s.api('POST', `${ep}/fo_sql/run/`, { filters_override: { date_from: '-7d' } });
    expect([r.status, r.body.type, r.body.attr, r.body.detail]).toEqual([400, 'validation_error', 'filters_override', 'Not allowed for HogQL endpoints. Use variables instead.']);
    // null is "not given"
    expect((await s.api('POST', `${ep}/fo_sql/run/`, { filters_override: null })).status).toBe(200);
  });

  it('an insight endpoint takes it (deprecated): the run answers with the X-PostHog-Warn header; a plain run has none', async () => {
    const r = await s.api('POST', `${ep}/fo_trends/run/`, { filters_override: { date_from: '2024-01-01', date_to: '2024-01-05' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-posthog-warn')).toMatch(/^filters_override is deprecated/);
    expect(r.body.results[0].days).toEqual(['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05']);
    const plain = await s.api('POST', `${ep}/fo_trends/run/`, {});
    expect([plain.status, plain.headers.get('x-posthog-warn'), plain.body.results[0].days]).toEqual([200, null, ['2024-01-01', '2024-01-02']]);
  });

  it.each([
    ['128 characters', `a${'b'.repeat(127)}`, 201],
    ['hyphens and underscores after the first letter', 'a-b_C9', 201],
    ['129 characters', `a${'b'.repeat(128)}`, 400],
    ['a leading underscore', '_abc', 400],
    ['a leading hyphen', '-abc', 400],
    ['a space', 'daily signups', 400],
    ['a dot', 'daily.signups', 400],
  ])('a name of %s (%s) → %i', async (_what, name, status) => {
    const r = await s.api('POST', `${ep}/`, { name, query: sql('select 1 as one') });
    expect([r.status, status === 400 ? r.body.attr : r.body.name]).toEqual([status, status === 400 ? 'name' : name]);
    if (status === 400) expect(r.body.detail).toMatch(new RegExp(`^Invalid name '`));
  });
});
