/**
 * The REST surface against PostHog's API tests, second batch (the first is rest-posthog-compat.test.ts):
 * posthog/api/test/test_query.py (kinds, wrapper nodes, error codes, async statuses), test_insight.py (refreshing a
 * saved bare query), test_personal_api_keys.py (scope validation) and products/endpoints execution tests. Each case
 * names the PostHog test or the reference section it ports.
 */
import { startServer, type TestServer } from '../helpers/server';

let s: TestServer;

const QUERY = '/api/projects/1/query/';
const ENDPOINTS = '/api/environments/1/endpoints';
const pageviews = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' } };

beforeAll(async () => {
  s = await startServer();
  await s.server.services.ingestor.import(1, {
    events: [
      { event: '$pageview', distinct_id: 'u1', timestamp: '2024-01-01T10:00:00Z', properties: { key: 'test_val1' } },
      { event: '$pageview', distinct_id: 'u2', timestamp: '2024-01-02T10:00:00Z', properties: { key: 'test_val2' } },
      { event: 'sign up', distinct_id: 'u2', timestamp: '2024-01-02T11:00:00Z', properties: {} },
    ],
  });
  await s.server.services.ingestor.flush();
});
afterAll(() => s.close());

describe('query API (test_query.py)', () => {
  it('test_invalid_query_kind: 400 parse_error naming QueryRequest, the literal error and the input', async () => {
    const r = await s.api('POST', QUERY, { query: { kind: 'Tomato Soup' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'invalid_request', code: 'parse_error' });
    expect(r.body.detail).toContain('validation errors for QueryRequest');
    expect(r.body.detail).toContain("type=literal_error, input_value='Tomato Soup', input_type=str");
  });

  // process_query_model: a node that does not run itself but has a `source` runs the source
  it.each([
    ['DataTableNode', { kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: "SELECT count() FROM events WHERE event = '$pageview'" } }, 2],
    ['DataVisualizationNode', { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: "SELECT count() FROM events WHERE event = 'sign up'" }, display: 'ActionsTable' }, 1],
  ])('a %s runs its source: the answer is the source’s', async (_kind, query, count) => {
    const r = await s.api('POST', QUERY, { query });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ results: [[count]], columns: ['count()'], is_cached: false });
    // the same answer as the bare source, from the same cache entry
    const bare = await s.api('POST', QUERY, { query: query.source });
    expect([bare.body.is_cached, bare.body.cache_key]).toEqual([true, r.body.cache_key]);
  });

  it('an InsightVizNode runs its insight source; an EventsQuery in a DataTableNode runs too', async () => {
    const viz = await s.api('POST', QUERY, { query: { kind: 'InsightVizNode', source: pageviews, showHeader: true } });
    expect(viz.status).toBe(200);
    expect(viz.body.results[0]).toMatchObject({ data: [1, 1, 0], days: ['2024-01-01', '2024-01-02', '2024-01-03'] });
    const table = await s.api('POST', QUERY, {
      query: { kind: 'DataTableNode', source: { kind: 'EventsQuery', select: ['event', 'properties.key'], event: '$pageview', after: '2023-12-31', orderBy: ['timestamp'] } },
    });
    expect(table.status).toBe(200);
    expect(table.body.results).toEqual([
      ['$pageview', 'test_val1'],
      ['$pageview', 'test_val2'],
    ]);
  });

  it.each([
    ['an InsightVizNode around SQL', { kind: 'InsightVizNode', source: { kind: 'HogQLQuery', query: 'SELECT 1' } }, 'query__source__kind'],
    ['a bad source', { kind: 'InsightVizNode', source: { ...pageviews, interval: 'fortnight' } }, 'query__source__interval'],
    ['an unknown wrapper option', { kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: 'SELECT 1' }, bogus: true }, 'query__bogus'],
    ['a wrapper without source', { kind: 'DataTableNode' }, 'query__source'],
  ])('a wrapper node with %s is a 400 naming the field', async (_n, query, attr) => {
    const r = await s.api('POST', QUERY, { query });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'validation_error', attr });
  });

  it('async with a wrapper node: the status holds the source’s answer', async () => {
    const r = await s.api('POST', QUERY, { query: { kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: 'SELECT 77' } }, refresh: 'force_async', client_query_id: 'wrapped-async' });
    expect(r.status).toBe(202);
    await s.server.services.queries.async.wait('wrapped-async');
    const st = await s.api('GET', `${QUERY}wrapped-async/`);
    expect(st.status).toBe(200);
    expect(st.body.query_status).toMatchObject({ complete: true, error: false, results: { results: [[77]] } });
  });

  // TestQueryRetrieve: 202 while running, 200 complete, 400 failed with a message, 404 unknown
  it('TestQueryRetrieve: test_failed_query answers 400 with the message; test_with_invalid_query_id 404', async () => {
    const r = await s.api('POST', QUERY, { query: { kind: 'HogQLQuery', query: 'SELECT nope FROM events' }, refresh: 'force_async', client_query_id: 'fails-async' });
    expect(r.status).toBe(202);
    await s.server.services.queries.async.wait('fails-async');
    const st = await s.api('GET', `${QUERY}fails-async/`);
    expect(st.status).toBe(400);
    expect(st.body.query_status).toMatchObject({ id: 'fails-async', complete: true, error: true, error_message: 'Unable to resolve field: nope' });
    const missing = await s.api('GET', `${QUERY}no-such-query/`);
    expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
  });
});

