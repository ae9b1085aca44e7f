/**
 * The REST surface against PostHog's API tests, eighth batch (the earlier ones are rest-posthog-compat.test.ts and -2
 * to -7): products/endpoints/backend/tests/test_endpoint_execution.py (version pinning from the query string and the
 * body, limit/offset paging from GET and POST, pages past the end, deleted endpoints), test_endpoint.py (the
 * versions list), test_endpoint_openapi.py (the run request schema: filters_override, refresh, version range,
 * variables) and posthog/api/test/test_query.py (a QueryRequest envelope that fails pydantic: 400 parse_error,
 * "JSON parse error - …"). Each case names the PostHog test or the reference section it ports.
 * No case reads events (the SQL reads `numbers(n)`), so there is no ClickHouse twin.
 */
import { newProject, startServer, type TestServer } from '../helpers/server';

let s: TestServer;

const sql = (query: string) => ({ kind: 'HogQLQuery', query });

beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

describe('endpoint runs: versions and paging (test_endpoint_execution.py, reference §1.3, §1.6)', () => {
  let ep: string;
  beforeAll(async () => {
    const p = await newProject(s, 'rest-compat-8 runs');
    ep = `/api/environments/${p}/endpoints`;
    expect((await s.api('POST', `${ep}/`, { name: 'nums', query: sql('select number from numbers(5) order by number') })).status).toBe(201);
    expect((await s.api('PATCH', `${ep}/nums/`, { query: sql('select number * 10 as n from numbers(3) order by n') })).body.current_version).toBe(2);
  });

  it('test_run_with_version_query_param: ?version=1 on a POST runs version 1; without it the latest runs', async () => {
    const v1 = await s.api('POST', `${ep}/nums/run/?version=1`, {});
    expect([v1.status, v1.body.endpoint_version, v1.body.columns, v1.body.results]).toEqual([200, 1, ['number'], [[0], [1], [2], [3], [4]]]);
    const latest = await s.api('POST', `${ep}/nums/run/`, {});
    expect([latest.body.endpoint_version, latest.body.results]).toEqual([2, [[0], [10], [20]]]);
  });

  it('the body’s version wins over the query string’s (reference §1.6)', async () => {
    const r = await s.api('POST', `${ep}/nums/run/?version=1`, { version: 2 });
    expect([r.status, r.body.endpoint_version, r.body.columns]).toEqual([200, 2, ['n']]);
    const back = await s.api('POST', `${ep}/nums/run/?version=2`, { version: 1 });
    expect([back.body.endpoint_version, back.body.columns]).toEqual([1, ['number']]);
  });

  it('GET run takes version, limit and offset from the query string: a middle page has hasMore', async () => {
    const r = await s.api('GET', `${ep}/nums/run/?version=1&limit=2&offset=2`);
    expect(r.status).toBe(200);
    expect([r.body.results, r.body.hasMore, r.body.endpoint_version]).toEqual([[[2], [3]], true, 1]);
    // results is always the first key (reference §1.6)
    expect(Object.keys(r.body)[0]).toBe('results');
  });

  it.each([
    ['the last, partial page', { limit: 2, offset: 4 }, [[4]]],
    ['a limit of exactly the row count', { limit: 5 }, [[0], [1], [2], [3], [4]]],
    ['an offset past the end', { limit: 2, offset: 10 }, []],
  ])('paging: %s has no more rows (hasMore false)', async (_what, page, rows) => {
    const r = await s.api('POST', `${ep}/nums/run/`, { version: 1, ...page });
    expect([r.status, r.body.results, r.body.hasMore]).toEqual([200, rows, false]);
  });

  it.each([
    ['POST', '/nums/run/', { version: 0 }, 'Invalid version parameter: 0'],
    ['POST', '/nums/run/?version=0', {}, 'Invalid version parameter: 0'],
    ['GET', '/nums/run/?limit=x', undefined, 'Invalid limit parameter: x'],
    ['GET', '/nums/run/?limit=0', undefined, 'Invalid limit parameter: 0'],
    ['GET', '/nums/run/?limit=2&offset=-1', undefined, 'Invalid offset parameter: -1'],
  ])('below the minimum or no integer (%s %s %j): 400 with PostHog’s bare {"error"} body', async (method, path, body, error) => {
    const r = await s.api(method, `${ep}${path}`, body);
    expect([r.status, r.body]).toEqual([400, { error }]);
  });

  it('a run without paging still says hasMore: false (present whenever results is)', async () => {
    const r = await s.api('POST', `${ep}/nums/run/`, { version: 1 });
    expect(r.body).toMatchObject({ hasMore: false, name: 'nums', endpoint_version: 1 });
    expect(typeof r.body.execution_id).toBe('string');
  });
});

describe('endpoint versions list (test_endpoint.py, reference §1.3)', () => {
  it('GET …/versions/: paginated version views, newest first; limit pages with absolute next/previous', async () => {
    const p = await newProject(s, 'rest-compat-8 versions');
    const ep = `/api/environments/${p}/endpoints`;
    await s.api('POST', `${ep}/`, { name: 'vv', query: sql('select 1 as a') });
    await s.api('PATCH', `${ep}/vv/`, { query: sql('select 2 as b') });
    await s.api('PATCH', `${ep}/vv/`, { query: sql('select 3 as c') });
    const all = await s.api('GET', `${ep}/vv/versions/`);
    expect(all.status).toBe(200);
    expect([all.body.count, all.body.next, all.body.previous]).toEqual([3, null, null]);
    expect(all.body.results.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(all.body.results[2]).toMatchObject({ version: 1, name: 'vv', endpoint_is_active: true, query: sql('select 1 as a') });
    const page = await s.api('GET', `${ep}/vv/versions/?limit=1&offset=1`);
    expect(page.body.results.map((v: { version: number }) => v.version)).toEqual([2]);
    expect(page.body.next).toMatch(new RegExp(`^https?://[^/]+/api/environments/${p}/endpoints/vv/versions/\\?limit=1&offset=2$`));
    expect(page.body.previous).toMatch(/^https?:\/\/[^/]+\/api\/environments\/\d+\/endpoints\/vv\/versions\/\?limit=1$/);
  });
});

describe('deleted endpoints (test_endpoint.py / test_endpoint_execution.py, reference §1.1 “disappear from every route”)', () => {
  it('after a soft delete: run, retrieve, versions and openapi.json are all 404 Not found.', async () => {
    const p = await newProject(s, 'rest-compat-8 deleted');
    const ep = `/api/environments/${p}/endpoints`;
    await s.api('POST', `${ep}/`, { name: 'gone', query: sql('select 1 as one') });
    expect((await s.api('POST', `${ep}/gone/run/`, {})).status).toBe(200);
    expect((await s.api('PATCH', `${ep}/gone/`, { deleted: true })).body).toEqual({ success: true });
    const notFound = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
    for (const [method, path] of [
      ['POST', '/gone/run/'],
      ['GET', '/gone/run/'],
      ['GET', '/gone/'],
      ['GET', '/gone/versions/'],
      ['GET', '/gone/openapi.json/'],
    ]) {
      const r = await s.api(method, `${ep}${path}`, method === 'POST' ? {} : undefined);
      expect([method, path, r.status, r.body]).toEqual([method, path, 404, notFound]);
    }
    expect((await s.api('GET', `${ep}/`)).body.results).toEqual([]);
  });
});

describe('the per-endpoint OpenAPI document (test_endpoint_openapi.py, reference §1.7)', () => {
  let ep: string;
  beforeAll(async () => {
    const p = await newProject(s, 'rest-compat-8 openapi');
    ep = `/api/environments/${p}/endpoints`;
    await s.api('POST', `${ep}/`, { name: 'plain-sql', query: sql('select 1 as one') });
    await s.api('PATCH', `${ep}/plain-sql/`, { query: sql('select 2 as two') });
  });

  it('EndpointRunRequest: filters_override is a DashboardFilter of PropertyFilters; refresh is cache|force|direct', async () => {
    const d = (await s.api('GET', `${ep}/plain-sql/openapi.json/`)).body;
    const sc = d.components.schemas;
    expect(sc.EndpointRunRequest.properties.filters_override.$ref).toBe('#/components/schemas/DashboardFilter');
    expect(sc.EndpointRunRequest.properties.refresh.enum).toEqual(['cache', 'force', 'direct']);
    expect(Object.keys(sc.DashboardFilter.properties).sort()).toEqual(['date_from', 'date_to', 'properties']);
    expect(sc.DashboardFilter.properties.properties.items).toEqual({ $ref: '#/components/schemas/PropertyFilter' });
    expect(sc.PropertyFilter.required).toEqual(['key']);
    expect(sc.PropertyFilter.properties.operator.enum).toEqual([
      'exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'lt', 'gte', 'lte',
      'is_set', 'is_not_set', 'is_date_exact', 'is_date_before', 'is_date_after', 'in', 'not_in',
    ]);
    expect(sc.PropertyFilter.properties.type.enum).toEqual(['event', 'person', 'session', 'cohort', 'group', 'hogql']);
    expect(sc.PropertyFilter.properties.value.oneOf).toEqual([{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' } }]);
  });

  it('version: an integer whose description gives the range 1-{current_version}; limit has minimum 1; no variables → no Variables, body optional', async () => {
    const d = (await s.api('GET', `${ep}/plain-sql/openapi.json/`)).body;
    const req = d.components.schemas.EndpointRunRequest;
    expect(req.properties.version.type).toBe('integer');
    expect(req.properties.version.description).toContain('1-2');
    expect(req.properties.limit).toMatchObject({ type: 'integer', minimum: 1 });
    expect(req.properties.debug.type).toBe('boolean');
    expect(req.properties.variables).toBeUndefined();
    expect(req.required).toBeUndefined();
    expect(d.components.schemas.Variables).toBeUndefined();
    const op = d.paths[Object.keys(d.paths)[0]].post;
    expect([op.operationId, op.requestBody.required]).toEqual(['run_plain_sql', false]);
    expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/EndpointRunRequest' });
  });

  it('an insight endpoint (TrendsQuery with one breakdown, not materialized): the breakdown, date_from and date_to are optional strings', async () => {
    const trend = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown: '$browser' } };
    expect((await s.api('POST', `${ep}/`, { name: 'by-browser', query: trend })).status).toBe(201);
    const d = (await s.api('GET', `${ep}/by-browser/openapi.json/`)).body;
    const vars = d.components.schemas.Variables;
    expect([vars.type, vars.additionalProperties, vars.required]).toEqual(['object', false, undefined]);
    expect(Object.keys(vars.properties).sort()).toEqual(['$browser', 'date_from', 'date_to']);
    for (const v of Object.values(vars.properties) as { type: string }[]) expect(v.type).toBe('string');
    expect(d.components.schemas.EndpointRunRequest.properties.variables).toEqual({ $ref: '#/components/schemas/Variables' });
    expect(d.components.schemas.EndpointRunRequest.required).toBeUndefined();
    const op = d.paths[`/api/projects/${ep.split('/')[3]}/endpoints/by-browser/run`].post;
    expect([op.operationId, op.requestBody.required]).toEqual(['run_by_browser', false]);
  });

  it('?version=1 documents version 1 (info.version "1"); an unknown version is a 404', async () => {
    expect((await s.api('GET', `${ep}/plain-sql/openapi.json/?version=1`)).body.info.version).toBe('1');
    expect((await s.api('GET', `${ep}/plain-sql/openapi.json/`)).body.info.version).toBe('2');
    expect((await s.api('GET', `${ep}/plain-sql/openapi.json/?version=5`)).status).toBe(404);
  });
});

describe('query API envelope errors (test_query.py, posthog/api/query.py get_model → ParseError, reference §9.1)', () => {
  const QUERY = '/api/projects/1/query/';
  const ok = sql('select 1');

  it.each([
    ['an unknown refresh mode', { query: ok, refresh: 'sometimes' }, 'refresh', 'enum', "input_value='sometimes', input_type=str"],
    ['an unknown top-level key (extra=forbid)', { query: ok, nope: 1 }, 'nope', 'extra_forbidden', 'input_value=1, input_type=int'],
    ['no query', { refresh: 'blocking' }, 'query', 'missing', "input_value={'refresh': 'blocking'}, input_type=dict"],
    ['a name that is no string', { query: ok, name: 5 }, 'name', 'string_type', 'input_value=5, input_type=int'],
    ['async that is no boolean', { query: ok, async: 'yes' }, 'async', 'bool_parsing', "input_value='yes', input_type=str"],
  ])('%s: 400 parse_error, “JSON parse error - 1 validation error for QueryRequest” naming the field', async (_what, body, field, type, input) => {
    const r = await s.api('POST', QUERY, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'invalid_request', code: 'parse_error', attr: field });
    expect(r.body.detail.startsWith(`JSON parse error - 1 validation error for QueryRequest\n${field}\n  `)).toBe(true);
    expect(r.body.detail).toContain(`[type=${type}, ${input}]`);
  });

  it('a body that is no object: pydantic’s model_type, no field', async () => {
    const r = await s.api('POST', QUERY, [1, 2]);
    expect([r.status, r.body.code, r.body.attr]).toEqual([400, 'parse_error', null]);
    expect(r.body.detail).toBe(
      'JSON parse error - 1 validation error for QueryRequest\n  Input should be a valid dictionary or instance of QueryRequest [type=model_type, input_value=[1, 2], input_type=list]',
    );
  });

  it('a large or deep input is cut as pydantic-core cuts it (first 25 characters, ..., last 24)', async () => {
    const big = await s.api('POST', QUERY, Array.from({ length: 200_000 }, (_, i) => i));
    expect(big.body.detail).toBe(
      'JSON parse error - 1 validation error for QueryRequest\n  Input should be a valid dictionary or instance of QueryRequest [type=model_type, input_value=[0, 1, 2, 3, 4, 5, 6, 7, ...838, 839, 840, 841, ...], input_type=list]',
    );
    let deep: unknown = 1;
    for (let i = 0; i < 500; i++) deep = [deep];
    const r = await s.api('POST', QUERY, { query: ok, refresh: deep });
    expect([r.status, r.body.code, r.body.attr]).toEqual([400, 'parse_error', 'refresh']);
    expect(r.body.detail).toMatch(/input_value=\[\[\[\[.*\.\.\..*\]\]\], input_type=list\]$/);
  });

  it('a query past the time limit: PostHog’s ClickHouseQueryTimeOut (reference §4.2), 504 server_error with its wording', async () => {
    const options = (s.server.services.queries as unknown as { options: { timeoutMs: number } }).options;
    const timeoutMs = options.timeoutMs;
    options.timeoutMs = 200;
    try {
      // 1e14 rows to sum: runs until cancelled
      const r = await s.api('POST', QUERY, { query: sql('select sum((a.number * b.number) % 7) as s from numbers(10000000) as a cross join numbers(10000000) as b') });
      expect([r.status, r.body]).toEqual([
        504,
        {
          type: 'server_error',
          code: 'query_timeout',
          detail: 'Query has hit the max execution time before completing. See our docs for how to improve your query performance. You may need to materialize.',
          attr: null,
        },
      ]);
    } finally {
      options.timeoutMs = timeoutMs;
    }
    // the next query runs as usual
    expect((await s.api('POST', QUERY, { query: sql('select 2') })).body.results).toEqual([[2]]);
  });

  it('a valid envelope still runs; a bad query node inside it keeps naming the field under query__', async () => {
    expect((await s.api('POST', QUERY, { query: ok, refresh: 'force_blocking', name: 'fine' })).body.results).toEqual([[1]]);
    const r = await s.api('POST', QUERY, { query: { kind: 'HogQLQuery', query: 'select 1', nope: true } });
    expect([r.status, r.body.attr]).toEqual([400, 'query__nope']);
  });
});