describe('insights (test_insight.py)', () => {
  it('test_insight_refreshing_query: a bare TrendsQuery insight, computed by refresh=true, recomputed after new events', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'refreshing' })).body.id;
    await s.server.services.ingestor.import(p, {
      events: [
        { event: '$pageview', distinct_id: '1', timestamp: '2024-01-02T03:21:34Z' },
        { event: '$pageview', distinct_id: '2', timestamp: '2024-01-02T03:21:34Z' },
      ],
    });
    await s.server.services.ingestor.flush();
    const base = `/api/projects/${p}/insights/`;
    const made = await s.api('POST', base, { query: pageviews });
    expect(made.status).toBe(201);
    expect(made.body).not.toHaveProperty('code');
    expect([made.body.last_refresh, made.body.result]).toEqual([null, null]);

    const first = await s.api('GET', `${base}${made.body.id}/?refresh=true`);
    expect(first.body.result[0].data).toEqual([0, 2, 0]);
    expect(first.body.is_cached).toBe(false);
    expect(first.body.last_modified_at).toBe(made.body.last_modified_at);
    expect(Date.parse(first.body.last_refresh)).not.toBeNaN();

    await s.server.services.ingestor.import(p, { events: [{ event: '$pageview', distinct_id: '1', timestamp: '2024-01-03T05:01:34Z' }] });
    await s.server.services.ingestor.flush();
    const second = await s.api('GET', `${base}${made.body.id}/?refresh=true`);
    expect(second.body.result[0].data).toEqual([0, 2, 1]);
    expect(second.body.is_cached).toBe(false);
    expect(second.body.last_modified_at).toBe(made.body.last_modified_at); // computing is not a change
    // without refresh: the kept answer (force_cache never computes)
    const kept = await s.api('GET', `${base}${made.body.id}/`);
    expect([kept.body.result[0].data, kept.body.is_cached, kept.body.last_refresh]).toEqual([[0, 2, 1], true, second.body.last_refresh]);
  });
});

describe('personal API keys (test_personal_api_keys.py)', () => {
  it('test_create_personal_api_key_with_invalid_scope: the first invalid scope is named', async () => {
    const r = await s.api('POST', '/api/personal_api_keys/', { label: 'Test key uno', scopes: ['insight:read', 'invalid'] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Invalid scope: invalid', attr: 'scopes' });
    const write = await s.api('POST', '/api/personal_api_keys/', { label: 'x', scopes: ['insight:delete'] });
    expect(write.body.detail).toBe('Invalid scope: insight:delete');
  });
});

describe('scoped API keys (test_personal_api_keys.py TestPersonalAPIKeysWithScopeAPIAuthentication, reference §3.2/§3.3)', () => {
  const newKey = async (body: Record<string, unknown>) => (await s.api('POST', '/api/personal_api_keys/', { label: 'scoped', ...body })).body.value as string;

  it('a key restricted to scoped_teams: 403 naming the requested project; the same for a project that does not exist', async () => {
    const other = (await s.api('POST', '/api/projects/', { name: 'scoped other' })).body.id;
    const key = await newKey({ scopes: ['insight:read', 'query:read'], scoped_teams: [other] });
    expect((await s.api('GET', `/api/projects/${other}/insights/`, undefined, key)).status).toBe(200);
    for (const project of [1, 987654]) {
      const r = await s.api('GET', `/api/projects/${project}/insights/`, undefined, key);
      expect([r.status, r.body]).toEqual([
        403,
        { type: 'authentication_error', code: 'permission_denied', detail: `API key does not have access to the requested project: ID ${project}.`, attr: null },
      ]);
    }
    // the scope is checked first: a missing scope is named even outside the key's projects
    const write = await s.api('POST', '/api/projects/1/insights/', { query: pageviews }, key);
    expect(write.body.detail).toBe("API key missing required scope 'insight:write'");
  });

  it('a project secret key runs only its own project’s endpoints; other actions and non-project routes are refused', async () => {
    const p = (await s.api('POST', '/api/projects/', { name: 'psak binding' })).body.id;
    const secret = (await s.api('POST', `/api/projects/${p}/project_secret_api_keys/`, { label: 's', scopes: ['endpoint:read'] })).body.value;
    await s.api('POST', `${ENDPOINTS}/`, { name: 'bound', query: { kind: 'HogQLQuery', query: 'SELECT 1 AS one' } });
    const r = await s.api('POST', `${ENDPOINTS}/bound/run/`, {}, secret);
    expect([r.status, r.body.detail]).toEqual([403, 'API key does not have access to the requested project: ID 1.']);
    const list = await s.api('GET', `/api/projects/${p}/endpoints/`, undefined, secret);
    expect([list.status, list.body.detail]).toEqual([403, 'This action does not support project secret API key access']);
    for (const path of ['/api/projects/', '/api/personal_api_keys/']) {
      const notNested = await s.api('GET', path, undefined, secret);
      expect([notNested.status, notNested.body.detail]).toEqual([403, 'Project secret API keys are only supported on project-based endpoints.']);
    }
  });

  it('insight activity needs activity_log:read (InsightViewSet.activity required_scopes)', async () => {
    const made = (await s.api('POST', '/api/projects/1/insights/', { name: 'activity scope', query: pageviews })).body;
    const insightOnly = await newKey({ scopes: ['insight:write'] });
    for (const path of [`/api/projects/1/insights/${made.id}/activity/`, '/api/projects/1/insights/activity/']) {
      const denied = await s.api('GET', path, undefined, insightOnly);
      expect([denied.status, denied.body.detail]).toEqual([403, "API key missing required scope 'activity_log:read'"]);
    }
    const activity = await newKey({ scopes: ['activity_log:read'] });
    const r = await s.api('GET', `/api/projects/1/insights/${made.id}/activity/`, undefined, activity);
    expect([r.status, r.body.results[0].activity]).toEqual([200, 'created']);
  });
});

describe('endpoint runs (products/endpoints execution tests, reference §1.6)', () => {
  it('limit and offset are for HogQL endpoints only: an insight endpoint answers 400 naming the field', async () => {
    expect((await s.api('POST', `${ENDPOINTS}/`, { name: 'trend_pages', query: pageviews })).status).toBe(201);
    const limited = await s.api('POST', `${ENDPOINTS}/trend_pages/run/`, { limit: 10 });
    expect(limited.status).toBe(400);
    expect(limited.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'limit is only supported for HogQLQuery endpoints.', attr: 'limit' });
    const fromQueryString = await s.api('GET', `${ENDPOINTS}/trend_pages/run/?limit=10&offset=1`);
    expect([fromQueryString.status, fromQueryString.body.attr]).toEqual([400, 'limit']);
    const plain = await s.api('POST', `${ENDPOINTS}/trend_pages/run/`, {});
    expect([plain.status, plain.body.results[0].data, plain.body.hasMore]).toEqual([200, [1, 1, 0], false]);
    // a HogQL endpoint pages
    await s.api('POST', `${ENDPOINTS}/`, { name: 'sql_pages', query: { kind: 'HogQLQuery', query: 'SELECT distinct_id FROM events ORDER BY timestamp' } });
    const paged = await s.api('POST', `${ENDPOINTS}/sql_pages/run/`, { limit: 1, offset: 1 });
    expect([paged.status, paged.body.results, paged.body.hasMore]).toEqual([200, [['u2']], true]);
  });
});
